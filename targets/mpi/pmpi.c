/* pmpi.c - libcollmpi.so: the PMPI interposition library. Loaded with
 * LD_PRELOAD (or linked before the MPI library), it defines MPI_Allgather,
 * MPI_Reduce_scatter_block, MPI_Allreduce, MPI_Bcast, MPI_Reduce,
 * MPI_Gather, MPI_Scatter and MPI_Alltoall, their nonblocking forms
 * (MPI_Iallgather ...: the same rules; their requests, MPI_Test*, MPI_Wait*,
 * MPI_Request_get_status and the persistent forms are in pmpi_requests.c),
 * the v-forms (MPI_Allgatherv ...: see pmpi_v.c),
 * and MPI_Init / MPI_Init_thread. Each call is matched against the rules of the file
 * named by COLLMPI_CONFIG:
 *
 *   # collective  min-size  max-size  shared-object      algorithm   [n=LIST] [ppn=LIST] [nodes=LIST]
 *   allreduce     0         256KiB    /opt/algs/algs.so  recursive_doubling_allreduce
 *   allreduce     256KiB    -         /opt/algs/algs.so  ring_allreduce  n=2..64
 *   allreduce     1MiB      -         /opt/algs/algs.so  ppn4_hierarchical_allreduce  ppn=4 nodes=2..
 *
 * ppn= and nodes= are the communicator's shape: its ranks per node and
 * nodes, found once per communicator (MPI_Comm_split_type with
 * MPI_COMM_TYPE_SHARED, one MPI_Allreduce; kept as an attribute of the
 * communicator) on its first call that a rule with a shape may serve; a
 * communicator whose nodes hold different numbers of ranks has ppn 0 and
 * matches no ppn=. The first rule whose collective, size range [min, max),
 * N and shape match, and
 * whose algorithm's `require`s hold for N and the root, picks the
 * algorithm: the function collc_ALGORITHM of the shared object (built with
 * `collc compile --target=mpi`). The size is the nccl-tests size of the call
 * (the bytes of the whole vector: count * type size, times N for
 * allgather, gather, scatter, alltoall and reduce_scatter).
 *
 * Every rank must take the same decision, or the job hangs. So the decision
 * reads only what every rank of the communicator holds alike
 * (collmpi_decide: N, the collective, the root, the type signature's size,
 * the datatype and op of a reduction), the `require`s are tried on a probe
 * that has no side effect (collmpi_applies), and the configuration itself is
 * read, loaded and agreed on by all processes in MPI_Init: one MPI_Allreduce
 * over MPI_COMM_WORLD checks that every process read the same rules and
 * loaded the same algorithms (a rule one process could not load is dropped
 * everywhere). Calls no rule serves go to the MPI library (PMPI_*).
 *
 * Configuration errors are printed once, by rank 0 of MPI_COMM_WORLD.
 * COLLMPI_DEBUG=1 prints each decision and its reason once per (collective,
 * algorithm or reason) on rank 0 of the communicator; COLLMPI_DEBUG=2 on
 * every rank. */
#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "collmpi_config.h"
#include "mpi_internal.h"
#include "quantity.h"
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>   /* MPIX_*_init (pcollreq) */
#endif

enum { MAX_RULES = 128 };

typedef collmpi_rule rule;   /* collmpi_config.h */

/* The state of the library, set once in MPI_Init (before the program can
 * call a collective) and read-only afterwards. */
typedef enum setup_state {
    SETUP_NONE,             /* MPI_Init not seen: the MPI library serves everything */
    SETUP_OFF,              /* no usable configuration (off_reason says why) */
    SETUP_READY             /* rules[] agreed on by every process */
} setup_state;

static rule rules[MAX_RULES];
static int nrules;
static unsigned rule_colls;     /* bit c: some usable rule names collective c */
_Static_assert(COLL_COLLECTIVE_COUNT <= 32, "rule_colls has a bit per collective");
static int state = SETUP_NONE;
static const char *off_reason = "no COLLMPI_CONFIG";

/* ---- messages ---- */

/* Configuration messages wait until the process knows its rank: rank 0 of
 * MPI_COMM_WORLD prints them (every rank with COLLMPI_DEBUG=2), so a job of
 * 64 processes with a bad line says so once. */
static char *pending;
static size_t npending;

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...) {
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    size_t len = strlen(line);
    char *p = realloc(pending, npending + len + 2);
    if (!p) return;
    pending = p;
    memcpy(pending + npending, line, len);
    pending[npending + len] = '\n';
    npending += len + 1;
    pending[npending] = 0;
}

static void flush_notes(int print) {
    if (print && npending) fputs(pending, stderr);
    free(pending);
    pending = NULL;
    npending = 0;
}

/* ---- configuration ---- */

/* Reads the whole file (NULL if it cannot be read). */
static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
        char *nb = realloc(buf, 2 * cap + 1);
        if (!nb) {
            free(buf);
            buf = NULL;
        } else {
            buf = nb;
            cap *= 2;
        }
    }
    int err = ferror(f);
    fclose(f);
    if (!buf || err) {
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

/* FNV-1a over what the processes must agree on. */
static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

/* Errors of the configuration (lines ignored, rules not loaded, processes
 * that disagree): with COLLMPI_STRICT=1 the job aborts in MPI_Init. */
static int config_errors;

static void parse_config(const char *path, char *text) {
    int lineno = 0;
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = 0;
        lineno++;
        rule r = {.line = lineno};
        int col = 0, len = 0;
        char why[240] = "";
        int got = collmpi_config_line(line, &r, &col, &len, why, sizeof why);
        if (got == 1 && nrules == MAX_RULES) {
            got = -1;
            col = 1;
            snprintf(why, sizeof why, "more than %d rules", MAX_RULES);
        }
        if (got < 0) {
            config_errors++;
            note("collmpi: %s:%d:%d: error: %s; line ignored", path, lineno, col, why);
            continue;
        }
        if (got == 0) continue;
        r.object = strdup(r.object);
        r.alg = strdup(r.alg);
        if (!r.object || !r.alg) {
            free(r.object);
            free(r.alg);
            config_errors++;
            note("collmpi: %s:%d: error: out of memory; line ignored", path, lineno);
            continue;
        }
        rules[nrules++] = r;
    }
}

static void shape_keyval_create(void);

/* Loads r's algorithm (r->fn); a message when it cannot. */
static void load_rule(rule *r) {
    char why[600];
    int field;
    if (collmpi_config_load(r, RTLD_NOW | RTLD_LOCAL, &field, why, sizeof why) == 0) return;
    config_errors++;
    note("collmpi: rule at line %d: %s", r->line, why);
}

/* Called once, in MPI_Init, by every process: reads COLLMPI_CONFIG, loads
 * the algorithms, and agrees with the other processes (one MPI_Allreduce
 * on MPI_COMM_WORLD) on the configuration and the rules that loaded
 * everywhere. */
static void setup(void) {
    int debug = collmpi_debug();
    int wrank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    const char *path = getenv("COLLMPI_CONFIG");
    const char *seg = getenv("COLLMPI_SEGMENT");
    const char *vpad = getenv("COLLMPI_VPAD");
    /* What must be the same everywhere: the rules' text, whether it could
     * be read, the segment size (both sides of a message cut it) and the
     * v-forms' padding limit (pmpi_v.c: it decides). */
    uint64_t h = 0xcbf29ce484222325ULL;
    h = fnv(h, path && *path ? "C" : "-", 1);
    h = fnv(h, seg ? seg : "", seg ? strlen(seg) + 1 : 0);
    h = fnv(h, vpad ? vpad : "", vpad ? strlen(vpad) + 1 : 0);
    if (path && *path) {
        size_t len = 0;
        char *text = read_file(path, &len);
        h = fnv(h, text ? "R" : "U", 1);
        if (text) {
            h = fnv(h, text, len);
            parse_config(path, text);
            free(text);
        } else {
            config_errors++;
            note("collmpi: cannot read COLLMPI_CONFIG '%s'; using the MPI library's collectives",
                 path);
        }
    }
    for (int i = 0; i < nrules; i++) load_rule(&rules[i]);
    shape_keyval_create();

    /* The agreement: bitwise AND of the hash, of its complement (both
     * survive only if every process had the same hash) and of the mask of
     * loaded rules. */
    enum { MASK = MAX_RULES / 8 };
    unsigned char buf[16 + MASK];
    memset(buf, 0, sizeof buf);
    for (int i = 0; i < 8; i++) {
        buf[i] = (unsigned char)(h >> (8 * i));
        buf[8 + i] = (unsigned char)~(h >> (8 * i));
    }
    for (int i = 0; i < nrules; i++)
        if (rules[i].fn) buf[16 + i / 8] |= (unsigned char)(1u << (i % 8));
    int agreed = PMPI_Allreduce(MPI_IN_PLACE, buf, (int)sizeof buf, MPI_BYTE, MPI_BAND,
                                MPI_COMM_WORLD) == MPI_SUCCESS;
    for (int i = 0; agreed && i < 8; i++)
        if ((unsigned char)(buf[i] | buf[8 + i]) != 0xff) agreed = 0;
    int st = SETUP_OFF;
    if (!agreed) {
        config_errors++;
        note("collmpi: COLLMPI_CONFIG, its contents, COLLMPI_SEGMENT or COLLMPI_VPAD differ "
             "between processes; using the MPI library's collectives");
        off_reason = "the processes' configurations differ";
    } else {
        for (int i = 0; i < nrules; i++) {
            rule *r = &rules[i];
            int everywhere = (buf[16 + i / 8] >> (i % 8)) & 1;
            if (r->fn && !everywhere) config_errors++;
            if (r->fn && !everywhere)
                note("collmpi: rule at line %d: '%s' could not be loaded by every process "
                     "(COLLMPI_DEBUG=2 shows each one's error); rule ignored",
                     r->line, r->alg);
            if (!everywhere) r->fn = NULL;
            if (r->fn) {
                rule_colls |= 1u << r->coll;
                st = SETUP_READY;
            }
        }
        if (st != SETUP_READY)
            off_reason = !path || !*path ? "no COLLMPI_CONFIG" : "no usable rule in COLLMPI_CONFIG";
    }
    const char *strict = getenv("COLLMPI_STRICT");
    int fatal = config_errors && strict && strcmp(strict, "1") == 0;
    flush_notes(wrank == 0 || debug >= 2);
    if (fatal) {
        /* Every process says why: the first to abort takes the others down,
         * possibly before rank 0 has printed anything. */
        fprintf(stderr, "collmpi[%d]: COLLMPI_STRICT=1: %d error%s in the configuration; MPI_Abort\n",
                wrank, config_errors, config_errors == 1 ? "" : "s");
        fflush(stderr);
        PMPI_Abort(MPI_COMM_WORLD, 1);
    }
    __atomic_store_n(&state, st, __ATOMIC_RELEASE);
}

/* ---- decisions ---- */

static int n_ok(const rule *r, int n) {
    if (n < r->nlo || n > r->nhi) return 0;
    if (r->npow2 && (n & (n - 1))) return 0;
    return 1;
}

/* ---- the shape of a communicator (ppn=, nodes=) ---- */

typedef struct comm_shape {
    int ppn;   /* ranks per node; 0 when the nodes differ */
    int nodes;
} comm_shape;

static int shape_keyval = MPI_KEYVAL_INVALID; /* made in MPI_Init (setup) */

static int shape_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
    (void)comm;
    (void)keyval;
    (void)extra;
    free(value);
    return MPI_SUCCESS;
}

static void shape_keyval_create(void) {
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, shape_delete, &shape_keyval, NULL) != MPI_SUCCESS)
        shape_keyval = MPI_KEYVAL_INVALID;
}

/* The shape of comm, found once (collectively: every rank of comm calls
 * this in the same call, as every rank takes the same decision up to here)
 * and then kept as the communicator's attribute. 0 with *out set, -1 when
 * it cannot be found (the rules with a shape then do not match). */
static int comm_shape_of(MPI_Comm comm, comm_shape *out) {
    if (shape_keyval == MPI_KEYVAL_INVALID) return -1;
    void *val = NULL;
    int found = 0;
    if (PMPI_Comm_get_attr(comm, shape_keyval, &val, &found) == MPI_SUCCESS && found && val) {
        *out = *(comm_shape *)val;
        return 0;
    }
    MPI_Comm node;
    if (PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS) return -1;
    int lsize = 0, lrank = 0, n = 0;
    PMPI_Comm_size(node, &lsize);
    PMPI_Comm_rank(node, &lrank);
    PMPI_Comm_free(&node);
    PMPI_Comm_size(comm, &n);
    /* the largest and the smallest node (as -size), and the nodes */
    int v[3] = {lsize, -lsize, lrank == 0};
    int mx[2], sum = 0;
    if (PMPI_Allreduce(v, mx, 2, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS ||
        PMPI_Allreduce(&v[2], &sum, 1, MPI_INT, MPI_SUM, comm) != MPI_SUCCESS)
        return -1;
    comm_shape *sh = malloc(sizeof *sh);
    if (!sh) return -1;
    sh->ppn = mx[0] == -mx[1] ? mx[0] : 0;
    sh->nodes = sum;
    if (PMPI_Comm_set_attr(comm, shape_keyval, sh) != MPI_SUCCESS) {
        *out = *sh;
        free(sh);
        return 0;
    }
    *out = *sh;
    return 0;
}

static int shape_ok(const rule *r, const comm_shape *sh, int known) {
    if (!r->shaped) return 1;
    if (!known) return 0;
    return sh->ppn >= r->plo && sh->ppn <= r->phi && sh->nodes >= r->klo && sh->nodes <= r->khi;
}

/* The rule that serves the call a in its form (COLLMPI_FORM_*; NULL: the
 * MPI library, with the reason logged), with m decided and *info its
 * algorithm's description. */
const collmpi_rule *collmpi_pmpi_choose(const collmpi_args *a, int form, collmpi_call *m,
                                        const coll_alg_info **info) {
    int st = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    int debug = collmpi_debug();
    /* the common case of a collective no rule names: no mapping at all */
    if (!debug && (st != SETUP_READY || !(rule_colls & (1u << a->coll)))) return NULL;
    const char *why;
    /* a call like an earlier one: the rule it chose (rules[] is fixed
     * since MPI_Init); with COLLMPI_DEBUG every call walks the rules */
    const void *known_rule;
    const collmpi_call *known = debug ? NULL : collmpi_memo_find(a, NULL, info, &known_rule);
    if (known) {
        *m = *known;
        m->form = form;
        m->vform = a->vform;
        return known_rule;
    }
    int rc = collmpi_decide(a, m, &why);
    m->form = form;
    m->vform = a->vform;
    if (st != SETUP_READY) {
        collmpi_log(a->coll, m, 0, "MPI library:",
                    st == SETUP_NONE ? "libcollmpi did not see MPI_Init" : off_reason);
        return NULL;
    }
    if (rc != COLL_OK) {
        collmpi_log(a->coll, m, 0, "MPI library:", why);
        return NULL;
    }
    rule *chosen = NULL;
    int matched = 0;        /* rules of this collective, size and N */
    char refused[160] = "";
    comm_shape sh = {0, 0};
    int shape = -1;         /* -1 not asked yet, 0 unknown, 1 known */
    for (int i = 0; i < nrules && !chosen; i++) {
        rule *r = &rules[i];
        if (!r->fn || r->coll != a->coll) continue;
        if (!n_ok(r, m->nranks)) continue;
        if (r->shaped && shape < 0) shape = comm_shape_of(a->comm, &sh) == 0;
        if (!shape_ok(r, &sh, shape == 1)) continue;
        if (a->vpad && a->vpad->deferred) {
            /* the size is not known on every rank: only a rule for every
             * size decides alike */
            if (r->lo != 0 || r->hi != SIZE_MAX) {
                collmpi_log(a->coll, m, 0, "MPI library:",
                            "a rule bounded by size, and the size needs the other ranks' counts "
                            "first");
                return NULL;
            }
        } else if (m->total_bytes < r->lo || m->total_bytes >= r->hi) {
            continue;
        }
        matched++;
        int ar = collmpi_applies(a->coll, m, r->fn, info);
        if (ar == COLL_OK) {
            chosen = r;
            if (!debug) {
                m->form = COLLMPI_FORM_BLOCKING;   /* the decision is the same for every form */
                collmpi_memo_store(a, NULL, m, *info, r);
                m->form = form;
                m->vform = a->vform;
            }
            break;
        }
        /* The same on every rank: the probe sees N, the root and the
         * decided dtype and op only. */
        if (!*refused) {
            char text[120];
            snprintf(refused, sizeof refused, "%s%s%s", r->alg,
                     ar == COLL_ERR_NOT_APPLICABLE ? " " : ": ",
                     collmpi_refusal(a->coll, m, ar, text, sizeof text));
        }
        collmpi_log(a->coll, m, 0, "not applicable:", r->alg);
    }
    if (!chosen) {
        char detail[200];
        if (*refused)
            snprintf(detail, sizeof detail, "%s%s", refused,
                     matched > 1 ? " (nor does any later rule)" : "");
        else
            snprintf(detail, sizeof detail, "%s", rule_colls & (1u << a->coll)
                                                      ? "no rule for this size and N"
                                                      : "no rule for this collective");
        collmpi_log(a->coll, m, 0, "MPI library:", detail);
        return NULL;
    }
    return chosen;
}

/* COLLMPI_DEBUG's line of a call collc serves. */
void collmpi_pmpi_log_served(const collmpi_args *a, const collmpi_call *m, const collmpi_rule *r,
                             int staged) {
    if (!collmpi_debug()) return;
    char detail[600];
    snprintf(detail, sizeof detail, "(collc, %s%s)", r->object,
             a->vpad && a->vpad->deferred ? "; per-block counts, exchanged in the background"
             : a->vpad && m->vblocks      ? "; uneven blocks, per-block counts"
             : a->vpad                    ? "; uneven blocks padded to the largest"
             : !staged                    ? ""
             : a->sdispls || a->rdispls ? "; blocks at their displacements packed"
                                        : "; non-contiguous datatype packed");
    collmpi_log(a->coll, m, 0, r->alg, detail);
}

/* Runs the call with a compiled algorithm if a rule serves it: returns 1
 * and sets *code, or 0 for "use the MPI library". */
static int try_collc(const collmpi_args *a, int *code) {
    collmpi_call m;
    const coll_alg_info *info = NULL;
    const rule *r = collmpi_pmpi_choose(a, COLLMPI_FORM_BLOCKING, &m, &info);
    if (!r || !collmpi_v_serve(a, &m, r->fn, r->alg)) return 0;
    const char *why;
    int mpi_err, staged;
    int rc = collmpi_execute(a, &m, r->fn, &mpi_err, &why, &staged);
    collmpi_pmpi_log_served(a, &m, r, staged);
    *code = collmpi_end(a, &m, rc, mpi_err, r->alg, why, 1);
    return 1;
}

/* ---- the interceptors ---- */

int MPI_Init(int *argc, char ***argv) {
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) setup();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) setup();
    return rc;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                  MPI_Comm comm) {
    collmpi_args a = {COLL_ALLREDUCE, sendbuf, recvbuf, count, 0, dt, MPI_DATATYPE_NULL, op, 0,
                      comm, 0, NULL, NULL, NULL};
    int code;
    if (try_collc(&a, &code)) return code;
    return PMPI_Allreduce(sendbuf, recvbuf, count, dt, op, comm);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
               MPI_Comm comm) {
    collmpi_args a = {COLL_REDUCE, sendbuf, recvbuf, count, 0, dt, MPI_DATATYPE_NULL, op, root,
                      comm, 0, NULL, NULL, NULL};
    int code;
    if (try_collc(&a, &code)) return code;
    return PMPI_Reduce(sendbuf, recvbuf, count, dt, op, root, comm);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype dt,
                             MPI_Op op, MPI_Comm comm) {
    collmpi_args a = {COLL_REDUCE_SCATTER, sendbuf, recvbuf, recvcount, 0, dt, MPI_DATATYPE_NULL,
                      op, 0, comm, 0, NULL, NULL, NULL};
    int code;
    if (try_collc(&a, &code)) return code;
    return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, dt, op, comm);
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype dt, int root, MPI_Comm comm) {
    collmpi_args a = {COLL_BROADCAST, buffer, buffer, count, 0, dt, MPI_DATATYPE_NULL, MPI_OP_NULL,
                      root, comm, 0, NULL, NULL, NULL};
    int code;
    if (try_collc(&a, &code)) return code;
    return PMPI_Bcast(buffer, count, dt, root, comm);
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    collmpi_args a = {COLL_ALLGATHER, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype,
                      MPI_OP_NULL, 0, comm, 0, NULL, NULL, NULL};
    int code;
    if (try_collc(&a, &code)) return code;
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    collmpi_args a = {COLL_ALLTOALL, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype,
                      MPI_OP_NULL, 0, comm, 0, NULL, NULL, NULL};
    int code;
    if (try_collc(&a, &code)) return code;
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    collmpi_args a = {COLL_GATHER, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype,
                      MPI_OP_NULL, root, comm, 0, NULL, NULL, NULL};
    int code;
    if (try_collc(&a, &code)) return code;
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    collmpi_args a = {COLL_SCATTER, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype,
                      MPI_OP_NULL, root, comm, 0, NULL, NULL, NULL};
    int code;
    if (try_collc(&a, &code)) return code;
    return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

/* The I-forms: the rules of the blocking form, run as collc requests. */

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                   MPI_Comm comm, MPI_Request *request) {
    collmpi_args a = {COLL_ALLREDUCE, sendbuf, recvbuf, count, 0, dt, MPI_DATATYPE_NULL, op, 0,
                      comm, 0, NULL, NULL, NULL};
    int code;
    if (collmpi_pmpi_try_start(&a, request, &code)) return code;
    return PMPI_Iallreduce(sendbuf, recvbuf, count, dt, op, comm, request);
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request *request) {
    collmpi_args a = {COLL_REDUCE, sendbuf, recvbuf, count, 0, dt, MPI_DATATYPE_NULL, op, root,
                      comm, 0, NULL, NULL, NULL};
    int code;
    if (collmpi_pmpi_try_start(&a, request, &code)) return code;
    return PMPI_Ireduce(sendbuf, recvbuf, count, dt, op, root, comm, request);
}

int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype dt,
                              MPI_Op op, MPI_Comm comm, MPI_Request *request) {
    collmpi_args a = {COLL_REDUCE_SCATTER, sendbuf, recvbuf, recvcount, 0, dt, MPI_DATATYPE_NULL,
                      op, 0, comm, 0, NULL, NULL, NULL};
    int code;
    if (collmpi_pmpi_try_start(&a, request, &code)) return code;
    return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, dt, op, comm, request);
}

int MPI_Ibcast(void *buffer, int count, MPI_Datatype dt, int root, MPI_Comm comm,
               MPI_Request *request) {
    collmpi_args a = {COLL_BROADCAST, buffer, buffer, count, 0, dt, MPI_DATATYPE_NULL, MPI_OP_NULL,
                      root, comm, 0, NULL, NULL, NULL};
    int code;
    if (collmpi_pmpi_try_start(&a, request, &code)) return code;
    return PMPI_Ibcast(buffer, count, dt, root, comm, request);
}

int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
    collmpi_args a = {COLL_ALLGATHER, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype,
                      MPI_OP_NULL, 0, comm, 0, NULL, NULL, NULL};
    int code;
    if (collmpi_pmpi_try_start(&a, request, &code)) return code;
    return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
    collmpi_args a = {COLL_ALLTOALL, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype,
                      MPI_OP_NULL, 0, comm, 0, NULL, NULL, NULL};
    int code;
    if (collmpi_pmpi_try_start(&a, request, &code)) return code;
    return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                MPI_Request *request) {
    collmpi_args a = {COLL_GATHER, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype,
                      MPI_OP_NULL, root, comm, 0, NULL, NULL, NULL};
    int code;
    if (collmpi_pmpi_try_start(&a, request, &code)) return code;
    return PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                        request);
}

int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request) {
    collmpi_args a = {COLL_SCATTER, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype,
                      MPI_OP_NULL, root, comm, 0, NULL, NULL, NULL};
    int code;
    if (collmpi_pmpi_try_start(&a, request, &code)) return code;
    return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                         request);
}

/* ---- v-forms (pmpi_v.c) ---- */

int collmpi_pmpi_library(const collmpi_args *a, int form) {
    if (collmpi_debug()) {
        collmpi_call m;
        const coll_alg_info *info;
        (void)collmpi_pmpi_choose(a, form, &m, &info);
    }
    return 0;
}

int collmpi_pmpi_gate(const collmpi_args *a, int form) {
    int st = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    if (st != SETUP_READY || !(rule_colls & (1u << a->coll))) return collmpi_pmpi_library(a, form);
    return 1;
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
    collmpi_vcall v;
    int code;
    if (collmpi_v_allgatherv(&v, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                             recvtype, comm, COLLMPI_FORM_BLOCKING) &&
        try_collc(&v.a, &code))
        return code;
    return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                           comm);
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
    collmpi_vcall v;
    int code;
    if (collmpi_v_gatherv(&v, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                          root, comm, COLLMPI_FORM_BLOCKING, COLLMPI_V_AGREE) &&
        try_collc(&v.a, &code))
        return code;
    return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                        comm);
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
    collmpi_vcall v;
    int code;
    if (collmpi_v_scatterv(&v, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                           root, comm, COLLMPI_FORM_BLOCKING, COLLMPI_V_AGREE) &&
        try_collc(&v.a, &code))
        return code;
    return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                         comm);
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
    collmpi_vcall v;
    int code;
    if (collmpi_v_alltoallv(&v, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                            rdispls, recvtype, comm, COLLMPI_FORM_BLOCKING, COLLMPI_V_AGREE) &&
        try_collc(&v.a, &code))
        return code;
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                          recvtype, comm);
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
    collmpi_vcall v;
    int code;
    if (collmpi_v_reduce_scatter(&v, sendbuf, recvbuf, recvcounts, dt, op, comm,
                                 COLLMPI_FORM_BLOCKING) &&
        try_collc(&v.a, &code))
        return code;
    return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, dt, op, comm);
}

int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request *request) {
    collmpi_vcall v;
    int code;
    if (collmpi_v_allgatherv(&v, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                             recvtype, comm, COLLMPI_FORM_NONBLOCKING) &&
        collmpi_pmpi_try_start(&v.a, request, &code))
        return code;
    return PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                            comm, request);
}

int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request *request) {
    collmpi_vcall v;
    int code;
    if (collmpi_v_gatherv(&v, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                          root, comm, COLLMPI_FORM_NONBLOCKING, COLLMPI_V_NO_AGREE) &&
        collmpi_pmpi_try_start(&v.a, request, &code))
        return code;
    return PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                         comm, request);
}

int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, MPI_Request *request) {
    collmpi_vcall v;
    int code;
    if (collmpi_v_scatterv(&v, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                           root, comm, COLLMPI_FORM_NONBLOCKING, COLLMPI_V_NO_AGREE) &&
        collmpi_pmpi_try_start(&v.a, request, &code))
        return code;
    return PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                          comm, request);
}

int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request *request) {
    collmpi_vcall v;
    int code;
    if (collmpi_v_alltoallv(&v, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                            rdispls, recvtype, comm, COLLMPI_FORM_NONBLOCKING,
                            COLLMPI_V_NO_AGREE) &&
        collmpi_pmpi_try_start(&v.a, request, &code))
        return code;
    return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                           recvtype, comm, request);
}

int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype dt, MPI_Op op, MPI_Comm comm, MPI_Request *request) {
    collmpi_vcall v;
    int code;
    if (collmpi_v_reduce_scatter(&v, sendbuf, recvbuf, recvcounts, dt, op, comm,
                                 COLLMPI_FORM_NONBLOCKING) &&
        collmpi_pmpi_try_start(&v.a, request, &code))
        return code;
    return PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, dt, op, comm, request);
}

