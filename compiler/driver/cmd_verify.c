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
        .defines = o.common.defines,
        .ndefines = o.common.ndefines,
        .max_transfers = o.common.max_transfers,
        .max_errors = (unsigned)o.max_errors,
        .progress = progress_verify,
    };
    int failed = 0;
    for (int k = 0; k < nalgs; k++) {
        progress_begin("verify", algs[k]->name);
        failed |= verify_algorithm(algs[k], &vo, s.dx, &s.arena, stdout);
        progress_end();
    }
    options_free(&o);
    return session_close(&s, failed ? EXIT_INPUT : EXIT_OK);
}
