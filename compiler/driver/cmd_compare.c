/* cmd_compare.c - `collc compare A.coll B.coll ...`: which algorithm is the
 * fastest for which message size, and where they cross over.
 *
 * At fixed N, topology and machine every algorithm's time is a line in M:
 * T_i(M) = a_i*alpha + (b_i/beta + c_i/gamma)*M. The fastest algorithm per
 * size is the lower envelope of these lines, walked from the smallest size:
 * the current winner is overtaken at the first size where a line with a
 * smaller slope meets it. Every pairwise crossover is listed as well. */
#include "driver/compare.h"
#include "driver/synth_cli.h"
#include "support/json.h"
#include "support/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef CompareLine Line;

static double at(const Line *l, double M) { return l->A + l->B * M; }

/* Where j overtakes i (T_j < T_i beyond it), or -1 if never for M > 0. */
static double crossover(const Line *i, const Line *j) {
    if (j->B >= i->B) return -1;
    double M = (j->A - i->A) / (i->B - j->B);
    return M > 0 ? M : -1;
}

int compare_envelope(const CompareLine *lines, int nl, double lo, double hi, int *seg_alg, double *seg_lo) {
    int cur = 0;
    for (int k = 1; k < nl; k++) {
        double tk = at(&lines[k], lo), tc = at(&lines[cur], lo);
        if (tk < tc || (tk == tc && lines[k].B < lines[cur].B)) cur = k;
    }
    int nseg = 0;
    double M = lo;
    for (;;) {
        seg_alg[nseg] = cur;
        seg_lo[nseg] = M;
        nseg++;
        int next = -1;
        double best = INFINITY;
        for (int k = 0; k < nl; k++) {
            if (k == cur) continue;
            double x = crossover(&lines[cur], &lines[k]);
            if (x <= M) continue;
            if (x < best || (x == best && next >= 0 && lines[k].B < lines[next].B)) {
                best = x;
                next = k;
            }
        }
        if (next < 0 || best >= hi || nseg == COMPARE_MAX_SEGMENTS) break;
        cur = next;
        M = best;
    }
    return nseg;
}

/* The comparison of the algorithms of one collective. */
static void report(const CostCli *c, const TopoModel *t, int64_t N, Collective coll, Line *lines,
                   int nl, int first) {
    /* lower envelope over [lo, hi] */
    double lo = c->range_lo, hi = c->range_hi;
    int seg_alg[COMPARE_MAX_SEGMENTS];
    double seg_lo[COMPARE_MAX_SEGMENTS];
    int nseg = compare_envelope(lines, nl, lo, hi, seg_alg, seg_lo);

    char topo[96], al[32], be[32], ga[32];
    topo_describe(t, topo, sizeof topo);
    cost_fmt_time(c->machine.alpha, al, sizeof al);
    cost_fmt_bw(c->machine.beta, be, sizeof be);
    cost_fmt_bw(c->machine.gamma, ga, sizeof ga);
    if (c->json) {
        JsonWriter w;
        json_init(&w, stdout);
        json_object_begin(&w);
        json_field_string(&w, "collective", collective_info[coll].keyword);
        json_field_int(&w, "N", N);
        json_field_string(&w, "topology", t->name);
        json_field_string(&w, "routing", t->cut_through ? "cut-through" : "store-forward");
        json_field_number(&w, "alpha_s", c->machine.alpha);
        json_field_number(&w, "beta_Bps", c->machine.beta);
        json_field_number(&w, "gamma_Bps", c->machine.gamma);
        json_key(&w, "range");
        json_array_begin(&w);
        json_number(&w, lo);
        json_number(&w, hi);
        json_array_end(&w);
        json_key(&w, "algorithms");
        json_array_begin(&w);
        for (int k = 0; k < nl; k++) {
            char r[48];
            json_object_begin(&w);
            json_field_string(&w, "algorithm", lines[k].name);
            json_field_string(&w, "alpha", rat_format(lines[k].t.a, r, sizeof r));
            json_field_string(&w, "beta", rat_format(lines[k].t.b, r, sizeof r));
            json_field_string(&w, "gamma", rat_format(lines[k].t.c, r, sizeof r));
            json_field_number(&w, "latency_s", lines[k].A);
            json_field_number(&w, "seconds_per_byte", lines[k].B);
            json_object_end(&w);
        }
        json_array_end(&w);
        json_key(&w, "fastest");
        json_array_begin(&w);
        for (int k = 0; k < nseg; k++) {
            json_object_begin(&w);
            json_field_number(&w, "from_bytes", seg_lo[k]);
            json_field_number(&w, "to_bytes", k + 1 < nseg ? seg_lo[k + 1] : hi);
            json_field_string(&w, "algorithm", lines[seg_alg[k]].name);
            json_object_end(&w);
        }
        json_array_end(&w);
        json_key(&w, "crossovers");
        json_array_begin(&w);
        for (int i = 0; i < nl; i++)
            for (int j = 0; j < nl; j++) {
                double x = i == j ? -1 : crossover(&lines[i], &lines[j]);
                if (x <= 0) continue;
                json_object_begin(&w);
                json_field_string(&w, "faster_above", lines[j].name);
                json_field_string(&w, "faster_below", lines[i].name);
                json_field_number(&w, "bytes", x);
                json_object_end(&w);
            }
        json_array_end(&w);
        json_object_end(&w);
        fputc('\n', stdout);
    } else {
        if (!first) printf("\n");
        printf("compare %s at N = %lld, topology %s%s\n", collective_info[coll].keyword,
               (long long)N, topo, t->cut_through ? ", cut-through" : "");
        printf("α = %s, β = %s, γ = %s\n\n", al, be, ga);
        size_t w = 9;
        for (int k = 0; k < nl; k++)
            if (strlen(lines[k].name) > w) w = strlen(lines[k].name);
        printf("%-*s  cost\n", (int)w, "algorithm");
        for (int k = 0; k < nl; k++) {
            char ta[64], tb[64], tc[64];
            cost_fmt_term(lines[k].t.a, "α", ta, sizeof ta);
            cost_fmt_term(lines[k].t.b, "M/β", tb, sizeof tb);
            cost_fmt_term(lines[k].t.c, "M/γ", tc, sizeof tc);
            printf("%-*s  %s + %s", (int)w, lines[k].name, ta, tb);
            if (!rat_is_zero(lines[k].t.c)) printf(" + %s", tc);
            printf("\n");
        }
        /* The range column is as wide as its widest range ("329.9 KiB ..
         * 2.441 MiB"), at least 20, and two spaces from the name. */
        char rng[COMPARE_MAX_SEGMENTS][80];
        int rw = 20;
        for (int k = 0; k < nseg; k++) {
            char a1[32], a2[32];
            cost_fmt_bytes(seg_lo[k], a1, sizeof a1);
            cost_fmt_bytes(k + 1 < nseg ? seg_lo[k + 1] : hi, a2, sizeof a2);
            int n = snprintf(rng[k], sizeof rng[k], "%s .. %s", a1, a2);
            if (n > rw) rw = n;
        }
        printf("\n%-*s  fastest\n", rw, "message size");
        for (int k = 0; k < nseg; k++) printf("%-*s  %s\n", rw, rng[k], lines[seg_alg[k]].name);
        printf("\ncrossovers:\n");
        int any = 0;
        for (int i = 0; i < nl; i++)
            for (int j = 0; j < nl; j++) {
                double x = i == j ? -1 : crossover(&lines[i], &lines[j]);
                if (x <= 0) continue;
                char xs[32];
                cost_fmt_bytes(x, xs, sizeof xs);
                printf("  %s overtakes %s at M = %s (%.0f bytes)\n", lines[j].name,
                       lines[i].name, xs, x);
                any = 1;
            }
        for (int i = 0; i < nl; i++)
            for (int j = 0; j < nl; j++) {
                if (i == j) continue;
                /* j is never faster than i: at least as slow at every size */
                if (lines[j].A >= lines[i].A && lines[j].B >= lines[i].B &&
                    (lines[j].A > lines[i].A || lines[j].B > lines[i].B)) {
                    printf("  %s is slower than %s at every size\n", lines[j].name,
                           lines[i].name);
                    any = 1;
                }
            }
        if (!any) printf("  none\n");
    }
}

/* The line of one schedule's cost: a contender. 0, or -1 after reporting. */
static int add_line(const CostCli *c, const Schedule *sch, TopoModel *t, DiagEngine *dx, const Algorithm *alg,
                    const char *name, Line *l) {
    CostResult r;
    if (cost_schedule(sch, t, dx, 0, &r) != 0) return -1;
    l->alg = alg;
    l->name = name;
    l->t = r.total;
    l->A = rat_to_double(r.total.a) * c->machine.alpha;
    l->B = rat_to_double(r.total.b) / c->machine.beta + rat_to_double(r.total.c) / c->machine.gamma;
    cost_result_free(&r);
    return 0;
}

Status compare_algorithm_lines(Cmd *cmd, const CostCli *c, TopoModel *t, CompareLine *lines, int *nl) {
    Session *s = &cmd->s;
    for (int k = 0; k < cmd->nalgs; k++) {
        const Algorithm *a = cmd->algs[k];
        size_t points = session_sweep_points(s, a);
        for (size_t point = 0; point < points; point++) {
            const char *label = session_sweep_label(s, a, point);
            const char *name = *label ? arena_printf(&s->arena, "%s [%s]", a->name, label) : a->name;
            Schedule sch;
            const char *why;
            if (cost_cli_instantiate(s, c, a, cmd->N, point, &sch, &why) != EXIT_GO_ON) return EXIT_INPUT;
            if (why) {
                /* not applicable at this N: leave it out and say so */
                diag_warning(s->dx, a->name_span, "require-failed", "'%s' does not apply for N = %lld%s%s; left out",
                             name, (long long)cmd->N, *why ? ": " : "", why);
                continue;
            }
            int bad = add_line(c, &sch, t, s->dx, a, name, &lines[*nl]);
            schedule_free(&sch);
            if (bad) return EXIT_INPUT;
            ++*nl;
        }
    }
    return EXIT_GO_ON;
}

int compare_lines_of(const CompareLine *lines, int nl, Collective coll, CompareLine *sub) {
    int n = 0;
    for (int k = 0; k < nl; k++)
        if (lines[k].alg->coll == coll) {
            if (sub) sub[n] = lines[k];
            n++;
        }
    return n;
}

int compare_collectives(const CompareLine *lines, int nl) {
    int n = 0;
    for (int coll = 0; coll < COLLECTIVE__COUNT; coll++) n += compare_lines_of(lines, nl, (Collective)coll, NULL) > 0;
    return n;
}

/* --synth: the synthesized schedules of every collective the lines have. */
static Status synth_lines(Cmd *cmd, const CostCli *c, TopoModel *t, Line *lines, int *nl) {
    int nreal = *nl;
    for (int coll = 0; coll < COLLECTIVE__COUNT; coll++) {
        int any = compare_lines_of(lines, nreal, (Collective)coll, NULL) > 0;
        Schedule sy[SYNTH_COMPARE_MAX];
        const char *names[SYNTH_COMPARE_MAX];
        int ns = any ? synth_for_compare(&cmd->s, c, t, (Collective)coll, sy, names) : 0;
        if (ns < 0) return EXIT_INPUT;
        Status st = EXIT_GO_ON;
        for (int k = 0; k < ns; k++) {
            if (st == EXIT_GO_ON && add_line(c, &sy[k], t, cmd->s.dx, sy[k].alg, names[k], &lines[*nl]) == 0)
                ++*nl;
            else
                st = EXIT_INPUT;
            schedule_free(&sy[k]);
        }
        if (st != EXIT_GO_ON) return st;
    }
    return EXIT_GO_ON;
}

int cmd_compare(int argc, char **argv) {
    CostCli c;
    Cmd cmd = {.ctx = &c};
    Status st = cmd_begin(&cmd, CMD_compare, argc, argv, cost_cli_check);
    TopoModel *t = NULL;
    if (st == EXIT_GO_ON) st = cost_cli_topology_for(&cmd.s, &c, cmd.N, &t);
    /* every algorithm, and every point of its -D sweep, is a contender;
     * --synth adds at most SYNTH_COMPARE_MAX schedules per collective */
    Line *lines = NULL;
    int nl = 0;
    if (st == EXIT_GO_ON) {
        size_t nitems = 0;
        for (int k = 0; k < cmd.nalgs; k++) nitems += session_sweep_points(&cmd.s, cmd.algs[k]);
        lines = xcalloc(nitems + SYNTH_COMPARE_MAX * COLLECTIVE__COUNT + 1, sizeof *lines);
        st = compare_algorithm_lines(&cmd, &c, t, lines, &nl);
    }
    if (st == EXIT_GO_ON && cmd.o.synth) st = synth_lines(&cmd, &c, t, lines, &nl);
    if (st == EXIT_GO_ON && nl == 0) {
        diag_error(cmd.s.dx, span_none(), "no-algorithm", "no algorithm to compare at N = %lld", (long long)cmd.N);
        st = EXIT_INPUT;
    }
    if (st == EXIT_GO_ON) {
        /* one comparison per collective, in the order of their values
         * (coll.h's COLL_BROADCAST first) */
        Line *sub = xcalloc((size_t)nl, sizeof *sub);
        int first = 1;
        for (int coll = 0; coll < COLLECTIVE__COUNT; coll++) {
            int n = compare_lines_of(lines, nl, (Collective)coll, sub);
            if (!n) continue;
            report(&c, t, cmd.N, (Collective)coll, sub, n, first);
            first = 0;
        }
        free(sub);
    }
    if (st == EXIT_GO_ON && cmd.o.plot) {
        char topo[96];
        topo_describe(t, topo, sizeof topo);
        st = compare_plot(&cmd.s, cmd.o.plot, cmd.N, topo, c.range_lo, c.range_hi, lines, nl);
    }
    free(lines);
    topo_free(t);
    return cmd_end(&cmd, st);
}
