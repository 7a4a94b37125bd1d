/* schedule.h - the Schedule IR: an algorithm instantiated for concrete N,
 * root and parameter values, as an ordered list of steps, each a set of
 * concurrent transfers.
 *
 * Verification, cost, drawing and the lowerings of the targets made for one
 * N (compiler/<target>/) consume only this IR.
 *
 * Chunks: every buffer is a sequence of chunks of one rank. With `split P`,
 * a buffer of B blocks has B*P chunks; chunk c is position c % P of block
 * c / P. At run time block = `count` elements and chunk position k has
 * count/P + (k < count%P) elements, so two chunks hold the same number of
 * elements iff they have the same position; instantiate rejects transfers
 * whose source and destination positions differ (diag "chunk-position").
 *
 * Ownership: the Schedule's arrays are malloc'ed (they can reach gigabytes
 * for N = 4096 and verify builds one schedule per N), so a Schedule is freed
 * with schedule_free(), not with the compilation arena. */
#ifndef COLLC_SCHEDULE_H
#define COLLC_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>
#include "front/ast.h"
#include "support/arena.h"
#include "support/diag.h"

/* A half-open chunk range [lo, hi) of one buffer of one rank. */
typedef struct SlotRange {
    int32_t rank;
    uint16_t buffer;   /* index in Algorithm.buffers: BUF_IN, BUF_OUT, scratch.. */
    int32_t lo, hi;    /* chunk indices, 0 <= lo < hi <= chunks of that buffer */
} SlotRange;

typedef struct Transfer {
    SlotRange src, dst;  /* equal lengths (hi - lo) */
    uint8_t op;          /* XferOp: XFER_COPY or XFER_REDUCE */
    Span span;           /* the copy/reduce statement */
} Transfer;

typedef struct Step {
    size_t first;        /* index of its first transfer in Schedule.xfers */
    size_t count;        /* number of transfers (may be 0) */
    Span span;           /* the step statement */
    uint32_t phase;      /* the statement's phase (Algorithm.lives) */
} Step;

/* Instantiation parameters. */
typedef struct SchedParams {
    int64_t N;                /* rank count, >= 1 */
    int64_t root;             /* rooted collectives: 0 <= root < N; else ignored */
    const Define *defines;    /* -D name=value overrides of `param`s */
    int ndefines;
    size_t max_transfers;     /* 0 = default SCHED_DEFAULT_MAX_TRANSFERS */
    int64_t max_N;            /* 0 = default SCHED_DEFAULT_MAX_N */
    size_t max_memory;        /* verify: bytes of state one instance may
                                 take; 0 = verify_default_memory() */
    const int64_t *vcounts;   /* verify --vcounts: the N block sizes (NULL: one size) */
} SchedParams;

#define SCHED_DEFAULT_MAX_TRANSFERS ((size_t)50 * 1000 * 1000)
#define SCHED_DEFAULT_MAX_N ((int64_t)1 << 20)

typedef struct Schedule {
    const Algorithm *alg;
    int64_t N;
    int64_t root;             /* -1 for non-rooted collectives */
    int64_t split;            /* P: chunks per block (>= 1) */
    int64_t *param_values;    /* [alg->nparams], after -D overrides */
    int nbuffers;             /* = alg->nbuffers */
    int64_t *chunks_at_root;  /* [nbuffers] chunks a buffer has on the root */
    int64_t *chunks_other;    /* [nbuffers] chunks on every other rank (== root
                                 value for non-rooted collectives) */
    Transfer *xfers;
    size_t nxfers;
    Step *steps;
    size_t nsteps;
} Schedule;

typedef enum InstStatus {
    INST_OK,              /* *out is a complete schedule */
    INST_NOT_APPLICABLE,  /* a `require` evaluated false; *failed_require set;
                             nothing reported (the caller decides) */
    INST_ERROR,           /* errors were reported through dx */
    INST_TOO_LARGE,       /* a resource limit stopped it (more transfers, steps
                             or loop iterations than allowed), reported
                             through dx as "schedule-too-large": nothing is
                             known to be wrong with the algorithm */
    INST_STOPPED,         /* instantiate_stream: the step callback stopped it */
} InstStatus;

/* Instantiates a checked algorithm. Errors (rank/chunk out of range, division
 * by zero, negative shift, transfer outside a step, range length or position
 * mismatch, too many transfers, unknown -D name) are reported with the span
 * and a note "with N = 6, r = 5, s = 2". On INST_OK the caller owns *out and
 * must schedule_free() it; on any other status *out holds nothing. */
InstStatus instantiate(const Algorithm *alg, const SchedParams *params,
                       DiagEngine *dx, Schedule *out,
                       const Stmt **failed_require);

/* Called by instantiate_stream after each step: `hdr` is the schedule so
 * far (everything but `xfers`, which is NULL; steps[nsteps - 1] is the step
 * just made, nxfers counts every transfer so far) and xs[i] is transfer
 * steps[nsteps - 1].first + i, valid during the call only. Nonzero stops
 * the instantiation (INST_STOPPED). */
typedef int (*SchedStepFn)(void *user, const Schedule *hdr, const Transfer *xs);

/* instantiate without keeping the transfers: each step goes to on_step,
 * then its transfers are dropped, so memory holds one step, not the
 * schedule. The same walk, the same diagnostics and statuses as
 * instantiate, plus INST_STOPPED; on INST_OK *out holds everything but the
 * transfers (xfers NULL, nxfers their count) and is freed with
 * schedule_free(). */
InstStatus instantiate_stream(const Algorithm *alg, const SchedParams *params,
                              DiagEngine *dx, Schedule *out, const Stmt **failed_require,
                              SchedStepFn on_step, void *user);

/* Called by instantiate_steps at each step statement instead of walking
 * its body: `hdr` as for SchedStepFn (steps[nsteps - 1] is this step, with
 * no transfers), `frame` the interpreter's values of N, params and every
 * variable in scope (Symbol.slot), valid during the call only. Returns 0:
 * a step; 1: no step (its body moves nothing); -1: stop (INST_STOPPED). */
typedef int (*SchedStmtFn)(void *user, const Schedule *hdr, const Stmt *step, const int64_t *frame);

/* instantiate for a symbolic reader of the steps (verify_orbit.c): the walk
 * outside the steps, its diagnostics and statuses are instantiate's; each
 * step's body goes to on_step unexpanded, so no transfer is made (on
 * INST_OK, *out has steps without transfers; schedule_free() it). */
InstStatus instantiate_steps(const Algorithm *alg, const SchedParams *params, DiagEngine *dx,
                             Schedule *out, const Stmt **failed_require, SchedStmtFn on_step,
                             void *user);

void schedule_free(Schedule *s);

/* For engines that cannot combine several reduces into one chunk at once
 * (split_reduces.c): a step whose reduces write some chunk more than once
 * becomes sub-steps, the k-th reduce into a chunk in the k-th. The same
 * computation in more steps (spans kept; schedule_describe_* then no
 * longer name the moved transfers' values). Returns the steps added. */
size_t schedule_split_reduces(Schedule *s);

/* The last step that chunk `sub` of rank-local transfer xi (in step si)
 * may run in without changing what the schedule computes: the step before
 * the first later transfer that reads or writes its destination chunk or
 * writes its source chunk (copy_window.c). */
size_t schedule_copy_deadline(const Schedule *s, size_t xi, int32_t sub, size_t si);

static inline int64_t schedule_chunks(const Schedule *s, int buffer, int64_t rank) {
    return rank == s->root ? s->chunks_at_root[buffer] : s->chunks_other[buffer];
}

/* "N = 6, r = 5, s = 2": the values of N, root, params and every loop/let
 * variable in scope when transfer `xfer_index` was generated. Found by
 * re-running the instantiation up to that transfer (cheap, and it keeps
 * Transfer small). Allocated in `arena`. */
const char *schedule_describe_transfer(const Schedule *s, size_t xfer_index, Arena *arena);
/* Same for the entry of step `step_index` (the variables of enclosing loops). */
const char *schedule_describe_step(const Schedule *s, size_t step_index, Arena *arena);
/* The entries of all steps from one replay (describing every step with
 * schedule_describe_step would be quadratic): [nsteps] in `arena`. */
const char **schedule_describe_steps(const Schedule *s, Arena *arena);

/* Writes the stable, documented schedule dump (docs/schedule-format.md) used
 * by `collc expand` and by the tests. */
void schedule_dump(FILE *out, const Schedule *s, SourceManager *sm);

#endif
