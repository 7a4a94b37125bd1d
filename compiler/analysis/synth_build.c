/* synth_build.c - the collectives of `collc synth` built from the engines'
 * moves as Schedule IR (synth_engine.h): the phases (a spread copies chunks
 * layer by layer or round by round, a mirrored spread reduces partial sums
 * towards their owner, a route carries chunks hop by hop), the collectives
 * made of them, and the finished build as a Schedule. */
#include "analysis/synth_engine.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/util.h"

static int rx_buf(const SynthBuild *b, int k) { return SYNTH_B_ACC + b->has_acc + k; }

void synth_step(SynthBuild *b, char *comment) {
    if (b->ns == b->scap) {
        b->scap = b->scap ? 2 * b->scap : 16;
        b->st = xrealloc(b->st, b->scap * sizeof *b->st);
        b->comment = xrealloc(b->comment, b->scap * sizeof *b->comment);
    }
    b->st[b->ns] = (Step){b->nx, 0, span_none(), 0};
    b->comment[b->ns] = comment;
    b->ns++;
}

/* Appends a transfer to the current step, extending the previous one when
 * it continues it (same ranks and buffers, adjacent chunks). */
void synth_xfer(SynthBuild *b, XferOp op, int sbuf, int64_t srank, int64_t slo, int dbuf, int64_t drank,
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

void synth_build_free(SynthBuild *b) {
    free(b->recv);
    free(b->x);
    free(b->st);
    for (size_t k = 0; k < b->ns; k++) free(b->comment[k]);
    free(b->comment);
}

char *synth_fmt(const char *f, ...) {
    char buf[256];
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    size_t n = strlen(buf) + 1;
    return memcpy(xmalloc(n), buf, n);
}

/* ---- phases ---- */

static void spread(SynthBuild *b, const int32_t *lo, const int32_t *hi, int reverse, SynthMoves *m) {
    b->engine->spread(b->g, lo, hi, reverse, m);
}

/* A leaf of a reduction tree sends its input itself. */
static SynthLoc leaf_src(const SynthBuild *b, int64_t u, int64_t x) {
    (void)b, (void)u;
    return (SynthLoc){SYNTH_B_IN, x};
}

/* Marks the partial sums a reverse spread reduces into. */
static void mark_recv(SynthBuild *b, const SynthMoves *m) {
    int64_t X = b->acc_chunks;
    if (!b->recv) b->recv = xcalloc((size_t)(b->N * X), 1);
    for (size_t k = 0; k < m->n; k++)
        for (int64_t x = m->v[k].lo; x < m->v[k].hi; x++) b->recv[m->v[k].from * X + x] = 1;
}

/* AllGather-like: the moves copy chunks from `src` to `dst` locations,
 * layer by layer. */
static void phase_spread(SynthBuild *b, const SynthMoves *m, SynthLocFn src, SynthLocFn dst, const char *what,
                         int first_step_exists) {
    for (int32_t t = 1; t <= m->nsteps; t++) {
        if (!(t == 1 && first_step_exists)) {
            if (b->engine->rounds == SYNTH_STEPS_PIPELINE)
                synth_step(b, synth_fmt("%s, step %d of %d: chunks move one hop down their trees, every link within the "
                              "step's time", what, t, m->nsteps));
            else if (b->engine->rounds)
                synth_step(b, synth_fmt("%s, round %d of %d: every rank passes each chunk it holds to at most one neighbour",
                              what, t, m->nsteps));
            else
                synth_step(b, synth_fmt("%s, layer %d: chunks reach the ranks %d hop%s from their owner", what, t, t,
                              t == 1 ? "" : "s"));
        }
        for (size_t k = 0; k < m->n; k++) {
            const SynthMove *mv = &m->v[k];
            if (mv->step != t) continue;
            for (int64_t x = mv->lo; x < mv->hi; x++) {
                SynthLoc s = src(b, mv->from, x, mv->owner), d = dst(b, mv->to, x, mv->owner);
                synth_xfer(b, XFER_COPY, s.buf, mv->from, s.chunk, d.buf, mv->to, d.chunk, 1);
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
static void phase_reduce(SynthBuild *b, const SynthMoves *m, SynthLocFn acc, const char *what) {
    int64_t X = b->acc_chunks;
    uint8_t *cnt = xcalloc((size_t)(b->N * X), 1);
    int32_t *own = xmalloc((size_t)(b->N * X) * sizeof *own);
    for (int32_t t = m->nsteps; t >= 1; t--) {
        if (b->engine->rounds == SYNTH_STEPS_PIPELINE)
            synth_step(b, synth_fmt("%s, step %d of %d: partial sums move one hop up their trees", what,
                          m->nsteps + 1 - t, m->nsteps));
        else if (b->engine->rounds)
            synth_step(b, synth_fmt("%s, round %d of %d: every rank takes at most one partial sum of a chunk", what,
                          m->nsteps + 1 - t, m->nsteps));
        else
            synth_step(b, synth_fmt("%s, layer %d -> %d: partial sums move one hop towards their owner", what, t, t - 1));
        int maxc = 0;
        for (size_t k = 0; k < m->n; k++) {
            const SynthMove *mv = &m->v[k];
            if (mv->step != t) continue;
            for (int64_t x = mv->lo; x < mv->hi; x++) {
                uint8_t *c = &cnt[mv->from * X + x];
                own[mv->from * X + x] = mv->owner;
                SynthLoc s = b->recv[mv->to * X + x] ? acc(b, mv->to, x, mv->owner) : leaf_src(b, mv->to, x);
                if (*c == 0) {
                    SynthLoc d = acc(b, mv->from, x, mv->owner);
                    synth_xfer(b, XFER_REDUCE, s.buf, mv->to, s.chunk, d.buf, mv->from, d.chunk, 1);
                } else {
                    if (*c > b->nrx) b->nrx = *c;
                    synth_xfer(b, XFER_COPY, s.buf, mv->to, s.chunk, rx_buf(b, *c - 1), mv->from, x, 1);
                }
                COLLC_ASSERT(*c < 255);
                (*c)++;
                if (*c > maxc) maxc = *c;
            }
        }
        for (int f = 1; f < maxc; f++) {
            synth_step(b, synth_fmt("%s, layer %d: fold rx%d into the partial sums (local)", what, t - 1, f - 1));
            for (int64_t u = 0; u < b->N; u++)
                for (int64_t x = 0; x < X; x++)
                    if (cnt[u * X + x] > f) {
                        SynthLoc d = acc(b, u, x, own[u * X + x]);
                        synth_xfer(b, XFER_REDUCE, rx_buf(b, f - 1), u, x, d.buf, u, d.chunk, 1);
                    }
        }
        memset(cnt, 0, (size_t)(b->N * X));
    }
    free(cnt);
    free(own);
}

/* Routing (scatter, or with `backwards` the gather that mirrors it): the
 * moves carry chunks hop by hop between `at` locations. */
static void phase_route(SynthBuild *b, const SynthMoves *m, SynthLocFn at, int backwards, const char *what,
                        int first_step_exists) {
    for (int32_t i = 1; i <= m->nsteps; i++) {
        int32_t t = backwards ? m->nsteps + 1 - i : i;
        if (!(i == 1 && first_step_exists))
            synth_step(b, synth_fmt("%s, hop %d: chunks move one hop %s", what, i,
                          backwards ? "towards the root" : "towards their rank"));
        for (size_t k = 0; k < m->n; k++) {
            const SynthMove *mv = &m->v[k];
            if (mv->step != t) continue;
            int64_t from = backwards ? mv->to : mv->from, to = backwards ? mv->from : mv->to;
            for (int64_t x = mv->lo; x < mv->hi; x++) {
                SynthLoc s = at(b, from, x, mv->owner), d = at(b, to, x, mv->owner);
                if (!backwards && s.buf == SYNTH_B_OUT && from == b->o->root) s = (SynthLoc){SYNTH_B_IN, x};
                synth_xfer(b, XFER_COPY, s.buf, from, s.chunk, d.buf, to, d.chunk, 1);
            }
        }
    }
}

/* ---- locations per collective ---- */

static SynthLoc ag_src(const SynthBuild *b, int64_t u, int64_t x, int64_t owner) {
    return u == owner ? (SynthLoc){SYNTH_B_IN, x - owner * b->P} : (SynthLoc){SYNTH_B_OUT, x};
}
static SynthLoc out_loc(const SynthBuild *b, int64_t u, int64_t x, int64_t owner) {
    (void)b, (void)u, (void)owner;
    return (SynthLoc){SYNTH_B_OUT, x};
}
static SynthLoc rs_acc(const SynthBuild *b, int64_t u, int64_t x, int64_t owner) {
    return u == owner ? (SynthLoc){SYNTH_B_OUT, x - owner * b->P} : (SynthLoc){SYNTH_B_ACC, x};
}
static SynthLoc reduce_acc(const SynthBuild *b, int64_t u, int64_t x, int64_t owner) {
    (void)owner;
    return u == b->o->root ? (SynthLoc){SYNTH_B_OUT, x} : (SynthLoc){SYNTH_B_ACC, x};
}

/* ---- the collectives ---- */

void synth_build_spread_allgather(SynthBuild *b, const int32_t *lo, const int32_t *hi) {
    SynthMoves m;
    spread(b, lo, hi, 0, &m);
    synth_step(b, synth_fmt(b->engine->rounds == SYNTH_STEPS_PIPELINE
                                ? "allgather, step 1 of %d: own block into place; chunks start down their trees"
                            : b->engine->rounds
                                ? "allgather, round 1 of %d: own block into place; every rank passes its chunks to its "
                                  "neighbours, one each"
                                : "allgather, layer 1: own block into place; chunks reach the ranks 1 hop from their owner",
                            m.nsteps));
    for (int64_t s = 0; s < b->N; s++) synth_xfer(b, XFER_COPY, SYNTH_B_IN, s, 0, SYNTH_B_OUT, s, s * b->P, b->P);
    phase_spread(b, &m, ag_src, out_loc, "allgather", 1);
    synth_moves_free(&m);
}

void synth_build_spread_reduce_scatter(SynthBuild *b, const int32_t *lo, const int32_t *hi) {
    b->has_acc = 1;
    b->acc_chunks = b->N * b->P;
    SynthMoves m;
    spread(b, lo, hi, 1, &m);
    mark_recv(b, &m);
    synth_step(b, synth_fmt("partial sums start as the own input where children reduce into them (local)"));
    for (int64_t u = 0; u < b->N; u++)
        for (int64_t x = 0; x < b->acc_chunks; x++)
            if (b->recv[u * b->acc_chunks + x]) {
                SynthLoc d = rs_acc(b, u, x, x / b->P);
                synth_xfer(b, XFER_COPY, SYNTH_B_IN, u, x, d.buf, u, d.chunk, 1);
            }
    phase_reduce(b, &m, rs_acc, "reduce-scatter");
    synth_moves_free(&m);
}

void synth_build_spread_allreduce(SynthBuild *b, const int32_t *lo, const int32_t *hi) {
    b->acc_chunks = b->P;
    SynthMoves rs, ag;
    spread(b, lo, hi, 1, &rs);
    spread(b, lo, hi, 0, &ag);
    mark_recv(b, &rs);
    synth_step(b, synth_fmt("partial sums start as the own input where children reduce into them (local)"));
    for (int64_t u = 0; u < b->N; u++)
        for (int64_t x = 0; x < b->P; x++)
            if (b->recv[u * b->P + x]) synth_xfer(b, XFER_COPY, SYNTH_B_IN, u, x, SYNTH_B_OUT, u, x, 1);
    phase_reduce(b, &rs, out_loc, "reduce-scatter");
    phase_spread(b, &ag, out_loc, out_loc, "allgather", 0);
    synth_moves_free(&rs);
    synth_moves_free(&ag);
}

static SynthLoc bc_src(const SynthBuild *b, int64_t u, int64_t x, int64_t owner) {
    (void)owner;
    return u == b->o->root ? (SynthLoc){SYNTH_B_IN, x} : (SynthLoc){SYNTH_B_OUT, x};
}

void synth_build_root_spread(SynthBuild *b, const SynthMoves *m) {
    int64_t root = b->o->root;
    b->root_owns_all = 1;
    synth_step(b, synth_fmt("broadcast, round 1 of %d: the root's buffer into place; the root passes its first chunks on",
                            m->nsteps));
    synth_xfer(b, XFER_COPY, SYNTH_B_IN, root, 0, SYNTH_B_OUT, root, 0, b->P);
    phase_spread(b, m, bc_src, out_loc, "broadcast", 1);
}

void synth_build_scatter_allgather(SynthBuild *b, const int32_t *lo, const int32_t *hi) {
    int64_t N = b->N, root = b->o->root;
    SynthMoves sc, ag;
    synth_route(b->g, root, lo, hi, 0, &sc);
    synth_step(b, synth_fmt("scatter, hop 1: the root's buffer into place; chunks move one hop towards their rank"));
    synth_xfer(b, XFER_COPY, SYNTH_B_IN, root, 0, SYNTH_B_OUT, root, 0, b->P);
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

/* The reduce's first, local step (`title`): a partial sum starts as the
 * rank's own input wherever the moves `rs` reduce children into it, and at
 * the root. */
static void seed_partial_sums(SynthBuild *b, const SynthMoves *rs, const char *title) {
    int64_t N = b->N, root = b->o->root;
    mark_recv(b, rs);
    synth_step(b, synth_fmt("%s", title));
    for (int64_t u = 0; u < N; u++)
        for (int64_t x = 0; x < b->P; x++)
            if (u == root || b->recv[u * b->P + x]) {
                SynthLoc d = reduce_acc(b, u, x, 0);
                synth_xfer(b, XFER_COPY, SYNTH_B_IN, u, x, d.buf, u, d.chunk, 1);
            }
}

void synth_build_root_reduce(SynthBuild *b, const SynthMoves *m) {
    b->has_acc = 1;
    b->acc_chunks = b->P;
    b->root_owns_all = 1;
    seed_partial_sums(b, m, "partial sums start as the own input where children reduce into them (local)");
    phase_reduce(b, m, reduce_acc, "reduce");
}

void synth_build_reduce_scatter_gather(SynthBuild *b, const int32_t *lo, const int32_t *hi) {
    int64_t root = b->o->root;
    b->has_acc = 1;
    b->acc_chunks = b->P;
    SynthMoves rs, ga;
    spread(b, lo, hi, 1, &rs);
    synth_route(b->g, root, lo, hi, 1, &ga);
    seed_partial_sums(b, &rs,
                      "partial sums start as the own input where children reduce into them; the root's in out (local)");
    phase_reduce(b, &rs, reduce_acc, "reduce-scatter");
    phase_route(b, &ga, reduce_acc, 1, "gather", 0);
    synth_moves_free(&rs);
    synth_moves_free(&ga);
}

void synth_method_spread(const SynthOptions *o, const char *trees, int weighted, char *buf, size_t size) {
    switch (o->coll) {
    case COLLECTIVE_ALLGATHER: snprintf(buf, size, "allgather on %s", trees); break;
    case COLLECTIVE_REDUCE_SCATTER: snprintf(buf, size, "reduce-scatter on mirrored %s", trees); break;
    case COLLECTIVE_ALLREDUCE:
        snprintf(buf, size, "reduce-scatter + allgather on %s%s", trees,
                 weighted ? ", blocks owned in proportion to what the ranks can receive" : "");
        break;
    case COLLECTIVE_BROADCAST:
    case COLLECTIVE_SCATTER:
    case COLLECTIVE_GATHER:
    case COLLECTIVE_REDUCE:
    case COLLECTIVE_ALLTOALL:
    case COLLECTIVE__COUNT: COLLC_UNREACHABLE("a collective that is not a spread");
    }
}

/* ---- the finished build ---- */

void synth_build_schedule(SynthBuild *b, Arena *arena, SynthResult *r) {
    const SynthOptions *o = b->o;
    Algorithm *alg = ARENA_NEW(arena, Algorithm);
    alg->name = arena_strdup(arena, o->name);
    alg->coll = o->coll;
    alg->span = alg->name_span = alg->coll_span = span_none();
    int nb = 2 + b->has_acc + b->nrx;
    alg->nbuffers = nb;
    alg->buffers = ARENA_ARRAY(arena, Buffer, nb);
    alg->buffers[SYNTH_B_IN].name = "in";
    alg->buffers[SYNTH_B_OUT].name = "out";
    if (b->has_acc) alg->buffers[SYNTH_B_ACC].name = "acc";
    for (int k = 0; k < b->nrx; k++) alg->buffers[rx_buf(b, k)].name = arena_printf(arena, "rx%d", k);
    for (int k = SYNTH_B_ACC; k < nb; k++) {
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
    for (int k = SYNTH_B_ACC; k < nb; k++) s->chunks_at_root[k] = s->chunks_other[k] = b->acc_chunks;
    s->xfers = b->x;
    s->nxfers = b->nx;
    s->steps = b->st;
    s->nsteps = b->ns;
    r->step_comment = ARENA_ARRAY(arena, const char *, b->ns ? b->ns : 1);
    for (size_t k = 0; k < b->ns; k++) r->step_comment[k] = arena_strdup(arena, b->comment[k]);
    b->x = NULL;
    b->st = NULL;
}

