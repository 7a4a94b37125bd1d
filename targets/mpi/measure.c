/* measure.c - collc-measure: times the compiled algorithms of a shared
 * object against the MPI library's own collective on the live job, for
 * `collc tune --measure` (docs/cluster.md section 4). Run it under the
 * job's mpirun, with the job's shape:
 *
 *   mpirun ... collc-measure --object LIB [--min BYTES] [--max BYTES]
 *              [--factor F] [--rounds R] ALGORITHM... > measure.txt
 *   collc tune --measure measure.txt --object LIB -o collmpi.conf
 *
 * Each ALGORITHM is loaded from LIB as a COLLMPI_CONFIG rule naming it
 * loads it (collmpi_config_load: the function collc_ALGORITHM) and called
 * through the entry point of its collective (collmpi_allreduce, ...), which
 * decides, checks the `require`s and runs the call as libcollmpi.so does
 * for a rule that chose it; the library's own is the PMPI_ call. For each
 * collective of the algorithms and each size MIN, MIN*F, ... up to MAX
 * (nccl-tests sizes: the whole vector, floats with MPI_SUM for the
 * reductions, bytes otherwise; rounded down to a whole block per rank),
 * the candidates (the library first, then the algorithms) run in R rounds
 * (default 5), each round starting one candidate later, so that no
 * candidate always runs first. A round's time of a candidate is the
 * slowest rank's over its calls (about 20 ms of the library's time, at
 * least one call, at most 200), per call. Rank 0 writes
 *
 *   collc-measure 1
 *   shape ranks=8 nodes=2 ppn=4
 *   object LIB
 *   time COLLECTIVE BYTES CANDIDATE MEDIAN MIN MAX    seconds per call
 *   skip COLLECTIVE BYTES CANDIDATE REASON...         a `require` fails
 *   end
 *
 * one time line per (collective, size, candidate); the candidate
 * `mpi-library` is the library's own call; MIN and MAX are the fastest and
 * slowest round (the spread). Then every rank prints `collc-measure: done`
 * (for `cluster.sh mpirun --done`). Exit status 2 on bad arguments, 1 when
 * an algorithm does not load. */
#include <mpi.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collmpi.h"
#include "collmpi_config.h"
#include "mpi_timing.h"

#define MEASURE_MAX_ALGS 64
#define MEASURE_MAX_ROUNDS 101
#define ROUND_SECONDS 0.02
#define MAX_CALLS 200

typedef struct Candidate {
    const char *name;     /* NULL: the MPI library */
    collmpi_rule rule;    /* the algorithm, loaded as a rule loads it */
} Candidate;

static int N, me;
static MPI_Comm comm; /* MPI_COMM_WORLD's duplicate, errors returned */

static const char *coll_name(coll_collective c) {
    switch (c) {
    case COLL_ALLREDUCE: return "allreduce";
    case COLL_ALLGATHER: return "allgather";
    case COLL_REDUCE_SCATTER: return "reduce_scatter";
    case COLL_BROADCAST: return "broadcast";
    case COLL_REDUCE: return "reduce";
    case COLL_ALLTOALL: return "alltoall";
    default: return NULL;
    }
}

/* The bytes per element of a call of collective c times the ranks whose
 * blocks its nccl-tests size counts: the size of one element of `count`. */
static size_t element_bytes(coll_collective c) {
    size_t unit = c == COLL_ALLGATHER || c == COLL_BROADCAST || c == COLL_ALLTOALL ? 1 : sizeof(float);
    size_t per = c == COLL_ALLGATHER || c == COLL_REDUCE_SCATTER ? (size_t)N
                 : c == COLL_ALLTOALL                            ? (size_t)N * (size_t)N
                                                                 : 1;
    return unit * per;
}

/* One call of candidate k; its MPI error code. */
static int call(const Candidate *k, coll_collective c, float *s, float *r, int n) {
    void (*fn)(void) = k->name ? k->rule.fn : NULL;
    switch (c) {
    case COLL_ALLREDUCE:
        return fn ? collmpi_allreduce(s, r, n, MPI_FLOAT, MPI_SUM, comm, (collmpi_fn)fn)
                  : PMPI_Allreduce(s, r, n, MPI_FLOAT, MPI_SUM, comm);
    case COLL_ALLGATHER:
        return fn ? collmpi_allgather(s, n, MPI_BYTE, r, n, MPI_BYTE, comm, (collmpi_fn)fn)
                  : PMPI_Allgather(s, n, MPI_BYTE, r, n, MPI_BYTE, comm);
    case COLL_REDUCE_SCATTER:
        return fn ? collmpi_reduce_scatter_block(s, r, n, MPI_FLOAT, MPI_SUM, comm, (collmpi_fn)fn)
                  : PMPI_Reduce_scatter_block(s, r, n, MPI_FLOAT, MPI_SUM, comm);
    case COLL_BROADCAST:
        return fn ? collmpi_bcast(s, n, MPI_BYTE, 0, comm, (collmpi_rooted_fn)fn)
                  : PMPI_Bcast(s, n, MPI_BYTE, 0, comm);
    case COLL_REDUCE:
        return fn ? collmpi_reduce(s, r, n, MPI_FLOAT, MPI_SUM, 0, comm, (collmpi_rooted_fn)fn)
                  : PMPI_Reduce(s, r, n, MPI_FLOAT, MPI_SUM, 0, comm);
    case COLL_ALLTOALL:
        return fn ? collmpi_alltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, comm, (collmpi_fn)fn)
                  : PMPI_Alltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, comm);
    default: return MPI_ERR_OTHER;
    }
}

/* Seconds per call of `calls` calls of candidate k, the slowest rank's. */
static double timed(const Candidate *k, coll_collective c, float *s, float *r, int n, int calls) {
    PMPI_Barrier(comm);
    double t0 = MPI_Wtime();
    for (int q = 0; q < calls; q++) call(k, c, s, r, n);
    return bench_max_all((MPI_Wtime() - t0) / calls);
}

/* The line being written goes out in one write(2), so that the launcher's
 * forwarding never splits it. */
static void out_line(const char *text) {
    for (size_t at = 0, len = strlen(text); at < len;) {
        ssize_t w = write(1, text + at, len - at);
        if (w <= 0) break;
        at += (size_t)w;
    }
}

/* All candidates of collective c at one size: the time lines. */
static void measure_size(Candidate *ks, int nk, coll_collective c, size_t bytes, int rounds, float *s, float *r) {
    int n = (int)(bytes / element_bytes(c)); /* a whole block per rank */
    if (n < 1) return;
    bytes = (size_t)n * element_bytes(c);
    double once = timed(&ks[0], c, s, r, n, 1);
    int calls = once > ROUND_SECONDS ? 1 : (int)(ROUND_SECONDS / (once > 1e-6 ? once : 1e-6));
    if (calls > MAX_CALLS) calls = MAX_CALLS;
    PMPI_Bcast(&calls, 1, MPI_INT, 0, comm);
    int applies[MEASURE_MAX_ALGS + 1];
    char text[512];
    for (int k = 0; k < nk; k++) {
        /* the first call: the algorithm's setup, and whether it applies */
        applies[k] = call(&ks[k], c, s, r, n) == MPI_SUCCESS;
        if (!applies[k] && me == 0) {
            snprintf(text, sizeof text, "skip %s %zu %s %s\n", coll_name(c), bytes, ks[k].name,
                     collmpi_last_error());
            out_line(text);
        }
    }
    static double t[MEASURE_MAX_ALGS + 1][MEASURE_MAX_ROUNDS];
    for (int q = 0; q < rounds; q++)
        for (int j = 0; j < nk; j++) {
            int k = (j + q) % nk;
            if (applies[k]) t[k][q] = timed(&ks[k], c, s, r, n, calls);
        }
    for (int k = 0; k < nk && me == 0; k++) {
        if (!applies[k]) continue;
        double lo = t[k][0], hi = t[k][0];
        for (int q = 1; q < rounds; q++) {
            if (t[k][q] < lo) lo = t[k][q];
            if (t[k][q] > hi) hi = t[k][q];
        }
        double med = bench_median(t[k], rounds);
        snprintf(text, sizeof text, "time %s %zu %s %.9g %.9g %.9g\n", coll_name(c), bytes,
                 ks[k].name ? ks[k].name : "mpi-library", med, lo, hi);
        out_line(text);
    }
}

static int usage(const char *msg) {
    if (me == 0)
        fprintf(stderr, "collc-measure: %s\nusage: collc-measure --object LIB [--min BYTES] [--max BYTES] "
                        "[--factor F] [--rounds R] ALGORITHM...\n", msg);
    return 2;
}

typedef struct Options {
    const char *object;
    unsigned long long lo, hi, factor;
    int rounds;
    const char *algs[MEASURE_MAX_ALGS];
    int nalgs;
} Options;

/* 0, or the exit status of a usage error. */
static int parse(int argc, char **argv, Options *o) {
    *o = (Options){.lo = 4096, .hi = (unsigned long long)64 << 20, .factor = 4, .rounds = 5};
    for (int k = 1; k < argc; k++) {
        const char *a = argv[k];
        char *end = NULL;
        unsigned long long *num = strcmp(a, "--min") == 0      ? &o->lo
                                  : strcmp(a, "--max") == 0    ? &o->hi
                                  : strcmp(a, "--factor") == 0 ? &o->factor
                                                               : NULL;
        if (strcmp(a, "--object") == 0 && k + 1 < argc) {
            o->object = argv[++k];
        } else if ((num || strcmp(a, "--rounds") == 0) && k + 1 < argc) {
            unsigned long long v = strtoull(argv[++k], &end, 10);
            if (*end || v < 1 || v > ((unsigned long long)1 << 30)) return usage("a number from 1 to 1073741824 expected");
            if (num) *num = v;
            else o->rounds = (int)v;
        } else if (a[0] == '-') {
            return usage("unknown option");
        } else if (o->nalgs == MEASURE_MAX_ALGS) {
            return usage("too many algorithms");
        } else {
            o->algs[o->nalgs++] = a;
        }
    }
    if (!o->object) return usage("missing --object LIB");
    if (!o->nalgs) return usage("no algorithm to measure");
    if (o->hi < o->lo) return usage("--max is below --min");
    if (o->factor < 2) return usage("--factor is 2 at least");
    if (o->rounds > MEASURE_MAX_ROUNDS) return usage("--rounds is 101 at most");
    return 0;
}

/* Loads algorithm `name` of `object` into k as a rule would; its
 * collective from the algorithm's own description. */
static int load(const char *object, const char *name, Candidate *k) {
    char sym[300], why[600];
    snprintf(sym, sizeof sym, "collc_%s_alg", name);
    void *h = dlopen(object, RTLD_NOW | RTLD_LOCAL);
    const coll_alg_info *const *info = h ? dlsym(h, sym) : NULL;
    int field;
    k->name = name;
    k->rule = (collmpi_rule){.object = (char *)object, .alg = (char *)name};
    k->rule.coll = info && *info ? (*info)->collective : COLL_ALLREDUCE;
    if (collmpi_config_load(&k->rule, RTLD_NOW | RTLD_LOCAL, &field, why, sizeof why) != 0 ||
        !coll_name(k->rule.coll)) {
        if (me == 0)
            fprintf(stderr, "collc-measure: %s\n", k->rule.fn ? "a collective collc-measure does not time" : why);
        return -1;
    }
    return 0;
}

/* The shape line: the nodes are the MPI_COMM_TYPE_SHARED communicators. */
static void print_shape(void) {
    MPI_Comm node;
    int ln, lme, ppn_lo, ppn_hi, nodes;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &ln);
    MPI_Comm_rank(node, &lme);
    int first = lme == 0;
    PMPI_Allreduce(&ln, &ppn_lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    PMPI_Allreduce(&ln, &ppn_hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    PMPI_Allreduce(&first, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    char text[128];
    if (ppn_lo == ppn_hi) snprintf(text, sizeof text, "shape ranks=%d nodes=%d ppn=%d\n", N, nodes, ppn_lo);
    else snprintf(text, sizeof text, "shape ranks=%d nodes=%d ppn=%d..%d\n", N, nodes, ppn_lo, ppn_hi);
    if (me == 0) out_line(text);
}

static int measure(const Options *o) {
    static Candidate ks[MEASURE_MAX_ALGS + 1];
    static Candidate per[MEASURE_MAX_ALGS + 1];
    int bad = 0;
    for (int k = 0; k < o->nalgs; k++) bad |= load(o->object, o->algs[k], &ks[k]) != 0;
    if (bad) return 1;
    size_t cap = o->hi / sizeof(float) + 1;
    float *s = calloc(cap, sizeof(float)), *r = calloc(cap, sizeof(float));
    if (!s || !r) {
        fprintf(stderr, "collc-measure: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t i = 0; i < cap; i++) s[i] = (float)(i % 7);
    if (me == 0) out_line("collc-measure 1\n");
    print_shape();
    if (me == 0) {
        char text[1200];
        snprintf(text, sizeof text, "object %s\n", o->object);
        out_line(text);
    }
    /* each collective, in the order its first algorithm was named */
    for (int k = 0; k < o->nalgs; k++) {
        coll_collective c = ks[k].rule.coll;
        int seen = 0, nk = 1;
        for (int j = 0; j < k; j++) seen |= ks[j].rule.coll == c;
        if (seen) continue;
        per[0] = (Candidate){NULL};
        for (int j = k; j < o->nalgs; j++)
            if (ks[j].rule.coll == c) per[nk++] = ks[j];
        for (unsigned long long b = o->lo; b <= o->hi; b = b > o->hi / o->factor ? o->hi + 1 : b * o->factor)
            measure_size(per, nk, c, (size_t)b, o->rounds, s, r);
    }
    if (me == 0) out_line("end\n");
    free(s);
    free(r);
    return 0;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &N);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    Options o;
    int st = parse(argc, argv, &o);
    if (st == 0) {
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        st = measure(&o);
        MPI_Comm_free(&comm);
    }
    PMPI_Barrier(MPI_COMM_WORLD);
    out_line("collc-measure: done\n");
    MPI_Finalize();
    return st;
}
