/* An MPI program using collc-compiled algorithms with the MPI collectives'
 * signatures (TARGET mpi), declared by the headers collc_add_algorithm
 * wrote: an allreduce (LLVM object) and a broadcast (C source). Every rank
 * checks its results; rank 0 names the MPI library. */
#include <stdio.h>
#include <string.h>

#include "binomial_broadcast.h"
#include "ring_allreduce.h"

enum { COUNT = 1000, BCOUNT = 100 };

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, n, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);

    float x[COUNT];
    for (int i = 0; i < COUNT; i++) x[i] = (float)(me + i);
    if (ring_allreduce(MPI_IN_PLACE, x, COUNT, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS) bad = 1;
    for (int i = 0; i < COUNT && !bad; i++)
        if (x[i] != (float)(n * (n - 1) / 2 + n * i)) bad = 2;

    int b[BCOUNT], root = n - 1;
    for (int i = 0; i < BCOUNT; i++) b[i] = me == root ? 7 * i : -1;
    if (binomial_broadcast(b, BCOUNT, MPI_INT, root, MPI_COMM_WORLD) != MPI_SUCCESS) bad = 3;
    for (int i = 0; i < BCOUNT && !bad; i++)
        if (b[i] != 7 * i) bad = 4;

    /* the header also declares the algorithm's descriptor */
    if (strcmp(collc_ring_allreduce_alg->name, "ring_allreduce") != 0) bad = 5;

    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (bad) fprintf(stderr, "rank %d: check %d failed\n", me, bad);
    if (me == 0 && !any) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(lib, &len);
        lib[strcspn(lib, ",\n")] = '\0';
        printf("consumer_mpi: ring_allreduce, binomial_broadcast OK on %d ranks (%s)\n", n, lib);
    }
    MPI_Finalize();
    return any ? 1 : 0;
}
