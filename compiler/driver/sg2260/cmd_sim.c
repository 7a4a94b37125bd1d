/* cmd_sim.c - `collc sim FILE -N n ...`: compiles for the SG2260 as
 * `collc compile --target=sg2260` does (sg2260_cli.h), runs the
 * descriptor programs on the engine model, checks every rank against the
 * naive reference (every byte, or sampled windows of every buffer so that
 * host memory stays bounded, or, with --timing-only, nothing) and reports
 * the time, the link utilisation and, on request, a trace. */
#include "driver/sg2260/sg2260_cli.h"
#include "analysis/cost.h"
#include "driver/progress.h"
#include "support/util.h"
#include "collref.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The sampled check keeps SAMPLE_WINDOW bytes of every SAMPLE_STRIDE. */
#define SAMPLE_STRIDE (UINT64_C(1) << 20)
#define SAMPLE_WINDOW (UINT64_C(4) << 10)

/* Writes the trace of the run to path with `writer`; 1 after reporting. */
static int write_trace(DiagEngine *dx, const char *path, const Sg2260Sim *sim,
                       int (*writer)(const Sg2260Sim *, FILE *)) {
    FILE *f = fopen(path, "w");
    int bad = !f || writer(sim, f) != 0;
    if (f && fclose(f) != 0) bad = 1;
    if (bad) diag_error(dx, span_none(), "io", "cannot write '%s'", path);
    return bad;
}

/* --progress: the engine's reports of a run, one line each on standard
 * error (about twice a second of host time, and one at the end). Without
 * it a terminal gets the status line of progress.h instead. */
static void progress(void *ctx, double t_us, double done, int final) {
    const char *name = ctx;
    fprintf(progress_stream(), "collc sim: %s: %.0f%% of the descriptors done, simulated time %.3f us%s\n", name,
            100 * done, t_us, final ? " (end)" : "");
}

/* Bytes of data the full check holds for the lowered algorithm: every
 * chip's DDR layout and L2 slots. */
static uint64_t full_bytes(const SgOptions *o, const SgLowered *L) {
    return (uint64_t)o->N * (L->layout.end - SG2260_LAYOUT_BASE + L->layout.l2_bytes);
}

/* The sampling stride for a count: 1 MiB, or the largest power of two a
 * chunk's bytes allow; 0 when chunks are too small to sample. */
static uint64_t sample_stride(uint64_t chunk_bytes) {
    uint64_t s = SAMPLE_STRIDE;
    while (s > chunk_bytes || (chunk_bytes % s && s > 1024)) s /= 2;
    return s >= 1024 && chunk_bytes % s == 0 ? s : 0;
}

/* Lowers alg with the check the options ask for: *mode and the sampling
 * stride/window (o->align is the stride when sampling). 0, or 1 after
 * reporting. */
static int lower_for_check(Cmd *c, SgState *g, Algorithm *alg, SgLowered *L, Sg2260DataMode *mode,
                           uint64_t *stride, uint64_t *window) {
    SgOptions *o = &g->o;
    Session *s = &c->s;
    o->align = SG2260_ALIGN;
    *mode = o->check == CHECK_NONE ? SG2260_DATA_NONE : SG2260_DATA_FULL;
    if (sg_lower_one(c, g, alg, L) != EXIT_GO_ON) return 1;
    int sampled = o->check == CHECK_SAMPLED || (o->check == CHECK_AUTO && full_bytes(o, L) > SG_CHECK_FULL_LIMIT);
    if (!sampled) return 0;
    uint64_t es = sg2260_dtype_size(o->dtype), split = (uint64_t)L->sched.split;
    /* with --size the count is rounded to split x stride; with --count the
     * chunks must already be multiples of it */
    uint64_t chunk = o->count > 0 ? (L->count % split ? 0 : L->count / split * es)
                                  : (uint64_t)(o->size / (double)(cost_blocks(alg->coll, o->N) * (int64_t)split));
    uint64_t st = sample_stride(chunk);
    if (!st) {
        if (o->check == CHECK_SAMPLED) {
            diag_error(s->dx, alg->name_span, "sample-align",
                       "--check=sampled needs chunks of at least 1 KiB that are a multiple of the sampling stride "
                       "(%s chunks of %" PRIu64 " bytes)",
                       o->count > 0 ? "--count gives" : "--size gives", chunk);
            return 1;
        }
        return 0; /* too small to sample: the full check it is */
    }
    sg_lowered_free(L);
    o->align = st;
    if (sg_lower_one(c, g, alg, L) != EXIT_GO_ON) return 1;
    *mode = SG2260_DATA_SAMPLED;
    *stride = st;
    *window = st / 16 < SAMPLE_WINDOW ? (st / 16 < SG2260_ALIGN ? SG2260_ALIGN : st / 16) : SAMPLE_WINDOW;
    return 0;
}

/* What the naive reference needs to know of a run. */
typedef struct RefRun {
    coll_collective cc; /* a Collective's value is its ABI value (both from coll_collectives.def) */
    coll_dtype dt;
    coll_op op;
    int N, root;
    size_t es, count;
} RefRun;

static RefRun ref_run(const SgOptions *o, const SgLowered *L) {
    RefRun R = {(coll_collective)L->alg->coll, COLL_F32, sg_ref_op(o->op), (int)o->N,
                collective_info[L->alg->coll].rooted ? (int)o->root : 0, sg2260_dtype_size(o->dtype), (size_t)L->count};
    if (o->check != CHECK_NONE && sg_ref_dtype(o->dtype, &R.dt)) COLLC_UNREACHABLE("sim checked the element type");
    return R;
}

/* Rank r's input into the model: all of it, or the kept windows. */
static void fill_input(Sg2260Sim *sim, const SgOptions *o, const SgLowered *L, int r, Sg2260DataMode mode,
                       uint64_t stride, uint64_t window) {
    RefRun R = ref_run(o, L);
    size_t nb = (size_t)collref_in_blocks(R.cc, R.N, R.root, r) * R.count * R.es;
    uint64_t base = L->layout.base[BUF_IN];
    if (!nb || mode == SG2260_DATA_NONE) return;
    if (mode == SG2260_DATA_FULL) {
        void *buf = xmalloc(nb);
        collref_fill(R.cc, R.dt, R.op, R.N, R.root, r, R.count, buf);
        if (sg2260_mem_write(sim, o->chips[r], base, buf, nb)) COLLC_UNREACHABLE("layout checked against memory");
        free(buf);
        return;
    }
    uint8_t *buf = xmalloc(window);
    for (uint64_t off = 0; off < nb; off += stride) {
        uint64_t k = nb - off < window ? nb - off : window;
        for (uint64_t e = 0; e < k / R.es; e++)
            collref_store(R.dt, buf + e * R.es, collref_value(R.dt, R.op, r, (size_t)(off / R.es + e)));
        if (sg2260_mem_write(sim, o->chips[r], base + off, buf, k)) COLLC_UNREACHABLE("layout checked against memory");
    }
    free(buf);
}

/* The first element of rank r's output that differs from the reference
 * (among the kept ones when sampling), or (size_t)-1. */
static size_t check_output(Sg2260Sim *sim, const SgOptions *o, const SgLowered *L, int r, Sg2260DataMode mode,
                           uint64_t stride, uint64_t window, size_t *checked) {
    RefRun R = ref_run(o, L);
    size_t nb = (size_t)collref_out_blocks(R.cc, R.N, R.root, r) * R.count * R.es;
    uint64_t base = L->layout.base[BUF_OUT];
    if (!nb) return (size_t)-1;
    if (mode == SG2260_DATA_FULL) {
        void *buf = xmalloc(nb);
        sg2260_mem_read(sim, o->chips[r], base, buf, nb);
        size_t e = collref_check(R.cc, R.dt, R.op, R.N, R.root, R.count, r, buf);
        free(buf);
        *checked += nb / R.es;
        return e;
    }
    uint8_t *buf = xmalloc(window), want[8];
    size_t bad = (size_t)-1;
    for (uint64_t off = 0; off < nb && bad == (size_t)-1; off += stride) {
        uint64_t k = nb - off < window ? nb - off : window;
        sg2260_mem_read(sim, o->chips[r], base + off, buf, k);
        for (uint64_t e = 0; e < k / R.es && bad == (size_t)-1; e++) {
            collref_expected(R.cc, R.dt, R.op, R.N, R.root, R.count, r, (size_t)(off / R.es + e), want);
            if (memcmp(buf + e * R.es, want, R.es)) bad = (size_t)(off / R.es + e);
        }
        *checked += k / R.es;
    }
    free(buf);
    return bad;
}

/* Runs one lowered algorithm on the engine model with reference data. */
static int sim_one(Session *s, SgOptions *o, const Sg2260Machine *m, SgLowered *L, Sg2260DataMode mode,
                   uint64_t stride, uint64_t window) {
    DiagEngine *dx = s->dx;
    const Algorithm *alg = L->alg;
    int N = (int)o->N, root = collective_info[alg->coll].rooted ? (int)o->root : 0;
    size_t es = sg2260_dtype_size(o->dtype), count = (size_t)L->count;
    double M = (double)count * (double)es * (double)cost_blocks(alg->coll, o->N);
    Sg2260Sim *sim = sg2260_sim_new(m);
    sg2260_sim_set_data(sim, mode, stride, window);
    Sg2260Error err;
    if (sg2260_sim_load(sim, &L->bundle, &err)) {
        diag_error(dx, alg->name_span, err.code, "%s", err.msg);
        sg2260_sim_free(sim);
        return 1;
    }
    sg2260_sim_enable_trace(sim, o->trace || o->svg);
    sg2260_sim_set_race_check(sim, o->race_check);
    if (o->progress) sg2260_sim_set_progress(sim, progress, (void *)alg->name);
    for (int r = 0; r < N; r++) fill_input(sim, o, L, r, mode, stride, window);
    Sg2260Result res;
    progress_step("simulating");
    int rc = sg2260_sim_run(sim, &res);
    progress_end();
    char szbuf[32];
    cost_fmt_bytes(M, szbuf, sizeof szbuf);
    printf("%s (%s) on %s: N = %d, chips ", alg->name, collective_info[alg->coll].keyword, m->name, N);
    sg_print_chips(stdout, o);
    if (collective_info[alg->coll].rooted) printf(", root %d", root);
    printf(", %s %s", szbuf, sg2260_dtype_name(o->dtype));
    if (collective_info[alg->coll].reducing) printf(" %s", sg2260_op_name(o->op));
    printf(", count %zu\n", count);
    const Sg2260LowerStats *st = &L->stats;
    printf("  programs %d (%d CDMA ports, %d GDMA, %d VSDMA), %zu descriptors: %zu SEND/RECV, %zu COPY (%zu chunk "
           "copies sunk), %zu staged reductions, %zu barriers, %zu routed\n",
           st->programs, st->cdma_programs, st->gdma_programs, st->vsdma_programs, st->descs, st->link_msgs, st->copies,
           st->sunk, st->staged, st->barriers, st->routed);
    printf("  steps    %zu (%zu local only, %zu with exposed local copies), at most %zu message%s per link and "
           "step, M = %.0f B\n",
           L->sched.nsteps, st->local_steps, st->local_exposed, st->max_link_msgs, st->max_link_msgs == 1 ? "" : "s", M);
    int status = 0;
    if (res.nwarnings) diag_warning(dx, alg->name_span, res.warning.code, "%s", res.warning.msg);
    if (rc) {
        diag_error(dx, alg->name_span, res.err.code, "%s", res.err.msg);
        status = 1;
    } else {
        printf("  time     %.3f us (simulated)\n", res.time_us);
        printf("  algbw    %.3f GB/s\n", res.time_us > 0 ? M / (res.time_us * 1e3) : 0.0);
        int bad = -1;
        size_t bad_e = 0, checked = 0;
        for (int r = 0; r < N && bad < 0 && mode != SG2260_DATA_NONE; r++) {
            size_t e = check_output(sim, o, L, r, mode, stride, window, &checked);
            if (e != (size_t)-1) bad = r, bad_e = e;
        }
        if (bad >= 0) {
            diag_error(dx, alg->name_span, "wrong-result",
                       "rank %d (chip %d): element %zu of the output differs from the reference", bad, o->chips[bad],
                       bad_e);
            status = 1;
        } else if (mode == SG2260_DATA_FULL) {
            printf("  check    OK (every rank bit-exact against the naive reference)\n");
        } else if (mode == SG2260_DATA_SAMPLED) {
            char sb[32], wb[32];
            cost_fmt_bytes((double)stride, sb, sizeof sb);
            cost_fmt_bytes((double)window, wb, sizeof wb);
            printf("  check    OK (sampled: %zu elements, the first %s of every %s of every rank, bit-exact against "
                   "the naive reference)\n",
                   checked, wb, sb);
        } else {
            printf("  check    none (--timing-only: the model moved sizes, not data)\n");
        }
        sg2260_result_print(stdout, sim, &res);
    }
    if (o->trace && write_trace(dx, o->trace, sim, sg2260_trace_write_json)) status = 1;
    if (o->svg && write_trace(dx, o->svg, sim, sg2260_trace_write_svg)) status = 1;
    sg2260_sim_free(sim);
    return status;
}

int cmd_sim(int argc, char **argv) {
    SgState g = {0};
    Cmd c = {.target = &target_sg2260, .ctx = &g};
    Status st = cmd_begin(&c, CMD_sim, argc, argv, sg_check_options);
    int failed = 0;
    for (int k = 0; st == EXIT_GO_ON && k < c.nalgs; k++) {
        SgLowered L;
        Sg2260DataMode mode;
        uint64_t stride = 0, window = 0;
        /* --progress prints the engine's own reports; a status line among
         * them would only be erased and redrawn between them */
        if (!g.o.progress) progress_begin("sim", c.algs[k]->name);
        if (lower_for_check(&c, &g, c.algs[k], &L, &mode, &stride, &window) ||
            sim_one(&c.s, &g.o, &g.m, &L, mode, stride, window))
            failed = 1;
        fflush(stdout);
        sg_lowered_free(&L);
    }
    return cmd_end(&c, st == EXIT_GO_ON && failed ? EXIT_INPUT : st);
}
