/* cmd_run.c - `collc run`: verify, compile (LLVM, in memory), run on N
 * threads of this process with the cpu runtime, check the result against the
 * naive reference, and print time, algbw and busbw as nccl-tests defines
 * them (busbw = algbw x the collective's bus factor). */
#include "driver/driver.h"
#include "analysis/verify.h"
#include "emit/jit.h"
#include "lower/rankir.h"
#include "support/util.h"
#include "driver/run_threads.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void run_help(void) {
    fputs("usage: collc run [OPTIONS] FILE -N n\n"
          "\n"
          "Verifies the algorithm for N, compiles it with LLVM in memory, runs it on\n"
          "N threads (the cpu target), checks every rank's result bit for bit\n"
          "against a naive reference and prints time, algbw and busbw.\n"
          "\n"
          "options:\n"
          "  -N n                          number of ranks (threads), required\n"
          "  --size M                      message size M as collc cost uses it: the\n"
          "                                larger per-rank buffer (default 64MiB)\n"
          "  --dtype T                     f32 (default) f64 f16 bf16 i8 u8 i32 u32 i64 u64\n"
          "  --op OP                       sum (default) prod max min band bor bxor\n"
          "  --root r                      root of rooted collectives (default 0)\n"
          "  --iters K                     timed iterations (default 5)\n"
          "  --warmup W                    untimed iterations first (default 1)\n"
          "  --in-place                    pass COLL_IN_PLACE (MPI's in-place layout)\n"
          "  --no-verify                   run even if collc verify fails\n"
          "  -O0 .. -O3                    LLVM optimisation level (default -O2)\n"
          "  -D NAME=VALUE, --algorithm NAME, --diagnostics-format=FMT\n"
          "\n"
          "Exit status: 0 ok, 1 errors in the input or a wrong result, 2 usage error.\n",
          stdout);
}

static void human_bytes(double b, char *buf, size_t n) {
    const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int k = 0;
    while (b >= 1024 && k < 4) { b /= 1024; k++; }
    snprintf(buf, n, k ? "%.4g %s" : "%.0f %s", b, u[k]);
}

static int run_one(Session *s, Algorithm *alg, int64_t N, int64_t root, double size, coll_dtype dt,
                   coll_op op, int iters, int warmup, int in_place, int no_verify, int opt_level) {
    DiagEngine *dx = s->dx;
    /* Applicability first: name the `require` that excludes this N. */
    const Define *defs;
    int ndefs = session_defines(s, alg, 0, &defs);
    SchedParams sp = {.N = N, .root = root, .defines = defs,
                      .ndefines = ndefs, .max_transfers = s->opts.max_transfers};
    Schedule sched;
    const Stmt *failed = NULL;
    InstStatus ist = instantiate(alg, &sp, dx, &sched, &failed);
    if (ist == INST_ERROR) return EXIT_INPUT;
    if (ist == INST_NOT_APPLICABLE) {
        diag_error(dx, failed->span, "require-failed", "'%s' does not apply for N = %" PRId64 "%s%s",
                   alg->name, N, failed->u.require.why ? ": " : "",
                   failed->u.require.why ? failed->u.require.why : "");
        return EXIT_INPUT;
    }
    schedule_free(&sched);
    if (!no_verify) {
        VerifyOptions vo = {.ns = &N, .nns = 1, .root = root, .defines = defs,
                            .ndefines = ndefs, .max_transfers = s->opts.max_transfers,
                            .correctness_only = 1};
        if (verify_algorithm(alg, &vo, dx, &s->arena, NULL)) {
            diag_note(dx, alg->name_span, "not running '%s' (it does not verify for N = %" PRId64
                      "); --no-verify runs it anyway", alg->name, N);
            return EXIT_INPUT;
        }
    }
    RankProgram *rp = ARENA_NEW(&s->arena, RankProgram);
    if (lower_algorithm(alg, defs, ndefs, &s->arena, dx, rp)) return EXIT_INPUT;
    const RankProgram *progs[1] = {rp};
    JitSymbol *syms = ARENA_ARRAY(&s->arena, JitSymbol, run_nruntime_symbols);
    for (int i = 0; i < run_nruntime_symbols; i++)
        syms[i] = (JitSymbol){run_runtime_symbols[i].name, run_runtime_symbols[i].address};
    Jit *jit = jit_compile(progs, 1, opt_level, syms, run_nruntime_symbols, dx);
    if (!jit) return EXIT_INPUT;
    void *fn = jit_lookup(jit, alg->name);
    if (!fn) COLLC_UNREACHABLE("the JIT lost the generated function");

    /* a Collective's value is its ABI value (both from coll_collectives.def) */
    coll_collective coll = (coll_collective)alg->coll;
    size_t esz = coll_dtype_size(dt);
    int blocks = run_blocks(coll, (int)N);
    size_t count = (size_t)(size / ((double)blocks * (double)esz));
    RunRequest q = {.fn = fn, .rooted = collective_info[alg->coll].rooted, .collective = coll,
                    .N = (int)N, .root = (int)root, .in_place = in_place, .iters = iters,
                    .warmup = warmup, .count = count, .dtype = dt, .op = op};
    RunResult res;
    run_threads(&q, &res);
    jit_free(jit);

    int status = EXIT_OK;
    char szbuf[32];
    human_bytes((double)count * (double)esz * blocks, szbuf, sizeof szbuf);
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
    CommonOptions opts;
    common_options_init(&opts);
    char **files = calloc((size_t)argc + 1, sizeof *files);
    int nfiles = 0, have_N = 0, in_place = 0, no_verify = 0, opt_level = 2;
    int64_t N = 0, root = 0, iters = 5, warmup = 1;
    double size = 64.0 * 1024 * 1024;
    coll_dtype dt = COLL_F32;
    coll_op op = COLL_SUM;
    int status = EXIT_OK;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || strcmp(a, "-") == 0) {
            files[nfiles++] = argv[i];
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            run_help();
            free(files);
            return EXIT_OK;
        }
        /* options with a value: -N n, --size M, ... (also --opt=value) */
        const char *names[] = {"-N", "--size", "--dtype", "--op", "--root", "--iters", "--warmup"};
        int matched = -1;
        const char *v = NULL;
        for (int k = 0; k < 7 && matched < 0; k++) {
            size_t n = strlen(names[k]);
            if (strncmp(a, names[k], n) == 0 && (a[n] == 0 || a[n] == '=' || (k == 0 && a[n]))) {
                matched = k;
                v = a[n] == '=' ? a + n + 1 : a[n] ? a + n : NULL;
            }
        }
        if (matched >= 0) {
            if (!v) {
                if (i + 1 >= argc) { status = usage_error("run", "missing value after '%s'", a); goto out; }
                v = argv[++i];
            }
            int bad = 0;
            switch (matched) {
            case 0: bad = parse_int64(v, &N); have_N = 1; break;
            case 1: bad = parse_size(v, &size); break;
            case 2: bad = coll_dtype_from_name(v, &dt) != 0; break;
            case 3: bad = coll_op_from_name(v, &op) != 0; break;
            case 4: bad = parse_int64(v, &root); break;
            case 5: bad = parse_int64(v, &iters) || iters < 1; break;
            case 6: bad = parse_int64(v, &warmup) || warmup < 0; break;
            }
            if (bad) { status = usage_error("run", "invalid value '%s' for %s", v, names[matched]); goto out; }
            continue;
        }
        if (strcmp(a, "--in-place") == 0) { in_place = 1; continue; }
        if (strcmp(a, "--no-verify") == 0) { no_verify = 1; continue; }
        if (a[1] == 'O' && a[2] >= '0' && a[2] <= '3' && !a[3]) { opt_level = a[2] - '0'; continue; }
        int r = common_option(&opts, argc, argv, &i);
        if (r < 0) { status = EXIT_USAGE; goto out; }
        if (r == 0) { status = usage_error("run", "unknown option '%s'", a); goto out; }
    }
    if (nfiles == 0) { status = usage_error("run", "no input file"); goto out; }
    if (!have_N) { status = usage_error("run", "missing -N (the number of ranks)"); goto out; }
    if (N < 1 || N > run_max_ranks()) {
        status = usage_error("run", "-N must be in 1..%d for the cpu target, got %" PRId64,
                             run_max_ranks(), N);
        goto out;
    }
    if (root < 0 || root >= N) { status = usage_error("run", "--root must be in 0..N-1"); goto out; }
    if (size < 0 || size > 64.0 * 1024 * 1024 * 1024) {
        status = usage_error("run", "--size must be between 0 and 64GiB");
        goto out;
    }

    Session s;
    if (session_open(&s, &opts, files, nfiles) != 0) {
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
        if (run_one(&s, algs[k], N, root, size, dt, op, (int)iters, (int)warmup, in_place,
                    no_verify, opt_level) != EXIT_OK)
            failed = 1;
        fflush(stdout);
    }
    status = session_close(&s, failed ? EXIT_INPUT : EXIT_OK);
out:
    free(files);
    return status;
}
