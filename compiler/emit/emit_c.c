/* emit_c.c - Rank IR -> readable C against the transport ABI (coll.h). */
#include "emit/emit_c.h"
#include "emit/emit_mpi.h"
#include "support/util.h"

#include <ctype.h>
#include <string.h>

/* The checked operators of the expression language. Every generated file
 * carries its own static copy so that it has no dependency but coll.h. */
static const char c_helpers[] =
    "/* Integer semantics of the .coll language: floor division, mathematical\n"
    " * modulo, errors (not undefined behaviour) on overflow, division by zero,\n"
    " * bad shifts and log2 of x <= 0. An error sets *e; the call then fails\n"
    " * with COLL_ERR_INTERNAL. */\n"
    "#define CC_HELPER static inline __attribute__((unused))\n"
    "CC_HELPER int64_t cc_add(int64_t a, int64_t b, int *e) {\n"
    "    int64_t r;\n"
    "    if (__builtin_add_overflow(a, b, &r)) { *e = 1; return 0; }\n"
    "    return r;\n"
    "}\n"
    "CC_HELPER int64_t cc_sub(int64_t a, int64_t b, int *e) {\n"
    "    int64_t r;\n"
    "    if (__builtin_sub_overflow(a, b, &r)) { *e = 1; return 0; }\n"
    "    return r;\n"
    "}\n"
    "CC_HELPER int64_t cc_mul(int64_t a, int64_t b, int *e) {\n"
    "    int64_t r;\n"
    "    if (__builtin_mul_overflow(a, b, &r)) { *e = 1; return 0; }\n"
    "    return r;\n"
    "}\n"
    "CC_HELPER int64_t cc_neg(int64_t a, int *e) {\n"
    "    if (a == INT64_MIN) { *e = 1; return 0; }\n"
    "    return -a;\n"
    "}\n"
    "CC_HELPER int64_t cc_div(int64_t a, int64_t b, int *e) {\n"
    "    if (b == 0 || (a == INT64_MIN && b == -1)) { *e = 1; return 0; }\n"
    "    int64_t q = a / b;\n"
    "    if (a % b != 0 && ((a < 0) != (b < 0))) q--;\n"
    "    return q;\n"
    "}\n"
    "CC_HELPER int64_t cc_mod(int64_t a, int64_t b, int *e) {\n"
    "    if (b == 0) { *e = 1; return 0; }\n"
    "    if (b == -1) return 0;\n"
    "    int64_t m = a % b;\n"
    "    if (m != 0 && ((m < 0) != (b < 0))) m += b;\n"
    "    return m;\n"
    "}\n"
    "CC_HELPER int64_t cc_shl(int64_t a, int64_t b, int *e) {\n"
    "    if (b < 0 || b >= 63) { *e = 1; return 0; }\n"
    "    return cc_mul(a, (int64_t)1 << b, e);\n"
    "}\n"
    "CC_HELPER int64_t cc_shr(int64_t a, int64_t b, int *e) {\n"
    "    if (b < 0 || b >= 63) { *e = 1; return 0; }\n"
    "    return a >> b;\n"
    "}\n"
    "CC_HELPER int64_t cc_min(int64_t a, int64_t b) { return a < b ? a : b; }\n"
    "CC_HELPER int64_t cc_max(int64_t a, int64_t b) { return a > b ? a : b; }\n"
    "CC_HELPER int64_t cc_log2(int64_t x, int *e) {\n"
    "    if (x <= 0) { *e = 1; return 0; }\n"
    "    return 63 - __builtin_clzll((unsigned long long)x);\n"
    "}\n"
    "CC_HELPER int64_t cc_ceil_log2(int64_t x, int *e) {\n"
    "    if (x <= 0) { *e = 1; return 0; }\n"
    "    return x == 1 ? 0 : 64 - __builtin_clzll((unsigned long long)(x - 1));\n"
    "}\n"
    "CC_HELPER int64_t cc_is_pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }\n"
    "CC_HELPER int64_t cc_log(int64_t b, int64_t x, int *e) {\n"
    "    if (b < 2 || x <= 0) { *e = 1; return 0; }\n"
    "    int64_t n = 0;\n"
    "    for (; x >= b; x /= b) n++;\n"
    "    return n;\n"
    "}\n"
    "CC_HELPER int64_t cc_ceil_log(int64_t b, int64_t x, int *e) {\n"
    "    if (b < 2 || x <= 0) { *e = 1; return 0; }\n"
    "    int64_t n = 0;\n"
    "    for (int64_t p = 1; p < x; p *= b) {\n"
    "        n++;\n"
    "        if (p > INT64_MAX / b) break;\n"
    "    }\n"
    "    return n;\n"
    "}\n"
    "CC_HELPER int64_t cc_pow(int64_t a, int64_t b, int *e) {\n"
    "    if (b < 0) { *e = 1; return 0; }\n"
    "    if (a == 0 || a == 1) return a == 1 || b == 0;\n"
    "    if (a == -1) return b % 2 ? -1 : 1;\n"
    "    int64_t p = 1;\n"
    "    for (; b > 0; b--)\n"
    "        if (__builtin_mul_overflow(p, a, &p)) { *e = 1; return 0; }\n"
    "    return p;\n"
    "}\n"
    "CC_HELPER uint64_t cc_mag(int64_t a) { return a < 0 ? 0 - (uint64_t)a : (uint64_t)a; }\n"
    "CC_HELPER uint64_t cc_ugcd(uint64_t a, uint64_t b) {\n"
    "    while (b) { uint64_t t = a % b; a = b; b = t; }\n"
    "    return a;\n"
    "}\n"
    "CC_HELPER int64_t cc_gcd(int64_t a, int64_t b, int *e) {\n"
    "    uint64_t g = cc_ugcd(cc_mag(a), cc_mag(b));\n"
    "    if (g > (uint64_t)INT64_MAX) { *e = 1; return 0; }\n"
    "    return (int64_t)g;\n"
    "}\n"
    "CC_HELPER int64_t cc_lcm(int64_t a, int64_t b, int *e) {\n"
    "    uint64_t x = cc_mag(a), y = cc_mag(b), v;\n"
    "    if (x == 0 || y == 0) return 0;\n"
    "    if (__builtin_mul_overflow(x / cc_ugcd(x, y), y, &v) || v > (uint64_t)INT64_MAX) {\n"
    "        *e = 1;\n"
    "        return 0;\n"
    "    }\n"
    "    return (int64_t)v;\n"
    "}\n";

typedef struct EmitC {
    FILE *out;
    const RankProgram *rp;
    int depth;
    int tmp;          /* counter for loop-bound temporaries */
} EmitC;

static void ind(EmitC *E) { fprintf(E->out, "%*s", 4 * E->depth, ""); }

static void var_name(EmitC *E, const Symbol *s) {
    /* slot number first: unique, and never a C keyword */
    fprintf(E->out, "v%d_%s", s->slot, s->name);
}

/* Does evaluating e need the error flag? */
static int expr_checked(const Expr *e) {
    switch (e->kind) {
    case EXPR_INT: case EXPR_NAME: return 0;
    case EXPR_UNARY: return e->u.unary.op == UOP_NEG || expr_checked(e->u.unary.operand);
    case EXPR_BINARY:
        switch (e->u.binary.op) {
        case BOP_EQ: case BOP_NE: case BOP_LT: case BOP_LE: case BOP_GT: case BOP_GE:
        case BOP_LAND: case BOP_LOR: case BOP_BAND: case BOP_BOR: case BOP_BXOR:
            return expr_checked(e->u.binary.lhs) || expr_checked(e->u.binary.rhs);
        default: return 1;
        }
    case EXPR_CALL:
        switch (e->u.call.builtin) {
        case BUILTIN_LOG2: case BUILTIN_CEIL_LOG2: case BUILTIN_LOG: case BUILTIN_CEIL_LOG:
        case BUILTIN_POW: case BUILTIN_GCD: case BUILTIN_LCM:
            return 1;
        default: break;
        }
        for (int i = 0; i < e->u.call.nargs; i++)
            if (expr_checked(e->u.call.args[i])) return 1;
        return 0;
    case EXPR_COND:
        return expr_checked(e->u.cond.cond) || expr_checked(e->u.cond.then_) ||
               expr_checked(e->u.cond.else_);
    }
    return 1;
}

static void expr(EmitC *E, const Expr *e) {
    FILE *f = E->out;
    switch (e->kind) {
    case EXPR_INT:
        if (e->u.ival == INT64_MIN) fputs("INT64_MIN", f);
        else fprintf(f, "INT64_C(%lld)", (long long)e->u.ival);
        return;
    case EXPR_NAME:
        var_name(E, e->u.name.sym);
        return;
    case EXPR_UNARY:
        switch (e->u.unary.op) {
        case UOP_NEG: fputs("cc_neg(", f); expr(E, e->u.unary.operand); fputs(", &err)", f); return;
        case UOP_BNOT: fputs("(~", f); expr(E, e->u.unary.operand); fputc(')', f); return;
        case UOP_LNOT: fputs("(int64_t)(!", f); expr(E, e->u.unary.operand); fputc(')', f); return;
        }
        return;
    case EXPR_BINARY: {
        const char *fn = NULL, *op = NULL;
        switch (e->u.binary.op) {
        case BOP_ADD: fn = "cc_add"; break;
        case BOP_SUB: fn = "cc_sub"; break;
        case BOP_MUL: fn = "cc_mul"; break;
        case BOP_DIV: fn = "cc_div"; break;
        case BOP_MOD: fn = "cc_mod"; break;
        case BOP_SHL: fn = "cc_shl"; break;
        case BOP_SHR: fn = "cc_shr"; break;
        case BOP_BAND: op = "&"; break;
        case BOP_BOR: op = "|"; break;
        case BOP_BXOR: op = "^"; break;
        case BOP_EQ: op = "=="; break;
        case BOP_NE: op = "!="; break;
        case BOP_LT: op = "<"; break;
        case BOP_LE: op = "<="; break;
        case BOP_GT: op = ">"; break;
        case BOP_GE: op = ">="; break;
        case BOP_LAND: op = "&&"; break;
        case BOP_LOR: op = "||"; break;
        }
        if (fn) {
            fprintf(f, "%s(", fn);
            expr(E, e->u.binary.lhs);
            fputs(", ", f);
            expr(E, e->u.binary.rhs);
            fputs(", &err)", f);
        } else {
            int logical = e->u.binary.op >= BOP_EQ;
            fputs(logical ? "(int64_t)(" : "(", f);
            expr(E, e->u.binary.lhs);
            fprintf(f, " %s ", op);
            expr(E, e->u.binary.rhs);
            fputc(')', f);
        }
        return;
    }
    case EXPR_CALL:
        switch (e->u.call.builtin) {
        case BUILTIN_MIN: case BUILTIN_MAX:
            fputs(e->u.call.builtin == BUILTIN_MIN ? "cc_min(" : "cc_max(", f);
            expr(E, e->u.call.args[0]);
            fputs(", ", f);
            expr(E, e->u.call.args[1]);
            fputc(')', f);
            return;
        case BUILTIN_LOG2: case BUILTIN_CEIL_LOG2:
            fputs(e->u.call.builtin == BUILTIN_LOG2 ? "cc_log2(" : "cc_ceil_log2(", f);
            expr(E, e->u.call.args[0]);
            fputs(", &err)", f);
            return;
        case BUILTIN_IS_POW2:
            fputs("cc_is_pow2(", f);
            expr(E, e->u.call.args[0]);
            fputc(')', f);
            return;
        case BUILTIN_LOG: case BUILTIN_CEIL_LOG: case BUILTIN_POW: case BUILTIN_GCD:
        case BUILTIN_LCM:
            fprintf(f, "cc_%s(", builtin_info[e->u.call.builtin].name);
            expr(E, e->u.call.args[0]);
            fputs(", ", f);
            expr(E, e->u.call.args[1]);
            fputs(", &err)", f);
            return;
        case BUILTIN__COUNT: break;
        }
        COLLC_UNREACHABLE("unresolved builtin");
    case EXPR_COND:
        /* C's ?: evaluates only the chosen branch, as the language does */
        fputs("(", f);
        expr(E, e->u.cond.cond);
        fputs(" ? ", f);
        expr(E, e->u.cond.then_);
        fputs(" : ", f);
        expr(E, e->u.cond.else_);
        fputc(')', f);
        return;
    }
}

static void check_err(EmitC *E, int needed) {
    if (!needed) return;
    ind(E);
    fputs("if (err) goto fail;\n", E->out);
}

static const char *buf_const(int b, char *tmp, size_t n) {
    if (b == BUF_IN) return "COLL_BUF_IN";
    if (b == BUF_OUT) return "COLL_BUF_OUT";
    snprintf(tmp, n, "COLL_BUF_SCRATCH0 + %d", b - BUF_FIRST_SCRATCH);
    return tmp;
}

static void stmts(EmitC *E, const RStmt *s);

/* for (v in lo .. hi): a C loop that stops at the first error. */
static void stmt_for(EmitC *E, const RStmt *s) {
    FILE *f = E->out;
    int t = E->tmp++;
    ind(E);
    fprintf(f, "for (int64_t lo%d = ", t);
    expr(E, s->u.for_.lo);
    fprintf(f, ", hi%d = ", t);
    expr(E, s->u.for_.hi);
    fprintf(f, ", it%d = lo%d; it%d < hi%d && !err; it%d++) {\n", t, t, t, t, t);
    E->depth++;
    ind(E);
    var_name(E, s->u.for_.sym);
    fprintf(f, " = it%d;\n", t);
    stmts(E, s->u.for_.body);
    E->depth--;
    ind(E);
    fputs("}\n", f);
    check_err(E, 1);
}

static void stmt_if(EmitC *E, const RStmt *s) {
    FILE *f = E->out;
    ind(E);
    fputs("if (", f);
    expr(E, s->u.if_.cond);
    fputs(") {\n", f);
    E->depth++;
    stmts(E, s->u.if_.then_);
    E->depth--;
    if (s->u.if_.else_) {
        ind(E);
        fputs("} else {\n", f);
        E->depth++;
        stmts(E, s->u.if_.else_);
        E->depth--;
    }
    ind(E);
    fputs("}\n", f);
    check_err(E, expr_checked(s->u.if_.cond));
}

/* require: a call where it fails returns COLL_ERR_NOT_APPLICABLE, its reason
 * in a comment. */
static void stmt_require(EmitC *E, const RStmt *s) {
    FILE *f = E->out;
    ind(E);
    fputs("if (!(", f);
    expr(E, s->u.require.cond);
    fputs(") || err)", f);
    if (s->u.require.why) {
        fputs(" /* ", f);
        for (const char *p = s->u.require.why; *p; p++)
            if (!(p[0] == '*' && p[1] == '/')) fputc(isprint((unsigned char)*p) ? *p : ' ', f);
        fputs(" */", f);
    }
    fputs("\n", f);
    E->depth++;
    ind(E);
    fputs("return coll_finish(c, err ? COLL_ERR_INTERNAL : COLL_ERR_NOT_APPLICABLE);\n", f);
    E->depth--;
}

/* The chunk layout of the call: coll_setup with the split and the scratch
 * buffers' chunks. */
static void stmt_setup(EmitC *E) {
    FILE *f = E->out;
    const RankProgram *rp = E->rp;
    ind(E);
    fputs("if (count == 0) return coll_finish(c, COLL_OK);\n", f);
    ind(E);
    if (rp->nscratch > 0) {
        fputs("{\n", f);
        E->depth++;
        ind(E);
        fputs("const int64_t scratch_chunks[] = {", f);
        for (int k = 0; k < rp->nscratch; k++) {
            if (k) fputs(", ", f);
            var_name(E, rp->sym_scratch[k]);
        }
        fputs("};\n", f);
        ind(E);
        fputs("rc = coll_setup(c, ", f);
        var_name(E, rp->sym_split);
        fprintf(f, ", %d, scratch_chunks);\n", rp->nscratch);
        E->depth--;
        ind(E);
        fputs("}\n", f);
    } else {
        fputs("rc = coll_setup(c, ", f);
        var_name(E, rp->sym_split);
        fputs(", 0, NULL);\n", f);
    }
    ind(E);
    fputs("if (rc != COLL_OK) return coll_finish(c, rc);\n", f);
}

static void stmt(EmitC *E, const RStmt *s) {
    FILE *f = E->out;
    char b1[32], b2[32];
    switch (s->kind) {
    case RS_LET:
        ind(E);
        var_name(E, s->u.let.sym);
        fputs(" = ", f);
        expr(E, s->u.let.value);
        fputs(";\n", f);
        check_err(E, expr_checked(s->u.let.value));
        return;
    case RS_FOR: stmt_for(E, s); return;
    case RS_IF: stmt_if(E, s); return;
    case RS_REQUIRE: stmt_require(E, s); return;
    case RS_SETUP: stmt_setup(E); return;
    case RS_STEP:
        ind(E);
        fprintf(f, "/* step %d */\n", s->u.step.index + 1);
        ind(E);
        fputs("{\n", f);
        E->depth++;
        stmts(E, s->u.step.body);
        ind(E);
        fputs("rc = coll_step_end(c);\n", f);
        ind(E);
        fputs("if (rc != COLL_OK) return coll_finish(c, rc);\n", f);
        E->depth--;
        ind(E);
        fputs("}\n", f);
        return;
    case RS_SEND:
        ind(E);
        fputs("coll_send(c, ", f);
        expr(E, s->u.send.peer);
        fprintf(f, ", %s, ", buf_const(s->u.send.buf, b1, sizeof b1));
        expr(E, s->u.send.lo);
        fputs(", ", f);
        expr(E, s->u.send.hi);
        fputs(");\n", f);
        check_err(E, expr_checked(s->u.send.peer) || expr_checked(s->u.send.lo) ||
                         expr_checked(s->u.send.hi));
        return;
    case RS_RECV:
        ind(E);
        fputs(s->u.recv.op == XFER_COPY ? "coll_recv(c, " : "coll_recv_reduce(c, ", f);
        expr(E, s->u.recv.peer);
        fprintf(f, ", %s, ", buf_const(s->u.recv.buf, b1, sizeof b1));
        expr(E, s->u.recv.lo);
        fputs(", ", f);
        expr(E, s->u.recv.hi);
        fputs(");\n", f);
        check_err(E, expr_checked(s->u.recv.peer) || expr_checked(s->u.recv.lo) ||
                         expr_checked(s->u.recv.hi));
        return;
    case RS_LOCAL:
        ind(E);
        fputs(s->u.local.op == XFER_COPY ? "coll_copy(c, " : "coll_reduce(c, ", f);
        fprintf(f, "%s, ", buf_const(s->u.local.src_buf, b1, sizeof b1));
        expr(E, s->u.local.src_lo);
        fprintf(f, ", %s, ", buf_const(s->u.local.dst_buf, b2, sizeof b2));
        expr(E, s->u.local.dst_lo);
        fputs(", ", f);
        expr(E, s->u.local.n);
        fputs(");\n", f);
        check_err(E, expr_checked(s->u.local.src_lo) || expr_checked(s->u.local.dst_lo) ||
                         expr_checked(s->u.local.n));
        return;
    }
}

static void stmts(EmitC *E, const RStmt *s) {
    for (; s; s = s->next) stmt(E, s);
}

const char *emit_c_collective_id(Collective c) {
    switch (c) {
#define X(id, kw, abi, rooted, ib, iw, ob, ow, red, inplace, mpi, params) \
    case COLLECTIVE_##id: return #id;
#include <coll_collectives.def>
#undef X
    case COLLECTIVE__COUNT: break;
    }
    COLLC_UNREACHABLE("bad collective");
}

/* Every slot that the program can assign, once each. */
static void collect_syms(const RStmt *s, const Symbol **seen, int nslots) {
    for (; s; s = s->next) {
        switch (s->kind) {
        case RS_LET: seen[s->u.let.sym->slot] = s->u.let.sym; break;
        case RS_FOR:
            seen[s->u.for_.sym->slot] = s->u.for_.sym;
            collect_syms(s->u.for_.body, seen, nslots);
            break;
        case RS_IF:
            collect_syms(s->u.if_.then_, seen, nslots);
            collect_syms(s->u.if_.else_, seen, nslots);
            break;
        case RS_STEP: collect_syms(s->u.step.body, seen, nslots); break;
        default: break;
        }
    }
}

void emit_c_prototype(FILE *out, const Algorithm *alg, const char *prefix) {
    fprintf(out, "int %s%s(coll_comm *comm, const void *sendbuf, void *recvbuf, size_t count,\n"
                 "%*scoll_dtype dtype, coll_op op%s)",
            prefix, alg->name, (int)(strlen(prefix) + strlen(alg->name) + 5), "",
            collective_info[alg->coll].rooted ? ", int root" : "");
}

void emit_c_start_prototype(FILE *out, const Algorithm *alg, const char *prefix,
                            const char *suffix) {
    fprintf(out, "int %s%s%s(coll_comm *comm, const void *sendbuf, void *recvbuf, size_t count,\n"
                 "%*scoll_dtype dtype, coll_op op%s, coll_request **req)",
            prefix, alg->name, suffix, (int)(strlen(prefix) + strlen(alg->name) + strlen(suffix) + 5),
            "", collective_info[alg->coll].rooted ? ", int root" : "");
}

/* NAME_start and NAME_init: the nonblocking and persistent forms, the
 * program itself as their plan (coll.h §3). */
static void emit_start(FILE *out, const Algorithm *alg, const char *prefix) {
    static const struct { const char *suffix, *callee, *what; } forms[] = {
        {"_start", "coll_start", "nonblocking (coll_test, coll_wait)"},
        {"_init", "coll_init", "persistent (coll_request_start)"},
    };
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        fprintf(out, "\n/* %s : %s, %s */\n", alg->name, collective_info[alg->coll].keyword,
                forms[i].what);
        emit_c_start_prototype(out, alg, prefix, forms[i].suffix);
        fprintf(out, " {\n    return %s(comm, &%s%s_info, (void (*)(void))%s%s, sendbuf, recvbuf, count,\n"
                     "%*sdtype, op, %s, req);\n}\n",
                forms[i].callee, prefix, alg->name, prefix, alg->name,
                (int)strlen(forms[i].callee) + 12, "", collective_info[alg->coll].rooted ? "root" : "0");
    }
}

static void emit_program(FILE *out, const RankProgram *rp, const EmitCOptions *o) {
    EmitC E = {.out = out, .rp = rp, .depth = 0, .tmp = 0};
    const Algorithm *alg = rp->alg;
    int rooted = collective_info[alg->coll].rooted;
    const char *prefix = o && o->prefix ? o->prefix : "";

    fprintf(out, "\nstatic const coll_alg_info %s%s_info = {\n", prefix, alg->name);
    fprintf(out, "    COLL_ABI_VERSION, \"%s\", COLL_%s, COLL_ALG_CHUNK_CALLS_ONLY%s%s\n};\n\n", alg->name,
            emit_c_collective_id(alg->coll), rp->inplace_safe ? " | COLL_ALG_INPLACE_SAFE" : "",
            rp->vblocks ? " | COLL_ALG_VBLOCKS" : "");
    fprintf(out, "/* %s : %s */\n", alg->name, collective_info[alg->coll].keyword);
    emit_c_prototype(out, alg, prefix);
    fputs(" {\n", out);
    E.depth = 1;
    ind(&E);
    fputs("coll_call *c;\n", out);
    ind(&E);
    fprintf(out, "int rc = coll_begin(comm, &%s%s_info, sendbuf, recvbuf, count, dtype, op, %s, &c);\n",
            prefix, alg->name, rooted ? "root" : "0");
    ind(&E);
    fputs("if (rc != COLL_OK) return rc;\n", out);
    ind(&E);
    fputs("int err = 0;\n", out);

    const Symbol **seen = xcalloc((size_t)rp->nslots, sizeof *seen);
    seen[alg->sym_N->slot] = alg->sym_N;
    seen[rp->sym_me->slot] = rp->sym_me;
    if (alg->sym_root) seen[alg->sym_root->slot] = alg->sym_root;
    collect_syms(rp->body, seen, rp->nslots);
    for (int i = 0; i < rp->nslots; i++) {
        if (!seen[i]) continue;
        ind(&E);
        fputs("int64_t ", out);
        var_name(&E, seen[i]);
        fputs(" = 0;\n", out);
        ind(&E);
        fputs("(void)", out);
        var_name(&E, seen[i]);
        fputs(";\n", out);
    }
    free(seen);
    ind(&E);
    var_name(&E, alg->sym_N);
    fputs(" = coll_comm_size(comm);\n", out);
    ind(&E);
    var_name(&E, rp->sym_me);
    fputs(" = coll_comm_rank(comm);\n", out);
    if (alg->sym_root) {
        ind(&E);
        var_name(&E, alg->sym_root);
        fputs(" = root;\n", out);
    }
    stmts(&E, rp->body);
    ind(&E);
    fputs("if (err) goto fail;\n", out);
    ind(&E);
    fputs("return coll_finish(c, COLL_OK);\n", out);
    fputs("fail:\n", out);
    ind(&E);
    fputs("return coll_finish(c, COLL_ERR_INTERNAL);\n", out);
    fputs("}\n", out);
    emit_start(out, alg, prefix);
}

void emit_c_file(FILE *out, const RankProgram *const *progs, int nprogs, const EmitCOptions *o) {
    fprintf(out, "/* Generated by collc %s from %s. Do not edit: edit the .coll file. */\n",
            COLLC_VERSION, o && o->source_name ? o->source_name : "<input>");
    fputs("#include <stddef.h>\n#include <stdint.h>\n#include <coll.h>\n\n", out);
    fputs(c_helpers, out);
    for (int i = 0; i < nprogs; i++) emit_program(out, progs[i], o);
}

/* ---------- --target=mpi: MPI-signature wrappers (emit_mpi.h) ---------- */

void emit_c_mpi_prototype(FILE *out, const Algorithm *alg, const char *wrapper_prefix) {
    EmitMpiSig sg;
    emit_mpi_sig(alg->coll, &sg);
    fprintf(out, "int %s%s(", wrapper_prefix ? wrapper_prefix : "", alg->name);
    for (int k = 0; k < sg.nparams; k++) fprintf(out, "%s%s%s", k ? ", " : "", sg.type[k], sg.name[k]);
    fputc(')', out);
}

void emit_c_mpi_wrappers(FILE *out, const RankProgram *const *progs, int nprogs,
                         const char *wrapper_prefix) {
    const char *wp = wrapper_prefix ? wrapper_prefix : "";
    fputs("\n/* --target=mpi: the algorithms with the signatures of the MPI collectives they\n"
          " * implement (compile this file with the MPI library's mpicc; link with\n"
          " * libcollrt-mpi or load libcollmpi). See docs/mpi.md. */\n"
          "#include <collmpi.h>\n",
          out);
    for (int i = 0; i < nprogs; i++) {
        const Algorithm *alg = progs[i]->alg;
        EmitMpiSig sg;
        emit_mpi_sig(alg->coll, &sg);
        fprintf(out, "\nconst coll_alg_info *const %s%s%s_alg = &%s%s%s_info;\n",
                EMIT_MPI_CORE_PREFIX, wp, alg->name, EMIT_MPI_CORE_PREFIX, wp, alg->name);
        fprintf(out, "\n/* %s : %s, as %s */\n", alg->name, collective_info[alg->coll].keyword,
                sg.entry);
        emit_c_mpi_prototype(out, alg, wp);
        fprintf(out, " {\n    return %s(", sg.entry);
        for (int k = 0; k < sg.nparams; k++) fprintf(out, "%s, ", sg.name[k]);
        fprintf(out, "%s%s%s);\n}\n", EMIT_MPI_CORE_PREFIX, wp, alg->name);
    }
}
