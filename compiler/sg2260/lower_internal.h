/* lower_internal.h - what the stages of the SG2260 lowering (lower.h) hand
 * each other: the pass's state and one entry point per stage. */
#ifndef COLLC_SG2260_LOWER_INTERNAL_H
#define COLLC_SG2260_LOWER_INTERNAL_H

#include "sg2260/lower.h"

/* One SEND/RECV pair on one link (a hop, or a piece on one of several
 * parallel links, of a possibly routed transfer). */
typedef struct LMsg {
    int from, to;          /* chips */
    int link;              /* the link it crosses */
    int link_key;          /* its place among the links, whatever order the
                            * file declares parallel links in (link_key()) */
    int tx_port, rx_port;  /* from's and to's end of that link */
    int hop;               /* index on the route (0 = leaves the source) */
    size_t order;          /* creation order, keeps transfer order per link */
    size_t xi;             /* its transfer */
    uint64_t src, dst, elems;
    Sg2260Op op;           /* at the destination (NONE for copies, staging) */
    int in_port;           /* hop > 0: `from`'s port on which the data arrived */
    int out_port;          /* not the last hop: `to`'s port it leaves by, else -1 */
    int segment;           /* index of the piece in its transfer (0 = first) */
    int staged;            /* a reduction through L2: dst is its L2 slot */
    uint64_t ddr_dst;      /* staged: the DDR destination the slot is copied to */
} LMsg;

/* Rank-local work: a copy (VSDMA) or a reduction (GDMA through L2). */
typedef struct LGen {
    size_t xi;             /* its transfer */
    size_t step;           /* the step of its transfer (copies may run later) */
    int32_t sub;           /* its chunk in the transfer (the unit that may move) */
    int chip;
    int core;              /* copies: VSDMA engine, -1 until copies.c places it */
    uint64_t src, dst, elems;
    Sg2260Op op;           /* NONE: a copy; else a reduction */
    uint64_t slot;         /* reductions: the L2 slot (staging.c) */
} LGen;

/* What one step moves. */
typedef struct StepWork {
    LMsg *msgs;            /* sorted by link direction, hop, creation */
    size_t nmsgs, capmsgs;
    LGen *gens;            /* local copies (placed) */
    size_t ngens, capgens;
    LGen *reds;            /* local reductions */
    size_t nreds, capreds;
} StepWork;

typedef struct Lowering {
    const Schedule *s;
    const Sg2260LowerOptions *o;
    const Sg2260Machine *m;
    size_t es;             /* bytes per element */
    uint64_t align;        /* region / piece alignment in bytes */
    int stage;             /* reductions go through L2 (the machine has no DDR reduce) */
    DiagEngine *dx;
    Arena *arena;
    Sg2260Layout *lay;
    Sg2260LowerStats *st;
    StepWork *work;        /* [s->nsteps] */
    StepWork local;        /* rank-local chunks, before copies.c places them */
    const char **xtext;    /* [s->nxfers] "copy in[0][1] -> out[1][1]", lazily */
    uint8_t unfenced[SG2260_MAX_CHIPS][SG2260_MAX_PORTS]; /* a RECV since the port's last NOP */
} Lowering;

/* work.c: what every stage uses. */
void lmsg_add(StepWork *w, const LMsg *m);
void lgen_add(LGen **v, size_t *n, size_t *cap, const LGen *g);
/* Time in us that `elems` elements take on link l (no start-up). */
double link_time(const Lowering *L, uint64_t elems, int l);
/* Time in us of the busiest link direction of step w. */
double step_link_time(const Lowering *L, const StepWork *w);
/* x rounded up to L->align (layout.c). */
uint64_t sg2260_align_up(const Lowering *L, uint64_t x);
/* Contiguous pieces of n elements, each of which one view (N,C,H,W) holds;
 * returns how many were written to len[] (<= 64) (messages.c). */
int sg2260_pieces(uint64_t n, uint64_t *len);
/* The "with N = .., r = .." note of transfer xi's diagnostic. */
void lowering_xfer_note(const Lowering *L, size_t xi);
/* "copy in[0][1] -> out[1][1]": transfer xi in the language's terms. */
const char *lowering_xfer_text(Lowering *L, size_t xi);

/* layout.c: the buffers (lay->staging is where the DDR staging area
 * starts; messages.c sizes it). */
void sg2260_layout_buffers(Lowering *L);
/* messages.c: every step's link messages into L->work, the rank-local
 * chunks into L->local, the staging area's size. 0, or 1 after reporting. */
int sg2260_plan_messages(Lowering *L);
/* staging.c: L2 slots for the reductions (link and local). 0, or 1. */
int sg2260_plan_staging(Lowering *L);
/* copies.c: the local copies of L->local into the steps. 0, or 1. */
int sg2260_place_copies(Lowering *L);

/* barriers.c: the engine sides of one chip: 2*port + side for the CDMA
 * ports, then the GDMA, then one VSDMA per core. */
enum {
    SG2260_CH_GDMA = 2 * SG2260_MAX_PORTS,
    SG2260_CH_VSDMA0 = SG2260_CH_GDMA + 1,
    SG2260_CHANNELS = SG2260_CH_VSDMA0 + SG2260_MAX_CORES,
};
typedef struct BarrierState {
    uint8_t prev[SG2260_MAX_CHIPS][SG2260_CHANNELS];  /* sides working in the chip's last step */
    uint8_t used[SG2260_MAX_CHIPS][SG2260_CHANNELS];  /* sides that ever worked */
    int active_before[SG2260_MAX_CHIPS];              /* the chip worked in an earlier step */
    int nbarrier[SG2260_MAX_CHIPS];                   /* barriers so far (their parity) */
} BarrierState;
/* The sides of each chip that work in step w. */
void sg2260_step_channels(const Lowering *L, const StepWork *w, uint8_t act[][SG2260_CHANNELS], uint8_t *active);
/* The barriers that order step si after the earlier steps on every chip it
 * involves. */
void sg2260_step_barriers(Lowering *L, BarrierState *bs, size_t si, Sg2260Bundle *b);

/* programs.c: all descriptors into b. 0, or 1 after reporting. */
int sg2260_write_programs(Lowering *L, Sg2260Bundle *b);
/* work.c: appends d to the program of (chip, engine, index) with its note. */
void sg2260_push(Lowering *L, Sg2260Bundle *b, int chip, Sg2260Engine e, int index, const Sg2260Desc *d,
                 const Sg2260Note *note);
/* A SYS message command on engine side `ch` of chip (barriers.c channels). */
void sg2260_push_msg(Lowering *L, Sg2260Bundle *b, int chip, int ch, int wait, uint32_t id, uint32_t count,
                     const Sg2260Note *note);
/* A NOP on chip's CDMA port: joins its TX and RX sides once the RX side's
 * posted RECVs have landed (the fence before a "data landed" message).
 * None when the port posted no RECV since its last NOP. */
void sg2260_push_nop(Lowering *L, Sg2260Bundle *b, int chip, int port, const Sg2260Note *note);

#endif
