/* mpi_timing.h - the timing helpers the MPI benchmarks share: the median
 * of a round's samples and a time over the ranks (a collective takes as
 * long as its slowest rank). Header-only: each benchmark is one program. */
#ifndef COLLC_BENCH_MPI_TIMING_H
#define COLLC_BENCH_MPI_TIMING_H

#include <mpi.h>
#include <stdlib.h>

static inline int bench_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* the median of v[0..n), which it sorts */
static inline double bench_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return v[n / 2];
}

/* the largest t over the ranks of MPI_COMM_WORLD */
static inline double bench_max_all(double t) {
    double m;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

#endif
