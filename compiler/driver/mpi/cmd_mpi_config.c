/* cmd_mpi_config.c - `collc mpi-config check FILE`: the rules of a
 * COLLMPI_CONFIG file (docs/mpi.md) checked as libcollmpi.so reads them in
 * MPI_Init, with the same parser (targets/mpi/collmpi_config.c), and each
 * rule's algorithm loaded from its shared object as the library loads it.
 * Errors are diagnostics at the field in error (file:line:col). */
#include "driver/command.h"
#include "support/util.h"

#include "collmpi_config.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>

static Status mpi_config_options(Cmd *c) {
    if (c->o.nfiles == 0 || strcmp(c->o.files[0], "check") != 0)
        return usage_error(c->o.name, "expected 'check FILE'%s%s%s", c->o.nfiles ? ", got '" : "",
                           c->o.nfiles ? c->o.files[0] : "", c->o.nfiles ? "'" : "");
    if (c->o.nfiles != 2)
        return usage_error(c->o.name, "check takes one COLLMPI_CONFIG file, got %d", c->o.nfiles - 1);
    c->nargs = c->o.nfiles; /* not .coll files: read here */
    c->o.common.defines_unused = 1;
    return EXIT_GO_ON;
}

/* The span of `len` bytes from column col (1-based) of the line at off. */
static Span field_span(uint32_t file, size_t off, int col, int len) {
    uint32_t lo = (uint32_t)(off + (size_t)col - 1);
    return (Span){file, lo, lo + (uint32_t)len};
}

/* Checks one rule's line (text [off, off + len) of the file); returns 1 if
 * it holds an error. */
static int check_line(Session *s, uint32_t file, const char *text, size_t off, size_t len, int lineno) {
    char *line = xmalloc(len + 1);
    memcpy(line, text + off, len);
    line[len] = 0;
    collmpi_rule r = {.line = lineno};
    int col = 0, flen = 0, bad = 0;
    char why[600];
    int got = collmpi_config_line(line, &r, &col, &flen, why, sizeof why);
    if (got < 0) {
        diag_error(s->dx, field_span(file, off, col, flen), "mpi-config", "%s", why);
        bad = 1;
    } else if (got > 0) {
        int field;
        dlerror();
        /* RTLD_LAZY: the coll_* calls of the algorithm resolve to
         * libcollmpi.so at run time; nothing of it runs here */
        if (collmpi_config_load(&r, RTLD_LAZY | RTLD_LOCAL, &field, why, sizeof why) != 0) {
            const char *at = field == 3 ? r.object : r.alg;
            diag_error(s->dx, field_span(file, off, field == 3 ? r.object_col : r.alg_col, (int)strlen(at)),
                       "mpi-config-load", "%s", why);
            bad = 1;
        }
    }
    free(line);
    return bad;
}

static Status mpi_config_check(Cmd *c) {
    Session *s = &c->s;
    const char *path = c->o.files[1];
    int id = session_load(s, path);
    if (id < 0) return EXIT_INPUT;
    const SourceFile *f = source_file(&s->sm, (uint32_t)id);
    int errors = 0, lineno = 0;
    for (size_t off = 0; off < f->len;) {
        const char *nl = memchr(f->text + off, '\n', f->len - off);
        size_t end = nl ? (size_t)(nl - f->text) : f->len;
        errors += check_line(s, (uint32_t)id, f->text, off, end - off, ++lineno);
        off = end + 1;
    }
    return errors ? EXIT_INPUT : EXIT_GO_ON;
}

int cmd_mpi_config(int argc, char **argv) {
    Cmd c = {0};
    Status st = cmd_begin(&c, CMD_mpi_config, argc, argv, mpi_config_options);
    if (st == EXIT_GO_ON) st = mpi_config_check(&c);
    return cmd_end(&c, st);
}
