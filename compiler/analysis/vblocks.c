/* vblocks.c - the per-block rule of blocks of different sizes on the
 * Schedule IR (see vblocks.h). The runtime follows recorded plans of the
 * compiled program, this file the schedule they are compiled from; both
 * take the natural pieces, the rule of a transfer's slots and the reasons
 * from coll_vblocks.h. */
#include "analysis/vblocks.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "analysis/verify.h"
#include "coll_vblocks.h"
#include "support/util.h"

/* A slot a fault left in doubt: it is neither read nor checked again. */
enum { POISON = -2 };

struct VBlocks {
    int64_t N;
    int nbuffers;
    VPiece *p;
    size_t *at;   /* at[b * N + r]: the first slot of buffer b on rank r */
};

int vblocks_collective(Collective coll) {
    return coll_vblock_natural((coll_collective)coll, 1, 0, true, 0) >= 0;
}

static VPiece *slot(const VBlocks *b, int buf, int64_t rank, int64_t c) {
    return &b->p[b->at[(size_t)buf * (size_t)b->N + (size_t)rank] + (size_t)c];
}

VPiece vblocks_own(const Schedule *s, int buf, int64_t rank, int64_t c) {
    return (VPiece){(int32_t)coll_vblock_natural((coll_collective)s->alg->coll, s->N, rank,
                                                 buf == BUF_IN, c / s->split),
                    (int32_t)(c % s->split)};
}

VBlocks *vblocks_new(const Schedule *s, size_t max_bytes) {
    /* an alltoall's ids go to N * N */
    if (s->N > 46340) return NULL;
    size_t nat = (size_t)s->nbuffers * (size_t)s->N + 1, total = 0;
    for (int k = 0; k < s->nbuffers; k++)
        for (int64_t r = 0; r < s->N; r++) total += (size_t)schedule_chunks(s, k, r);
    if (nat * sizeof(size_t) > max_bytes || total > (max_bytes - nat * sizeof(size_t)) / sizeof(VPiece))
        return NULL;
    VBlocks *b = xcalloc(1, sizeof *b);
    b->N = s->N;
    b->nbuffers = s->nbuffers;
    b->at = xcalloc(nat, sizeof *b->at);
    total = 0;
    for (int k = 0; k < s->nbuffers; k++)
        for (int64_t r = 0; r < s->N; r++) {
            b->at[(size_t)k * (size_t)s->N + (size_t)r] = total;
            total += (size_t)schedule_chunks(s, k, r);
        }
    b->p = xcalloc(total + 1, sizeof *b->p);
    for (int k = 0; k < s->nbuffers; k++)
        for (int64_t r = 0; r < s->N; r++)
            for (int64_t c = 0; c < schedule_chunks(s, k, r); c++)
                *slot(b, k, r, c) = k == BUF_IN || k == BUF_OUT ? vblocks_own(s, k, r, c)
                                                                : (VPiece){-1, 0};
    return b;
}

void vblocks_free(VBlocks *b) {
    if (!b) return;
    free(b->p);
    free(b->at);
    free(b);
}

int vblocks_apply(VBlocks *b, const Transfer *t, VBlocksFault *f) {
    int ok = 1;
    for (int32_t j = 0; j < t->dst.hi - t->dst.lo; j++) {
        VPiece src = *slot(b, t->src.buffer, t->src.rank, t->src.lo + j);
        VPiece *dst = slot(b, t->dst.buffer, t->dst.rank, t->dst.lo + j);
        if (src.blk < 0 || dst->blk == POISON) continue;
        int64_t blk = dst->blk, pos = dst->pos;
        const char *why = coll_vblock_write(t->op == XFER_REDUCE, &blk, &pos, src.blk, src.pos);
        if (!why) {
            *dst = (VPiece){(int32_t)blk, (int32_t)pos};
            continue;
        }
        if (ok) *f = (VBlocksFault){j, src, *dst, why};
        ok = 0;
        dst->blk = POISON;   /* what follows from it is no second finding */
    }
    return ok;
}

typedef struct Walk {
    VBlocks *b;
    size_t step;
    const char *why;
} Walk;

static int walk_step(void *user, const Schedule *hdr, const Transfer *xs) {
    Walk *w = user;
    if (!w->b && !(w->b = vblocks_new(hdr, verify_default_memory()))) return 1;   /* too large */
    const Step *st = &hdr->steps[hdr->nsteps - 1];
    VBlocksFault f;
    for (size_t i = 0; i < st->count; i++)
        if (!vblocks_apply(w->b, &xs[i], &f)) {
            w->why = f.why;
            w->step = hdr->nsteps;
            return 1;
        }
    return 0;
}

/* 1, 0 (*why) or -1 (not applicable, too large) for one instance. */
static int vblocks_instance(const Algorithm *alg, const SchedParams *p, DiagEngine *quiet,
                            Arena *arena, const char **why) {
    Walk w = {0};
    Schedule s;
    const Stmt *req = NULL;
    InstStatus st = instantiate_stream(alg, p, quiet, &s, &req, walk_step, &w);
    vblocks_free(w.b);
    if (st == INST_OK) schedule_free(&s);
    if (st == INST_STOPPED && w.why) {
        *why = arena_printf(arena, "%s (N = %" PRId64 ", step %zu)", w.why, p->N, w.step);
        return 0;
    }
    return st == INST_OK ? 1 : -1;
}

int vblocks_algorithm(const Algorithm *alg, const int64_t *ns, size_t nns, const Define *defs,
                      int ndefs, SourceManager *sm, Arena *arena, const char **why) {
    if (!vblocks_collective(alg->coll)) return -1;
    int64_t dflt[64];
    if (!ns) {
        nns = verify_default_ns(dflt, 64);
        ns = dflt;
    }
    DiagEngine *quiet = diag_new_silent(sm);
    int verdict = -1;
    for (size_t i = 0; i < nns && verdict != 0; i++) {
        int64_t roots[16];
        size_t nroots = collective_info[alg->coll].rooted ? verify_roots(ns[i], -1, roots, 16) : 1;
        if (!collective_info[alg->coll].rooted) roots[0] = 0;
        for (size_t k = 0; k < nroots && verdict != 0; k++) {
            SchedParams p = {.N = ns[i], .root = roots[k], .defines = defs, .ndefines = ndefs};
            int v = vblocks_instance(alg, &p, quiet, arena, why);
            if (v >= 0) verdict = v;
        }
    }
    diag_delete(quiet);
    return verdict;
}
