/* lower.c - the SG2260 lowering pass (lower.h): runs the stages in order and
 * counts what the programs do (the helpers the stages share are in work.c). */
#include "sg2260/lower_internal.h"
#include "support/util.h"

#include <stdlib.h>
#include <string.h>

/* 1 when the local copies of a step (VSDMA, on the chip's DDR-L2 path)
 * would take longer than its busiest link: the step then lasts longer than
 * its link traffic, which is all the cost model prices. An estimate without
 * start-up latencies, for the statistics. */
static int local_exposed(const Lowering *L, const StepWork *w) {
    double link = step_link_time(L, w), ddr = L->m->ddr_l2_GBps * 1e3; /* bytes per us */
    double chip[SG2260_MAX_CHIPS] = {0};
    for (size_t g = 0; g < w->ngens; g++) chip[w->gens[g].chip] += (double)(w->gens[g].elems * L->es) / ddr;
    for (int c = 0; c < SG2260_MAX_CHIPS; c++)
        if (chip[c] > link * 1.0001) return 1;
    return 0;
}

/* The statistics of the steps' work (after copies.c). */
static void count_steps(Lowering *L) {
    Sg2260LowerStats *st = L->st;
    for (size_t si = 0; si < L->s->nsteps; si++) {
        const StepWork *w = &L->work[si];
        if (w->ngens && w->nmsgs && local_exposed(L, w)) st->local_exposed++;
        if (w->nmsgs == 0 && (w->ngens > 0 || w->nreds > 0)) st->local_steps++;
        /* messages per link direction (runs of the sorted messages): the
         * pieces of one transfer count once */
        for (size_t k = 0, run = 0; k < w->nmsgs; k++) {
            const LMsg *a = &w->msgs[k], *p = k ? &w->msgs[k - 1] : NULL;
            int same_dir = p && p->from == a->from && p->link == a->link;
            int same_xfer = same_dir && p->xi == a->xi && p->hop == a->hop;
            run = !same_dir ? 1 : run + !same_xfer;
            if (run > st->max_link_msgs) st->max_link_msgs = run;
        }
    }
}

int sg2260_lower(const Schedule *s, const Sg2260LowerOptions *o, DiagEngine *dx, Arena *arena,
                 Sg2260Bundle *b, Sg2260Layout *lay, Sg2260LowerStats *st) {
    memset(lay, 0, sizeof *lay);
    memset(st, 0, sizeof *st);
    size_t nw = s->nsteps ? s->nsteps : 1;
    uint64_t align = o->align ? o->align : SG2260_ALIGN;
    COLLC_ASSERT(align >= SG2260_ALIGN && (align & (align - 1)) == 0);
    Lowering L = {.s = s, .o = o, .m = o->machine, .es = sg2260_dtype_size(o->dtype), .align = align,
                  .stage = !o->machine->reduce_to_ddr, .dx = dx, .arena = arena, .lay = lay, .st = st,
                  .work = xcalloc(nw, sizeof *L.work), .xtext = xcalloc(s->nxfers + 1, sizeof *L.xtext)};
    sg2260_layout_buffers(&L);
    int failed = sg2260_plan_messages(&L);
    if (!failed) failed = sg2260_place_copies(&L);
    if (!failed) failed = sg2260_plan_staging(&L);
    count_steps(&L);
    if (!failed) failed = sg2260_write_programs(&L, b);
    for (size_t si = 0; si < s->nsteps; si++) {
        free(L.work[si].msgs);
        free(L.work[si].gens);
        free(L.work[si].reds);
    }
    free(L.work);
    free(L.local.gens);
    free(L.xtext);
    return failed ? -1 : 0;
}
