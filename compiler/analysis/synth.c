/* synth.c - `collc synth` (synth.h, docs/synth.md): every candidate (an
 * engine of synth_engines.def, a split, an owner weighting) built and priced
 * with the cost model, the best one kept, and the header of the printed
 * algorithm. */
#include "analysis/synth_engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/util.h"

/* The effort bound, in SynthGraph.work's units (about 0.2 s of CPU in an
 * optimised build up to N = 16, then growing with N: a larger machine is
 * worth a longer search; docs/synth.md section 10): an engine whose candidates
 * have spent its share of it (what the engines before it left, over the
 * engines that apply from it on), or would
 * with one more candidate as costly as its last, tries no further split or
 * owner weighting, and the search keeps the best candidate it has.
 * Deterministic, unlike a time limit, so the same command still writes the
 * same file. */
#define SYNTH_EFFORT_16 ((int64_t)80 * 1000 * 1000)
static int64_t synth_effort(int64_t N) { return N <= 16 ? SYNTH_EFFORT_16 : SYNTH_EFFORT_16 / 16 * N; }

static const SynthEngine *const engines[] = {
#define X(id) &synth_engine_##id,
#include "analysis/synth_engines.def"
#undef X
};

/* Smaller is better under the objective. */
static int better(const SynthOptions *o, const CostTerms *a, int64_t pa, const CostTerms *b, int64_t pb) {
    int c;
    switch (o->objective) {
    case SYNTH_LATENCY:
        if ((c = rat_cmp(a->a, b->a))) return c < 0;
        if ((c = rat_cmp(a->b, b->b))) return c < 0;
        break;
    case SYNTH_BALANCED: {
        double ta = cost_time(*a, &o->machine), tb = cost_time(*b, &o->machine);
        if (ta != tb) return ta < tb;
        break;
    }
    case SYNTH_BANDWIDTH:
    case SYNTH_PARETO: /* a point of the frontier against one schedule: as bandwidth */
        if ((c = rat_cmp(a->b, b->b))) return c < 0;
        if ((c = rat_cmp(a->c, b->c))) return c < 0;
        if ((c = rat_cmp(a->a, b->a))) return c < 0;
        break;
    }
    return pa < pb;
}

int synth_better(const SynthOptions *o, const CostTerms *a, const CostTerms *b) { return better(o, a, 0, b, 0); }

/* Owner weights of a one-block AllReduce that balance what the ranks must
 * receive in its AllGather half: rank v owns w_v = max(0, 1 - lambda*cap_v)
 * (cap_v = the bandwidth into v, sum w = 1), so a rank with fewer or slower
 * links owns more and receives less (water filling). */
static void waterfill(const TopoModel *t, double *w) {
    int64_t N = t->N;
    double *cap = xcalloc((size_t)N, sizeof *cap);
    for (size_t l = 0; l < t->nlinks; l++)
        if (t->links[l].to < N) cap[t->links[l].to] += 1.0 / rat_to_double(t->links[l].tpb);
    double a = 0, b = 1e12;
    for (int it = 0; it < 200; it++) {
        double mid = (a + b) / 2, sum = 0;
        for (int64_t v = 0; v < N; v++) sum += fmax(0, 1 - mid * cap[v]);
        if (sum > 1) a = mid;
        else b = mid;
    }
    for (int64_t v = 0; v < N; v++) w[v] = fmax(0, 1 - b * cap[v]);
    free(cap);
}

/* Q chunks given out in proportion to the weights (largest remainder),
 * every rank at least one: lo/hi of every owner. */
static void apportion(int64_t N, const double *w, int64_t Q, int32_t *lo, int32_t *hi) {
    double sum = 0;
    for (int64_t v = 0; v < N; v++) sum += w[v];
    int64_t *n = xmalloc((size_t)N * sizeof *n), given = 0;
    double *rem = xmalloc((size_t)N * sizeof *rem);
    for (int64_t v = 0; v < N; v++) {
        double q = 1 + w[v] / sum * (double)(Q - N);
        n[v] = (int64_t)floor(q);
        rem[v] = q - (double)n[v];
        given += n[v];
    }
    while (given < Q) {
        int64_t best = 0;
        for (int64_t v = 1; v < N; v++)
            if (rem[v] > rem[best]) best = v;
        n[best]++;
        rem[best] = -1;
        given++;
    }
    int32_t at = 0;
    for (int64_t v = 0; v < N; v++) {
        lo[v] = at;
        at += (int32_t)n[v];
        hi[v] = at;
    }
    free(n);
    free(rem);
}

/* The search: what every candidate shares, and the best one so far. */
typedef struct Search {
    const SynthOptions *o;
    TopoModel *t;
    Arena *arena;
    DiagEngine *dx;
    SynthGraph g;
    int64_t N;
    int one_block;
    CostBounds bounds;
    int32_t *lo, *hi;    /* [N] the candidate's owners */
    double *wf, *w;      /* [N] water-filled and blended owner weights */
    SynthResult *out;    /* the best so far, when `have` */
    int have, at_bounds;
    int effort_hit;      /* the effort bound stopped an engine's search */
    int64_t effort_end;  /* the current engine stops past this work */
    const SynthEngine *best_engine;
    int64_t best_R;
    double best_theta;
    char *err;
    size_t errsz;
    int pareto;          /* SYNTH_PARETO: collect the frontier, not one best */
    SynthResult *front;  /* [nfront] the frontier so far (malloc'ed) */
    size_t nfront, capfront;
} Search;

/* Point f (split pf) is at least as good as c (split pc) on the frontier:
 * no larger α term nor β term, and on a tie in both no larger γ term, then
 * no larger split. */
static int covers(const CostTerms *f, int64_t pf, const CostTerms *c, int64_t pc) {
    if (rat_cmp(f->a, c->a) > 0 || rat_cmp(f->b, c->b) > 0) return 0;
    if (rat_cmp(f->a, c->a) < 0 || rat_cmp(f->b, c->b) < 0) return 1;
    int k = rat_cmp(f->c, c->c);
    return k < 0 || (k == 0 && pf <= pc);
}

/* The owners of candidate (R chunks per rank, weight theta of the
 * water-filled owners): lo/hi of every rank; P chunks per block. */
static void owners(Search *s, int64_t P, double theta) {
    int64_t N = s->N;
    if (s->one_block) {
        for (int64_t v = 0; v < N; v++) s->w[v] = (1 - theta) / (double)N + theta * s->wf[v];
        apportion(N, s->w, P, s->lo, s->hi);
    } else {
        for (int64_t v = 0; v < N; v++) {
            s->lo[v] = (int32_t)(v * P);
            s->hi[v] = (int32_t)(v * P + P);
        }
    }
}

/* r->bounds with the bandwidth bound at r's split (AllGather,
 * ReduceScatter, AllReduce: docs/cost.md section 2, "At a finite split"). */
static void bounds_at_split(Search *s, SynthResult *r) {
    if (s->o->coll != COLLECTIVE_ALLGATHER && s->o->coll != COLLECTIVE_REDUCE_SCATTER &&
        s->o->coll != COLLECTIVE_ALLREDUCE)
        return;
    CostBounds b;
    if (cost_bounds_at_split(s->o->coll, s->N, 0, s->t, r->sched.split, &b) == 0 && rat_eq(b.lb.b, r->bounds.lb.b))
        r->bounds = b;
}

/* Candidate `cand` (priced at `cr`) filled in as *out. */
static void fill(Search *s, SynthResult *out, SynthResult *cand, const CostResult *cr, const SynthBuild *b) {
    cand->bounds = s->bounds;
    *out = *cand;
    out->cost = cr->total;
    out->balanced = s->g.greedy_steps == 0;
    if (s->one_block && b->root_owns_all) {
        snprintf(out->owners, sizeof out->owners, "all of them the root's");
    } else if (s->one_block) {
        int64_t N = s->N;
        int uniform = 1;
        for (int64_t v = 1; v < N; v++) uniform &= s->hi[v] - s->lo[v] == s->hi[0] - s->lo[0];
        size_t len = 0;
        if (uniform)
            snprintf(out->owners, sizeof out->owners, "%d owned by each rank", s->hi[0] - s->lo[0]);
        else
            for (int64_t v = 0; v < N && len + 1 < sizeof out->owners; v++)
                len += (size_t)snprintf(out->owners + len, sizeof out->owners - len, "%s%d",
                                        v ? " " : "owned per rank: ", s->hi[v] - s->lo[v]);
    }
}

/* Keeps candidate `cand` (priced at `cr`) as the best so far. */
static void keep(Search *s, SynthResult *cand, const CostResult *cr, const SynthBuild *b, int64_t R, double theta) {
    if (s->have) schedule_free(&s->out->sched);
    fill(s, s->out, cand, cr, b);
    s->best_engine = b->engine;
    s->best_R = R;
    s->best_theta = theta;
    s->have = 1;
}

/* Offers candidate `cand` to the frontier: dropped when a point covers it,
 * else it joins and the points it covers leave. Returns 1 when it joined. */
static int offer(Search *s, SynthResult *cand, const CostResult *cr, const SynthBuild *b, double theta) {
    for (size_t k = 0; k < s->nfront; k++)
        if (covers(&s->front[k].cost, s->front[k].sched.split, &cr->total, cand->sched.split)) {
            schedule_free(&cand->sched);
            return 0;
        }
    size_t n = 0;
    for (size_t k = 0; k < s->nfront; k++) {
        if (covers(&cr->total, cand->sched.split, &s->front[k].cost, s->front[k].sched.split))
            schedule_free(&s->front[k].sched);
        else
            s->front[n++] = s->front[k];
    }
    s->nfront = n;
    if (s->nfront == s->capfront)
        s->front = xrealloc(s->front, (s->capfront = s->capfront ? 2 * s->capfront : 8) * sizeof *s->front);
    SynthResult *p = &s->front[s->nfront++];
    fill(s, p, cand, cr, b);
    b->engine->method(s->o, theta > 0, p->method, sizeof p->method);
    s->have = 1;
    return 1;
}

/* Builds and prices the candidate of engine e with R chunks per rank and
 * owner weight theta. Returns 0 and its cost in *total (*joined: it joined
 * the Pareto frontier), 1 when its exact costs overflow, -1 when it is too
 * large to build (message in s->err). */
static int try_one(Search *s, const SynthEngine *e, int64_t R, double theta, CostTerms *total, int *joined) {
    const SynthOptions *o = s->o;
    int64_t N = s->N, P = s->one_block ? N * R : R;
    if ((double)P * (double)N > 1e7) {
        snprintf(s->err, s->errsz, "N = %lld with %lld chunks per block is too large to synthesize", (long long)N,
                 (long long)P);
        return -1;
    }
    owners(s, P, theta);
    SynthBuild b = {0};
    b.o = o;
    b.g = &s->g;
    b.engine = e;
    b.N = N;
    b.P = P;
    s->g.greedy_steps = 0;
    e->try_candidate(&b, s->lo, s->hi);
    SynthResult cand;
    memset(&cand, 0, sizeof cand);
    synth_build_schedule(&b, s->arena, &cand);
    synth_build_free(&b);
    CostResult cr;
    if (cost_schedule(&cand.sched, s->t, s->dx, 0, &cr) != 0) {
        schedule_free(&cand.sched);
        return 1;
    }
    *total = cr.total;
    *joined = 0;
    if (s->pareto) *joined = offer(s, &cand, &cr, &b, theta);
    else if (!s->have || better(o, &cr.total, P, &s->out->cost, s->out->sched.split)) keep(s, &cand, &cr, &b, R, theta);
    else schedule_free(&cand.sched);
    cost_result_free(&cr);
    return 0;
}

/* The series of splits R = 1, 2, ... of engine e at owner weight theta: it
 * ends when three in a row did not improve on its best, beyond the split of
 * a schedule at every bound, at --max-split, or when a split overflows the
 * exact costs. Returns 0, or -1 when a split is too large to build. */
static int try_series(Search *s, const SynthEngine *e, double theta) {
    const SynthOptions *o = s->o;
    int64_t maxR = o->objective == SYNTH_LATENCY ? 1 : o->max_split;
    CostTerms series = {0};
    int stale = 0;
    int64_t last = 0; /* the work of the series' last candidate: a finer split costs no less */
    for (int64_t R = 1; R <= maxR && stale < 3 && !(s->at_bounds && R > s->best_R); R++) {
        if (s->g.work + last > s->effort_end) {
            s->effort_hit = 1;
            break;
        }
        CostTerms total;
        int joined;
        int64_t before = s->g.work;
        int r = try_one(s, e, R, theta, &total, &joined);
        last = s->g.work - before;
        if (r < 0) return -1;
        if (r > 0) break; /* a split this fine overflows the exact costs: stop here */
        if (R == 1 || (s->pareto ? joined : better(o, &total, 0, &series, 0))) {
            series = total;
            stale = 0;
        } else {
            stale++;
        }
        /* a schedule at every bound, α too, is the whole frontier */
        if (s->pareto && rat_eq(total.a, s->bounds.lb.a) && rat_eq(total.b, s->bounds.lb.b) &&
            rat_eq(total.c, s->bounds.lb.c)) {
            s->at_bounds = 1;
            break;
        }
        /* a finer split cannot beat a schedule at every bound */
        if (o->objective == SYNTH_BANDWIDTH && rat_eq(total.b, s->bounds.lb.b) && rat_eq(total.c, s->bounds.lb.c)) {
            s->at_bounds = 1;
            break;
        }
    }
    return 0;
}

int synth_supports(Collective coll) {
    switch (coll) {
    case COLLECTIVE_ALLGATHER:
    case COLLECTIVE_REDUCE_SCATTER:
    case COLLECTIVE_ALLREDUCE:
    case COLLECTIVE_BROADCAST:
    case COLLECTIVE_REDUCE: return 1;
    case COLLECTIVE_SCATTER:
    case COLLECTIVE_GATHER:
    case COLLECTIVE_ALLTOALL:
    case COLLECTIVE__COUNT: return 0;
    }
    return 0;
}

/* synth_run, or with pareto the frontier into s->front (out: scratch). */
static SynthStatus run(Search *sp, const SynthOptions *o, TopoModel *t, Arena *arena, DiagEngine *dx,
                       SynthResult *out, char *err, size_t errsz) {
    memset(out, 0, sizeof *out);
    const CollectiveInfo *ci = &collective_info[o->coll];
    if (!synth_supports(o->coll)) {
        snprintf(err, errsz, "synth makes allgather, reduce_scatter, allreduce, broadcast and reduce, not %s",
                 ci->keyword);
        return SYNTH_UNSUPPORTED;
    }
    Search s;
    memset(&s, 0, sizeof s);
    s.pareto = o->objective == SYNTH_PARETO;
    if (synth_graph_build(&s.g, t, err, errsz)) return SYNTH_DISCONNECTED;
    s.o = o;
    s.t = t;
    s.arena = arena;
    s.dx = dx;
    s.out = out;
    s.err = err;
    s.errsz = errsz;
    s.N = t->N;
    s.one_block = ci->in_blocks != BLOCKS_N && ci->out_blocks != BLOCKS_N;
    if (cost_bounds(o->coll, s.N, ci->rooted ? o->root : 0, t, &s.bounds) != 0)
        memset(&s.bounds, 0, sizeof s.bounds);
    s.lo = xmalloc((size_t)s.N * sizeof *s.lo);
    s.hi = xmalloc((size_t)s.N * sizeof *s.hi);
    s.wf = xmalloc((size_t)s.N * sizeof *s.wf);
    s.w = xmalloc((size_t)s.N * sizeof *s.w);
    waterfill(t, s.wf);
    /* AllReduce: owners uniform, water-filled, or a blend (unless they agree) */
    static const double thetas[] = {0, 0.75, 1};
    int nthetas = o->coll == COLLECTIVE_ALLREDUCE && o->objective != SYNTH_LATENCY ? 3 : 1;
    int flat = 1;
    for (int64_t v = 1; v < s.N; v++) flat &= fabs(s.wf[v] - s.wf[0]) < 1e-12;
    if (flat) nthetas = 1;
    /* routes between neighbours through switches, NICs or off-rank chips */
    int relays = 0;
    for (size_t a = 0; a < s.g.narcs; a++) relays |= s.g.link_first[a + 1] - s.g.link_first[a] > 1;
    int spread = o->coll == COLLECTIVE_ALLGATHER || o->coll == COLLECTIVE_REDUCE_SCATTER;
    int failed = 0, napply = 0;
#define TRIED(e) ((e)->applies(o) && (relays || !(e)->relays_only || ((e)->spreads_anywhere && spread)))
    for (size_t k = 0; k < ARRAY_LEN(engines); k++) napply += TRIED(engines[k]);
    int64_t work0 = s.g.work;
    for (size_t k = 0; k < ARRAY_LEN(engines) && !failed && !(s.pareto && s.at_bounds); k++)
        if (TRIED(engines[k])) {
            /* an equal share of what the engines before left: what one
             * did not need, the others get */
            int64_t left = synth_effort(s.N) - (s.g.work - work0);
            s.effort_end = s.g.work + (left > 0 ? left : 0) / napply--;
            int nvar = engines[k]->variants > 1 ? engines[k]->variants : 1;
            for (int var = 0; var < nvar && !failed && !(s.pareto && s.at_bounds); var++) {
                s.g.variant = var;
                for (int th = 0; th < nthetas && !failed; th++) failed = try_series(&s, engines[k], thetas[th]) != 0;
            }
            s.g.variant = 0;
        }
#undef TRIED
    /* The bandwidth objective at the β and γ bounds with α to spare: the
     * step-bounded engine (section 3 of docs/synth.md) at the best split
     * and owners may reach the same β in fewer steps (DGX-1: SCCL's 3 steps
     * at 7/48 where the pipelined spread takes 5). Tried only there, so
     * it costs nothing where β is still off its bound. */
    if (!failed && s.have && o->objective == SYNTH_BANDWIDTH && rat_eq(out->cost.b, s.bounds.lb.b) &&
        rat_eq(out->cost.c, s.bounds.lb.c) && rat_cmp(out->cost.a, s.bounds.lb.a) > 0 &&
        (o->coll == COLLECTIVE_ALLGATHER || o->coll == COLLECTIVE_REDUCE_SCATTER ||
         o->coll == COLLECTIVE_ALLREDUCE)) {
        const SynthEngine *e = &synth_engine_bounded;
        int64_t R = s.best_R;
        double theta = s.best_theta;
        for (int var = 0; var < e->variants && !failed && rat_cmp(out->cost.a, s.bounds.lb.a) > 0; var++) {
            CostTerms total;
            int joined;
            s.g.variant = var;
            failed = try_one(&s, e, R, theta, &total, &joined) < 0;
        }
        s.g.variant = 0;
    }
    out->effort_bound = s.effort_hit;
    free(s.lo);
    free(s.hi);
    free(s.wf);
    free(s.w);
    synth_graph_free(&s.g);
    if (failed || !s.have) {
        if (s.have && !s.pareto) schedule_free(&out->sched);
        for (size_t k = 0; k < s.nfront; k++) schedule_free(&s.front[k].sched);
        free(s.front);
        if (!failed) snprintf(err, errsz, "no schedule could be priced without overflowing exact costs");
        return SYNTH_TOO_LARGE;
    }
    if (s.pareto) {
        for (size_t k = 0; k < s.nfront; k++) {
            s.front[k].effort_bound = s.effort_hit;
            /* the bound at a split costs maximum flows: once per split */
            size_t j = 0;
            while (j < k && s.front[j].sched.split != s.front[k].sched.split) j++;
            if (j < k)
                s.front[k].bounds = s.front[j].bounds;
            else
                bounds_at_split(&s, &s.front[k]);
        }
        sp->front = s.front;
        sp->nfront = s.nfront;
        return SYNTH_OK;
    }
    bounds_at_split(&s, out);
    s.best_engine->method(o, s.best_theta > 0, out->method, sizeof out->method);
    return SYNTH_OK;
}

SynthStatus synth_run(const SynthOptions *o, TopoModel *t, Arena *arena, DiagEngine *dx, SynthResult *out,
                      char *err, size_t errsz) {
    COLLC_ASSERT(o->objective != SYNTH_PARETO);
    Search sp;
    return run(&sp, o, t, arena, dx, out, err, errsz);
}

/* The smaller α term first; on equal α terms the smaller β term. */
static int cmp_point(const void *x, const void *y) {
    const SynthResult *a = x, *b = y;
    int c = rat_cmp(a->cost.a, b->cost.a);
    return c ? c : rat_cmp(a->cost.b, b->cost.b);
}

SynthStatus synth_pareto(const SynthOptions *o, TopoModel *t, Arena *arena, DiagEngine *dx, SynthResult **pts,
                         size_t *npts, char *err, size_t errsz) {
    COLLC_ASSERT(o->objective == SYNTH_PARETO);
    Search sp;
    memset(&sp, 0, sizeof sp);
    SynthResult scratch;
    *pts = NULL;
    *npts = 0;
    SynthStatus st = run(&sp, o, t, arena, dx, &scratch, err, errsz);
    if (st != SYNTH_OK) return st;
    qsort(sp.front, sp.nfront, sizeof *sp.front, cmp_point);
    *pts = sp.front;
    *npts = sp.nfront;
    return SYNTH_OK;
}

/* "optimal" or "8/7 of the bound" */
static const char *versus(Rat v, Rat lb, char *buf, size_t size) {
    if (rat_cmp(v, lb) == 0) return "reaches the bound";
    if (rat_is_zero(lb)) return "the bound is 0";
    int ovf = 0;
    char q[48];
    rat_format(rat_div(v, lb, &ovf), q, sizeof q);
    snprintf(buf, size, "%s of the bound", ovf ? "?" : q);
    return buf;
}

size_t synth_header(const SynthOptions *o, const TopoModel *t, const SynthResult *r, Arena *arena,
                    const char ***lines) {
    const char **v = ARENA_ARRAY(arena, const char *, 16);
    size_t n = 0;
    char topo[128], ta[64], tb[64], tc[64], la[64], lb[64], lc[64], w1[64], w2[64], w3[64];
    topo_describe(t, topo, sizeof topo);
    const CollectiveInfo *ci = &collective_info[o->coll];
    int nblock = ci->in_blocks == BLOCKS_N || ci->out_blocks == BLOCKS_N;
    v[n++] = arena_printf(arena, "%s: %s on %s, N = %lld%s, synthesized by collc synth.", o->name, ci->keyword,
                          topo, (long long)t->N,
                          ci->rooted ? arena_printf(arena, ", root %lld", (long long)o->root) : "");
    v[n++] = arena_printf(arena, "Source: collc synth (docs/synth.md): %s.", r->method);
    if (nblock)
        v[n++] = arena_printf(arena, "Split: %lld chunk%s per block.", (long long)r->sched.split,
                              r->sched.split == 1 ? "" : "s");
    else
        v[n++] = arena_printf(arena, "Split: %lld chunks, %s.", (long long)r->sched.split, r->owners);
    cost_fmt_term(r->cost.a, "α", ta, sizeof ta);
    cost_fmt_term(r->cost.b, "M/β", tb, sizeof tb);
    cost_fmt_term(r->cost.c, "M/γ", tc, sizeof tc);
    cost_fmt_term(r->bounds.lb.a, "α", la, sizeof la);
    cost_fmt_term(r->bounds.lb.b, "M/β", lb, sizeof lb);
    cost_fmt_term(r->bounds.lb.c, "M/γ", lc, sizeof lc);
    const char *m = ci->out_blocks == BLOCKS_N  ? "out, the larger per-rank buffer"
                    : ci->in_blocks == BLOCKS_N ? "in, the larger per-rank buffer"
                                                : "the size of the buffer";
    if (ci->reducing) {
        v[n++] = arena_printf(arena, "Cost on %s (M = %s): T = %s + %s + %s", t->name, m,
                              ta, tb, tc);
        v[n++] = arena_printf(arena, "Lower bound (collc cost): %s + %s + %s", la, lb, lc);
    } else {
        v[n++] = arena_printf(arena, "Cost on %s (M = %s): T = %s + %s", t->name, m, ta,
                              tb);
        v[n++] = arena_printf(arena, "Lower bound (collc cost): %s + %s", la, lb);
    }
    const char *at_split = "";
    if (r->bounds.split > 0 && rat_cmp(r->bounds.b_split, r->bounds.lb.b) > 0) {
        char bs[64], w4[64];
        cost_fmt_term(r->bounds.b_split, "M/β", bs, sizeof bs);
        v[n++] = arena_printf(arena, "Lower bound at %lld chunk%s%s (docs/cost.md section 2): %s (%s).",
                              (long long)r->bounds.split, r->bounds.split == 1 ? "" : "s", nblock ? " per block" : "",
                              bs, r->bounds.split_why);
        at_split = arena_printf(arena, ", %s at its split", versus(r->cost.b, r->bounds.b_split, w4, sizeof w4));
    }
    v[n++] = arena_printf(arena, "Latency %s; bandwidth %s%s%s%s.", versus(r->cost.a, r->bounds.lb.a, w1, sizeof w1),
                          versus(r->cost.b, r->bounds.lb.b, w2, sizeof w2), at_split,
                          ci->reducing ? "; compute " : "",
                          ci->reducing ? versus(r->cost.c, r->bounds.lb.c, w3, sizeof w3) : "");
    if (!r->balanced)
        v[n++] = "Some steps were split greedily (routes over several switch links).";
    if (r->effort_bound)
        v[n++] = "The search stopped an engine at its effort bound: its finer splits were not tried.";
    v[n++] = arena_printf(arena, "Requires: N = %lld%s (a schedule for this size).", (long long)t->N,
                          ci->rooted ? arena_printf(arena, ", root = %lld", (long long)o->root) : "");
    *lines = v;
    return n;
}
