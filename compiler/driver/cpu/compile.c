/* compile.c - `collc compile` for the targets whose output is Rank IR code
 * (cpu, mpi; rankir_target.h): project the algorithms onto one rank (Rank
 * IR) and emit C, LLVM IR, bitcode, assembly or an object file.
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
#include "driver/cpu/rankir_target.h"
#include "driver/pipeline.h"
#include "driver/progress.h"
#include "emit/emit_c.h"
#include "emit/emit_header.h"
#include "support/util.h"

#include <string.h>

typedef enum EmitKind { EMIT_OBJECT, EMIT_ASM, EMIT_LLVM_IR, EMIT_BITCODE, EMIT_C, EMIT_RANKIR } EmitKind;

const TargetEmit rankir_emits[] = {
    {"c", EMIT_C, ".c", "C source (NAME.c)"},
    {"llvm", EMIT_LLVM_IR, ".ll", "as -emit-llvm"},
    {"obj", EMIT_OBJECT, ".o", "as -c"},
    {"asm", EMIT_ASM, ".s", "as -S"},
    {"rankir", EMIT_RANKIR, NULL, "the Rank IR (the endpoint projection) on standard output"},
    {NULL, 0, NULL, NULL},
};

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

/* The output kind of -c, -S, -emit-llvm and --emit. EXIT_GO_ON, or
 * EXIT_USAGE after the usage error. */
static Status emit_kind(const Cmd *c, EmitKind *kind) {
    const DriverOptions *o = &c->o;
    if (o->emit) {
        const TargetEmit *e;
        Status st = target_emit(o->name, c->target, o->emit, &e);
        if (st != EXIT_GO_ON) return st;
        *kind = e->kind == EMIT_LLVM_IR && o->flag_c ? EMIT_BITCODE : (EmitKind)e->kind;
    } else if (o->flag_S && o->flag_c) {
        return usage_error(o->name, "-S and -c cannot be used together");
    } else if (o->flag_S) {
        *kind = o->emit_llvm ? EMIT_LLVM_IR : EMIT_ASM;
    } else {
        *kind = o->emit_llvm ? EMIT_BITCODE : EMIT_OBJECT;
    }
    return EXIT_GO_ON;
}

Status rankir_options(Cmd *c) {
    const DriverOptions *o = &c->o;
    EmitKind kind = EMIT_OBJECT; /* set by emit_kind; GCC -O3 cannot see it */
    Status st = emit_kind(c, &kind);
    if (st != EXIT_GO_ON) return st;
    const char *output = o->output, *header = o->emit_header; /* --emit-header: "" = beside the output */
    int output_stdout = (output && strcmp(output, "-") == 0) || (!output && kind == EMIT_RANKIR);
    if (header && !*header && output_stdout)
        return usage_error(o->name, "the output goes to stdout: name the header with --emit-header=FILE");
    if (header && strcmp(header, "-") == 0 && output_stdout)
        return usage_error(o->name, "the output and the header cannot both go to stdout");
    if (header && output && strcmp(output, "-") != 0) {
        size_t n = strlen(output);
        if (*header ? strcmp(header, output) == 0 : n >= 2 && strcmp(output + n - 2, ".h") == 0)
            return usage_error(o->name, "the header would overwrite the output '%s'", output);
    }
    return EXIT_GO_ON;
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
    FILE *out = session_output(s, path, "w");
    if (!out) return 1;
    emit_header_file(out, progs, nprogs, ho);
    return session_output_close(s, out, path);
}

/* C source or the Rank IR dump into path. 0, or 1 after reporting. */
static int write_text(Cmd *c, EmitKind kind, const char *path, const RankProgram *const *progs, int nprogs,
                      const char *core_prefix) {
    const RankIrTarget *rt = c->target->data;
    FILE *out = session_output(&c->s, path, "w");
    if (!out) return 1;
    if (kind == EMIT_RANKIR) {
        for (int k = 0; k < nprogs; k++) rankir_dump(out, progs[k]);
    } else {
        EmitCOptions eo = {.source_name = c->o.files[0], .prefix = core_prefix};
        emit_c_file(out, progs, nprogs, &eo);
        if (rt->c_after) rt->c_after(out, progs, nprogs, c->o.prefix);
    }
    return session_output_close(&c->s, out, path);
}

/* An object, assembly, IR or bitcode through LLVM. 0, or 1 after reporting. */
static int write_llvm(Cmd *c, EmitKind kind, const char *path, const RankProgram *const *progs, int nprogs,
                      const char *core_prefix) {
    const RankIrTarget *rt = c->target->data;
    /* LLVM's code generation of many algorithms takes its time */
    progress_begin("compile", path);
    progress_step("generating code");
    EmitLLVMOptions lo = {
        .module_name = c->o.files[0],
        .triple = c->triple ? c->triple : c->o.triple,
        .opt_level = (int)c->o.opt_level,
        .prefix = core_prefix,
        .kind = kind == EMIT_OBJECT ? LLVM_OUT_OBJECT
                : kind == EMIT_ASM  ? LLVM_OUT_ASM
                : kind == EMIT_LLVM_IR ? LLVM_OUT_IR
                                       : LLVM_OUT_BITCODE,
        .output = path,
    };
    int failed = rt->llvm(progs, nprogs, &lo, c->o.prefix, c->s.dx) != 0;
    progress_end();
    return failed;
}

Status rankir_compile(Cmd *c) {
    const RankIrTarget *rt = c->target->data;
    Session *s = &c->s;
    EmitKind kind = EMIT_OBJECT; /* set by emit_kind; GCC -O3 cannot see it */
    if (emit_kind(c, &kind) != EXIT_GO_ON) COLLC_UNREACHABLE("rankir_options checked --emit");
    int failed = 0, too_large = 0;
    const RankProgram **progs = ARENA_ARRAY(&s->arena, const RankProgram *, c->nalgs);
    int nprogs = 0;
    for (int k = 0; k < c->nalgs; k++) {
        progress_begin("compile", c->algs[k]->name);
        /* verified for the N of -N (the code is for any N), then projected */
        RankProgram *rp = NULL;
        Status vst = pipeline_verify_many(c, c->algs[k], PIPE_COMPILE);
        if (vst == EXIT_TOO_LARGE) too_large = 1;
        else if (vst != EXIT_GO_ON || pipeline_lower(c, c->algs[k], &rp) != EXIT_GO_ON) failed = 1;
        if (vst == EXIT_GO_ON && rp) {
            pipeline_vblocks(c, c->algs[k], rp);
            progs[nprogs++] = rp;
        }
    }
    progress_end();
    if (failed || too_large) return failed ? EXIT_INPUT : EXIT_TOO_LARGE;
    /* mpi: the algorithms become collc_PREFIXNAME; PREFIXNAME is the
     * MPI-signature wrapper (emit_mpi.h). */
    const char *prefix = c->o.prefix;
    const char *core_prefix = arena_printf(&s->arena, "%s%s", rt->core_prefix, prefix);
    const char *output = c->o.output;
    const char *path = output;
    if (!path) path = kind == EMIT_RANKIR ? "-" : default_output_path(&s->arena, c->o.files[0], default_suffix(kind));
    failed = kind == EMIT_C || kind == EMIT_RANKIR ? write_text(c, kind, path, progs, nprogs, core_prefix)
                                                   : write_llvm(c, kind, path, progs, nprogs, core_prefix);
    const char *header = c->o.emit_header;
    if (!failed && header) {
        if (!output) path = default_output_path(&s->arena, c->o.files[0], default_suffix(kind));
        const char *hpath = *header ? header : header_path_beside(&s->arena, path);
        EmitHeaderOptions ho = {.source_name = c->o.files[0],
                                .guard = emit_header_guard(&s->arena, hpath, c->o.files[0]),
                                .prefix = prefix,
                                .core_prefix = core_prefix,
                                .target_mpi = rt->header_mpi};
        failed = write_header(s, hpath, progs, nprogs, &ho);
    }
    return failed ? EXIT_INPUT : EXIT_GO_ON;
}
