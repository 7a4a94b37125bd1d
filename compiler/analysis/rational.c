/* rational.c - exact rationals with sticky overflow (see rational.h). */
#include "analysis/rational.h"

#include <math.h>
#include <stdio.h>

typedef __int128 i128;

static i128 gcd128(i128 a, i128 b) {
    if (a < 0) a = -a;
    if (b < 0) b = -b;
    while (b) {
        i128 t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Reduces a 128-bit fraction and narrows it to int64, flagging overflow. */
static Rat narrow(i128 num, i128 den, int *ovf) {
    Rat r = {0, 1};
    if (den == 0) {
        *ovf = 1;
        return r;
    }
    if (den < 0) {
        num = -num;
        den = -den;
    }
    if (num == 0) return r;
    i128 g = gcd128(num, den);
    num /= g;
    den /= g;
    if (num > INT64_MAX || num < -(i128)INT64_MAX || den > INT64_MAX) {
        *ovf = 1;
        return r;
    }
    r.num = (int64_t)num;
    r.den = (int64_t)den;
    return r;
}

Rat rat_make(int64_t num, int64_t den, int *ovf) { return narrow(num, den, ovf); }

Rat rat_add(Rat a, Rat b, int *ovf) {
    if (a.den == b.den) return narrow((i128)a.num + b.num, a.den, ovf);
    return narrow((i128)a.num * b.den + (i128)b.num * a.den, (i128)a.den * b.den, ovf);
}

Rat rat_sub(Rat a, Rat b, int *ovf) {
    if (a.den == b.den) return narrow((i128)a.num - b.num, a.den, ovf);
    return narrow((i128)a.num * b.den - (i128)b.num * a.den, (i128)a.den * b.den, ovf);
}

Rat rat_mul(Rat a, Rat b, int *ovf) {
    /* Cross-reduce first so that products of reduced fractions stay small. */
    i128 g1 = gcd128(a.num, b.den), g2 = gcd128(b.num, a.den);
    if (g1 == 0) g1 = 1;
    if (g2 == 0) g2 = 1;
    return narrow(((i128)a.num / g1) * ((i128)b.num / g2),
                  ((i128)a.den / g2) * ((i128)b.den / g1), ovf);
}

Rat rat_div(Rat a, Rat b, int *ovf) {
    if (b.num == 0) {
        *ovf = 1;
        return rat_zero();
    }
    Rat inv = {b.den, b.num};
    if (inv.den < 0) {
        inv.den = -inv.den;
        inv.num = -inv.num;
    }
    return rat_mul(a, inv, ovf);
}

Rat rat_neg(Rat a, int *ovf) { return narrow(-(i128)a.num, a.den, ovf); }

int rat_cmp(Rat a, Rat b) {
    i128 l = (i128)a.num * b.den, r = (i128)b.num * a.den;
    return l < r ? -1 : l > r;
}

double rat_to_double(Rat a) { return (double)a.num / (double)a.den; }

Rat rat_from_double(double v, int64_t maxden, int *ovf) {
    if (!isfinite(v) || fabs(v) > 9e15) {
        *ovf = 1;
        return rat_zero();
    }
    int neg = v < 0;
    double x = fabs(v);
    /* Continued fraction convergents h/k until the denominator limit or an
     * exact hit (relative error below 1e-12). */
    int64_t h0 = 0, h1 = 1, k0 = 1, k1 = 0;
    double rem = x;
    for (int it = 0; it < 64; it++) {
        double a = floor(rem);
        if (a > 9e15) break;
        int64_t ai = (int64_t)a;
        i128 h2 = (i128)ai * h1 + h0, k2 = (i128)ai * k1 + k0;
        if (k2 > maxden || h2 > INT64_MAX) break;
        h0 = h1; h1 = (int64_t)h2;
        k0 = k1; k1 = (int64_t)k2;
        if (fabs((double)h1 / (double)k1 - x) <= 1e-12 * (x > 1 ? x : 1)) break;
        double frac = rem - a;
        if (frac < 1e-15) break;
        rem = 1.0 / frac;
    }
    if (k1 == 0) {
        *ovf = 1;
        return rat_zero();
    }
    return rat_make(neg ? -h1 : h1, k1, ovf);
}

char *rat_format(Rat a, char *buf, size_t size) {
    if (a.den == 1)
        snprintf(buf, size, "%lld", (long long)a.num);
    else
        snprintf(buf, size, "%lld/%lld", (long long)a.num, (long long)a.den);
    return buf;
}
