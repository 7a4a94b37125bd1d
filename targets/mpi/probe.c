/* probe.c - collc-probe: the micro-measurements `collc calibrate` turns into
 * a cluster machine file (docs/cluster.md section 3). Run it under the
 * job's mpirun, with the job's shape (nodes, ranks per node):
 *
 *   mpirun ... collc-probe [--max-size BYTES] [--repeat R] > probe.txt
 *   collc calibrate probe.txt -o cluster.machine
 *
 * The nodes are the MPI_COMM_TYPE_SHARED communicators. Rank 0 measures,
 * while every other rank waits:
 *   - ping-pong within its node (with the lowest other rank of node 0) and
 *     across nodes (with the lowest rank of another node), message sizes
 *     8 B, 32 B, 128 B, ... (powers of 4) up to --max-size (default 16 MiB), R round trips each
 *     (default 5, after one not timed); a sample is half a round trip;
 *   - the runtime's reduction kernels (the ones libcollmpi.so's algorithms
 *     run), dst = dst (+) src over 4 MiB, per element type and operator.
 * Rank 0 writes one line per measurement on standard output, in the text
 * format collc calibrate reads (version line first, `end` last):
 *
 *   collc-probe 1
 *   shape ranks=4 nodes=2 ppn=2
 *   pingpong intra BYTES T1 T2 ...     one-way times in seconds
 *   pingpong inter BYTES T1 T2 ...
 *   reduce DTYPE OP BYTES T1 T2 ...    kernel times in seconds
 *   end
 *
 * and then every rank prints `collc-probe: done` as its last line before
 * MPI_Finalize (for `cluster.sh mpirun --done`; collc calibrate skips it). Exit status 2 on bad arguments. */
#include <mpi.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "coll.h"
#include "collrt_internal.h"

#define PROBE_TAG 7301
#define REDUCE_BYTES ((size_t)4 << 20)

/* The reductions measured: the element types and operators collectives use
 * most; `reduce f32 sum` is the machine file's γ. */
static const struct {
    const char *dtype, *op;
} probe_reductions[] = {
    {"f32", "sum"}, {"f64", "sum"}, {"i32", "sum"}, {"f32", "max"}, {"bf16", "sum"},
};

/* The line being written: each goes out in one write(2), so that the
 * launcher's forwarding never splits or repeats a part of it. */
static char line[65536];
static size_t linelen;

static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line + linelen, sizeof line - linelen, fmt, ap);
    va_end(ap);
    if (n > 0) linelen += (size_t)n < sizeof line - linelen ? (size_t)n : sizeof line - linelen - 1;
    if (linelen && line[linelen - 1] == '\n') {
        for (size_t at = 0; at < linelen;) {
            ssize_t w = write(1, line + at, linelen - at);
            if (w <= 0) break;
            at += (size_t)w;
        }
        linelen = 0;
    }
}

/* A barrier that sleeps while it waits: the ranks a measurement does not
 * involve must not take the cores (the nodes of an emulated cluster share
 * them) from the two that measure. */
static void quiet_barrier(void) {
    MPI_Request req;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    for (int done = 0;;) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done) break;
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
}

static int usage(int me, const char *msg) {
    if (me == 0) fprintf(stderr, "collc-probe: %s\nusage: collc-probe [--max-size BYTES] [--repeat R]\n", msg);
    return 2;
}

/* One ping-pong series of rank 0 with `peer` at each size, printed as
 * `pingpong LEVEL BYTES T...`; every rank calls it (the others wait in the
 * barrier). */
static void pingpong(int me, int peer, const char *level, char *buf, size_t max, int repeat) {
    for (size_t bytes = 8; bytes <= max; bytes = bytes < max && bytes * 4 > max ? max : bytes * 4) {
        quiet_barrier();
        if (me != 0 && me != peer) continue;
        int other = me == 0 ? peer : 0;
        if (me == 0) out("pingpong %s %zu", level, bytes);
        for (int k = 0; k <= repeat; k++) {
            double t0 = MPI_Wtime();
            if (me == 0) {
                MPI_Send(buf, (int)bytes, MPI_BYTE, other, PROBE_TAG, MPI_COMM_WORLD);
                MPI_Recv(buf, (int)bytes, MPI_BYTE, other, PROBE_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, (int)bytes, MPI_BYTE, other, PROBE_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, (int)bytes, MPI_BYTE, other, PROBE_TAG, MPI_COMM_WORLD);
            }
            double t = (MPI_Wtime() - t0) / 2;
            if (me == 0 && k > 0) out(" %.9g", t);
        }
        if (me == 0) out("\n");
    }
}

static void reductions(int repeat) {
    char *dst = calloc(REDUCE_BYTES, 1), *src = calloc(REDUCE_BYTES, 1);
    if (!dst || !src) {
        fprintf(stderr, "collc-probe: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t k = 0; k < sizeof probe_reductions / sizeof probe_reductions[0]; k++) {
        coll_dtype dt;
        coll_op op;
        if (coll_dtype_from_name(probe_reductions[k].dtype, &dt) != 0 ||
            coll_op_from_name(probe_reductions[k].op, &op) != 0)
            continue;
        const collrt_kernels *kern = collrt_kernels_for(dt, op);
        if (!kern) continue;
        size_t n = REDUCE_BYTES / coll_dtype_size(dt);
        out("reduce %s %s %zu", probe_reductions[k].dtype, probe_reductions[k].op, REDUCE_BYTES);
        for (int r = 0; r <= repeat; r++) {
            double t0 = MPI_Wtime();
            kern->kacc(dst, dst, src, n);
            double t = MPI_Wtime() - t0;
            if (r > 0) out(" %.9g", t);
        }
        out("\n");
    }
    free(dst);
    free(src);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    size_t max = (size_t)16 << 20;
    int repeat = 5;
    for (int k = 1; k < argc; k++) {
        char *end = NULL;
        if (strcmp(argv[k], "--max-size") == 0 && k + 1 < argc) {
            unsigned long long v = strtoull(argv[++k], &end, 10);
            if (*end || v < 8 || v > ((size_t)1 << 30)) {
                int st = usage(me, "--max-size wants a byte count from 8 to 1073741824");
                MPI_Finalize();
                return st;
            }
            max = (size_t)v;
        } else if (strcmp(argv[k], "--repeat") == 0 && k + 1 < argc) {
            long v = strtol(argv[++k], &end, 10);
            if (*end || v < 1 || v > 1000) {
                int st = usage(me, "--repeat wants a count from 1 to 1000");
                MPI_Finalize();
                return st;
            }
            repeat = (int)v;
        } else {
            int st = usage(me, "unknown argument");
            MPI_Finalize();
            return st;
        }
    }

    /* The node of every rank: the world rank of its node's first rank. */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int lme, ln, leader = me;
    MPI_Comm_rank(node, &lme);
    MPI_Comm_size(node, &ln);
    MPI_Bcast(&leader, 1, MPI_INT, 0, node);
    int *leaders = malloc((size_t)n * sizeof *leaders);
    char *buf = calloc(max, 1);
    if (!leaders || !buf) {
        fprintf(stderr, "collc-probe: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, MPI_COMM_WORLD);
    int nodes = 0, ppn_min = n, ppn_max = 0, intra = -1, inter = -1;
    for (int r = 0; r < n; r++) {
        int count = 0;
        for (int q = 0; q < n; q++) count += leaders[q] == leaders[r];
        if (count < ppn_min) ppn_min = count;
        if (count > ppn_max) ppn_max = count;
        if (leaders[r] == r) nodes++;
        if (r != 0 && leaders[r] == leaders[0] && intra < 0) intra = r;
        if (leaders[r] != leaders[0] && inter < 0) inter = r;
    }
    if (me == 0) {
        out("collc-probe 1\n");
        if (ppn_min == ppn_max)
            out("shape ranks=%d nodes=%d ppn=%d\n", n, nodes, ppn_min);
        else
            out("shape ranks=%d nodes=%d ppn=%d..%d\n", n, nodes, ppn_min, ppn_max);
    }
    if (intra > 0) pingpong(me, intra, "intra", buf, max, repeat);
    if (inter > 0) pingpong(me, inter, "inter", buf, max, repeat);
    if (me == 0) {
        reductions(repeat);
        out("end\n");
    }
    quiet_barrier();
    out("collc-probe: done\n");
    free(buf);
    free(leaders);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
