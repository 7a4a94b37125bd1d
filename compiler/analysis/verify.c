/* verify.c - symbolic execution of the Schedule IR (see verify.h).
 *
 * The schedule runs on the simulator of simulate.h, which keeps per slot the
 * value id, the last transfer that wrote it (it names the culprit in races
 * and starts the walk back in counterexamples, so the full history never has
 * to be stored) and the last step that read it, and reports races, reads of
 * undefined data and writes to `in`. This file gives the values their
 * meaning: a reduce creates an immutable record (origin chunk, rank
 * intervals, reduction-tree hash, operands, creating transfer) in a table,
 * so copies share it; input values are the simulator's leaves (the
 * contribution of one `in` slot). It turns the simulator's faults and its
 * own (mixed chunks, double counts, the postcondition, rank consistency)
 * into diagnostics.
 *
 * A value that follows from an error becomes SIM_POISON, which propagates
 * silently: one mistake gives one diagnostic, not a cascade.
 *
 * Messages number steps from 1, as `collc expand` does. */
#include "analysis/verify.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "analysis/simulate.h"
#include "analysis/verify_internal.h"
#include "analysis/vblocks.h"
#include "coll_vblocks.h"
#include "support/util.h"

/* ---------------------------------------------------------------- values */

typedef struct VIvl { int32_t lo, hi; } VIvl; /* ranks [lo, hi) */

/* A value with one rank interval (a partial sum along a ring, a subtree)
 * keeps it in its ioff instead of the pool: 8 bytes less a value. The
 * packed interval is also the value's rank-set key (set_key): equal keys,
 * equal sets. */
#define IVL_INLINE ((uint64_t)1 << 63)
static uint64_t ivl_inline(VIvl x) {
    return IVL_INLINE | (uint64_t)(uint32_t)x.lo << 32 | (uint32_t)x.hi;
}

/* What stopped an instance as verify-too-large. */
enum {
    OVER_IDS = 1,    /* more than 2^31 reduced values (31-bit ids) */
    OVER_MEMORY = 2, /* the values and intervals outgrew the memory budget */
    OVER_SLOTS = 3,  /* the slot array alone is over the budget */
};

typedef struct VVal {
    uint64_t tree;   /* reduction-tree hash, commutative per node only */
    uint64_t ioff;   /* the intervals in the pool: a count entry {n, 0}, then
                        n intervals; or (IVL_INLINE) the one interval
                        itself: ivl_inline */
    int32_t chunk;   /* origin chunk */
    uint32_t pd, ps; /* operands: the destination's old value and the source */
    uint32_t xfer;   /* the reduce transfer that created it */
} VVal;

typedef struct VState {
    const Schedule *s;
    Sim sim;               /* the slots; sim.stop: the error limit is reached */
    DiagEngine *dx;        /* errors; NULL: silent, stop at the first */
    DiagEngine *dxw;       /* the rank-consistency warning; NULL: silent */
    Arena *arena;
    int64_t N, root;       /* root = -1 when unrooted */
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
    int mc_valid;
    unsigned errors, max_errors;
    unsigned shown;        /* errors reported */
    struct { const char *code; Span span; } seen[64]; /* reported (code, statement) */
    unsigned nseen;
    size_t merge_fault_xfer; /* the transfer whose mixed chunks / double count
                                was counted (one per transfer); SIZE_MAX */
    size_t describe_budget; /* transfers notes may still replay (describe) */
    int overflow;          /* verify-too-large: OVER_IDS or OVER_MEMORY */
    size_t budget;         /* bytes the slots, values and intervals may take */
    const int64_t *vcounts; /* --vcounts: block r holds vcounts[r] elements (N of
                              them); NULL: blocks of one size */
    VBlocks *vp;           /* --vcounts: the piece of every slot (vblocks.h) */
    int stream;            /* the schedule is streamed (verify_instance): its
                              transfers are gone, so any finding only counts
                              and stops, and the instance is replayed whole
                              to report it */
} VState;

/* A read-only view of a value (leaves get their interval in `one`). */
typedef struct VView {
    int32_t chunk;
    const VIvl *iv;
    uint32_t n;
    uint64_t tree;
    VIvl one;
} VView;

static void view(const VState *v, uint32_t id, VView *w) {
    if (id & SIM_LEAF) {
        int64_t r, c;
        sim_leaf_origin(&v->sim, id, &r, &c);
        w->chunk = (int32_t)c;
        w->one.lo = (int32_t)r; w->one.hi = (int32_t)r + 1;
        w->iv = &w->one; w->n = 1;
        w->tree = vtree_leaf(r);
        return;
    }
    COLLC_ASSERT(id >= SIM_FIRST && id < v->nvals);
    const VVal *x = &v->vals[id];
    w->chunk = x->chunk; w->tree = x->tree;
    if (x->ioff & IVL_INLINE) {
        w->one.lo = (int32_t)(uint32_t)((x->ioff & ~IVL_INLINE) >> 32);
        w->one.hi = (int32_t)(uint32_t)x->ioff;
        w->iv = &w->one;
        w->n = 1;
    } else {
        w->n = (uint32_t)v->ivl[x->ioff].lo;
        w->iv = v->ivl + x->ioff + 1;
    }
}

static uint64_t view_count(const VView *w) {
    uint64_t n = 0;
    for (uint32_t i = 0; i < w->n; i++) n += (uint64_t)(w->iv[i].hi - w->iv[i].lo);
    return n;
}

/* Bytes of the state the budget covers. */
static size_t state_bytes(const VState *v) {
    return v->sim.slot_bytes + v->capvals * sizeof *v->vals + v->capivl * sizeof *v->ivl +
           v->captmp * sizeof *v->tmp;
}

/* Grows the array *p of *cap elements of `elem` bytes to hold `need`:
 * doubling, but never past the memory budget. Returns 0, or -1 (the array
 * unchanged, the run stopped as OVER_MEMORY) when the budget or the system
 * refuses: a resource limit, reported as verify-too-large, not a crash. */
static int grow(VState *v, void **p, size_t *cap, size_t need, size_t elem, size_t first) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : first;
    while (c < need && c <= SIZE_MAX / 2 / elem) c *= 2;
    size_t used = state_bytes(v);
    size_t room = used < v->budget ? (v->budget - used) / elem : 0;
    if (c - *cap > room) c = *cap + room;
    void *q = c >= need ? realloc(*p, c * elem) : NULL;
    if (!q) {
        v->overflow = OVER_MEMORY;
        v->sim.stop = 1;
        return -1;
    }
    *p = q;
    *cap = c;
    return 0;
}

static int tmp_reserve(VState *v, size_t n) {
    return grow(v, (void **)&v->tmp, &v->captmp, n, sizeof *v->tmp, 64);
}

/* Appends v->tmp[0..n) to the interval pool; returns its offset (one
 * interval: ivl_inline, not stored), or UINT64_MAX when the budget is
 * exhausted (the run stops). */
static uint64_t ivl_store(VState *v, size_t n) {
    if (n == 1) return ivl_inline(v->tmp[0]);
    if (grow(v, (void **)&v->ivl, &v->capivl, v->nivl + 1 + n, sizeof *v->ivl, 4096))
        return UINT64_MAX;
    v->ivl[v->nivl] = (VIvl){(int32_t)n, 0};
    memcpy(v->ivl + v->nivl + 1, v->tmp, n * sizeof *v->tmp);
    uint64_t off = v->nivl;
    v->nivl += 1 + n;
    return off;
}

/* A value whose rank intervals are at ioff (see VVal; possibly shared
 * with other values: intervals are immutable). */
static uint32_t value_new(VState *v, int32_t chunk, uint64_t ioff, uint64_t tree,
                          uint32_t pd, uint32_t ps, uint32_t xfer) {
    if (v->nvals >= SIM_LEAF) {
        /* Value ids are 31-bit: stop rather than alias an input leaf. */
        v->overflow = OVER_IDS;
        v->sim.stop = 1;
        return SIM_POISON;
    }
    if (grow(v, (void **)&v->vals, &v->capvals, v->nvals + 1, sizeof *v->vals, 1024))
        return SIM_POISON;
    VVal *x = &v->vals[v->nvals];
    x->tree = tree; x->ioff = ioff; x->chunk = chunk;
    x->pd = pd; x->ps = ps; x->xfer = xfer;
    return (uint32_t)v->nvals++;
}

/* Identity of a value's rank set for the merge cache: the interval pool
 * offset, or the rank of an input leaf. */
static uint64_t set_key(const VState *v, uint32_t id, const VView *w) {
    if (id & SIM_LEAF) return ivl_inline(w->one);
    return v->vals[id].ioff;
}

/* Merges two sorted disjoint interval lists into v->tmp, coalescing
 * neighbours. Returns the count, or 0 when they overlap (the overlap is then
 * in v->tmp[0..*nover)). */
static size_t ivl_merge(VState *v, const VIvl *a, uint32_t na, const VIvl *b, uint32_t nb,
                        size_t *nover) {
    *nover = 0;
    if (tmp_reserve(v, (size_t)na + nb)) return 0; /* the run stops: v->overflow */
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
    if (id == SIM_UNDEF) { sb_printf(b, "undefined"); return; }
    if (id == SIM_POISON) { sb_printf(b, "invalid"); return; }
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
    if (id & SIM_LEAF) {
        VView w;
        view(v, id, &w);
        sb_printf(b, "r%d", w.one.lo);
        (*budget)--;
        return;
    }
    if (id < SIM_FIRST) { sb_printf(b, "?"); return; }
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

static const char *op_name(uint8_t op) { return op == XFER_REDUCE ? "reduce" : "copy"; }

/* ---------------------------------------------------------------- errors */

/* Counts an error; returns 1 when it should be reported. One statement
 * usually fails for many ranks and chunks at once, so only the first error
 * of each (code, statement) is shown: the few errors shown for an N are then
 * different ones. Execution stops after max_errors shown errors. */
static int count_error(VState *v, const char *code, Span sp) {
    v->errors++;
    if (!v->dx) { v->sim.stop = 1; return 0; }
    for (unsigned i = 0; i < v->nseen; i++)
        if (!strcmp(v->seen[i].code, code) && v->seen[i].span.file == sp.file &&
            v->seen[i].span.lo == sp.lo && v->seen[i].span.hi == sp.hi)
            return 0;
    if (v->nseen < ARRAY_LEN(v->seen)) {
        v->seen[v->nseen].code = code;
        v->seen[v->nseen].span = sp;
        v->nseen++;
    }
    if (++v->shown >= v->max_errors) v->sim.stop = 1;
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

/* After an undefined read in step k: where the slot is first written
 * (a later step: the steps are in the wrong order), if anywhere. */
static void note_first_write(VState *v, size_t k, int buf, int64_t rank, int64_t c) {
    const Schedule *s = v->s;
    /* a scratch buffer the calls share, written in an earlier call */
    size_t w = sim_writer_before(s, s->steps[k].first, buf, rank, c);
    if (w != SIZE_MAX && buf >= BUF_FIRST_SCRATCH) {
        diag_note(v->dx, s->xfers[w].span,
                  "'%s' is scratch the calls share; what step %zu of an earlier call wrote here is "
                  "undefined in this one",
                  s->alg->buffers[buf].name, sim_step_of(s, w) + 1);
        return;
    }
    size_t x = sim_writer_from(s, s->steps[k].first + s->steps[k].count, buf, rank, c);
    if (x != SIZE_MAX)
        diag_note(v->dx, s->xfers[x].span, "%s is first written later, here in step %zu%s",
                  fmt_slot(v, buf, rank, c), sim_step_of(s, x) + 1, describe(v, x, 1));
    else
        diag_note(v->dx, span_none(), "no other step writes %s", fmt_slot(v, buf, rank, c));
}

/* ------------------------------------------------------------- execution */

/* The simulator's faults as diagnostics. */
static void on_fault(void *user, const SimFault *f) {
    VState *v = user;
    if (v->stream) {
        v->errors++;
        v->sim.stop = 1;
        return;
    }
    const Transfer *t = &v->s->xfers[f->xfer];
    switch (f->kind) {
    case SIM_FAULT_WRITE_TO_IN:
        if (count_error(v, "write-to-in", t->span))
            diag_error(v->dx, t->span, "write-to-in", "step %zu writes to read-only %s%s",
                       f->step + 1, fmt_slot(v, BUF_IN, f->rank, f->chunk), describe(v, f->xfer, 0));
        return;
    case SIM_FAULT_RACE_WRITE:
    case SIM_FAULT_RACE_READ:
        report_race(v, f->step, f->xfer, f->buffer, f->rank, f->chunk, f->other,
                    f->kind == SIM_FAULT_RACE_WRITE);
        return;
    case SIM_FAULT_UNDEF_SOURCE:
    case SIM_FAULT_UNDEF_DEST:
        if (!count_error(v, "undefined-read", t->span)) return;
        diag_error(v->dx, t->span, "undefined-read",
                   f->kind == SIM_FAULT_UNDEF_SOURCE ? "step %zu reads undefined %s%s"
                                                     : "step %zu reduces into undefined %s%s",
                   f->step + 1, fmt_slot(v, f->buffer, f->rank, f->chunk), describe(v, f->xfer, 0));
        note_first_write(v, f->step, f->buffer, f->rank, f->chunk);
        return;
    }
}

/* A reduce: the union of two contribution sets of the same origin chunk
 * that share no rank; SIM_POISON (reported once per transfer) otherwise. */
static uint32_t on_reduce(void *user, size_t k, size_t x, int64_t i, uint32_t vd, uint32_t vs) {
    VState *v = user;
    VView a, b;
    view(v, vd, &a);
    view(v, vs, &b);
    uint64_t ka = set_key(v, vd, &a), kb = set_key(v, vs, &b);
    if (a.chunk == b.chunk && v->mc_valid && v->mc_a == ka && v->mc_b == kb)
        return value_new(v, a.chunk, v->mc_off, vtree_node(a.tree, b.tree), vd, vs,
                         (uint32_t)x);
    size_t nover = 0, n = 0;
    int mixed = a.chunk != b.chunk;
    if (!mixed) n = ivl_merge(v, a.iv, a.n, b.iv, b.n, &nover); /* 0: a rank twice */
    if (v->overflow) return SIM_POISON;
    if (v->stream && (mixed || n == 0)) {
        v->errors++;
        v->sim.stop = 1;
        return SIM_POISON;
    }
    const Transfer *t = v->stream ? NULL : &v->s->xfers[x];
    if (mixed) {
        if (v->merge_fault_xfer != x && (v->merge_fault_xfer = x, count_error(v, "mixed-chunks", t->span)))
            diag_error(v->dx, t->span, "mixed-chunks",
                       "step %zu mixes chunks: reduces %s into %s = %s%s", k + 1, fmt_value(v, vs),
                       fmt_slot(v, t->dst.buffer, t->dst.rank, t->dst.lo + i), fmt_value(v, vd),
                       describe(v, x, 0));
        return SIM_POISON;
    }
    if (n == 0) {
        if (v->merge_fault_xfer != x && (v->merge_fault_xfer = x, count_error(v, "double-count", t->span))) {
            SBuf sb = {0};
            sb_ranks(&sb, v->tmp, nover);
            const char *twice = sb_done(&sb, v->arena);
            diag_error(v->dx, t->span, "double-count",
                       "step %zu counts %s twice: reduces %s into %s = %s%s", k + 1, twice,
                       fmt_value(v, vs), fmt_slot(v, t->dst.buffer, t->dst.rank, t->dst.lo + i),
                       fmt_value(v, vd), describe(v, x, 0));
        }
        return SIM_POISON;
    }
    uint64_t off = ivl_store(v, n);
    if (off == UINT64_MAX) return SIM_POISON;
    uint32_t nv = value_new(v, a.chunk, off, vtree_node(a.tree, b.tree), vd, vs, (uint32_t)x);
    v->mc_valid = 1; v->mc_a = ka; v->mc_b = kb; v->mc_off = off;
    return nv;
}

/* ------------------------------------------------- counterexample notes */

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
    size_t x = sim_last_writer(&v->sim, buf, rank, c);
    uint32_t id = sim_value(&v->sim, buf, rank, c);
    Hop *hops = NULL;
    size_t nhops = 0, cap = 0;
    while (x != SIZE_MAX) {
        const Transfer *t = &s->xfers[x];
        size_t k = sim_step_of(s, x);
        if (nhops == cap) {
            cap = cap ? 2 * cap : 64;
            hops = xrealloc(hops, cap * sizeof *hops);
        }
        hops[nhops++] = (Hop){x, k, buf, rank, c, id};
        int64_t off = c - t->dst.lo;
        if (t->op == XFER_COPY) {
            buf = t->src.buffer; rank = t->src.rank; c = t->src.lo + off;
        } else {
            if (id < SIM_FIRST || (id & SIM_LEAF) || v->vals[id].xfer != x) break;
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
        x = sim_writer_before(s, s->steps[k].first, buf, rank, c);
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

/* ---------------------------------------------------------------- vcounts */

/* --vcounts runs the schedule as the runtime runs a call of per-block
 * counts (docs/runtime.md, 3b): every chunk slot holds one piece (position
 * pos of block blk) for the whole call, an input or output slot its own
 * block's (coll_vblock_natural), a scratch slot the first it receives, and
 * a piece of block b has coll_piece_len(counts[b], P, pos) elements. A
 * transfer that puts another piece into a slot (or reduces two) is what
 * makes the runtime pad the blocks instead (collrt_vmap_build's verdict,
 * in the same words): here it is an error, vcount-block. Otherwise each
 * transfer moves equal element ranges, slots are disjoint element ranges,
 * and the symbolic run of the chunks is the run of their elements. */

static int vcounts_differ(const VState *v) {
    for (int64_t r = 1; r < v->N; r++)
        if (v->vcounts[r] != v->vcounts[0]) return 1;
    return 0;
}

/* The block id's elements: an alltoall's block from s holds counts[s]. */
static int64_t vblock_count(const VState *v, int64_t blk) {
    return v->vcounts[v->s->alg->coll == COLLECTIVE_ALLTOALL ? blk / v->N : blk];
}

static int64_t vpiece_len(const VState *v, VPiece q) {
    if (q.blk < 0) return 0;
    return (int64_t)coll_piece_len((size_t)vblock_count(v, q.blk), (size_t)v->s->split, (size_t)q.pos);
}

static const char *fmt_vcounts(VState *v) {
    SBuf b = {0};
    for (int64_t r = 0; r < v->N; r++)
        sb_printf(&b, "%s%" PRId64, r ? "," : "", v->vcounts[r]);
    return sb_done(&b, v->arena);
}

/* "block 2 (3 elements)", "piece 1 of block 2 (2 elements)"; an alltoall's
 * block s * N + d is "the block from 1 to 2". */
static const char *fmt_piece(VState *v, VPiece q) {
    SBuf b = {0};
    if (v->s->split > 1) sb_printf(&b, "piece %d of ", q.pos);
    if (v->s->alg->coll == COLLECTIVE_ALLTOALL)
        sb_printf(&b, "the block from %" PRId64 " to %" PRId64, q.blk / v->N, q.blk % v->N);
    else
        sb_printf(&b, "block %d", q.blk);
    int64_t n = vpiece_len(v, q);
    sb_printf(&b, " (%" PRId64 " element%s)", n, n == 1 ? "" : "s");
    return sb_done(&b, v->arena);
}

/* ", elements 3 .. 5 of rank 2's out": where an input or output slot lies
 * (their pieces are known from the start; a scratch slot's are not). */
static const char *fmt_elements(VState *v, int buf, int64_t rank, int64_t c) {
    if (buf != BUF_IN && buf != BUF_OUT) return "";
    int64_t off = 0;
    for (int64_t i = 0; i < c; i++) off += vpiece_len(v, vblocks_own(v->s, buf, rank, i));
    int64_t n = vpiece_len(v, vblocks_own(v->s, buf, rank, c));
    const char *name = v->s->alg->buffers[buf].name;
    if (n == 0) return arena_printf(v->arena, ", empty, at element %" PRId64 " of rank %" PRId64 "'s %s", off, rank, name);
    if (n == 1)
        return arena_printf(v->arena, ", element %" PRId64 " of rank %" PRId64 "'s %s", off, rank, name);
    return arena_printf(v->arena, ", elements %" PRId64 " .. %" PRId64 " of rank %" PRId64 "'s %s",
                        off, off + n - 1, rank, name);
}

static void report_vblock(VState *v, size_t k, size_t x, const Transfer *t, const VBlocksFault *f) {
    if (!count_error(v, "vcount-block", t->span)) return;
    int64_t c = t->dst.lo + f->j;
    diag_error(v->dx, t->span, "vcount-block",
               "step %zu %s %s into %s, which holds %s%s, with --vcounts %s: %s%s", k + 1,
               t->op == XFER_REDUCE ? "reduces" : "copies", fmt_piece(v, f->have),
               fmt_slot(v, t->dst.buffer, t->dst.rank, c), fmt_piece(v, f->want),
               fmt_elements(v, t->dst.buffer, t->dst.rank, c), fmt_vcounts(v), f->why,
               describe(v, x, 0));
    diag_note(v->dx, span_none(),
              "with blocks of different sizes every chunk slot, scratch included, holds one block "
              "for the whole call: keep each block in slots of its own (the MPI target pads the "
              "blocks of such an algorithm to the largest instead)");
}

/* After step k (its transfers xs): the pieces each transfer moved. A
 * source or destination without data is the simulator's finding. */
static void check_vcounts(VState *v, size_t k, const Transfer *xs) {
    if (!vcounts_differ(v)) return;   /* one size: the call is the regular one */
    if (!v->vp) {
        size_t used = state_bytes(v);
        if (!(v->vp = vblocks_new(v->s, used < v->budget ? v->budget - used : 0))) {
            v->overflow = OVER_MEMORY;   /* verify-too-large, as for the values */
            v->sim.stop = 1;
            return;
        }
    }
    const Step *st = &v->s->steps[k];
    VBlocksFault f;
    for (size_t i = 0; i < st->count && !v->sim.stop; i++)
        if (!vblocks_apply(v->vp, &xs[i], &f)) report_vblock(v, k, st->first + i, &xs[i], &f);
}

/* ---------------------------------------------------------- postcondition */

Expect verify_expected_out(const Schedule *s, int64_t r, int64_t c) {
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

/* "out[r][c] is never written": no transfer writes the slot, so there is
 * no statement to blame directly. The error goes to the statement most
 * likely meant to write it, the last transfer writing the nearest slot:
 * the same chunk on another rank (a loop or an 'if' that leaves out this
 * rank), else another chunk of the same rank (one that leaves out this
 * chunk), else any chunk of 'out'; the algorithm's name only when nothing
 * writes 'out'. */
static void report_never_written(VState *v, int64_t r, int64_t c, const char *want) {
    const Schedule *s = v->s;
    size_t same_chunk = SIZE_MAX, same_rank = SIZE_MAX, any = SIZE_MAX;
    for (size_t x = s->nxfers; x-- > 0 && same_chunk == SIZE_MAX;) {
        const SlotRange *d = &s->xfers[x].dst;
        if (d->buffer != BUF_OUT) continue;
        if (any == SIZE_MAX) any = x;
        if (d->lo <= c && c < d->hi) same_chunk = x;
        else if (d->rank == r && same_rank == SIZE_MAX) same_rank = x;
    }
    size_t x = same_chunk != SIZE_MAX ? same_chunk : same_rank != SIZE_MAX ? same_rank : any;
    const char *slot = fmt_slot(v, BUF_OUT, r, c);
    if (x == SIZE_MAX) {
        diag_error(v->dx, s->alg->name_span, "postcondition",
                   "%s is never written for %s (expected %s)", slot, instance_name(v), want);
        diag_note(v->dx, span_none(), "no transfer writes '%s' at all",
                  s->alg->buffers[BUF_OUT].name);
        return;
    }
    const Transfer *t = &s->xfers[x];
    int64_t wc = same_chunk != SIZE_MAX ? c : t->dst.lo;
    diag_error(v->dx, t->span, "postcondition", "%s is never written for %s (expected %s)", slot,
               instance_name(v), want);
    diag_note(v->dx, span_none(), "the nearest write: step %zu%s writes %s here, but no transfer writes %s",
              sim_step_of(s, x) + 1, describe(v, x, 1), fmt_slot(v, BUF_OUT, t->dst.rank, wc), slot);
    diag_note(v->dx, span_none(), "a slot that nothing writes usually means a loop that stops one "
              "iteration short, or an 'if' or an index that leaves out %s",
              same_chunk != SIZE_MAX ? "a rank" : "a chunk");
}

static void check_postcondition(VState *v) {
    const Schedule *s = v->s;
    for (int64_t r = 0; r < v->N && !v->sim.stop; r++) {
        int64_t nc = schedule_chunks(s, BUF_OUT, r);
        for (int64_t c = 0; c < nc && !v->sim.stop; c++) {
            uint32_t id = sim_value(&v->sim, BUF_OUT, r, c);
            if (id == SIM_POISON) continue;
            Expect e = verify_expected_out(s, r, c);
            VIvl ev = {e.lo, e.hi};
            VView w;
            if (id != SIM_UNDEF) {
                view(v, id, &w);
                if (w.chunk == e.chunk && w.n == 1 && w.iv[0].lo == e.lo && w.iv[0].hi == e.hi)
                    continue; /* the common case, without formatting */
            }
            if (v->stream) {
                v->errors++;
                v->sim.stop = 1;
                return;
            }
            SBuf want = {0};
            sb_printf(&want, "{");
            sb_ranks(&want, &ev, 1);
            sb_printf(&want, " : c%" PRId64 "}", e.chunk);
            if (id == SIM_UNDEF) {
                /* Keyed on the name: one such error per instance, and the
                 * search for the nearest write runs only when it is shown. */
                if (count_error(v, "postcondition", s->alg->name_span))
                    report_never_written(v, r, c, sb_done(&want, v->arena));
                free(want.p);
                continue;
            }
            VIvl *miss = NULL, *extra = NULL;
            size_t nmiss = ivl_minus(&ev, 1, w.iv, w.n, &miss);
            size_t nextra = ivl_minus(w.iv, w.n, &ev, 1, &extra);
            if (w.chunk != e.chunk || nmiss || nextra) {
                size_t x = sim_last_writer(&v->sim, BUF_OUT, r, c);
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
            uint32_t id = sim_value(&v->sim, BUF_OUT, r, c);
            Expect e = verify_expected_out(s, r, c);
            if (id < SIM_FIRST && !(id & SIM_LEAF)) continue;
            if (first[e.chunk] < 0) { first[e.chunk] = (r << 32) | c; continue; }
            int64_t r0 = first[e.chunk] >> 32, c0 = first[e.chunk] & 0xffffffff;
            uint32_t id0 = sim_value(&v->sim, BUF_OUT, r0, c0);
            VView a, b;
            view(v, id0, &a);
            view(v, id, &b);
            result = 1;
            if (a.tree == b.tree) continue;
            result = 0;
            if (v->dxw) {
                size_t x = sim_last_writer(&v->sim, BUF_OUT, r, c);
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
                        Span sp = (w >= SIM_FIRST && !(w & SIM_LEAF)) ? s->xfers[v->vals[w].xfer].span
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

size_t verify_default_memory(void) {
    uint64_t m = UINT64_MAX;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) m = (uint64_t)pages * (uint64_t)page;
    const int limits[2] = {RLIMIT_AS, RLIMIT_DATA};
    for (int i = 0; i < 2; i++) {
        struct rlimit rl;
        if (!getrlimit(limits[i], &rl) && rl.rlim_cur != RLIM_INFINITY && (uint64_t)rl.rlim_cur < m)
            m = (uint64_t)rl.rlim_cur;
    }
    /* the rest of the process (the schedule's steps, the arena) needs some */
    m -= m / 8;
    return m > SIZE_MAX ? SIZE_MAX : (size_t)m;
}

/* "12 KiB", "3584 MiB" (rounded down), for the messages. */
static const char *fmt_bytes(Arena *arena, size_t bytes) {
    if (bytes < ((size_t)10 << 20)) return arena_printf(arena, "%zu KiB", bytes >> 10);
    return arena_printf(arena, "%zu MiB", bytes >> 20);
}

/* The verify-too-large error of a memory limit (OVER_SLOTS, OVER_MEMORY). */
static void report_memory(const VState *v, DiagEngine *dx, const Algorithm *alg) {
    if (!dx) return;
    if (v->overflow == OVER_SLOTS)
        diag_error(dx, alg->name_span, "verify-too-large",
                   "schedule of '%s' for N = %" PRId64 " is too large to verify: its %" PRIu64
                   " chunk slots need %s, over the memory budget of %s (--max-memory)",
                   alg->name, v->N, v->sim.nslots, fmt_bytes(v->arena, v->sim.slot_bytes),
                   fmt_bytes(v->arena, v->budget));
    else
        diag_error(dx, alg->name_span, "verify-too-large",
                   "schedule of '%s' for N = %" PRId64 " is too large to verify: its reduced "
                   "values need more than the memory budget of %s (--max-memory)",
                   alg->name, v->N, fmt_bytes(v->arena, v->budget));
}

static void vstate_init(VState *v, const Schedule *s, DiagEngine *dx, DiagEngine *dxw,
                        Arena *arena, unsigned max_errors, size_t max_memory) {
    memset(v, 0, sizeof *v);
    v->s = s; v->dx = dx; v->dxw = dxw; v->arena = arena;
    v->budget = max_memory ? max_memory : verify_default_memory();
    v->N = s->N;
    v->root = collective_info[s->alg->coll].rooted ? s->root : -1;
    v->max_errors = max_errors ? max_errors : VERIFY_DEFAULT_MAX_ERRORS;
    v->describe_budget = (size_t)8 << 20;
    v->merge_fault_xfer = SIZE_MAX;
}

/* Sets up the slots: 0, or -1 (verify-too-large, reported) when the
 * schedule cannot be simulated. */
static int vstate_start(VState *v, VerifyStats *st) {
    const Schedule *s = v->s;
    SimHooks hooks = {on_reduce, on_fault, v};
    int rc = sim_init_limited(&v->sim, s, &hooks, v->budget);
    if (rc == -2) {
        st->errors = 1;
        st->too_large = 1;
        v->overflow = OVER_SLOTS;
        report_memory(v, v->dx, s->alg);
        return -1;
    }
    if (rc) {
        st->errors = 1;
        st->too_large = 1;
        if (v->dx) {
            uint64_t nin = 0;
            for (int64_t r = 0; r < s->N; r++) nin += (uint64_t)schedule_chunks(s, BUF_IN, r);
            diag_error(v->dx, s->alg->name_span, "verify-too-large",
                       "schedule of '%s' for N = %" PRId64 " is too large to verify "
                       "(%" PRIu64 " input chunks, %zu transfers; limit 2^31 and 2^32)",
                       s->alg->name, s->N, nin, s->nxfers);
        }
        return -1;
    }
    v->capvals = 1024;
    v->vals = xmalloc(v->capvals * sizeof *v->vals);
    v->nvals = SIM_FIRST;
    return 0;
}

/* After the last step: the postcondition and rank consistency, the stats. */
static unsigned vstate_finish(VState *v, VerifyStats *st) {
    const Schedule *s = v->s;
    if (v->overflow) {
        v->errors++;
        if (v->overflow == OVER_MEMORY) report_memory(v, v->dx, s->alg);
        else if (v->dx)
            diag_error(v->dx, s->alg->name_span, "verify-too-large",
                       "schedule of '%s' for N = %" PRId64 " is too large to verify "
                       "(more than 2^31 reduced values)", s->alg->name, s->N);
    }
    if (!v->sim.stop) check_postcondition(v);
    if (!v->errors) st->consistent = check_consistency(v);
    st->errors = v->errors;
    st->too_large = v->overflow != 0;
    st->slots = v->sim.nslots;
    st->values = v->nvals - SIM_FIRST;
    st->intervals = v->nivl;
    return v->errors;
}

static void vstate_free(VState *v) {
    sim_free(&v->sim);
    free(v->vals); free(v->ivl); free(v->tmp);
    vblocks_free(v->vp);
}

static unsigned verify_schedule_v(const Schedule *s, DiagEngine *dx, DiagEngine *dxw,
                                  Arena *arena, unsigned max_errors, size_t max_memory,
                                  const int64_t *vcounts, VerifyStats *st) {
    VState v;
    vstate_init(&v, s, dx, dxw, arena, max_errors, max_memory);
    VerifyStats dummy;
    if (!st) st = &dummy;
    memset(st, 0, sizeof *st);
    st->consistent = -1;
    if (vstate_start(&v, st)) return 1;
    v.vcounts = vcounts;
    while (v.sim.next < s->nsteps && !v.sim.stop) {
        size_t k = v.sim.next;
        sim_step(&v.sim);
        if (vcounts && !v.sim.stop) check_vcounts(&v, k, s->xfers + s->steps[k].first);
    }
    unsigned errors = vstate_finish(&v, st);
    vstate_free(&v);
    return errors;
}

unsigned verify_schedule_limited(const Schedule *s, DiagEngine *dx, DiagEngine *dxw, Arena *arena,
                                 unsigned max_errors, size_t max_memory, VerifyStats *st) {
    return verify_schedule_v(s, dx, dxw, arena, max_errors, max_memory, NULL, st);
}

unsigned verify_schedule_ex(const Schedule *s, DiagEngine *dx, DiagEngine *dxw, Arena *arena,
                            unsigned max_errors, VerifyStats *st) {
    return verify_schedule_limited(s, dx, dxw, arena, max_errors, 0, st);
}

/* ------------------------------------------------------------ streaming */

typedef struct VStream {
    VState v;
    VerifyStats st;
    Arena *arena;
    unsigned max_errors;
    size_t max_memory;
    const int64_t *vcounts;
    int started;   /* vstate_start ran */
    int replay;    /* something to report, or a limit: verify it whole */
} VStream;

static int stream_step(void *user, const Schedule *hdr, const Transfer *xs) {
    VStream *w = user;
    if (!w->started) {
        vstate_init(&w->v, hdr, NULL, NULL, w->arena, w->max_errors, w->max_memory);
        w->v.stream = 1;
        w->v.vcounts = w->vcounts;
        w->started = 1;
        if (vstate_start(&w->v, &w->st)) return w->replay = 1;
        w->v.sim.streaming = 1;
    }
    /* the simulator's 32-bit transfer and step ids (sim_init's limits) */
    if (hdr->nxfers >= UINT32_MAX || hdr->nsteps >= UINT32_MAX) return w->replay = 1;
    size_t k = w->v.sim.next;
    sim_step_xfers(&w->v.sim, xs);
    if (w->vcounts && !w->v.sim.stop) check_vcounts(&w->v, k, xs);
    if (w->v.errors || w->v.sim.faulted || w->v.overflow) return w->replay = 1;
    return 0;
}

InstStatus verify_instance(const Algorithm *alg, const SchedParams *p, DiagEngine *dxi,
                           DiagEngine *dx, DiagEngine *dxw, Arena *arena, unsigned max_errors,
                           VerifyStats *st, const Stmt **failed_require) {
    /* The run-length pass proves a correct instance in little memory; the
     * explicit one below decides (and reports) everything else. */
    if (!p->vcounts) {
        size_t budget = p->max_memory ? p->max_memory : verify_default_memory();
        if (verify_orbit(alg, p, dxi, budget, st) == INST_OK && !(st->consistent == 0 && dxw))
            return INST_OK;
        InstStatus ist = verify_runs(alg, p, dxi, budget, st, failed_require);
        st->method = VERIFY_BY_RUNS;
        if (ist == INST_OK && !(st->consistent == 0 && dxw)) return INST_OK;
        if (ist != INST_OK && ist != INST_STOPPED) return ist;
    }
    memset(st, 0, sizeof *st);
    st->consistent = -1;
    VStream *w = xcalloc(1, sizeof *w);
    w->arena = arena;
    w->max_errors = max_errors;
    w->max_memory = p->max_memory;
    w->vcounts = p->vcounts;
    w->st.consistent = -1;
    Schedule sch;
    InstStatus ist = instantiate_stream(alg, p, dxi, &sch, failed_require, stream_step, w);
    if (ist == INST_OK) {
        if (!w->started) {
            /* no step: the postcondition alone */
            vstate_init(&w->v, &sch, NULL, NULL, arena, max_errors, w->max_memory);
            w->v.stream = 1;
            w->started = 1;
            if (vstate_start(&w->v, &w->st)) w->replay = 1;
        }
        if (!w->replay) {
            /* the steps are kept; the header the steps saw is gone */
            w->v.s = &sch;
            w->v.sim.s = &sch;
            w->v.arena = arena;
            vstate_finish(&w->v, &w->st);
            /* the warning names transfers: replay to report it */
            w->replay = w->st.errors || (w->st.consistent == 0 && dxw);
        }
        if (!w->replay) *st = w->st;
        schedule_free(&sch);
    }
    /* A memory limit is reported as it is: replaying the instance whole
     * would only need more memory (the schedule's transfers on top). */
    int mem = w->started && (w->v.overflow == OVER_SLOTS || w->v.overflow == OVER_MEMORY);
    if (mem) {
        report_memory(&w->v, dx, alg);
        st->errors = 1;
        st->too_large = 1;
        st->slots = w->v.sim.nslots;
    }
    if (w->started) vstate_free(&w->v);
    int replay = !mem && (ist == INST_STOPPED || (ist == INST_OK && w->replay));
    free(w);
    if (mem) return INST_OK;
    if (!replay) return ist;

    ist = instantiate(alg, p, dxi, &sch, failed_require);
    if (ist != INST_OK) return ist;
    verify_schedule_v(&sch, dx, dxw, arena, max_errors, p->max_memory, p->vcounts, st);
    schedule_free(&sch);
    return INST_OK;
}

unsigned verify_schedule(const Schedule *s, DiagEngine *dx, Arena *arena,
                         unsigned max_errors, VerifyStats *st) {
    return verify_schedule_ex(s, dx, dx, arena, max_errors, st);
}
