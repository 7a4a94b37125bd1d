/* sg2260_cli.h - what `collc compile --target=sg2260` (cmd_sg2260.c) and
 * `collc sim` (cmd_sim.c) share: their options, the machine and the chip of
 * each rank, and one algorithm instantiated, verified and lowered for them.
 * Implemented in cmd_sg2260.c. */
#ifndef COLLC_SG2260_CLI_H
#define COLLC_SG2260_CLI_H

#include <stdint.h>
#include <stdio.h>
#include "driver/options.h"
#include "emit/emit_sg2260.h"
#include "sg2260/lower.h"
#include "collref.h"

/* compile --emit=KIND */
typedef enum SgEmit {
    SG_EMIT_OBJECT, /* -c / --emit=obj: object file with the bundle symbols */
    SG_EMIT_ASM,    /* --emit=cdma-asm: readable descriptor programs */
    SG_EMIT_BIN,    /* --emit=cdma: binary bundle image */
    SG_EMIT_C,      /* --emit=c: C source with the bundle as an array */
} SgEmit;

/* Host memory the full check (sim --check=full, or auto while the data fit)
 * may use for the data of all chips. */
#define SG_CHECK_FULL_LIMIT (UINT64_C(2) << 30)

typedef struct SgOptions {
    int sim;                      /* collc sim (else compile) */
    CommonOptions common;
    char **files;                 /* the DriverOptions' */
    int nfiles;
    int64_t N, root;
    int chips[SG2260_MAX_CHIPS];
    int nchips;                   /* 0 = default order */
    const char *machine_path;
    Sg2260Dtype dtype;
    const char *op_name;          /* --op's canonical name */
    int op_bitwise;               /* band/bor/bxor: no CDMA reduce op */
    Sg2260Op op;
    int64_t count;                /* -1 = from size */
    double size;
    int store_forward;
    int sink_local;
    int no_verify;
    SgEmit emit;
    int flag_c;
    const char *output, *prefix, *triple;
    const char *trace, *svg;
    int race_check;
    int check;                    /* sim --check: CHECK_AUTO, CHECK_FULL, CHECK_SAMPLED or
                                     CHECK_NONE (--timing-only); options.def */
    int progress;                 /* 1: report progress of long runs on stderr */
    uint64_t align;               /* lowering alignment (sampled check: the stride) */
} SgOptions;

/* One algorithm lowered for the chips. */
typedef struct SgLowered {
    Algorithm *alg;
    Schedule sched;
    Sg2260Bundle bundle;
    Sg2260Layout layout;
    Sg2260LowerStats stats;
    uint64_t count;
} SgLowered;

/* One run of either command. */
typedef struct SgCommand {
    DriverOptions opts;           /* the command line */
    SgOptions o;
    Sg2260Machine m;
    Session s;
    Algorithm **algs;             /* selected by --algorithm, or all */
    int nalgs;
} SgCommand;

/* Sets the defaults, parses the command line (sim: `collc sim`, else
 * `collc compile --target=sg2260`), loads the machine, chooses the chips
 * and opens the session on the input files. Returns -1 to go on (finish
 * with sg_close), else the exit status (after --help or a reported error;
 * nothing left to free). */
int sg_open(SgCommand *c, int sim, int argc, char **argv);
/* Frees the options and closes the session: the exit status. */
int sg_close(SgCommand *c, int failed);

/* Instantiates, verifies, checks dtype x op and lowers one algorithm (with
 * o->align; sim chooses it for its check first, see cmd_sim.c). Returns 0,
 * or 1 after reporting. sg_lowered_free in both cases. */
int sg_lower_one(Session *s, SgOptions *o, const Sg2260Machine *m, Algorithm *alg, SgLowered *L);
void sg_lowered_free(SgLowered *L);

/* "7,6,2,3": the chip of each rank. */
void sg_print_chips(FILE *out, const SgOptions *o);

/* The naive reference's element type for an engine type (-1 for int16 and
 * fp20, which it does not have) and its op for an engine op. */
int sg_ref_dtype(Sg2260Dtype t, coll_dtype *out);
coll_op sg_ref_op(Sg2260Op op);

#endif
