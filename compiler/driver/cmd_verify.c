/* cmd_verify.c - `collc verify FILE... [-N list] [--root R] [--max-errors K]`.
 *
 * Diagnostics (text/json/sarif) go to stderr through the session's engine;
 * the one-line summary per algorithm goes to stdout. Exit 1 when any
 * algorithm fails for any N (or a warning was promoted with -Werror). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "driver/driver.h"
#include "analysis/verify.h"

static const char verify_usage[] =
    "usage: collc verify FILE... [-N 2..64 | -N 8,16,1024] [--root R] [-D [ALG.]P=v|1..8|1,2,4]\n"
    "                    [--algorithm A] [--max-errors K] [--diagnostics-format=text|json|sarif]\n"
    "default N: 1..17, 24, 31..33, 64, 128, 256, 257; rooted collectives are\n"
    "checked for every root when N <= 16 and for a spread of roots above\n";

int cmd_verify(int argc, char **argv) {
    CommonOptions opts;
    common_options_init(&opts);
    char **files = calloc((size_t)argc + 1, sizeof *files);
    int nfiles = 0;
    int64_t *ns = NULL;
    size_t nns = 0;
    int64_t root = -1;
    int64_t max_errors = 0;
    int status = EXIT_OK;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int c = common_option(&opts, argc, argv, &i);
        if (c < 0) { status = EXIT_USAGE; goto done; }
        if (c > 0) continue;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(verify_usage, stdout);
            goto done;
        }
        const char *val = NULL;
        if (!strcmp(a, "-N") || !strcmp(a, "--root") || !strcmp(a, "--max-errors")) {
            if (i + 1 >= argc) {
                status = usage_error("verify", "option '%s' needs a value", a);
                goto done;
            }
            val = argv[++i];
        } else if (!strncmp(a, "-N", 2) && a[2]) {
            val = a + 2;
            a = "-N";
        } else if (!strncmp(a, "--root=", 7)) {
            val = a + 7;
            a = "--root";
        } else if (!strncmp(a, "--max-errors=", 13)) {
            val = a + 13;
            a = "--max-errors";
        }
        if (val) {
            if (!strcmp(a, "-N")) {
                free(ns);
                ns = NULL;
                if (parse_rank_list(val, &ns, &nns) < 0 || nns == 0) {
                    status = usage_error("verify", "bad rank list '%s' (expected e.g. 8, 2..64 or 8,16,1024)", val);
                    goto done;
                }
                for (size_t k = 0; k < nns; k++) {
                    if (ns[k] < 1 || ns[k] > SCHED_DEFAULT_MAX_N) {
                        status = usage_error("verify", "N = %" PRId64 " out of range 1..%" PRId64,
                                             ns[k], (int64_t)SCHED_DEFAULT_MAX_N);
                        goto done;
                    }
                }
            } else if (!strcmp(a, "--root")) {
                if (parse_int64(val, &root) < 0 || root < 0) {
                    status = usage_error("verify", "bad root '%s'", val);
                    goto done;
                }
            } else {
                if (parse_int64(val, &max_errors) < 0 || max_errors < 1 || max_errors > 1000000) {
                    status = usage_error("verify", "bad --max-errors '%s'", val);
                    goto done;
                }
            }
            continue;
        }
        if (a[0] == '-' && a[1]) {
            status = usage_error("verify", "unknown option '%s'", a);
            goto done;
        }
        files[nfiles++] = argv[i];
    }
    if (nfiles == 0) {
        status = usage_error("verify", "no input files");
        goto done;
    }

    Session s;
    int rc = session_open(&s, &opts, files, nfiles);
    if (rc != 0) {
        status = session_close(&s, EXIT_INPUT);
        goto done;
    }
    Algorithm **algs = NULL;
    int nalgs = session_algorithms(&s, &algs);
    if (nalgs < 0) {
        status = session_close(&s, EXIT_INPUT);
        goto done;
    }
    VerifyOptions vo = {0};
    vo.ns = ns;
    vo.nns = nns;
    vo.root = root;
    vo.max_transfers = opts.max_transfers;
    vo.max_errors = (unsigned)max_errors;
    int failed = 0;
    /* one summary line per algorithm and point of a -D sweep */
    for (int k = 0; k < nalgs; k++) {
        size_t points = session_sweep_points(&s, algs[k]);
        for (size_t pt = 0; pt < points; pt++) {
            vo.ndefines = session_defines(&s, algs[k], pt, &vo.defines);
            const char *label = session_sweep_label(&s, algs[k], pt);
            vo.label = *label ? arena_printf(&s.arena, "%s [%s]", algs[k]->name, label) : NULL;
            failed |= verify_algorithm(algs[k], &vo, s.dx, &s.arena, stdout);
        }
    }
    status = session_close(&s, failed ? EXIT_INPUT : EXIT_OK);

done:
    free(files);
    free(ns);
    return status;
}
