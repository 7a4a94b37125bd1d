/* cmd_sg2260.c - the SG2260 target in the driver: `collc compile
 * --target=sg2260 ...` (cmd_compile hands the whole command line to
 * cmd_compile_sg2260), and what it shares with `collc sim` (cmd_sim.c):
 * the options, the machine and chips, the session and the lowering of one
 * algorithm (driver/sg2260_cli.h). The lowering itself is compiler/sg2260/. */
#include "driver/sg2260_cli.h"
#include "analysis/cost.h"
#include "driver/cost_machine.h"
#include "driver/pipeline.h"
#include "driver/progress.h"
#include "support/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int sg_ref_dtype(Sg2260Dtype t, coll_dtype *out) {
    switch (t) {
    case SG2260_INT8: *out = COLL_I8; return 0;
    case SG2260_FP16: *out = COLL_F16; return 0;
    case SG2260_FP32: *out = COLL_F32; return 0;
    case SG2260_INT32: *out = COLL_I32; return 0;
    case SG2260_BF16: *out = COLL_BF16; return 0;
    default: return -1; /* int16, fp20: the reference has no such type */
    }
}

coll_op sg_ref_op(Sg2260Op op) {
    switch (op) {
    case SG2260_OP_MUL: return COLL_PROD;
    case SG2260_OP_MAX: return COLL_MAX;
    case SG2260_OP_MIN: return COLL_MIN;
    default: return COLL_SUM;
    }
}

static int parse_chips(const char *v, SgOptions *o) {
    o->nchips = 0;
    const char *p = v;
    while (*p) {
        char *e;
        long c = strtol(p, &e, 10);
        if (e == p || c < 0 || c >= SG2260_MAX_CHIPS || o->nchips == SG2260_MAX_CHIPS) return -1;
        o->chips[o->nchips++] = (int)c;
        p = e;
        if (*p == ',') p++;
        else if (*p) return -1;
    }
    return o->nchips ? 0 : -1;
}

/* The engine's view of the command line; -1 to go on, else the exit
 * status after a usage error. */
static int sg_options(SgOptions *o, const DriverOptions *d) {
    const char *cmd = d->name;
    int status = options_single_n(d, -1, "chips", &o->N);
    if (status >= 0) return status;
    o->common = d->common;
    o->files = d->files;
    o->nfiles = d->nfiles;
    o->root = d->root;
    if (d->chips && parse_chips(d->chips, o))
        return usage_error(cmd, "--chips expects chip numbers like 0,2,6,7, got '%s'", d->chips);
    o->machine_path = d->machine;
    if (driver_dtypes[d->dtype].sg < 0) {
        char list[160];
        return usage_error(cmd, "the SG2260 CDMA engine has no %s; its element types are %s",
                           driver_dtypes[d->dtype].name, options_dtype_list(1, list, sizeof list));
    }
    o->dtype = (Sg2260Dtype)driver_dtypes[d->dtype].sg;
    o->op_name = driver_ops[d->op].name;
    /* band, bor, bxor: no CDMA reduce op, refused for algorithms that reduce */
    o->op_bitwise = driver_ops[d->op].sg < 0;
    o->op = o->op_bitwise ? SG2260_OP_ADD : (Sg2260Op)driver_ops[d->op].sg;
    o->count = d->given[OPT_COUNT] ? d->count : -1;
    if (d->size > DRIVER_MAX_MOVED_BYTES) return usage_error(cmd, "--size must be at most " DRIVER_MAX_MOVED_TEXT);
    o->size = d->size;
    o->store_forward = d->route == ROUTE_STORE_FORWARD;
    o->sink_local = !d->no_sink_copies;
    o->no_verify = d->no_verify;
    o->race_check = !d->no_race_check;
    o->check = d->check;
    o->progress = d->progress;
    o->align = SG2260_ALIGN;
    o->trace = d->trace;
    o->svg = d->svg;
    o->flag_c = d->flag_c;
    o->output = d->output;
    o->prefix = d->prefix;
    o->triple = d->triple;
    if (d->target && strcmp(d->target, "sg2260") != 0)
        return usage_error(cmd, "--target=sg2260 cannot be combined with --target=%s", d->target);
    o->emit = SG_EMIT_OBJECT;
    if (d->emit) {
        if (strcmp(d->emit, "cdma-asm") == 0) o->emit = SG_EMIT_ASM;
        else if (strcmp(d->emit, "cdma") == 0) o->emit = SG_EMIT_BIN;
        else if (strcmp(d->emit, "c") == 0) o->emit = SG_EMIT_C;
        else if (strcmp(d->emit, "obj") == 0) o->emit = SG_EMIT_OBJECT;
        else
            return usage_error(cmd, "unknown --emit kind '%s' for --target=sg2260 (expected cdma-asm, cdma, c or obj)",
                               d->emit);
    }
    if (o->flag_c && o->emit != SG_EMIT_OBJECT)
        return usage_error(cmd, "-c and --emit=%s cannot be used together", d->emit);
    return -1;
}

/* The chip of each rank: --chips, else the machine's default placement
 * (sg2260_machine_place: its ring of N chips). */
static int choose_chips(SgOptions *o, const Sg2260Machine *m, const char *cmd) {
    if (o->N > m->nchips)
        return usage_error(cmd, "-N %" PRId64 " is more than the %d chips of machine '%s'", o->N, m->nchips,
                           m->name);
    if (o->nchips) {
        if (o->nchips != o->N)
            return usage_error(cmd, "--chips names %d chips for -N %" PRId64, o->nchips, o->N);
        for (int i = 0; i < o->nchips; i++) {
            if (o->chips[i] >= m->nchips)
                return usage_error(cmd, "chip %d is not on machine '%s' (%d chips)", o->chips[i], m->name,
                                   m->nchips);
            for (int j = 0; j < i; j++)
                if (o->chips[j] == o->chips[i]) return usage_error(cmd, "chip %d appears twice in --chips", o->chips[i]);
        }
        return -1;
    }
    if (sg2260_machine_place(m, (int)o->N, o->chips) == 0) {
        o->nchips = (int)o->N;
        return -1;
    }
    return usage_error(cmd, "machine '%s' has no ring of %" PRId64 " chips; give the chips with --chips", m->name,
                       o->N);
}

int sg_lower_one(Session *s, SgOptions *o, const Sg2260Machine *m, Algorithm *alg, SgLowered *L) {
    DiagEngine *dx = s->dx;
    memset(L, 0, sizeof *L);
    L->alg = alg;
    int64_t root = collective_info[alg->coll].rooted ? o->root : 0;
    PipelineRequest rq = {.use = PIPE_LOWER, .N = o->N, .root = root, .no_verify = o->no_verify, .keep_schedule = 1};
    Prepared pp;
    if (pipeline_prepare(s, alg, &rq, &pp)) return 1;
    L->sched = pp.sched;
    /* Several reduces into one chunk in one step would be reducing writes
     * in flight on one destination: one after another instead. */
    schedule_split_reduces(&L->sched);
    int reduces = 0;
    for (size_t k = 0; k < L->sched.nxfers && !reduces; k++) reduces = L->sched.xfers[k].op == XFER_REDUCE;
    if (reduces && (o->op_bitwise || !sg2260_dtype_op_ok(o->dtype, o->op))) {
        const char *dn = sg2260_dtype_name(o->dtype);
        if (o->op_bitwise)
            diag_error(dx, alg->name_span, "dtype-op",
                       "the SG2260 CDMA engine cannot reduce with %s: its reduce ops are sum, prod, max and min",
                       o->op_name);
        else if (o->op == SG2260_OP_MUL)
            diag_error(dx, alg->name_span, "dtype-op",
                       "the SG2260 CDMA engine cannot reduce %s with %s: prod needs fp32, fp16, bf16 or fp20", dn,
                       o->op_name ? o->op_name : "prod");
        else
            diag_error(dx, alg->name_span, "dtype-op",
                       "the SG2260 CDMA engine cannot reduce %s with %s: sum, max and min need fp32, fp16, bf16, "
                       "fp20 or int32",
                       dn, o->op_name ? o->op_name : "sum");
        return 1;
    }
    size_t es = sg2260_dtype_size(o->dtype);
    if (o->count > 0) {
        L->count = (uint64_t)o->count;
    } else {
        uint64_t unit = (uint64_t)L->sched.split * ((o->align ? o->align : SG2260_ALIGN) / es);
        double blocks = (double)cost_blocks(alg->coll, o->N);
        uint64_t c = (uint64_t)(o->size / (blocks * (double)es));
        c = c / unit * unit;
        L->count = c ? c : unit;
    }
    Sg2260LowerOptions lo = {.machine = m, .chips = o->chips, .count = L->count, .dtype = o->dtype,
                             .op = o->op, .store_forward = o->store_forward, .sink_local = o->sink_local,
                             .align = o->align, .sources = diag_sources(dx)};
    progress_step("lowering for %" PRId64 " chips", o->N);
    if (sg2260_lower(&L->sched, &lo, dx, &s->arena, &L->bundle, &L->layout, &L->stats)) return 1;
    if (L->layout.end > m->mem_bytes) {
        diag_error(dx, alg->name_span, "addr-range",
                   "the buffers of '%s' need %" PRIu64 " bytes per chip; machine '%s' has %" PRIu64, alg->name,
                   L->layout.end, m->name, m->mem_bytes);
        return 1;
    }
    sg2260_bundle_sort(&L->bundle);
    return 0;
}

void sg_lowered_free(SgLowered *L) {
    if (L->alg) {
        schedule_free(&L->sched);
        sg2260_bundle_free(&L->bundle);
    }
}

void sg_print_chips(FILE *out, const SgOptions *o) {
    for (int i = 0; i < o->nchips; i++) fprintf(out, "%s%d", i ? "," : "", o->chips[i]);
}

static void write_asm_header(FILE *out, const SgOptions *o, const Sg2260Machine *m, const SgLowered *L) {
    const Algorithm *a = L->alg;
    fprintf(out, "; %s (%s) for SG2260: N = %" PRId64 " on machine %s, chips ", a->name,
            collective_info[a->coll].keyword, o->N, m->name);
    sg_print_chips(out, o);
    fprintf(out, "\n; dtype %s", sg2260_dtype_name(o->dtype));
    if (collective_info[a->coll].reducing) fprintf(out, ", op %s", sg2260_op_name(o->op));
    fprintf(out, ", count %" PRIu64 " elements per block, split %" PRId64 "\n", L->count, L->sched.split);
    fprintf(out, "; layout (every chip):");
    for (int k = 0; k < L->layout.nbuffers; k++)
        fprintf(out, " %s 0x%" PRIx64 " (%" PRIu64 " B)", a->buffers[k].name, L->layout.base[k], L->layout.bytes[k]);
    if (L->layout.staging_bytes)
        fprintf(out, " staging 0x%" PRIx64 " (%" PRIu64 " B)", L->layout.staging, L->layout.staging_bytes);
    if (L->layout.l2_bytes) fprintf(out, " L2 slots l2:0x0 (%" PRIu64 " B)", L->layout.l2_bytes);
    fprintf(out, "\n; %d programs (%d CDMA ports, %d GDMA, %d VSDMA), %zu descriptors: %zu SEND/RECV pairs, %zu COPY, "
                 "%zu staged reductions, %zu barriers, %zu routed\n",
            L->stats.programs, L->stats.cdma_programs, L->stats.gdma_programs, L->stats.vsdma_programs, L->stats.descs,
            L->stats.link_msgs, L->stats.copies, L->stats.staged, L->stats.barriers, L->stats.routed);
    fprintf(out, "; each descriptor's comment: schedule step, source line, the chip at the other end, the transfer\n");
}

static int load_machine(SgOptions *o, Sg2260Machine *m, const char *cmd) {
    if (!o->machine_path) {
        sg2260_machine_default(m);
        return -1;
    }
    return cost_machine_load(cmd, o->machine_path, m) ? EXIT_USAGE : -1;
}

static int emit_outputs(Session *s, SgOptions *o, const Sg2260Machine *m, SgLowered *Ls, int n) {
    DiagEngine *dx = s->dx;
    const char *suffix = o->emit == SG_EMIT_ASM ? NULL : o->emit == SG_EMIT_BIN ? ".cdma" : o->emit == SG_EMIT_C ? ".c" : ".o";
    const char *path = o->output ? o->output : suffix ? default_output_path(&s->arena, o->files[0], suffix) : "-";
    if (o->emit == SG_EMIT_BIN && n > 1) {
        diag_error(dx, Ls[1].alg->name_span, "sg2260-one-bundle",
                   "--emit=cdma writes one bundle; select one of the %d algorithms with --algorithm", n);
        return 1;
    }
    /* the symbols of every algorithm, for the object and the C source */
    Sg2260Compiled *c = ARENA_ARRAY(&s->arena, Sg2260Compiled, n);
    for (int i = 0; i < n; i++)
        c[i] = (Sg2260Compiled){.name = arena_printf(&s->arena, "%s%s_sg2260", o->prefix, Ls[i].alg->name),
                                .bundle = &Ls[i].bundle, .layout = &Ls[i].layout, .N = o->N,
                                .root = collective_info[Ls[i].alg->coll].rooted ? o->root : -1,
                                .count = Ls[i].count, .dtype = o->dtype, .op = o->op, .chips = o->chips};
    if (o->emit == SG_EMIT_OBJECT) return sg2260_write_object(path, o->triple, c, n, dx) ? 1 : 0;
    FILE *out = strcmp(path, "-") == 0 ? stdout : fopen(path, o->emit == SG_EMIT_BIN ? "wb" : "w");
    if (!out) {
        diag_error(dx, span_none(), "io", "cannot open '%s' for writing: %s", path, strerror(errno));
        return 1;
    }
    int failed = 0;
    if (o->emit == SG_EMIT_ASM) {
        for (int i = 0; i < n; i++) {
            if (i) fputc('\n', out);
            write_asm_header(out, o, m, &Ls[i]);
            sg2260_bundle_write(out, &Ls[i].bundle, m);
        }
    } else if (o->emit == SG_EMIT_BIN) {
        Sg2260Error err;
        uint8_t *img;
        long sz = sg2260_bundle_encode(&Ls[0].bundle, &img, &err);
        if (sz < 0) {
            diag_error(dx, span_none(), err.code, "%s", err.msg);
            failed = 1;
        } else {
            fwrite(img, 1, (size_t)sz, out);
            free(img);
        }
    } else {
        failed = sg2260_write_c(out, c, n, dx) != 0;
    }
    if (out != stdout && fclose(out) != 0) {
        diag_error(dx, span_none(), "io", "cannot write '%s': %s", path, strerror(errno));
        failed = 1;
    }
    return failed;
}

int sg_open(SgCommand *c, int sim, int argc, char **argv) {
    const char *cmd = sim ? "sim" : "compile";
    SgOptions *o = &c->o;
    memset(c, 0, sizeof *c);
    o->sim = sim;
    int status = options_parse(&c->opts, sim ? CMD_sim : CMD_compile_sg2260, argc, argv);
    if (status >= 0) return status;
    status = sg_options(o, &c->opts);
    if (status < 0) status = load_machine(o, &c->m, cmd);
    if (status < 0) status = choose_chips(o, &c->m, cmd);
    if (status < 0 && sim && o->check != CHECK_NONE && sg_ref_dtype(o->dtype, &(coll_dtype){COLL_F32}) != 0)
        status = usage_error(cmd,
                             "the naive reference has no %s; sim checks fp32, fp16, bf16, int32 and int8 "
                             "(--timing-only runs any)",
                             sg2260_dtype_name(o->dtype));
    if (status < 0 && session_open(&c->s, &o->common, o->files, o->nfiles) != 0)
        status = session_close(&c->s, EXIT_INPUT);
    if (status >= 0) options_free(&c->opts);
    else c->nalgs = session_algorithms(&c->s, &c->algs);
    return status;
}

int sg_close(SgCommand *c, int failed) {
    options_free(&c->opts);
    return session_close(&c->s, failed ? EXIT_INPUT : EXIT_OK);
}

int cmd_compile_sg2260(int argc, char **argv) {
    SgCommand c;
    int status = sg_open(&c, 0, argc, argv);
    if (status >= 0) return status;
    SgLowered *Ls = xcalloc((size_t)(c.nalgs > 0 ? c.nalgs : 1), sizeof *Ls);
    int failed = 0, n = 0;
    for (int k = 0; k < c.nalgs; k++) {
        progress_begin("compile", c.algs[k]->name);
        if (sg_lower_one(&c.s, &c.o, &c.m, c.algs[k], &Ls[n])) {
            sg_lowered_free(&Ls[n]);
            memset(&Ls[n], 0, sizeof Ls[n]);
            failed = 1;
            continue;
        }
        n++;
    }
    progress_end();
    if (!failed) failed = emit_outputs(&c.s, &c.o, &c.m, Ls, n);
    for (int i = 0; i < n; i++) sg_lowered_free(&Ls[i]);
    free(Ls);
    return sg_close(&c, failed);
}
