/* eval.c - evaluation of checked integer expressions in an int64 frame, with
 * diagnostics (see eval.h). */
#include "front/eval.h"
#include "support/util.h"

void eval_report_error(DiagEngine *dx, const Expr *e, EvalErr err, int64_t a, int64_t b) {
    if (!dx) return;
    const char *code = eval_err_code(err);
    switch (err) {
    case EVAL_DIV_ZERO:
        diag_error(dx, e->span, code, "%s by zero",
                   e->kind == EXPR_BINARY && e->u.binary.op == BOP_MOD ? "modulo" : "division");
        break;
    case EVAL_BAD_SHIFT:
        diag_error(dx, e->span, code, "shift count %lld is out of range (must be 0 .. 62)",
                   (long long)b);
        break;
    case EVAL_OVERFLOW:
        if (e->kind == EXPR_BINARY)
            diag_error(dx, e->span, code, "integer overflow in %lld %s %lld", (long long)a,
                       ast_binary_op_text(e->u.binary.op), (long long)b);
        else if (e->kind == EXPR_CALL)
            diag_error(dx, e->span, code, "integer overflow in %s(%lld, %lld)", e->u.call.name,
                       (long long)a, (long long)b);
        else
            diag_error(dx, e->span, code, "integer overflow in -(%lld)", (long long)a);
        break;
    case EVAL_BAD_LOG2:
        diag_error(dx, e->span, code, "%s of %lld (the argument must be > 0)",
                   e->kind == EXPR_CALL ? e->u.call.name : "log2", (long long)a);
        break;
    case EVAL_BAD_LOG:
        diag_error(dx, e->span, code, "%s(%lld, %lld): the base must be >= 2 and the argument > 0",
                   e->u.call.name, (long long)a, (long long)b);
        break;
    case EVAL_BAD_POW:
        diag_error(dx, e->span, code, "pow(%lld, %lld): the exponent must be >= 0", (long long)a,
                   (long long)b);
        break;
    case EVAL_OK:
        COLLC_UNREACHABLE("eval_report_error without an error");
    }
}

int eval_expr(const Expr *e, const int64_t *frame, DiagEngine *dx, int64_t *value) {
    switch (e->kind) {
    case EXPR_INT: *value = e->u.ival; return 0;
    case EXPR_NAME:
        COLLC_ASSERT(e->u.name.sym);
        *value = frame[e->u.name.sym->slot];
        return 0;
    case EXPR_UNARY: {
        int64_t a;
        if (eval_expr(e->u.unary.operand, frame, dx, &a)) return -1;
        EvalErr err = eval_unary_op(e->u.unary.op, a, value);
        if (err != EVAL_OK) { eval_report_error(dx, e, err, a, 0); return -1; }
        return 0;
    }
    case EXPR_BINARY: {
        int64_t a, b;
        BinaryOp op = e->u.binary.op;
        if (eval_expr(e->u.binary.lhs, frame, dx, &a)) return -1;
        if (op == BOP_LAND && !a) { *value = 0; return 0; }
        if (op == BOP_LOR && a) { *value = 1; return 0; }
        if (eval_expr(e->u.binary.rhs, frame, dx, &b)) return -1;
        EvalErr err = eval_binary_op(op, a, b, value);
        if (err != EVAL_OK) { eval_report_error(dx, e, err, a, b); return -1; }
        return 0;
    }
    case EXPR_CALL: {
        int64_t x[2] = {0, 0};
        int n = e->u.call.nargs;
        COLLC_ASSERT(n <= 2);
        for (int i = 0; i < n; i++)
            if (eval_expr(e->u.call.args[i], frame, dx, &x[i])) return -1;
        EvalErr err = eval_builtin_op(e->u.call.builtin, x, value);
        if (err != EVAL_OK) { eval_report_error(dx, e, err, x[0], x[1]); return -1; }
        return 0;
    }
    case EXPR_COND: {
        int64_t c;
        if (eval_expr(e->u.cond.cond, frame, dx, &c)) return -1;
        return eval_expr(c ? e->u.cond.then_ : e->u.cond.else_, frame, dx, value);
    }
    }
    COLLC_UNREACHABLE("bad expression kind");
}
