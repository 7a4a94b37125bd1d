/* mpich_json_app.c COLL COUNT [REPORT] - one MPI_Allreduce (COLL allreduce: COUNT
 * doubles, the sum of rank + 1 and the element's index) or MPI_Allgather
 * (allgather: COUNT doubles a rank) under MPICH, checked against the closed
 * form (exit 1 on a wrong element); rank 0 then prints the messages it
 * sent in the collective, per peer: "PEER:MSGS ...", on standard output or
 * into the file REPORT (closed before the line scripts/cluster.sh mpirun
 * --done waits for: on the emulated cluster the launcher merges every
 * rank's output into one stream, which can split or lose a line of it).
 * Run by mpich_json_test.sh with a selection file of `collc tune
 * --emit=mpich-json`.
 *
 * The messages are seen where MPICH's ch4:ucx device hands them to UCX:
 * this program defines ucp_tag_send_nbx (UCX's tagged send, the one the
 * device calls for every message), which comes before libucp's in the
 * lookup of libmpich's call (the executable is linked with
 * -Wl,--export-dynamic), counts the message and calls libucp's. Its first
 * argument, the endpoint, tells the peer: before the collective rank 0
 * sends each peer p a message of p bytes, which binds endpoint to peer. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_PEERS = 64 };
enum { OFF, LEARN, COUNT } mode;
static void *peer_ep[MAX_PEERS];
static int sent[MAX_PEERS], unknown;

typedef void *(*SendNbx)(void *ep, const void *buf, size_t count, uint64_t tag, const void *param);

void *ucp_tag_send_nbx(void *ep, const void *buf, size_t count, uint64_t tag, const void *param);
void *ucp_tag_send_nbx(void *ep, const void *buf, size_t count, uint64_t tag, const void *param) {
    static SendNbx next;
    if (!next) {
        void *sym = dlsym(RTLD_NEXT, "ucp_tag_send_nbx");
        if (!sym) {
            fprintf(stderr, "mpich_json_app: no ucp_tag_send_nbx behind this one (MPICH not over UCX?)\n");
            abort();
        }
        memcpy(&next, &sym, sizeof next);
    }
    if (mode == LEARN && count > 0 && count < MAX_PEERS) peer_ep[count] = ep;
    if (mode == COUNT) {
        int p = 1;
        while (p < MAX_PEERS && peer_ep[p] != ep) p++;
        if (p < MAX_PEERS) sent[p]++;
        else unknown++;
    }
    return next(ep, buf, count, tag, param);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3 || argc > 4 || size >= MAX_PEERS || (strcmp(argv[1], "allreduce") != 0 && strcmp(argv[1], "allgather") != 0)) {
        if (rank == 0) fprintf(stderr, "usage: mpich_json_app allreduce|allgather COUNT [REPORT] (fewer than %d ranks)\n", MAX_PEERS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int allreduce = strcmp(argv[1], "allreduce") == 0;
    long n = atol(argv[2]), nout = allreduce ? n : n * size;
    char bytes[MAX_PEERS] = {0};
    if (rank == 0) {
        mode = LEARN;
        for (int p = 1; p < size; p++) MPI_Send(bytes, p, MPI_CHAR, p, 0, MPI_COMM_WORLD);
        mode = OFF;
        if (size > 1 && !peer_ep[1]) {
            fprintf(stderr, "mpich_json_app: MPICH sends through no ucp_tag_send_nbx here (not ch4:ucx)\n");
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    } else {
        MPI_Recv(bytes, rank, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    double *in = malloc((size_t)n * sizeof *in), *out = malloc((size_t)nout * sizeof *out);
    if (!in || !out) MPI_Abort(MPI_COMM_WORLD, 2);
    for (long i = 0; i < n; i++) in[i] = (double)(rank + 1) + (double)(i % 1000);
    MPI_Barrier(MPI_COMM_WORLD);
    mode = COUNT;
    if (allreduce) MPI_Allreduce(in, out, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    else MPI_Allgather(in, (int)n, MPI_DOUBLE, out, (int)n, MPI_DOUBLE, MPI_COMM_WORLD);
    mode = OFF;
    long bad = 0;
    for (long i = 0; i < nout; i++) {
        double want = allreduce ? (double)size * (size + 1) / 2 + (double)size * (double)(i % 1000)
                                : (double)(i / n + 1) + (double)(i % n % 1000);
        bad += out[i] != want;
    }
    if (bad) fprintf(stderr, "rank %d: %ld wrong elements\n", rank, bad);
    if (rank == 0) {
        FILE *report = argc == 4 ? fopen(argv[3], "w") : stdout;
        if (!report) {
            perror(argv[3]);
            bad = 1;
        } else {
            for (int p = 1; p < size; p++)
                if (sent[p]) fprintf(report, "%d:%d ", p, sent[p]);
            if (unknown) fprintf(report, "?:%d ", unknown);
            fprintf(report, "\n");
            if (report != stdout ? fclose(report) != 0 : fflush(report) != 0) bad = 1;
        }
    }
    free(in);
    free(out);
    /* for scripts/cluster.sh mpirun --done (MPICH over UCX's tcp can hang
     * in MPI_Finalize); on standard error, so that standard output holds
     * only rank 0's line */
    fprintf(stderr, "mpich_json_app: done\n");
    MPI_Finalize();
    return bad != 0;
}
