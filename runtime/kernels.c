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
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
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

/* Indexed [dtype][op]; a NULL entry is an undefined pair. */
static const collrt_kernels collrt_kernel_table_generic[COLL_DTYPE_COUNT][COLL_OP_COUNT] = {
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


#ifdef COLLRT_HAVE_AVX2
#include <cpuid.h>
extern const collrt_kernels collrt_kernel_table_avx2[COLL_DTYPE_COUNT][COLL_OP_COUNT];

static int cpu_has_avx2_f16c(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 29))) return 0; /* F16C */
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");    /* also checks OS support */
}
#endif

int collrt_isa_available(int isa) {
    if (isa == COLLRT_ISA_GENERIC) return 1;
#ifdef COLLRT_HAVE_AVX2
    if (isa == COLLRT_ISA_AVX2) {
        /* cpuid is asked once: in a VM it traps (~30 us), and every reducing
         * call looks its kernels up. -1 unknown, 0 no, 1 yes. */
        static _Atomic int avx2 = -1;
        int v = atomic_load_explicit(&avx2, memory_order_relaxed);
        if (v < 0) {
            v = cpu_has_avx2_f16c() ? 1 : 0;
            atomic_store_explicit(&avx2, v, memory_order_relaxed);
        }
        return v;
    }
#endif
    return 0;
}

const char *collrt_isa_name(int isa) {
    return isa == COLLRT_ISA_AVX2 ? "avx2+f16c" : "generic";
}

const collrt_kernels *collrt_kernels_isa(coll_dtype dtype, coll_op op, int isa) {
    if ((unsigned)dtype >= COLL_DTYPE_COUNT || (unsigned)op >= COLL_OP_COUNT ||
        !collrt_isa_available(isa))
        return NULL;
    const collrt_kernels *k = &collrt_kernel_table_generic[dtype][op];
#ifdef COLLRT_HAVE_AVX2
    if (isa == COLLRT_ISA_AVX2) k = &collrt_kernel_table_avx2[dtype][op];
#endif
    return k->k3 ? k : NULL;
}

/* The best instruction set of this CPU, chosen once; COLL_KERNELS=generic
 * forces the baseline (for comparisons). */
int collrt_isa_selected(void) {
    static _Atomic int chosen = -1;
    int isa = atomic_load_explicit(&chosen, memory_order_relaxed);
    if (isa < 0) {
        const char *env = getenv("COLL_KERNELS");
        isa = COLLRT_ISA_GENERIC;
        if (!(env && strcmp(env, "generic") == 0) && collrt_isa_available(COLLRT_ISA_AVX2))
            isa = COLLRT_ISA_AVX2;
        atomic_store_explicit(&chosen, isa, memory_order_relaxed);
    }
    return isa;
}

const collrt_kernels *collrt_kernels_for(coll_dtype dtype, coll_op op) {
    return collrt_kernels_isa(dtype, op, collrt_isa_selected());
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
