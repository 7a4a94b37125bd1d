/* test_kernels.c - every reduction kernel (all three aliasing variants and
 * the public entry points) against the naive scalar reference, bit for bit
 * (NaN results: both NaN); f16/bf16 conversions against an independent
 * decode/encode, exhaustively where the domain is 16 bits. */
#include <math.h>
#include "collrt_internal.h"
#include "rt_ref.h"

static uint64_t rng = 12345;
static uint64_t next_rand(void) { return rng = rt_hash(rng); }

static void fill_random(coll_dtype dt, void *p, size_t n, int mode) {
    size_t esz = coll_dtype_size(dt);
    unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = next_rand();
        if (mode == 0 || !is_float(dt)) {
            memcpy(b + i * esz, &r, esz);          /* raw bits: NaN, Inf, subnormals */
        } else {
            double v = (double)((int64_t)(r % 2001) - 1000) / 16.0; /* finite, tame */
            if (dt == COLL_F32) { float f = (float)v; memcpy(b + i * esz, &f, 4); }
            else if (dt == COLL_F64) memcpy(b + i * esz, &v, 8);
            else if (dt == COLL_F16) { uint16_t h = ref_d2h(v); memcpy(b + i * esz, &h, 2); }
            else { uint16_t h = ref_d2bf(v); memcpy(b + i * esz, &h, 2); }
        }
    }
}

static int same_elem(coll_dtype dt, const void *x, const void *y) {
    size_t esz = coll_dtype_size(dt);
    if (memcmp(x, y, esz) == 0) return 1;
    return ref_isnan_bits(dt, x) && ref_isnan_bits(dt, y);
}

static long failures;

static void expect_same(const char *what, coll_dtype dt, coll_op op, size_t n,
                        const unsigned char *got, const unsigned char *want,
                        const unsigned char *a, const unsigned char *b) {
    size_t esz = coll_dtype_size(dt);
    for (size_t i = 0; i < n; i++) {
        if (same_elem(dt, got + i * esz, want + i * esz)) continue;
        if (failures++ < 20) {
            uint64_t g = 0, w = 0, x = 0, y = 0;
            memcpy(&g, got + i * esz, esz);
            memcpy(&w, want + i * esz, esz);
            memcpy(&x, a + i * esz, esz);
            memcpy(&y, b + i * esz, esz);
            fprintf(stderr, "%s %s/%s n=%zu i=%zu: a=%#llx b=%#llx got %#llx want %#llx\n",
                    what, coll_dtype_name(dt), coll_op_name(op), n, i,
                    (unsigned long long)x, (unsigned long long)y, (unsigned long long)g,
                    (unsigned long long)w);
        }
        return;
    }
}

static void test_kernels(int isa) {
    static const size_t sizes[] = {0, 1, 2, 3, 7, 15, 16, 17, 31, 64, 100, 1000, 4099};
    size_t maxn = 4099 + 8;
    unsigned char *a = malloc(maxn * 8 + 8), *b = malloc(maxn * 8 + 8);
    unsigned char *d = malloc(maxn * 8 + 8), *want = malloc(maxn * 8 + 8);
    unsigned char *a0 = malloc(maxn * 8 + 8);
    CHECK(a && b && d && want && a0);
    int pairs = 0;
    for (int t = 0; t < N_DTYPES; t++) {
        coll_dtype dt = all_dtypes[t];
        size_t esz = coll_dtype_size(dt);
        for (int o = 0; o < COLL_OP_COUNT; o++) {
            coll_op op = (coll_op)o;
            const collrt_kernels *k = collrt_kernels_isa(dt, op, isa);
            int bitwise = op >= COLL_BAND;
            CHECK_EQ(k == NULL, is_float(dt) && bitwise);
            CHECK_EQ(coll_op_supported(dt, op), k ? COLL_OK : COLL_ERR_OP_DTYPE);
            if (k) CHECK(collrt_kernels_for(dt, op) ==
                         collrt_kernels_isa(dt, op, collrt_isa_selected()));
            if (!k) continue;
            pairs++;
            for (int mode = 0; mode < 2; mode++)
                for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
                    for (size_t mis = 0; mis < 2; mis++) {
                        size_t n = sizes[si];
                        /* misaligned by one element half of the time */
                        unsigned char *pa = a + mis * esz, *pb = b + mis * esz;
                        unsigned char *pd = d + mis * esz;
                        fill_random(dt, pa, n, mode);
                        fill_random(dt, pb, n, mode);
                        for (size_t i = 0; i < n; i++)
                            ref_elem(dt, op, want + i * esz, pa + i * esz, pb + i * esz);
                        memset(pd, 0xa5, n * esz);
                        k->k3(pd, pa, pb, n);
                        const char *what = isa ? "avx2 k3" : "k3";
                        expect_same(what, dt, op, n, pd, want, pa, pb);
                        memset(pd, 0xa5, n * esz);
                        k->kgen(pd, pa, pb, n);
                        expect_same(isa ? "avx2 kgen" : "kgen", dt, op, n, pd, want, pa, pb);
                        memcpy(a0, pa, n * esz);
                        k->kacc(pa, pa, pb, n);
                        expect_same(isa ? "avx2 kacc" : "kacc", dt, op, n, pa, want, a0, pb);
                        /* public entry points, including dst == b */
                        memcpy(pa, a0, n * esz);
                        CHECK_EQ(coll_reduce_local(pa, pb, n, dt, op), COLL_OK);
                        expect_same("reduce_local", dt, op, n, pa, want, a0, pb);
                        memcpy(pa, a0, n * esz);
                        memcpy(pd, pb, n * esz);
                        CHECK_EQ(coll_reduce3(pd, pa, pd, n, dt, op), COLL_OK);
                        expect_same("reduce3(dst=b)", dt, op, n, pd, want, pa, pb);
                        memset(pd, 0, n * esz);
                        CHECK_EQ(coll_reduce3(pd, pa, pb, n, dt, op), COLL_OK);
                        expect_same("reduce3", dt, op, n, pd, want, pa, pb);
                    }
        }
    }
    CHECK_EQ(pairs, 6 * 7 + 4 * 4);
    free(a);
    free(b);
    free(d);
    free(want);
    free(a0);
}

static int same_double(double x, double y) {
    return (isnan(x) && isnan(y)) || (x == y && signbit(x) == signbit(y));
}

static float bits_f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

static void check_f2h(float f) {
    uint16_t got = coll_f32_to_f16(f), want = ref_d2h(f);
    if (got == want || (isnan(f) && (got & 0x7fff) > 0x7c00)) return;
    if (failures++ < 20)
        fprintf(stderr, "f32->f16 %a: got %#x want %#x\n", (double)f, got, want);
}

static void check_f2bf(float f) {
    uint16_t got = coll_f32_to_bf16(f), want = ref_d2bf(f);
    if (got == want || (isnan(f) && (got & 0x7fff) > 0x7f80)) return;
    if (failures++ < 20)
        fprintf(stderr, "f32->bf16 %a: got %#x want %#x\n", (double)f, got, want);
}

static void test_conversions(void) {
    for (uint32_t h = 0; h < 65536; h++) {
        /* decode: exhaustive */
        if (!same_double(coll_f16_to_f32((uint16_t)h), ref_h2d((uint16_t)h)) && failures++ < 20)
            fprintf(stderr, "f16->f32 %#x\n", h);
        if (!same_double(coll_bf16_to_f32((uint16_t)h), ref_bf2d((uint16_t)h)) && failures++ < 20)
            fprintf(stderr, "bf16->f32 %#x\n", h);
        /* encode: every representable value, its neighbours and the
         * midpoints to the next value (ties to even) */
        float v = coll_f16_to_f32((uint16_t)h);
        float w = coll_bf16_to_f32((uint16_t)h);
        if (!isnan(v)) {
            CHECK_EQ(coll_f32_to_f16(v), h);
            check_f2h(nextafterf(v, INFINITY));
            check_f2h(nextafterf(v, -INFINITY));
            if ((h & 0x7fff) < 0x7c00) {
                float nx = coll_f16_to_f32((uint16_t)(h + 1));
                if (!isnan(nx) && !isinf(nx)) {
                    float mid = (float)(((double)v + (double)nx) / 2);
                    check_f2h(mid);
                    check_f2h(nextafterf(mid, INFINITY));
                    check_f2h(nextafterf(mid, -INFINITY));
                }
            }
        }
        if (!isnan(w)) {
            CHECK_EQ(coll_f32_to_bf16(w), h);
            check_f2bf(nextafterf(w, INFINITY));
            check_f2bf(nextafterf(w, -INFINITY));
            uint32_t u;
            memcpy(&u, &w, 4);
            check_f2bf(bits_f(u | 0x8000u));           /* exact midpoint */
            check_f2bf(bits_f(u | 0x8001u));
            check_f2bf(bits_f(u | 0x7fffu));
        }
    }
    /* overflow boundary of f16: 65520 rounds to Inf, just below to 65504 */
    CHECK_EQ(coll_f32_to_f16(65520.0f), 0x7c00);
    CHECK_EQ(coll_f32_to_f16(nextafterf(65520.0f, 0)), 0x7bff);
    CHECK_EQ(coll_f32_to_f16(-INFINITY), 0xfc00);
    CHECK((coll_f32_to_f16(NAN) & 0x7fff) > 0x7c00);
    CHECK((coll_f32_to_bf16(NAN) & 0x7fff) > 0x7f80);
    CHECK_EQ(coll_f32_to_bf16(bits_f(0x7f7fffffu)), 0x7f80); /* FLT_MAX rounds up */
    for (int i = 0; i < (1 << 22); i++) {
        float f = bits_f((uint32_t)next_rand());
        check_f2h(f);
        check_f2bf(f);
#if defined(__FLT16_MANT_DIG__) && !defined(__clang__)
        /* GCC's _Float16: an independent rounding implementation */
        _Float16 hf = (_Float16)f;
        uint16_t hb;
        memcpy(&hb, &hf, 2);
        if (!isnan(f) && hb != coll_f32_to_f16(f) && failures++ < 20)
            fprintf(stderr, "_Float16 %a: %#x vs %#x\n", (double)f, hb, coll_f32_to_f16(f));
#endif
    }
}

static void test_names(void) {
    for (int s = 0; s < COLL_STATUS_COUNT; s++)
        CHECK(strcmp(coll_strerror(s), "unknown status") != 0);
    CHECK(strcmp(coll_strerror(-1), "unknown status") == 0);
    CHECK(strcmp(coll_strerror(COLL_STATUS_COUNT), "unknown status") == 0);
    for (int t = 0; t < N_DTYPES; t++) {
        coll_dtype dt;
        CHECK_EQ(coll_dtype_from_name(coll_dtype_name(all_dtypes[t]), &dt), 0);
        CHECK_EQ(dt, all_dtypes[t]);
    }
    coll_dtype dt;
    coll_op op;
    CHECK_EQ(coll_dtype_from_name("bfloat16", &dt), 0);
    CHECK_EQ(dt, COLL_BF16);
    CHECK_EQ(coll_dtype_from_name("f128", &dt), -1);
    CHECK_EQ(coll_op_from_name("max", &op), 0);
    CHECK_EQ(op, COLL_MAX);
    CHECK_EQ(coll_op_from_name("avg", &op), -1);
    CHECK_EQ(coll_dtype_size(COLL_BF16), 2);
    CHECK_EQ(coll_dtype_size(COLL_U64), 8);
    CHECK_EQ(coll_dtype_size((coll_dtype)99), 0);
    CHECK_EQ(coll_op_supported((coll_dtype)99, COLL_SUM), COLL_ERR_BAD_DTYPE);
    CHECK_EQ(coll_op_supported(COLL_F32, (coll_op)-1), COLL_ERR_BAD_OP);
    CHECK_EQ(coll_op_supported(COLL_F32, COLL_BXOR), COLL_ERR_OP_DTYPE);
    CHECK_EQ(coll_reduce_local(NULL, NULL, 0, COLL_F32, COLL_SUM), COLL_OK);
    CHECK_EQ(coll_reduce_local(NULL, NULL, 1, COLL_F32, COLL_SUM), COLL_ERR_NULL_BUFFER);
    CHECK_EQ(coll_reduce_local(NULL, NULL, 1, COLL_F16, COLL_BAND), COLL_ERR_OP_DTYPE);
}

int main(void) {
    test_names();
    test_conversions();
    for (int isa = 0; isa < COLLRT_ISA_COUNT; isa++) {
        if (!collrt_isa_available(isa)) {
            printf("kernels: %s not available on this CPU/build, skipped\n", collrt_isa_name(isa));
            continue;
        }
        test_kernels(isa);
        printf("kernels: %s checked\n", collrt_isa_name(isa));
    }
    if (failures) {
        fprintf(stderr, "%ld failures\n", failures);
        return 1;
    }
    printf("kernels: ok\n");
    return 0;
}
