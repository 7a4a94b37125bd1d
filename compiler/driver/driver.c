/* driver.c - what all subcommands share: common options, value parsers and
 * the Session (load + parse + check); see driver.h and docs/cli.md. */
#include "driver/driver.h"
#include "support/util.h"
#include "quantity.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- usage errors ---- */

int usage_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    fflush(stdout);
    if (cmd)
        fprintf(stderr, "collc %s: error: ", cmd);
    else
        fputs("collc: error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (cmd)
        fprintf(stderr, "Try 'collc help %s' for more information.\n", cmd);
    else
        fputs("Try 'collc --help' for more information.\n", stderr);
    return EXIT_USAGE;
}

/* ---- value parsers ---- */

int parse_int64(const char *s, int64_t *out) {
    if (!s || !*s) return -1;
    const char *p = s;
    int neg = 0;
    if (*p == '+' || *p == '-') neg = *p++ == '-';
    int base = 10;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    if (!*p) return -1;
    uint64_t v = 0;
    const uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; *p; p++) {
        int digit;
        if (*p >= '0' && *p <= '9') digit = *p - '0';
        else if (base == 16 && *p >= 'a' && *p <= 'f') digit = *p - 'a' + 10;
        else if (base == 16 && *p >= 'A' && *p <= 'F') digit = *p - 'A' + 10;
        else return -1;
        if (v > (limit - (uint64_t)digit) / (uint64_t)base) return -1;
        v = v * (uint64_t)base + (uint64_t)digit;
    }
    if (neg)
        *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    else
        *out = (int64_t)v;
    return 0;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* More values than this in one -N list is surely a typo (and would cost
 * gigabytes); the largest useful list is 1..2^20. */
#define RANK_LIST_MAX ((size_t)1 << 21)

int parse_rank_list(const char *s, int64_t **out, size_t *n) {
    *out = NULL;
    *n = 0;
    if (!s || !*s) return -1;
    int64_t *v = NULL;
    size_t len = 0, cap = 0;
    const char *p = s;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t itemlen = comma ? (size_t)(comma - p) : strlen(p);
        char item[64];
        if (itemlen == 0 || itemlen >= sizeof item) goto fail;
        memcpy(item, p, itemlen);
        item[itemlen] = 0;
        int64_t lo, hi;
        char *dots = strstr(item, "..");
        if (dots) {
            *dots = 0;
            if (parse_int64(item, &lo) || parse_int64(dots + 2, &hi) || lo > hi) goto fail;
        } else {
            if (parse_int64(item, &lo)) goto fail;
            hi = lo;
        }
        if ((uint64_t)(hi - lo) >= RANK_LIST_MAX || len + (size_t)(hi - lo) + 1 > RANK_LIST_MAX)
            goto fail;
        for (int64_t x = lo;; x++) {
            if (len == cap) {
                cap = cap ? cap * 2 : 16;
                v = xrealloc(v, cap * sizeof *v);
            }
            v[len++] = x;
            if (x == hi) break;
        }
        if (!comma) break;
        p = comma + 1;
    }
    qsort(v, len, sizeof *v, cmp_i64);
    size_t k = 0;
    for (size_t i = 0; i < len; i++)
        if (k == 0 || v[k - 1] != v[i]) v[k++] = v[i];
    *out = v;
    *n = k;
    return 0;
fail:
    free(v);
    return -1;
}

/* The runtime's parser (runtime/quantity.h): COLLMPI_CONFIG reads sizes
 * with the same code, so a size means the same bytes in both. */
int parse_size(const char *s, double *bytes) { return collrt_parse_size(s, bytes); }

int parse_time(const char *s, double *seconds) {
    static const collrt_unit units[] = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}};
    return collrt_parse_quantity(s, units, ARRAY_LEN(units), 0, seconds);
}

int parse_bandwidth(const char *s, double *bytes_per_s) {
    static const collrt_unit units[] = {
        {"B/s", 1},          {"KB/s", 1e3},          {"MB/s", 1e6},
        {"GB/s", 1e9},       {"TB/s", 1e12},         {"KiB/s", 1024.0},
        {"MiB/s", 1048576.0}, {"GiB/s", 1073741824.0}, {"TiB/s", 1099511627776.0},
    };
    return collrt_parse_quantity(s, units, ARRAY_LEN(units), 0, bytes_per_s);
}

/* ---- common options ---- */

void common_options_init(CommonOptions *o) {
    memset(o, 0, sizeof *o);
    o->diag_format = DIAG_FMT_TEXT;
    o->color = -1;
    o->error_limit = 20;
    o->max_transfers = 0; /* instantiate's default */
}

/* For "--name=value" or "--name value": returns the value (advancing *i in
 * the second form), NULL when argv[*i] is not this option, and sets *missing
 * when the value is absent. */
static const char *opt_value(const char *name, int argc, char **argv, int *i, int *missing) {
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0) return NULL;
    if (a[n] == '=') return a + n + 1;
    if (a[n] != 0) return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}

/* -D names must be NUL-terminated copies that outlive every CommonOptions
 * copy (sessions copy the options); they are kept, reachable, for the life
 * of the process. */
static const char *keep_name(const char *s, size_t n) {
    static char **kept;
    static size_t nkept;
    char *name = xmalloc(n + 1);
    memcpy(name, s, n);
    name[n] = 0;
    kept = xrealloc(kept, (nkept + 1) * sizeof *kept);
    kept[nkept++] = name;
    return name;
}

static int is_ident(const char *s, size_t n) {
    if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return 0;
    for (size_t k = 1; k < n; k++)
        if (!(isalnum((unsigned char)s[k]) || s[k] == '_')) return 0;
    return 1;
}

/* The commands that run a -D sweep once per value. */
static int sweeps_allowed(const char *cmd) {
    return !strcmp(cmd, "verify") || !strcmp(cmd, "cost") || !strcmp(cmd, "compare");
}

enum { DEFINE_MAX_VALUES = 4096 };

/* "[ALG.]NAME=VALUES" -> *d (names and values kept for the life of the
 * process, like keep_name's). Returns 0, or -1 after a usage error. */
static int parse_define(const char *cmd, const char *def, DefineSpec *d) {
    const char *eq = strchr(def, '=');
    if (!eq || eq == def) return usage_error(cmd, "-D expects NAME=VALUE, got '%s'", def), -1;
    size_t nlen = (size_t)(eq - def);
    const char *dot = memchr(def, '.', nlen);
    memset(d, 0, sizeof *d);
    if (dot) {
        if (!is_ident(def, (size_t)(dot - def)) || !is_ident(dot + 1, (size_t)(eq - dot - 1)))
            return usage_error(cmd, "-D expects NAME=VALUE or ALGORITHM.NAME=VALUE, got '%s'", def), -1;
        d->alg = keep_name(def, (size_t)(dot - def));
        d->name = keep_name(dot + 1, (size_t)(eq - dot - 1));
    } else {
        d->name = keep_name(def, nlen);
    }
    /* VALUES: items "v" or "lo..hi", separated by commas */
    const char *text = eq + 1;
    int64_t *v = NULL;
    size_t n = 0, cap = 0;
    const char *p = text;
    int bad = !*p;
    while (!bad && *p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char item[64];
        if (len == 0 || len >= sizeof item) { bad = 1; break; }
        memcpy(item, p, len);
        item[len] = 0;
        int64_t lo, hi;
        char *dots = strstr(item, "..");
        if (dots) {
            *dots = 0;
            if (parse_int64(item, &lo) || parse_int64(dots + 2, &hi) || lo > hi) { bad = 1; break; }
        } else {
            if (parse_int64(item, &lo)) { bad = 1; break; }
            hi = lo;
        }
        if ((uint64_t)hi - (uint64_t)lo >= DEFINE_MAX_VALUES) {
            free(v);
            return usage_error(cmd, "-D %.*s: more than %d values", (int)nlen, def,
                               DEFINE_MAX_VALUES), -1;
        }
        for (int64_t x = lo;; x++) {
            int dup = 0;
            for (size_t k = 0; k < n && !dup; k++) dup = v[k] == x;
            if (!dup) {
                if (n == DEFINE_MAX_VALUES) {
                    free(v);
                    return usage_error(cmd, "-D %.*s: more than %d values", (int)nlen, def,
                                       DEFINE_MAX_VALUES), -1;
                }
                if (n == cap) {
                    cap = cap ? cap * 2 : 4;
                    v = xrealloc(v, cap * sizeof *v);
                }
                v[n++] = x;
            }
            if (x == hi) break;
        }
        p = end ? end + 1 : p + len;
        if (end && !*p) bad = 1;  /* a trailing comma */
    }
    if (bad) {
        free(v);
        if (!strchr(text, ',') && !strstr(text, ".."))
            return usage_error(cmd, "-D %.*s: '%s' is not an integer", (int)nlen, def, text), -1;
        return usage_error(cmd, "-D %.*s: '%s' is not a list of integers (like 1..16 or 1,2,4)",
                           (int)nlen, def, text), -1;
    }
    if (n > 1 && !sweeps_allowed(cmd)) {
        free(v);
        return usage_error(cmd, "-D %.*s=%s: a sweep (several values) is accepted by verify, "
                           "cost and compare only", (int)nlen, def, text), -1;
    }
    /* kept reachable for the life of the process, as the names are */
    static int64_t **kept;
    static size_t nkept;
    kept = xrealloc(kept, (nkept + 1) * sizeof *kept);
    kept[nkept++] = v;
    d->values = v;
    d->nvalues = n;
    return 0;
}

int common_option(CommonOptions *o, int argc, char **argv, int *i) {
    const char *a = argv[*i];
    const char *cmd = argv[0];
    const char *v;
    int missing = 0;

    if (strncmp(a, "-D", 2) == 0) {
        const char *def = a + 2;
        if (!*def) {
            if (*i + 1 >= argc) return usage_error(cmd, "missing value after '-D'"), -1;
            def = argv[++*i];
        }
        if (o->ndefines >= (int)ARRAY_LEN(o->defines))
            return usage_error(cmd, "too many -D options (at most %d)",
                               (int)ARRAY_LEN(o->defines)), -1;
        DefineSpec d;
        if (parse_define(cmd, def, &d)) return -1;
        /* A later -D of the same [ALG.]NAME wins, as with cc. */
        for (int k = 0; k < o->ndefines; k++) {
            const DefineSpec *e = &o->defines[k];
            if (strcmp(e->name, d.name) == 0 &&
                (e->alg == d.alg || (e->alg && d.alg && strcmp(e->alg, d.alg) == 0))) {
                o->defines[k] = o->defines[--o->ndefines];
                break;
            }
        }
        o->defines[o->ndefines++] = d;
        return 1;
    }
    if ((v = opt_value("--algorithm", argc, argv, i, &missing)) || missing) {
        if (missing || !*v) return usage_error(cmd, "missing value after '--algorithm'"), -1;
        o->algorithm = v;
        return 1;
    }
    if ((v = opt_value("--diagnostics-format", argc, argv, i, &missing)) || missing) {
        if (missing) return usage_error(cmd, "missing value after '--diagnostics-format'"), -1;
        if (strcmp(v, "text") == 0) o->diag_format = DIAG_FMT_TEXT;
        else if (strcmp(v, "json") == 0) o->diag_format = DIAG_FMT_JSON;
        else if (strcmp(v, "sarif") == 0) o->diag_format = DIAG_FMT_SARIF;
        else
            return usage_error(cmd, "unknown diagnostics format '%s' (expected text, json or sarif)",
                               v), -1;
        return 1;
    }
    if ((v = opt_value("--max-transfers", argc, argv, i, &missing)) || missing) {
        int64_t n;
        if (missing) return usage_error(cmd, "missing value after '--max-transfers'"), -1;
        if (parse_int64(v, &n) || n < 1)
            return usage_error(cmd, "--max-transfers expects a positive integer, got '%s'", v), -1;
        o->max_transfers = (size_t)n;
        return 1;
    }
    if (strncmp(a, "-ferror-limit=", 14) == 0) {
        int64_t n;
        if (parse_int64(a + 14, &n) || n < 0 || n > UINT32_MAX)
            return usage_error(cmd, "-ferror-limit expects a non-negative integer, got '%s'",
                               a + 14), -1;
        o->error_limit = (unsigned)n;
        return 1;
    }
    if (strcmp(a, "-fcolor-diagnostics") == 0) { o->color = 1; return 1; }
    if (strcmp(a, "-fno-color-diagnostics") == 0) { o->color = 0; return 1; }
    if (strcmp(a, "-Werror") == 0 || strncmp(a, "-Werror=", 8) == 0) {
        const char *code = a[7] == '=' ? a + 8 : NULL;
        if (code && !*code) return usage_error(cmd, "missing diagnostic code after '-Werror='"), -1;
        if (o->nwerror >= (int)ARRAY_LEN(o->werror))
            return usage_error(cmd, "too many -Werror options"), -1;
        o->werror[o->nwerror++] = code;
        return 1;
    }
    if (strncmp(a, "-Wno-", 5) == 0) {
        if (!a[5]) return usage_error(cmd, "missing diagnostic code after '-Wno-'"), -1;
        if (o->nwno >= (int)ARRAY_LEN(o->wno)) return usage_error(cmd, "too many -Wno- options"), -1;
        o->wno[o->nwno++] = a + 5;
        return 1;
    }
    return 0;
}

/* ---- session ---- */

static void apply_options(DiagEngine *dx, const CommonOptions *o) {
    if (o->color >= 0) diag_set_color(dx, o->color);
    diag_set_error_limit(dx, o->error_limit);
    for (int k = 0; k < o->nwerror; k++) diag_set_werror(dx, o->werror[k]);
    for (int k = 0; k < o->nwno; k++) diag_disable(dx, o->wno[k]);
}

/* ---- -D per algorithm ---- */

static int declares(const Algorithm *a, const char *name) {
    for (int p = 0; p < a->nparams; p++)
        if (strcmp(a->params[p]->name, name) == 0) return 1;
    return 0;
}

/* "did you mean" over the params of the selected algorithms. */
static void note_param_guess(Session *s, Algorithm **algs, int nalgs, const char *name) {
    const Symbol *best = NULL;
    int bestd = 3, anyparam = 0;
    for (int k = 0; k < nalgs; k++)
        for (int p = 0; p < algs[k]->nparams; p++) {
            anyparam = 1;
            int d = front_edit_distance(name, algs[k]->params[p]->name);
            if (d < bestd && d < (int)strlen(name)) {
                bestd = d;
                best = algs[k]->params[p];
            }
        }
    /* The error is the command line's; the notes point into the file. */
    if (best) diag_note(s->dx, best->span, "did you mean '%s'?", best->name);
    else if (!anyparam && nalgs == 1)
        diag_note(s->dx, algs[0]->name_span, "'%s' has no params", algs[0]->name);
}

/* The -D that apply to alg: indices into opts.defines, -D ALG.NAME
 * replacing -D NAME. Returns how many (<= 64). */
static int applying(const Session *s, const Algorithm *a, int *idx) {
    int n = 0;
    const CommonOptions *o = &s->opts;
    for (int k = 0; k < o->ndefines; k++) {
        const DefineSpec *d = &o->defines[k];
        if (d->alg && strcmp(d->alg, a->name) != 0) continue;
        if (!declares(a, d->name)) continue;
        if (!d->alg) {
            int shadowed = 0;
            for (int j = 0; j < o->ndefines && !shadowed; j++)
                shadowed = o->defines[j].alg && !strcmp(o->defines[j].alg, a->name) &&
                           !strcmp(o->defines[j].name, d->name);
            if (shadowed) continue;
        }
        idx[n++] = k;
    }
    return n;
}

enum { SWEEP_MAX_POINTS = 4096 };

/* Every -D must reach a param: -D NAME one of a selected algorithm, -D
 * ALG.NAME one of algorithm ALG. A sweep must stay small. */
static int check_defines(Session *s) {
    Algorithm **algs;
    int nalgs = session_algorithms(s, &algs);
    int errors = 0;
    for (int k = 0; k < s->opts.ndefines; k++) {
        const DefineSpec *d = &s->opts.defines[k];
        if (d->alg) {
            Algorithm *a = program_find_algorithm(&s->prog, d->alg);
            if (!a) {
                diag_error(s->dx, span_none(), "unknown-define", "-D %s.%s: no algorithm named '%s'",
                           d->alg, d->name, d->alg);
                const Algorithm *best = NULL;
                int bestd = 3;
                for (int j = 0; j < s->prog.nalgorithms; j++) {
                    int dist = front_edit_distance(d->alg, s->prog.algorithms[j]->name);
                    if (dist < bestd && dist < (int)strlen(d->alg)) {
                        bestd = dist;
                        best = s->prog.algorithms[j];
                    }
                }
                if (best) diag_note(s->dx, best->name_span, "did you mean '%s'?", best->name);
                errors++;
            } else if (!declares(a, d->name)) {
                diag_error(s->dx, span_none(), "unknown-define",
                           "-D %s.%s: '%s' has no param named '%s'", d->alg, d->name, d->alg, d->name);
                note_param_guess(s, &a, 1, d->name);
                errors++;
            }
            continue;
        }
        int known = 0;
        for (int j = 0; j < nalgs && !known; j++) known = declares(algs[j], d->name);
        if (known) continue;
        if (nalgs == 1)
            diag_error(s->dx, span_none(), "unknown-define", "-D %s: '%s' has no param named '%s'",
                       d->name, algs[0]->name, d->name);
        else
            diag_error(s->dx, span_none(), "unknown-define",
                       "-D %s: no algorithm has a param named '%s'", d->name, d->name);
        note_param_guess(s, algs, nalgs, d->name);
        errors++;
    }
    for (int j = 0; j < nalgs && !errors; j++) {
        int idx[64], n = applying(s, algs[j], idx);
        size_t points = 1;
        for (int k = 0; k < n && points <= SWEEP_MAX_POINTS; k++)
            points *= s->opts.defines[idx[k]].nvalues;
        if (points > SWEEP_MAX_POINTS) {
            diag_error(s->dx, algs[j]->name_span, "sweep-too-large",
                       "the -D sweeps give '%s' more than %d parameter combinations", algs[j]->name,
                       SWEEP_MAX_POINTS);
            errors++;
        }
    }
    return errors;
}

size_t session_sweep_points(Session *s, const Algorithm *alg) {
    int idx[64], n = applying(s, alg, idx);
    size_t points = 1;
    for (int k = 0; k < n; k++) points *= s->opts.defines[idx[k]].nvalues;
    return points;
}

/* The value of each applying -D at `point`: the last -D varies fastest. */
static void point_values(const Session *s, const int *idx, int n, size_t point, size_t *which) {
    for (int k = n - 1; k >= 0; k--) {
        size_t nv = s->opts.defines[idx[k]].nvalues;
        which[k] = point % nv;
        point /= nv;
    }
}

int session_defines(Session *s, const Algorithm *alg, size_t point, const Define **out) {
    int idx[64], n = applying(s, alg, idx);
    size_t which[64];
    point_values(s, idx, n, point, which);
    Define *d = ARENA_ARRAY(&s->arena, Define, n > 0 ? n : 1);
    for (int k = 0; k < n; k++) {
        d[k].name = s->opts.defines[idx[k]].name;
        d[k].value = s->opts.defines[idx[k]].values[which[k]];
    }
    *out = d;
    return n;
}

const char *session_sweep_label(Session *s, const Algorithm *alg, size_t point) {
    int idx[64], n = applying(s, alg, idx);
    size_t which[64];
    point_values(s, idx, n, point, which);
    const char *label = "";
    for (int k = 0; k < n; k++) {
        const DefineSpec *d = &s->opts.defines[idx[k]];
        if (d->nvalues < 2) continue;
        label = arena_printf(&s->arena, "%s%s%s = %lld", label, *label ? ", " : "", d->name,
                             (long long)d->values[which[k]]);
    }
    return label;
}

int session_swept_param(Session *s, const Algorithm *alg, const char **name,
                        const int64_t **values, size_t *nvalues) {
    int idx[64], n = applying(s, alg, idx), swept = 0;
    for (int k = 0; k < n; k++) {
        const DefineSpec *d = &s->opts.defines[idx[k]];
        if (d->nvalues < 2) continue;
        if (!swept++) {
            *name = d->name;
            *values = d->values;
            *nvalues = d->nvalues;
        }
    }
    return swept;
}

/* ---- import "FILE.coll"; ---- */

/* Parses every file the parsed ones import, once each (a file also given
 * on the command line is not read again), FILE relative to the importing
 * file; their algorithms go to prog.library: callable, not selected. */
static void load_imports(Session *s) {
    size_t nseen = 0;
    char **seen = xcalloc(s->sm.nfiles + (size_t)s->prog.nimports + 1, sizeof *seen);
    for (size_t f = 0; f < s->sm.nfiles; f++)
        if (strcmp(s->sm.files[f].path, "-") != 0) {
            char *rp = realpath(s->sm.files[f].path, NULL);
            if (rp) seen[nseen++] = rp;
        }
    for (int k = 0; k < s->prog.nimports; k++) {
        Import im = s->prog.imports[k];
        const char *from = source_file(&s->sm, im.span.file)->path;
        const char *slash = strrchr(from, '/');
        const char *path = im.path[0] == '/' || !slash || strcmp(from, "-") == 0
                               ? im.path
                               : arena_printf(&s->arena, "%.*s/%s", (int)(slash - from), from, im.path);
        char *rp = realpath(path, NULL);
        int dup = 0;
        for (size_t j = 0; j < nseen && rp && !dup; j++) dup = strcmp(seen[j], rp) == 0;
        if (dup) {
            free(rp);
            continue;
        }
        errno = 0;
        int id = rp ? source_load(&s->sm, path) : -1;
        if (id < 0) {
            int e = errno ? errno : ENOENT;
            diag_error(s->dx, im.span, "cannot-open", "cannot open imported file '%s': %s", path,
                       e == EFBIG ? "file too large (limit 1 GiB)" : strerror(e));
            free(rp);
            continue;
        }
        seen = xrealloc(seen, (nseen + 2) * sizeof *seen);
        seen[nseen++] = rp;
        int before = s->prog.nalgorithms;
        parse_source(&s->arena, s->dx, (uint32_t)id, &s->prog);
        int n = s->prog.nalgorithms - before;
        if (n > 0) {
            Algorithm **lib = ARENA_ARRAY(&s->arena, Algorithm *, (size_t)(s->prog.nlibrary + n));
            if (s->prog.nlibrary) memcpy(lib, s->prog.library, sizeof *lib * (size_t)s->prog.nlibrary);
            memcpy(lib + s->prog.nlibrary, s->prog.algorithms + before, sizeof *lib * (size_t)n);
            s->prog.library = lib;
            s->prog.nlibrary += n;
            s->prog.nalgorithms = before;
        }
    }
    for (size_t j = 0; j < nseen; j++) free(seen[j]);
    free(seen);
}

int session_open(Session *s, const CommonOptions *opts, char **files, int nfiles) {
    memset(s, 0, sizeof *s);
    s->opts = *opts;
    arena_init(&s->arena);
    source_init(&s->sm);
    s->dx = diag_new(&s->sm, stderr, opts->diag_format);
    apply_options(s->dx, opts);

    int unreadable = 0;
    int *ids = xmalloc((size_t)(nfiles > 0 ? nfiles : 1) * sizeof *ids);
    for (int k = 0; k < nfiles; k++) {
        errno = 0;
        ids[k] = source_load(&s->sm, files[k]);
        if (ids[k] < 0) {
            int e = errno ? errno : EIO;
            const char *why = e == EFBIG ? "file too large (limit 1 GiB)" : strerror(e);
            diag_error(s->dx, span_none(), "cannot-open", "cannot open '%s': %s",
                       strcmp(files[k], "-") == 0 ? "<stdin>" : files[k], why);
            unreadable = 1;
        }
    }
    unsigned before_parse = diag_error_count(s->dx);
    for (int k = 0; k < nfiles; k++)
        if (ids[k] >= 0) parse_source(&s->arena, s->dx, (uint32_t)ids[k], &s->prog);
    free(ids);
    s->ninputs = s->sm.nfiles;
    load_imports(s);
    if (diag_error_count(s->dx) > before_parse) return unreadable ? 2 : 1;
    /* The files that could be read are still checked (like a compiler that
     * goes on with the other translation units), but nothing runs after. */
    sema_check(&s->arena, s->dx, &s->prog);
    if (unreadable) return 2;
    if (diag_error_count(s->dx)) return 1;

    if (opts->algorithm && !program_find_algorithm(&s->prog, opts->algorithm)) {
        diag_error(s->dx, span_none(), "unknown-algorithm", "no algorithm named '%s'",
                   opts->algorithm);
        const Algorithm *best = NULL;
        int bestd = 3;
        for (int k = 0; k < s->prog.nalgorithms; k++) {
            int dist = front_edit_distance(opts->algorithm, s->prog.algorithms[k]->name);
            if (dist < bestd && dist < (int)strlen(opts->algorithm)) {
                bestd = dist;
                best = s->prog.algorithms[k];
            }
        }
        /* The error is the command line's; the note points into the file. */
        if (best) diag_note(s->dx, best->name_span, "did you mean '%s'?", best->name);
        return 1;
    }
    return !opts->defines_unused && check_defines(s) ? 1 : 0;
}

int session_close(Session *s, int status) {
    if (s->dx) {
        diag_finish(s->dx);
        if (status == EXIT_OK && diag_error_count(s->dx)) status = EXIT_INPUT;
        diag_delete(s->dx);
        s->dx = NULL;
    }
    arena_free(&s->arena);
    source_free(&s->sm);
    return status;
}

int session_algorithms(Session *s, Algorithm ***out) {
    if (s->opts.algorithm) {
        Algorithm *a = program_find_algorithm(&s->prog, s->opts.algorithm);
        if (!a) {
            *out = NULL;
            return 0;
        }
        Algorithm **arr = ARENA_ARRAY(&s->arena, Algorithm *, 1);
        arr[0] = a;
        *out = arr;
        return 1;
    }
    *out = s->prog.algorithms;
    return s->prog.nalgorithms;
}

char *default_output_path(Arena *a, const char *input, const char *suffix) {
    const char *base = strrchr(input, '/');
    base = base ? base + 1 : input;
    size_t n = strlen(base);
    if (n > 5 && strcmp(base + n - 5, ".coll") == 0) n -= 5;
    if (strcmp(input, "-") == 0) { base = "stdin"; n = 5; }
    return arena_printf(a, "%.*s%s", (int)n, base, suffix);
}
