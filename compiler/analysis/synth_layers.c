/* synth_layers.c - the layered engine of the synthesizer (synth.h): the rank
 * graph, and per layer step the split of every demand over the arcs that
 * can serve it that minimises the busiest link (a maximum flow, searched
 * over the step's time). */
#include "analysis/synth_engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/maxflow.h"
#include "support/util.h"

/* ---- the rank graph ---- */

int synth_graph_build(SynthGraph *g, TopoModel *t, char *err, size_t errsz) {
    memset(g, 0, sizeof *g);
    int64_t N = t->N;
    g->N = N;
    g->t = t;
    g->arc = xmalloc((size_t)(N * N) * sizeof *g->arc);
    g->dist = xmalloc((size_t)(N * N) * sizeof *g->dist);
    int32_t *route = xmalloc((size_t)t->nnodes * sizeof *route);
    size_t cap = 16, lcap = 16;
    g->arc_from = xmalloc(cap * sizeof *g->arc_from);
    g->arc_to = xmalloc(cap * sizeof *g->arc_to);
    g->link_first = xmalloc((cap + 1) * sizeof *g->link_first);
    g->links = xmalloc(lcap * sizeof *g->links);
    g->link_first[0] = 0;
    for (int64_t u = 0; u < N; u++)
        for (int64_t v = 0; v < N; v++) {
            g->arc[u * N + v] = -1;
            if (u == v) continue;
            int h = topo_route(t, u, v, route);
            if (h < 0) continue;
            int through_rank = 0;
            for (int k = 0; k + 1 < h; k++) through_rank |= t->links[route[k]].to < N;
            if (through_rank) continue;
            if (g->narcs == cap) {
                cap *= 2;
                g->arc_from = xrealloc(g->arc_from, cap * sizeof *g->arc_from);
                g->arc_to = xrealloc(g->arc_to, cap * sizeof *g->arc_to);
                g->link_first = xrealloc(g->link_first, (cap + 1) * sizeof *g->link_first);
            }
            size_t a = g->narcs++;
            g->arc_from[a] = (int32_t)u;
            g->arc_to[a] = (int32_t)v;
            size_t first = g->link_first[a];
            while (first + (size_t)h > lcap) {
                lcap *= 2;
                g->links = xrealloc(g->links, lcap * sizeof *g->links);
            }
            memcpy(g->links + first, route, (size_t)h * sizeof *route);
            g->link_first[a + 1] = first + (size_t)h;
            g->arc[u * N + v] = (int32_t)a;
        }
    free(route);
    /* hops of the rank graph, BFS from every rank */
    int32_t *queue = xmalloc((size_t)N * sizeof *queue);
    for (int64_t s = 0; s < N; s++) {
        int32_t *d = g->dist + s * N;
        for (int64_t v = 0; v < N; v++) d[v] = -1;
        size_t qh = 0, qt = 0;
        d[s] = 0;
        queue[qt++] = (int32_t)s;
        while (qh < qt) {
            int32_t u = queue[qh++];
            for (int64_t v = 0; v < N; v++)
                if (g->arc[u * N + v] >= 0 && d[v] < 0) {
                    d[v] = d[u] + 1;
                    queue[qt++] = (int32_t)v;
                }
        }
        for (int64_t v = 0; v < N; v++)
            if (d[v] < 0) {
                snprintf(err, errsz, "topology '%s' has no path from rank %lld to rank %lld", t->name,
                         (long long)s, (long long)v);
                free(queue);
                return -1;
            }
    }
    free(queue);
    return 0;
}

void synth_graph_free(SynthGraph *g) {
    free(g->arc);
    free(g->arc_from);
    free(g->arc_to);
    free(g->link_first);
    free(g->links);
    free(g->dist);
    memset(g, 0, sizeof *g);
}

void synth_moves_free(SynthMoves *m) {
    free(m->v);
    memset(m, 0, sizeof *m);
}

void synth_moves_push(SynthMoves *m, SynthMove mv) {
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 256;
        m->v = xrealloc(m->v, m->cap * sizeof *m->v);
    }
    m->v[m->n++] = mv;
    if (mv.step > m->nsteps) m->nsteps = mv.step;
}

/* ---- balancing one step ---- */

/* A demand: `amount` chunks [lo, hi) of `owner` that rank `to` needs from
 * one of the candidate arcs cand[first .. first + ncand). */
typedef struct Demand {
    int32_t owner, to, lo, hi;
    size_t first, ncand;
} Demand;

typedef struct StepProblem {
    Demand *d;
    size_t nd, dcap;
    int32_t *cand;      /* arc per candidate */
    int32_t *from;      /* the rank the data leaves from, per candidate */
    size_t nc, ccap;
    int64_t *amount;    /* result: chunks per candidate */
} StepProblem;

static void step_clear(StepProblem *p) { p->nd = p->nc = 0; }

static void step_free(StepProblem *p) {
    free(p->d);
    free(p->cand);
    free(p->from);
    free(p->amount);
}

static Demand *demand_new(StepProblem *p, int32_t owner, int32_t to, int32_t lo, int32_t hi) {
    if (p->nd == p->dcap) {
        p->dcap = p->dcap ? 2 * p->dcap : 256;
        p->d = xrealloc(p->d, p->dcap * sizeof *p->d);
    }
    Demand *d = &p->d[p->nd++];
    *d = (Demand){owner, to, lo, hi, p->nc, 0};
    return d;
}

static void cand_add(StepProblem *p, Demand *d, int32_t arc, int32_t from) {
    if (p->nc == p->ccap) {
        p->ccap = p->ccap ? 2 * p->ccap : 256;
        p->cand = xrealloc(p->cand, p->ccap * sizeof *p->cand);
        p->from = xrealloc(p->from, p->ccap * sizeof *p->from);
    }
    p->cand[p->nc] = arc;
    p->from[p->nc] = from;
    p->nc++;
    d->ncand++;
}

/* Is link l on arc a? */
static int arc_has(const SynthGraph *g, int32_t a, int32_t l) {
    for (size_t k = g->link_first[a]; k < g->link_first[a + 1]; k++)
        if (g->links[k] == l) return 1;
    return 0;
}

/* The links of candidate c that not every candidate of its demand shares
 * (those all share are loaded whatever the split). */
static int variable_links(const SynthGraph *g, const StepProblem *p, const Demand *d, size_t c, int32_t *out) {
    int n = 0;
    int32_t a = p->cand[c];
    for (size_t k = g->link_first[a]; k < g->link_first[a + 1]; k++) {
        int32_t l = g->links[k];
        int shared = 1;
        for (size_t o = d->first; o < d->first + d->ncand && shared; o++) shared = arc_has(g, p->cand[o], l);
        if (!shared) out[n++] = l;
    }
    return n;
}

static double tpb(const SynthGraph *g, int32_t l) { return rat_to_double(g->t->links[l].tpb); }

/* Greedy split: whole demands, largest first, each to the candidate whose
 * busiest link ends least loaded. */
static void balance_greedy(SynthGraph *g, StepProblem *p) {
    double *load = xcalloc(g->t->nlinks ? g->t->nlinks : 1, sizeof *load);
    size_t *order = xmalloc((p->nd ? p->nd : 1) * sizeof *order);
    for (size_t k = 0; k < p->nd; k++) order[k] = k;
    for (size_t i = 1; i < p->nd; i++)
        for (size_t j = i; j > 0; j--) {
            const Demand *a = &p->d[order[j - 1]], *b = &p->d[order[j]];
            if (a->hi - a->lo >= b->hi - b->lo) break;
            size_t tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    for (size_t i = 0; i < p->nd; i++) {
        const Demand *d = &p->d[order[i]];
        int64_t amt = d->hi - d->lo;
        size_t best = d->first;
        double best_v = INFINITY;
        for (size_t c = d->first; c < d->first + d->ncand; c++) {
            double v = 0;
            int32_t a = p->cand[c];
            for (size_t k = g->link_first[a]; k < g->link_first[a + 1]; k++) {
                double x = (load[g->links[k]] + (double)amt) * tpb(g, g->links[k]);
                if (x > v) v = x;
            }
            if (v < best_v) {
                best_v = v;
                best = c;
            }
        }
        for (size_t c = d->first; c < d->first + d->ncand; c++) p->amount[c] = c == best ? amt : 0;
        int32_t a = p->cand[best];
        for (size_t k = g->link_first[a]; k < g->link_first[a + 1]; k++) load[g->links[k]] += (double)amt;
    }
    free(order);
    free(load);
    g->greedy_steps++;
}

/* The flow network of one step, probed at a time C. */
typedef struct Feasible {
    const SynthGraph *g;
    MaxFlow *f;
    const int32_t *link_of_node;
    const size_t *sink_edge;
    const int64_t *fixed;
    int nlinknodes;
    int64_t total;
} Feasible;

/* Does every chunk find room when each link carries at most C time? */
static int feasible(Feasible *x, double C) {
    for (int n = 0; n < x->nlinknodes; n++) {
        int32_t l = x->link_of_node[n];
        int64_t c = (int64_t)floor(C / tpb(x->g, l) + 1e-9) - x->fixed[l];
        if (c < 0) return 0;
        maxflow_set_cap(x->f, x->sink_edge[n], c);
    }
    maxflow_reset(x->f);
    return maxflow_run(x->f, 0, 1) == x->total;
}

/* Splits every demand of the step over its candidates (p->amount) so that
 * the largest link time (chunks x time per byte) is minimal: the smallest
 * time C at which a flow source -> demands -> links -> sink with link
 * capacities floor(C / tpb) carries every chunk. */
static void balance(SynthGraph *g, StepProblem *p) {
    p->amount = xrealloc(p->amount, (p->nc ? p->nc : 1) * sizeof *p->amount);
    if (p->nd == 0) return;
    size_t nl = g->t->nlinks;
    int64_t *fixed = xcalloc(nl, sizeof *fixed);
    int32_t *node_of = xmalloc(nl * sizeof *node_of);
    for (size_t l = 0; l < nl; l++) node_of[l] = -1;
    int32_t *var = xmalloc((size_t)g->t->nnodes * sizeof *var);
    int32_t *cand_link = xmalloc(p->nc * sizeof *cand_link); /* -1: none variable */
    int nlinknodes = 0, greedy = 0;
    for (size_t i = 0; i < p->nd && !greedy; i++) {
        const Demand *d = &p->d[i];
        int32_t a0 = p->cand[d->first];
        for (size_t k = g->link_first[a0]; k < g->link_first[a0 + 1]; k++) {
            int32_t l = g->links[k];
            int shared = 1;
            for (size_t o = d->first; o < d->first + d->ncand && shared; o++) shared = arc_has(g, p->cand[o], l);
            if (shared) fixed[l] += d->hi - d->lo;
        }
        for (size_t c = d->first; c < d->first + d->ncand; c++) {
            int nv = variable_links(g, p, d, c, var);
            if (nv > 1) greedy = 1;
            cand_link[c] = nv ? var[0] : -1;
            if (nv && node_of[var[0]] < 0) node_of[var[0]] = nlinknodes++;
        }
    }
    if (greedy) {
        balance_greedy(g, p);
        free(fixed);
        free(node_of);
        free(var);
        free(cand_link);
        return;
    }
    /* the network: 0 source, 1 sink, demands, variable links */
    MaxFlow f;
    maxflow_init(&f, 2 + (int)p->nd + nlinknodes);
    int64_t total = 0;
    size_t *cand_edge = xmalloc(p->nc * sizeof *cand_edge);
    for (size_t i = 0; i < p->nd; i++) {
        const Demand *d = &p->d[i];
        int64_t amt = d->hi - d->lo;
        total += amt;
        maxflow_edge(&f, 0, 2 + (int)i, amt);
        for (size_t c = d->first; c < d->first + d->ncand; c++) {
            int to = cand_link[c] < 0 ? 1 : 2 + (int)p->nd + node_of[cand_link[c]];
            cand_edge[c] = maxflow_edge(&f, 2 + (int)i, to, amt);
        }
    }
    int32_t *link_of_node = xmalloc((size_t)(nlinknodes ? nlinknodes : 1) * sizeof *link_of_node);
    size_t *sink_edge = xmalloc((size_t)(nlinknodes ? nlinknodes : 1) * sizeof *sink_edge);
    for (size_t l = 0; l < nl; l++)
        if (node_of[l] >= 0) {
            link_of_node[node_of[l]] = (int32_t)l;
            sink_edge[node_of[l]] = maxflow_edge(&f, 2 + (int)p->nd + node_of[l], 1, 0);
        }
    /* The time C is a multiple of some link's time per byte; with one time
     * per byte (every built-in topology) search the multiple, else search C
     * and let the capacities floor it. */
    double t0 = -1;
    int uniform = 1;
    for (size_t l = 0; l < nl; l++)
        if (node_of[l] >= 0 || fixed[l]) {
            if (t0 < 0) t0 = tpb(g, (int32_t)l);
            else if (tpb(g, (int32_t)l) != t0) uniform = 0;
        }
    double lo = 0, hi = 0;
    for (size_t l = 0; l < nl; l++) {
        double fl = (double)fixed[l] * tpb(g, (int32_t)l);
        if (fl > lo) lo = fl;
        double w = (double)(fixed[l] + total) * tpb(g, (int32_t)l);
        if (w > hi) hi = w;
    }
    Feasible fx = {g, &f, link_of_node, sink_edge, fixed, nlinknodes, total};
    if (uniform && t0 > 0) {
        int64_t klo = (int64_t)floor(lo / t0 + 1e-9), khi = (int64_t)ceil(hi / t0 - 1e-9);
        if (klo > 0) klo--;
        /* invariant: klo infeasible (or below every need), khi feasible */
        while (khi - klo > 1) {
            int64_t mid = klo + (khi - klo) / 2;
            if (feasible(&fx, (double)mid * t0)) khi = mid;
            else klo = mid;
        }
        int ok = feasible(&fx, (double)khi * t0);
        COLLC_ASSERT(ok);
    } else {
        for (int it = 0; it < 60 && hi - lo > 1e-12 * hi; it++) {
            double mid = (lo + hi) / 2;
            if (feasible(&fx, mid)) hi = mid;
            else lo = mid;
        }
        int ok = feasible(&fx, hi);
        COLLC_ASSERT(ok);
    }
    for (size_t c = 0; c < p->nc; c++) p->amount[c] = maxflow_flow(&f, cand_edge[c]);
    maxflow_free(&f);
    free(cand_edge);
    free(link_of_node);
    free(sink_edge);
    free(fixed);
    free(node_of);
    free(var);
    free(cand_link);
}

/* The demands' chunks cut into consecutive pieces, one per candidate. */
static void emit_moves(const StepProblem *p, int32_t step, SynthMoves *out) {
    for (size_t i = 0; i < p->nd; i++) {
        const Demand *d = &p->d[i];
        int32_t lo = d->lo;
        for (size_t c = d->first; c < d->first + d->ncand; c++) {
            int32_t n = (int32_t)p->amount[c];
            if (!n) continue;
            synth_moves_push(out, (SynthMove){step, d->owner, p->from[c], d->to, lo, lo + n});
            lo += n;
        }
        COLLC_ASSERT(lo == d->hi);
    }
}

/* The arc data takes from `from` to `to` in the phase's direction. */
static int32_t phase_arc(const SynthGraph *g, int reverse, int32_t from, int32_t to) {
    return reverse ? g->arc[(int64_t)to * g->N + from] : g->arc[(int64_t)from * g->N + to];
}

/* Hops from a to b in the phase's direction. */
static int32_t phase_dist(const SynthGraph *g, int reverse, int64_t a, int64_t b) {
    return reverse ? g->dist[b * g->N + a] : g->dist[a * g->N + b];
}

void synth_spread(SynthGraph *g, const int32_t *lo, const int32_t *hi, const int64_t *have, int reverse,
                  SynthMoves *out) {
    int64_t N = g->N;
    memset(out, 0, sizeof *out);
    int32_t depth = 0;
    for (int64_t s = 0; s < N; s++)
        for (int64_t v = 0; v < N; v++)
            if (hi[s] > lo[s] && phase_dist(g, reverse, s, v) > depth) depth = phase_dist(g, reverse, s, v);
    StepProblem p = {0};
    for (int32_t t = 1; t <= depth; t++) {
        step_clear(&p);
        for (int64_t s = 0; s < N; s++) {
            if (hi[s] <= lo[s]) continue;
            for (int64_t v = 0; v < N; v++) {
                if (phase_dist(g, reverse, s, v) != t) continue;
                if (have && have[s * N + v] >= hi[s] - lo[s]) continue;
                Demand *d = demand_new(&p, (int32_t)s, (int32_t)v, lo[s], hi[s]);
                for (int64_t u = 0; u < N; u++) {
                    if (phase_dist(g, reverse, s, u) != t - 1) continue;
                    int32_t a = phase_arc(g, reverse, (int32_t)u, (int32_t)v);
                    if (a >= 0) cand_add(&p, d, a, (int32_t)u);
                }
                COLLC_ASSERT(d->ncand > 0);
            }
        }
        balance(g, &p);
        emit_moves(&p, t, out);
    }
    out->nsteps = depth;
    step_free(&p);
}

void synth_route(SynthGraph *g, int64_t root, const int32_t *lo, const int32_t *hi, int reverse,
                 SynthMoves *out) {
    int64_t N = g->N;
    memset(out, 0, sizeof *out);
    /* pieces in flight: (holder, target, lo, hi) */
    typedef struct Piece { int32_t at, target, lo, hi; } Piece;
    Piece *cur = xmalloc((size_t)N * sizeof *cur);
    size_t ncur = 0, cap = (size_t)N;
    for (int64_t v = 0; v < N; v++)
        if (v != root && hi[v] > lo[v]) cur[ncur++] = (Piece){(int32_t)root, (int32_t)v, lo[v], hi[v]};
    StepProblem p = {0};
    int32_t t = 0;
    while (ncur) {
        t++;
        step_clear(&p);
        for (size_t k = 0; k < ncur; k++) {
            const Piece *pc = &cur[k];
            Demand *d = demand_new(&p, pc->target, pc->target, pc->lo, pc->hi);
            int32_t left = phase_dist(g, reverse, pc->at, pc->target);
            for (int64_t w = 0; w < N; w++) {
                int32_t a = phase_arc(g, reverse, pc->at, (int32_t)w);
                if (a >= 0 && phase_dist(g, reverse, w, pc->target) == left - 1) cand_add(&p, d, a, pc->at);
            }
            COLLC_ASSERT(d->ncand > 0);
        }
        balance(g, &p);
        /* the next holders: the candidate arcs' heads */
        size_t nnext = 0;
        Piece *next = xmalloc(cap * sizeof *next);
        for (size_t i = 0; i < p.nd; i++) {
            const Demand *d = &p.d[i];
            int32_t l = d->lo;
            for (size_t c = d->first; c < d->first + d->ncand; c++) {
                int32_t n = (int32_t)p.amount[c];
                if (!n) continue;
                int32_t a = p.cand[c];
                int32_t w = reverse ? g->arc_from[a] : g->arc_to[a];
                synth_moves_push(out, (SynthMove){t, d->owner, p.from[c], w, l, l + n});
                if (w != d->to) {
                    if (nnext == cap) {
                        cap *= 2;
                        next = xrealloc(next, cap * sizeof *next);
                    }
                    next[nnext++] = (Piece){w, d->to, l, l + n};
                }
                l += n;
            }
        }
        free(cur);
        cur = next;
        ncur = nnext;
    }
    out->nsteps = t;
    free(cur);
    step_free(&p);
}

/* ---- the engine ---- */

static int layered_applies(const SynthOptions *o) {
    (void)o;
    return 1;
}

static void layered_spread(SynthGraph *g, const int32_t *lo, const int32_t *hi, int reverse, SynthMoves *out) {
    synth_spread(g, lo, hi, NULL, reverse, out);
}

static void layered_try(SynthBuild *b, const int32_t *lo, const int32_t *hi) {
    switch (b->o->coll) {
    case COLLECTIVE_ALLGATHER: synth_build_spread_allgather(b, lo, hi); break;
    case COLLECTIVE_REDUCE_SCATTER: synth_build_spread_reduce_scatter(b, lo, hi); break;
    case COLLECTIVE_ALLREDUCE: synth_build_spread_allreduce(b, lo, hi); break;
    case COLLECTIVE_BROADCAST: synth_build_scatter_allgather(b, lo, hi); break;
    case COLLECTIVE_REDUCE: synth_build_reduce_scatter_gather(b, lo, hi); break;
    case COLLECTIVE_SCATTER:
    case COLLECTIVE_GATHER:
    case COLLECTIVE_ALLTOALL:
    case COLLECTIVE__COUNT: COLLC_UNREACHABLE("a collective synth does not make");
    }
}

static void layered_method(const SynthOptions *o, int weighted, char *buf, size_t size) {
    if (o->coll == COLLECTIVE_BROADCAST) snprintf(buf, size, "layered scatter from the root + allgather");
    else if (o->coll == COLLECTIVE_REDUCE) snprintf(buf, size, "reduce-scatter + layered gather to the root");
    else synth_method_spread(o, "layered breadth-first trees", weighted, buf, size);
}

const SynthEngine synth_engine_layered = {
    .name = "layered",
    .applies = layered_applies,
    .try_candidate = layered_try,
    .method = layered_method,
    .spread = layered_spread,
    .rounds = 0,
};
