/* llvm_target.h - the one LLVM target set-up of the emitters (emit_llvm.c
 * for Rank IR programs, and the object writers of the targets whose programs
 * are their own, such as descriptor bundles): triple ->
 * target -> target machine -> data layout, the module that carries them,
 * and writing the module out. Every write verifies the module first; an
 * invalid module is an internal error. */
#ifndef COLLC_LLVM_TARGET_H
#define COLLC_LLVM_TARGET_H

#include <llvm-c/TargetMachine.h>
#include <llvm-c/Types.h>
#include "support/diag.h"

typedef enum LLVMOutputKind {
    LLVM_OUT_IR,       /* -S -emit-llvm: textual IR (.ll) */
    LLVM_OUT_BITCODE,  /* -c -emit-llvm: bitcode (.bc) */
    LLVM_OUT_ASM,      /* -S: target assembly (.s) */
    LLVM_OUT_OBJECT,   /* -c: relocatable object (.o) */
} LLVMOutputKind;

/* One module for one target. */
typedef struct LLVMTargetCtx {
    LLVMContextRef ctx;
    LLVMModuleRef mod;         /* NULL once taken (llvm_target_take_module) */
    LLVMTargetMachineRef tm;
    LLVMTargetDataRef td;      /* the target's data layout, also the module's */
    int own_ctx;               /* ctx was created by llvm_target_open */
} LLVMTargetCtx;

/* Creates the module `name` for `triple` (NULL: the host's default) in ctx
 * (NULL: a new context that llvm_target_close disposes of). opt_level 0..3
 * sets the code generator's level. An unknown triple is reported through
 * dx ("bad-triple"). Returns 0, or -1 with nothing left to close. */
int llvm_target_open(LLVMTargetCtx *t, LLVMContextRef ctx, const char *name, const char *triple,
                     int opt_level, DiagEngine *dx);
/* Aborts with the verifier's message if the module is invalid; `what` says
 * when ("after optimisation"). */
void llvm_target_verify(const LLVMTargetCtx *t, const char *what);
/* Verifies the module and writes it as `kind` to path ("-" = stdout).
 * Returns 0, or -1 after reporting. */
int llvm_target_write(LLVMTargetCtx *t, LLVMOutputKind kind, const char *path, DiagEngine *dx);
/* Hands the module to the caller (e.g. the JIT): close leaves it alone. */
LLVMModuleRef llvm_target_take_module(LLVMTargetCtx *t);
void llvm_target_close(LLVMTargetCtx *t);

#endif
