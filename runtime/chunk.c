/* chunk.c - chunk geometry (coll_chunk_offset, coll_chunk_len), the byte
 * range of a chunk range of a call's buffer, and the queries on a call. */
#include <stdint.h>
#include "collrt_internal.h"
#include "coll_vblocks.h"

size_t coll_chunk_offset(size_t count, int64_t split, int64_t c) {
    if (split == 1 && c >= 0) return (size_t)c * count;
    if (split < 1 || c < 0) return 0;
    size_t P = (size_t)split, cc = (size_t)c;
    size_t block = cc / P, k = cc % P;
    size_t q = count / P, r = count % P;
    return block * count + k * q + (k < r ? k : r);
}

size_t coll_chunk_len(size_t count, int64_t split, int64_t c) {
    if (split == 1 && c >= 0) return count;
    if (split < 1 || c < 0) return 0;
    return coll_piece_len(count, (size_t)split, (size_t)c % (size_t)split);
}

bool collrt_range_split(collrt_call *c, int buf, int64_t lo, int64_t hi, char **ptr,
                        size_t *bytes) {
    if (c->split < 1 || buf < 0 || buf >= c->nbufs || lo < 0 || lo > hi ||
        hi > c->chunks[buf] || (c->vg && (buf >= c->vg->nbufs || hi > c->vg->chunks[buf]))) {
        collrt_fail(c, COLL_ERR_INTERNAL);
        return false;
    }
    if (c->vg) {
        const size_t *off = c->vg->off[buf];
        *bytes = (off[hi] - off[lo]) * c->esz;
        *ptr = *bytes ? c->base[buf] + off[lo] * c->esz : NULL;
        return true;
    }
    size_t a = coll_chunk_offset(c->count, c->split, lo);
    size_t b = coll_chunk_offset(c->count, c->split, hi);
    *bytes = (b - a) * c->esz;
    *ptr = *bytes ? c->base[buf] + a * c->esz : NULL;
    return true;
}

/* ---- queries ---- */

void *coll_buf_ptr(const coll_call *call, int buf) {
    const collrt_call *c = COLLRT_CONST_CALL(call);
    return buf >= 0 && buf < c->nbufs ? c->base[buf] : NULL;
}

int64_t coll_buf_chunks(const coll_call *call, int buf) {
    const collrt_call *c = COLLRT_CONST_CALL(call);
    return buf >= 0 && buf < c->nbufs ? c->chunks[buf] : 0;
}

size_t coll_call_count(const coll_call *call) {
    return COLLRT_CONST_CALL(call)->count;
}

size_t coll_call_elem_size(const coll_call *call) {
    return COLLRT_CONST_CALL(call)->esz;
}

int coll_call_in_place(const coll_call *call) {
    return COLLRT_CONST_CALL(call)->in_place;
}
