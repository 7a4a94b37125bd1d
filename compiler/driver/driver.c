/* driver.c - what all subcommands share: usage errors, value parsers and
 * the Session (load + parse + check); see driver.h and docs/cli.md. The
 * command line itself is parsed in options.c. */
#include "driver/driver.h"
#include "support/suggest.h"
#include "support/util.h"
#include "driver/progress.h"
#include "quantity.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* ---- session ---- */

/* The readers, sniffers and group checks of the rows (parse_source,
 * parse_sniff, parse_group: front.h; a compatible redeclaration). */
#define INPUT_FORMAT(id, name, read, sniff, group, help) InputReadFn read; InputSniffFn sniff; InputGroupFn group;
#include "driver/formats.def"

const InputFormat input_formats[] = {
#define INPUT_FORMAT(id, name, read, sniff, group, help) {name, read, sniff, group, help},
#include "driver/formats.def"
};
const int ninput_formats = (int)ARRAY_LEN(input_formats);

/* The format of a text: --input-format's (given > 0), else the surest
 * sniffer's; *how is that sniffer's answer (2 for a named format). */
static int format_index(int given, const char *text, size_t len, int *how) {
    *how = 2;
    if (given) return given - 1;
    int best = 0, surest = -1;
    for (int k = 0; k < ninput_formats; k++) {
        int h = input_formats[k].sniff(text, len);
        if (h > surest) surest = h, best = k;
    }
    *how = surest;
    return best;
}

static int format_of(const Session *s, uint32_t id) {
    const SourceFile *f = source_file(&s->sm, id);
    int how;
    return format_index(s->opts.input_format, f->text, f->len, &how);
}

/* ---- a folder given as a file ---- */

typedef struct PathList { char **v; int n, cap; } PathList;

static void path_push(PathList *l, char *p) {
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->v = xrealloc(l->v, sizeof *l->v * (size_t)l->cap);
    }
    l->v[l->n++] = p;
}

static int path_cmp(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether file `path` of a folder is one to read: a .coll, or a text that
 * a format recognises by its content (its first 64 KiB), or with
 * --input-format any file. */
static int folder_member(const char *path, int given) {
    size_t n = strlen(path);
    if (n > 5 && strcmp(path + n - 5, ".coll") == 0) return 1;
    if (given) return 1;
    FILE *f = fopen(path, "rb");
    if (!f) return 1; /* read anyway: its error is reported where it is read */
    static char head[1 << 16];
    size_t len = fread(head, 1, sizeof head, f);
    fclose(f);
    int how;
    format_index(0, head, len, &how);
    return how >= 2;
}

/* The files given, a folder replaced by its files (not those whose name
 * begins with '.', not its folders), sorted by name, that collc reads.
 * A folder with none is an error. */
static PathList expand_folders(Session *s, char **files, int nfiles) {
    PathList out = {0};
    for (int k = 0; k < nfiles; k++) {
        struct stat st;
        if (strcmp(files[k], "-") == 0 || stat(files[k], &st) != 0 || !S_ISDIR(st.st_mode)) {
            path_push(&out, arena_strdup(&s->arena, files[k]));
            continue;
        }
        DIR *d = opendir(files[k]);
        if (!d) {
            path_push(&out, arena_strdup(&s->arena, files[k]));
            continue;
        }
        int first = out.n;
        size_t dl = strlen(files[k]);
        const char *sep = dl && files[k][dl - 1] == '/' ? "" : "/";
        for (struct dirent *e; (e = readdir(d));) {
            if (e->d_name[0] == '.') continue;
            char *p = arena_printf(&s->arena, "%s%s%s", files[k], sep, e->d_name);
            struct stat es;
            if (stat(p, &es) != 0 || !S_ISREG(es.st_mode)) continue;
            if (folder_member(p, s->opts.input_format)) path_push(&out, p);
        }
        closedir(d);
        /* qsort's array must not be NULL even when empty (C17 7.22.5) */
        if (out.n > first) qsort(out.v + first, (size_t)(out.n - first), sizeof *out.v, path_cmp);
        if (out.n == first)
            diag_error(s->dx, span_none(), "cannot-open",
                       "the folder '%s' has no file that collc reads (.coll, or a format it "
                       "recognises: --input-format)",
                       files[k]);
    }
    return out;
}

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
    Suggest sg;
    suggest_init(&sg, name, SUGGEST_NAME);
    int anyparam = 0;
    for (int k = 0; k < nalgs; k++)
        for (int p = 0; p < algs[k]->nparams; p++) {
            anyparam = 1;
            suggest_offer(&sg, algs[k]->params[p]->name, algs[k]->params[p]);
        }
    const Symbol *best = sg.item;
    /* The error is the command line's; the notes point into the file. */
    if (best) diag_note(s->dx, best->span, "did you mean '%s'?", best->name);
    else if (!anyparam && nalgs == 1)
        diag_note(s->dx, algs[0]->name_span, "'%s' has no params", algs[0]->name);
}

/* "did you mean" over the algorithms of the files; the error is the
 * command line's, the note points into the file. */
static void note_algorithm_guess(Session *s, const char *name) {
    Suggest sg;
    suggest_init(&sg, name, SUGGEST_NAME);
    for (int k = 0; k < s->prog.nalgorithms; k++)
        suggest_offer(&sg, s->prog.algorithms[k]->name, s->prog.algorithms[k]);
    const Algorithm *best = sg.item;
    if (best) diag_note(s->dx, best->name_span, "did you mean '%s'?", best->name);
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
                note_algorithm_guess(s, d->alg);
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

#ifndef COLLC_DATA_RELDIR
#error "COLLC_DATA_RELDIR (the path from bin/ to share/collc) is set by the build"
#endif

/* Calls fn(dir, ctx) for each folder a relative `import` searches, in
 * order, until it returns 1 (then returns 1): the importing file's folder
 * (the working folder for standard input), each -I DIR, each folder of
 * $COLLC_IMPORT_PATH, and the shipped examples, <folder of collc>/
 * COLLC_DATA_RELDIR/dsl-examples (installed, and staged in the build tree). */
static int each_import_dir(Session *s, const char *from, int (*fn)(const char *dir, void *ctx), void *ctx) {
    const char *slash = strrchr(from, '/');
    const char *own = strcmp(from, "-") == 0 || !slash ? "." : arena_printf(&s->arena, "%.*s", (int)(slash - from), from);
    if (fn(*own ? own : "/", ctx)) return 1;
    for (int k = 0; k < s->opts.nimport_dirs; k++)
        if (fn(s->opts.import_dirs[k], ctx)) return 1;
    const char *env = getenv("COLLC_IMPORT_PATH");
    for (const char *p = env; p && *p;) {
        size_t k = strcspn(p, ":");
        if (k && fn(arena_printf(&s->arena, "%.*s", (int)k, p), ctx)) return 1;
        p += k + (p[k] == ':');
    }
    char exe[4096];
    ssize_t m = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (m <= 0) return 0;
    exe[m] = '\0';
    char *eslash = strrchr(exe, '/');
    if (!eslash) return 0;
    const char *dir = arena_printf(&s->arena, "%.*s/" COLLC_DATA_RELDIR "/dsl-examples", (int)(eslash - exe), exe);
    char *real = realpath(dir, NULL); /* without the "bin/../" */
    int found = real && fn(arena_printf(&s->arena, "%s", real), ctx);
    free(real);
    return found;
}

const char *session_examples_dir(Session *s) {
    /* the last folder each_import_dir searches */
    char exe[4096];
    ssize_t m = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (m <= 0) return NULL;
    exe[m] = '\0';
    char *eslash = strrchr(exe, '/');
    if (!eslash) return NULL;
    const char *dir = arena_printf(&s->arena, "%.*s/" COLLC_DATA_RELDIR "/dsl-examples", (int)(eslash - exe), exe);
    char *real = realpath(dir, NULL);
    const char *out = real ? arena_printf(&s->arena, "%s", real) : NULL;
    free(real);
    return out;
}

typedef struct ImportFind {
    Session *s;
    const char *file;  /* as written */
    const char *path;  /* the first that exists */
    const char *tried; /* "dir1, dir2, ..." */
} ImportFind;

static int try_import_dir(const char *dir, void *ctx) {
    ImportFind *f = ctx;
    /* a folder named twice (-I of the file's own, say) is listed once */
    size_t dl = strlen(dir);
    for (const char *t = f->tried; (t = strstr(t, dir)); t += dl)
        if ((t == f->tried || t[-1] == ' ') && (t[dl] == ',' || t[dl] == 0)) return 0;
    f->tried = *f->tried ? arena_printf(&f->s->arena, "%s, %s", f->tried, dir) : dir;
    const char *path = strcmp(dir, ".") == 0 ? f->file : arena_printf(&f->s->arena, "%s%s%s", dir,
                                                                     dir[strlen(dir) - 1] == '/' ? "" : "/", f->file);
    if (access(path, F_OK) != 0) return 0;
    f->path = path;
    return 1;
}

/* Parses every file the parsed ones import, once each (a file also given
 * on the command line is not read again), FILE found in each_import_dir's
 * folders; their algorithms go to prog.library: callable, not selected. */
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
        ImportFind find = {.s = s, .file = im.path, .path = NULL, .tried = ""};
        if (im.path[0] == '/') find.path = im.path;
        else each_import_dir(s, from, try_import_dir, &find);
        const char *path = find.path;
        if (!path) {
            diag_error(s->dx, im.span, "cannot-open", "cannot open imported file '%s': not found", im.path);
            diag_note(s->dx, im.span, "searched %s (-I DIR and COLLC_IMPORT_PATH add folders)", find.tried);
            continue;
        }
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

int session_load(Session *s, const char *path) {
    errno = 0;
    int id = source_load(&s->sm, path);
    if (id < 0) {
        int e = errno ? errno : EIO;
        const char *why = e == EFBIG ? "file too large (limit 1 GiB)" : strerror(e);
        diag_error(s->dx, span_none(), "cannot-open", "cannot open '%s': %s",
                   strcmp(path, "-") == 0 ? "<stdin>" : path, why);
    }
    return id;
}

Status session_open(Session *s, const CommonOptions *opts, char **files, int nfiles) {
    memset(s, 0, sizeof *s);
    s->opts = *opts;
    arena_init(&s->arena);
    source_init(&s->sm);
    s->dx = diag_new(&s->sm, stderr, opts->diag_format);
    /* on a terminal, through the stream that erases the progress line */
    FILE *ds = progress_stream();
    if (ds != stderr) diag_set_stream(s->dx, ds);
    apply_options(s->dx, opts);

    unsigned before_expand = diag_error_count(s->dx);
    PathList given = expand_folders(s, files, nfiles);
    files = given.v;
    nfiles = given.n;
    int unreadable = diag_error_count(s->dx) > before_expand;
    int *ids = xmalloc((size_t)(nfiles > 0 ? nfiles : 1) * sizeof *ids);
    for (int k = 0; k < nfiles; k++) {
        ids[k] = session_load(s, files[k]);
        if (ids[k] < 0) unreadable = 1;
    }
    unsigned before_parse = diag_error_count(s->dx);
    /* each file in its format; then each format's files together, those
     * that read without an error */
    int *fmt = xmalloc((size_t)(nfiles > 0 ? nfiles : 1) * sizeof *fmt);
    uint32_t *group = xmalloc((size_t)(nfiles > 0 ? nfiles : 1) * sizeof *group);
    for (int k = 0; k < nfiles; k++) {
        fmt[k] = -1;
        if (ids[k] < 0) continue;
        unsigned before = diag_error_count(s->dx);
        int f = format_of(s, (uint32_t)ids[k]);
        input_formats[f].read(&s->arena, s->dx, (uint32_t)ids[k], &s->prog);
        if (diag_error_count(s->dx) == before) fmt[k] = f;
    }
    for (int f = 0; f < ninput_formats; f++) {
        int n = 0;
        for (int k = 0; k < nfiles; k++)
            if (fmt[k] == f) group[n++] = (uint32_t)ids[k];
        if (n) input_formats[f].group(s->dx, group, n);
    }
    free(fmt);
    free(group);
    free(ids);
    free(given.v);
    s->ninputs = s->sm.nfiles;
    load_imports(s);
    if (diag_error_count(s->dx) > before_parse) return EXIT_INPUT;
    /* The files that could be read are still checked (like a compiler that
     * goes on with the other translation units), but nothing runs after. */
    sema_check(&s->arena, s->dx, &s->prog);
    if (unreadable || diag_error_count(s->dx)) return EXIT_INPUT;

    if (opts->algorithm && !program_find_algorithm(&s->prog, opts->algorithm)) {
        diag_error(s->dx, span_none(), "unknown-algorithm", "no algorithm named '%s'",
                   opts->algorithm);
        note_algorithm_guess(s, opts->algorithm);
        return EXIT_INPUT;
    }
    return !opts->defines_unused && check_defines(s) ? EXIT_INPUT : EXIT_GO_ON;
}

int session_close(Session *s, int status) {
    progress_end();
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

FILE *session_output(Session *s, const char *path, const char *mode) {
    FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, mode);
    if (!f) diag_error(s->dx, span_none(), "io", "cannot open '%s' for writing: %s", path, strerror(errno));
    return f;
}

int session_output_close(Session *s, FILE *f, const char *path) {
    if (f == stdout || fclose(f) == 0) return 0;
    diag_error(s->dx, span_none(), "io", "cannot write '%s': %s", path, strerror(errno));
    return 1;
}

char *default_output_path(Arena *a, const char *input, const char *suffix) {
    const char *base = strrchr(input, '/');
    base = base ? base + 1 : input;
    size_t n = strlen(base);
    if (n > 5 && strcmp(base + n - 5, ".coll") == 0) n -= 5;
    if (strcmp(input, "-") == 0) { base = "stdin"; n = 5; }
    return arena_printf(a, "%.*s%s", (int)n, base, suffix);
}
