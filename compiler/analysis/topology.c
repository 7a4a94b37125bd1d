/* topology.c - built-in and user topologies, shortest-path routing.
 * See topology.h for the model and docs/cost.md for the user's view. */
#include "analysis/topology.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedule/interp.h"
#include "support/suggest.h"
#include "support/util.h"

/* Graph topologies keep two nnodes x nnodes tables (parent link, hops): 2048
 * nodes is 32 MiB, enough for every board or cluster model we price. */
#define TOPO_MAX_GRAPH_NODES 2048
/* A user topology loop that creates more links than this is an error. */
#define TOPO_MAX_LINKS ((size_t)4 * 1000 * 1000)

typedef struct LinkList {
    TopoLink *v;
    Span *spans; /* user topologies: the link statement, for diagnostics */
    size_t n, cap;
} LinkList;

static void add_link(LinkList *l, int64_t from, int64_t to, Rat alpha, Rat tpb, Span sp) {
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->v = xrealloc(l->v, l->cap * sizeof *l->v);
        l->spans = xrealloc(l->spans, l->cap * sizeof *l->spans);
    }
    l->v[l->n].from = (int32_t)from;
    l->v[l->n].to = (int32_t)to;
    l->v[l->n].alpha = alpha;
    l->v[l->n].tpb = tpb;
    l->spans[l->n] = sp;
    l->n++;
}

static void add_unit(LinkList *l, int64_t from, int64_t to) {
    add_link(l, from, to, rat_int(1), rat_int(1), span_none());
}

static void seterr(char *err, size_t errsz, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void seterr(char *err, size_t errsz, const char *fmt, ...) {
    if (!err || !errsz) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errsz, fmt, ap);
    va_end(ap);
}

static int cmp_link_key(const void *pa, const void *pb, void *ctx) {
    const TopoLink *v = ctx;
    int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
    if (v[a].from != v[b].from) return v[a].from < v[b].from ? -1 : 1;
    if (v[a].to != v[b].to) return v[a].to < v[b].to ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* Parallel links (the same from and to) become one link where the first of
 * them was declared: its bandwidth is their sum (a message is spread over
 * them by rate, as machine files sum a split link) and its alpha their
 * largest (the message is done when its last part is). So every user of the
 * topology -- cost, routing, bounds, synth -- sees them used together, and
 * the order they were declared in changes nothing. */
static void merge_parallel(LinkList *l) {
    if (l->n < 2) return;
    int32_t *ix = xmalloc(l->n * sizeof *ix);
    for (size_t k = 0; k < l->n; k++) ix[k] = (int32_t)k;
    qsort_r(ix, l->n, sizeof *ix, cmp_link_key, l->v);
    uint8_t *gone = xcalloc(l->n, 1);
    int any = 0;
    for (size_t i = 0, j; i < l->n; i = j) {
        TopoLink *first = &l->v[ix[i]];
        for (j = i + 1; j < l->n && l->v[ix[j]].from == first->from && l->v[ix[j]].to == first->to; j++) {}
        if (j == i + 1) continue;
        /* 1/tpb summed exactly; in doubles should the exact sum overflow */
        int ovf = 0;
        double rate = 0;
        Rat sum = rat_int(0), alpha = first->alpha;
        for (size_t k = i; k < j; k++) {
            const TopoLink *e = &l->v[ix[k]];
            rate += 1.0 / rat_to_double(e->tpb);
            sum = rat_add(sum, rat_div(rat_int(1), e->tpb, &ovf), &ovf);
            if (rat_cmp(e->alpha, alpha) > 0) alpha = e->alpha;
            if (k > i) gone[ix[k]] = 1;
        }
        Rat tpb = rat_div(rat_int(1), sum, &ovf);
        if (ovf) tpb = rat_from_double(1.0 / rate, 1000000, &ovf);
        first->tpb = tpb;
        first->alpha = alpha;
        any = 1;
    }
    if (any) {
        size_t n = 0;
        for (size_t k = 0; k < l->n; k++)
            if (!gone[k]) {
                l->v[n] = l->v[k];
                l->spans[n] = l->spans[k];
                n++;
            }
        l->n = n;
    }
    free(gone);
    free(ix);
}

/* Finishes a TopoModel from a link list: CSR, message ports, alpha facts. */
static TopoModel *finish(const char *name, TopoKind kind, int64_t N, int64_t nnodes,
                         LinkList *l, int64_t ports) {
    merge_parallel(l);
    TopoModel *t = xcalloc(1, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->kind = kind;
    t->N = N;
    t->nnodes = nnodes;
    t->links = l->v;
    t->nlinks = l->n;
    free(l->spans);

    t->out_first = xcalloc((size_t)nnodes + 1, sizeof *t->out_first);
    t->out_idx = xmalloc((l->n ? l->n : 1) * sizeof *t->out_idx);
    for (size_t k = 0; k < l->n; k++) t->out_first[t->links[k].from + 1]++;
    for (int64_t v = 0; v < nnodes; v++) t->out_first[v + 1] += t->out_first[v];
    size_t *fill = xmalloc(((size_t)nnodes + 1) * sizeof *fill);
    memcpy(fill, t->out_first, ((size_t)nnodes + 1) * sizeof *fill);
    for (size_t k = 0; k < l->n; k++) t->out_idx[fill[t->links[k].from]++] = (int32_t)k;
    free(fill);

    t->min_alpha = l->n ? t->links[0].alpha : rat_int(1);
    int any_startup = 0;
    t->uniform_startup = 1;
    t->startup = t->min_startup = rat_int(1);
    for (size_t k = 0; k < l->n; k++) {
        Rat a = t->links[k].alpha;
        if (rat_cmp(a, t->min_alpha) < 0) t->min_alpha = a;
        if (t->links[k].from >= N) continue;  /* a router's link: no start-up */
        if (!any_startup) t->startup = t->min_startup = a;
        else if (!rat_eq(a, t->startup)) t->uniform_startup = 0;
        if (rat_cmp(a, t->min_startup) < 0) t->min_startup = a;
        any_startup = 1;
    }

    t->msg_ports = xcalloc((size_t)(N > 0 ? N : 1), sizeof *t->msg_ports);
    t->max_ports = 1;
    for (int64_t r = 0; r < N; r++) {
        int64_t d;
        if (ports > 0) {
            d = ports;
        } else {
            /* distinct out-neighbours (parallel links share one port) */
            d = 0;
            for (size_t a = t->out_first[r]; a < t->out_first[r + 1]; a++) {
                int dup = 0;
                for (size_t b = t->out_first[r]; b < a; b++)
                    if (t->links[t->out_idx[b]].to == t->links[t->out_idx[a]].to) dup = 1;
                d += !dup;
            }
            if (d < 1) d = 1;
        }
        t->msg_ports[r] = d;
        if (d > t->max_ports) t->max_ports = d;
    }
    if (kind == TOPO_GRAPH && ports > 0) t->port_limit = ports;
    if (kind == TOPO_GRAPH) {
        t->parent = xmalloc((size_t)nnodes * (size_t)nnodes * sizeof *t->parent);
        t->hops = xmalloc((size_t)nnodes * (size_t)nnodes * sizeof *t->hops);
        t->row_done = xcalloc((size_t)nnodes, 1);
    }
    return t;
}

void topo_free(TopoModel *t) {
    if (!t) return;
    free(t->links);
    free(t->out_first);
    free(t->out_idx);
    free(t->msg_ports);
    free(t->parent);
    free(t->hops);
    free(t->row_done);
    free(t);
}

/* ---- built-in shapes ---- */

static TopoModel *make_star(const char *name, int64_t N, int64_t d) {
    LinkList l = {0};
    int ovf = 0;
    Rat tpb = rat_make(1, d, &ovf);
    /* link 2r: rank r -> hub (injection, carries the start-up cost);
     * link 2r+1: hub -> rank r (ejection). */
    for (int64_t r = 0; r < N; r++) {
        add_link(&l, r, N, rat_int(1), tpb, span_none());
        add_link(&l, N, r, rat_zero(), tpb, span_none());
    }
    return finish(name, TOPO_STAR, N, N + 1, &l, d);
}

static int64_t imod(int64_t a, int64_t n) { return ((a % n) + n) % n; }

static TopoModel *make_ring(int64_t N, int bidir, int64_t ports) {
    LinkList l = {0};
    for (int64_t r = 0; r < N && N > 1; r++) {
        add_unit(&l, r, imod(r + 1, N));
        if (bidir && N > 2) add_unit(&l, r, imod(r - 1, N));
    }
    return finish(bidir ? "biring" : "ring", TOPO_GRAPH, N, N, &l, ports);
}

static TopoModel *make_hypercube(int64_t N, int64_t ports) {
    LinkList l = {0};
    for (int64_t r = 0; r < N; r++)
        for (int64_t b = 1; b < N; b <<= 1) add_unit(&l, r, r ^ b);
    return finish("hypercube", TOPO_GRAPH, N, N, &l, ports);
}

static TopoModel *make_torus(int64_t A, int64_t B, int64_t ports) {
    LinkList l = {0};
    int64_t N = A * B;
    for (int64_t r = 0; r < N; r++) {
        int64_t x = r % A, y = r / A;
        /* +x, -x, +y, -y; a dimension of size 2 has one neighbour, size 1 none */
        if (A > 1) add_unit(&l, r, y * A + imod(x + 1, A));
        if (A > 2) add_unit(&l, r, y * A + imod(x - 1, A));
        if (B > 1) add_unit(&l, r, imod(y + 1, B) * A + x);
        if (B > 2) add_unit(&l, r, imod(y - 1, B) * A + x);
    }
    char name[64];
    snprintf(name, sizeof name, "torus(%lld,%lld)", (long long)A, (long long)B);
    return finish(name, TOPO_GRAPH, N, N, &l, ports);
}

TopoModel *topo_graph_new(const char *name, int64_t N, int64_t nnodes, const TopoLink *links, size_t nlinks,
                          int64_t ports) {
    LinkList l = {0};
    for (size_t k = 0; k < nlinks; k++)
        add_link(&l, links[k].from, links[k].to, links[k].alpha, links[k].tpb, span_none());
    return finish(name, TOPO_GRAPH, N, nnodes, &l, ports);
}

/* ---- user topologies ---- */

typedef struct UserCtx {
    Interp in;            /* the walk of let/for/if; user = this */
    const Topology *topo;
    DiagEngine *dx;
    int64_t N;
    int64_t nnodes;       /* -1 until `nodes` runs */
    Span nodes_span;
    double alpha_s, beta_Bps;
    LinkList links;
    int errors;
} UserCtx;

static void note_n(UserCtx *c) {
    diag_note(c->dx, span_none(), "in topology '%s' with N = %lld", c->topo->name,
              (long long)c->N);
}

static void note_n_cb(Interp *in) {
    UserCtx *c = in->user;
    note_n(c);
    c->errors++;
}

static int eval(UserCtx *c, const Expr *e, int64_t *v) { return interp_eval(&c->in, e, v); }

/* A link attribute as a multiple of the global alpha (want_time) or as a
 * time-per-byte multiple of 1/beta. */
static int quantity(UserCtx *c, const Quantity *q, int want_time, Rat *out) {
    int ovf = 0;
    double mult;
    if (q->unit == QUANT_SCALE) {
        mult = q->value;
        if (!want_time) {
            if (mult <= 0) goto bad_value;
            mult = 1.0 / mult;
        }
    } else if (want_time && q->unit == QUANT_SECONDS) {
        if (c->alpha_s <= 0) {
            diag_error(c->dx, q->span, "topology-attr",
                       "an absolute link alpha needs a non-zero --alpha");
            c->errors++;
            return -1;
        }
        mult = q->value / c->alpha_s;
    } else if (!want_time && q->unit == QUANT_BYTES_PER_S) {
        if (q->value <= 0) goto bad_value;
        mult = c->beta_Bps / q->value;
    } else {
        diag_error(c->dx, q->span, "topology-attr", "link %s must be %s or a plain multiple",
                   want_time ? "alpha" : "beta", want_time ? "a time (2us)" : "a bandwidth (32GB/s)");
        c->errors++;
        return -1;
    }
    if (mult < 0) goto bad_value;
    *out = rat_from_double(mult, 1000000, &ovf);
    if (ovf) goto bad_value;
    return 0;
bad_value:
    diag_error(c->dx, q->span, "topology-attr", "link %s must be positive and finite",
               want_time ? "alpha" : "beta");
    c->errors++;
    return -1;
}

/* The statements of a topology other than let/for/if. */
static InterpFlow user_leaf(Interp *in, const Stmt *s) {
    UserCtx *c = in->user;
    switch (s->kind) {
    case STMT_NODES: {
        int64_t v;
        if (eval(c, s->u.nodes.count, &v)) return INTERP_ERROR;
        if (c->nnodes >= 0) {
            diag_error(c->dx, s->span, "topology-nodes", "'nodes' given twice");
            diag_note(c->dx, c->nodes_span, "first given here");
            c->errors++;
            return INTERP_ERROR;
        }
        if (v < c->N || v > TOPO_MAX_GRAPH_NODES) {
            diag_error(c->dx, s->span, "topology-nodes",
                       "topology '%s' has %lld nodes, but %s", c->topo->name, (long long)v,
                       v < c->N ? "the ranks 0..N-1 must be nodes"
                                : "at most 2048 nodes are supported");
            note_n(c);
            c->errors++;
            return INTERP_ERROR;
        }
        c->nnodes = v;
        c->nodes_span = s->span;
        return INTERP_OK;
    }
    case STMT_LINK: {
        int64_t a, b;
        if (eval(c, s->u.link.from, &a) || eval(c, s->u.link.to, &b)) return INTERP_ERROR;
        if (c->nnodes < 0) {
            diag_error(c->dx, s->span, "topology-nodes", "'link' before 'nodes'");
            c->errors++;
            return INTERP_ERROR;
        }
        if (a < 0 || a >= c->nnodes || b < 0 || b >= c->nnodes || a == b) {
            diag_error(c->dx, s->span, "topology-link",
                       a == b ? "link from node %lld to itself"
                              : "link %lld -> %lld: node out of range",
                       (long long)a, (long long)b);
            diag_note(c->dx, span_none(), "topology '%s' has nodes 0 .. %lld (N = %lld)",
                      c->topo->name, (long long)c->nnodes - 1, (long long)c->N);
            c->errors++;
            return INTERP_ERROR;
        }
        Rat alpha = rat_int(1), tpb = rat_int(1);
        if (s->u.link.has_alpha && quantity(c, &s->u.link.alpha, 1, &alpha)) return INTERP_ERROR;
        if (s->u.link.has_beta && quantity(c, &s->u.link.beta, 0, &tpb)) return INTERP_ERROR;
        if (c->links.n + 2 > TOPO_MAX_LINKS) {
            diag_error(c->dx, s->span, "topology-link", "topology '%s' has too many links",
                       c->topo->name);
            c->errors++;
            return INTERP_ERROR;
        }
        add_link(&c->links, a, b, alpha, tpb, s->span);
        if (s->u.link.bidirectional) add_link(&c->links, b, a, alpha, tpb, s->span);
        return INTERP_OK;
    }
    case STMT_REQUIRE: {
        /* the N the topology is meant for */
        int64_t v = 0;
        if (eval(c, s->u.require.cond, &v)) return INTERP_ERROR;
        if (v) return INTERP_OK;
        diag_error(c->dx, s->u.require.cond->span, "topology-require",
                   "topology '%s' is not meant for N = %lld%s%s", c->topo->name, (long long)c->N,
                   s->u.require.why ? ": " : "", s->u.require.why ? s->u.require.why : "");
        c->errors++;
        return INTERP_ERROR;
    }
    default:
        diag_error(c->dx, s->span, "topology-stmt",
                   "only nodes, link, require, let, for and if are allowed in a topology");
        c->errors++;
        return INTERP_ERROR;
    }
}

static TopoStatus make_user(const Topology *topo, int64_t N, int64_t ports, double alpha_s,
                            double beta_Bps, DiagEngine *dx, TopoModel **out) {
    UserCtx c = {0};
    c.topo = topo;
    c.dx = dx;
    c.N = N;
    c.nnodes = -1;
    c.alpha_s = alpha_s;
    c.beta_Bps = beta_Bps;
    c.in.leaf = user_leaf;
    c.in.note = note_n_cb;
    c.in.user = &c;
    c.in.dx = dx;
    c.in.N = N;
    c.in.frame = xcalloc((size_t)(topo->nslots > 0 ? topo->nslots : 1), sizeof *c.in.frame);
    if (topo->sym_N) c.in.frame[topo->sym_N->slot] = N;
    interp_block(&c.in, topo->body);
    free(c.in.frame);
    interp_free(&c.in);
    if (!c.errors && c.nnodes < 0) {
        diag_error(dx, topo->span, "topology-nodes", "topology '%s' declares no 'nodes'",
                   topo->name);
        c.errors++;
    }
    if (c.errors) {
        free(c.links.v);
        free(c.links.spans);
        return TOPO_INPUT_ERROR;
    }
    *out = finish(topo->name, TOPO_GRAPH, N, c.nnodes, &c.links, ports);
    return TOPO_OK;
}

/* ---- spec parsing ---- */

/* "name(a,b)" -> name and up to two integer arguments; returns arg count or -1. */
static int split_spec(const char *spec, char *name, size_t nsz, int64_t args[2]) {
    const char *p = strchr(spec, '(');
    size_t n = p ? (size_t)(p - spec) : strlen(spec);
    if (n == 0 || n >= nsz) return -1;
    memcpy(name, spec, n);
    name[n] = 0;
    if (!p) return 0;
    int k = 0;
    p++;
    for (;;) {
        char *end;
        if (!isdigit((unsigned char)*p)) return -1;
        long long v = strtoll(p, &end, 10);
        if (k == 2 || v <= 0 || v > (1 << 20)) return -1;
        args[k++] = v;
        p = end;
        if (*p == ',' || *p == 'x') { p++; continue; }
        if (*p == ')' && p[1] == 0) return k;
        return -1;
    }
}

TopoStatus topo_build(const char *spec, int64_t N, int64_t ports, const Program *prog,
                      const TopoExtra *extra, size_t nextra, double alpha_s, double beta_Bps,
                      DiagEngine *dx, TopoModel **out, char *err, size_t errsz) {
    *out = NULL;
    if (err && errsz) err[0] = 0;
    if (!spec) spec = "full";
    char name[64];
    int64_t args[2] = {0, 0};
    int nargs = split_spec(spec, name, sizeof name, args);
    if (nargs < 0) {
        seterr(err, errsz, "malformed topology '%s'", spec);
        return TOPO_USAGE;
    }
    if (strcmp(name, "full") == 0 || strcmp(name, "switch") == 0) {
        int is_full = name[0] == 'f';
        if (nargs > (is_full ? 1 : 0)) {
            seterr(err, errsz, "'%s' takes %s", name, is_full ? "one argument, full(d)" : "no arguments");
            return TOPO_USAGE;
        }
        int64_t d = nargs ? args[0] : 1;
        if (ports > 0) d = ports;
        char nm[64];
        if (is_full) snprintf(nm, sizeof nm, "full(%lld)", (long long)d);
        else if (d == 1) snprintf(nm, sizeof nm, "switch");
        else snprintf(nm, sizeof nm, "switch(%lld ports)", (long long)d);
        *out = make_star(nm, N, d);
        return TOPO_OK;
    }
    for (size_t k = 0; k < nextra; k++)
        if (strcmp(name, extra[k].name) == 0) {
            if (nargs) {
                seterr(err, errsz, "topology '%s' takes no arguments", name);
                return TOPO_USAGE;
            }
            char none[8];
            return err && errsz ? extra[k].build(N, ports, out, err, errsz)
                                : extra[k].build(N, ports, out, none, sizeof none);
        }
    int builtin = strcmp(name, "ring") == 0 || strcmp(name, "biring") == 0 ||
                  strcmp(name, "hypercube") == 0 || strcmp(name, "torus") == 0;
    if (builtin && strcmp(name, "torus") != 0 && nargs) {
        seterr(err, errsz, "topology '%s' takes no arguments", name);
        return TOPO_USAGE;
    }
    if (builtin && N > TOPO_MAX_GRAPH_NODES) {
        seterr(err, errsz, "topology '%s' supports at most %d ranks (N = %lld)", name,
               TOPO_MAX_GRAPH_NODES, (long long)N);
        return TOPO_NOT_APPLICABLE;
    }
    if (strcmp(name, "ring") == 0 || strcmp(name, "biring") == 0) {
        *out = make_ring(N, name[0] == 'b', ports);
        return TOPO_OK;
    }
    if (strcmp(name, "hypercube") == 0) {
        if (N & (N - 1)) {
            seterr(err, errsz, "a hypercube needs a power-of-two N (N = %lld)", (long long)N);
            return TOPO_NOT_APPLICABLE;
        }
        *out = make_hypercube(N, ports);
        return TOPO_OK;
    }
    if (strcmp(name, "torus") == 0) {
        int64_t A, B;
        if (nargs == 2) {
            A = args[0];
            B = args[1];
        } else if (nargs == 0) {
            /* the most square A x B = N, A <= B */
            A = 1;
            for (int64_t a = 1; a * a <= N; a++)
                if (N % a == 0) A = a;
            B = N / A;
        } else {
            seterr(err, errsz, "torus takes two arguments, torus(A,B)");
            return TOPO_USAGE;
        }
        if (A * B != N) {
            seterr(err, errsz, "torus(%lld,%lld) has %lld nodes but N = %lld", (long long)A,
                   (long long)B, (long long)(A * B), (long long)N);
            return TOPO_NOT_APPLICABLE;
        }
        *out = make_torus(A, B, ports);
        return TOPO_OK;
    }
    const Topology *ut = NULL;
    if (prog) {
        for (int k = 0; k < prog->ntopologies; k++)
            if (strcmp(prog->topologies[k]->name, spec) == 0) ut = prog->topologies[k];
    }
    if (!ut) {
        char names[256] = "";
        size_t len = 0;
        Suggest sg;
        suggest_init(&sg, name, SUGGEST_NAME);
        static const char *const builtins[] = {"full", "switch", "ring", "biring", "hypercube", "torus"};
        for (size_t k = 0; k < ARRAY_LEN(builtins); k++) suggest_offer(&sg, builtins[k], NULL);
        for (size_t k = 0; k < nextra; k++) {
            suggest_offer(&sg, extra[k].name, NULL);
            if (len < sizeof names) len += (size_t)snprintf(names + len, sizeof names - len, ", %s", extra[k].name);
        }
        for (int k = 0; prog && k < prog->ntopologies; k++) suggest_offer(&sg, prog->topologies[k]->name, NULL);
        char hint[96] = "";
        if (sg.best) snprintf(hint, sizeof hint, "; did you mean '%s'?", sg.best);
        seterr(err, errsz,
               "unknown topology '%s' (built-in: full, full(d), switch, ring, biring, hypercube, "
               "torus(A,B)%s, or a topology block of the input)%s",
               spec, names, hint);
        return TOPO_USAGE;
    }
    return make_user(ut, N, ports, alpha_s, beta_Bps, dx, out);
}

/* ---- routing ---- */

static void bfs_row(TopoModel *t, int64_t src) {
    int64_t nn = t->nnodes;
    int32_t *par = t->parent + src * nn;
    int32_t *h = t->hops + src * nn;
    for (int64_t v = 0; v < nn; v++) {
        par[v] = -1;
        h[v] = -1;
    }
    int32_t *queue = xmalloc((size_t)nn * sizeof *queue);
    size_t qh = 0, qt = 0;
    h[src] = 0;
    queue[qt++] = (int32_t)src;
    while (qh < qt) {
        int32_t v = queue[qh++];
        for (size_t k = t->out_first[v]; k < t->out_first[v + 1]; k++) {
            int32_t li = t->out_idx[k];
            int32_t w = t->links[li].to;
            if (h[w] >= 0) continue;
            h[w] = h[v] + 1;
            par[w] = li;
            queue[qt++] = w;
        }
    }
    free(queue);
    t->row_done[src] = 1;
}

int topo_hops(TopoModel *t, int64_t src, int64_t dst) {
    if (src == dst) return 0;
    if (t->kind == TOPO_STAR) return 2;
    if (!t->row_done[src]) bfs_row(t, src);
    return t->hops[src * t->nnodes + dst];
}

int topo_route(TopoModel *t, int64_t src, int64_t dst, int32_t *buf) {
    if (src == dst) return 0;
    if (t->kind == TOPO_STAR) {
        buf[0] = (int32_t)(2 * src);
        buf[1] = (int32_t)(2 * dst + 1);
        return 2;
    }
    if (!t->row_done[src]) bfs_row(t, src);
    int h = t->hops[src * t->nnodes + dst];
    if (h < 0) return -1;
    int64_t v = dst;
    for (int k = h - 1; k >= 0; k--) {
        int32_t li = t->parent[src * t->nnodes + v];
        buf[k] = li;
        v = t->links[li].from;
    }
    return h;
}

void topo_describe(const TopoModel *t, char *buf, size_t size) {
    if (t->kind == TOPO_STAR)
        snprintf(buf, size, "%s", t->name);
    else
        snprintf(buf, size, "%s (%lld nodes, %zu links)", t->name, (long long)t->nnodes,
                 t->nlinks);
}
