/* cluster_bench.c - one collective at growing sizes, the MPI library's own
 * (PMPI_*) against the MPI function itself, which under
 * LD_PRELOAD=libcollmpi.so with COLLMPI_CONFIG is served by the algorithm
 * the rules choose (bench/cluster/run.sh; without them it is the library
 * again, a measure of the noise). The two alternate, round after round,
 * each round starting with the other; a round's time is the slowest rank's,
 * averaged over the round's calls; the median of the rounds is printed.
 *
 *   mpirun ... cluster_bench COLL MIN MAX ROUNDS [native]
 *
 * COLL: allreduce, allgather, reduce_scatter or bcast; sizes are nccl-tests
 * sizes (the whole vector, floats with MPI_SUM for reductions, bytes
 * otherwise), MIN, 4·MIN, ... up to MAX. With `native` only the library's
 * own collective runs (the job of an MPI library given a rules file of its
 * own: collc tune --emit=ompi-rules). Rank 0 prints one line per size,
 *   SIZE native_us=T native_link_B=B [collc_us=T collc_link_B=B]
 * then every rank `cluster_bench: done`. LINK_B is the bytes per call that
 * left the nodes through their network device: the sum over nodes of the
 * growth of eth0's tx_bytes (the counter `tc -s` shows for the node's link;
 * IP and TCP headers and acknowledgements included), read by the first
 * rank of each node (MPI_COMM_TYPE_SHARED); `-` where there is no eth0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

typedef enum { C_ALLREDUCE, C_ALLGATHER, C_RS, C_BCAST } coll_kind;

static int N, me;
static int leader;      /* the first rank of its node: reads the node's counter */
static int link_tx = -1; /* /sys/class/net/eth0/statistics/tx_bytes, or -1 */

/* The node's transmitted bytes (leaders only; 0 elsewhere). A read at
 * offset 0 each time: sysfs renders the value anew then (stdio's rewind
 * may serve the old value from its buffer). */
static double tx_bytes(void) {
    char buf[32];
    if (!leader || link_tx < 0) return 0;
    ssize_t n = pread(link_tx, buf, sizeof buf - 1, 0);
    if (n <= 0) return 0;
    buf[n] = 0;
    return strtod(buf, NULL);
}

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

/* Seconds per call of `calls` calls, the slowest rank's; *link the bytes
 * per call that left the nodes (the barrier after the calls, so that the
 * counters see every rank's last message, adds a few hundred bytes). */
static double timed(coll_kind k, int native, float *s, float *r, size_t bytes, int calls, double *link) {
    PMPI_Barrier(MPI_COMM_WORLD);
    double tx0 = tx_bytes();
    double t0 = MPI_Wtime();
    for (int c = 0; c < calls; c++) call(k, native, s, r, bytes);
    double t = (MPI_Wtime() - t0) / calls, mx = 0;
    PMPI_Barrier(MPI_COMM_WORLD);
    double tx = (tx_bytes() - tx0) / calls, sum = 0;
    PMPI_Allreduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    PMPI_Allreduce(&tx, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (link) *link = sum;
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
    int k = -1, args = argc == 5 || (argc == 6 && strcmp(argv[5], "native") == 0), only_native = argc == 6;
    for (int i = 0; args && i < 4; i++)
        if (strcmp(argv[1], names[i]) == 0) k = i;
    size_t lo = args ? strtoull(argv[2], NULL, 10) : 0, hi = args ? strtoull(argv[3], NULL, 10) : 0;
    int rounds = args ? atoi(argv[4]) : 0;
    if (k < 0 || lo < 4 || hi < lo || rounds < 1 || rounds > 101) {
        if (me == 0)
            fprintf(stderr, "usage: cluster_bench allreduce|allgather|reduce_scatter|bcast MIN MAX ROUNDS [native]\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Comm node;
    int node_rank;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_free(&node);
    leader = node_rank == 0;
    if (leader) link_tx = open("/sys/class/net/eth0/statistics/tx_bytes", O_RDONLY);
    int have_link = !leader || link_tx >= 0, all_link = 0;
    PMPI_Allreduce(&have_link, &all_link, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    float *s = calloc(hi / sizeof(float) + 1, sizeof(float)), *r = calloc(hi / sizeof(float) + 1, sizeof(float));
    double *tn = calloc((size_t)rounds, sizeof *tn), *tc = calloc((size_t)rounds, sizeof *tc);
    double *ln = calloc((size_t)rounds, sizeof *ln), *lc = calloc((size_t)rounds, sizeof *lc);
    if (!s || !r || !tn || !tc || !ln || !lc) MPI_Abort(MPI_COMM_WORLD, 1);
    for (size_t i = 0; i < hi / sizeof(float); i++) s[i] = (float)(i % 7);
    for (size_t bytes = lo; bytes <= hi; bytes *= 4) {
        /* calls per round: about 20 ms of the library's time, at least 1 */
        double once = timed((coll_kind)k, 1, s, r, bytes, 1, NULL);
        int calls = once > 0.02 ? 1 : (int)(0.02 / (once > 1e-6 ? once : 1e-6));
        if (calls > 200) calls = 200;
        PMPI_Bcast(&calls, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (!only_native) timed((coll_kind)k, 0, s, r, bytes, 1, NULL); /* the served path's first call: setup */
        for (int q = 0; q < rounds; q++) {
            if (only_native) {
                tn[q] = timed((coll_kind)k, 1, s, r, bytes, calls, &ln[q]);
            } else if (q % 2 == 0) {
                tn[q] = timed((coll_kind)k, 1, s, r, bytes, calls, &ln[q]);
                tc[q] = timed((coll_kind)k, 0, s, r, bytes, calls, &lc[q]);
            } else {
                tc[q] = timed((coll_kind)k, 0, s, r, bytes, calls, &lc[q]);
                tn[q] = timed((coll_kind)k, 1, s, r, bytes, calls, &ln[q]);
            }
        }
        if (me == 0) {
            char lnb[32] = "-", lcb[32] = "-";
            if (all_link) {
                snprintf(lnb, sizeof lnb, "%.0f", median(ln, rounds));
                snprintf(lcb, sizeof lcb, "%.0f", median(lc, rounds));
            }
            printf("%zu native_us=%.1f native_link_B=%s", bytes, median(tn, rounds) * 1e6, lnb);
            if (!only_native) printf(" collc_us=%.1f collc_link_B=%s", median(tc, rounds) * 1e6, lcb);
            printf("\n");
            fflush(stdout);
        }
    }
    printf("cluster_bench: done\n");
    fflush(stdout);
    free(s);
    free(r);
    free(tn);
    free(tc);
    free(ln);
    free(lc);
    if (link_tx >= 0) close(link_tx);
    MPI_Finalize();
    return 0;
}
