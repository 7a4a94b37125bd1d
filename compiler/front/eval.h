/* eval.h - the semantics of .coll integer expressions: the operators, shared
 * by sema's constant folding and the statement interpreter of instantiate
 * and the topology reader so that all agree bit for bit (floor division,
 * mathematical modulo, checked overflow), and evaluation in a frame. */
#ifndef COLLC_EVAL_H
#define COLLC_EVAL_H

#include <stdint.h>
#include "front/ast.h"
#include "support/diag.h"

/* Outcome of one operator application. */
typedef enum EvalErr {
    EVAL_OK,
    EVAL_DIV_ZERO,  /* a / 0 or a % 0                    -> "div-by-zero" */
    EVAL_BAD_SHIFT, /* shift count < 0 or >= 63          -> "bad-shift"   */
    EVAL_OVERFLOW,  /* result does not fit in int64      -> "overflow"    */
    EVAL_BAD_LOG2,  /* log2/ceil_log2 of a value <= 0    -> "bad-log2"    */
    EVAL_BAD_POW,   /* pow with a negative exponent      -> "bad-pow"     */
    EVAL_BAD_LOG,   /* log/ceil_log: base < 2 or x <= 0  -> "bad-log"     */
} EvalErr;

static inline EvalErr eval_unary_op(UnaryOp op, int64_t a, int64_t *r) {
    switch (op) {
    case UOP_NEG:
        if (a == INT64_MIN) return EVAL_OVERFLOW;
        *r = -a; return EVAL_OK;
    case UOP_BNOT: *r = ~a; return EVAL_OK;
    case UOP_LNOT: *r = !a; return EVAL_OK;
    }
    return EVAL_OK;
}

/* Not for BOP_LAND/BOP_LOR when short-circuiting matters (callers handle it);
 * given both operands it still returns the right 0/1. */
static inline EvalErr eval_binary_op(BinaryOp op, int64_t a, int64_t b, int64_t *r) {
    switch (op) {
    case BOP_ADD: return __builtin_add_overflow(a, b, r) ? EVAL_OVERFLOW : EVAL_OK;
    case BOP_SUB: return __builtin_sub_overflow(a, b, r) ? EVAL_OVERFLOW : EVAL_OK;
    case BOP_MUL: return __builtin_mul_overflow(a, b, r) ? EVAL_OVERFLOW : EVAL_OK;
    case BOP_DIV: {
        if (b == 0) return EVAL_DIV_ZERO;
        if (a == INT64_MIN && b == -1) return EVAL_OVERFLOW;
        int64_t q = a / b;
        if ((a % b != 0) && ((a < 0) != (b < 0))) q--;   /* floor */
        *r = q; return EVAL_OK;
    }
    case BOP_MOD: {
        if (b == 0) return EVAL_DIV_ZERO;
        if (b == -1) { *r = 0; return EVAL_OK; }
        int64_t m = a % b;
        if (m != 0 && ((m < 0) != (b < 0))) m += b;       /* sign of divisor */
        *r = m; return EVAL_OK;
    }
    case BOP_SHL:
        if (b < 0 || b >= 63) return EVAL_BAD_SHIFT;
        /* a * 2^b with overflow check; avoids UB of shifting negatives */
        return __builtin_mul_overflow(a, (int64_t)1 << b, r) ? EVAL_OVERFLOW : EVAL_OK;
    case BOP_SHR:
        if (b < 0 || b >= 63) return EVAL_BAD_SHIFT;
        *r = a >> b; return EVAL_OK;  /* arithmetic shift (gcc/clang) */
    case BOP_BAND: *r = a & b; return EVAL_OK;
    case BOP_BOR:  *r = a | b; return EVAL_OK;
    case BOP_BXOR: *r = a ^ b; return EVAL_OK;
    case BOP_EQ: *r = a == b; return EVAL_OK;
    case BOP_NE: *r = a != b; return EVAL_OK;
    case BOP_LT: *r = a < b; return EVAL_OK;
    case BOP_LE: *r = a <= b; return EVAL_OK;
    case BOP_GT: *r = a > b; return EVAL_OK;
    case BOP_GE: *r = a >= b; return EVAL_OK;
    case BOP_LAND: *r = a && b; return EVAL_OK;
    case BOP_LOR:  *r = a || b; return EVAL_OK;
    }
    return EVAL_OK;
}

static inline EvalErr eval_builtin_op(Builtin f, const int64_t *x, int64_t *r) {
    switch (f) {
    case BUILTIN_MIN: *r = x[0] < x[1] ? x[0] : x[1]; return EVAL_OK;
    case BUILTIN_MAX: *r = x[0] > x[1] ? x[0] : x[1]; return EVAL_OK;
    case BUILTIN_LOG2:
        if (x[0] <= 0) return EVAL_BAD_LOG2;
        *r = 63 - __builtin_clzll((unsigned long long)x[0]); return EVAL_OK;
    case BUILTIN_CEIL_LOG2:
        if (x[0] <= 0) return EVAL_BAD_LOG2;
        *r = x[0] == 1 ? 0 : 64 - __builtin_clzll((unsigned long long)(x[0] - 1));
        return EVAL_OK;
    case BUILTIN_IS_POW2: *r = x[0] > 0 && (x[0] & (x[0] - 1)) == 0; return EVAL_OK;
    case BUILTIN_LOG:
    case BUILTIN_CEIL_LOG: {
        int64_t b = x[0], v = x[1], n = 0;
        if (b < 2 || v <= 0) return EVAL_BAD_LOG;
        if (f == BUILTIN_LOG) {
            for (; v >= b; v /= b) n++;
        } else {
            /* the least n with b^n >= v; b^n stops short of overflowing */
            for (int64_t p = 1; p < v; p *= b) {
                n++;
                if (p > INT64_MAX / b) break;
            }
        }
        *r = n;
        return EVAL_OK;
    }
    case BUILTIN_POW: {
        int64_t a = x[0], b = x[1], p = 1;
        if (b < 0) return EVAL_BAD_POW;
        if (a == 0 || a == 1) { *r = a == 1 || b == 0; return EVAL_OK; }
        if (a == -1) { *r = b % 2 ? -1 : 1; return EVAL_OK; }
        /* |a| >= 2: at most 63 factors before the product overflows */
        for (; b > 0; b--)
            if (__builtin_mul_overflow(p, a, &p)) return EVAL_OVERFLOW;
        *r = p;
        return EVAL_OK;
    }
    case BUILTIN_GCD:
    case BUILTIN_LCM: {
        /* on magnitudes, in unsigned arithmetic: |INT64_MIN| fits there */
        uint64_t a = x[0] < 0 ? 0 - (uint64_t)x[0] : (uint64_t)x[0];
        uint64_t b = x[1] < 0 ? 0 - (uint64_t)x[1] : (uint64_t)x[1];
        uint64_t g = a, h = b;
        while (h) { uint64_t t = g % h; g = h; h = t; }
        uint64_t v = g;
        if (f == BUILTIN_LCM) {
            if (a == 0 || b == 0) v = 0;
            else if (__builtin_mul_overflow(a / g, b, &v)) return EVAL_OVERFLOW;
        }
        if (v > (uint64_t)INT64_MAX) return EVAL_OVERFLOW;
        *r = (int64_t)v;
        return EVAL_OK;
    }
    case BUILTIN__COUNT: break;
    }
    return EVAL_OK;
}

/* Diagnostic code of a failure. */
static inline const char *eval_err_code(EvalErr e) {
    switch (e) {
    case EVAL_DIV_ZERO: return "div-by-zero";
    case EVAL_BAD_SHIFT: return "bad-shift";
    case EVAL_OVERFLOW: return "overflow";
    case EVAL_BAD_LOG2: return "bad-log2";
    case EVAL_BAD_POW: return "bad-pow";
    case EVAL_BAD_LOG: return "bad-log";
    case EVAL_OK: break;
    }
    return "internal";
}

/* Reports failure `err` of expression `e` (a unary, binary or call node)
 * whose operand values were a, b (b unused for unary/one-argument calls). */
void eval_report_error(DiagEngine *dx, const Expr *e, EvalErr err, int64_t a, int64_t b);

/* Evaluates a checked integer expression in a frame (int64_t[nslots], the
 * value of each symbol at its slot). Returns 0 and sets *value, or -1 after
 * reporting through dx (dx may be NULL to evaluate silently). */
int eval_expr(const Expr *e, const int64_t *frame, DiagEngine *dx, int64_t *value);

/* The hot path of the interpreters: the same arithmetic as eval_expr, without
 * reporting, with leaves read inline and the common non-negative modulo
 * special-cased. On any failure it returns -1 and the caller re-evaluates
 * with eval_expr, which reports the error; so the fast path never needs
 * spans. */
static inline int eval_expr_fast(const Expr *e, const int64_t *frame, int64_t *v);

static inline int eval_operand_fast(const Expr *e, const int64_t *frame, int64_t *v) {
    if (e->kind == EXPR_NAME) { *v = frame[e->u.name.sym->slot]; return 0; }
    if (e->kind == EXPR_INT) { *v = e->u.ival; return 0; }
    return eval_expr_fast(e, frame, v);
}

static inline int eval_expr_fast(const Expr *e, const int64_t *frame, int64_t *v) {
    switch (e->kind) {
    case EXPR_INT: *v = e->u.ival; return 0;
    case EXPR_NAME: *v = frame[e->u.name.sym->slot]; return 0;
    case EXPR_BINARY: {
        int64_t a, b;
        BinaryOp op = e->u.binary.op;
        if (eval_operand_fast(e->u.binary.lhs, frame, &a)) return -1;
        if (op == BOP_LAND && !a) { *v = 0; return 0; }
        if (op == BOP_LOR && a) { *v = 1; return 0; }
        if (eval_operand_fast(e->u.binary.rhs, frame, &b)) return -1;
        switch (op) {
        case BOP_ADD: return __builtin_add_overflow(a, b, v) ? -1 : 0;
        case BOP_SUB: return __builtin_sub_overflow(a, b, v) ? -1 : 0;
        case BOP_MOD:
            if (b > 0) {
                int64_t m = a % b;
                *v = m < 0 ? m + b : m;
                return 0;
            }
            break;
        case BOP_BXOR: *v = a ^ b; return 0;
        case BOP_EQ: *v = a == b; return 0;
        case BOP_LT: *v = a < b; return 0;
        default: break;
        }
        return eval_binary_op(op, a, b, v) == EVAL_OK ? 0 : -1;
    }
    case EXPR_UNARY: {
        int64_t a;
        if (eval_operand_fast(e->u.unary.operand, frame, &a)) return -1;
        return eval_unary_op(e->u.unary.op, a, v) == EVAL_OK ? 0 : -1;
    }
    case EXPR_CALL: {
        int64_t x[2] = {0, 0};
        for (int i = 0; i < e->u.call.nargs; i++)
            if (eval_operand_fast(e->u.call.args[i], frame, &x[i])) return -1;
        return eval_builtin_op(e->u.call.builtin, x, v) == EVAL_OK ? 0 : -1;
    }
    case EXPR_COND: {
        int64_t c;
        if (eval_operand_fast(e->u.cond.cond, frame, &c)) return -1;
        return eval_operand_fast(c ? e->u.cond.then_ : e->u.cond.else_, frame, v);
    }
    }
    return -1;
}

#endif
