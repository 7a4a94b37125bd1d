/* collmpi.h - the MPI target of the collc runtime (libcollrt-mpi).
 *
 * Two layers:
 *   1. coll_comm_from_mpi(): the coll_comm of an MPI communicator, so the
 *      transport ABI of coll.h (what generated code calls) runs over MPI.
 *   2. collmpi_*(): entry points with the argument list of the MPI
 *      collective they implement followed by the compiled algorithm. The
 *      functions that `collc compile --target=mpi` emits with MPI signatures
 *      (e.g. ring_allreduce(sendbuf, recvbuf, count, dt, op, comm)) are thin
 *      forwarders to these, so generated objects never depend on the MPI
 *      library's handle types (int in MPICH, pointers in Open MPI): all the
 *      handle mapping is compiled here, once per MPI library.
 *
 * Return values are MPI error codes (MPI_SUCCESS = 0). On error the
 * communicator's error handler is invoked first, as MPI collectives do
 * (MPI_ERRORS_ARE_FATAL aborts). collmpi_last_status() gives the detailed
 * coll_status of the calling thread's last call. See docs/mpi.md. */
#ifndef COLLMPI_H
#define COLLMPI_H

#include <mpi.h>
#include <coll.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The coll_comm of `comm`: created on first use (a collective call on
 * `comm`: MPI_Comm_dup with MPI_ERRORS_RETURN, so collc's traffic never
 * matches the application's), cached as an attribute of `comm` and freed
 * with it. Intracommunicators only (COLL_ERR_NULL_COMM otherwise). */
int coll_comm_from_mpi(MPI_Comm comm, coll_comm **out);

/* The private duplicate behind a coll_comm (for tests and tools). */
MPI_Comm coll_comm_mpi(const coll_comm *comm);

/* Compiled algorithms, as generated (coll.h). */
typedef int (*collmpi_fn)(coll_comm *comm, const void *sendbuf, void *recvbuf, size_t count,
                          coll_dtype dtype, coll_op op);
typedef int (*collmpi_rooted_fn)(coll_comm *comm, const void *sendbuf, void *recvbuf,
                                 size_t count, coll_dtype dtype, coll_op op, int root);

/* MPI signature first, the algorithm last (so that a forwarder keeps every
 * MPI argument in its register). */
int collmpi_bcast(void *buffer, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                  collmpi_rooted_fn fn);
int collmpi_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                   int root, MPI_Comm comm, collmpi_rooted_fn fn);
int collmpi_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   collmpi_rooted_fn fn);
int collmpi_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    collmpi_rooted_fn fn);
int collmpi_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, collmpi_fn fn);
int collmpi_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                 MPI_Datatype dt, MPI_Op op, MPI_Comm comm, collmpi_fn fn);
int collmpi_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                      MPI_Comm comm, collmpi_fn fn);
int collmpi_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm, collmpi_fn fn);

/* The coll_status of this thread's last collmpi_* call (COLL_OK after a
 * success); COLL_ERR_TRANSPORT when MPI itself failed. */
int collmpi_last_status(void);
/* Why this thread's last collmpi_* call failed ("" after a success), e.g.
 * "collc: recursive_doubling_allreduce: does not apply for N = 3 (a
 * `require` fails)". MPI_Error_string of the returned code gives the same
 * text where the MPI library keeps strings of added error codes (Open MPI;
 * MPICH 4.0 returns the error class itself). */
const char *collmpi_last_error(void);

/* Prototypes of the functions `collc compile --target=mpi` emits, e.g.
 *   COLLMPI_DECLARE_ALLREDUCE(ring_allreduce);
 *   ...  ring_allreduce(MPI_IN_PLACE, buf, n, MPI_FLOAT, MPI_SUM, comm);
 * One per collective, COLLMPI_DECLARE_<ID> as coll.h's COLL_<ID>, with the
 * mpi_params of the collective table (`collc compile --emit-header` writes
 * these lines next to the table's prototypes, so a drift does not compile). */
#define COLLMPI_DECLARE_BROADCAST(name) \
    int name(void *buffer, int count, MPI_Datatype dt, int root, MPI_Comm comm)
/* Deprecated spelling (MPI's name; the collective is `broadcast`). */
#if defined(__GNUC__)
#define COLLMPI_DECLARE_BCAST(name) \
    _Pragma("GCC warning \"COLLMPI_DECLARE_BCAST is deprecated: use COLLMPI_DECLARE_BROADCAST\"") \
    COLLMPI_DECLARE_BROADCAST(name)
#else
#define COLLMPI_DECLARE_BCAST(name) COLLMPI_DECLARE_BROADCAST(name)
#endif
#define COLLMPI_DECLARE_REDUCE(name) \
    int name(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, \
             int root, MPI_Comm comm)
#define COLLMPI_DECLARE_GATHER(name) \
    int name(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, \
             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
#define COLLMPI_DECLARE_SCATTER(name) COLLMPI_DECLARE_GATHER(name)
#define COLLMPI_DECLARE_ALLGATHER(name) \
    int name(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, \
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
#define COLLMPI_DECLARE_ALLTOALL(name) COLLMPI_DECLARE_ALLGATHER(name)
#define COLLMPI_DECLARE_REDUCE_SCATTER(name) \
    int name(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype dt, MPI_Op op, \
             MPI_Comm comm)
#define COLLMPI_DECLARE_ALLREDUCE(name) \
    int name(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, \
             MPI_Comm comm)

#ifdef __cplusplus
}
#endif
#endif /* COLLMPI_H */
