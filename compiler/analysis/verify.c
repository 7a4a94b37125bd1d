/* verify.c - symbolic execution of the Schedule IR (see verify.h).
 *
 * State: one VSlot (three uint32) per slot (rank, buffer, chunk):
 *   val    : the value id (V_UNDEF, V_POISON, V_LEAF|in-slot, or an index in
 *            the value table)
 *   lastw  : 1 + index of the last transfer that wrote the slot (0 = never);
 *            it names the culprit in races and starts the walk back in
 *            counterexamples, so the full history never has to be stored
 *   rstamp : 1 + index of the last step that read the slot (race check)
 * Values created by reduces live in a table of immutable records (origin
 * chunk, rank intervals, reduction-tree hash, operands, creating transfer),
 * so copies share them. Input values are not materialised: V_LEAF | i stands
 * for the contribution of in-slot i.
 *
 * A step is executed in two passes: first every source slot of the step is
 * stamped as read, then every transfer is applied in order. Without a race
 * (which is reported) no slot written in the step is read by another
 * transfer of it, so applying in place gives exactly "reads see the state
 * before the step".
 *
 * A value that follows from an error (read of undefined data, double count,
 * mixed chunks, a race) becomes V_POISON, which propagates silently: one
 * mistake gives one diagnostic, not a cascade.
 *
 * Messages number steps from 1, as `collc expand` does. */
#include "analysis/verify.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "support/util.h"

/* The slot array reaches hundreds of MiB (N = 4096, split N: 33M slots) and
 * is accessed with a stride of one rank's chunks, so it is mapped directly
 * (zero pages for free) and offered to transparent huge pages, which cuts
 * the TLB misses that otherwise dominate large N. Not from the arena: it is
 * freed after each N. */
static void *big_zalloc(size_t bytes) {
    if (bytes < ((size_t)1 << 21)) return xcalloc(1, bytes);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) collc_internal_error(__FILE__, __LINE__, "out of memory");
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
}

static void big_free(void *p, size_t bytes) {
    if (bytes < ((size_t)1 << 21)) free(p);
    else munmap(p, bytes);
}

/* ---------------------------------------------------------------- values */

enum {
    V_UNDEF = 0,   /* never written */
    V_POISON = 1,  /* result of an operation already reported as an error */
    V_FIRST = 2,   /* first index of a value-table entry */
};
#define V_LEAF 0x80000000u /* V_LEAF | i: the input contribution of in-slot i */

typedef struct VIvl { int32_t lo, hi; } VIvl; /* ranks [lo, hi) */

typedef struct VVal {
    uint64_t tree;   /* reduction-tree hash, commutative per node only */
    uint64_t ioff;   /* first interval in the pool */
    uint32_t nivl;   /* number of intervals (>= 1) */
    int32_t chunk;   /* origin chunk */
    uint32_t pd, ps; /* operands: the destination's old value and the source */
    uint32_t xfer;   /* the reduce transfer that created it */
} VVal;

/* Per-slot state, kept together: a step touches slots far apart (stride of
 * a rank's chunks), so one cache/TLB miss per slot instead of three. */
typedef struct VSlot {
    uint32_t val;    /* value id */
    uint32_t lastw;  /* 1 + last transfer that wrote it; 0 = never */
    uint32_t rstamp; /* 1 + last step that read it as a source */
} VSlot;

/* A buffer's slot layout: the root may hold a different number of chunks. */
typedef struct VBuf { uint64_t base; int64_t cr, co; } VBuf;

typedef struct VState {
    const Schedule *s;
    DiagEngine *dx;        /* errors; NULL: silent, stop at the first */
    DiagEngine *dxw;       /* the rank-consistency warning; NULL: silent */
    Arena *arena;
    int64_t N, root;       /* root = -1 when unrooted */
    VBuf *bufs;
    uint64_t nslots;
    VSlot *sl;             /* [nslots] */
    VVal *vals;
    size_t nvals, capvals;
    VIvl *ivl;
    size_t nivl, capivl;
    VIvl *tmp;             /* merge scratch */
    size_t captmp;
    /* One-entry merge cache: a range transfer (recursive halving) merges
     * the same two rank sets for every chunk of the range; the result's
     * intervals are then shared instead of merged and stored again. */
    uint64_t mc_a, mc_b, mc_off;
    size_t mc_n;
    int mc_valid;
    unsigned errors, max_errors;
    unsigned shown;        /* errors reported */
    struct { const char *code; Span span; } seen[64]; /* reported (code, statement) */
    unsigned nseen;
    int stop;              /* error limit reached */
    size_t describe_budget; /* transfers notes may still replay (describe) */
    int overflow;          /* more than 2^31 values: verify-too-large */
} VState;

/* A read-only view of a value (leaves get their interval in `one`). */
typedef struct VView {
    int32_t chunk;
    const VIvl *iv;
    uint32_t n;
    uint64_t tree;
    VIvl one;
} VView;

static uint64_t mix64(uint64_t x) {
    x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27; x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

static uint64_t tree_leaf(int64_t rank, int64_t chunk) {
    return mix64(((uint64_t)rank << 32) ^ (uint64_t)(uint32_t)chunk ^ 0x5851f42d4c957f2dull);
}

/* Commutative (operands sorted) but not associative: ((a+b)+c) and
 * (a+(b+c)) get different hashes, which is exactly "same tree up to
 * commutativity", the condition for bit-identical floating-point sums. */
static uint64_t tree_node(uint64_t a, uint64_t b) {
    uint64_t lo = a < b ? a : b, hi = a < b ? b : a;
    return mix64(mix64(lo + 0x9e3779b97f4a7c15ull) ^ (hi * 0xd6e8feb86659fd93ull));
}

static inline uint64_t slot_of(const VState *v, int b, int64_t rank, int64_t c) {
    const VBuf *B = &v->bufs[b];
    if (v->root < 0 || rank <= v->root) return B->base + (uint64_t)(rank * B->co + c);
    return B->base + (uint64_t)(v->root * B->co + B->cr + (rank - v->root - 1) * B->co + c);
}

/* Inverse of slot_of for the `in` buffer (leaf ids). */
static void in_slot_decode(const VState *v, uint64_t i, int64_t *rank, int64_t *c) {
    const VBuf *B = &v->bufs[BUF_IN];
    int64_t idx = (int64_t)i;
    if (v->root < 0 || B->cr == B->co) {
        *rank = idx / B->co; *c = idx % B->co;
    } else if (idx < v->root * B->co) {
        *rank = idx / B->co; *c = idx % B->co;
    } else if (idx < v->root * B->co + B->cr) {
        *rank = v->root; *c = idx - v->root * B->co;
    } else {
        int64_t j = idx - v->root * B->co - B->cr;
        *rank = v->root + 1 + j / B->co; *c = j % B->co;
    }
}

static void view(const VState *v, uint32_t id, VView *w) {
    if (id & V_LEAF) {
        int64_t r, c;
        in_slot_decode(v, id & ~V_LEAF, &r, &c);
        w->chunk = (int32_t)c;
        w->one.lo = (int32_t)r; w->one.hi = (int32_t)r + 1;
        w->iv = &w->one; w->n = 1;
        w->tree = tree_leaf(r, c);
        return;
    }
    COLLC_ASSERT(id >= V_FIRST && id < v->nvals);
    const VVal *x = &v->vals[id];
    w->chunk = x->chunk; w->iv = v->ivl + x->ioff; w->n = x->nivl; w->tree = x->tree;
}

static uint64_t view_count(const VView *w) {
    uint64_t n = 0;
    for (uint32_t i = 0; i < w->n; i++) n += (uint64_t)(w->iv[i].hi - w->iv[i].lo);
    return n;
}

static void tmp_reserve(VState *v, size_t n) {
    if (n <= v->captmp) return;
    v->captmp = n > 2 * v->captmp ? n : 2 * v->captmp;
    v->tmp = xrealloc(v->tmp, v->captmp * sizeof *v->tmp);
}

/* Appends a value built from v->tmp[0..n). */
/* Appends v->tmp[0..n) to the interval pool; returns its offset. */
static uint64_t ivl_store(VState *v, size_t n) {
    if (v->nivl + n > v->capivl) {
        size_t c = v->capivl ? 2 * v->capivl : 4096;
        while (c < v->nivl + n) c *= 2;
        v->capivl = c;
        v->ivl = xrealloc(v->ivl, c * sizeof *v->ivl);
    }
    memcpy(v->ivl + v->nivl, v->tmp, n * sizeof *v->tmp);
    uint64_t off = v->nivl;
    v->nivl += n;
    return off;
}

/* A value whose rank intervals are ivl[ioff .. ioff + n) (possibly shared
 * with other values: intervals are immutable). */
static uint32_t value_new(VState *v, int32_t chunk, uint64_t ioff, size_t n, uint64_t tree,
                          uint32_t pd, uint32_t ps, uint32_t xfer) {
    if (v->nvals >= V_LEAF) {
        /* Value ids are 31-bit: stop rather than alias an input leaf. */
        v->overflow = 1;
        v->stop = 1;
        return V_POISON;
    }
    if (v->nvals == v->capvals) {
        v->capvals = v->capvals ? 2 * v->capvals : 1024;
        v->vals = xrealloc(v->vals, v->capvals * sizeof *v->vals);
    }
    VVal *x = &v->vals[v->nvals];
    x->tree = tree; x->ioff = ioff; x->nivl = (uint32_t)n; x->chunk = chunk;
    x->pd = pd; x->ps = ps; x->xfer = xfer;
    return (uint32_t)v->nvals++;
}

/* Identity of a value's rank set for the merge cache: the interval pool
 * offset, or the rank of an input leaf. */
static uint64_t set_key(const VState *v, uint32_t id, const VView *w) {
    if (id & V_LEAF) return ((uint64_t)1 << 63) | (uint64_t)(uint32_t)w->one.lo;
    return v->vals[id].ioff;
}

/* Merges two sorted disjoint interval lists into v->tmp, coalescing
 * neighbours. Returns the count, or 0 when they overlap (the overlap is then
 * in v->tmp[0..*nover)). */
static size_t ivl_merge(VState *v, const VIvl *a, uint32_t na, const VIvl *b, uint32_t nb,
                        size_t *nover) {
    tmp_reserve(v, (size_t)na + nb);
    size_t i = 0, j = 0, n = 0;
    int overlap = 0;
    while (i < na || j < nb) {
        VIvl x;
        if (j >= nb || (i < na && a[i].lo < b[j].lo)) x = a[i++];
        else x = b[j++];
        if (n && x.lo < v->tmp[n - 1].hi) { overlap = 1; break; }
        if (n && x.lo == v->tmp[n - 1].hi) v->tmp[n - 1].hi = x.hi;
        else v->tmp[n++] = x;
    }
    if (!overlap) return n;
    /* Second pass: the intersection, for the message. */
    n = 0; i = 0; j = 0;
    while (i < na && j < nb) {
        int32_t lo = a[i].lo > b[j].lo ? a[i].lo : b[j].lo;
        int32_t hi = a[i].hi < b[j].hi ? a[i].hi : b[j].hi;
        if (lo < hi) {
            if (n && v->tmp[n - 1].hi == lo) v->tmp[n - 1].hi = hi;
            else v->tmp[n++] = (VIvl){lo, hi};
        }
        if (a[i].hi < b[j].hi) i++; else j++;
    }
    *nover = n;
    return 0;
}

/* ------------------------------------------------------------ formatting */

typedef struct SBuf { char *p; size_t n, cap; } SBuf;

static void sb_printf(SBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(SBuf *b, const char *fmt, ...) {
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) return;
        if (b->p && b->n + (size_t)k < b->cap) { b->n += (size_t)k; return; }
        size_t c = b->cap ? b->cap * 2 : 128;
        while (c < b->n + (size_t)k + 1) c *= 2;
        b->p = xrealloc(b->p, c);
        b->cap = c;
        if (b->n == 0) b->p[0] = 0;
    }
}

/* Text of sb in the arena; frees sb. */
static const char *sb_done(SBuf *b, Arena *a) {
    const char *s = arena_strdup(a, b->p ? b->p : "");
    free(b->p);
    b->p = NULL; b->n = b->cap = 0;
    return s;
}

/* "r0..r3, r5" (inclusive ranges, like -N lists); at most 8 intervals. */
static void sb_ranks(SBuf *b, const VIvl *iv, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (i == 8) { sb_printf(b, ", ... (%zu more)", n - i); return; }
        if (i) sb_printf(b, ", ");
        if (iv[i].hi - iv[i].lo == 1) sb_printf(b, "r%d", iv[i].lo);
        else if (iv[i].hi - iv[i].lo == 2) sb_printf(b, "r%d, r%d", iv[i].lo, iv[i].lo + 1);
        else sb_printf(b, "r%d..r%d", iv[i].lo, iv[i].hi - 1);
    }
}

static void sb_value(VState *v, SBuf *b, uint32_t id) {
    if (id == V_UNDEF) { sb_printf(b, "undefined"); return; }
    if (id == V_POISON) { sb_printf(b, "invalid"); return; }
    VView w;
    view(v, id, &w);
    sb_printf(b, "{");
    sb_ranks(b, w.iv, w.n);
    sb_printf(b, " : c%d}", w.chunk);
}

static const char *fmt_value(VState *v, uint32_t id) {
    SBuf b = {0};
    sb_value(v, &b, id);
    return sb_done(&b, v->arena);
}

static const char *fmt_slot(VState *v, int buf, int64_t rank, int64_t c) {
    return arena_printf(v->arena, "%s[r%" PRId64 "][c%" PRId64 "]",
                        v->s->alg->buffers[buf].name, rank, c);
}

/* The reduction tree of a value, children ordered by their lowest rank so
 * that trees equal up to commutativity print the same. */
static void sb_tree(VState *v, SBuf *b, uint32_t id, int *budget) {
    if (*budget <= 0) { sb_printf(b, "..."); return; }
    if (id & V_LEAF) {
        VView w;
        view(v, id, &w);
        sb_printf(b, "r%d", w.one.lo);
        (*budget)--;
        return;
    }
    if (id < V_FIRST) { sb_printf(b, "?"); return; }
    const VVal *x = &v->vals[id];
    VView a, c;
    view(v, x->pd, &a);
    view(v, x->ps, &c);
    uint32_t first = x->pd, second = x->ps;
    if (c.iv[0].lo < a.iv[0].lo) { first = x->ps; second = x->pd; }
    sb_printf(b, "(");
    sb_tree(v, b, first, budget);
    sb_printf(b, " + ");
    sb_tree(v, b, second, budget);
    sb_printf(b, ")");
}

/* "(N = 6, s = 2, r = 5)" from instantiate; with strip_n the leading
 * "N = 6" is left out (the error already names N). "" when nothing remains. */
static const char *describe(VState *v, size_t xfer, int strip_n) {
    /* Describing re-runs the instantiation up to the transfer, so notes
     * (strip_n) share a budget of replayed transfers: past it they lose
     * their variable values rather than take minutes at N = 4096. */
    if (strip_n) {
        if (xfer + 1 > v->describe_budget) return "";
        v->describe_budget -= xfer + 1;
    }
    const char *d = schedule_describe_transfer(v->s, xfer, v->arena);
    if (!d) d = "";
    if (strip_n && strncmp(d, "N = ", 4) == 0) {
        const char *p = d + 4;
        while (*p == '-' || (*p >= '0' && *p <= '9')) p++;
        if (*p == ',') p++;
        while (*p == ' ') p++;
        d = p;
    }
    if (!*d) return "";
    return arena_printf(v->arena, " (%s)", d);
}

/* Index of the step holding transfer x (steps are in transfer order).
 * Messages number steps from 1, as `collc expand` does. */
static size_t step_of(const Schedule *s, size_t x) {
    size_t lo = 0, hi = s->nsteps;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->steps[mid].first <= x) lo = mid; else hi = mid;
    }
    return lo;
}

static const char *op_name(uint8_t op) { return op == XFER_REDUCE ? "reduce" : "copy"; }

/* ---------------------------------------------------------------- errors */

/* Counts an error; returns 1 when it should be reported. One statement
 * usually fails for many ranks and chunks at once, so only the first error
 * of each (code, statement) is shown: the few errors shown for an N are then
 * different ones. Execution stops after max_errors shown errors. */
static int count_error(VState *v, const char *code, Span sp) {
    v->errors++;
    if (!v->dx) { v->stop = 1; return 0; }
    for (unsigned i = 0; i < v->nseen; i++)
        if (!strcmp(v->seen[i].code, code) && v->seen[i].span.file == sp.file &&
            v->seen[i].span.lo == sp.lo && v->seen[i].span.hi == sp.hi)
            return 0;
    if (v->nseen < ARRAY_LEN(v->seen)) {
        v->seen[v->nseen].code = code;
        v->seen[v->nseen].span = sp;
        v->nseen++;
    }
    if (++v->shown >= v->max_errors) v->stop = 1;
    return 1;
}

static const char *const double_buffer_hint =
    "the transfers of a step run concurrently: receive into a separate scratch "
    "buffer (double buffering) and combine it in the next step";
static const char *const write_write_hint =
    "the transfers of a step run concurrently: which write lands last depends on timing";

static void report_race(VState *v, size_t step, size_t x, int buf, int64_t rank, int64_t c,
                        size_t other, int write_write) {
    const Transfer *t = &v->s->xfers[x];
    if (!count_error(v, "race", t->span)) return;
    const char *slot = fmt_slot(v, buf, rank, c);
    if (write_write) {
        diag_error(v->dx, t->span, "race", "step %zu writes %s twice%s", step + 1, slot,
                   describe(v, x, 0));
        diag_note(v->dx, v->s->xfers[other].span, "other write here%s", describe(v, other, 1));
        diag_note(v->dx, v->s->steps[step].span, "%s", write_write_hint);
        return;
    }
    if (other == x) {
        diag_error(v->dx, t->span, "race", "step %zu: this %s reads and writes %s%s", step + 1,
                   op_name(t->op), slot, describe(v, x, 0));
        diag_note(v->dx, span_none(), "its source and destination ranges overlap, and no "
                  "transport promises memmove: go through a separate scratch buffer");
        return;
    } else {
        diag_error(v->dx, t->span, "race",
                   "step %zu writes %s, which another transfer of the step reads%s", step + 1, slot,
                   describe(v, x, 0));
        diag_note(v->dx, v->s->xfers[other].span, "read here%s", describe(v, other, 1));
    }
    diag_note(v->dx, v->s->steps[step].span, "%s", double_buffer_hint);
}

/* The transfer of step `step` that reads slot (buf, rank, c) as a source. */
static size_t find_reader(const Schedule *s, size_t step, int buf, int64_t rank, int64_t c) {
    const Step *st = &s->steps[step];
    for (size_t x = st->first; x < st->first + st->count; x++) {
        const SlotRange *r = &s->xfers[x].src;
        if (r->rank == rank && r->buffer == buf && r->lo <= c && c < r->hi) return x;
    }
    COLLC_UNREACHABLE("race: no reader found");
}

/* After an undefined read in step k: where the slot is first written
 * (a later step: the steps are in the wrong order), if anywhere. */
static void note_first_write(VState *v, size_t k, int buf, int64_t rank, int64_t c) {
    const Schedule *s = v->s;
    for (size_t x = s->steps[k].first + s->steps[k].count; x < s->nxfers; x++) {
        const SlotRange *d = &s->xfers[x].dst;
        if (d->rank == rank && d->buffer == buf && d->lo <= c && c < d->hi) {
            diag_note(v->dx, s->xfers[x].span, "%s is first written later, here in step %zu%s",
                      fmt_slot(v, buf, rank, c), step_of(s, x) + 1, describe(v, x, 1));
            return;
        }
    }
    diag_note(v->dx, span_none(), "no other step writes %s", fmt_slot(v, buf, rank, c));
}

/* ------------------------------------------------------------- execution */

#define PREFETCH_AHEAD 8

static void run_step(VState *v, size_t k) {
    const Schedule *s = v->s;
    const Step *st = &s->steps[k];
    uint32_t stamp = (uint32_t)k + 1;
    size_t end = st->first + st->count;

    /* Slots of one step lie a rank's worth of chunks apart, so nearly
     * every access misses the cache; transfers are independent, so the
     * slots PREFETCH_AHEAD transfers ahead are fetched while this one runs. */
    for (size_t x = st->first; x < end; x++) {
        const Transfer *t = &s->xfers[x];
        if (x + PREFETCH_AHEAD < end) {
            const Transfer *u = &s->xfers[x + PREFETCH_AHEAD];
            __builtin_prefetch(&v->sl[slot_of(v, u->src.buffer, u->src.rank, u->src.lo)], 1);
        }
        for (int32_t c = t->src.lo; c < t->src.hi; c++)
            v->sl[slot_of(v, t->src.buffer, t->src.rank, c)].rstamp = stamp;
    }

    for (size_t x = st->first; x < end && !v->stop; x++) {
        const Transfer *t = &s->xfers[x];
        if (x + PREFETCH_AHEAD < end) {
            const Transfer *u = &s->xfers[x + PREFETCH_AHEAD];
            __builtin_prefetch(&v->sl[slot_of(v, u->dst.buffer, u->dst.rank, u->dst.lo)], 1);
            __builtin_prefetch(&v->sl[slot_of(v, u->src.buffer, u->src.rank, u->src.lo)], 0);
        }
        if (t->dst.buffer == BUF_IN) {
            if (count_error(v, "write-to-in", t->span))
                diag_error(v->dx, t->span, "write-to-in", "step %zu writes to read-only %s%s",
                           k + 1, fmt_slot(v, BUF_IN, t->dst.rank, t->dst.lo), describe(v, x, 0));
            continue;
        }
        int raced = 0, undef = 0, merged = 0;
        for (int32_t i = 0; i < t->dst.hi - t->dst.lo && !v->stop; i++) {
            int64_t dc = t->dst.lo + i, sc = t->src.lo + i;
            uint64_t sd = slot_of(v, t->dst.buffer, t->dst.rank, dc);
            uint64_t ss = slot_of(v, t->src.buffer, t->src.rank, sc);
            uint32_t lw = v->sl[sd].lastw;
            int ww = lw && lw - 1 >= st->first;
            if (ww || v->sl[sd].rstamp == stamp) {
                if (!raced++)
                    report_race(v, k, x, t->dst.buffer, t->dst.rank, dc,
                                ww ? lw - 1 : find_reader(s, k, t->dst.buffer, t->dst.rank, dc), ww);
                /* The outcome depends on timing: poison the slot, so that
                 * what follows from it is not reported again. */
                v->sl[sd].val = V_POISON;
                v->sl[sd].lastw = (uint32_t)x + 1;
                continue;
            }
            if (v->stop) break;
            uint32_t vs = v->sl[ss].val, nv;
            if (t->op == XFER_COPY) {
                if (vs == V_UNDEF) {
                    nv = V_POISON;
                    if (!undef++ && count_error(v, "undefined-read", t->span)) {
                        diag_error(v->dx, t->span, "undefined-read", "step %zu reads undefined %s%s",
                                   k + 1, fmt_slot(v, t->src.buffer, t->src.rank, sc), describe(v, x, 0));
                        note_first_write(v, k, t->src.buffer, t->src.rank, sc);
                    }
                } else {
                    nv = vs;
                }
            } else {
                uint32_t vd = v->sl[sd].val;
                if (vs == V_UNDEF || vd == V_UNDEF) {
                    nv = V_POISON;
                    if (!undef++ && count_error(v, "undefined-read", t->span)) {
                        if (vs == V_UNDEF) {
                            diag_error(v->dx, t->span, "undefined-read", "step %zu reads undefined %s%s",
                                       k + 1, fmt_slot(v, t->src.buffer, t->src.rank, sc), describe(v, x, 0));
                            note_first_write(v, k, t->src.buffer, t->src.rank, sc);
                        } else {
                            diag_error(v->dx, t->span, "undefined-read",
                                       "step %zu reduces into undefined %s%s", k + 1,
                                       fmt_slot(v, t->dst.buffer, t->dst.rank, dc), describe(v, x, 0));
                            note_first_write(v, k, t->dst.buffer, t->dst.rank, dc);
                        }
                    }
                } else if (vs == V_POISON || vd == V_POISON) {
                    nv = V_POISON;
                } else {
                    VView a, b;
                    view(v, vd, &a);
                    view(v, vs, &b);
                    size_t nover = 0, n = 0;
                    uint64_t ka = set_key(v, vd, &a), kb = set_key(v, vs, &b);
                    if (a.chunk == b.chunk && v->mc_valid && v->mc_a == ka && v->mc_b == kb) {
                        nv = value_new(v, a.chunk, v->mc_off, v->mc_n, tree_node(a.tree, b.tree),
                                       vd, vs, (uint32_t)x);
                    } else if (a.chunk != b.chunk) {
                        nv = V_POISON;
                        if (!merged++ && count_error(v, "mixed-chunks", t->span))
                            diag_error(v->dx, t->span, "mixed-chunks",
                                       "step %zu mixes chunks: reduces %s into %s = %s%s", k + 1,
                                       fmt_value(v, vs), fmt_slot(v, t->dst.buffer, t->dst.rank, dc),
                                       fmt_value(v, vd), describe(v, x, 0));
                    } else if ((n = ivl_merge(v, a.iv, a.n, b.iv, b.n, &nover)) == 0) {
                        nv = V_POISON;
                        if (!merged++ && count_error(v, "double-count", t->span)) {
                            SBuf sb = {0};
                            sb_ranks(&sb, v->tmp, nover);
                            const char *twice = sb_done(&sb, v->arena);
                            diag_error(v->dx, t->span, "double-count",
                                       "step %zu counts %s twice: reduces %s into %s = %s%s", k + 1,
                                       twice, fmt_value(v, vs),
                                       fmt_slot(v, t->dst.buffer, t->dst.rank, dc),
                                       fmt_value(v, vd), describe(v, x, 0));
                        }
                    } else {
                        uint64_t off = ivl_store(v, n);
                        nv = value_new(v, a.chunk, off, n, tree_node(a.tree, b.tree), vd, vs, (uint32_t)x);
                        v->mc_valid = 1; v->mc_a = ka; v->mc_b = kb; v->mc_off = off; v->mc_n = n;
                    }
                }
            }
            v->sl[sd].val = nv;
            v->sl[sd].lastw = (uint32_t)x + 1;
        }
    }
}

/* ------------------------------------------------- counterexample notes */

/* The last transfer before `bound` (exclusive) whose destination covers the
 * slot; SIZE_MAX when none. */
static size_t last_writer_before(const Schedule *s, size_t bound, int buf, int64_t rank, int64_t c) {
    while (bound > 0) {
        const SlotRange *d = &s->xfers[--bound].dst;
        if (d->rank == rank && d->buffer == buf && d->lo <= c && c < d->hi) return bound;
    }
    return SIZE_MAX;
}

#define MAX_WALK_NOTES 8

/* One write on a value's path back in time. */
typedef struct Hop { size_t x, step; int buf; int64_t rank, c; uint32_t id; } Hop;

/* Notes "written here in step k (...)" walking back from the slot's last
 * write along the value's path: through copies to their source, through
 * reduces into the operand with more contributions (the accumulated part;
 * the destination on a tie). Consecutive writes by the same statement (a
 * ring passing a partial sum on) become one note, so that the few notes
 * shown reach back to the statement where the path changes. */
static void note_history(VState *v, int buf, int64_t rank, int64_t c) {
    const Schedule *s = v->s;
    uint64_t sl = slot_of(v, buf, rank, c);
    size_t x = v->sl[sl].lastw ? v->sl[sl].lastw - 1 : SIZE_MAX;
    uint32_t id = v->sl[sl].val;
    Hop *hops = NULL;
    size_t nhops = 0, cap = 0;
    while (x != SIZE_MAX) {
        const Transfer *t = &s->xfers[x];
        size_t k = step_of(s, x);
        if (nhops == cap) {
            cap = cap ? 2 * cap : 64;
            hops = xrealloc(hops, cap * sizeof *hops);
        }
        hops[nhops++] = (Hop){x, k, buf, rank, c, id};
        int64_t off = c - t->dst.lo;
        if (t->op == XFER_COPY) {
            buf = t->src.buffer; rank = t->src.rank; c = t->src.lo + off;
        } else {
            if (id < V_FIRST || (id & V_LEAF) || v->vals[id].xfer != x) break;
            const VVal *val = &v->vals[id];
            VView a, b;
            view(v, val->pd, &a);
            view(v, val->ps, &b);
            if (view_count(&b) > view_count(&a)) {
                id = val->ps; buf = t->src.buffer; rank = t->src.rank; c = t->src.lo + off;
            } else {
                id = val->pd;
            }
        }
        x = last_writer_before(s, s->steps[k].first, buf, rank, c);
    }
    size_t shown = 0, hidden = 0;
    for (size_t i = 0; i < nhops;) {
        Span sp = s->xfers[hops[i].x].span;
        size_t j = i + 1;
        while (j < nhops && s->xfers[hops[j].x].span.lo == sp.lo &&
               s->xfers[hops[j].x].span.file == sp.file)
            j++;
        if (shown == MAX_WALK_NOTES) { hidden += j - i; i = j; continue; }
        const Hop *h = &hops[i];
        const char *more = "";
        if (j - i > 1)
            more = arena_printf(v->arena, " and %zu earlier step%s back to step %zu", j - i - 1,
                                j - i - 1 == 1 ? "" : "s", hops[j - 1].step + 1);
        diag_note(v->dx, sp, "written here in step %zu%s%s: %s = %s", h->step + 1, describe(v, h->x, 1),
                  more, fmt_slot(v, h->buf, h->rank, h->c), fmt_value(v, h->id));
        shown++;
        i = j;
    }
    if (hidden)
        diag_note(v->dx, span_none(), "%zu earlier write%s on this path not shown", hidden,
                  hidden == 1 ? "" : "s");
    free(hops);
}

/* ---------------------------------------------------------- postcondition */

/* Expected contents of out[r][c]: origin chunk, and ranks [lo, hi). */
typedef struct Expect { int64_t chunk; int32_t lo, hi; } Expect;

static Expect expected_out(const Schedule *s, int64_t r, int64_t c) {
    int64_t P = s->split, N = s->N, root = s->root;
    Expect e;
    switch (s->alg->coll) {
    case COLLECTIVE_BROADCAST: e = (Expect){c, (int32_t)root, (int32_t)root + 1}; break;
    case COLLECTIVE_SCATTER: e = (Expect){r * P + c, (int32_t)root, (int32_t)root + 1}; break;
    case COLLECTIVE_GATHER:
    case COLLECTIVE_ALLGATHER: e = (Expect){c % P, (int32_t)(c / P), (int32_t)(c / P) + 1}; break;
    case COLLECTIVE_REDUCE:
    case COLLECTIVE_ALLREDUCE: e = (Expect){c, 0, (int32_t)N}; break;
    case COLLECTIVE_REDUCE_SCATTER: e = (Expect){r * P + c, 0, (int32_t)N}; break;
    case COLLECTIVE_ALLTOALL: e = (Expect){r * P + c % P, (int32_t)(c / P), (int32_t)(c / P) + 1}; break;
    default: COLLC_UNREACHABLE("collective");
    }
    return e;
}

/* a \ b for sorted disjoint lists, into *out (malloc'ed). */
static size_t ivl_minus(const VIvl *a, size_t na, const VIvl *b, size_t nb, VIvl **out) {
    VIvl *r = xmalloc((na + nb + 1) * sizeof *r);
    size_t n = 0, j = 0;
    for (size_t i = 0; i < na; i++) {
        int32_t lo = a[i].lo, hi = a[i].hi;
        while (j < nb && b[j].hi <= lo) j++;
        size_t jj = j;
        while (lo < hi) {
            if (jj >= nb || b[jj].lo >= hi) { r[n++] = (VIvl){lo, hi}; break; }
            if (b[jj].lo > lo) r[n++] = (VIvl){lo, b[jj].lo};
            lo = b[jj].hi;
            jj++;
        }
    }
    *out = r;
    return n;
}

static const char *instance_name(VState *v) {
    if (v->root >= 0)
        return arena_printf(v->arena, "N = %" PRId64 ", root = %" PRId64, v->N, v->root);
    return arena_printf(v->arena, "N = %" PRId64, v->N);
}

static void check_postcondition(VState *v) {
    const Schedule *s = v->s;
    for (int64_t r = 0; r < v->N && !v->stop; r++) {
        int64_t nc = schedule_chunks(s, BUF_OUT, r);
        for (int64_t c = 0; c < nc && !v->stop; c++) {
            uint64_t sl = slot_of(v, BUF_OUT, r, c);
            uint32_t id = v->sl[sl].val;
            if (id == V_POISON) continue;
            Expect e = expected_out(s, r, c);
            VIvl ev = {e.lo, e.hi};
            VView w;
            if (id != V_UNDEF) {
                view(v, id, &w);
                if (w.chunk == e.chunk && w.n == 1 && w.iv[0].lo == e.lo && w.iv[0].hi == e.hi)
                    continue; /* the common case, without formatting */
            }
            SBuf want = {0};
            sb_printf(&want, "{");
            sb_ranks(&want, &ev, 1);
            sb_printf(&want, " : c%" PRId64 "}", e.chunk);
            if (id == V_UNDEF) {
                if (count_error(v, "postcondition", s->alg->name_span)) {
                    diag_error(v->dx, s->alg->name_span, "postcondition",
                               "%s is never written for %s (expected %s)", fmt_slot(v, BUF_OUT, r, c),
                               instance_name(v), sb_done(&want, v->arena));
                }
                free(want.p);
                continue;
            }
            VIvl *miss = NULL, *extra = NULL;
            size_t nmiss = ivl_minus(&ev, 1, w.iv, w.n, &miss);
            size_t nextra = ivl_minus(w.iv, w.n, &ev, 1, &extra);
            if (w.chunk != e.chunk || nmiss || nextra) {
                size_t x = v->sl[sl].lastw - 1;
                if (count_error(v, "postcondition", s->xfers[x].span)) {
                    SBuf why = {0};
                    if (w.chunk != e.chunk) {
                        sb_printf(&why, "wrong chunk c%d instead of c%" PRId64, w.chunk, e.chunk);
                    }
                    if (nmiss) {
                        sb_printf(&why, "%smissing ", why.n ? "; " : "");
                        sb_ranks(&why, miss, nmiss);
                    }
                    if (nextra) {
                        sb_printf(&why, "%sextra ", why.n ? "; " : "");
                        sb_ranks(&why, extra, nextra);
                    }
                    diag_error(v->dx, s->xfers[x].span, "postcondition",
                               "%s is wrong for %s: holds %s, expected %s (%s)",
                               fmt_slot(v, BUF_OUT, r, c), instance_name(v), fmt_value(v, id),
                               sb_done(&want, v->arena), sb_done(&why, v->arena));
                    note_history(v, BUF_OUT, r, c);
                }
            }
            free(want.p);
            free(miss);
            free(extra);
        }
    }
}

/* Rank consistency: every rank holding the same reduced output chunk must
 * have the same tree hash. Group key = expected origin chunk (for allreduce
 * out[r][c] is chunk c on every rank; for reduce_scatter and reduce each
 * chunk has one holder, so there is nothing to compare). */
static int check_consistency(VState *v) {
    const Schedule *s = v->s;
    if (!collective_info[s->alg->coll].reducing) return -1;
    int64_t nin = schedule_chunks(s, BUF_IN, 0);
    for (int64_t r = 1; r < v->N; r++)
        if (schedule_chunks(s, BUF_IN, r) > nin) nin = schedule_chunks(s, BUF_IN, r);
    int64_t *first = xmalloc((size_t)(nin > 0 ? nin : 1) * sizeof *first);
    for (int64_t i = 0; i < nin; i++) first[i] = -1;
    int result = -1;
    for (int64_t r = 0; r < v->N && result != 0; r++) {
        int64_t nc = schedule_chunks(s, BUF_OUT, r);
        for (int64_t c = 0; c < nc; c++) {
            uint32_t id = v->sl[slot_of(v, BUF_OUT, r, c)].val;
            Expect e = expected_out(s, r, c);
            if (id < V_FIRST && !(id & V_LEAF)) continue;
            if (first[e.chunk] < 0) { first[e.chunk] = (r << 32) | c; continue; }
            int64_t r0 = first[e.chunk] >> 32, c0 = first[e.chunk] & 0xffffffff;
            uint32_t id0 = v->sl[slot_of(v, BUF_OUT, r0, c0)].val;
            VView a, b;
            view(v, id0, &a);
            view(v, id, &b);
            result = 1;
            if (a.tree == b.tree) continue;
            result = 0;
            if (v->dxw) {
                size_t x = v->sl[slot_of(v, BUF_OUT, r, c)].lastw - 1;
                int sev = diag_warning(v->dxw, s->xfers[x].span, "rank-consistency",
                    "%s and %s hold the same sum reduced in different orders for %s; "
                    "floating-point results can differ between ranks",
                    fmt_slot(v, BUF_OUT, r0, c0), fmt_slot(v, BUF_OUT, r, c), instance_name(v));
                if (sev >= 0) {
                    const uint32_t ids[2] = {id0, id};
                    const int64_t rs[2] = {r0, r}, cs[2] = {c0, c};
                    for (int j = 0; j < 2; j++) {
                        SBuf t = {0};
                        int budget = 16;
                        sb_tree(v, &t, ids[j], &budget);
                        uint32_t w = ids[j];
                        Span sp = (w >= V_FIRST && !(w & V_LEAF)) ? s->xfers[v->vals[w].xfer].span
                                                                  : span_none();
                        diag_note(v->dxw, sp, "%s = %s", fmt_slot(v, BUF_OUT, rs[j], cs[j]),
                                  sb_done(&t, v->arena));
                    }
                }
            }
            break;
        }
    }
    free(first);
    return result;
}

/* --------------------------------------------------------------- driver */

unsigned verify_schedule_ex(const Schedule *s, DiagEngine *dx, DiagEngine *dxw, Arena *arena,
                            unsigned max_errors, VerifyStats *st) {
    VState v = {0};
    v.s = s; v.dx = dx; v.dxw = dxw; v.arena = arena;
    v.N = s->N;
    v.root = collective_info[s->alg->coll].rooted ? s->root : -1;
    v.max_errors = max_errors ? max_errors : VERIFY_DEFAULT_MAX_ERRORS;
    v.describe_budget = (size_t)8 << 20;
    VerifyStats dummy;
    if (!st) st = &dummy;
    memset(st, 0, sizeof *st);
    st->consistent = -1;

    v.bufs = xcalloc((size_t)s->nbuffers, sizeof *v.bufs);
    uint64_t total = 0;
    for (int b = 0; b < s->nbuffers; b++) {
        v.bufs[b].base = total;
        v.bufs[b].co = s->chunks_other[b];
        v.bufs[b].cr = v.root >= 0 ? s->chunks_at_root[b] : s->chunks_other[b];
        total += v.root >= 0 ? (uint64_t)((v.N - 1) * v.bufs[b].co + v.bufs[b].cr)
                             : (uint64_t)(v.N * v.bufs[b].co);
    }
    uint64_t nin = v.s->nbuffers > 1 ? v.bufs[1].base : total;
    if (nin >= V_LEAF || s->nxfers >= UINT32_MAX || s->nsteps >= UINT32_MAX) {
        st->errors = 1;
        if (dx)
            diag_error(dx, s->alg->name_span, "verify-too-large",
                       "schedule of '%s' for N = %" PRId64 " is too large to verify "
                       "(%" PRIu64 " input chunks, %zu transfers; limit 2^31 and 2^32)",
                       s->alg->name, s->N, nin, s->nxfers);
        free(v.bufs);
        return 1;
    }
    v.nslots = total;
    size_t slot_bytes = (size_t)(total ? total : 1) * sizeof *v.sl;
    v.sl = big_zalloc(slot_bytes);
    for (uint64_t i = 0; i < nin; i++) v.sl[i].val = V_LEAF | (uint32_t)i;
    v.capvals = 1024;
    v.vals = xmalloc(v.capvals * sizeof *v.vals);
    v.nvals = V_FIRST;

    for (size_t k = 0; k < s->nsteps && !v.stop; k++) run_step(&v, k);
    if (v.overflow) {
        v.errors++;
        if (dx)
            diag_error(dx, s->alg->name_span, "verify-too-large",
                       "schedule of '%s' for N = %" PRId64 " is too large to verify "
                       "(more than 2^31 reduced values)", s->alg->name, s->N);
    }
    if (!v.stop) check_postcondition(&v);
    if (!v.errors) st->consistent = check_consistency(&v);

    st->errors = v.errors;
    st->slots = total;
    st->values = v.nvals - V_FIRST;
    st->intervals = v.nivl;
    big_free(v.sl, slot_bytes);
    free(v.vals); free(v.ivl); free(v.tmp); free(v.bufs);
    return v.errors;
}

unsigned verify_schedule(const Schedule *s, DiagEngine *dx, Arena *arena,
                         unsigned max_errors, VerifyStats *st) {
    return verify_schedule_ex(s, dx, dx, arena, max_errors, st);
}
