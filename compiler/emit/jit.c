/* jit.c - LLJIT over the module of emit_llvm_module; see jit.h. */
#include "emit/jit.h"
#include "emit/emit_llvm.h"
#include "support/util.h"

#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>

#include <string.h>

struct Jit {
    LLVMOrcLLJITRef lljit;
};

static int report(LLVMErrorRef err, DiagEngine *dx, const char *what) {
    if (!err) return 0;
    char *m = LLVMGetErrorMessage(err);
    diag_error(dx, span_none(), "jit", "%s: %s", what, m);
    LLVMDisposeErrorMessage(m);
    return -1;
}

Jit *jit_compile(const RankProgram *const *progs, int nprogs, int opt_level,
                 const JitSymbol *runtime, int nruntime, DiagEngine *dx) {
    Jit *jit = xcalloc(1, sizeof *jit);
    LLVMInitializeNativeTarget();
    LLVMInitializeNativeAsmPrinter();
    if (report(LLVMOrcCreateLLJIT(&jit->lljit, NULL), dx, "cannot create the JIT")) {
        free(jit);
        return NULL;
    }
    LLVMOrcJITDylibRef jd = LLVMOrcLLJITGetMainJITDylib(jit->lljit);
    /* The runtime's functions, at the addresses the caller linked. */
    LLVMJITCSymbolMapPair *syms = xcalloc((size_t)(nruntime > 0 ? nruntime : 1), sizeof *syms);
    for (int i = 0; i < nruntime; i++) {
        syms[i].Name = LLVMOrcLLJITMangleAndIntern(jit->lljit, runtime[i].name);
        syms[i].Sym.Address = (LLVMOrcExecutorAddress)(uintptr_t)runtime[i].address;
        syms[i].Sym.Flags.GenericFlags = LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable;
        syms[i].Sym.Flags.TargetFlags = 0;
    }
    LLVMOrcMaterializationUnitRef mu = LLVMOrcAbsoluteSymbols(syms, (size_t)nruntime);
    free(syms);
    if (report(LLVMOrcJITDylibDefine(jd, mu), dx, "cannot define the runtime symbols")) {
        jit_free(jit);
        return NULL;
    }
    LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
    EmitLLVMOptions o = {.module_name = "collc-run", .triple = NULL, .opt_level = opt_level,
                         .prefix = "", .kind = LLVM_OUT_OBJECT, .output = NULL};
    LLVMModuleRef mod = emit_llvm_module(LLVMOrcThreadSafeContextGetContext(tsc), progs, nprogs, &o, dx);
    if (!mod) {
        LLVMOrcDisposeThreadSafeContext(tsc);
        jit_free(jit);
        return NULL;
    }
    LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(mod, tsc);
    LLVMOrcDisposeThreadSafeContext(tsc); /* the module keeps the context alive */
    if (report(LLVMOrcLLJITAddLLVMIRModule(jit->lljit, jd, tsm), dx, "cannot add the module")) {
        jit_free(jit);
        return NULL;
    }
    return jit;
}

void *jit_lookup(Jit *jit, const char *name) {
    LLVMOrcExecutorAddress addr = 0;
    LLVMErrorRef err = LLVMOrcLLJITLookup(jit->lljit, &addr, name);
    if (err) {
        LLVMConsumeError(err);
        return NULL;
    }
    return (void *)(uintptr_t)addr;
}

void jit_free(Jit *jit) {
    if (!jit) return;
    if (jit->lljit) {
        LLVMErrorRef err = LLVMOrcDisposeLLJIT(jit->lljit);
        if (err) LLVMConsumeError(err);
    }
    free(jit);
}
