/* copy_window.c - how late a rank-local chunk copy may run (schedule.h):
 * the SG2260 lowering sinks copies behind later link traffic, and the cost
 * model of a machine that prices local copies asks whether they can hide. */
#include "schedule/schedule.h"

/* Same rank and buffer, overlapping chunks. */
static int overlaps(const SlotRange *a, const SlotRange *b) {
    return a->rank == b->rank && a->buffer == b->buffer && a->lo < b->hi && b->lo < a->hi;
}

size_t schedule_copy_deadline(const Schedule *s, size_t xi, int32_t sub, size_t si) {
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
