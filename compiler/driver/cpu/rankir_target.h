/* rankir_target.h - the one compile of the targets whose output is Rank IR
 * code calling the runtime ABI (runtime/include/coll.h): cpu, and mpi,
 * which adds the MPI-signature functions (emit/emit_mpi.h). What differs
 * between them is a RankIrTarget, the `data` of their Target row. */
#ifndef COLLC_RANKIR_TARGET_H
#define COLLC_RANKIR_TARGET_H

#include <stdio.h>
#include "driver/target.h"
#include "emit/emit_llvm.h"

typedef struct RankIrTarget {
    const char *core_prefix;   /* before --prefix in the name of each algorithm's
                                  function ("collc_" for mpi) */
    /* C source: written after the functions (NULL: nothing) */
    void (*c_after)(FILE *out, const RankProgram *const *progs, int nprogs, const char *prefix);
    /* LLVM: builds and writes the module (emit_llvm_file or its mpi variant) */
    int (*llvm)(const RankProgram *const *progs, int nprogs, const EmitLLVMOptions *o, const char *prefix,
                DiagEngine *dx);
    int header_mpi;            /* --emit-header declares the MPI-signature functions */
} RankIrTarget;

/* The --emit kinds of both (the compile page is theirs). */
extern const TargetEmit rankir_emits[];

/* Their entry points: the checks of compile's options, and the compile. */
Status rankir_options(Cmd *c);
Status rankir_compile(Cmd *c);

/* The runtime's element types and operators: both have all of them. */
int runtime_dtype(DriverDtype t);
int runtime_op(DriverOp op);

#endif
