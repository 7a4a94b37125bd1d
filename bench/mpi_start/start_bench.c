/* start_bench.c - the per-call cost of a persistent AllReduce: MPI_Start
 * (and the wait that completes it) of an MPI_Allreduce_init request served
 * by collc through libcollmpi.so, against the MPI library's own persistent
 * AllReduce (PMPI_Allreduce_init; Open MPI 4.1: PMPIX_Allreduce_init), in
 * alternating rounds of the same run. A plain MPI program run under
 * LD_PRELOAD=libcollmpi.so with a rule for allreduce. Per size and
 * implementation, medians over the rounds of the slowest rank's mean per
 * call of ITERS calls:
 *   start_us  MPI_Start alone (the wait is not timed)
 *   call_us   MPI_Start + MPI_Wait
 * and collc/library for both.
 *
 *   mpirun -n 2 env LD_PRELOAD=libcollmpi.so COLLMPI_CONFIG=rules \
 *       start_bench [-r ROUNDS] [-i ITERS] [BYTES ...]
 */
#include <mpi.h>
#if MPI_VERSION < 4
#include <mpi-ext.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mpi_timing.h"

#if MPI_VERSION >= 4
#define ALLREDUCE_INIT MPI_Allreduce_init
#define P_ALLREDUCE_INIT PMPI_Allreduce_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
#define ALLREDUCE_INIT MPIX_Allreduce_init
#define P_ALLREDUCE_INIT PMPIX_Allreduce_init
#else
#error "no persistent collectives in this MPI"
#endif

typedef int (*init_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Info,
                       MPI_Request *);


/* One round: iters starts of req, mean seconds per start and per call. */
static void round_of(MPI_Request *req, int iters, double *start, double *call) {
    double ts = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        double a = MPI_Wtime();
        MPI_Start(req);
        ts += MPI_Wtime() - a;
        MPI_Wait(req, MPI_STATUS_IGNORE);
    }
    double t = MPI_Wtime() - t0;
    *start = bench_max_all(ts / iters);
    *call = bench_max_all(t / iters);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, rounds = 9, iters = 2000;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    long sizes[16];
    int nsizes = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-r") && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-i") && i + 1 < argc) iters = atoi(argv[++i]);
        else if (nsizes < 16) sizes[nsizes++] = atol(argv[i]);
    }
    if (!nsizes) {
        sizes[0] = 8;
        sizes[1] = 4096;
        nsizes = 2;
    }
    if (rounds < 1 || iters < 1) {
        if (!me) fprintf(stderr, "start_bench: bad -r or -i\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (!me) printf("# bytes      impl       start_us    call_us\n");
    init_fn impl[2] = {ALLREDUCE_INIT, P_ALLREDUCE_INIT};
    const char *name[2] = {"collc", "library"};
    for (int s = 0; s < nsizes; s++) {
        int n = (int)(sizes[s] / (long)sizeof(float));
        float *in = calloc((size_t)n + 1, sizeof *in), *out = calloc((size_t)n + 1, sizeof *out);
        for (int i = 0; i < n; i++) in[i] = (float)(i % 7);
        MPI_Request req[2];
        for (int k = 0; k < 2; k++)
            impl[k](in, out, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[k]);
        double *st[2], *ca[2];
        for (int k = 0; k < 2; k++) {
            st[k] = calloc((size_t)rounds, sizeof(double));
            ca[k] = calloc((size_t)rounds, sizeof(double));
            double a, b;
            round_of(&req[k], iters / 10 + 1, &a, &b);   /* warm-up */
        }
        for (int r = 0; r < rounds; r++)
            for (int j = 0; j < 2; j++) {
                int k = (r + j) % 2;   /* each round, the other one first */
                round_of(&req[k], iters, &st[k][r], &ca[k][r]);
            }
        double ms[2], mc[2];
        for (int k = 0; k < 2; k++) {
            ms[k] = bench_median(st[k], rounds) * 1e6;
            mc[k] = bench_median(ca[k], rounds) * 1e6;
            if (!me) printf("  %-10ld %-8s %9.2f %10.2f\n", sizes[s], name[k], ms[k], mc[k]);
            MPI_Request_free(&req[k]);
            free(st[k]);
            free(ca[k]);
        }
        if (!me)
            printf("  %-10ld collc/library: start %.2f, call %.2f\n", sizes[s], ms[0] / ms[1],
                   mc[0] / mc[1]);
        free(in);
        free(out);
    }
    MPI_Finalize();
    return 0;
}
