/* cost_cli.h - options and helpers shared by `collc cost`, `collc compare`
 * and `collc draw` (implemented in cmd_cost.c; docs/cost.md). */
#ifndef COLLC_COST_CLI_H
#define COLLC_COST_CLI_H

#include "driver/driver.h"
#include "analysis/cost.h"
#include "analysis/topology.h"

/* Which options a command accepts (bit set). */
enum {
    CCLI_N = 1 << 0,       /* -N list */
    CCLI_CLOSED = 1 << 1,  /* --n list (closed form) */
    CCLI_MACHINE = 1 << 2, /* --size --alpha --beta --gamma */
    CCLI_TOPO = 1 << 3,    /* --topo --ports --routing */
    CCLI_JSON = 1 << 4,    /* --format=text|json */
    CCLI_DRAW = 1 << 5,    /* -o FILE, --format=svg|dot */
    CCLI_RANGE = 1 << 6,   /* --range LO..HI */
    CCLI_STEPS = 1 << 7,   /* --per-step */
};

typedef struct CostCli {
    const char *cmd;
    CommonOptions common;
    char **files;          /* positional arguments (points into argv) */
    int nfiles;
    int64_t *Ns;           /* -N values (malloc) */
    size_t nN;
    int64_t *closed;       /* --n values (malloc) */
    size_t nclosed;
    int64_t root;          /* --root, default 0 */
    CostMachine machine;   /* defaults: 64 MiB, 2 us, 64 GB/s, 512 GB/s */
    const char *topo;      /* --topo, default "full" (or the machine's) */
    const char *machine_file; /* --machine FILE: alpha, beta, gamma, topology */
    int machine_file_topology; /* the topology comes from machine_file */
    int64_t ports;         /* --ports, 0 = the topology's own */
    int cut_through;       /* --routing=cut-through */
    int json;              /* --format=json */
    int per_step;          /* --per-step: the terms of every step */
    int dot;               /* draw: --format=dot */
    const char *output;    /* draw: -o FILE ("-" or NULL = stdout) */
    double range_lo, range_hi; /* compare: --range, default 1 B .. 1 GiB */
} CostCli;

/* Parses argv (argv[0] = command name). Returns 0, or EXIT_USAGE after
 * printing the usage error. */
int cost_cli_parse(CostCli *c, int argc, char **argv, unsigned allowed);
void cost_cli_free(CostCli *c);

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
