/* emit_llvm.h - LLVM emitter for Rank IR programs, through the LLVM-C API.
 *
 * Produces the same functions as emit_c (same transport ABI, same checked
 * integer semantics), as LLVM IR text, bitcode, assembly or an object file
 * for a target triple (emit/llvm_target.h), optimised with the new pass
 * manager (LLVMRunPasses). The module is verified (LLVMVerifyModule) before
 * and after optimisation and before it is written. */
#ifndef COLLC_EMIT_LLVM_H
#define COLLC_EMIT_LLVM_H

#include "emit/llvm_target.h"
#include "lower/rankir.h"
#include "support/diag.h"

typedef struct EmitLLVMOptions {
    const char *module_name;  /* usually the input file name */
    const char *triple;       /* NULL: the host's default triple */
    int opt_level;            /* 0..3 */
    const char *prefix;       /* prepended to function names ("" = none) */
    LLVMOutputKind kind;
    const char *output;       /* path, or "-" for stdout */
} EmitLLVMOptions;

/* Builds, verifies, optimises and writes the module. Problems (unknown
 * triple, cannot write the output) are reported through dx; an invalid
 * module is an internal error. Returns 0 on success. */
int emit_llvm_file(const RankProgram *const *progs, int nprogs, const EmitLLVMOptions *opts,
                   DiagEngine *dx);

/* Builds, verifies and optimises the module in `ctx` (owned by the caller,
 * e.g. an ORC thread-safe context) without writing it; for the JIT of
 * `collc run`. NULL after reporting an error. */
LLVMModuleRef emit_llvm_module(LLVMContextRef ctx, const RankProgram *const *progs, int nprogs,
                               const EmitLLVMOptions *opts, DiagEngine *dx);

#endif
