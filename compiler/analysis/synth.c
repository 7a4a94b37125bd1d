/* synth.c - `collc synth` (synth.h, docs/synth.md): the collectives built
 * from the engines' moves as Schedule IR, every candidate (engine, split,
 * owner weighting) priced with the cost model, the best one kept, and the
 * header of the printed algorithm. */
#include "analysis/synth.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/util.h"

/* Buffers of a synthesized algorithm: in, out, then (when used) the partial
 * sums `acc`. */
enum { B_IN = BUF_IN, B_OUT = BUF_OUT, B_ACC = BUF_FIRST_SCRATCH };

/* A schedule under construction. */
typedef struct Build {
    const SynthOptions *o;
    SynthGraph *g;
    int64_t N, P;       /* ranks; chunks per block (the split) */
    int phone;          /* spread with the telephone engine: 1 fewer steps,
                           2 a finer pipeline (synth_phone's small_steps) */
    int has_acc;        /* scratch acc[acc_chunks] */
    int64_t acc_chunks;
    int nrx;            /* landing buffers rx0 .. rx(nrx-1), acc_chunks each */
    uint8_t *recv;      /* [N * acc_chunks]: the rank's partial sum of the
                           chunk receives a reduce (so it starts as its input) */
    Transfer *x;
    size_t nx, xcap;
    Step *st;
    size_t ns, scap;
    char **comment;     /* [ns], malloc'ed strings */
} Build;

static int rx_buf(const Build *b, int k) { return B_ACC + b->has_acc + k; }

static void b_step(Build *b, char *comment) {
    if (b->ns == b->scap) {
        b->scap = b->scap ? 2 * b->scap : 16;
        b->st = xrealloc(b->st, b->scap * sizeof *b->st);
        b->comment = xrealloc(b->comment, b->scap * sizeof *b->comment);
    }
    b->st[b->ns] = (Step){b->nx, 0, span_none()};
    b->comment[b->ns] = comment;
    b->ns++;
}

/* Appends a transfer to the current step, extending the previous one when
 * it continues it (same ranks and buffers, adjacent chunks). */
static void b_xfer(Build *b, XferOp op, int sbuf, int64_t srank, int64_t slo, int dbuf, int64_t drank,
                   int64_t dlo, int64_t len) {
    if (len <= 0) return;
    Step *st = &b->st[b->ns - 1];
    if (st->count) {
        Transfer *p = &b->x[b->nx - 1];
        if (p->op == op && p->src.buffer == sbuf && p->dst.buffer == dbuf && p->src.rank == srank &&
            p->dst.rank == drank && p->src.hi == slo && p->dst.hi == dlo) {
            p->src.hi += (int32_t)len;
            p->dst.hi += (int32_t)len;
            return;
        }
    }
    if (b->nx == b->xcap) {
        b->xcap = b->xcap ? 2 * b->xcap : 256;
        b->x = xrealloc(b->x, b->xcap * sizeof *b->x);
    }
    Transfer *t = &b->x[b->nx++];
    memset(t, 0, sizeof *t);
    t->op = (uint8_t)op;
    t->src = (SlotRange){(int32_t)srank, (uint16_t)sbuf, (int32_t)slo, (int32_t)(slo + len)};
    t->dst = (SlotRange){(int32_t)drank, (uint16_t)dbuf, (int32_t)dlo, (int32_t)(dlo + len)};
    t->span = span_none();
    st->count++;
}

static void b_free(Build *b) {
    free(b->recv);
    free(b->x);
    free(b->st);
    for (size_t k = 0; k < b->ns; k++) free(b->comment[k]);
    free(b->comment);
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...) {
    char buf[256];
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    size_t n = strlen(buf) + 1;
    return memcpy(xmalloc(n), buf, n);
}

/* Where rank u keeps its value of chunk x (global chunk number). */
typedef struct Loc {
    int buf;
    int64_t chunk;
} Loc;

typedef Loc (*LocFn)(const Build *b, int64_t u, int64_t x, int64_t owner);

/* ---- phases ---- */

static void spread(Build *b, const int32_t *lo, const int32_t *hi, int reverse, SynthMoves *m) {
    if (b->phone) synth_phone(b->g, lo, hi, reverse, b->phone == 2, m);
    else synth_spread(b->g, lo, hi, NULL, reverse, m);
}

/* A leaf of a reduction tree sends its input itself. */
static Loc leaf_src(const Build *b, int64_t u, int64_t x) {
    (void)b, (void)u;
    return (Loc){B_IN, x};
}

/* Marks the partial sums a reverse spread reduces into. */
static void mark_recv(Build *b, const SynthMoves *m) {
    int64_t X = b->acc_chunks;
    if (!b->recv) b->recv = xcalloc((size_t)(b->N * X), 1);
    for (size_t k = 0; k < m->n; k++)
        for (int64_t x = m->v[k].lo; x < m->v[k].hi; x++) b->recv[m->v[k].from * X + x] = 1;
}

/* AllGather-like: the moves copy chunks from `src` to `dst` locations,
 * layer by layer. */
static void phase_spread(Build *b, const SynthMoves *m, LocFn src, LocFn dst, const char *what,
                         int first_step_exists) {
    for (int32_t t = 1; t <= m->nsteps; t++) {
        if (!(t == 1 && first_step_exists)) {
            if (b->phone)
                b_step(b, fmt("%s, round %d of %d: every rank passes each chunk it holds to at most one neighbour",
                              what, t, m->nsteps));
            else
                b_step(b, fmt("%s, layer %d: chunks reach the ranks %d hop%s from their owner", what, t, t,
                              t == 1 ? "" : "s"));
        }
        for (size_t k = 0; k < m->n; k++) {
            const SynthMove *mv = &m->v[k];
            if (mv->step != t) continue;
            for (int64_t x = mv->lo; x < mv->hi; x++) {
                Loc s = src(b, mv->from, x, mv->owner), d = dst(b, mv->to, x, mv->owner);
                b_xfer(b, XFER_COPY, s.buf, mv->from, s.chunk, d.buf, mv->to, d.chunk, 1);
            }
        }
    }
}

/* ReduceScatter-like: the moves of a reverse spread, last layer first; a
 * child sends its partial sum to its parent (move from = parent, to =
 * child), reducing into the parent's partial sum. Children that reach one
 * parent with the same chunk in one layer would write one slot at once: the
 * k-th of them goes in the layer's k-th sub-step, so no landing buffer and no
 * local fold is needed. A child that receives nothing of a chunk (a leaf of
 * its tree) sends straight from `in`. */
static void phase_reduce(Build *b, const SynthMoves *m, LocFn acc, const char *what) {
    int64_t X = b->acc_chunks;
    uint8_t *cnt = xcalloc((size_t)(b->N * X), 1);
    int32_t *own = xmalloc((size_t)(b->N * X) * sizeof *own);
    for (int32_t t = m->nsteps; t >= 1; t--) {
        if (b->phone)
            b_step(b, fmt("%s, round %d of %d: every rank takes at most one partial sum of a chunk", what,
                          m->nsteps + 1 - t, m->nsteps));
        else
            b_step(b, fmt("%s, layer %d -> %d: partial sums move one hop towards their owner", what, t, t - 1));
        int maxc = 0;
        for (size_t k = 0; k < m->n; k++) {
            const SynthMove *mv = &m->v[k];
            if (mv->step != t) continue;
            for (int64_t x = mv->lo; x < mv->hi; x++) {
                uint8_t *c = &cnt[mv->from * X + x];
                own[mv->from * X + x] = mv->owner;
                Loc s = b->recv[mv->to * X + x] ? acc(b, mv->to, x, mv->owner) : leaf_src(b, mv->to, x);
                if (*c == 0) {
                    Loc d = acc(b, mv->from, x, mv->owner);
                    b_xfer(b, XFER_REDUCE, s.buf, mv->to, s.chunk, d.buf, mv->from, d.chunk, 1);
                } else {
                    if (*c > b->nrx) b->nrx = *c;
                    b_xfer(b, XFER_COPY, s.buf, mv->to, s.chunk, rx_buf(b, *c - 1), mv->from, x, 1);
                }
                COLLC_ASSERT(*c < 255);
                (*c)++;
                if (*c > maxc) maxc = *c;
            }
        }
        for (int f = 1; f < maxc; f++) {
            b_step(b, fmt("%s, layer %d: fold rx%d into the partial sums (local)", what, t - 1, f - 1));
            for (int64_t u = 0; u < b->N; u++)
                for (int64_t x = 0; x < X; x++)
                    if (cnt[u * X + x] > f) {
                        Loc d = acc(b, u, x, own[u * X + x]);
                        b_xfer(b, XFER_REDUCE, rx_buf(b, f - 1), u, x, d.buf, u, d.chunk, 1);
                    }
        }
        memset(cnt, 0, (size_t)(b->N * X));
    }
    free(cnt);
    free(own);
}

/* Routing (scatter, or with `backwards` the gather that mirrors it): the
 * moves carry chunks hop by hop between `at` locations. */
static void phase_route(Build *b, const SynthMoves *m, LocFn at, int backwards, const char *what,
                        int first_step_exists) {
    for (int32_t i = 1; i <= m->nsteps; i++) {
        int32_t t = backwards ? m->nsteps + 1 - i : i;
        if (!(i == 1 && first_step_exists))
            b_step(b, fmt("%s, hop %d: chunks move one hop %s", what, i,
                          backwards ? "towards the root" : "towards their rank"));
        for (size_t k = 0; k < m->n; k++) {
            const SynthMove *mv = &m->v[k];
            if (mv->step != t) continue;
            int64_t from = backwards ? mv->to : mv->from, to = backwards ? mv->from : mv->to;
            for (int64_t x = mv->lo; x < mv->hi; x++) {
                Loc s = at(b, from, x, mv->owner), d = at(b, to, x, mv->owner);
                if (!backwards && s.buf == B_OUT && from == b->o->root) s = (Loc){B_IN, x};
                b_xfer(b, XFER_COPY, s.buf, from, s.chunk, d.buf, to, d.chunk, 1);
            }
        }
    }
}

/* ---- locations per collective ---- */

static Loc ag_src(const Build *b, int64_t u, int64_t x, int64_t owner) {
    return u == owner ? (Loc){B_IN, x - owner * b->P} : (Loc){B_OUT, x};
}
static Loc out_loc(const Build *b, int64_t u, int64_t x, int64_t owner) {
    (void)b, (void)u, (void)owner;
    return (Loc){B_OUT, x};
}
static Loc rs_acc(const Build *b, int64_t u, int64_t x, int64_t owner) {
    return u == owner ? (Loc){B_OUT, x - owner * b->P} : (Loc){B_ACC, x};
}
static Loc reduce_acc(const Build *b, int64_t u, int64_t x, int64_t owner) {
    (void)owner;
    return u == b->o->root ? (Loc){B_OUT, x} : (Loc){B_ACC, x};
}

/* ---- the collectives ---- */

static void build_allgather(Build *b, const int32_t *lo, const int32_t *hi) {
    SynthMoves m;
    spread(b, lo, hi, 0, &m);
    b_step(b, fmt(b->phone ? "allgather, round 1 of %d: own block into place; every rank passes its chunks to its "
                             "neighbours, one each"
                           : "allgather, layer 1: own block into place; chunks reach the ranks 1 hop from their owner",
                  m.nsteps));
    for (int64_t s = 0; s < b->N; s++) b_xfer(b, XFER_COPY, B_IN, s, 0, B_OUT, s, s * b->P, b->P);
    phase_spread(b, &m, ag_src, out_loc, "allgather", 1);
    synth_moves_free(&m);
}

static void build_reduce_scatter(Build *b, const int32_t *lo, const int32_t *hi) {
    b->has_acc = 1;
    b->acc_chunks = b->N * b->P;
    SynthMoves m;
    spread(b, lo, hi, 1, &m);
    mark_recv(b, &m);
    b_step(b, fmt("partial sums start as the own input where children reduce into them (local)"));
    for (int64_t u = 0; u < b->N; u++)
        for (int64_t x = 0; x < b->acc_chunks; x++)
            if (b->recv[u * b->acc_chunks + x]) {
                Loc d = rs_acc(b, u, x, x / b->P);
                b_xfer(b, XFER_COPY, B_IN, u, x, d.buf, u, d.chunk, 1);
            }
    phase_reduce(b, &m, rs_acc, "reduce-scatter");
    synth_moves_free(&m);
}

static void build_allreduce(Build *b, const int32_t *lo, const int32_t *hi) {
    b->acc_chunks = b->P;
    SynthMoves rs, ag;
    spread(b, lo, hi, 1, &rs);
    spread(b, lo, hi, 0, &ag);
    mark_recv(b, &rs);
    b_step(b, fmt("partial sums start as the own input where children reduce into them (local)"));
    for (int64_t u = 0; u < b->N; u++)
        for (int64_t x = 0; x < b->P; x++)
            if (b->recv[u * b->P + x]) b_xfer(b, XFER_COPY, B_IN, u, x, B_OUT, u, x, 1);
    phase_reduce(b, &rs, out_loc, "reduce-scatter");
    phase_spread(b, &ag, out_loc, out_loc, "allgather", 0);
    synth_moves_free(&rs);
    synth_moves_free(&ag);
}

static Loc bc_src(const Build *b, int64_t u, int64_t x, int64_t owner) {
    (void)owner;
    return u == b->o->root ? (Loc){B_IN, x} : (Loc){B_OUT, x};
}

static void build_broadcast(Build *b, const int32_t *lo, const int32_t *hi) {
    int64_t N = b->N, root = b->o->root;
    if (b->phone) {
        /* the root owns every chunk: one pipelined telephone spread */
        int32_t *rlo = xcalloc((size_t)N, sizeof *rlo), *rhi = xcalloc((size_t)N, sizeof *rhi);
        rhi[root] = (int32_t)b->P;
        SynthMoves m;
        synth_phone(b->g, rlo, rhi, 0, b->phone == 2, &m);
        b_step(b, fmt("broadcast, round 1 of %d: the root's buffer into place; the root passes its first chunks on",
                      m.nsteps));
        b_xfer(b, XFER_COPY, B_IN, root, 0, B_OUT, root, 0, b->P);
        phase_spread(b, &m, bc_src, out_loc, "broadcast", 1);
        synth_moves_free(&m);
        free(rlo);
        free(rhi);
        return;
    }
    SynthMoves sc, ag;
    synth_route(b->g, root, lo, hi, 0, &sc);
    b_step(b, fmt("scatter, hop 1: the root's buffer into place; chunks move one hop towards their rank"));
    b_xfer(b, XFER_COPY, B_IN, root, 0, B_OUT, root, 0, b->P);
    phase_route(b, &sc, out_loc, 0, "scatter", 1);
    /* the allgather skips what the scatter already delivered */
    int64_t *got = xcalloc((size_t)(N * N), sizeof *got);
    for (size_t k = 0; k < sc.n; k++) got[sc.v[k].owner * N + sc.v[k].to] += sc.v[k].hi - sc.v[k].lo;
    for (int64_t s = 0; s < N; s++) got[s * N + root] = hi[s] - lo[s];
    synth_spread(b->g, lo, hi, got, 0, &ag);
    phase_spread(b, &ag, out_loc, out_loc, "allgather", 0);
    free(got);
    synth_moves_free(&sc);
    synth_moves_free(&ag);
}

static void build_reduce(Build *b, const int32_t *lo, const int32_t *hi) {
    int64_t N = b->N, root = b->o->root;
    b->has_acc = 1;
    b->acc_chunks = b->P;
    if (b->phone) {
        /* the mirrored pipelined broadcast: every chunk reduces into the root */
        int32_t *rlo = xcalloc((size_t)N, sizeof *rlo), *rhi = xcalloc((size_t)N, sizeof *rhi);
        rhi[root] = (int32_t)b->P;
        SynthMoves rs;
        synth_phone(b->g, rlo, rhi, 1, b->phone == 2, &rs);
        mark_recv(b, &rs);
        b_step(b, fmt("partial sums start as the own input where children reduce into them (local)"));
        for (int64_t u = 0; u < N; u++)
            for (int64_t x = 0; x < b->P; x++)
                if (u == root || b->recv[u * b->P + x]) {
                    Loc d = reduce_acc(b, u, x, 0);
                    b_xfer(b, XFER_COPY, B_IN, u, x, d.buf, u, d.chunk, 1);
                }
        phase_reduce(b, &rs, reduce_acc, "reduce");
        synth_moves_free(&rs);
        free(rlo);
        free(rhi);
        return;
    }
    SynthMoves rs, ga;
    spread(b, lo, hi, 1, &rs);
    synth_route(b->g, root, lo, hi, 1, &ga);
    mark_recv(b, &rs);
    b_step(b, fmt("partial sums start as the own input where children reduce into them; the root's in out (local)"));
    for (int64_t u = 0; u < N; u++)
        for (int64_t x = 0; x < b->P; x++)
            if (u == root || b->recv[u * b->P + x]) {
                Loc d = reduce_acc(b, u, x, 0);
                b_xfer(b, XFER_COPY, B_IN, u, x, d.buf, u, d.chunk, 1);
            }
    phase_reduce(b, &rs, reduce_acc, "reduce-scatter");
    phase_route(b, &ga, reduce_acc, 1, "gather", 0);
    synth_moves_free(&rs);
    synth_moves_free(&ga);
}

/* ---- assembling and choosing ---- */

/* The Build as a Schedule with its Algorithm (in the arena). */
static void to_schedule(Build *b, Arena *arena, SynthResult *r) {
    const SynthOptions *o = b->o;
    Algorithm *alg = ARENA_NEW(arena, Algorithm);
    alg->name = arena_strdup(arena, o->name);
    alg->coll = o->coll;
    alg->span = alg->name_span = alg->coll_span = span_none();
    int nb = 2 + b->has_acc + b->nrx;
    alg->nbuffers = nb;
    alg->buffers = ARENA_ARRAY(arena, Buffer, nb);
    alg->buffers[B_IN].name = "in";
    alg->buffers[B_OUT].name = "out";
    if (b->has_acc) alg->buffers[B_ACC].name = "acc";
    for (int k = 0; k < b->nrx; k++) alg->buffers[rx_buf(b, k)].name = arena_printf(arena, "rx%d", k);
    for (int k = B_ACC; k < nb; k++) {
        alg->buffers[k].is_scratch = 1;
        alg->buffers[k].span = span_none();
    }
    Schedule *s = &r->sched;
    memset(s, 0, sizeof *s);
    s->alg = alg;
    s->N = b->N;
    const CollectiveInfo *ci = &collective_info[o->coll];
    s->root = ci->rooted ? o->root : -1;
    s->split = b->P;
    s->nbuffers = nb;
    s->chunks_at_root = xcalloc((size_t)nb, sizeof *s->chunks_at_root);
    s->chunks_other = xcalloc((size_t)nb, sizeof *s->chunks_other);
    int64_t blocks[2] = {ci->in_blocks == BLOCKS_N ? b->N : 1, ci->out_blocks == BLOCKS_N ? b->N : 1};
    HeldBy where[2] = {ci->in_where, ci->out_where};
    for (int k = 0; k < 2; k++) {
        s->chunks_at_root[k] = blocks[k] * b->P;
        s->chunks_other[k] = where[k] == HELD_ROOT ? 0 : blocks[k] * b->P;
    }
    for (int k = B_ACC; k < nb; k++) s->chunks_at_root[k] = s->chunks_other[k] = b->acc_chunks;
    s->xfers = b->x;
    s->nxfers = b->nx;
    s->steps = b->st;
    s->nsteps = b->ns;
    r->step_comment = ARENA_ARRAY(arena, const char *, b->ns ? b->ns : 1);
    for (size_t k = 0; k < b->ns; k++) r->step_comment[k] = arena_strdup(arena, b->comment[k]);
    b->x = NULL;
    b->st = NULL;
}

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
    default:
        if ((c = rat_cmp(a->b, b->b))) return c < 0;
        if ((c = rat_cmp(a->c, b->c))) return c < 0;
        if ((c = rat_cmp(a->a, b->a))) return c < 0;
        break;
    }
    return pa < pb;
}

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

/* One candidate: engine, chunks per rank and owner weights. */
typedef struct Cand {
    int phone;      /* telephone engine (1, 2: synth_phone's small_steps), else layered */
    int64_t R;      /* chunks per rank (and block) */
    double theta;   /* AllReduce: weight of the water-filled owners */
} Cand;

SynthStatus synth_run(const SynthOptions *o, TopoModel *t, Arena *arena, DiagEngine *dx, SynthResult *out,
                      char *err, size_t errsz) {
    memset(out, 0, sizeof *out);
    const CollectiveInfo *ci = &collective_info[o->coll];
    if (o->coll == COLLECTIVE_ALLTOALL || o->coll == COLLECTIVE_SCATTER || o->coll == COLLECTIVE_GATHER) {
        snprintf(err, errsz,
                 "synth makes allgather, reduce_scatter, allreduce, broadcast and reduce, not %s",
                 ci->keyword);
        return SYNTH_UNSUPPORTED;
    }
    SynthGraph g;
    if (synth_graph_build(&g, t, err, errsz)) return SYNTH_DISCONNECTED;
    int64_t N = t->N;
    int one_block = ci->in_blocks != BLOCKS_N && ci->out_blocks != BLOCKS_N;
    if (cost_bounds(o->coll, N, ci->rooted ? o->root : 0, t, &out->bounds) != 0)
        memset(&out->bounds, 0, sizeof out->bounds);
    CostBounds bounds = out->bounds;
    int32_t *lo = xmalloc((size_t)N * sizeof *lo), *hi = xmalloc((size_t)N * sizeof *hi);
    double *wf = xmalloc((size_t)N * sizeof *wf), *w = xmalloc((size_t)N * sizeof *w);
    waterfill(t, wf);
    int64_t maxR = o->objective == SYNTH_LATENCY ? 1 : o->max_split;
    static const double thetas[] = {0, 0.75, 1};
    int nthetas = o->coll == COLLECTIVE_ALLREDUCE && o->objective != SYNTH_LATENCY ? 3 : 1;
    int flat = 1; /* the water-filled owners are the uniform ones */
    for (int64_t v = 1; v < N; v++) flat &= fabs(wf[v] - wf[0]) < 1e-12;
    if (flat) nthetas = 1;
    int have = 0, at_bounds = 0;
    Cand best = {0};
    SynthStatus status = SYNTH_OK;
    /* the finer pipeline pays for a single source (broadcast, reduce) */
    int nengines = o->coll == COLLECTIVE_BROADCAST || o->coll == COLLECTIVE_REDUCE ? 3 : 2;
    for (int phone = 0; phone < nengines && status == SYNTH_OK; phone++)
        for (int th = 0; th < nthetas && status == SYNTH_OK; th++) {
            /* a series of splits ends when three in a row did not improve on
             * its best, or beyond the split of a schedule at every bound */
            CostTerms series = {0};
            int stale = 0;
            for (int64_t R = 1; R <= maxR && stale < 3 && !(at_bounds && R > best.R); R++) {
                int64_t P = one_block ? N * R : R;
                if ((double)P * (double)N > 1e7) {
                    snprintf(err, errsz, "N = %lld with %lld chunks per block is too large to synthesize",
                             (long long)N, (long long)P);
                    status = SYNTH_TOO_LARGE;
                    break;
                }
                if (one_block) {
                    for (int64_t v = 0; v < N; v++) w[v] = (1 - thetas[th]) / (double)N + thetas[th] * wf[v];
                    apportion(N, w, P, lo, hi);
                } else {
                    for (int64_t s2 = 0; s2 < N; s2++) {
                        lo[s2] = (int32_t)(s2 * P);
                        hi[s2] = (int32_t)(s2 * P + P);
                    }
                }
                Build b = {0};
                b.o = o;
                b.g = &g;
                b.N = N;
                b.P = P;
                b.phone = phone;
                g.greedy_steps = 0;
                switch (o->coll) {
                case COLLECTIVE_ALLGATHER: build_allgather(&b, lo, hi); break;
                case COLLECTIVE_REDUCE_SCATTER: build_reduce_scatter(&b, lo, hi); break;
                case COLLECTIVE_ALLREDUCE: build_allreduce(&b, lo, hi); break;
                case COLLECTIVE_BROADCAST: build_broadcast(&b, lo, hi); break;
                case COLLECTIVE_REDUCE: build_reduce(&b, lo, hi); break;
                default: COLLC_UNREACHABLE("collective");
                }
                SynthResult cand;
                memset(&cand, 0, sizeof cand);
                to_schedule(&b, arena, &cand);
                b_free(&b);
                CostResult cr;
                if (cost_schedule(&cand.sched, t, dx, 0, &cr) != 0) {
                    /* a split this fine overflows the exact costs: stop here */
                    schedule_free(&cand.sched);
                    break;
                }
                Cand c = {phone, R, thetas[th]};
                if (!have || better(o, &cr.total, P, &out->cost, out->sched.split)) {
                    if (have) schedule_free(&out->sched);
                    cand.bounds = bounds;
                    *out = cand;
                    out->cost = cr.total;
                    best = c;
                    out->balanced = g.greedy_steps == 0;
                    if (one_block && phone && ci->rooted) {
                        snprintf(out->owners, sizeof out->owners, "all of them the root's");
                    } else if (one_block) {
                        int uniform = 1;
                        for (int64_t v = 1; v < N; v++) uniform &= hi[v] - lo[v] == hi[0] - lo[0];
                        size_t len = 0;
                        if (uniform)
                            snprintf(out->owners, sizeof out->owners, "%d owned by each rank", hi[0] - lo[0]);
                        else
                            for (int64_t v = 0; v < N && len + 1 < sizeof out->owners; v++)
                                len += (size_t)snprintf(out->owners + len, sizeof out->owners - len, "%s%d",
                                                        v ? " " : "owned per rank: ", hi[v] - lo[v]);
                    }
                    have = 1;
                } else {
                    schedule_free(&cand.sched);
                }
                if (R == 1 || better(o, &cr.total, 0, &series, 0)) {
                    series = cr.total;
                    stale = 0;
                } else {
                    stale++;
                }
                cost_result_free(&cr);
                /* a finer split cannot beat a schedule at every bound */
                if (o->objective == SYNTH_BANDWIDTH && rat_eq(cr.total.b, bounds.lb.b) &&
                    rat_eq(cr.total.c, bounds.lb.c)) {
                    at_bounds = 1;
                    break;
                }
            }
        }
    free(lo);
    free(hi);
    free(wf);
    free(w);
    synth_graph_free(&g);
    if (status != SYNTH_OK || !have) {
        if (have) schedule_free(&out->sched);
        if (status == SYNTH_OK) {
            snprintf(err, errsz, "no schedule could be priced without overflowing exact costs");
            status = SYNTH_TOO_LARGE;
        }
        return status;
    }
    const char *how = best.phone ? "telephone trees (every rank passes a chunk to one neighbour per step)"
                                 : "layered breadth-first trees";
    switch (o->coll) {
    case COLLECTIVE_ALLGATHER: snprintf(out->method, sizeof out->method, "allgather on %s", how); break;
    case COLLECTIVE_REDUCE_SCATTER:
        snprintf(out->method, sizeof out->method, "reduce-scatter on mirrored %s", how);
        break;
    case COLLECTIVE_ALLREDUCE:
        snprintf(out->method, sizeof out->method, "reduce-scatter + allgather on %s%s", how,
                 best.theta > 0 ? ", blocks owned in proportion to what the ranks can receive" : "");
        break;
    case COLLECTIVE_BROADCAST:
        snprintf(out->method, sizeof out->method, "%s",
                 best.phone ? "a pipelined broadcast on telephone trees from the root"
                            : "layered scatter from the root + allgather");
        break;
    default:
        snprintf(out->method, sizeof out->method, "%s",
                 best.phone ? "a pipelined reduction on mirrored telephone trees into the root"
                            : "reduce-scatter + layered gather to the root");
        break;
    }
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
    v[n++] = arena_printf(arena, "Latency %s; bandwidth %s%s%s.", versus(r->cost.a, r->bounds.lb.a, w1, sizeof w1),
                          versus(r->cost.b, r->bounds.lb.b, w2, sizeof w2), ci->reducing ? "; compute " : "",
                          ci->reducing ? versus(r->cost.c, r->bounds.lb.c, w3, sizeof w3) : "");
    if (!r->balanced)
        v[n++] = "Some steps were split greedily (routes over several switch links).";
    v[n++] = arena_printf(arena, "Requires: N = %lld%s (a schedule for this size).", (long long)t->N,
                          ci->rooted ? arena_printf(arena, ", root = %lld", (long long)o->root) : "");
    *lines = v;
    return n;
}
