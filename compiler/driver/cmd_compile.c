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
 * where NAME is the input file's base name; -o FILE overrides, -o - is stdout.
 * --emit-header[=FILE] also writes a header declaring every compiled
 * function (default: beside the output, NAME.h). */
#include "driver/options.h"
#include "emit/emit_c.h"
#include "emit/emit_header.h"
#include "emit/emit_llvm.h"
#include "emit/emit_mpi.h"
#include "driver/pipeline.h"
#include "driver/progress.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

int cmd_compile(int argc, char **argv) {
    /* --target=sg2260 lowers to CDMA descriptor programs: a command line
     * with options of its own (cmd_sg2260.c) */
    const char *target = options_value(argc, argv, OPT_TARGET);
    if (target && strcmp(target, "sg2260") == 0) return cmd_compile_sg2260(argc, argv);
    DriverOptions o;
    int status = options_parse(&o, CMD_compile, argc, argv);
    if (status >= 0) return status;
    const CommonOptions opts = o.common;
    char **files = o.files;
    int flag_c = o.flag_c, flag_S = o.flag_S, flag_emit_llvm = o.emit_llvm, opt_level = (int)o.opt_level;
    int no_verify = o.no_verify, target_mpi = 0;
    const int64_t *ns = o.ns.v;
    size_t nns = o.ns.n;
    const char *emit = o.emit, *output = o.output, *triple = o.triple, *prefix = o.prefix;
    const char *header = o.emit_header; /* --emit-header: "" = beside the output */
    if (o.target) {
        const char *t = o.target;
        if (strcmp(t, "cpu") == 0 || strcmp(t, "mpi") == 0) target_mpi = strcmp(t, "mpi") == 0;
        else if (strchr(t, '-')) triple = t;
        else {
            status = usage_error("compile", "unknown target '%s' (expected cpu, mpi, sg2260 or an LLVM triple)", t);
            goto out;
        }
    }

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
    if (session_open(&s, &opts, files, o.nfiles) != 0) {
        status = session_close(&s, EXIT_INPUT);
        goto out;
    }
    Algorithm **algs;
    int nalgs = session_algorithms(&s, &algs);
    int failed = 0;
    const RankProgram **progs = ARENA_ARRAY(&s.arena, const RankProgram *, nalgs > 0 ? nalgs : 1);
    int nprogs = 0;
    for (int k = 0; k < nalgs; k++) {
        PipelineRequest rq = {.use = PIPE_COMPILE, .ns = ns, .nns = nns, .root = -1, .no_verify = no_verify,
                              .rank_program = 1};
        Prepared pp;
        progress_begin("compile", algs[k]->name);
        if (pipeline_prepare(&s, algs[k], &rq, &pp)) failed = 1;
        else progs[nprogs++] = pp.rp;
    }
    progress_end();
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
            /* LLVM's code generation of many algorithms takes its time */
            progress_begin("compile", path);
            progress_step("generating code");
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
            progress_end();
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
    options_free(&o);
    return status;
}
