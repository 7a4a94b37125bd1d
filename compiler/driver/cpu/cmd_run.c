/* cmd_run.c - `collc run`: verify, compile (LLVM, in memory), run on N
 * threads of this process with the cpu target, check the result against the
 * naive reference, and print time, algbw and busbw as nccl-tests defines
 * them (busbw = algbw x the collective's bus factor). */
#include "driver/cpu/run_threads.h"
#include "driver/pipeline.h"
#include "driver/progress.h"
#include "driver/target.h"
#include "analysis/cost.h"
#include "emit/jit.h"
#include "support/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The checks of run's options, before the files are read. */
static Status run_options(Cmd *c) {
    const DriverOptions *o = &c->o;
    if (c->N > run_max_ranks())
        return usage_error("run", "-N must be in 1..%d for the cpu target, got %" PRId64, run_max_ranks(), c->N);
    Status st = target_check_dtype("run", &target_cpu, (DriverDtype)o->dtype);
    if (st != EXIT_GO_ON) return st;
    if (o->size > DRIVER_MAX_MOVED_BYTES) return usage_error("run", "--size must be at most " DRIVER_MAX_MOVED_TEXT);
    return EXIT_GO_ON;
}

/* What one run prints and reports after the threads are done. */
static Status report(Cmd *c, const Algorithm *alg, const RunRequest *q, const RunResult *res, size_t esz,
                     int blocks) {
    DiagEngine *dx = c->s.dx;
    int64_t N = c->N, root = c->o.root;
    char szbuf[32];
    cost_fmt_bytes((double)q->count * (double)esz * blocks, szbuf, sizeof szbuf);
    printf("%s (%s) on cpu threads: N = %" PRId64, alg->name, collective_info[alg->coll].keyword, N);
    if (q->rooted) printf(", root %" PRId64, root);
    printf(", %s %s", szbuf, coll_dtype_name(q->dtype));
    if (collective_info[alg->coll].reducing) printf(" %s", coll_op_name(q->op));
    printf("%s, count %zu\n", q->in_place ? " in-place" : "", q->count);
    if (res->setup_status != 0) {
        diag_error(dx, span_none(), "run", "cannot run %" PRId64 " threads: %s", N, coll_strerror(res->setup_status));
        return EXIT_INPUT;
    }
    if (res->bad_rank >= 0 && res->bad_status != 0) {
        diag_error(dx, alg->name_span, "run", "rank %d: %s returned %s", res->bad_rank, alg->name,
                   coll_strerror(res->bad_status));
        return EXIT_INPUT;
    }
    if (res->bad_rank >= 0) {
        diag_error(dx, alg->name_span, "wrong-result", "rank %d: element %zu of the output differs from the reference",
                   res->bad_rank, res->bad_elem);
        return EXIT_INPUT;
    }
    double t = res->seconds;
    double bytes = (double)q->count * (double)esz * blocks; /* nccl-tests: the larger buffer */
    double algbw = t > 0 ? bytes / t / 1e9 : 0;
    printf("  time    %10.3f us   (mean of %d, after %d warm-up)\n", t * 1e6, q->iters, q->warmup);
    printf("  algbw   %10.3f GB/s\n", algbw);
    printf("  busbw   %10.3f GB/s\n", algbw * run_bus_factor(q->collective, (int)N));
    printf("  check   OK (every rank bit-exact against the naive reference)\n");
    return EXIT_GO_ON;
}

static Status run_one(Cmd *c, Algorithm *alg) {
    const DriverOptions *o = &c->o;
    DiagEngine *dx = c->s.dx;
    coll_dtype dt = (coll_dtype)target_cpu.dtype((DriverDtype)o->dtype);
    coll_op op = (coll_op)target_cpu.op((DriverOp)o->op);
    if (collective_info[alg->coll].reducing && coll_op_supported(dt, op) != COLL_OK) {
        diag_error(dx, alg->name_span, "bad-op", "--op %s is not defined for --dtype %s", coll_op_name(op),
                   coll_dtype_name(dt));
        return EXIT_INPUT;
    }
    /* a Collective's value is its ABI value (both from coll_collectives.def) */
    coll_collective coll = (coll_collective)alg->coll;
    size_t esz = coll_dtype_size(dt);
    int blocks = run_blocks(coll, (int)c->N);
    int64_t count_opt = o->given[OPT_COUNT] ? o->count : -1;
    size_t count = count_opt >= 0 ? (size_t)count_opt : (size_t)(o->size / ((double)blocks * (double)esz));
    if ((double)count * (double)esz * blocks > DRIVER_MAX_MOVED_BYTES)
        return usage_error("run", "--count %" PRId64 " makes the larger buffer of '%s' exceed " DRIVER_MAX_MOVED_TEXT,
                           count_opt, alg->name);
    progress_begin("run", alg->name);
    /* the schedule at N is built once, verified, and the code made from the
     * algorithm (generic in N) */
    Schedule sched;
    RankProgram *rp;
    Status pst = pipeline_prepare(c, alg, o->root, PIPE_RUN, &sched);
    if (pst != EXIT_GO_ON) return pst;
    schedule_free(&sched);
    if (pipeline_lower(c, alg, &rp) != EXIT_GO_ON) return EXIT_INPUT;
    const RankProgram *progs[1] = {rp};
    JitSymbol *syms = ARENA_ARRAY(&c->s.arena, JitSymbol, run_nruntime_symbols);
    for (int i = 0; i < run_nruntime_symbols; i++)
        syms[i] = (JitSymbol){run_runtime_symbols[i].name, run_runtime_symbols[i].address};
    progress_step("compiling");
    Jit *jit = jit_compile(progs, 1, (int)o->opt_level, syms, run_nruntime_symbols, dx);
    if (!jit) return EXIT_INPUT;
    void *fn = jit_lookup(jit, alg->name);
    if (!fn) COLLC_UNREACHABLE("the JIT lost the generated function");

    RunRequest q = {.fn = fn, .rooted = collective_info[alg->coll].rooted, .collective = coll,
                    .N = (int)c->N, .root = (int)o->root, .in_place = o->in_place, .iters = (int)o->iters,
                    .warmup = (int)o->warmup, .count = count, .dtype = dt, .op = op};
    RunResult res;
    progress_step("running on %" PRId64 " threads", c->N);
    run_threads(&q, &res);
    jit_free(jit);
    progress_end();
    return report(c, alg, &q, &res, esz, blocks);
}

int cmd_run(int argc, char **argv) {
    Cmd c = {.target = &target_cpu};
    Status st = cmd_begin(&c, CMD_run, argc, argv, run_options);
    int failed = 0, too_large = 0;
    for (int k = 0; st == EXIT_GO_ON && k < c.nalgs; k++) {
        Status r = run_one(&c, c.algs[k]);
        fflush(stdout);
        if (r == EXIT_USAGE) st = r;
        else if (r == EXIT_INPUT) failed = 1;
        else if (r == EXIT_TOO_LARGE) too_large = 1;
    }
    if (st == EXIT_GO_ON && (failed || too_large)) st = failed ? EXIT_INPUT : EXIT_TOO_LARGE;
    return cmd_end(&c, st);
}
