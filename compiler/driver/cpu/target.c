/* target.c - the cpu target: Rank IR code for libcollrt, the threads of one
 * process (targets/cpu); `collc run` runs on it (cmd_run.c). */
#include "driver/cpu/rankir_target.h"
#include "emit/emit_llvm.h"

static int cpu_llvm(const RankProgram *const *progs, int nprogs, const EmitLLVMOptions *o, const char *prefix,
                    DiagEngine *dx) {
    (void)prefix;
    return emit_llvm_file(progs, nprogs, o, dx);
}

static const RankIrTarget cpu_rankir = {.core_prefix = "", .llvm = cpu_llvm};

int runtime_dtype(DriverDtype t) { return driver_dtypes[t].coll; }
int runtime_op(DriverOp op) { return driver_ops[op].coll; }

const Target target_cpu = {
    .name = "cpu",
    .summary = "the threads of one process",
    .runtime = "libcollrt",
    .cmake = "collc::cpu",
    .triple = 1,
    .emits = rankir_emits,
    .commands = CMD_BIT(run),
    .engine = "the cpu target",
    .dtype = runtime_dtype,
    .op = runtime_op,
    .options = rankir_options,
    .compile = rankir_compile,
    .data = &cpu_rankir,
};
