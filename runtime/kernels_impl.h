/* kernels_impl.h - the reduction kernels as macros, instantiated once per
 * instruction set: kernels.c (baseline ISA) and kernels_avx2.c (-mavx2
 * -mf16c). Both instantiate the same element expressions, so they agree bit
 * for bit (NaN payloads aside). Not a public header. */
#ifndef COLLRT_KERNELS_IMPL_H
#define COLLRT_KERNELS_IMPL_H

#include "collrt_internal.h"
#include "half.h"

/* Kernel functions are static; an instruction set that overrides some of
 * them leaves the macro's versions unused. */
#define KFN __attribute__((unused)) static

/* Element expressions; a, b are values of the compute type. */
#define E_SUM_U(T, UT, a, b) ((T)(UT)((UT)(a) + (UT)(b)))
#define E_PROD_U(T, UT, a, b) ((T)(UT)((UT)(a) * (UT)(b)))
#define E_MAX(a, b) ((a) > (b) ? (a) : (b))
#define E_MIN(a, b) ((a) < (b) ? (a) : (b))
#define E_FMAX(a, b) (((a) > (b) || (a) != (a)) ? (a) : (b))
#define E_FMIN(a, b) (((a) < (b) || (a) != (a)) ? (a) : (b))
#define E_FSUM(a, b) ((a) + (b))
#define E_FPROD(a, b) ((a) * (b))
#define E_BAND(a, b) ((a) & (b))
#define E_BOR(a, b) ((a) | (b))
#define E_BXOR(a, b) ((a) ^ (b))

/* Kernels on a storage type T where the computation is EXPR(x, y) on the
 * loaded values directly (integers, f32, f64). */
#define KERNELS_DIRECT(NAME, T, EXPR)                                           \
    KFN void NAME##_k3(void *dst_, const void *a_, const void *b_, size_t n) { \
        T *restrict d = dst_;                                                   \
        const T *restrict a = a_;                                               \
        const T *restrict b = b_;                                               \
        for (size_t i = 0; i < n; i++) { T x = a[i], y = b[i]; d[i] = EXPR; }   \
    }                                                                           \
    KFN void NAME##_kacc(void *dst_, const void *a_, const void *b_, size_t n) { \
        (void)a_;                                                               \
        T *restrict d = dst_;                                                   \
        const T *restrict b = b_;                                               \
        for (size_t i = 0; i < n; i++) { T x = d[i], y = b[i]; d[i] = EXPR; }   \
    }                                                                           \
    KFN void NAME##_kgen(void *dst_, const void *a_, const void *b_, size_t n) { \
        T *d = dst_;                                                            \
        const T *a = a_;                                                        \
        const T *b = b_;                                                        \
        for (size_t i = 0; i < n; i++) { T x = a[i], y = b[i]; d[i] = EXPR; }   \
    }

/* Kernels on 16-bit float storage: widen with LOAD, compute EXPR in float,
 * narrow with STORE. */
#define KERNELS_HALF(NAME, LOAD, STORE, EXPR)                                   \
    KFN void NAME##_k3(void *dst_, const void *a_, const void *b_, size_t n) { \
        uint16_t *restrict d = dst_;                                            \
        const uint16_t *restrict a = a_;                                        \
        const uint16_t *restrict b = b_;                                        \
        for (size_t i = 0; i < n; i++) {                                        \
            float x = LOAD(a[i]), y = LOAD(b[i]);                               \
            d[i] = STORE(EXPR);                                                 \
        }                                                                       \
    }                                                                           \
    KFN void NAME##_kacc(void *dst_, const void *a_, const void *b_, size_t n) { \
        (void)a_;                                                               \
        uint16_t *restrict d = dst_;                                            \
        const uint16_t *restrict b = b_;                                        \
        for (size_t i = 0; i < n; i++) {                                        \
            float x = LOAD(d[i]), y = LOAD(b[i]);                               \
            d[i] = STORE(EXPR);                                                 \
        }                                                                       \
    }                                                                           \
    KFN void NAME##_kgen(void *dst_, const void *a_, const void *b_, size_t n) { \
        uint16_t *d = dst_;                                                     \
        const uint16_t *a = a_;                                                 \
        const uint16_t *b = b_;                                                 \
        for (size_t i = 0; i < n; i++) {                                        \
            float x = LOAD(a[i]), y = LOAD(b[i]);                               \
            d[i] = STORE(EXPR);                                                 \
        }                                                                       \
    }

#define INT_KERNELS(P, T, UT)                                                   \
    KERNELS_DIRECT(P##_sum, T, E_SUM_U(T, UT, x, y))                            \
    KERNELS_DIRECT(P##_prod, T, E_PROD_U(T, UT, x, y))                          \
    KERNELS_DIRECT(P##_max, T, E_MAX(x, y))                                     \
    KERNELS_DIRECT(P##_min, T, E_MIN(x, y))                                     \
    KERNELS_DIRECT(P##_band, T, E_BAND(x, y))                                   \
    KERNELS_DIRECT(P##_bor, T, E_BOR(x, y))                                     \
    KERNELS_DIRECT(P##_bxor, T, E_BXOR(x, y))

#define FLOAT_KERNELS(P, T)                                                     \
    KERNELS_DIRECT(P##_sum, T, E_FSUM(x, y))                                    \
    KERNELS_DIRECT(P##_prod, T, E_FPROD(x, y))                                  \
    KERNELS_DIRECT(P##_max, T, E_FMAX(x, y))                                    \
    KERNELS_DIRECT(P##_min, T, E_FMIN(x, y))

#define HALF_KERNELS(P, LOAD, STORE)                                            \
    KERNELS_HALF(P##_sum, LOAD, STORE, E_FSUM(x, y))                            \
    KERNELS_HALF(P##_prod, LOAD, STORE, E_FPROD(x, y))                          \
    KERNELS_HALF(P##_max, LOAD, STORE, E_FMAX(x, y))                            \
    KERNELS_HALF(P##_min, LOAD, STORE, E_FMIN(x, y))

#define K(NAME) { NAME##_k3, NAME##_kacc, NAME##_kgen }
#define NOK { NULL, NULL, NULL }
#define INT_ROW(P) { K(P##_sum), K(P##_prod), K(P##_max), K(P##_min), K(P##_band), K(P##_bor), K(P##_bxor) }
#define FLT_ROW(P) { K(P##_sum), K(P##_prod), K(P##_max), K(P##_min), NOK, NOK, NOK }

#endif
