/* compare.h - what `collc compare` (cmd_compare.c) and `collc tune`
 * (cmd_tune.c) share: every algorithm's time at fixed N as a line in M, and
 * the fastest per size, the lower envelope of the lines (docs/cost.md
 * section 4). */
#ifndef COLLC_COMPARE_H
#define COLLC_COMPARE_H

#include "driver/cost_cli.h"

#define COMPARE_MAX_SEGMENTS 64

/* One contender: T(M) = A + B·M. */
typedef struct CompareLine {
    const Algorithm *alg;
    const char *name;       /* the algorithm's, or "alg [K = 2]" at a sweep point */
    CostTerms t;
    double A, B;            /* seconds, seconds per byte */
} CompareLine;

/* Every algorithm of the input at every point of its -D sweep: the
 * contenders at cmd->N on t, into lines (*nl of them, room for one per
 * sweep point); one that does not apply to N is left out with a warning.
 * EXIT_GO_ON, or EXIT_INPUT. */
Status compare_algorithm_lines(Cmd *cmd, const CostCli *c, TopoModel *t, CompareLine *lines, int *nl);

/* The lines of collective coll, in order, into sub (NULL: only counted);
 * returns their number. */
int compare_lines_of(const CompareLine *lines, int nl, Collective coll, CompareLine *sub);
/* How many collectives lines[0..nl) have. */
int compare_collectives(const CompareLine *lines, int nl);

/* The lower envelope of lines[0..nl) over the sizes [lo, hi]: segment k is
 * lines[seg_alg[k]], the fastest from seg_lo[k] to seg_lo[k + 1] (or hi);
 * at most COMPARE_MAX_SEGMENTS. Returns the number of segments. */
int compare_envelope(const CompareLine *lines, int nl, double lo, double hi, int *seg_alg, double *seg_lo);

/* --plot: the SVG of lines[0..nl) (time against size over [lo, hi], log
 * axes, a panel per collective, the changes of the fastest marked) into
 * path ("-": standard output). EXIT_GO_ON, or EXIT_INPUT after the "io"
 * error. */
Status compare_plot(Session *s, const char *path, int64_t N, const char *topo, double lo, double hi,
                    const CompareLine *lines, int nl);

#endif
