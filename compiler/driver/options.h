/* options.h - the command line of every collc command: one table of options
 * (driver/options.def) read by one parser, and the help pages generated
 * from that table (docs/cli.md).
 *
 * A command calls options_parse(); the values land in the fields of
 * DriverOptions that the table names, already checked against the option's
 * kind (an integer in range, a rank list, a size, an element type, ...).
 * What the table cannot say (-N must be one value here, --root must be a
 * rank of N) the command checks after parsing and reports with
 * usage_error(). */
#ifndef COLLC_OPTIONS_H
#define COLLC_OPTIONS_H

#include <stdint.h>
#include <stdio.h>
#include "driver/driver.h"

/* The commands in the order of commands.def, then the pages of `compile
 * --target=NAME` for the targets with options of their own (targets.def). */
typedef enum CommandId {
#define X(name, fn, args, summary, description, exit1) CMD_##name,
#include "driver/commands.def"
#undef X
    CMD__LISTED, /* commands before this are listed by `collc --help` */
    CMD__BEFORE_PAGES = CMD__LISTED - 1,
#define TARGET_PAGE(name, args, description, exit1) CMD_compile_##name,
#include "driver/targets.def"
    CMD__COUNT
} CommandId;

/* The bit of command `name` in a set of commands (options.def's commands
 * column): CMD_BIT(run). */
#define CMD_BIT(name) (1u << CMD_##name)

/* Every page of compile: compile's own and the targets' (targets.def). */
enum {
    COMPILE_PAGES_MASK = (int)(CMD_BIT(compile)
#define TARGET_PAGE(name, args, description, exit1) | CMD_BIT(compile_##name)
#include "driver/targets.def"
                                   )
};

/* The option ids, in the order of options.def. */
typedef enum OptionId {
#define OPT(id, spelling, kind, field, arg, min, max, dflt, cmds, help) OPT_##id,
#include "driver/options.def"
    OPT__COUNT
} OptionId;

/* The element types and reduction operators of --dtype and --op: one set
 * of names for every command (driver/options.def, DTYPE and OPNAME rows). */
typedef enum DriverDtype {
#define DTYPE(id, name, spellings, coll) DT_##id,
#include "driver/options.def"
    DT__COUNT
} DriverDtype;

typedef enum DriverOp {
#define OPNAME(id, name, spellings, coll) OP_##id,
#include "driver/options.def"
    OP__COUNT
} DriverOp;

/* What a DTYPE / OPNAME row says: the canonical name, every accepted
 * spelling, and the runtime's value (-1: the runtime has no such type).
 * Which of them a target has, and its own value, is the target's
 * (driver/target.h). */
typedef struct DtypeInfo { const char *name, *spellings; int coll; } DtypeInfo;
extern const DtypeInfo driver_dtypes[DT__COUNT];
extern const DtypeInfo driver_ops[OP__COUNT];

typedef struct RankList { int64_t *v; size_t n; } RankList; /* sorted, unique */
typedef struct SizeRange { double lo, hi; } SizeRange;       /* lo < hi */

/* The C type of the field that each kind of option (the `kind` column of
 * options.def) fills. */
#define OPTK_TYPE_FLAG int             /* set to the row's min */
#define OPTK_TYPE_INT int64_t
#define OPTK_TYPE_LIST RankList
#define OPTK_TYPE_SIZE double          /* bytes */
#define OPTK_TYPE_TIME double          /* seconds */
#define OPTK_TYPE_BANDWIDTH double     /* bytes per second */
#define OPTK_TYPE_SIZES SizeRange
#define OPTK_TYPE_STRING const char *
#define OPTK_TYPE_OPTFILE const char * /* "": given without =FILE */
#define OPTK_TYPE_ENUM int             /* the index of the word in CHOICES */
#define OPTK_TYPE_DTYPE int            /* a DriverDtype */
#define OPTK_TYPE_OP int               /* a DriverOp */
#define OPTK_TYPE_FORMAT int           /* 1 + a row of formats.def; 0: not given */
#define OPTK_TYPE_DEFINE CommonOptions
#define OPTK_TYPE_WERROR CommonOptions
#define OPTK_TYPE_WNO CommonOptions
#define OPTK_TYPE_IMPORT_DIR CommonOptions

/* The command line, parsed: one field per OPT row of options.def (named by
 * its `field` column, typed by its kind), set to the row's default when
 * the option is not given. */
typedef struct DriverOptions {
    CommandId cmd;
    const char *name;          /* "verify", "compile": for messages */
    unsigned char given[OPT__COUNT]; /* the option was on the command line */
    char **files;              /* the arguments that are not options (malloc) */
    int nfiles;
    CommonOptions common;      /* -D, --algorithm, diagnostics (session_open) */
#define OPT(id, spelling, kind, field, arg, min, max, dflt, cmds, help) OPTK_TYPE_##kind field;
#define OPT_INTO(id, spelling, kind, field, arg, min, max, dflt, cmds, help)
#include "driver/options.def"
} DriverOptions;

/* The values of the ENUM options (--format, --routing, --route, ...): one
 * enum per CHOICES row of options.def, FORMAT_TEXT = 0, FORMAT_JSON, ... */
#define CHOICES(id, words) enum { words };
#define CHOICE(constant, word) constant,
#include "driver/options.def"
#undef CHOICE

/* Parses argv (argv[0] is the command name) for command `cmd`. Returns
 * EXIT_GO_ON when the command goes on (then options_free), EXIT_OK after
 * printing the help (--help), EXIT_USAGE after printing a usage error;
 * nothing is left to free in the last two cases. */
Status options_parse(DriverOptions *o, CommandId cmd, int argc, char **argv);
void options_free(DriverOptions *o);

/* The one N of a command that takes a single -N value: -N's value, or
 * `dflt` without -N (dflt < 0: -N is required; `what` names N: "ranks",
 * "chips"). Returns EXIT_GO_ON, or EXIT_USAGE after the usage error. */
Status options_single_n(const DriverOptions *o, int64_t dflt, const char *what, int64_t *N);

/* The value of option `id` on a command line not parsed yet (the last one
 * given, matched as options_parse matches it; NULL: not given). A command
 * that hands some command lines to another page looks at it first
 * (compile's --target). */
const char *options_value(int argc, char **argv, OptionId id);
/* The arguments argv[1..argc) of that command line without option `id`
 * and its value, matched as options_parse matches them, into kept (room
 * for argc entries). Returns how many. */
int options_without(int argc, char **argv, OptionId id, char **kept);
/* Is option `id` on that command line (a flag such as --help included)? */
int options_given(int argc, char **argv, OptionId id);
/* How many arguments of that command line are not options (files, or
 * synth's COLLECTIVE). */
int options_count_files(int argc, char **argv);

/* The word of an ENUM option's value: "json" for OPT_FORMAT, FORMAT_JSON. */
const char *options_choice(OptionId id, int value, char *buf, size_t size);

/* The help page of a command (what `collc help NAME` and NAME --help print),
 * and the command list and common options of `collc --help`. */
void options_help(FILE *out, CommandId cmd);
void options_usage(FILE *out);

/* The option table of page (a command, "compile --target=NAME", or
 * "common") as docs/cli.md shows it, in markdown (`collc help --markdown
 * PAGE`; scripts/gen-cli-doc.py writes it into docs/cli.md); -1: no such
 * page. */
int options_doc_table(FILE *out, const char *page);

/* "a, b or c" ("and" for last_sep " and "): the words of a '|'-separated
 * list in prose, into buf. */
const char *options_prose(const char *words, const char *last_sep, char *buf, size_t size);

#endif
