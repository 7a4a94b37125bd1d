/* cmd_check.c - `collc check FILE...`: parse and check, report, exit 0/1. */
#include "driver/driver.h"

#include <stdlib.h>
#include <string.h>

static void check_help(void) {
    fputs("usage: collc check [OPTIONS] FILE...\n"
          "\n"
          "Parses and checks .coll files (syntax, names, scopes, collectives,\n"
          "buffers, statically known ranges). Prints nothing when the files are\n"
          "correct. FILE '-' reads standard input.\n"
          "\n"
          "options:\n"
          "  --algorithm NAME              fail unless an algorithm NAME exists\n"
          "  --diagnostics-format=FMT      text (default), json or sarif\n"
          "  -Werror, -Werror=CODE, -Wno-CODE, -ferror-limit=N, -f[no-]color-diagnostics\n"
          "  -D NAME=VALUE                 accepted for symmetry with other commands\n"
          "\n"
          "Exit status: 0 no errors, 1 errors in the input, 2 usage error.\n",
          stdout);
}

int cmd_check(int argc, char **argv) {
    CommonOptions opts;
    common_options_init(&opts);
    opts.defines_unused = 1;  /* check instantiates nothing: -D is accepted, unused */
    char **files = calloc((size_t)argc + 1, sizeof *files);
    int nfiles = 0, only_files = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_files || a[0] != '-' || strcmp(a, "-") == 0) {
            files[nfiles++] = argv[i];
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_files = 1;
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            check_help();
            free(files);
            return EXIT_OK;
        }
        int r = common_option(&opts, argc, argv, &i);
        if (r < 0) {
            free(files);
            return EXIT_USAGE;
        }
        if (r == 0) {
            free(files);
            return usage_error("check", "unknown option '%s'", a);
        }
    }
    if (nfiles == 0) {
        free(files);
        return usage_error("check", "no input files");
    }

    Session s;
    int st = session_open(&s, &opts, files, nfiles);
    if (st == 0) {
        /* An empty file is valid but almost certainly a mistake. */
        for (size_t f = 0; f < s.ninputs; f++) {
            int found = 0;
            for (int k = 0; k < s.prog.nalgorithms && !found; k++)
                found = s.prog.algorithms[k]->span.file == (uint32_t)f;
            for (int k = 0; k < s.prog.ntopologies && !found; k++)
                found = s.prog.topologies[k]->span.file == (uint32_t)f;
            if (!found) {
                Span sp = {(uint32_t)f, 0, 0};
                diag_warning(s.dx, sp, "empty-file", "no algorithm or topology in file");
            }
        }
    }
    free(files);
    return session_close(&s, st ? EXIT_INPUT : EXIT_OK);
}
