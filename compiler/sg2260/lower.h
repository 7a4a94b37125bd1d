/* lower.h - the SG2260 lowering: the Schedule IR of one algorithm for a
 * fixed N -> per-chip descriptor programs: one per CDMA port, one GDMA, one
 * VSDMA per core (docs/sg2260.md "Backend").
 *
 * Layering: this folder consumes a concrete Schedule (schedule/), so it
 * cannot live in lower/ (the Rank IR, generic in N, which never uses
 * schedule/). It uses schedule/, support/ and the descriptor library of
 * targets/sg2260 (sg2260.h) and nothing else of the compiler; emit/ (the
 * writers in emit_sg2260.c) and driver/ use it.
 *
 * The pass takes one instantiated schedule, a rank -> chip mapping on a
 * machine and the element count/dtype/op, and runs in stages (one file
 * each):
 *   layout.c    every buffer at the same DDR address on every chip: `in`,
 *               `out`, the scratch buffers in declaration order, then the
 *               staging area of routed transfers, from SG2260_LAYOUT_BASE
 *               up, each region aligned;
 *   messages.c  every step's link messages: a transfer between ranks on
 *               linked chips is a SEND on the sender's port and a RECV on the
 *               receiver's port at the far end of the same link, split over
 *               parallel links in proportion to their rates; between chips
 *               that share no link it is rejected with "sg2260-no-link" (one
 *               diagnostic per statement), or with store_forward routed along
 *               the machine's shortest path through staging areas of the
 *               intermediate chips, in segments so that the hops overlap;
 *               rank-local transfers are collected chunk by chunk;
 *   staging.c   reductions through L2 SRAM as SCCL does them: a reducing
 *               RECV lands in an L2 slot that the GDMA filled with the
 *               destination chunk before and copies back after; a rank-local
 *               reduction is three GDMA commands through a slot;
 *   copies.c    the rank-local copies as COPY on the chip's VSDMA engines;
 *               with sink_local a chunk may move to a later step (up to the
 *               first later access that conflicts with it) where it hides
 *               behind that step's link traffic;
 *   barriers.c  between two consecutive steps p < s in which a chip works,
 *               a barrier: every engine side that worked in p sends a
 *               message to each side that works in s, which waits for all
 *               of them;
 *   programs.c  the descriptors, step by step, with a note (step, source
 *               line, peer chip, the transfer) for each, and SYS END on
 *               every program;
 *   lower.c     runs the stages and counts the statistics. */
#ifndef COLLC_SG2260_LOWER_H
#define COLLC_SG2260_LOWER_H

#include <stdint.h>
#include "schedule/schedule.h"
#include "sg2260.h"

#define SG2260_LAYOUT_BASE UINT64_C(0x10000)

/* Message ids (the same on every chip; ids are per chip):
 *   2k, 2k+1                the step-barrier inbox of engine side k
 *                           (barriers.c), alternating between barriers
 *   FWD + 11q + p           a routed hop arriving on port q leaves by port p
 *   STAGED + p              GDMA -> the RX side of port p: an L2 slot is
 *                           filled, post the reducing RECV
 *   REDUCED + p             the RX side of port p -> GDMA: the reduction has
 *                           landed in its L2 slot
 * Each of the last three is sent for one waiter and waited for once, in the
 * same order on both sides. */
#define SG2260_MSG_BARRIER 0
#define SG2260_MSG_FWD 64
#define SG2260_MSG_STAGED 192
#define SG2260_MSG_REDUCED 208
/* Every program runs with base message id 0 (what the firmware restores
 * after a launch), and the ids stay below the runtime's reserved 384-511. */
_Static_assert(SG2260_MSG_REDUCED + SG2260_MAX_PORTS <= SG2260_MSG_RESERVED, "message ids reach the reserved ones");

/* Store-and-forward moves a routed message in segments of at least this
 * many bytes, at most SG2260_ROUTE_SEGMENTS of them, so that the hops
 * overlap (each segment costs one start-up and one sync per hop). */
#define SG2260_ROUTE_SEGMENT_MIN (UINT64_C(1) << 20)
#define SG2260_ROUTE_SEGMENTS 8

typedef struct Sg2260LowerOptions {
    const Sg2260Machine *machine;
    const int *chips;        /* [N]: chip of each rank (distinct) */
    uint64_t count;          /* elements per block (MPI's count) */
    Sg2260Dtype dtype;
    Sg2260Op op;             /* applied by reduce transfers */
    int store_forward;       /* route transfers between unlinked chips */
    int sink_local;          /* move local copies to later steps where they
                                hide behind link traffic (copies.c) */
    uint64_t align;          /* alignment of regions and pieces (>= 128, a
                                power of two; 0 = 128); a sampled simulation
                                uses its sampling stride */
    SourceManager *sources;  /* for the source lines of the notes (may be NULL) */
} Sg2260LowerOptions;

/* Where the buffers live (same address on every chip). */
typedef struct Sg2260Layout {
    int nbuffers;
    uint64_t base[64];       /* [nbuffers] start address of each buffer */
    uint64_t bytes[64];      /* [nbuffers] size (largest over the ranks) */
    uint64_t staging, staging_bytes;  /* DDR staging of routed transfers */
    uint64_t l2_bytes;       /* L2 SRAM used for reductions (from l2:0) */
    uint64_t end;            /* first DDR byte after the layout */
} Sg2260Layout;

typedef struct Sg2260LowerStats {
    size_t link_msgs;        /* SEND/RECV pairs (routed hops counted apart) */
    size_t routed;           /* transfers that were store-and-forwarded */
    size_t copies;           /* local COPY descriptors (VSDMA) */
    size_t sunk;             /* local chunks moved to a later step */
    size_t staged;           /* reductions staged through L2 (link and local) */
    size_t barriers;         /* per-chip step barriers */
    size_t descs;            /* descriptors in all programs */
    size_t local_steps;      /* steps with local work only (no link traffic) */
    size_t max_link_msgs;    /* most messages on one link direction in one step */
    size_t local_exposed;    /* steps whose local copies outlast their link traffic */
    size_t parallel;         /* messages split over parallel links */
    int programs;            /* descriptor programs */
    int cdma_programs, gdma_programs, vsdma_programs;
} Sg2260LowerStats;

/* Element offset of chunk c in its buffer for `count` elements per block. */
uint64_t sg2260_chunk_elem_offset(const Schedule *s, uint64_t count, int64_t c);

/* Lowers s into *b (empty on entry). Errors (unroutable transfer, misaligned
 * reduction, a descriptor breaking a static rule) are reported through dx at
 * the transfer's span with a note naming N and the loop variables. Returns
 * 0, or -1 after reporting. The notes of b's programs point into arena. */
int sg2260_lower(const Schedule *s, const Sg2260LowerOptions *o, DiagEngine *dx, Arena *arena,
                 Sg2260Bundle *b, Sg2260Layout *lay, Sg2260LowerStats *st);

#endif
