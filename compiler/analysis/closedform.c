/* closedform.c - exact closed forms in N (and one param) for cost
 * coefficients.
 *
 * Given the exact coefficient at several N, find the simplest combination
 * sum_i w_i * f_i(N) of at most three basis functions with rational weights
 * that reproduces every point. Subsets are tried by size, then in basis
 * order, so "N-1" wins over anything more exotic. The weights come from
 * exact Gaussian elimination over all points at once: a subset fits iff the
 * system is consistent with full column rank, which is the "checked on
 * every evaluated N" guarantee. */
#include "analysis/cost.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/util.h"

typedef enum BasisFn {
    BF_ONE,       /* 1 */
    BF_N,         /* N */
    BF_INV_N,     /* 1/N */
    BF_LOG2,      /* floor(log2 N) (the language's log2) */
    BF_CLOG2,     /* ceil(log2 N) */
    BF_HALF,      /* ceil((N-1)/2) */
    BF_HALF_N,    /* ceil((N-1)/2)/N */
    BF_LOG2_N,    /* log2(N)/N */
    BF_CLOG2_N,   /* ceil(log2 N)/N */
    BF_N2,        /* N^2 */
    BF_NLOG2,     /* N*log2(N) */
    BF_CLOG3,     /* ceil(log3 N): the latency bound with 2 ports */
    BF__COUNT
} BasisFn;

static const char *const bf_name[BF__COUNT] = {
    "1", "N", "1/N", "log2(N)", "ceil(log2(N))", "ceil((N-1)/2)", "ceil((N-1)/2)/N",
    "log2(N)/N", "ceil(log2(N))/N", "N^2", "N·log2(N)", "ceil(log3(N))",
};

static int64_t flog2(int64_t n) {
    int64_t k = 0;
    while (n > 1) {
        n >>= 1;
        k++;
    }
    return k;
}
static int64_t clog2(int64_t n) {
    int64_t k = 0;
    while (((int64_t)1 << k) < n) k++;
    return k;
}

static Rat bf_eval(BasisFn f, int64_t N, int *ovf) {
    switch (f) {
    case BF_ONE: return rat_int(1);
    case BF_N: return rat_int(N);
    case BF_INV_N: return rat_make(1, N, ovf);
    case BF_LOG2: return rat_int(flog2(N));
    case BF_CLOG2: return rat_int(clog2(N));
    case BF_HALF: return rat_int(N / 2); /* == ceil((N-1)/2) */
    case BF_HALF_N: return rat_make(N / 2, N, ovf);
    case BF_LOG2_N: return rat_make(flog2(N), N, ovf);
    case BF_CLOG2_N: return rat_make(clog2(N), N, ovf);
    case BF_N2: return rat_mul(rat_int(N), rat_int(N), ovf);
    case BF_NLOG2: return rat_mul(rat_int(N), rat_int(flog2(N)), ovf);
    case BF_CLOG3: {
        int64_t k = 0, p = 1;
        while (p < N) p *= 3, k++;
        return rat_int(k);
    }
    default: COLLC_UNREACHABLE("basis function");
    }
}

/* ---- the functions of the swept param ----
 *
 * cost_fit2's basis functions are products f(N)·g(P): f indexes BasisFn, g
 * a PFn. The products are ordered by g first (the terms in N alone come
 * first), then by f, so that the subsets tried first are the ones that
 * read simplest. */

typedef enum PFn {
    PF_ONE,     /* 1 */
    PF_P,       /* P */
    PF_INV_P,   /* 1/P */
    PF_LOG2,    /* floor(log2 P) */
    PF_CLOG2,   /* ceil(log2 P) */
    PF_P2,      /* P^2 */
    PF__COUNT
} PFn;

enum { BASIS2 = BF__COUNT * PF__COUNT };

static Rat pf_eval(PFn g, int64_t P, int *ovf) {
    switch (g) {
    case PF_ONE: return rat_int(1);
    case PF_P: return rat_int(P);
    case PF_INV_P:
        if (P == 0) { *ovf = 1; return rat_zero(); }
        return rat_make(1, P, ovf);
    case PF_LOG2:
        if (P < 1) { *ovf = 1; return rat_zero(); }
        return rat_int(flog2(P));
    case PF_CLOG2:
        if (P < 1) { *ovf = 1; return rat_zero(); }
        return rat_int(clog2(P));
    case PF_P2: return rat_mul(rat_int(P), rat_int(P), ovf);
    default: COLLC_UNREACHABLE("param basis function");
    }
}

/* The basis both fits search: products f(N)·g(P), indexed g * BF__COUNT + f
 * so that the products in N alone (g = 1) come first: cost_fit searches
 * those, cost_fit2 all of them. */
static Rat basis_eval(int fg, const CostPoint *pt, int *ovf) {
    Rat v = bf_eval((BasisFn)(fg % BF__COUNT), pt->N, ovf);
    PFn g = (PFn)(fg / BF__COUNT);
    /* a product in N alone never reads P (cost_fit's points need none) */
    return g == PF_ONE ? v : rat_mul(v, pf_eval(g, pt->P, ovf), ovf);
}

/* Solves sum_j w_j fs_j(point i) = v_i over all points by exact Gaussian
 * elimination. Returns 1 with w on an exact, unique fit. */
static int solve_in(Rat (*m)[4], const CostPoint *pts, size_t n, const int *fs, int k, Rat *w) {
    int ovf = 0;
    for (size_t i = 0; i < n; i++) {
        for (int j = 0; j < k; j++) m[i][j] = basis_eval(fs[j], &pts[i], &ovf);
        m[i][k] = pts[i].v;
    }
    if (ovf) return 0;
    size_t row = 0;
    for (int col = 0; col < k; col++) {
        size_t piv = row;
        while (piv < n && rat_is_zero(m[piv][col])) piv++;
        if (piv == n) return 0; /* dependent basis on these points */
        if (piv != row)
            for (int j = 0; j <= k; j++) {
                Rat tmp = m[piv][j];
                m[piv][j] = m[row][j];
                m[row][j] = tmp;
            }
        for (size_t i = 0; i < n; i++) {
            if (i == row || rat_is_zero(m[i][col])) continue;
            Rat f = rat_div(m[i][col], m[row][col], &ovf);
            for (int j = col; j <= k; j++)
                m[i][j] = rat_sub(m[i][j], rat_mul(f, m[row][j], &ovf), &ovf);
        }
        row++;
        if (ovf) return 0;
    }
    for (size_t i = row; i < n; i++)
        if (!rat_is_zero(m[i][k])) return 0; /* a point the fit misses */
    for (int j = 0; j < k; j++) {
        w[j] = rat_div(m[j][k], m[j][j], &ovf);
        if (rat_is_zero(w[j])) return 0; /* a smaller subset fits too */
    }
    return !ovf;
}

/* The first subset of at most three of the first `count` basis products,
 * by size, then in lexicographic order, whose weights fit every point:
 * returns its size k with the products in fs and the weights in w, or 0. */
static int find_fit(const CostPoint *pts, size_t n, int count, int fs[3], Rat w[3]) {
    /* one work matrix for every subset tried (tens of thousands in N and a
     * param) */
    Rat(*m)[4] = xmalloc(n * sizeof *m);
    int found = 0;
    for (int k = 1; k <= 3 && !found; k++) {
        int idx[3] = {0, 1, 2};
        for (;;) {
            for (int j = 0; j < k; j++) fs[j] = idx[j];
            /* k points determine k weights; at least one more must confirm */
            if ((size_t)k < n && solve_in(m, pts, n, fs, k, w)) {
                found = k;
                break;
            }
            int j = k - 1;
            while (j >= 0 && idx[j] == count - k + j) j--;
            if (j < 0) break;
            idx[j]++;
            for (int i = j + 1; i < k; i++) idx[i] = idx[i - 1] + 1;
        }
    }
    free(m);
    return found;
}

/* ---- printing ---- */

typedef struct Buf {
    char *p;
    size_t size, len;
} Buf;

static void put(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(Buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (b->len < b->size) {
        int n = vsnprintf(b->p + b->len, b->size - b->len, fmt, ap);
        if (n > 0) b->len += (size_t)n;
        if (b->len >= b->size) b->len = b->size - 1;
    }
    va_end(ap);
}

/* The sign of a term, "-" first and " - " or " + " after another term;
 * returns |w|. */
static Rat put_sign(Buf *b, Rat w, int first) {
    int neg = w.num < 0;
    if (first) {
        if (neg) put(b, "-");
    } else {
        put(b, neg ? " - " : " + ");
    }
    if (neg) w.num = -w.num;
    return w;
}

/* Writes |k|·X with the conventions 2(N-1), (N-1)/2, 3(N-1)/4. `core` is a
 * parenthesised expression like "(N-1)" and `over` an extra denominator
 * ("N" or ""). */
static void put_scaled(Buf *b, Rat k, const char *core, const char *over) {
    int64_t p = k.num < 0 ? -k.num : k.num, q = k.den;
    if (p != 1) put(b, "%lld", (long long)p);
    put(b, "%s", core);
    if (q != 1 && *over) put(b, "/(%lld%s)", (long long)q, over);
    else if (q != 1) put(b, "/%lld", (long long)q);
    else if (*over) put(b, "/%s", over);
}

static void put_term(Buf *b, Rat w, BasisFn f, int first) {
    Rat a = put_sign(b, w, first);
    char r[48];
    switch (f) {
    case BF_ONE: put(b, "%s", rat_format(a, r, sizeof r)); break;
    case BF_INV_N:
        if (a.den == 1) put(b, "%lld/N", (long long)a.num);
        else put(b, "%lld/(%lldN)", (long long)a.num, (long long)a.den);
        break;
    case BF_N:
        if (rat_eq(a, rat_int(1))) put(b, "N");
        else if (a.den == 1) put(b, "%lldN", (long long)a.num);
        else if (a.num == 1) put(b, "N/%lld", (long long)a.den);
        else put(b, "%lldN/%lld", (long long)a.num, (long long)a.den);
        break;
    default:
        if (rat_eq(a, rat_int(1))) put(b, "%s", bf_name[f]);
        else put(b, "%s·%s", rat_format(a, r, sizeof r), bf_name[f]);
        break;
    }
}

static void format_fit(Buf *b, const BasisFn *fs, const Rat *w, int k) {
    int used[4] = {0, 0, 0, 0};
    int first = 1;
    int i1 = -1, iN = -1, iinv = -1;
    for (int j = 0; j < k; j++) {
        if (fs[j] == BF_ONE) i1 = j;
        if (fs[j] == BF_N) iN = j;
        if (fs[j] == BF_INV_N) iinv = j;
    }
    int ovf = 0;
    /* w(N-1) and w(N-1)/N read better than w·N - w and w - w/N; printed
     * first when positive, last when negative. */
    Rat pw = rat_zero();
    const char *pcore = NULL, *pover = "";
    if (i1 >= 0 && iN >= 0 && rat_eq(w[i1], rat_neg(w[iN], &ovf))) {
        pw = w[iN];
        pcore = "(N-1)";
        used[i1] = used[iN] = 1;
    } else if (i1 >= 0 && iinv >= 0 && rat_eq(w[iinv], rat_neg(w[i1], &ovf))) {
        pw = w[i1];
        pcore = "(N-1)";
        pover = "N";
        used[i1] = used[iinv] = 1;
    }
    if (pcore && pw.num > 0) {
        /* a lone N-1 needs no parentheses */
        put_scaled(b, pw, (!rat_eq(pw, rat_int(1)) || *pover) ? pcore : "N-1", pover);
        first = 0;
    }
    /* Remaining terms: N-like first, constants last, as people write them. */
    static const BasisFn order[] = {BF_N2, BF_NLOG2, BF_N, BF_LOG2, BF_CLOG2, BF_CLOG3, BF_HALF,
                                    BF_HALF_N, BF_LOG2_N, BF_CLOG2_N, BF_INV_N, BF_ONE};
    for (size_t o = 0; o < ARRAY_LEN(order); o++)
        for (int j = 0; j < k; j++)
            if (!used[j] && fs[j] == order[o]) {
                put_term(b, w[j], fs[j], first);
                first = 0;
                used[j] = 1;
            }
    if (pcore && pw.num < 0) {
        put(b, first ? "-" : " - ");
        put_scaled(b, pw, pcore, pover);
        first = 0;
    }
    if (first) put(b, "0");
}

/* The name of product f·g without its coefficient: "N", "K", "N/K",
 * "log2(N)·K", "1/K", "1". */
static void b2_name(int fg, const char *pname, char *buf, size_t size) {
    BasisFn f = (BasisFn)(fg % BF__COUNT);
    PFn g = (PFn)(fg / BF__COUNT);
    const char *fn = bf_name[f];
    char gn[64];
    switch (g) {
    case PF_ONE: snprintf(gn, sizeof gn, "1"); break;
    case PF_P: snprintf(gn, sizeof gn, "%s", pname); break;
    case PF_INV_P: snprintf(gn, sizeof gn, "1/%s", pname); break;
    case PF_LOG2: snprintf(gn, sizeof gn, "log2(%s)", pname); break;
    case PF_CLOG2: snprintf(gn, sizeof gn, "ceil(log2(%s))", pname); break;
    case PF_P2: snprintf(gn, sizeof gn, "%s^2", pname); break;
    default: COLLC_UNREACHABLE("param basis function");
    }
    if (g == PF_ONE) snprintf(buf, size, "%s", fn);
    else if (f == BF_ONE) snprintf(buf, size, "%s", gn);
    else if (g == PF_INV_P && f == BF_INV_N) snprintf(buf, size, "1/(N·%s)", pname);
    else if (g == PF_INV_P) snprintf(buf, size, "%s/%s", fn, pname);
    else snprintf(buf, size, "%s·%s", fn, gn);
}

/* w·name with its sign: " + 2N/K", " - 2/K", "N + ...". */
static void put_term2(Buf *b, Rat w, int fg, const char *pname, int first) {
    Rat a = put_sign(b, w, first);
    char name[96], r[48];
    b2_name(fg, pname, name, sizeof name);
    if (!strcmp(name, "1")) {
        put(b, "%s", rat_format(a, r, sizeof r));
        return;
    }
    /* a leading "1/..." takes the coefficient as its numerator: 2/K */
    if (!strncmp(name, "1/", 2) && a.den == 1) {
        put(b, "%lld%s", (long long)a.num, name + 1);
        return;
    }
    if (rat_eq(a, rat_int(1))) put(b, "%s", name);
    else if (a.den == 1 && (name[0] == 'N' || name[0] == pname[0]) && !strchr(name, '(') &&
             !strchr(name, '/'))
        put(b, "%lld%s", (long long)a.num, name);
    else put(b, "%s·%s", rat_format(a, r, sizeof r), name);
}

/* Writes a fit over products: a function of N alone as format_fit does,
 * otherwise positive terms first; in N, then in the param alone, then the
 * constant. */
static void format_fit2(Buf *b, const int *fs, const Rat *w, int k, const char *pname) {
    int in_n = 1;
    BasisFn bf[3];
    for (int j = 0; j < k; j++) {
        in_n &= fs[j] / BF__COUNT == PF_ONE;
        bf[j] = (BasisFn)(fs[j] % BF__COUNT);
    }
    if (in_n) {
        format_fit(b, bf, w, k);
        return;
    }
    int order[3] = {0, 1, 2}, first = 1, rank[3];
    for (int j = 0; j < k; j++) {
        int f = fs[j] % BF__COUNT, g = fs[j] / BF__COUNT;
        rank[j] = 3 * (w[j].num < 0) + (f != BF_ONE ? 0 : g != PF_ONE ? 1 : 2);
    }
    for (int x = 0; x < k; x++)
        for (int y = x + 1; y < k; y++)
            if (rank[order[y]] < rank[order[x]]) {
                int t = order[x];
                order[x] = order[y];
                order[y] = t;
            }
    for (int j = 0; j < k; j++) {
        put_term2(b, w[order[j]], fs[order[j]], pname, first);
        first = 0;
    }
}

/* ---- the two fits ---- */

/* The fit over the first `count` basis products, written into buf. */
static int fit(const CostPoint *pts, size_t n, int count, const char *pname, char *buf, size_t size) {
    Buf b = {buf, size, 0};
    buf[0] = 0;
    if (n == 0) {
        put(&b, "?");
        return -1;
    }
    int allzero = 1;
    for (size_t i = 0; i < n; i++)
        if (!rat_is_zero(pts[i].v)) allzero = 0;
    if (allzero) {
        put(&b, "0");
        return 0;
    }
    int fs[3];
    Rat w[3];
    int k = find_fit(pts, n, count, fs, w);
    if (!k) {
        put(&b, "?");
        return -1;
    }
    format_fit2(&b, fs, w, k, pname);
    return 0;
}

int cost_fit(const CostPoint *pts, size_t n, char *buf, size_t size) {
    return fit(pts, n, BF__COUNT, "", buf, size);
}

int cost_fit2(const CostPoint *pts, size_t n, const char *pname, char *buf, size_t size) {
    return fit(pts, n, BASIS2, pname, buf, size);
}
