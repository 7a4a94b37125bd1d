/* The header `collc compile --target=mpi --emit-header` wrote for every
 * example (each MPI-signature function declared from the collective table
 * and again with collmpi.h's COLLMPI_DECLARE_<ID>), included twice: its
 * guard. The C it declares is compiled after it (-include) as the object
 * library mpi_all_<flavour> (tests/mpi/CMakeLists.txt). Built, not run. */
#include "mpi_all.h"
#include "mpi_all.h"
