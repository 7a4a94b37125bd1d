/* synth_pipe.c - the pipelined engine of the synthesizer (synth.h), made
 * for topologies whose routes between neighbouring ranks pass switches,
 * NICs or chips off the ranks (ForestColl's setting: such nodes relay but
 * hold no data), and tried for AllGather and ReduceScatter on every
 * topology: on uneven bandwidths without switches its steps of one time
 * budget also fill the slow links that the other engines leave idle.
 *
 * Every step has one time budget tau, the same for every step of a spread:
 * a link may carry as many chunks as cross it in tau (tau / its time per
 * chunk), so a slow link carries few chunks per step and a fast one many,
 * and the slow link of the binding cut is busy in every step. Within a step
 * the chunks, rarest first, go from ranks that held them at the start of
 * the step to neighbours that lack them, over any number of neighbours at
 * once; a rank takes a chunk only over the shortest route from a rank that
 * has it or gets it in the step, so a chunk goes over a node's slow NIC or
 * rail links once and the ranks behind them pass it on.
 * The ranks a chunk reaches form an out-tree from its owner through the
 * switches, and the trees of all chunks are packed into the steps as the
 * links allow: a tree packing, pipelined.
 *
 * The budgets tried are small multiples of the links' times per chunk; the
 * spread keeps the one whose steps take the least time in all. After the
 * last chunk crosses the binding cut the ranks behind it still pass it on,
 * so a spread is above the cut bound by at least one step of one chunk
 * (docs/synth.md section 6). */
#include "analysis/synth_engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/util.h"

typedef struct Pipe {
    const SynthGraph *g;
    int64_t N, X;
    size_t nl;
    int reverse;
    int32_t *owner;     /* [X] */
    int32_t *got;       /* [N * X] step the rank got the chunk (0: owns it, -1: lacks it) */
    int32_t *nholders;  /* [X] */
    int64_t *need;      /* [N] chunks the rank lacks */
    double *tpb;        /* [nl] time per chunk, relative */
    double *cap;        /* [nl] time left in the step */
    int32_t *order;     /* [X] chunks, rarest first */
    int32_t *ties;      /* [X] chunks in the order of their ties (pipe_tie) */
    int32_t *count;     /* [N + 2] counting sort of the chunks by holders */
    int32_t *rorder;    /* [N] receivers, furthest behind first */
    int32_t *rfirst, *rend; /* [N] the run of equally far behind receivers
                           around rorder[j]: [rfirst[j], rend[j]) */
    double *incap;      /* [N] what the rank can receive per unit of time */
    size_t *in_first;   /* [N + 1] CSR: the phase's in-neighbours of a rank, */
    int32_t *in_from, *in_arc; /* the shorter routes first, then by rank */
    int32_t *in_hops;   /* [narcs] the links of in_arc's route */
    size_t *out_first;  /* [N + 1] CSR: the phase's out-neighbours of a rank */
    int32_t *out_to;
    int32_t *held_in;   /* [N * X] in-neighbours of the rank that hold the chunk
                           (held or got it): 0 lets pipe_step skip the rank
                           without scanning them */
    int64_t work;
    int rotate;         /* ties among receivers turn with the chunk */
    int detour;         /* a rank may take a chunk over a longer route when
                           no holder on the shortest one has room */
    uint32_t seed;      /* 0: ties go to the smaller number; else a fixed
                           shuffle of the ties (the step-bounded engine) */
} Pipe;

/* The order of ties under p->seed. */
static uint32_t pipe_mix(const Pipe *p, uint32_t x) {
    uint32_t h = (x + 1) * 0x9e3779b9u ^ p->seed * 0x85ebca6bu;
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    return h;
}

/* a before b among ties */
static int pipe_tie(const Pipe *p, int32_t a, int32_t b) {
    if (p->seed) {
        uint32_t ha = pipe_mix(p, (uint32_t)a), hb = pipe_mix(p, (uint32_t)b);
        if (ha != hb) return ha < hb ? -1 : 1;
    }
    return a < b ? -1 : a > b;
}

/* The topology arc that carries the phase's u -> v. */
static int32_t pipe_arc(const Pipe *p, int64_t u, int64_t v) {
    return p->reverse ? p->g->arc[v * p->N + u] : p->g->arc[u * p->N + v];
}

/* Arc a has room for one more chunk in this step. */
static int pipe_fits(const Pipe *p, int32_t a) {
    const SynthGraph *g = p->g;
    for (size_t k = g->link_first[a]; k < g->link_first[a + 1]; k++) {
        int32_t l = g->links[k];
        if (p->cap[l] < p->tpb[l] * (1 - 1e-9)) return 0;
    }
    return 1;
}

/* The room left on the arc's fullest link, in chunks of that link. */
static double pipe_room(const Pipe *p, int32_t a) {
    const SynthGraph *g = p->g;
    double r = INFINITY;
    for (size_t k = g->link_first[a]; k < g->link_first[a + 1]; k++) {
        int32_t l = g->links[k];
        r = fmin(r, p->cap[l] / p->tpb[l]);
    }
    return r;
}

typedef struct PipeCmp {
    const Pipe *p;
} PipeCmp;

static int cmp_tie(const void *pa, const void *pb, void *ctx) {
    const Pipe *p = ((const PipeCmp *)ctx)->p;
    return pipe_tie(p, *(const int32_t *)pa, *(const int32_t *)pb);
}

static int cmp_behind(const void *pa, const void *pb, void *ctx) {
    const Pipe *p = ((const PipeCmp *)ctx)->p;
    int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
    double ra = (double)p->need[a] / p->incap[a], rb = (double)p->need[b] / p->incap[b];
    if (ra != rb) return ra > rb ? -1 : 1;
    return pipe_tie(p, a, b);
}

/* One step at budget tau (INFINITY: no limit): appends its moves, returns
 * how many chunks it delivered. */
static size_t pipe_step(Pipe *p, int32_t step, double tau, SynthMoves *out) {
    int64_t N = p->N, X = p->X;
    for (size_t l = 0; l < p->nl; l++) p->cap[l] = tau;
    PipeCmp c = {p};
    /* rarest first, ties in their order: a stable counting sort of the
     * chunks in tie order by their holders (1 .. N) */
    memset(p->count, 0, (size_t)(N + 2) * sizeof *p->count);
    for (int64_t x = 0; x < X; x++) p->count[p->nholders[x] + 1]++;
    for (int64_t k = 1; k <= N + 1; k++) p->count[k] += p->count[k - 1];
    for (int64_t i = 0; i < X; i++) {
        int32_t x = p->ties[i];
        p->order[p->count[p->nholders[x]]++] = x;
    }
    for (int64_t v = 0; v < N; v++) p->rorder[v] = (int32_t)v;
    qsort_r(p->rorder, (size_t)N, sizeof *p->rorder, cmp_behind, &c);
    for (int64_t j = 0, j0 = 0; j < N; j++) {
        int32_t a = p->rorder[j0], b = p->rorder[j];
        if ((double)p->need[a] / p->incap[a] != (double)p->need[b] / p->incap[b]) j0 = j;
        p->rfirst[j] = (int32_t)j0;
    }
    for (int64_t j = N - 1; j >= 0; j--)
        p->rend[j] = j + 1 < N && p->rfirst[j + 1] == p->rfirst[j] ? p->rend[j + 1] : (int32_t)(j + 1);
    size_t n = 0;
    for (int pass = 0; pass <= p->detour; pass++)
    for (int64_t i = 0; i < X; i++) {
        int64_t x = p->order[i];
        if (p->nholders[x] == N) continue;
        for (int64_t j = 0; j < N; j++) {
            /* equally far behind receivers in an order that turns with the
             * chunk: the senders' room goes round them evenly */
            int64_t f = p->rfirst[j], len = p->rend[j] - f;
            int64_t v = p->rorder[p->rotate ? f + (j - f + x) % len : j];
            if (p->got[v * X + x] >= 0) continue;
            /* v takes x over the shortest route from a rank that holds it,
             * or gets it in this step: through a switch or a NIC the chunk
             * then crosses the slow links into a region once and the ranks
             * there pass it on. Of the holders that far that held x before
             * this step, the route with the most room; none: v waits. */
            int64_t best = -1;
            int32_t ba = -1;
            double broom = 0;
            /* the work counts every in-neighbour, as a scan of them all
             * would: the effort bound sees the same work however fast */
            if (p->held_in[v * X + x] > 0) {
                size_t k = p->in_first[v], end = p->in_first[v + 1];
                while (k < end && p->got[(int64_t)p->in_from[k] * X + x] < 0) k++;
                int32_t hmin = k < end ? p->in_hops[k] : 0;
                for (; k < end && (p->in_hops[k] == hmin || (pass && best < 0)); k++) {
                    int64_t u = p->in_from[k];
                    int32_t a = p->in_arc[k];
                    int32_t gu = p->got[u * X + x];
                    if (gu < 0 || gu >= step || !pipe_fits(p, a)) continue;
                    double room = pipe_room(p, a);
                    if (ba < 0 || room > broom ||
                        (p->seed && room == broom &&
                         pipe_tie(p, (int32_t)(u * N + v), (int32_t)(best * N + v)) < 0))
                        best = u, ba = a, broom = room;
                }
            }
            p->work += (int64_t)(p->in_first[v + 1] - p->in_first[v]);
            if (best < 0) continue;
            for (size_t k = p->g->link_first[ba]; k < p->g->link_first[ba + 1]; k++)
                p->cap[p->g->links[k]] -= p->tpb[p->g->links[k]];
            p->got[v * X + x] = step;
            for (size_t k = p->out_first[v]; k < p->out_first[v + 1]; k++) p->held_in[p->out_to[k] * X + x]++;
            synth_moves_push(out, (SynthMove){step, p->owner[x], (int32_t)best, (int32_t)v, (int32_t)x,
                                              (int32_t)x + 1});
            n++;
        }
    }
    /* what the step delivered counts from the next one on */
    for (size_t k = out->n - n; k < out->n; k++) {
        p->nholders[out->v[k].lo]++;
        p->need[out->v[k].to]--;
    }
    return n;
}

static int cmp_move(const void *pa, const void *pb) {
    const SynthMove *a = pa, *b = pb;
    if (a->step != b->step) return a->step < b->step ? -1 : 1;
    if (a->from != b->from) return a->from < b->from ? -1 : 1;
    if (a->to != b->to) return a->to < b->to ? -1 : 1;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* The time of one step, the moves m->v[first ..] (one step's): as long as
 * its busiest link. `load` is scratch of p->nl entries. */
static double pipe_step_time(const Pipe *p, const SynthMoves *m, size_t first, double *load) {
    memset(load, 0, p->nl * sizeof *load);
    double busiest = 0;
    for (size_t k = first; k < m->n; k++) {
        int32_t a = pipe_arc(p, m->v[k].from, m->v[k].to);
        for (size_t i = p->g->link_first[a]; i < p->g->link_first[a + 1]; i++) {
            int32_t l = p->g->links[i];
            load[l] += p->tpb[l];
            busiest = fmax(busiest, load[l]);
        }
    }
    return busiest;
}

/* The spread at budget tau (tau[t - 1] for step t when seq, which allows
 * at most nseq steps) into *out, its time (the sum of its steps' times) into
 * *time. Returns 0 when a sequence did not deliver every chunk in its steps,
 * or when the steps so far take `limit` or more (a spread that cannot beat
 * one found before): *out is then empty. */
static int pipe_run_seq(Pipe *p, const int32_t *lo, const int32_t *hi, const double *tau, int seq, int nseq,
                        double limit, SynthMoves *out, double *time) {
    int64_t N = p->N, X = p->X;
    memset(out, 0, sizeof *out);
    int64_t missing = 0;
    for (int64_t v = 0; v < N; v++) p->need[v] = 0;
    for (int64_t k = 0; k < N * X; k++) p->got[k] = -1;
    memset(p->held_in, 0, (size_t)(N * X) * sizeof *p->held_in);
    for (int64_t x = 0; x < X; x++) p->nholders[x] = 0;
    for (int64_t s = 0; s < N; s++)
        for (int32_t x = lo[s]; x < hi[s]; x++) {
            p->owner[x] = (int32_t)s;
            p->got[s * X + x] = 0;
            p->nholders[x] = 1;
            for (size_t k = p->out_first[s]; k < p->out_first[s + 1]; k++) p->held_in[p->out_to[k] * X + x]++;
        }
    for (int64_t v = 0; v < N; v++)
        for (int64_t x = 0; x < X; x++) p->need[v] += p->got[v * X + x] < 0;
    for (int64_t x = 0; x < X; x++) p->ties[x] = (int32_t)x;
    if (p->seed) {
        PipeCmp c = {p};
        qsort_r(p->ties, (size_t)X, sizeof *p->ties, cmp_tie, &c);
    }
    for (int64_t v = 0; v < N; v++) missing += p->need[v];
    int32_t step = 0;
    double *load = xmalloc((p->nl ? p->nl : 1) * sizeof *load);
    *time = 0;
    int done = 1;
    while (missing > 0 && done) {
        step++;
        if ((seq && step > nseq) || *time >= limit) {
            done = 0;
            break;
        }
        size_t first = out->n;
        size_t n = pipe_step(p, step, seq ? tau[step - 1] : *tau, out);
        if (seq && n == 0) continue; /* a step that delivers nothing: the sequence fails */
        /* every route a rank waits on has a link slower than the budget:
         * this step without one (a connected graph always delivers) */
        if (n == 0) n = pipe_step(p, step, INFINITY, out);
        COLLC_ASSERT(n > 0);
        missing -= (int64_t)n;
        *time += pipe_step_time(p, out, first, load);
    }
    free(load);
    if (!done) {
        synth_moves_free(out);
        memset(out, 0, sizeof *out);
        return 0;
    }
    out->nsteps = step;
    qsort(out->v, out->n, sizeof *out->v, cmp_move);
    return 1;
}

static int cmp_double(const void *pa, const void *pb) {
    double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

/* The budgets tried: 1 to 3 chunks of every distinct link time, then 4 to
 * PIPE_MAX_CHUNKS of them. A budget fills a link of time t to q·t only when
 * q·t is a multiple of t; two slow links of a binding cut (times 4 and 10/3:
 * 5 and 6 chunks in 20) are both full only at a common multiple, which can
 * lie beyond 3 chunks. The larger ones come after, so that a spread found
 * with the first ones is kept on a tie. */
enum { PIPE_MAX_CHUNKS = 8 };

static size_t pipe_budgets(const Pipe *p, double *tau, size_t max) {
    size_t n = 0;
    double *t = xmalloc((p->nl ? p->nl : 1) * sizeof *t);
    size_t nt = 0;
    for (size_t l = 0; l < p->nl; l++) t[nt++] = p->tpb[l];
    qsort(t, nt, sizeof *t, cmp_double);
    for (int q0 = 1; q0 <= PIPE_MAX_CHUNKS; q0 = q0 == 1 ? 4 : PIPE_MAX_CHUNKS + 1)
        for (size_t i = 0; i < nt; i++) {
            if (i && t[i] <= t[i - 1] * (1 + 1e-9)) continue;
            for (int q = q0; q <= (q0 == 1 ? 3 : PIPE_MAX_CHUNKS) && n < max; q++) {
                double c = q * t[i];
                int dup = 0;
                for (size_t k = 0; k < n; k++) dup |= fabs(tau[k] - c) <= 1e-9 * c;
                if (!dup) tau[n++] = c;
            }
        }
    free(t);
    return n;
}

/* The state of spreads of the owners' chunks [lo[s], hi[s]) on g. */
static void pipe_init(Pipe *p, SynthGraph *g, const int32_t *hi, int reverse) {
    memset(p, 0, sizeof *p);
    p->g = g;
    p->N = g->N;
    p->nl = g->t->nlinks;
    p->reverse = reverse;
    int64_t N = p->N;
    for (int64_t s = 0; s < N; s++)
        if (hi[s] > p->X) p->X = hi[s];
    int64_t X = p->X;
    p->owner = xcalloc((size_t)X + 1, sizeof *p->owner);
    p->got = xmalloc((size_t)(N * X + 1) * sizeof *p->got);
    p->nholders = xcalloc((size_t)X + 1, sizeof *p->nholders);
    p->need = xcalloc((size_t)N, sizeof *p->need);
    p->tpb = xmalloc((p->nl ? p->nl : 1) * sizeof *p->tpb);
    p->cap = xmalloc((p->nl ? p->nl : 1) * sizeof *p->cap);
    p->order = xmalloc(((size_t)X + 1) * sizeof *p->order);
    p->ties = xmalloc(((size_t)X + 1) * sizeof *p->ties);
    p->count = xmalloc(((size_t)N + 2) * sizeof *p->count);
    p->rorder = xmalloc((size_t)N * sizeof *p->rorder);
    p->rfirst = xmalloc((size_t)N * sizeof *p->rfirst);
    p->rend = xmalloc((size_t)N * sizeof *p->rend);
    p->incap = xcalloc((size_t)N, sizeof *p->incap);
    for (size_t l = 0; l < p->nl; l++) p->tpb[l] = rat_to_double(g->t->links[l].tpb);
    p->in_first = xcalloc((size_t)N + 1, sizeof *p->in_first);
    p->in_from = xmalloc((g->narcs ? g->narcs : 1) * sizeof *p->in_from);
    p->in_arc = xmalloc((g->narcs ? g->narcs : 1) * sizeof *p->in_arc);
    p->in_hops = xmalloc((g->narcs ? g->narcs : 1) * sizeof *p->in_hops);
    p->out_first = xcalloc((size_t)N + 1, sizeof *p->out_first);
    p->out_to = xmalloc((g->narcs ? g->narcs : 1) * sizeof *p->out_to);
    p->held_in = xmalloc((size_t)(N * X + 1) * sizeof *p->held_in);
    int32_t maxh = 0;
    for (size_t a = 0; a < g->narcs; a++)
        if ((int32_t)(g->link_first[a + 1] - g->link_first[a]) > maxh)
            maxh = (int32_t)(g->link_first[a + 1] - g->link_first[a]);
    for (int64_t v = 0; v < N; v++) {
        size_t at = p->in_first[v];
        for (int32_t h = 1; h <= maxh; h++)
            for (int64_t u = 0; u < N; u++) {
                int32_t a = u != v ? pipe_arc(p, u, v) : -1;
                if (a < 0 || (int32_t)(g->link_first[a + 1] - g->link_first[a]) != h) continue;
                p->in_from[at] = (int32_t)u;
                p->in_arc[at] = a;
                p->in_hops[at++] = h;
            }
        p->in_first[v + 1] = at;
    }
    for (int64_t u = 0; u < N; u++) {
        size_t at = p->out_first[u];
        for (int64_t v = 0; v < N; v++)
            if (u != v && pipe_arc(p, u, v) >= 0) p->out_to[at++] = (int32_t)v;
        p->out_first[u + 1] = at;
    }
    /* what a rank receives per unit of time: over the links that enter it
     * (leave it, mirrored) */
    for (size_t l = 0; l < p->nl; l++) {
        int32_t end = reverse ? g->t->links[l].from : g->t->links[l].to;
        if (end < N && p->tpb[l] > 0) p->incap[end] += 1 / p->tpb[l];
    }
    for (int64_t v = 0; v < N; v++)
        if (p->incap[v] <= 0) p->incap[v] = 1e-9;
}

static void pipe_fini(Pipe *p, SynthGraph *g) {
    g->work += p->work;
    free(p->owner);
    free(p->got);
    free(p->nholders);
    free(p->need);
    free(p->tpb);
    free(p->cap);
    free(p->order);
    free(p->ties);
    free(p->count);
    free(p->rorder);
    free(p->rfirst);
    free(p->rend);
    free(p->incap);
    free(p->in_first);
    free(p->in_from);
    free(p->in_arc);
    free(p->in_hops);
    free(p->out_first);
    free(p->out_to);
    free(p->held_in);
}

/* The variants of the greedy a spread tries: as described at the top, and
 * where a route passes relays (a rail into a node next to its switch) one
 * that turns ties among receivers with the chunk, so that the senders'
 * room goes round them evenly, and lets a rank that could not get a chunk
 * over its shortest route take it, with the room the step has left, over a
 * longer one: a chunk then enters a node over several rails, each carrying
 * what the node switch has no room for. */
static int pipe_variants(const SynthGraph *g) {
    for (size_t a = 0; a < g->narcs; a++)
        if (g->link_first[a + 1] - g->link_first[a] > 1) return 2;
    return 1;
}

/* The spread at budget tau into *out when it is faster than *best by a
 * margin (a spread whose steps reach *best stops there): 1 when kept. */
static int pipe_try_budget(Pipe *p, const int32_t *lo, const int32_t *hi, double tau, double *best,
                           SynthMoves *out) {
    SynthMoves m;
    double t;
    if (pipe_run_seq(p, lo, hi, &tau, 0, 0, *best * (1 - 1e-12), &m, &t) && t < *best * (1 - 1e-12)) {
        *best = t;
        synth_moves_free(out);
        *out = m;
        return 1;
    }
    synth_moves_free(&m);
    return 0;
}

static void pipe_spread(SynthGraph *g, const int32_t *lo, const int32_t *hi, int reverse, SynthMoves *out) {
    Pipe p;
    pipe_init(&p, g, hi, reverse);
    double tau[128];
    size_t nt = pipe_budgets(&p, tau, ARRAY_LEN(tau));
    double best_time = INFINITY;
    memset(out, 0, sizeof *out);
    size_t best_i = nt;
    for (size_t i = 0; i < nt; i++)
        if (pipe_try_budget(&p, lo, hi, tau[i], &best_time, out)) best_i = i;
    /* the second variant at the budget of the best spread only: it
     * costs one spread more, not one per budget */
    if (best_i < nt && pipe_variants(g) > 1) {
        p.rotate = p.detour = 1;
        pipe_try_budget(&p, lo, hi, tau[best_i], &best_time, out);
    }
    pipe_fini(&p, g);
}

/* ---- the engine ---- */

static int pipe_applies(const SynthOptions *o) {
    return o->coll == COLLECTIVE_ALLGATHER || o->coll == COLLECTIVE_REDUCE_SCATTER ||
           o->coll == COLLECTIVE_ALLREDUCE;
}

static void pipe_try(SynthBuild *b, const int32_t *lo, const int32_t *hi) {
    switch (b->o->coll) {
    case COLLECTIVE_ALLGATHER: synth_build_spread_allgather(b, lo, hi); return;
    case COLLECTIVE_REDUCE_SCATTER: synth_build_spread_reduce_scatter(b, lo, hi); return;
    case COLLECTIVE_ALLREDUCE: synth_build_spread_allreduce(b, lo, hi); return;
    case COLLECTIVE_BROADCAST:
    case COLLECTIVE_REDUCE:
    case COLLECTIVE_SCATTER:
    case COLLECTIVE_GATHER:
    case COLLECTIVE_ALLTOALL:
    case COLLECTIVE__COUNT: break;
    }
    COLLC_UNREACHABLE("a collective the pipelined engine does not make");
}

static void pipe_method(const SynthOptions *o, int weighted, char *buf, size_t size) {
    synth_method_spread(o, "pipelined out-trees, through the switches where there are (every chunk into a region once, "
                           "every link filled to the step's time)",
                        weighted, buf, size);
}

const SynthEngine synth_engine_pipelined = {
    .name = "pipelined",
    .applies = pipe_applies,
    .try_candidate = pipe_try,
    .method = pipe_method,
    .spread = pipe_spread,
    .rounds = SYNTH_STEPS_PIPELINE,
    .relays_only = 1,
    .spreads_anywhere = 1,
};

/* ---- the step-bounded engine (--objective pareto; synth.c also tries it for bandwidth at the β bound) ---- */

/* The step-bounded spread: the pipelined greedy with a budget of its own
 * for every step, S steps in all (S = the rank graph's diameter + the
 * engine variant, g->variant). The budgets are whole multiples r_1 .. r_S
 * of the fastest link's time per chunk (rounds, as SCCL counts them): for
 * the fewest rounds T from what the ranks must receive over their links on,
 * the splits of T into S steps are tried, the most even first, each with
 * BOUNDED_SEEDS orders of the greedy's ties (at the first T; one later),
 * and the first sequence that delivers every chunk in S steps is kept.
 * None within BOUNDED_MAX_RUNS tries: the ordinary pipelined spread. */
enum { BOUNDED_MAX_RUNS = 128, BOUNDED_MAX_EXTRA = 24, BOUNDED_SEEDS = 16, BOUNDED_MAX_SPLITS = 4096 };

/* Every split of `left` rounds over steps k .. S-1 (at least one each)
 * appended to seq (S ints each) while there is room. */
static void bounded_splits(int S, int k, int left, int *r, int *seq, int *n) {
    if (*n >= BOUNDED_MAX_SPLITS) return;
    if (k == S - 1) {
        r[k] = left;
        memcpy(seq + (size_t)*n * (size_t)S, r, (size_t)S * sizeof *r);
        (*n)++;
        return;
    }
    for (int x = 1; x <= left - (S - 1 - k); x++) {
        r[k] = x;
        bounded_splits(S, k + 1, left - x, r, seq, n);
    }
}

/* The more even split first (the smaller largest step), then in order;
 * ctx: the steps of a split. */
static int cmp_split(const void *pa, const void *pb, void *ctx) {
    const int *a = pa, *b = pb;
    int S = *(const int *)ctx, ma = 0, mb = 0;
    for (int t = 0; t < S; t++) {
        if (a[t] > ma) ma = a[t];
        if (b[t] > mb) mb = b[t];
    }
    if (ma != mb) return ma < mb ? -1 : 1;
    for (int t = 0; t < S; t++)
        if (a[t] != b[t]) return a[t] < b[t] ? -1 : 1;
    return 0;
}

static void bounded_spread(SynthGraph *g, const int32_t *lo, const int32_t *hi, int reverse, SynthMoves *out) {
    int64_t N = g->N;
    int diam = 0;
    for (int64_t k = 0; k < N * N; k++)
        if (g->dist[k] > diam) diam = g->dist[k];
    int S = diam + g->variant;
    Pipe p;
    pipe_init(&p, g, hi, reverse);
    double unit = INFINITY;
    for (size_t l = 0; l < p.nl; l++)
        if (p.tpb[l] > 0) unit = fmin(unit, p.tpb[l]);
    /* the fewest rounds: what a rank lacks over what it can receive */
    double lb = 0;
    for (int64_t v = 0; v < N; v++) lb = fmax(lb, (double)(p.X - (hi[v] - lo[v])) / p.incap[v]);
    int T0 = isfinite(unit) ? (int)ceil(lb / unit - 1e-9) : 0;
    if (T0 < S) T0 = S;
    int *r = xmalloc((size_t)S * sizeof *r);
    int *seq = xmalloc((size_t)BOUNDED_MAX_SPLITS * (size_t)S * sizeof *seq);
    double *tau = xmalloc((size_t)S * sizeof *tau);
    int runs = 0, found = 0;
    for (int T = T0; isfinite(unit) && T <= T0 + BOUNDED_MAX_EXTRA && !found && runs < BOUNDED_MAX_RUNS; T++) {
        int n = 0;
        bounded_splits(S, 0, T, r, seq, &n);
        qsort_r(seq, (size_t)n, (size_t)S * sizeof *seq, cmp_split, &S);
        for (int i = 0; i < n && !found && runs < BOUNDED_MAX_RUNS; i++) {
            for (int t = 0; t < S; t++) tau[t] = seq[(size_t)i * (size_t)S + (size_t)t] * unit * (1 + 1e-9);
            for (uint32_t seed = 0; seed < (T == T0 ? BOUNDED_SEEDS : 1) && !found && runs < BOUNDED_MAX_RUNS;
                 seed++) {
                p.seed = seed;
                runs++;
                double t;
                found = pipe_run_seq(&p, lo, hi, tau, 1, S, INFINITY, out, &t);
            }
        }
    }
    free(r);
    free(seq);
    free(tau);
    pipe_fini(&p, g);
    if (!found) pipe_spread(g, lo, hi, reverse, out);
}

static int bounded_applies(const SynthOptions *o) { return o->objective == SYNTH_PARETO && pipe_applies(o); }

static void bounded_method(const SynthOptions *o, int weighted, char *buf, size_t size) {
    synth_method_spread(o, "pipelined out-trees in a bounded number of steps (a time budget of its own for every step)",
                        weighted, buf, size);
}

const SynthEngine synth_engine_bounded = {
    .name = "bounded",
    .applies = bounded_applies,
    .try_candidate = pipe_try,
    .method = bounded_method,
    .spread = bounded_spread,
    .rounds = SYNTH_STEPS_PIPELINE,
    .variants = 3,
};
