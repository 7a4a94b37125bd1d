/* pairs.c - which way the bytes of every pair of ranks go on the emulated
 * cluster (tests/cluster/transport_test.sh).
 *
 * Reports, for every rank, `rank R pid P host H node-rank L/S` (S the size of
 * its MPI_COMM_TYPE_SHARED communicator), then, for every pair (i sends
 * BYTES to j, all others wait), what the sender measured:
 * `pair I J eth0_tx_delta D`, the growth of its node's eth0 transmit
 * counter during the send. A pair on one node must not move the counter
 * (shared memory), a pair on two nodes must move it by at least BYTES (the
 * network). The library's own view (its verbose output) is checked by the
 * script from the same run.
 *
 *   pairs BYTES [REPORT]
 *
 * The lines go to REPORT (else stdout), written by rank 0 alone after the
 * last pair: the library's verbose output shares stdout with every rank and
 * its chunks can split a line of ours (a lost `pair` line failed a run). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long long eth0_tx(void) {
    FILE *f = fopen("/sys/class/net/eth0/statistics/tx_bytes", "r");
    long long v = -1;
    if (f) {
        if (fscanf(f, "%lld", &v) != 1) v = -1;
        fclose(f);
    }
    return v;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, n, lme, ln;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &lme);
    MPI_Comm_size(node, &ln);
    /* what rank 0 reports for this rank; host NUL-terminated (zeroed) */
    struct { long pid; int node_rank, node_size; char host[256]; } me_info = {(long)getpid(), lme, ln, ""}, *all = NULL;
    gethostname(me_info.host, sizeof me_info.host - 1);
    size_t bytes = argc > 1 ? strtoul(argv[1], NULL, 0) : (size_t)1 << 20;
    char *buf = calloc(bytes, 1);
    long long *delta = calloc((size_t)n, sizeof *delta), *deltas = NULL; /* delta[j]: me -> j */
    if (me == 0) {
        all = calloc((size_t)n, sizeof *all);
        deltas = calloc((size_t)n * (size_t)n, sizeof *deltas);
    }
    if (!buf || !delta || (me == 0 && (!all || !deltas))) {
        fprintf(stderr, "pairs: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Gather(&me_info, (int)sizeof me_info, MPI_BYTE, all, (int)sizeof me_info, MPI_BYTE, 0, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (i == j) continue;
            MPI_Barrier(MPI_COMM_WORLD);
            if (me == i) {
                long long before = eth0_tx();
                MPI_Send(buf, (int)bytes, MPI_BYTE, j, 0, MPI_COMM_WORLD);
                /* the receiver's empty reply: the send has left the node */
                MPI_Recv(NULL, 0, MPI_BYTE, j, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                long long after = eth0_tx();
                delta[j] = before < 0 || after < 0 ? -1 : after - before;
            } else if (me == j) {
                MPI_Recv(buf, (int)bytes, MPI_BYTE, i, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(NULL, 0, MPI_BYTE, i, 1, MPI_COMM_WORLD);
            }
        }
    MPI_Gather(delta, n, MPI_LONG_LONG, deltas, n, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    int failed = 0;
    if (me == 0) {
        FILE *out = argc > 2 ? fopen(argv[2], "w") : stdout;
        if (!out) {
            perror(argv[2]);
            failed = 1;
        } else {
            for (int r = 0; r < n; r++)
                fprintf(out, "rank %d pid %ld host %s node-rank %d/%d\n", r, all[r].pid, all[r].host,
                        all[r].node_rank, all[r].node_size);
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++)
                    if (i != j) fprintf(out, "pair %d %d eth0_tx_delta %lld\n", i, j, deltas[(size_t)i * n + j]);
            if (out != stdout ? fclose(out) != 0 : fflush(out) != 0) failed = 1;
        }
    }
    MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(all);
    free(deltas);
    free(delta);
    free(buf);
    MPI_Comm_free(&node);
    printf("pairs: done\n"); /* cluster.sh mpirun --done: the work is over */
    fflush(stdout);
    MPI_Finalize();
    return failed;
}
