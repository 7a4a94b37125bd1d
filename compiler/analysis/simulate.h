/* simulate.h - the chunk-state semantics of a Schedule, step by step: the
 * one simulator behind `collc verify`, `collc draw` and `collc expand
 * --table`.
 *
 * Every chunk slot (rank, buffer, chunk) holds a value id:
 *   SIM_UNDEF       never written;
 *   SIM_POISON      indeterminate: what an error leaves (a race, a read of
 *                   undefined data, a reduce the user rejected);
 *   SIM_LEAF | i    the input in slot i of `in` (every `in` slot starts so);
 *   SIM_FIRST ..    values the user makes for reduces (ids below SIM_LEAF).
 * A copy moves the id: values are immutable and shared, so a copy costs
 * nothing whatever it holds. A reduce asks the user for the id of
 * "destination (+) source"; the user keeps what its reduced ids mean
 * (verify: origin chunk, rank intervals, reduction-tree hash; draw: chunk and
 * rank mask; the ownership table: the list of origins).
 *
 * The transfers of a step run concurrently: every read sees the state before
 * the step. A step is applied in place in two passes, first stamping every
 * source slot as read, then applying the transfers in order; without a race
 * no slot written in the step is read by another of its transfers, so that
 * is exactly "reads see the state before the step". Several reduces into
 * one slot in one step all combine into it (a parent taking its children's
 * partial sums at once): applied in order, each sees the one before, and
 * any order gives the same value. A race (a slot written twice in a step
 * other than by reduces only, or written and read) leaves SIM_POISON, as
 * does a read of
 * an undefined slot; a write to `in` is not applied. Each is reported to the
 * user's fault hook once per transfer. SIM_POISON propagates silently, so one
 * mistake gives one report, not a cascade.
 *
 * Within a step the races are reported first, then the reads of undefined
 * data. A read of an undefined slot that another transfer of the same step
 * writes is the race's consequence (the reader counted on that write coming
 * first) and is not reported at all: the race is the root cause.
 *
 * A composed algorithm's scratch shared by its calls (Algorithm.lives)
 * turns undefined again at the first step of each call's use of it.
 *
 * For every slot the simulator also keeps the last transfer that wrote it:
 * it names culprits and starts walks back in time (counterexamples).
 *
 * The slot array is the only memory proportional to the schedule's size
 * (12 bytes a slot); it is mapped directly when large (see simulate.c). */
#ifndef COLLC_SIMULATE_H
#define COLLC_SIMULATE_H

#include <stddef.h>
#include <stdint.h>
#include "schedule/schedule.h"

enum {
    SIM_UNDEF = 0,  /* never written */
    SIM_POISON = 1, /* indeterminate, after an error */
    SIM_FIRST = 2,  /* the first id of a user's reduced value */
};
#define SIM_LEAF 0x80000000u /* SIM_LEAF | i: the input of `in` slot i */

/* Errors of a schedule that the simulator finds, once per transfer each:
 * a transfer raises at most one race, one undefined read and one write to
 * `in` fault. */
typedef enum SimFaultKind {
    SIM_FAULT_WRITE_TO_IN,   /* the destination is `in`: nothing is written */
    SIM_FAULT_RACE_WRITE,    /* the slot was written before in this step by `other` */
    SIM_FAULT_RACE_READ,     /* transfer `other` of this step reads the slot
                                (other == xfer: its own source overlaps it) */
    SIM_FAULT_UNDEF_SOURCE,  /* the source slot is undefined */
    SIM_FAULT_UNDEF_DEST,    /* a reduce's destination slot is undefined */
} SimFaultKind;

typedef struct SimFault {
    SimFaultKind kind;
    size_t step, xfer;
    size_t other;            /* races: the other transfer */
    int buffer;              /* the slot concerned: the source slot for */
    int64_t rank, chunk;     /* SIM_FAULT_UNDEF_SOURCE, else the destination */
} SimFault;

typedef struct SimHooks {
    /* The id of `dst (+) src` written by chunk i of transfer `xfer` of step
     * `step`: both are leaves or reduced values, never SIM_UNDEF or
     * SIM_POISON. SIM_POISON when the user rejects the reduce (it reports
     * why). Required when the schedule reduces. */
    uint32_t (*reduce)(void *user, size_t step, size_t xfer, int64_t i, uint32_t dst,
                       uint32_t src);
    /* An error of the schedule (NULL: ignored). */
    void (*fault)(void *user, const SimFault *f);
    void *user;
} SimHooks;

/* The state of one slot, kept together: a step touches slots far apart (a
 * rank's chunks apart), so one cache and TLB miss per slot instead of three. */
typedef struct SimSlot {
    uint32_t val;    /* value id */
    uint32_t lastw;  /* 1 + the last transfer that wrote it; 0 = never */
    uint32_t rstamp; /* 1 + the last step that read it as a source */
} SimSlot;

/* A buffer's slots: rank r's chunks start at base + r * co, except that the
 * root holds cr chunks (rooted collectives), which shifts the ranks above it. */
typedef struct SimBuf { uint64_t base; int64_t cr, co; } SimBuf;

typedef struct Sim {
    const Schedule *s;
    SimHooks hooks;
    int64_t N, root;      /* root = -1 for collectives without one */
    SimBuf *bufs;         /* [nbuffers] */
    uint64_t nslots;
    uint64_t nin;         /* slots of `in`: the leaves SIM_LEAF | 0 .. nin-1 */
    SimSlot *sl;          /* [nslots] */
    size_t slot_bytes;
    size_t next;          /* the step sim_step runs next */
    SimFault *held;       /* the step's undefined reads, reported after its */
    size_t nheld, capheld; /*   races (see above) */
    int stop;             /* set by a hook: the current step stops where it
                             is and sim_step does nothing any more */
    int streaming;        /* set by the user: only the current step's
                             transfers exist (sim_step_xfers), so a fault
                             that needs earlier ones to be reported (an
                             undefined read) only stops the run and sets
                             `faulted`; the user replays the schedule whole */
    int faulted;
} Sim;

/* Sets up the state before the first step. Returns 0, or -1 (nothing to
 * free) when the schedule cannot be simulated: 2^31 or more `in` slots, or
 * 2^32 or more transfers or steps. */
int sim_init(Sim *m, const Schedule *s, const SimHooks *hooks);
/* The same, but -2 (nothing to free; m->nslots and m->slot_bytes say what
 * was needed) when the slot array would take more than max_bytes or cannot
 * be mapped (checked before the 32-bit limits of -1). */
int sim_init_limited(Sim *m, const Schedule *s, const SimHooks *hooks, size_t max_bytes);
void sim_free(Sim *m);

/* Runs step m->next and advances to the following one. */
void sim_step(Sim *m);
/* The same with the step's transfers given (xs[i] is transfer
 * steps[next].first + i): a schedule streamed step by step, whose
 * `xfers` are not kept (m->s->steps must hold the step). */
void sim_step_xfers(Sim *m, const Transfer *xs);

static inline uint64_t sim_slot(const Sim *m, int buf, int64_t rank, int64_t c) {
    const SimBuf *B = &m->bufs[buf];
    if (m->root < 0 || rank <= m->root) return B->base + (uint64_t)(rank * B->co + c);
    return B->base + (uint64_t)(m->root * B->co + B->cr + (rank - m->root - 1) * B->co + c);
}

static inline uint32_t sim_value(const Sim *m, int buf, int64_t rank, int64_t c) {
    return m->sl[sim_slot(m, buf, rank, c)].val;
}

/* The last transfer that wrote the slot; SIZE_MAX when none did. */
static inline size_t sim_last_writer(const Sim *m, int buf, int64_t rank, int64_t c) {
    uint32_t w = m->sl[sim_slot(m, buf, rank, c)].lastw;
    return w ? (size_t)w - 1 : SIZE_MAX;
}

/* The rank and chunk of `in` whose input leaf `id` is (the inverse of
 * sim_slot for `in`). */
static inline void sim_leaf_origin(const Sim *m, uint32_t id, int64_t *rank, int64_t *chunk) {
    const SimBuf *B = &m->bufs[BUF_IN];
    int64_t idx = (int64_t)(id & ~SIM_LEAF);
    if (m->root < 0 || B->cr == B->co || idx < m->root * B->co) {
        *rank = idx / B->co;
        *chunk = idx % B->co;
    } else if (idx < m->root * B->co + B->cr) {
        *rank = m->root;
        *chunk = idx - m->root * B->co;
    } else {
        int64_t j = idx - m->root * B->co - B->cr;
        *rank = m->root + 1 + j / B->co;
        *chunk = j % B->co;
    }
}

/* Questions about the schedule itself (no state). */

/* The step holding transfer x. */
size_t sim_step_of(const Schedule *s, size_t x);
/* Whether step k is the first of a run of steps using shared scratch life
 * i (Algorithm.lives): what an earlier call left in it is undefined from
 * there on. Only the steps' phases are read, so a streamed schedule can
 * ask it of its last step. */
int sim_life_begins(const Schedule *s, size_t k, int i);
/* The last transfer before `bound` (exclusive) writing the slot; SIZE_MAX
 * when none. */
size_t sim_writer_before(const Schedule *s, size_t bound, int buf, int64_t rank, int64_t c);
/* The first transfer from `from` on writing the slot; SIZE_MAX when none. */
size_t sim_writer_from(const Schedule *s, size_t from, int buf, int64_t rank, int64_t c);

#endif
