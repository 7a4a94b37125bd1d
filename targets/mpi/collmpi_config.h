/* collmpi_config.h - the grammar of COLLMPI_CONFIG, one parser for the
 * PMPI library (pmpi.c, at MPI_Init) and `collc mpi-config check`
 * (compiler/driver/mpi/cmd_mpi_config.c). No MPI here: both build this
 * file. The grammar (docs/mpi.md):
 *
 *   # collective  min-size  max-size  shared-object  algorithm  [n=LIST] [ppn=LIST] [nodes=LIST]
 *   allreduce     0         256KiB    /opt/algs.so   recursive_doubling_allreduce  n=pow2
 */
#ifndef COLLMPI_CONFIG_H
#define COLLMPI_CONFIG_H

#include <stddef.h>

#include "coll.h"

/* One rule. */
typedef struct collmpi_rule {
    coll_collective coll;
    size_t lo, hi;          /* [lo, hi) bytes; hi = SIZE_MAX: no bound */
    long nlo, nhi;          /* N in [nlo, nhi] */
    int npow2;              /* N must be a power of two */
    long plo, phi;          /* ranks per node in [plo, phi] (ppn=) */
    long klo, khi;          /* nodes in [klo, khi] (nodes=) */
    int shaped;             /* has ppn= or nodes=: needs the communicator's shape */
    char *object, *alg;     /* collmpi_config_line: inside the line it parsed */
    int object_col, alg_col;/* their columns (1-based) */
    void (*fn)(void);       /* collmpi_config_load: the algorithm; NULL: not loaded */
    int line;               /* set by the caller */
} collmpi_rule;

/* Parses one line of the file, in place (a '#' comment is cut, fields are
 * NUL-terminated). Returns 1 and fills *r for a rule, 0 for a line with
 * no rule (blank, or a comment), -1 for an error: *col and *len are the
 * column (1-based) and length of the field in error, `why` says what is
 * wrong with it and names the field. */
int collmpi_config_line(char *line, collmpi_rule *r, int *col, int *len, char *why, size_t cap);

/* Loads r's algorithm from its object (dlopen with `dlflags`): sets r->fn
 * and returns 0; or returns -1 with the reason in why and *field 3 (the
 * object does not load) or 4 (it has no such algorithm, or one of another
 * collective or ABI). */
int collmpi_config_load(collmpi_rule *r, int dlflags, int *field, char *why, size_t cap);

#endif
