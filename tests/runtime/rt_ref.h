/* rt_ref.h - naive scalar references for the runtime tests: element-wise
 * reduction on raw bits, written independently of runtime/kernels.c (f16 and
 * bf16 decode/encode through double with explicit round-half-even). */
#ifndef RT_REF_H
#define RT_REF_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "coll_cpu.h"

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

#define CHECK_EQ(a, b)                                                         \
    do {                                                                       \
        long long a_ = (long long)(a), b_ = (long long)(b);                    \
        if (a_ != b_) {                                                        \
            fprintf(stderr, "%s:%d: CHECK_EQ failed: %s = %lld, %s = %lld\n",  \
                    __FILE__, __LINE__, #a, a_, #b, b_);                       \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

static inline uint64_t rt_hash(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* ---- f16 / bf16 by value (slow, obviously correct) ---- */

static inline double ref_h2d(uint16_t h) {
    int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v;
    if (e == 31) v = m ? NAN : INFINITY;
    else if (e == 0) v = ldexp((double)m, -24);
    else v = ldexp((double)(1024 + m), e - 25);
    return s ? -v : v;
}

/* Round |x| (a double holding a binary32 value) to the grid of a binary
 * format with `mant` fraction bits, minimum normal exponent emin, maximum
 * finite value maxv; returns the rounded magnitude or INFINITY. */
static inline double ref_round(double x, int mant, int emin, double maxv) {
    int e;
    frexp(x, &e);                       /* x = f * 2^e, f in [0.5, 1) */
    int exp = e - 1;                    /* x in [2^exp, 2^(exp+1)) */
    if (exp < emin) exp = emin;
    double ulp = ldexp(1.0, exp - mant);
    double q = x / ulp;                 /* exact: power-of-two scaling */
    double fl = floor(q), diff = q - fl;
    if (diff > 0.5 || (diff == 0.5 && fmod(fl, 2.0) != 0.0)) fl += 1.0;
    double r = fl * ulp;
    /* binary rounding overflow: beyond max finite + half ulp(max) -> inf */
    if (r > maxv) return INFINITY;
    return r;
}

static inline uint16_t ref_d2h(double x) {
    if (isnan(x)) return 0x7e00;
    uint16_t s = signbit(x) ? 0x8000 : 0;
    double a = fabs(x);
    if (isinf(a)) return s | 0x7c00;
    double r = ref_round(a, 10, -14, 65504.0);
    if (isinf(r)) return s | 0x7c00;
    if (r < ldexp(1.0, -14)) return s | (uint16_t)(r / ldexp(1.0, -24));
    int e;
    double f = frexp(r, &e);            /* r = f * 2^e, f in [0.5, 1) */
    int be = e - 1 + 15;
    int m = (int)((f * 2.0 - 1.0) * 1024.0);
    return s | (uint16_t)(be << 10) | (uint16_t)m;
}

static inline double ref_bf2d(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return (double)f;
}

static inline uint16_t ref_d2bf(double x) {
    if (isnan(x)) return 0x7fc0;
    uint16_t s = signbit(x) ? 0x8000 : 0;
    double a = fabs(x);
    if (isinf(a)) return s | 0x7f80;
    double maxv = ldexp(255.0, 127 - 7);      /* (2 - 2^-7) * 2^127 */
    double r = ref_round(a, 7, -126, maxv);
    if (isinf(r)) return s | 0x7f80;
    float f = (float)r;                       /* exact */
    uint32_t u;
    memcpy(&u, &f, 4);
    return s | (uint16_t)(u >> 16);
}

/* ---- one element of a reduction, on raw bits ---- */

static inline int ref_isnan_bits(coll_dtype dt, const void *p) {
    switch (dt) {
    case COLL_F16: { uint16_t h; memcpy(&h, p, 2); return (h & 0x7fff) > 0x7c00; }
    case COLL_BF16: { uint16_t h; memcpy(&h, p, 2); return (h & 0x7fff) > 0x7f80; }
    case COLL_F32: { float f; memcpy(&f, p, 4); return f != f; }
    case COLL_F64: { double f; memcpy(&f, p, 8); return f != f; }
    default: return 0;
    }
}

#define REF_INT(T, UT)                                                          \
    do {                                                                        \
        T x, y, r;                                                              \
        memcpy(&x, a, sizeof x);                                                \
        memcpy(&y, b, sizeof y);                                                \
        UT ux = (UT)x, uy = (UT)y, ur;                                          \
        switch (op) {                                                           \
        case COLL_SUM: ur = (UT)(ux + uy); r = (T)ur; break;                    \
        case COLL_PROD: ur = (UT)((uint64_t)ux * (uint64_t)uy); r = (T)ur; break; \
        case COLL_MAX: r = x > y ? x : y; break;                                \
        case COLL_MIN: r = x < y ? x : y; break;                                \
        case COLL_BAND: r = (T)(ux & uy); break;                                \
        case COLL_BOR: r = (T)(ux | uy); break;                                 \
        default: r = (T)(ux ^ uy); break;                                       \
        }                                                                       \
        memcpy(out, &r, sizeof r);                                              \
    } while (0)

/* out = a (+) b for one element. */
static inline void ref_elem(coll_dtype dt, coll_op op, void *out, const void *a,
                            const void *b) {
    switch (dt) {
    case COLL_I8: REF_INT(int8_t, uint8_t); break;
    case COLL_U8: REF_INT(uint8_t, uint8_t); break;
    case COLL_I32: REF_INT(int32_t, uint32_t); break;
    case COLL_U32: REF_INT(uint32_t, uint32_t); break;
    case COLL_I64: REF_INT(int64_t, uint64_t); break;
    case COLL_U64: REF_INT(uint64_t, uint64_t); break;
    case COLL_F32: {
        float x, y, r;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        if (op == COLL_SUM) r = x + y;
        else if (op == COLL_PROD) r = x * y;
        else if (isnan(x)) r = x;
        else r = (op == COLL_MAX ? (x > y) : (x < y)) ? x : y;
        memcpy(out, &r, 4);
        break;
    }
    case COLL_F64: {
        double x, y, r;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (op == COLL_SUM) r = x + y;
        else if (op == COLL_PROD) r = x * y;
        else if (isnan(x)) r = x;
        else r = (op == COLL_MAX ? (x > y) : (x < y)) ? x : y;
        memcpy(out, &r, 8);
        break;
    }
    case COLL_F16:
    case COLL_BF16: {
        uint16_t ha, hb, r;
        memcpy(&ha, a, 2);
        memcpy(&hb, b, 2);
        double x = dt == COLL_F16 ? ref_h2d(ha) : ref_bf2d(ha);
        double y = dt == COLL_F16 ? ref_h2d(hb) : ref_bf2d(hb);
        double v;
        if (op == COLL_SUM || op == COLL_PROD) {
            /* the exact sum/product of two 11-bit (8-bit) values is exact in
             * double; round it once to the target format */
            v = op == COLL_SUM ? x + y : x * y;
        } else if (isnan(x)) {
            v = x;
        } else {
            v = (op == COLL_MAX ? (x > y) : (x < y)) ? x : y;
            /* keep the operand's exact bits (signed zeros) */
            memcpy(out, (op == COLL_MAX ? (x > y) : (x < y)) ? &ha : &hb, 2);
            break;
        }
        r = dt == COLL_F16 ? ref_d2h(v) : ref_d2bf(v);
        memcpy(out, &r, 2);
        break;
    }
    default: abort();
    }
}

static const coll_dtype all_dtypes[] = {COLL_I8,  COLL_U8,  COLL_I32, COLL_U32, COLL_I64,
                                        COLL_U64, COLL_F16, COLL_F32, COLL_F64, COLL_BF16};
#define N_DTYPES ((int)(sizeof all_dtypes / sizeof all_dtypes[0]))

static inline int is_float(coll_dtype dt) {
    return dt == COLL_F16 || dt == COLL_F32 || dt == COLL_F64 || dt == COLL_BF16;
}

#endif
