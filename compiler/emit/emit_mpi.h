/* emit_mpi.h - `collc compile --target=mpi`: both emitters add, per
 * algorithm, a function with the signature of the MPI collective it
 * implements, e.g.
 *   int ring_allreduce(const void *sendbuf, void *recvbuf, int count,
 *                      MPI_Datatype dt, MPI_Op op, MPI_Comm comm);
 * which forwards to the MPI runtime (targets/mpi/collmpi.h):
 *   return collmpi_allreduce(sendbuf, recvbuf, count, dt, op, comm,
 *                            collc_ring_allreduce);
 * The algorithm itself (transport ABI, coll.h) is then named
 * collc_PREFIXNAME, and `const coll_alg_info *const collc_PREFIXNAME_alg`
 * describes it (the PMPI library checks it). MPI handles are only passed
 * through, never interpreted: the C wrapper uses <mpi.h>'s types (compile it
 * with the MPI library's mpicc); the LLVM wrapper declares them as
 * pointer-sized integers, which carries both MPICH's int handles and Open
 * MPI's pointers unchanged in their registers / stack slots on LP64
 * little-endian ABIs (x86-64, AArch64). docs/mpi.md has the rationale. */
#ifndef COLLC_EMIT_MPI_H
#define COLLC_EMIT_MPI_H

#include <stdio.h>
#include "emit/emit_llvm.h"
#include "lower/rankir.h"

/* Prefix of the transport-ABI function of an algorithm under --target=mpi. */
#define EMIT_MPI_CORE_PREFIX "collc_"

/* The MPI wrapper of one collective, from the mpi and mpi_params columns of
 * coll_collectives.def: the entry point of collmpi.h (collmpi_ and the MPI
 * name in lower case: collmpi_bcast, collmpi_reduce_scatter_block ...) and
 * the MPI function's parameters. */
typedef enum EmitMpiParam {
    EMIT_MPI_CONST_PTR, /* const void * */
    EMIT_MPI_PTR,       /* void * */
    EMIT_MPI_INT,       /* int */
    EMIT_MPI_HANDLE     /* MPI_Datatype, MPI_Op, MPI_Comm: passed through */
} EmitMpiParam;
enum { EMIT_MPI_MAX_PARAMS = 12 };
typedef struct EmitMpiSig {
    char entry[64];
    int nparams;
    EmitMpiParam kind[EMIT_MPI_MAX_PARAMS];
    char type[EMIT_MPI_MAX_PARAMS][32]; /* C spelling, up to the name: "const void *", "int " */
    char name[EMIT_MPI_MAX_PARAMS][32];
} EmitMpiSig;
/* Aborts (a compiler bug) on a parameter type it does not know. */
void emit_mpi_sig(Collective c, EmitMpiSig *out);

/* The MPI wrapper's prototype, without `;` or body: "int PREFIXNAME(const
 * void *sendbuf, ..., MPI_Comm comm)", the types of <mpi.h>. */
void emit_c_mpi_prototype(FILE *out, const Algorithm *alg, const char *wrapper_prefix);

/* C: appends `#include <collmpi.h>`, then the descriptor and the MPI
 * wrapper of each program. emit_c_file must have been called with
 * prefix EMIT_MPI_CORE_PREFIX + wrapper_prefix. */
void emit_c_mpi_wrappers(FILE *out, const RankProgram *const *progs, int nprogs,
                         const char *wrapper_prefix);

/* LLVM: as emit_llvm_file (o->prefix = EMIT_MPI_CORE_PREFIX +
 * wrapper_prefix), plus the descriptors and MPI wrappers. */
int emit_llvm_file_mpi(const RankProgram *const *progs, int nprogs, const EmitLLVMOptions *o,
                       const char *wrapper_prefix, DiagEngine *dx);

#endif
