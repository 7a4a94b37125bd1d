/* cmd_compile.c - `collc compile`: project algorithms onto one rank (Rank IR)
 * and emit them. This slice provides --emit=rankir; the C and LLVM emitters
 * plug in here. */
#include "driver.h"
#include "lower/rankir.h"
#include "emit/emit_c.h"

#include <errno.h>
#include <stdlib.h>

#include <string.h>

static void compile_help(void) {
    fputs("usage: collc compile [OPTIONS] FILE...\n"
          "\n"
          "Compiles the algorithms of FILE into per-rank programs.\n"
          "\n"
          "options:\n"
          "  --emit=c                      C source against runtime/include/coll.h\n"
          "  --emit=rankir                 print the Rank IR (endpoint projection)\n"
          "  -o FILE                       output file ('-' = stdout; default: stdout)\n"
          "  -D NAME=VALUE                 fix `param NAME` at compile time\n"
          "  --algorithm NAME              compile only NAME (default: every algorithm)\n"
          "  --diagnostics-format=FMT      text (default), json or sarif\n"
          "\n"
          "Exit status: 0 ok, 1 errors in the input, 2 usage error.\n",
          stdout);
}

int cmd_compile(int argc, char **argv) {
    CommonOptions opts;
    common_options_init(&opts);
    char **files = calloc((size_t)argc + 1, sizeof *files);
    int nfiles = 0, only_files = 0;
    const char *emit = "c";
    const char *output = "-";
    int status = EXIT_OK;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_files || a[0] != '-' || strcmp(a, "-") == 0) {
            files[nfiles++] = argv[i];
            continue;
        }
        if (strcmp(a, "--") == 0) { only_files = 1; continue; }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            compile_help();
            free(files);
            return EXIT_OK;
        }
        if (strncmp(a, "--emit=", 7) == 0) { emit = a + 7; continue; }
        if (strcmp(a, "-o") == 0) {
            if (i + 1 >= argc) { status = usage_error("compile", "missing file name after '-o'"); goto out; }
            output = argv[++i];
            continue;
        }
        int r = common_option(&opts, argc, argv, &i);
        if (r < 0) { status = EXIT_USAGE; goto out; }
        if (r == 0) { status = usage_error("compile", "unknown option '%s'", a); goto out; }
    }
    if (nfiles == 0) { status = usage_error("compile", "no input files"); goto out; }
    if (strcmp(emit, "rankir") != 0 && strcmp(emit, "c") != 0) {
        status = usage_error("compile", "unknown --emit kind '%s' (expected c or rankir)", emit);
        goto out;
    }
    Session s;
    if (session_open(&s, &opts, files, nfiles) != 0) {
        status = session_close(&s, EXIT_INPUT);
        goto out;
    }
    Algorithm **algs;
    int nalgs = session_algorithms(&s, &algs);
    int failed = 0;
    const RankProgram **progs = ARENA_ARRAY(&s.arena, const RankProgram *, nalgs > 0 ? nalgs : 1);
    int nprogs = 0;
    for (int k = 0; k < nalgs; k++) {
        RankProgram *rp = ARENA_NEW(&s.arena, RankProgram);
        if (lower_algorithm(algs[k], opts.defines, opts.ndefines, &s.arena, s.dx, rp)) {
            failed = 1;
            continue;
        }
        progs[nprogs++] = rp;
    }
    if (!failed) {
        FILE *out = strcmp(output, "-") == 0 ? stdout : fopen(output, "w");
        if (!out) {
            diag_error(s.dx, span_none(), "io", "cannot open '%s' for writing: %s", output,
                       strerror(errno));
            failed = 1;
        } else {
            if (strcmp(emit, "rankir") == 0) {
                for (int k = 0; k < nprogs; k++) rankir_dump(out, progs[k]);
            } else {
                EmitCOptions eo = {.source_name = files[0], .prefix = ""};
                emit_c_file(out, progs, nprogs, &eo);
            }
            if (out != stdout && fclose(out) != 0) {
                diag_error(s.dx, span_none(), "io", "cannot write '%s': %s", output, strerror(errno));
                failed = 1;
            }
        }
    }
    status = session_close(&s, failed ? EXIT_INPUT : EXIT_OK);
out:
    free(files);
    return status;
}
