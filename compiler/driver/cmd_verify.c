/* cmd_verify.c - `collc verify FILE... [-N list] [--root R] [--max-errors K]
 * [--quick]`.
 *
 * Diagnostics (text/json/sarif) go to stderr through the session's engine;
 * the one-line summary per algorithm and param point goes to stdout. Exit 1
 * when any algorithm fails for any N (or a warning was promoted with
 * -Werror); exit 3 when no algorithm fails but a resource limit stopped
 * some N (too-large).
 *
 * The default sweep: besides its defaults (and the -D values), every param
 * that no -D sets is checked at each value of verify_param_values, one param
 * at a time with the others at their defaults, because a param-dependent
 * bug (a group stride right for A = 2 only) hides at the default. A value
 * that the algorithm's requires exclude for every N is left out silently;
 * --quick checks the defaults only, with the quick N set.
 *
 * --vcounts C0,C1,...: the v-form with block r of Cr elements, for the one
 * N that is their number; --vcounts zeros / random[:SEED]: a list made for
 * every N of the set (verify_vcounts). verify.c checks the run the
 * runtime makes of per-block counts (vcount-block). */
#include "driver/command.h"
#include "analysis/vblocks.h"
#include "analysis/verify.h"
#include "driver/progress.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The constant default of param `sym`, in *v; 0 when it is an expression
 * (R = N), which then differs from every swept value. */
static int param_default(const Algorithm *alg, const Symbol *sym, int64_t *v) {
    for (const Stmt *s = alg->body; s; s = s->next)
        if (s->kind == STMT_PARAM && s->u.let.sym == sym && s->u.let.value->kind == EXPR_INT) {
            *v = s->u.let.value->u.ival;
            return 1;
        }
    return 0;
}

/* One summary line: `alg` with the -D values `defs` (label `label`) and
 * the points of the default sweep after it. Returns verify_algorithm's
 * bits, or-ed. */
static int verify_point(Cmd *c, const Algorithm *alg, VerifyOptions *vo, const Define *defs, int ndefs,
                        const char *label) {
    vo->defines = defs;
    vo->ndefines = ndefs;
    vo->label = *label ? arena_printf(&c->s.arena, "%s [%s]", alg->name, label) : NULL;
    vo->skip_inapplicable = 0;
    progress_begin("verify", vo->label ? vo->label : alg->name);
    int r = verify_algorithm(alg, vo, c->s.dx, &c->s.arena, stdout);
    progress_end();
    if (c->o.quick) return r;
    int64_t vals[16];
    size_t nvals = verify_param_values(vals, 16);
    Define *d = ARENA_ARRAY(&c->s.arena, Define, (size_t)ndefs + 1);
    if (ndefs) memcpy(d, defs, sizeof *d * (size_t)ndefs);
    for (int p = 0; p < alg->nparams; p++) {
        const Symbol *sym = alg->params[p];
        int given = 0;
        for (int k = 0; k < ndefs && !given; k++) given = !strcmp(defs[k].name, sym->name);
        if (given) continue;
        int64_t dflt = 0;
        int constant = param_default(alg, sym, &dflt);
        for (size_t i = 0; i < nvals; i++) {
            if (constant && vals[i] == dflt) continue;
            d[ndefs] = (Define){sym->name, vals[i]};
            vo->defines = d;
            vo->ndefines = ndefs + 1;
            vo->label = arena_printf(&c->s.arena, "%s [%s%s%s = %" PRId64 "]", alg->name, label,
                                     *label ? ", " : "", sym->name, vals[i]);
            vo->skip_inapplicable = 1;
            progress_begin("verify", vo->label);
            r |= verify_algorithm(alg, vo, c->s.dx, &c->s.arena, stdout) & ~VERIFY_NOTHING;
            progress_end();
        }
    }
    return r;
}

enum { VCOUNTS_MAX = 4096 };

/* What --vcounts asked for: a list (the one N), or a pattern for every N. */
typedef struct VcountsArg {
    int64_t v[VCOUNTS_MAX], N;
    int pattern;     /* VCOUNTS_* or 0: the list */
    uint64_t seed;
} VcountsArg;
static VcountsArg vcounts_arg;   /* one command per process */

static const char vcounts_usage[] =
    "--vcounts expects non-negative counts separated by commas, 'zeros' or 'random[:SEED]', got '%s'";

/* zeros, random, random:SEED: 1 (set in *a), 0 not a pattern, -1 bad. */
static int vcounts_pattern(const char *list, VcountsArg *a) {
    if (!strcmp(list, "zeros")) {
        a->pattern = VCOUNTS_ZEROS;
        return 1;
    }
    if (strncmp(list, "random", 6) != 0) return 0;
    a->pattern = VCOUNTS_RANDOM;
    a->seed = 1;
    if (!list[6]) return 1;
    if (list[6] != ':' || list[7] < '0' || list[7] > '9') return -1;
    char *end;
    errno = 0;
    unsigned long long s = strtoull(list + 7, &end, 10);
    if (*end || errno) return -1;
    a->seed = s;
    return 1;
}

/* --vcounts: the block sizes, and N their number (a -N must be that one),
 * or a pattern for the N set. */
static Status check_vcounts(Cmd *c) {
    const char *list = c->o.vcounts;
    if (!list) return EXIT_GO_ON;
    VcountsArg *a = &vcounts_arg;
    int pat = vcounts_pattern(list, a);
    if (pat < 0) return usage_error("verify", vcounts_usage, list);
    if (pat > 0) return EXIT_GO_ON;
    size_t n = 0;
    for (const char *p = list;;) {
        char *end;
        if (*p < '0' || *p > '9') return usage_error("verify", vcounts_usage, list);
        errno = 0;
        long long x = strtoll(p, &end, 10);
        if (x > INT32_MAX || errno)
            return usage_error("verify", "--vcounts: %.*s is too large (at most %d)", (int)(end - p), p,
                               INT32_MAX);
        if (n == VCOUNTS_MAX)
            return usage_error("verify", "--vcounts: more than %d blocks", VCOUNTS_MAX);
        a->v[n++] = x;
        if (*end == 0) break;
        if (*end != ',') return usage_error("verify", vcounts_usage, list);
        p = end + 1;
    }
    if (c->nns && (c->nns != 1 || c->ns[0] != (int64_t)n))
        return usage_error("verify", "--vcounts gives %zu blocks, so N = %zu; -N says otherwise", n, n);
    a->N = (int64_t)n;
    c->ns = &a->N;
    c->nns = 1;
    return EXIT_GO_ON;
}

int cmd_verify(int argc, char **argv) {
    Cmd c = {0};
    Status st = cmd_begin(&c, CMD_verify, argc, argv, check_vcounts);
    VerifyOptions vo = {
        .ns = c.ns,
        .nns = c.nns,
        .root = c.o.given[OPT_ROOT] ? c.o.root : -1, /* every root */
        .max_transfers = c.o.common.max_transfers,
        .max_memory = c.o.common.max_memory,
        .max_errors = (unsigned)c.o.max_errors,
        .progress = progress_verify,
        .quick = c.o.quick,
        .show_methods = c.o.methods,
        .vcounts = c.o.vcounts && !vcounts_arg.pattern ? vcounts_arg.v : NULL,
        .vpattern = vcounts_arg.pattern,
        .vseed = vcounts_arg.seed,
    };
    int vform = c.o.vcounts != NULL;
    int failed = 0;
    /* one summary line per algorithm and point of a -D sweep (and of the
     * default sweep) */
    for (int k = 0; st == EXIT_GO_ON && k < c.nalgs; k++) {
        if (vform && !vblocks_collective(c.algs[k]->coll)) {
            diag_error(c.s.dx, c.algs[k]->name_span, "vcounts-collective",
                       "--vcounts: '%s' is %s %s, whose blocks have one size (block sizes apply to "
                       "allgather, gather, scatter, alltoall and reduce_scatter)",
                       c.algs[k]->name,
                       strchr("aeiou", collective_info[c.algs[k]->coll].keyword[0]) ? "an" : "a",
                       collective_info[c.algs[k]->coll].keyword);
            failed |= VERIFY_FAILED;
            continue;
        }
        size_t points = session_sweep_points(&c.s, c.algs[k]);
        for (size_t pt = 0; pt < points; pt++) {
            const Define *defs;
            int ndefs = session_defines(&c.s, c.algs[k], pt, &defs);
            const char *label = session_sweep_label(&c.s, c.algs[k], pt);
            if (vform)   /* the summary says which blocks were proven */
                label = arena_printf(&c.s.arena, "%s%svcounts = %s", label, *label ? ", " : "",
                                     c.o.vcounts);
            failed |= verify_point(&c, c.algs[k], &vo, defs, ndefs, label);
        }
    }
    /* a failure wins over a resource limit: 1 means wrong, 3 only unproven */
    if (st == EXIT_GO_ON && failed) st = failed & VERIFY_FAILED ? EXIT_INPUT : EXIT_TOO_LARGE;
    return cmd_end(&c, st);
}
