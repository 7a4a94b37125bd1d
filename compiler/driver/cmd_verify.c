/* cmd_verify.c - `collc verify FILE... [-N list] [--root R] [--max-errors K]`.
 *
 * Diagnostics (text/json/sarif) go to stderr through the session's engine;
 * the one-line summary per algorithm goes to stdout. Exit 1 when any
 * algorithm fails for any N (or a warning was promoted with -Werror). */
#include "driver/options.h"
#include "analysis/verify.h"
#include "driver/progress.h"

int cmd_verify(int argc, char **argv) {
    DriverOptions o;
    int status = options_parse(&o, CMD_verify, argc, argv);
    if (status >= 0) return status;

    Session s;
    if (session_open(&s, &o.common, o.files, o.nfiles) != 0) {
        options_free(&o);
        return session_close(&s, EXIT_INPUT);
    }
    Algorithm **algs = NULL;
    int nalgs = session_algorithms(&s, &algs);
    VerifyOptions vo = {
        .ns = o.ns.v,
        .nns = o.ns.n,
        .root = o.given[OPT_ROOT] ? o.root : -1, /* every root */
        .max_transfers = o.common.max_transfers,
        .max_errors = (unsigned)o.max_errors,
        .progress = progress_verify,
    };
    int failed = 0;
    /* one summary line per algorithm and point of a -D sweep */
    for (int k = 0; k < nalgs; k++) {
        size_t points = session_sweep_points(&s, algs[k]);
        for (size_t pt = 0; pt < points; pt++) {
            vo.ndefines = session_defines(&s, algs[k], pt, &vo.defines);
            const char *label = session_sweep_label(&s, algs[k], pt);
            vo.label = *label ? arena_printf(&s.arena, "%s [%s]", algs[k]->name, label) : NULL;
            progress_begin("verify", vo.label ? vo.label : algs[k]->name);
            failed |= verify_algorithm(algs[k], &vo, s.dx, &s.arena, stdout);
            progress_end();
        }
    }
    options_free(&o);
    return session_close(&s, failed ? EXIT_INPUT : EXIT_OK);
}
