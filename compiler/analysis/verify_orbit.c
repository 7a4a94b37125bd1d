/* verify_orbit.c - the symmetry pass of verify_instance: proves an
 * AllReduce whose steps are invariant under a group of rank rotations by
 * simulating one rank, without making the schedule's transfers
 * (docs/verify.md, "Scale").
 *
 * The group. Ranks are read as mixed-radix digits, rank = sum W_k d_k
 * (W_0 = 1, W_{k+1} = W_k M_k, prod M_k = N): one digit of M = N for a
 * ring, two (A, N/A) for a hierarchy of nodes of A ranks. Generator g_k
 * adds 1 to digit k mod M_k (no carry) and, on chunk indices of every
 * buffer, adds 1 mod M_k to a chunk digit (U_k, M_k): x = ... + U_k e_k + ...
 * The group acts regularly on ranks, so every slot's orbit has exactly
 * one slot on rank 0, and a value (origin chunk, rank set, tree) is moved
 * by moving its origin chunk, its ranks and its leaves.
 *
 * The symmetry is established from the program, not from its transfers:
 * instantiate_steps hands over every step's body unexpanded with the
 * values of the loops around it, and each copy/reduce is evaluated
 * symbolically in the `for` variables of the step (over 0 .. M), as sums
 * of c * ((v + a) mod M) plus a constant. A statement is a family
 * t(v) over the box of its variables; it is invariant when its rank
 * expressions are exactly the digit sums (each variable drives one digit,
 * coefficient W_k) and each chunk range either moves with the digit (a
 * term U_k of the same variable, the range inside one cell of U_k chunks)
 * or is made of whole cycles of it: then g_k(t(v)) = t(v + e_k) for every
 * v, the step is a union of orbits and the state stays equivariant:
 * state(g r, g x) = g(state(r, x)). Anything else (a condition or a
 * bound that depends on a rank variable, xor, a division, a variable in
 * two digits, inconsistent digits between steps) stops the pass, and the
 * run-length and explicit checkers decide as before.
 *
 * Checked on rank 0, which meets every orbit: per family the one
 * transfer whose destination is rank 0 (applied; its source on rank s is
 * g_s of a rank-0 slot) and the one whose source is rank 0 (for the race
 * check, with the simulator's rule on rank 0's slots: a race anywhere has
 * an image there). A finding of any check (race, write to `in`, undefined
 * read, mixed chunks, double count, postcondition) stops the pass, and the
 * explicit checker reports it with its concrete rank and chunk. Rank
 * consistency compares trees whose leaves are labelled relative to the
 * origin chunk's rank (rank minus the digits of the origin chunk), which
 * the group leaves unchanged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/simulate.h"
#include "analysis/verify_internal.h"
#include "front/eval.h"
#include "support/util.h"

#define MAX_TERMS 6   /* terms of one symbolic expression */
#define MAX_VARS 6    /* symbolic loop variables in scope */
#define MAX_DIGITS 6  /* digits of the rank group */
#define MAX_UNROLL 64 /* a loop not over 0 .. M is unrolled up to this */

/* coef * ((var + add) mod M_var) */
typedef struct Term { int var; int64_t coef, add; } Term;
typedef struct Form { int n; Term t[MAX_TERMS]; int64_t b; } Form;

typedef struct Side { int buf; Form rank, lo; } Side;

/* One copy/reduce statement: the transfers t(v), v over the box of its
 * variables (moduli M[0 .. nvar)). */
typedef struct Family {
    uint8_t op;
    int nvar;
    int64_t M[MAX_VARS];
    int64_t len;
    Side src, dst;
} Family;

typedef struct Digit { int64_t W, M, U; } Digit; /* U = 0: not yet known */

typedef struct OVal { int32_t origin; uint32_t off, n; uint64_t tree; } OVal; /* ranks pool[off ..+n) */

typedef struct Orbit {
    const Algorithm *alg;
    int64_t N;
    /* the walk of one step */
    int64_t *frame;                 /* concrete values, the interpreter's copy */
    int8_t *symbolic;               /* per slot: 1 when env[slot] holds its value */
    Form *env;
    int64_t M[MAX_VARS];            /* symbolic variables in scope */
    int nvar;
    int nocopies;                   /* copies onto themselves in this step */
    int pass;                       /* 1: learn the group; 2: check and simulate */
    int fail;
    /* all steps */
    Family *fams;
    size_t nfams, capfams;
    Digit dig[MAX_DIGITS];
    int ndig;                       /* -1: not yet known */
    /* the simulation of rank 0 */
    uint32_t **state;               /* [buffer][chunk] value id, 0 undefined */
    int64_t *chunks;                /* [buffer] */
    int64_t split;                  /* chunks per block, when positions differ in size */
    OVal *vals;
    size_t nvals, capvals;
    RankIvl *pool;
    size_t npool, cappool;
    RankIvl *tmp;
    size_t captmp;
    VAccess *acc;                   /* rank 0's accesses of a step */
    size_t capacc;
    size_t bytes, budget;
    size_t xfers, max_xfers;        /* the transfers the families stand for; --max-transfers */
} Orbit;

/* Grows one of the pass's arrays within its memory budget. */
static int ogrow(Orbit *O, void **p, size_t *cap, size_t need, size_t elem) {
    return verify_grow(&O->bytes, O->budget, p, cap, need, elem, 64);
}

/* ------------------------------------------------- symbolic expressions */

static int form_add_term(Form *f, Term t) {
    if (t.coef == 0) return 0;
    for (int i = 0; i < f->n; i++)
        if (f->t[i].var == t.var && f->t[i].add == t.add) {
            if (__builtin_add_overflow(f->t[i].coef, t.coef, &f->t[i].coef)) return -1;
            if (f->t[i].coef == 0) f->t[i] = f->t[--f->n];
            return 0;
        }
    if (f->n == MAX_TERMS) return -1;
    f->t[f->n++] = t;
    return 0;
}

static int form_scale(Form *f, int64_t k) {
    if (k == 0) { f->n = 0; f->b = 0; return 0; }
    for (int i = 0; i < f->n; i++)
        if (__builtin_mul_overflow(f->t[i].coef, k, &f->t[i].coef)) return -1;
    return __builtin_mul_overflow(f->b, k, &f->b) ? -1 : 0;
}

static int form_sum(Form *a, const Form *b, int64_t sign) {
    for (int i = 0; i < b->n; i++) {
        Term t = b->t[i];
        if (__builtin_mul_overflow(t.coef, sign, &t.coef) || form_add_term(a, t)) return -1;
    }
    int64_t bb;
    if (__builtin_mul_overflow(b->b, sign, &bb)) return -1;
    return __builtin_add_overflow(a->b, bb, &a->b) ? -1 : 0;
}

/* The least and the greatest value over the variables' boxes; -1 when
 * one leaves int64 (then some concrete evaluation would overflow). */
static int form_bounds(const int64_t *M, const Form *f, int64_t *lo, int64_t *hi) {
    int64_t l = f->b, h = f->b;
    for (int i = 0; i < f->n; i++) {
        int64_t span;
        if (__builtin_mul_overflow(f->t[i].coef, M[f->t[i].var] - 1, &span) ||
            __builtin_add_overflow(span > 0 ? h : l, span, span > 0 ? &h : &l))
            return -1;
    }
    *lo = l;
    *hi = h;
    return 0;
}

static int form_equal(const Form *a, const Form *b) {
    Form d = *a;
    if (form_sum(&d, b, -1)) return 0;
    return d.n == 0 && d.b == 0;
}

/* (f mod m) for m > 0, when it is again a form: f already in [0, m), or
 * f = ((v + a) mod m) + b + multiples of m. */
static int form_mod(Orbit *O, Form *f, int64_t m) {
    int64_t lo, hi;
    Form g = {0};
    for (int i = 0; i < f->n; i++)
        if (f->t[i].coef % m != 0) g.t[g.n++] = f->t[i];
    if (eval_binary_op(BOP_MOD, f->b, m, &g.b) != EVAL_OK || form_bounds(O->M, &g, &lo, &hi)) return -1;
    if (lo >= 0 && hi < m) { *f = g; return 0; }
    if (g.n == 1 && g.t[0].coef == 1 && O->M[g.t[0].var] == m) {
        g.t[0].add = (g.t[0].add + g.b) % m; /* both in [0, m) */
        g.b = 0;
        *f = g;
        return 0;
    }
    return -1;
}

/* a op b into a, when it is again a form. */
static int form_binary(Orbit *O, BinaryOp op, Form *a, Form *b) {
    switch (op) {
    case BOP_ADD: return form_sum(a, b, 1);
    case BOP_SUB: return form_sum(a, b, -1);
    case BOP_MUL:
        if (b->n == 0) return form_scale(a, b->b);
        if (a->n == 0 && !form_scale(b, a->b)) return *a = *b, 0;
        return -1;
    case BOP_DIV:
        /* (k q X + b) / k = q X + floor(b / k) */
        if (b->n || b->b <= 0) return -1;
        for (int i = 0; i < a->n; i++) {
            if (a->t[i].coef % b->b) return -1;
            a->t[i].coef /= b->b;
        }
        return eval_binary_op(BOP_DIV, a->b, b->b, &a->b) == EVAL_OK ? 0 : -1;
    case BOP_MOD: return b->n || b->b <= 0 ? -1 : form_mod(O, a, b->b);
    default: return -1;
    }
}

/* e as a form in the symbolic variables: 0; 1 when e has none of them
 * (out not set: the caller evaluates the largest such subtree, once);
 * -1 when it is no form. One visit per node. */
static int sym_walk(Orbit *O, const Expr *e, Form *out);

/* e without symbolic variables: its value by the interpreter's
 * evaluator, as a constant form; -1 on an evaluation error, which the
 * checkers after this pass report. */
static int sym_value(Orbit *O, const Expr *e, Form *out) {
    memset(out, 0, sizeof *out);
    return eval_expr(e, O->frame, NULL, &out->b) ? -1 : 0;
}

/* 1 when no operand of a node that is no form (a call, a condition) has
 * a symbolic variable, else -1. */
static int sym_none(Orbit *O, const Expr *const *ops, int n) {
    Form f;
    for (int i = 0; i < n; i++)
        if (sym_walk(O, ops[i], &f) != 1) return -1;
    return 1;
}

static int sym_walk(Orbit *O, const Expr *e, Form *out) {
    switch (e->kind) {
    case EXPR_NAME:
        if (!O->symbolic[e->u.name.sym->slot]) return 1;
        *out = O->env[e->u.name.sym->slot];
        break;
    case EXPR_UNARY: {
        int r = sym_walk(O, e->u.unary.operand, out);
        if (r != 0) return r;
        if (e->u.unary.op != UOP_NEG || form_scale(out, -1)) return -1;
        break;
    }
    case EXPR_BINARY: {
        Form b;
        int ra = sym_walk(O, e->u.binary.lhs, out);
        if (ra < 0) return -1;
        int rb = sym_walk(O, e->u.binary.rhs, &b);
        if (rb < 0) return -1;
        if (ra == 1 && rb == 1) return 1;
        if ((ra == 1 && sym_value(O, e->u.binary.lhs, out)) || (rb == 1 && sym_value(O, e->u.binary.rhs, &b)) ||
            form_binary(O, e->u.binary.op, out, &b))
            return -1;
        break;
    }
    case EXPR_CALL: return sym_none(O, (const Expr *const *)e->u.call.args, e->u.call.nargs);
    case EXPR_COND: {
        const Expr *ops[3] = {e->u.cond.cond, e->u.cond.then_, e->u.cond.else_};
        return sym_none(O, ops, 3);
    }
    default: return 1;
    }
    /* Every value of this node fits int64, so the interpreter, which
     * computes it for each v, does not overflow where this pass goes on
     * (form_mod drops multiples of m that the interpreter computes). */
    int64_t lo, hi;
    return form_bounds(O->M, out, &lo, &hi);
}

/* e as a form in the symbolic variables (a constant one without them);
 * -1 when it is none, or an evaluation error. Linear in e: each node is
 * walked once, and evaluated at most once. */
static int sym_eval(Orbit *O, const Expr *e, Form *out) {
    int r = sym_walk(O, e, out);
    return r == 1 ? sym_value(O, e, out) : r;
}

static int sym_const(Orbit *O, const Expr *e, int64_t *v) {
    Form f;
    if (sym_eval(O, e, &f) || f.n) return -1;
    *v = f.b;
    return 0;
}

/* --------------------------------------------------- the steps' bodies */

/* [lo, hi) of a reference in range on every rank and every v of the box:
 * *len the constant length. */
static int sym_range(Orbit *O, const Expr *elo, const Expr *ehi, int64_t have, Form *lo, int64_t *len) {
    if (!elo) {
        memset(lo, 0, sizeof *lo);
        *len = have;
        return 0;
    }
    if (sym_eval(O, elo, lo)) return -1;
    Form hi;
    if (ehi) {
        if (sym_eval(O, ehi, &hi)) return -1;
    } else {
        hi = *lo;
        hi.b++;
    }
    Form d = hi;
    if (form_sum(&d, lo, -1) || d.n || d.b < 0) return -1;
    int64_t a, b, end;
    if (form_bounds(O->M, lo, &a, &b) || __builtin_add_overflow(b, d.b, &end)) return -1;
    if (a < 0 || end > have) return -1;
    *len = d.b;
    return 0;
}

static int sym_ref(Orbit *O, const BufRef *r, Side *s, int64_t *len) {
    for (const RefCheck *k = r->check; k; k = k->outer) {
        Form rank, lo;
        int64_t n, have, a, b, l;
        if (sym_eval(O, k->rank, &rank) || sym_const(O, k->nranks, &n) || sym_const(O, k->chunks, &have))
            return -1;
        if (form_bounds(O->M, &rank, &a, &b) || a < 0 || b >= n || sym_range(O, k->lo, k->hi, have, &lo, &l)) return -1;
    }
    int64_t a, b;
    s->buf = r->buffer;
    if (sym_eval(O, r->rank, &s->rank)) return -1;
    if (form_bounds(O->M, &s->rank, &a, &b) || a < 0 || b >= O->N) return -1;
    return sym_range(O, r->lo, r->hi, O->chunks[r->buffer], &s->lo, len);
}

/* Two rank forms with the same variables and coefficients, one shift
 * differing: once check_symmetry has found both to be digit sums, they
 * differ in that digit for every v. */
static int digits_differ(const Form *a, const Form *b) {
    if (a->n != b->n || a->b != b->b) return 0;
    int differ = 0;
    for (int i = 0; i < a->n; i++) {
        int found = 0;
        for (int j = 0; j < b->n && !found; j++)
            if (b->t[j].var == a->t[i].var && b->t[j].coef == a->t[i].coef) {
                found = 1;
                differ |= b->t[j].add != a->t[i].add;
            }
        if (!found) return 0;
    }
    return differ;
}

/* Counts a family's transfers against --max-transfers as instantiate
 * counts them (every v of the box); -1 past the limit, which the pass
 * after this one reports. */
static int count_xfers(Orbit *O) {
    if (O->max_xfers == SIZE_MAX) return 0;
    size_t box = 1;
    for (int v = 0; v < O->nvar; v++)
        if (__builtin_mul_overflow(box, (size_t)O->M[v], &box)) return -1;
    return __builtin_add_overflow(O->xfers, box, &O->xfers) || O->xfers > O->max_xfers ? -1 : 0;
}

static int sym_xfer(Orbit *O, const Stmt *st) {
    Family f;
    memset(&f, 0, sizeof f);
    int64_t ls, ld;
    if (sym_ref(O, &st->u.xfer.src, &f.src, &ls) || sym_ref(O, &st->u.xfer.dst, &f.dst, &ld) || ls != ld)
        return -1;
    if (ls == 0) return 0;
    if (f.dst.buf == BUF_IN) return -1; /* write-to-in: the explicit checker reports it */
    int same = f.src.buf == f.dst.buf && form_equal(&f.src.rank, &f.dst.rank) && form_equal(&f.src.lo, &f.dst.lo);
    if ((st->u.xfer.src.viewed || st->u.xfer.dst.viewed) && st->u.xfer.op == XFER_COPY) {
        if (same) { O->nocopies++; return 0; }
        if (f.src.buf == f.dst.buf && !digits_differ(&f.src.rank, &f.dst.rank))
            return -1; /* perhaps a copy onto itself for some v only */
    }
    if (O->split > 1) {
        /* chunk-position: source and destination at one position of their
         * blocks for every v */
        Form d = f.src.lo;
        if (form_sum(&d, &f.dst.lo, -1) || d.b % O->split) return -1;
        for (int i = 0; i < d.n; i++)
            if (d.t[i].coef % O->split) return -1;
    }
    if (O->pass == 1 && count_xfers(O)) return -1;
    f.op = (uint8_t)st->u.xfer.op;
    f.len = ls;
    f.nvar = O->nvar;
    memcpy(f.M, O->M, sizeof f.M);
    if (ogrow(O, (void **)&O->fams, &O->capfams, O->nfams + 1, sizeof *O->fams)) return -1;
    O->fams[O->nfams++] = f;
    return 0;
}

static int sym_block(Orbit *O, const Stmt *st);

static int sym_for(Orbit *O, const Stmt *st) {
    int64_t lo = 0, hi = O->N;
    int slot = st->u.for_.sym->slot;
    if (!st->u.for_.over_ranks && (sym_const(O, st->u.for_.lo, &lo) || sym_const(O, st->u.for_.hi, &hi)))
        return -1;
    if (hi <= lo) return 0;
    if (lo == 0 && hi >= 2) {
        if (O->nvar == MAX_VARS) return -1;
        int v = O->nvar++;
        O->M[v] = hi;
        memset(&O->env[slot], 0, sizeof O->env[slot]);
        O->env[slot].n = 1;
        O->env[slot].t[0] = (Term){v, 1, 0};
        O->symbolic[slot] = 1;
        int r = sym_block(O, st->u.for_.body);
        O->symbolic[slot] = 0;
        O->nvar--;
        return r;
    }
    if (hi - lo > MAX_UNROLL) return -1;
    for (int64_t v = lo; v < hi; v++) {
        O->frame[slot] = v;
        O->symbolic[slot] = 0;
        if (sym_block(O, st->u.for_.body)) return -1;
    }
    return 0;
}

static int sym_block(Orbit *O, const Stmt *st) {
    for (; st; st = st->next) {
        int64_t v;
        switch (st->kind) {
        case STMT_LET: {
            int slot = st->u.let.sym->slot;
            Form f;
            if (sym_eval(O, st->u.let.value, &f)) return -1;
            O->symbolic[slot] = f.n != 0;
            if (f.n) O->env[slot] = f;
            else O->frame[slot] = f.b;
            break;
        }
        case STMT_FOR:
            if (sym_for(O, st)) return -1;
            break;
        case STMT_IF:
            if (sym_const(O, st->u.if_.cond, &v)) return -1;
            if (sym_block(O, v ? st->u.if_.then_ : st->u.if_.else_)) return -1;
            break;
        case STMT_XFER:
            if (sym_xfer(O, st)) return -1;
            break;
        case STMT_REQUIRE:
            if (sym_const(O, st->u.require.cond, &v) || !v) return -1;
            break;
        default:
            return -1;
        }
    }
    return 0;
}


/* --------------------------------------------------- the group's digits */

/* The digit of rank-form term t, or -1. */
static int digit_of_w(const Orbit *O, int64_t W) {
    for (int k = 0; k < O->ndig; k++)
        if (O->dig[k].W == W) return k;
    return -1;
}

/* The rank digits of a destination rank form: coefficients 1, M_0,
 * M_0 M_1, ... whose moduli multiply to N, constant 0. */
static int rank_digits(Orbit *O, const Family *f) {
    const Form *r = &f->dst.rank;
    if (r->b != 0) return -1;
    Digit d[MAX_DIGITS];
    int n = 0;
    int64_t W = 1;
    int used[MAX_TERMS] = {0};
    for (;;) {
        int next = -1;
        for (int i = 0; i < r->n; i++)
            if (!used[i] && r->t[i].coef == W) next = i;
        if (next < 0) break;
        used[next] = 1;
        int64_t M = f->M[r->t[next].var];
        d[n++] = (Digit){W, M, 0};
        if (__builtin_mul_overflow(W, M, &W)) return -1;
    }
    if (n != r->n || W != O->N) return -1;
    if (O->ndig < 0) {
        O->ndig = n;
        memcpy(O->dig, d, sizeof d);
        return 0;
    }
    if (n != O->ndig) return -1;
    for (int k = 0; k < n; k++)
        if (d[k].W != O->dig[k].W || d[k].M != O->dig[k].M) return -1;
    return 0;
}

/* drive[k] = the variable of digit k in rank form r (every variable of the
 * family driving exactly one digit). */
static int rank_vars(const Orbit *O, const Family *f, const Form *r, int *drive) {
    if (r->b != 0 || r->n != O->ndig || f->nvar != O->ndig) return -1;
    for (int k = 0; k < O->ndig; k++) drive[k] = -1;
    for (int i = 0; i < r->n; i++) {
        int k = digit_of_w(O, r->t[i].coef);
        if (k < 0 || drive[k] >= 0 || f->M[r->t[i].var] != O->dig[k].M) return -1;
        drive[k] = r->t[i].var;
    }
    for (int k = 0; k < O->ndig; k++)
        for (int j = 0; j < k; j++)
            if (drive[k] == drive[j]) return -1;
    return 0;
}

/* Learns the chunk digits from a chunk form's terms. */
static int learn_chunks(Orbit *O, const Form *lo, const int *drive) {
    for (int i = 0; i < lo->n; i++) {
        for (int j = 0; j < i; j++)
            if (lo->t[j].var == lo->t[i].var) return -1;
        int k = -1;
        for (int j = 0; j < O->ndig; j++)
            if (drive[j] == lo->t[i].var) k = j;
        if (k < 0 || lo->t[i].coef <= 0) return -1;
        if (O->dig[k].U == 0) O->dig[k].U = lo->t[i].coef;
        else if (O->dig[k].U != lo->t[i].coef) return -1;
    }
    return 0;
}

/* The chunk digits nest (U_k M_k divides the next U) and divide every buffer. */
static int chunk_digits_ok(Orbit *O) {
    int order[MAX_DIGITS];
    for (int k = 0; k < O->ndig; k++) {
        if (O->dig[k].U == 0) return -1; /* a generator that moves no chunk */
        order[k] = k;
    }
    for (int i = 1; i < O->ndig; i++)
        for (int j = i; j > 0 && O->dig[order[j]].U < O->dig[order[j - 1]].U; j--) {
            int t = order[j]; order[j] = order[j - 1]; order[j - 1] = t;
        }
    for (int i = 0; i + 1 < O->ndig; i++) {
        const Digit *a = &O->dig[order[i]], *b = &O->dig[order[i + 1]];
        if (b->U % (a->U * a->M)) return -1;
    }
    if (O->ndig == 0) return 0;
    const Digit *top = &O->dig[order[O->ndig - 1]];
    for (int b = 0; b < O->alg->nbuffers; b++)
        if (O->chunks[b] % (top->U * top->M)) return -1;
    return 0;
}

/* Range lo .. lo + len of a side moves with every digit: inside one cell
 * of the digits it has, whole cycles of the others. */
static int range_ok(const Orbit *O, const Form *lo, int64_t len, const int *drive) {
    if (lo->b < 0) return -1;
    for (int k = 0; k < O->ndig; k++)
        if ((lo->b / O->dig[k].U) % O->dig[k].M) return -1; /* no carry into a digit */
    for (int k = 0; k < O->ndig; k++) {
        const Digit *d = &O->dig[k];
        int has = 0;
        for (int i = 0; i < lo->n; i++) has |= lo->t[i].var == drive[k];
        if (has) {
            int64_t low = lo->b % d->U;
            for (int j = 0; j < O->ndig; j++)
                if (O->dig[j].U < d->U)
                    for (int i = 0; i < lo->n; i++)
                        if (lo->t[i].var == drive[j]) low += O->dig[j].U * (O->dig[j].M - 1);
            if (low + len > d->U) return -1;
        } else {
            int64_t cyc = d->U * d->M;
            if (len % cyc || lo->b % cyc) return -1;
            for (int i = 0; i < lo->n; i++)
                if (lo->t[i].coef < cyc) return -1;
        }
    }
    return 0;
}

/* Pass 1, one family: its rank forms are digit sums of one digit
 * structure (the first family's), driven alike on both sides; its chunk
 * terms give the chunk digits. */
static int learn_family(Orbit *O, const Family *f) {
    if (rank_digits(O, f)) return -1;
    int ds[MAX_DIGITS], dd[MAX_DIGITS];
    if (rank_vars(O, f, &f->src.rank, ds) || rank_vars(O, f, &f->dst.rank, dd)) return -1;
    if (memcmp(ds, dd, (size_t)O->ndig * sizeof *ds)) return -1;
    return learn_chunks(O, &f->src.lo, dd) || learn_chunks(O, &f->dst.lo, dd) ? -1 : 0;
}

/* ------------------------------------------------------ group elements */

typedef struct Elem { int64_t t[MAX_DIGITS]; } Elem; /* digit shifts */

static Elem elem_of_rank(const Orbit *O, int64_t r, int inverse) {
    Elem g = {{0}};
    for (int k = 0; k < O->ndig; k++) {
        int64_t d = (r / O->dig[k].W) % O->dig[k].M;
        g.t[k] = inverse ? (O->dig[k].M - d) % O->dig[k].M : d;
    }
    return g;
}

static int64_t act_chunk(const Orbit *O, const Elem *g, int64_t x) {
    for (int k = 0; k < O->ndig; k++) {
        int64_t e = (x / O->dig[k].U) % O->dig[k].M;
        x += ((e + g->t[k]) % O->dig[k].M - e) * O->dig[k].U;
    }
    return x;
}

static int64_t act_rank(const Orbit *O, const Elem *g, int64_t r) {
    for (int k = 0; k < O->ndig; k++) {
        int64_t d = (r / O->dig[k].W) % O->dig[k].M;
        r += ((d + g->t[k]) % O->dig[k].M - d) * O->dig[k].W;
    }
    return r;
}

/* The leaf label of rank q in origin chunk o: q minus o's digits, which
 * every group element leaves as it is. */
static int64_t rel_label(const Orbit *O, int64_t q, int64_t o) {
    Elem g = {{0}};
    for (int k = 0; k < O->ndig; k++) {
        int64_t e = (o / O->dig[k].U) % O->dig[k].M;
        g.t[k] = (O->dig[k].M - e) % O->dig[k].M;
    }
    return act_rank(O, &g, q);
}

/* Solves form r == 0 for the family's variables (r is a digit sum). */
static void solve_rank0(const Orbit *O, const Form *r, int64_t *v) {
    for (int i = 0; i < r->n; i++) {
        int64_t M = O->dig[digit_of_w(O, r->t[i].coef)].M;
        v[r->t[i].var] = (M - r->t[i].add % M) % M;
    }
}

static int64_t form_at(const Family *f, const Form *x, const int64_t *v) {
    int64_t s = x->b;
    for (int i = 0; i < x->n; i++) {
        int64_t M = f->M[x->t[i].var];
        s += x->t[i].coef * ((v[x->t[i].var] + x->t[i].add) % M);
    }
    return s;
}

/* ------------------------------------------------------------- values */

static int ivl_cmp(const void *a, const void *b) {
    const RankIvl *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* A new value from the ranks tmp[0 .. n) (in any order: sorted, adjacent
 * merged); 0 when two intervals overlap (a double count) or memory runs
 * out. */
static uint32_t new_value(Orbit *O, size_t n, int32_t origin, uint64_t tree) {
    if (n > 1) qsort(O->tmp, n, sizeof *O->tmp, ivl_cmp);
    size_t m = rank_union(O->tmp, n, NULL, 0, O->tmp);
    if (m == SIZE_MAX) return 0;
    if (O->nvals >= UINT32_MAX - 1 || O->npool + m >= UINT32_MAX ||
        ogrow(O, (void **)&O->vals, &O->capvals, O->nvals + 1, sizeof *O->vals) ||
        ogrow(O, (void **)&O->pool, &O->cappool, O->npool + m, sizeof *O->pool))
        return 0;
    memcpy(O->pool + O->npool, O->tmp, m * sizeof *O->tmp);
    O->vals[O->nvals] = (OVal){origin, (uint32_t)O->npool, (uint32_t)m, tree};
    O->npool += m;
    return (uint32_t)O->nvals++;
}

/* Appends g(ranks of value id) to tmp at *n: each interval cut where a
 * digit of its image wraps. */
static int rotate_ranks(Orbit *O, uint32_t id, const Elem *g0, size_t *n) {
    OVal v = O->vals[id];
    for (uint32_t i = 0; i < v.n; i++) {
        int64_t x = O->pool[v.off + i].lo, hi = O->pool[v.off + i].hi;
        /* an interval of whole cycles of a digit is invariant under it */
        Elem h = *g0;
        for (int k = 0; k < O->ndig; k++) {
            int64_t cyc = O->dig[k].W * O->dig[k].M;
            if (x % cyc == 0 && hi % cyc == 0) h.t[k] = 0;
        }
        const Elem *g = &h;
        while (x < hi) {
            int64_t piece = hi - x;
            for (int k = 0; k < O->ndig; k++) {
                if (!g->t[k]) continue;
                const Digit *d = &O->dig[k];
                /* breaks where the digit enters value M - t (its image
                 * wraps) and where it carries (from M - 1 to 0) */
                int64_t e = (x / d->W) % d->M;
                int64_t wrap = (d->M - g->t[k] - e) * d->W - x % d->W;
                int64_t carry = (d->M - e) * d->W - x % d->W;
                if (wrap > 0 && wrap < piece) piece = wrap;
                if (carry < piece) piece = carry;
            }
            if (ogrow(O, (void **)&O->tmp, &O->captmp, *n + 1, sizeof *O->tmp)) return -1;
            int64_t y = act_rank(O, g, x);
            O->tmp[(*n)++] = (RankIvl){(int32_t)y, (int32_t)(y + piece)};
            x += piece;
        }
    }
    return 0;
}

/* --------------------------------------------------------- the steps */

/* The simulator's race rule on rank 0's slots of the families [a, b),
 * and two reduces into one slot; 1 when there is one. Two reduces are
 * allowed, but their order (the tree) is the generation order of the
 * loops, which rank 0's families do not keep: they are checked as copies
 * and stop the pass, and the next pass decides. */
static int races0(Orbit *O, size_t a, size_t b) {
    if (a == b) return 0;
    if (ogrow(O, (void **)&O->acc, &O->capacc, 2 * (b - a), sizeof *O->acc)) return 1;
    size_t n = 0;
    for (size_t i = a; i < b; i++) {
        const Family *f = &O->fams[i];
        int64_t vd[MAX_VARS] = {0}, vs[MAX_VARS] = {0};
        solve_rank0(O, &f->dst.rank, vd);
        solve_rank0(O, &f->src.rank, vs);
        int64_t dlo = form_at(f, &f->dst.lo, vd), slo = form_at(f, &f->src.lo, vs);
        O->acc[n++] = (VAccess){(uint64_t)f->dst.buf << 32 | (uint64_t)dlo, (int32_t)(dlo + f->len), VACC_COPY};
        O->acc[n++] = (VAccess){(uint64_t)f->src.buf << 32 | (uint64_t)slo, (int32_t)(slo + f->len), VACC_READ};
    }
    return verify_step_races(O->acc, n);
}

/* The transfer of family f into rank 0; -1 on a finding or a limit. */
static int apply0(Orbit *O, const Family *f) {
    int64_t v[MAX_VARS] = {0};
    solve_rank0(O, &f->dst.rank, v);
    int64_t s = form_at(f, &f->src.rank, v);
    int64_t slo = form_at(f, &f->src.lo, v), dlo = form_at(f, &f->dst.lo, v);
    Elem g = elem_of_rank(O, s, 0), gi = elem_of_rank(O, s, 1);
    for (int64_t i = 0; i < f->len; i++) {
        uint32_t sv = O->state[f->src.buf][act_chunk(O, &gi, slo + i)];
        if (!sv) return -1; /* undefined-read */
        size_t n = 0;
        if (rotate_ranks(O, sv, &g, &n)) return -1;
        int64_t origin = act_chunk(O, &g, O->vals[sv].origin);
        uint64_t tree = O->vals[sv].tree;
        uint32_t *d = &O->state[f->dst.buf][dlo + i];
        if (f->op == XFER_REDUCE) {
            if (!*d || O->vals[*d].origin != origin) return -1; /* undefined, mixed-chunks */
            OVal dv = O->vals[*d];
            if (ogrow(O, (void **)&O->tmp, &O->captmp, n + dv.n, sizeof *O->tmp)) return -1;
            memcpy(O->tmp + n, O->pool + dv.off, dv.n * sizeof *O->tmp);
            n += dv.n;
            tree = vtree_node(dv.tree, tree);
        }
        uint32_t nv = new_value(O, n, (int32_t)origin, tree);
        if (!nv) return -1; /* double-count, or the budget */
        *d = nv;
    }
    return 0;
}

/* Before pass 2: rank 0's buffers, `in` holding its own contributions. */
static int start0(Orbit *O, int nbuffers) {
    O->state = xcalloc((size_t)nbuffers, sizeof *O->state);
    for (int b = 0; b < nbuffers; b++) {
        O->bytes += (size_t)O->chunks[b] * sizeof **O->state;
        if (O->bytes > O->budget) return -1;
        O->state[b] = xcalloc((size_t)(O->chunks[b] ? O->chunks[b] : 1), sizeof **O->state);
    }
    O->nvals = 1; /* id 0: undefined */
    if (ogrow(O, (void **)&O->vals, &O->capvals, 1, sizeof *O->vals) ||
        ogrow(O, (void **)&O->tmp, &O->captmp, 1, sizeof *O->tmp))
        return -1;
    for (int64_t x = 0; x < O->chunks[BUF_IN]; x++) {
        O->tmp[0] = (RankIvl){0, 1};
        uint32_t id = new_value(O, 1, (int32_t)x, vtree_leaf(rel_label(O, 0, x)));
        if (!id) return -1;
        O->state[BUF_IN][x] = id;
    }
    return 0;
}

/* Pass 2, one step (its families in O->fams): the ranges move with the
 * group, then the race check and the transfers into rank 0. Shared
 * scratch whose call begins here is undefined again, as in the simulator. */
static int step0(Orbit *O, const Schedule *hdr) {
    for (size_t i = 0; i < O->nfams; i++) {
        const Family *f = &O->fams[i];
        int dd[MAX_DIGITS];
        if (rank_vars(O, f, &f->dst.rank, dd) || range_ok(O, &f->src.lo, f->len, dd) ||
            range_ok(O, &f->dst.lo, f->len, dd))
            return -1;
    }
    size_t k = hdr->nsteps - 1;
    for (int l = 0; l < hdr->alg->nlives; l++)
        if (sim_life_begins(hdr, k, l))
            memset(O->state[hdr->alg->lives[l].buffer], 0,
                   (size_t)O->chunks[hdr->alg->lives[l].buffer] * sizeof **O->state);
    if (races0(O, 0, O->nfams)) return -1;
    for (size_t i = 0; i < O->nfams; i++)
        if (apply0(O, &O->fams[i])) return -1;
    return 0;
}

/* out[0][c] holds origin chunk c of every rank: by the symmetry, so does
 * every rank (the AllReduce postcondition is invariant). */
static int post0(Orbit *O, const Schedule *s) {
    for (int64_t c = 0; c < O->chunks[BUF_OUT]; c++) {
        uint32_t id = O->state[BUF_OUT][c];
        Expect e = verify_expected_out(s, 0, c);
        if (!id || O->vals[id].origin != e.chunk || O->vals[id].n != 1 ||
            O->pool[O->vals[id].off].lo != e.lo || O->pool[O->vals[id].off].hi != e.hi)
            return -1;
    }
    return 0;
}

/* Every holder of an origin chunk got it by one tree: the holders of the
 * chunks of one orbit are the images of rank 0's, whose relative trees
 * they share. */
static int consistent0(Orbit *O) {
    if (O->N < 2) return -1;
    int64_t C = O->chunks[BUF_OUT];
    uint64_t *first = xcalloc((size_t)(C ? C : 1), sizeof *first);
    uint8_t *seen = xcalloc((size_t)(C ? C : 1), 1);
    Elem zero = {{0}};
    int result = -1;
    for (int64_t c = 0; c < C && result != 0; c++) {
        const OVal *v = &O->vals[O->state[BUF_OUT][c]];
        int64_t o = v->origin;
        for (int k = 0; k < O->ndig; k++) zero.t[k] = (O->dig[k].M - (o / O->dig[k].U) % O->dig[k].M) % O->dig[k].M;
        int64_t cls = act_chunk(O, &zero, o);
        if (!seen[cls]) { seen[cls] = 1; first[cls] = v->tree; }
        else if (first[cls] != v->tree) result = 0;
        if (result != 0) result = 1;
    }
    free(first);
    free(seen);
    return result;
}

/* instantiate_steps' callback: one step's body, pass 1 or 2. */
static int orbit_step(void *user, const Schedule *hdr, const Stmt *st, const int64_t *frame) {
    Orbit *O = user;
    if (!O->frame) {
        int n = O->alg->nslots > 0 ? O->alg->nslots : 1;
        O->frame = xcalloc((size_t)n, sizeof *O->frame);
        O->symbolic = xcalloc((size_t)n, 1);
        O->env = xcalloc((size_t)n, sizeof *O->env);
        O->chunks = xcalloc((size_t)hdr->nbuffers, sizeof *O->chunks);
        for (int b = 0; b < hdr->nbuffers; b++) O->chunks[b] = hdr->chunks_other[b];
        O->split = hdr->split;
    }
    memset(O->symbolic, 0, (size_t)(O->alg->nslots > 0 ? O->alg->nslots : 1));
    memcpy(O->frame, frame, (size_t)O->alg->nslots * sizeof *frame);
    O->nocopies = 0;
    O->nvar = 0;
    O->nfams = 0;
    if (sym_block(O, st->u.step.body)) return O->fail = 1, -1;
    if (O->nfams == 0 && O->nocopies) return 1;
    if (O->pass == 1) {
        for (size_t i = 0; i < O->nfams; i++)
            if (learn_family(O, &O->fams[i])) return O->fail = 1, -1;
        return 0;
    }
    if (step0(O, hdr)) return O->fail = 1, -1;
    return 0;
}

static void ofree(Orbit *O, int nbuffers) {
    if (O->state)
        for (int b = 0; b < nbuffers; b++) free(O->state[b]);
    free(O->state); free(O->frame); free(O->symbolic); free(O->env); free(O->chunks);
    free(O->fams); free(O->vals); free(O->pool); free(O->tmp); free(O->acc);
}

InstStatus verify_orbit(const Algorithm *alg, const SchedParams *p, DiagEngine *dxi, size_t budget,
                        VerifyStats *st) {
    memset(st, 0, sizeof *st);
    st->consistent = -1;
    if (alg->coll != COLLECTIVE_ALLREDUCE || alg->uniform_chunks) return INST_STOPPED;
    Orbit O = {0};
    O.alg = alg;
    O.N = p->N;
    O.budget = budget;
    /* A --max-transfers given bounds the transfers of the schedule, made or
     * not; its default bounds those made, and this pass makes none. */
    O.max_xfers = p->max_transfers ? p->max_transfers : SIZE_MAX;
    /* Silent: what instantiate reports (also inside the bodies not walked
     * here) is reported by the checkers after this pass. */
    DiagEngine *quiet = diag_new_silent(diag_sources(dxi));
    int nbuf = alg->nbuffers;
    Schedule sch;
    const Stmt *req = NULL;
    O.pass = 1;
    O.ndig = -1;
    InstStatus ist = instantiate_steps(alg, p, quiet, &sch, &req, orbit_step, &O);
    if (ist == INST_OK) {
        schedule_free(&sch);
        if (O.ndig < 0 && O.N == 1) O.ndig = 0;
        if (!O.chunks || O.fail || O.ndig < 0 || chunk_digits_ok(&O) || start0(&O, nbuf)) ist = INST_STOPPED;
    }
    if (ist == INST_OK) {
        O.pass = 2;
        ist = instantiate_steps(alg, p, quiet, &sch, &req, orbit_step, &O);
    }
    diag_delete(quiet);
    if (ist != INST_OK) ist = INST_STOPPED;
    else {
        if (O.fail || post0(&O, &sch)) {
            ist = INST_STOPPED;
        } else {
            st->consistent = consistent0(&O);
            for (int b = 0; b < nbuf; b++) st->slots += (size_t)O.chunks[b] * (size_t)O.N;
            st->values = O.nvals - 1;
            st->intervals = O.npool;
            st->method = VERIFY_BY_ORBIT;
        }
        schedule_free(&sch);
    }
    ofree(&O, nbuf);
    return ist;
}
