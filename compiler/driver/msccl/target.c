/* target.c - the MSCCL target: `collc compile --target=msccl -N n` writes
 * MSCCL-IR for N GPUs (compiler/msccl/msccl_write.c), then reads the file
 * back with the rules of the executor's parser and verifies what it reads
 * (compiler/msccl/msccl_xml.c, msccl_sched.c), so that a file collc writes
 * is one the executor accepts and that computes its collective. */
#include <stdlib.h>
#include <string.h>
#include "driver/pipeline.h"
#include "driver/target.h"
#include "front/front.h"
#include "msccl/msccl.h"
#include "msccl/msccl_write.h"
#include "support/util.h"

enum { MS_EMIT_XML };

static const TargetEmit ms_emits[] = {
    {"xml", MS_EMIT_XML, ".xml", "MSCCL-IR (the default; NAME.xml)"},
    {NULL, 0, NULL, NULL},
};

/* The executor takes every element type and operator NCCL has: the file
 * does not name them. */
static int ms_dtype(DriverDtype t) { (void)t; return 0; }
static int ms_op(DriverOp op) { (void)op; return 0; }

static const char *const proto_names[] = {"Simple", "LL", "LL128"};

static Status ms_options(Cmd *c) {
    const DriverOptions *d = &c->o;
    if (d->emit) {
        const TargetEmit *e;
        Status st = target_emit(d->name, &target_msccl, d->emit, &e);
        if (st != EXIT_GO_ON) return st;
    }
    if (d->max_bytes && d->min_bytes > d->max_bytes)
        return usage_error(d->name, "--min-bytes is more than --max-bytes");
    return EXIT_GO_ON;
}

/* The file read back as the executor reads it, and verified. */
static int read_back(Cmd *c, const Algorithm *src, const char *path, char *text, size_t len) {
    Session *s = &c->s;
    int id = source_add(&s->sm, path, text, len);
    Program prog;
    memset(&prog, 0, sizeof prog);
    if (msccl_read(&s->arena, s->dx, (uint32_t)id, &prog) || sema_check(&s->arena, s->dx, &prog))
        return 1;
    for (int k = 0; k < prog.nalgorithms; k++) {
        const Algorithm *alg = prog.algorithms[k];
        SchedParams p = pipeline_params(s, src, 0, c->N, 0);
        p.ndefines = 0;
        Schedule sched;
        if (pipeline_instantiate(s, alg, &p, &sched, NULL) != EXIT_GO_ON) return 1;
        Status st = pipeline_verify(c, alg, &sched, PIPE_LOWER);
        schedule_free(&sched);
        if (st != EXIT_GO_ON) return 1;
    }
    return 0;
}

static int compile_one(Cmd *c, const Algorithm *alg, const char *path) {
    Session *s = &c->s;
    Schedule sched;
    if (pipeline_prepare(c, alg, 0, PIPE_LOWER, &sched) != EXIT_GO_ON) return 1;
    MsWriteOptions o = {
        .proto = proto_names[c->o.proto],
        .channels = c->o.given[OPT_CHANNELS] ? (int)c->o.channels : 1,
        .inplace = c->o.inplace,
        .min_bytes = c->o.min_bytes,
        .max_bytes = c->o.max_bytes,
    };
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) COLLC_UNREACHABLE("open_memstream");
    int failed = msccl_write(mem, &sched, &o, s->dx);
    fclose(mem);
    schedule_free(&sched);
    if (!failed) failed = read_back(c, alg, path, text, len);
    if (!failed) {
        FILE *f = session_output(s, path, "w");
        failed = !f || fwrite(text, 1, len, f) != len;
        if (f) failed |= session_output_close(s, f, path);
    }
    free(text);
    return failed;
}

static Status ms_compile(Cmd *c) {
    const char *out = c->o.output;
    if (c->nalgs > 1 && out && strcmp(out, "-"))
        return usage_error(c->o.name, "-o names one file, but there are %d algorithms (use "
                                      "--algorithm)", c->nalgs);
    int failed = 0;
    for (int k = 0; k < c->nalgs; k++) {
        const char *path = out ? out
                               : default_output_path(&c->s.arena, c->algs[k]->name, ".xml");
        failed |= compile_one(c, c->algs[k], path);
    }
    return failed ? EXIT_INPUT : EXIT_GO_ON;
}

const Target target_msccl = {
    .name = "msccl",
    .summary = "MSCCL-IR XML for N GPUs, the file the MSCCL executor of NCCL and RCCL runs, with "
               "options of its own: collc compile --target=msccl --help",
    .fixed_n = "GPUs",
    .emits = ms_emits,
    .engine = "the MSCCL executor",
    .dtype = ms_dtype,
    .op = ms_op,
    .options = ms_options,
    .compile = ms_compile,
};
