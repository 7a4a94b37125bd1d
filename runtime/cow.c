/* cow.c - copy-on-write of at-risk in-place input.
 *
 * In an in-place call of a program that is not COLL_ALG_INPLACE_SAFE, in
 * chunk i and out chunk i + cow_shift are the same memory, and the program
 * may read in chunk i after writing that out chunk. Instead of copying the
 * whole input to private memory up front, the runtime saves in chunk i just
 * before the first write to its memory is posted (writes complete later, in
 * the step: the memory still holds the input when it is posted) and reads
 * it from the save area from then on. Identity copies (in chunk i -> out
 * chunk i + cow_shift) stay free, so a broadcast root or an in-place gather
 * moves nothing locally.
 *
 * One hazard remains: a read of in chunk i from its own memory posted
 * earlier in the SAME step (a send, or a local operation that runs at step
 * end) may still be in flight when the write is posted. Such a write is
 * redirected to the redirect area and copied to its place by
 * collrt_step_done, once every operation of the step has completed. Reads
 * record their step (cow_read) to detect it. */
#include <string.h>
#include "collrt_internal.h"

bool collrt_input_at_risk(const collrt_call *c) {
    return c->in_place && !(c->info->flags & COLL_ALG_INPLACE_SAFE) && c->in_blocks;
}

/* At-risk input: copied on write when the runtime sees every transfer, else
 * copied to private memory up front. */
bool collrt_cow_wanted(const collrt_call *c) { return collrt_input_at_risk(c) && collrt_chunk_level(c); }
bool collrt_input_copy_wanted(const collrt_call *c) {
    return collrt_input_at_risk(c) && !collrt_chunk_level(c);
}

/* Saves in chunks [lo, hi) not saved yet. */
static void cow_save(collrt_call *c, int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; i++) {
        if (collrt_bit(c->cow_saved, i)) continue;
        size_t a = coll_chunk_offset(c->count, c->split, i) * c->esz;
        size_t n = coll_chunk_len(c->count, c->split, i) * c->esz;
        if (n) memcpy(c->cow_save + a, c->base[COLL_BUF_IN] + a, n);
        c->cow_saved[i >> 3] |= (unsigned char)(1u << (i & 7));
    }
}

/* collrt_cow_read of in[lo, hi), lo < hi, in a copy-on-write call. */
const char *collrt_cow_read_at(collrt_call *c, int64_t lo, int64_t hi, const char *p) {
    bool saved = false;
    for (int64_t i = lo; i < hi && !saved; i++) saved = collrt_bit(c->cow_saved, i);
    if (saved) {
        cow_save(c, lo, hi); /* the rest is still intact in its own memory */
        return c->cow_save + (p - c->base[COLL_BUF_IN]);
    }
    for (int64_t i = lo; i < hi; i++) c->cow_read[i] = c->step;
    return p;
}

/* collrt_cow_write of out[lo, hi), lo < hi, in a copy-on-write call. */
char *collrt_cow_write_at(collrt_call *c, int64_t lo, int64_t hi, char *p) {
    int64_t ilo = lo - c->cow_shift, ihi = hi - c->cow_shift;
    if (ilo < 0) ilo = 0;
    if (ihi > c->chunks[COLL_BUF_IN]) ihi = c->chunks[COLL_BUF_IN];
    if (ilo >= ihi) return p;
    bool busy = false;
    for (int64_t i = ilo; i < ihi; i++) busy |= c->cow_read[i] == c->step;
    cow_save(c, ilo, ihi);
    if (!busy) return p;
    /* several reduces into one range in a step redirect it once */
    for (int64_t k = 0; k < c->ncow_fix; k++)
        if (c->cow_fix[2 * k] == lo && c->cow_fix[2 * k + 1] == hi)
            return c->cow_tmp + (p - c->base[COLL_BUF_OUT]);
    /* One range per out chunk at most in a race-free step; a schedule that
     * writes a chunk twice in one step (compiled with --no-verify) must not
     * overrun the list. */
    if (c->ncow_fix >= c->chunks[COLL_BUF_OUT]) {
        collrt_fail(c, COLL_ERR_INTERNAL);
        return p;
    }
    c->cow_fix[2 * c->ncow_fix] = lo;
    c->cow_fix[2 * c->ncow_fix + 1] = hi;
    c->ncow_fix++;
    return c->cow_tmp + (p - c->base[COLL_BUF_OUT]);
}

/* collrt_cow_intact of in[lo, hi) in a copy-on-write call. */
bool collrt_cow_intact_at(const collrt_call *c, int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; i++)
        if (collrt_bit(c->cow_saved, i)) return false;
    return true;
}

void collrt_cow_land(collrt_call *c) {
    for (int64_t k = 0; k < c->ncow_fix; k++) {
        char *p;
        size_t n;
        if (!collrt_range(c, COLL_BUF_OUT, c->cow_fix[2 * k], c->cow_fix[2 * k + 1], &p, &n)) break;
        if (n) memcpy(p, c->cow_tmp + (p - c->base[COLL_BUF_OUT]), n);
    }
    c->ncow_fix = 0;
}
