/* ast.c - AST constructors, the collective and built-in tables, and a
 * printer for expressions (used by dumps and diagnostics). */
#include <inttypes.h>
#include <string.h>
#include "front/ast.h"
#include "support/arena.h"
#include "support/util.h"

/* Indexed by value: the rows of coll_collectives.def may come in any order. */
const CollectiveInfo collective_info[COLLECTIVE__COUNT] = {
#define X(id, kw, abi, rooted, ib, iw, ob, ow, red, inplace, mpi, params) \
    [COLLECTIVE_##id] = {kw, rooted, BLOCKS_##ib, HELD_##iw, BLOCKS_##ob, HELD_##ow, red, #mpi, #params},
#include <coll_collectives.def>
#undef X
};
_Static_assert((0
#define X(id, kw, abi, rooted, ib, iw, ob, ow, red, inplace, mpi, params) | 1ull << (abi)
#include <coll_collectives.def>
#undef X
               ) == (1ull << COLLECTIVE__COUNT) - 1,
               "the ABI values in coll_collectives.def are not 0 .. count-1, each once");

const CallableInfo builtin_info[BUILTIN__COUNT] = {
#define X(id, name, arity, desc) {name, arity, desc},
#include "front/builtins.def"
#undef X
};

const CallableInfo group_info[GROUP__COUNT] = {
#define X(id, name, arity, desc) {name, arity, desc},
#include "front/groups.def"
#undef X
};

Collective collective_lookup(const char *name) {
    if (!name) return COLLECTIVE__COUNT;
    for (int i = 0; i < COLLECTIVE__COUNT; i++)
        if (strcmp(collective_info[i].keyword, name) == 0) return (Collective)i;
    return COLLECTIVE__COUNT;
}

Algorithm *program_find_algorithm(const Program *prog, const char *name) {
    for (int i = 0; i < prog->nalgorithms; i++)
        if (strcmp(prog->algorithms[i]->name, name) == 0) return prog->algorithms[i];
    return NULL;
}

static Expr *expr_new(Arena *a, ExprKind k, Span sp) {
    Expr *e = ARENA_NEW(a, Expr);
    e->kind = k;
    e->span = sp;
    return e;
}

Expr *ast_int(Arena *a, Span sp, int64_t v) {
    Expr *e = expr_new(a, EXPR_INT, sp);
    e->u.ival = v;
    return e;
}

Expr *ast_name(Arena *a, Span sp, const char *name) {
    Expr *e = expr_new(a, EXPR_NAME, sp);
    e->u.name.name = name;
    return e;
}

Expr *ast_unary(Arena *a, Span sp, UnaryOp op, Expr *operand) {
    Expr *e = expr_new(a, EXPR_UNARY, sp);
    e->u.unary.op = op;
    e->u.unary.operand = operand;
    return e;
}

Expr *ast_binary(Arena *a, Span sp, BinaryOp op, Expr *l, Expr *r) {
    Expr *e = expr_new(a, EXPR_BINARY, sp);
    e->u.binary.op = op;
    e->u.binary.lhs = l;
    e->u.binary.rhs = r;
    return e;
}

Expr *ast_cond(Arena *a, Span sp, Expr *c, Expr *t, Expr *e) {
    Expr *x = expr_new(a, EXPR_COND, sp);
    x->u.cond.cond = c;
    x->u.cond.then_ = t;
    x->u.cond.else_ = e;
    return x;
}

Stmt *ast_stmt(Arena *a, StmtKind k, Span sp) {
    Stmt *s = ARENA_NEW(a, Stmt);
    s->kind = k;
    s->span = sp;
    return s;
}

const char *ast_binary_op_text(BinaryOp op) {
    switch (op) {
    case BOP_ADD: return "+";
    case BOP_SUB: return "-";
    case BOP_MUL: return "*";
    case BOP_DIV: return "/";
    case BOP_MOD: return "%";
    case BOP_SHL: return "<<";
    case BOP_SHR: return ">>";
    case BOP_BAND: return "&";
    case BOP_BOR: return "|";
    case BOP_BXOR: return "^";
    case BOP_EQ: return "==";
    case BOP_NE: return "!=";
    case BOP_LT: return "<";
    case BOP_LE: return "<=";
    case BOP_GT: return ">";
    case BOP_GE: return ">=";
    case BOP_LAND: return "&&";
    case BOP_LOR: return "||";
    }
    COLLC_UNREACHABLE("bad binary operator");
}

const char *ast_unary_op_text(UnaryOp op) {
    switch (op) {
    case UOP_NEG: return "-";
    case UOP_BNOT: return "~";
    case UOP_LNOT: return "!";
    }
    COLLC_UNREACHABLE("bad unary operator");
}

/* Binding strength of a binary operator, as in the grammar (C's). */
static int binary_prec(BinaryOp op) {
    switch (op) {
    case BOP_LOR: return 1;
    case BOP_LAND: return 2;
    case BOP_BOR: return 3;
    case BOP_BXOR: return 4;
    case BOP_BAND: return 5;
    case BOP_EQ: case BOP_NE: return 6;
    case BOP_LT: case BOP_LE: case BOP_GT: case BOP_GE: return 7;
    case BOP_SHL: case BOP_SHR: return 8;
    case BOP_ADD: case BOP_SUB: return 9;
    case BOP_MUL: case BOP_DIV: case BOP_MOD: return 10;
    }
    return 0;
}
enum { PREC_COND = 0, PREC_UNARY = 11, PREC_PRIMARY = 12 };

static int expr_prec(const Expr *e) {
    if (e->kind == EXPR_COND) return PREC_COND;
    if (e->kind == EXPR_BINARY) return binary_prec(e->u.binary.op);
    if (e->kind == EXPR_UNARY) return PREC_UNARY;
    if (e->kind == EXPR_INT && e->u.ival < 0) return PREC_UNARY; /* folded "-3" */
    return PREC_PRIMARY;
}

/* Prints `e`, parenthesised when it binds more loosely than `min` needs.
 * Binary operators are left-associative, so a right operand of equal
 * precedence gets parentheses: a - (b - c). */
static void print_prec(FILE *out, const Expr *e, int min) {
    int p = expr_prec(e);
    int paren = p < min;
    if (paren) fputc('(', out);
    switch (e->kind) {
    case EXPR_INT:
        fprintf(out, "%" PRId64, e->u.ival);
        break;
    case EXPR_NAME:
        fputs(e->u.name.name, out);
        break;
    case EXPR_UNARY:
        fputs(ast_unary_op_text(e->u.unary.op), out);
        /* "-(-x)", not "--x": readable, and safe should "--" ever become a
         * token. */
        if (expr_prec(e->u.unary.operand) == PREC_UNARY) {
            fputc('(', out);
            print_prec(out, e->u.unary.operand, 0);
            fputc(')', out);
        } else {
            print_prec(out, e->u.unary.operand, PREC_UNARY);
        }
        break;
    case EXPR_BINARY:
        print_prec(out, e->u.binary.lhs, p);
        fprintf(out, " %s ", ast_binary_op_text(e->u.binary.op));
        print_prec(out, e->u.binary.rhs, p + 1);
        break;
    case EXPR_CALL:
        fprintf(out, "%s(", e->u.call.name);
        for (int i = 0; i < e->u.call.nargs; i++) {
            if (i) fputs(", ", out);
            print_prec(out, e->u.call.args[i], 0);
        }
        fputc(')', out);
        break;
    case EXPR_COND:
        /* right-associative: c ? a : (d ? b : e) needs no parentheses */
        print_prec(out, e->u.cond.cond, PREC_COND + 1);
        fputs(" ? ", out);
        print_prec(out, e->u.cond.then_, PREC_COND);
        fputs(" : ", out);
        print_prec(out, e->u.cond.else_, PREC_COND);
        break;
    }
    if (paren) fputc(')', out);
}

void ast_print_expr(FILE *out, const Expr *e) {
    if (!e) { fputs("<null>", out); return; }
    print_prec(out, e, 0);
}

int ast_expr_equal(const Expr *a, const Expr *b) {
    if (a == b) return 1;
    if (!a || !b || a->kind != b->kind) return 0;
    switch (a->kind) {
    case EXPR_INT: return a->u.ival == b->u.ival;
    case EXPR_NAME: return a->u.name.sym == b->u.name.sym;
    case EXPR_UNARY:
        return a->u.unary.op == b->u.unary.op &&
               ast_expr_equal(a->u.unary.operand, b->u.unary.operand);
    case EXPR_BINARY:
        return a->u.binary.op == b->u.binary.op &&
               ast_expr_equal(a->u.binary.lhs, b->u.binary.lhs) &&
               ast_expr_equal(a->u.binary.rhs, b->u.binary.rhs);
    case EXPR_CALL:
        if (a->u.call.builtin != b->u.call.builtin || a->u.call.nargs != b->u.call.nargs) return 0;
        for (int i = 0; i < a->u.call.nargs; i++)
            if (!ast_expr_equal(a->u.call.args[i], b->u.call.args[i])) return 0;
        return 1;
    case EXPR_COND:
        return ast_expr_equal(a->u.cond.cond, b->u.cond.cond) &&
               ast_expr_equal(a->u.cond.then_, b->u.cond.then_) &&
               ast_expr_equal(a->u.cond.else_, b->u.cond.else_);
    }
    return 0;
}

int ast_expr_any_name(const Expr *e, int (*pred)(const Symbol *sym, const void *ctx), const void *ctx) {
    if (!e) return 0;
    switch (e->kind) {
    case EXPR_INT: return 0;
    case EXPR_NAME: return pred(e->u.name.sym, ctx);
    case EXPR_UNARY: return ast_expr_any_name(e->u.unary.operand, pred, ctx);
    case EXPR_BINARY:
        return ast_expr_any_name(e->u.binary.lhs, pred, ctx) || ast_expr_any_name(e->u.binary.rhs, pred, ctx);
    case EXPR_CALL:
        for (int i = 0; i < e->u.call.nargs; i++)
            if (ast_expr_any_name(e->u.call.args[i], pred, ctx)) return 1;
        return 0;
    case EXPR_COND:
        return ast_expr_any_name(e->u.cond.cond, pred, ctx) ||
               ast_expr_any_name(e->u.cond.then_, pred, ctx) ||
               ast_expr_any_name(e->u.cond.else_, pred, ctx);
    }
    return 0;
}

static int is_symbol(const Symbol *sym, const void *want) { return sym == want; }

int ast_expr_uses(const Expr *e, const Symbol *sym) { return ast_expr_any_name(e, is_symbol, sym); }

static int not_header(const Symbol *sym, const void *unused) {
    (void)unused;
    SymKind k = sym->kind;
    return !(k == SYM_N || k == SYM_ROOT || k == SYM_PARAM || k == SYM_SPLIT);
}

int ast_expr_header_only(const Expr *e) { return !ast_expr_any_name(e, not_header, NULL); }

int ast_stmt_has_step(const Stmt *s) {
    switch (s->kind) {
    case STMT_STEP: return 1;
    case STMT_FOR: return ast_contains_step(s->u.for_.body);
    case STMT_IF: return ast_contains_step(s->u.if_.then_) || ast_contains_step(s->u.if_.else_);
    default: return 0;
    }
}

int ast_contains_step(const Stmt *list) {
    for (const Stmt *s = list; s; s = s->next)
        if (ast_stmt_has_step(s)) return 1;
    return 0;
}

static int64_t fixed_n_of(const Expr *e, const Symbol *N) {
    if (!e || e->kind != EXPR_BINARY) return -1;
    const Expr *l = e->u.binary.lhs, *r = e->u.binary.rhs;
    if (e->u.binary.op == BOP_LAND) {
        int64_t k = fixed_n_of(l, N);
        return k >= 0 ? k : fixed_n_of(r, N);
    }
    if (e->u.binary.op != BOP_EQ) return -1;
    if (r->kind == EXPR_NAME && r->u.name.sym == N) { const Expr *t = l; l = r; r = t; }
    if (l->kind == EXPR_NAME && l->u.name.sym == N && r->kind == EXPR_INT && r->u.ival > 0)
        return r->u.ival;
    return -1;
}

int64_t ast_fixed_n(const Algorithm *a) {
    for (const Stmt *s = a->body; s; s = s->next) {
        if (s->kind != STMT_REQUIRE || s->u.require.error) continue;
        int64_t k = fixed_n_of(s->u.require.cond, a->sym_N);
        if (k > 0) return k;
    }
    return -1;
}
