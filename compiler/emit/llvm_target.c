/* llvm_target.c - target set-up and module output for the LLVM emitters
 * (see llvm_target.h). */
#include "emit/llvm_target.h"
#include "support/util.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/Target.h>

#include <stdio.h>
#include <string.h>

int llvm_target_open(LLVMTargetCtx *t, LLVMContextRef ctx, const char *name, const char *triple_opt,
                     int opt_level, DiagEngine *dx) {
    memset(t, 0, sizeof *t);
    LLVMInitializeAllTargetInfos();
    LLVMInitializeAllTargets();
    LLVMInitializeAllTargetMCs();
    LLVMInitializeAllAsmPrinters();
    char *triple = triple_opt ? LLVMNormalizeTargetTriple(triple_opt) : LLVMGetDefaultTargetTriple();
    LLVMTargetRef target;
    char *msg = NULL;
    if (LLVMGetTargetFromTriple(triple, &target, &msg)) {
        diag_error(dx, span_none(), "bad-triple", "cannot generate code for target '%s': %s",
                   triple_opt ? triple_opt : triple, msg ? msg : "unknown target");
        LLVMDisposeMessage(msg);
        LLVMDisposeMessage(triple);
        return -1;
    }
    LLVMCodeGenOptLevel lvl = opt_level <= 0 ? LLVMCodeGenLevelNone
                              : opt_level == 1 ? LLVMCodeGenLevelLess
                              : opt_level == 2 ? LLVMCodeGenLevelDefault
                                               : LLVMCodeGenLevelAggressive;
    t->tm = LLVMCreateTargetMachine(target, triple, "generic", "", lvl, LLVMRelocPIC, LLVMCodeModelDefault);
    t->td = LLVMCreateTargetDataLayout(t->tm);
    t->own_ctx = ctx == NULL;
    t->ctx = ctx ? ctx : LLVMContextCreate();
    t->mod = LLVMModuleCreateWithNameInContext(name, t->ctx);
    LLVMSetTarget(t->mod, triple);
    LLVMSetModuleDataLayout(t->mod, t->td);
    LLVMDisposeMessage(triple);
    return 0;
}

void llvm_target_verify(const LLVMTargetCtx *t, const char *what) {
    char *msg = NULL;
    if (LLVMVerifyModule(t->mod, LLVMReturnStatusAction, &msg)) {
        fprintf(stderr, "invalid LLVM module %s:\n%s\n", what, msg ? msg : "");
        COLLC_UNREACHABLE("invalid LLVM module");
    }
    LLVMDisposeMessage(msg);
}

static int write_bytes(const char *path, const char *data, size_t n, DiagEngine *dx) {
    FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "wb");
    if (!f) {
        diag_error(dx, span_none(), "io", "cannot open '%s' for writing", path);
        return -1;
    }
    int bad = fwrite(data, 1, n, f) != n;
    if (f != stdout) bad |= fclose(f) != 0;
    else bad |= fflush(f) != 0;
    if (bad) diag_error(dx, span_none(), "io", "cannot write '%s'", path);
    return bad ? -1 : 0;
}

int llvm_target_write(LLVMTargetCtx *t, LLVMOutputKind kind, const char *path, DiagEngine *dx) {
    llvm_target_verify(t, "before writing it");
    int rc = 0;
    switch (kind) {
    case LLVM_OUT_IR: {
        char *s = LLVMPrintModuleToString(t->mod);
        rc = write_bytes(path, s, strlen(s), dx);
        LLVMDisposeMessage(s);
        break;
    }
    case LLVM_OUT_BITCODE: {
        LLVMMemoryBufferRef mb = LLVMWriteBitcodeToMemoryBuffer(t->mod);
        rc = write_bytes(path, LLVMGetBufferStart(mb), LLVMGetBufferSize(mb), dx);
        LLVMDisposeMemoryBuffer(mb);
        break;
    }
    case LLVM_OUT_ASM:
    case LLVM_OUT_OBJECT: {
        LLVMMemoryBufferRef mb = NULL;
        char *err = NULL;
        if (LLVMTargetMachineEmitToMemoryBuffer(t->tm, t->mod, kind == LLVM_OUT_ASM ? LLVMAssemblyFile : LLVMObjectFile,
                                                &err, &mb)) {
            diag_error(dx, span_none(), "codegen", "code generation failed: %s", err ? err : "?");
            LLVMDisposeMessage(err);
            return -1;
        }
        rc = write_bytes(path, LLVMGetBufferStart(mb), LLVMGetBufferSize(mb), dx);
        LLVMDisposeMemoryBuffer(mb);
        break;
    }
    }
    return rc;
}

LLVMModuleRef llvm_target_take_module(LLVMTargetCtx *t) {
    LLVMModuleRef m = t->mod;
    t->mod = NULL;
    return m;
}

void llvm_target_close(LLVMTargetCtx *t) {
    if (t->mod) LLVMDisposeModule(t->mod);
    if (t->td) LLVMDisposeTargetData(t->td);
    if (t->tm) LLVMDisposeTargetMachine(t->tm);
    if (t->own_ctx && t->ctx) LLVMContextDispose(t->ctx);
    memset(t, 0, sizeof *t);
}
