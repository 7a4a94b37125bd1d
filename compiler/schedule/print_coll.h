/* print_coll.h - a Schedule IR written back as a .coll algorithm.
 *
 * The printed algorithm instantiates, for the schedule's N (and root), to
 * exactly the same steps and transfers, in the same order: `collc expand` of
 * the output prints the same dump as the input schedule. It states what it
 * is for with `require N == n` (and `require root == r`), declares the split
 * and the scratch buffers, and writes each step as its transfers, where runs
 * of transfers follow one pattern in a loop index (affine, affine modulo N or
 * a buffer's chunk count, xor) as a `for` loop. Used by `collc expand
 * --emit=coll` and by `collc synth` (docs/synth.md). */
#ifndef COLLC_PRINT_COLL_H
#define COLLC_PRINT_COLL_H

#include <stddef.h>
#include <stdio.h>
#include "schedule/schedule.h"

typedef struct CollPrintInfo {
    const char *name;                /* algorithm name; NULL = s->alg->name */
    const char *const *header;       /* comment lines printed before the
                                        algorithm, without the leading "// " */
    size_t nheader;
    const char *const *step_comment; /* [s->nsteps] or NULL; an entry may be
                                        NULL; printed as "// ..." above the step */
    const char *require_why;         /* reason of `require N == n`; NULL = a
                                        default ("schedule for N = n") */
} CollPrintInfo;

/* Writes the algorithm. Never fails (the schedule is already checked). */
void schedule_print_coll(FILE *out, const Schedule *s, const CollPrintInfo *info);

#endif
