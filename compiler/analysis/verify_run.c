/* verify_run.c - verify one algorithm for many N (and roots), print the
 * one-line summary. The per-schedule work is in verify.c.
 *
 * Only the first failing instance is reported in full: every later N would
 * mostly repeat the same diagnostic with other numbers. Later instances are
 * still checked, silently, so the summary can say exactly which N fail. */
#include "analysis/verify.h"
#include "analysis/verify_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "support/util.h"

size_t verify_quick_ns(int64_t *out, size_t cap) {
    /* 1 (every loop runs zero times), 2..17, a composite and the odd
     * neighbours of a power of two (where halving and wrap-around break),
     * the powers of two up to 256, and one N above 256. */
    static const int64_t extra[] = {24, 31, 32, 33, 64, 128, 256, 257};
    size_t n = 0;
    for (int64_t N = 1; N <= 17 && n < cap; N++) out[n++] = N;
    for (size_t i = 0; i < sizeof extra / sizeof *extra && n < cap; i++) out[n++] = extra[i];
    return n;
}

size_t verify_default_ns(int64_t *out, size_t cap) {
    /* The quick set and the composite families of hierarchical and grid
     * algorithms: multiples of 6, 12 and 24 (several factorisations, so a
     * wrong group stride or a forgotten remainder shows), merged in order. */
    static const int64_t composite[] = {18, 30, 36, 42, 48, 60, 72, 96};
    int64_t quick[32];
    size_t nq = verify_quick_ns(quick, 32), n = 0, i = 0, j = 0;
    const size_t nc = sizeof composite / sizeof *composite;
    while ((i < nq || j < nc) && n < cap) {
        if (j >= nc || (i < nq && quick[i] < composite[j])) out[n++] = quick[i++];
        else out[n++] = composite[j++];
    }
    return n;
}

size_t verify_param_values(int64_t *out, size_t cap) {
    /* small values (1 and 2 are where groups and radices degenerate), an
     * odd prime, a composite and powers of two */
    static const int64_t v[] = {1, 2, 3, 4, 5, 6, 8};
    size_t n = 0;
    for (size_t i = 0; i < sizeof v / sizeof *v && n < cap; i++) out[n++] = v[i];
    return n;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

size_t verify_roots(int64_t N, int64_t root, int64_t *out, size_t cap) {
    size_t n = 0;
    if (root >= 0) {
        if (root < N && cap) out[n++] = root;
        return n;
    }
    if (N <= 16) {
        for (int64_t r = 0; r < N && n < cap; r++) out[n++] = r;
        return n;
    }
    /* Both ends, the neighbours of the ends and the middle: the places
     * where rank arithmetic relative to the root wraps or halves. */
    int64_t cand[8] = {0, 1, 2, N / 3, N / 2 - 1, N / 2, N - 2, N - 1};
    qsort(cand, 8, sizeof cand[0], cmp_i64);
    for (int i = 0; i < 8 && n < cap; i++)
        if (n == 0 || out[n - 1] != cand[i]) out[n++] = cand[i];
    return n;
}

/* Outcome of one N (over all its roots). */
typedef enum NOutcome {
    NO_VERIFIED, /* every root verified */
    NO_FAILED,   /* some root failed (instantiate or verify errors) */
    NO_SKIPPED,  /* every root skipped by a `require` (or --root >= N) */
    NO_TOO_LARGE, /* no root failed, some root was stopped by a resource
                     limit: neither proven nor known to be wrong */
} NOutcome;

typedef struct NResult {
    int64_t N;
    NOutcome outcome;
    const char *why;   /* NO_SKIPPED: the reason */
    const Stmt *req;   /* NO_SKIPPED: the require that excluded it (NULL: --root) */
    int consistent;    /* -1 n/a, 0 no, 1 yes (verified instances only) */
    const char *root_why; /* some (not all) roots skipped: the first reason */
    int method;        /* verified: the checker of its last root (VerifyMethod) */
} NResult;

/* "2..16, 32, 64" for the N of `rs` matching the predicate: outcome `oc`
 * (and reason `why` if given); with cons = 1 the verified N that are not
 * rank-consistent, with cons = 2 those that are, with cons = 3 + m those
 * that checker m (VerifyMethod) proved. */
static void print_ns(FILE *f, const NResult *rs, size_t n, NOutcome oc, const char *why, int cons) {
    int first = 1;
    for (size_t i = 0; i < n;) {
        #define MATCH(j) (cons >= 3 ? (rs[j].outcome == NO_VERIFIED && rs[j].method == cons - 3) \
                         : cons ? (rs[j].outcome == NO_VERIFIED && rs[j].consistent == (cons == 2)) \
                         : (rs[j].outcome == oc && (!why || (rs[j].why && !strcmp(rs[j].why, why)))))
        if (!MATCH(i)) { i++; continue; }
        size_t j = i;
        while (j + 1 < n && MATCH(j + 1) && rs[j + 1].N == rs[j].N + 1) j++;
        #undef MATCH
        fprintf(f, "%s%" PRId64, first ? "" : ", ", rs[i].N);
        if (j == i + 1) fprintf(f, ", %" PRId64, rs[j].N);
        else if (j > i) fprintf(f, "..%" PRId64, rs[j].N);
        first = 0;
        i = j + 1;
    }
}

/* --methods: "by symmetry for N = ..., by runs for N = ..., explicitly
 * for N = ..." over the verified N. */
static void print_methods(FILE *f, const NResult *rs, size_t n, const char *sep) {
    static const char *const how[] = {"explicitly", "by runs", "by symmetry"};
    for (int m = VERIFY_BY_ORBIT; m >= VERIFY_BY_EXPLICIT; m--) {
        int any = 0;
        for (size_t i = 0; i < n && !any; i++) any = rs[i].outcome == NO_VERIFIED && rs[i].method == m;
        if (!any) continue;
        fprintf(f, "%s%s for N = ", sep, how[m]);
        print_ns(f, rs, n, NO_VERIFIED, NULL, 3 + m);
        sep = ", ";
    }
}

/* The reason a `require` gives: its message, else its condition's text. */
static const char *require_text(const Stmt *req, DiagEngine *dx, Arena *arena) {
    if (!req) return "not applicable";
    if (req->u.require.why) return req->u.require.why;
    Span sp = req->u.require.cond->span;
    const SourceFile *f = span_valid(sp) ? source_file(diag_sources(dx), sp.file) : NULL;
    if (!f) return "require failed";
    return arena_printf(arena, "require %.*s", (int)(sp.hi - sp.lo), f->text + sp.lo);
}

void verify_vcounts(int pattern, uint64_t seed, int64_t N, int64_t *out) {
    for (int64_t r = 0; r < N; r++) {
        if (pattern == VCOUNTS_ZEROS) {
            out[r] = r % 3;
            continue;
        }
        /* splitmix64 of (seed, N, r): a list per N, the same on every run */
        uint64_t x = seed * 0x9e3779b97f4a7c15ull + (uint64_t)N * 0xbf58476d1ce4e5b9ull + (uint64_t)r;
        out[r] = (int64_t)(vtree_mix64(x) % 8);
    }
}

/* What the instances checked so far have shown, which decides where the
 * next ones report: the first failure and the first resource limit in full,
 * later ones into `quiet`; one rank-consistency warning. */
typedef struct VerifyRun {
    const Algorithm *alg;
    const VerifyOptions *o;
    DiagEngine *dx, *quiet;
    Arena *arena;
    int reported, big_shown, warned;
} VerifyRun;

/* Every root of one N: fills r. */
static void verify_one_n(VerifyRun *v, int64_t N, NResult *r) {
    const VerifyOptions *o = v->o;
    int64_t roots[16];
    size_t nroots = 1;
    roots[0] = -1;
    r->N = N;
    r->consistent = -1;
    if (collective_info[v->alg->coll].rooted) {
        nroots = verify_roots(N, o->root, roots, 16);
        if (nroots == 0) {
            r->outcome = NO_SKIPPED;
            r->why = arena_printf(v->arena, "--root %" PRId64 " is not a rank", o->root);
            return;
        }
    }
    const int64_t *vcounts = o->vcounts;
    if (o->vpattern) {
        int64_t *vc = ARENA_ARRAY(v->arena, int64_t, (size_t)N);
        verify_vcounts(o->vpattern, o->vseed, N, vc);
        vcounts = vc;
    }
    size_t nok = 0, nfail = 0, nskip = 0, nbig = 0;
    for (size_t k = 0; k < nroots; k++) {
        SchedParams p = {0};
        p.N = N;
        p.root = roots[k] < 0 ? 0 : roots[k];
        p.defines = o->defines;
        p.ndefines = o->ndefines;
        p.max_transfers = o->max_transfers;
        p.max_memory = o->max_memory;
        p.vcounts = vcounts;
        const Stmt *req = NULL;
        VerifyStats st;
        int loud = !v->reported && !v->big_shown;
        InstStatus ist = verify_instance(v->alg, &p, loud ? v->dx : v->quiet, loud ? v->dx : NULL,
                                         v->warned || o->correctness_only ? NULL : v->dx, v->arena,
                                         o->max_errors, &st, &req);
        if (ist == INST_NOT_APPLICABLE) {
            nskip++;
            if (!r->why) {
                r->why = require_text(req, v->dx, v->arena);
                r->req = req;
            }
            continue;
        }
        COLLC_ASSERT(ist == INST_OK || ist == INST_TOO_LARGE || ist == INST_ERROR);
        if (ist == INST_TOO_LARGE || (ist == INST_OK && st.errors == 1 && st.too_large)) {
            nbig++;
            v->big_shown = 1;
            continue;
        }
        if (ist == INST_ERROR || st.errors) {
            nfail++;
            v->reported = 1;
            continue;
        }
        nok++;
        r->method = st.method;
        if (st.consistent == 0) { r->consistent = 0; v->warned = 1; }
        else if (st.consistent == 1 && r->consistent != 0) r->consistent = 1;
    }
    if (nfail) r->outcome = NO_FAILED;
    else if (nbig) r->outcome = NO_TOO_LARGE;
    else if (nok) r->outcome = NO_VERIFIED;
    else r->outcome = NO_SKIPPED;
    if (nskip && r->outcome != NO_SKIPPED) r->root_why = r->why;
}

/* print_ns into a string (free it). */
static char *ns_text(const NResult *rs, size_t n, NOutcome oc, const char *why) {
    char *list = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&list, &len);
    COLLC_ASSERT(m);
    print_ns(m, rs, n, oc, why, 0);
    fclose(m);
    return list;
}

/* A CI gate must not pass on an algorithm it never checked: applying to
 * no N of the set is an error, with the reasons as notes. */
static void report_nothing(DiagEngine *dx, const Algorithm *alg, const NResult *rs, size_t nns) {
    diag_error(dx, alg->name_span, "nothing-verified",
               "nothing verified: '%s' applies to none of the %zu rank count%s checked",
               alg->name, nns, nns == 1 ? "" : "s");
    for (size_t i = 0; i < nns; i++) {
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++) seen = !strcmp(rs[j].why, rs[i].why);
        if (seen) continue;
        char *list = ns_text(rs, nns, NO_SKIPPED, rs[i].why);
        diag_note(dx, rs[i].req ? rs[i].req->span : span_none(), "not applicable for N = %s: %s",
                  list, rs[i].why);
        free(list);
    }
    diag_note(dx, span_none(), "give rank counts where it applies with -N");
}

/* A resource limit is not a wrong algorithm: its own code, so that a CI
 * gate can tell "too large to check" from "FAILED" (exit 3). */
static void report_too_large(DiagEngine *dx, const Algorithm *alg, const NResult *rs, size_t nns) {
    char *list = ns_text(rs, nns, NO_TOO_LARGE, NULL);
    diag_error(dx, alg->name_span, "too-large",
               "'%s' is too large to verify for N = %s: a resource limit stopped the check, "
               "nothing is known to be wrong", alg->name, list);
    diag_note(dx, span_none(), "raise the limit (--max-transfers, --max-memory) or verify smaller N");
    free(list);
}

/* The outcomes over the N set. */
typedef struct NCounts { size_t ver, fail, big, incons, cons; int nothing; } NCounts;

/* The algorithm's summary line: what verified, failed, was too large or
 * skipped for which N, then consistency, methods and roots. */
static void print_summary(FILE *summary, const Algorithm *alg, const VerifyOptions *o,
                          const NResult *rs, const int64_t *ns, size_t nns, const NCounts *k) {
    fprintf(summary, "%s: ", o->label ? o->label : alg->name);
    const char *sep = "";
    if (k->nothing) {
        fprintf(summary, "nothing verified");
        sep = "; ";
    }
    if (k->ver) {
        fprintf(summary, "verified for N = ");
        print_ns(summary, rs, nns, NO_VERIFIED, NULL, 0);
        sep = "; ";
    }
    if (k->fail) {
        fprintf(summary, "%sFAILED for N = ", sep);
        print_ns(summary, rs, nns, NO_FAILED, NULL, 0);
        sep = "; ";
    }
    if (k->big) {
        fprintf(summary, "%stoo large for N = ", sep);
        print_ns(summary, rs, nns, NO_TOO_LARGE, NULL, 0);
        sep = "; ";
    }
    /* Skipped N grouped by reason, in order of first appearance. */
    for (size_t i = 0; i < nns; i++) {
        if (rs[i].outcome != NO_SKIPPED) continue;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = rs[j].outcome == NO_SKIPPED && !strcmp(rs[j].why, rs[i].why);
        if (seen) continue;
        fprintf(summary, "%sskipped N = ", sep);
        print_ns(summary, rs, nns, NO_SKIPPED, rs[i].why, 0);
        fprintf(summary, " (%s)", rs[i].why);
        sep = "; ";
    }
    if (!nns) fprintf(summary, "no N given");
    /* Consistency is claimed only for N that verified: without a
     * qualifier when no N failed (else they are listed). */
    if (k->incons) {
        fprintf(summary, "%sNOT rank-consistent for N = ", sep);
        print_ns(summary, rs, nns, NO_VERIFIED, NULL, 1);
    }
    if (k->cons && !k->incons && !k->fail && !k->big) {
        fprintf(summary, "%srank-consistent (bit-identical on every rank)", sep);
    } else if (k->cons && !k->incons) {
        fprintf(summary, "%srank-consistent for N = ", sep);
        print_ns(summary, rs, nns, NO_VERIFIED, NULL, 2);
    }
    if (o->show_methods) print_methods(summary, rs, nns, sep);
    for (size_t i = 0; i < nns; i++) {
        if (!rs[i].root_why) continue;
        fprintf(summary, "%sskipped some roots (%s)", sep, rs[i].root_why);
        break;
    }
    if (collective_info[alg->coll].rooted && k->ver + k->fail + k->big) {
        int big = 0;
        for (size_t i = 0; i < nns; i++) big |= ns[i] > 16;
        if (o->root >= 0) fprintf(summary, "; root %" PRId64, o->root);
        else if (big) fprintf(summary, "; all roots up to N = 16, 8 roots per N above");
        else fprintf(summary, "; all roots");
    }
    fputc('\n', summary);
    fflush(summary);
}

int verify_algorithm(const Algorithm *alg, const VerifyOptions *o, DiagEngine *dx,
                     Arena *arena, FILE *summary) {
    int64_t defaults[64];
    const int64_t *ns = o->ns;
    size_t nns = o->nns;
    if (!ns) {
        nns = o->quick ? verify_quick_ns(defaults, 64) : verify_default_ns(defaults, 64);
        ns = defaults;
    }

    /* instantiate reports through an engine; later, silent instances get
     * one that writes nowhere. */
    DiagEngine *quiet = diag_new_silent(diag_sources(dx));
    diag_set_error_limit(quiet, 1);

    NResult *rs = xcalloc(nns ? nns : 1, sizeof *rs);
    VerifyRun v = {.alg = alg, .o = o, .dx = dx, .quiet = quiet, .arena = arena};
    for (size_t i = 0; i < nns; i++) {
        if (o->progress) o->progress(o->progress_ctx, i, nns, ns[i]);
        verify_one_n(&v, ns[i], &rs[i]);
    }
    if (o->progress) o->progress(o->progress_ctx, nns, nns, 0);

    NCounts k = {0};
    for (size_t i = 0; i < nns; i++) {
        k.ver += rs[i].outcome == NO_VERIFIED;
        k.fail += rs[i].outcome == NO_FAILED;
        k.big += rs[i].outcome == NO_TOO_LARGE;
        k.incons += rs[i].outcome == NO_VERIFIED && rs[i].consistent == 0;
        k.cons += rs[i].outcome == NO_VERIFIED && rs[i].consistent == 1;
    }
    k.nothing = nns > 0 && !k.ver && !k.fail && !k.big;
    /* a value of the default param sweep that its requires exclude */
    int skip_out = k.nothing && o->skip_inapplicable;
    if (!skip_out) {
        if (k.nothing) report_nothing(dx, alg, rs, nns);
        if (k.big) report_too_large(dx, alg, rs, nns);
        /* Diagnostics of this algorithm first, then its summary line. */
        diag_flush(dx);
        if (summary) print_summary(summary, alg, o, rs, ns, nns, &k);
    }
    free(rs);
    diag_delete(quiet);
    if (skip_out) return VERIFY_NOTHING;
    return (k.fail || k.nothing ? VERIFY_FAILED : 0) | (k.big ? VERIFY_TOO_LARGE : 0);
}
