/* project.c - endpoint projection: global chunk-flow program -> Rank IR.
 *
 * Outside steps the program is kept as it is (loops, lets, ifs): every rank
 * runs the same control flow. Inside a step, each copy/reduce statement X
 * becomes two projected nests, one for the side that sends (src rank == me)
 * and one for the side that receives (dst rank == me). A nest repeats the
 * lets, ifs and loops that enclose X inside the step; when the rank
 * expression has one of the invertible forms
 *     v + e, e + v, v - e, e - v, -v + e   (linear, coefficient +-1)
 *     v ^ e, e ^ v                          (xor)
 *     (linear) % K                          (modular, K > 0)
 * in an enclosing loop variable v (e free of v and of the loops inside v's),
 * the loop over v is replaced by `let v = solution(me)` plus a range guard,
 * so a rank does O(1) work per transfer instead of scanning all N sources.
 * Otherwise the loops stay and the transfer is guarded by `rank == me`.
 * A transfer whose two ends are the same rank is a local operation and is
 * emitted on the send side only. See rankir.h for the matching argument. */
#include <string.h>
#include "lower/rankir.h"
#include "support/util.h"

/* ---------- expression helpers ---------- */

typedef struct Lower {
    Arena *arena;
    DiagEngine *dx;
    const Algorithm *alg;
    RankProgram *rp;
    const Define *defines;
    int ndefines;
    int setup_done;
    Stmt *split;                 /* the split statement, if any */
    Expr **scratch_chunks;       /* [nscratch] */
    int nerrors;
    int step_index;
} Lower;

static Expr *mk_int(Lower *L, int64_t v) { return ast_int(L->arena, span_none(), v); }

static Expr *mk_sym(Lower *L, const Symbol *sym) {
    Expr *e = ast_name(L->arena, span_none(), sym->name);
    e->u.name.sym = (Symbol *)sym;
    return e;
}

static Expr *mk_bin(Lower *L, BinaryOp op, Expr *a, Expr *b) {
    /* Fold the identities projection creates most often, so the dumps and
     * the generated code stay readable. */
    if (a->kind == EXPR_INT && b->kind == EXPR_INT) {
        int64_t x = a->u.ival, y = b->u.ival, r;
        switch (op) {
        case BOP_ADD: if (!__builtin_add_overflow(x, y, &r)) return mk_int(L, r); break;
        case BOP_SUB: if (!__builtin_sub_overflow(x, y, &r)) return mk_int(L, r); break;
        case BOP_MUL: if (!__builtin_mul_overflow(x, y, &r)) return mk_int(L, r); break;
        default: break;
        }
    }
    if ((op == BOP_ADD || op == BOP_SUB) && b->kind == EXPR_INT && b->u.ival == 0) return a;
    if ((op == BOP_ADD || op == BOP_SUB) && b->kind == EXPR_UNARY && b->u.unary.op == UOP_NEG)
        return mk_bin(L, op == BOP_ADD ? BOP_SUB : BOP_ADD, a, b->u.unary.operand);
    if ((op == BOP_ADD || op == BOP_SUB) && b->kind == EXPR_INT && b->u.ival < 0 && b->u.ival != INT64_MIN)
        return mk_bin(L, op == BOP_ADD ? BOP_SUB : BOP_ADD, a, mk_int(L, -b->u.ival));
    if (op == BOP_ADD && a->kind == EXPR_INT && a->u.ival == 0) return b;
    if (op == BOP_MUL && b->kind == EXPR_INT && b->u.ival == 1) return a;
    if (op == BOP_MUL && a->kind == EXPR_INT && a->u.ival == 1) return b;
    if (op == BOP_LAND && a->kind == EXPR_INT && a->u.ival != 0) return b;
    if (op == BOP_LAND && b->kind == EXPR_INT && b->u.ival != 0) return a;
    return ast_binary(L->arena, span_join(a->span, b->span), op, a, b);
}

static Expr *mk_neg(Lower *L, Expr *e) {
    if (e->kind == EXPR_INT && e->u.ival != INT64_MIN) return mk_int(L, -e->u.ival);
    if (e->kind == EXPR_UNARY && e->u.unary.op == UOP_NEG) return e->u.unary.operand;
    return ast_unary(L->arena, e->span, UOP_NEG, e);
}

static Expr *mk_not(Lower *L, Expr *e) { return ast_unary(L->arena, e->span, UOP_LNOT, e); }

/* ---------- the path from a step to a transfer ---------- */

typedef enum PathKind {
    PATH_LET,   /* a let that precedes the transfer in an enclosing block */
    PATH_FOR,   /* an enclosing loop */
    PATH_IF,    /* an enclosing if, taken branch in `in_else` */
} PathKind;

typedef struct PathItem { PathKind kind; const Stmt *stmt; int in_else; } PathItem;

typedef struct Path { PathItem *items; int n, cap; } Path;

static void path_push(Path *p, PathKind k, const Stmt *s, int in_else) {
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 16;
        p->items = xrealloc(p->items, sizeof(PathItem) * (size_t)p->cap);
    }
    p->items[p->n++] = (PathItem){k, s, in_else};
}

/* Replaces names of lets bound on the path (inside the step) by their values,
 * so that `let c = (r + 1) % N; copy .. -> out[c]` is seen as (r + 1) % N. */
static Expr *inline_lets(Lower *L, const Path *path, int upto, Expr *e) {
    switch (e->kind) {
    case EXPR_INT: return e;
    case EXPR_NAME:
        for (int i = upto - 1; i >= 0; i--) {
            const PathItem *it = &path->items[i];
            if (it->kind == PATH_LET && it->stmt->u.let.sym == e->u.name.sym)
                return inline_lets(L, path, i, it->stmt->u.let.value);
        }
        return e;
    case EXPR_UNARY: {
        Expr *o = inline_lets(L, path, upto, e->u.unary.operand);
        if (o == e->u.unary.operand) return e;
        return ast_unary(L->arena, e->span, e->u.unary.op, o);
    }
    case EXPR_BINARY: {
        Expr *a = inline_lets(L, path, upto, e->u.binary.lhs);
        Expr *b = inline_lets(L, path, upto, e->u.binary.rhs);
        if (a == e->u.binary.lhs && b == e->u.binary.rhs) return e;
        return ast_binary(L->arena, e->span, e->u.binary.op, a, b);
    }
    case EXPR_CALL: {
        Expr *c = ARENA_NEW(L->arena, Expr);
        *c = *e;
        c->u.call.args = ARENA_ARRAY(L->arena, Expr *, e->u.call.nargs);
        for (int i = 0; i < e->u.call.nargs; i++)
            c->u.call.args[i] = inline_lets(L, path, upto, e->u.call.args[i]);
        return c;
    }
    case EXPR_COND: {
        Expr *c = inline_lets(L, path, upto, e->u.cond.cond);
        Expr *a = inline_lets(L, path, upto, e->u.cond.then_);
        Expr *b = inline_lets(L, path, upto, e->u.cond.else_);
        if (c == e->u.cond.cond && a == e->u.cond.then_ && b == e->u.cond.else_) return e;
        return ast_cond(L->arena, e->span, c, a, b);
    }
    }
    return e;
}

/* e == sign * v + off ? (off NULL means 0) */
typedef struct Linear { int ok; int sign; Expr *off; } Linear;

static Linear decompose(Lower *L, const Expr *e, const Symbol *v) {
    Linear none = {0, 0, NULL};
    if (e->kind == EXPR_NAME && e->u.name.sym == v) return (Linear){1, 1, NULL};
    if (e->kind == EXPR_UNARY && e->u.unary.op == UOP_NEG) {
        Linear d = decompose(L, e->u.unary.operand, v);
        if (!d.ok) return none;
        d.sign = -d.sign;
        if (d.off) d.off = mk_neg(L, d.off);
        return d;
    }
    if (e->kind != EXPR_BINARY) return none;
    BinaryOp op = e->u.binary.op;
    if (op != BOP_ADD && op != BOP_SUB) return none;
    Expr *a = e->u.binary.lhs, *b = e->u.binary.rhs;
    int in_a = ast_expr_uses(a, v), in_b = ast_expr_uses(b, v);
    if (in_a == in_b) return none;
    if (in_a) {
        Linear d = decompose(L, a, v);
        if (!d.ok) return none;
        d.off = d.off ? mk_bin(L, op, d.off, b) : (op == BOP_ADD ? b : mk_neg(L, b));
        return d;
    }
    Linear d = decompose(L, b, v);
    if (!d.ok) return none;
    if (op == BOP_ADD) {
        d.off = d.off ? mk_bin(L, BOP_ADD, a, d.off) : a;
    } else { /* a - (sign*v + off) = -sign*v + (a - off) */
        d.sign = -d.sign;
        d.off = d.off ? mk_bin(L, BOP_SUB, a, d.off) : a;
    }
    return d;
}

/* How one side of a transfer is projected. */
typedef enum SolveKind {
    SOLVE_NONE,    /* guarded loops */
    SOLVE_LINEAR,  /* v = x, guard lo <= v < hi */
    SOLVE_MOD,     /* v = lo + (x - lo) % K, needs hi - lo <= K and 0 <= me < K */
} SolveKind;

typedef struct Solve {
    SolveKind kind;
    int loop;          /* index in the path of the solved loop */
    Expr *x;           /* solution (LINEAR) or residue (MOD) as a function of me */
    Expr *modulus;     /* MOD: K */
    int static_ok;     /* MOD over ranks with K == N: no runtime preconditions */
} Solve;

static int is_sym(const Expr *e, const Symbol *s) {
    return e && e->kind == EXPR_NAME && e->u.name.sym == s;
}

static Solve solve_side(Lower *L, const Path *path, const Expr *rank_expr) {
    Solve none = {SOLVE_NONE, -1, NULL, NULL, 0};
    Expr *e = inline_lets(L, path, path->n, (Expr *)rank_expr);
    Expr *me = mk_sym(L, L->rp->sym_me);
    /* innermost loop first: solving the innermost keeps outer loops intact */
    for (int i = path->n - 1; i >= 0; i--) {
        const PathItem *it = &path->items[i];
        if (it->kind != PATH_FOR) continue;
        const Symbol *v = it->stmt->u.for_.sym;
        if (!ast_expr_uses(e, v)) continue;
        /* e may not depend on loops nested inside v's loop */
        int inner_dep = 0;
        for (int j = i + 1; j < path->n; j++)
            if (path->items[j].kind == PATH_FOR && ast_expr_uses(e, path->items[j].stmt->u.for_.sym))
                inner_dep = 1;
        if (inner_dep) continue;
        Linear d = decompose(L, e, v);
        if (d.ok) {
            Expr *x = d.sign > 0 ? mk_bin(L, BOP_SUB, me, d.off ? d.off : mk_int(L, 0))
                                 : mk_bin(L, BOP_SUB, d.off ? d.off : mk_int(L, 0), me);
            return (Solve){SOLVE_LINEAR, i, x, NULL, 0};
        }
        if (e->kind == EXPR_BINARY && e->u.binary.op == BOP_BXOR) {
            Expr *a = e->u.binary.lhs, *b = e->u.binary.rhs;
            if (is_sym(a, v) && !ast_expr_uses(b, v))
                return (Solve){SOLVE_LINEAR, i, mk_bin(L, BOP_BXOR, me, b), NULL, 0};
            if (is_sym(b, v) && !ast_expr_uses(a, v))
                return (Solve){SOLVE_LINEAR, i, mk_bin(L, BOP_BXOR, me, a), NULL, 0};
        }
        if (e->kind == EXPR_BINARY && e->u.binary.op == BOP_MOD &&
            !ast_expr_uses(e->u.binary.rhs, v)) {
            Linear m = decompose(L, e->u.binary.lhs, v);
            if (m.ok) {
                Expr *x = m.sign > 0 ? mk_bin(L, BOP_SUB, me, m.off ? m.off : mk_int(L, 0))
                                     : mk_bin(L, BOP_SUB, m.off ? m.off : mk_int(L, 0), me);
                Expr *K = e->u.binary.rhs;
                const Stmt *loop = it->stmt;
                int over_all = loop->u.for_.over_ranks ||
                               (loop->u.for_.lo->kind == EXPR_INT && loop->u.for_.lo->u.ival == 0 &&
                                is_sym(loop->u.for_.hi, L->alg->sym_N));
                int static_ok = over_all && is_sym(K, L->alg->sym_N);
                return (Solve){SOLVE_MOD, i, x, K, static_ok};
            }
        }
    }
    return none;
}

/* ---------- building Rank IR ---------- */

static RStmt *rs_new(Lower *L, RStmtKind k, Span sp) {
    RStmt *s = ARENA_NEW(L->arena, RStmt);
    s->kind = k;
    s->span = sp;
    return s;
}

static RStmt *rs_let(Lower *L, const Symbol *sym, Expr *value, Span sp) {
    RStmt *s = rs_new(L, RS_LET, sp);
    s->u.let.sym = sym;
    s->u.let.value = value;
    return s;
}

static RStmt *rs_if(Lower *L, Expr *cond, RStmt *then_, RStmt *else_, Span sp) {
    if (!then_ && !else_) return NULL;
    if (cond->kind == EXPR_INT) return cond->u.ival ? then_ : else_;
    RStmt *s = rs_new(L, RS_IF, sp);
    s->u.if_.cond = cond;
    s->u.if_.then_ = then_;
    s->u.if_.else_ = else_;
    return s;
}

static RStmt *rs_chain(RStmt *first, RStmt *rest) {
    if (!first) return rest;
    RStmt *t = first;
    while (t->next) t = t->next;
    t->next = rest;
    return first;
}

static Expr *loop_lo(Lower *L, const Stmt *f) {
    return f->u.for_.over_ranks ? mk_int(L, 0) : f->u.for_.lo;
}
static Expr *loop_hi(Lower *L, const Stmt *f) {
    return f->u.for_.over_ranks ? mk_sym(L, L->alg->sym_N) : f->u.for_.hi;
}

/* Chunks of `buf` on rank `rank` (an expression): the collective table's
 * blocks x split. */
static Expr *buffer_chunks(Lower *L, int buf, Expr *rank) {
    if (buf >= BUF_FIRST_SCRATCH) return mk_sym(L, L->rp->sym_scratch[buf - BUF_FIRST_SCRATCH]);
    const CollectiveInfo *ci = &collective_info[L->alg->coll];
    BlockCount blocks = buf == BUF_IN ? ci->in_blocks : ci->out_blocks;
    HeldBy where = buf == BUF_IN ? ci->in_where : ci->out_where;
    Expr *n = mk_sym(L, L->rp->sym_split);
    if (blocks == BLOCKS_N) n = mk_bin(L, BOP_MUL, mk_sym(L, L->alg->sym_N), n);
    if (where == HELD_ROOT)
        n = mk_bin(L, BOP_MUL, mk_bin(L, BOP_EQ, rank, mk_sym(L, L->alg->sym_root)), n);
    return n;
}

typedef struct Range { Expr *lo, *hi; } Range;

/* The chunk range of a reference evaluated on this rank (rank == me). */
static Range ref_range(Lower *L, const BufRef *r) {
    Range g;
    if (!r->lo) {
        g.lo = mk_int(L, 0);
        g.hi = buffer_chunks(L, r->buffer, mk_sym(L, L->rp->sym_me));
    } else {
        g.lo = r->lo;
        g.hi = r->hi ? r->hi : mk_bin(L, BOP_ADD, r->lo, mk_int(L, 1));
    }
    return g;
}

typedef enum Side { SIDE_SEND, SIDE_RECV } Side;

/* The innermost part of a nest: the operation itself, guarded when the side
 * was not solved. */
static RStmt *side_op(Lower *L, const Stmt *x, Side side, int guarded) {
    const BufRef *src = &x->u.xfer.src, *dst = &x->u.xfer.dst;
    Expr *me = mk_sym(L, L->rp->sym_me);
    int same = ast_expr_equal(src->rank, dst->rank);
    RStmt *op;
    if (side == SIDE_SEND) {
        Range sr = ref_range(L, src), dr = ref_range(L, dst);
        RStmt *local = rs_new(L, RS_LOCAL, x->span);
        local->u.local.op = x->u.xfer.op;
        local->u.local.src_buf = src->buffer;
        local->u.local.src_lo = sr.lo;
        local->u.local.dst_buf = dst->buffer;
        local->u.local.dst_lo = dr.lo;
        local->u.local.n = !src->lo ? sr.hi : !src->hi ? mk_int(L, 1) : mk_bin(L, BOP_SUB, sr.hi, sr.lo);
        if (same) {
            op = local;
        } else {
            RStmt *send = rs_new(L, RS_SEND, x->span);
            send->u.send.peer = dst->rank;
            send->u.send.buf = src->buffer;
            send->u.send.lo = sr.lo;
            send->u.send.hi = sr.hi;
            op = rs_if(L, mk_bin(L, BOP_EQ, dst->rank, me), local, send, x->span);
        }
        if (guarded) op = rs_if(L, mk_bin(L, BOP_EQ, src->rank, me), op, NULL, x->span);
    } else {
        if (same) return NULL; /* local: done on the send side */
        Range dr = ref_range(L, dst);
        RStmt *recv = rs_new(L, RS_RECV, x->span);
        recv->u.recv.peer = src->rank;
        recv->u.recv.op = x->u.xfer.op;
        recv->u.recv.buf = dst->buffer;
        recv->u.recv.lo = dr.lo;
        recv->u.recv.hi = dr.hi;
        op = rs_if(L, mk_bin(L, BOP_NE, src->rank, me), recv, NULL, x->span);
        if (guarded) op = rs_if(L, mk_bin(L, BOP_EQ, dst->rank, me), op, NULL, x->span);
    }
    return op;
}

/* Rebuilds path[i..] around the operation; `sv` is the solved loop (or NULL). */
static RStmt *build_nest(Lower *L, const Path *path, int i, const Stmt *x, Side side,
                         const Solve *sv) {
    if (i == path->n) return side_op(L, x, side, sv == NULL);
    const PathItem *it = &path->items[i];
    const Stmt *s = it->stmt;
    switch (it->kind) {
    case PATH_LET: {
        RStmt *inner = build_nest(L, path, i + 1, x, side, sv);
        if (!inner) return NULL;
        return rs_chain(rs_let(L, s->u.let.sym, s->u.let.value, s->span), inner);
    }
    case PATH_IF: {
        RStmt *inner = build_nest(L, path, i + 1, x, side, sv);
        if (!inner) return NULL;
        Expr *c = it->in_else ? mk_not(L, s->u.if_.cond) : s->u.if_.cond;
        return rs_if(L, c, inner, NULL, s->span);
    }
    case PATH_FOR: {
        const Symbol *v = s->u.for_.sym;
        Expr *lo = loop_lo(L, s), *hi = loop_hi(L, s);
        if (!sv || sv->loop != i) {
            RStmt *inner = build_nest(L, path, i + 1, x, side, sv);
            if (!inner) return NULL;
            RStmt *f = rs_new(L, RS_FOR, s->span);
            f->u.for_.sym = v;
            f->u.for_.lo = lo;
            f->u.for_.hi = hi;
            f->u.for_.body = inner;
            return f;
        }
        RStmt *inner = build_nest(L, path, i + 1, x, side, sv);
        if (!inner) return NULL;
        Expr *vv = mk_sym(L, v);
        int over_all = s->u.for_.over_ranks ||
                       (lo->kind == EXPR_INT && lo->u.ival == 0 && is_sym(hi, L->alg->sym_N));
        if (sv->kind == SOLVE_LINEAR && over_all && is_sym(sv->x, L->rp->sym_me))
            return rs_chain(rs_let(L, v, sv->x, s->span), inner); /* v = me is in range */
        if (sv->kind == SOLVE_LINEAR) {
            Expr *in_range = mk_bin(L, BOP_LAND, mk_bin(L, BOP_LE, lo, vv), mk_bin(L, BOP_LT, vv, hi));
            return rs_chain(rs_let(L, v, sv->x, s->span), rs_if(L, in_range, inner, NULL, s->span));
        }
        /* SOLVE_MOD */
        if (sv->static_ok)
            return rs_chain(rs_let(L, v, mk_bin(L, BOP_MOD, sv->x, sv->modulus), s->span), inner);
        Expr *me = mk_sym(L, L->rp->sym_me);
        Expr *val = mk_bin(L, BOP_ADD, lo, mk_bin(L, BOP_MOD, mk_bin(L, BOP_SUB, sv->x, lo), sv->modulus));
        RStmt *solved = rs_chain(rs_let(L, v, val, s->span),
                                 rs_if(L, mk_bin(L, BOP_LT, vv, hi), inner, NULL, s->span));
        if (!is_sym(sv->modulus, L->alg->sym_N)) { /* me is always in [0, N) */
            Expr *target_ok = mk_bin(L, BOP_LAND, mk_bin(L, BOP_LE, mk_int(L, 0), me),
                                     mk_bin(L, BOP_LT, me, sv->modulus));
            solved = rs_if(L, target_ok, solved, NULL, s->span);
        }
        /* when the loop is longer than K several v map to me: scan instead */
        RStmt *scan = rs_new(L, RS_FOR, s->span);
        scan->u.for_.sym = v;
        scan->u.for_.lo = lo;
        scan->u.for_.hi = hi;
        scan->u.for_.body = build_nest(L, path, i + 1, x, side, NULL);
        Expr *short_loop = mk_bin(L, BOP_LE, mk_bin(L, BOP_SUB, hi, lo), sv->modulus);
        return rs_if(L, short_loop, solved, scan, s->span);
    }
    }
    return NULL;
}

typedef struct StepOut { RStmt *sends, *recvs; } StepOut;

static int inplace_safe(const Algorithm *alg);

static void project_xfer(Lower *L, const Path *path, const Stmt *x, StepOut *out) {
    Solve ss = solve_side(L, path, x->u.xfer.src.rank);
    Solve rs = solve_side(L, path, x->u.xfer.dst.rank);
    if (ss.kind != SOLVE_NONE) L->rp->nsolved++; else L->rp->nguarded++;
    RStmt *send = build_nest(L, path, 0, x, SIDE_SEND, ss.kind == SOLVE_NONE ? NULL : &ss);
    out->sends = rs_chain(out->sends, send);
    if (!ast_expr_equal(x->u.xfer.src.rank, x->u.xfer.dst.rank)) {
        if (rs.kind != SOLVE_NONE) L->rp->nsolved++; else L->rp->nguarded++;
        RStmt *recv = build_nest(L, path, 0, x, SIDE_RECV, rs.kind == SOLVE_NONE ? NULL : &rs);
        out->recvs = rs_chain(out->recvs, recv);
    }
}

/* Merging adjacent chunks: a loop inside a step whose body is one transfer
 *     for v in A .. B { copy X[S][v + e1] -> Y[D][v + e2]; }
 * with S and D independent of v moves one contiguous range: it becomes
 *     if A < B { copy X[S][A + e1 .. B + e1] -> Y[D][A + e2 .. B + e2]; }
 * (one message instead of B - A). Both ends of the transfer project the same
 * merged statement, so they still agree on the messages. Returns the merged
 * transfer and its guard, or NULL. */
static const Stmt *merge_loop(Lower *L, const Stmt *f, Stmt **guard) {
    const Stmt *x = f->u.for_.body;
    if (!x || x->next || x->kind != STMT_XFER) return NULL;
    const Symbol *v = f->u.for_.sym;
    const BufRef *src = &x->u.xfer.src, *dst = &x->u.xfer.dst;
    if (ast_expr_uses(src->rank, v) || ast_expr_uses(dst->rank, v)) return NULL;
    if (!src->lo || src->hi || !dst->lo || dst->hi) return NULL;
    Linear ls = decompose(L, src->lo, v), ld = decompose(L, dst->lo, v);
    if (!ls.ok || !ld.ok || ls.sign != 1 || ld.sign != 1) return NULL;
    Expr *A = loop_lo(L, f), *B = loop_hi(L, f);
    Stmt *m = ast_stmt(L->arena, STMT_XFER, x->span);
    m->u.xfer = x->u.xfer;
    m->u.xfer.src.lo = ls.off ? mk_bin(L, BOP_ADD, A, ls.off) : A;
    m->u.xfer.src.hi = ls.off ? mk_bin(L, BOP_ADD, B, ls.off) : B;
    m->u.xfer.dst.lo = ld.off ? mk_bin(L, BOP_ADD, A, ld.off) : A;
    m->u.xfer.dst.hi = ld.off ? mk_bin(L, BOP_ADD, B, ld.off) : B;
    Stmt *g = ast_stmt(L->arena, STMT_IF, f->span);
    g->u.if_.cond = mk_bin(L, BOP_LT, A, B);
    *guard = g;
    return m;
}

static void walk_step(Lower *L, const Stmt *list, Path *path, StepOut *out) {
    int mark = path->n;
    for (const Stmt *s = list; s; s = s->next) {
        switch (s->kind) {
        case STMT_LET:
            path_push(path, PATH_LET, s, 0);
            break;
        case STMT_FOR: {
            Stmt *guard;
            const Stmt *merged = merge_loop(L, s, &guard);
            if (merged) {
                path_push(path, PATH_IF, guard, 0);
                project_xfer(L, path, merged, out);
                path->n--;
                L->rp->nmerged++;
                break;
            }
            path_push(path, PATH_FOR, s, 0);
            walk_step(L, s->u.for_.body, path, out);
            path->n--;
            break;
        }
        case STMT_IF:
            path_push(path, PATH_IF, s, 0);
            walk_step(L, s->u.if_.then_, path, out);
            path->items[path->n - 1].in_else = 1;
            walk_step(L, s->u.if_.else_, path, out);
            path->n--;
            break;
        case STMT_XFER:
            project_xfer(L, path, s, out);
            break;
        default:
            COLLC_UNREACHABLE("statement kind not allowed in a step (sema should reject it)");
        }
    }
    path->n = mark;
}

static RStmt *lower_step(Lower *L, const Stmt *st) {
    Path path = {0};
    StepOut out = {0};
    walk_step(L, st->u.step.body, &path, &out);
    free(path.items);
    RStmt *r = rs_new(L, RS_STEP, st->span);
    r->u.step.body = rs_chain(out.sends, out.recvs);
    r->u.step.index = L->step_index++;
    return r;
}

/* ---------- outside steps ---------- */

static RStmt *lower_list(Lower *L, const Stmt *list, int top);

static RStmt *emit_setup(Lower *L, Span sp) {
    RankProgram *rp = L->rp;
    L->setup_done = 1;
    RStmt *first = rs_let(L, rp->sym_split, L->split ? L->split->u.split.chunks : mk_int(L, 1), sp);
    for (int k = 0; k < rp->nscratch; k++)
        first = rs_chain(first, rs_let(L, rp->sym_scratch[k], L->scratch_chunks[k], sp));
    return rs_chain(first, rs_new(L, RS_SETUP, sp));
}

static RStmt *lower_stmt(Lower *L, const Stmt *s, int top) {
    switch (s->kind) {
    case STMT_LET:
        return rs_let(L, s->u.let.sym, s->u.let.value, s->span);
    case STMT_PARAM: {
        Expr *v = s->u.let.value;
        for (int i = 0; i < L->ndefines; i++)
            if (strcmp(L->defines[i].name, s->u.let.var) == 0) v = mk_int(L, L->defines[i].value);
        return rs_let(L, s->u.let.sym, v, s->span);
    }
    case STMT_REQUIRE:
    case STMT_SPLIT:
    case STMT_SCRATCH:
        if (L->setup_done) {
            diag_error(L->dx, s->span, "decl-after-step",
                       "'%s' must come before the first step to be compiled",
                       s->kind == STMT_REQUIRE ? "require" : s->kind == STMT_SPLIT ? "split" : "scratch");
            L->nerrors++;
            return NULL;
        }
        if (s->kind == STMT_REQUIRE) {
            RStmt *r = rs_new(L, RS_REQUIRE, s->span);
            r->u.require.cond = s->u.require.cond;
            r->u.require.why = s->u.require.why;
            return r;
        }
        return NULL; /* recorded before lowering; materialised by emit_setup */
    case STMT_STEP: {
        RStmt *pre = (top && !L->setup_done) ? emit_setup(L, s->span) : NULL;
        return rs_chain(pre, lower_step(L, s));
    }
    case STMT_FOR: {
        RStmt *pre = (top && !L->setup_done && ast_contains_step(s)) ? emit_setup(L, s->span) : NULL;
        RStmt *f = rs_new(L, RS_FOR, s->span);
        f->u.for_.sym = s->u.for_.sym;
        f->u.for_.lo = loop_lo(L, s);
        f->u.for_.hi = loop_hi(L, s);
        f->u.for_.body = lower_list(L, s->u.for_.body, 0);
        return rs_chain(pre, f);
    }
    case STMT_IF: {
        RStmt *pre = (top && !L->setup_done &&
                      (ast_contains_step(s->u.if_.then_) || ast_contains_step(s->u.if_.else_)))
                         ? emit_setup(L, s->span) : NULL;
        RStmt *f = rs_new(L, RS_IF, s->span);
        f->u.if_.cond = s->u.if_.cond;
        f->u.if_.then_ = lower_list(L, s->u.if_.then_, 0);
        f->u.if_.else_ = lower_list(L, s->u.if_.else_, 0);
        return rs_chain(pre, f);
    }
    case STMT_XFER:
    case STMT_NODES:
    case STMT_LINK:
        COLLC_UNREACHABLE("statement not allowed outside a step in an algorithm");
    case STMT_CALL:
        COLLC_UNREACHABLE("a call left after compose");
    }
    return NULL;
}

static RStmt *lower_list(Lower *L, const Stmt *list, int top) {
    RStmt *head = NULL;
    for (const Stmt *s = list; s; s = s->next) head = rs_chain(head, lower_stmt(L, s, top));
    return head;
}

static Symbol *synth_symbol(Lower *L, const char *name) {
    Symbol *s = ARENA_NEW(L->arena, Symbol);
    s->kind = SYM_LET;
    s->name = name;
    s->span = span_none();
    s->slot = L->rp->nslots++;
    return s;
}

int lower_algorithm(const Algorithm *alg, const Define *defines, int ndefines, Arena *arena,
                    DiagEngine *dx, RankProgram *out) {
    memset(out, 0, sizeof *out);
    Lower L = {.arena = arena, .dx = dx, .alg = alg, .rp = out, .defines = defines,
               .ndefines = ndefines};
    out->alg = alg;
    out->nslots = alg->nslots;
    out->sym_me = synth_symbol(&L, "me");
    /* an algorithm that calls others names its split in chunk maps */
    out->sym_split = alg->sym_split ? alg->sym_split : synth_symbol(&L, "split_P");
    out->nscratch = alg->nbuffers - BUF_FIRST_SCRATCH;
    out->sym_scratch = ARENA_ARRAY(arena, Symbol *, out->nscratch > 0 ? out->nscratch : 1);
    L.scratch_chunks = ARENA_ARRAY(arena, Expr *, out->nscratch > 0 ? out->nscratch : 1);
    for (int k = 0; k < out->nscratch; k++) {
        /* a called algorithm's scratch is "callee.name": keep identifiers */
        char *name = arena_printf(arena, "%s_chunks", alg->buffers[BUF_FIRST_SCRATCH + k].name);
        for (char *p = name; *p; p++)
            if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
                *p = '_';
        out->sym_scratch[k] = synth_symbol(&L, name);
        L.scratch_chunks[k] = alg->buffers[BUF_FIRST_SCRATCH + k].chunks;
    }
    L.split = alg->split;
    for (int i = 0; i < ndefines; i++) {
        int found = 0;
        for (int p = 0; p < alg->nparams; p++)
            if (strcmp(alg->params[p]->name, defines[i].name) == 0) found = 1;
        if (!found) {
            diag_error(dx, span_none(), "unknown-define",
                       "-D %s: '%s' is not a param of algorithm '%s'", defines[i].name,
                       defines[i].name, alg->name);
            L.nerrors++;
        }
    }
    out->body = lower_list(&L, alg->body, 1);
    out->inplace_safe = inplace_safe(alg);
    if (!L.setup_done) out->body = rs_chain(out->body, emit_setup(&L, alg->span));
    return L.nerrors;
}

/* ---------- in-place safety ----------
 *
 * With MPI's in-place layout, `in` lives inside `out` (allreduce, reduce,
 * broadcast, alltoall: the whole buffer; allgather, gather: block r). Then a
 * copy `in[r] -> out[r]` onto the aliased chunks moves nothing, and any other
 * write to `out` may clobber input that a later read of `in` expects. The
 * program is declared in-place safe (the runtime then skips its private copy
 * of the input) when every step that reads `in` other than through such an
 * identity copy comes strictly before every step that writes `out` other
 * than through one, in program order, and no loop contains both kinds. This
 * holds for every N because it is a property of the program text. Reads and
 * writes in the same step also fail the test: under aliasing they would be a
 * race. */

typedef struct InplaceScan {
    const Algorithm *alg;
    int pos;                /* program-order index of the current step */
    int last_in_read;       /* position of the last step reading in (-1) */
    int first_out_write;    /* position of the first step writing out (INT_MAX) */
    int unsafe;
} InplaceScan;

static int is_int(const Expr *e, int64_t v) { return e && e->kind == EXPR_INT && e->u.ival == v; }

/* copy in[R] -> out[R] (whole buffers of equal size), or for allgather /
 * gather copy in[R][0] -> out[R][R] with one chunk per block. */
static int identity_copy(const InplaceScan *S, const Stmt *x) {
    const BufRef *src = &x->u.xfer.src, *dst = &x->u.xfer.dst;
    if (x->u.xfer.op != XFER_COPY || src->buffer != BUF_IN || dst->buffer != BUF_OUT) return 0;
    if (!ast_expr_equal(src->rank, dst->rank)) return 0;
    const CollectiveInfo *ci = &collective_info[S->alg->coll];
    if (ci->in_blocks == ci->out_blocks)
        return !src->lo && !dst->lo;
    if (ci->in_blocks == BLOCKS_ONE && ci->out_blocks == BLOCKS_N) {
        int one_chunk = !S->alg->split || is_int(S->alg->split->u.split.chunks, 1);
        return one_chunk && (!src->lo || (is_int(src->lo, 0) && !src->hi)) && dst->lo &&
               !dst->hi && ast_expr_equal(dst->lo, dst->rank);
    }
    return 0;
}

static void inplace_xfers(InplaceScan *S, const Stmt *s, int *reads_in, int *writes_out) {
    for (; s; s = s->next) {
        switch (s->kind) {
        case STMT_FOR: inplace_xfers(S, s->u.for_.body, reads_in, writes_out); break;
        case STMT_IF:
            inplace_xfers(S, s->u.if_.then_, reads_in, writes_out);
            inplace_xfers(S, s->u.if_.else_, reads_in, writes_out);
            break;
        case STMT_XFER:
            if (identity_copy(S, s)) break;
            if (s->u.xfer.src.buffer == BUF_IN) *reads_in = 1;
            if (s->u.xfer.dst.buffer == BUF_OUT) *writes_out = 1;
            break;
        default: break;
        }
    }
}

static void inplace_scan(InplaceScan *S, const Stmt *s);

/* Visits the steps of a statement list in program order. */
static void inplace_list(InplaceScan *S, const Stmt *s) {
    for (; s; s = s->next) inplace_scan(S, s);
}

static void inplace_scan(InplaceScan *S, const Stmt *s) {
    switch (s->kind) {
    case STMT_STEP: {
        int r = 0, w = 0;
        inplace_xfers(S, s->u.step.body, &r, &w);
        int pos = S->pos++;
        if (r) S->last_in_read = pos;
        if (w && pos < S->first_out_write) S->first_out_write = pos;
        break;
    }
    case STMT_FOR: {
        /* a loop repeats its steps: reads of in after writes of out in an
         * earlier iteration */
        int r = 0, w = 0;
        inplace_xfers(S, s->u.for_.body, &r, &w);
        if (r && w) S->unsafe = 1;
        inplace_list(S, s->u.for_.body);
        break;
    }
    case STMT_IF:
        inplace_list(S, s->u.if_.then_);
        inplace_list(S, s->u.if_.else_);
        break;
    default: break;
    }
}

static int inplace_safe(const Algorithm *alg) {
    InplaceScan S = {.alg = alg, .pos = 0, .last_in_read = -1, .first_out_write = 1 << 30};
    inplace_list(&S, alg->body);
    return !S.unsafe && S.last_in_read < S.first_out_write;
}

/* ---------- dump ---------- */

static const char *buf_name(const RankProgram *rp, int b) { return rp->alg->buffers[b].name; }

static void indent(FILE *f, int d) { fprintf(f, "%*s", 2 * d, ""); }

static void dump_list(FILE *f, const RankProgram *rp, const RStmt *s, int d) {
    for (; s; s = s->next) {
        indent(f, d);
        switch (s->kind) {
        case RS_LET:
            fprintf(f, "let %s = ", s->u.let.sym->name);
            ast_print_expr(f, s->u.let.value);
            fputc('\n', f);
            break;
        case RS_FOR:
            fprintf(f, "for %s in ", s->u.for_.sym->name);
            ast_print_expr(f, s->u.for_.lo);
            fputs(" .. ", f);
            ast_print_expr(f, s->u.for_.hi);
            fputs(" {\n", f);
            dump_list(f, rp, s->u.for_.body, d + 1);
            indent(f, d);
            fputs("}\n", f);
            break;
        case RS_IF:
            fputs("if ", f);
            ast_print_expr(f, s->u.if_.cond);
            fputs(" {\n", f);
            dump_list(f, rp, s->u.if_.then_, d + 1);
            indent(f, d);
            if (s->u.if_.else_) {
                fputs("} else {\n", f);
                dump_list(f, rp, s->u.if_.else_, d + 1);
                indent(f, d);
            }
            fputs("}\n", f);
            break;
        case RS_REQUIRE:
            fputs("require ", f);
            ast_print_expr(f, s->u.require.cond);
            fputc('\n', f);
            break;
        case RS_SETUP:
            fputs("setup\n", f);
            break;
        case RS_STEP:
            fprintf(f, "step %d {\n", s->u.step.index + 1);
            dump_list(f, rp, s->u.step.body, d + 1);
            indent(f, d);
            fputs("}\n", f);
            break;
        case RS_SEND:
            fprintf(f, "send %s[", buf_name(rp, s->u.send.buf));
            ast_print_expr(f, s->u.send.lo);
            fputs(" .. ", f);
            ast_print_expr(f, s->u.send.hi);
            fputs("] to ", f);
            ast_print_expr(f, s->u.send.peer);
            fputc('\n', f);
            break;
        case RS_RECV:
            fprintf(f, "%s %s[", s->u.recv.op == XFER_COPY ? "recv" : "recv-reduce",
                    buf_name(rp, s->u.recv.buf));
            ast_print_expr(f, s->u.recv.lo);
            fputs(" .. ", f);
            ast_print_expr(f, s->u.recv.hi);
            fputs("] from ", f);
            ast_print_expr(f, s->u.recv.peer);
            fputc('\n', f);
            break;
        case RS_LOCAL:
            fprintf(f, "local-%s %s[", s->u.local.op == XFER_COPY ? "copy" : "reduce",
                    buf_name(rp, s->u.local.src_buf));
            ast_print_expr(f, s->u.local.src_lo);
            fprintf(f, "] -> %s[", buf_name(rp, s->u.local.dst_buf));
            ast_print_expr(f, s->u.local.dst_lo);
            fputs("] x ", f);
            ast_print_expr(f, s->u.local.n);
            fputc('\n', f);
            break;
        }
    }
}

void rankir_dump(FILE *out, const RankProgram *rp) {
    fprintf(out, "rank program %s : %s  (slots %d, solved %d, guarded %d", rp->alg->name,
            collective_info[rp->alg->coll].keyword, rp->nslots, rp->nsolved, rp->nguarded);
    if (rp->nmerged) fprintf(out, ", merged %d", rp->nmerged);
    fprintf(out, "%s", rp->inplace_safe ? ", in-place safe" : "");
    if (rp->vblocks) fprintf(out, ", per-block counts");
    else if (rp->vblocks_why) fprintf(out, ", blocks padded: %s", rp->vblocks_why);
    fprintf(out, ")\n");
    dump_list(out, rp, rp->body, 0);
}
