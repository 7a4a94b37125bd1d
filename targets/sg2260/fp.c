/* fp.c - element formats (sizes, names, conversions), the operators and
 * the reduction the engine applies.
 * FP16/BF16/FP20 reductions go through float and round back to nearest even,
 * which is the model's definition of the hardware's SUM unit. */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

static uint32_t fbits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float bitsf(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

float sg2260_fp16_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ff;
    if (e == 0) {
        /* zero or subnormal: m * 2^-24 is exact in float */
        float v = (float)m * 0x1p-24f;
        return sign ? -v : v;
    }
    if (e == 31) return bitsf(sign | 0x7f800000 | (m << 13));
    return bitsf(sign | ((e - 15 + 127) << 23) | (m << 13));
}

uint16_t sg2260_float_to_fp16(float f) {
    uint32_t x = fbits(f);
    uint32_t sign = (x >> 16) & 0x8000;
    uint32_t ax = x & 0x7fffffff;
    if (ax > 0x7f800000) return (uint16_t)(sign | 0x7e00 | ((ax >> 13) & 0x3ff));
    if (ax >= 0x477ff000) return (uint16_t)(sign | 0x7c00); /* >= 65520 -> inf */
    if (ax < 0x38800000) {                                  /* below 2^-14 */
        if (ax <= 0x33000000) return (uint16_t)sign;        /* <= 2^-25 -> 0 */
        int e = (int)(ax >> 23);
        uint32_t m = (ax & 0x7fffff) | 0x800000;
        int shift = 126 - e;
        uint32_t r = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (r & 1))) r++;
        return (uint16_t)(sign | r);
    }
    uint32_t e = (ax >> 23) - 127 + 15, m = ax & 0x7fffff;
    uint32_t r = (e << 10) | (m >> 13), rem = m & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (r & 1))) r++;
    return (uint16_t)(sign | r);
}

float sg2260_bf16_to_float(uint16_t h) { return bitsf((uint32_t)h << 16); }

uint16_t sg2260_float_to_bf16(float f) {
    uint32_t x = fbits(f);
    if ((x & 0x7fffffff) > 0x7f800000) return (uint16_t)((x >> 16) | 0x40);
    x += 0x7fff + ((x >> 16) & 1);
    return (uint16_t)(x >> 16);
}

/* FP20 (collc model): the top 20 bits of an IEEE single (1-8-11), stored in
 * a 4-byte little-endian container whose low 12 bits are zero. */
float sg2260_fp20_to_float(uint32_t v) { return bitsf(v & 0xfffff000u); }

uint32_t sg2260_float_to_fp20(float f) {
    uint32_t x = fbits(f);
    if ((x & 0x7fffffff) > 0x7f800000) return (x | 0x400000) & 0xfffff000u;
    x += 0x7ff + ((x >> 12) & 1);
    return x & 0xfffff000u;
}

size_t sg2260_dtype_size(Sg2260Dtype t) {
    switch (t) {
    case SG2260_INT8: return 1;
    case SG2260_FP16:
    case SG2260_INT16:
    case SG2260_BF16: return 2;
    case SG2260_FP32:
    case SG2260_INT32:
    case SG2260_FP20: return 4;
    }
    return 0;
}

static const char *const dtype_names[] = {"int8", "fp16", "fp32", "int16", "int32", "bf16", "fp20"};
static const char *const op_names[] = {"none", "mul", "max", "min", "add"};

const char *sg2260_dtype_name(Sg2260Dtype t) {
    return (unsigned)t < sizeof dtype_names / sizeof *dtype_names ? dtype_names[t] : "?";
}
const char *sg2260_op_name(Sg2260Op o) {
    return (unsigned)o < sizeof op_names / sizeof *op_names ? op_names[o] : "?";
}
int sg2260_dtype_find(const char *name) {
    for (int t = 0; t < (int)(sizeof dtype_names / sizeof *dtype_names); t++)
        if (!strcasecmp(name, dtype_names[t])) return t;
    return -1;
}
int sg2260_op_find(const char *name) {
    for (int o = 0; o < (int)(sizeof op_names / sizeof *op_names); o++)
        if (!strcasecmp(name, op_names[o])) return o;
    return -1;
}

int sg2260_dtype_op_ok(Sg2260Dtype t, Sg2260Op op) {
    int is_float = t == SG2260_FP16 || t == SG2260_FP32 || t == SG2260_BF16 || t == SG2260_FP20;
    switch (op) {
    case SG2260_OP_NONE: return (unsigned)t <= SG2260_FP20;
    case SG2260_OP_MUL: return is_float;
    case SG2260_OP_MAX:
    case SG2260_OP_MIN:
    case SG2260_OP_ADD: return is_float || t == SG2260_INT32;
    }
    return 0;
}

/* a (op) b in float; NaNs propagate; on equality MAX/MIN keep b (incoming). */
static float fop(Sg2260Op op, float a, float b) {
    switch (op) {
    case SG2260_OP_ADD: return a + b;
    case SG2260_OP_MUL: return a * b;
    case SG2260_OP_MAX:
        if (isnan(a)) return a;
        if (isnan(b)) return b;
        return a > b ? a : b;
    case SG2260_OP_MIN:
        if (isnan(a)) return a;
        if (isnan(b)) return b;
        return a < b ? a : b;
    default: return b;
    }
}

int sg2260_reduce_elem(Sg2260Dtype t, Sg2260Op op, void *dst, const void *src) {
    if (!sg2260_dtype_op_ok(t, op)) return -1;
    if (op == SG2260_OP_NONE) {
        memcpy(dst, src, sg2260_dtype_size(t));
        return 0;
    }
    switch (t) {
    case SG2260_FP32: {
        float a, b;
        memcpy(&a, dst, 4);
        memcpy(&b, src, 4);
        volatile float r = fop(op, a, b); /* force IEEE single rounding */
        float rr = r;
        memcpy(dst, &rr, 4);
        return 0;
    }
    case SG2260_FP16:
    case SG2260_BF16: {
        uint16_t a, b;
        memcpy(&a, dst, 2);
        memcpy(&b, src, 2);
        uint16_t r;
        if (t == SG2260_FP16)
            r = sg2260_float_to_fp16(fop(op, sg2260_fp16_to_float(a), sg2260_fp16_to_float(b)));
        else
            r = sg2260_float_to_bf16(fop(op, sg2260_bf16_to_float(a), sg2260_bf16_to_float(b)));
        memcpy(dst, &r, 2);
        return 0;
    }
    case SG2260_FP20: {
        uint32_t a, b;
        memcpy(&a, dst, 4);
        memcpy(&b, src, 4);
        uint32_t r = sg2260_float_to_fp20(fop(op, sg2260_fp20_to_float(a), sg2260_fp20_to_float(b)));
        memcpy(dst, &r, 4);
        return 0;
    }
    case SG2260_INT32: {
        int32_t a, b, r;
        memcpy(&a, dst, 4);
        memcpy(&b, src, 4);
        if (op == SG2260_OP_ADD) r = (int32_t)((uint32_t)a + (uint32_t)b); /* wraps */
        else if (op == SG2260_OP_MAX) r = a > b ? a : b;
        else r = a < b ? a : b;
        memcpy(dst, &r, 4);
        return 0;
    }
    default: return -1;
    }
}

/* Row version for the engine: the dtype/op switch outside the loop. Same
 * results as sg2260_reduce_elem element by element. */
void sg_reduce_row(Sg2260Dtype t, Sg2260Op op, uint8_t *dst, const uint8_t *src, size_t count) {
    if (t == SG2260_FP32 && (op == SG2260_OP_ADD || op == SG2260_OP_MUL)) {
        for (size_t i = 0; i < count; i++) {
            float a, b;
            memcpy(&a, dst + 4 * i, 4);
            memcpy(&b, src + 4 * i, 4);
            a = op == SG2260_OP_ADD ? a + b : a * b; /* SSE: IEEE single */
            memcpy(dst + 4 * i, &a, 4);
        }
        return;
    }
    if (t == SG2260_INT32 && op == SG2260_OP_ADD) {
        for (size_t i = 0; i < count; i++) {
            uint32_t a, b;
            memcpy(&a, dst + 4 * i, 4);
            memcpy(&b, src + 4 * i, 4);
            a += b;
            memcpy(dst + 4 * i, &a, 4);
        }
        return;
    }
    size_t es = sg2260_dtype_size(t);
    for (size_t i = 0; i < count; i++) sg2260_reduce_elem(t, op, dst + i * es, src + i * es);
}
