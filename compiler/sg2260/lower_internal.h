/* lower_internal.h - what the stages of the SG2260 lowering (lower.h) hand
 * each other: the pass's state and one entry point per stage. */
#ifndef COLLC_SG2260_LOWER_INTERNAL_H
#define COLLC_SG2260_LOWER_INTERNAL_H

#include "sg2260/lower.h"

/* One SEND/RECV pair on one link (a hop of a possibly routed transfer). */
typedef struct LMsg {
    int from, to;          /* chips */
    int hop;               /* index on the route (0 = leaves the source) */
    size_t order;          /* creation order, keeps transfer order per link */
    uint64_t src, dst, elems;
    Sg2260Op op;           /* at the destination (NONE for copies, staging) */
    int in_port;           /* hop > 0: `from`'s port on which the data arrived */
    int out_port;          /* not the last hop: `to`'s port it leaves by, else -1 */
    int segment;           /* index of the piece in its transfer (0 = first) */
} LMsg;

/* A rank-local copy or reduction (a GENERAL). */
typedef struct LGen {
    size_t xi;             /* its transfer */
    size_t step;           /* the step of its transfer (copies may run later) */
    int32_t sub;           /* its chunk in the transfer (the unit that may move) */
    int chip, port;        /* port -1 until copies.c places it */
    uint64_t src, dst, elems;
    Sg2260Op op;
} LGen;

/* What one step moves. */
typedef struct StepWork {
    LMsg *msgs;            /* sorted by link direction, hop, creation */
    size_t nmsgs, capmsgs;
    LGen *gens;
    size_t ngens, capgens;
} StepWork;

typedef struct Lowering {
    const Schedule *s;
    const Sg2260LowerOptions *o;
    const Sg2260Machine *m;
    size_t es;             /* bytes per element */
    DiagEngine *dx;
    Arena *arena;
    Sg2260Layout *lay;
    Sg2260LowerStats *st;
    StepWork *work;        /* [s->nsteps] */
    StepWork local;        /* rank-local chunks, before copies.c places them */
} Lowering;

void lmsg_add(StepWork *w, const LMsg *m);
void lgen_add(StepWork *w, const LGen *g);
/* The link message m crosses. */
int lmsg_link(const Lowering *L, const LMsg *m);
/* Time in us that `elems` elements take on link l (no start-up). */
double link_time(const Lowering *L, uint64_t elems, int l);
/* x rounded up to SG2260_ALIGN. */
uint64_t sg2260_align_up(uint64_t x);
/* Contiguous pieces of n elements, each of which one view (N,C,H,W) holds;
 * returns how many were written to len[] (<= 64). */
int sg2260_pieces(uint64_t n, uint64_t *len);
/* The "with N = .., r = .." note of transfer xi's diagnostic. */
void lowering_xfer_note(const Lowering *L, size_t xi);

/* layout.c: the buffers (lay->staging is where the staging area starts;
 * messages.c sizes it). */
void sg2260_layout_buffers(Lowering *L);
/* messages.c: every step's link messages into L->work, the rank-local
 * chunks into L->local, the staging area's size. 0, or 1 after reporting. */
int sg2260_plan_messages(Lowering *L);
/* copies.c: L->local into the steps' GENERALs. 0, or 1 after reporting. */
int sg2260_place_copies(Lowering *L);

/* barriers.c: the channels of one chip, key 2*port + chan. */
enum { SG2260_CHANNELS = 2 * SG2260_MAX_PORTS };
typedef struct BarrierState {
    uint8_t prev[SG2260_MAX_CHIPS][SG2260_CHANNELS];  /* channels working in the chip's last step */
    uint8_t used[SG2260_MAX_CHIPS][SG2260_CHANNELS];  /* channels that ever worked */
    int active_before[SG2260_MAX_CHIPS];              /* the chip worked in an earlier step */
    int nbarrier[SG2260_MAX_CHIPS];                   /* barriers so far (their parity) */
} BarrierState;
/* The barriers that order step si after the earlier steps on every chip it
 * involves. */
void sg2260_step_barriers(Lowering *L, BarrierState *bs, size_t si, Sg2260Bundle *b);

/* programs.c: all descriptors into b. 0, or 1 after reporting. */
int sg2260_write_programs(Lowering *L, Sg2260Bundle *b);
/* Appends d to the program of (chip, port, ch). */
void sg2260_push(Lowering *L, Sg2260Bundle *b, int chip, int port, Sg2260Chan ch, const Sg2260Desc *d);
void sg2260_push_sys(Lowering *L, Sg2260Bundle *b, int chip, int port, Sg2260Chan ch, Sg2260Sys sys,
                     uint32_t id, uint32_t count);

#endif
