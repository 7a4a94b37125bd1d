/* synth_engine.h - inside `collc synth` (synth.h): the schedule a candidate
 * is built into, the phases the collectives are made of, and the table of
 * engines (synth_engines.def) that synth_run tries.
 *
 * An engine is one row of synth_engines.def and one file: a SynthEngine
 * named synth_engine_ID that says which collectives it makes and builds one
 * candidate (a split and an owner weighting) into a SynthBuild. Engines
 * that spread chunks (every owner's chunks to every rank, and the mirror)
 * get AllGather, ReduceScatter and AllReduce from synth_build_spread_*. */
#ifndef COLLC_SYNTH_ENGINE_H
#define COLLC_SYNTH_ENGINE_H

#include "analysis/synth.h"

/* Buffers of a synthesized algorithm: in, out, then (when used) the partial
 * sums `acc`, then the landing buffers rx0, rx1, ... */
enum { SYNTH_B_IN = BUF_IN, SYNTH_B_OUT = BUF_OUT, SYNTH_B_ACC = BUF_FIRST_SCRATCH };

typedef struct SynthEngine SynthEngine;

/* SynthEngine.rounds of an engine whose steps pipeline chunks down trees */
enum { SYNTH_STEPS_PIPELINE = 2 };

/* A schedule under construction: one candidate. */
typedef struct SynthBuild {
    const SynthOptions *o;
    SynthGraph *g;
    const SynthEngine *engine;
    int64_t N, P;       /* ranks; chunks per block (the split) */
    int root_owns_all;  /* one-block collective whose chunks are all the root's */
    int has_acc;        /* scratch acc[acc_chunks] */
    int64_t acc_chunks;
    int nrx;            /* landing buffers rx0 .. rx(nrx-1), acc_chunks each */
    uint8_t *recv;      /* [N * acc_chunks]: the rank's partial sum of the
                           chunk receives a reduce (so it starts as its input) */
    Transfer *x;
    size_t nx, xcap;
    Step *st;
    size_t ns, scap;
    char **comment;     /* [ns], malloc'ed strings */
} SynthBuild;

/* Every owner s spreads its chunks [lo[s], hi[s]) to every rank
 * (AllGather); reverse: the mirror for ReduceScatter (synth.h's
 * synth_spread). */
typedef void (*SynthSpreadFn)(SynthGraph *g, const int32_t *lo, const int32_t *hi, int reverse,
                              SynthMoves *out);

struct SynthEngine {
    const char *name;   /* how its trees are made, for the Source line */
    /* does it make o->coll under o->objective? */
    int (*applies)(const SynthOptions *o);
    /* Builds the candidate of b's split with owners [lo[v], hi[v]) (every
     * rank's chunks of one-block collectives; rank s owns block s of the
     * others) into b. */
    void (*try_candidate)(SynthBuild *b, const int32_t *lo, const int32_t *hi);
    /* The Source line's method for o->coll; weighted: the owners follow
     * what the ranks can receive. */
    void (*method)(const SynthOptions *o, int weighted, char *buf, size_t size);
    SynthSpreadFn spread; /* for synth_build_spread_* (NULL: none) */
    int rounds;         /* what its steps are, for the step comments: layers (0),
                           telephone rounds (1) or SYNTH_STEPS_PIPELINE */
    int relays_only;    /* tried only where a route between neighbours passes
                           a node that is not a rank (a switch, a NIC) */
    int spreads_anywhere; /* relays_only, but AllGather and ReduceScatter on
                             every topology */
    int variants;       /* > 1: its candidates are made once per variant
                           0 .. variants-1 (SynthGraph.variant) */
};

/* The rows of synth_engines.def, in the order synth_run tries them. */
#define X(id) extern const SynthEngine synth_engine_##id;
#include "analysis/synth_engines.def"
#undef X

/* ---- building (synth_build.c) ---- */

/* Where rank u keeps its value of chunk x (global chunk number). */
typedef struct SynthLoc {
    int buf;
    int64_t chunk;
} SynthLoc;

typedef SynthLoc (*SynthLocFn)(const SynthBuild *b, int64_t u, int64_t x, int64_t owner);

/* A malloc'ed printf. */
char *synth_fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
/* Starts a step with its comment (malloc'ed, owned by b). */
void synth_step(SynthBuild *b, char *comment);
/* Appends len chunks from (srank, sbuf, slo) to (drank, dbuf, dlo) to the
 * current step. */
void synth_xfer(SynthBuild *b, XferOp op, int sbuf, int64_t srank, int64_t slo, int dbuf, int64_t drank,
                int64_t dlo, int64_t len);
void synth_build_free(SynthBuild *b);
/* The finished build as r->sched (its Algorithm and the step comments in
 * the arena); b keeps nothing the schedule owns. */
void synth_build_schedule(SynthBuild *b, Arena *arena, SynthResult *r);

/* AllGather, ReduceScatter and AllReduce (ReduceScatter + AllGather of the
 * owners' chunks) from b->engine->spread. */
void synth_build_spread_allgather(SynthBuild *b, const int32_t *lo, const int32_t *hi);
void synth_build_spread_reduce_scatter(SynthBuild *b, const int32_t *lo, const int32_t *hi);
void synth_build_spread_allreduce(SynthBuild *b, const int32_t *lo, const int32_t *hi);
/* Broadcast as a scatter from the root along shortest paths + a layered
 * AllGather; Reduce as its mirror (ReduceScatter by b->engine->spread +
 * a gather to the root). */
void synth_build_scatter_allgather(SynthBuild *b, const int32_t *lo, const int32_t *hi);
void synth_build_reduce_scatter_gather(SynthBuild *b, const int32_t *lo, const int32_t *hi);
/* Broadcast and Reduce from a spread of the root's P chunks (moves `m`,
 * made by the caller): the spread pipelined from the root, or mirrored
 * into it. */
void synth_build_root_spread(SynthBuild *b, const SynthMoves *m);
void synth_build_root_reduce(SynthBuild *b, const SynthMoves *m);

/* The Source line of a spread engine for AllGather, ReduceScatter and
 * AllReduce: "allgather on TREES", ... */
void synth_method_spread(const SynthOptions *o, const char *trees, int weighted, char *buf, size_t size);

#endif
