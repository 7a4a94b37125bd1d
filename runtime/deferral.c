/* deferral.c - deferred copies of `in` chunks.
 *
 * With COLL_ALG_CHUNK_CALLS_ONLY, `coll_copy(in[s..] -> X[d..])` (X = out or
 * a scratch buffer) only marks the X chunks pending (value: the in chunk
 * delta = s - d away; one delta per buffer at a time). Before any other
 * chunk-level call touches X[a, b):
 *   - a read (send, copy or reduce source) of a range that is all pending
 *     reads `in` instead; of a partly pending range, first materialises it;
 *   - an overwrite (receive, copy or receive-reduce-copy destination) clears
 *     the bits: the copy never has to happen;
 *   - a read-modify-write (receive-reduce, reduce destination) of an all
 *     pending range becomes dst := in (+) x in one pass (the fusion of the
 *     copy with the reduce), of a partly pending range materialises first.
 * Materialising writes X chunks that nobody else can be reading (sends of
 * pending chunks went out of `in`), synchronously at post time, so it never
 * races with the step's posted operations (race-free schedules do not read
 * and write one chunk in one step). Whatever is still pending in `out` at
 * the end is copied by collrt_defer_flush; pending scratch chunks are
 * dropped (a scratch chunk that is only ever sent costs no copy at all). */
#include <string.h>
#include "collrt_internal.h"

/* Deferred copies need the chunk level, and separate in and out memory. */
static bool defer_possible(const collrt_call *c) {
    return collrt_chunk_level(c) && c->in_blocks && c->count && !c->in_place;
}

/* Copies into `out` are deferred only for reducing collectives, where they
 * usually fuse with a reduction; elsewhere they are almost always final,
 * and done at once they overlap the step's communication instead of
 * running after the last step. Scratch copies are deferred for all. */
bool collrt_defers_into(const collrt_call *c, int buf) {
    return defer_possible(c) && c->chunks[buf] && (buf != COLL_BUF_OUT || c->kern);
}

static bool pending_bit(const collrt_call *c, int buf, int64_t d) {
    return collrt_bit(c->defer[buf].bits, d);
}

static void set_pending(collrt_call *c, int buf, int64_t d, bool on) {
    collrt_deferred *x = &c->defer[buf];
    bool was = collrt_bit(x->bits, d);
    if (on && !was) {
        x->bits[d >> 3] |= (unsigned char)(1u << (d & 7));
        x->n++;
        c->npending++;
    } else if (!on && was) {
        x->bits[d >> 3] &= (unsigned char)~(1u << (d & 7));
        x->n--;
        c->npending--;
    }
}

/* Whether buf may have pending chunks (a valid deferral target). */
static bool deferring(const collrt_call *c, int buf) {
    return c->npending && buf > COLL_BUF_IN && buf < c->nbufs && c->defer[buf].n;
}

/* How many of buf's chunks [lo, hi) are pending. */
static int64_t pending_in(const collrt_call *c, int buf, int64_t lo, int64_t hi) {
    if (!deferring(c, buf)) return 0;
    int64_t n = 0;
    for (int64_t d = lo; d < hi; d++) n += pending_bit(c, buf, d);
    return n;
}

/* Copies the pending chunks of buf[lo, hi) from `in`, one memcpy per run
 * of consecutive pending chunks (a run is contiguous on both sides: one
 * delta per buffer). */
static void materialise(collrt_call *c, int buf, int64_t lo, int64_t hi) {
    int64_t delta = c->defer[buf].delta;
    for (int64_t d = lo; d < hi; d++) {
        if (!pending_bit(c, buf, d)) continue;
        int64_t e = d + 1;
        while (e < hi && pending_bit(c, buf, e)) e++;
        char *dp, *sp;
        size_t dn, sn;
        if (!collrt_range(c, buf, d, e, &dp, &dn) ||
            !collrt_range(c, COLL_BUF_IN, d + delta, e + delta, &sp, &sn))
            return;
        if (dn && c->before_write) c->before_write(c, dp, dn);
        if (dn) memcpy(dp, sp, dn);
        if (dn && c->trace_rec) collrt_trace_note(c, 0, 0, dp, sp, dn);
        for (; d < e; d++) set_pending(c, buf, d, false);
    }
}

void collrt_deferred_clear(collrt_call *c, int buf, int64_t lo, int64_t hi) {
    if (!deferring(c, buf)) return;
    for (int64_t d = lo; d < hi; d++) set_pending(c, buf, d, false);
}

/* collrt_read_source when something is pending. Out-of-range arguments are
 * left for collrt_range to reject. */
int collrt_deferred_read_source(collrt_call *c, int buf, int64_t *lo, int64_t n) {
    if (!deferring(c, buf) || n <= 0 || *lo < 0 || *lo > c->chunks[buf] - n) return buf;
    int64_t p = pending_in(c, buf, *lo, *lo + n);
    if (p == n) {
        *lo += c->defer[buf].delta;
        return COLL_BUF_IN;
    }
    if (p) materialise(c, buf, *lo, *lo + n);
    return buf;
}

/* collrt_fused_operand when something is pending. */
const char *collrt_deferred_fused_operand(collrt_call *c, int dbuf, int64_t lo, int64_t n,
                                          size_t bytes) {
    int64_t pend = pending_in(c, dbuf, lo, lo + n);
    if (!pend) return NULL;
    char *ip;
    size_t in_n;
    int64_t delta = c->defer[dbuf].delta;
    if (pend == n && collrt_range(c, COLL_BUF_IN, lo + delta, lo + n + delta, &ip, &in_n) &&
        in_n == bytes) {
        collrt_deferred_clear(c, dbuf, lo, lo + n);
        return ip;
    }
    materialise(c, dbuf, lo, lo + n);
    return NULL;
}

/* collrt_defer_copy into a buffer with a bitmap. */
bool collrt_deferred_copy(collrt_call *c, int64_t slo, int dbuf, int64_t dlo, int64_t n) {
    if (n <= 0) return false;
    if (slo < 0 || dlo < 0 || slo + n > c->chunks[COLL_BUF_IN] || dlo + n > c->chunks[dbuf])
        return false;
    collrt_deferred *x = &c->defer[dbuf];
    int64_t delta = slo - dlo;
    if (x->n && delta != x->delta) return false; /* one mapping at a time */
    /* positions must agree so that chunk sizes match (chunk position rule) */
    if (((slo % c->split) + c->split) % c->split != ((dlo % c->split) + c->split) % c->split) return false;
    x->delta = delta;
    for (int64_t d = dlo; d < dlo + n; d++) set_pending(c, dbuf, d, true);
    return true;
}

void collrt_defer_flush(collrt_call *c) {
    if (c->replay) {   /* the copies the recording call made here */
        collrt_trace_flush(c);
        return;
    }
    if (deferring(c, COLL_BUF_OUT)) materialise(c, COLL_BUF_OUT, 0, c->chunks[COLL_BUF_OUT]);
}
