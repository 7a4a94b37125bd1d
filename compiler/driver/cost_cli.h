/* cost_cli.h - the cost model of the command line and the helpers shared
 * by `collc cost`, `collc compare` and `collc draw` (implemented in
 * cmd_cost.c; docs/cost.md). */
#ifndef COLLC_COST_CLI_H
#define COLLC_COST_CLI_H

#include "driver/options.h"
#include "analysis/cost.h"
#include "analysis/topology.h"

/* The cost model of one command line. */
typedef struct CostCli {
    const char *cmd;
    CommonOptions common;
    const int64_t *Ns;     /* -N values (default 8); with --closed-form: none */
    size_t nN;
    const int64_t *closed; /* -N values of --closed-form / --n */
    size_t nclosed;
    int64_t root;          /* --root, default 0 */
    CostMachine machine;   /* --size, --alpha, --beta, --gamma (or the machine file's) */
    const char *topo;      /* --topo, default "full" (or the machine's) */
    const char *machine_file; /* --machine FILE: alpha, beta, gamma, topology */
    int machine_file_topology; /* the topology comes from machine_file */
    int64_t ports;         /* --ports, 0 = the topology's own */
    int cut_through;       /* --routing=cut-through */
    int json;              /* --format=json */
    int per_step;          /* --per-step: the terms of every step */
    int dot;               /* draw: --format=dot */
    const char *output;    /* draw: -o FILE ("-" or NULL = stdout) */
    double range_lo, range_hi; /* compare: --range */
} CostCli;

/* The model of the parsed command line `o` (cost, compare or draw): loads
 * --machine, lets explicit --alpha/--beta/--gamma/--topo win over it, and
 * checks --format for the command. Returns 0, or EXIT_USAGE / EXIT_INPUT
 * after printing the error. The arrays point into o. */
int cost_cli_init(CostCli *c, const DriverOptions *o);
/* cost_cli_init for a command of one rank count (compare, draw, synth):
 * also reads -N into *N, 8 when it is not given. */
int cost_cli_init_one_n(CostCli *c, const DriverOptions *o, int64_t *N);

/* Builds the topology for N. Returns 0 ok; 1 when it does not apply to this
 * N (message in err); 2 on a usage error (printed); -1 after input errors
 * were reported through the session's diagnostics. */
int cost_cli_topology(Session *s, const CostCli *c, int64_t N, TopoModel **out, char *err,
                      size_t errsz);

/* Instantiates `a` for N (root from the options, the -D of sweep point
 * `point`: session_defines). Returns 0 ok, 1 when a `require` fails (*why
 * gets its message, or "" without one), -1 after errors were reported. */
int cost_cli_instantiate(Session *s, const CostCli *c, const Algorithm *a, int64_t N,
                         size_t point, Schedule *out, const char **why);

#endif
