/* synth.h - `collc synth`: schedules synthesized for a topology
 * (docs/synth.md is the user's reference).
 *
 * The engines spread every owner's chunks to every rank (AllGather); the
 * mirror image of a spread (steps reversed, transfers turned into reduces)
 * is a ReduceScatter.
 *  - layered (synth_layers.c): in step t every rank at distance t from a
 *    chunk's owner receives it from a neighbour at distance t-1, each step
 *    balanced over the links by a maximum flow (maxflow.c); children that
 *    meet in one step of the mirror land in scratch and are folded locally;
 *  - telephone (synth_phone.c): in every step a rank passes each chunk to at
 *    most one neighbour, steps chosen greedily; the mirror never lands two
 *    partial sums of a chunk on a rank in one step.
 *  - pipelined (synth_pipe.c), where routes pass switches or NICs: steps of
 *    one time budget, every link carrying what crosses it in that time, each
 *    chunk over every link once (out-trees through the switches, packed);
 *  - step-bounded (synth_pipe.c), for SYNTH_PARETO, and for
 *    SYNTH_BANDWIDTH at the best split once β and γ are at their bounds:
 *    the pipelined greedy in a given number of steps, each with a budget of
 *    its own.
 * AllReduce is ReduceScatter + AllGather of owner chunks (uniform owners or
 * owners weighted by receive bandwidth), Broadcast a pipelined telephone
 * spread from the root or a scatter + AllGather, Reduce their mirrors
 * (synth.c). Every engine, split (chunks per rank and block, 1..max_split)
 * and owner weighting is priced with the cost model; the best under the
 * objective is kept.
 *
 * Ranks talk only to their neighbours in the rank graph: ranks u, v are
 * neighbours when the cost model's route from u to v passes no other rank
 * (directly, or through switch nodes). Data that must cross several ranks is
 * stored and forwarded by them, in `out` where they need it anyway and in
 * scratch where they do not. */
#ifndef COLLC_SYNTH_H
#define COLLC_SYNTH_H

#include <stddef.h>
#include <stdint.h>
#include "analysis/cost.h"
#include "analysis/topology.h"
#include "schedule/schedule.h"
#include "support/arena.h"
#include "support/diag.h"

typedef enum SynthObjective {
    SYNTH_BANDWIDTH, /* smallest β coefficient, then fewest chunks */
    SYNTH_LATENCY,   /* fewest and cheapest steps: one chunk per block */
    SYNTH_BALANCED,  /* smallest time at the machine's M, α, β, γ */
    SYNTH_PARETO,    /* the frontier of (α term, β term) over every
                        candidate (synth_pareto) */
} SynthObjective;

typedef struct SynthOptions {
    Collective coll;
    int64_t root;            /* rooted collectives */
    SynthObjective objective;
    CostMachine machine;     /* for SYNTH_BALANCED (and the header's times) */
    int64_t max_split;       /* largest split tried per block (>= 1) */
    const char *name;        /* the algorithm's name */
} SynthOptions;

typedef struct SynthResult {
    Schedule sched;          /* schedule_free() it; its Algorithm is in the arena */
    const char **step_comment; /* [sched.nsteps] in the arena */
    char method[256];        /* one line: how it was made */
    char owners[256];        /* one-block collectives: chunks owned per rank */
    CostTerms cost;          /* the schedule on the topology */
    CostBounds bounds;       /* collc's lower bounds there */
    int balanced;            /* 1: every step's split is a maximum-flow optimum
                                (0: a route through several switch links
                                made some step fall back to a greedy split) */
    int effort_bound;        /* 1: the search stopped at its effort bound and
                                kept the best candidate it had */
} SynthResult;

typedef enum SynthStatus {
    SYNTH_OK,
    SYNTH_UNSUPPORTED,   /* collective not synthesized (message in err) */
    SYNTH_DISCONNECTED,  /* some rank cannot reach another (message in err) */
    SYNTH_TOO_LARGE,     /* the schedule would exceed the limits (message in err) */
} SynthStatus;

/* 1 when synth makes collective `coll` (AllGather, ReduceScatter, AllReduce,
 * Broadcast, Reduce). */
int synth_supports(Collective coll);
/* Synthesizes o->coll for the ranks of t. The Schedule's Algorithm, buffers
 * and comments are allocated in `arena`. */
SynthStatus synth_run(const SynthOptions *o, TopoModel *t, Arena *arena, DiagEngine *dx, SynthResult *out,
                      char *err, size_t errsz);

/* o->objective == SYNTH_PARETO: the Pareto frontier of the candidates
 * synth_run would try, over (α term, β term): every candidate that no other
 * candidate beats in one term without losing in the other (on a tie in
 * both, the smaller γ term, then the smaller split, is kept). *pts (malloc'ed,
 * free() it after schedule_free() of every point's sched) holds *npts
 * points, the smallest α term first (so the largest β term first). */
SynthStatus synth_pareto(const SynthOptions *o, TopoModel *t, Arena *arena, DiagEngine *dx, SynthResult **pts,
                         size_t *npts, char *err, size_t errsz);

/* 1 when cost a is strictly better than b under o->objective: bandwidth:
 * the smaller β term, then γ, then α; latency: α, then β; balanced: the
 * time at o->machine's size. */
int synth_better(const SynthOptions *o, const CostTerms *a, const CostTerms *b);
/* The header comment of the printed algorithm (lines without "// "). */
size_t synth_header(const SynthOptions *o, const TopoModel *t, const SynthResult *r, Arena *arena,
                    const char ***lines);

/* ---- internal: the layered engine (synth_layers.c) ---- */

/* The rank graph: logical arcs between ranks and their routes. */
typedef struct SynthGraph {
    int64_t N;
    TopoModel *t;
    int32_t *arc;          /* [N*N] arc index of u -> v, or -1 */
    size_t narcs;
    int32_t *arc_from, *arc_to;
    size_t *link_first;    /* [narcs + 1] CSR of the arcs' links */
    int32_t *links;
    int32_t *dist;         /* [N*N] hops of the rank graph, -1 = unreachable */
    int greedy_steps;      /* steps split greedily (multi-link routes) */
    int variant;           /* the engine variant of the candidate being built
                              (SynthEngine.variants) */
    int64_t work;          /* effort spent so far: the telephone engine's
                              assignments times the ranks and chunks they
                              match (synth.c's effort bound) */
} SynthGraph;

/* One piece of data crossing an arc in one step: chunks [lo, hi) (global
 * chunk numbers) from rank `from` to rank `to`, in layer step `step` (1 =
 * first) of the phase's own direction; `owner` is the rank the chunks
 * belong to (AllGather-like phases) or go to (routing phases). */
typedef struct SynthMove {
    int32_t step, owner, from, to, lo, hi;
} SynthMove;

typedef struct SynthMoves {
    SynthMove *v;
    size_t n, cap;
    int32_t nsteps;
} SynthMoves;

int synth_graph_build(SynthGraph *g, TopoModel *t, char *err, size_t errsz);
void synth_graph_free(SynthGraph *g);

/* Every owner s spreads its chunks [lo[s], hi[s]) to every rank (AllGather).
 * have[s*N + v] (may be NULL): chunks of s that v holds already; v gets
 * nothing of s when it holds them all. reverse: the mirror for
 * ReduceScatter; layers count hops *to* the owner and a move from -> to
 * stands for the arc to -> from of the topology. */
void synth_spread(SynthGraph *g, const int32_t *lo, const int32_t *hi, const int64_t *have, int reverse,
                  SynthMoves *out);
/* The root sends the chunks [lo[v], hi[v]) to every rank v along shortest
 * paths (scatter); reverse: the mirror (gather towards the root). */
void synth_route(SynthGraph *g, int64_t root, const int32_t *lo, const int32_t *hi, int reverse,
                 SynthMoves *out);
/* As synth_spread without `have`, by the telephone engine (synth_phone.c):
 * in every step each rank sends a chunk to at most one neighbour. Among
 * step sizes that make equal progress, small_steps takes the smallest (a
 * finer pipeline), else the largest (fewer steps). once: every chunk
 * crosses every link at most once (where a route between neighbours passes
 * switches, the ranks behind them pass the chunk on). */
void synth_phone(SynthGraph *g, const int32_t *lo, const int32_t *hi, int reverse, int small_steps, int once,
                 SynthMoves *out);
/* Appends a move; nsteps follows the largest step. */
void synth_moves_push(SynthMoves *m, SynthMove mv);
void synth_moves_free(SynthMoves *m);

#endif
