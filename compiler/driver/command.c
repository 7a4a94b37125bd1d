/* command.c - the skeleton every command begins and ends with; see
 * command.h. */
#include "driver/command.h"
#include "driver/target.h"
#include "support/util.h"

#include <string.h>

static const struct {
    CmdRanks ranks;
    const char *counts, *verb;
} begins[CMD__COUNT] = {
#define X(name, fn, args, summary, description, exit1)
#define BEGIN(name, ranks, counts, verb) [CMD_##name] = {ranks, counts, verb},
#include "driver/commands.def"
#undef X
};

CmdRanks cmd_ranks(CommandId id, const Target *t, const char **counts) {
    if (id > CMD__BEFORE_PAGES) {
        /* compile --target=NAME on its own page: one N if the target is
         * made for one, else the N verified, as compile's */
        *counts = t && t->fixed_n ? t->fixed_n : begins[CMD_compile].counts;
        return t && t->fixed_n ? RANKS_ONE : begins[CMD_compile].ranks;
    }
    *counts = begins[id].counts;
    return begins[id].ranks;
}

/* -N as the command takes it. */
static Status read_ranks(Cmd *c, CmdRanks ranks, const char *counts) {
    const DriverOptions *o = &c->o;
    switch (ranks) {
    case RANKS_NONE: return EXIT_GO_ON;
    case RANKS_LIST:
        c->ns = o->ns.v;
        c->nns = o->ns.n;
        return EXIT_GO_ON;
    case RANKS_LIST_MODEL:
        c->N = DRIVER_MODEL_N;
        c->ns = o->ns.n ? o->ns.v : &c->N;
        c->nns = o->ns.n ? o->ns.n : 1;
        return EXIT_GO_ON;
    case RANKS_ONE: return options_single_n(o, -1, counts, &c->N);
    case RANKS_ONE_MODEL: return options_single_n(o, DRIVER_MODEL_N, counts, &c->N);
    }
    COLLC_UNREACHABLE("ranks of a command");
}

/* The N every selected algorithm is for (an MSCCL file's ngpus, a
 * synthesized schedule's `require N == K`), or -1. */
static int64_t files_n(const Cmd *c) {
    int64_t n = -1;
    for (int k = 0; k < c->nalgs; k++) {
        int64_t f = ast_fixed_n(c->algs[k]);
        if (f < 0 || (n >= 0 && f != n)) return -1;
        n = f;
    }
    return n;
}

/* Without -N, a command that needs one N takes the N every selected
 * algorithm is for; otherwise -N is missing, as before. */
static Status file_n(Cmd *c, const char *counts) {
    int64_t n = files_n(c);
    if (n < 0) return options_single_n(&c->o, -1, counts, &c->N);
    c->N = n;
    return EXIT_GO_ON;
}

Status cmd_begin(Cmd *c, CommandId id, int argc, char **argv, Status (*check)(Cmd *c)) {
    Status st = options_parse(&c->o, id, argc, argv);
    if (st != EXIT_GO_ON) return st;
    c->parsed = 1;
    const char *counts = NULL;
    CmdRanks ranks = cmd_ranks(id, c->target, &counts);
    /* one N required and none given: the files may say it (see file_n) */
    int n_from_file = ranks == RANKS_ONE && c->o.ns.n == 0;
    if (!n_from_file) st = read_ranks(c, ranks, counts);
    if (st == EXIT_GO_ON && check && !n_from_file) st = check(c);
    if (st != EXIT_GO_ON) return st;
    c->opened = 1;
    st = session_open(&c->s, &c->o.common, c->o.files + c->nargs, c->o.nfiles - c->nargs);
    if (st != EXIT_GO_ON) return st;
    c->nalgs = session_algorithms(&c->s, &c->algs);
    const char *verb = id > CMD__BEFORE_PAGES ? begins[CMD_compile].verb : begins[id].verb;
    if (c->nalgs == 0 && verb && c->nargs < c->o.nfiles) {
        /* an empty file, /dev/null or one with only a topology: nothing to do
         * is not success for a command whose work is an algorithm (one that
         * reads every file itself, tune --measure, has none to find) */
        diag_error(c->s.dx, span_none(), "no-algorithm", "no algorithm to %s in the input", verb);
        return EXIT_INPUT;
    }
    if (n_from_file) {
        st = file_n(c, counts);
        if (st == EXIT_GO_ON && check) st = check(c);
    }
    /* a cost model's command without -N prices at the N every algorithm is
     * for (an MSCCL file for 16 GPUs at 16) rather than DRIVER_MODEL_N,
     * unless its check chose another (tune: the machine file's shape);
     * c->ns points at c->N there */
    if ((ranks == RANKS_LIST_MODEL || ranks == RANKS_ONE_MODEL) && c->o.ns.n == 0 && c->N == DRIVER_MODEL_N &&
        files_n(c) > 0)
        c->N = files_n(c);
    return st;
}

int cmd_end(Cmd *c, Status st) {
    int status = st == EXIT_GO_ON ? EXIT_OK : (int)st;
    fflush(stdout);
    if (c->end) c->end(c);
    c->end = NULL;
    if (c->opened) status = session_close(&c->s, status);
    if (c->parsed) options_free(&c->o);
    c->opened = c->parsed = 0;
    return status;
}
