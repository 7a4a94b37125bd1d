/* start_check.c - the nonblocking form of every example on the MPI target:
 * collc_NAME_start (C path) and collc_llvm_NAME_start (LLVM path) on the
 * coll_comm of MPI_COMM_WORLD, completed by coll_test polling with
 * computation between the polls (odd ranks switch to coll_wait after a few
 * polls), compared bit for bit with the naive reference
 * (runtime/reference/collref.c), in place and not, roots 0 and N-1,
 * uneven counts. Then requests that overlap each other and blocking calls
 * on the same communicator, completed in another order than started.
 *
 *   mpirun -n N start_check [--quick]
 * Exit status 0 when every case matches. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <collmpi.h>

#include "collref.h"

typedef int (*fn_u)(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op);
typedef int (*fn_r)(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op, int);
typedef int (*start_u)(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op,
                       coll_request **);
typedef int (*start_r)(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op, int,
                       coll_request **);

#define ROOTED_BROADCAST 1
#define ROOTED_SCATTER 1
#define ROOTED_GATHER 1
#define ROOTED_REDUCE 1
#define ROOTED_ALLGATHER 0
#define ROOTED_REDUCE_SCATTER 0
#define ROOTED_ALLREDUCE 0
#define ROOTED_ALLTOALL 0
#define DECL_0(f)                                                                  \
    int f(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op);         \
    int f##_start(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op, \
                  coll_request **);
#define DECL_1(f)                                                                       \
    int f(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op, int);         \
    int f##_start(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op, int, \
                  coll_request **);
#define DECL3(f, r) DECL_##r(f)
#define DECL2(f, r) DECL3(f, r)
#define ALG(name, K) DECL2(collc_##name, ROOTED_##K) DECL2(collc_llvm_##name, ROOTED_##K)
#include "mpi_algs.h"
#undef ALG

typedef struct alg {
    const char *name;
    coll_collective coll;
    void (*fn)(void), (*start)(void);
} alg;

static const alg algs[] = {
#define ALG(name, K)                                                                         \
    {#name, COLL_##K, (void (*)(void))collc_##name, (void (*)(void))collc_##name##_start}, \
    {"llvm_" #name, COLL_##K, (void (*)(void))collc_llvm_##name,                            \
     (void (*)(void))collc_llvm_##name##_start},
#include "mpi_algs.h"
#undef ALG
};

static int N, me;
static long ncases, nfail, nskip, npending;
static volatile double sink;

static const alg *find(const char *name) {
    for (size_t i = 0; i < sizeof algs / sizeof *algs; i++)
        if (strcmp(algs[i].name, name) == 0) return &algs[i];
    return NULL;
}

static int start(const alg *a, coll_comm *cc, const void *sb, void *rb, size_t count,
                 coll_dtype dt, coll_op op, int root, coll_request **q) {
    return collref_rooted(a->coll) ? ((start_r)a->start)(cc, sb, rb, count, dt, op, root, q)
                                   : ((start_u)a->start)(cc, sb, rb, count, dt, op, q);
}

static int blocking(const alg *a, coll_comm *cc, const void *sb, void *rb, size_t count,
                    coll_dtype dt, coll_op op, int root) {
    return collref_rooted(a->coll) ? ((fn_r)a->fn)(cc, sb, rb, count, dt, op, root)
                                   : ((fn_u)a->fn)(cc, sb, rb, count, dt, op);
}

/* Completes q: polls with computation between, or waits after 3 polls. */
static int complete(coll_request *q, int wait_after) {
    int done = 0, rc = COLL_OK;
    for (int polls = 0;; polls++) {
        rc = coll_test(q, &done);
        if (done) break;
        if (rc != COLL_OK) return COLL_ERR_INTERNAL;
        npending++;
        for (int i = 0; i < 2000; i++) sink += i * 0.25;
        if (wait_after && polls == 3) {
            rc = coll_wait(q);
            break;
        }
    }
    if (coll_request_free(q) != COLL_OK) return COLL_ERR_INTERNAL;
    return rc;
}

/* The input of rank r in the layout of the call (in place: in recvbuf). */
typedef struct bufs {
    char *in, *out;
    size_t in_b, out_b;
    const void *sb;
} bufs;

static long inplace_offset(coll_collective c, int root, int r, size_t bb) {
    switch (c) {
    case COLL_ALLREDUCE:
    case COLL_REDUCE_SCATTER:
    case COLL_ALLTOALL: return 0;
    case COLL_REDUCE: return r == root ? 0 : -1;
    case COLL_ALLGATHER: return (long)((size_t)r * bb);
    case COLL_GATHER: return r == root ? (long)((size_t)root * bb) : -1;
    case COLL_BROADCAST: return r == root ? 0 : -1;
    default: return -1;
    }
}

static void make(bufs *b, coll_collective c, coll_dtype dt, coll_op op, int root, size_t count,
                 int in_place) {
    size_t bb = count * coll_dtype_size(dt);
    b->in_b = (size_t)collref_in_blocks(c, N, root, me) * bb;
    b->out_b = (size_t)collref_out_blocks(c, N, root, me) * bb;
    long off = in_place ? inplace_offset(c, root, me, bb) : -1;
    size_t room = b->out_b;
    if (off >= 0 && (size_t)off + b->in_b > room) room = (size_t)off + b->in_b; /* reduce_scatter */
    b->in = malloc(b->in_b + 1);
    b->out = malloc(room + 1);
    memset(b->out, 0x5a, room + 1);
    collref_fill(c, dt, op, N, root, me, count, b->in);
    b->sb = b->in;
    if (off >= 0 && b->in_b) {
        memcpy(b->out + off, b->in, b->in_b);
        b->sb = COLL_IN_PLACE;
    }
}

static int check(const bufs *b, coll_collective c, coll_dtype dt, coll_op op, int root,
                 size_t count) {
    return collref_check(c, dt, op, N, root, count, me, b->out) == (size_t)-1;
}

static void release(bufs *b) {
    free(b->in);
    free(b->out);
}

/* One case on every rank; the verdict is agreed on so that all ranks skip
 * (a `require` fails for this N) or fail alike. */
static void run_case(const alg *a, coll_comm *cc, coll_dtype dt, coll_op op, size_t count,
                     int in_place, int root) {
    bufs b;
    if (getenv("START_CHECK_TRACE"))
        fprintf(stderr, "[%d] %s %s %zu in_place %d root %d\n", me, a->name, coll_dtype_name(dt),
                count, in_place, root);
    make(&b, a->coll, dt, op, root, count, in_place);
    coll_request *q = NULL;
    int rc = start(a, cc, b.sb, b.out, count, dt, op, root, &q);
    if (rc == COLL_OK) rc = complete(q, me & 1);
    int ok = rc == COLL_OK && check(&b, a->coll, dt, op, root, count);
    int na = rc == COLL_ERR_NOT_APPLICABLE, all_na = 0, all_ok = 0;
    MPI_Allreduce(&na, &all_na, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    release(&b);
    if (all_na) {
        nskip++;
        return;
    }
    ncases++;
    if (!ok) {
        nfail++;
        if (nfail < 20)
            fprintf(stderr, "FAIL N=%d rank %d %s_start: %s %s count %zu in_place %d root %d: %s\n",
                    N, me, a->name, coll_dtype_name(dt), coll_op_name(op), count, in_place, root,
                    rc == COLL_OK ? "wrong result" : coll_strerror(rc));
    }
}

/* Two requests and a blocking call on one communicator at once, the
 * requests completed in the reverse order of their start. */
static void overlap(coll_comm *cc, const char *an, const char *bn, const char *cn) {
    const alg *a = find(an), *b = find(bn), *c = find(cn);
    if (!a || !b || !c) {
        fprintf(stderr, "overlap: %s, %s or %s missing\n", an, bn, cn);
        nfail++;
        return;
    }
    size_t count = 4099;
    bufs ba, bb, bc;
    make(&ba, a->coll, COLL_F32, COLL_SUM, 0, count, 0);
    make(&bb, b->coll, COLL_I32, COLL_MAX, 0, count, 1);
    make(&bc, c->coll, COLL_F64, COLL_SUM, 0, count, 0);
    coll_request *qa = NULL, *qb = NULL;
    int ra = start(a, cc, ba.sb, ba.out, count, COLL_F32, COLL_SUM, 0, &qa);
    int rb = start(b, cc, bb.sb, bb.out, count, COLL_I32, COLL_MAX, 0, &qb);
    int rc = blocking(c, cc, bc.sb, bc.out, count, COLL_F64, COLL_SUM, 0);
    if (rb == COLL_OK) rb = complete(qb, 0);
    if (ra == COLL_OK) ra = complete(qa, 0);
    int ok = ra == COLL_OK && rb == COLL_OK && rc == COLL_OK &&
             check(&ba, a->coll, COLL_F32, COLL_SUM, 0, count) &&
             check(&bb, b->coll, COLL_I32, COLL_MAX, 0, count) &&
             check(&bc, c->coll, COLL_F64, COLL_SUM, 0, count);
    ncases++;
    if (!ok) {
        nfail++;
        fprintf(stderr, "FAIL N=%d rank %d overlap %s / %s / %s: %s %s %s\n", N, me, an, bn, cn,
                coll_strerror(ra), coll_strerror(rb), coll_strerror(rc));
    }
    release(&ba);
    release(&bb);
    release(&bc);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    MPI_Comm_size(MPI_COMM_WORLD, &N);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    coll_comm *cc = NULL;
    if (coll_comm_from_mpi(MPI_COMM_WORLD, &cc) != COLL_OK) {
        fprintf(stderr, "coll_comm_from_mpi failed\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t counts[] = {0, 1, (size_t)N + 1, 1001, 65537};
    int ncounts = quick ? 4 : 5;
    for (size_t i = 0; i < sizeof algs / sizeof *algs; i++) {
        const alg *a = &algs[i];
        int nroots = collref_rooted(a->coll) && N > 1 ? 2 : 1;
        for (int ri = 0; ri < nroots; ri++)
            for (int ci = 0; ci < ncounts; ci++)
                for (int ip = 0; ip < 2; ip++) {
                    int root = ri ? N - 1 : 0;
                    if (collref_reducing(a->coll)) {
                        run_case(a, cc, COLL_F32, COLL_SUM, counts[ci], ip, root);
                        if (!quick) run_case(a, cc, COLL_I32, COLL_BXOR, counts[ci], ip, root);
                    } else {
                        run_case(a, cc, COLL_F32, COLL_SUM, counts[ci], ip, root);
                    }
                }
    }
    overlap(cc, "ring_allreduce", "llvm_ring_allgather", "bidir_ring_allreduce");
    overlap(cc, "llvm_binomial_broadcast", "pairwise_alltoall", "llvm_ring_allreduce");
    long tot[4] = {ncases, nfail, nskip, npending}, sum[4];
    MPI_Reduce(tot, sum, 4, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    int rc = 0;
    if (me == 0) {
        printf("start_check N=%d: %ld cases, %ld failed, %ld skipped (not applicable), "
               "%ld polls found a request in progress\n",
               N, sum[0], sum[1], sum[2], sum[3]);
        if (N > 1 && sum[3] == 0) {
            printf("FAIL: no poll ever found a request in progress\n");
            rc = 1;
        }
        if (sum[1]) rc = 1;
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return rc;
}
