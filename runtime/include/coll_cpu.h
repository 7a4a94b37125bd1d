/* coll_cpu.h - the CPU-threads target of the collc runtime (libcollrt):
 * one process, one thread per rank. Making its communicators; everything
 * else is coll.h's. See docs/runtime.md. */
#ifndef COLL_CPU_H
#define COLL_CPU_H

#include "coll.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The shared state of one group of nranks threads. */
typedef struct coll_world coll_world;

/* Once per process (per group): creates the shared state for nranks ranks
 * (1 <= nranks <= COLL_CPU_MAX_RANKS). */
#define COLL_CPU_MAX_RANKS 4096
int coll_comm_create_cpu(int nranks, coll_world **out);
/* Each thread: joins as `rank` and gets its handle. Each rank joins once. */
int coll_comm_join(coll_world *world, int rank, coll_comm **out);
/* Each thread, after its last collective: frees its handle (scratch too). */
int coll_comm_destroy(coll_comm *comm);
/* Once, after every joined handle has been destroyed (else COLL_ERR_BUSY). */
int coll_world_destroy(coll_world *world);

/* Convenience: creates a world of nranks, runs fn(comm, arg) on nranks new
 * threads (rank r on thread r), destroys everything. Returns the first
 * non-zero value any fn returned (lowest rank first), or a status if setup
 * failed. Meant for tests, benchmarks and `collc run`. */
int coll_cpu_run(int nranks, int (*fn)(coll_comm *comm, void *arg), void *arg);

#ifdef __cplusplus
}
#endif
#endif /* COLL_CPU_H */
