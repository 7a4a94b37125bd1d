/* cmd_sg2260.c - the SG2260 target in the driver: `collc compile
 * --target=sg2260 ...` (cmd_compile hands the whole command line to
 * cmd_compile_sg2260), and what it shares with `collc sim` (cmd_sim.c):
 * the options, the machine and chips, the session and the lowering of one
 * algorithm (driver/sg2260_cli.h). The lowering itself is compiler/sg2260/. */
#include "driver/sg2260_cli.h"
#include "analysis/cost.h"
#include "analysis/verify.h"
#include "support/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int cmd_compile_sg2260(int argc, char **argv);

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

static const struct { const char *names[3]; Sg2260Dtype t; } dtypes[] = {
    {{"fp32", "f32", "float"}, SG2260_FP32}, {{"fp16", "f16", "half"}, SG2260_FP16},
    {{"bf16", NULL, NULL}, SG2260_BF16},     {{"int32", "i32", NULL}, SG2260_INT32},
    {{"int8", "i8", NULL}, SG2260_INT8},     {{"int16", "i16", NULL}, SG2260_INT16},
    {{"fp20", "f20", NULL}, SG2260_FP20},
};

static int parse_dtype(const char *v, Sg2260Dtype *t) {
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        for (int k = 0; k < 3; k++)
            if (dtypes[i].names[k] && strcasecmp(v, dtypes[i].names[k]) == 0) {
                *t = dtypes[i].t;
                return 0;
            }
    return -1;
}

static int parse_op(SgOptions *o, const char *v) {
    static const struct { const char *a, *b; Sg2260Op op; } ops[] = {
        {"sum", "add", SG2260_OP_ADD}, {"prod", "mul", SG2260_OP_MUL},
        {"max", NULL, SG2260_OP_MAX},  {"min", NULL, SG2260_OP_MIN},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcasecmp(v, ops[i].a) == 0 || (ops[i].b && strcasecmp(v, ops[i].b) == 0)) {
            o->op = ops[i].op;
            o->op_bitwise = 0;
            return 0;
        }
    if (strcasecmp(v, "band") == 0 || strcasecmp(v, "bor") == 0 || strcasecmp(v, "bxor") == 0) {
        o->op_bitwise = 1;
        return 0;
    }
    return -1;
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

static void help(int sim) {
    if (sim)
        fputs("usage: collc sim [OPTIONS] FILE -N n\n"
              "\n"
              "Compiles the algorithm for N SG2260 chips (as compile --target=sg2260),\n"
              "runs the descriptor programs on the model of its CDMA, GDMA and VSDMA\n"
              "engines, checks every rank's output bit for bit against the naive\n"
              "reference (all of it, or sampled windows of large buffers) and reports\n"
              "the simulated time and per-link utilisation.\n",
              stdout);
    else
        fputs("usage: collc compile --target=sg2260 [OPTIONS] FILE -N n\n"
              "\n"
              "Lowers the algorithm for N SG2260 chips to per-chip, per-port CDMA\n"
              "descriptor programs (docs/sg2260.md).\n",
              stdout);
    fputs("\noptions:\n"
          "  -N n                          number of chips (ranks), required\n"
          "  --chips C0,C1,...             chip of each rank (default: the machine's ring of n\n"
          "                                chips; n = 2: two adjacent chips of its first ring)\n"
          "  --machine FILE                machine file (default: the SC11 board, 32 GB/s links)\n"
          "  --dtype T                     fp32 (default) fp16 bf16 int32 int8 int16 fp20\n"
          "  --op OP                       sum (default) prod max min\n"
          "  --count K                     elements per block (MPI's count)\n"
          "  --size M                      or: bytes of the larger per-rank buffer (default\n"
          "                                1MiB); the count is rounded down to a multiple of\n"
          "                                split x 128/sizeof(T) so that every chunk is aligned\n"
          "  --root r                      root of rooted collectives (default 0)\n"
          "  --route=direct|store-forward  transfers between chips without a link: rejected\n"
          "                                (default) or routed through other chips\n"
          "  --no-verify                   skip collc verify for n (default: refuse to lower\n"
          "                                an algorithm that does not verify)\n"
          "  --no-sink-copies              keep every local copy in its step (default: move\n"
          "                                it to a later step where it overlaps link traffic)\n",
          stdout);
    if (sim)
        fputs("  --trace OUT.json              Chrome trace (Perfetto, chrome://tracing)\n"
              "  --svg OUT.svg                 SVG timeline\n"
              "  --no-race-check               do not reject overlapping in-flight transfers\n"
              "  --check=full|sampled|none     move and compare every byte, or windows of every\n"
              "                                buffer (bounded memory), or no data at all (default:\n"
              "                                full while the data fit 2 GiB, else sampled)\n"
              "  --timing-only                 the same as --check=none: sizes only, no data\n"
              "  --progress                    report the progress of the run on stderr\n",
              stdout);
    else
        fputs("  --emit=cdma-asm               readable descriptor programs (stdout by default)\n"
              "  --emit=cdma                   binary bundle image (NAME.cdma)\n"
              "  --emit=c                      C source with the bundle as an array (NAME.c)\n"
              "  -c                            object file with the same symbols (default; NAME.o)\n"
              "  -o FILE                       output file ('-' = stdout)\n"
              "  --prefix=STR                  prepend STR to the symbol names\n"
              "  --triple=T                    LLVM target triple of the object (default: host)\n",
              stdout);
    fputs("  -D NAME=VALUE, --algorithm NAME, --diagnostics-format=FMT\n"
          "\nExit status: 0 ok, 1 errors in the input (or a wrong result), 2 usage error.\n",
          stdout);
}

/* Parses the command line; returns -1 to continue, else an exit status. */
static int parse_args(SgOptions *o, int argc, char **argv) {
    const char *cmd = o->sim ? "sim" : "compile";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || strcmp(a, "-") == 0) {
            o->files[o->nfiles++] = argv[i];
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            help(o->sim);
            return EXIT_OK;
        }
        static const char *const names[] = {"-N",      "--chips", "--machine", "--dtype", "--op",   "--count",
                                            "--size",  "--root",  "--route",   "--trace", "--svg",  "--emit",
                                            "--prefix", "--triple", "-o"};
        enum { NNAMES = sizeof names / sizeof names[0] };
        int matched = -1;
        const char *v = NULL;
        for (int k = 0; k < NNAMES && matched < 0; k++) {
            size_t n = strlen(names[k]);
            if (strncmp(a, names[k], n) == 0 && (a[n] == 0 || a[n] == '=' || (k == 0 && a[n]))) {
                matched = k;
                v = a[n] == '=' ? a + n + 1 : a[n] ? a + n : NULL;
            }
        }
        if (matched >= 0) {
            if (!v) {
                if (i + 1 >= argc) return usage_error(cmd, "missing value after '%s'", a);
                v = argv[++i];
            }
            int bad = 0;
            switch (matched) {
            case 0: bad = parse_int64(v, &o->N) || o->N < 1; o->have_N = 1; break;
            case 1: bad = parse_chips(v, o); break;
            case 2: o->machine_path = v; break;
            case 3: bad = parse_dtype(v, &o->dtype); o->dtype_name = v; break;
            case 4: bad = parse_op(o, v); o->op_name = v; break;
            case 5: bad = parse_int64(v, &o->count) || o->count < 1; break;
            case 6: bad = parse_size(v, &o->size) || o->size < 1 || o->size > 64.0 * (1 << 30); break;
            case 7: bad = parse_int64(v, &o->root) || o->root < 0; break;
            case 8:
                if (strcmp(v, "direct") == 0) o->store_forward = 0;
                else if (strcmp(v, "store-forward") == 0) o->store_forward = 1;
                else bad = 1;
                break;
            case 9: if (!o->sim) bad = 1; o->trace = v; break;
            case 10: if (!o->sim) bad = 1; o->svg = v; break;
            case 11:
                if (o->sim) bad = 1;
                else if (strcmp(v, "cdma-asm") == 0) o->emit = SG_EMIT_ASM;
                else if (strcmp(v, "cdma") == 0) o->emit = SG_EMIT_BIN;
                else if (strcmp(v, "c") == 0) o->emit = SG_EMIT_C;
                else if (strcmp(v, "obj") == 0) o->emit = SG_EMIT_OBJECT;
                else return usage_error(cmd, "unknown --emit kind '%s' for --target=sg2260 (expected cdma-asm, "
                                             "cdma, c or obj)", v);
                break;
            case 12: o->prefix = v; break;
            case 13: o->triple = v; break;
            case 14: o->output = v; break;
            }
            if (bad) return usage_error(cmd, "invalid value '%s' for %s", v, names[matched]);
            continue;
        }
        if (strncmp(a, "--target=", 9) == 0 && !o->sim) {
            if (strcmp(a + 9, "sg2260") != 0)
                return usage_error(cmd, "--target=sg2260 cannot be combined with --target=%s", a + 9);
            continue;
        }
        if (strcmp(a, "-c") == 0 && !o->sim) { o->flag_c = 1; continue; }
        if (strcmp(a, "--no-verify") == 0) { o->no_verify = 1; continue; }
        if (strcmp(a, "--no-sink-copies") == 0) { o->sink_local = 0; continue; }
        if (strcmp(a, "--no-race-check") == 0 && o->sim) { o->race_check = 0; continue; }
        if (strcmp(a, "--timing-only") == 0 && o->sim) { o->check = SG_CHECK_NONE; continue; }
        if (strcmp(a, "--progress") == 0 && o->sim) { o->progress = 1; continue; }
        if (strncmp(a, "--check=", 8) == 0 && o->sim) {
            if (strcmp(a + 8, "full") == 0) o->check = SG_CHECK_FULL;
            else if (strcmp(a + 8, "sampled") == 0) o->check = SG_CHECK_SAMPLED;
            else if (strcmp(a + 8, "none") == 0) o->check = SG_CHECK_NONE;
            else return usage_error(cmd, "invalid value '%s' for --check (expected full, sampled or none)", a + 8);
            continue;
        }
        int r = common_option(&o->common, argc, argv, &i);
        if (r < 0) return EXIT_USAGE;
        if (r == 0) return usage_error(cmd, "unknown option '%s'%s", a, o->sim ? "" : " for --target=sg2260");
    }
    if (o->nfiles == 0) return usage_error(cmd, "no input file");
    if (!o->have_N) return usage_error(cmd, "missing -N (the number of chips)");
    if (o->flag_c && o->emit != SG_EMIT_OBJECT) return usage_error(cmd, "-c and --emit=%s cannot be used together",
                                                                    o->emit == SG_EMIT_ASM ? "cdma-asm"
                                                                    : o->emit == SG_EMIT_BIN ? "cdma" : "c");
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
    if (collective_info[alg->coll].rooted && root >= o->N)
        return diag_error(dx, alg->name_span, "bad-root", "--root %" PRId64 " is not a rank of N = %" PRId64, root,
                          o->N), 1;
    const Define *defs;
    int ndefs = session_defines(s, alg, 0, &defs);
    SchedParams sp = {.N = o->N, .root = root, .defines = defs, .ndefines = ndefs,
                      .max_transfers = s->opts.max_transfers};
    const Stmt *failed = NULL;
    InstStatus ist = instantiate(alg, &sp, dx, &L->sched, &failed);
    if (ist == INST_ERROR) return 1;
    if (ist == INST_NOT_APPLICABLE) {
        diag_error(dx, failed->span, "require-failed", "'%s' does not apply for N = %" PRId64 "%s%s", alg->name,
                   o->N, failed->u.require.why ? ": " : "", failed->u.require.why ? failed->u.require.why : "");
        return 1;
    }
    if (!o->no_verify) {
        VerifyOptions vo = {.ns = &o->N, .nns = 1, .root = root, .defines = defs,
                            .ndefines = ndefs, .max_transfers = s->opts.max_transfers,
                            .correctness_only = 1};
        if (verify_algorithm(alg, &vo, dx, &s->arena, NULL)) {
            diag_note(dx, alg->name_span,
                      "not lowering '%s' because it does not verify for N = %" PRId64 "; --no-verify lowers it anyway",
                      alg->name, o->N);
            return 1;
        }
    }
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
    Sg2260Error err;
    if (sg2260_machine_load(o->machine_path, m, &err)) {
        fprintf(stderr, "collc %s: ", cmd);
        sg2260_error_print(stderr, &err);
        return EXIT_INPUT;
    }
    return -1;
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
    common_options_init(&o->common);
    o->files = xcalloc((size_t)argc + 1, sizeof *o->files);
    o->dtype = SG2260_FP32;
    o->op = SG2260_OP_ADD;
    o->count = -1;
    o->size = 1024.0 * 1024;
    o->prefix = "";
    o->race_check = 1;
    o->align = SG2260_ALIGN;
    o->sink_local = 1;
    o->emit = SG_EMIT_OBJECT;
    int status = parse_args(o, argc, argv);
    if (status < 0) status = load_machine(o, &c->m, cmd);
    if (status < 0) status = choose_chips(o, &c->m, cmd);
    if (status < 0 && sim && o->check != SG_CHECK_NONE && sg_ref_dtype(o->dtype, &(coll_dtype){COLL_F32}) != 0)
        status = usage_error(cmd,
                             "the naive reference has no %s; sim checks fp32, fp16, bf16, int32 and int8 "
                             "(--timing-only runs any)",
                             sg2260_dtype_name(o->dtype));
    if (status < 0 && session_open(&c->s, &o->common, o->files, o->nfiles) != 0)
        status = session_close(&c->s, EXIT_INPUT);
    if (status >= 0) free(o->files);
    else c->nalgs = session_algorithms(&c->s, &c->algs);
    return status;
}

int sg_close(SgCommand *c, int failed) {
    free(c->o.files);
    return session_close(&c->s, failed ? EXIT_INPUT : EXIT_OK);
}

int cmd_compile_sg2260(int argc, char **argv) {
    SgCommand c;
    int status = sg_open(&c, 0, argc, argv);
    if (status >= 0) return status;
    SgLowered *Ls = xcalloc((size_t)(c.nalgs > 0 ? c.nalgs : 1), sizeof *Ls);
    int failed = 0, n = 0;
    for (int k = 0; k < c.nalgs; k++) {
        if (sg_lower_one(&c.s, &c.o, &c.m, c.algs[k], &Ls[n])) {
            sg_lowered_free(&Ls[n]);
            memset(&Ls[n], 0, sizeof Ls[n]);
            failed = 1;
            continue;
        }
        n++;
    }
    if (!failed) failed = emit_outputs(&c.s, &c.o, &c.m, Ls, n);
    for (int i = 0; i < n; i++) sg_lowered_free(&Ls[i]);
    free(Ls);
    return sg_close(&c, failed);
}
