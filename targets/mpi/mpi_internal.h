/* mpi_internal.h - what the pieces of the MPI target share (not installed):
 * the transport (mpi_transport.c), the MPI-signature entry points
 * (collmpi.c) and the PMPI interposition library (pmpi.c). */
#ifndef COLLMPI_INTERNAL_H
#define COLLMPI_INTERNAL_H

#include <stddef.h>
#include "collmpi.h"
#include "collrt_internal.h"

/* ---- transport (mpi_transport.c) ---- */

/* Reductions of the next call on `c` go through MPI_Reduce_local(op, dt)
 * instead of the runtime's kernels (user ops, MPI_LAND ...); the call's
 * coll dtype is then a placeholder of the same element size. */
void collmpi_comm_set_user_op(coll_comm *c, int on, MPI_Op op, MPI_Datatype dt);
/* The MPI error code behind the last COLL_ERR_TRANSPORT on `c`. */
int collmpi_comm_mpi_error(const coll_comm *c);
/* MPI error code of the last failed coll_comm_from_mpi (this thread). */
int collmpi_from_mpi_error(void);
/* The coll_comm cached on `comm` by an earlier coll_comm_from_mpi, or NULL
 * (makes none: no communication). */
coll_comm *collmpi_comm_cached(MPI_Comm comm);

/* ---- argument mapping (collmpi.c) ---- */

/* One MPI collective call, as the application made it. For the reducing
 * collectives and bcast, count/type are in sendcount/sendtype. */
typedef struct collmpi_args {
    coll_collective coll;
    const void *sendbuf;
    void *recvbuf;
    int sendcount, recvcount;
    MPI_Datatype sendtype, recvtype;
    MPI_Op op;
    int root;
    MPI_Comm comm;
} collmpi_args;

/* The same call in the runtime's terms. */
typedef struct collmpi_call {
    const void *sendbuf;
    void *recvbuf;
    size_t count;            /* per block, in `dtype` elements */
    coll_dtype dtype;
    coll_op op;
    int root, nranks, rank;
    size_t total_bytes;      /* nccl-tests "size" of the call (selection) */
    int user_op;             /* reduce with MPI_Reduce_local(uop, udt) */
    MPI_Op uop;
    MPI_Datatype udt;
    coll_comm *cc;           /* the cached coll_comm of the communicator, or NULL */
} collmpi_call;

/* Maps an MPI call; no communication, no side effect. Returns COLL_OK or a
 * coll_status, with *why a short reason for logs. */
int collmpi_map(const collmpi_args *a, collmpi_call *m, const char **why);
/* Runs the compiled algorithm `fn` (rooted or not per m's collective) on
 * the mapped call. Returns a coll_status; *mpi_err gets the MPI code of a
 * transport failure. */
int collmpi_invoke(coll_collective coll, const collmpi_call *m, MPI_Comm comm, void (*fn)(void),
                   int *mpi_err);
/* coll_status -> MPI error code (predefined classes; the MPI code itself
 * for COLL_ERR_TRANSPORT). Records the status for collmpi_last_status(). */
int collmpi_to_mpi_error(int status, int mpi_err);
/* "MPI_Allreduce" ... */
const char *collmpi_mpi_name(coll_collective coll);

#endif
