/* cmd_mpi_config.c - `collc mpi-config check FILE`: the rules of a
 * COLLMPI_CONFIG file (docs/mpi.md) checked as libcollmpi.so reads them in
 * MPI_Init, with the same parser (targets/mpi/collmpi_config.c), and each
 * rule's algorithm loaded from its shared object as the library loads it.
 * With -N, each algorithm is also asked whether its `require`s hold at
 * those N (and every root), the way libcollmpi.so asks before a call: run
 * with count 0 on a probe communicator, here the cpu runtime's that collc
 * links (collrt_cpu_probe), whose coll_* functions collc exports to the
 * objects it loads (transport_abi.dynlist): no MPI in collc's process.
 * Errors are diagnostics at the field in error (file:line:col). */
#include "driver/command.h"
#include "support/util.h"

#include "collmpi_config.h"
#include "coll_cpu.h"
#include "collrt_internal.h"

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

typedef int (*unrooted_fn)(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op);
typedef int (*rooted_fn)(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op, int);

static int is_rooted(coll_collective c) {
    switch (c) {
#define X(id, kw, abi, rooted, ib, iw, ob, ow, red, inplace, mpi, params) \
    case COLL_##id: return rooted;
#include <coll_collectives.def>
#undef X
    default: return 0;
    }
}

/* Does the rule's condition n= admit N? */
static int rule_admits(const collmpi_rule *r, int64_t N) {
    return N >= r->nlo && N <= r->nhi && (!r->npow2 || (N & (N - 1)) == 0);
}

/* The roots asked at N: all up to 64 ranks, else 0, N - 1 and 14 between
 * (as evenly spread as N allows). Returns how many are in roots[]. */
enum { MAX_ROOTS = 64 };
static int roots_at(int64_t N, int64_t *roots) {
    if (N <= MAX_ROOTS) {
        for (int64_t k = 0; k < N; k++) roots[k] = k;
        return (int)N;
    }
    for (int k = 0; k < 16; k++) roots[k] = k * (N - 1) / 15;
    return 16;
}

/* Runs r's algorithm with count 0 on the probe pc at `root`: COLL_OK when
 * its requires hold, COLL_ERR_NOT_APPLICABLE when one fails, another
 * status if the program went further than a probe allows. */
static int probe_at(const collmpi_rule *r, coll_comm *pc, int root) {
    /* the element type and operator every collective accepts (no
     * reduction runs at count 0) */
    if (is_rooted(r->coll)) return ((rooted_fn)r->fn)(pc, NULL, NULL, 0, COLL_U8, COLL_SUM, root);
    return ((unrooted_fn)r->fn)(pc, NULL, NULL, 0, COLL_U8, COLL_SUM);
}

/* Appends N to the list text `buf` of refused N (runs as "A..B"). */
static void list_add(char *buf, size_t cap, int64_t *run_lo, int64_t *run_hi, int64_t N, int flush) {
    if (!flush && *run_hi >= 0 && N == *run_hi + 1) {
        *run_hi = N;
        return;
    }
    if (*run_hi >= 0) {
        size_t at = strlen(buf);
        if (at + 48 > cap) {   /* full: one mark that more follow */
            if (at + 6 <= cap && strcmp(buf + at - 5, ", ...") != 0) strcpy(buf + at, ", ...");
            *run_lo = *run_hi = flush ? -1 : N;
            return;
        }
        if (*run_lo == *run_hi)
            snprintf(buf + at, cap - at, "%s%lld", at ? ", " : "", (long long)*run_lo);
        else
            snprintf(buf + at, cap - at, "%s%lld%s%lld", at ? ", " : "", (long long)*run_lo,
                     *run_hi == *run_lo + 1 ? ", " : "..", (long long)*run_hi);
    }
    *run_lo = *run_hi = flush ? -1 : N;
}

/* Asks r's algorithm at each N of `ns` that the rule admits; returns 1 if
 * it refuses one (reported at the algorithm's field). */
static int check_applies(Session *s, const collmpi_rule *r, const RankList *ns, Span at) {
    char list[400] = "";
    int64_t run_lo = -1, run_hi = -1, asked = 0, first_n = -1, first_root = -1;
    int broken = COLL_OK;
    int64_t roots[MAX_ROOTS];
    int rooted = is_rooted(r->coll);
    for (size_t k = 0; k < ns->n && broken == COLL_OK; k++) {
        int64_t N = ns->v[k];
        if (!rule_admits(r, N)) continue;
        asked++;
        int nroots = rooted ? roots_at(N, roots) : 1;
        if (!rooted) roots[0] = 0;
        coll_comm *pc;
        int rc = collrt_cpu_probe((int)N, 0, &pc), i = 0;
        for (; i < nroots && rc == COLL_OK; i++) rc = probe_at(r, pc, (int)roots[i]);
        coll_comm_destroy(pc);
        if (rc == COLL_OK) continue;
        if (first_n < 0 || rc != COLL_ERR_NOT_APPLICABLE) {
            first_n = N;
            first_root = roots[i > 0 ? i - 1 : 0];
        }
        if (rc != COLL_ERR_NOT_APPLICABLE) broken = rc;
        list_add(list, sizeof list, &run_lo, &run_hi, N, 0);
    }
    list_add(list, sizeof list, &run_lo, &run_hi, 0, 1);
    if (asked == 0) {
        diag_warning(s->dx, at, "mpi-config-no-n", "the rule's n= admits no N of -N: nothing asked");
        return 0;
    }
    if (first_n < 0) return 0;
    char where[80] = "";
    if (rooted) snprintf(where, sizeof where, ", root %lld", (long long)first_root);
    if (broken != COLL_OK) {
        diag_error(s->dx, at, "mpi-config-applies", "'%s' fails at N = %lld%s: %s", r->alg,
                   (long long)first_n, where, coll_strerror(broken));
        return 1;
    }
    if (rooted)
        diag_error(s->dx, at, "mpi-config-applies",
                   "'%s' does not apply for N = %s (a `require` fails; first at N = %lld%s)", r->alg,
                   list, (long long)first_n, where);
    else
        diag_error(s->dx, at, "mpi-config-applies", "'%s' does not apply for N = %s (a `require` fails)",
                   r->alg, list);
    diag_note(s->dx, at,
              "libcollmpi.so leaves such a call to the next rule that matches, or to the MPI library; "
              "'n=' on the rule says for which N it is meant");
    return 1;
}

/* Checks one rule's line (text [off, off + len) of the file); returns 1 if
 * it holds an error. */
static int check_line(Session *s, const RankList *ns, uint32_t file, const char *text, size_t off, size_t len,
                      int lineno) {
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
        /* RTLD_LAZY: without -N nothing of the object runs here; with
         * it, its coll_* calls resolve to collc's own (the cpu runtime's) */
        if (collmpi_config_load(&r, RTLD_LAZY | RTLD_LOCAL, &field, why, sizeof why) != 0) {
            const char *at = field == 3 ? r.object : r.alg;
            diag_error(s->dx, field_span(file, off, field == 3 ? r.object_col : r.alg_col, (int)strlen(at)),
                       "mpi-config-load", "%s", why);
            bad = 1;
        } else if (ns->n) {
            bad = check_applies(s, &r, ns, field_span(file, off, r.alg_col, (int)strlen(r.alg)));
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
        errors += check_line(s, &c->o.ns, (uint32_t)id, f->text, off, end - off, ++lineno);
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
