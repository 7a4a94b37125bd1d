/* jit.h - in-memory compilation of Rank IR programs with LLVM ORC (LLJIT),
 * for `collc run`: the same module emit_llvm writes to a .o, linked against
 * runtime functions whose addresses the caller supplies. */
#ifndef COLLC_JIT_H
#define COLLC_JIT_H

#include "lower/rankir.h"
#include "support/diag.h"

typedef struct JitSymbol { const char *name; void *address; } JitSymbol;

typedef struct Jit Jit;

/* Compiles `progs` at -O`opt_level` for the host. `runtime` lists every
 * runtime function the generated code may call (coll_begin ...). NULL after
 * reporting an error. */
Jit *jit_compile(const RankProgram *const *progs, int nprogs, int opt_level,
                 const JitSymbol *runtime, int nruntime, DiagEngine *dx);
/* Address of a generated function, or NULL. */
void *jit_lookup(Jit *jit, const char *name);
void jit_free(Jit *jit);

#endif
