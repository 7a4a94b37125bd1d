/* target.c - the mpi target: the cpu target's Rank IR code over MPI
 * point-to-point (targets/mpi), plus per algorithm a function with the MPI
 * collective's signature (emit/emit_mpi.h, docs/mpi.md). */
#include "driver/cpu/rankir_target.h"
#include "emit/emit_mpi.h"
#include "driver/mpi/machine.h"

static const RankIrTarget mpi_rankir = {
    .core_prefix = EMIT_MPI_CORE_PREFIX,
    .c_after = emit_c_mpi_wrappers,
    .llvm = emit_llvm_file_mpi,
    .header_mpi = 1,
};

const Target target_mpi = {
    .name = "mpi",
    .summary = "MPI point-to-point; adds per algorithm NAME with the MPI collective's signature and "
               "renames the algorithm collc_NAME (docs/mpi.md)",
    .runtime = "libcollrt-mpi",
    .cmake = "collc::mpi_<mpi>",
    .emits = rankir_emits,
    .engine = "the mpi target",
    .dtype = runtime_dtype,
    .op = runtime_op,
    .machine = &cluster_machines,
    .options = rankir_options,
    .compile = rankir_compile,
    .data = &mpi_rankir,
};
