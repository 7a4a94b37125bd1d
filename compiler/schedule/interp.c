/* interp.c - the statement interpreter (see interp.h). */
#include "schedule/interp.h"

#include <stdlib.h>
#include "support/util.h"

int interp_eval_slow(Interp *in, const Expr *e, int64_t *v) {
    if (eval_expr(e, in->frame, in->dx, v) == 0) return 0; /* the fast path gave up */
    if (in->note) in->note(in);
    return -1;
}

static void push_var(Interp *in, const Symbol *sym) {
    if (in->nvars == in->capvars) {
        in->capvars = in->capvars ? in->capvars * 2 : 16;
        in->vars = xrealloc(in->vars, sizeof(*in->vars) * (size_t)in->capvars);
    }
    in->vars[in->nvars++] = sym;
}

static InterpFlow run_for(Interp *in, const Stmt *st) {
    int64_t lo = 0, hi = in->N;
    if (!st->u.for_.over_ranks) {
        if (interp_eval(in, st->u.for_.lo, &lo) || interp_eval(in, st->u.for_.hi, &hi))
            return INTERP_ERROR;
    }
    int slot = st->u.for_.sym->slot;
    int mark = in->nvars;
    push_var(in, st->u.for_.sym);
    for (int64_t v = lo; v < hi; v++) {
        in->frame[slot] = v;
        if (__builtin_expect(++in->work > in->max_work && in->max_work, 0)) {
            if (in->over_work) in->over_work(in, st);
            return INTERP_ERROR;
        }
        InterpFlow f = interp_block(in, st->u.for_.body);
        if (f != INTERP_OK) return f;
    }
    in->nvars = mark;
    return INTERP_OK;
}

static InterpFlow run_stmt(Interp *in, const Stmt *st) {
    switch (st->kind) {
    case STMT_FOR:
        return run_for(in, st);
    case STMT_IF: {
        int64_t c;
        if (interp_eval(in, st->u.if_.cond, &c)) return INTERP_ERROR;
        return interp_block(in, c ? st->u.if_.then_ : st->u.if_.else_);
    }
    case STMT_LET: {
        int64_t v;
        if (interp_eval(in, st->u.let.value, &v)) return INTERP_ERROR;
        in->frame[st->u.let.sym->slot] = v;
        push_var(in, st->u.let.sym);
        return INTERP_OK;
    }
    default:
        return in->leaf(in, st);
    }
}

InterpFlow interp_block(Interp *in, const Stmt *body) {
    int mark = in->nvars;
    for (const Stmt *st = body; st; st = st->next) {
        InterpFlow f = run_stmt(in, st);
        if (f != INTERP_OK) return f;
    }
    in->nvars = mark;
    return INTERP_OK;
}

void interp_free(Interp *in) {
    free(in->vars);
    in->vars = NULL;
    in->nvars = in->capvars = 0;
}
