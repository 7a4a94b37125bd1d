/* pipeline.c - instantiate, verify and lower one algorithm; see
 * pipeline.h. */
#include "driver/pipeline.h"
#include "analysis/vblocks.h"
#include "analysis/verify.h"
#include "driver/progress.h"
#include "support/util.h"

#include <inttypes.h>
#include <string.h>

SchedParams pipeline_params(Session *s, const Algorithm *alg, size_t point, int64_t N, int64_t root) {
    SchedParams p = {.N = N, .root = root, .max_transfers = s->opts.max_transfers,
                     .max_memory = s->opts.max_memory};
    p.ndefines = session_defines(s, alg, point, &p.defines);
    return p;
}

Status pipeline_instantiate(Session *s, const Algorithm *alg, const SchedParams *p, Schedule *out,
                            const char **why) {
    const Stmt *req = NULL;
    InstStatus st = instantiate(alg, p, s->dx, out, &req);
    if (why) *why = NULL;
    switch (st) {
    case INST_OK: return EXIT_GO_ON;
    case INST_ERROR: return EXIT_INPUT;
    case INST_TOO_LARGE: return EXIT_TOO_LARGE;
    case INST_STOPPED: break; /* instantiate_stream only */
    case INST_NOT_APPLICABLE: {
        const char *reason = req ? req->u.require.why : NULL;
        if (why) {
            *why = reason ? reason : "";
            return EXIT_GO_ON;
        }
        diag_error(s->dx, req ? req->span : alg->name_span, "require-failed",
                   "'%s' does not apply for N = %" PRId64 "%s%s", alg->name, p->N, reason ? ": " : "",
                   reason ? reason : "");
        return EXIT_INPUT;
    }
    }
    COLLC_UNREACHABLE("instantiate status");
}

/* The note after a failed verification: why nothing was emitted and how to
 * emit it anyway (the wording of each command is kept as users saw it). */
static void refusal_note(Cmd *c, const Algorithm *alg, PipelineUse use, int too_large) {
    DiagEngine *dx = c->s.dx;
    if (too_large) {
        /* not wrong, unproven: the same way out, other words */
        static const char *const verb[] = {[PIPE_COMPILE] = "compiling", [PIPE_RUN] = "running",
                                           [PIPE_LOWER] = "lowering"};
        static const char *const verb3[] = {[PIPE_COMPILE] = "compiles", [PIPE_RUN] = "runs",
                                            [PIPE_LOWER] = "lowers"};
        diag_note(dx, alg->name_span, "not %s '%s' because it could not be verified; --no-verify %s it anyway",
                  verb[use], alg->name, verb3[use]);
        return;
    }
    switch (use) {
    case PIPE_COMPILE:
        diag_note(dx, alg->name_span,
                  "not compiling '%s' because it does not verify; --no-verify compiles it anyway", alg->name);
        return;
    case PIPE_RUN:
        diag_note(dx, alg->name_span,
                  "not running '%s' (it does not verify for N = %" PRId64 "); --no-verify runs it anyway",
                  alg->name, c->N);
        return;
    case PIPE_LOWER:
        diag_note(dx, alg->name_span,
                  "not lowering '%s' because it does not verify for N = %" PRId64 "; --no-verify lowers it anyway",
                  alg->name, c->N);
        return;
    }
    COLLC_UNREACHABLE("pipeline use");
}

Status pipeline_verify(Cmd *c, const Algorithm *alg, const Schedule *sched, PipelineUse use) {
    if (c->o.no_verify) return EXIT_GO_ON;
    progress_verify(NULL, 0, 1, sched->N);
    VerifyStats vs;
    unsigned errors =
        verify_schedule_limited(sched, c->s.dx, NULL, &c->s.arena, 0, c->s.opts.max_memory, &vs);
    progress_verify(NULL, 1, 1, 0);
    if (!errors) return EXIT_GO_ON;
    int big = vs.too_large && errors == 1;
    refusal_note(c, alg, use, big);
    return big ? EXIT_TOO_LARGE : EXIT_INPUT;
}

Status pipeline_verify_many(Cmd *c, const Algorithm *alg, PipelineUse use) {
    if (c->o.no_verify) return EXIT_GO_ON;
    const Define *defs;
    int ndefs = session_defines(&c->s, alg, 0, &defs); /* one value each: no sweep here */
    VerifyOptions vo = {.ns = c->ns, .nns = c->nns, .root = -1, .defines = defs, .ndefines = ndefs,
                        .max_transfers = c->s.opts.max_transfers,
                        .max_memory = c->s.opts.max_memory, .progress = progress_verify,
                        .correctness_only = 1};
    int v = verify_algorithm(alg, &vo, c->s.dx, &c->s.arena, NULL);
    if (!v) return EXIT_GO_ON;
    refusal_note(c, alg, use, !(v & VERIFY_FAILED));
    return v & VERIFY_FAILED ? EXIT_INPUT : EXIT_TOO_LARGE;
}

void pipeline_vblocks(Cmd *c, const Algorithm *alg, RankProgram *rp) {
    const Define *defs;
    int ndefs = session_defines(&c->s, alg, 0, &defs);
    const char *why = NULL;
    int v = vblocks_algorithm(alg, c->ns, c->nns, defs, ndefs, diag_sources(c->s.dx), &c->s.arena, &why);
    rp->vblocks = v == 1;
    rp->vblocks_why = v == 0 ? why : NULL;
}

Status pipeline_prepare(Cmd *c, const Algorithm *alg, int64_t root, PipelineUse use, Schedule *out) {
    /* applicability first: a failing `require` is named at its line rather
     * than as a verification that checked nothing */
    SchedParams p = pipeline_params(&c->s, alg, 0, c->N, root);
    Status st = pipeline_instantiate(&c->s, alg, &p, out, NULL);
    if (st != EXIT_GO_ON) return st;
    if ((st = pipeline_verify(c, alg, out, use)) == EXIT_GO_ON) return EXIT_GO_ON;
    schedule_free(out);
    return st;
}

Status pipeline_lower(Cmd *c, const Algorithm *alg, RankProgram **out) {
    const Define *defs;
    int ndefs = session_defines(&c->s, alg, 0, &defs);
    progress_step("lowering");
    *out = ARENA_NEW(&c->s.arena, RankProgram);
    return lower_algorithm(alg, defs, ndefs, &c->s.arena, c->s.dx, *out) ? EXIT_INPUT : EXIT_GO_ON;
}
