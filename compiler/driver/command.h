/* command.h - the one skeleton of every collc command:
 *
 *   Cmd c = {0};
 *   Status st = cmd_begin(&c, CMD_verify, argc, argv, NULL);
 *   for (int k = 0; st == EXIT_GO_ON && k < c.nalgs; k++) ... c.algs[k] ...
 *   return cmd_end(&c, st);
 *
 * cmd_begin parses the command line (options.def), reads -N as the command
 * takes it (commands.def BEGIN rows: a list, or one N, required or
 * DRIVER_MODEL_N), runs the command's own option checks (before any file is
 * read, so that a usage error never waits for the input), opens the
 * session (load, parse, check the files), selects the algorithms and
 * refuses an input without one ("no-algorithm") for a command that needs
 * one. Every step returns a Status: EXIT_GO_ON, or the exit status to stop
 * with. The work after it goes through the pipeline (pipeline.h). */
#ifndef COLLC_COMMAND_H
#define COLLC_COMMAND_H

#include "driver/options.h"

struct Target;

/* What -N is to a command (commands.def BEGIN rows). */
typedef enum CmdRanks {
    RANKS_NONE,       /* no -N (check) */
    RANKS_LIST,       /* a list; without -N the command's default (verify's set) */
    RANKS_LIST_MODEL, /* a list; without -N, the N every algorithm is for, else DRIVER_MODEL_N */
    RANKS_ONE,        /* one N, required */
    RANKS_ONE_MODEL,  /* one N; without -N, as RANKS_LIST_MODEL */
} CmdRanks;

/* One run of a command. The caller may set `target` and `ctx` before
 * cmd_begin (the rest starts zeroed: `Cmd c = {.ctx = &mine};`). */
typedef struct Cmd {
    const struct Target *target; /* compile: the --target; run, sim: theirs */
    void *ctx;                   /* the command's own state, for its hooks */
    DriverOptions o;             /* the command line */
    int parsed;                  /* o holds a parsed command line */
    Session s;
    int opened;                  /* s is open */
    Algorithm **algs;            /* selected by --algorithm, or all, in file order */
    int nalgs;
    int64_t N;                   /* RANKS_ONE*: the one N; RANKS_LIST_MODEL: the default */
    const int64_t *ns;           /* RANKS_LIST*: the N (NULL: the command's default) */
    size_t nns;
    const char *triple;          /* compile: an LLVM triple given as --target */
    int nargs;                   /* arguments before the files (synth's collective),
                                  set by the command's check */
    void (*end)(struct Cmd *c);  /* set by a hook that keeps state in ctx: frees
                                    it (cmd_end calls it) */
} Cmd;

/* Begins command `id` (see above). `check` (NULL: none) runs after the
 * options are parsed and -N is read, before the files are opened. Returns
 * EXIT_GO_ON when the command goes on, else the exit status (after --help,
 * a usage error, or errors in the input); cmd_end in every case. */
Status cmd_begin(Cmd *c, CommandId id, int argc, char **argv, Status (*check)(Cmd *c));
/* Ends the command: flushes the diagnostics, frees everything and returns
 * the exit status for `st` (EXIT_GO_ON: done, EXIT_OK unless errors were
 * reported). */
int cmd_end(Cmd *c, Status st);

/* What command id says in BEGIN of commands.def; for a target's page, its
 * target's (one N if it is made for one). */
CmdRanks cmd_ranks(CommandId id, const struct Target *t, const char **counts);

#endif
