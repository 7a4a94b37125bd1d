/* overlap_bench.c - how much of a nonblocking MPI_Iallreduce hides behind
 * computation, collc against the MPI library, as OSU's osu_iallreduce
 * measures it. A plain MPI program run under LD_PRELOAD=libcollmpi.so with
 * a rule for allreduce: MPI_Iallreduce is then collc's (the rule's
 * algorithm), PMPI_Iallreduce the library's own, measured in alternating
 * rounds of the same run. Per size and implementation:
 *   t_pure   start, then MPI_Wait at once
 *   t_cpu    the computation alone, calibrated to last about the median
 *            t_pure of a few calls after the warm-up
 *   t_total  start, the computation in slices with an MPI_Test after each
 *            slice (the only place a request without a progress thread
 *            advances), MPI_Wait
 *   overlap  100 * (1 - (t_total - t_cpu) / t_pure), clamped to [0, 100]
 * (osu_iallreduce's formula). Medians over the rounds; max over ranks.
 * Prints one line per size and implementation, and the ratio of collc's
 * overlap to the library's.
 *
 * With -m the program asks for MPI_THREAD_MULTIPLE (MPI_Init_thread), which
 * COLLMPI_PROGRESS=thread needs; both implementations then run under it.
 *
 *   mpirun -n 4 env LD_PRELOAD=libcollmpi.so COLLMPI_CONFIG=rules \
 *       overlap_bench [-m] [-r ROUNDS] [-t SLICES] [BYTES ...]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mpi_timing.h"

static int rounds = 9, slices = 64;
static volatile double sink;

typedef int (*iallreduce_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm,
                             MPI_Request *);

/* `work` units of computation, about the same time each */
static void compute(long work) {
    double x = sink;
    for (long i = 0; i < work; i++) x = x * 0.999999 + 1e-9 * (double)i;
    sink = x;
}


/* work units per second on this rank (the same on every rank: max) */
static double calibrate(void) {
    long work = 1 << 20;
    for (;;) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        compute(work);
        double t = bench_max_all(MPI_Wtime() - t0);
        if (t > 0.05) return (double)work / t;
        work *= 2;
    }
}

typedef struct result {
    double pure, cpu, total, overlap;
} result;

/* t_pure: start, then MPI_Wait at once; slowest rank */
static double pure_once(iallreduce_fn f, float *s, float *r, int count) {
    MPI_Request q;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    f(s, r, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    return bench_max_all(MPI_Wtime() - t0);
}

/* the computation alone: `slices` slices of per_slice units; slowest rank */
static double cpu_once(long per_slice) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int k = 0; k < slices; k++) compute(per_slice);
    return bench_max_all(MPI_Wtime() - t0);
}

/* Work units per second that make the computation last about the median
 * t_pure of a few calls after a warm-up: the first calls of a size can be
 * slower than the rest, and a target taken from them overshoots. */
static double calibrate_to_pure(iallreduce_fn f, float *s, float *r, int count, double rate,
                                double *target) {
    double t[5];
    pure_once(f, s, r, count);   /* warm-up */
    for (int i = 0; i < 5; i++) t[i] = pure_once(f, s, r, count);
    *target = bench_median(t, 5);
    for (int it = 0; it < 6; it++) {
        double c = cpu_once((long)(rate * *target / slices));
        if (c > 0.9 * *target && c < 1.1 * *target) break;
        if (c > 0) rate *= *target / c;
    }
    return rate;
}

/* one round of the three measurements; work units per slice from pure_hint */
static void one_round(iallreduce_fn f, float *s, float *r, int count, double rate, double pure_hint,
                      double *pure, double *cpu, double *total) {
    MPI_Request q;
    *pure = pure_once(f, s, r, count);
    long per_slice = (long)(rate * pure_hint / slices);
    *cpu = cpu_once(per_slice);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    f(s, r, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &q);
    for (int k = 0; k < slices; k++) {
        int flag;
        compute(per_slice);
        MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
    }
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    *total = bench_max_all(MPI_Wtime() - t0);
}

int main(int argc, char **argv) {
    int multiple = 0, provided = MPI_THREAD_SINGLE;
    for (int i = 1; i < argc; i++) multiple |= strcmp(argv[i], "-m") == 0;
    MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    long sizes[16];
    int nsizes = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-r") == 0 && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc) slices = atoi(argv[++i]);
        else if (strcmp(argv[i], "-m") == 0) continue;
        else if (nsizes < 16) sizes[nsizes++] = atol(argv[i]);
    }
    if (nsizes == 0) {
        sizes[0] = 1L << 20;
        sizes[1] = 16L << 20;
        nsizes = 2;
    }
    if (rounds < 1) rounds = 1;
    if (slices < 1) slices = 1;
    double rate = calibrate();
    if (me == 0)
        printf("# overlap_bench: N=%d, %d rounds (median), %d compute slices with MPI_Test%s\n"
               "# %-10s %-8s %10s %10s %10s %8s\n",
               n, rounds, slices,
               provided == MPI_THREAD_MULTIPLE ? ", MPI_THREAD_MULTIPLE" : "", "bytes", "impl", "pure_us", "cpu_us", "total_us", "overlap%");
    iallreduce_fn fns[2] = {MPI_Iallreduce, PMPI_Iallreduce};
    const char *names[2] = {"collc", "library"};
    for (int z = 0; z < nsizes; z++) {
        int count = (int)(sizes[z] / (long)sizeof(float));
        float *s = malloc(sizeof(float) * (size_t)count), *r = malloc(sizeof(float) * (size_t)count);
        for (int i = 0; i < count; i++) s[i] = (float)((me + i) % 7);
        double pure[2][64], cpu[2][64], total[2][64], ov[2][64];
        int R = rounds > 64 ? 64 : rounds;
        double hint[2], krate[2];
        for (int k = 0; k < 2; k++) krate[k] = calibrate_to_pure(fns[k], s, r, count, rate, &hint[k]);
        for (int i = 0; i < R; i++)
            for (int k = 0; k < 2; k++) {   /* alternating rounds */
                one_round(fns[k], s, r, count, krate[k], hint[k], &pure[k][i], &cpu[k][i],
                          &total[k][i]);
                double o = 100.0 * (1.0 - (total[k][i] - cpu[k][i]) / pure[k][i]);
                ov[k][i] = o < 0 ? 0 : o > 100 ? 100 : o;
            }
        result res[2];
        for (int k = 0; k < 2; k++)
            res[k] = (result){bench_median(pure[k], R), bench_median(cpu[k], R), bench_median(total[k], R),
                              bench_median(ov[k], R)};
        if (me == 0) {
            for (int k = 0; k < 2; k++)
                printf("  %-10ld %-8s %10.0f %10.0f %10.0f %8.1f\n", sizes[z], names[k],
                       res[k].pure * 1e6, res[k].cpu * 1e6, res[k].total * 1e6, res[k].overlap);
            printf("  %-10ld collc/library: overlap %.2f, pure time %.2f\n", sizes[z],
                   res[1].overlap > 0 ? res[0].overlap / res[1].overlap : 0.0,
                   res[0].pure / res[1].pure);
        }
        free(s);
        free(r);
    }
    MPI_Finalize();
    return 0;
}
