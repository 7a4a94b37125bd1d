/* coll_vblocks.h - the rules of blocks of different sizes (v-collectives)
 * that the runtime (runtime/vblocks.c, chunk.c) and collc's verifier
 * (`collc verify --vcounts`, compiler/analysis/verify.c) both apply, so
 * that what is proven is what runs: the length of a chunk, the block each
 * input and output chunk holds, the rule of a transfer's slots, and why a
 * program cannot serve per-block counts. Not installed: generated code does not use it. */
#ifndef COLL_VBLOCKS_H
#define COLL_VBLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "coll.h"

/* Elements of position k of a block of `count` elements cut in P chunks:
 * count / P, one more for the first count % P positions. */
static inline size_t coll_piece_len(size_t count, size_t P, size_t k) {
    return count / P + (k < count % P ? 1 : 0);
}

/* The block id that chunk slots of block `blk` of rank r's input (in) or
 * output (!in) hold before and after the call: rank r's block is r, an
 * alltoall's block from s to d is s * N + d. -1: the collective has no
 * v-form. */
static inline int64_t coll_vblock_natural(coll_collective coll, int64_t N, int64_t r, bool in,
                                          int64_t blk) {
    switch (coll) {
    case COLL_ALLGATHER:
    case COLL_GATHER: return in ? r : blk;
    case COLL_SCATTER:
    case COLL_REDUCE_SCATTER: return in ? blk : r;
    case COLL_ALLTOALL: return in ? r * N + blk : blk * N + r;
    default: return -1;
    }
}

/* Why a program does not keep its chunks to their blocks: the runtime's
 * verdict (collrt_vmap_build) and the verifier's diagnostic say the same. */
#define COLL_VBLOCKS_WHY_MIXED "a chunk holds different blocks in turn"
#define COLL_VBLOCKS_WHY_REDUCE "reduces chunks of different blocks"

/* The rule of one chunk slot, which holds one piece (position *pos of
 * block *blk; *blk < 0: none yet) for the whole call, receiving piece
 * (blk, pos) by a copy or a reduce: NULL when the rule holds (a copy into
 * a slot without a piece gives it that one), else why. A reduce into a
 * slot without a piece reads undefined data: the caller's finding, not
 * this rule's; the slot is left as it is. */
static inline const char *coll_vblock_write(bool reduce, int64_t *dblk, int64_t *dpos, int64_t blk,
                                            int64_t pos) {
    if (*dblk < 0) {
        if (!reduce) {
            *dblk = blk;
            *dpos = pos;
        }
        return NULL;
    }
    if (*dblk == blk && *dpos == pos) return NULL;
    return reduce ? COLL_VBLOCKS_WHY_REDUCE : COLL_VBLOCKS_WHY_MIXED;
}

#endif
