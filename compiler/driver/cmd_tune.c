/* cmd_tune.c - `collc tune FILE... --object LIB [--machine M] [-N n]`: the
 * COLLMPI_CONFIG rules (targets/mpi/pmpi.c, docs/mpi.md) that give each
 * collective of the files the algorithm the cost model finds fastest per
 * message size, as `collc compare` finds it (compare.h), for the job's N
 * and, from a machine file that has one (a cluster machine file), the
 * job's shape: every rule then says n=N ppn=P nodes=K, so that the same
 * file can hold the rules of several shapes (docs/cluster.md section 4).
 * --emit=ompi-rules and --emit=mpich-json write the MPI library's own
 * selection files instead (sections 5 and 6; mpich_json.c); --measure
 * FILE the rules from collc-measure's times (mpi/tune_measure.c). */
#include "driver/target.h"
#include "driver/tune.h"
#include "support/suggest.h"
#include "support/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What --emit writes (TuneEmit): collc's own rules, or the MPI library's. */
static const char *const emit_kinds[] = {"collmpi", "ompi-rules", "mpich-json"};

/* Open MPI's coll_tuned: a collective's id in its rules file (-1: none). */
static int ompi_coll_id(Collective coll) {
    switch (coll) {
#define OMPI_COLL(c, id) case COLLECTIVE_##c: return id;
#define OMPI_ALG(c, number, name, model)
#include "driver/ompi_rules.def"
#undef OMPI_COLL
#undef OMPI_ALG
    default: return -1;
    }
}

typedef struct OmpiAlg {
    Collective coll;
    int number;
    const char *name, *model;
} OmpiAlg;
static const OmpiAlg ompi_algs[] = {
#define OMPI_COLL(c, id)
#define OMPI_ALG(c, number, name, model) {COLLECTIVE_##c, number, name, model},
#include "driver/ompi_rules.def"
#undef OMPI_COLL
#undef OMPI_ALG
};

/* The Open MPI algorithm that algorithm a models, or NULL. */
static const OmpiAlg *ompi_alg_of(const Algorithm *a) {
    for (size_t k = 0; k < ARRAY_LEN(ompi_algs); k++)
        if (ompi_algs[k].coll == a->coll && strcmp(ompi_algs[k].model, a->name) == 0) return &ompi_algs[k];
    return NULL;
}

/* --measure: one file, collc-measure's, read by tune_measure; the cost
 * model's options and those that name compiled symbols have no say. */
static Status measure_options(Cmd *cmd) {
    static const struct {
        OptionId id;
        const char *spelling;
    } model[] = {{OPT_MACHINE, "--machine"}, {OPT_ALPHA, "--alpha"}, {OPT_BETA, "--beta"},
                 {OPT_GAMMA, "--gamma"},     {OPT_TOPO, "--topo"},   {OPT_PORTS, "--ports"},
                 {OPT_ROUTING, "--routing"}, {OPT_ROOT, "--root"},   {OPT_EMIT, "--emit"},
                 {OPT_PREFIX, "--prefix"}};
    if (cmd->o.nfiles != 1)
        return usage_error(cmd->o.name, "--measure reads one file, collc-measure's output; got %d", cmd->o.nfiles);
    for (size_t k = 0; k < ARRAY_LEN(model); k++)
        if (cmd->o.given[model[k].id])
            return usage_error(cmd->o.name, "%s is for the cost model's rules; --measure takes the measured times and the "
                                            "algorithms' names as collc-measure loaded them",
                               model[k].spelling);
    if (cmd->o.given[OPT_RANGE] && !(cmd->o.range.lo >= 1))
        return usage_error(cmd->o.name, "--range starts at 1 byte at least");
    cmd->nargs = cmd->o.nfiles; /* not a .coll file: read by tune_measure */
    return EXIT_GO_ON;
}

static Status tune_options(Cmd *cmd) {
    TuneCli *tc = cmd->ctx;
    if (cmd->o.measure) return measure_options(cmd);
    if (cmd->o.fastest) return usage_error(cmd->o.name, "--fastest chooses among measured times: with --measure only");
    Status st = cost_cli_check(cmd);
    if (st != EXIT_GO_ON) return st;
    tc->emit = TUNE_COLLMPI;
    if (cmd->o.emit) {
        size_t k = 0;
        while (k < ARRAY_LEN(emit_kinds) && strcmp(cmd->o.emit, emit_kinds[k]) != 0) k++;
        if (k == ARRAY_LEN(emit_kinds)) {
            Suggest sg;
            suggest_init(&sg, cmd->o.emit, SUGGEST_NAME);
            for (k = 0; k < ARRAY_LEN(emit_kinds); k++) suggest_offer(&sg, emit_kinds[k], NULL);
            return usage_error(cmd->o.name, "--emit expects collmpi, ompi-rules or mpich-json, got '%s'%s%s%s", cmd->o.emit,
                               sg.best ? "; did you mean '" : "", sg.best ? sg.best : "", sg.best ? "'?" : "");
        }
        tc->emit = (TuneEmit)k;
    }
    if (tc->emit != TUNE_COLLMPI && cmd->o.object)
        return usage_error(cmd->o.name, "--object names collc's shared object; --emit=%s tunes %s own algorithms",
                           emit_kinds[tc->emit], tc->emit == TUNE_OMPI_RULES ? "Open MPI's" : "MPICH's");
    if (tc->emit == TUNE_COLLMPI && !cmd->o.object) return usage_error(cmd->o.name, "missing --object FILE: the shared object of the compiled algorithms, which the rules name");
    if (cmd->o.given[OPT_RANGE] && !(cmd->o.range.lo >= 1))
        return usage_error(cmd->o.name, "--range starts at 1 byte at least");
    tc->nodes = tc->ppn = 0;
    if (tc->c.machine_file && tc->c.machine_file_topology && tc->c.tm->shape) {
        tc->c.tm->shape(tc->c.machine_file, &tc->nodes, &tc->ppn);
        if (!cmd->o.given[OPT_N]) cmd->N = tc->nodes * tc->ppn;
        /* the shape of this N: ranks in blocks of ppn; an N that leaves a
         * node partly filled has nodes of different sizes (ppn 0 at run
         * time, which no ppn= matches), so its rules say n= only */
        if (cmd->N % tc->ppn) tc->nodes = tc->ppn = 0;
        else tc->nodes = cmd->N / tc->ppn;
    }
    return EXIT_GO_ON;
}

int collective_envelope(const CostCli *c, const CompareLine *lines, int nl, Collective coll, CompareLine *sub,
                        int *seg_alg, double *seg_lo, int *one) {
    int ns = compare_lines_of(lines, nl, coll, sub);
    int nseg = ns ? compare_envelope(sub, ns, c->range_lo, c->range_hi, seg_alg, seg_lo) : 0;
    if (!one) return nseg;
    *one = coll == COLLECTIVE_SCATTER || coll == COLLECTIVE_GATHER;
    if (*one && nseg > 1) {
        int best = 0;
        double widest = -1;
        for (int k = 0; k < nseg; k++) {
            double hi = k + 1 < nseg ? seg_lo[k + 1] : c->range_hi;
            double w = log(hi) - log(k == 0 ? c->range_lo : seg_lo[k]);
            if (w > widest) widest = w, best = k;
        }
        seg_alg[0] = seg_alg[best];
        nseg = 1;
    }
    return nseg;
}

unsigned long long tune_bound(double M) { return (unsigned long long)ceil(M); }

static Status write_rules(Cmd *cmd, TuneCli *tc, TopoModel *t, CompareLine *lines, int nl, FILE *f) {
    const CostCli *c = &tc->c;
    const char *prefix = cmd->o.prefix ? cmd->o.prefix : "";
    char topo[96], al[32], be[32], ga[32], lo[32], hi[32], cond[96];
    topo_describe(t, topo, sizeof topo);
    cost_fmt_time(c->machine.alpha, al, sizeof al);
    cost_fmt_bw(c->machine.beta, be, sizeof be);
    cost_fmt_bw(c->machine.gamma, ga, sizeof ga);
    cost_fmt_bytes(c->range_lo, lo, sizeof lo);
    cost_fmt_bytes(c->range_hi, hi, sizeof hi);
    int n = snprintf(cond, sizeof cond, "n=%lld", (long long)cmd->N);
    if (tc->ppn) snprintf(cond + n, sizeof cond - (size_t)n, " ppn=%lld nodes=%lld", (long long)tc->ppn, (long long)tc->nodes);
    fprintf(f, "# COLLMPI_CONFIG rules of collc tune (docs/cluster.md section 4): the fastest\n"
               "# algorithm per size by the cost model, N = %lld, topology %s,\n"
               "# α = %s, β = %s, γ = %s, sizes %s .. %s.\n",
            (long long)cmd->N, topo, al, be, ga, lo, hi);
    fprintf(f, "# collective      min          max          object  algorithm  conditions  # predicted time at min\n");
    CompareLine *sub = xcalloc((size_t)nl, sizeof *sub);
    for (int coll = 0; coll < COLLECTIVE__COUNT; coll++) {
        int seg_alg[COMPARE_MAX_SEGMENTS];
        double seg_lo[COMPARE_MAX_SEGMENTS];
        int nseg = collective_envelope(c, lines, nl, (Collective)coll, sub, seg_alg, seg_lo, NULL);
        if (!nseg) continue;
        for (int k = 0; k < nseg; k++) {
            unsigned long long a = k == 0 ? tune_bound(c->range_lo) : tune_bound(seg_lo[k]);
            unsigned long long b = k + 1 < nseg ? tune_bound(seg_lo[k + 1]) : tune_bound(c->range_hi);
            if (b <= a) continue; /* a crossover within one byte */
            const CompareLine *l = &sub[seg_alg[k]];
            char at[32];
            cost_fmt_time(l->A + l->B * (double)a, at, sizeof at);
            fprintf(f, "%-16s %-12llu %-12llu %s %s%s %s  # %s\n", collective_info[coll].keyword, a, b,
                    cmd->o.object, prefix, l->alg->name, cond, at);
        }
    }
    free(sub);
    return EXIT_GO_ON;
}

/* One rule of an Open MPI rules file: "SIZE ALG FANINOUT SEGSIZE", plain
 * decimal numbers (the reader takes a leading 0 for octal), any note
 * behind '#'. */
static void ompi_rule(FILE *f, unsigned long long size, int alg, const char *note) {
    fprintf(f, "%llu %d 0 0%*s# %s\n", size, alg, 14 - snprintf(NULL, 0, "%llu %d 0 0", size, alg), "", note);
}

/* The fixed decision of Open MPI (algorithm 0) for the communicators of
 * comm_size and above: one comm-size block. */
static void ompi_fixed_block(FILE *f, long long comm_size, const char *which) {
    fprintf(f, "%-14lld# communicators of %s: Open MPI's own decision\n1\n", comm_size, which);
    ompi_rule(f, 0, 0, "every size");
}

/* An Open MPI coll_tuned rules file (Open MPI 4.1's format: no version
 * line, four numbers a rule, as ompi/mca/coll/tuned/coll_tuned_dynamic_file.c
 * reads it): for each collective, Open MPI's own decision below N and above
 * N, and at N the algorithm the model finds fastest per message size
 * among those of Open MPI that the input models (ompi_rules.def). The
 * message size Open MPI decides on is collc's M for every collective. */
static Status write_ompi_rules(Cmd *cmd, TuneCli *tc, TopoModel *t, CompareLine *lines, int nl, FILE *f) {
    const CostCli *c = &tc->c;
    char topo[96], al[32], be[32], ga[32];
    topo_describe(t, topo, sizeof topo);
    cost_fmt_time(c->machine.alpha, al, sizeof al);
    cost_fmt_bw(c->machine.beta, be, sizeof be);
    cost_fmt_bw(c->machine.gamma, ga, sizeof ga);
    CompareLine *sub = xcalloc((size_t)nl, sizeof *sub);
    int ncoll = compare_collectives(lines, nl);
    fprintf(f, "# Open MPI coll_tuned rules of collc tune (docs/cluster.md section 5): the\n"
               "# fastest of Open MPI's algorithms per size by the cost model, N = %lld,\n"
               "# topology %s, α = %s, β = %s, γ = %s. Use with\n"
               "#   mpirun --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename FILE\n",
            (long long)cmd->N, topo, al, be, ga);
    fprintf(f, "%-14d# collectives\n", ncoll);
    for (int coll = 0; coll < COLLECTIVE__COUNT; coll++) {
        int seg_alg[COMPARE_MAX_SEGMENTS];
        double seg_lo[COMPARE_MAX_SEGMENTS];
        int one, nseg = collective_envelope(c, lines, nl, (Collective)coll, sub, seg_alg, seg_lo, &one);
        if (!nseg) continue;
        fprintf(f, "%-14d# %s (COLLTYPE %d)\n3             # communicator sizes\n", ompi_coll_id((Collective)coll),
                collective_info[coll].keyword, ompi_coll_id((Collective)coll));
        ompi_fixed_block(f, 0, "0 and up");
        int rules = 0;
        for (int k = 0; k < nseg; k++) {
            unsigned long long a = k == 0 ? 0 : tune_bound(seg_lo[k]);
            unsigned long long b = k + 1 < nseg ? tune_bound(seg_lo[k + 1]) : 0;
            rules += k + 1 == nseg || b > a;
        }
        fprintf(f, "%-14lld# communicators of N = %lld ranks\n%-14d# message sizes\n", (long long)cmd->N,
                (long long)cmd->N, rules);
        for (int k = 0; k < nseg; k++) {
            unsigned long long a = k == 0 ? 0 : tune_bound(seg_lo[k]);
            unsigned long long b = k + 1 < nseg ? tune_bound(seg_lo[k + 1]) : 0;
            if (k + 1 < nseg && b <= a) continue; /* a crossover within one byte */
            const CompareLine *l = &sub[seg_alg[k]];
            const OmpiAlg *o = ompi_alg_of(l->alg);
            char from[32], note[160], at[32];
            cost_fmt_bytes((double)a, from, sizeof from);
            cost_fmt_time(l->A + l->B * (double)(a ? a : 1), at, sizeof at);
            snprintf(note, sizeof note, "from %s%s: %s (%s), %s at %s", from, one ? " (every size)" : "", o->name,
                     l->alg->name, at, a ? from : "1 B");
            ompi_rule(f, a, o->number, note);
        }
        char above[32];
        snprintf(above, sizeof above, "%lld and up", (long long)cmd->N + 1);
        ompi_fixed_block(f, cmd->N + 1, above);
    }
    free(sub);
    return EXIT_GO_ON;
}

/* --emit=ompi-rules, --emit=mpich-json: only the algorithms that model one
 * of the library's (ompi_rules.def, mpich_json.def) are candidates; the
 * others are left out, each with a warning. */
static int keep_library_lines(Cmd *cmd, TuneEmit emit, CompareLine *lines, int nl) {
    int kept = 0;
    for (int k = 0; k < nl; k++) {
        const Algorithm *a = lines[k].alg;
        if (emit == TUNE_OMPI_RULES ? ompi_alg_of(a) && ompi_coll_id(a->coll) >= 0 : mpich_alg_of(a, cmd->N) != NULL) {
            lines[kept++] = lines[k];
            continue;
        }
        if (k > 0 && lines[k - 1].alg == a) continue; /* one warning for a sweep */
        if (emit == TUNE_OMPI_RULES)
            diag_warning(cmd->s.dx, a->name_span, "not-a-library-algorithm",
                         "'%s' is none of Open MPI's %s algorithms (docs/cluster.md section 5); left out", a->name,
                         collective_info[a->coll].keyword);
        else
            diag_warning(cmd->s.dx, a->name_span, "not-a-library-algorithm",
                         "'%s' is none of MPICH's %s algorithms at N = %lld (docs/cluster.md section 6); left out",
                         a->name, collective_info[a->coll].keyword, (long long)cmd->N);
    }
    return kept;
}

/* The rules file of -o (standard output by default), written by `write`. */
static Status write_output(Cmd *cmd, Status (*write)(Cmd *cmd, FILE *f, void *arg), void *arg) {
    const char *out = cmd->o.output;
    FILE *f = !out || strcmp(out, "-") == 0 ? stdout : fopen(out, "w");
    if (!f) return usage_error(cmd->o.name, "cannot write '%s': %s", out, strerror(errno));
    Status st = write(cmd, f, arg);
    if (f != stdout && fclose(f) != 0) st = usage_error(cmd->o.name, "cannot write '%s': %s", out, strerror(errno));
    return st;
}

typedef struct ModelRules {
    TuneCli *tc;
    TopoModel *t;
    CompareLine *lines;
    int nl;
} ModelRules;

static Status write_model_rules(Cmd *cmd, FILE *f, void *arg) {
    ModelRules *r = arg;
    return r->tc->emit == TUNE_OMPI_RULES    ? write_ompi_rules(cmd, r->tc, r->t, r->lines, r->nl, f)
           : r->tc->emit == TUNE_MPICH_JSON ? write_mpich_json(cmd, r->tc, r->lines, r->nl, f)
                                            : write_rules(cmd, r->tc, r->t, r->lines, r->nl, f);
}

static Status write_text(Cmd *cmd, FILE *f, void *arg) {
    (void)cmd;
    fputs(arg, f);
    return EXIT_GO_ON;
}

/* --measure: the rules are made in memory first, so that an error in the
 * measurements leaves no partial -o file. */
static Status measured_rules(Cmd *cmd) {
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) return usage_error(cmd->o.name, "out of memory");
    Status st = tune_measure(cmd, mem);
    fclose(mem);
    if (st == EXIT_GO_ON) st = write_output(cmd, write_text, text);
    free(text);
    return st;
}

int cmd_tune(int argc, char **argv) {
    TuneCli tc;
    Cmd cmd = {.ctx = &tc};
    Status st = cmd_begin(&cmd, CMD_tune, argc, argv, tune_options);
    if (st == EXIT_GO_ON && cmd.o.measure) return cmd_end(&cmd, measured_rules(&cmd));
    TopoModel *t = NULL;
    CompareLine *lines = NULL;
    int nl = 0;
    if (st == EXIT_GO_ON) st = cost_cli_topology_for(&cmd.s, &tc.c, cmd.N, &t);
    if (st == EXIT_GO_ON) {
        lines = xcalloc((size_t)cmd.nalgs + 1, sizeof *lines);
        st = compare_algorithm_lines(&cmd, &tc.c, t, lines, &nl);
        if (st == EXIT_GO_ON && tc.emit != TUNE_COLLMPI) nl = keep_library_lines(&cmd, tc.emit, lines, nl);
    }
    if (st == EXIT_GO_ON && nl == 0) {
        diag_error(cmd.s.dx, span_none(), "no-algorithm", "no algorithm to tune at N = %lld", (long long)cmd.N);
        st = EXIT_INPUT;
    }
    if (st == EXIT_GO_ON) {
        ModelRules r = {&tc, t, lines, nl};
        st = write_output(&cmd, write_model_rules, &r);
    }
    free(lines);
    topo_free(t);
    return cmd_end(&cmd, st);
}
