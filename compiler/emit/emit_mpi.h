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

/* MPI parameter lists, per collective (compiler Collective order):
 * P const void *, p void *, i int, d MPI_Datatype, o MPI_Op, c MPI_Comm. */
static const struct EmitMpiSig {
    const char *entry;        /* runtime entry point */
    const char *types;        /* one letter per parameter */
    const char *names[8];
} emit_mpi_sigs[] = {
    /* broadcast */ {"collmpi_bcast", "pidic", {"buffer", "count", "dt", "root", "comm"}},
    /* scatter */ {"collmpi_scatter", "PidpidIc",
                   {"sendbuf", "sendcount", "sendtype", "recvbuf", "recvcount", "recvtype", "root", "comm"}},
    /* gather */ {"collmpi_gather", "PidpidIc",
                  {"sendbuf", "sendcount", "sendtype", "recvbuf", "recvcount", "recvtype", "root", "comm"}},
    /* reduce */ {"collmpi_reduce", "PpidoIc", {"sendbuf", "recvbuf", "count", "dt", "op", "root", "comm"}},
    /* allgather */ {"collmpi_allgather", "Pidpidc",
                     {"sendbuf", "sendcount", "sendtype", "recvbuf", "recvcount", "recvtype", "comm"}},
    /* reduce_scatter */ {"collmpi_reduce_scatter_block", "Ppidoc",
                          {"sendbuf", "recvbuf", "recvcount", "dt", "op", "comm"}},
    /* allreduce */ {"collmpi_allreduce", "Ppidoc", {"sendbuf", "recvbuf", "count", "dt", "op", "comm"}},
    /* alltoall */ {"collmpi_alltoall", "Pidpidc",
                    {"sendbuf", "sendcount", "sendtype", "recvbuf", "recvcount", "recvtype", "comm"}},
};
/* ('I' is the root: an int, named apart so that it reads as such.) */

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
