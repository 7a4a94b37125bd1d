/* test_fp.c - element conversions and reductions of the engine model. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "sg2260.h"

static uint32_t fb(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static float bf(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Reference float -> half rounding through double arithmetic (independent
 * of the bit-twiddling implementation). */
static uint16_t ref_fp16(float f) {
    if (isnan(f)) return 0x7e00;
    double a = fabs((double)f);
    uint16_t sign = signbit(f) ? 0x8000 : 0;
    if (a >= 65520.0) return sign | 0x7c00;
    /* quantum: 2^-24 below 2^-14, else 2^(e-10) */
    int e;
    frexp(a, &e); /* a = m * 2^e, m in [0.5,1) */
    double q = a < 0x1p-14 ? 0x1p-24 : ldexp(1.0, e - 11);
    double k = a / q, r = nearbyint(k); /* default rounding: nearest even */
    double v = r * q;
    /* encode v */
    if (v == 0) return sign;
    if (v < 0x1p-14) return sign | (uint16_t)(v / 0x1p-24);
    int ee;
    double mm = frexp(v, &ee); /* v = mm*2^ee, mm in [0.5,1) */
    int exp = ee - 1 + 15;
    uint16_t mant = (uint16_t)((mm * 2 - 1) * 1024);
    return sign | (uint16_t)(exp << 10) | mant;
}

int main(void) {
    /* fp16 */
    CHECK(sg2260_float_to_fp16(1.0f) == 0x3c00);
    CHECK(sg2260_float_to_fp16(-2.0f) == 0xc000);
    CHECK(sg2260_float_to_fp16(65504.0f) == 0x7bff);
    CHECK(sg2260_float_to_fp16(65519.0f) == 0x7bff);
    CHECK(sg2260_float_to_fp16(65520.0f) == 0x7c00);
    CHECK(sg2260_float_to_fp16(0x1p-24f) == 0x0001);
    CHECK(sg2260_float_to_fp16(0x1p-25f) == 0x0000);       /* tie to even */
    CHECK(sg2260_float_to_fp16(0x1.8p-24f) == 0x0002);     /* 1.5 quanta: tie to even 2 */
    CHECK(sg2260_float_to_fp16(1.0f + 0x1p-11f) == 0x3c00); /* tie to even */
    CHECK(sg2260_float_to_fp16(1.0f + 0x1.8p-11f) == 0x3c01);
    CHECK(sg2260_float_to_fp16(1.0f + 0x1.8p-10f) == 0x3c02); /* 1.5 quanta: tie to even */
    CHECK(sg2260_float_to_fp16(INFINITY) == 0x7c00);
    CHECK((sg2260_float_to_fp16(NAN) & 0x7c00) == 0x7c00 && (sg2260_float_to_fp16(NAN) & 0x3ff));
    for (uint32_t h = 0; h < 0x10000; h++) {
        if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) continue; /* NaN */
        CHECK_MSG(sg2260_float_to_fp16(sg2260_fp16_to_float((uint16_t)h)) == h, "half 0x%04x", h);
    }
    for (int i = 0; i < 200000; i++) {
        /* floats around the half range */
        uint32_t u = (uint32_t)rnd();
        u = (u & 0x807fffff) | ((uint32_t)(100 + (u >> 23) % 60) << 23);
        float f = bf(u);
        CHECK_MSG(sg2260_float_to_fp16(f) == ref_fp16(f), "float %a: got 0x%04x want 0x%04x", (double)f,
                  sg2260_float_to_fp16(f), ref_fp16(f));
    }
    /* bf16 */
    CHECK(sg2260_float_to_bf16(1.0f) == 0x3f80);
    CHECK(sg2260_float_to_bf16(bf(0x3f808000)) == 0x3f80); /* tie to even (down) */
    CHECK(sg2260_float_to_bf16(bf(0x3f818000)) == 0x3f82); /* tie to even (up) */
    CHECK(sg2260_float_to_bf16(bf(0x3f808001)) == 0x3f81);
    CHECK(sg2260_float_to_bf16(bf(0x7f7fffff)) == 0x7f80);  /* overflow to inf */
    CHECK((sg2260_float_to_bf16(NAN) & 0x7f) != 0);
    CHECK(sg2260_bf16_to_float(0xc040) == -3.0f);
    /* fp20: top 20 bits of a single */
    CHECK(sg2260_float_to_fp20(1.0f) == 0x3f800000);
    CHECK(sg2260_float_to_fp20(bf(0x3f800800)) == 0x3f800000); /* tie to even */
    CHECK(sg2260_float_to_fp20(bf(0x3f801800)) == 0x3f802000);
    CHECK(sg2260_float_to_fp20(bf(0x3f800801)) == 0x3f801000);
    CHECK(sg2260_fp20_to_float(0x40400fff) == 3.0f); /* low container bits ignored */
    /* dtype x op rules */
    for (int t = 0; t <= SG2260_FP20; t++)
        for (int o = 0; o <= SG2260_OP_ADD; o++) {
            int isf = t == SG2260_FP16 || t == SG2260_FP32 || t == SG2260_BF16 || t == SG2260_FP20;
            int want = o == SG2260_OP_NONE || (o == SG2260_OP_MUL ? isf : (isf || t == SG2260_INT32));
            CHECK_MSG(sg2260_dtype_op_ok((Sg2260Dtype)t, (Sg2260Op)o) == want, "t=%d o=%d", t, o);
        }
    /* reductions */
    float a = 1.0f, b = 0x1p-24f;
    CHECK(sg2260_reduce_elem(SG2260_FP32, SG2260_OP_ADD, &a, &b) == 0 && a == 1.0f); /* IEEE single */
    a = 3.0f, b = -7.5f;
    sg2260_reduce_elem(SG2260_FP32, SG2260_OP_MAX, &a, &b);
    CHECK(a == 3.0f);
    sg2260_reduce_elem(SG2260_FP32, SG2260_OP_MIN, &a, &b);
    CHECK(a == -7.5f);
    sg2260_reduce_elem(SG2260_FP32, SG2260_OP_MUL, &a, &b);
    CHECK(a == 56.25f);
    a = NAN, b = 1.0f;
    sg2260_reduce_elem(SG2260_FP32, SG2260_OP_MAX, &a, &b);
    CHECK(isnan(a));
    int32_t ia = INT32_MAX, ib = 1;
    CHECK(sg2260_reduce_elem(SG2260_INT32, SG2260_OP_ADD, &ia, &ib) == 0 && ia == INT32_MIN); /* wraps */
    int8_t ca = 1, cb = 2;
    CHECK(sg2260_reduce_elem(SG2260_INT8, SG2260_OP_ADD, &ca, &cb) == -1);
    CHECK(sg2260_reduce_elem(SG2260_INT32, SG2260_OP_MUL, &ia, &ib) == -1);
    uint16_t ha = sg2260_float_to_fp16(1.0f), hb = sg2260_float_to_fp16(0x1p-11f);
    sg2260_reduce_elem(SG2260_FP16, SG2260_OP_ADD, &ha, &hb);
    CHECK(ha == 0x3c00); /* 1 + 2^-11 ties to even in fp16 */
    uint16_t ba = sg2260_float_to_bf16(1.0f), bb = sg2260_float_to_bf16(0x1p-8f);
    sg2260_reduce_elem(SG2260_BF16, SG2260_OP_ADD, &ba, &bb);
    CHECK(ba == 0x3f80); /* 1 + 2^-8 ties to even in bf16 */
    uint32_t fa = sg2260_float_to_fp20(1.5f), fbv = sg2260_float_to_fp20(2.25f);
    sg2260_reduce_elem(SG2260_FP20, SG2260_OP_ADD, &fa, &fbv);
    CHECK(sg2260_fp20_to_float(fa) == 3.75f);
    (void)fb;
    TEST_DONE();
}
