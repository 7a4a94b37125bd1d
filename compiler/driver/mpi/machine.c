/* machine.c - cluster machine files (see machine.h): the one reader and
 * writer, and the machine as the cost model's α, β, γ and a two-level
 * topology. */
#include "driver/mpi/machine.h"
#include "driver/driver.h"
#include "support/suggest.h"
#include "support/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The settings of a cluster machine file, in the order the writer writes
 * them: X(key, member, unit, what). */
#define CLUSTER_VALUE_KEYS(X)                                                   \
    X("intra_latency", intra_us, "us", "α within a node")                     \
    X("intra_bandwidth", intra_GBps, "GB/s", "β within a node")               \
    X("inter_latency", inter_us, "us", "α between nodes")                     \
    X("inter_bandwidth", inter_GBps, "GB/s", "β between nodes")

static const char *const cluster_keys[] = {
    "kind", "name", "nodes", "ppn",
#define KEY(key, member, unit, what) key,
    CLUSTER_VALUE_KEYS(KEY)
#undef KEY
    "reduce",
};

/* The value, and its spread unless it prints as the value. */
static void write_value(FILE *f, ClusterValue v) {
    char a[32], lo[32], hi[32];
    snprintf(a, sizeof a, "%.6g", v.v);
    snprintf(lo, sizeof lo, "%.6g", v.lo);
    snprintf(hi, sizeof hi, "%.6g", v.hi);
    fprintf(f, "%s", a);
    if (strcmp(a, lo) != 0 || strcmp(a, hi) != 0) fprintf(f, " (%s..%s)", lo, hi);
}

void cluster_machine_write(FILE *f, const ClusterMachine *m) {
    fprintf(f, "# collc cluster machine (docs/cluster.md section 3): the measured median,\n"
               "# then (lowest..highest) of the samples. Latencies in us, bandwidths in GB/s.\n");
    fprintf(f, "kind = cluster\nname = %s\nnodes = %lld\nppn = %lld\n", m->name, (long long)m->nodes,
            (long long)m->ppn);
#define KEY(key, member, unit, what)                    \
    fprintf(f, "%s = ", key);                           \
    write_value(f, m->member);                          \
    fprintf(f, "    # %s, %s\n", what, unit);
    CLUSTER_VALUE_KEYS(KEY)
#undef KEY
    for (int k = 0; k < m->nreduce; k++) {
        fprintf(f, "reduce %s %s = ", m->reduce[k].dtype, m->reduce[k].op);
        write_value(f, m->reduce[k].GBps);
        fprintf(f, "%s\n", k == 0 ? "    # reduction throughput, GB/s (f32 sum: γ)" : "");
    }
}

double cluster_machine_gamma(const ClusterMachine *m) {
    for (int k = 0; k < m->nreduce; k++)
        if (strcmp(m->reduce[k].dtype, "f32") == 0 && strcmp(m->reduce[k].op, "sum") == 0)
            return m->reduce[k].GBps.v * 1e9;
    return m->reduce[0].GBps.v * 1e9;
}

/* ---- reading ---- */

typedef struct Reader {
    const char *cmd, *path;
    int line;
} Reader;

static int bad(const Reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(const Reader *r, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "collc %s: %s:%d: error: %s [cluster-machine]\n", r->cmd, r->path, r->line, msg);
    return -1;
}

/* "V" or "V (LO..HI)", all finite and > 0, LO <= V <= HI. */
static int parse_value(const Reader *r, const char *key, const char *s, ClusterValue *out) {
    char *end;
    errno = 0;
    out->v = strtod(s, &end);
    out->lo = out->hi = out->v;
    while (isspace((unsigned char)*end)) end++;
    if (*end == '(') {
        /* "2..2.2": LO ends at "..", which strtod would read as "2." */
        const char *dots = strstr(end, ".."), *close = strchr(end, ')');
        char lo[64], hi[64];
        if (!dots || !close || close < dots || dots - end - 1 >= (long)sizeof lo ||
            close - dots - 2 >= (long)sizeof hi)
            return bad(r, "%s: expected '(LO..HI)' after the value", key);
        snprintf(lo, sizeof lo, "%.*s", (int)(dots - end - 1), end + 1);
        snprintf(hi, sizeof hi, "%.*s", (int)(close - dots - 2), dots + 2);
        char *e1, *e2;
        out->lo = strtod(lo, &e1);
        out->hi = strtod(hi, &e2);
        if (e1 == lo || *e1 || e2 == hi || *e2) return bad(r, "%s: expected '(LO..HI)' after the value", key);
        end = (char *)close + 1;
        while (isspace((unsigned char)*end)) end++;
    }
    if (end == s || *end || errno || !isfinite(out->v) || !(out->v > 0) || !(out->lo > 0) || !isfinite(out->hi))
        return bad(r, "%s: expected a number above 0, got '%s'", key, s);
    if (out->lo > out->v || out->v > out->hi)
        return bad(r, "%s: the spread (%g..%g) does not hold the value %g", key, out->lo, out->hi, out->v);
    return 0;
}

static int parse_count(const Reader *r, const char *key, const char *s, int64_t *out) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno || v < 1 || v > 1 << 20)
        return bad(r, "%s: expected a count from 1 to 1048576, got '%s'", key, s);
    *out = v;
    return 0;
}

static char *trim(char *s) {
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) s[--n] = 0;
    return s;
}

/* One `key = value` line into m; `seen` marks the keys given. */
static int parse_line(const Reader *r, char *key, char *value, ClusterMachine *m, unsigned *seen) {
    size_t nkeys = sizeof cluster_keys / sizeof cluster_keys[0];
    size_t k = 0;
    char word[64];
    if (sscanf(key, "%63s", word) != 1) return bad(r, "expected 'key = value'");
    for (; k < nkeys && strcmp(word, cluster_keys[k]) != 0; k++) {
    }
    if (k == nkeys) {
        Suggest sg;
        suggest_init(&sg, word, SUGGEST_NAME);
        for (size_t j = 0; j < nkeys; j++) suggest_offer(&sg, cluster_keys[j], NULL);
        if (sg.best) return bad(r, "unknown key '%s'; did you mean '%s'?", word, sg.best);
        return bad(r, "unknown key '%s'", word);
    }
    if (strcmp(word, "reduce") != 0 && (*seen & 1u << k)) return bad(r, "'%s' is set twice", word);
    *seen |= 1u << k;
    if (strcmp(word, "kind") == 0) {
        if (strcmp(value, "cluster") != 0) return bad(r, "kind: expected 'cluster', got '%s'", value);
        return 0;
    }
    if (strcmp(word, "name") == 0) {
        if (!*value || strlen(value) >= sizeof m->name) return bad(r, "name: expected 1 to 63 characters");
        snprintf(m->name, sizeof m->name, "%s", value);
        return 0;
    }
    if (strcmp(word, "nodes") == 0) return parse_count(r, word, value, &m->nodes);
    if (strcmp(word, "ppn") == 0) return parse_count(r, word, value, &m->ppn);
#define KEY(key_, member, unit, what) \
    if (strcmp(word, key_) == 0) return parse_value(r, word, value, &m->member);
    CLUSTER_VALUE_KEYS(KEY)
#undef KEY
    /* reduce DTYPE OP = V */
    ClusterReduce *red = &m->reduce[m->nreduce];
    char extra[8];
    if (sscanf(key, "%*s %15s %15s %7s", red->dtype, red->op, extra) != 2)
        return bad(r, "reduce: expected 'reduce DTYPE OP = GB/s'");
    if (m->nreduce == CLUSTER_MAX_REDUCE) return bad(r, "reduce: more than %d rows", CLUSTER_MAX_REDUCE);
    for (int j = 0; j < m->nreduce; j++)
        if (strcmp(m->reduce[j].dtype, red->dtype) == 0 && strcmp(m->reduce[j].op, red->op) == 0)
            return bad(r, "reduce %s %s is set twice", red->dtype, red->op);
    if (parse_value(r, "reduce", value, &red->GBps) != 0) return -1;
    m->nreduce++;
    return 0;
}

static int parse_text(const char *cmd, const char *path, char *text, ClusterMachine *m) {
    Reader r = {cmd, path, 0};
    unsigned seen = 0;
    memset(m, 0, sizeof *m);
    for (char *line = text; line;) {
        char *next = strchr(line, '\n');
        if (next) *next++ = 0;
        r.line++;
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        char *s = trim(line);
        line = next;
        if (!*s) continue;
        char *eq = strchr(s, '=');
        if (!eq) return bad(&r, "expected 'key = value'");
        *eq = 0;
        if (parse_line(&r, trim(s), trim(eq + 1), m, &seen) != 0) return -1;
    }
    r.line = 0;
    static const char *const required[] = {"kind", "nodes", "ppn", "intra_latency", "intra_bandwidth",
                                           "inter_latency", "inter_bandwidth", "reduce"};
    for (size_t q = 0; q < sizeof required / sizeof required[0]; q++) {
        size_t k = 0;
        while (strcmp(cluster_keys[k], required[q]) != 0) k++;
        if (!(seen & 1u << k)) {
            fprintf(stderr, "collc %s: %s: error: no '%s' setting [cluster-machine]\n", cmd, path, required[q]);
            return -1;
        }
    }
    if (!m->name[0]) snprintf(m->name, sizeof m->name, "cluster-%lldx%lld", (long long)m->nodes, (long long)m->ppn);
    return 0;
}

/* The whole file, or NULL with errno set. */
static char *read_all(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = xmalloc(cap);
    for (size_t got; (got = fread(buf + n, 1, cap - n - 1, f)) > 0;) {
        n += got;
        if (n + 1 == cap) {
            if (cap > (size_t)1 << 24) {
                free(buf);
                fclose(f);
                errno = EFBIG;
                return NULL;
            }
            buf = xrealloc(buf, cap *= 2);
        }
    }
    fclose(f);
    buf[n] = 0;
    return buf;
}

/* A file whose first setting is `kind = cluster`. */
static int cluster_claims(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[512];
    int yes = 0;
    while (fgets(line, sizeof line, f)) {
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        char *s = trim(line);
        if (!*s) continue;
        char key[16], value[16];
        yes = sscanf(s, " %15[a-z] = %15s", key, value) == 2 && strcmp(key, "kind") == 0 &&
              strcmp(value, "cluster") == 0;
        break;
    }
    fclose(f);
    return yes;
}

static void *cluster_load(const char *cmd, const char *path) {
    char *text = read_all(path);
    if (!text) {
        usage_error(cmd, "cannot open machine file '%s': %s", path, strerror(errno));
        return NULL;
    }
    ClusterMachine *m = xmalloc(sizeof *m);
    int rc = parse_text(cmd, path, text, m);
    free(text);
    if (rc != 0) {
        free(m);
        return NULL;
    }
    return m;
}

/* The global α and β are those between nodes: a link's α and time per byte
 * are multiples of them. */
static void cluster_params(const void *machine, CostMachine *out) {
    const ClusterMachine *m = machine;
    out->alpha = m->inter_us.v * 1e-6;
    out->beta = m->inter_GBps.v * 1e9;
    out->gamma = cluster_machine_gamma(m);
}

/* N ranks in blocks of ppn on ceil(N / ppn) nodes. Each rank has a link to
 * its node's switch and back (α within a node, β within a node); each
 * node's switch a link to the network's switch and back (β between nodes:
 * the node's one network link, which all its ranks share). A message within
 * a node pays α within a node; across nodes the rest of α between nodes on
 * the node's uplink, so that its route sums to α between nodes. Nodes
 * 0..N-1 are the ranks, N..N+K-1 the nodes' switches, N+K the network. */
static TopoStatus cluster_topology(const void *machine, int64_t N, int64_t ports, TopoModel **out, char *err,
                                   size_t errsz) {
    const ClusterMachine *m = machine;
    *out = NULL;
    int64_t K = (N + m->ppn - 1) / m->ppn;
    int ovf = 0;
    double a_intra = m->intra_us.v / m->inter_us.v;
    Rat ra = rat_from_double(a_intra, 1000000, &ovf);
    Rat rest = a_intra < 1 ? rat_sub(rat_int(1), ra, &ovf) : rat_int(0);
    Rat tpb = rat_from_double(m->inter_GBps.v / m->intra_GBps.v, 1000000, &ovf);
    if (ovf || (ra.num == 0 && a_intra > 0) || (tpb.num == 0 && m->inter_GBps.v > 0)) {
        snprintf(err, errsz,
                 "machine '%s': the levels are too far apart to price exactly (latency ratio %g, bandwidth ratio %g)",
                 m->name, a_intra, m->inter_GBps.v / m->intra_GBps.v);
        return TOPO_USAGE;
    }
    size_t nlinks = (size_t)(2 * N + (K > 1 ? 2 * K : 0));
    TopoLink *links = xmalloc(nlinks * sizeof *links);
    size_t n = 0;
    for (int64_t r = 0; r < N; r++) {
        int32_t hub = (int32_t)(N + r / m->ppn);
        links[n++] = (TopoLink){(int32_t)r, hub, ra, tpb};
        links[n++] = (TopoLink){hub, (int32_t)r, rat_int(0), tpb};
    }
    for (int64_t k = 0; K > 1 && k < K; k++) {
        int32_t hub = (int32_t)(N + k), net = (int32_t)(N + K);
        links[n++] = (TopoLink){hub, net, rest, rat_int(1)};
        links[n++] = (TopoLink){net, hub, rat_int(0), rat_int(1)};
    }
    char name[160];
    snprintf(name, sizeof name, "%s (%lld nodes x %lld)", m->name, (long long)K, (long long)m->ppn);
    name[63] = 0; /* TopoModel's name */
    *out = topo_graph_new(name, N, N + K + (K > 1), links, n, ports);
    free(links);
    return TOPO_OK;
}

static void cluster_shape(const void *machine, int64_t *nodes, int64_t *ppn) {
    const ClusterMachine *m = machine;
    *nodes = m->nodes;
    *ppn = m->ppn;
}

const TargetMachine cluster_machines = {
    .claims = cluster_claims,
    .shape = cluster_shape,
    .load = cluster_load,
    .free = free,
    .cost_params = cluster_params,
    .topology = cluster_topology,
};
