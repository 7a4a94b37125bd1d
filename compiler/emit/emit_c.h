/* emit_c.h - C source emitter for Rank IR programs.
 *
 * The output is one self-contained translation unit per run: a small block
 * of checked integer helpers (the .coll expression semantics: floor division,
 * mathematical modulo, overflow and shift checks) and one function per
 * algorithm with the signature of runtime/include/coll.h. It compiles with
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

#endif
