/* vblocks.h - blocks of different sizes (the v-collectives) on the Schedule
 * IR: which piece (position k of block b) every chunk slot holds as the
 * schedule runs, under the rule the runtime applies to a call of per-block
 * counts (runtime/vblocks.c, docs/runtime.md 3b): a slot holds one piece
 * for the whole call, an input or output slot its own block's, and every
 * transfer moves ranges of equal pieces. The rule does not depend on the
 * counts; it is what `collc compile` records in the object
 * (COLL_ALG_VBLOCKS) and what `collc verify --vcounts` reports
 * (vcount-block), with the runtime's words for why (coll_vblocks.h). */
#ifndef COLLC_VBLOCKS_H
#define COLLC_VBLOCKS_H

#include <stdint.h>
#include "schedule/schedule.h"

typedef struct VPiece { int32_t blk, pos; } VPiece;   /* blk < 0: none (yet) */

/* The pieces of every slot of every rank of one instance. */
typedef struct VBlocks VBlocks;

/* A transfer that breaks the rule: its chunk j (0 = src.lo / dst.lo), the
 * piece it moves (have), the one the destination holds (want), and why. */
typedef struct VBlocksFault {
    int32_t j;
    VPiece have, want;
    const char *why;
} VBlocksFault;

/* 1 when the collective has a v-form (allgather, gather, scatter, alltoall,
 * reduce_scatter). */
int vblocks_collective(Collective coll);
/* The slots of schedule `s` (its header suffices: chunks per buffer),
 * inputs and outputs holding their own pieces, scratch none; NULL when
 * they would take more than max_bytes, or block ids do not fit 31 bits. */
VBlocks *vblocks_new(const Schedule *s, size_t max_bytes);
void vblocks_free(VBlocks *b);
/* Applies transfer t (in step order): 1 when it keeps the rule, else 0
 * with *f (the slot is then left out of the rest of the run). A source
 * slot without a piece is left to the verifier. */
int vblocks_apply(VBlocks *b, const Transfer *t, VBlocksFault *f);
/* The piece slot c of rank's input (buf BUF_IN) or output (BUF_OUT) holds
 * for the whole call: its own block's. */
VPiece vblocks_own(const Schedule *s, int buf, int64_t rank, int64_t c);

/* Whether `alg` (with -D values defs) keeps its chunks to their blocks
 * for every N of ns (NULL: verify's default set) and every root verify
 * checks: 1 yes; 0 no, with why and the first failing N and step in *why
 * (in arena); -1 when no instance applies or the collective has no v-form.
 * Instances are made silently (sm: their sources). */
int vblocks_algorithm(const Algorithm *alg, const int64_t *ns, size_t nns, const Define *defs,
                      int ndefs, SourceManager *sm, Arena *arena, const char **why);

#endif
