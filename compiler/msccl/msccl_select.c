/* msccl_select.c - the size ranges of the MSCCL files an executor chooses
 * from (docs/msccl.md §3).
 *
 * The executor's scheduler runs, for a call, the first algorithm it loaded
 * whose collective, ngpus and mode (in place or out of place) are the
 * call's and whose [minBytes, maxBytes] holds the call's size (maxBytes 0:
 * no upper bound; bytes = count * type size * the size multiplier). Over
 * the files given together, per (collective, ngpus, mode):
 *   - two ranges that share a size: which one runs depends on the order in
 *     which the executor loads the files (a folder's listing);
 *   - a size between two ranges that neither holds: the executor silently
 *     runs NCCL's (RCCL's) own algorithm there.
 * Sizes below the smallest minBytes or above the largest maxBytes are the
 * range the files cover, not a gap. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "msccl/msccl.h"
#include "support/util.h"

typedef struct Range {
    const char *coll;
    int ngpus, inplace;
    uint64_t lo, hi; /* bytes, both included; hi UINT64_MAX: no bound */
    Span span;       /* the <algo> element */
    int order;       /* position among the files given */
} Range;

static int range_cmp(const void *x, const void *y) {
    const Range *a = x, *b = y;
    int c = strcmp(a->coll, b->coll);
    if (c) return c;
    if (a->ngpus != b->ngpus) return a->ngpus < b->ngpus ? -1 : 1;
    if (a->inplace != b->inplace) return a->inplace < b->inplace ? -1 : 1;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
    return (a->order > b->order) - (a->order < b->order);
}

static const char *mode_name(int inplace) { return inplace ? "in place" : "out of place"; }

/* "LO .. HI bytes", or "LO bytes and up" for no bound. */
static const char *sizes(Arena *a, uint64_t lo, uint64_t hi) {
    if (hi == UINT64_MAX) return arena_printf(a, "%" PRIu64 " bytes and up", lo);
    if (lo == hi) return arena_printf(a, "%" PRIu64 " bytes", lo);
    return arena_printf(a, "%" PRIu64 " .. %" PRIu64 " bytes", lo, hi);
}

void msccl_group(DiagEngine *dx, const uint32_t *files, int nfiles) {
    if (nfiles < 2) return;
    Arena arena;
    arena_init(&arena);
    Range *r = xmalloc(sizeof *r * (size_t)nfiles * 2);
    int n = 0;
    for (int k = 0; k < nfiles; k++) {
        MsAlgo a;
        if (msccl_xml_header(&arena, dx, files[k], &a)) continue;
        for (int mode = 0; mode < 2; mode++) {
            if (!(mode ? a.inplace : a.outofplace)) continue;
            r[n++] = (Range){a.coll, a.ngpus, mode, (uint64_t)a.min_bytes,
                             a.max_bytes ? (uint64_t)a.max_bytes : UINT64_MAX, a.span, k};
        }
    }
    qsort(r, (size_t)n, sizeof *r, range_cmp);
    for (int i = 0, j; i < n; i = j) {
        j = i + 1;
        while (j < n && !strcmp(r[j].coll, r[i].coll) && r[j].ngpus == r[i].ngpus &&
               r[j].inplace == r[i].inplace)
            j++;
        /* r[i .. j) sorted by lo: `top` is the range reaching highest so far */
        int top = i;
        for (int k = i + 1; k < j; k++) {
            const Range *p = &r[top], *q = &r[k];
            if (q->lo <= p->hi) {
                uint64_t hi = q->hi < p->hi ? q->hi : p->hi;
                diag_warning(dx, q->span, "msccl-size-overlap",
                             "this %s algorithm for ngpus=%d, %s, claims sizes %s that another "
                             "one claims too; the executor runs whichever it loaded first",
                             q->coll, q->ngpus, mode_name(q->inplace), sizes(&arena, q->lo, hi));
                diag_note(dx, p->span, "the other algorithm, for sizes %s",
                          sizes(&arena, p->lo, p->hi));
            } else if (q->lo > p->hi + 1) {
                diag_warning(dx, q->span, "msccl-size-gap",
                             "no %s algorithm for ngpus=%d, %s, claims sizes %s, below this "
                             "one's minBytes; the executor falls back to its library's own "
                             "algorithm there",
                             q->coll, q->ngpus, mode_name(q->inplace),
                             sizes(&arena, p->hi + 1, q->lo - 1));
                diag_note(dx, p->span, "the range below ends at maxBytes=%" PRIu64, p->hi);
            }
            if (q->hi > p->hi) top = k;
        }
    }
    free(r);
    arena_free(&arena);
}
