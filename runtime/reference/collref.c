/* collref.c - the naive reference of collref.h: element by element, straight
 * from the postconditions of docs/language.md sec. 3, sharing no code with the
 * runtime's kernels (the buffer shapes are the collective table's). */
#include "collref.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct Shape { int in_n, in_root_only, out_n, out_root_only, reducing, rooted; } Shape;

/* The table's tokens: N blocks or ONE, held by the ROOT only or ALL. */
enum { SHAPE_N = 1, SHAPE_ONE = 0, SHAPE_ROOT = 1, SHAPE_ALL = 0 };

static Shape shape_of(coll_collective c) {
    static const Shape shapes[COLL_COLLECTIVE_COUNT] = {
#define X(id, kw, abi, rooted, ib, iw, ob, ow, red, inplace, mpi, params) \
    [COLL_##id] = {SHAPE_##ib, SHAPE_##iw, SHAPE_##ob, SHAPE_##ow, red, rooted},
#include <coll_collectives.def>
#undef X
    };
    if ((unsigned)c >= COLL_COLLECTIVE_COUNT) abort();
    return shapes[c];
}

int collref_in_blocks(coll_collective c, int N, int root, int r) {
    Shape s = shape_of(c);
    if (s.in_root_only && r != root) return 0;
    return s.in_n ? N : 1;
}

int collref_out_blocks(coll_collective c, int N, int root, int r) {
    Shape s = shape_of(c);
    if (s.out_root_only && r != root) return 0;
    return s.out_n ? N : 1;
}

int collref_reducing(coll_collective c) { return shape_of(c).reducing; }

double collref_bus_factor(coll_collective c, int N) {
    Shape s = shape_of(c);
    if (s.in_n || s.out_n) return (double)(N - 1) / N;
    return s.rooted ? 1.0 : 2.0 * (N - 1) / N; /* broadcast, reduce / allreduce */
}
int collref_rooted(coll_collective c) { return shape_of(c).rooted; }

static int is_float(coll_dtype dt) {
    return dt == COLL_F16 || dt == COLL_BF16 || dt == COLL_F32 || dt == COLL_F64;
}

double collref_value(coll_dtype dt, coll_op op, int r, size_t i) {
    uint64_t h = (uint64_t)r * 0x9E3779B97F4A7C15ull ^ (uint64_t)i * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    if (op == COLL_PROD) {
        static const double f[4] = {1.0, -1.0, 2.0, 0.5};
        int sel = (int)(((size_t)r + i) % 4);
        if (is_float(dt)) return sel < 2 ? f[h & 1] : f[sel];
        return (double)(1 + (h % 3));
    }
    switch (dt) {
    case COLL_U8: case COLL_U32: case COLL_U64: return (double)(h % 200);
    case COLL_I8: case COLL_I32: case COLL_I64: return (double)((int)(h % 200) - 100);
    default: return (double)((int)(h % 17) - 8);
    }
}

void collref_store(coll_dtype dt, void *p, double v) {
    switch (dt) {
    case COLL_I8: *(int8_t *)p = (int8_t)v; break;
    case COLL_U8: *(uint8_t *)p = (uint8_t)v; break;
    case COLL_I32: *(int32_t *)p = (int32_t)v; break;
    case COLL_U32: *(uint32_t *)p = (uint32_t)v; break;
    case COLL_I64: *(int64_t *)p = (int64_t)v; break;
    case COLL_U64: *(uint64_t *)p = (uint64_t)v; break;
    case COLL_F16: *(uint16_t *)p = coll_f32_to_f16((float)v); break;
    case COLL_BF16: *(uint16_t *)p = coll_f32_to_bf16((float)v); break;
    case COLL_F32: *(float *)p = (float)v; break;
    case COLL_F64: *(double *)p = v; break;
    default: abort();
    }
}

void collref_fill(coll_collective c, coll_dtype dt, coll_op op, int N, int root, int r,
                  size_t count, void *in) {
    size_t n = (size_t)collref_in_blocks(c, N, root, r) * count, esz = coll_dtype_size(dt);
    for (size_t i = 0; i < n; i++) collref_store(dt, (char *)in + i * esz, collref_value(dt, op, r, i));
}

/* Reduction of N element values in rank order. Integers wrap exactly like the
 * fixed-width types; floats are exact for the data above. */
static void reduce_values(coll_dtype dt, coll_op op, const double *vals, int n, void *dst) {
    if (is_float(dt)) {
        double acc = vals[0];
        for (int j = 1; j < n; j++) {
            switch (op) {
            case COLL_SUM: acc += vals[j]; break;
            case COLL_PROD: acc *= vals[j]; break;
            case COLL_MAX: acc = vals[j] > acc ? vals[j] : acc; break;
            case COLL_MIN: acc = vals[j] < acc ? vals[j] : acc; break;
            default: abort();
            }
        }
        collref_store(dt, dst, acc);
        return;
    }
    int is_signed = dt == COLL_I8 || dt == COLL_I32 || dt == COLL_I64;
    int bits = dt == COLL_I8 || dt == COLL_U8 ? 8 : dt == COLL_I32 || dt == COLL_U32 ? 32 : 64;
    uint64_t mask = bits == 64 ? ~0ull : ((1ull << bits) - 1);
    uint64_t acc = (uint64_t)(int64_t)vals[0] & mask;
    for (int j = 1; j < n; j++) {
        uint64_t x = (uint64_t)(int64_t)vals[j] & mask;
        int64_t sa = (int64_t)(acc << (64 - bits)) >> (64 - bits);
        int64_t sx = (int64_t)(x << (64 - bits)) >> (64 - bits);
        switch (op) {
        case COLL_SUM: acc = (acc + x) & mask; break;
        case COLL_PROD: acc = (acc * x) & mask; break;
        case COLL_MAX: acc = is_signed ? (sx > sa ? x : acc) : (x > acc ? x : acc); break;
        case COLL_MIN: acc = is_signed ? (sx < sa ? x : acc) : (x < acc ? x : acc); break;
        case COLL_BAND: acc &= x; break;
        case COLL_BOR: acc |= x; break;
        case COLL_BXOR: acc ^= x; break;
        default: abort();
        }
    }
    switch (bits) {
    case 8: *(uint8_t *)dst = (uint8_t)acc; break;
    case 32: *(uint32_t *)dst = (uint32_t)acc; break;
    default: *(uint64_t *)dst = acc; break;
    }
}

void collref_expected(coll_collective c, coll_dtype dt, coll_op op, int N, int root,
                      size_t count, int r, size_t e, void *out) {
    size_t b = count ? e / count : 0, i = count ? e % count : 0;
    if (shape_of(c).reducing) {
        size_t src = (c == COLL_REDUCE_SCATTER ? (size_t)r * count : 0) + i;
        double stackv[64] = {0}, *vals = N <= 64 ? stackv : malloc(sizeof(double) * (size_t)N);
        for (int j = 0; j < N; j++) vals[j] = collref_value(dt, op, j, src);
        reduce_values(dt, op, vals, N, out);
        if (vals != stackv) free(vals);
        return;
    }
    int src_rank;
    size_t src_idx;
    switch (c) {
    case COLL_BROADCAST: src_rank = root; src_idx = i; break;
    case COLL_SCATTER: src_rank = root; src_idx = (size_t)r * count + i; break;
    case COLL_GATHER: case COLL_ALLGATHER: src_rank = (int)b; src_idx = i; break;
    case COLL_ALLTOALL: src_rank = (int)b; src_idx = (size_t)r * count + i; break;
    default: abort();
    }
    collref_store(dt, out, collref_value(dt, op, src_rank, src_idx));
}

size_t collref_check(coll_collective c, coll_dtype dt, coll_op op, int N, int root,
                     size_t count, int r, const void *out) {
    size_t n = (size_t)collref_out_blocks(c, N, root, r) * count, esz = coll_dtype_size(dt);
    unsigned char want[16];
    for (size_t e = 0; e < n; e++) {
        collref_expected(c, dt, op, N, root, count, r, e, want);
        if (memcmp((const char *)out + e * esz, want, esz) != 0) return e;
    }
    return (size_t)-1;
}

/* Rank r's output takes block r of an N-block input (ReduceScatter, Scatter,
 * AllToAll); every other collective's output is the same on every rank that
 * has one. */
int collref_output_shared(coll_collective c) { return !shape_of(c).in_n; }

void collref_expect(coll_collective c, coll_dtype dt, coll_op op, int N, int root, size_t count,
                    int r, void *out) {
    size_t n = (size_t)collref_out_blocks(c, N, root, r) * count, esz = coll_dtype_size(dt);
    for (size_t e = 0; e < n; e++) collref_expected(c, dt, op, N, root, count, r, e, (char *)out + e * esz);
}

size_t collref_compare(coll_dtype dt, const void *want, const void *out, size_t n) {
    size_t esz = coll_dtype_size(dt);
    if (n == 0 || memcmp(want, out, n * esz) == 0) return (size_t)-1;
    for (size_t e = 0; e < n; e++)
        if (memcmp((const char *)out + e * esz, (const char *)want + e * esz, esz) != 0) return e;
    return (size_t)-1;
}
