/* compile.c - `collc compile --target=sg2260 ...` (the target's compile
 * entry points, target.c), and what it shares with `collc sim` (cmd_sim.c):
 * the options, the machine and chips, and the lowering of one algorithm
 * (sg2260_cli.h). The lowering itself is compiler/sg2260/. */
#include "driver/sg2260/sg2260_cli.h"
#include "analysis/cost.h"
#include "driver/pipeline.h"
#include "driver/progress.h"
#include "driver/sg2260/machine.h"
#include "support/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const TargetEmit sg_emits[] = {
    {"cdma-asm", SG_EMIT_ASM, NULL, "readable descriptor programs (standard output by default)"},
    {"cdma", SG_EMIT_BIN, ".cdma", "the binary bundle image (NAME.cdma)"},
    {"c", SG_EMIT_C, ".c", "C source with the bundle as an array (NAME.c)"},
    {"obj", SG_EMIT_OBJECT, ".o", "an object with the bundle symbols (the default; NAME.o)"},
    {NULL, 0, NULL, NULL},
};

int sg_ref_dtype(Sg2260Dtype t, coll_dtype *out) {
    for (int k = 0; k < DT__COUNT; k++)
        if (sg_dtype((DriverDtype)k) == (int)t) {
            if (driver_dtypes[k].coll < 0) return -1; /* int16, fp20: the reference has none */
            *out = (coll_dtype)driver_dtypes[k].coll;
            return 0;
        }
    return -1;
}

coll_op sg_ref_op(Sg2260Op op) {
    for (int k = 0; k < OP__COUNT; k++)
        if (sg_op((DriverOp)k) == (int)op) return (coll_op)driver_ops[k].coll;
    COLLC_UNREACHABLE("an engine op without an --op row");
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

/* The engine's view of the command line: EXIT_GO_ON, or EXIT_USAGE after
 * the usage error. */
static Status sg_options(SgOptions *o, const Cmd *c) {
    const DriverOptions *d = &c->o;
    const char *cmd = d->name;
    o->N = c->N;
    o->root = d->root;
    if (d->chips && parse_chips(d->chips, o))
        return usage_error(cmd, "--chips expects chip numbers like 0,2,6,7, got '%s'", d->chips);
    o->machine_path = d->machine;
    Status st = target_check_dtype(cmd, &target_sg2260, (DriverDtype)d->dtype);
    if (st != EXIT_GO_ON) return st;
    o->dtype = (Sg2260Dtype)sg_dtype((DriverDtype)d->dtype);
    o->op_name = driver_ops[d->op].name;
    /* band, bor, bxor: no CDMA reduce op, refused for algorithms that reduce */
    o->op_bitwise = sg_op((DriverOp)d->op) < 0;
    o->op = o->op_bitwise ? SG2260_OP_ADD : (Sg2260Op)sg_op((DriverOp)d->op);
    o->count = d->given[OPT_COUNT] ? d->count : -1;
    if (d->size > DRIVER_MAX_MOVED_BYTES) return usage_error(cmd, "--size must be at most " DRIVER_MAX_MOVED_TEXT);
    o->size = d->size;
    o->store_forward = d->route == ROUTE_STORE_FORWARD;
    o->sink_local = !d->no_sink_copies;
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
    o->emit = SG_EMIT_OBJECT;
    if (d->emit) {
        const TargetEmit *e;
        st = target_emit(cmd, &target_sg2260, d->emit, &e);
        if (st != EXIT_GO_ON) return st;
        o->emit = (SgEmit)e->kind;
    }
    if (o->flag_c && o->emit != SG_EMIT_OBJECT)
        return usage_error(cmd, "-c and --emit=%s cannot be used together", d->emit);
    return EXIT_GO_ON;
}

/* The chip of each rank: --chips, else the machine's default placement
 * (sg2260_machine_place: its ring of N chips). */
static Status choose_chips(SgOptions *o, const Sg2260Machine *m, const char *cmd) {
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
        return EXIT_GO_ON;
    }
    if (sg2260_machine_place(m, (int)o->N, o->chips) == 0) {
        o->nchips = (int)o->N;
        return EXIT_GO_ON;
    }
    return usage_error(cmd, "machine '%s' has no ring of %" PRId64 " chips; give the chips with --chips", m->name,
                       o->N);
}

/* "sum, prod, max and min": the operators the engine reduces with. */
static const char *reduce_ops(char *buf, size_t size) {
    char names[128] = "";
    for (int k = 0, n = 0; k < OP__COUNT; k++)
        if (sg_op((DriverOp)k) >= 0) n += snprintf(names + n, sizeof names - (size_t)n, "%s%s", n ? "|" : "", driver_ops[k].name);
    return options_prose(names, " and ", buf, size);
}

/* Does the engine reduce type t (an options.def row) with engine op op? */
static int reduces_with(int t, int op) {
    int v = sg_dtype((DriverDtype)t);
    return v >= 0 && sg2260_dtype_op_ok((Sg2260Dtype)v, (Sg2260Op)op);
}

/* "sum, max and min need fp32, fp16, bf16, fp20 or int32": the operators
 * that reduce the same types as op, and those types. */
static const char *reduce_types(Sg2260Op op, char *buf, size_t size) {
    char ops[128] = "", types[128] = "", a[160], b[160];
    int nops = 0;
    for (int k = 0, n = 0; k < OP__COUNT; k++) {
        int v = sg_op((DriverOp)k), same = v >= 0;
        for (int t = 0; t < DT__COUNT && same; t++) same = reduces_with(t, v) == reduces_with(t, (int)op);
        if (same) n += snprintf(ops + n, sizeof ops - (size_t)n, "%s%s", nops++ ? "|" : "", driver_ops[k].name);
    }
    for (int t = 0, n = 0; t < DT__COUNT; t++)
        if (reduces_with(t, (int)op))
            n += snprintf(types + n, sizeof types - (size_t)n, "%s%s", n ? "|" : "",
                          sg2260_dtype_name((Sg2260Dtype)sg_dtype((DriverDtype)t)));
    snprintf(buf, size, "%s %s %s", options_prose(ops, " and ", a, sizeof a), nops > 1 ? "need" : "needs",
             options_prose(types, " or ", b, sizeof b));
    return buf;
}

/* The base name of buffer k (`name`) in out: its characters outside the
 * image's set (letters, digits, '_', '.'; an inlined call's "acc#2") become
 * '_'; a name that is then too long, starts with a digit or is taken
 * already is "bufferK". */
static void base_name(const Sg2260Bundle *b, const char *name, int k, char out[SG2260_BASE_NAME]) {
    size_t n = strlen(name);
    int ok = n > 0 && n < SG2260_BASE_NAME && !(name[0] >= '0' && name[0] <= '9') && strcmp(name, "image");
    for (size_t i = 0; ok && i <= n; i++) {
        char ch = name[i];
        int keep = !ch || ch == '_' || ch == '.' || ((ch | 32) >= 'a' && (ch | 32) <= 'z') || (ch >= '0' && ch <= '9');
        out[i] = keep ? ch : '_';
    }
    for (int i = 0; ok && i < b->nbases; i++) ok = strcmp(b->bases[i].name, out) != 0;
    if (!ok) snprintf(out, SG2260_BASE_NAME, "buffer%d", k);
}

/* The launch of every rank and the bases of the layout (the buffers, the
 * staging area, the L2 slots), for the bundle image. */
static Status launch_and_bases(DiagEngine *dx, const Algorithm *alg, const SgOptions *o, const Sg2260Machine *m,
                               SgLowered *L) {
    Sg2260Error err;
    const Sg2260Layout *y = &L->layout;
    int bad = sg2260_bundle_set_launch(&L->bundle, m, (int)o->N, o->chips, &err);
    for (int k = 0; !bad && k < y->nbuffers; k++) {
        char name[SG2260_BASE_NAME];
        base_name(&L->bundle, alg->buffers[k].name, k, name);
        bad = sg2260_bundle_add_base(&L->bundle, name, y->base[k], y->bytes[k], &err);
    }
    if (!bad && y->staging_bytes)
        bad = sg2260_bundle_add_base(&L->bundle, "route_staging", y->staging, y->staging_bytes, &err);
    if (!bad && y->l2_bytes) bad = sg2260_bundle_add_base(&L->bundle, "l2_slots", SG2260_L2(0), y->l2_bytes, &err);
    if (!bad) return EXIT_GO_ON;
    diag_error(dx, alg->name_span, err.code, "%s", err.msg);
    return EXIT_INPUT;
}

Status sg_lower_one(Cmd *c, SgState *g, Algorithm *alg, SgLowered *L) {
    Session *s = &c->s;
    SgOptions *o = &g->o;
    const Sg2260Machine *m = &g->m;
    DiagEngine *dx = s->dx;
    memset(L, 0, sizeof *L);
    int64_t root = collective_info[alg->coll].rooted ? o->root : 0;
    Status pst = pipeline_prepare(c, alg, root, PIPE_LOWER, &L->sched);
    if (pst != EXIT_GO_ON) return pst;
    L->alg = alg;
    /* Several reduces into one chunk in one step would be reducing writes
     * in flight on one destination: one after another instead. */
    schedule_split_reduces(&L->sched);
    int reduces = 0;
    for (size_t k = 0; k < L->sched.nxfers && !reduces; k++) reduces = L->sched.xfers[k].op == XFER_REDUCE;
    if (reduces && (o->op_bitwise || !sg2260_dtype_op_ok(o->dtype, o->op))) {
        char why[256];
        if (o->op_bitwise)
            diag_error(dx, alg->name_span, "dtype-op", "%s cannot reduce with %s: its reduce ops are %s",
                       target_sg2260.engine, o->op_name, reduce_ops(why, sizeof why));
        else
            diag_error(dx, alg->name_span, "dtype-op", "%s cannot reduce %s with %s: %s", target_sg2260.engine,
                       sg2260_dtype_name(o->dtype), o->op_name, reduce_types(o->op, why, sizeof why));
        return EXIT_INPUT;
    }
    size_t es = sg2260_dtype_size(o->dtype);
    if (o->count > 0) {
        L->count = (uint64_t)o->count;
    } else {
        uint64_t unit = (uint64_t)L->sched.split * ((o->align ? o->align : SG2260_ALIGN) / es);
        double blocks = (double)cost_blocks(alg->coll, o->N);
        uint64_t cnt = (uint64_t)(o->size / (blocks * (double)es));
        cnt = cnt / unit * unit;
        if (!cnt) {
            diag_error(dx, alg->name_span, "size-too-small",
                       "--size %.0f B is below the smallest message of '%s' at N = %" PRId64
                       ", %.0f B (%.0f block(s) of %" PRId64 " chunks of %" PRIu64 " B)",
                       o->size, alg->name, o->N, blocks * (double)unit * (double)es, blocks, L->sched.split,
                       unit / (uint64_t)L->sched.split * es);
            return EXIT_INPUT;
        }
        L->count = cnt;
    }
    Sg2260LowerOptions lo = {.machine = m, .chips = o->chips, .count = L->count, .dtype = o->dtype,
                             .op = o->op, .store_forward = o->store_forward, .sink_local = o->sink_local,
                             .align = o->align, .sources = diag_sources(dx)};
    progress_step("lowering for %" PRId64 " chips", o->N);
    if (sg2260_lower(&L->sched, &lo, dx, &s->arena, &L->bundle, &L->layout, &L->stats)) return EXIT_INPUT;
    if (L->layout.end > m->mem_bytes) {
        diag_error(dx, alg->name_span, "addr-range",
                   "the buffers of '%s' need %" PRIu64 " bytes per chip; machine '%s' has %" PRIu64, alg->name,
                   L->layout.end, m->name, m->mem_bytes);
        return EXIT_INPUT;
    }
    sg2260_bundle_sort(&L->bundle);
    return launch_and_bases(dx, alg, o, m, L);
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

static Status load_machine(SgOptions *o, Sg2260Machine *m, const char *cmd) {
    if (!o->machine_path) {
        sg2260_machine_default(m);
        return EXIT_GO_ON;
    }
    return cost_machine_load(cmd, o->machine_path, m) ? EXIT_USAGE : EXIT_GO_ON;
}

/* Writes the lowered algorithms as --emit says. 0, or 1 after reporting. */
static int emit_outputs(Cmd *cmd, SgOptions *o, const Sg2260Machine *m, SgLowered *Ls, int n) {
    Session *s = &cmd->s;
    DiagEngine *dx = s->dx;
    const char *suffix = NULL;
    for (size_t k = 0; sg_emits[k].name; k++)
        if (sg_emits[k].kind == (int)o->emit) suffix = sg_emits[k].suffix;
    const char *path = o->output ? o->output : suffix ? default_output_path(&s->arena, cmd->o.files[0], suffix) : "-";
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
    FILE *out = session_output(s, path, o->emit == SG_EMIT_BIN ? "wb" : "w");
    if (!out) return 1;
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
    return session_output_close(s, out, path) || failed;
}

Status sg_check_options(Cmd *c) {
    SgState *g = c->ctx;
    SgOptions *o = &g->o;
    const char *cmd = c->o.name;
    o->sim = c->o.cmd == CMD_sim;
    Status st = sg_options(o, c);
    if (st == EXIT_GO_ON) st = load_machine(o, &g->m, cmd);
    if (st == EXIT_GO_ON) st = choose_chips(o, &g->m, cmd);
    if (st == EXIT_GO_ON && o->sim && o->check != CHECK_NONE && sg_ref_dtype(o->dtype, &(coll_dtype){COLL_F32}) != 0)
        st = usage_error(cmd,
                         "the naive reference has no %s; sim checks fp32, fp16, bf16, int32 and int8 "
                         "(--timing-only runs any)",
                         sg2260_dtype_name(o->dtype));
    return st;
}

static void free_state(Cmd *c) {
    free(c->ctx);
    c->ctx = NULL;
}

Status sg_compile_options(Cmd *c) {
    c->ctx = xcalloc(1, sizeof(SgState));
    c->end = free_state;
    return sg_check_options(c);
}

Status sg_compile(Cmd *c) {
    SgState *g = c->ctx;
    SgLowered *Ls = xcalloc((size_t)c->nalgs, sizeof *Ls);
    int failed = 0, too_large = 0, n = 0;
    for (int k = 0; k < c->nalgs; k++) {
        progress_begin("compile", c->algs[k]->name);
        Status st = sg_lower_one(c, g, c->algs[k], &Ls[n]);
        if (st != EXIT_GO_ON) {
            sg_lowered_free(&Ls[n]);
            memset(&Ls[n], 0, sizeof Ls[n]);
            if (st == EXIT_TOO_LARGE) too_large = 1;
            else failed = 1;
            continue;
        }
        n++;
    }
    progress_end();
    if (!failed && !too_large) failed = emit_outputs(c, &g->o, &g->m, Ls, n);
    for (int i = 0; i < n; i++) sg_lowered_free(&Ls[i]);
    free(Ls);
    return failed ? EXIT_INPUT : too_large ? EXIT_TOO_LARGE : EXIT_GO_ON;
}
