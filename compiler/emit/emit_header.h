/* emit_header.h - `collc compile --emit-header`: a C header declaring what
 * one compilation defines, so that callers never write prototypes by hand.
 *
 *   --target=cpu   each algorithm with coll.h's signature:
 *                    int PREFIXNAME(coll_comm *comm, const void *sendbuf, ...);
 *   --target=mpi   each algorithm with the MPI collective's signature (from
 *                  the collective table) and, spelled with collmpi.h's
 *                  macro, the same declaration again:
 *                    int PREFIXNAME(const void *sendbuf, ..., MPI_Comm comm);
 *                    COLLMPI_DECLARE_ALLREDUCE(PREFIXNAME);
 *                  (a collmpi.h that disagreed with the table would not
 *                  compile), plus the transport-ABI function collc_PREFIXNAME
 *                  and its descriptor collc_PREFIXNAME_alg.
 * The prototypes are the emitters' own (emit_c_prototype,
 * emit_c_mpi_prototype), so a header and the code it declares agree. */
#ifndef COLLC_EMIT_HEADER_H
#define COLLC_EMIT_HEADER_H

#include <stdio.h>
#include "lower/rankir.h"

typedef struct EmitHeaderOptions {
    const char *source_name; /* for the comment at the top */
    const char *guard;       /* the include guard's macro */
    const char *prefix;      /* --prefix ("" = none) */
    const char *core_prefix; /* the prefix the C and LLVM emitters were given:
                                `prefix`, or EMIT_MPI_CORE_PREFIX `prefix`
                                under --target=mpi */
    int target_mpi;          /* --target=mpi */
} EmitHeaderOptions;

void emit_header_file(FILE *out, const RankProgram *const *progs, int nprogs,
                      const EmitHeaderOptions *o);

/* The include guard for a header written to `path` ("-": named after
 * `source`): COLLC_GEN_ and the file's base name without its suffix, upper
 * case, every other character '_'. Allocated in `a`. */
char *emit_header_guard(Arena *a, const char *path, const char *source);

#endif
