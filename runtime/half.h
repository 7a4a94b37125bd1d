/* half.h - binary16 and bfloat16 <-> binary32 conversions, branch-free so
 * that kernel loops over them vectorise. Round to nearest, ties to even.
 * f16 follows F. Giesen's "half_to_float" / "float_to_half_fast3_rtne",
 * written with selects instead of branches. Private to the runtime. */
#ifndef COLLRT_HALF_H
#define COLLRT_HALF_H

#include <stdint.h>
#include <string.h>

static inline uint32_t collrt_f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float collrt_u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

static inline float collrt_h2f(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t o = (uint32_t)(h & 0x7fffu) << 13;
    uint32_t exp = o & (0x7c00u << 13);
    uint32_t normal = o + ((127u - 15u) << 23);
    uint32_t infnan = o + ((255u - 31u) << 23);
    /* subnormal: (1.m * 2^-14) - 2^-14, exact in binary32 */
    uint32_t sub = collrt_f2u(collrt_u2f(o + (113u << 23)) - collrt_u2f(113u << 23));
    uint32_t r = exp == (0x7c00u << 13) ? infnan : (exp == 0 ? sub : normal);
    return collrt_u2f(r | sign);
}

static inline uint16_t collrt_f2h(float fv) {
    uint32_t f = collrt_f2u(fv);
    uint32_t sign = f & 0x80000000u;
    f ^= sign;
    const uint32_t f32inf = 255u << 23;
    const uint32_t f16max = (127u + 16u) << 23;            /* 2^16 */
    const uint32_t magic = ((127u - 15u) + (23u - 10u) + 1u) << 23;
    uint32_t big = f > f32inf ? 0x7e00u : 0x7c00u;         /* NaN : Inf */
    /* subnormal result: let the FPU round (default mode: nearest even) */
    uint32_t sub = collrt_f2u(collrt_u2f(f) + collrt_u2f(magic)) - magic;
    uint32_t odd = (f >> 13) & 1u;
    uint32_t norm = (f + ((uint32_t)(15 - 127) << 23) + 0xfffu + odd) >> 13;
    uint32_t o = f >= f16max ? big : (f < (113u << 23) ? sub : norm);
    return (uint16_t)(o | (sign >> 16));
}

static inline float collrt_bf2f(uint16_t h) { return collrt_u2f((uint32_t)h << 16); }

static inline uint16_t collrt_f2bf(float fv) {
    uint32_t u = collrt_f2u(fv);
    uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    uint32_t nan = (u >> 16) | 0x40u;                      /* quiet it */
    return (uint16_t)((u & 0x7fffffffu) > 0x7f800000u ? nan : rounded);
}

#endif
