/* split_reduces.c - one reduce per destination chunk and step (schedule.h:
 * schedule_split_reduces).
 *
 * The language lets several reduces combine into one chunk in one step (a
 * parent taking its children's partial sums at once). An engine whose
 * reducing writes are read-modify-write commands in flight side by side
 * (the SG2260 CDMA engine) cannot run two of them on one destination at
 * once. This pass gives every such step sub-steps: the k-th reduce into a
 * chunk goes to the step's k-th sub-step, everything else stays in the
 * first. That is the same computation: no transfer of a race-free step
 * writes a slot another one reads, so a moved reduce still reads what it
 * read, and the reduces into one chunk still combine, one after another. */
#include <stdlib.h>
#include <string.h>
#include "schedule/schedule.h"
#include "support/util.h"

/* Reduces seen per destination chunk in the current step: open addressing
 * over (rank, buffer, chunk), cleared by generation. */
typedef struct SlotKey { int32_t rank, chunk; uint16_t buffer; } SlotKey;
typedef struct Seen {
    SlotKey *key;
    uint32_t *count, *gen;
    size_t cap;   /* a power of two */
    uint32_t cur;
} Seen;

static SlotKey slot_key(const SlotRange *r, int32_t c) {
    return (SlotKey){r->rank, c, r->buffer};
}

static uint32_t *seen_at(Seen *t, SlotKey k) {
    uint64_t x = ((uint64_t)(uint32_t)k.rank << 32 | (uint32_t)k.chunk) ^ ((uint64_t)k.buffer << 21);
    size_t h = (size_t)((x * 0x9E3779B97F4A7C15ull) >> 20) & (t->cap - 1);
    for (;; h = (h + 1) & (t->cap - 1)) {
        if (t->gen[h] != t->cur) {
            t->gen[h] = t->cur;
            t->key[h] = k;
            t->count[h] = 0;
            return &t->count[h];
        }
        if (t->key[h].rank == k.rank && t->key[h].chunk == k.chunk && t->key[h].buffer == k.buffer)
            return &t->count[h];
    }
}

static void seen_reserve(Seen *t, size_t n) {
    if (2 * n < t->cap) return;
    size_t cap = 64;
    while (cap <= 2 * n) cap *= 2;
    free(t->key);
    free(t->count);
    free(t->gen);
    t->key = xcalloc(cap, sizeof *t->key);
    t->count = xcalloc(cap, sizeof *t->count);
    t->gen = xcalloc(cap, sizeof *t->gen);
    t->cap = cap;
    t->cur = 0;
}

size_t schedule_split_reduces(Schedule *s) {
    uint32_t *level = xcalloc(s->nxfers ? s->nxfers : 1, sizeof *level);
    uint32_t *nsub = xcalloc(s->nsteps ? s->nsteps : 1, sizeof *nsub);
    Seen t = {0};
    size_t extra = 0;
    for (size_t k = 0; k < s->nsteps; k++) {
        const Step *st = &s->steps[k];
        size_t chunks = 0;
        for (size_t x = st->first; x < st->first + st->count; x++)
            if (s->xfers[x].op == XFER_REDUCE) chunks += (size_t)(s->xfers[x].dst.hi - s->xfers[x].dst.lo);
        nsub[k] = 1;
        if (chunks < 2) continue;
        seen_reserve(&t, chunks);
        t.cur++;
        for (size_t x = st->first; x < st->first + st->count; x++) {
            const Transfer *tr = &s->xfers[x];
            if (tr->op != XFER_REDUCE) continue;
            uint32_t lv = 0;
            for (int32_t c = tr->dst.lo; c < tr->dst.hi; c++) {
                uint32_t *n = seen_at(&t, slot_key(&tr->dst, c));
                if (*n > lv) lv = *n;
            }
            for (int32_t c = tr->dst.lo; c < tr->dst.hi; c++) *seen_at(&t, slot_key(&tr->dst, c)) = lv + 1;
            level[x] = lv;
            if (lv + 1 > nsub[k]) nsub[k] = lv + 1;
        }
        extra += nsub[k] - 1;
    }
    free(t.key);
    free(t.count);
    free(t.gen);
    if (extra) {
        Transfer *xf = xmalloc(s->nxfers * sizeof *xf);
        Step *steps = xmalloc((s->nsteps + extra) * sizeof *steps);
        size_t nx = 0, ns = 0;
        for (size_t k = 0; k < s->nsteps; k++) {
            const Step *st = &s->steps[k];
            for (uint32_t lv = 0; lv < nsub[k]; lv++) {
                Step *o = &steps[ns++];
                o->first = nx;
                o->span = st->span;
                for (size_t x = st->first; x < st->first + st->count; x++)
                    if (level[x] == lv) xf[nx++] = s->xfers[x];
                o->count = nx - o->first;
            }
        }
        free(s->xfers);
        free(s->steps);
        s->xfers = xf;
        s->steps = steps;
        s->nsteps = ns;
    }
    free(level);
    free(nsub);
    return extra;
}
