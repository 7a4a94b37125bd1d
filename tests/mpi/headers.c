/* The header `collc compile --target=mpi --emit-header` wrote for every
 * example (each MPI-signature function declared from the collective table
 * and again with collmpi.h's COLLMPI_DECLARE_<ID>), included twice (its
 * guard), then the C it declares: any disagreement between collmpi.h, the
 * table and the emitters is a compile error of this file. Built, not run. */
#include "mpi_all.h"
#include "mpi_all.h"
#include "mpi_all.c"
