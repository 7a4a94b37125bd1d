/* COLLMPI_DECLARE_BCAST, the old spelling of COLLMPI_DECLARE_BROADCAST:
 * still the same declaration (the second line would conflict otherwise),
 * with a deprecation warning (mpi.<flavour>.declare_bcast expects it). */
#include <collmpi.h>
COLLMPI_DECLARE_BCAST(old_spelling);
COLLMPI_DECLARE_BROADCAST(old_spelling);
int (*const check)(void *, int, MPI_Datatype, int, MPI_Comm) = old_spelling;
