/* emit_llvm.c - Rank IR -> LLVM IR through the LLVM-C 14 API.
 *
 * Mirrors emit_c.c construct for construct so the two backends compute the
 * same thing: one i64 stack slot per frame slot, the checked operators of the
 * expression language (overflow intrinsics, floor division/modulo, shift and
 * log2 checks) setting an error flag that sends the call to `fail`
 * (COLL_ERR_INTERNAL), short-circuit && and ||, ?: evaluating one branch, and
 * the transport ABI calls
 * of runtime/include/coll.h. mem2reg/SROA (in the default pipelines) turn
 * the slots into SSA values. */
#include "emit/emit_llvm.h"
#include "emit/emit_mpi.h"
#include "support/util.h"

#include <coll.h> /* the ABI the generated code is built for */

#include <llvm-c/Core.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include <stdio.h>
#include <string.h>

/* Everything of one LLVM compilation: context, module, target, types and the
 * runtime's declarations. */
typedef struct LLVMGen {
    LLVMTargetCtx t;            /* context, module, target machine, data layout */
    LLVMBuilderRef b;
    LLVMTypeRef i1, i8, i32, i64, isize, ptr, ptrptr, voidt;
    /* runtime functions: type and declaration */
    struct { LLVMTypeRef ty; LLVMValueRef fn; } begin, setup, send, recv, recv_reduce, copy,
        reduce, step_end, finish, comm_size, comm_rank, start, init;
    /* the function being built */
    const RankProgram *rp;
    LLVMValueRef fn;
    LLVMValueRef *slots;        /* [nslots] i64 allocas */
    LLVMValueRef err;           /* i1 alloca */
    LLVMValueRef call;          /* i8* coll_call (loaded after coll_begin) */
    LLVMValueRef count;         /* size_t count argument */
    LLVMBasicBlockRef fail_bb;
    LLVMBuilderRef alloca_b;    /* positioned in the entry block */
} LLVMGen;

/* ---------- declarations ---------- */

#define DECL(field, name, ret, ...)                                                    \
    do {                                                                               \
        LLVMTypeRef ps[] = {__VA_ARGS__};                                              \
        G->field.ty = LLVMFunctionType(ret, ps, (unsigned)(sizeof ps / sizeof *ps), 0); \
        G->field.fn = LLVMAddFunction(G->t.mod, name, G->field.ty);                    \
    } while (0)

static void declare_runtime(LLVMGen *G) {
    LLVMTypeRef p = G->ptr, i = G->i32, l = G->i64;
    DECL(begin, "coll_begin", i, p, p, p, p, G->isize, i, i, i, G->ptrptr);
    DECL(setup, "coll_setup", i, p, l, i, LLVMPointerType(l, 0));
    DECL(send, "coll_send", G->voidt, p, l, i, l, l);
    DECL(recv, "coll_recv", G->voidt, p, l, i, l, l);
    DECL(recv_reduce, "coll_recv_reduce", G->voidt, p, l, i, l, l);
    DECL(copy, "coll_copy", G->voidt, p, i, l, i, l, l);
    DECL(reduce, "coll_reduce", G->voidt, p, i, l, i, l, l);
    DECL(step_end, "coll_step_end", i, p);
    DECL(finish, "coll_finish", i, p, i);
    DECL(comm_size, "coll_comm_size", i, p);
    DECL(comm_rank, "coll_comm_rank", i, p);
    DECL(start, "coll_start", i, p, p, p, p, p, G->isize, i, i, i, G->ptrptr);
    DECL(init, "coll_init", i, p, p, p, p, p, G->isize, i, i, i, G->ptrptr);
}

static LLVMValueRef call(LLVMGen *G, LLVMTypeRef ty, LLVMValueRef fn, LLVMValueRef *args,
                         unsigned n) {
    return LLVMBuildCall2(G->b, ty, fn, args, n, "");
}

static LLVMValueRef c64(LLVMGen *G, int64_t v) { return LLVMConstInt(G->i64, (unsigned long long)v, 1); }
static LLVMValueRef c32(LLVMGen *G, int v) { return LLVMConstInt(G->i32, (unsigned long long)v, 1); }

static LLVMBasicBlockRef new_block(LLVMGen *G, const char *name) {
    return LLVMAppendBasicBlockInContext(G->t.ctx, G->fn, name);
}

/* ---------- checked arithmetic ---------- */

static void set_err_if(LLVMGen *G, LLVMValueRef cond) {
    LLVMValueRef old = LLVMBuildLoad2(G->b, G->i1, G->err, "");
    LLVMBuildStore(G->b, LLVMBuildOr(G->b, old, cond, ""), G->err);
}

/* A call of the i64 overload of a two-argument intrinsic ("llvm.ctlz"). */
static LLVMValueRef call_intrinsic(LLVMGen *G, const char *intrinsic, LLVMValueRef a, LLVMValueRef b) {
    unsigned id = LLVMLookupIntrinsicID(intrinsic, strlen(intrinsic));
    LLVMTypeRef tys[] = {G->i64};
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(G->t.mod, id, tys, 1);
    LLVMTypeRef fty = LLVMIntrinsicGetType(G->t.ctx, id, tys, 1);
    LLVMValueRef args[] = {a, b};
    return LLVMBuildCall2(G->b, fty, fn, args, 2, "");
}

static LLVMValueRef overflow_op(LLVMGen *G, const char *intrinsic, LLVMValueRef a, LLVMValueRef b) {
    LLVMValueRef pair = call_intrinsic(G, intrinsic, a, b);
    set_err_if(G, LLVMBuildExtractValue(G->b, pair, 1, ""));
    return LLVMBuildExtractValue(G->b, pair, 0, "");
}

static LLVMValueRef ctlz(LLVMGen *G, LLVMValueRef x) {
    return call_intrinsic(G, "llvm.ctlz", x, LLVMConstInt(G->i1, 0, 0));
}

static LLVMValueRef bool64(LLVMGen *G, LLVMValueRef i1v) { return LLVMBuildZExt(G->b, i1v, G->i64, ""); }

/* Floor division / mathematical modulo with the language's error rules. */
static LLVMValueRef divmod(LLVMGen *G, LLVMValueRef a, LLVMValueRef b, int want_mod) {
    LLVMBuilderRef B = G->b;
    LLVMValueRef zero = c64(G, 0), one = c64(G, 1), minus1 = c64(G, -1);
    LLVMValueRef bz = LLVMBuildICmp(B, LLVMIntEQ, b, zero, "");
    LLVMValueRef amin = LLVMBuildICmp(B, LLVMIntEQ, a, c64(G, INT64_MIN), "");
    LLVMValueRef bm1 = LLVMBuildICmp(B, LLVMIntEQ, b, minus1, "");
    LLVMValueRef ovf = LLVMBuildAnd(B, amin, bm1, "");
    /* a % -1 == 0 is fine; only the quotient overflows */
    set_err_if(G, want_mod ? bz : LLVMBuildOr(B, bz, ovf, ""));
    /* safe divisor: 1 when b is 0 or (a, b) = (MIN, -1) */
    LLVMValueRef bsafe = LLVMBuildSelect(B, LLVMBuildOr(B, bz, ovf, ""), one, b, "");
    LLVMValueRef q = LLVMBuildSDiv(B, a, bsafe, "");
    LLVMValueRef r = LLVMBuildSRem(B, a, bsafe, "");
    LLVMValueRef rnz = LLVMBuildICmp(B, LLVMIntNE, r, zero, "");
    LLVMValueRef sign_differs = LLVMBuildXor(B, LLVMBuildICmp(B, LLVMIntSLT, r, zero, ""),
                                             LLVMBuildICmp(B, LLVMIntSLT, bsafe, zero, ""), "");
    LLVMValueRef adjust = LLVMBuildAnd(B, rnz, sign_differs, "");
    if (want_mod) return LLVMBuildSelect(B, adjust, LLVMBuildAdd(B, r, bsafe, ""), r, "");
    return LLVMBuildSelect(B, adjust, LLVMBuildSub(B, q, one, ""), q, "");
}

static LLVMValueRef shift(LLVMGen *G, LLVMValueRef a, LLVMValueRef b, int left) {
    LLVMBuilderRef B = G->b;
    LLVMValueRef bad = LLVMBuildOr(B, LLVMBuildICmp(B, LLVMIntSLT, b, c64(G, 0), ""),
                                   LLVMBuildICmp(B, LLVMIntSGE, b, c64(G, 63), ""), "");
    set_err_if(G, bad);
    LLVMValueRef bs = LLVMBuildSelect(B, bad, c64(G, 0), b, "");
    if (!left) return LLVMBuildAShr(B, a, bs, "");
    return overflow_op(G, "llvm.smul.with.overflow", a, LLVMBuildShl(B, c64(G, 1), bs, ""));
}

static LLVMValueRef expr(LLVMGen *G, const Expr *e);

static LLVMValueRef short_circuit(LLVMGen *G, const Expr *e) {
    int is_and = e->u.binary.op == BOP_LAND;
    LLVMValueRef l = LLVMBuildICmp(G->b, LLVMIntNE, expr(G, e->u.binary.lhs), c64(G, 0), "");
    LLVMBasicBlockRef lhs_bb = LLVMGetInsertBlock(G->b);
    LLVMBasicBlockRef rhs_bb = new_block(G, is_and ? "and.rhs" : "or.rhs");
    LLVMBasicBlockRef end_bb = new_block(G, is_and ? "and.end" : "or.end");
    if (is_and) LLVMBuildCondBr(G->b, l, rhs_bb, end_bb);
    else LLVMBuildCondBr(G->b, l, end_bb, rhs_bb);
    LLVMPositionBuilderAtEnd(G->b, rhs_bb);
    LLVMValueRef r = LLVMBuildICmp(G->b, LLVMIntNE, expr(G, e->u.binary.rhs), c64(G, 0), "");
    LLVMBasicBlockRef rhs_end = LLVMGetInsertBlock(G->b);
    LLVMBuildBr(G->b, end_bb);
    LLVMPositionBuilderAtEnd(G->b, end_bb);
    LLVMValueRef phi = LLVMBuildPhi(G->b, G->i1, "");
    LLVMValueRef vals[] = {LLVMConstInt(G->i1, is_and ? 0 : 1, 0), r};
    LLVMBasicBlockRef bbs[] = {lhs_bb, rhs_end};
    LLVMAddIncoming(phi, vals, bbs, 2);
    return bool64(G, phi);
}

/* c ? a : b, evaluating only the chosen branch (its checks included). */
static LLVMValueRef select_branch(LLVMGen *G, const Expr *e) {
    LLVMValueRef c = LLVMBuildICmp(G->b, LLVMIntNE, expr(G, e->u.cond.cond), c64(G, 0), "");
    LLVMBasicBlockRef then_bb = new_block(G, "cond.then");
    LLVMBasicBlockRef else_bb = new_block(G, "cond.else");
    LLVMBasicBlockRef end_bb = new_block(G, "cond.end");
    LLVMBuildCondBr(G->b, c, then_bb, else_bb);
    LLVMPositionBuilderAtEnd(G->b, then_bb);
    LLVMValueRef a = expr(G, e->u.cond.then_);
    LLVMBasicBlockRef then_end = LLVMGetInsertBlock(G->b);
    LLVMBuildBr(G->b, end_bb);
    LLVMPositionBuilderAtEnd(G->b, else_bb);
    LLVMValueRef b = expr(G, e->u.cond.else_);
    LLVMBasicBlockRef else_end = LLVMGetInsertBlock(G->b);
    LLVMBuildBr(G->b, end_bb);
    LLVMPositionBuilderAtEnd(G->b, end_bb);
    LLVMValueRef phi = LLVMBuildPhi(G->b, G->i64, "");
    LLVMValueRef vals[] = {a, b};
    LLVMBasicBlockRef bbs[] = {then_end, else_end};
    LLVMAddIncoming(phi, vals, bbs, 2);
    return phi;
}

/* A loop that carries two i64 values:
 *   pre:  br head
 *   head: x, y = phi [x0, y0 from pre], [next from the latch]; br cond, body, done
 *   body: ... br head (or leave to done)
 * loop_begin makes the blocks PREFIX.head, PREFIX.body and PREFIX.end and
 * the phis, and leaves the builder in head; loop_body branches on `cond`
 * and moves to the body; loop_end closes the back edge from where the
 * builder is and moves to done. */
typedef struct Loop2 {
    LLVMBasicBlockRef head, body, done;
    LLVMValueRef x, y;          /* the carried values, phis of head */
} Loop2;

static Loop2 loop_begin(LLVMGen *G, const char *prefix, const char *xname, LLVMValueRef x0,
                        const char *yname, LLVMValueRef y0) {
    LLVMBuilderRef B = G->b;
    Loop2 l;
    char name[32];
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(B);
    snprintf(name, sizeof name, "%s.head", prefix);
    l.head = new_block(G, name);
    snprintf(name, sizeof name, "%s.body", prefix);
    l.body = new_block(G, name);
    snprintf(name, sizeof name, "%s.end", prefix);
    l.done = new_block(G, name);
    LLVMBuildBr(B, l.head);
    LLVMPositionBuilderAtEnd(B, l.head);
    l.x = LLVMBuildPhi(B, G->i64, xname);
    l.y = LLVMBuildPhi(B, G->i64, yname);
    LLVMAddIncoming(l.x, &x0, &pre, 1);
    LLVMAddIncoming(l.y, &y0, &pre, 1);
    return l;
}

static void loop_body(LLVMGen *G, const Loop2 *l, LLVMValueRef cond) {
    LLVMBuildCondBr(G->b, cond, l->body, l->done);
    LLVMPositionBuilderAtEnd(G->b, l->body);
}

/* `leave` (or NULL): an i1 that ends the loop from the latch. */
static void loop_end(LLVMGen *G, const Loop2 *l, LLVMValueRef x1, LLVMValueRef y1, LLVMValueRef leave) {
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(G->b);
    if (leave) LLVMBuildCondBr(G->b, leave, l->done, l->head);
    else LLVMBuildBr(G->b, l->head);
    LLVMAddIncoming(l->x, &x1, &latch, 1);
    LLVMAddIncoming(l->y, &y1, &latch, 1);
    LLVMPositionBuilderAtEnd(G->b, l->done);
}

/* pow(a, b) as emit_c.c's cc_pow: b < 0 is an error; a in {0, 1, -1} in
 * closed form; otherwise at most 64 checked multiplications (|a| >= 2
 * overflows before that), so a huge b cannot make the loop long. */
static LLVMValueRef power(LLVMGen *G, LLVMValueRef a, LLVMValueRef b) {
    LLVMBuilderRef B = G->b;
    LLVMValueRef zero = c64(G, 0), one = c64(G, 1);
    LLVMValueRef neg = LLVMBuildICmp(B, LLVMIntSLT, b, zero, "");
    set_err_if(G, neg);
    LLVMValueRef a0 = LLVMBuildICmp(B, LLVMIntEQ, a, zero, "");
    LLVMValueRef a1 = LLVMBuildICmp(B, LLVMIntEQ, a, one, "");
    LLVMValueRef am1 = LLVMBuildICmp(B, LLVMIntEQ, a, c64(G, -1), "");
    LLVMValueRef triv = LLVMBuildOr(B, LLVMBuildOr(B, a0, a1, ""), am1, "");
    LLVMValueRef odd = LLVMBuildICmp(B, LLVMIntNE, LLVMBuildAnd(B, b, one, ""), zero, "");
    LLVMValueRef tv = LLVMBuildSelect(B, a1, one,
        LLVMBuildSelect(B, a0, bool64(G, LLVMBuildICmp(B, LLVMIntEQ, b, zero, "")),
                        LLVMBuildSelect(B, odd, c64(G, -1), one, ""), ""), "");
    LLVMValueRef skip = LLVMBuildOr(B, triv, neg, "");
    LLVMValueRef b64 = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSGT, b, c64(G, 64), ""),
                                       c64(G, 64), b, "");
    LLVMValueRef n = LLVMBuildSelect(B, skip, zero, b64, "");
    Loop2 l = loop_begin(G, "pow", "pow.i", zero, "pow.p", one);   /* i, p = a^i */
    loop_body(G, &l, LLVMBuildICmp(B, LLVMIntSLT, l.x, n, ""));
    LLVMValueRef p2 = overflow_op(G, "llvm.smul.with.overflow", l.y, a);
    loop_end(G, &l, LLVMBuildAdd(B, l.x, one, ""), p2, NULL);
    return LLVMBuildSelect(B, triv, tv, l.y, "");
}

/* log(b, x) and ceil_log(b, x) as emit_c.c's cc_log/cc_ceil_log. */
static LLVMValueRef int_log(LLVMGen *G, LLVMValueRef b, LLVMValueRef x, int ceil) {
    LLVMBuilderRef B = G->b;
    LLVMValueRef zero = c64(G, 0), one = c64(G, 1);
    LLVMValueRef bad = LLVMBuildOr(B, LLVMBuildICmp(B, LLVMIntSLT, b, c64(G, 2), ""),
                                   LLVMBuildICmp(B, LLVMIntSLE, x, zero, ""), "");
    set_err_if(G, bad);
    LLVMValueRef bs = LLVMBuildSelect(B, bad, c64(G, 2), b, "");
    LLVMValueRef xs = LLVMBuildSelect(B, bad, one, x, "");
    Loop2 l = loop_begin(G, "log", "log.n", zero, ceil ? "log.p" : "log.x", ceil ? one : xs);
    LLVMValueRef n = l.x, v = l.y;
    /* floor: divide x by b while x >= b; ceil: multiply p = 1 by b while p < x */
    LLVMValueRef more = ceil ? LLVMBuildICmp(B, LLVMIntSLT, v, xs, "")
                             : LLVMBuildICmp(B, LLVMIntSGE, v, bs, "");
    loop_body(G, &l, more);
    LLVMValueRef n2 = LLVMBuildAdd(B, n, one, "");
    LLVMValueRef v2, big = NULL;
    if (ceil) {
        /* p > INT64_MAX / b: b^n already exceeds x, stop before overflowing */
        big = LLVMBuildICmp(B, LLVMIntSGT, v, LLVMBuildSDiv(B, c64(G, INT64_MAX), bs, ""), "");
        v2 = LLVMBuildMul(B, v, LLVMBuildSelect(B, big, one, bs, ""), "");
    } else {
        v2 = LLVMBuildSDiv(B, v, bs, "");
    }
    loop_end(G, &l, n2, v2, big);
    if (!ceil) return n;
    LLVMValueRef r = LLVMBuildPhi(B, G->i64, "log.r");
    LLVMValueRef rv[] = {n, n2};
    LLVMBasicBlockRef rf[] = {l.head, l.body};
    LLVMAddIncoming(r, rv, rf, 2);
    return r;
}

/* gcd and lcm as emit_c.c's cc_gcd/cc_lcm: Euclid on the magnitudes in
 * unsigned arithmetic; a result above INT64_MAX is an overflow. */
static LLVMValueRef gcd_lcm(LLVMGen *G, LLVMValueRef a, LLVMValueRef b, int lcm) {
    LLVMBuilderRef B = G->b;
    LLVMValueRef zero = c64(G, 0);
    LLVMValueRef ua = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, a, zero, ""),
                                      LLVMBuildSub(B, zero, a, ""), a, "");
    LLVMValueRef ub = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, b, zero, ""),
                                      LLVMBuildSub(B, zero, b, ""), b, "");
    Loop2 l = loop_begin(G, "gcd", "gcd.x", ua, "gcd.y", ub);
    loop_body(G, &l, LLVMBuildICmp(B, LLVMIntNE, l.y, zero, ""));
    loop_end(G, &l, l.y, LLVMBuildURem(B, l.x, l.y, ""), NULL);
    LLVMValueRef g = l.x;  /* gcd(|a|, |b|), unsigned */
    if (!lcm) {
        set_err_if(G, LLVMBuildICmp(B, LLVMIntSLT, g, zero, ""));
        return g;
    }
    LLVMValueRef any0 = LLVMBuildOr(B, LLVMBuildICmp(B, LLVMIntEQ, ua, zero, ""),
                                    LLVMBuildICmp(B, LLVMIntEQ, ub, zero, ""), "");
    LLVMValueRef gs = LLVMBuildSelect(B, any0, c64(G, 1), g, "");
    LLVMValueRef pair = call_intrinsic(G, "llvm.umul.with.overflow", LLVMBuildUDiv(B, ua, gs, ""), ub);
    LLVMValueRef v = LLVMBuildExtractValue(B, pair, 0, "");
    LLVMValueRef bad = LLVMBuildOr(B, LLVMBuildExtractValue(B, pair, 1, ""),
                                   LLVMBuildICmp(B, LLVMIntSLT, v, zero, ""), "");
    set_err_if(G, LLVMBuildAnd(B, bad, LLVMBuildNot(B, any0, ""), ""));
    return LLVMBuildSelect(B, any0, zero, v, "");
}

static LLVMValueRef expr(LLVMGen *G, const Expr *e) {
    LLVMBuilderRef B = G->b;
    switch (e->kind) {
    case EXPR_INT:
        return c64(G, e->u.ival);
    case EXPR_NAME:
        return LLVMBuildLoad2(B, G->i64, G->slots[e->u.name.sym->slot], e->u.name.sym->name);
    case EXPR_UNARY: {
        LLVMValueRef a = expr(G, e->u.unary.operand);
        switch (e->u.unary.op) {
        case UOP_NEG: return overflow_op(G, "llvm.ssub.with.overflow", c64(G, 0), a);
        case UOP_BNOT: return LLVMBuildNot(B, a, "");
        case UOP_LNOT: return bool64(G, LLVMBuildICmp(B, LLVMIntEQ, a, c64(G, 0), ""));
        }
        break;
    }
    case EXPR_BINARY: {
        BinaryOp op = e->u.binary.op;
        if (op == BOP_LAND || op == BOP_LOR) return short_circuit(G, e);
        LLVMValueRef a = expr(G, e->u.binary.lhs);
        LLVMValueRef b = expr(G, e->u.binary.rhs);
        switch (op) {
        case BOP_ADD: return overflow_op(G, "llvm.sadd.with.overflow", a, b);
        case BOP_SUB: return overflow_op(G, "llvm.ssub.with.overflow", a, b);
        case BOP_MUL: return overflow_op(G, "llvm.smul.with.overflow", a, b);
        case BOP_DIV: return divmod(G, a, b, 0);
        case BOP_MOD: return divmod(G, a, b, 1);
        case BOP_SHL: return shift(G, a, b, 1);
        case BOP_SHR: return shift(G, a, b, 0);
        case BOP_BAND: return LLVMBuildAnd(B, a, b, "");
        case BOP_BOR: return LLVMBuildOr(B, a, b, "");
        case BOP_BXOR: return LLVMBuildXor(B, a, b, "");
        case BOP_EQ: return bool64(G, LLVMBuildICmp(B, LLVMIntEQ, a, b, ""));
        case BOP_NE: return bool64(G, LLVMBuildICmp(B, LLVMIntNE, a, b, ""));
        case BOP_LT: return bool64(G, LLVMBuildICmp(B, LLVMIntSLT, a, b, ""));
        case BOP_LE: return bool64(G, LLVMBuildICmp(B, LLVMIntSLE, a, b, ""));
        case BOP_GT: return bool64(G, LLVMBuildICmp(B, LLVMIntSGT, a, b, ""));
        case BOP_GE: return bool64(G, LLVMBuildICmp(B, LLVMIntSGE, a, b, ""));
        case BOP_LAND: case BOP_LOR: break;
        }
        break;
    }
    case EXPR_CALL: {
        LLVMValueRef x = expr(G, e->u.call.args[0]);
        switch (e->u.call.builtin) {
        case BUILTIN_MIN: case BUILTIN_MAX: {
            LLVMValueRef y = expr(G, e->u.call.args[1]);
            LLVMValueRef lt = LLVMBuildICmp(B, LLVMIntSLT, x, y, "");
            return e->u.call.builtin == BUILTIN_MIN ? LLVMBuildSelect(B, lt, x, y, "")
                                                    : LLVMBuildSelect(B, lt, y, x, "");
        }
        case BUILTIN_LOG2: case BUILTIN_CEIL_LOG2: {
            LLVMValueRef bad = LLVMBuildICmp(B, LLVMIntSLE, x, c64(G, 0), "");
            set_err_if(G, bad);
            LLVMValueRef xs = LLVMBuildSelect(B, bad, c64(G, 1), x, "");
            if (e->u.call.builtin == BUILTIN_LOG2)
                return LLVMBuildSub(B, c64(G, 63), ctlz(G, xs), "");
            LLVMValueRef is1 = LLVMBuildICmp(B, LLVMIntEQ, xs, c64(G, 1), "");
            LLVMValueRef xm1 = LLVMBuildSelect(B, is1, c64(G, 1), LLVMBuildSub(B, xs, c64(G, 1), ""), "");
            LLVMValueRef v = LLVMBuildSub(B, c64(G, 64), ctlz(G, xm1), "");
            return LLVMBuildSelect(B, is1, c64(G, 0), v, "");
        }
        case BUILTIN_IS_POW2: {
            LLVMValueRef pos = LLVMBuildICmp(B, LLVMIntSGT, x, c64(G, 0), "");
            LLVMValueRef single = LLVMBuildICmp(
                B, LLVMIntEQ, LLVMBuildAnd(B, x, LLVMBuildSub(B, x, c64(G, 1), ""), ""), c64(G, 0), "");
            return bool64(G, LLVMBuildAnd(B, pos, single, ""));
        }
        case BUILTIN_LOG: case BUILTIN_CEIL_LOG:
            return int_log(G, x, expr(G, e->u.call.args[1]), e->u.call.builtin == BUILTIN_CEIL_LOG);
        case BUILTIN_POW:
            return power(G, x, expr(G, e->u.call.args[1]));
        case BUILTIN_GCD: case BUILTIN_LCM:
            return gcd_lcm(G, x, expr(G, e->u.call.args[1]), e->u.call.builtin == BUILTIN_LCM);
        case BUILTIN__COUNT: break;
        }
        break;
    }
    case EXPR_COND:
        return select_branch(G, e);
    }
    COLLC_UNREACHABLE("unhandled expression in the LLVM emitter");
}

/* ---------- statements ---------- */

/* After a statement that may have set the flag: leave for `fail` if so. */
static void check_err(LLVMGen *G) {
    LLVMValueRef e = LLVMBuildLoad2(G->b, G->i1, G->err, "");
    LLVMBasicBlockRef ok = new_block(G, "ok");
    LLVMBuildCondBr(G->b, e, G->fail_bb, ok);
    LLVMPositionBuilderAtEnd(G->b, ok);
}

static void finish_with(LLVMGen *G, LLVMValueRef status) {
    LLVMValueRef args[] = {G->call, status};
    LLVMBuildRet(G->b, call(G, G->finish.ty, G->finish.fn, args, 2));
}

/* if (rc != 0) return coll_finish(c, rc); */
static void return_if_error(LLVMGen *G, LLVMValueRef rc) {
    LLVMBasicBlockRef bad = new_block(G, "rc.bad"), ok = new_block(G, "rc.ok");
    LLVMBuildCondBr(G->b, LLVMBuildICmp(G->b, LLVMIntNE, rc, c32(G, COLL_OK), ""), bad, ok);
    LLVMPositionBuilderAtEnd(G->b, bad);
    finish_with(G, rc);
    LLVMPositionBuilderAtEnd(G->b, ok);
}

/* The ABI's number of a buffer (as emit_c.c's buf_const). */
static LLVMValueRef buf_id(LLVMGen *G, int b) {
    if (b == BUF_IN) return c32(G, COLL_BUF_IN);
    if (b == BUF_OUT) return c32(G, COLL_BUF_OUT);
    return c32(G, COLL_BUF_SCRATCH0 + (b - BUF_FIRST_SCRATCH));
}

static void stmts(LLVMGen *G, const RStmt *s);

static void stmt(LLVMGen *G, const RStmt *s) {
    LLVMBuilderRef B = G->b;
    switch (s->kind) {
    case RS_LET:
        LLVMBuildStore(B, expr(G, s->u.let.value), G->slots[s->u.let.sym->slot]);
        check_err(G);
        return;
    case RS_FOR: {
        LLVMValueRef lo = expr(G, s->u.for_.lo);
        LLVMValueRef hi = expr(G, s->u.for_.hi);
        check_err(G);
        LLVMValueRef it = LLVMBuildAlloca(G->alloca_b, G->i64, "it");
        LLVMBuildStore(B, lo, it);
        LLVMBasicBlockRef head = new_block(G, "for.head"), body = new_block(G, "for.body"),
                          end = new_block(G, "for.end");
        LLVMBuildBr(B, head);
        LLVMPositionBuilderAtEnd(B, head);
        LLVMValueRef i = LLVMBuildLoad2(B, G->i64, it, "");
        LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntSLT, i, hi, ""), body, end);
        LLVMPositionBuilderAtEnd(B, body);
        LLVMBuildStore(B, i, G->slots[s->u.for_.sym->slot]);
        stmts(G, s->u.for_.body);
        LLVMBuildStore(B, LLVMBuildAdd(B, LLVMBuildLoad2(B, G->i64, it, ""), c64(G, 1), ""), it);
        LLVMBuildBr(B, head);
        LLVMPositionBuilderAtEnd(B, end);
        return;
    }
    case RS_IF: {
        LLVMValueRef c = LLVMBuildICmp(B, LLVMIntNE, expr(G, s->u.if_.cond), c64(G, 0), "");
        check_err(G);
        LLVMBasicBlockRef then_bb = new_block(G, "if.then"), else_bb = new_block(G, "if.else"),
                          end = new_block(G, "if.end");
        LLVMBuildCondBr(B, c, then_bb, else_bb);
        LLVMPositionBuilderAtEnd(B, then_bb);
        stmts(G, s->u.if_.then_);
        LLVMBuildBr(B, end);
        LLVMPositionBuilderAtEnd(B, else_bb);
        stmts(G, s->u.if_.else_);
        LLVMBuildBr(B, end);
        LLVMPositionBuilderAtEnd(B, end);
        return;
    }
    case RS_REQUIRE: {
        LLVMValueRef c = LLVMBuildICmp(B, LLVMIntNE, expr(G, s->u.require.cond), c64(G, 0), "");
        LLVMValueRef e = LLVMBuildLoad2(B, G->i1, G->err, "");
        LLVMBasicBlockRef bad = new_block(G, "require.fail"), ok = new_block(G, "require.ok");
        LLVMBuildCondBr(B, LLVMBuildAnd(B, c, LLVMBuildNot(B, e, ""), ""), ok, bad);
        LLVMPositionBuilderAtEnd(B, bad);
        finish_with(G, LLVMBuildSelect(B, e, c32(G, COLL_ERR_INTERNAL), c32(G, COLL_ERR_NOT_APPLICABLE), ""));
        LLVMPositionBuilderAtEnd(B, ok);
        return;
    }
    case RS_SETUP: {
        LLVMBasicBlockRef empty = new_block(G, "count.zero"), go = new_block(G, "setup");
        LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntEQ, G->count, LLVMConstInt(G->isize, 0, 0), ""),
                        empty, go);
        LLVMPositionBuilderAtEnd(B, empty);
        finish_with(G, c32(G, COLL_OK));
        LLVMPositionBuilderAtEnd(B, go);
        const RankProgram *rp = G->rp;
        int n = rp->nscratch;
        LLVMValueRef arr = LLVMConstPointerNull(LLVMPointerType(G->i64, 0));
        if (n > 0) {
            LLVMTypeRef aty = LLVMArrayType(G->i64, (unsigned)n);
            LLVMValueRef a = LLVMBuildAlloca(G->alloca_b, aty, "scratch_chunks");
            for (int k = 0; k < n; k++) {
                LLVMValueRef idx[] = {c32(G, 0), c32(G, k)};
                LLVMValueRef p = LLVMBuildInBoundsGEP2(B, aty, a, idx, 2, "");
                LLVMBuildStore(B, LLVMBuildLoad2(B, G->i64, G->slots[rp->sym_scratch[k]->slot], ""), p);
            }
            LLVMValueRef idx[] = {c32(G, 0), c32(G, 0)};
            arr = LLVMBuildInBoundsGEP2(B, aty, a, idx, 2, "");
        }
        LLVMValueRef args[] = {G->call, LLVMBuildLoad2(B, G->i64, G->slots[rp->sym_split->slot], ""),
                               c32(G, n), arr};
        return_if_error(G, call(G, G->setup.ty, G->setup.fn, args, 4));
        return;
    }
    case RS_STEP: {
        stmts(G, s->u.step.body);
        LLVMValueRef args[] = {G->call};
        return_if_error(G, call(G, G->step_end.ty, G->step_end.fn, args, 1));
        return;
    }
    case RS_SEND: {
        LLVMValueRef args[] = {G->call, expr(G, s->u.send.peer), buf_id(G, s->u.send.buf),
                               expr(G, s->u.send.lo), expr(G, s->u.send.hi)};
        check_err(G);
        call(G, G->send.ty, G->send.fn, args, 5);
        return;
    }
    case RS_RECV: {
        LLVMValueRef args[] = {G->call, expr(G, s->u.recv.peer), buf_id(G, s->u.recv.buf),
                               expr(G, s->u.recv.lo), expr(G, s->u.recv.hi)};
        check_err(G);
        if (s->u.recv.op == XFER_COPY) call(G, G->recv.ty, G->recv.fn, args, 5);
        else call(G, G->recv_reduce.ty, G->recv_reduce.fn, args, 5);
        return;
    }
    case RS_LOCAL: {
        LLVMValueRef args[] = {G->call, buf_id(G, s->u.local.src_buf), expr(G, s->u.local.src_lo),
                               buf_id(G, s->u.local.dst_buf), expr(G, s->u.local.dst_lo),
                               expr(G, s->u.local.n)};
        check_err(G);
        if (s->u.local.op == XFER_COPY) call(G, G->copy.ty, G->copy.fn, args, 6);
        else call(G, G->reduce.ty, G->reduce.fn, args, 6);
        return;
    }
    }
}

static void stmts(LLVMGen *G, const RStmt *s) {
    for (; s; s = s->next) stmt(G, s);
}

/* ---------- one algorithm ---------- */

/* The coll_alg_info.collective of a collective: coll.h's value of the
 * same row, by name. */
static coll_collective abi_collective(Collective c) {
    switch (c) {
#define X(id, kw, abi, rooted, ib, iw, ob, ow, red, inplace, mpi, params) \
    case COLLECTIVE_##id: return COLL_##id;
#include <coll_collectives.def>
#undef X
    case COLLECTIVE__COUNT: break;
    }
    COLLC_UNREACHABLE("bad collective");
}

static LLVMValueRef alg_info(LLVMGen *G, const Algorithm *alg, const char *fname, unsigned rp_flags) {
    size_t len = strlen(alg->name);
    LLVMValueRef str = LLVMConstStringInContext(G->t.ctx, alg->name, (unsigned)len, 0);
    char gname[600];
    snprintf(gname, sizeof gname, "%.512s.name", fname);
    LLVMValueRef sg = LLVMAddGlobal(G->t.mod, LLVMTypeOf(str), gname);
    LLVMSetInitializer(sg, str);
    LLVMSetGlobalConstant(sg, 1);
    LLVMSetLinkage(sg, LLVMPrivateLinkage);
    LLVMSetUnnamedAddress(sg, LLVMGlobalUnnamedAddr);
    LLVMTypeRef fields[] = {G->i32, G->ptr, G->i32, G->i32};
    LLVMTypeRef ity = LLVMStructTypeInContext(G->t.ctx, fields, 4, 0);
    LLVMValueRef vals[] = {LLVMConstInt(G->i32, COLL_ABI_VERSION, 0), LLVMConstBitCast(sg, G->ptr),
                           LLVMConstInt(G->i32, (unsigned)abi_collective(alg->coll), 0),
                           LLVMConstInt(G->i32, rp_flags, 0)};
    snprintf(gname, sizeof gname, "%.512s.info", fname);
    LLVMValueRef info = LLVMAddGlobal(G->t.mod, ity, gname);
    LLVMSetInitializer(info, LLVMConstStructInContext(G->t.ctx, vals, 4, 0));
    LLVMSetGlobalConstant(info, 1);
    LLVMSetLinkage(info, LLVMPrivateLinkage);
    return LLVMConstBitCast(info, G->ptr);
}

static void emit_function(LLVMGen *G, const RankProgram *rp, const char *prefix) {
    const Algorithm *alg = rp->alg;
    int rooted = collective_info[alg->coll].rooted;
    char fname[512];
    snprintf(fname, sizeof fname, "%s%s", prefix, alg->name);
    LLVMTypeRef params[] = {G->ptr, G->ptr, G->ptr, G->isize, G->i32, G->i32, G->i32};
    LLVMTypeRef fty = LLVMFunctionType(G->i32, params, rooted ? 7 : 6, 0);
    LLVMValueRef fn = LLVMAddFunction(G->t.mod, fname, fty);
    LLVMValueRef info = alg_info(G, alg, fname,
                                 COLL_ALG_CHUNK_CALLS_ONLY | (rp->inplace_safe ? COLL_ALG_INPLACE_SAFE : 0u) |
                                     (rp->vblocks ? COLL_ALG_VBLOCKS : 0u));
    G->fn = fn;
    G->rp = rp;
    const char *names[] = {"comm", "sendbuf", "recvbuf", "count", "dtype", "op", "root"};
    for (unsigned i = 0; i < (rooted ? 7u : 6u); i++) LLVMSetValueName2(LLVMGetParam(fn, i), names[i], strlen(names[i]));

    LLVMBasicBlockRef entry = new_block(G, "entry");
    LLVMBasicBlockRef body = new_block(G, "body");
    G->fail_bb = new_block(G, "fail");
    G->alloca_b = LLVMCreateBuilderInContext(G->t.ctx);
    LLVMPositionBuilderAtEnd(G->alloca_b, entry);
    LLVMPositionBuilderAtEnd(G->b, body);

    G->slots = xcalloc((size_t)rp->nslots, sizeof *G->slots);
    for (int i = 0; i < rp->nslots; i++) {
        G->slots[i] = LLVMBuildAlloca(G->alloca_b, G->i64, "slot");
        LLVMBuildStore(G->alloca_b, c64(G, 0), G->slots[i]);
    }
    G->err = LLVMBuildAlloca(G->alloca_b, G->i1, "err");
    LLVMBuildStore(G->alloca_b, LLVMConstInt(G->i1, 0, 0), G->err);
    LLVMValueRef callp = LLVMBuildAlloca(G->alloca_b, G->ptr, "call");

    LLVMValueRef comm = LLVMGetParam(fn, 0);
    G->count = LLVMGetParam(fn, 3);
    LLVMValueRef bargs[] = {comm, info, LLVMGetParam(fn, 1), LLVMGetParam(fn, 2), G->count,
                            LLVMGetParam(fn, 4), LLVMGetParam(fn, 5),
                            rooted ? LLVMGetParam(fn, 6) : c32(G, 0), callp};
    LLVMValueRef rc = call(G, G->begin.ty, G->begin.fn, bargs, 9);
    LLVMBasicBlockRef bad = new_block(G, "begin.bad"), ok = new_block(G, "begin.ok");
    LLVMBuildCondBr(G->b, LLVMBuildICmp(G->b, LLVMIntNE, rc, c32(G, COLL_OK), ""), bad, ok);
    LLVMPositionBuilderAtEnd(G->b, bad);
    LLVMBuildRet(G->b, rc);
    LLVMPositionBuilderAtEnd(G->b, ok);
    G->call = LLVMBuildLoad2(G->b, G->ptr, callp, "c");
    LLVMValueRef cargs[] = {comm};
    LLVMBuildStore(G->b, LLVMBuildSExt(G->b, call(G, G->comm_size.ty, G->comm_size.fn, cargs, 1), G->i64, ""),
                   G->slots[alg->sym_N->slot]);
    LLVMBuildStore(G->b, LLVMBuildSExt(G->b, call(G, G->comm_rank.ty, G->comm_rank.fn, cargs, 1), G->i64, ""),
                   G->slots[rp->sym_me->slot]);
    if (rooted)
        LLVMBuildStore(G->b, LLVMBuildSExt(G->b, LLVMGetParam(fn, 6), G->i64, ""),
                       G->slots[alg->sym_root->slot]);
    stmts(G, rp->body);
    finish_with(G, c32(G, COLL_OK));

    LLVMPositionBuilderAtEnd(G->b, G->fail_bb);
    finish_with(G, c32(G, COLL_ERR_INTERNAL));
    LLVMBuildBr(G->alloca_b, body);
    LLVMDisposeBuilder(G->alloca_b);
    free(G->slots);
    G->slots = NULL;
}

/* NAME_start / NAME_init (coll.h §3): coll_start / coll_init(comm, &info,
 * NAME, sendbuf, recvbuf, count, dtype, op, root, req), as emit_c.c writes
 * them. */
static void emit_start(LLVMGen *G, const RankProgram *rp, const char *prefix, const char *suffix,
                       LLVMTypeRef callee_ty, LLVMValueRef callee) {
    const Algorithm *alg = rp->alg;
    int rooted = collective_info[alg->coll].rooted;
    char fname[512], sname[520], gname[600];
    snprintf(fname, sizeof fname, "%s%s", prefix, alg->name);
    snprintf(sname, sizeof sname, "%.511s%.7s", fname, suffix);
    snprintf(gname, sizeof gname, "%.512s.info", fname);
    LLVMValueRef core = LLVMGetNamedFunction(G->t.mod, fname);
    LLVMValueRef info = LLVMGetNamedGlobal(G->t.mod, gname);
    COLLC_ASSERT(core && info);
    LLVMTypeRef params[] = {G->ptr, G->ptr, G->ptr, G->isize, G->i32, G->i32, G->i32, G->ptrptr};
    unsigned np = rooted ? 8u : 7u;
    if (!rooted) params[6] = G->ptrptr;
    LLVMValueRef fn = LLVMAddFunction(G->t.mod, sname, LLVMFunctionType(G->i32, params, np, 0));
    LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(G->t.ctx, fn, "entry");
    LLVMPositionBuilderAtEnd(G->b, bb);
    LLVMValueRef args[] = {LLVMGetParam(fn, 0), LLVMConstBitCast(info, G->ptr),
                           LLVMConstBitCast(core, G->ptr), LLVMGetParam(fn, 1),
                           LLVMGetParam(fn, 2), LLVMGetParam(fn, 3), LLVMGetParam(fn, 4),
                           LLVMGetParam(fn, 5), rooted ? LLVMGetParam(fn, 6) : c32(G, 0),
                           LLVMGetParam(fn, np - 1)};
    LLVMValueRef rc = call(G, callee_ty, callee, args, 10);
    LLVMSetTailCall(rc, 1);
    LLVMBuildRet(G->b, rc);
}

/* ---------- --target=mpi: MPI-signature wrappers (emit_mpi.h) ---------- */

static void emit_mpi_wrapper(LLVMGen *G, const RankProgram *rp, const char *core_prefix,
                             const char *wrapper_prefix) {
    const Algorithm *alg = rp->alg;
    EmitMpiSig sg;
    emit_mpi_sig(alg->coll, &sg);
    char core[512], name[512];
    snprintf(core, sizeof core, "%s%s", core_prefix, alg->name);
    snprintf(name, sizeof name, "%s%s", wrapper_prefix, alg->name);
    LLVMValueRef core_fn = LLVMGetNamedFunction(G->t.mod, core);
    char gname[600];
    snprintf(gname, sizeof gname, "%.512s.info", core);
    LLVMValueRef info = LLVMGetNamedGlobal(G->t.mod, gname);
    COLLC_ASSERT(core_fn && info);

    /* const coll_alg_info *const collc_NAME_alg = &collc_NAME.info; */
    snprintf(gname, sizeof gname, "%.512s_alg", core);
    LLVMValueRef desc = LLVMAddGlobal(G->t.mod, G->ptr, gname);
    LLVMSetInitializer(desc, LLVMConstBitCast(info, G->ptr));
    LLVMSetGlobalConstant(desc, 1);

    /* MPI handles are pointer-sized integers here: passed through, never
     * interpreted (MPICH: int, Open MPI: pointers). */
    LLVMTypeRef ps[EMIT_MPI_MAX_PARAMS + 1];
    unsigned n = (unsigned)sg.nparams;
    for (unsigned k = 0; k < n; k++) {
        EmitMpiParam t = sg.kind[k];
        ps[k] = t == EMIT_MPI_CONST_PTR || t == EMIT_MPI_PTR ? G->ptr : t == EMIT_MPI_INT ? G->i32 : G->isize;
    }
    ps[n] = G->ptr;
    LLVMTypeRef wty = LLVMFunctionType(G->i32, ps, n, 0);
    LLVMTypeRef ety = LLVMFunctionType(G->i32, ps, n + 1, 0);
    LLVMValueRef entry = LLVMGetNamedFunction(G->t.mod, sg.entry);
    if (!entry) entry = LLVMAddFunction(G->t.mod, sg.entry, ety);
    LLVMValueRef fn = LLVMAddFunction(G->t.mod, name, wty);
    LLVMValueRef args[EMIT_MPI_MAX_PARAMS + 1];
    for (unsigned k = 0; k < n; k++) {
        args[k] = LLVMGetParam(fn, k);
        LLVMSetValueName2(args[k], sg.name[k], strlen(sg.name[k]));
    }
    args[n] = LLVMConstBitCast(core_fn, G->ptr);
    LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(G->t.ctx, fn, "entry");
    LLVMPositionBuilderAtEnd(G->b, bb);
    LLVMValueRef rc = LLVMBuildCall2(G->b, ety, entry, args, n + 1, "");
    LLVMSetTailCall(rc, 1);
    LLVMBuildRet(G->b, rc);
}

/* Builds, verifies and optimises the module of `progs` in G->t (open);
 * with mpi_prefix, also the --target=mpi wrappers. */
static void build_module(LLVMGen *G, const RankProgram *const *progs, int nprogs, const EmitLLVMOptions *o,
                         const char *mpi_prefix) {
    G->b = LLVMCreateBuilderInContext(G->t.ctx);
    G->i1 = LLVMInt1TypeInContext(G->t.ctx);
    G->i8 = LLVMInt8TypeInContext(G->t.ctx);
    G->i32 = LLVMInt32TypeInContext(G->t.ctx);
    G->i64 = LLVMInt64TypeInContext(G->t.ctx);
    G->isize = LLVMIntPtrTypeInContext(G->t.ctx, G->t.td);
    G->ptr = LLVMPointerType(G->i8, 0);
    G->ptrptr = LLVMPointerType(G->ptr, 0);
    G->voidt = LLVMVoidTypeInContext(G->t.ctx);
    declare_runtime(G);
    for (int i = 0; i < nprogs; i++) emit_function(G, progs[i], o->prefix ? o->prefix : "");
    for (int i = 0; i < nprogs; i++) {
        emit_start(G, progs[i], o->prefix ? o->prefix : "", "_start", G->start.ty, G->start.fn);
        emit_start(G, progs[i], o->prefix ? o->prefix : "", "_init", G->init.ty, G->init.fn);
    }
    if (mpi_prefix)
        for (int i = 0; i < nprogs; i++)
            emit_mpi_wrapper(G, progs[i], o->prefix ? o->prefix : "", mpi_prefix);
    LLVMDisposeBuilder(G->b);
    G->b = NULL;

    llvm_target_verify(&G->t, "from the Rank IR emitter");
    if (o->opt_level > 0) {
        char passes[32];
        snprintf(passes, sizeof passes, "default<O%d>", o->opt_level > 3 ? 3 : o->opt_level);
        LLVMPassBuilderOptionsRef pbo = LLVMCreatePassBuilderOptions();
        LLVMErrorRef err = LLVMRunPasses(G->t.mod, passes, G->t.tm, pbo);
        LLVMDisposePassBuilderOptions(pbo);
        if (err) {
            char *m = LLVMGetErrorMessage(err);
            fprintf(stderr, "%s\n", m);
            LLVMDisposeErrorMessage(m);
            COLLC_UNREACHABLE("LLVMRunPasses failed");
        }
        llvm_target_verify(&G->t, "after optimisation");
    }
}

static const char *module_name(const EmitLLVMOptions *o) { return o->module_name ? o->module_name : "collc"; }

LLVMModuleRef emit_llvm_module(LLVMContextRef ctx, const RankProgram *const *progs, int nprogs,
                               const EmitLLVMOptions *o, DiagEngine *dx) {
    LLVMGen G;
    memset(&G, 0, sizeof G);
    if (llvm_target_open(&G.t, ctx, module_name(o), o->triple, o->opt_level, dx)) return NULL;
    build_module(&G, progs, nprogs, o, NULL);
    LLVMModuleRef mod = llvm_target_take_module(&G.t);
    llvm_target_close(&G.t);
    return mod;
}

static int emit_file(const RankProgram *const *progs, int nprogs, const EmitLLVMOptions *o,
                     const char *mpi_prefix, DiagEngine *dx) {
    LLVMGen G;
    memset(&G, 0, sizeof G);
    if (llvm_target_open(&G.t, NULL, module_name(o), o->triple, o->opt_level, dx)) return -1;
    build_module(&G, progs, nprogs, o, mpi_prefix);
    int rc = llvm_target_write(&G.t, o->kind, o->output, dx);
    llvm_target_close(&G.t);
    return rc;
}

int emit_llvm_file(const RankProgram *const *progs, int nprogs, const EmitLLVMOptions *o,
                   DiagEngine *dx) {
    return emit_file(progs, nprogs, o, NULL, dx);
}

int emit_llvm_file_mpi(const RankProgram *const *progs, int nprogs, const EmitLLVMOptions *o,
                       const char *wrapper_prefix, DiagEngine *dx) {
    return emit_file(progs, nprogs, o, wrapper_prefix ? wrapper_prefix : "", dx);
}
