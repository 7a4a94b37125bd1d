/* cmd_run.c - `collc run`: verify, compile (LLVM, in memory), run on N
 * threads of this process with the cpu runtime, check the result against the
 * naive reference, and print time, algbw and busbw as nccl-tests defines
 * them (busbw = algbw x the collective's bus factor). */
#include "driver/options.h"
#include "analysis/cost.h"
#include "emit/jit.h"
#include "driver/pipeline.h"
#include "driver/progress.h"
#include "support/util.h"
#include "driver/run_threads.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* count < 0: from size. */
static int run_one(Session *s, Algorithm *alg, int64_t N, int64_t root, double size, int64_t count_opt,
                   coll_dtype dt, coll_op op, int iters, int warmup, int in_place, int no_verify, int opt_level) {
    DiagEngine *dx = s->dx;
    /* a Collective's value is its ABI value (both from coll_collectives.def) */
    coll_collective coll = (coll_collective)alg->coll;
    size_t esz = coll_dtype_size(dt);
    int blocks = run_blocks(coll, (int)N);
    size_t count = count_opt >= 0 ? (size_t)count_opt : (size_t)(size / ((double)blocks * (double)esz));
    if ((double)count * (double)esz * blocks > DRIVER_MAX_MOVED_BYTES)
        return usage_error("run", "--count %" PRId64 " makes the larger buffer of '%s' exceed " DRIVER_MAX_MOVED_TEXT, count_opt,
                           alg->name);
    PipelineRequest rq = {.use = PIPE_RUN, .N = N, .root = root, .no_verify = no_verify, .rank_program = 1};
    Prepared pp;
    progress_begin("run", alg->name);
    if (pipeline_prepare(s, alg, &rq, &pp)) return EXIT_INPUT;
    const RankProgram *progs[1] = {pp.rp};
    JitSymbol *syms = ARENA_ARRAY(&s->arena, JitSymbol, run_nruntime_symbols);
    for (int i = 0; i < run_nruntime_symbols; i++)
        syms[i] = (JitSymbol){run_runtime_symbols[i].name, run_runtime_symbols[i].address};
    progress_step("compiling");
    Jit *jit = jit_compile(progs, 1, opt_level, syms, run_nruntime_symbols, dx);
    if (!jit) return EXIT_INPUT;
    void *fn = jit_lookup(jit, alg->name);
    if (!fn) COLLC_UNREACHABLE("the JIT lost the generated function");

    RunRequest q = {.fn = fn, .rooted = collective_info[alg->coll].rooted, .collective = coll,
                    .N = (int)N, .root = (int)root, .in_place = in_place, .iters = iters,
                    .warmup = warmup, .count = count, .dtype = dt, .op = op};
    RunResult res;
    progress_step("running on %" PRId64 " threads", N);
    run_threads(&q, &res);
    jit_free(jit);
    progress_end();

    int status = EXIT_OK;
    char szbuf[32];
    cost_fmt_bytes((double)count * (double)esz * blocks, szbuf, sizeof szbuf);
    printf("%s (%s) on cpu threads: N = %" PRId64, alg->name, collective_info[alg->coll].keyword, N);
    if (q.rooted) printf(", root %" PRId64, root);
    printf(", %s %s", szbuf, coll_dtype_name(dt));
    if (collective_info[alg->coll].reducing) printf(" %s", coll_op_name(op));
    printf("%s, count %zu\n", in_place ? " in-place" : "", count);
    if (res.setup_status != 0) {
        diag_error(dx, span_none(), "run", "cannot run %" PRId64 " threads: %s", N,
                   coll_strerror(res.setup_status));
        status = EXIT_INPUT;
    } else if (res.bad_rank >= 0 && res.bad_status != 0) {
        diag_error(dx, alg->name_span, "run", "rank %d: %s returned %s", res.bad_rank, alg->name,
                   coll_strerror(res.bad_status));
        status = EXIT_INPUT;
    } else if (res.bad_rank >= 0) {
        diag_error(dx, alg->name_span, "wrong-result",
                   "rank %d: element %zu of the output differs from the reference", res.bad_rank,
                   res.bad_elem);
        status = EXIT_INPUT;
    }
    if (status == EXIT_OK) {
        double t = res.seconds;
        double bytes = (double)count * (double)esz * blocks; /* nccl-tests: the larger buffer */
        double algbw = t > 0 ? bytes / t / 1e9 : 0;
        printf("  time    %10.3f us   (mean of %d, after %d warm-up)\n", t * 1e6, iters, warmup);
        printf("  algbw   %10.3f GB/s\n", algbw);
        printf("  busbw   %10.3f GB/s\n", algbw * run_bus_factor(coll, (int)N));
        printf("  check   OK (every rank bit-exact against the naive reference)\n");
    }
    return status;
}

int cmd_run(int argc, char **argv) {
    DriverOptions o;
    int status = options_parse(&o, CMD_run, argc, argv);
    if (status >= 0) return status;
    const CommonOptions opts = o.common;
    int64_t N = 0, root = o.root;
    double size = o.size;
    coll_dtype dt = (coll_dtype)driver_dtypes[o.dtype].coll;
    coll_op op = (coll_op)driver_ops[o.op].coll;
    status = options_single_n(&o, -1, "ranks", &N);
    if (status < 0 && N > run_max_ranks())
        status = usage_error("run", "-N must be in 1..%d for the cpu target, got %" PRId64, run_max_ranks(), N);
    if (status < 0 && driver_dtypes[o.dtype].coll < 0) {
        char list[160];
        status = usage_error("run", "the cpu target has no %s; its element types are %s", driver_dtypes[o.dtype].name,
                             options_dtype_list(0, list, sizeof list));
    }
    if (status < 0 && size > DRIVER_MAX_MOVED_BYTES)
        status = usage_error("run", "--size must be at most " DRIVER_MAX_MOVED_TEXT);
    if (status >= 0) goto out;

    Session s;
    if (session_open(&s, &opts, o.files, o.nfiles) != 0) {
        status = session_close(&s, EXIT_INPUT);
        goto out;
    }
    Algorithm **algs;
    int nalgs = session_algorithms(&s, &algs);
    int failed = 0;
    for (int k = 0; k < nalgs; k++) {
        if (collective_info[algs[k]->coll].reducing && coll_op_supported(dt, op) != COLL_OK) {
            diag_error(s.dx, algs[k]->name_span, "bad-op", "--op %s is not defined for --dtype %s",
                       coll_op_name(op), coll_dtype_name(dt));
            failed = 1;
            continue;
        }
        int r = run_one(&s, algs[k], N, root, size, o.given[OPT_COUNT] ? o.count : -1, dt, op, (int)o.iters,
                        (int)o.warmup, o.in_place, o.no_verify, (int)o.opt_level);
        fflush(stdout);
        if (r > failed) failed = r;
        if (r == EXIT_USAGE) break;
    }
    status = session_close(&s, failed);
out:
    options_free(&o);
    return status;
}
