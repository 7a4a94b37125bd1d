/* options.c - the one command-line parser of collc and the help pages, both
 * driven by the option table (driver/options.def); see options.h. */
#include "driver/options.h"
#include "driver/target.h"
#include "support/suggest.h"
#include "support/util.h"

#include <coll.h>
#include <ctype.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* What the value of an option is (the `kind` column of options.def). */
typedef enum OptKind {
    OPTK_FLAG,      /* no value: the field (int) is set to the row's min */
    OPTK_INT,       /* int64_t in min..max */
    OPTK_LIST,      /* RankList, every value in min..max */
    OPTK_SIZE,      /* double, bytes: 64MiB, 4KB, 1024 */
    OPTK_TIME,      /* double, seconds: 2us, 1.5ms */
    OPTK_BANDWIDTH, /* double, bytes per second, > 0: 64GB/s */
    OPTK_SIZES,     /* SizeRange: 1KiB..1GiB */
    OPTK_STRING,    /* const char *, not empty */
    OPTK_OPTFILE,   /* const char *: FILE of --name=FILE, "" for --name alone */
    OPTK_ENUM,      /* int: the index of the word in the row's CHOICES */
    OPTK_DTYPE,     /* int: a DriverDtype */
    OPTK_OP,        /* int: a DriverOp */
    OPTK_FORMAT,    /* int: 1 + a row of formats.def */
    OPTK_DEFINE,    /* CommonOptions: -D NAME=VALUE adds a Define */
    OPTK_WERROR,    /* CommonOptions: -Werror (all) or -Werror=CODE */
    OPTK_WNO,       /* CommonOptions: -Wno-CODE */
    OPTK_IMPORT_DIR, /* CommonOptions: -I DIR adds a folder `import` searches */
} OptKind;


/* The `commands` column (and its sets, defined in options.def). */
#define C(name) CMD_BIT(name)
_Static_assert(CMD__COUNT <= 32, "the commands column is a 32-bit mask");

/* The field of an OPT_INTO row is declared elsewhere: it must have the type
 * its kind writes (an OPT row declares its field with that type). */
#define OPT_INTO(id, spelling, kind, field, arg, min, max, dflt, cmds, help)                  \
    _Static_assert(_Generic(((DriverOptions *)0)->field, OPTK_TYPE_##kind: 1, default: 0),  \
                   "options.def: the field of " #id " is not what a " #kind " option writes");
#include "driver/options.def"

typedef struct OptionInfo {
    const char *spelling;
    OptKind kind;
    size_t offset;         /* of the field in DriverOptions */
    const char *arg;
    int64_t min, max;
    const char *dflt;
    unsigned cmds;
    const char *help;
} OptionInfo;

static const OptionInfo options[OPT__COUNT] = {
#define OPT(id, spelling, kind, field, arg, min, max, dflt, cmds, help) \
    [OPT_##id] = {spelling, OPTK_##kind, offsetof(DriverOptions, field), arg, min, max, dflt, cmds, help},
#include "driver/options.def"
};

static const struct { OptionId id; const char *spelling; } aliases[] = {
#define ALIAS(id, spelling) {OPT_##id, spelling},
#include "driver/options.def"
};

static const char *const choices[OPT__COUNT] = {
/* "text|json|svg|dot" (the leading '|' skipped) */
#define CHOICES(id, words) [OPT_##id] = ("" words) + 1,
#define CHOICE(constant, word) "|" word
#include "driver/options.def"
#undef CHOICE
};

static const struct { unsigned cmds; OptionId id; const char *text; } notes[] = {
#define NOTE(cmds, id, text) {cmds, OPT_##id, text},
#include "driver/options.def"
};

/* The rows of docs/cli.md's option tables that say more than the help
 * (options.def's DOC rows); the ids a row documents end at OPT__COUNT. */
typedef struct DocRow {
    unsigned cmds;
    const char *synopsis, *text;
    OptionId ids[12];
} DocRow;
static const DocRow doc_rows[] = {
#define DOC(cmds, synopsis, text, ...) {cmds, synopsis, text, {__VA_ARGS__, OPT__COUNT}},
#include "driver/options.def"
#undef DOC
    {0, NULL, NULL, {OPT__COUNT}}, /* on no page: the table is never empty */
};

const DtypeInfo driver_dtypes[DT__COUNT] = {
#define DTYPE(id, name, spellings, coll) [DT_##id] = {name, spellings, coll},
#include "driver/options.def"
};
const DtypeInfo driver_ops[OP__COUNT] = {
#define OPNAME(id, name, spellings, coll) [OP_##id] = {name, spellings, coll},
#include "driver/options.def"
};
/* Every element type and operator of the runtime has a row. */
enum {
    DT_WITH_COLL = 0
#define DTYPE(id, name, spellings, coll) + ((coll) >= 0)
#include "driver/options.def"
    ,
    OP_WITH_COLL = 0
#define OPNAME(id, name, spellings, coll) + ((coll) >= 0)
#include "driver/options.def"
};
_Static_assert((int)DT_WITH_COLL == (int)COLL_DTYPE_COUNT, "options.def: a coll_dtype without a DTYPE row");
_Static_assert((int)OP_WITH_COLL == (int)COLL_OP_COUNT, "options.def: a coll_op without an OPNAME row");

/* --diagnostics-format's choices are DiagFormat's values. */
_Static_assert(DIAG_FORMAT_TEXT == (int)DIAG_FMT_TEXT && DIAG_FORMAT_JSON == (int)DIAG_FMT_JSON &&
                   DIAG_FORMAT_SARIF == (int)DIAG_FMT_SARIF,
               "CHOICES(DIAG_FORMAT) follows DiagFormat");

/* The commands and the pages of targets: name, arguments, summary,
 * description. */
typedef struct CommandInfo {
    const char *shown, *args, *summary, *description, *exit1;
} CommandInfo;

static const CommandInfo commands[CMD__COUNT] = {
#define X(name, fn, args, summary, description, exit1) \
    [CMD_##name] = {#name, args, summary, description, exit1},
#define XS(name, shown, fn, args, summary, description, exit1) \
    [CMD_##name] = {shown, args, summary, description, exit1},
#include "driver/commands.def"
#undef X
#define TARGET_PAGE(name, args, description, exit1) \
    [CMD_compile_##name] = {"compile --target=" #name, args, NULL, description, exit1},
#include "driver/targets.def"
};

/* The input formats' names, "coll|...", for --input-format. */
static const char format_names[] = ""
#define INPUT_FORMAT(id, name, read, sniff, group, help) "|" name
#include "driver/formats.def"
    ;

/* The ARGUMENT rows: the arguments of commands that take more than files. */
static const struct { CommandId cmd; const char *argument, *help; } arguments[] = {
#define X(name, fn, args, summary, description, exit1)
#define ARGUMENT(name, argument, help) {CMD_##name, argument, help},
#include "driver/commands.def"
#undef X
};

/* The TOO_LARGE rows: the commands that exit 3 at a resource limit. */
static const unsigned char exits_too_large[CMD__COUNT] = {
#define X(name, fn, args, summary, description, exit1)
#define TOO_LARGE(name) [CMD_##name] = 1,
#include "driver/commands.def"
#undef X
};

static int accepts(OptionId id, CommandId cmd) { return (options[id].cmds >> cmd) & 1; }

static void *field_of(DriverOptions *o, OptionId id) { return (char *)o + options[id].offset; }

/* ---- values ---- */

const char *options_prose(const char *words, const char *last_sep, char *buf, size_t size) {
    size_t n = 0, len = strlen(words);
    buf[0] = 0;
    for (size_t i = 0; i <= len && n + 1 < size;) {
        size_t j = i;
        while (j < len && words[j] != '|') j++;
        int last = j >= len;
        const char *sep = i == 0 ? "" : last ? last_sep : ", ";
        int w = snprintf(buf + n, size - n, "%s%.*s", sep, (int)(j - i), words + i);
        if (w < 0 || (size_t)w >= size - n) break;
        n += (size_t)w;
        i = j + 1;
    }
    return buf;
}

static const char *prose_list(const char *words, char *buf, size_t size) {
    return options_prose(words, " or ", buf, size);
}

/* The index of `word` in a '|'-separated list (case-insensitive), or -1. */
static int word_index(const char *words, const char *word) {
    size_t wl = strlen(word);
    int k = 0;
    for (const char *p = words;; k++) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (n == wl && strncasecmp(p, word, n) == 0) return k;
        if (!bar) return -1;
        p = bar + 1;
    }
}

/* "an integer from 1 to 1024", "a positive integer". */
static const char *int_words(int64_t min, int64_t max, char *buf, size_t size) {
    if (max == INT64_MAX && min == 0) return "a non-negative integer";
    if (max == INT64_MAX && min == 1) return "a positive integer";
    if (max == INT64_MAX) snprintf(buf, size, "an integer of at least %lld", (long long)min);
    else snprintf(buf, size, "an integer from %lld to %lld", (long long)min, (long long)max);
    return buf;
}

static int bad_value(const DriverOptions *o, const char *shown, const char *expected, const char *v) {
    return usage_error(o->name, "%s expects %s, got '%s'", shown, expected, v);
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

enum { DEFINE_MAX_VALUES = 4096 };

/* -D [ALG.]NAME=VALUES -> *d (names and values kept for the life of the
 * process, like keep_name's). VALUES: items "v" or "lo..hi" separated by
 * commas; several values (a sweep) only for SWEEP_COMMANDS. Returns 0, or
 * EXIT_USAGE after the usage error. */
static int parse_define(const DriverOptions *o, const char *def, DefineSpec *d) {
    const char *cmd = o->name;
    const char *eq = strchr(def, '=');
    if (!eq || eq == def) return usage_error(cmd, "-D expects NAME=VALUE, got '%s'", def);
    size_t nlen = (size_t)(eq - def);
    const char *dot = memchr(def, '.', nlen);
    memset(d, 0, sizeof *d);
    if (dot) {
        if (!is_ident(def, (size_t)(dot - def)) || !is_ident(dot + 1, (size_t)(eq - dot - 1)))
            return usage_error(cmd, "-D expects NAME=VALUE or ALGORITHM.NAME=VALUE, got '%s'", def);
        d->alg = keep_name(def, (size_t)(dot - def));
        d->name = keep_name(dot + 1, (size_t)(eq - dot - 1));
    } else {
        d->name = keep_name(def, nlen);
    }
    const char *text = eq + 1;
    int64_t *v = NULL;
    size_t n = 0, cap = 0;
    const char *p = text;
    int bad = !*p;
    while (!bad && *p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char item[64];
        if (len == 0 || len >= sizeof item) {
            bad = 1;
            break;
        }
        memcpy(item, p, len);
        item[len] = 0;
        int64_t lo, hi;
        char *dots = strstr(item, "..");
        if (dots) {
            *dots = 0;
            if (parse_int64(item, &lo) || parse_int64(dots + 2, &hi) || lo > hi) {
                bad = 1;
                break;
            }
        } else {
            if (parse_int64(item, &lo)) {
                bad = 1;
                break;
            }
            hi = lo;
        }
        if ((uint64_t)hi - (uint64_t)lo >= DEFINE_MAX_VALUES) {
            free(v);
            return usage_error(cmd, "-D %.*s: more than %d values", (int)nlen, def, DEFINE_MAX_VALUES);
        }
        for (int64_t x = lo;; x++) {
            int dup = 0;
            for (size_t k = 0; k < n && !dup; k++) dup = v[k] == x;
            if (!dup) {
                if (n == DEFINE_MAX_VALUES) {
                    free(v);
                    return usage_error(cmd, "-D %.*s: more than %d values", (int)nlen, def, DEFINE_MAX_VALUES);
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
        if (end && !*p) bad = 1; /* a trailing comma */
    }
    if (bad) {
        free(v);
        if (!strchr(text, ',') && !strstr(text, ".."))
            return usage_error(cmd, "-D %.*s: '%s' is not an integer", (int)nlen, def, text);
        return usage_error(cmd, "-D %.*s: '%s' is not a list of integers (like 1..16 or 1,2,4)", (int)nlen,
                           def, text);
    }
    if (n > 1 && !((SWEEP_COMMANDS >> o->cmd) & 1)) {
        free(v);
        /* "verify, cost and compare": the commands of the set */
        char names[128] = "", list[160];
        for (int k = 0; k < CMD__COUNT; k++) {
            if (!((SWEEP_COMMANDS >> k) & 1)) continue;
            size_t len = strlen(names);
            snprintf(names + len, sizeof names - len, "%s%s", len ? "|" : "", commands[k].shown);
        }
        return usage_error(cmd, "-D %.*s=%s: a sweep (several values) is accepted by %s only", (int)nlen, def, text,
                           options_prose(names, " and ", list, sizeof list));
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

static int add_define(DriverOptions *o, const char *def) {
    CommonOptions *c = &o->common;
    DefineSpec d;
    if (parse_define(o, def, &d)) return EXIT_USAGE;
    /* A later -D of the same [ALG.]NAME wins, as with cc. */
    for (int k = 0; k < c->ndefines; k++) {
        const DefineSpec *e = &c->defines[k];
        if (strcmp(e->name, d.name) == 0 && (e->alg == d.alg || (e->alg && d.alg && strcmp(e->alg, d.alg) == 0))) {
            c->defines[k] = c->defines[--c->ndefines];
            break;
        }
    }
    if (c->ndefines >= (int)ARRAY_LEN(c->defines))
        return usage_error(o->name, "too many -D options (at most %d)", (int)ARRAY_LEN(c->defines));
    c->defines[c->ndefines++] = d;
    return 0;
}

/* Stores value `v` of option id (shown as `shown` in messages). Returns 0,
 * or EXIT_USAGE after the usage error. */
static int set_value(DriverOptions *o, OptionId id, const char *shown, const char *v) {
    const OptionInfo *opt = &options[id];
    void *f = field_of(o, id);
    char buf[256];
    switch (opt->kind) {
    case OPTK_FLAG:
        *(int *)f = (int)opt->min;
        return 0;
    case OPTK_INT: {
        int64_t x;
        if (parse_int64(v, &x) || x < opt->min || x > opt->max)
            return bad_value(o, shown, int_words(opt->min, opt->max, buf, sizeof buf), v);
        *(int64_t *)f = x;
        return 0;
    }
    case OPTK_LIST: {
        RankList *l = f, nl;
        if (parse_rank_list(v, &nl.v, &nl.n) || nl.n == 0)
            return bad_value(o, shown, "rank counts like 8, 2..16 or 4,8,16", v);
        for (size_t k = 0; k < nl.n; k++) {
            if (nl.v[k] < opt->min || nl.v[k] > opt->max) {
                int64_t bad = nl.v[k];
                free(nl.v);
                return usage_error(o->name, "N = %lld out of range %lld..%lld", (long long)bad,
                                   (long long)opt->min, (long long)opt->max);
            }
        }
        free(l->v);
        *l = nl;
        return 0;
    }
    case OPTK_SIZE:
        if (parse_size(v, f)) return bad_value(o, shown, "a size like 64MiB or 4KB", v);
        if (*(double *)f <= 0) return bad_value(o, shown, "a size above 0", v);
        return 0;
    case OPTK_TIME:
        if (parse_time(v, f)) return bad_value(o, shown, "a time like 2us", v);
        return 0;
    case OPTK_BANDWIDTH:
        if (parse_bandwidth(v, f) || *(double *)f <= 0)
            return bad_value(o, shown, "a bandwidth like 64GB/s", v);
        return 0;
    case OPTK_SIZES: {
        SizeRange *r = f;
        const char *dots = strstr(v, "..");
        char lo[64];
        int ok = dots && (size_t)(dots - v) < sizeof lo;
        if (ok) {
            memcpy(lo, v, (size_t)(dots - v));
            lo[dots - v] = 0;
            ok = !parse_size(lo, &r->lo) && !parse_size(dots + 2, &r->hi) && r->lo < r->hi;
        }
        if (!ok) return bad_value(o, shown, "LO..HI sizes like 1KiB..1GiB", v);
        return 0;
    }
    case OPTK_STRING:
        if (!*v) return usage_error(o->name, "missing value after '%s'", shown);
        *(const char **)f = v;
        return 0;
    case OPTK_OPTFILE:
        /* alone it takes no argument: the next one may be an input file */
        if (v && !*v) return usage_error(o->name, "missing file name after '%s='", shown);
        *(const char **)f = v ? v : "";
        return 0;
    case OPTK_ENUM: {
        int k = word_index(choices[id], v);
        if (k < 0) return bad_value(o, shown, prose_list(choices[id], buf, sizeof buf), v);
        *(int *)f = k;
        return 0;
    }
    case OPTK_DTYPE:
    case OPTK_OP: {
        const DtypeInfo *t = opt->kind == OPTK_DTYPE ? driver_dtypes : driver_ops;
        int n = opt->kind == OPTK_DTYPE ? DT__COUNT : OP__COUNT;
        for (int k = 0; k < n; k++) {
            if (word_index(t[k].spellings, v) >= 0) {
                *(int *)f = k;
                return 0;
            }
        }
        char names[160] = "";
        for (int k = 0; k < n; k++) {
            size_t len = strlen(names);
            snprintf(names + len, sizeof names - len, "%s%s", k ? "|" : "", t[k].name);
        }
        return bad_value(o, shown, prose_list(names, buf, sizeof buf), v);
    }
    case OPTK_FORMAT: {
        int k = word_index(format_names + 1, v);
        if (k < 0) {
            Suggest sg;
            suggest_init(&sg, v, SUGGEST_NAME);
            for (int j = 0; j < ninput_formats; j++) suggest_offer(&sg, input_formats[j].name, NULL);
            if (sg.best) return usage_error(o->name, "unknown input format '%s'; did you mean '%s'?", v, sg.best);
            return bad_value(o, shown, prose_list(format_names + 1, buf, sizeof buf), v);
        }
        *(int *)f = k + 1;
        return 0;
    }
    case OPTK_DEFINE:
        return add_define(o, v) ? EXIT_USAGE : 0;
    case OPTK_WERROR:
        if (v && !*v) return usage_error(o->name, "missing diagnostic code after '-Werror='");
        if (o->common.nwerror >= (int)ARRAY_LEN(o->common.werror))
            return usage_error(o->name, "too many -Werror options");
        o->common.werror[o->common.nwerror++] = v;
        return 0;
    case OPTK_WNO:
        if (!*v) return usage_error(o->name, "missing diagnostic code after '-Wno-'");
        if (o->common.nwno >= (int)ARRAY_LEN(o->common.wno))
            return usage_error(o->name, "too many -Wno- options");
        o->common.wno[o->common.nwno++] = v;
        return 0;
    case OPTK_IMPORT_DIR:
        if (!*v) return usage_error(o->name, "missing folder after '-I'");
        if (o->common.nimport_dirs >= (int)ARRAY_LEN(o->common.import_dirs))
            return usage_error(o->name, "too many -I options");
        o->common.import_dirs[o->common.nimport_dirs++] = v;
        return 0;
    }
    COLLC_UNREACHABLE("option kind");
}

/* ---- matching an argument ---- */

static int is_short(const char *spelling) { return spelling[0] == '-' && spelling[1] && !spelling[2]; }

/* Does argument `a` spell option `s`? 2: exactly; 1: with an attached value
 * (*value set); 0: no. */
static int spells(const char *a, const char *s, OptKind kind, const char **value) {
    size_t n = strlen(s);
    if (strncmp(a, s, n) != 0) return 0;
    if (s[n - 1] == '-') { /* -Wno-CODE: the value is always attached */
        *value = a + n;
        return 1;
    }
    if (a[n] == 0) return 2;
    if (a[n] == '=') { /* --name=VALUE, -name=VALUE, -X=VALUE */
        *value = a + n + 1;
        return 1;
    }
    if (is_short(s) && kind != OPTK_FLAG) { /* -XVALUE */
        *value = a + n;
        return 1;
    }
    return 0;
}

/* The option argument `a` names (exact spellings first, then the longest
 * one with an attached value), or -1. `shown` gets the spelling used. */
static int find_option(const char *a, const char **value, const char **shown) {
    int best = -1;
    size_t bestlen = 0;
    for (int pass = 2; pass >= 1 && best < 0; pass--) {
        for (int id = 0; id < OPT__COUNT; id++) {
            const char *v = NULL;
            const char *s = options[id].spelling;
            if (spells(a, s, options[id].kind, &v) == pass && strlen(s) > bestlen) {
                best = id, bestlen = strlen(s), *value = v, *shown = s;
            }
        }
        for (size_t k = 0; k < ARRAY_LEN(aliases); k++) {
            const char *v = NULL;
            const char *s = aliases[k].spelling;
            if (spells(a, s, options[aliases[k].id].kind, &v) == pass && strlen(s) > bestlen) {
                best = (int)aliases[k].id, bestlen = strlen(s), *value = v, *shown = s;
            }
        }
    }
    return best;
}

static int unknown_option(const DriverOptions *o, const char *a) {
    /* A near spelling of an option of this command, as a hint. */
    size_t alen = strcspn(a, "=");
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(alen < sizeof name ? alen : sizeof name - 1), a);
    Suggest sg;
    suggest_init(&sg, name, SUGGEST_OPTION);
    for (int id = 0; id < OPT__COUNT; id++)
        if (accepts((OptionId)id, o->cmd) && strlen(options[id].spelling) >= 3)
            suggest_offer(&sg, options[id].spelling, NULL);
    const char *best = sg.best;
    /* a target's page: "for --target=NAME" */
    char where[96] = "";
    if (o->cmd > CMD__BEFORE_PAGES) snprintf(where, sizeof where, " for %s", strchr(commands[o->cmd].shown, ' ') + 1);
    if (best) return usage_error(o->name, "unknown option '%s'%s; did you mean '%s'?", a, where, best);
    return usage_error(o->name, "unknown option '%s'%s", a, where);
}

/* ---- the parser ---- */

Status options_parse(DriverOptions *o, CommandId cmd, int argc, char **argv) {
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    o->name = argv[0];
    o->common.color = -1;
    o->files = xcalloc((size_t)argc + 1, sizeof *o->files);
    for (int id = 0; id < OPT__COUNT; id++) {
        const OptionInfo *opt = &options[id];
        if (!opt->dflt || !accepts((OptionId)id, cmd)) continue;
        if (opt->kind == OPTK_STRING) *(const char **)field_of(o, (OptionId)id) = opt->dflt;
        else if (set_value(o, (OptionId)id, opt->spelling, opt->dflt))
            COLLC_UNREACHABLE("options.def: a default its option does not accept");
    }

    int only_files = 0;
    Status status = EXIT_GO_ON;
    for (int i = 1; i < argc && status < 0; i++) {
        const char *a = argv[i];
        if (only_files || a[0] != '-' || a[1] == 0) {
            o->files[o->nfiles++] = argv[i];
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_files = 1;
            continue;
        }
        const char *v = NULL, *shown = a;
        int id = find_option(a, &v, &shown);
        if (id < 0) {
            status = unknown_option(o, a);
            break;
        }
        const OptionInfo *opt = &options[id];
        if (!accepts((OptionId)id, cmd)) {
            status = usage_error(o->name, "'%s' is not an option of collc %s", shown, commands[cmd].shown);
            break;
        }
        if (opt->kind == OPTK_FLAG && v) {
            status = usage_error(o->name, "%s takes no value", shown);
            break;
        }
        if (!v && opt->kind != OPTK_FLAG && opt->kind != OPTK_WERROR && opt->kind != OPTK_OPTFILE) {
            if (i + 1 >= argc) {
                status = usage_error(o->name, "missing value after '%s'", a);
                break;
            }
            v = argv[++i];
        }
        if (set_value(o, (OptionId)id, shown, v)) {
            status = EXIT_USAGE;
            break;
        }
        o->given[id] = 1;
        if (o->help) {
            options_help(stdout, cmd);
            status = EXIT_OK;
        }
    }
    if (status < 0 && o->nfiles == 0) status = usage_error(o->name, "no input files");
    if (status >= 0) {
        options_free(o);
        return status;
    }
    o->common.diag_format = (DiagFormat)o->diag_format;
    o->common.error_limit = o->error_limit > UINT_MAX ? UINT_MAX : (unsigned)o->error_limit;
    o->common.max_transfers = (size_t)o->max_transfers;
    o->common.max_memory = o->max_memory >= (double)SIZE_MAX ? SIZE_MAX : (size_t)o->max_memory;
    return EXIT_GO_ON;
}

void options_free(DriverOptions *o) {
    free(o->files);
    free(o->ns.v);
    o->files = NULL;
    o->ns.v = NULL;
}

Status options_single_n(const DriverOptions *o, int64_t dflt, const char *what, int64_t *N) {
    if (!o->ns.n) {
        if (dflt < 0) return usage_error(o->name, "missing -N (the number of %s)", what);
        *N = dflt;
        return EXIT_GO_ON;
    }
    if (o->ns.n != 1) return usage_error(o->name, "%s takes a single -N value", o->name);
    *N = o->ns.v[0];
    return EXIT_GO_ON;
}

/* The last argument that spells option id (*value: its value, NULL for a
 * flag), matched as options_parse matches it; 0 when it is not given.
 * *nfiles: the arguments that are not options. */
static int find_given(int argc, char **argv, OptionId id, const char **value, int *nfiles) {
    int given = 0;
    *nfiles = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL, *shown = NULL;
        if (strcmp(a, "--") == 0) {
            *nfiles += argc - i - 1;
            break;
        }
        if (a[0] != '-' || a[1] == 0) {
            ++*nfiles;
            continue;
        }
        int k = find_option(a, &v, &shown);
        if (k < 0) continue;
        OptKind kind = options[k].kind;
        /* a value in the next argument belongs to this option */
        if (!v && kind != OPTK_FLAG && kind != OPTK_WERROR && kind != OPTK_OPTFILE && i + 1 < argc)
            v = argv[++i];
        if (k == (int)id) given = 1, *value = v;
    }
    return given;
}

int options_without(int argc, char **argv, OptionId id, char **kept) {
    int n = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL, *shown = NULL;
        if (strcmp(a, "--") == 0) {
            while (i < argc) kept[n++] = argv[i++];
            break;
        }
        int k = a[0] == '-' && a[1] ? find_option(a, &v, &shown) : -1;
        int takes = 1;
        /* a value in the next argument belongs to this option */
        if (k >= 0 && !v && options[k].kind != OPTK_FLAG && options[k].kind != OPTK_WERROR &&
            options[k].kind != OPTK_OPTFILE && i + 1 < argc)
            takes = 2;
        if (k != (int)id)
            for (int j = 0; j < takes; j++) kept[n++] = argv[i + j];
        i += takes - 1;
    }
    return n;
}

const char *options_value(int argc, char **argv, OptionId id) {
    const char *v = NULL;
    int nfiles;
    return find_given(argc, argv, id, &v, &nfiles) ? v : NULL;
}

int options_given(int argc, char **argv, OptionId id) {
    const char *v = NULL;
    int nfiles;
    return find_given(argc, argv, id, &v, &nfiles);
}

int options_count_files(int argc, char **argv) {
    const char *v = NULL;
    int nfiles;
    find_given(argc, argv, OPT_HELP, &v, &nfiles);
    return nfiles;
}

const char *options_choice(OptionId id, int value, char *buf, size_t size) {
    const char *p = choices[id];
    if (!p) COLLC_UNREACHABLE("options_choice of an option without CHOICES");
    for (int k = 0; k < value && p; k++) {
        p = strchr(p, '|');
        if (p) p++;
    }
    if (!p || value < 0) COLLC_UNREACHABLE("a value beyond the CHOICES of its option");
    snprintf(buf, size, "%.*s", (int)strcspn(p, "|"), p);
    return buf;
}

/* ---- help ---- */

enum { HELP_COLUMN = 32, HELP_WIDTH = 79 };

/* Writes `text` from column `col` (the cursor is at column `at`), wrapped
 * at HELP_WIDTH, continuation lines indented to `col`. */
static void wrap(FILE *out, int at, int col, const char *text) {
    if (at > 0 && at > col - 2) {
        fputc('\n', out);
        at = 0;
    }
    fprintf(out, "%*s", col - at, "");
    int x = col;
    const char *p = text;
    while (*p) {
        size_t w = strcspn(p, " ");
        /* UTF-8 continuation bytes take no column (α, β, γ, ·) */
        int cols = 0;
        for (size_t k = 0; k < w; k++) cols += ((unsigned char)p[k] & 0xC0) != 0x80;
        if (x > col && x + 1 + cols > HELP_WIDTH) {
            fprintf(out, "\n%*s", col, "");
            x = col;
        } else if (x > col) {
            fputc(' ', out);
            x++;
        }
        fwrite(p, 1, w, out);
        x += cols;
        p += w;
        while (*p == ' ') p++;
    }
    fputc('\n', out);
}

/* "-N LIST", "--root=R", "-h, --help", "-Werror[=CODE]", "-Wno-CODE". */
static void option_synopsis(OptionId id, char *buf, size_t size) {
    const OptionInfo *opt = &options[id];
    size_t n = 0;
    for (size_t k = 0; k < ARRAY_LEN(aliases); k++)
        if (aliases[k].id == id && is_short(aliases[k].spelling))
            n += (size_t)snprintf(buf + n, size - n, "%s, ", aliases[k].spelling);
    const char *s = opt->spelling;
    if (opt->kind == OPTK_FLAG) n += (size_t)snprintf(buf + n, size - n, "%s", s);
    else if (opt->kind == OPTK_WERROR || opt->kind == OPTK_OPTFILE)
        n += (size_t)snprintf(buf + n, size - n, "%s[=%s]", s, opt->arg);
    else if (s[strlen(s) - 1] == '-') n += (size_t)snprintf(buf + n, size - n, "%s%s", s, opt->arg);
    else if (is_short(s)) n += (size_t)snprintf(buf + n, size - n, "%s %s", s, opt->arg);
    else n += (size_t)snprintf(buf + n, size - n, "%s=%s", s, opt->arg);
    for (size_t k = 0; k < ARRAY_LEN(aliases) && n < size; k++)
        if (aliases[k].id == id && !is_short(aliases[k].spelling))
            n += (size_t)snprintf(buf + n, size - n, ", %s", aliases[k].spelling);
}

/* The text of option id's help line for cmd: its help, the notes for cmd,
 * its choices, the targets' notes and its default. */
static void option_text(OptionId id, CommandId cmd, char *text, size_t size) {
    const OptionInfo *opt = &options[id];
    char list[160];
    size_t n = (size_t)snprintf(text, size, "%s", opt->help);
    int noted = 0;
    for (size_t k = 0; k < ARRAY_LEN(notes) && n < size; k++) {
        if (notes[k].id != id || !((notes[k].cmds >> cmd) & 1)) continue;
        n += (size_t)snprintf(text + n, size - n, "; %s", notes[k].text);
        noted = 1;
    }
    if (opt->kind == OPTK_ENUM && !noted && n < size)
        n += (size_t)snprintf(text + n, size - n, "; %s: %s", opt->arg, prose_list(choices[id], list, sizeof list));
    if (opt->kind == OPTK_FORMAT)
        for (int k = 0; k < ninput_formats && n < size; k++)
            n += (size_t)snprintf(text + n, size - n, "%s%s (%s)", k ? ", " : "; FMT: ", input_formats[k].name,
                                  input_formats[k].help);
    /* what the targets say: their names, their --emit kinds, their types */
    if (n < size) n += target_option_note(id, cmd, text + n, size - n);
    if (opt->dflt && *opt->dflt && n < size) snprintf(text + n, size - n, "; default %s", opt->dflt);
}

/* One option's line(s) in the help of cmd. */
static void option_help(FILE *out, OptionId id, CommandId cmd) {
    char syn[96], text[1024];
    option_synopsis(id, syn, sizeof syn);
    option_text(id, cmd, text, sizeof text);
    fprintf(out, "  %s", syn);
    wrap(out, 2 + (int)strlen(syn), HELP_COLUMN, text);
}

static int is_common(OptionId id) { return options[id].cmds == ALL_COMMANDS; }

void options_help(FILE *out, CommandId cmd) {
    const CommandInfo *c = &commands[cmd];
    fprintf(out, "usage: collc %s [OPTIONS] %s\n\n", c->shown, c->args);
    wrap(out, 0, 0, c->description);
    fputs("\narguments:\n", out);
    int listed = 0;
    for (size_t k = 0; k < ARRAY_LEN(arguments); k++) {
        if (arguments[k].cmd != cmd) continue;
        fprintf(out, "  %s", arguments[k].argument);
        wrap(out, 2 + (int)strlen(arguments[k].argument), HELP_COLUMN, arguments[k].help);
        listed = 1;
    }
    if (!listed) {
        fputs("  FILE...", out);
        wrap(out, 9, HELP_COLUMN, ".coll files to read; '-' reads standard input");
    }
    int own = 0;
    for (int id = 0; id < OPT__COUNT; id++) {
        if (!accepts((OptionId)id, cmd) || is_common((OptionId)id)) continue;
        if (!own++) fputs("\noptions:\n", out);
        option_help(out, (OptionId)id, cmd);
    }
    fputs(own ? "\ncommon options:\n" : "\noptions:\n", out);
    for (int id = 0; id < OPT__COUNT; id++)
        if (is_common((OptionId)id)) option_help(out, (OptionId)id, cmd);
    fprintf(out,
            "\nexit status:\n"
            "  0  success (warnings allowed unless -Werror)\n"
            "  1  %s\n"
            "  2  usage error: an unknown option, a bad or missing value, no input files\n",
            c->exit1);
    if (exits_too_large[cmd > CMD__BEFORE_PAGES ? CMD_compile : cmd])
        fputs("  3  too large: a resource limit stopped the check (too-large) and nothing else\n"
              "     failed; not known to be wrong, not proven either\n",
              out);
}

void options_usage(FILE *out) {
    fputs("usage: collc COMMAND [OPTIONS] [FILE...]\n"
          "\n"
          "collc compiles collective-communication algorithms written in .coll files:\n"
          "it checks them, expands them into schedules, verifies, prices and\n"
          "compiles them.\n"
          "\n"
          "commands:\n",
          out);
    for (int k = 0; k < CMD__LISTED; k++) {
        char line[96];
        int n = snprintf(line, sizeof line, "  %s %s", commands[k].shown, commands[k].args);
        fputs(line, out);
        wrap(out, n, HELP_COLUMN, commands[k].summary);
    }
    fputs("  help COMMAND", out);
    wrap(out, 14, HELP_COLUMN, "show the options of a command");
    fputs("\ncommon options (every command):\n", out);
    for (int id = 0; id < OPT__COUNT; id++)
        if (is_common((OptionId)id) && id != OPT_HELP) option_help(out, (OptionId)id, CMD_check);
    fputs("\n"
          "other options:\n"
          "  -h, --help                    this help\n"
          "  --version                     print the collc and LLVM versions\n"
          "\n"
          "Exit status: 0 success, 1 errors in the input, 2 usage error.\n"
          "FILE '-' reads standard input. See docs/cli.md.\n",
          out);
}

/* ---- docs/cli.md ---- */

/* Writes text as a markdown table cell: '|' escaped. */
static void doc_cell(FILE *out, const char *text) {
    for (const char *p = text; *p; p++) {
        if (*p == '|') fputc('\\', out);
        fputc(*p, out);
    }
}

/* Does the DOC row k document option id on page cmd (common: the table of
 * the common options)? */
static int doc_row_documents(size_t k, OptionId id, CommandId cmd, int common) {
    const DocRow *r = &doc_rows[k];
    if (common ? r->cmds != ALL_COMMANDS : r->cmds == ALL_COMMANDS || !((r->cmds >> cmd) & 1)) return 0;
    for (int j = 0; r->ids[j] != OPT__COUNT; j++)
        if (r->ids[j] == id) return j == 0 ? 1 : 2; /* 2: documented in another option's row */
    return 0;
}

/* The option table of one page of docs/cli.md, in options.def's order: an
 * option's DOC rows where it has any, else its help line. A common option
 * is on a command's own page only by a DOC row of that page (what -D means
 * to tune). */
static void doc_table(FILE *out, CommandId cmd, int common) {
    fputs("| option | meaning |\n|---|---|\n", out);
    for (int id = 0; id < OPT__COUNT; id++) {
        if (!accepts((OptionId)id, cmd) || (common && !is_common((OptionId)id))) continue;
        int documented = 0;
        for (size_t k = 0; k < ARRAY_LEN(doc_rows); k++) {
            int how = doc_row_documents(k, (OptionId)id, cmd, common);
            documented |= how;
            if (how != 1) continue;
            fputs("| ", out);
            fputs(doc_rows[k].synopsis, out);
            fputs(" | ", out);
            fputs(doc_rows[k].text, out);
            fputs(" |\n", out);
        }
        if (documented || is_common((OptionId)id) != common) continue;
        char syn[96], text[1024];
        option_synopsis((OptionId)id, syn, sizeof syn);
        option_text((OptionId)id, cmd, text, sizeof text);
        fputs("| `", out);
        fputs(syn, out);
        fputs("` | ", out);
        doc_cell(out, text);
        fputs(" |\n", out);
    }
}

int options_doc_table(FILE *out, const char *page) {
    if (strcmp(page, "common") == 0) {
        doc_table(out, CMD_check, 1);
        return 0;
    }
    for (int c = 0; c < CMD__COUNT; c++)
        if (strcmp(commands[c].shown, page) == 0) {
            doc_table(out, (CommandId)c, 0);
            return 0;
        }
    return -1;
}
