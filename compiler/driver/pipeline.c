/* pipeline.c - instantiate, verify and lower one algorithm for the
 * commands that emit code; see pipeline.h. */
#include "driver/pipeline.h"
#include "analysis/verify.h"
#include "driver/progress.h"
#include "support/util.h"

#include <inttypes.h>
#include <string.h>

SchedParams pipeline_params(Session *s, const Algorithm *alg, size_t point, int64_t N, int64_t root) {
    SchedParams p = {.N = N, .root = root, .max_transfers = s->opts.max_transfers};
    p.ndefines = session_defines(s, alg, point, &p.defines);
    return p;
}

int pipeline_instantiate(Session *s, const Algorithm *alg, const SchedParams *p, Schedule *out) {
    const Stmt *req = NULL;
    InstStatus st = instantiate(alg, p, s->dx, out, &req);
    if (st == INST_OK) return 0;
    if (st == INST_NOT_APPLICABLE) {
        const char *why = req ? req->u.require.why : NULL;
        diag_error(s->dx, req ? req->span : alg->name_span, "require-failed",
                   "'%s' does not apply for N = %" PRId64 "%s%s", alg->name, p->N, why ? ": " : "",
                   why ? why : "");
    }
    return 1;
}

/* The note after a failed verification: why nothing was emitted and how to
 * emit it anyway (the wording of each command is kept as users saw it). */
static void refusal_note(Session *s, const Algorithm *alg, const PipelineRequest *rq) {
    switch (rq->use) {
    case PIPE_COMPILE:
        diag_note(s->dx, alg->name_span,
                  "not compiling '%s' because it does not verify; --no-verify compiles it anyway", alg->name);
        return;
    case PIPE_RUN:
        diag_note(s->dx, alg->name_span,
                  "not running '%s' (it does not verify for N = %" PRId64 "); --no-verify runs it anyway",
                  alg->name, rq->N);
        return;
    case PIPE_LOWER:
        diag_note(s->dx, alg->name_span,
                  "not lowering '%s' because it does not verify for N = %" PRId64 "; --no-verify lowers it anyway",
                  alg->name, rq->N);
        return;
    }
    COLLC_UNREACHABLE("pipeline use");
}

int pipeline_prepare(Session *s, Algorithm *alg, const PipelineRequest *rq, Prepared *out) {
    memset(out, 0, sizeof *out);
    /* the -D that reach this algorithm (one value each: no sweep here) */
    const Define *defs;
    int ndefs = session_defines(s, alg, 0, &defs);
    if (rq->N > 0) {
        /* Applicability first: a failing `require` is named at its line
         * rather than as a "skipped" verification. */
        SchedParams p = pipeline_params(s, alg, 0, rq->N, rq->root);
        if (pipeline_instantiate(s, alg, &p, &out->sched)) return 1;
        if (rq->keep_schedule) out->have_sched = 1;
        else schedule_free(&out->sched);
    }
    if (!rq->no_verify) {
        /* What does not verify is not emitted: it would compute something
         * other than its collective. Correctness only: the rank-consistency
         * warning is collc verify's (a property of the algorithm, not a
         * reason to stop). */
        VerifyOptions vo = {.ns = rq->N > 0 ? &rq->N : rq->ns, .nns = rq->N > 0 ? 1 : rq->nns,
                            .root = rq->root, .defines = defs, .ndefines = ndefs,
                            .max_transfers = s->opts.max_transfers, .progress = progress_verify,
                            .correctness_only = 1};
        if (verify_algorithm(alg, &vo, s->dx, &s->arena, NULL)) {
            refusal_note(s, alg, rq);
            goto fail;
        }
    }
    if (rq->rank_program) {
        progress_step("lowering");
        out->rp = ARENA_NEW(&s->arena, RankProgram);
        if (lower_algorithm(alg, defs, ndefs, &s->arena, s->dx, out->rp)) goto fail;
    }
    return 0;
fail:
    if (out->have_sched) schedule_free(&out->sched);
    memset(out, 0, sizeof *out);
    return 1;
}
