/* compose.c - algorithms built from algorithms: expands every `call`.
 *
 *     call ring_allreduce(in = out.part(i, A), out = out.part(i, A)) on cols(A) as (i, node);
 *
 * runs the callee on every group of ranks at once, on a view of the
 * caller's buffers. The expansion is plain AST, so instantiate, verify,
 * cost, draw and the Rank IR projection see an algorithm of ordinary steps:
 *
 *   - the callee's statements are copied in place of the call, its lets
 *     and loop variables with fresh frame slots, its N, root, params and
 *     split replaced by expressions of the caller (the group size, the
 *     arguments, the defaults);
 *   - every callee step becomes one step of the caller whose body runs for
 *     every group: `step { for g in 0 .. G { body } }` (no loop for a
 *     single group), so the groups move at once;
 *   - a callee rank x of group g is the caller's rank member(g, x); a
 *     callee chunk c of `in`/`out` is the caller's chunk base(x) + c·u of
 *     the view's buffer, u caller chunks per callee chunk; callee scratch
 *     becomes caller scratch laid out like the callee's `out`, shared by
 *     the calls (the k-th scratch buffer of every call is one buffer of
 *     the caller, as large as the largest): their steps never meet, and
 *     Algorithm.lives tells verify where each call's use begins;
 *   - the caller's split P becomes lcm(own split, what each view needs), so
 *     every phase keeps its own granularity (one phase can be pipelined
 *     finer than another); the caller's own chunk indices scale by
 *     P / own split;
 *   - the group's, the root's and the views' conditions, and the callee's
 *     own requires, become requires of the caller;
 *   - every copied span is moved to an expansion file id of the call
 *     (source_add_expansion), so any diagnostic inside shows the chain of
 *     calls as notes.
 * A reference keeps how the callee wrote it (RefCheck): instantiate checks
 * the callee's ranks and chunks in the callee's terms first. */
#include <string.h>
#include "front/eval.h"
#include "front/front.h"
#include "support/suggest.h"
#include "support/util.h"

typedef struct Compose {
    Arena *arena;
    DiagEngine *dx;
    SourceManager *sm;
    Program *prog;
    Algorithm **all;
    int nall;
    int *state;          /* per algorithm: 0 new, 1 expanding, 2 done, 3 failed */
    int errors;
} Compose;

enum { ST_NEW, ST_BUSY, ST_DONE, ST_FAILED };

/* ---------- expression helpers ---------- */

static Expr *mk_int(Compose *C, Span sp, int64_t v) { return ast_int(C->arena, sp, v); }

static int is_const(const Expr *e, int64_t v) { return e->kind == EXPR_INT && e->u.ival == v; }

static Expr *mk_name(Compose *C, Span sp, const Symbol *sym) {
    Expr *e = ast_name(C->arena, sp, sym->name);
    e->u.name.sym = (Symbol *)sym;
    return e;
}

static Expr *mk_bin(Compose *C, Span sp, BinaryOp op, Expr *a, Expr *b) {
    /* constants and the identities the maps produce most, so dumps and
     * generated code stay readable (and C compilers see no `A == A`) */
    if (a->kind == EXPR_INT && b->kind == EXPR_INT) {
        int64_t r;
        if (eval_binary_op(op, a->u.ival, b->u.ival, &r) == EVAL_OK) return mk_int(C, sp, r);
    }
    if ((op == BOP_EQ || op == BOP_LE || op == BOP_GE) && ast_expr_equal(a, b)) return mk_int(C, sp, 1);
    if ((op == BOP_MOD || op == BOP_DIV) && is_const(a, 0)) return a; /* the divisor is a size >= 1 */
    if (op == BOP_ADD && a->kind == EXPR_INT && a->u.ival == 0) return b;
    if ((op == BOP_ADD || op == BOP_SUB) && b->kind == EXPR_INT && b->u.ival == 0) return a;
    if (op == BOP_MUL && a->kind == EXPR_INT && a->u.ival == 1) return b;
    if ((op == BOP_MUL || op == BOP_DIV) && b->kind == EXPR_INT && b->u.ival == 1) return a;
    if (op == BOP_MUL && ((a->kind == EXPR_INT && a->u.ival == 0) || (b->kind == EXPR_INT && b->u.ival == 0)))
        return mk_int(C, sp, 0);
    if (op == BOP_LAND && a->kind == EXPR_INT && a->u.ival != 0) return b;
    if (op == BOP_LAND && b->kind == EXPR_INT && b->u.ival != 0) return a;
    return ast_binary(C->arena, sp, op, a, b);
}

static Expr *mk_call2(Compose *C, Span sp, Builtin f, Expr *a, Expr *b) {
    /* the arguments here are sizes, positive once the requires before
     * them held: gcd(1, x) = 1, lcm(1, x) = lcm(x, x) = x */
    if (f == BUILTIN_GCD && (is_const(a, 1) || is_const(b, 1))) return mk_int(C, sp, 1);
    if (f == BUILTIN_LCM && is_const(a, 1)) return b;
    if (f == BUILTIN_LCM && (is_const(b, 1) || ast_expr_equal(a, b))) return a;
    if (f == BUILTIN_MAX && ast_expr_equal(a, b)) return a;
    if (a->kind == EXPR_INT && b->kind == EXPR_INT) {
        int64_t x[2] = {a->u.ival, b->u.ival}, r;
        if (eval_builtin_op(f, x, &r) == EVAL_OK) return mk_int(C, sp, r);
    }
    Expr *e = ARENA_NEW(C->arena, Expr);
    e->kind = EXPR_CALL;
    e->span = sp;
    e->u.call.name = builtin_info[f].name;
    e->u.call.name_span = sp;
    e->u.call.nargs = 2;
    e->u.call.args = ARENA_ARRAY(C->arena, Expr *, 2);
    e->u.call.args[0] = a;
    e->u.call.args[1] = b;
    e->u.call.builtin = f;
    return e;
}


/* ---------- one call: substitution and span moves ---------- */

typedef struct SymMap { const Symbol *from; Expr *to; Symbol *sym; } SymMap;
typedef struct FileMap { uint32_t from, to; } FileMap;

typedef struct Inline {
    Compose *C;
    Algorithm *caller, *callee;
    const Stmt *call;
    SymMap *map;
    int nmap, capmap;
    FileMap *files;
    int nfiles, capfiles;
    char *note;                  /* "in 'callee', called by 'caller' here" */
    Expr *g;                     /* the group index in the steps (0 or the loop) */
    Expr *x_sub;                 /* while mapping a view: what `i` stands for */
    int own;                     /* copying the caller's own expressions (a
                                    view): their spans stay */
    /* the group */
    Expr *G, *S;                 /* count and size */
    /* the maps of the callee's buffers */
    Expr *Kc;                    /* the callee's split */
    const View *view[2];         /* in, out */
    Expr *W[2], *Q[2], *Bc[2], *unit[2];
    int *scratch_of;             /* callee scratch buffer -> caller buffer */
    Expr **scratch_size;         /* the callee's scratch sizes (callee chunks) */
    int phase0;                  /* the callee's phase 0 in the caller */
} Inline;

/* Moves a span into the call's expansion of its file (recursively for a
 * span already in an expansion: its call site moves too). */
static Span move_span(Inline *I, Span sp);

static uint32_t move_file(Inline *I, uint32_t file) {
    for (int k = 0; k < I->nfiles; k++)
        if (I->files[k].from == file) return I->files[k].to;
    const SourceFile *f = source_file(I->C->sm, file);
    uint32_t to;
    if (f && f->note) {
        /* an expansion of an inner call: the same note, its site moved */
        Span site = f->site;
        char *note = xmalloc(strlen(f->note) + 1);
        strcpy(note, f->note);
        Span moved = move_span(I, site);
        to = source_add_expansion(I->C->sm, file, moved, note);
        free(note);
    } else {
        to = source_add_expansion(I->C->sm, file, I->call->span, I->note);
    }
    if (I->nfiles == I->capfiles) {
        I->capfiles = I->capfiles ? 2 * I->capfiles : 4;
        I->files = xrealloc(I->files, sizeof *I->files * (size_t)I->capfiles);
    }
    I->files[I->nfiles++] = (FileMap){file, to};
    return to;
}

static Span move_span(Inline *I, Span sp) {
    if (!span_valid(sp) || I->own) return sp;
    sp.file = move_file(I, sp.file);
    return sp;
}

static void map_add(Inline *I, const Symbol *from, Expr *to, Symbol *sym) {
    if (I->nmap == I->capmap) {
        I->capmap = I->capmap ? 2 * I->capmap : 16;
        I->map = xrealloc(I->map, sizeof *I->map * (size_t)I->capmap);
    }
    I->map[I->nmap++] = (SymMap){from, to, sym};
}

static const SymMap *map_find(const Inline *I, const Symbol *s) {
    for (int k = I->nmap - 1; k >= 0; k--)
        if (I->map[k].from == s) return &I->map[k];
    return NULL;
}

/* A fresh symbol of the caller for a callee let or loop variable. */
static Symbol *fresh(Inline *I, const Symbol *s) {
    Symbol *n = ARENA_NEW(I->C->arena, Symbol);
    *n = *s;
    n->span = move_span(I, s->span);
    n->slot = I->caller->nslots++;
    n->used = 1;
    map_add(I, s, NULL, n);
    return n;
}

static Expr *cp_expr(Inline *I, const Expr *e) {
    Arena *a = I->C->arena;
    Span sp = move_span(I, e->span);
    switch (e->kind) {
    case EXPR_INT: return ast_int(a, sp, e->u.ival);
    case EXPR_NAME: {
        const Symbol *s = e->u.name.sym;
        if (I->x_sub && s == I->call->u.call.isym) return I->x_sub;
        if (s == I->call->u.call.gsym) return I->g;
        const SymMap *m = map_find(I, s);
        if (m && m->to) return m->to;
        if (m) return mk_name(I->C, sp, m->sym);
        /* a symbol of the caller (the view's and arguments' own names) */
        Expr *n = ast_name(a, sp, e->u.name.name);
        n->u.name.sym = (Symbol *)s;
        return n;
    }
    case EXPR_UNARY: return ast_unary(a, sp, e->u.unary.op, cp_expr(I, e->u.unary.operand));
    case EXPR_BINARY:
        return ast_binary(a, sp, e->u.binary.op, cp_expr(I, e->u.binary.lhs), cp_expr(I, e->u.binary.rhs));
    case EXPR_CALL: {
        Expr *c = ARENA_NEW(a, Expr);
        *c = *e;
        c->span = sp;
        c->u.call.name_span = move_span(I, e->u.call.name_span);
        c->u.call.args = ARENA_ARRAY(a, Expr *, e->u.call.nargs > 0 ? e->u.call.nargs : 1);
        for (int k = 0; k < e->u.call.nargs; k++) c->u.call.args[k] = cp_expr(I, e->u.call.args[k]);
        return c;
    }
    case EXPR_COND:
        return ast_cond(a, sp, cp_expr(I, e->u.cond.cond), cp_expr(I, e->u.cond.then_),
                        cp_expr(I, e->u.cond.else_));
    }
    COLLC_UNREACHABLE("bad expression kind");
}

static Expr *cp_opt(Inline *I, const Expr *e) { return e ? cp_expr(I, e) : NULL; }

/* ---------- the group ---------- */

/* The source text of a span (for the reasons of generated requires). */
static const char *span_text(Compose *C, Span sp) {
    const SourceFile *f = span_valid(sp) ? source_file(C->sm, sp.file) : NULL;
    if (!f || sp.hi > f->len || sp.lo >= sp.hi) return "?";
    return arena_strndup(C->arena, f->text + sp.lo, sp.hi - sp.lo);
}

/* The text of the call's group: "rows(A)". */
static const char *group_text(Compose *C, const Stmt *call) {
    const Stmt *c = call;
    if (!c->u.call.group) return "all ranks";
    Span sp = c->u.call.group_span;
    if (c->u.call.ngargs) {
        Span last = c->u.call.gargs[c->u.call.ngargs - 1]->span;
        if (last.file == sp.file && last.hi > sp.hi) sp.hi = last.hi + 1; /* the ')' */
    }
    return span_text(C, sp);
}

/* A generated `require cond, "why";` at the call. */
static Stmt *mk_require(Compose *C, Span sp, Expr *cond, const char *why) {
    Stmt *r = ast_stmt(C->arena, STMT_REQUIRE, sp);
    r->u.require.cond = cond;
    r->u.require.why = why;
    r->u.require.why_span = span_none();
    return r;
}

/* A generated check at the call: where `cond` is false the call is wrong
 * (an error `code` at `sp` saying `why`), not inapplicable. It runs after
 * every require (the caller's, the groups', the callees'), so it only
 * judges N where the algorithm applies. */
static Stmt *mk_check(Compose *C, Span sp, Expr *cond, const char *code, const char *why) {
    Stmt *r = mk_require(C, sp, cond, why);
    r->u.require.error = code;
    return r;
}

/* member(g, x), G, S and the condition for the call's group, in caller
 * terms. */
static Expr *group_member(Inline *I, Expr *x) {
    Compose *C = I->C;
    const Stmt *c = I->call;
    Span sp = c->span;
    Expr **a = c->u.call.gargs;
    Expr *g = I->g;
    switch (c->u.call.group ? c->u.call.kind : GROUP__COUNT) {
    case GROUP_ROWS: return mk_bin(C, sp, BOP_ADD, mk_bin(C, sp, BOP_MUL, g, a[0]), x);
    case GROUP_COLS: return mk_bin(C, sp, BOP_ADD, g, mk_bin(C, sp, BOP_MUL, x, a[0]));
    case GROUP_LINES: {
        /* (g % s) + s*x + s*L*(g / s) */
        Expr *L = a[0], *s = a[1];
        Expr *lo = mk_bin(C, sp, BOP_MOD, g, s);
        Expr *hi = mk_bin(C, sp, BOP_MUL, mk_bin(C, sp, BOP_MUL, s, L), mk_bin(C, sp, BOP_DIV, g, s));
        return mk_bin(C, sp, BOP_ADD, mk_bin(C, sp, BOP_ADD, lo, mk_bin(C, sp, BOP_MUL, s, x)), hi);
    }
    case GROUP_RANGE: return mk_bin(C, sp, BOP_ADD, a[0], x);
    case GROUP_STRIDED: return mk_bin(C, sp, BOP_ADD, a[0], mk_bin(C, sp, BOP_MUL, x, a[2]));
    case GROUP_LIST: {
        /* a lookup: x == 0 ? r0 : x == 1 ? r1 : ... : r_{n-1} */
        int n = c->u.call.ngargs;
        Expr *e = a[n - 1];
        for (int k = n - 2; k >= 0; k--)
            e = ast_cond(C->arena, sp, mk_bin(C, sp, BOP_EQ, x, mk_int(C, sp, k)), a[k], e);
        return e;
    }
    case GROUP__COUNT: return x;
    }
    COLLC_UNREACHABLE("bad group kind");
}

static void group_shape(Inline *I, Stmt **reqs_tail_out) {
    Compose *C = I->C;
    const Stmt *c = I->call;
    Span sp = c->span;
    Expr **a = c->u.call.gargs;
    Expr *N = mk_name(C, sp, I->caller->sym_N);
    const char *gt = group_text(C, c);
    Expr *cond = NULL;
    const char *why = NULL;
    switch (c->u.call.group ? c->u.call.kind : GROUP__COUNT) {
    case GROUP_ROWS:
    case GROUP_COLS: {
        Expr *A = a[0];
        Expr *NA = mk_bin(C, sp, BOP_DIV, N, A);
        I->G = c->u.call.kind == GROUP_ROWS ? NA : A;
        I->S = c->u.call.kind == GROUP_ROWS ? A : NA;
        cond = mk_bin(C, sp, BOP_LAND, mk_bin(C, sp, BOP_GE, A, mk_int(C, sp, 1)),
                      mk_bin(C, sp, BOP_EQ, mk_bin(C, sp, BOP_MOD, N, A), mk_int(C, sp, 0)));
        why = A->kind == EXPR_INT
                  ? arena_printf(C->arena, "%s needs N a multiple of %s", gt, span_text(C, A->span))
                  : arena_printf(C->arena, "%s needs %s >= 1 and N a multiple of it", gt,
                                 span_text(C, A->span));
        break;
    }
    case GROUP_LINES: {
        Expr *L = a[0], *s = a[1];
        I->G = mk_bin(C, sp, BOP_DIV, N, L);
        I->S = L;
        cond = mk_bin(C, sp, BOP_LAND,
                      mk_bin(C, sp, BOP_LAND, mk_bin(C, sp, BOP_GE, L, mk_int(C, sp, 1)),
                             mk_bin(C, sp, BOP_GE, s, mk_int(C, sp, 1))),
                      mk_bin(C, sp, BOP_EQ, mk_bin(C, sp, BOP_MOD, N, mk_bin(C, sp, BOP_MUL, s, L)),
                             mk_int(C, sp, 0)));
        why = arena_printf(C->arena, "%s needs L, s >= 1 with s·L dividing N", gt);
        break;
    }
    case GROUP_RANGE:
    case GROUP_STRIDED: {
        Expr *lo = a[0], *hi = a[1];
        I->G = mk_int(C, sp, 1);
        Expr *in = mk_bin(C, sp, BOP_LAND,
                          mk_bin(C, sp, BOP_LAND, mk_bin(C, sp, BOP_LE, mk_int(C, sp, 0), lo),
                                 mk_bin(C, sp, BOP_LT, lo, hi)),
                          mk_bin(C, sp, BOP_LE, hi, N));
        if (c->u.call.kind == GROUP_RANGE) {
            I->S = mk_bin(C, sp, BOP_SUB, hi, lo);
            cond = in;
            why = arena_printf(C->arena, "%s needs 0 <= lo < hi <= N", gt);
        } else {
            Expr *st = a[2];
            I->S = mk_bin(C, sp, BOP_DIV,
                          mk_bin(C, sp, BOP_SUB, mk_bin(C, sp, BOP_ADD, mk_bin(C, sp, BOP_SUB, hi, lo), st),
                                 mk_int(C, sp, 1)),
                          st);
            cond = mk_bin(C, sp, BOP_LAND, mk_bin(C, sp, BOP_GE, st, mk_int(C, sp, 1)), in);
            why = arena_printf(C->arena, "%s needs 0 <= lo < hi <= N and step >= 1", gt);
        }
        break;
    }
    case GROUP_LIST: {
        int n = c->u.call.ngargs;
        I->G = mk_int(C, sp, 1);
        I->S = mk_int(C, sp, n);
        cond = mk_int(C, sp, 1);
        for (int k = 0; k < n; k++) {
            cond = mk_bin(C, sp, BOP_LAND, cond,
                          mk_bin(C, sp, BOP_LAND, mk_bin(C, sp, BOP_LE, mk_int(C, sp, 0), a[k]),
                                 mk_bin(C, sp, BOP_LT, a[k], N)));
            for (int j = 0; j < k; j++) {
                if (!(a[j]->kind == EXPR_INT && a[k]->kind == EXPR_INT)) {
                    cond = mk_bin(C, sp, BOP_LAND, cond, mk_bin(C, sp, BOP_NE, a[j], a[k]));
                } else if (a[j]->u.ival == a[k]->u.ival) {
                    /* written twice: a mistake at every N, not a condition */
                    diag_error(C->dx, a[k]->span, "list-repeated-rank", "rank %lld is listed twice in %s",
                               (long long)a[k]->u.ival, gt);
                    diag_note(C->dx, a[j]->span, "first listed here");
                    break;
                }
            }
        }
        why = arena_printf(C->arena, "the ranks of %s must be distinct ranks below N", gt);
        break;
    }
    case GROUP__COUNT:
        I->G = mk_int(C, sp, 1);
        I->S = N;
        break;
    }
    if (cond && !is_const(cond, 1)) *reqs_tail_out = mk_require(C, sp, cond, why);
}

/* ---------- the views ---------- */

/* blocks of a buffer of the collective on its holders */
static Expr *coll_blocks(Compose *C, Span sp, Collective coll, int buf, Expr *n) {
    const CollectiveInfo *ci = &collective_info[coll];
    BlockCount b = buf == BUF_IN ? ci->in_blocks : ci->out_blocks;
    return b == BLOCKS_N ? n : mk_int(C, sp, 1);
}

/* "N blocks" or "1 block": a buffer of the callee in its own terms. */
static const char *coll_blocks_text(const Algorithm *b, int buf) {
    const CollectiveInfo *ci = &collective_info[b->coll];
    return (buf == BUF_IN ? ci->in_blocks : ci->out_blocks) == BLOCKS_N ? "N blocks" : "1 block";
}

static const View *find_view(const Stmt *call, const char *name) {
    for (int k = 0; k < call->u.call.nbinds; k++)
        if (strcmp(call->u.call.binds[k].name, name) == 0) return call->u.call.binds[k].view;
    return NULL;
}

/* The base chunk of view b for the callee rank x: lo·P + p·(W·P/Q). */
static Expr *view_base(Inline *I, int b, Expr *x) {
    Compose *C = I->C;
    const View *v = I->view[b];
    Span sp = v->span;
    Expr *P = mk_name(C, sp, I->caller->sym_split);
    I->x_sub = x;
    I->own = 1;
    Expr *lo = v->lo ? cp_expr(I, v->lo) : mk_int(C, sp, 0);
    Expr *base = mk_bin(C, sp, BOP_MUL, lo, P);
    if (v->part) {
        Expr *p = cp_expr(I, v->part);
        Expr *span = mk_bin(C, sp, BOP_DIV, mk_bin(C, sp, BOP_MUL, I->W[b], P), I->Q[b]);
        base = mk_bin(C, sp, BOP_ADD, base, mk_bin(C, sp, BOP_MUL, p, span));
    }
    I->own = 0;
    I->x_sub = NULL;
    return base;
}

/* The chunks the callee's buffer `buf` has on its rank x. */
static Expr *callee_chunks(Inline *I, int buf, Expr *x) {
    Compose *C = I->C;
    Span sp = I->call->span;
    if (buf >= BUF_FIRST_SCRATCH) return I->scratch_size[buf - BUF_FIRST_SCRATCH];
    Expr *n = mk_bin(C, sp, BOP_MUL, I->Bc[buf], I->Kc);
    const CollectiveInfo *ci = &collective_info[I->callee->coll];
    HeldBy where = buf == BUF_IN ? ci->in_where : ci->out_where;
    if (where == HELD_ROOT) {
        const SymMap *m = map_find(I, I->callee->sym_root);
        n = mk_bin(C, sp, BOP_MUL, mk_bin(C, sp, BOP_EQ, x, m->to), n);
    }
    return n;
}

/* Which buffer a callee's scratch mirrors: chunk c of scratch holds what
 * chunk c of that buffer holds (a reduce-scatter's partial sums are its
 * `in`'s blocks, an allgather's staging is its `out`'s): `in` unless `out`
 * has more blocks or `in` is the root's only. */
static int scratch_like(const Algorithm *b) {
    const CollectiveInfo *ci = &collective_info[b->coll];
    if (ci->in_where == HELD_ROOT) return BUF_OUT;
    if (ci->out_blocks == BLOCKS_N && ci->in_blocks == BLOCKS_ONE) return BUF_OUT;
    return BUF_IN;
}

/* ---------- statements ---------- */

static BufRef map_ref(Inline *I, const BufRef *r);

static Stmt *cp_block(Inline *I, const Stmt *list, int in_step);

static Stmt *cp_stmt(Inline *I, const Stmt *s, int in_step) {
    Compose *C = I->C;
    Span sp = move_span(I, s->span);
    switch (s->kind) {
    case STMT_LET: {
        Stmt *n = ast_stmt(C->arena, STMT_LET, sp);
        n->u.let.var = s->u.let.var;
        n->u.let.var_span = move_span(I, s->u.let.var_span);
        n->u.let.value = cp_expr(I, s->u.let.value);
        n->u.let.sym = fresh(I, s->u.let.sym);
        n->u.let.sym->decl = n;
        return n;
    }
    case STMT_FOR: {
        Stmt *n = ast_stmt(C->arena, STMT_FOR, sp);
        n->u.for_.var = s->u.for_.var;
        n->u.for_.var_span = move_span(I, s->u.for_.var_span);
        n->u.for_.lo = s->u.for_.over_ranks ? mk_int(C, sp, 0) : cp_expr(I, s->u.for_.lo);
        n->u.for_.hi = s->u.for_.over_ranks ? I->S : cp_expr(I, s->u.for_.hi);
        n->u.for_.sym = fresh(I, s->u.for_.sym);
        n->u.for_.sym->decl = n;
        n->u.for_.body = cp_block(I, s->u.for_.body, in_step);
        return n;
    }
    case STMT_IF: {
        Stmt *n = ast_stmt(C->arena, STMT_IF, sp);
        n->u.if_.cond = cp_expr(I, s->u.if_.cond);
        n->u.if_.then_ = cp_block(I, s->u.if_.then_, in_step);
        n->u.if_.else_ = cp_block(I, s->u.if_.else_, in_step);
        return n;
    }
    case STMT_STEP: {
        Stmt *n = ast_stmt(C->arena, STMT_STEP, sp);
        n->u.step.phase = I->phase0 + s->u.step.phase;
        Stmt *body = cp_block(I, s->u.step.body, 1);
        if (!is_const(I->G, 1) && body) {
            /* every group in the same step */
            Stmt *f = ast_stmt(C->arena, STMT_FOR, sp);
            f->u.for_.var = I->call->u.call.gsym->name;
            f->u.for_.var_span = I->call->u.call.gsym->span;
            f->u.for_.lo = mk_int(C, sp, 0);
            f->u.for_.hi = I->G;
            f->u.for_.sym = I->call->u.call.gsym;
            f->u.for_.body = body;
            body = f;
        }
        n->u.step.body = body;
        return n;
    }
    case STMT_REQUIRE: {
        Stmt *n = ast_stmt(C->arena, STMT_REQUIRE, sp);
        n->u.require.cond = cp_expr(I, s->u.require.cond);
        n->u.require.why = s->u.require.why;
        n->u.require.why_span = move_span(I, s->u.require.why_span);
        return n;
    }
    case STMT_XFER: {
        Stmt *n = ast_stmt(C->arena, STMT_XFER, sp);
        n->u.xfer.op = s->u.xfer.op;
        n->u.xfer.src = map_ref(I, &s->u.xfer.src);
        n->u.xfer.dst = map_ref(I, &s->u.xfer.dst);
        return n;
    }
    case STMT_PARAM:
    case STMT_SPLIT:
    case STMT_SCRATCH:
        return NULL; /* the callee's header: see inline_call */
    case STMT_NODES:
    case STMT_LINK:
    case STMT_CALL:
        break;
    }
    COLLC_UNREACHABLE("statement not expected in an expanded callee");
}

static Stmt *cp_block(Inline *I, const Stmt *list, int in_step) {
    Stmt *head = NULL, **tail = &head;
    for (const Stmt *s = list; s; s = s->next) {
        Stmt *n = cp_stmt(I, s, in_step);
        if (!n) continue;
        *tail = n;
        tail = &n->next;
    }
    return head;
}

/* A RefCheck level as the callee's inner call wrote it, in caller terms. */
static const RefCheck *cp_check(Inline *I, const RefCheck *k, const RefCheck *outer) {
    if (!k) return outer;
    RefCheck *n = ARENA_NEW(I->C->arena, RefCheck);
    n->name = k->name;
    n->rank = cp_expr(I, k->rank);
    n->nranks = cp_expr(I, k->nranks);
    n->lo = cp_opt(I, k->lo);
    n->hi = cp_opt(I, k->hi);
    n->chunks = cp_expr(I, k->chunks);
    n->outer = cp_check(I, k->outer, outer);
    return n;
}

static BufRef map_ref(Inline *I, const BufRef *r) {
    Compose *C = I->C;
    Span sp = move_span(I, r->span);
    BufRef o;
    memset(&o, 0, sizeof o);
    o.span = sp;
    o.name_span = move_span(I, r->name_span);
    Expr *x = cp_expr(I, r->rank);
    Expr *lo = cp_opt(I, r->lo), *hi = cp_opt(I, r->hi);
    int b = r->buffer;
    Expr *have = callee_chunks(I, b, x);
    /* how the callee wrote it, checked first (its own inner checks before) */
    RefCheck *k = ARENA_NEW(C->arena, RefCheck);
    k->name = r->name;
    k->rank = x;
    k->nranks = I->S;
    k->lo = lo;
    k->hi = hi;
    k->chunks = have;
    o.check = cp_check(I, r->check, k);
    o.viewed = 1;
    Expr *base, *unit;
    if (b < BUF_FIRST_SCRATCH) {
        o.buffer = I->view[b]->buffer;
        base = view_base(I, b, x);
        unit = I->unit[b];
    } else {
        o.buffer = I->scratch_of[b - BUF_FIRST_SCRATCH];
        /* laid out like the callee's `in` or `out` on that rank (scratch_like),
         * so that chunk positions, and with them sizes, agree with it */
        int like = scratch_like(I->callee);
        base = mk_bin(C, sp, BOP_MOD, view_base(I, like, x), mk_name(C, sp, I->caller->sym_split));
        unit = I->unit[like];
    }
    o.name = I->caller->buffers[o.buffer].name;
    Expr *clo = lo ? lo : mk_int(C, sp, 0);
    Expr *chi = hi ? hi : lo ? mk_bin(C, sp, BOP_ADD, lo, mk_int(C, sp, 1)) : have;
    o.lo = mk_bin(C, sp, BOP_ADD, base, mk_bin(C, sp, BOP_MUL, clo, unit));
    o.hi = mk_bin(C, sp, BOP_ADD, base, mk_bin(C, sp, BOP_MUL, chi, unit));
    o.rank = group_member(I, x);
    return o;
}

/* ---------- one call ---------- */

static void diag_callee_guess(Compose *C, const Stmt *call) {
    Suggest sg;
    suggest_init(&sg, call->u.call.callee, SUGGEST_NAME);
    for (int k = 0; k < C->nall; k++) suggest_offer(&sg, C->all[k]->name, C->all[k]);
    const Algorithm *best = sg.item;
    if (best) diag_note(C->dx, best->name_span, "did you mean '%s'?", best->name);
    else
        diag_note(C->dx, call->u.call.callee_span,
                  "an algorithm of another file can be called after 'import \"FILE.coll\";'");
}

static int find_alg(const Compose *C, const char *name) {
    for (int k = 0; k < C->nall; k++)
        if (strcmp(C->all[k]->name, name) == 0) return k;
    return -1;
}

/* The bindings against the callee: known names, root given iff rooted,
 * no `out` that is the caller's `in`. */
static int check_bindings(Compose *C, const Stmt *call, const Algorithm *b) {
    int bad = 0, rooted = collective_info[b->coll].rooted, has_root = 0;
    for (int k = 0; k < call->u.call.nbinds; k++) {
        const Binding *x = &call->u.call.binds[k];
        if (!strcmp(x->name, "in") || !strcmp(x->name, "out")) {
            if (!strcmp(x->name, "out") && x->view && x->view->buffer == BUF_IN) {
                diag_error(C->dx, x->view->span, "write-to-in",
                           "'%s' writes its 'out': it cannot be this algorithm's 'in'", b->name);
                bad = 1;
            }
            continue;
        }
        if (!strcmp(x->name, "root")) {
            has_root = 1;
            if (!rooted) {
                diag_error(C->dx, x->name_span, "root-unrooted",
                           "'%s' has no root (%s is not a rooted collective)", b->name,
                           collective_info[b->coll].keyword);
                bad = 1;
            }
            continue;
        }
        int found = 0;
        for (int p = 0; p < b->nparams && !found; p++) found = !strcmp(b->params[p]->name, x->name);
        if (found) continue;
        diag_error(C->dx, x->name_span, "unknown-binding", "'%s' has no param named '%s'", b->name,
                   x->name);
        Suggest sg;
        suggest_init(&sg, x->name, SUGGEST_NAME);
        for (int p = 0; p < b->nparams; p++) suggest_offer(&sg, b->params[p]->name, b->params[p]);
        const Symbol *best = sg.item;
        if (best) diag_note(C->dx, best->span, "did you mean '%s'?", best->name);
        else if (!b->nparams)
            diag_note(C->dx, b->name_span, "'%s' has no params: a call gives it 'in', 'out'%s", b->name,
                      rooted ? " and 'root'" : "");
        else diag_note(C->dx, b->name_span, "a call gives '%s' 'in', 'out', %sits params", b->name,
                       rooted ? "'root' and " : "");
        bad = 1;
    }
    if (rooted && !has_root) {
        diag_error(C->dx, call->u.call.callee_span, "missing-root",
                   "'%s' is a %s: give its root in the group (root = 0, ...)", b->name,
                   collective_info[b->coll].keyword);
        bad = 1;
    }
    return bad;
}

static const Binding *find_binding(const Stmt *call, const char *name) {
    for (int k = 0; k < call->u.call.nbinds; k++)
        if (!strcmp(call->u.call.binds[k].name, name)) return &call->u.call.binds[k];
    return NULL;
}

/* A name for a callee scratch buffer in the caller: "callee.tmp", unique. */
static const char *scratch_name(Compose *C, Algorithm *a, const char *callee, const char *name) {
    const char *n = arena_printf(C->arena, "%s.%s", callee, name);
    for (int k = 2;; k++) {
        int clash = 0;
        for (int b = 0; b < a->nbuffers && !clash; b++) clash = !strcmp(a->buffers[b].name, n);
        if (!clash) return n;
        n = arena_printf(C->arena, "%s.%s#%d", callee, name, k);
    }
}

typedef struct Built {
    Stmt *head, **tail;          /* statements in order */
} Built;

static void built_add(Built *b, Stmt *s) {
    if (!s) return;
    /* a condition two calls share is required once */
    if (s->kind == STMT_REQUIRE && !s->next)
        for (Stmt *t = b->head; t; t = t->next)
            if (t->kind == STMT_REQUIRE && ast_expr_equal(t->u.require.cond, s->u.require.cond)) return;
    *b->tail = s;
    while (s->next) s = s->next;
    b->tail = &s->next;
}

/* The callee's statements (but the header's requires, already in `hdr`)
 * into `body`; with top-level lets in a block of their own (an `if` that
 * always holds), so that the callee's variables leave scope where the
 * call ends and never show in the notes of later steps. */
static void inline_statements(Inline *I, Built *body) {
    Built stmts = {NULL, NULL};
    stmts.tail = &stmts.head;
    int lets = 0;
    for (const Stmt *s = I->callee->body; s; s = s->next) {
        if (s->kind == STMT_REQUIRE && ast_expr_header_only(s->u.require.cond)) continue;
        lets |= s->kind == STMT_LET;
        built_add(&stmts, cp_stmt(I, s, 0));
    }
    if (!lets || !stmts.head) {
        built_add(body, stmts.head);
        return;
    }
    Span sp = I->call->span;
    Stmt *scope = ast_stmt(I->C->arena, STMT_IF, sp);
    scope->u.if_.cond = mk_int(I->C, sp, 1);
    scope->u.if_.then_ = stmts.head;
    scope->u.if_.else_ = NULL;
    built_add(body, scope);
}

static int phases_of(const Algorithm *b) { return b->nphases > 0 ? b->nphases : 1; }

/* The scratch buffers the calls of one caller share: the k-th scratch
 * buffer of every call is buffer buf[k] of the caller, as large as the
 * largest. */
typedef struct ScratchPool {
    int *buf;
    int n;
} ScratchPool;

static void add_life(Compose *C, Algorithm *a, int buffer, int lo, int hi) {
    struct ScratchLife *l = ARENA_ARRAY(C->arena, struct ScratchLife, (size_t)a->nlives + 1);
    if (a->nlives) memcpy(l, a->lives, sizeof *l * (size_t)a->nlives);
    l[a->nlives++] = (struct ScratchLife){buffer, lo, hi};
    a->lives = l;
}

/* The callee's N, root, params and split in caller terms; the condition
 * on the root into `hdr`. */
static void bind_callee(Inline *I, Built *hdr) {
    Compose *C = I->C;
    const Stmt *call = I->call;
    const Algorithm *b = I->callee;
    Span sp = call->span;
    map_add(I, b->sym_N, I->S, NULL);
    if (b->sym_root) {
        const Binding *r = find_binding(call, "root");
        map_add(I, b->sym_root, r->value, NULL);
        Expr *cond = mk_bin(C, sp, BOP_LAND, mk_bin(C, sp, BOP_LE, mk_int(C, sp, 0), r->value),
                            mk_bin(C, sp, BOP_LT, r->value, I->S));
        if (!is_const(cond, 1))
            built_add(hdr, mk_require(C, sp, cond,
                                      arena_printf(C->arena, "the root of '%s' must be a rank of its group",
                                                   b->name)));
    }
    for (const Stmt *s = b->body; s; s = s->next) {
        if (s->kind != STMT_PARAM) continue;
        const Binding *x = find_binding(call, s->u.let.var);
        map_add(I, s->u.let.sym, x ? x->value : cp_expr(I, s->u.let.value), NULL);
    }
    /* its split: the caller's expression of it (a composed callee's split
     * symbol stands for it too) */
    I->Kc = b->split ? cp_expr(I, b->split->u.split.chunks) : mk_int(C, sp, 1);
    if (b->sym_split) map_add(I, b->sym_split, I->Kc, NULL);
}

/* The views of in and out of the call (I->view, W, Q, Bc, unit); the
 * checks that they have a block into `chk`. Sets *need_out to the split
 * the views need; returns 1 after reporting a view that never has one. */
static int map_views(Inline *I, Built *chk, Expr **need_out) {
    Compose *C = I->C;
    const Stmt *call = I->call;
    const Algorithm *a = I->caller, *b = I->callee;
    Span sp = call->span;
    int bad = 0;
    Expr *P = mk_name(C, sp, a->sym_split);
    Expr *need = mk_int(C, sp, 1);
    for (int k = 0; k < 2; k++) {
        const View *v = find_view(call, k == BUF_IN ? "in" : "out");
        if (!v) {
            View *d = ARENA_NEW(C->arena, View);
            d->span = d->buf_span = sp;
            d->buf = k == BUF_IN ? "in" : "out";
            d->buffer = k;
            v = d;
        }
        I->view[k] = v;
        I->x_sub = mk_int(C, sp, 0); /* W and Q use neither g nor i (sema) */
        I->own = 1;
        Expr *W = v->lo && v->hi ? (v->hi->kind == EXPR_BINARY && v->hi->u.binary.op == BOP_ADD &&
                                            ast_expr_equal(v->hi->u.binary.lhs, v->lo)
                                        ? cp_expr(I, v->hi->u.binary.rhs)
                                        : mk_bin(C, sp, BOP_SUB, cp_expr(I, v->hi), cp_expr(I, v->lo)))
                 : v->lo ? mk_int(C, sp, 1)
                         : coll_blocks(C, sp, a->coll, v->buffer, mk_name(C, sp, a->sym_N));
        Expr *Q = v->parts ? cp_expr(I, v->parts) : mk_int(C, sp, 1);
        I->x_sub = NULL;
        I->own = 0;
        I->W[k] = W;
        I->Q[k] = Q;
        I->Bc[k] = coll_blocks(C, sp, b->coll, k, I->S);
        Expr *den = mk_bin(C, sp, BOP_MUL, mk_bin(C, sp, BOP_MUL, Q, I->Bc[k]), I->Kc);
        I->unit[k] = mk_bin(C, sp, BOP_DIV, mk_bin(C, sp, BOP_MUL, W, P), den);
        /* P must be a multiple of den / gcd(W, den) */
        Expr *r = mk_bin(C, sp, BOP_DIV, den, mk_call2(C, sp, BUILTIN_GCD, W, den));
        need = is_const(need, 1) ? r : mk_call2(C, sp, BUILTIN_LCM, need, r);
        Expr *ok = mk_bin(C, sp, BOP_LAND, mk_bin(C, sp, BOP_GE, W, mk_int(C, sp, 1)),
                          mk_bin(C, sp, BOP_GE, Q, mk_int(C, sp, 1)));
        if (find_view(call, k == BUF_IN ? "in" : "out") && !is_const(ok, 1)) {
            const char *why = arena_printf(C->arena, "the view '%s = %s' of the call of '%s' has no block",
                                           k == BUF_IN ? "in" : "out", span_text(C, v->span), b->name);
            if (is_const(ok, 0)) {
                diag_error(C->dx, v->span, "view-empty", "%s", why);
                bad = 1;
            } else {
                built_add(chk, mk_check(C, v->span, ok, "view-empty", why));
            }
        }
    }
    *need_out = need;
    return bad;
}

/* Whether in and out cut blocks of one size (a check into `chk` when
 * that depends on N). Returns 1 after reporting that they never do. */
static int check_same_blocks(Inline *I, Built *chk) {
    Compose *C = I->C;
    const Stmt *call = I->call;
    const Algorithm *b = I->callee;
    Span sp = call->span;
    int bad = 0;
    /* in and out cut blocks of one size: W_in·Q_out·Bc_out == W_out·Q_in·Bc_in */
    Expr *same = mk_bin(C, sp, BOP_EQ,
                        mk_bin(C, sp, BOP_MUL, mk_bin(C, sp, BOP_MUL, I->W[0], I->Q[1]), I->Bc[1]),
                        mk_bin(C, sp, BOP_MUL, mk_bin(C, sp, BOP_MUL, I->W[1], I->Q[0]), I->Bc[0]));
    if (!is_const(same, 1)) {
        /* named at the view given (out's if both are) */
        const View *vin = find_view(call, "in"), *vout = find_view(call, "out");
        Span at = vout ? vout->span : vin ? vin->span : sp;
        const char *why = arena_printf(
            C->arena,
            "the views 'in = %s' and 'out = %s' do not fit '%s': cut into its 'in' (%s) and "
            "its 'out' (%s), they give blocks of different sizes",
            vin ? span_text(C, vin->span) : "in", vout ? span_text(C, vout->span) : "out", b->name,
            coll_blocks_text(b, BUF_IN), coll_blocks_text(b, BUF_OUT));
        if (is_const(same, 0)) {
            diag_error(C->dx, at, "view-mismatch", "%s", why);
            bad = 1;
        } else {
            built_add(chk, mk_check(C, at, same, "view-mismatch", why));
        }
    }
    return bad;
}

/* The callee's scratch as caller buffers, taken from `pool`, live in the
 * call's phases; the caller's phases extended past the call. */
static void inline_scratch(Inline *I, ScratchPool *pool) {
    Compose *C = I->C;
    Algorithm *a = I->caller, *b = I->callee;
    Span sp = I->call->span;
    Expr *P = mk_name(C, sp, a->sym_split);
    /* its scratch: caller scratch of the callee's size in caller chunks,
     * plus one block of room for the offset that aligns it with `out`; the
     * k-th buffer of the pool, which an earlier call may have made (then
     * it grows to the larger of the two), live in the call's phases */
    int ns = b->nbuffers - BUF_FIRST_SCRATCH;
    int phase_end = I->phase0 + phases_of(b);
    I->scratch_of = ARENA_ARRAY(C->arena, int, ns > 0 ? ns : 1);
    I->scratch_size = ARENA_ARRAY(C->arena, Expr *, ns > 0 ? ns : 1);
    for (int k = 0; k < ns; k++) {
        const Buffer *cb = &b->buffers[BUF_FIRST_SCRATCH + k];
        Expr *size = cp_expr(I, cb->chunks);
        I->scratch_size[k] = size;
        Expr *chunks = mk_bin(C, sp, BOP_ADD, mk_bin(C, sp, BOP_MUL, size, I->unit[scratch_like(b)]), P);
        if (k < pool->n) {
            Buffer *nb = &a->buffers[pool->buf[k]];
            nb->chunks = mk_call2(C, sp, BUILTIN_MAX, nb->chunks, chunks);
            I->scratch_of[k] = pool->buf[k];
        } else {
            Buffer *nb = &a->buffers[a->nbuffers];
            memset(nb, 0, sizeof *nb);
            nb->name = scratch_name(C, a, b->name, cb->name);
            nb->span = move_span(I, cb->span);
            nb->is_scratch = 1;
            nb->chunks = chunks;
            /* its `scratch` statement comes after the split (expand_alg) */
            I->scratch_of[k] = pool->buf[pool->n++] = a->nbuffers++;
        }
        add_life(C, a, I->scratch_of[k], I->phase0, phase_end);
    }
    /* the callee's own sharing, in the caller's buffers and phases */
    for (int k = 0; k < b->nlives; k++)
        add_life(C, a, I->scratch_of[b->lives[k].buffer - BUF_FIRST_SCRATCH], I->phase0 + b->lives[k].lo,
                 I->phase0 + b->lives[k].hi);
    a->nphases = phase_end;
}

/* Expands one call: its requires and scratch go to `hdr`, the checks of
 * its views to `chk`, its statements to `body`; the split the views need
 * to `split_need`. Its scratch is taken from `pool`. Returns 1 after
 * reporting views that never fit. */
static int inline_call(Compose *C, Algorithm *a, const Stmt *call, Algorithm *b, Built *hdr,
                       Built *chk, Built *body, Expr **split_need, ScratchPool *pool) {
    Inline I;
    memset(&I, 0, sizeof I);
    I.phase0 = phases_of(a);
    I.C = C;
    I.caller = a;
    I.callee = b;
    I.call = call;
    I.note = arena_printf(C->arena, "in '%s', called by '%s' here", b->name, a->name);
    Span sp = call->span;
    Stmt *req = NULL;
    group_shape(&I, &req);
    built_add(hdr, req);
    I.g = is_const(I.G, 1) ? mk_int(C, sp, 0) : mk_name(C, sp, call->u.call.gsym);

    bind_callee(&I, hdr);
    Expr *need;
    int bad = map_views(&I, chk, &need);
    if (!bad) bad = check_same_blocks(&I, chk);
    *split_need = is_const(*split_need, 1) ? need : mk_call2(C, sp, BUILTIN_LCM, *split_need, need);

    /* its requires (those of the header: the rest stay in place) */
    for (const Stmt *s = b->body; s; s = s->next)
        if (s->kind == STMT_REQUIRE && ast_expr_header_only(s->u.require.cond))
            built_add(hdr, cp_stmt(&I, s, 0));

    inline_scratch(&I, pool);
    inline_statements(&I, body);
    free(I.map);
    free(I.files);
    return bad;
}

/* ---------- the caller's own references ---------- */

typedef struct Own {
    Compose *C;
    Algorithm *a;
    Expr *P0;        /* its own split */
} Own;

static Expr *own_chunks(Own *O, int buf, Expr *rank) {
    Compose *C = O->C;
    Span sp = rank->span;
    Algorithm *a = O->a;
    if (buf >= BUF_FIRST_SCRATCH) return a->buffers[buf].chunks;
    Expr *n = mk_bin(C, sp, BOP_MUL, coll_blocks(C, sp, a->coll, buf, mk_name(C, sp, a->sym_N)), O->P0);
    const CollectiveInfo *ci = &collective_info[a->coll];
    if ((buf == BUF_IN ? ci->in_where : ci->out_where) == HELD_ROOT)
        n = mk_bin(C, sp, BOP_MUL, mk_bin(C, sp, BOP_EQ, rank, mk_name(C, sp, a->sym_root)), n);
    return n;
}

/* A reference of the caller's own code, in units of its own split, scaled
 * to the composed split: chunk c is chunks [c·s, (c+1)·s), s = P / P0. */
static void scale_ref(Own *O, BufRef *r) {
    if (!r->lo) return; /* the whole buffer stays the whole buffer */
    Compose *C = O->C;
    Span sp = r->span;
    RefCheck *k = ARENA_NEW(C->arena, RefCheck);
    k->name = r->name;
    k->rank = r->rank;
    k->nranks = mk_name(C, sp, O->a->sym_N);
    k->lo = r->lo;
    k->hi = r->hi;
    k->chunks = own_chunks(O, r->buffer, r->rank);
    r->check = k;
    Expr *s = mk_bin(C, sp, BOP_DIV, mk_name(C, sp, O->a->sym_split), O->P0);
    Expr *hi = r->hi ? r->hi : mk_bin(C, sp, BOP_ADD, r->lo, mk_int(C, sp, 1));
    r->lo = mk_bin(C, sp, BOP_MUL, r->lo, s);
    r->hi = mk_bin(C, sp, BOP_MUL, hi, s);
}

static void scale_stmt(Own *O, Stmt *s);

static void scale_block(Own *O, Stmt *list) {
    for (Stmt *s = list; s; s = s->next) scale_stmt(O, s);
}

static void scale_stmt(Own *O, Stmt *s) {
    switch (s->kind) {
    case STMT_STEP: scale_block(O, s->u.step.body); break;
    case STMT_FOR: scale_block(O, s->u.for_.body); break;
    case STMT_IF:
        scale_block(O, s->u.if_.then_);
        scale_block(O, s->u.if_.else_);
        break;
    case STMT_XFER:
        scale_ref(O, &s->u.xfer.src);
        scale_ref(O, &s->u.xfer.dst);
        break;
    default: break;
    }
}

/* ---------- one algorithm ---------- */

static int expand_alg(Compose *C, int idx);

static int expand_alg(Compose *C, int idx) {
    Algorithm *a = C->all[idx];
    if (C->state[idx] == ST_DONE) return 0;
    if (C->state[idx] == ST_FAILED) return 1;
    if (!a->ncalls) {
        C->state[idx] = ST_DONE;
        return 0;
    }
    C->state[idx] = ST_BUSY;
    int bad = 0;
    /* the callees first; header statements before the first step or call */
    int seen_body = 0;
    for (Stmt *s = a->body; s; s = s->next) {
        if (s->kind == STMT_CALL || ast_stmt_has_step(s)) seen_body = 1;
        else if (seen_body && (s->kind == STMT_PARAM || s->kind == STMT_SPLIT || s->kind == STMT_SCRATCH)) {
            diag_error(C->dx, s->span, "decl-after-step",
                       "in an algorithm that calls others, 'param', 'split' and 'scratch' come before "
                       "its first step or call");
            bad = 1;
        }
        if (s->kind != STMT_CALL) continue;
        int k = find_alg(C, s->u.call.callee);
        if (k < 0) {
            diag_error(C->dx, s->u.call.callee_span, "unknown-algorithm", "no algorithm named '%s'",
                       s->u.call.callee);
            diag_callee_guess(C, s);
            bad = 1;
            continue;
        }
        if (C->state[k] == ST_BUSY) {
            if (k == idx)
                diag_error(C->dx, s->u.call.callee_span, "recursive-call", "'%s' calls itself",
                           a->name);
            else
                diag_error(C->dx, s->u.call.callee_span, "recursive-call",
                           "'%s' calls '%s', which calls '%s' back", a->name, C->all[k]->name, a->name);
            bad = 1;
            continue;
        }
        if (expand_alg(C, k)) {
            bad = 1;
            continue;
        }
        if (check_bindings(C, s, C->all[k])) bad = 1;
    }
    if (bad) {
        C->state[idx] = ST_FAILED;
        C->errors++;
        return 1;
    }

    /* room for the callees' scratch buffers */
    int extra = 0;
    for (Stmt *s = a->body; s; s = s->next)
        if (s->kind == STMT_CALL) {
            const Algorithm *b = C->all[find_alg(C, s->u.call.callee)];
            extra += b->nbuffers - BUF_FIRST_SCRATCH;
        }
    Buffer *bufs = ARENA_ARRAY(C->arena, Buffer, (size_t)(a->nbuffers + extra));
    memcpy(bufs, a->buffers, sizeof *bufs * (size_t)a->nbuffers);
    a->buffers = bufs;
    int first_new = a->nbuffers;
    ScratchPool pool = {ARENA_ARRAY(C->arena, int, (size_t)(extra > 0 ? extra : 1)), 0};
    a->nphases = 1;

    Symbol *P = ARENA_NEW(C->arena, Symbol);
    P->kind = SYM_SPLIT;
    P->name = "split_P";
    P->span = span_none();
    P->slot = a->nslots++;
    P->used = 1;
    a->sym_split = P;

    Own O = {C, a, a->split ? a->split->u.split.chunks : ast_int(C->arena, a->span, 1)};
    /* the caller's own steps, scaled (before the callees' join them) */
    for (Stmt *s = a->body; s; s = s->next)
        if (s->kind != STMT_CALL) scale_stmt(&O, s);

    Built head = {NULL, NULL}, hdr = {NULL, NULL}, chk = {NULL, NULL}, rest = {NULL, NULL};
    head.tail = &head.head;
    hdr.tail = &hdr.head;
    chk.tail = &chk.head;
    rest.tail = &rest.head;
    Expr *need = ast_int(C->arena, a->span, 1);
    Stmt *own_scratch = NULL, **own_scratch_tail = &own_scratch;
    int in_head = 1;
    for (Stmt *s = a->body, *next; s; s = next) {
        next = s->next;
        s->next = NULL;
        if (s->kind == STMT_CALL || ast_stmt_has_step(s)) in_head = 0;
        if (s->kind == STMT_SPLIT) continue;              /* replaced below */
        if (s->kind == STMT_SCRATCH) {                    /* after the split */
            Expr *scale = mk_bin(C, s->span, BOP_DIV, mk_name(C, s->span, P), O.P0);
            s->u.scratch.chunks = mk_bin(C, s->span, BOP_MUL, s->u.scratch.chunks, scale);
            a->buffers[s->u.scratch.buffer].chunks = s->u.scratch.chunks;
            *own_scratch_tail = s;
            own_scratch_tail = &s->next;
            continue;
        }
        if (s->kind != STMT_CALL) {
            built_add(in_head ? &head : &rest, s);
            continue;
        }
        const Algorithm *cb = C->all[find_alg(C, s->u.call.callee)];
        bad |= inline_call(C, a, s, (Algorithm *)cb, &hdr, &chk, &rest, &need, &pool);
    }
    if (bad) {
        C->state[idx] = ST_FAILED;
        C->errors++;
        return 1;
    }
    /* head, the generated requires, split, scratch (own, then the callees'),
     * then the body */
    Stmt *split = ast_stmt(C->arena, STMT_SPLIT, a->split ? a->split->span : a->name_span);
    split->u.split.chunks = is_const(need, 1) ? O.P0 : mk_call2(C, split->span, BUILTIN_LCM, O.P0, need);
    a->split = split;
    built_add(&head, hdr.head);
    built_add(&head, chk.head);
    built_add(&head, split);
    built_add(&head, own_scratch);
    for (int k = first_new; k < a->nbuffers; k++) {
        Stmt *st = ast_stmt(C->arena, STMT_SCRATCH, a->buffers[k].span);
        st->u.scratch.name = a->buffers[k].name;
        st->u.scratch.name_span = a->buffers[k].span;
        st->u.scratch.chunks = a->buffers[k].chunks;
        st->u.scratch.buffer = k;
        built_add(&head, st);
    }
    built_add(&head, rest.head);
    a->body = head.head;
    a->ncalls = 0;
    C->state[idx] = ST_DONE;
    return 0;
}

int compose_program(Arena *arena, DiagEngine *dx, Program *prog) {
    Compose C;
    memset(&C, 0, sizeof C);
    C.arena = arena;
    C.dx = dx;
    C.sm = diag_sources(dx);
    C.prog = prog;
    C.nall = prog->nalgorithms + prog->nlibrary;
    int any = 0;
    C.all = xmalloc(sizeof *C.all * (size_t)(C.nall > 0 ? C.nall : 1));
    for (int k = 0; k < C.nall; k++) {
        C.all[k] = k < prog->nalgorithms ? prog->algorithms[k] : prog->library[k - prog->nalgorithms];
        any |= C.all[k]->ncalls > 0;
    }
    if (any) {
        C.state = xcalloc((size_t)C.nall, sizeof *C.state);
        for (int k = 0; k < C.nall; k++) expand_alg(&C, k);
        free(C.state);
    }
    free(C.all);
    return C.errors;
}
