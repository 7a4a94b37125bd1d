/* cluster_bench.c - one collective at growing sizes, the MPI library's own
 * (PMPI_*) against the MPI function itself, which under
 * LD_PRELOAD=libcollmpi.so with COLLMPI_CONFIG is served by the algorithm
 * the rules choose (bench/cluster/run.sh; without them it is the library
 * again, a measure of the noise). The two alternate, round after round,
 * each round starting with the other; a round's time is the slowest rank's,
 * averaged over the round's calls; the median of the rounds is printed.
 *
 *   mpirun ... cluster_bench COLL MIN MAX ROUNDS
 *
 * COLL: allreduce, allgather, reduce_scatter or bcast; sizes are nccl-tests
 * sizes (the whole vector, floats with MPI_SUM for reductions, bytes
 * otherwise), MIN, 4·MIN, ... up to MAX. Rank 0 prints one line per size,
 * `SIZE native_us=T collc_us=T`, then every rank `cluster_bench: done`. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { C_ALLREDUCE, C_ALLGATHER, C_RS, C_BCAST } coll_kind;

static int N, me;

static void call(coll_kind k, int native, float *s, float *r, size_t bytes) {
    int count = (int)(bytes / sizeof(float));
    int block = (int)(bytes / (size_t)N);
    switch (k) {
    case C_ALLREDUCE:
        native ? PMPI_Allreduce(s, r, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD)
               : MPI_Allreduce(s, r, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        break;
    case C_ALLGATHER:
        native ? PMPI_Allgather(s, block, MPI_BYTE, r, block, MPI_BYTE, MPI_COMM_WORLD)
               : MPI_Allgather(s, block, MPI_BYTE, r, block, MPI_BYTE, MPI_COMM_WORLD);
        break;
    case C_RS:
        native ? PMPI_Reduce_scatter_block(s, r, count / N, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD)
               : MPI_Reduce_scatter_block(s, r, count / N, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        break;
    case C_BCAST:
        native ? PMPI_Bcast(s, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD)
               : MPI_Bcast(s, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
        break;
    }
}

/* Seconds per call of `calls` calls, the slowest rank's. */
static double timed(coll_kind k, int native, float *s, float *r, size_t bytes, int calls) {
    PMPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int c = 0; c < calls; c++) call(k, native, s, r, bytes);
    double t = (MPI_Wtime() - t0) / calls, mx = 0;
    PMPI_Allreduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return mx;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &N);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    static const char *names[] = {"allreduce", "allgather", "reduce_scatter", "bcast"};
    int k = -1;
    for (int i = 0; argc == 5 && i < 4; i++)
        if (strcmp(argv[1], names[i]) == 0) k = i;
    size_t lo = argc == 5 ? strtoull(argv[2], NULL, 10) : 0, hi = argc == 5 ? strtoull(argv[3], NULL, 10) : 0;
    int rounds = argc == 5 ? atoi(argv[4]) : 0;
    if (k < 0 || lo < 4 || hi < lo || rounds < 1 || rounds > 101) {
        if (me == 0) fprintf(stderr, "usage: cluster_bench allreduce|allgather|reduce_scatter|bcast MIN MAX ROUNDS\n");
        MPI_Finalize();
        return 2;
    }
    float *s = calloc(hi / sizeof(float) + 1, sizeof(float)), *r = calloc(hi / sizeof(float) + 1, sizeof(float));
    double *tn = calloc((size_t)rounds, sizeof *tn), *tc = calloc((size_t)rounds, sizeof *tc);
    if (!s || !r || !tn || !tc) MPI_Abort(MPI_COMM_WORLD, 1);
    for (size_t i = 0; i < hi / sizeof(float); i++) s[i] = (float)(i % 7);
    for (size_t bytes = lo; bytes <= hi; bytes *= 4) {
        /* calls per round: about 20 ms of the library's time, at least 1 */
        double once = timed((coll_kind)k, 1, s, r, bytes, 1);
        int calls = once > 0.02 ? 1 : (int)(0.02 / (once > 1e-6 ? once : 1e-6));
        if (calls > 200) calls = 200;
        PMPI_Bcast(&calls, 1, MPI_INT, 0, MPI_COMM_WORLD);
        timed((coll_kind)k, 0, s, r, bytes, 1); /* the served path's first call: setup */
        for (int q = 0; q < rounds; q++) {
            if (q % 2 == 0) {
                tn[q] = timed((coll_kind)k, 1, s, r, bytes, calls);
                tc[q] = timed((coll_kind)k, 0, s, r, bytes, calls);
            } else {
                tc[q] = timed((coll_kind)k, 0, s, r, bytes, calls);
                tn[q] = timed((coll_kind)k, 1, s, r, bytes, calls);
            }
        }
        if (me == 0) {
            printf("%zu native_us=%.1f collc_us=%.1f\n", bytes, median(tn, rounds) * 1e6, median(tc, rounds) * 1e6);
            fflush(stdout);
        }
    }
    printf("cluster_bench: done\n");
    fflush(stdout);
    free(s);
    free(r);
    free(tn);
    free(tc);
    MPI_Finalize();
    return 0;
}
