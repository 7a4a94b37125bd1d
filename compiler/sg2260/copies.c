/* copies.c - SG2260 lowering, stage 3: the rank-local copies that
 * messages.c collected become COPY commands on the chip's VSDMA engines
 * (one per TPU core); rank-local reductions are staging.c's.
 *
 * A local chunk may run in any step from its own up to the last one before
 * a later transfer reads or writes its destination or writes its source
 * ("sinking"): every pair of transfers that touch common data keeps its
 * order, and no step gets a race. Chunks with the earliest deadline go
 * first, so that those with the fewest choices find room next to the link
 * traffic; each goes, among its steps, where it hides best behind the link
 * traffic (least time of the chip's DDR<->L2 path beyond the step's busiest
 * link; the earliest on a tie), on the chip's least loaded VSDMA engine.
 * Without o->sink_local every copy stays in its step. */
#include "sg2260/lower_internal.h"
#include "support/util.h"

#include <stdlib.h>

/* One chunk of a local copy: entries [first, end) of L->local. */
typedef struct LocalGroup {
    size_t first, end, step, last;
    uint64_t elems;
} LocalGroup;

static int cmp_group(const void *pa, const void *pb) {
    const LocalGroup *a = pa, *b = pb;
    if (a->last != b->last) return a->last < b->last ? -1 : 1;
    return a->first < b->first ? -1 : a->first > b->first;
}

/* The last step chunk `sub` of transfer xi (in step si) may move to. */
static size_t deadline(const Lowering *L, size_t xi, int32_t sub, size_t si) {
    return L->o->sink_local ? schedule_copy_deadline(L->s, xi, sub, si) : si;
}

/* Bytes chip c moves over its DDR<->L2 path in step w besides its copies:
 * twice every staged link reduction into it. */
static double staging_bytes(const Lowering *L, const StepWork *w, int c) {
    double b = 0;
    for (size_t k = 0; k < w->nmsgs; k++)
        if (w->msgs[k].to == c && w->msgs[k].op != SG2260_OP_NONE && L->stage && w->msgs[k].out_port < 0)
            b += 2.0 * (double)(w->msgs[k].elems * L->es);
    return b;
}

/* The step in [g->step, g->last] where a copy of g->elems elements on chip
 * c hides best behind the link traffic, and the least loaded VSDMA there. */
static void best_place(const Lowering *L, int c, const LocalGroup *g, size_t *best_step, int *best_core) {
    const Sg2260Machine *m = L->m;
    double ddr = m->ddr_l2_GBps * 1e3, best = 1e300, mine = (double)(g->elems * L->es);
    *best_step = g->step;
    *best_core = 0;
    for (size_t k = g->step; k <= g->last; k++) {
        const StepWork *w = &L->work[k];
        double chip = mine + staging_bytes(L, w, c), load[SG2260_MAX_CORES] = {0};
        for (size_t j = 0; j < w->ngens; j++)
            if (w->gens[j].chip == c) {
                chip += (double)(w->gens[j].elems * L->es);
                load[w->gens[j].core] += (double)(w->gens[j].elems * L->es);
            }
        double exposed = chip / ddr - step_link_time(L, w);
        if (exposed < 0) exposed = 0;
        if (exposed < best - 1e-9) {
            best = exposed;
            *best_step = k;
            /* the engine whose last copy this one continues (one COPY for
             * both), else the least loaded */
            const LGen *first = &L->local.gens[g->first], *prev = w->ngens ? &w->gens[w->ngens - 1] : NULL;
            int core = 0;
            for (int q = 1; q < m->cores; q++)
                if (load[q] < load[core]) core = q;
            if (prev && prev->chip == c && prev->src + prev->elems * L->es == first->src &&
                prev->dst + prev->elems * L->es == first->dst)
                core = prev->core;
            *best_core = core;
        }
    }
}

/* The pieces of chunk g into step `step` on `core`; a piece that continues
 * the previous copy of the step joins its COPY. */
static void place(Lowering *L, const LocalGroup *g, size_t step, int core) {
    size_t es = L->es;
    StepWork *w = &L->work[step];
    for (size_t i = g->first; i < g->end; i++) {
        LGen x = L->local.gens[i];
        x.core = core;
        LGen *prev = w->ngens ? &w->gens[w->ngens - 1] : NULL;
        Sg2260Shape sh;
        if (prev && prev->chip == x.chip && prev->core == x.core && prev->src + prev->elems * es == x.src &&
            prev->dst + prev->elems * es == x.dst && sg2260_shape_packed(prev->elems + x.elems, &sh) == 0) {
            prev->elems += x.elems;
            continue;
        }
        lgen_add(&w->gens, &w->ngens, &w->capgens, &x);
        L->st->copies++;
    }
}

int sg2260_place_copies(Lowering *L) {
    const StepWork *local = &L->local;
    /* the chunks (runs of entries of one transfer and chunk) */
    size_t ngroups = 0;
    LocalGroup *grp = xmalloc((local->ngens + 1) * sizeof *grp);
    for (size_t gi = 0; gi < local->ngens;) {
        size_t gend = gi, xi = local->gens[gi].xi, si = local->gens[gi].step;
        int32_t sub = local->gens[gi].sub;
        uint64_t elems = 0;
        while (gend < local->ngens && local->gens[gend].xi == xi && local->gens[gend].sub == sub)
            elems += local->gens[gend++].elems;
        if (local->gens[gi].op == SG2260_OP_NONE)
            grp[ngroups++] = (LocalGroup){.first = gi, .end = gend, .step = si,
                                          .last = deadline(L, xi, sub, si), .elems = elems};
        gi = gend;
    }
    qsort(grp, ngroups, sizeof *grp, cmp_group);
    for (size_t q = 0; q < ngroups; q++) {
        size_t step;
        int core;
        best_place(L, local->gens[grp[q].first].chip, &grp[q], &step, &core);
        if (step != grp[q].step) L->st->sunk++;
        place(L, &grp[q], step, core);
    }
    free(grp);
    return 0;
}
