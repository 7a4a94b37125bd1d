/* sema.c - semantic analysis of a parsed Program.
 *
 * One pass per algorithm/topology over the statement tree, with a chain of
 * lexical scopes. It
 *   - resolves the collective name (did-you-mean over the collective table),
 *   - builds Algorithm.buffers (in, out, then every top-level scratch; all
 *     scratch declarations are collected first so a step may name a buffer
 *     declared further down),
 *   - declares N / root / params / lets / loop variables and gives each its
 *     own frame slot (frames are tiny, so no slot reuse),
 *   - enforces statement placement, buffer and name rules
 *     (docs/language-decisions.md),
 *   - folds constant subtrees into EXPR_INT and reports constant errors,
 *   - checks range lengths that are statically known.
 * Diagnostic codes are listed in docs/diagnostics-sema.md. */
#include <string.h>
#include "front/front.h"
#include "front/eval.h"
#include "support/suggest.h"
#include "support/util.h"

/* ---------- did-you-mean ---------- */

static void suggest_note(DiagEngine *dx, const Suggest *s) {
    if (s->best) diag_note(dx, span_none(), "did you mean '%s'?", s->best);
}

/* ---------- scopes ---------- */

typedef struct Scope {
    struct Scope *parent;
    Symbol **syms;
    int n, cap;
    Stmt *block;     /* statements of this block (for use-before-def) */
} Scope;

typedef enum Ctx {
    CTX_ALG_TOP,     /* top level of an algorithm */
    CTX_ALG_NESTED,  /* inside for/if, outside any step */
    CTX_STEP,        /* inside a step (at any depth) */
    CTX_TOPO_TOP,    /* top level of a topology */
    CTX_TOPO_NESTED, /* inside for/if of a topology */
} Ctx;

typedef struct Sema {
    Arena *arena;
    DiagEngine *dx;
    SourceManager *sm;
    Algorithm *alg;          /* NULL while checking a topology */
    Scope *scope;
    int nslots;
    int header;              /* checking a param/split/scratch expression */
    const char *header_what; /* what may only use N, root and params (message) */
    const Symbol *view_g, *view_i; /* a call's `as` names, allowed in its views */
    int quiet_fold;          /* > 0: do not report constant-evaluation errors */
    Symbol *sym_N, *sym_root;
    Symbol **params;
    int nparams, capparams;
    Stmt *nodes_stmt;        /* topology: the first `nodes` */
    Stmt *early[64];         /* declarations that were used before them */
    int nearly;
} Sema;

static Symbol *new_symbol(Sema *S, SymKind kind, const char *name, Span span, Stmt *decl) {
    Symbol *sym = ARENA_NEW(S->arena, Symbol);
    sym->kind = kind;
    sym->name = name;
    sym->span = span;
    sym->decl = decl;
    sym->slot = S->nslots++;
    return sym;
}

static void scope_push(Sema *S, Scope *sc, Stmt *block) {
    memset(sc, 0, sizeof *sc);
    sc->parent = S->scope;
    sc->block = block;
    S->scope = sc;
}

static int is_underscore(const char *name) { return name[0] == '_'; }

/* Closes a scope: warns about unused let/loop variables. */
static void scope_pop(Sema *S) {
    Scope *sc = S->scope;
    for (int i = 0; i < sc->n; i++) {
        Symbol *sym = sc->syms[i];
        if ((sym->kind == SYM_LET || sym->kind == SYM_LOOP) && !sym->used &&
            !is_underscore(sym->name))
            diag_warning(S->dx, sym->span, "unused-variable", "unused %s '%s'",
                         sym->kind == SYM_LOOP ? "loop variable" : "variable", sym->name);
    }
    S->scope = sc->parent;
}

static void scope_add(Sema *S, Symbol *sym) {
    Scope *sc = S->scope;
    if (sc->n == sc->cap) {
        int ncap = sc->cap ? sc->cap * 2 : 8;
        Symbol **ns = ARENA_ARRAY(S->arena, Symbol *, ncap);
        if (sc->n) memcpy(ns, sc->syms, sizeof(Symbol *) * (size_t)sc->n);
        sc->syms = ns;
        sc->cap = ncap;
    }
    sc->syms[sc->n++] = sym;
}

static Symbol *scope_find_local(Scope *sc, const char *name) {
    for (int i = sc->n - 1; i >= 0; i--)
        if (strcmp(sc->syms[i]->name, name) == 0) return sc->syms[i];
    return NULL;
}

static Symbol *lookup(Sema *S, const char *name) {
    for (Scope *sc = S->scope; sc; sc = sc->parent) {
        Symbol *sym = scope_find_local(sc, name);
        if (sym) return sym;
    }
    if (strcmp(name, "N") == 0) return S->sym_N;
    if (strcmp(name, "root") == 0 && S->sym_root) return S->sym_root;
    return NULL;
}

/* ---------- built-in functions and groups (CallableInfo tables) ---------- */

/* The row of `name` in table t of n rows, or -1. */
static int callable_lookup(const CallableInfo *t, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (strcmp(t[i].name, name) == 0) return i;
    return -1;
}

static int builtin_lookup(const char *name) { return callable_lookup(builtin_info, BUILTIN__COUNT, name); }

/* After an unknown `name`: the nearest name of table t, or else all of
 * them, "the <what> are a, b and c", from the table. */
static void note_callables(Sema *S, Span at, const char *what, const CallableInfo *t, int n,
                           const char *name) {
    Suggest sg;
    suggest_init(&sg, name, SUGGEST_NAME);
    for (int i = 0; i < n; i++) suggest_offer(&sg, t[i].name, NULL);
    if (sg.best) {
        diag_note(S->dx, at, "did you mean '%s'?", sg.best);
        return;
    }
    char list[256] = "";
    for (int i = 0; i < n; i++) {
        if (i) strcat(list, i == n - 1 ? " and " : ", ");
        strcat(list, t[i].name);
    }
    diag_note(S->dx, at, "the %s are %s", what, list);
}

/* Whether f takes `nargs` arguments; the error at `at` if not. */
static int arity_ok(Sema *S, Span at, const CallableInfo *f, int nargs) {
    int ar = f->arity;
    if (ar >= 0 && nargs != ar) {
        diag_error(S->dx, at, "arity", "'%s' takes %d argument%s, got %d", f->name, ar,
                   ar == 1 ? "" : "s", nargs);
        return 0;
    }
    if (ar < 0 && nargs < 1) {
        /* only groups (list) take one or more */
        diag_error(S->dx, at, "arity", "'%s' takes at least one rank", f->name);
        return 0;
    }
    return 1;
}

static const char *kind_word(SymKind k) {
    switch (k) {
    case SYM_N: case SYM_ROOT: return "predefined name";
    case SYM_PARAM: return "param";
    case SYM_LET: return "variable";
    case SYM_LOOP: return "loop variable";
    case SYM_SPLIT: return "predefined name";
    }
    return "name";
}

/* Declares `name` in the current scope. Returns the new symbol (also for a
 * rejected declaration, so the caller can keep going; it is then not visible). */
static Symbol *declare(Sema *S, SymKind kind, const char *name, Span span, Stmt *decl) {
    Symbol *sym = new_symbol(S, kind, name, span, decl);
    if (strcmp(name, "N") == 0 || strcmp(name, "root") == 0) {
        diag_error(S->dx, span, "shadow-builtin", "cannot redeclare the predefined name '%s'", name);
        sym->used = 1;
        return sym;
    }
    if (builtin_lookup(name) >= 0) {
        diag_error(S->dx, span, "shadow-builtin",
                   "cannot redeclare '%s': it is a built-in function", name);
        sym->used = 1;
        return sym;
    }
    Symbol *prev = scope_find_local(S->scope, name);
    if (prev) {
        diag_error(S->dx, span, "redeclaration", "redeclaration of '%s'", name);
        diag_note(S->dx, prev->span, "previous declaration of '%s' is here", name);
        sym->used = 1;
        return sym;
    }
    for (Scope *sc = S->scope->parent; sc; sc = sc->parent) {
        prev = scope_find_local(sc, name);
        if (!prev) continue;
        if (prev->kind == SYM_PARAM) {
            diag_error(S->dx, span, "shadow-builtin", "declaration of '%s' shadows a param", name);
            diag_note(S->dx, prev->span, "param '%s' is declared here", name);
            sym->used = 1;
            return sym;
        }
        diag_warning(S->dx, span, "shadow", "declaration of '%s' shadows an outer %s", name,
                     kind_word(prev->kind));
        diag_note(S->dx, prev->span, "shadowed declaration is here");
        break;
    }
    for (int i = 0; i < S->nearly; i++)
        if (S->early[i] == decl) sym->used = 1;
    scope_add(S, sym);
    return sym;
}

/* A let/param declared directly in an enclosing block but not yet visible:
 * the use comes before the declaration. */
static Stmt *later_declaration(Sema *S, const char *name) {
    for (Scope *sc = S->scope; sc; sc = sc->parent)
        for (Stmt *st = sc->block; st; st = st->next)
            if ((st->kind == STMT_LET || st->kind == STMT_PARAM) &&
                strcmp(st->u.let.var, name) == 0)
                return st;
    return NULL;
}

/* ---------- expressions ---------- */

static void check_expr(Sema *S, Expr *e);

static void fold_to(Expr *e, int64_t v) {
    e->kind = EXPR_INT;
    e->u.ival = v;
}

static void fold_failed(Sema *S, Expr *e, EvalErr err, int64_t a, int64_t b) {
    if (!S->quiet_fold) eval_report_error(S->dx, e, err, a, b);
}

static void check_name(Sema *S, Expr *e) {
    const char *name = e->u.name.name;
    Symbol *sym = lookup(S, name);
    if (sym) {
        sym->used = 1;
        e->u.name.sym = sym;
        if (S->header && (sym->kind == SYM_LET || sym->kind == SYM_LOOP) && sym != S->view_g &&
            sym != S->view_i) {
            diag_error(S->dx, e->span, "header-name",
                       "'%s' cannot be used here: %s may only use N, root and params", name,
                       S->header_what ? S->header_what : "param defaults, split and scratch sizes");
            diag_note(S->dx, sym->span, "'%s' is declared here", name);
        }
        return;
    }
    /* Give unresolved names a harmless symbol so later phases never see NULL
     * (only reached on an erroneous program, which is never instantiated). */
    e->u.name.sym = S->sym_N;
    if (strcmp(name, "root") == 0) {
        if (S->alg)
            diag_error(S->dx, e->span, "root-unrooted",
                       "'root' is only defined for rooted collectives");
        else
            diag_error(S->dx, e->span, "root-unrooted", "'root' is not defined in a topology");
        return;
    }
    if (strcmp(name, "ranks") == 0) {
        diag_error(S->dx, e->span, "ranks-misuse",
                   "'ranks' can only be used as the range of a loop: 'for v in ranks'");
        return;
    }
    Stmt *later = later_declaration(S, name);
    if (later) {
        diag_error(S->dx, e->span, "use-before-def", "'%s' is used before its declaration", name);
        diag_note(S->dx, later->u.let.var_span, "'%s' is declared here", name);
        /* the declaration is not unused, it is misplaced: no second warning */
        if (S->nearly < (int)ARRAY_LEN(S->early)) S->early[S->nearly++] = later;
        return;
    }
    diag_error(S->dx, e->span, "unknown-name", "use of undeclared name '%s'", name);
    if (builtin_lookup(name) >= 0) {
        diag_note(S->dx, span_none(), "'%s' is a built-in function; call it as %s(...)", name, name);
        return;
    }
    Suggest sg;
    suggest_init(&sg, name, SUGGEST_NAME);
    for (Scope *sc = S->scope; sc; sc = sc->parent)
        for (int i = sc->n - 1; i >= 0; i--) suggest_offer(&sg, sc->syms[i]->name, NULL);
    suggest_offer(&sg, "N", NULL);
    if (S->sym_root) suggest_offer(&sg, "root", NULL);
    suggest_note(S->dx, &sg);
}

static void check_call(Sema *S, Expr *e) {
    for (int i = 0; i < e->u.call.nargs; i++) check_expr(S, e->u.call.args[i]);
    int b = builtin_lookup(e->u.call.name);
    if (b < 0) {
        e->u.call.builtin = BUILTIN__COUNT;
        diag_error(S->dx, e->u.call.name_span, "unknown-function", "unknown function '%s'",
                   e->u.call.name);
        note_callables(S, span_none(), "built-in functions", builtin_info, BUILTIN__COUNT,
                       e->u.call.name);
        return;
    }
    e->u.call.builtin = (Builtin)b;
    if (!arity_ok(S, e->span, &builtin_info[b], e->u.call.nargs)) {
        e->u.call.builtin = BUILTIN__COUNT;
        return;
    }
    int64_t x[2] = {0, 0};
    for (int i = 0; i < e->u.call.nargs; i++) {
        if (e->u.call.args[i]->kind != EXPR_INT) return;
        x[i] = e->u.call.args[i]->u.ival;
    }
    int64_t v = 0;
    EvalErr err = eval_builtin_op((Builtin)b, x, &v);
    if (err != EVAL_OK) fold_failed(S, e, err, x[0], x[1]);
    else fold_to(e, v);
}

/* Resolves names and folds constant subtrees (in place). */
static void check_expr(Sema *S, Expr *e) {
    switch (e->kind) {
    case EXPR_INT:
        return;
    case EXPR_NAME:
        check_name(S, e);
        return;
    case EXPR_UNARY: {
        Expr *a = e->u.unary.operand;
        check_expr(S, a);
        if (a->kind != EXPR_INT) return;
        int64_t v = 0;
        EvalErr err = eval_unary_op(e->u.unary.op, a->u.ival, &v);
        if (err != EVAL_OK) fold_failed(S, e, err, a->u.ival, 0);
        else fold_to(e, v);
        return;
    }
    case EXPR_BINARY: {
        BinaryOp op = e->u.binary.op;
        Expr *l = e->u.binary.lhs, *r = e->u.binary.rhs;
        check_expr(S, l);
        /* A constant left side that decides && / || makes the right side dead:
         * still resolve its names, but do not report its constant errors. */
        int decided = l->kind == EXPR_INT &&
                      ((op == BOP_LAND && l->u.ival == 0) || (op == BOP_LOR && l->u.ival != 0));
        if (decided) S->quiet_fold++;
        check_expr(S, r);
        if (decided) {
            S->quiet_fold--;
            fold_to(e, op == BOP_LOR);
            return;
        }
        if (l->kind != EXPR_INT || r->kind != EXPR_INT) {
            /* a constant divisor/shift count is wrong whatever the other side */
            if (r->kind == EXPR_INT && !S->quiet_fold) {
                int64_t b = r->u.ival;
                if ((op == BOP_DIV || op == BOP_MOD) && b == 0)
                    eval_report_error(S->dx, e, EVAL_DIV_ZERO, 0, b);
                else if ((op == BOP_SHL || op == BOP_SHR) && (b < 0 || b >= 63))
                    eval_report_error(S->dx, e, EVAL_BAD_SHIFT, 0, b);
            }
            return;
        }
        int64_t v = 0;
        EvalErr err = eval_binary_op(op, l->u.ival, r->u.ival, &v);
        if (err != EVAL_OK) fold_failed(S, e, err, l->u.ival, r->u.ival);
        else fold_to(e, v);
        return;
    }
    case EXPR_CALL:
        check_call(S, e);
        return;
    case EXPR_COND: {
        Expr *c = e->u.cond.cond;
        check_expr(S, c);
        /* A constant condition makes one branch dead: resolve its names but
         * do not report its constant errors, and fold to the live one. */
        int known = c->kind == EXPR_INT;
        for (int b = 0; b < 2; b++) {
            Expr *x = b ? e->u.cond.else_ : e->u.cond.then_;
            int dead = known && (c->u.ival != 0) == b;
            if (dead) S->quiet_fold++;
            check_expr(S, x);
            if (dead) S->quiet_fold--;
        }
        if (known) {
            Span sp = e->span;
            *e = *(c->u.ival ? e->u.cond.then_ : e->u.cond.else_);
            e->span = sp;
        }
        return;
    }
    }
    COLLC_UNREACHABLE("bad expression kind");
}

static void check_header_expr(Sema *S, Expr *e) {
    S->header++;
    check_expr(S, e);
    S->header--;
}

/* ---------- buffer references and transfers ---------- */


/* hi - lo when it is known without values: both constant, or hi = lo + k,
 * hi = k + lo, hi = lo - k, hi = lo. Returns 1 and sets *len. */
static int static_difference(const Expr *hi, const Expr *lo, int64_t *len) {
    if (hi->kind == EXPR_INT && lo->kind == EXPR_INT)
        return !__builtin_sub_overflow(hi->u.ival, lo->u.ival, len);
    if (ast_expr_equal(hi, lo)) { *len = 0; return 1; }
    if (hi->kind == EXPR_BINARY && (hi->u.binary.op == BOP_ADD || hi->u.binary.op == BOP_SUB)) {
        const Expr *l = hi->u.binary.lhs, *r = hi->u.binary.rhs;
        if (r->kind == EXPR_INT && ast_expr_equal(l, lo)) {
            *len = hi->u.binary.op == BOP_ADD ? r->u.ival : -r->u.ival;
            return r->u.ival != INT64_MIN;
        }
        if (hi->u.binary.op == BOP_ADD && l->kind == EXPR_INT && ast_expr_equal(r, lo)) {
            *len = l->u.ival;
            return 1;
        }
    }
    return 0;
}

/* Static length of a reference in chunks, or -1 when unknown. */
static int64_t bufref_static_length(const BufRef *b) {
    if (!b->lo) return -1;
    if (!b->hi) return 1;
    int64_t len;
    if (static_difference(b->hi, b->lo, &len) && len >= 0) return len;
    return -1;
}

static int find_buffer(const Algorithm *alg, const char *name) {
    for (int i = 0; i < alg->nbuffers; i++)
        if (strcmp(alg->buffers[i].name, name) == 0) return i;
    return -1;
}

static void check_bufref(Sema *S, BufRef *b) {
    Algorithm *alg = S->alg;
    b->buffer = find_buffer(alg, b->name);
    if (b->buffer < 0) {
        b->buffer = BUF_OUT;   /* keep going; the program will not be instantiated */
        diag_error(S->dx, b->name_span, "unknown-buffer", "unknown buffer '%s'", b->name);
        Suggest sg;
        suggest_init(&sg, b->name, SUGGEST_NAME);
        for (int i = 0; i < alg->nbuffers; i++) suggest_offer(&sg, alg->buffers[i].name, NULL);
        suggest_note(S->dx, &sg);
    }
    check_expr(S, b->rank);
    if (b->rank->kind == EXPR_INT && b->rank->u.ival < 0)
        diag_error(S->dx, b->rank->span, "rank-out-of-range", "rank %lld is negative",
                   (long long)b->rank->u.ival);
    if (b->lo) {
        check_expr(S, b->lo);
        if (b->lo->kind == EXPR_INT && b->lo->u.ival < 0)
            diag_error(S->dx, b->lo->span, "chunk-out-of-range", "chunk %lld is negative",
                       (long long)b->lo->u.ival);
    }
    if (b->hi) {
        check_expr(S, b->hi);
        if (b->lo->kind == EXPR_INT && b->hi->kind == EXPR_INT && b->lo->u.ival > b->hi->u.ival)
            diag_error(S->dx, span_join(b->lo->span, b->hi->span), "empty-range",
                       "chunk range %lld .. %lld is reversed (lo > hi)",
                       (long long)b->lo->u.ival, (long long)b->hi->u.ival);
    }
}

static void check_xfer(Sema *S, Stmt *st) {
    BufRef *src = &st->u.xfer.src, *dst = &st->u.xfer.dst;
    check_bufref(S, src);
    check_bufref(S, dst);
    if (strcmp(dst->name, "in") == 0)
        diag_error(S->dx, dst->name_span, "write-to-in",
                   "cannot write to 'in': the input buffer is read-only");
    int64_t ls = bufref_static_length(src), ld = bufref_static_length(dst);
    if (ls >= 0 && ld >= 0 && ls != ld)
        diag_error(S->dx, st->span, "range-length",
                   "source has %lld chunk%s but destination has %lld", (long long)ls,
                   ls == 1 ? "" : "s", (long long)ld);
}

/* ---------- statements ---------- */

static const char *stmt_word(const Stmt *st) {
    switch (st->kind) {
    case STMT_STEP: return "step";
    case STMT_FOR: return "for";
    case STMT_IF: return "if";
    case STMT_LET: return "let";
    case STMT_PARAM: return "param";
    case STMT_REQUIRE: return "require";
    case STMT_SCRATCH: return "scratch";
    case STMT_SPLIT: return "split";
    case STMT_XFER: return st->u.xfer.op == XFER_COPY ? "copy" : "reduce";
    case STMT_NODES: return "nodes";
    case STMT_LINK: return "link";
    case STMT_CALL: return "call";
    }
    return "statement";
}

static int ctx_is_topo(Ctx c) { return c == CTX_TOPO_TOP || c == CTX_TOPO_NESTED; }

/* ---------- calls ---------- */

/* A view's expressions may use N, root, params and the call's `as` names;
 * its size (the blocks of a range, the parts) must not depend on the
 * group or the rank: the buffer a called algorithm sees has one size. */
static void check_view(Sema *S, Stmt *call, Binding *b) {
    View *v = b->view;
    const Symbol *g = call->u.call.gsym, *i = call->u.call.isym;
    if (strcmp(v->buf, "in") == 0) v->buffer = BUF_IN;
    else if (strcmp(v->buf, "out") == 0) v->buffer = BUF_OUT;
    else {
        v->buffer = BUF_OUT;
        diag_error(S->dx, v->buf_span, "bad-view",
                   "a called algorithm sees a part of 'in' or 'out', not of '%s'", v->buf);
    }
    S->header++;
    S->header_what = "a call's group, root, params and views";
    S->view_g = g;
    S->view_i = i;
    Expr *xs[4] = {v->lo, v->hi, v->part, v->parts};
    for (int k = 0; k < 4; k++)
        if (xs[k]) check_expr(S, xs[k]);
    S->view_g = S->view_i = NULL;
    S->header_what = NULL;
    S->header--;
    if (v->lo && v->hi) {
        /* the width hi - lo: both free of g and i, or hi written lo + W */
        int dep = ast_expr_uses(v->lo, g) || ast_expr_uses(v->lo, i) || ast_expr_uses(v->hi, g) ||
                  ast_expr_uses(v->hi, i);
        const Expr *h = v->hi;
        int plus = h->kind == EXPR_BINARY && h->u.binary.op == BOP_ADD &&
                   ast_expr_equal(h->u.binary.lhs, v->lo) && !ast_expr_uses(h->u.binary.rhs, g) &&
                   !ast_expr_uses(h->u.binary.rhs, i);
        if (dep && !plus)
            diag_error(S->dx, span_join(v->lo->span, v->hi->span), "view-size",
                       "the blocks of a view must not depend on the group or the rank: write "
                       "[x .. x + W] with W free of them");
    }
    if (v->parts && (ast_expr_uses(v->parts, g) || ast_expr_uses(v->parts, i)))
        diag_error(S->dx, v->parts->span, "view-size",
                   "the number of parts of a view must not depend on the group or the rank");
}

static void check_call_stmt(Sema *S, Stmt *st);

static void check_block(Sema *S, Stmt *body, Ctx ctx);

static void check_nested_block(Sema *S, Stmt *body, Ctx ctx) {
    Scope sc;
    scope_push(S, &sc, body);
    check_block(S, body, ctx);
    scope_pop(S);
}

static Ctx nested_ctx(Ctx c) {
    switch (c) {
    case CTX_ALG_TOP: return CTX_ALG_NESTED;
    case CTX_TOPO_TOP: return CTX_TOPO_NESTED;
    default: return c;
    }
}

static void check_stmt(Sema *S, Stmt *st, Ctx ctx) {
    int topo = ctx_is_topo(ctx);
    switch (st->kind) {
    case STMT_STEP:
        if (topo) {
            diag_error(S->dx, st->span, "misplaced-stmt", "'step' is not allowed in a topology");
        } else if (ctx == CTX_STEP) {
            diag_error(S->dx, st->span, "nested-step", "a step cannot contain another step");
        }
        check_nested_block(S, st->u.step.body, topo ? ctx : CTX_STEP);
        return;
    case STMT_FOR: {
        if (!st->u.for_.over_ranks) {
            check_expr(S, st->u.for_.lo);
            check_expr(S, st->u.for_.hi);
        }
        Scope sc;
        scope_push(S, &sc, st->u.for_.body);
        st->u.for_.sym = declare(S, SYM_LOOP, st->u.for_.var, st->u.for_.var_span, st);
        check_block(S, st->u.for_.body, nested_ctx(ctx));
        scope_pop(S);
        return;
    }
    case STMT_IF:
        check_expr(S, st->u.if_.cond);
        check_nested_block(S, st->u.if_.then_, nested_ctx(ctx));
        if (st->u.if_.else_) check_nested_block(S, st->u.if_.else_, nested_ctx(ctx));
        return;
    case STMT_LET:
        check_expr(S, st->u.let.value);
        st->u.let.sym = declare(S, SYM_LET, st->u.let.var, st->u.let.var_span, st);
        return;
    case STMT_PARAM:
        if (ctx != CTX_ALG_TOP) {
            diag_error(S->dx, st->span, "misplaced-stmt",
                       "'param' is only allowed at the top level of an algorithm");
            check_expr(S, st->u.let.value);
            st->u.let.sym = new_symbol(S, SYM_PARAM, st->u.let.var, st->u.let.var_span, st);
            return;
        }
        check_header_expr(S, st->u.let.value);
        st->u.let.sym = declare(S, SYM_PARAM, st->u.let.var, st->u.let.var_span, st);
        if (S->nparams == S->capparams) {
            int ncap = S->capparams ? S->capparams * 2 : 4;
            Symbol **np = ARENA_ARRAY(S->arena, Symbol *, ncap);
            if (S->nparams) memcpy(np, S->params, sizeof(Symbol *) * (size_t)S->nparams);
            S->params = np;
            S->capparams = ncap;
        }
        S->params[S->nparams++] = st->u.let.sym;
        return;
    case STMT_REQUIRE:
        if (ctx != CTX_ALG_TOP && ctx != CTX_TOPO_TOP)
            diag_error(S->dx, st->span, "misplaced-stmt",
                       "'require' is only allowed at the top level of an algorithm or a topology");
        check_expr(S, st->u.require.cond);
        if (st->u.require.cond->kind == EXPR_INT && st->u.require.cond->u.ival == 0 &&
            ctx == CTX_ALG_TOP)
            diag_warning(S->dx, st->u.require.cond->span, "require-always-false",
                         "this requirement is never met: the algorithm never applies");
        return;
    case STMT_SCRATCH:
        if (ctx != CTX_ALG_TOP) {
            diag_error(S->dx, st->span, "misplaced-stmt",
                       "'scratch' is only allowed at the top level of an algorithm");
            check_expr(S, st->u.scratch.chunks);
            return;
        }
        check_header_expr(S, st->u.scratch.chunks);
        if (st->u.scratch.chunks->kind == EXPR_INT && st->u.scratch.chunks->u.ival < 0)
            diag_error(S->dx, st->u.scratch.chunks->span, "bad-scratch",
                       "scratch size %lld is negative", (long long)st->u.scratch.chunks->u.ival);
        return;
    case STMT_SPLIT:
        if (ctx != CTX_ALG_TOP) {
            diag_error(S->dx, st->span, "misplaced-stmt",
                       "'split' is only allowed at the top level of an algorithm");
            check_expr(S, st->u.split.chunks);
            return;
        }
        if (S->alg->split && S->alg->split != st) {
            diag_error(S->dx, st->span, "duplicate-split", "'split' given more than once");
            diag_note(S->dx, S->alg->split->span, "first 'split' is here");
        }
        check_header_expr(S, st->u.split.chunks);
        if (st->u.split.chunks->kind == EXPR_INT && st->u.split.chunks->u.ival < 1)
            diag_error(S->dx, st->u.split.chunks->span, "bad-split",
                       "split must be at least 1, got %lld", (long long)st->u.split.chunks->u.ival);
        return;
    case STMT_XFER:
        if (topo) {
            diag_error(S->dx, st->span, "misplaced-stmt", "'%s' is not allowed in a topology",
                       stmt_word(st));
            return;
        }
        if (ctx != CTX_STEP)
            diag_error(S->dx, st->span, "xfer-outside-step", "transfer outside of a step");
        check_xfer(S, st);
        return;
    case STMT_NODES:
        if (!topo) {
            diag_error(S->dx, st->span, "misplaced-stmt", "'nodes' is only allowed in a topology");
            return;
        }
        if (ctx != CTX_TOPO_TOP) {
            diag_error(S->dx, st->span, "misplaced-stmt",
                       "'nodes' is only allowed at the top level of a topology");
        } else if (S->nodes_stmt) {
            diag_error(S->dx, st->span, "duplicate-nodes", "'nodes' given more than once");
            diag_note(S->dx, S->nodes_stmt->span, "first 'nodes' is here");
        } else {
            S->nodes_stmt = st;
        }
        check_expr(S, st->u.nodes.count);
        return;
    case STMT_LINK:
        if (!topo) {
            diag_error(S->dx, st->span, "misplaced-stmt", "'link' is only allowed in a topology");
            return;
        }
        check_expr(S, st->u.link.from);
        check_expr(S, st->u.link.to);
        return;
    case STMT_CALL:
        if (ctx != CTX_ALG_TOP) {
            diag_error(S->dx, st->span, "misplaced-stmt",
                       "'call' is only allowed at the top level of an algorithm");
            return;
        }
        check_call_stmt(S, st);
        S->alg->ncalls++;
        return;
    }
    COLLC_UNREACHABLE("bad statement kind");
}

static void check_call_stmt(Sema *S, Stmt *st) {
    Stmt *c = st;
    /* the group */
    c->u.call.kind = GROUP__COUNT;
    if (c->u.call.group) {
        int k = callable_lookup(group_info, GROUP__COUNT, c->u.call.group);
        if (k < 0) {
            diag_error(S->dx, c->u.call.group_span, "unknown-group", "unknown group '%s'",
                       c->u.call.group);
            note_callables(S, c->u.call.group_span, "groups", group_info, GROUP__COUNT,
                           c->u.call.group);
        } else if (arity_ok(S, c->u.call.group_span, &group_info[k], c->u.call.ngargs)) {
            c->u.call.kind = (GroupKind)k;
        }
    }
    S->header_what = "a call's group, root, params and views";
    for (int k = 0; k < c->u.call.ngargs; k++) check_header_expr(S, c->u.call.gargs[k]);
    S->header_what = NULL;
    /* `as (g, i)`: visible in the views only; unused is fine */
    Symbol *g = new_symbol(S, SYM_LOOP, c->u.call.gname ? c->u.call.gname : "_g",
                           c->u.call.gname ? c->u.call.gname_span : c->span, st);
    Symbol *i = new_symbol(S, SYM_LET, c->u.call.iname ? c->u.call.iname : "_i",
                           c->u.call.iname ? c->u.call.iname_span : c->span, st);
    g->used = i->used = 1;
    c->u.call.gsym = g;
    c->u.call.isym = i;
    Scope sc;
    scope_push(S, &sc, NULL);
    if (c->u.call.gname) scope_add(S, g);
    if (c->u.call.iname) {
        if (c->u.call.gname && strcmp(c->u.call.gname, c->u.call.iname) == 0) {
            diag_error(S->dx, c->u.call.iname_span, "redeclaration", "redeclaration of '%s'",
                       c->u.call.iname);
            diag_note(S->dx, c->u.call.gname_span, "previous declaration of '%s' is here",
                      c->u.call.gname);
        } else {
            scope_add(S, i);
        }
    }
    /* the bindings */
    for (int k = 0; k < c->u.call.nbinds; k++) {
        Binding *b = &c->u.call.binds[k];
        for (int j = 0; j < k; j++)
            if (strcmp(c->u.call.binds[j].name, b->name) == 0) {
                diag_error(S->dx, b->name_span, "redeclaration", "'%s' is given twice", b->name);
                diag_note(S->dx, c->u.call.binds[j].name_span, "first given here");
                break;
            }
        int buf = strcmp(b->name, "in") == 0 || strcmp(b->name, "out") == 0;
        if (buf) {
            if (!b->view && b->value && b->value->kind == EXPR_NAME &&
                (strcmp(b->value->u.name.name, "out") == 0 || strcmp(b->value->u.name.name, "in") == 0)) {
                View *v = ARENA_NEW(S->arena, View);
                v->span = v->buf_span = b->value->span;
                v->buf = b->value->u.name.name;
                v->buffer = -1;
                b->view = v;
                b->value = NULL;
            }
            if (!b->view) {
                diag_error(S->dx, b->value->span, "bad-view",
                           "'%s' of a called algorithm is a part of this algorithm's 'in' or 'out' "
                           "(out, out[j], out[lo .. hi], out.part(p, Q))", b->name);
                continue;
            }
            check_view(S, st, b);
        } else if (b->view) {
            diag_error(S->dx, b->view->span, "bad-view",
                       "'%s' takes a value; only 'in' and 'out' take a view", b->name);
        } else {
            S->header_what = "a call's group, root, params and views";
            check_header_expr(S, b->value);
            S->header_what = NULL;
        }
    }
    /* scope_pop without unused warnings (both are marked used) */
    scope_pop(S);
}

static void check_block(Sema *S, Stmt *body, Ctx ctx) {
    for (Stmt *st = body; st; st = st->next) check_stmt(S, st, ctx);
}

/* ---------- algorithms and topologies ---------- */

static char *span_text(Sema *S, Span sp) {
    if (!span_valid(sp)) return NULL;
    const SourceFile *f = source_file(S->sm, sp.file);
    if (!f || sp.hi > f->len || sp.lo >= sp.hi) return NULL;
    return arena_strndup(S->arena, f->text + sp.lo, sp.hi - sp.lo);
}

static void resolve_collective(Sema *S, Algorithm *alg) {
    /* known already (the parser's lookup, or a reader of another format) */
    if ((unsigned)alg->coll < COLLECTIVE__COUNT) return;
    char *name = span_text(S, alg->coll_span);
    if (!name) {
        if ((unsigned)alg->coll >= COLLECTIVE__COUNT)
            diag_error(S->dx, alg->coll_span, "unknown-collective", "unknown collective");
        return;
    }
    alg->coll = collective_lookup(name);
    if (alg->coll != COLLECTIVE__COUNT) return;
    diag_error(S->dx, alg->coll_span, "unknown-collective", "unknown collective '%s'", name);
    Suggest sg;
    suggest_init(&sg, name, SUGGEST_NAME);
    for (int i = 0; i < COLLECTIVE__COUNT; i++) suggest_offer(&sg, collective_info[i].keyword, NULL);
    if (sg.best) {
        suggest_note(S->dx, &sg);
    } else {
        char list[512];
        size_t n = 0;
        for (int i = 0; i < COLLECTIVE__COUNT && n < sizeof list; i++)
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%s",
                                  i == 0 ? "" : i + 1 < COLLECTIVE__COUNT ? ", " : " and ",
                                  collective_info[i].keyword);
        diag_note(S->dx, span_none(), "the collectives are %s", list);
    }
}

static void collect_buffers(Sema *S, Algorithm *alg) {
    int n = 2;
    for (Stmt *st = alg->body; st; st = st->next)
        if (st->kind == STMT_SCRATCH) n++;
    alg->buffers = ARENA_ARRAY(S->arena, Buffer, n);
    alg->buffers[BUF_IN].name = "in";
    alg->buffers[BUF_IN].span = span_none();
    alg->buffers[BUF_OUT].name = "out";
    alg->buffers[BUF_OUT].span = span_none();
    alg->nbuffers = 2;
    for (Stmt *st = alg->body; st; st = st->next) {
        if (st->kind != STMT_SCRATCH) continue;
        const char *name = st->u.scratch.name;
        int prev = find_buffer(alg, name);
        if (prev >= 0) {
            st->u.scratch.buffer = prev;
            if (prev < BUF_FIRST_SCRATCH) {
                diag_error(S->dx, st->u.scratch.name_span, "redeclaration",
                           "'%s' is a predefined buffer", name);
            } else {
                diag_error(S->dx, st->u.scratch.name_span, "redeclaration",
                           "redeclaration of buffer '%s'", name);
                diag_note(S->dx, alg->buffers[prev].span, "previous declaration of '%s' is here",
                          name);
            }
            continue;
        }
        if (alg->nbuffers == UINT16_MAX) {   /* SlotRange.buffer is 16 bits */
            diag_error(S->dx, st->u.scratch.name_span, "too-many-buffers",
                       "too many scratch buffers (at most %d)", UINT16_MAX - BUF_FIRST_SCRATCH);
            st->u.scratch.buffer = BUF_OUT;
            continue;
        }
        Buffer *b = &alg->buffers[alg->nbuffers];
        b->name = name;
        b->span = st->u.scratch.name_span;
        b->is_scratch = 1;
        b->chunks = st->u.scratch.chunks;
        st->u.scratch.buffer = alg->nbuffers++;
    }
    /* the split statement is recorded up front so a duplicate points at the first */
    for (Stmt *st = alg->body; st; st = st->next)
        if (st->kind == STMT_SPLIT) { alg->split = st; break; }
}

static void check_algorithm(Sema *S, Algorithm *alg) {
    S->alg = alg;
    S->nslots = 0;
    S->nparams = S->capparams = 0;
    S->nearly = 0;
    S->params = NULL;
    S->nodes_stmt = NULL;
    resolve_collective(S, alg);
    S->sym_N = new_symbol(S, SYM_N, "N", span_none(), NULL);
    S->sym_N->used = 1;
    S->sym_root = NULL;
    if ((unsigned)alg->coll < COLLECTIVE__COUNT && collective_info[alg->coll].rooted) {
        S->sym_root = new_symbol(S, SYM_ROOT, "root", span_none(), NULL);
        S->sym_root->used = 1;
    }
    alg->sym_N = S->sym_N;
    alg->sym_root = S->sym_root;
    collect_buffers(S, alg);
    Scope top;
    S->scope = NULL;
    scope_push(S, &top, alg->body);
    check_block(S, alg->body, CTX_ALG_TOP);
    scope_pop(S);
    alg->params = S->params;
    alg->nparams = S->nparams;
    alg->nslots = S->nslots;
    S->alg = NULL;
}

static void check_topology(Sema *S, Topology *t) {
    S->alg = NULL;
    S->nearly = 0;
    S->nslots = 0;
    S->nodes_stmt = NULL;
    S->sym_N = new_symbol(S, SYM_N, "N", span_none(), NULL);
    S->sym_N->used = 1;
    S->sym_root = NULL;
    t->sym_N = S->sym_N;
    Scope top;
    S->scope = NULL;
    scope_push(S, &top, t->body);
    check_block(S, t->body, CTX_TOPO_TOP);
    scope_pop(S);
    t->nslots = S->nslots;
}

int sema_check(Arena *arena, DiagEngine *dx, Program *prog) {
    unsigned before = diag_error_count(dx);
    Sema S;
    memset(&S, 0, sizeof S);
    S.arena = arena;
    S.dx = dx;
    S.sm = diag_sources(dx);
    /* the algorithms of the run, then those of imported files */
    int nall = prog->nalgorithms + prog->nlibrary;
    for (int i = 0; i < nall; i++) {
        Algorithm *a = i < prog->nalgorithms ? prog->algorithms[i]
                                             : prog->library[i - prog->nalgorithms];
        for (int j = 0; j < i; j++) {
            const Algorithm *b = j < prog->nalgorithms ? prog->algorithms[j]
                                                       : prog->library[j - prog->nalgorithms];
            if (strcmp(b->name, a->name) == 0) {
                diag_error(dx, a->name_span, "duplicate-algorithm", "duplicate algorithm '%s'",
                           a->name);
                diag_note(dx, b->name_span, "'%s' is first defined here", a->name);
                break;
            }
        }
        check_algorithm(&S, a);
    }
    for (int i = 0; i < prog->ntopologies; i++) {
        Topology *t = prog->topologies[i];
        for (int j = 0; j < i; j++)
            if (strcmp(prog->topologies[j]->name, t->name) == 0) {
                diag_error(dx, t->name_span, "duplicate-topology", "duplicate topology '%s'",
                           t->name);
                diag_note(dx, prog->topologies[j]->name_span, "'%s' is first defined here",
                          t->name);
                break;
            }
        check_topology(&S, t);
    }
    /* calls are expanded once every algorithm is checked (a callee may come
     * later, or from another file) */
    if (diag_error_count(dx) == before) compose_program(arena, dx, prog);
    return (int)(diag_error_count(dx) - before);
}
