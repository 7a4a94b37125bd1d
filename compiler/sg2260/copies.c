/* copies.c - SG2260 lowering, stage 3: the rank-local transfers that
 * messages.c collected become GENERALs (p2p copies, op for a reduce) on a
 * TX channel of their chip.
 *
 * A local chunk may run in any step from its own up to the last one before
 * a later transfer reads or writes its destination or writes its source
 * ("sinking"): every pair of transfers that touch common data keeps its
 * order, and no step gets a race. Chunks with the earliest deadline go
 * first, so that those with the fewest choices find room next to the link
 * traffic; each goes, among its steps, where it hides best behind the link
 * traffic (least time beyond the step's busiest link; the earliest on a
 * tie), on the chip's TX channel that finishes first. Without
 * o->sink_local every copy stays in its step. */
#include "sg2260/lower_internal.h"
#include "support/util.h"

#include <stdlib.h>

/* Same rank and buffer, overlapping chunks. */
static int overlaps(const SlotRange *a, const SlotRange *b) {
    return a->rank == b->rank && a->buffer == b->buffer && a->lo < b->hi && b->lo < a->hi;
}

/* Time (us) of the link traffic of step w: its busiest link direction. */
static double step_link_time(const Lowering *L, const StepWork *w) {
    double t = 0, cur = 0;
    for (size_t k = 0; k < w->nmsgs; k++) {
        int same = k && w->msgs[k].from == w->msgs[k - 1].from && w->msgs[k].to == w->msgs[k - 1].to;
        double x = link_time(L, w->msgs[k].elems, lmsg_link(L, &w->msgs[k]));
        cur = same ? cur + x : x;
        if (cur > t) t = cur;
    }
    return t;
}

/* One chunk of a local transfer: entries [first, end) of L->local. */
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
    const Schedule *s = L->s;
    if (!L->o->sink_local) return si;
    SlotRange tsrc = s->xfers[xi].src, tdst = s->xfers[xi].dst;
    tsrc.lo += sub, tsrc.hi = tsrc.lo + 1;
    tdst.lo += sub, tdst.hi = tdst.lo + 1;
    size_t last = si;
    for (size_t k = si + 1; k < s->nsteps; k++) {
        int clash = 0;
        for (size_t u = s->steps[k].first; u < s->steps[k].first + s->steps[k].count && !clash; u++)
            clash = overlaps(&s->xfers[u].src, &tdst) || overlaps(&s->xfers[u].dst, &tdst) ||
                    overlaps(&s->xfers[u].dst, &tsrc);
        if (clash) break;
        last = k;
    }
    return last;
}

/* The step in [g->step, g->last] and the TX channel (port) of chip c where
 * a copy of g->elems elements hides best behind the link traffic. */
static void best_place(const Lowering *L, int c, const LocalGroup *g, size_t *best_step, int *best_port) {
    const Sg2260Machine *m = L->m;
    size_t es = L->es;
    double ddr = m->ddr_l2_GBps * 1e3, best = 1e300;
    *best_step = g->step;
    *best_port = 0;
    for (size_t k = g->step; k <= g->last; k++) {
        const StepWork *w = &L->work[k];
        double link = step_link_time(L, w), chip = (double)(g->elems * es) / ddr;
        for (size_t j = 0; j < w->ngens; j++)
            if (w->gens[j].chip == c) chip += (double)(w->gens[j].elems * es) / ddr;
        double port_best = 1e300;
        int port = 0;
        for (int p = 0; p < m->nports[c]; p++) {
            double busy = (double)(g->elems * es) / ddr;
            int l = m->port_link[c][p];
            for (size_t j = 0; j < w->nmsgs; j++)
                if (w->msgs[j].from == c && w->msgs[j].to == m->port_peer[c][p])
                    busy += link_time(L, w->msgs[j].elems, l);
            /* copies already on p are not counted: they share the chip's
             * DDR-L2 path (`chip`) whatever channel runs them, and one
             * channel keeps a transfer's chunks in one GENERAL */
            if (busy < port_best) port_best = busy, port = p;
        }
        double exposed = (port_best > chip ? port_best : chip) - link;
        if (exposed < 0) exposed = 0;
        if (exposed < best - 1e-9) best = exposed, *best_step = k, *best_port = port;
    }
}

/* The pieces of chunk g into step `step` on `port`; a piece that continues
 * the previous copy of the step joins its GENERAL. */
static void place(Lowering *L, const LocalGroup *g, size_t step, int port) {
    size_t es = L->es;
    StepWork *w = &L->work[step];
    for (size_t i = g->first; i < g->end; i++) {
        LGen x = L->local.gens[i];
        x.port = port;
        LGen *prev = w->ngens ? &w->gens[w->ngens - 1] : NULL;
        Sg2260Shape sh;
        if (prev && prev->chip == x.chip && prev->port == x.port && prev->op == x.op &&
            prev->src + prev->elems * es == x.src && prev->dst + prev->elems * es == x.dst &&
            sg2260_shape_packed(prev->elems + x.elems, &sh) == 0) {
            prev->elems += x.elems;
            continue;
        }
        lgen_add(w, &x);
        L->st->generals++;
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
        int c = local->gens[gi].chip;
        if (L->m->nports[c] == 0) {
            diag_error(L->dx, L->s->xfers[xi].span, "sg2260-no-link",
                       "chip %d has no CDMA engine (no link) to run a local copy on", c);
            free(grp);
            return 1;
        }
        grp[ngroups++] = (LocalGroup){.first = gi, .end = gend, .step = si, .last = deadline(L, xi, sub, si),
                                      .elems = elems};
        gi = gend;
    }
    qsort(grp, ngroups, sizeof *grp, cmp_group);
    for (size_t q = 0; q < ngroups; q++) {
        size_t step;
        int port;
        best_place(L, local->gens[grp[q].first].chip, &grp[q], &step, &port);
        if (step != grp[q].step) L->st->sunk++;
        place(L, &grp[q], step, port);
    }
    free(grp);
    return 0;
}
