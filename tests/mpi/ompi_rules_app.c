/* ompi_rules_app.c - one MPI_Allreduce of COUNT doubles (sum of rank + 1
 * and the element's index), checked against the closed form; exit 1 on a
 * wrong element. Run by ompi_rules_test.sh under Open MPI with a rules
 * file of `collc tune --emit=ompi-rules`. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = argc > 1 ? atol(argv[1]) : 1024;
    double *in = malloc((size_t)n * sizeof *in), *out = malloc((size_t)n * sizeof *out);
    if (!in || !out) MPI_Abort(MPI_COMM_WORLD, 2);
    for (long i = 0; i < n; i++) in[i] = (double)(rank + 1) + (double)(i % 1000);
    MPI_Allreduce(in, out, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    long bad = 0;
    for (long i = 0; i < n; i++)
        bad += out[i] != (double)size * (size + 1) / 2 + (double)size * (double)(i % 1000);
    if (bad) fprintf(stderr, "rank %d: %ld wrong elements\n", rank, bad);
    free(in);
    free(out);
    MPI_Finalize();
    return bad != 0;
}
