/* driver.h - what every collc subcommand shares: value parsers, usage
 * errors and a Session (arena + sources + diagnostics + parsed/checked
 * program). The command line is parsed by options.h.
 *
 * Every step of a command (parsing its options, opening its files, each
 * piece of its work) returns a Status: EXIT_GO_ON when the command goes
 * on, else the exit status it stops with (0 ok, 1 errors in the input,
 * 2 usage). */
#ifndef COLLC_DRIVER_H
#define COLLC_DRIVER_H

#include <stdint.h>
#include <stdio.h>
#include "front/front.h"
#include "schedule/schedule.h"

typedef enum Status {
    EXIT_GO_ON = -1, /* no exit yet: the command goes on */
    EXIT_OK = 0,     /* done: success (warnings allowed unless -Werror) */
    EXIT_INPUT = 1,  /* errors in the input, reported through the diagnostics */
    EXIT_USAGE = 2,  /* a usage error, printed by usage_error() */
    EXIT_TOO_LARGE = 3, /* a resource limit stopped the work ("too-large",
                           "schedule-too-large", "verify-too-large"), and
                           nothing else failed: not known to be wrong, not
                           proven either (docs/cli.md) */
} Status;

/* The model commands' N when -N is not given (compare, draw, synth, and
 * cost's one report): a number, so that the help can show it. */
#define DRIVER_MODEL_N 8

/* cmd_check, ... (commands.def) */
#define X(name, fn, args, summary, description, exit1) int fn(int argc, char **argv);
#include "driver/commands.def"
#undef X

/* -D [ALG.]NAME=VALUES: an override of `param NAME` for every algorithm
 * that declares NAME, or for algorithm ALG only; VALUES is one integer or a
 * sweep ("1..16", "1,2,4", "1..4,8"), which verify, cost and compare run
 * once per value. */
typedef struct DefineSpec {
    const char *alg;              /* NULL: every algorithm that declares name */
    const char *name;
    const int64_t *values;        /* distinct, in the order given */
    size_t nvalues;
} DefineSpec;

/* What every command that reads .coll files passes to session_open (the
 * common options of options.def). */
typedef struct CommonOptions {
    DiagFormat diag_format;       /* --diagnostics-format=text|json|sarif */
    int color;                    /* -fcolor-diagnostics / -fno-...; -1 = auto */
    unsigned error_limit;         /* -ferror-limit=N */
    const char *werror[32];       /* -Werror (NULL entry = all) / -Werror=code */
    int nwerror;
    const char *wno[32];          /* -Wno-code */
    int nwno;
    DefineSpec defines[64];       /* -D [ALG.]NAME=VALUES (a later one of the same
                                     ALG.NAME replaces an earlier one) */
    int ndefines;
    int defines_unused;           /* the command uses no params (check): a -D
                                     that reaches none is not an error */
    const char *import_dirs[32];  /* -I DIR, in order */
    int nimport_dirs;
    const char *algorithm;        /* --algorithm NAME */
    int input_format;             /* --input-format: 0 = recognised by content, else
                                     1 + the row of driver/formats.def */
    size_t max_transfers;         /* --max-transfers=N; 0 = instantiate's default */
    size_t max_memory;            /* --max-memory=M; 0 = verify's default */
} CommonOptions;

/* Parses an integer with optional K/M/G suffix-free syntax; -1 on error. */
int parse_int64(const char *s, int64_t *out);
/* "-N" value: "8", "2..16" (inclusive), "8,16,1024", or a mix "2..8,16".
 * Fills a malloc'ed sorted unique array. Returns 0, or -1 on a bad list. */
int parse_rank_list(const char *s, int64_t **out, size_t *n);
/* The largest --size of the commands that move real bytes (run, sim, the
 * compile of a target made for one N): one host's memory, with room to
 * spare. */
#define DRIVER_MAX_MOVED_BYTES (64.0 * 1024 * 1024 * 1024)
#define DRIVER_MAX_MOVED_TEXT "64GiB"

/* Sizes: "64MiB", "4KB", "64K", "1024", "8B" (runtime/quantity.h); times:
 * "2us", "1.5ms", "3e-6"; bandwidth: "64GB/s", "32GiB/s". Return 0 ok, -1
 * on error. */
int parse_size(const char *s, double *bytes);
int parse_time(const char *s, double *seconds);
int parse_bandwidth(const char *s, double *bytes_per_s);

typedef struct Session {
    Arena arena;
    SourceManager sm;
    DiagEngine *dx;
    Program prog;
    CommonOptions opts;
    size_t ninputs;               /* source ids 0 .. ninputs-1 are the files given
                                     (imports and call expansions come after) */
} Session;

/* The input formats (driver/formats.def): what reads a file, and what
 * recognises one by its content. */
typedef struct InputFormat {
    const char *name;        /* --input-format=NAME */
    InputReadFn *read;
    InputSniffFn *sniff;
    InputGroupFn *group;
    const char *help;
} InputFormat;
extern const InputFormat input_formats[];
extern const int ninput_formats;

/* Loads `files`, reads each in its format (--input-format, else the one
 * whose sniffer claims its content most surely; .coll for the imports) and
 * checks the program. Returns EXIT_GO_ON when the program is usable, else
 * EXIT_INPUT after reporting (a file that cannot be read included); then
 * session_close. */
Status session_open(Session *s, const CommonOptions *opts, char **files, int nfiles);
/* Reads one file ("-": stdin) into the session's sources: its id, or -1
 * after a cannot-open error. */
int session_load(Session *s, const char *path);
/* Flushes diagnostics (SARIF is written here), frees everything, and returns
 * the exit status to use given `status` and the error count. */
int session_close(Session *s, int status);
/* The folder of the shipped examples (<folder of collc>/COLLC_DATA_RELDIR/
 * dsl-examples, installed and staged in the build tree), or NULL. */
const char *session_examples_dir(Session *s);
/* The algorithms selected by --algorithm (or all), in file order. */
int session_algorithms(Session *s, Algorithm ***out);

/* The -D overrides for `alg` at sweep point `point` (0 .. points - 1):
 * those -D that name one of its params, -D ALG.NAME winning over -D NAME.
 * Sets *out to an array in the session's arena; returns its length. */
int session_defines(Session *s, const Algorithm *alg, size_t point, const Define **out);
/* How many parameter combinations the -D sweeps give `alg` (1 without). */
size_t session_sweep_points(Session *s, const Algorithm *alg);
/* "K = 3, B = 2": the swept params' values at `point`; "" without a sweep. */
const char *session_sweep_label(Session *s, const Algorithm *alg, size_t point);
/* How many of alg's params are swept (given several values); the first
 * one's name and values go to *name, *values, *nvalues. */
int session_swept_param(Session *s, const Algorithm *alg, const char **name,
                        const int64_t **values, size_t *nvalues);

/* Opens output `path` ("-": standard output) with fopen's `mode`; NULL
 * after the "io" error. */
FILE *session_output(Session *s, const char *path, const char *mode);
/* Closes it (standard output stays open): 0, or 1 after the "io" error of a
 * write that failed. */
int session_output_close(Session *s, FILE *f, const char *path);

/* The output file of an input when no -o is given: "dir/ring.coll" ->
 * "ring" + suffix (in the current directory, as cc -c); "-" -> "stdin". */
char *default_output_path(Arena *a, const char *input, const char *suffix);

/* Usage error: "collc <cmd>: message" + hint, returns EXIT_USAGE. */
int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
