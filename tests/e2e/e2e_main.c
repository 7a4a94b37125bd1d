/* e2e_main.c - end-to-end check of one compiled algorithm on the cpu target.
 *
 * Built once per example from the C that `collc compile` emits, with
 *   -DE2E_ALG=<function> -DE2E_COLL=<COLL_* enum> -DE2E_ROOTED=<0|1>
 * It runs the algorithm on N threads over a matrix of N, roots, dtypes, ops,
 * counts (0, 1, N-1, N, N+5, 1000003 and 3 MiB - divided by N for the
 * collectives whose buffers have N blocks, to bound memory) and in-place /
 * not, and compares every rank's output bit for bit with the reference.
 *
 * The data and the naive reference are runtime/reference/collref.c: every
 * reduction order gives the same bits, so the check is exact without
 * depending on the order the algorithm reduces in. Guard bytes
 * around every buffer catch writes out of bounds.
 *
 * Every (type, operator) pair runs at every N and root, but only the first
 * with every count and layout (see main for how the others turn through
 * them).
 *
 * Output: one line per failing case, then "N passed, N failed"; exit 1 on
 * any failure. `--quick` trims the matrix (used under sanitizers).
 * `--start` runs every case through the nonblocking form instead:
 * NAME_start, then coll_test polling with some computation between the
 * polls (odd ranks switch to coll_wait after a few polls), checked against
 * the same reference. `--init` runs every case through the persistent
 * form: NAME_init once, then coll_request_start twice, first on an input of
 * zeros (every output must be zero: the plan holds no data), then on the
 * reference input. */
#include <coll_cpu.h>
#include "collref.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sched.h>
#include <stdatomic.h>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define E2E_START CAT(E2E_ALG, _start)
#define E2E_INIT CAT(E2E_ALG, _init)

#if E2E_ROOTED
int E2E_ALG(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op, int);
int E2E_START(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op, int, coll_request **);
int E2E_INIT(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op, int, coll_request **);
#else
int E2E_ALG(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op);
int E2E_START(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op, coll_request **);
int E2E_INIT(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op, coll_request **);
#endif

#define STR2(x) #x
#define STR(x) STR2(x)

static int g_start;             /* --start */
static int g_init;              /* --init */
static volatile double g_sink;  /* the computation between polls */
static _Atomic long g_pending;  /* polls that found a request not done */

enum { GUARD = 64 };
static const unsigned char GUARD_BYTE = 0xA5;

typedef struct Case {
    int N, root, inplace;
    size_t count;
    coll_dtype dt;
    coll_op op;
} Case;

typedef struct Run {
    Case k;
    size_t esz;
    unsigned char **in, **out;   /* per rank, including guards */
    size_t *in_bytes, *out_bytes;
    int *rc;
} Run;

#define COLL ((coll_collective)E2E_COLL)

/* ---- one case ---- */

static int in_blocks(const Run *R, int r) { return collref_in_blocks(COLL, R->k.N, R->k.root, r); }
static int out_blocks(const Run *R, int r) { return collref_out_blocks(COLL, R->k.N, R->k.root, r); }

/* Byte offset in recvbuf where rank r's input lives in an in-place call
 * (MPI's layouts); -1 when this rank passes its input normally. */
static long inplace_offset(const Run *R, int r) {
    size_t bb = R->k.count * R->esz;
    switch ((coll_collective)E2E_COLL) {
    case COLL_ALLGATHER: return (long)(r * bb);
    case COLL_GATHER: return r == R->k.root ? (long)(r * bb) : -1;
    case COLL_REDUCE_SCATTER: return -1; /* MPI keeps N blocks in recvbuf: not covered */
    case COLL_REDUCE: return r == R->k.root ? 0 : -1;
    case COLL_ALLREDUCE: case COLL_ALLTOALL: return 0;
    case COLL_BROADCAST: return r == R->k.root ? 0 : -1;
    case COLL_SCATTER: return -1; /* in place is on the recv side; not covered */
    default: return -1;
    }
}

/* The nonblocking form: start, compute and poll; odd ranks wait after a few
 * polls. A request that is not done refuses to be freed. */
static int start_and_poll(coll_comm *comm, int r, const void *send, void *out, const Case *k) {
    coll_request *q = NULL;
#if E2E_ROOTED
    int rc = E2E_START(comm, send, out, k->count, k->dt, k->op, k->root, &q);
#else
    int rc = E2E_START(comm, send, out, k->count, k->dt, k->op, &q);
#endif
    if (rc != COLL_OK) return q ? COLL_ERR_INTERNAL : rc;
    if (!q) return COLL_ERR_INTERNAL;
    int done = 0;
    for (unsigned polls = 0;; polls++) {
        rc = coll_test(q, &done);
        if (done) break;
        if (rc != COLL_OK) return COLL_ERR_INTERNAL;   /* pending requests say COLL_OK */
        g_pending++;
        if (polls == 0 && coll_request_free(q) != COLL_ERR_BUSY) return COLL_ERR_INTERNAL;
        for (int i = 0; i < 64; i++) g_sink += i * 0.5;   /* "compute" */
        if ((r & 1) && polls == 3) {
            rc = coll_wait(q);
            break;
        }
        sched_yield();
    }
    int again = 0;
    if (coll_test(q, &again) != rc || !again) rc = COLL_ERR_INTERNAL; /* done stays done */
    if (coll_request_free(q) != COLL_OK) rc = COLL_ERR_INTERNAL;
    return rc;
}

/* Polls a started request to its end (odd ranks wait after a few polls). */
static int poll_to_end(coll_request *q, int r) {
    int done = 0, rc = COLL_OK;
    for (unsigned polls = 0;; polls++) {
        rc = coll_test(q, &done);
        if (done) return rc;
        if (rc != COLL_OK) return COLL_ERR_INTERNAL;
        g_pending++;
        if (coll_request_start(q) != COLL_ERR_BUSY) return COLL_ERR_INTERNAL;
        for (int i = 0; i < 64; i++) g_sink += i * 0.5;
        if ((r & 1) && polls == 3) return coll_wait(q);
        sched_yield();
    }
}

/* The persistent form: one plan, two starts on different data. */
static int init_and_restart(coll_comm *comm, Run *R, int r, const void *send, void *out,
                            const Case *k) {
    coll_request *q = NULL;
#if E2E_ROOTED
    int rc = E2E_INIT(comm, send, out, k->count, k->dt, k->op, k->root, &q);
#else
    int rc = E2E_INIT(comm, send, out, k->count, k->dt, k->op, &q);
#endif
    if (rc != COLL_OK) return q ? COLL_ERR_INTERNAL : rc;
    if (!q) return COLL_ERR_INTERNAL;
    unsigned char *in = R->in_bytes[r] ? R->in[r] + GUARD : NULL;
    long off = k->inplace ? inplace_offset(R, r) : -1;
    unsigned char *live = send == COLL_IN_PLACE ? (unsigned char *)out + off : in;
    size_t n = R->in_bytes[r];
    unsigned char *save = malloc(n + 1);
    if (n) memcpy(save, live, n);
    if (n) memset(live, 0, n);
    rc = coll_request_start(q);
    if (rc == COLL_OK) rc = poll_to_end(q, r);
    size_t ob = (size_t)out_blocks(R, r) * k->count * R->esz;
    for (size_t i = 0; rc == COLL_OK && i < ob; i++)
        if (((unsigned char *)out)[i]) rc = COLL_ERR_INTERNAL;   /* not the zero input's result */
    if (n) memcpy(live, save, n);
    free(save);
    if (rc == COLL_OK) rc = coll_request_start(q);
    if (rc == COLL_OK) rc = poll_to_end(q, r);
    if (coll_request_free(q) != COLL_OK) rc = COLL_ERR_INTERNAL;
    return rc;
}

static int run_rank(coll_comm *comm, void *arg) {
    Run *R = arg;
    int r = coll_comm_rank(comm);
    const Case *k = &R->k;
    unsigned char *in = R->in_bytes[r] ? R->in[r] + GUARD : NULL;
    unsigned char *out = R->out_bytes[r] ? R->out[r] + GUARD : NULL;
    const void *send = in;
    if (k->inplace && inplace_offset(R, r) >= 0 && in_blocks(R, r) > 0) send = COLL_IN_PLACE;
    if (g_start) {
        R->rc[r] = start_and_poll(comm, r, send, out, k);
        return 0;
    }
    if (g_init) {
        R->rc[r] = init_and_restart(comm, R, r, send, out, k);
        return 0;
    }
#if E2E_ROOTED
    R->rc[r] = E2E_ALG(comm, send, out, k->count, k->dt, k->op, k->root);
#else
    R->rc[r] = E2E_ALG(comm, send, out, k->count, k->dt, k->op);
#endif
    return 0;
}

static int g_failed, g_passed, g_skipped;

static void fail(const Case *k, const char *fmt, int rank, size_t idx) {
    if (g_failed < 40)
        printf("FAIL %s N=%d root=%d count=%zu dtype=%s op=%s%s: %s (rank %d, element %zu)\n",
               STR(E2E_ALG), k->N, k->root, k->count, coll_dtype_name(k->dt), coll_op_name(k->op),
               k->inplace ? " in-place" : "", fmt, rank, idx);
    g_failed++;
}

static void run_case(Case k) {
    Run R = {.k = k, .esz = coll_dtype_size(k.dt)};
    int N = k.N;
    R.in = calloc((size_t)N, sizeof *R.in);
    R.out = calloc((size_t)N, sizeof *R.out);
    R.in_bytes = calloc((size_t)N, sizeof(size_t));
    R.out_bytes = calloc((size_t)N, sizeof(size_t));
    R.rc = calloc((size_t)N, sizeof(int));
    size_t bb = k.count * R.esz;
    for (int r = 0; r < N; r++) {
        R.in_bytes[r] = (size_t)in_blocks(&R, r) * bb;
        R.out_bytes[r] = (size_t)out_blocks(&R, r) * bb;
        R.in[r] = malloc(R.in_bytes[r] + 2 * GUARD);
        R.out[r] = malloc(R.out_bytes[r] + 2 * GUARD);
        memset(R.in[r], GUARD_BYTE, R.in_bytes[r] + 2 * GUARD);
        memset(R.out[r], GUARD_BYTE, R.out_bytes[r] + 2 * GUARD);
        collref_fill(COLL, k.dt, k.op, N, k.root, r, k.count, R.in[r] + GUARD);
        if (k.inplace && inplace_offset(&R, r) >= 0 && R.in_bytes[r])
            memcpy(R.out[r] + GUARD + inplace_offset(&R, r), R.in[r] + GUARD, R.in_bytes[r]);
    }
    int st = coll_cpu_run(N, run_rank, &R);
    int na = 0;
    for (int r = 0; r < N; r++) na += R.rc[r] == COLL_ERR_NOT_APPLICABLE;
    if (st != COLL_OK) {
        fail(&k, coll_strerror(st), -1, 0);
    } else if (na == N) {
        g_skipped++;
    } else {
        int bad = 0;
        for (int r = 0; r < N && !bad; r++)
            if (R.rc[r] != COLL_OK) { fail(&k, coll_strerror(R.rc[r]), r, 0); bad = 1; }
        /* expected output, element by element: computed once where every
         * rank's is the same (the reference reduces N values per element) */
        unsigned char *want = NULL;
        int have_want = 0;
        for (int r = 0; r < N && !bad; r++) {
            unsigned char *o = R.out[r];
            for (size_t g = 0; g < GUARD && !bad; g++)
                if (o[g] != GUARD_BYTE || o[GUARD + R.out_bytes[r] + g] != GUARD_BYTE) {
                    fail(&k, "write outside the receive buffer", r, g);
                    bad = 1;
                }
            if (!k.inplace || inplace_offset(&R, r) < 0)
                for (size_t g = 0; g < R.in_bytes[r] + 2 * GUARD && !bad; g++) {
                    unsigned char want = GUARD_BYTE;
                    if (g >= GUARD && g < GUARD + R.in_bytes[r]) continue;
                    if (R.in[r][g] != want) { fail(&k, "write outside the send buffer", r, g); bad = 1; }
                }
            if (!R.out_bytes[r]) continue;
            if (!have_want || !collref_output_shared(COLL)) {
                free(want);
                want = malloc(R.out_bytes[r]);
                if (!want) { fail(&k, "out of memory", r, 0); bad = 1; break; }
                collref_expect(COLL, k.dt, k.op, N, k.root, k.count, r, want);
                have_want = 1;
            }
            size_t e = collref_compare(k.dt, want, o + GUARD, R.out_bytes[r] / R.esz);
            if (e != (size_t)-1) {
                fail(&k, "wrong value", r, e);
                bad = 1;
            }
        }
        free(want);
        if (!bad) g_passed++;
    }
    for (int r = 0; r < N; r++) { free(R.in[r]); free(R.out[r]); }
    free(R.in); free(R.out); free(R.in_bytes); free(R.out_bytes); free(R.rc);
}

int main(int argc, char **argv) {
    int quick = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) quick = 1;
        else if (strcmp(argv[i], "--start") == 0) g_start = 1;
        else if (strcmp(argv[i], "--init") == 0) g_init = 1;
    }
    int reducing = collref_reducing(COLL);
    int blocks_n = collref_in_blocks(COLL, 2, 0, 0) == 2 || collref_out_blocks(COLL, 2, 0, 0) == 2;
    static const int Ns[] = {1, 2, 3, 4, 5, 7, 8, 16};
    static const coll_dtype all_dt[] = {COLL_F32, COLL_F64, COLL_F16, COLL_BF16, COLL_I8, COLL_U8,
                                        COLL_I32, COLL_U32, COLL_I64, COLL_U64};
    static const coll_dtype move_dt[] = {COLL_F32, COLL_U8, COLL_F64, COLL_BF16};
    static const coll_op ops[] = {COLL_SUM, COLL_PROD, COLL_MAX, COLL_MIN, COLL_BAND, COLL_BOR, COLL_BXOR};
    for (size_t ni = 0; ni < sizeof Ns / sizeof *Ns; ni++) {
        int N = Ns[ni];
        int roots[3] = {0, N - 1, N / 2}, nroots = E2E_ROOTED ? (N > 2 ? 3 : N) : 1;
        for (int ri = 0; ri < nroots; ri++) {
            int root = E2E_ROOTED ? roots[ri] : -1;
            size_t counts[5] = {0, 1, (size_t)(N > 1 ? N - 1 : 2), (size_t)N, (size_t)N + 5};
            const coll_dtype *dts = reducing ? all_dt : move_dt;
            size_t ndt = reducing ? sizeof all_dt / sizeof *all_dt : sizeof move_dt / sizeof *move_dt;
            size_t nops = reducing ? sizeof ops / sizeof *ops : 1;
            /* Every count, in place and not, with the first type (and
             * operator); every other (type, operator) pair once per (N,
             * root), its count and in-place choice turning with the pair's
             * index and with N, so that across the N each pair meets every
             * count and both layouts. The schedule moves the same chunks
             * whatever the type: what a type changes is the element size
             * of every offset and the kernel, and a pair crossed with every
             * count at every N repeated the same movements (ten times the
             * cases, in threads waiting on each other). --quick: f32 and
             * f64 (f32 alone for the nonblocking and persistent forms,
             * whose progress and restart code does not see the type), sum
             * and max, the first root. */
            int pair = 0;
            for (size_t di = 0; di < ndt; di++)
                for (size_t oi = 0; oi < nops; oi++) {
                    coll_op op = reducing ? ops[oi] : COLL_SUM;
                    if (reducing && coll_op_supported(dts[di], op) != COLL_OK) continue;
                    pair++;
                    for (int ci = 0; ci < 5; ci++)
                        for (int ip = 0; ip < 2; ip++) {
                            if (quick && (di > ((g_start || g_init) ? 0u : 1u) ||
                                          (oi > 0 && oi != 2) || ri > 0))
                                continue;
                            if (!quick && pair > 1 &&
                                (ci != (pair + (int)ni) % 5 || ip != (pair / 5 + (int)ni + ri) % 2))
                                continue;
                            run_case((Case){N, root, ip, counts[ci], dts[di], op});
                        }
                }
            /* large and uneven counts: 1000003 elements and 3 MiB (the
             * nonblocking and persistent forms: the 3 MiB one at N = 8
             * only; they share the schedule's code with the blocking one,
             * what they add does not depend on the count) */
            if ((N == 3 || N == 8) && ri == 0 && (!(g_start || g_init) || N == 8)) {
                size_t div = blocks_n ? (size_t)N : 1;
                size_t big[2] = {1000003 / div, (3u << 20) / 4 / div + 1};
                for (int bi = (g_start || g_init) ? 1 : 0; bi < 2; bi++)
                    for (int ip = 0; ip < 2; ip++)
                        run_case((Case){N, root, ip, big[bi], COLL_F32, COLL_SUM});
            }
        }
    }
    if ((g_start || g_init) && g_passed && !g_pending) {
        printf("FAIL %s: no poll ever found a request in progress\n", STR(E2E_ALG));
        g_failed++;
    }
    printf("%s%s: %d passed, %d failed, %d skipped\n", STR(E2E_ALG),
           g_start ? " (start)" : g_init ? " (init)" : "",
           g_passed, g_failed, g_skipped);
    if (g_start || g_init) printf("%ld polls found a request in progress\n", (long)g_pending);
    return g_failed ? 1 : 0;
}
