/* sg2260_cli.h - the SG2260 target in the driver: what `collc compile
 * --target=sg2260` (compile.c) and `collc sim` (cmd_sim.c) share: their
 * options, the machine and the chip of each rank, and one algorithm
 * instantiated, verified and lowered for them. The lowering itself is
 * compiler/sg2260/, the machine model and the engines targets/sg2260/. */
#ifndef COLLC_SG2260_CLI_H
#define COLLC_SG2260_CLI_H

#include <stdint.h>
#include <stdio.h>
#include "driver/target.h"
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

/* The engine's view of the command line (from the DriverOptions of the
 * Cmd; N is the Cmd's). */
typedef struct SgOptions {
    int sim;                      /* collc sim (else compile) */
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

/* What either command keeps in its Cmd's ctx. */
typedef struct SgState {
    SgOptions o;
    Sg2260Machine m;
} SgState;

/* One algorithm lowered for the chips. */
typedef struct SgLowered {
    Algorithm *alg;
    Schedule sched;
    Sg2260Bundle bundle;
    Sg2260Layout layout;
    Sg2260LowerStats stats;
    uint64_t count;
} SgLowered;

/* The check of either command's options (cmd_begin's hook; c->ctx is an
 * SgState): the engine's options, the machine, the chips, and for sim the
 * element types the reference has. */
Status sg_check_options(Cmd *c);

/* Instantiates, verifies, checks dtype x op and lowers one algorithm (with
 * o->align; sim chooses it for its check first, see cmd_sim.c). Returns
 * EXIT_GO_ON, or EXIT_INPUT after reporting. sg_lowered_free in both
 * cases. */
Status sg_lower_one(Cmd *c, SgState *g, Algorithm *alg, SgLowered *L);
void sg_lowered_free(SgLowered *L);

/* "7,6,2,3": the chip of each rank. */
void sg_print_chips(FILE *out, const SgOptions *o);

/* The naive reference's element type for an engine type (-1 for those it
 * does not have: int16, fp20) and its op for an engine op: the rows of
 * options.def that have both values. */
int sg_ref_dtype(Sg2260Dtype t, coll_dtype *out);
coll_op sg_ref_op(Sg2260Op op);

/* The engine's value of an element type and operator (-1: it has none). */
int sg_dtype(DriverDtype t);
int sg_op(DriverOp op);

/* Its --emit kinds (the compile page's) and its machine files. */
extern const TargetEmit sg_emits[];
extern const TargetMachine sg_machine;
Status sg_compile(Cmd *c);
Status sg_compile_options(Cmd *c);

#endif
