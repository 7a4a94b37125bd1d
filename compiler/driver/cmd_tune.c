/* cmd_tune.c - `collc tune FILE... --object LIB [--machine M] [-N n]`: the
 * COLLMPI_CONFIG rules (targets/mpi/pmpi.c, docs/mpi.md) that give each
 * collective of the files the algorithm the cost model finds fastest per
 * message size, as `collc compare` finds it (compare.h), for the job's N
 * and, from a machine file that has one (a cluster machine file), the
 * job's shape: every rule then says n=N ppn=P nodes=K, so that the same
 * file can hold the rules of several shapes (docs/cluster.md section 4). */
#include "driver/compare.h"
#include "driver/target.h"
#include "support/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What tune keeps in its Cmd: the cost model (first: cost_cli.h) and the
 * shape of the job. */
typedef struct TuneCli {
    CostCli c;
    int64_t nodes, ppn; /* 0: no shape */
} TuneCli;

static Status tune_options(Cmd *cmd) {
    TuneCli *tc = cmd->ctx;
    Status st = cost_cli_check(cmd);
    if (st != EXIT_GO_ON) return st;
    if (!cmd->o.object) return usage_error(cmd->o.name, "missing --object FILE: the shared object of the compiled algorithms, which the rules name");
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

/* The bytes of a rule's bound: the size where the next algorithm takes
 * over, rounded up to a whole byte. */
static unsigned long long bound(double M) { return (unsigned long long)ceil(M); }

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
        int ns = 0;
        for (int k = 0; k < nl; k++)
            if (lines[k].alg->coll == (Collective)coll) sub[ns++] = lines[k];
        if (!ns) continue;
        int seg_alg[COMPARE_MAX_SEGMENTS];
        double seg_lo[COMPARE_MAX_SEGMENTS];
        int nseg = compare_envelope(sub, ns, c->range_lo, c->range_hi, seg_alg, seg_lo);
        for (int k = 0; k < nseg; k++) {
            unsigned long long a = k == 0 ? bound(c->range_lo) : bound(seg_lo[k]);
            unsigned long long b = k + 1 < nseg ? bound(seg_lo[k + 1]) : bound(c->range_hi);
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

int cmd_tune(int argc, char **argv) {
    TuneCli tc;
    Cmd cmd = {.ctx = &tc};
    Status st = cmd_begin(&cmd, CMD_tune, argc, argv, tune_options);
    TopoModel *t = NULL;
    CompareLine *lines = NULL;
    int nl = 0;
    if (st == EXIT_GO_ON) st = cost_cli_topology_for(&cmd.s, &tc.c, cmd.N, &t);
    if (st == EXIT_GO_ON) {
        lines = xcalloc((size_t)cmd.nalgs + 1, sizeof *lines);
        st = compare_algorithm_lines(&cmd, &tc.c, t, lines, &nl);
    }
    if (st == EXIT_GO_ON && nl == 0) {
        diag_error(cmd.s.dx, span_none(), "no-algorithm", "no algorithm to tune at N = %lld", (long long)cmd.N);
        st = EXIT_INPUT;
    }
    if (st == EXIT_GO_ON) {
        const char *out = cmd.o.output;
        FILE *f = !out || strcmp(out, "-") == 0 ? stdout : fopen(out, "w");
        if (!f) {
            st = usage_error(cmd.o.name, "cannot write '%s': %s", out, strerror(errno));
        } else {
            st = write_rules(&cmd, &tc, t, lines, nl, f);
            if (f != stdout && fclose(f) != 0) st = usage_error(cmd.o.name, "cannot write '%s': %s", out, strerror(errno));
        }
    }
    free(lines);
    topo_free(t);
    return cmd_end(&cmd, st);
}
