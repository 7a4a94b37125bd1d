/* cmd_verify.c - `collc verify FILE... [-N list] [--root R] [--max-errors K]`.
 *
 * Diagnostics (text/json/sarif) go to stderr through the session's engine;
 * the one-line summary per algorithm goes to stdout. Exit 1 when any
 * algorithm fails for any N (or a warning was promoted with -Werror); exit
 * 3 when no algorithm fails but a resource limit stopped some N (too-large). */
#include "driver/command.h"
#include "analysis/verify.h"
#include "driver/progress.h"

int cmd_verify(int argc, char **argv) {
    Cmd c = {0};
    Status st = cmd_begin(&c, CMD_verify, argc, argv, NULL);
    VerifyOptions vo = {
        .ns = c.ns,
        .nns = c.nns,
        .root = c.o.given[OPT_ROOT] ? c.o.root : -1, /* every root */
        .max_transfers = c.o.common.max_transfers,
        .max_errors = (unsigned)c.o.max_errors,
        .progress = progress_verify,
    };
    int failed = 0;
    /* one summary line per algorithm and point of a -D sweep */
    for (int k = 0; st == EXIT_GO_ON && k < c.nalgs; k++) {
        size_t points = session_sweep_points(&c.s, c.algs[k]);
        for (size_t pt = 0; pt < points; pt++) {
            vo.ndefines = session_defines(&c.s, c.algs[k], pt, &vo.defines);
            const char *label = session_sweep_label(&c.s, c.algs[k], pt);
            vo.label = *label ? arena_printf(&c.s.arena, "%s [%s]", c.algs[k]->name, label) : NULL;
            progress_begin("verify", vo.label ? vo.label : c.algs[k]->name);
            failed |= verify_algorithm(c.algs[k], &vo, c.s.dx, &c.s.arena, stdout);
            progress_end();
        }
    }
    /* a failure wins over a resource limit: 1 means wrong, 3 only unproven */
    if (st == EXIT_GO_ON && failed) st = failed & VERIFY_FAILED ? EXIT_INPUT : EXIT_TOO_LARGE;
    return cmd_end(&c, st);
}
