/* kernels_avx2.c - the reduction kernels compiled for AVX2 + F16C (x86-64
 * only; chosen at run time by collrt_kernels_for when the CPU has both).
 *
 * Integer, f32 and f64 kernels are the portable macros of kernels_impl.h,
 * auto-vectorised 256 bits wide (and with the 64-bit compares SSE2 lacks).
 * f16 uses the F16C conversion instructions, which round to nearest even
 * exactly like collrt_f2h; only NaN payloads may differ (both quiet NaNs).
 * bf16 is written with intrinsics (GCC's auto-vectorised narrowing is slow),
 * with exactly the rounding of collrt_f2bf. The `kgen` variants (arbitrary aliasing) stay
 * element-order loops. */
#include <immintrin.h>
#include "kernels_impl.h"

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

/* Vector forms of E_FSUM, E_FPROD, E_FMAX, E_FMIN on 8 floats. */
#define V_SUM(x, y) _mm256_add_ps(x, y)
#define V_PROD(x, y) _mm256_mul_ps(x, y)
#define V_MAX(x, y) _mm256_blendv_ps(y, x, _mm256_or_ps(_mm256_cmp_ps(x, y, _CMP_GT_OQ), \
                                                        _mm256_cmp_ps(x, x, _CMP_UNORD_Q)))
#define V_MIN(x, y) _mm256_blendv_ps(y, x, _mm256_or_ps(_mm256_cmp_ps(x, y, _CMP_LT_OQ), \
                                                        _mm256_cmp_ps(x, x, _CMP_UNORD_Q)))

#define F16C_LOOP(VEXPR, SEXPR)                                                 \
    size_t i = 0;                                                               \
    for (; i + 8 <= n; i += 8) {                                                \
        __m256 x = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(a + i))); \
        __m256 y = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(b + i))); \
        _mm_storeu_si128((__m128i *)(void *)(d + i),                           \
                         _mm256_cvtps_ph(VEXPR(x, y), _MM_FROUND_TO_NEAREST_INT)); \
    }                                                                           \
    for (; i < n; i++) {                                                        \
        float x = _cvtsh_ss(a[i]), y = _cvtsh_ss(b[i]);                         \
        d[i] = _cvtss_sh(SEXPR(x, y), _MM_FROUND_TO_NEAREST_INT);               \
    }

#define F16C_KERNELS(NAME, VEXPR, SEXPR)                                        \
    static void NAME##_x3(void *dst_, const void *a_, const void *b_, size_t n) { \
        uint16_t *restrict d = dst_;                                            \
        const uint16_t *restrict a = a_;                                        \
        const uint16_t *restrict b = b_;                                        \
        F16C_LOOP(VEXPR, SEXPR)                                                 \
    }                                                                           \
    static void NAME##_xacc(void *dst_, const void *a_, const void *b_, size_t n) { \
        (void)a_;                                                               \
        uint16_t *restrict d = dst_;                                            \
        const uint16_t *a = d;                                                  \
        const uint16_t *restrict b = b_;                                        \
        F16C_LOOP(VEXPR, SEXPR)                                                 \
    }

F16C_KERNELS(f16c_sum, V_SUM, E_FSUM)
F16C_KERNELS(f16c_prod, V_PROD, E_FPROD)
F16C_KERNELS(f16c_max, V_MAX, E_FMAX)
F16C_KERNELS(f16c_min, V_MIN, E_FMIN)

/* bf16: widen by shifting into the top half of a binary32; narrow with the
 * same round-to-nearest-even and NaN rule as collrt_f2bf. */
static inline __m256 bf16x8_load(const uint16_t *p) {
    __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
}

static inline void bf16x8_store(uint16_t *p, __m256 v) {
    __m256i u = _mm256_castps_si256(v);
    __m256i odd = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
    __m256i r = _mm256_srli_epi32(
        _mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7fff)), odd), 16);
    __m256i nan = _mm256_or_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x40));
    __m256i is_nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff)),
                                        _mm256_set1_epi32(0x7f800000));
    r = _mm256_blendv_epi8(r, nan, is_nan);
    /* 8 x 32-bit (values < 2^16) -> 8 x 16-bit: pack within lanes, then
     * bring the two useful quarters together */
    __m256i packed = _mm256_packus_epi32(r, r);
    packed = _mm256_permute4x64_epi64(packed, 0x08);
    _mm_storeu_si128((__m128i *)(void *)p, _mm256_castsi256_si128(packed));
}

#define BF16_LOOP(VEXPR, SEXPR)                                                 \
    size_t i = 0;                                                               \
    for (; i + 8 <= n; i += 8) bf16x8_store(d + i, VEXPR(bf16x8_load(a + i), bf16x8_load(b + i))); \
    for (; i < n; i++) {                                                        \
        float x = collrt_bf2f(a[i]), y = collrt_bf2f(b[i]);                     \
        d[i] = collrt_f2bf(SEXPR(x, y));                                        \
    }

#define BF16_KERNELS(NAME, VEXPR, SEXPR)                                        \
    static void NAME##_x3(void *dst_, const void *a_, const void *b_, size_t n) { \
        uint16_t *restrict d = dst_;                                            \
        const uint16_t *restrict a = a_;                                        \
        const uint16_t *restrict b = b_;                                        \
        BF16_LOOP(VEXPR, SEXPR)                                                 \
    }                                                                           \
    static void NAME##_xacc(void *dst_, const void *a_, const void *b_, size_t n) { \
        (void)a_;                                                               \
        uint16_t *restrict d = dst_;                                            \
        const uint16_t *a = d;                                                  \
        const uint16_t *restrict b = b_;                                        \
        BF16_LOOP(VEXPR, SEXPR)                                                 \
    }

BF16_KERNELS(bf16x_sum, V_SUM, E_FSUM)
BF16_KERNELS(bf16x_prod, V_PROD, E_FPROD)
BF16_KERNELS(bf16x_max, V_MAX, E_FMAX)
BF16_KERNELS(bf16x_min, V_MIN, E_FMIN)

#define KX(F16C, PORT) { F16C##_x3, F16C##_xacc, PORT##_kgen }

const collrt_kernels collrt_kernel_table_avx2[COLL_DTYPE_COUNT][COLL_OP_COUNT] = {
    [COLL_I8] = INT_ROW(i8),
    [COLL_U8] = INT_ROW(u8),
    [COLL_I32] = INT_ROW(i32),
    [COLL_U32] = INT_ROW(u32),
    [COLL_I64] = INT_ROW(i64),
    [COLL_U64] = INT_ROW(u64),
    [COLL_F16] = {KX(f16c_sum, f16_sum), KX(f16c_prod, f16_prod), KX(f16c_max, f16_max),
                  KX(f16c_min, f16_min), NOK, NOK, NOK},
    [COLL_F32] = FLT_ROW(f32),
    [COLL_F64] = FLT_ROW(f64),
    [COLL_BF16] = {KX(bf16x_sum, bf16_sum), KX(bf16x_prod, bf16_prod),
                   KX(bf16x_max, bf16_max), KX(bf16x_min, bf16_min), NOK, NOK, NOK},
};
