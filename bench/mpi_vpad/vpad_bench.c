/* vpad_bench.c - the v-collectives with blocks of different sizes (block r
 * of base + r % 2 ints, base = BYTES / (4 N); an alltoallv's block from
 * rank r to rank q of base + (r + q) % 2), served by collc through
 * libcollmpi.so (MPI_* under LD_PRELOAD: the regular collective's
 * algorithm with per-block counts when it keeps its chunks to their
 * blocks, else on blocks padded to the largest) against the MPI library's own (PMPI_*), in
 * alternating rounds of one run. Prints, per collective and size, the
 * median time of a call over the rounds, collc's and the library's, and
 * their ratio (library / collc: above 1, collc is faster).
 *
 *       vpad_bench [-r ROUNDS] [-u] [BYTES ...]
 *
 * -u: blocks of one size (base ints each) side by side instead: the
 * regular collective on the application's buffers, nothing staged (what
 * per-block counts or the padding cost, by difference).
 *
 * BYTES: the blocks' total on one rank (what MPI_Allgatherv receives, the
 * input of MPI_Reduce_scatter, what MPI_Alltoallv sends); default 65536,
 * 1048576, 16777216. bench/mpi_vpad/run.sh runs it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int N, me, uniform;

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct bufs {
    int *counts, *displs;     /* blocks of rank r (allgatherv, reduce_scatter) */
    int *scounts, *sdispls, *rcounts, *rdispls;   /* alltoallv */
    int *s, *r;
    int total, stotal, rtotal;
} bufs;

static void setup(bufs *b, long bytes) {
    int base = (int)(bytes / 4 / N);
    b->counts = malloc(sizeof(int) * (size_t)N);
    b->displs = malloc(sizeof(int) * (size_t)N);
    b->scounts = malloc(sizeof(int) * (size_t)N);
    b->sdispls = malloc(sizeof(int) * (size_t)N);
    b->rcounts = malloc(sizeof(int) * (size_t)N);
    b->rdispls = malloc(sizeof(int) * (size_t)N);
    b->total = b->stotal = b->rtotal = 0;
    for (int r = 0; r < N; r++) {
        b->counts[r] = base + (uniform ? 0 : r % 2);
        b->displs[r] = b->total;
        b->total += b->counts[r];
        b->scounts[r] = base + (uniform ? 0 : (me + r) % 2);
        b->sdispls[r] = b->stotal;
        b->stotal += b->scounts[r];
        b->rcounts[r] = base + (uniform ? 0 : (r + me) % 2);
        b->rdispls[r] = b->rtotal;
        b->rtotal += b->rcounts[r];
    }
    int most = b->total > b->stotal ? b->total : b->stotal;
    b->s = calloc((size_t)most + 1, sizeof(int));
    b->r = calloc((size_t)most + 1, sizeof(int));
}

static void teardown(bufs *b) {
    free(b->counts), free(b->displs), free(b->scounts), free(b->sdispls);
    free(b->rcounts), free(b->rdispls), free(b->s), free(b->r);
}

enum { ALLGATHERV, REDUCE_SCATTER, ALLTOALLV, GATHERV, NCOLLS };
static const char *const names[NCOLLS] = {"MPI_Allgatherv", "MPI_Reduce_scatter",
                                          "MPI_Alltoallv", "MPI_Gatherv"};

static void call(int coll, int lib, bufs *b) {
    switch (coll) {
    case ALLGATHERV:
        (lib ? PMPI_Allgatherv : MPI_Allgatherv)(b->s, b->counts[me], MPI_INT, b->r, b->counts,
                                                 b->displs, MPI_INT, MPI_COMM_WORLD);
        break;
    case REDUCE_SCATTER:
        (lib ? PMPI_Reduce_scatter : MPI_Reduce_scatter)(b->s, b->r, b->counts, MPI_INT, MPI_SUM,
                                                         MPI_COMM_WORLD);
        break;
    case ALLTOALLV:
        (lib ? PMPI_Alltoallv : MPI_Alltoallv)(b->s, b->scounts, b->sdispls, MPI_INT, b->r,
                                               b->rcounts, b->rdispls, MPI_INT, MPI_COMM_WORLD);
        break;
    case GATHERV:
        (lib ? PMPI_Gatherv : MPI_Gatherv)(b->s, b->counts[me], MPI_INT, b->r, b->counts,
                                           b->displs, MPI_INT, 0, MPI_COMM_WORLD);
        break;
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &N);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int rounds = 9;
    long sizes[16];
    int nsizes = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-r") == 0 && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "-u") == 0) uniform = 1;
        else if (nsizes < 16) sizes[nsizes++] = atol(argv[i]);
    }
    if (!nsizes) {
        sizes[0] = 65536, sizes[1] = 1048576, sizes[2] = 16777216;
        nsizes = 3;
    }
    if (rounds < 1 || rounds > 99) rounds = 9;
    if (me == 0) printf("%-20s %10s %12s %12s %8s\n", "collective", "bytes", "collc us", "library us", "lib/collc");
    for (int coll = 0; coll < NCOLLS; coll++)
        for (int k = 0; k < nsizes; k++) {
            bufs b;
            setup(&b, sizes[k]);
            int iters = sizes[k] <= 65536 ? 40 : sizes[k] <= 1048576 ? 8 : 2;
            double t[2][99];
            call(coll, 0, &b), call(coll, 1, &b);   /* warm up: decisions, plans, pages */
            for (int round = 0; round < rounds; round++)
                for (int lib = 0; lib < 2; lib++) {
                    MPI_Barrier(MPI_COMM_WORLD);
                    double t0 = MPI_Wtime();
                    for (int i = 0; i < iters; i++) call(coll, lib, &b);
                    double dt = (MPI_Wtime() - t0) / iters, mx;
                    MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                    t[lib][round] = mx;
                }
            qsort(t[0], (size_t)rounds, sizeof(double), cmp);
            qsort(t[1], (size_t)rounds, sizeof(double), cmp);
            double ours = t[0][rounds / 2], theirs = t[1][rounds / 2];
            if (me == 0)
                printf("%-20s %10ld %12.1f %12.1f %8.2f\n", names[coll], sizes[k], ours * 1e6,
                       theirs * 1e6, theirs / ours);
            teardown(&b);
        }
    MPI_Finalize();
    return 0;
}
