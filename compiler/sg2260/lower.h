/* lower.h - the SG2260 lowering: the Schedule IR of one algorithm for a
 * fixed N -> per-chip, per-port CDMA descriptor programs (docs/sg2260.md
 * "Backend").
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
 *   layout.c    every buffer at the same address on every chip: `in`,
 *               `out`, the scratch buffers in declaration order, then the
 *               staging area, from SG2260_LAYOUT_BASE up, each region
 *               128-byte aligned;
 *   messages.c  every step's link messages: a transfer between ranks on
 *               linked chips is a SEND on the sender's port to the receiver
 *               (psum=wr for a reduce) and a RECV on the receiver's port
 *               carrying the destination, shape and reduce op; between
 *               chips that share no link it is rejected with
 *               "sg2260-no-link", or with store_forward routed along the
 *               machine's shortest path through staging areas of the
 *               intermediate chips (each intermediate RX signals the
 *               arrival, its TX waits for it, then SENDs), in segments so
 *               that the hops overlap; rank-local transfers are collected
 *               chunk by chunk;
 *   copies.c    the rank-local transfers as GENERAL (p2p copy, op for a
 *               reduce) on the chip's least loaded TX channel; with
 *               sink_local a chunk may move to a later step (up to the first
 *               later access that conflicts with it) where it hides behind
 *               that step's link traffic;
 *   barriers.c  between two consecutive steps p < s in which a chip works,
 *               a barrier: each of its channels that worked in p signals
 *               (SYS *_SEND_MSG) each one that works in s, which waits for
 *               all of them (*_WAIT_MSG): a step's reads see the previous
 *               steps' writes, and its writes (RECV credits are only posted
 *               after the barrier) cannot overtake their reads;
 *   programs.c  the descriptors, step by step (barrier, link messages, local
 *               copies), and SYS END on every channel;
 *   lower.c     runs the stages and counts the statistics. */
#ifndef COLLC_SG2260_LOWER_H
#define COLLC_SG2260_LOWER_H

#include <stdint.h>
#include "schedule/schedule.h"
#include "sg2260.h"

#define SG2260_LAYOUT_BASE UINT64_C(0x10000)

/* Message ids: the barrier inboxes of channel k = 2*port + (0 TX, 1 RX) are
 * 2k and 2k+1 (even and odd barriers); the
 * forwarding message of a routed transfer arriving on port q and leaving on
 * port p is SG2260_FWD_MSG_BASE + 8q + p. */
#define SG2260_FWD_MSG_BASE 64

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
} Sg2260LowerOptions;

/* Where the buffers live (same address on every chip). */
typedef struct Sg2260Layout {
    int nbuffers;
    uint64_t base[64];       /* [nbuffers] start address of each buffer */
    uint64_t bytes[64];      /* [nbuffers] size (largest over the ranks) */
    uint64_t staging, staging_bytes;
    uint64_t end;            /* first byte after the layout */
} Sg2260Layout;

typedef struct Sg2260LowerStats {
    size_t link_msgs;        /* SEND/RECV pairs (routed hops counted apart) */
    size_t routed;           /* transfers that were store-and-forwarded */
    size_t generals;         /* local copies */
    size_t sunk;             /* local transfers moved to a later step */
    size_t barriers;         /* per-chip step barriers */
    size_t descs;            /* descriptors in all programs */
    size_t local_steps;      /* steps with local copies only (no link traffic) */
    size_t max_link_msgs;    /* most messages on one link direction in one step */
    size_t local_exposed;    /* steps whose local copies outlast their link traffic */
    int channels;            /* programs */
} Sg2260LowerStats;

/* Element offset of chunk c in its buffer for `count` elements per block. */
uint64_t sg2260_chunk_elem_offset(const Schedule *s, uint64_t count, int64_t c);

/* Lowers s into *b (empty on entry). Errors (unroutable transfer, misaligned
 * reduction, a descriptor breaking a static rule) are reported through dx at
 * the transfer's span with a note naming N and the loop variables. Returns
 * 0, or -1 after reporting. */
int sg2260_lower(const Schedule *s, const Sg2260LowerOptions *o, DiagEngine *dx, Arena *arena,
                 Sg2260Bundle *b, Sg2260Layout *lay, Sg2260LowerStats *st);

#endif
