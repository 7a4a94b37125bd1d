/* cmd_draw.c - `collc draw FILE -N 4 [-o flow.svg] [--format svg|dot]`: the
 * chunk flows of one algorithm, one panel per step (analysis/draw.h). The
 * SVG's subtitle carries the cost at this N on the chosen topology. */
#include "driver/driver.h"
#include "driver/cost_cli.h"
#include "analysis/draw.h"
#include "support/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int cmd_draw(int argc, char **argv) {
    DriverOptions o;
    int rc = options_parse(&o, CMD_draw, argc, argv);
    if (rc >= 0) return rc;
    CostCli c;
    int64_t N = 0;
    rc = cost_cli_init_one_n(&c, &o, &N);
    if (rc) {
        options_free(&o);
        return rc;
    }
    Session s;
    if (session_open(&s, &c.common, o.files, o.nfiles)) {
        options_free(&o);
        return session_close(&s, EXIT_INPUT);
    }
    Algorithm **algs;
    int nalgs = session_algorithms(&s, &algs);
    int status = EXIT_OK;
    if (nalgs == 0) {
        diag_error(s.dx, span_none(), "no-algorithm", "no algorithm to draw in the input");
        status = EXIT_INPUT;
    } else if (nalgs > 1) {
        status = usage_error("draw", "the input has %d algorithms ('%s', '%s'%s); pick one with "
                             "--algorithm", nalgs, algs[0]->name, algs[1]->name,
                             nalgs > 2 ? ", ..." : "");
    }
    Schedule sch;
    int have_sched = 0;
    if (status == EXIT_OK) {
        const char *why = NULL;
        int ir = cost_cli_instantiate(&s, &c, algs[0], N, 0, &sch, &why);
        if (ir == 1)
            diag_error(s.dx, algs[0]->name_span, "require-failed",
                       "'%s' does not apply for N = %lld%s%s", algs[0]->name, (long long)N,
                       *why ? ": " : "", why);
        if (ir) status = EXIT_INPUT;
        else have_sched = 1;
    }
    /* The cost subtitle is a convenience: a topology that does not fit this
     * N just leaves it out. */
    CostResult cost;
    int have_cost = 0;
    char subtitle[400] = "";
    if (have_sched && !c.dot) {
        TopoModel *t = NULL;
        char err[256];
        int tr = cost_cli_topology(&s, &c, N, &t, err, sizeof err);
        if (tr == 2) status = EXIT_USAGE;
        else if (tr < 0) status = EXIT_INPUT;
        else if (tr == 0 && cost_schedule(&sch, t, s.dx, 1, &cost) == 0) {
            have_cost = 1;
            char ta[64], tb[64], tc[64], tm[32];
            cost_fmt_term(cost.total.a, "α", ta, sizeof ta);
            cost_fmt_term(cost.total.b, "M/β", tb, sizeof tb);
            cost_fmt_term(cost.total.c, "M/γ", tc, sizeof tc);
            cost_fmt_time(cost_time(cost.total, &c.machine), tm, sizeof tm);
            char sz[32];
            cost_fmt_bytes(c.machine.M, sz, sizeof sz);
            snprintf(subtitle, sizeof subtitle, "T = %s + %s%s%s on %s  (%s at M = %s)", ta, tb,
                     rat_is_zero(cost.total.c) ? "" : " + ", rat_is_zero(cost.total.c) ? "" : tc,
                     t->name, tm, sz);
        }
        topo_free(t);
    }
    if (status == EXIT_OK) {
        FILE *out = stdout;
        int to_file = c.output && strcmp(c.output, "-") != 0;
        if (to_file) {
            out = fopen(c.output, "w");
            if (!out) {
                diag_error(s.dx, span_none(), "cannot-write", "cannot write '%s': %s", c.output,
                           strerror(errno));
                status = EXIT_INPUT;
            }
        }
        if (status == EXIT_OK) {
            int r = c.dot ? draw_dot(out, &sch, s.dx)
                          : draw_svg(out, &sch, have_cost ? &cost : NULL, subtitle, s.dx);
            if (r) status = EXIT_INPUT;
            if (to_file && fclose(out) != 0) {
                diag_error(s.dx, span_none(), "cannot-write", "cannot write '%s': %s", c.output,
                           strerror(errno));
                status = EXIT_INPUT;
            }
        }
    }
    if (have_cost) cost_result_free(&cost);
    if (have_sched) schedule_free(&sch);
    fflush(stdout);
    options_free(&o);
    return session_close(&s, status);
}
