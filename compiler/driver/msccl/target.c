/* target.c - the MSCCL target: `collc compile --target=msccl -N n` writes
 * MSCCL-IR for N GPUs (compiler/msccl/msccl_write.c), then reads the file
 * back with the rules of the executor's parser and verifies what it reads
 * (compiler/msccl/msccl_xml.c, msccl_sched.c), so that a file collc writes
 * is one the executor accepts and that computes its collective. With
 * --ranges=compare, each algorithm's minBytes and maxBytes are the sizes
 * where `collc compare` finds it the fastest of the input's (the lower
 * envelope that `collc tune` writes its rules from, tune.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "driver/pipeline.h"
#include "driver/target.h"
#include "driver/tune.h"
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

/* --ranges=compare: the cost model the contenders are priced with. */
static CostCli ms_cost;

/* The options of that cost model. */
static const struct {
    OptionId id;
    const char *spelling;
} model_options[] = {
    {OPT_ALPHA, "--alpha"}, {OPT_BETA, "--beta"},   {OPT_GAMMA, "--gamma"},     {OPT_TOPO, "--topo"},
    {OPT_MACHINE, "--machine"}, {OPT_PORTS, "--ports"}, {OPT_ROUTING, "--routing"}, {OPT_RANGE, "--range"},
};

static Status ms_options(Cmd *c) {
    const DriverOptions *d = &c->o;
    if (d->emit) {
        const TargetEmit *e;
        Status st = target_emit(d->name, &target_msccl, d->emit, &e);
        if (st != EXIT_GO_ON) return st;
    }
    if (d->max_bytes && d->min_bytes > d->max_bytes)
        return usage_error(d->name, "--min-bytes is more than --max-bytes");
    if (d->ranges != RANGES_COMPARE) {
        /* the cost model's options only price the contenders of --ranges=compare */
        for (size_t k = 0; k < ARRAY_LEN(model_options); k++)
            if (d->given[model_options[k].id])
                return usage_error(d->name, "%s prices the algorithms of --ranges=compare; without it the size range is --min-bytes .. --max-bytes",
                                   model_options[k].spelling);
        return EXIT_GO_ON;
    }
    if (d->given[OPT_MIN_BYTES] || d->given[OPT_MAX_BYTES])
        return usage_error(d->name, "--ranges=compare takes minBytes and maxBytes from the comparison; it cannot be "
                                    "combined with --min-bytes or --max-bytes");
    if (d->output && strcmp(d->output, "-") == 0)
        return usage_error(d->name, "--ranges=compare writes a file per algorithm: -o names a folder");
    c->ctx = &ms_cost;
    return cost_cli_check(c);
}

/* The origin of the read-back transfer whose <step> starts at byte `at`
 * (NULL: none, as for the copy of the in-place mode). */
static const MsStepOrigin *origin_at(const MsStepMap *m, uint32_t at) {
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->v[mid].offset < (long)at) lo = mid + 1;
        else hi = mid;
    }
    return lo < m->n && m->v[lo].offset == (long)at ? &m->v[lo] : NULL;
}

/* msccl-steps-differ: the executor runs a step as soon as its thread block,
 * its dependencies and its message allow (the reader's rounds), so the
 * schedule it runs can have other steps than the source's, and so another
 * α term than the one collc printed for the source. Names the transfer of
 * the earliest source step that runs in another step. */
static void warn_steps_differ(Cmd *c, const Schedule *back, const MsStepMap *m) {
    const Transfer *first = NULL;
    const MsStepOrigin *at = NULL;
    size_t at_round = 0, rounds = 0;
    for (size_t k = 0; k < back->nsteps; k++) {
        const Step *st = &back->steps[k];
        int mapped = 0;
        for (size_t i = 0; i < st->count; i++) {
            const Transfer *t = &back->xfers[st->first + i];
            const MsStepOrigin *o = origin_at(m, t->span.lo);
            if (!o) continue;
            mapped = 1;
            if ((size_t)o->step != rounds && (!at || o->step < at->step)) first = t, at = o, at_round = rounds;
        }
        rounds += mapped;
    }
    if (!at) return;
    char what[64];
    if (first->src.rank == first->dst.rank)
        snprintf(what, sizeof what, "on rank %d", (int)first->src.rank);
    else
        snprintf(what, sizeof what, "from rank %d to rank %d", (int)first->src.rank, (int)first->dst.rank);
    diag_warning(c->s.dx, at->span, "msccl-steps-differ",
                 "the MSCCL executor runs this transfer %s, of step %d, in its step %zu (%s); it runs "
                 "the schedule in %zu steps (%zu·α) for the source's %zu (%zu·α)",
                 what, at->step + 1, at_round + 1, /* numbered from 1, as `collc expand` does */
                 (size_t)at->step > at_round ? "earlier: as soon as its data is there"
                                             : "later: its thread block's order or a dependency makes it wait",
                 rounds, rounds, m->steps, m->steps);
}

/* The file read back as the executor reads it, and verified; warns when
 * its steps are not the source's (map: where the written steps come from). */
static int read_back(Cmd *c, const Algorithm *src, const char *path, char *text, size_t len,
                     const MsStepMap *map) {
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
        if (st == EXIT_GO_ON) warn_steps_differ(c, &sched, map);
        schedule_free(&sched);
        if (st != EXIT_GO_ON) return 1;
    }
    return 0;
}

static int compile_one(Cmd *c, const Algorithm *alg, const char *path, int64_t min_bytes, int64_t max_bytes) {
    Session *s = &c->s;
    Schedule sched;
    if (pipeline_prepare(c, alg, 0, PIPE_LOWER, &sched) != EXIT_GO_ON) return 1;
    MsWriteOptions o = {
        .proto = proto_names[c->o.proto],
        .channels = c->o.given[OPT_CHANNELS] ? (int)c->o.channels : 0,
        .inplace = c->o.inplace,
        .min_bytes = min_bytes,
        .max_bytes = max_bytes,
    };
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) COLLC_UNREACHABLE("open_memstream");
    MsStepMap map = {0};
    int failed = msccl_write(mem, &sched, &o, s->dx, &map);
    fclose(mem);
    schedule_free(&sched);
    if (!failed) failed = read_back(c, alg, path, text, len, &map);
    free(map.v);
    if (!failed) {
        FILE *f = session_output(s, path, "w");
        failed = !f || fwrite(text, 1, len, f) != len;
        if (f) failed |= session_output_close(s, f, path);
    }
    free(text);
    return failed;
}

/* --ranges=compare: per collective, the lower envelope of the contenders'
 * times on the topology (as compare and tune find it); the algorithm of
 * each segment is written with the segment's sizes, the first from 0, each
 * next from the byte where it takes over (tune_bound) and the last without
 * an upper bound, so that the files meet with no gap or overlap. The
 * algorithms that are the fastest nowhere are left out with a warning. */
static Status ms_compile_ranges(Cmd *c) {
    CostCli *cc = c->ctx;
    const char *dir = c->o.output;
    if (dir && mkdir(dir, 0777) != 0 && errno != EEXIST) {
        diag_error(c->s.dx, span_none(), "io", "cannot make the folder '%s': %s", dir, strerror(errno));
        return EXIT_INPUT;
    }
    TopoModel *t = NULL;
    Status st = cost_cli_topology_for(&c->s, cc, c->N, &t);
    if (st != EXIT_GO_ON) return st;
    CompareLine *lines = xcalloc((size_t)c->nalgs + 1, sizeof *lines), *sub = xcalloc((size_t)c->nalgs + 1, sizeof *sub);
    int nl = 0, failed = 0;
    st = compare_algorithm_lines(c, cc, t, lines, &nl);
    if (st == EXIT_GO_ON && nl == 0) {
        diag_error(c->s.dx, span_none(), "no-algorithm", "no algorithm to compare at N = %lld", (long long)c->N);
        st = EXIT_INPUT;
    }
    char topo[96], lo[32], hi[32];
    if (st == EXIT_GO_ON) {
        topo_describe(t, topo, sizeof topo);
        cost_fmt_bytes(cc->range_lo, lo, sizeof lo);
        cost_fmt_bytes(cc->range_hi, hi, sizeof hi);
    }
    for (int coll = 0; st == EXIT_GO_ON && coll < COLLECTIVE__COUNT; coll++) {
        int seg_alg[COMPARE_MAX_SEGMENTS];
        double seg_lo[COMPARE_MAX_SEGMENTS];
        int nseg = collective_envelope(cc, lines, nl, (Collective)coll, sub, seg_alg, seg_lo, NULL);
        int ns = compare_lines_of(lines, nl, (Collective)coll, NULL);
        unsigned char *written = xcalloc((size_t)ns + 1, 1);
        for (int k = 0; k < nseg; k++) {
            unsigned long long a = k == 0 ? 0 : tune_bound(seg_lo[k]);
            unsigned long long b = k + 1 < nseg ? tune_bound(seg_lo[k + 1]) : 0;
            if (k + 1 < nseg && b <= a) continue; /* a crossover within one byte */
            const Algorithm *alg = sub[seg_alg[k]].alg;
            if (written[seg_alg[k]]) continue; /* the envelope of lines has each once */
            written[seg_alg[k]] = 1;
            size_t dl = dir ? strlen(dir) : 0;
            while (dl > 1 && dir[dl - 1] == '/') dl--; /* -o algos/ */
            const char *path = dir ? arena_printf(&c->s.arena, "%.*s/%s.xml", (int)dl, dir, alg->name)
                                   : default_output_path(&c->s.arena, alg->name, ".xml");
            failed |= compile_one(c, alg, path, (int64_t)a, k + 1 < nseg ? (int64_t)b - 1 : 0);
        }
        for (int k = 0; k < ns; k++)
            if (!written[k])
                diag_warning(c->s.dx, sub[k].alg->name_span, "never-fastest",
                             "'%s' is the fastest %s at no size of %s .. %s at N = %lld on %s; no file written for it",
                             sub[k].name, collective_info[coll].keyword, lo, hi, (long long)c->N, topo);
        free(written);
    }
    free(lines);
    free(sub);
    topo_free(t);
    if (st != EXIT_GO_ON) return st;
    return failed ? EXIT_INPUT : EXIT_GO_ON;
}

static Status ms_compile(Cmd *c) {
    if (c->o.ranges == RANGES_COMPARE) return ms_compile_ranges(c);
    const char *out = c->o.output;
    if (c->nalgs > 1 && out && strcmp(out, "-"))
        return usage_error(c->o.name, "-o names one file, but there are %d algorithms (use "
                                      "--algorithm)", c->nalgs);
    int failed = 0;
    for (int k = 0; k < c->nalgs; k++) {
        const char *path = out ? out
                               : default_output_path(&c->s.arena, c->algs[k]->name, ".xml");
        failed |= compile_one(c, c->algs[k], path, c->o.min_bytes, c->o.max_bytes);
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
