/* emit_c.h - C source emitter for Rank IR programs.
 *
 * The output is one self-contained translation unit per run: a small block
 * of checked integer helpers (the .coll expression semantics: floor division,
 * mathematical modulo, overflow and shift checks) and one function per
 * algorithm with the signature of runtime/include/coll.h, followed by its
 * nonblocking and persistent forms NAME_start and NAME_init (coll_start and
 * coll_init on the function itself). It compiles with
 * -Wall -Wextra -Werror under gcc and clang and talks to the runtime only
 * through the transport ABI, so the same file links against every target. */
#ifndef COLLC_EMIT_C_H
#define COLLC_EMIT_C_H

#include <stdio.h>
#include "lower/rankir.h"

typedef struct EmitCOptions {
    const char *source_name;  /* for the header comment */
    const char *prefix;       /* prepended to function names ("" = none) */
} EmitCOptions;

/* Writes the helpers once, then each program. */
void emit_c_file(FILE *out, const RankProgram *const *progs, int nprogs,
                 const EmitCOptions *opts);

/* The prototype of a compiled algorithm, coll.h's signature, without the
 * trailing `;` or body: "int PREFIXNAME(coll_comm *comm, ..., coll_op op[,
 * int root])". The one spelling the C file and the header (emit_header.h)
 * share. */
void emit_c_prototype(FILE *out, const Algorithm *alg, const char *prefix);
/* The same for its nonblocking and persistent forms: "int
 * PREFIXNAMESUFFIX(coll_comm *comm, ..., coll_request **req)" for SUFFIX
 * "_start" and "_init" (coll.h §3). */
void emit_c_start_prototype(FILE *out, const Algorithm *alg, const char *prefix,
                            const char *suffix);

/* The collective's ID in the table ("ALLREDUCE"): coll.h's COLL_<ID>,
 * collmpi.h's COLLMPI_DECLARE_<ID>. */
const char *emit_c_collective_id(Collective c);

#endif
