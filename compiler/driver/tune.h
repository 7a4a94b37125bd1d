/* tune.h - what `collc tune` (cmd_tune.c) shares with its writers of an
 * MPI library's own selection files (mpich_json.c; docs/cluster.md
 * sections 4 to 6). */
#ifndef COLLC_TUNE_H
#define COLLC_TUNE_H

#include "driver/compare.h"

/* What --emit writes. */
typedef enum TuneEmit { TUNE_COLLMPI, TUNE_OMPI_RULES, TUNE_MPICH_JSON } TuneEmit;

/* What tune keeps in its Cmd: the cost model (first: cost_cli.h) and the
 * shape of the job. */
typedef struct TuneCli {
    CostCli c;
    int64_t nodes, ppn; /* 0: no shape */
    TuneEmit emit;
} TuneCli;

/* The lines of collective coll (into sub) and their lower envelope over
 * the range: the number of segments, 0 when the input has none of coll.
 * With `one`: for a rooted collective whose size only the root knows
 * (scatter's send count, gather's receive count; *one set), the ranks
 * could pick different rules of an MPI library's file: one segment, the
 * algorithm of the widest part of the range (in log size). */
int collective_envelope(const CostCli *c, const CompareLine *lines, int nl, Collective coll, CompareLine *sub,
                        int *seg_alg, double *seg_lo, int *one);

/* The bytes of a rule's bound: the size where the next algorithm takes
 * over, rounded up to a whole byte. */
unsigned long long tune_bound(double M);

/* --emit=mpich-json: the MPICH algorithm that algorithm a models at N (its
 * MPICH name), or NULL (mpich_json.def). */
const char *mpich_alg_of(const Algorithm *a, int64_t N);

/* An MPICH 4.0 collective selection file (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)
 * of the fastest of MPICH's algorithms per size for communicators of N
 * ranks (docs/cluster.md section 6). */
Status write_mpich_json(Cmd *cmd, TuneCli *tc, CompareLine *lines, int nl, FILE *f);

/* --measure: the rules from collc-measure's output (the one file of the
 * command line) into f (driver/mpi/tune_measure.c; docs/cluster.md
 * section 4). */
Status tune_measure(Cmd *cmd, FILE *f);

#endif
