/* cost_cli.c - the cost model of the command line, shared by cost,
 * compare, draw and synth; see cost_cli.h. */
#include "driver/cost_cli.h"
#include "driver/pipeline.h"
#include "driver/target.h"
#include "support/util.h"

#include <string.h>

static void cost_cli_end(Cmd *cmd) {
    CostCli *c = cmd->ctx;
    if (c->machine_file) c->tm->free(c->machine_file);
    c->machine_file = NULL;
}

/* --format: the words of this command. */
static Status check_format(CostCli *c, const DriverOptions *o) {
    if (!o->given[OPT_FORMAT]) return EXIT_GO_ON;
    int draw = o->cmd == CMD_draw;
    int ok = draw ? o->format == FORMAT_SVG || o->format == FORMAT_DOT
                  : o->format == FORMAT_TEXT || o->format == FORMAT_JSON;
    char word[16];
    if (!ok)
        return usage_error(c->cmd, "unknown format '%s' (expected %s)",
                           options_choice(OPT_FORMAT, o->format, word, sizeof word), draw ? "svg or dot" : "text or json");
    c->json = o->format == FORMAT_JSON;
    c->dot = o->format == FORMAT_DOT;
    return EXIT_GO_ON;
}

/* --machine FILE: α, β, γ and (unless --topo) the topology of the file;
 * explicit --alpha/--beta/--gamma win over it. */
static Status load_machine(Cmd *cmd, CostCli *c, const DriverOptions *o) {
    if (!o->machine) return EXIT_GO_ON;
    c->tm = target_machine(o->machine);
    if (!c->tm) return usage_error(c->cmd, "no target of this collc reads machine files");
    c->machine_file = c->tm->load(c->cmd, o->machine);
    if (!c->machine_file) return EXIT_USAGE;
    cmd->end = cost_cli_end;
    CostMachine file = c->machine;
    c->tm->cost_params(c->machine_file, &file);
    if (!o->given[OPT_ALPHA]) c->machine.alpha = file.alpha;
    if (!o->given[OPT_BETA]) c->machine.beta = file.beta;
    if (!o->given[OPT_GAMMA]) c->machine.gamma = file.gamma;
    c->machine_file_topology = !o->given[OPT_TOPO];
    return EXIT_GO_ON;
}

Status cost_cli_check(Cmd *cmd) {
    CostCli *c = cmd->ctx;
    const DriverOptions *o = &cmd->o;
    memset(c, 0, sizeof *c);
    c->cmd = o->name;
    if (o->closed_form || o->given[OPT_CLOSED_N]) {
        if (o->given[OPT_N] && o->given[OPT_CLOSED_N])
            return usage_error(c->cmd, "-N and --n cannot be combined");
        if (!o->ns.n) return usage_error(c->cmd, "--closed-form needs the rank counts to fit: -N LIST (e.g. -N 2..64)");
        c->closed = o->ns.v;
        c->nclosed = o->ns.n;
    } else {
        c->Ns = cmd->ns; /* cmd_begin: -N, or DRIVER_MODEL_N */
        c->nN = cmd->nns;
    }
    c->root = o->root;
    c->machine = (CostMachine){.M = o->size, .alpha = o->alpha, .beta = o->beta, .gamma = o->gamma};
    c->topo = o->topo;
    c->ports = o->ports;
    c->cut_through = o->routing == ROUTING_CUT_THROUGH;
    c->per_step = o->per_step;
    c->output = o->output;
    c->range_lo = o->range.lo;
    c->range_hi = o->range.hi;
    Status st = check_format(c, o);
    if (st == EXIT_GO_ON) st = load_machine(cmd, c, o);
    return st;
}

Status cost_cli_topology(Session *s, const CostCli *c, int64_t N, TopoModel **out, char *err, size_t errsz) {
    TopoStatus st;
    if (c->machine_file_topology) {
        st = c->tm->topology(c->machine_file, N, c->ports, out, err, errsz);
    } else {
        size_t nboards;
        const TopoExtra *boards = target_boards(&nboards);
        st = topo_build(c->topo, N, c->ports, &s->prog, boards, nboards, c->machine.alpha, c->machine.beta, s->dx,
                        out, err, errsz);
    }
    switch (st) {
    case TOPO_OK:
        (*out)->cut_through = c->cut_through;
        return EXIT_GO_ON;
    case TOPO_NOT_APPLICABLE: *out = NULL; return EXIT_GO_ON;
    case TOPO_USAGE: return usage_error(c->cmd, "%s", err);
    case TOPO_INPUT_ERROR: return EXIT_INPUT;
    }
    COLLC_UNREACHABLE("topo status");
}

Status cost_cli_topology_for(Session *s, const CostCli *c, int64_t N, TopoModel **out) {
    char err[512];
    Status st = cost_cli_topology(s, c, N, out, err, sizeof err);
    if (st != EXIT_GO_ON || *out) return st;
    diag_error(s->dx, span_none(), "topology-not-applicable", "%s", err);
    return EXIT_INPUT;
}

Status cost_cli_instantiate(Session *s, const CostCli *c, const Algorithm *a, int64_t N, size_t point,
                            Schedule *out, const char **why) {
    SchedParams p = pipeline_params(s, a, point, N, c->root);
    return pipeline_instantiate(s, a, &p, out, why);
}
