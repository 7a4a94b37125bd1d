/* staging.c - SG2260 lowering, stage 4: reductions through L2 SRAM, as SCCL
 * does them. A reduction lands in an L2 slot: the GDMA copies the
 * destination chunk from DDR into the slot, the CDMA RECV (or the GDMA's
 * REDUCE for a rank-local reduction) reduces into it, and the GDMA copies
 * the slot back to DDR (programs.c writes those commands).
 *
 * Slots are handed out per step and chip from the start of the L2 SRAM, in
 * the order the GDMA will run them, wrapping round when the SRAM is full;
 * the GDMA then copies a slot in only after it copied the slot's previous
 * user out (programs.c orders its commands so). The steps are separated by
 * barriers, so every step starts from an empty SRAM. Link reductions are
 * staged unless the machine lets the CDMA reduce into DDR (reduce_to_ddr);
 * the GDMA's REDUCE writes only L2, so rank-local ones always are. */
#include "sg2260/lower_internal.h"
#include "support/util.h"

#include <inttypes.h>
#include <stdlib.h>

/* One staged reduction of a step on a chip. */
typedef struct Item {
    uint64_t ddr, bytes;
    uint64_t *slot;      /* where to store its L2 address */
    size_t xi;
} Item;

static int cmp_item(const void *pa, const void *pb) {
    const Item *a = pa, *b = pb;
    return a->ddr < b->ddr ? -1 : a->ddr > b->ddr;
}

/* Slots for items[0..n) of one chip in one step; 1 after reporting two
 * reductions into overlapping DDR (a schedule lowered with --no-verify). */
static int assign(Lowering *L, size_t si, Item *items, size_t n) {
    uint64_t cap = L->m->l2_bytes / L->align * L->align, cursor = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t size = sg2260_align_up(L, items[i].bytes);
        COLLC_ASSERT(size <= cap); /* messages.c and sg2260_plan_staging cut pieces to half the SRAM */
        if (cursor + size > cap) cursor = 0;
        *items[i].slot = SG2260_L2(cursor);
        cursor += size;
        if (cursor > L->lay->l2_bytes) L->lay->l2_bytes = cursor;
        L->st->staged++;
    }
    Item *sorted = xmalloc((n + 1) * sizeof *sorted);
    for (size_t i = 0; i < n; i++) sorted[i] = items[i];
    qsort(sorted, n, sizeof *sorted, cmp_item);
    int bad = 0;
    for (size_t i = 1; i < n && !bad; i++)
        if (sorted[i].ddr < sorted[i - 1].ddr + sorted[i - 1].bytes) {
            const Transfer *t = &L->s->xfers[sorted[i].xi];
            diag_error(L->dx, t->span, "sg2260-reduce-overlap",
                       "step %zu reduces twice into rank %d's %s[%d] (0x%" PRIx64 "); staged through L2 one "
                       "reduction would be lost (this schedule does not verify)",
                       si + 1, (int)t->dst.rank, L->s->alg->buffers[t->dst.buffer].name, (int)t->dst.lo,
                       sorted[i].ddr);
            lowering_xfer_note(L, sorted[i].xi);
            bad = 1;
        }
    free(sorted);
    return bad;
}

int sg2260_plan_staging(Lowering *L) {
    const Sg2260Machine *m = L->m;
    uint64_t unit = L->align / L->es;
    uint64_t cap = (m->l2_bytes / 2) / L->es / unit * unit;
    if (cap == 0) cap = unit;
    /* the rank-local reductions into their steps, cut to half the SRAM */
    for (size_t i = 0; i < L->local.ngens; i++) {
        const LGen *g = &L->local.gens[i];
        if (g->op == SG2260_OP_NONE) continue;
        for (uint64_t done = 0; done < g->elems;) {
            uint64_t k = g->elems - done < cap ? g->elems - done : cap;
            LGen r = *g;
            r.src += done * L->es, r.dst += done * L->es, r.elems = k;
            StepWork *w = &L->work[g->step];
            lgen_add(&w->reds, &w->nreds, &w->capreds, &r);
            done += k;
        }
    }
    int failed = 0;
    Item *items = NULL;
    size_t cap_items = 0;
    for (size_t si = 0; si < L->s->nsteps; si++) {
        StepWork *w = &L->work[si];
        for (int c = 0; c < m->nchips; c++) {
            size_t n = 0;
            /* the GDMA's order: link reductions (in message order), then
             * local ones */
            for (size_t k = 0; k < w->nmsgs + w->nreds; k++) {
                if (n + 1 > cap_items) items = xrealloc(items, (cap_items = 2 * cap_items + 16) * sizeof *items);
                if (k < w->nmsgs) {
                    LMsg *lm = &w->msgs[k];
                    if (lm->to != c || lm->op == SG2260_OP_NONE || !L->stage) continue;
                    lm->staged = 1;
                    lm->ddr_dst = lm->dst;
                    items[n++] = (Item){lm->ddr_dst, lm->elems * L->es, &lm->dst, lm->xi};
                } else {
                    LGen *r = &w->reds[k - w->nmsgs];
                    if (r->chip != c) continue;
                    items[n++] = (Item){r->dst, r->elems * L->es, &r->slot, r->xi};
                }
            }
            if (n && assign(L, si, items, n)) failed = 1;
        }
    }
    free(items);
    return failed;
}
