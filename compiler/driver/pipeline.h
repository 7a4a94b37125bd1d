/* pipeline.h - the way from a checked algorithm to code, shared by
 * compile, run, sim and compile --target=sg2260:
 *
 *   load + check (session_open)  ->  instantiate at N (the `require` that
 *   excludes N is named)  ->  verify (refused unless --no-verify)  ->
 *   lower (the Rank IR; the SG2260 commands take the schedule to their own
 *   lowering, compiler/sg2260/)  ->  emit
 *
 * Emitting stays with each command: an object or C file (compile), a JIT
 * module run on threads (run), an SG2260 bundle written or simulated
 * (compile --target=sg2260, sim). */
#ifndef COLLC_PIPELINE_H
#define COLLC_PIPELINE_H

#include "driver/driver.h"
#include "lower/rankir.h"

/* Which command goes down the pipeline: the wording of its note when the
 * algorithm does not verify ("not compiling 'ring' because it does not
 * verify; --no-verify compiles it anyway"). */
typedef enum PipelineUse {
    PIPE_COMPILE, /* collc compile */
    PIPE_RUN,     /* collc run */
    PIPE_LOWER,   /* collc sim, compile --target=sg2260 */
} PipelineUse;

typedef struct PipelineRequest {
    PipelineUse use;
    int64_t N;             /* > 0: one N, instantiated first; 0: verify ns */
    const int64_t *ns;     /* N == 0: the N verified (NULL: verify's default) */
    size_t nns;
    int64_t root;          /* N > 0: the root; N == 0: -1, every root */
    int no_verify;         /* --no-verify */
    int keep_schedule;     /* N > 0: hand the schedule back */
    int rank_program;      /* lower to the Rank IR */
} PipelineRequest;

typedef struct Prepared {
    Schedule sched;        /* keep_schedule: the schedule at N (schedule_free) */
    int have_sched;
    RankProgram *rp;       /* rank_program: in the session's arena */
} Prepared;

/* The parameters of instantiating alg at (N, root) with the -D that reach
 * it at sweep point `point` (session_defines; 0 without a sweep) and
 * --max-transfers. */
SchedParams pipeline_params(Session *s, const Algorithm *alg, size_t point, int64_t N, int64_t root);

/* Instantiates alg; a failing `require` is an error at the require ("'alg'
 * does not apply for N = 6: why" [require-failed]). Returns 0 (*out to
 * schedule_free), or 1 after reporting. */
int pipeline_instantiate(Session *s, const Algorithm *alg, const SchedParams *p, Schedule *out);

/* Takes alg down the pipeline as rq says. Returns 0, or 1 after reporting
 * (nothing to free then). */
int pipeline_prepare(Session *s, Algorithm *alg, const PipelineRequest *rq, Prepared *out);

#endif
