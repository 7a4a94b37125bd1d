/* synth_phone.c - the telephone engine of the synthesizer (synth.h): in
 * every step a rank sends each chunk it holds to at most one neighbour, and
 * a rank receives each chunk at most once. Mirrored (ReduceScatter), no
 * rank ever receives two partial sums of one chunk in one step, so partial
 * sums reduce straight into their slot: no landing buffer, no local fold.
 *
 * Steps are chosen greedily. For every step capacity K (chunks per link of
 * the fastest kind) the chunks, rarest first, are matched from their holders
 * to neighbours that lack them (a maximum bipartite matching per chunk over
 * the links with room left); the step keeps the K that delivers the most
 * chunks per unit of step time, the larger K on a tie. A step that fills
 * every link of the binding cut with chunks its far side needs is as good as
 * a step can be, so when every step does, the schedule reaches the cut
 * bound (docs/synth.md). */
#include "analysis/synth_engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/util.h"

typedef struct Phone {
    const SynthGraph *g;
    int64_t N, X;         /* ranks; chunks */
    int reverse;
    int32_t *owner;       /* [X] */
    uint8_t *holds;       /* [N * X] */
    int32_t *nholders;    /* [X] */
    /* arcs in the phase's direction: u -> v uses topology arc parc */
    size_t *adj_first;    /* [N + 1] */
    int32_t *adj_to, *adj_arc;
    double *tpb;          /* [nlinks] */
    double tmin;
    /* per assignment */
    int64_t *cap;         /* [nlinks] room left */
    int32_t *match_v;     /* [N] receiver the holder sends to, -1: pm of one chunk */
    int32_t *pm;          /* [X * N] per chunk: match_v */
    uint8_t *rm;          /* [X * N] per chunk: the receiver is matched (1) or cannot be (2) */
    int32_t *open;        /* [X] receivers of the chunk still to try */
    size_t *lack_first;   /* [X + 1] CSR: the ranks that lack the chunk, */
    int32_t *lack;        /* furthest behind first (fixed within a step) */
    int32_t *supply;      /* [N * X] in-neighbours of v that hold x (or get
                             it in this step) */
    int32_t *supply0;     /* [N * X] at the start of the step */
    int32_t maxsupply;
    int32_t *pass, npass; /* the supply levels assign() tries, ascending */
    uint8_t *sends;       /* [N * X] the rank owns x or has passed it on */
    int32_t *dist, *queue; /* [N] node_bound's work arrays */
    size_t *radj_first;   /* [N + 1] phase arcs into v */
    int32_t *radj_from, *radj_arc;
    double *incap;        /* [N] chunks v can receive per unit of step time */
    int32_t *rorder;      /* [N] receivers, most behind first */
    uint8_t *seen;        /* [N] DFS marks */
    int32_t *order;       /* [X] chunk order */
    int32_t *tr_u, *tr_v, *tr_x; /* transfers of the assignment */
    size_t ntr, trcap;
    /* the once rule (synth_phone's `once`): a chunk crosses every link at
     * most once in the whole spread, so through a switch or a NIC it goes
     * over the slow links once and the ranks behind them pass it on */
    int once;
    uint8_t *crossed;     /* [X * nlinks] x has crossed the link in a past step */
    uint8_t *xuse;        /* [X * nlinks] x crosses it in this step's assignment */
    int64_t work;         /* effort: the pairs an assignment scans and the arcs
                             its augmenting paths try (SynthGraph.work) */
} Phone;

static int arc_fits(const Phone *p, int32_t a) {
    const SynthGraph *g = p->g;
    for (size_t k = g->link_first[a]; k < g->link_first[a + 1]; k++)
        if (p->cap[g->links[k]] <= 0) return 0;
    return 1;
}

static void arc_take(Phone *p, int32_t a, int64_t d) {
    const SynthGraph *g = p->g;
    for (size_t k = g->link_first[a]; k < g->link_first[a + 1]; k++) p->cap[g->links[k]] -= d;
}

/* The once rule: arc a may carry chunk x (none of its links was or is
 * crossed by x). */
static int arc_once_fits(const Phone *p, int32_t a, int64_t x) {
    const SynthGraph *g = p->g;
    size_t nl = g->t->nlinks;
    for (size_t k = g->link_first[a]; k < g->link_first[a + 1]; k++)
        if (p->crossed[(size_t)x * nl + (size_t)g->links[k]] || p->xuse[(size_t)x * nl + (size_t)g->links[k]])
            return 0;
    return 1;
}

static void arc_once_take(Phone *p, int32_t a, int64_t x, int d) {
    const SynthGraph *g = p->g;
    size_t nl = g->t->nlinks;
    for (size_t k = g->link_first[a]; k < g->link_first[a + 1]; k++)
        p->xuse[(size_t)x * nl + (size_t)g->links[k]] = (uint8_t)(p->xuse[(size_t)x * nl + (size_t)g->links[k]] + d);
}

/* The phase arc u -> v (its topology arc), or -1. */
static int32_t phase_arc(const Phone *p, int32_t u, int32_t v) {
    for (size_t k = p->adj_first[u]; k < p->adj_first[u + 1]; k++)
        if (p->adj_to[k] == v) return p->adj_arc[k];
    return -1;
}

/* Kuhn's augmenting path from receiver v for chunk x: a holder that has
 * not sent x in this step yet, or one whose receiver can move on. */
static int augment(Phone *p, int32_t v, int64_t x) {
    p->work += (int64_t)(p->radj_first[v + 1] - p->radj_first[v]);
    /* holders that pass x on already first: every rank that passes a chunk
     * on is an inner node of its tree, whose partial sum must start as its
     * own input (a local copy) in the mirrored reduction */
    for (int round = 0; round < 2; round++)
        for (size_t k = p->radj_first[v]; k < p->radj_first[v + 1]; k++) {
            int32_t u = p->radj_from[k], a = p->radj_arc[k];
            if (!p->holds[u * p->X + x] || p->seen[u]) continue;
            if ((p->sends[u * p->X + x] != 0) != (round == 0)) continue;
            if (p->match_v[u] != v && !arc_fits(p, a)) continue;
            if (p->once && p->match_v[u] != v && !arc_once_fits(p, a, x)) continue;
            p->seen[u] = 1;
            /* the once rule: the arc's links are x's while the path is
             * sought, so that no other holder on it takes them */
            if (p->once) arc_once_take(p, a, x, 1);
            int32_t w = p->match_v[u];
            if (w < 0 || augment(p, w, x)) {
                if (w >= 0) {
                    int32_t aw = phase_arc(p, u, w);
                    arc_take(p, aw, -1);
                    if (p->once) arc_once_take(p, aw, x, -1);
                }
                arc_take(p, a, 1);
                p->match_v[u] = v;
                return 1;
            }
            if (p->once) arc_once_take(p, a, x, -1);
        }
    return 0;
}

typedef struct BehindCtx {
    const int64_t *need;
    const double *incap;
} BehindCtx;

static int cmp_behind(const void *pa, const void *pb, void *ctx) {
    const BehindCtx *c = ctx;
    int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
    double ra = (double)c->need[a] / c->incap[a], rb = (double)c->need[b] / c->incap[b];
    if (ra != rb) return ra > rb ? -1 : 1;
    return a < b ? -1 : a > b;
}

static int cmp_rarest(const void *pa, const void *pb, void *ctx) {
    const Phone *p = ctx;
    int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
    if (p->nholders[a] != p->nholders[b]) return p->nholders[a] < p->nholders[b] ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* The transfers of one step at capacity K (K * tmin of time per link);
 * returns how many. */
static size_t assign(Phone *p, int64_t K) {
    p->work += (int64_t)p->npass * p->N * p->X;
    const TopoModel *t = p->g->t;
    for (size_t l = 0; l < t->nlinks; l++) p->cap[l] = (int64_t)floor((double)K * p->tmin / p->tpb[l] + 1e-9);
    int64_t N = p->N, X = p->X;
    for (int64_t k = 0; k < N * X; k++) p->pm[k] = -1;
    memcpy(p->supply, p->supply0, (size_t)(N * X) * sizeof *p->supply);
    memset(p->rm, 0, (size_t)(N * X));
    if (p->once) memset(p->xuse, 0, (size_t)X * t->nlinks);
    /* transfers that fewer neighbours could make first: a receiver gets from
     * this link what it cannot get from another one. open[x]: receivers of
     * x not yet matched or given up (rm 1: matched, 2: no augmenting path,
     * and none will appear as the matching grows and the links fill) */
    for (int64_t x = 0; x < X; x++) p->open[x] = (int32_t)(N - p->nholders[x]);
    for (int32_t ip = 0; ip < p->npass; ip++)
        for (int64_t i = 0; i < X; i++) {
            int32_t pass = p->pass[ip];
            int64_t x = p->order[i];
            if (!p->open[x]) continue;
            p->match_v = p->pm + x * N;
            for (size_t i2 = p->lack_first[x]; i2 < p->lack_first[x + 1]; i2++) {
                int32_t v = p->lack[i2];
                if (p->rm[x * N + v] || p->supply[v * X + x] > pass) continue;
                p->open[x]--;
                if (!p->supply0[v * X + x]) {
                    /* no in-neighbour holds x: augment's scan would find no
                     * holder; its work is counted all the same, so that the
                     * effort bound stops the search where it did */
                    p->work += (int64_t)(p->radj_first[v + 1] - p->radj_first[v]);
                    p->rm[x * N + v] = 2;
                    continue;
                }
                memset(p->seen, 0, (size_t)N);
                if (!augment(p, v, x)) {
                    p->rm[x * N + v] = 2;
                    continue;
                }
                p->rm[x * N + v] = 1;
                /* v can pass x on in the next step: its neighbours need it
                 * from here less urgently */
                for (size_t k = p->adj_first[v]; k < p->adj_first[v + 1]; k++) p->supply[p->adj_to[k] * X + x]++;
            }
        }
    p->ntr = 0;
    for (int64_t i = 0; i < X; i++) {
        int64_t x = p->order[i];
        for (int64_t u = 0; u < N; u++) {
            if (p->pm[x * N + u] < 0) continue;
            if (p->ntr == p->trcap) {
                p->trcap = p->trcap ? 2 * p->trcap : 256;
                p->tr_u = xrealloc(p->tr_u, p->trcap * sizeof *p->tr_u);
                p->tr_v = xrealloc(p->tr_v, p->trcap * sizeof *p->tr_v);
                p->tr_x = xrealloc(p->tr_x, p->trcap * sizeof *p->tr_x);
            }
            p->tr_u[p->ntr] = (int32_t)u;
            p->tr_v[p->ntr] = p->pm[x * N + u];
            p->tr_x[p->ntr] = (int32_t)x;
            p->ntr++;
        }
    }
    return p->ntr;
}

/* A lower bound on the time the spread still needs, in units of one chunk on
 * the fastest link: a rank that lacks `need` chunks and whose nearest holder
 * of one of them is d hops away needs d - 1 more steps of at least one unit
 * before the first arrives, and need / incap units to receive them all. */
static double node_bound(Phone *p, const int64_t *need) {
    int64_t N = p->N, X = p->X;
    /* hops from the nearest rank that holds some chunk not everyone has
     * yet: no further than the nearest holder of a chunk v lacks */
    size_t qh = 0, qt = 0;
    for (int64_t v = 0; v < N; v++) {
        p->dist[v] = -1;
        for (int64_t x = 0; x < X && p->dist[v] < 0; x++)
            if (p->holds[v * X + x] && p->nholders[x] < N) {
                p->dist[v] = 0;
                p->queue[qt++] = (int32_t)v;
            }
    }
    while (qh < qt) {
        int32_t u = p->queue[qh++];
        for (size_t k = p->adj_first[u]; k < p->adj_first[u + 1]; k++) {
            int32_t v = p->adj_to[k];
            if (p->dist[v] >= 0) continue;
            p->dist[v] = p->dist[u] + 1;
            p->queue[qt++] = v;
        }
    }
    double lb = 0;
    for (int64_t v = 0; v < N; v++) {
        if (!need[v]) continue;
        double d = p->dist[v] > 1 ? (double)(p->dist[v] - 1) : 0;
        double b = d + (double)need[v] / p->incap[v];
        if (b > lb) lb = b;
    }
    return lb;
}

/* The arcs grouped by one end, as compressed rows: the arcs a with
 * key[a] == u are (*first)[u] .. (*first)[u + 1] - 1, with their other end
 * in *end and their index in *arc. */
static void group_arcs(const SynthGraph *g, const int32_t *key, const int32_t *other, size_t **first,
                       int32_t **end, int32_t **arc) {
    size_t n = (size_t)g->N + 1;
    size_t *f = xcalloc(n, sizeof *f);
    int32_t *e = xmalloc((g->narcs ? g->narcs : 1) * sizeof *e);
    int32_t *ar = xmalloc((g->narcs ? g->narcs : 1) * sizeof *ar);
    for (size_t a = 0; a < g->narcs; a++) f[key[a] + 1]++;
    for (size_t u = 0; u + 1 < n; u++) f[u + 1] += f[u];
    size_t *fill = xmalloc(n * sizeof *fill);
    memcpy(fill, f, n * sizeof *fill);
    for (size_t a = 0; a < g->narcs; a++) {
        e[fill[key[a]]] = other[a];
        ar[fill[key[a]]] = (int32_t)a;
        fill[key[a]]++;
    }
    free(fill);
    *first = f;
    *end = e;
    *arc = ar;
}

static int cmp_move(const void *pa, const void *pb) {
    const SynthMove *a = pa, *b = pb;
    if (a->from != b->from) return a->from < b->from ? -1 : 1;
    if (a->to != b->to) return a->to < b->to ? -1 : 1;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* The state of a spread of the chunks [lo[s], hi[s]) of every owner s. */
static void phone_init(Phone *p, SynthGraph *g, const int32_t *lo, const int32_t *hi, int reverse) {
    const TopoModel *t = g->t;
    memset(p, 0, sizeof *p);
    p->g = g;
    p->N = g->N;
    p->reverse = reverse;
    int64_t N = p->N;
    for (int64_t s = 0; s < N; s++)
        if (hi[s] > p->X) p->X = hi[s];
    int64_t X = p->X;
    p->owner = xmalloc((size_t)(X ? X : 1) * sizeof *p->owner);
    p->holds = xcalloc((size_t)(N * X) + 1, 1);
    p->sends = xcalloc((size_t)(N * X) + 1, 1);
    p->nholders = xcalloc((size_t)(X ? X : 1), sizeof *p->nholders);
    for (int64_t s = 0; s < N; s++)
        for (int32_t x = lo[s]; x < hi[s]; x++) {
            p->owner[x] = (int32_t)s;
            p->holds[s * X + x] = 1;
            p->sends[s * X + x] = 1;
            p->nholders[x] = 1;
        }
    /* the phase's arcs u -> v: the topology's, mirrored when reversed */
    const int32_t *arc_u = reverse ? g->arc_to : g->arc_from, *arc_v = reverse ? g->arc_from : g->arc_to;
    group_arcs(g, arc_u, arc_v, &p->adj_first, &p->adj_to, &p->adj_arc);
    p->tpb = xmalloc((t->nlinks ? t->nlinks : 1) * sizeof *p->tpb);
    p->tmin = INFINITY;
    for (size_t l = 0; l < t->nlinks; l++) {
        p->tpb[l] = rat_to_double(t->links[l].tpb);
        if (p->tpb[l] > 0 && p->tpb[l] < p->tmin) p->tmin = p->tpb[l];
    }
    p->cap = xmalloc((t->nlinks ? t->nlinks : 1) * sizeof *p->cap);
    p->pm = xmalloc((size_t)(N * X + 1) * sizeof *p->pm);
    p->rm = xmalloc((size_t)(N * X + 1));
    p->open = xmalloc((size_t)(X + 1) * sizeof *p->open);
    p->lack_first = xmalloc((size_t)(X + 1) * sizeof *p->lack_first);
    p->lack = xmalloc((size_t)(N * X + 1) * sizeof *p->lack);
    p->pass = xmalloc(((size_t)N + 2) * sizeof *p->pass);
    p->supply = xmalloc((size_t)(N * X + 1) * sizeof *p->supply);
    p->supply0 = xmalloc((size_t)(N * X + 1) * sizeof *p->supply0);
    p->rorder = xmalloc((size_t)N * sizeof *p->rorder);
    p->dist = xmalloc((size_t)N * sizeof *p->dist);
    p->queue = xmalloc((size_t)N * sizeof *p->queue);
    /* phase arcs into every rank, and what it can receive per unit of time
     * over the distinct links the arcs enter it by */
    group_arcs(g, arc_v, arc_u, &p->radj_first, &p->radj_from, &p->radj_arc);
    p->incap = xcalloc((size_t)N, sizeof *p->incap);
    uint8_t *counted = xcalloc(t->nlinks + 1, 1);
    for (int64_t v = 0; v < N; v++) {
        for (size_t k = p->radj_first[v]; k < p->radj_first[v + 1]; k++) {
            int32_t a = p->radj_arc[k];
            /* the link the arc enters v by, in the phase's direction */
            int32_t l = reverse ? g->links[g->link_first[a]] : g->links[g->link_first[a + 1] - 1];
            if (!counted[l]) p->incap[v] += p->tmin / p->tpb[l];
            counted[l] = 1;
        }
        for (size_t k = p->radj_first[v]; k < p->radj_first[v + 1]; k++) {
            int32_t a = p->radj_arc[k];
            counted[reverse ? g->links[g->link_first[a]] : g->links[g->link_first[a + 1] - 1]] = 0;
        }
    }
    free(counted);
    p->seen = xmalloc((size_t)N);
    p->order = xmalloc((size_t)(X ? X : 1) * sizeof *p->order);
}

static void phone_free(Phone *p) {
    free(p->owner);
    free(p->holds);
    free(p->sends);
    free(p->nholders);
    free(p->adj_first);
    free(p->adj_to);
    free(p->adj_arc);
    free(p->tpb);
    free(p->cap);
    free(p->pm);
    free(p->rm);
    free(p->open);
    free(p->lack_first);
    free(p->lack);
    free(p->pass);
    free(p->supply);
    free(p->supply0);
    free(p->rorder);
    free(p->dist);
    free(p->queue);
    free(p->radj_first);
    free(p->radj_from);
    free(p->radj_arc);
    free(p->incap);
    free(p->seen);
    free(p->order);
    free(p->tr_u);
    free(p->tr_v);
    free(p->tr_x);
    free(p->crossed);
    free(p->xuse);
}

/* What a step's assignments start from: the chunks rarest first, the
 * receivers furthest behind first (what they lack over what they can
 * receive), who lacks what, the supply of every chunk at every receiver and
 * the supply levels assign() tries. */
static void phone_prepare_step(Phone *p, const int64_t *need) {
    int64_t N = p->N, X = p->X;
    for (int64_t x = 0; x < X; x++) p->order[x] = (int32_t)x;
    qsort_r(p->order, (size_t)X, sizeof *p->order, cmp_rarest, p);
    for (int64_t v = 0; v < N; v++) p->rorder[v] = (int32_t)v;
    qsort_r(p->rorder, (size_t)N, sizeof *p->rorder, cmp_behind, &(BehindCtx){need, p->incap});
    p->lack_first[0] = 0;
    for (int64_t x = 0; x < X; x++) {
        size_t at = p->lack_first[x];
        for (int64_t i = 0; i < N; i++)
            if (!p->holds[p->rorder[i] * X + x]) p->lack[at++] = p->rorder[i];
        p->lack_first[x + 1] = at;
    }
    p->maxsupply = 1;
    for (int64_t v = 0; v < N; v++)
        for (int64_t x = 0; x < X; x++) {
            int32_t n = 0;
            if (!p->holds[v * X + x])
                for (size_t k = p->radj_first[v]; k < p->radj_first[v + 1]; k++) n += p->holds[p->radj_from[k] * X + x];
            p->supply0[v * X + x] = n;
            if (n > p->maxsupply) p->maxsupply = n;
        }
    for (int64_t v = 0; v < N; v++) {
        int32_t d = (int32_t)(p->adj_first[v + 1] - p->adj_first[v]);
        if (d + 1 > p->maxsupply) p->maxsupply = d + 1;
    }
    /* the levels present at the start, and the top one for what the
     * step's own deliveries add */
    uint8_t *lv = xcalloc((size_t)p->maxsupply + 1, 1);
    for (int64_t k = 0; k < N * X; k++)
        if (p->supply0[k] >= 1) lv[p->supply0[k]] = 1;
    lv[p->maxsupply] = 1;
    p->npass = 0;
    for (int32_t l = 1; l <= p->maxsupply; l++)
        if (lv[l]) p->pass[p->npass++] = l;
    free(lv);
}

/* The transfers of the chosen step size. */
typedef struct PhoneStep {
    int32_t *u, *v, *x;
    size_t n, cap;
} PhoneStep;

static void phone_step_keep(PhoneStep *b, const Phone *p, size_t n) {
    if (n > b->cap) {
        b->cap = n;
        b->u = xrealloc(b->u, b->cap * sizeof *b->u);
        b->v = xrealloc(b->v, b->cap * sizeof *b->v);
        b->x = xrealloc(b->x, b->cap * sizeof *b->x);
    }
    /* an empty step leaves the arrays NULL until a larger one: memcpy must
     * not see them */
    if (n) {
        memcpy(b->u, p->tr_u, n * sizeof *b->u);
        memcpy(b->v, p->tr_v, n * sizeof *b->v);
        memcpy(b->x, p->tr_x, n * sizeof *b->x);
    }
    b->n = n;
}

/* How much the lower bound on the remaining time drops when the step's
 * assignment (p->tr_*, n transfers) is made. */
static double phone_after(Phone *p, const int64_t *need, int64_t *got, size_t n) {
    int64_t N = p->N;
    for (int64_t v = 0; v < N; v++) got[v] = need[v];
    for (size_t k = 0; k < n; k++) {
        got[p->tr_v[k]]--;
        p->holds[p->tr_v[k] * p->X + p->tr_x[k]] = 1;
        p->nholders[p->tr_x[k]]++;
    }
    double after = node_bound(p, got);
    for (size_t k = 0; k < n; k++) {
        p->holds[p->tr_v[k] * p->X + p->tr_x[k]] = 0;
        p->nholders[p->tr_x[k]]--;
    }
    return after;
}

/* Chooses the next step into *best: of the step sizes K, the one that
 * lowers the bound on the remaining time the most per unit of step time.
 * The step is never empty: the bound is not monotone (a rank that held the
 * last chunk someone lacked stops being a source), so every step size may
 * raise it, and an empty step, which leaves it as it is, would be kept for
 * ever. Every step delivers a chunk, so a spread ends after at most as many
 * steps as chunks are missing. */
static void phone_choose(Phone *p, const int64_t *need, int small_steps, PhoneStep *best) {
    double lb = node_bound(p, need);
    /* the most a step can deliver, at unlimited capacity */
    size_t all = assign(p, INT32_MAX);
    int once = p->once;
    if (all == 0 && once) {
        /* the once rule leaves no route to a rank that lacks a chunk (one-way
         * links): this step may cross links again */
        p->once = 0;
        all = assign(p, INT32_MAX);
    }
    COLLC_ASSERT(all > 0);
    /* a step size at which every link carries every chunk it could: the
     * capacities of assign(p, INT32_MAX) for what can ever be sent */
    double tmax = 0;
    for (size_t l = 0; l < p->g->t->nlinks; l++)
        if (p->tpb[l] > tmax) tmax = p->tpb[l];
    double kall = ceil((double)(p->N * p->X) * tmax / p->tmin) + 1;
    double best_score = 0;
    int kept = 0;
    int64_t *got = xcalloc((size_t)p->N, sizeof *got);
    for (int64_t K = 1;; K = K < 8 ? K + 1 : K + K / 4) {
        if ((double)K > kall) K = (int64_t)fmin(kall, (double)INT32_MAX);
        size_t n = assign(p, K);
        double score = 0;
        if (n > 0) {
            score = (lb - phone_after(p, need, got, n)) / (double)K + 1e-9 * (double)n / (double)K;
            if (!kept || (small_steps ? score > best_score + 1e-12 * fabs(best_score)
                                      : score >= best_score - 1e-12 * fabs(best_score))) {
                best_score = score;
                kept = 1;
                phone_step_keep(best, p, n);
            }
        }
        if (n == all || (double)K >= kall || K >= INT32_MAX) break;
        /* past the best by a margin: larger steps only waste */
        if (kept && n > 0 && score < best_score * 0.5 && K > 4) break;
    }
    if (!kept) {
        /* no finite step size delivered anything (cannot happen: at kall
         * every link has room for every chunk): take the unlimited one */
        assign(p, INT32_MAX);
        phone_step_keep(best, p, all);
    }
    p->once = once;
    free(got);
}

void synth_phone(SynthGraph *g, const int32_t *lo, const int32_t *hi, int reverse, int small_steps, int once,
                 SynthMoves *out) {
    memset(out, 0, sizeof *out);
    Phone p;
    phone_init(&p, g, lo, hi, reverse);
    int64_t N = p.N, X = p.X;
    size_t nl = g->t->nlinks;
    if (once) {
        p.once = 1;
        p.crossed = xcalloc((size_t)X * nl + 1, 1);
        p.xuse = xcalloc((size_t)X * nl + 1, 1);
    }
    int64_t missing = 0;
    for (int64_t x = 0; x < X; x++) missing += N - p.nholders[x];
    int64_t *need = xcalloc((size_t)N, sizeof *need);
    for (int64_t v = 0; v < N; v++)
        for (int64_t x = 0; x < X; x++) need[v] += !p.holds[v * X + x];
    PhoneStep best = {0};
    int32_t step = 0;
    while (missing > 0) {
        step++;
        phone_prepare_step(&p, need);
        phone_choose(&p, need, small_steps, &best);
        size_t first = out->n;
        for (size_t k = 0; k < best.n; k++) {
            int32_t x = best.x[k];
            need[best.v[k]]--;
            p.holds[best.v[k] * X + x] = 1;
            p.sends[best.u[k] * X + x] = 1;
            p.nholders[x]++;
            missing--;
            if (once) {
                int32_t a = phase_arc(&p, best.u[k], best.v[k]);
                for (size_t i = g->link_first[a]; i < g->link_first[a + 1]; i++)
                    p.crossed[(size_t)x * nl + (size_t)g->links[i]] = 1;
            }
            synth_moves_push(out, (SynthMove){step, p.owner[x], best.u[k], best.v[k], x, x + 1});
        }
        qsort(out->v + first, out->n - first, sizeof *out->v, cmp_move);
    }
    out->nsteps = step;
    g->work += p.work;
    free(need);
    free(best.u);
    free(best.v);
    free(best.x);
    phone_free(&p);
}

/* ---- the engines ---- */

static int phone_applies(const SynthOptions *o) {
    (void)o;
    return 1;
}

/* the finer pipeline pays for a single source (broadcast, reduce) */
static int phone_fine_applies(const SynthOptions *o) {
    return o->coll == COLLECTIVE_BROADCAST || o->coll == COLLECTIVE_REDUCE;
}

/* a chunk over every link once: where routes between neighbours pass
 * switches or NICs (relays), whose links a chunk would otherwise cross
 * once per rank behind them */
static int phone_once_applies(const SynthOptions *o) {
    return o->coll != COLLECTIVE_BROADCAST && o->coll != COLLECTIVE_REDUCE;
}

static void phone_spread(SynthGraph *g, const int32_t *lo, const int32_t *hi, int reverse, SynthMoves *out) {
    synth_phone(g, lo, hi, reverse, 0, 0, out);
}

static void phone_fine_spread(SynthGraph *g, const int32_t *lo, const int32_t *hi, int reverse, SynthMoves *out) {
    synth_phone(g, lo, hi, reverse, 1, 0, out);
}

static void phone_once_spread(SynthGraph *g, const int32_t *lo, const int32_t *hi, int reverse, SynthMoves *out) {
    synth_phone(g, lo, hi, reverse, 0, 1, out);
}

/* Broadcast and Reduce: the root owns every chunk, one pipelined spread
 * from it (or mirrored into it). */
static void phone_try(SynthBuild *b, const int32_t *lo, const int32_t *hi) {
    Collective coll = b->o->coll;
    switch (coll) {
    case COLLECTIVE_ALLGATHER: synth_build_spread_allgather(b, lo, hi); return;
    case COLLECTIVE_REDUCE_SCATTER: synth_build_spread_reduce_scatter(b, lo, hi); return;
    case COLLECTIVE_ALLREDUCE: synth_build_spread_allreduce(b, lo, hi); return;
    case COLLECTIVE_BROADCAST:
    case COLLECTIVE_REDUCE: break;
    case COLLECTIVE_SCATTER:
    case COLLECTIVE_GATHER:
    case COLLECTIVE_ALLTOALL:
    case COLLECTIVE__COUNT: COLLC_UNREACHABLE("a collective synth does not make");
    }
    int64_t N = b->N;
    int32_t *rlo = xcalloc((size_t)N, sizeof *rlo), *rhi = xcalloc((size_t)N, sizeof *rhi);
    rhi[b->o->root] = (int32_t)b->P;
    SynthMoves m;
    b->engine->spread(b->g, rlo, rhi, coll == COLLECTIVE_REDUCE, &m);
    if (coll == COLLECTIVE_BROADCAST) synth_build_root_spread(b, &m);
    else synth_build_root_reduce(b, &m);
    synth_moves_free(&m);
    free(rlo);
    free(rhi);
}

static void phone_once_method(const SynthOptions *o, int weighted, char *buf, size_t size) {
    synth_method_spread(o, "telephone trees that cross every link once (switches and NICs relay, ranks pass on)",
                        weighted, buf, size);
}

static void phone_method(const SynthOptions *o, int weighted, char *buf, size_t size) {
    if (o->coll == COLLECTIVE_BROADCAST)
        snprintf(buf, size, "a pipelined broadcast on telephone trees from the root");
    else if (o->coll == COLLECTIVE_REDUCE)
        snprintf(buf, size, "a pipelined reduction on mirrored telephone trees into the root");
    else
        synth_method_spread(o, "telephone trees (every rank passes a chunk to one neighbour per step)", weighted, buf,
                            size);
}

const SynthEngine synth_engine_telephone = {
    .name = "telephone",
    .applies = phone_applies,
    .try_candidate = phone_try,
    .method = phone_method,
    .spread = phone_spread,
    .rounds = 1,
};

const SynthEngine synth_engine_telephone_fine = {
    .name = "telephone, finer pipeline",
    .applies = phone_fine_applies,
    .try_candidate = phone_try,
    .method = phone_method,
    .spread = phone_fine_spread,
    .rounds = 1,
};

const SynthEngine synth_engine_telephone_once = {
    .name = "telephone, every link once",
    .applies = phone_once_applies,
    .try_candidate = phone_try,
    .method = phone_once_method,
    .spread = phone_once_spread,
    .rounds = 1,
    .relays_only = 1,
};
