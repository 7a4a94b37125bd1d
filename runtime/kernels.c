/* kernels.c - reduction kernels for every (dtype, op) pair.
 *
 * Each kernel is a plain loop over restrict pointers so that -O3 vectorises
 * it; the element operation is one expression (selects, no branches), and the
 * same expression is used by all three aliasing variants, so they agree bit
 * for bit. Semantics (docs/runtime.md):
 *   integers: SUM and PROD wrap modulo 2^bits (computed in the unsigned type,
 *     no undefined behaviour); MAX, MIN; BAND, BOR, BXOR.
 *   floats: SUM and PROD are IEEE operations in the type itself; f16 and bf16
 *     are computed in binary32 and rounded once to nearest even, which equals
 *     the correctly rounded f16/bf16 operation (24 >= 2*11+2 bits, so double
 *     rounding cannot occur). MAX/MIN propagate NaN:
 *     max(a, b) = (a > b || a != a) ? a : b. Bitwise ops are not defined. */
#include "collrt_internal.h"
#include "half.h"

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
    static void NAME##_k3(void *dst_, const void *a_, const void *b_, size_t n) { \
        T *restrict d = dst_;                                                   \
        const T *restrict a = a_;                                               \
        const T *restrict b = b_;                                               \
        for (size_t i = 0; i < n; i++) { T x = a[i], y = b[i]; d[i] = EXPR; }   \
    }                                                                           \
    static void NAME##_kacc(void *dst_, const void *a_, const void *b_, size_t n) { \
        (void)a_;                                                               \
        T *restrict d = dst_;                                                   \
        const T *restrict b = b_;                                               \
        for (size_t i = 0; i < n; i++) { T x = d[i], y = b[i]; d[i] = EXPR; }   \
    }                                                                           \
    static void NAME##_kgen(void *dst_, const void *a_, const void *b_, size_t n) { \
        T *d = dst_;                                                            \
        const T *a = a_;                                                        \
        const T *b = b_;                                                        \
        for (size_t i = 0; i < n; i++) { T x = a[i], y = b[i]; d[i] = EXPR; }   \
    }

/* Kernels on 16-bit float storage: widen with LOAD, compute EXPR in float,
 * narrow with STORE. */
#define KERNELS_HALF(NAME, LOAD, STORE, EXPR)                                   \
    static void NAME##_k3(void *dst_, const void *a_, const void *b_, size_t n) { \
        uint16_t *restrict d = dst_;                                            \
        const uint16_t *restrict a = a_;                                        \
        const uint16_t *restrict b = b_;                                        \
        for (size_t i = 0; i < n; i++) {                                        \
            float x = LOAD(a[i]), y = LOAD(b[i]);                               \
            d[i] = STORE(EXPR);                                                 \
        }                                                                       \
    }                                                                           \
    static void NAME##_kacc(void *dst_, const void *a_, const void *b_, size_t n) { \
        (void)a_;                                                               \
        uint16_t *restrict d = dst_;                                            \
        const uint16_t *restrict b = b_;                                        \
        for (size_t i = 0; i < n; i++) {                                        \
            float x = LOAD(d[i]), y = LOAD(b[i]);                               \
            d[i] = STORE(EXPR);                                                 \
        }                                                                       \
    }                                                                           \
    static void NAME##_kgen(void *dst_, const void *a_, const void *b_, size_t n) { \
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

INT_KERNELS(i8, int8_t, uint8_t)
INT_KERNELS(u8, uint8_t, uint8_t)
INT_KERNELS(i32, int32_t, uint32_t)
INT_KERNELS(u32, uint32_t, uint32_t)
INT_KERNELS(i64, int64_t, uint64_t)
INT_KERNELS(u64, uint64_t, uint64_t)
FLOAT_KERNELS(f32, float)
FLOAT_KERNELS(f64, double)
HALF_KERNELS(f16, collrt_h2f, collrt_f2h)
HALF_KERNELS(bf16, collrt_bf2f, collrt_f2bf)

#define K(NAME) { NAME##_k3, NAME##_kacc, NAME##_kgen }
#define NOK { NULL, NULL, NULL }
#define INT_ROW(P) { K(P##_sum), K(P##_prod), K(P##_max), K(P##_min), K(P##_band), K(P##_bor), K(P##_bxor) }
#define FLT_ROW(P) { K(P##_sum), K(P##_prod), K(P##_max), K(P##_min), NOK, NOK, NOK }

/* Indexed [dtype][op]; a NULL entry is an undefined pair. */
static const collrt_kernels kernel_table[COLL_DTYPE_COUNT][COLL_OP_COUNT] = {
    [COLL_I8] = INT_ROW(i8),
    [COLL_U8] = INT_ROW(u8),
    [COLL_I32] = INT_ROW(i32),
    [COLL_U32] = INT_ROW(u32),
    [COLL_I64] = INT_ROW(i64),
    [COLL_U64] = INT_ROW(u64),
    [COLL_F16] = FLT_ROW(f16),
    [COLL_F32] = FLT_ROW(f32),
    [COLL_F64] = FLT_ROW(f64),
    [COLL_BF16] = FLT_ROW(bf16),
};

const collrt_kernels *collrt_kernels_for(coll_dtype dtype, coll_op op) {
    if ((unsigned)dtype >= COLL_DTYPE_COUNT || (unsigned)op >= COLL_OP_COUNT)
        return NULL;
    const collrt_kernels *k = &kernel_table[dtype][op];
    return k->k3 ? k : NULL;
}

static int overlaps(const void *p, const void *q, size_t bytes) {
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)q;
    return a < b + bytes && b < a + bytes;
}

void collrt_reduce(const collrt_kernels *k, size_t esz, void *dst, const void *a,
                   const void *b, size_t n) {
    if (n == 0) return;
    size_t bytes = n * esz;
    if (dst == a && !overlaps(dst, b, bytes))
        k->kacc(dst, dst, b, n);
    else if (overlaps(dst, a, bytes) || overlaps(dst, b, bytes))
        k->kgen(dst, a, b, n);      /* any other aliasing: element order */
    else
        k->k3(dst, a, b, n);
}
