/* cost_cli.h - the cost model of the command line and the helpers shared
 * by `collc cost`, `compare`, `draw` and `synth` (cost_cli.c;
 * docs/cost.md). */
#ifndef COLLC_COST_CLI_H
#define COLLC_COST_CLI_H

#include "driver/command.h"
#include "analysis/cost.h"
#include "analysis/topology.h"

struct TargetMachine;

/* The cost model of one command line. */
typedef struct CostCli {
    const char *cmd;
    const int64_t *Ns;     /* cost: the N of -N (default DRIVER_MODEL_N); with
                              --closed-form: none */
    size_t nN;
    const int64_t *closed; /* -N values of --closed-form / --n */
    size_t nclosed;
    int64_t root;          /* --root, default 0 */
    CostMachine machine;   /* --size, --alpha, --beta, --gamma (or the machine file's) */
    const char *topo;      /* --topo, default "full" (or the machine's) */
    const struct TargetMachine *tm; /* --machine FILE: the target that reads it */
    void *machine_file;    /*   and the machine, loaded */
    int machine_file_topology; /* the topology comes from machine_file */
    int64_t ports;         /* --ports, 0 = the topology's own */
    int cut_through;       /* --routing=cut-through */
    int json;              /* --format=json */
    int per_step;          /* --per-step: the terms of every step */
    int dot;               /* draw: --format=dot */
    const char *output;    /* draw: -o FILE ("-" or NULL = stdout) */
    double range_lo, range_hi; /* compare: --range */
} CostCli;

/* The check hook of cost, compare, draw (cmd_begin; c->ctx is a CostCli)
 * and the start of synth's: the model of the parsed command line. Loads
 * --machine (the target's machine files, target.h), lets explicit
 * --alpha/--beta/--gamma/--topo win over it, and checks --format for the
 * command. Returns EXIT_GO_ON, or EXIT_USAGE after printing the error;
 * what it loaded is freed by cmd_end. */
Status cost_cli_check(Cmd *c);

/* The topology for N: EXIT_GO_ON with *out set, or with *out NULL when it
 * does not apply to N (the reason in err); EXIT_USAGE after printing a
 * usage error; EXIT_INPUT after input errors were reported through the
 * session's diagnostics. */
Status cost_cli_topology(Session *s, const CostCli *c, int64_t N, TopoModel **out, char *err, size_t errsz);

/* The cost commands' one way to report a topology that does not apply to N
 * ("topology-not-applicable"): cost_cli_topology, then EXIT_INPUT after
 * the error when *out is NULL. */
Status cost_cli_topology_for(Session *s, const CostCli *c, int64_t N, TopoModel **out);

/* Instantiates `a` for N (root from the options, the -D of sweep point
 * `point`), as pipeline_instantiate does with a reason for a failing
 * `require`: EXIT_GO_ON with *out built and *why NULL, or with *why set
 * when the `require` excludes N; EXIT_INPUT after reported errors. */
Status cost_cli_instantiate(Session *s, const CostCli *c, const Algorithm *a, int64_t N, size_t point,
                            Schedule *out, const char **why);

#endif
