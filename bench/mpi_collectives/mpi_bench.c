/* mpi_bench.c - every example compiled with `collc compile --target=mpi`
 * against the MPI library's own collective, in the same mpirun, on the same
 * buffers: per collective and size, the contenders (the library, then
 * each compiled algorithm) run in turn, round after round (alternating, so
 * that noise hits them alike; each round starts with the next contender),
 * and the table prints busbw(ours) /
 * busbw(native) = t(native) / t(ours): the ratio of the median times and of
 * the best times. >1 means collc's algorithm is faster. The first column,
 * "(native again)", times the library's collective a second time as if it
 * were a contender: how far it is from 1.00 is the noise of the run.
 *
 *   GLIBC_TUNABLES=glibc.malloc.hugetlb=1 mpirun -n N mpi_bench \
 *       [-r ROUNDS] [-min BYTES] [-max BYTES] [-c COLLECTIVE] [-a ALGORITHM]
 *       [-s ALGORITHM] [-i CALLS]
 * -a runs one contender only (an algorithm name, "native", or with -s
 * "served"): for
 * profiling, e.g. under `perf record` or callgrind (profile.sh); its cells
 * then read t(ours) in us. -s ALGORITHM runs the library, ALGORITHM called
 * directly and the MPI function itself ("ALGORITHM served"), which under
 * LD_PRELOAD=libcollmpi.so with a rule for ALGORITHM (run.sh's "served"
 * table) is the call served through the PMPI library; the library's own
 * collective is then called as PMPI_*, which libcollmpi.so does not
 * intercept. -i fixes the number of calls per round (default: enough for a
 * few milliseconds).
 * Sizes are nccl-tests sizes (the whole vector), 8, 64, 512 B, then 4 KiB
 * .. 64 MiB by factors of 4. Reductions move MPI_FLOAT with MPI_SUM, the
 * other collectives MPI_BYTE (so that 8 B splits into N blocks up to N = 8);
 * allgather, gather, scatter, alltoall and reduce_scatter have N blocks. A
 * size whose block would be empty is skipped ("-"). The time of one round is
 * the slowest rank's, averaged over the round's calls. The library's own
 * collectives behind the timing (barrier, max of the times) are PMPI_*
 * calls, never served by libcollmpi.so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <collmpi.h>

typedef enum { K_BCAST, K_SCATTER, K_GATHER, K_REDUCE, K_ALLGATHER, K_RS, K_ALLREDUCE, K_ALLTOALL, K_COUNT } kind;
static const char *kname[] = {"bcast", "scatter", "gather", "reduce", "allgather", "reduce_scatter",
                              "allreduce", "alltoall"};

#define ALG(name, K) COLLMPI_DECLARE_##K(name);
#include "mpi_algs.h"
#undef ALG
#define KIND_BROADCAST K_BCAST
#define KIND_SCATTER K_SCATTER
#define KIND_GATHER K_GATHER
#define KIND_REDUCE K_REDUCE
#define KIND_ALLGATHER K_ALLGATHER
#define KIND_REDUCE_SCATTER K_RS
#define KIND_ALLREDUCE K_ALLREDUCE
#define KIND_ALLTOALL K_ALLTOALL
static const struct {
    const char *name;
    kind k;
    void (*fn)(void);
} algs[] = {
#define ALG(name, K) {#name, KIND_##K, (void (*)(void))name},
#include "mpi_algs.h"
#undef ALG
};
#define NALGS ((int)(sizeof algs / sizeof *algs))

/* The contender that is the MPI function itself (-s: served by
 * libcollmpi.so when it is preloaded); NULL is the library's own (PMPI_*). */
static void served(void) {}
#define SERVED ((void (*)(void))served)

/* The contender of an index of main's list: -1 the library, -2 the MPI
 * function (SERVED), else an algorithm. */
static void (*fn_of(int idx))(void) { return idx == -1 ? NULL : idx == -2 ? SERVED : algs[idx].fn; }

/* The name of a contender: an example, or the library's own ("native"). */
static const char *contender(void (*fn)(void)) {
    if (fn == SERVED) return "served";
    for (int a = 0; fn && a < NALGS; a++)
        if (algs[a].fn == fn) return algs[a].name;
    return "native";
}

typedef int (*fn_bcast)(void *, int, MPI_Datatype, int, MPI_Comm);
typedef int (*fn_gs)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm);
typedef int (*fn_reduce)(const void *, void *, int, MPI_Datatype, MPI_Op, int, MPI_Comm);
typedef int (*fn_ag)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
typedef int (*fn_ar)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);

static int N, me;
static MPI_Comm comm;

static int reducing(kind k) { return k == K_REDUCE || k == K_RS || k == K_ALLREDUCE; }

/* Elements of one block (N blocks) or of the whole vector: 0 when a block
 * would be empty. */
static int block_count(kind k, size_t bytes) {
    return (int)(bytes / (reducing(k) ? 4 : 1) / (size_t)N);
}

/* One call. */
static int call_one(kind k, void (*fn)(void), float *sb, float *rb,
                                               size_t bytes) {
    int c = (int)(bytes / 4), b = block_count(k, bytes), cb = (int)bytes;
    MPI_Datatype f = MPI_FLOAT, y = MPI_BYTE;
    int mpi = fn == SERVED;
    switch (k) {
    case K_BCAST:
        return mpi ? MPI_Bcast(rb, cb, y, 0, comm) : fn ? ((fn_bcast)fn)(rb, cb, y, 0, comm) : PMPI_Bcast(rb, cb, y, 0, comm);
    case K_SCATTER:
        return mpi  ? MPI_Scatter(sb, b, y, rb, b, y, 0, comm)
               : fn ? ((fn_gs)fn)(sb, b, y, rb, b, y, 0, comm)
                    : PMPI_Scatter(sb, b, y, rb, b, y, 0, comm);
    case K_GATHER:
        return mpi  ? MPI_Gather(sb, b, y, rb, b, y, 0, comm)
               : fn ? ((fn_gs)fn)(sb, b, y, rb, b, y, 0, comm)
                    : PMPI_Gather(sb, b, y, rb, b, y, 0, comm);
    case K_REDUCE:
        return mpi  ? MPI_Reduce(sb, rb, c, f, MPI_SUM, 0, comm)
               : fn ? ((fn_reduce)fn)(sb, rb, c, f, MPI_SUM, 0, comm)
                    : PMPI_Reduce(sb, rb, c, f, MPI_SUM, 0, comm);
    case K_ALLGATHER:
        return mpi  ? MPI_Allgather(sb, b, y, rb, b, y, comm)
               : fn ? ((fn_ag)fn)(sb, b, y, rb, b, y, comm)
                    : PMPI_Allgather(sb, b, y, rb, b, y, comm);
    case K_ALLTOALL:
        return mpi  ? MPI_Alltoall(sb, b, y, rb, b, y, comm)
               : fn ? ((fn_ag)fn)(sb, b, y, rb, b, y, comm)
                    : PMPI_Alltoall(sb, b, y, rb, b, y, comm);
    case K_RS:
        return mpi  ? MPI_Reduce_scatter_block(sb, rb, b, f, MPI_SUM, comm)
               : fn ? ((fn_ar)fn)(sb, rb, b, f, MPI_SUM, comm)
                    : PMPI_Reduce_scatter_block(sb, rb, b, f, MPI_SUM, comm);
    case K_ALLREDUCE:
        return mpi  ? MPI_Allreduce(sb, rb, c, f, MPI_SUM, comm)
               : fn ? ((fn_ar)fn)(sb, rb, c, f, MPI_SUM, comm)
                    : PMPI_Allreduce(sb, rb, c, f, MPI_SUM, comm);
    default: return MPI_ERR_OTHER;
    }
}

/* A call that failed is never timed: the benchmark stops and says why. */
static void check(int rc, const char *what) {
    if (rc == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    fprintf(stderr, "mpi_bench: rank %d: %s failed: %s\n", me, what, text);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The timed calls; noinline: what callgrind counts
 * (--toggle-collect=timed_calls, profile.sh). */
__attribute__((noinline, noclone)) static void timed_calls(kind k, void (*fn)(void), float *sb, float *rb,
                                                  size_t bytes, int iters) {
    for (int i = 0; i < iters; i++) {
        int rc = call_one(k, fn, sb, rb, bytes);
        if (rc != MPI_SUCCESS) check(rc, contender(fn)); /* the name's lookup off the timed path */
    }
}

/* Seconds per call, the slowest rank's. */
static double timed(kind k, void (*fn)(void), float *sb, float *rb, size_t bytes, int iters) {
    PMPI_Barrier(comm);
    double t0 = MPI_Wtime();
    timed_calls(k, fn, sb, rb, bytes, iters);
    double t = (MPI_Wtime() - t0) / iters, tmax;
    PMPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm);
    return tmax;
}

static double busbw_factor(kind k) {
    switch (k) {
    case K_ALLREDUCE: return 2.0 * (N - 1) / N;
    case K_BCAST:
    case K_REDUCE: return 1.0;
    default: return (double)(N - 1) / N;
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_size(comm, &N);
    MPI_Comm_rank(comm, &me);
    int rounds = 5;
    size_t minb = 8, maxb = 64u << 20;
    const char *only = NULL, *alg = NULL, *serve = NULL;
    int fixed_iters = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "-r") == 0) rounds = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-min") == 0) minb = strtoull(argv[i + 1], NULL, 0);
        else if (strcmp(argv[i], "-max") == 0) maxb = strtoull(argv[i + 1], NULL, 0);
        else if (strcmp(argv[i], "-c") == 0) only = argv[i + 1];
        else if (strcmp(argv[i], "-a") == 0) alg = argv[i + 1];
        else if (strcmp(argv[i], "-s") == 0) serve = argv[i + 1];
        else if (strcmp(argv[i], "-i") == 0) fixed_iters = atoi(argv[i + 1]);
    }
    if (serve && !getenv("COLLMPI_CONFIG") && me == 0)
        fprintf(stderr, "mpi_bench: -s without COLLMPI_CONFIG: 'served' is the MPI library\n");
    if (rounds < 1) rounds = 1;
    /* sendbuf: up to N blocks of maxb/N (alltoall, scatter, reduce_scatter) */
    size_t cap = maxb + 4096;
    float *sb = malloc(cap), *rb = malloc(cap);
    for (size_t i = 0; i < cap / 4; i++) sb[i] = (float)((i * 7 + (size_t)me) % 13), rb[i] = 0;
    const char *lib =
#ifdef OPEN_MPI
        "Open MPI";
#elif defined(MPICH_VERSION)
        "MPICH " MPICH_VERSION;
#else
        "MPI";
#endif
    if (me == 0)
        printf("# collc --target=mpi vs %s, N=%d, %d rounds; cells: busbw ratio ours/native, "
               "median (best)\n",
               lib, N, rounds);
    double *tn = malloc(sizeof(double) * (size_t)rounds * (NALGS + 1));
    for (int k = 0; k < K_COUNT; k++) {
        if (only && strcmp(only, kname[k]) != 0) continue;
        /* idx -1: the library's collective again, timed like a contender:
         * its ratio to the first native column is the noise of the run;
         * idx -2: the MPI function itself (-s) */
        int idx[64], n = 0;
        int only_served = serve && alg && strcmp(alg, "served") == 0;
        const char *pick = alg && !only_served ? alg : serve;
        if (!alg) idx[n++] = -1;
        for (int a = 0; a < NALGS; a++) {
            if (algs[a].k != (kind)k || (pick && strcmp(pick, algs[a].name) != 0)) continue;
            /* require fails for this N: an error code of class
             * MPI_ERR_UNSUPPORTED_OPERATION (the reason is its string), on
             * every rank alike, no message sent */
            int rc = call_one((kind)k, algs[a].fn, sb, rb, 4096), cls = MPI_SUCCESS;
            if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
            if (cls == MPI_ERR_UNSUPPORTED_OPERATION) continue;
            check(rc, algs[a].name);
            if (!only_served) idx[n++] = a;
            if (serve) idx[n++] = -2;
        }
        if (serve && n == !alg) continue; /* not this collective's algorithm */
        if (me == 0) {
            printf("\n## %s (N=%d)\n%-9s %12s", kname[k], N, "size", "native GB/s");
            for (int j = 0; j < n; j++)
                printf("  %-*s", 16, idx[j] == -1 ? "(native again)" : idx[j] == -2 ? "served" : algs[idx[j]].name);
            printf("\n");
        }
        for (size_t bytes = minb; bytes <= maxb; bytes *= bytes < 4096 ? 8 : 4) {
            if (block_count((kind)k, bytes) == 0) continue;
            /* enough calls for ~20 ms at ~1 GB/s, at least one; small
             * calls up to 1000 (a few ms) */
            int iters = (int)((size_t)(16u << 20) / bytes);
            if (iters < 1) iters = 1;
            if (iters > 1000) iters = 1000;
            if (fixed_iters > 0) iters = fixed_iters;
            /* warm-up: first touch, cached scratch, connections */
            int native = !alg || strcmp(alg, "native") == 0;
            if (native) check(call_one((kind)k, NULL, sb, rb, bytes), "native");
            for (int j = 0; j < n; j++) {
                void (*fn)(void) = fn_of(idx[j]);
                check(call_one((kind)k, fn, sb, rb, bytes), contender(fn));
            }
            /* Contender c = 0 is the library, c = j + 1 is idx[j]. Each round
             * starts one contender later, so that none always runs right
             * after the same other one (a slow one disturbs its successor). */
            for (int r = 0; r < rounds; r++)
                for (int i = 0; i <= n; i++) {
                    int cn = (r + i) % (n + 1);
                    void (*fn)(void) = cn == 0 ? NULL : fn_of(idx[cn - 1]);
                    if (cn == 0 && !native) tn[r] = 0;
                    else tn[(size_t)cn * rounds + r] = timed((kind)k, fn, sb, rb, bytes, iters);
                }
            for (int j = 0; j <= n; j++) qsort(tn + (size_t)j * rounds, (size_t)rounds, sizeof(double), cmp_d);
            if (me == 0) {
                double med = tn[rounds / 2], best = tn[0];
                char sz[32];
                if (bytes >= (1u << 20)) snprintf(sz, sizeof sz, "%zuMiB", bytes >> 20);
                else if (bytes >= 1024) snprintf(sz, sizeof sz, "%zuKiB", bytes >> 10);
                else snprintf(sz, sizeof sz, "%zuB", bytes);
                printf("%-9s %12.2f", sz, (double)bytes / med * busbw_factor((kind)k) / 1e9);
                for (int j = 0; j < n; j++) {
                    double *t = tn + (size_t)(j + 1) * rounds;
                    char cell[40];
                    if (native)
                        snprintf(cell, sizeof cell, "%.2f (%.2f)", med / t[rounds / 2], best / t[0]);
                    else
                        snprintf(cell, sizeof cell, "%.1f us", t[rounds / 2] * 1e6);
                    printf("  %-16s", cell);
                }
                printf("\n");
                fflush(stdout);
            }
        }
    }
    free(tn);
    free(sb);
    free(rb);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
