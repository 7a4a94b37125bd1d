/* pmpi.c - libcollmpi.so: the PMPI interposition library. Loaded with
 * LD_PRELOAD (or linked before the MPI library), it defines MPI_Allgather,
 * MPI_Reduce_scatter_block, MPI_Allreduce, MPI_Bcast, MPI_Reduce,
 * MPI_Gather, MPI_Scatter and MPI_Alltoall. Each call is matched against the
 * rules of the file named by COLLMPI_CONFIG:
 *
 *   # collective  min-size  max-size  shared-object      algorithm   [n=LIST]
 *   allreduce     0         256KiB    /opt/algs/algs.so  recursive_doubling_allreduce
 *   allreduce     256KiB    -         /opt/algs/algs.so  ring_allreduce  n=2..64
 *
 * The first rule whose collective, size range [min, max) and N match picks
 * the algorithm: the function collc_ALGORITHM of the shared object (built
 * with `collc compile --target=mpi`). The size is the nccl-tests size of
 * the call (the bytes of the whole vector: count * type size, times N for
 * allgather, gather, scatter, alltoall and reduce_scatter), the same on
 * every rank. Calls no rule serves go to the MPI library (PMPI_*): no
 * config, no matching rule, non-contiguous or unsupported datatypes,
 * non-commutative ops, intercommunicators, and N where the algorithm's
 * `require` fails (COLL_ERR_NOT_APPLICABLE: every rank gets the same answer
 * before any message is sent; the next matching rule is tried, and the
 * answer is remembered per rule and N).
 *
 * COLLMPI_DEBUG=1 prints each decision once per (collective, algorithm or
 * reason) on rank 0 of the communicator; COLLMPI_DEBUG=2 on every rank. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mpi_internal.h"
#include "quantity.h"

#define MAX_RULES 128
#define MAX_NA 4096        /* N values remembered per rule */

typedef struct rule {
    coll_collective coll;
    size_t lo, hi;          /* [lo, hi) bytes; hi = SIZE_MAX: no bound */
    long nlo, nhi;          /* N in [nlo, nhi] */
    int npow2;              /* N must be a power of two */
    char *object, *alg;
    int loaded;             /* 0 not yet, 1 ok, -1 failed */
    void (*fn)(void);
    unsigned char *na;      /* [MAX_NA] 1: not applicable for this N */
    int line;
} rule;

static rule rules[MAX_RULES];
static int nrules;
static unsigned rule_colls;     /* bit c: some rule names collective c */
_Static_assert(COLL_COLLECTIVE_COUNT <= 32, "rule_colls has a bit per collective");
static int debug;
static pthread_once_t config_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- configuration ---- */

/* A collective's keyword or its MPI function's name (any case, MPI_
 * prefix optional): "allreduce", "bcast", "MPI_Reduce_scatter_block". */
static int parse_coll(const char *s, coll_collective *out) {
    static const struct {
        const char *keyword, *mpi;
        coll_collective c;
    } names[] = {
#define X(id, kw, abi, rooted, ib, iw, ob, ow, red, inplace, mpi, params) {kw, #mpi, COLL_##id},
#include <coll_collectives.def>
#undef X
    };
    if (strncasecmp(s, "MPI_", 4) == 0) s += 4;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcasecmp(s, names[i].keyword) == 0 || strcasecmp(s, names[i].mpi) == 0) {
            *out = names[i].c;
            return 0;
        }
    return -1;
}

/* A size as collc's options read them (runtime/quantity.h: "4096",
 * "64KiB", "4KB", "2G"), or "-", "*", "inf" for no bound. */
static int parse_size(const char *s, size_t *out, int is_max) {
    if (strcmp(s, "-") == 0 || strcmp(s, "*") == 0 || strcasecmp(s, "inf") == 0) {
        *out = is_max ? SIZE_MAX : 0;
        return 0;
    }
    double v;
    if (collrt_parse_size(s, &v) || v >= 18446744073709551616.0 /* 2^64 */) return -1;
    *out = (size_t)v;
    return 0;
}

/* "n=4", "n=2..16", "n=pow2" */
static int parse_n(const char *s, rule *r) {
    if (strncasecmp(s, "n=", 2) != 0) return -1;
    s += 2;
    if (strcasecmp(s, "pow2") == 0) {
        r->npow2 = 1;
        return 0;
    }
    char *end;
    long a = strtol(s, &end, 10);
    if (end == s || a < 1) return -1;
    long b = a;
    if (strncmp(end, "..", 2) == 0) {
        const char *t = end + 2;
        b = strtol(t, &end, 10);
        if (end == t) return -1;
    }
    if (*end || b < a) return -1;
    r->nlo = a;
    r->nhi = b;
    return 0;
}

static void load_config(void) {
    const char *d = getenv("COLLMPI_DEBUG");
    debug = d && *d ? atoi(d) : 0;
    const char *path = getenv("COLLMPI_CONFIG");
    if (!path || !*path) return;
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "collmpi: cannot open COLLMPI_CONFIG '%s'; using the MPI library's collectives\n",
                path);
        return;
    }
    char line[4096];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        char *tok[8];
        int nt = 0;
        for (char *t = strtok(line, " \t\r\n"); t && nt < 8; t = strtok(NULL, " \t\r\n"))
            tok[nt++] = t;
        if (nt == 0) continue;
        rule r;
        memset(&r, 0, sizeof r);
        r.nlo = 1;
        r.nhi = 1L << 30;
        r.line = lineno;
        int bad = nt < 5 || nt > 6 || parse_coll(tok[0], &r.coll) || parse_size(tok[1], &r.lo, 0) ||
                  parse_size(tok[2], &r.hi, 1) || (nt == 6 && parse_n(tok[5], &r));
        if (bad || nrules == MAX_RULES) {
            fprintf(stderr, "collmpi: %s:%d: %s; line ignored\n", path, lineno,
                    bad ? "expected 'COLLECTIVE MIN MAX OBJECT ALGORITHM [n=A..B|n=pow2]'"
                        : "too many rules");
            continue;
        }
        r.object = strdup(tok[3]);
        r.alg = strdup(tok[4]);
        r.na = calloc(MAX_NA, 1);
        if (!r.object || !r.alg || !r.na) break;
        rules[nrules++] = r;
        rule_colls |= 1u << r.coll;
    }
    fclose(f);
}

/* ---- decisions ---- */

static void log_once(const collmpi_args *a, const collmpi_call *m, const char *what,
                     const char *detail) {
    if (!debug) return;
    if (debug < 2 && m->rank != 0) return;
    static struct {
        coll_collective coll;
        char key[160];
    } seen[256];
    static int nseen;
    char key[160];
    snprintf(key, sizeof key, "%s|%s", what, detail);
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nseen; i++)
        if (seen[i].coll == a->coll && strcmp(seen[i].key, key) == 0) {
            pthread_mutex_unlock(&lock);
            return;
        }
    if (nseen < 256) {
        seen[nseen].coll = a->coll;
        snprintf(seen[nseen].key, sizeof seen[nseen].key, "%s", key);
        nseen++;
    }
    pthread_mutex_unlock(&lock);
    fprintf(stderr, "collmpi[%d]: %s (%zu B, N=%d) -> %s%s%s\n", m->rank, collmpi_mpi_name(a->coll),
            m->total_bytes, m->nranks, what, *detail ? " " : "", detail);
}

/* Loads r's algorithm (under `lock`); r->loaded is published with release
 * order, so that callers may test it without the lock. */
static int load_rule(rule *r) {
    if (r->loaded) return r->loaded;
    int st = -1;
    void *h = dlopen(r->object, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "collmpi: rule at line %d: %s\n", r->line, dlerror());
        goto done;
    }
    char sym[512];
    snprintf(sym, sizeof sym, "collc_%s", r->alg);
    void *fn = dlsym(h, sym);
    snprintf(sym, sizeof sym, "collc_%s_alg", r->alg);
    const coll_alg_info *const *info = dlsym(h, sym);
    if (!fn || !info || !*info) {
        fprintf(stderr,
                "collmpi: rule at line %d: %s has no algorithm '%s' (compile it with "
                "`collc compile --target=mpi`)\n",
                r->line, r->object, r->alg);
        goto done;
    }
    if ((*info)->abi_version != COLL_ABI_VERSION || (*info)->collective != r->coll) {
        fprintf(stderr, "collmpi: rule at line %d: '%s' is not a %s algorithm of this runtime's ABI\n",
                r->line, r->alg, collmpi_mpi_name(r->coll));
        goto done;
    }
    *(void **)&r->fn = fn;
    st = 1;
done:
    __atomic_store_n(&r->loaded, st, __ATOMIC_RELEASE);
    return st;
}

static int n_ok(const rule *r, int n) {
    if (n < r->nlo || n > r->nhi) return 0;
    if (r->npow2 && (n & (n - 1))) return 0;
    if (n < MAX_NA && r->na[n]) return 0;
    return 1;
}

/* Runs the call with a compiled algorithm if a rule serves it: returns 1
 * and sets *code, or 0 for "use the MPI library". */
static int try_collc(const collmpi_args *a, int *code) {
    pthread_once(&config_once, load_config);
    /* the common case of a collective no rule names: no mapping at all */
    if (!debug && !(rule_colls & (1u << a->coll))) return 0;
    collmpi_call m;
    const char *why;
    int rc = collmpi_map(a, &m, &why);
    if (rc != COLL_OK) {
        log_once(a, &m, "MPI library:", why);
        return 0;
    }
    for (int i = 0; i < nrules; i++) {
        rule *r = &rules[i];
        if (r->coll != a->coll || m.total_bytes < r->lo || m.total_bytes >= r->hi ||
            !n_ok(r, m.nranks))
            continue;
        int ok = __atomic_load_n(&r->loaded, __ATOMIC_ACQUIRE);
        if (!ok) {
            pthread_mutex_lock(&lock);
            ok = load_rule(r);
            pthread_mutex_unlock(&lock);
        }
        if (ok != 1) continue;
        int mpi_err;
        rc = collmpi_invoke(a->coll, &m, a->comm, r->fn, &mpi_err);
        if (rc == COLL_ERR_NOT_APPLICABLE) {
            /* The same on every rank (require depends on N and root only),
             * and nothing was sent: try the next rule. */
            if (m.nranks < MAX_NA) r->na[m.nranks] = 1;
            log_once(a, &m, "not applicable:", r->alg);
            continue;
        }
        if (debug) {
            char detail[600];
            snprintf(detail, sizeof detail, "(collc, %s)", r->object);
            log_once(a, &m, r->alg, detail);
        }
        *code = collmpi_to_mpi_error(rc, mpi_err);
        if (*code != MPI_SUCCESS) PMPI_Comm_call_errhandler(a->comm, *code);
        return 1;
    }
    log_once(a, &m, "MPI library:", nrules ? "no rule" : "no COLLMPI_CONFIG");
    return 0;
}

/* ---- the interceptors ---- */

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                  MPI_Comm comm) {
    collmpi_args a = {COLL_ALLREDUCE, sendbuf, recvbuf, count, 0, dt, MPI_DATATYPE_NULL, op, 0, comm};
    int code;
    if (try_collc(&a, &code)) return code;
    return PMPI_Allreduce(sendbuf, recvbuf, count, dt, op, comm);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
               MPI_Comm comm) {
    collmpi_args a = {COLL_REDUCE, sendbuf, recvbuf, count, 0, dt, MPI_DATATYPE_NULL, op, root, comm};
    int code;
    if (try_collc(&a, &code)) return code;
    return PMPI_Reduce(sendbuf, recvbuf, count, dt, op, root, comm);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype dt,
                             MPI_Op op, MPI_Comm comm) {
    collmpi_args a = {COLL_REDUCE_SCATTER, sendbuf, recvbuf, recvcount, 0, dt, MPI_DATATYPE_NULL,
                      op, 0, comm};
    int code;
    if (try_collc(&a, &code)) return code;
    return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, dt, op, comm);
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype dt, int root, MPI_Comm comm) {
    collmpi_args a = {COLL_BROADCAST, buffer, buffer, count, 0, dt, MPI_DATATYPE_NULL, MPI_OP_NULL,
                      root, comm};
    int code;
    if (try_collc(&a, &code)) return code;
    return PMPI_Bcast(buffer, count, dt, root, comm);
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    collmpi_args a = {COLL_ALLGATHER, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype,
                      MPI_OP_NULL, 0, comm};
    int code;
    if (try_collc(&a, &code)) return code;
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    collmpi_args a = {COLL_ALLTOALL, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype,
                      MPI_OP_NULL, 0, comm};
    int code;
    if (try_collc(&a, &code)) return code;
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    collmpi_args a = {COLL_GATHER, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype,
                      MPI_OP_NULL, root, comm};
    int code;
    if (try_collc(&a, &code)) return code;
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    collmpi_args a = {COLL_SCATTER, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype,
                      MPI_OP_NULL, root, comm};
    int code;
    if (try_collc(&a, &code)) return code;
    return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}
