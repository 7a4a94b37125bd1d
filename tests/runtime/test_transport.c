/* test_transport.c - the cpu mailbox/sync layer under the hand-written
 * programs of ring_algos.h: ring allgather, three ring allreduce variants,
 * a rooted broadcast and a many-message alltoall, for N in
 * {1,2,3,4,5,7,8,16} (16 threads on 2 cores), counts {0, 1, N-1, N, 2N+3,
 * 1000003}, every dtype x op for allreduce, in place and not, compared bit
 * for bit with a naive sequential reference.
 *
 * Float data are chosen so that every reduction order gives the same bits
 * (small integers for SUM/MAX/MIN, +-1 and a few powers of two for PROD);
 * the kernels' own rounding is tested bit-exactly in test_kernels.
 * COLLRT_TEST_QUICK=1 (set for TSan builds) keeps only one 1000003-element
 * case per N. */
#include <pthread.h>
#include <stdatomic.h>
#include "ring_algos.h"
#include "rt_ref.h"

enum { K_ALLGATHER, K_AR0, K_AR1, K_AR2, K_BCAST, K_A2A, K_COUNT };
static const char *const kind_names[K_COUNT] = {"ring_allgather", "ring_allreduce",
                                                "ring_allreduce_rr", "ring_allreduce_tmp",
                                                "linear_broadcast", "flat_alltoall"};

typedef struct job {
    int kind;
    coll_dtype dt;
    coll_op op;
    size_t count;
    int inplace;   /* 0 no, 1 COLL_IN_PLACE, 2 same-position pointer (NCCL) */
    int root;
} job;

typedef struct ctx {
    int N;
    job *jobs;
    size_t njobs;
    pthread_barrier_t bar;
    unsigned char **in;        /* [N] inputs of the current job */
    unsigned char **want;      /* [N] expected outputs (may share storage) */
    unsigned char **want_mem;  /* [N] storage of want */
    size_t *in_cap, *want_cap;
    atomic_long failures;
} ctx;

static int blocks_in(const job *j, int N, int r) {
    switch (j->kind) {
    case K_BCAST: return r == j->root ? 1 : 0;
    case K_A2A: return N;
    default: return 1;
    }
}
static int blocks_out(const job *j, int N) {
    return (j->kind == K_ALLGATHER || j->kind == K_A2A) ? N : 1;
}

static void gen_value(const job *j, int r, size_t i, uint64_t seed, void *out) {
    uint64_t h = rt_hash(seed ^ rt_hash(((uint64_t)r << 40) ^ i));
    size_t esz = coll_dtype_size(j->dt);
    int reducing = j->kind >= K_AR0 && j->kind <= K_AR2;
    if (!is_float(j->dt) || !reducing) {
        memcpy(out, &h, esz);
        return;
    }
    double v;
    if (j->op == COLL_PROD) {
        static const double pick[4] = {1.0, 2.0, 0.5, 1.0};
        v = r < 4 ? pick[h % 4] : 1.0;
        if ((h >> 8) & 1) v = -v;
    } else {
        v = (double)((int)(h % 17) - 8);
    }
    switch (j->dt) {
    case COLL_F32: { float f = (float)v; memcpy(out, &f, 4); break; }
    case COLL_F64: memcpy(out, &v, 8); break;
    case COLL_F16: { uint16_t x = ref_d2h(v); memcpy(out, &x, 2); break; }
    default: { uint16_t x = ref_d2bf(v); memcpy(out, &x, 2); break; }
    }
}

/* Rank 0: inputs and expected outputs of job j. */
static void prepare(ctx *cx, const job *j, uint64_t seed) {
    int N = cx->N;
    size_t esz = coll_dtype_size(j->dt), cnt = j->count, blk = cnt * esz;
    int reducing = j->kind >= K_AR0 && j->kind <= K_AR2;
    for (int r = 0; r < N; r++) {
        /* buffers are kept and grown: fresh pages cost ~20 us each here */
        size_t nin = (size_t)blocks_in(j, N, r) * cnt;
        size_t nout = (size_t)blocks_out(j, N) * blk + 1;
        if (nin * esz + 1 > cx->in_cap[r]) {
            free(cx->in[r]);
            cx->in_cap[r] = nin * esz + 1;
            cx->in[r] = malloc(cx->in_cap[r]);
        }
        if ((r == 0 || !reducing) && nout > cx->want_cap[r]) {
            free(cx->want_mem[r]);
            cx->want_cap[r] = nout;
            cx->want_mem[r] = malloc(nout);
        }
        CHECK(cx->in[r] && (cx->want_mem[r] || (r && reducing)));
        cx->want[r] = reducing ? cx->want_mem[0] : cx->want_mem[r];
        for (size_t i = 0; i < nin; i++) gen_value(j, r, i, seed, cx->in[r] + i * esz);
    }
    for (int r = 0; r < N; r++) {
        unsigned char *w = cx->want[r];
        switch (j->kind) {
        case K_ALLGATHER:
            for (int q = 0; q < N; q++) memcpy(w + q * blk, cx->in[q], blk);
            break;
        case K_BCAST:
            memcpy(w, cx->in[j->root], blk);
            break;
        case K_A2A:
            for (int q = 0; q < N; q++) memcpy(w + q * blk, cx->in[q] + r * blk, blk);
            break;
        default:
            if (r > 0) break;  /* shares rank 0's expected output */
            memcpy(w, cx->in[0], blk);
            for (int q = 1; q < N; q++)
                for (size_t i = 0; i < cnt; i++)
                    ref_elem(j->dt, j->op, w + i * esz, w + i * esz, cx->in[q] + i * esz);
        }
    }
}

static int run_job(coll_comm *comm, const job *j, const void *sb, void *rb) {
    switch (j->kind) {
    case K_ALLGATHER: return ring_allgather(comm, sb, rb, j->count, j->dt, j->op);
    case K_AR0: return ring_allreduce(comm, sb, rb, j->count, j->dt, j->op);
    case K_AR1: return ring_allreduce_rr(comm, sb, rb, j->count, j->dt, j->op);
    case K_AR2: return ring_allreduce_tmp(comm, sb, rb, j->count, j->dt, j->op);
    case K_BCAST: return linear_broadcast(comm, sb, rb, j->count, j->dt, j->op, j->root);
    default: return flat_alltoall(comm, sb, rb, j->count, j->dt, j->op, 5);
    }
}

static int rank_main(coll_comm *comm, void *arg) {
    ctx *cx = arg;
    int N = cx->N, me = coll_comm_rank(comm);
    unsigned char *rb = NULL;
    size_t rb_cap = 0;
    for (size_t ji = 0; ji < cx->njobs; ji++) {
        const job *j = &cx->jobs[ji];
        if (me == 0) prepare(cx, j, ji * 7919 + (uint64_t)N);
        pthread_barrier_wait(&cx->bar);
        size_t esz = coll_dtype_size(j->dt), blk = j->count * esz;
        size_t out_bytes = (size_t)blocks_out(j, N) * blk;
        if (out_bytes + 1 > rb_cap) {
            free(rb);
            rb_cap = out_bytes + 1;
            rb = malloc(rb_cap);
            CHECK(rb);
        }
        memset(rb, 0xa5, out_bytes);
        const void *sb = cx->in[me];
        if (j->inplace && blocks_in(j, N, me)) {
            /* MPI's in-place layouts: input inside recvbuf */
            size_t off = j->kind == K_ALLGATHER ? (size_t)me * blk : 0;
            memcpy(rb + off, cx->in[me], (size_t)blocks_in(j, N, me) * blk);
            sb = j->inplace == 1 ? COLL_IN_PLACE : rb + off;
        }
        int rc = run_job(comm, j, sb, rb);
        if (rc != COLL_OK || memcmp(rb, cx->want[me], out_bytes) != 0) {
            if (atomic_fetch_add(&cx->failures, 1) < 10) {
                size_t bad = 0;
                while (rc == COLL_OK && bad < out_bytes && rb[bad] == cx->want[me][bad]) bad++;
                fprintf(stderr,
                        "FAIL N=%d rank %d %s %s/%s count=%zu inplace=%d root=%d: %s"
                        " (first bad byte %zu)\n",
                        N, me, kind_names[j->kind], coll_dtype_name(j->dt),
                        coll_op_name(j->op), j->count, j->inplace, j->root,
                        coll_strerror(rc), bad);
            }
        }
        pthread_barrier_wait(&cx->bar);
    }
    free(rb);
    return 0;
}

static job *jobs;
static size_t njobs, capjobs;
static void add(int kind, coll_dtype dt, coll_op op, size_t count, int inplace, int root) {
    if (njobs == capjobs) {
        capjobs = capjobs ? capjobs * 2 : 256;
        jobs = realloc(jobs, capjobs * sizeof *jobs);
        CHECK(jobs);
    }
    jobs[njobs++] = (job){kind, dt, op, count, inplace, root};
}

int main(void) {
    static const int Ns[] = {1, 2, 3, 4, 5, 7, 8, 16};
    const char *q = getenv("COLLRT_TEST_QUICK");
    int quick = q && *q && *q != '0';
    long total_fail = 0;
    size_t total_jobs = 0;
    for (size_t ni = 0; ni < sizeof Ns / sizeof Ns[0]; ni++) {
        int N = Ns[ni];
        njobs = 0;
        size_t small[] = {0, 1, (size_t)N - 1, (size_t)N, 2 * (size_t)N + 3, 777};
        size_t nsmall = sizeof small / sizeof small[0];
        for (int t = 0; t < N_DTYPES; t++) {
            coll_dtype dt = all_dtypes[t];
            for (int o = 0; o < COLL_OP_COUNT; o++) {
                if (coll_op_supported(dt, (coll_op)o) != COLL_OK) continue;
                for (size_t ci = 0; ci < nsmall; ci++)
                    add(K_AR0, dt, (coll_op)o, small[ci], (int)((ci + (size_t)o) % 3), 0);
            }
            for (size_t ci = 0; ci < nsmall; ci++) {
                add(K_AR1, dt, ci % 2 ? COLL_SUM : COLL_MAX, small[ci], (int)(ci % 3), 0);
                add(K_AR2, dt, ci % 2 ? COLL_MIN : COLL_PROD, small[ci], (int)((ci + 1) % 3), 0);
                add(K_ALLGATHER, dt, COLL_SUM, small[ci], (int)(ci % 3), 0);
                add(K_BCAST, dt, COLL_SUM, small[ci], (int)(ci % 2), (int)(ci % (size_t)N));
                add(K_A2A, dt, COLL_SUM, small[ci], (int)(ci % 3), 0);
            }
        }
        add(K_BCAST, COLL_I32, COLL_SUM, 100, 0, N - 1);
        add(K_A2A, COLL_U8, COLL_SUM, 1000, 1, 0);
        size_t big = 1000003;
        add(K_AR0, COLL_F32, COLL_SUM, big, 0, 0);
        if (!quick) {
            add(K_AR0, COLL_BF16, COLL_SUM, big, 1, 0);
            add(K_AR0, COLL_I8, COLL_PROD, big, 0, 0);
            add(K_AR0, COLL_F64, COLL_MIN, big, 2, 0);
            add(K_AR0, COLL_U64, COLL_BXOR, big, 0, 0);
            add(K_AR0, COLL_F16, COLL_MAX, big, 1, 0);
            add(K_AR1, COLL_I32, COLL_SUM, big, 0, 0);
            add(K_AR2, COLL_F32, COLL_MAX, big, 1, 0);
            add(K_ALLGATHER, COLL_U8, COLL_SUM, big, 0, 0);
            add(K_ALLGATHER, COLL_F16, COLL_SUM, big, 1, 0);
            add(K_BCAST, COLL_F64, COLL_SUM, big, 0, N / 2);
        }
        ctx cx = {.N = N, .jobs = jobs, .njobs = njobs};
        cx.in = calloc((size_t)N, sizeof *cx.in);
        cx.want = calloc((size_t)N, sizeof *cx.want);
        cx.want_mem = calloc((size_t)N, sizeof *cx.want_mem);
        cx.in_cap = calloc((size_t)N, sizeof *cx.in_cap);
        cx.want_cap = calloc((size_t)N, sizeof *cx.want_cap);
        CHECK(cx.in && cx.want && cx.want_mem && cx.in_cap && cx.want_cap);
        atomic_init(&cx.failures, 0);
        pthread_barrier_init(&cx.bar, NULL, (unsigned)N);
        int rc = coll_cpu_run(N, rank_main, &cx);
        CHECK_EQ(rc, COLL_OK);
        pthread_barrier_destroy(&cx.bar);
        for (int r = 0; r < N; r++) {
            free(cx.in[r]);
            free(cx.want_mem[r]);
        }
        free(cx.in);
        free(cx.want);
        free(cx.want_mem);
        free(cx.in_cap);
        free(cx.want_cap);
        long f = atomic_load(&cx.failures);
        printf("N=%-2d %zu calls per rank, %ld failures\n", N, njobs, f);
        total_fail += f;
        total_jobs += njobs;
    }
    free(jobs);
    if (total_fail) return 1;
    printf("transport: ok (%zu calls)\n", total_jobs);
    return 0;
}
