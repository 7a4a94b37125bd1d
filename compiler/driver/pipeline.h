/* pipeline.h - the one way from a checked algorithm to work, shared by
 * every command after cmd_begin (command.h):
 *
 *   instantiate at (N, root, params)   -> Schedule IR, once per (N, params)
 *     (a `require` that excludes N: an error at the require, or a reason
 *      the command reports its own way: cost, compare)
 *   verify                              -> the schedule just built (run, sim,
 *                                          a target made for one N), or the
 *                                          algorithm for many N (compile)
 *   then the command's own work: cost, draw, expand, lower to the Rank IR
 *   (pipeline_lower) and emit, run, a target's own lowering and its
 *   writers or simulator.
 *
 * Verification refuses what does not verify unless --no-verify: it would
 * compute something other than its collective. */
#ifndef COLLC_PIPELINE_H
#define COLLC_PIPELINE_H

#include "driver/command.h"
#include "lower/rankir.h"

/* Which command goes down the pipeline: the wording of its note when the
 * algorithm does not verify ("not compiling 'ring' because it does not
 * verify; --no-verify compiles it anyway"). */
typedef enum PipelineUse {
    PIPE_COMPILE, /* collc compile of code for any N */
    PIPE_RUN,     /* collc run */
    PIPE_LOWER,   /* collc sim, compile for a target made for one N */
} PipelineUse;

/* The parameters of instantiating alg at (N, root) with the -D that reach
 * it at sweep point `point` (session_defines; 0 without a sweep) and
 * --max-transfers. */
SchedParams pipeline_params(Session *s, const Algorithm *alg, size_t point, int64_t N, int64_t root);

/* Instantiates alg. Returns EXIT_GO_ON with *out built (schedule_free), or
 * EXIT_INPUT after reporting errors. A `require` that excludes N is, with
 * why == NULL, an error at the require ("'alg' does not apply for N = 6:
 * its reason" [require-failed]); with why != NULL, EXIT_GO_ON with nothing
 * built and *why set to its reason ("" without one): the caller says so
 * its own way. (*why is NULL when the schedule was built.) */
Status pipeline_instantiate(Session *s, const Algorithm *alg, const SchedParams *p, Schedule *out,
                            const char **why);

/* Verifies the schedule built for alg (correctness only: the
 * rank-consistency warning is collc verify's), unless --no-verify.
 * EXIT_GO_ON, or EXIT_INPUT after the errors and the note of refusal. */
Status pipeline_verify(Cmd *c, const Algorithm *alg, const Schedule *sched, PipelineUse use);
/* The same for code that works for any N: alg verified for every N of -N
 * (verify's set without it) and every root. */
Status pipeline_verify_many(Cmd *c, const Algorithm *alg, PipelineUse use);

/* The fixed-N pipeline of run, sim and the targets made for one N: alg
 * instantiated at c->N and `root` (a failing `require` is an error), then
 * verified. EXIT_GO_ON with *out built (schedule_free), else EXIT_INPUT
 * after reporting (nothing to free). */
Status pipeline_prepare(Cmd *c, const Algorithm *alg, int64_t root, PipelineUse use, Schedule *out);

/* The Rank IR of alg (endpoint projection, generic in N), in the session's
 * arena. EXIT_GO_ON, or EXIT_INPUT after reporting. */
Status pipeline_lower(Cmd *c, const Algorithm *alg, RankProgram **out);
/* The object's record of v-forms: rp->vblocks (COLL_ALG_VBLOCKS) when alg
 * keeps its chunks to their blocks for every N of -N (verify's set
 * without it) and root, else rp->vblocks_why for a v-form collective
 * (analysis/vblocks.h; `verify --vcounts` reports the same why). */
void pipeline_vblocks(Cmd *c, const Algorithm *alg, RankProgram *rp);

#endif
