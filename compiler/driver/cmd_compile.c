/* cmd_compile.c - `collc compile`: project algorithms onto one rank (Rank IR)
 * and emit C, LLVM IR, bitcode, assembly or an object file.
 *
 * Output kinds follow clang's flags:
 *   -c (default)      object file        NAME.o
 *   -S                assembly           NAME.s
 *   -S -emit-llvm     LLVM IR            NAME.ll
 *   -c -emit-llvm     LLVM bitcode       NAME.bc
 *   --emit=c          C source           NAME.c
 *   --emit=rankir     Rank IR dump       stdout
 * where NAME is the input file's base name; -o FILE overrides, -o - is stdout. */
#include "driver/driver.h"
#include "analysis/verify.h"
#include "emit/emit_c.h"
#include "emit/emit_header.h"
#include "emit/emit_llvm.h"
#include "emit/emit_mpi.h"
#include "lower/rankir.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void compile_help(void) {
    fputs("usage: collc compile [OPTIONS] FILE...\n"
          "\n"
          "Compiles the algorithms of FILE into per-rank programs that call the\n"
          "collc runtime (runtime/include/coll.h).\n"
          "\n"
          "options:\n"
          "  -c                            object file (default; NAME.o)\n"
          "  -S                            assembly (NAME.s)\n"
          "  -emit-llvm                    with -S: LLVM IR (NAME.ll); with -c: bitcode (NAME.bc)\n"
          "  --emit=c                      C source (NAME.c)\n"
          "  --emit=rankir                 the Rank IR (endpoint projection), for inspection\n"
          "  -o FILE                       output file ('-' = stdout)\n"
          "  --emit-header[=FILE]          also write a C header declaring every compiled\n"
          "                                function (default FILE: the output's name with .h)\n"
          "  -O0 -O1 -O2 -O3               LLVM optimisation level (default -O2)\n"
          "  --target=cpu|mpi              runtime target (default cpu). mpi also emits, per\n"
          "                                algorithm, NAME with the MPI collective's signature\n"
          "                                (the algorithm itself becomes collc_NAME); see\n"
          "                                docs/mpi.md\n"
          "  --target=sg2260               SG2260 CDMA descriptor programs for a fixed -N (own\n"
          "                                options: collc compile --target=sg2260 --help;\n"
          "                                docs/sg2260.md)\n"
          "  --target=TRIPLE, --triple=T   LLVM target triple (default: the host)\n"
          "  --prefix=STR                  prepend STR to every generated function name\n"
          "  --no-verify                   emit even if `collc verify` fails (default: refuse)\n"
          "  -N LIST                       rank counts verified before emitting (default:\n"
          "                                1..17, 24, 31..33, 64, 128, 256, 257)\n"
          "  -D NAME=VALUE                 fix `param NAME` at compile time\n"
          "  --algorithm NAME              compile only NAME (default: every algorithm)\n"
          "  --diagnostics-format=FMT      text (default), json or sarif\n"
          "\n"
          "Exit status: 0 ok, 1 errors in the input, 2 usage error.\n",
          stdout);
}

typedef enum EmitKind { EMIT_OBJECT, EMIT_ASM, EMIT_LLVM_IR, EMIT_BITCODE, EMIT_C, EMIT_RANKIR } EmitKind;

static const char *default_suffix(EmitKind k) {
    switch (k) {
    case EMIT_OBJECT: return ".o";
    case EMIT_ASM: return ".s";
    case EMIT_LLVM_IR: return ".ll";
    case EMIT_BITCODE: return ".bc";
    case EMIT_C: return ".c";
    case EMIT_RANKIR: return NULL;
    }
    return NULL;
}

/* --emit-header without a name: the output's path with its suffix replaced
 * by .h (ring.o -> ring.h, out/ring.c -> out/ring.h). */
static const char *header_path_beside(Arena *a, const char *output) {
    const char *base = strrchr(output, '/');
    base = base ? base + 1 : output;
    const char *dot = strrchr(base, '.');
    size_t n = dot && dot != base ? (size_t)(dot - output) : strlen(output);
    return arena_printf(a, "%.*s.h", (int)n, output);
}

static int write_header(Session *s, const char *path, const RankProgram *const *progs, int nprogs,
                        const EmitHeaderOptions *ho) {
    FILE *out = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    if (!out) {
        diag_error(s->dx, span_none(), "io", "cannot open '%s' for writing: %s", path, strerror(errno));
        return 1;
    }
    emit_header_file(out, progs, nprogs, ho);
    if (out != stdout && fclose(out) != 0) {
        diag_error(s->dx, span_none(), "io", "cannot write '%s': %s", path, strerror(errno));
        return 1;
    }
    return 0;
}

/* --target=sg2260: lowering to CDMA descriptor programs (cmd_sg2260.c). */
int cmd_compile_sg2260(int argc, char **argv);

int cmd_compile(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--target=sg2260") == 0) return cmd_compile_sg2260(argc, argv);
    CommonOptions opts;
    common_options_init(&opts);
    char **files = calloc((size_t)argc + 1, sizeof *files);
    int nfiles = 0, only_files = 0;
    int flag_c = 0, flag_S = 0, flag_emit_llvm = 0, opt_level = 2, no_verify = 0;
    int target_mpi = 0;
    int64_t *ns = NULL;
    size_t nns = 0;
    const char *emit = NULL, *output = NULL, *triple = NULL, *prefix = "";
    const char *header = NULL; /* --emit-header: "" = beside the output */
    int status = EXIT_OK;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_files || a[0] != '-' || strcmp(a, "-") == 0) {
            files[nfiles++] = argv[i];
            continue;
        }
        if (strcmp(a, "--") == 0) { only_files = 1; continue; }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            compile_help();
            free(files);
            return EXIT_OK;
        }
        if (strcmp(a, "-c") == 0) { flag_c = 1; continue; }
        if (strcmp(a, "--no-verify") == 0) { no_verify = 1; continue; }
        if (strncmp(a, "-N", 2) == 0) {
            const char *v = a[2] ? a + 2 + (a[2] == '=') : NULL;
            if (!v) {
                if (i + 1 >= argc) { status = usage_error("compile", "missing value after '-N'"); goto out; }
                v = argv[++i];
            }
            free(ns);
            if (parse_rank_list(v, &ns, &nns)) {
                status = usage_error("compile", "bad rank list '%s' (examples: 8, 2..16, 4,8,16)", v);
                goto out;
            }
            continue;
        }
        if (strcmp(a, "-S") == 0) { flag_S = 1; continue; }
        if (strcmp(a, "-emit-llvm") == 0 || strcmp(a, "--emit-llvm") == 0) { flag_emit_llvm = 1; continue; }
        if (a[1] == 'O' && a[2] >= '0' && a[2] <= '3' && !a[3]) { opt_level = a[2] - '0'; continue; }
        if (strncmp(a, "--emit=", 7) == 0) { emit = a + 7; continue; }
        if (strcmp(a, "--emit-header") == 0) { header = ""; continue; }
        if (strncmp(a, "--emit-header=", 14) == 0) {
            header = a + 14;
            if (!*header) { status = usage_error("compile", "missing file name after '--emit-header='"); goto out; }
            continue;
        }
        if (strncmp(a, "--prefix=", 9) == 0) { prefix = a + 9; continue; }
        if (strncmp(a, "--triple=", 9) == 0) { triple = a + 9; continue; }
        if (strncmp(a, "--target=", 9) == 0) {
            const char *t = a + 9;
            if (strcmp(t, "cpu") == 0 || strcmp(t, "mpi") == 0) {
                target_mpi = strcmp(t, "mpi") == 0;
                continue;
            }
            if (strchr(t, '-')) { triple = t; continue; }
            status = usage_error("compile", "unknown target '%s' (expected cpu, mpi or an LLVM triple)", t);
            goto out;
        }
        if (strcmp(a, "-o") == 0) {
            if (i + 1 >= argc) { status = usage_error("compile", "missing file name after '-o'"); goto out; }
            output = argv[++i];
            continue;
        }
        int r = common_option(&opts, argc, argv, &i);
        if (r < 0) { status = EXIT_USAGE; goto out; }
        if (r == 0) { status = usage_error("compile", "unknown option '%s'", a); goto out; }
    }
    if (nfiles == 0) { status = usage_error("compile", "no input files"); goto out; }

    EmitKind kind;
    if (emit) {
        if (strcmp(emit, "c") == 0) kind = EMIT_C;
        else if (strcmp(emit, "rankir") == 0) kind = EMIT_RANKIR;
        else if (strcmp(emit, "llvm") == 0) kind = flag_c ? EMIT_BITCODE : EMIT_LLVM_IR;
        else if (strcmp(emit, "obj") == 0) kind = EMIT_OBJECT;
        else if (strcmp(emit, "asm") == 0) kind = EMIT_ASM;
        else {
            status = usage_error("compile", "unknown --emit kind '%s' (expected c, llvm, obj, asm or rankir)", emit);
            goto out;
        }
    } else if (flag_S && flag_c) {
        status = usage_error("compile", "-S and -c cannot be used together");
        goto out;
    } else if (flag_S) {
        kind = flag_emit_llvm ? EMIT_LLVM_IR : EMIT_ASM;
    } else {
        kind = flag_emit_llvm ? EMIT_BITCODE : EMIT_OBJECT;
    }
    int output_stdout = (output && strcmp(output, "-") == 0) || (!output && kind == EMIT_RANKIR);
    if (header && !*header && output_stdout) {
        status = usage_error("compile", "the output goes to stdout: name the header with --emit-header=FILE");
        goto out;
    }
    if (header && strcmp(header, "-") == 0 && output_stdout) {
        status = usage_error("compile", "the output and the header cannot both go to stdout");
        goto out;
    }
    if (header && output && strcmp(output, "-") != 0) {
        size_t n = strlen(output);
        if (*header ? strcmp(header, output) == 0 : n >= 2 && strcmp(output + n - 2, ".h") == 0) {
            status = usage_error("compile", "the header would overwrite the output '%s'", output);
            goto out;
        }
    }
    Session s;
    if (session_open(&s, &opts, files, nfiles) != 0) {
        status = session_close(&s, EXIT_INPUT);
        goto out;
    }
    Algorithm **algs;
    int nalgs = session_algorithms(&s, &algs);
    int failed = 0;
    const RankProgram **progs = ARENA_ARRAY(&s.arena, const RankProgram *, nalgs > 0 ? nalgs : 1);
    int nprogs = 0;
    for (int k = 0; k < nalgs; k++) {
        const Define *defs;
        int ndefs = session_defines(&s, algs[k], 0, &defs);
        if (!no_verify) {
            /* A schedule that does not verify is not compiled: the object
             * would compute something other than its collective. */
            VerifyOptions vo = {.ns = ns, .nns = nns, .root = -1, .defines = defs,
                                .ndefines = ndefs, .max_transfers = opts.max_transfers,
                                .correctness_only = 1};
            if (verify_algorithm(algs[k], &vo, s.dx, &s.arena, NULL)) {
                diag_note(s.dx, algs[k]->name_span,
                          "not compiling '%s' because it does not verify; --no-verify compiles it anyway",
                          algs[k]->name);
                failed = 1;
                continue;
            }
        }
        RankProgram *rp = ARENA_NEW(&s.arena, RankProgram);
        if (lower_algorithm(algs[k], defs, ndefs, &s.arena, s.dx, rp)) {
            failed = 1;
            continue;
        }
        progs[nprogs++] = rp;
    }
    /* --target=mpi: the algorithms become collc_PREFIXNAME; PREFIXNAME is the
     * MPI-signature wrapper (emit_mpi.h). */
    const char *core_prefix = target_mpi ? arena_printf(&s.arena, "%s%s", EMIT_MPI_CORE_PREFIX, prefix)
                                         : prefix;
    if (!failed) {
        const char *path = output;
        if (!path) path = kind == EMIT_RANKIR ? "-" : default_output_path(&s.arena, files[0], default_suffix(kind));
        if (kind == EMIT_C || kind == EMIT_RANKIR) {
            FILE *out = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
            if (!out) {
                diag_error(s.dx, span_none(), "io", "cannot open '%s' for writing: %s", path,
                           strerror(errno));
                failed = 1;
            } else {
                if (kind == EMIT_RANKIR) {
                    for (int k = 0; k < nprogs; k++) rankir_dump(out, progs[k]);
                } else {
                    EmitCOptions eo = {.source_name = files[0], .prefix = core_prefix};
                    emit_c_file(out, progs, nprogs, &eo);
                    if (target_mpi) emit_c_mpi_wrappers(out, progs, nprogs, prefix);
                }
                if (out != stdout && fclose(out) != 0) {
                    diag_error(s.dx, span_none(), "io", "cannot write '%s': %s", path, strerror(errno));
                    failed = 1;
                }
            }
        } else {
            EmitLLVMOptions lo = {
                .module_name = files[0],
                .triple = triple,
                .opt_level = opt_level,
                .prefix = core_prefix,
                .kind = kind == EMIT_OBJECT ? LLVM_OUT_OBJECT
                        : kind == EMIT_ASM ? LLVM_OUT_ASM
                        : kind == EMIT_LLVM_IR ? LLVM_OUT_IR
                                               : LLVM_OUT_BITCODE,
                .output = path,
            };
            if (target_mpi ? emit_llvm_file_mpi(progs, nprogs, &lo, prefix, s.dx)
                           : emit_llvm_file(progs, nprogs, &lo, s.dx))
                failed = 1;
        }
    }
    if (!failed && header) {
        const char *path = output;
        if (!path) path = default_output_path(&s.arena, files[0], default_suffix(kind));
        const char *hpath = *header ? header : header_path_beside(&s.arena, path);
        EmitHeaderOptions ho = {.source_name = files[0], .guard = emit_header_guard(&s.arena, hpath, files[0]),
                                .prefix = prefix, .core_prefix = core_prefix, .target_mpi = target_mpi};
        if (write_header(&s, hpath, progs, nprogs, &ho)) failed = 1;
    }
    status = session_close(&s, failed ? EXIT_INPUT : EXIT_OK);
out:
    free(ns);
    free(files);
    return status;
}
