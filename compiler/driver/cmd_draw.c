/* cmd_draw.c - `collc draw FILE -N 4 [-o flow.svg] [--format svg|dot]`: the
 * chunk flows of one algorithm, one panel per step (analysis/draw.h). The
 * SVG's subtitle carries the cost at this N on the chosen topology. */
#include "driver/cost_cli.h"
#include "analysis/draw.h"
#include "support/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* --algorithm or the one algorithm of the input. */
static Status one_algorithm(Cmd *c) {
    if (c->nalgs == 1) return EXIT_GO_ON;
    return usage_error("draw", "the input has %d algorithms ('%s', '%s'%s); pick one with --algorithm", c->nalgs,
                       c->algs[0]->name, c->algs[1]->name, c->nalgs > 2 ? ", ..." : "");
}

/* The cost in the subtitle of the SVG: a convenience, so a topology that
 * does not fit this N just leaves it out (*have stays 0). */
static Status subtitle_cost(Cmd *cmd, const CostCli *c, const Schedule *sch, CostResult *cost, int *have,
                            char *subtitle, size_t size) {
    TopoModel *t = NULL;
    char err[256];
    Status st = cost_cli_topology(&cmd->s, c, cmd->N, &t, err, sizeof err);
    if (st != EXIT_GO_ON || !t) return st;
    if (cost_schedule(sch, t, cmd->s.dx, 1, cost) == 0) {
        *have = 1;
        char ta[64], tb[64], tc[64], tm[32], sz[32];
        cost_fmt_term(cost->total.a, "α", ta, sizeof ta);
        cost_fmt_term(cost->total.b, "M/β", tb, sizeof tb);
        cost_fmt_term(cost->total.c, "M/γ", tc, sizeof tc);
        cost_fmt_time(cost_time(cost->total, &c->machine), tm, sizeof tm);
        cost_fmt_bytes(c->machine.M, sz, sizeof sz);
        snprintf(subtitle, size, "T = %s + %s%s%s on %s  (%s at M = %s)", ta, tb, rat_is_zero(cost->total.c) ? "" : " + ",
                 rat_is_zero(cost->total.c) ? "" : tc, t->name, tm, sz);
    }
    topo_free(t);
    return EXIT_GO_ON;
}

/* The picture into -o (or standard output). EXIT_GO_ON, or EXIT_INPUT. */
static Status write_picture(Cmd *cmd, const CostCli *c, const Schedule *sch, const CostResult *cost,
                            const char *subtitle) {
    DiagEngine *dx = cmd->s.dx;
    FILE *out = stdout;
    int to_file = c->output && strcmp(c->output, "-") != 0;
    if (to_file && !(out = fopen(c->output, "w"))) {
        diag_error(dx, span_none(), "cannot-write", "cannot write '%s': %s", c->output, strerror(errno));
        return EXIT_INPUT;
    }
    Status st = (c->dot ? draw_dot(out, sch, dx) : draw_svg(out, sch, cost, subtitle, dx)) ? EXIT_INPUT : EXIT_GO_ON;
    if (to_file && fclose(out) != 0) {
        diag_error(dx, span_none(), "cannot-write", "cannot write '%s': %s", c->output, strerror(errno));
        st = EXIT_INPUT;
    }
    return st;
}

int cmd_draw(int argc, char **argv) {
    CostCli c;
    Cmd cmd = {.ctx = &c};
    Status st = cmd_begin(&cmd, CMD_draw, argc, argv, cost_cli_check);
    if (st == EXIT_GO_ON) st = one_algorithm(&cmd);
    Schedule sch;
    int have_sched = 0, have_cost = 0;
    CostResult cost;
    char subtitle[400] = "";
    if (st == EXIT_GO_ON) {
        const Algorithm *a = cmd.algs[0];
        const char *why;
        st = cost_cli_instantiate(&cmd.s, &c, a, cmd.N, 0, &sch, &why);
        if (st == EXIT_GO_ON && why) {
            diag_error(cmd.s.dx, a->name_span, "require-failed", "'%s' does not apply for N = %lld%s%s", a->name,
                       (long long)cmd.N, *why ? ": " : "", why);
            st = EXIT_INPUT;
        }
        have_sched = st == EXIT_GO_ON;
    }
    if (st == EXIT_GO_ON && !c.dot) st = subtitle_cost(&cmd, &c, &sch, &cost, &have_cost, subtitle, sizeof subtitle);
    if (st == EXIT_GO_ON) st = write_picture(&cmd, &c, &sch, have_cost ? &cost : NULL, subtitle);
    if (have_cost) cost_result_free(&cost);
    if (have_sched) schedule_free(&sch);
    return cmd_end(&cmd, st);
}
