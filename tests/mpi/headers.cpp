// The generated MPI header as C++ (extern "C", collmpi.h's macros): a build
// failure if it stops compiling there. Built, not run.
#include "mpi_all.h"
