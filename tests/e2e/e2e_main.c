/* e2e_main.c - end-to-end check of one compiled algorithm on the cpu target.
 *
 * Built once per example from the C that `collc compile` emits, with
 *   -DE2E_ALG=<function> -DE2E_COLL=<COLL_* enum> -DE2E_ROOTED=<0|1>
 * It runs the algorithm on N threads over a matrix of N, roots, dtypes, ops,
 * counts (0, 1, N-1, N, 1000003, 3 MiB) and in-place / not, and compares
 * every rank's output bit for bit with a naive reference written here.
 *
 * Floating-point data are small integers (sums) or +-1, 2, 1/2 patterns
 * (products) so that every reduction order gives the same bits: the check is
 * exact without depending on the order the algorithm reduces in. Guard bytes
 * around every buffer catch writes out of bounds.
 *
 * Output: one line per failing case, then "N passed, N failed"; exit 1 on
 * any failure. `--quick` trims the matrix (used under sanitizers). */
#include <coll.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if E2E_ROOTED
int E2E_ALG(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op, int);
#else
int E2E_ALG(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op);
#endif

#define STR2(x) #x
#define STR(x) STR2(x)

enum { GUARD = 64 };
static const unsigned char GUARD_BYTE = 0xA5;

typedef struct Layout { int in_n, in_root_only, out_n, out_root_only, reducing; } Layout;

static Layout layout_of(coll_collective c) {
    switch (c) {
    case COLL_BROADCAST: return (Layout){0, 1, 0, 0, 0};
    case COLL_SCATTER: return (Layout){1, 1, 0, 0, 0};
    case COLL_GATHER: return (Layout){0, 0, 1, 1, 0};
    case COLL_REDUCE: return (Layout){0, 0, 0, 1, 1};
    case COLL_ALLGATHER: return (Layout){0, 0, 1, 0, 0};
    case COLL_REDUCE_SCATTER: return (Layout){1, 0, 0, 0, 1};
    case COLL_ALLREDUCE: return (Layout){0, 0, 0, 0, 1};
    case COLL_ALLTOALL: return (Layout){1, 0, 1, 0, 0};
    default: abort();
    }
}

typedef struct Case {
    int N, root, inplace;
    size_t count;
    coll_dtype dt;
    coll_op op;
} Case;

typedef struct Run {
    Case k;
    Layout L;
    size_t esz;
    unsigned char **in, **out;   /* per rank, including guards */
    size_t *in_bytes, *out_bytes;
    int *rc;
} Run;

/* ---- data ---- */

static double value_of(const Case *k, int r, size_t i) {
    uint64_t h = (uint64_t)r * 0x9E3779B97F4A7C15ull ^ (uint64_t)i * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    if (k->op == COLL_PROD) {
        static const double f[4] = {1.0, -1.0, 2.0, 0.5};
        int sel = (int)((r + i) % 4);
        if (k->dt == COLL_F16 || k->dt == COLL_BF16 || k->dt == COLL_F32 || k->dt == COLL_F64)
            return sel < 2 ? f[h & 1] : f[sel];
        return (double)(1 + (h % 3));
    }
    switch (k->dt) {
    case COLL_U8: case COLL_U32: case COLL_U64: return (double)(h % 200);
    case COLL_I8: case COLL_I32: case COLL_I64: return (double)((int)(h % 200) - 100);
    default: return (double)((int)(h % 17) - 8);
    }
}

static void store(coll_dtype dt, void *p, double v) {
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

/* Naive reference reduction of element values (rank order 0..N-1). Integers
 * wrap exactly like the fixed-width types (computed in uint64 and truncated
 * by store); floats are exact for the data above. */
static void ref_reduce(const Case *k, void *dst, const double *vals, int n) {
    coll_dtype dt = k->dt;
    int is_float = dt == COLL_F16 || dt == COLL_BF16 || dt == COLL_F32 || dt == COLL_F64;
    if (is_float) {
        double acc = vals[0];
        for (int j = 1; j < n; j++) {
            switch (k->op) {
            case COLL_SUM: acc += vals[j]; break;
            case COLL_PROD: acc *= vals[j]; break;
            case COLL_MAX: acc = vals[j] > acc ? vals[j] : acc; break;
            case COLL_MIN: acc = vals[j] < acc ? vals[j] : acc; break;
            default: abort();
            }
        }
        store(dt, dst, acc);
        return;
    }
    int is_signed = dt == COLL_I8 || dt == COLL_I32 || dt == COLL_I64;
    int bits = dt == COLL_I8 || dt == COLL_U8 ? 8 : dt == COLL_I32 || dt == COLL_U32 ? 32 : 64;
    uint64_t mask = bits == 64 ? ~0ull : ((1ull << bits) - 1);
    /* values as the stored (wrapped) integers */
    uint64_t acc = (uint64_t)(int64_t)vals[0] & mask;
    for (int j = 1; j < n; j++) {
        uint64_t x = (uint64_t)(int64_t)vals[j] & mask;
        int64_t sa = (int64_t)(acc << (64 - bits)) >> (64 - bits);
        int64_t sx = (int64_t)(x << (64 - bits)) >> (64 - bits);
        switch (k->op) {
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

/* ---- one case ---- */

static int in_blocks(const Run *R, int r) {
    if (R->L.in_root_only && r != R->k.root) return 0;
    return R->L.in_n ? R->k.N : 1;
}
static int out_blocks(const Run *R, int r) {
    if (R->L.out_root_only && r != R->k.root) return 0;
    return R->L.out_n ? R->k.N : 1;
}

/* Byte offset in recvbuf where rank r's input lives in an in-place call
 * (MPI's layouts); -1 when this rank passes its input normally. */
static long inplace_offset(const Run *R, int r) {
    size_t bb = R->k.count * R->esz;
    switch ((coll_collective)E2E_COLL) {
    case COLL_ALLGATHER: return (long)(r * bb);
    case COLL_GATHER: return r == R->k.root ? (long)(r * bb) : -1;
    case COLL_REDUCE_SCATTER: return -1; /* MPI keeps N blocks in recvbuf: not covered */
    case COLL_REDUCE: case COLL_ALLREDUCE: case COLL_ALLTOALL:
        return R->k.root >= 0 && R->L.out_root_only && r != R->k.root ? -1 : 0;
    case COLL_BROADCAST: return r == R->k.root ? 0 : -1;
    case COLL_SCATTER: return -1; /* in place is on the recv side; not covered */
    default: return -1;
    }
}

static int run_rank(coll_comm *comm, void *arg) {
    Run *R = arg;
    int r = coll_comm_rank(comm);
    const Case *k = &R->k;
    unsigned char *in = R->in_bytes[r] ? R->in[r] + GUARD : NULL;
    unsigned char *out = R->out_bytes[r] ? R->out[r] + GUARD : NULL;
    const void *send = in;
    if (k->inplace && inplace_offset(R, r) >= 0 && in_blocks(R, r) > 0) send = COLL_IN_PLACE;
#if E2E_ROOTED
    R->rc[r] = E2E_ALG(comm, send, out, k->count, k->dt, k->op, k->root);
#else
    R->rc[r] = E2E_ALG(comm, send, out, k->count, k->dt, k->op);
#endif
    return 0;
}

static int g_failed, g_passed, g_skipped;

static void fail(const Case *k, const char *fmt, int rank, size_t idx) {
    if (g_failed < 40)
        printf("FAIL %s N=%d root=%d count=%zu dtype=%s op=%s%s: %s (rank %d, element %zu)\n",
               STR(E2E_ALG), k->N, k->root, k->count, coll_dtype_name(k->dt), coll_op_name(k->op),
               k->inplace ? " in-place" : "", fmt, rank, idx);
    g_failed++;
}

static void run_case(Case k) {
    Run R = {.k = k, .L = layout_of((coll_collective)E2E_COLL), .esz = coll_dtype_size(k.dt)};
    int N = k.N;
    R.in = calloc((size_t)N, sizeof *R.in);
    R.out = calloc((size_t)N, sizeof *R.out);
    R.in_bytes = calloc((size_t)N, sizeof(size_t));
    R.out_bytes = calloc((size_t)N, sizeof(size_t));
    R.rc = calloc((size_t)N, sizeof(int));
    size_t bb = k.count * R.esz;
    for (int r = 0; r < N; r++) {
        R.in_bytes[r] = (size_t)in_blocks(&R, r) * bb;
        R.out_bytes[r] = (size_t)out_blocks(&R, r) * bb;
        R.in[r] = malloc(R.in_bytes[r] + 2 * GUARD);
        R.out[r] = malloc(R.out_bytes[r] + 2 * GUARD);
        memset(R.in[r], GUARD_BYTE, R.in_bytes[r] + 2 * GUARD);
        memset(R.out[r], GUARD_BYTE, R.out_bytes[r] + 2 * GUARD);
        size_t n = R.in_bytes[r] / (R.esz ? R.esz : 1);
        for (size_t i = 0; i < n; i++) store(k.dt, R.in[r] + GUARD + i * R.esz, value_of(&k, r, i));
        if (k.inplace && inplace_offset(&R, r) >= 0 && R.in_bytes[r])
            memcpy(R.out[r] + GUARD + inplace_offset(&R, r), R.in[r] + GUARD, R.in_bytes[r]);
    }
    int st = coll_cpu_run(N, run_rank, &R);
    int na = 0;
    for (int r = 0; r < N; r++) na += R.rc[r] == COLL_ERR_NOT_APPLICABLE;
    if (st != COLL_OK) {
        fail(&k, coll_strerror(st), -1, 0);
    } else if (na == N) {
        g_skipped++;
    } else {
        int bad = 0;
        for (int r = 0; r < N && !bad; r++)
            if (R.rc[r] != COLL_OK) { fail(&k, coll_strerror(R.rc[r]), r, 0); bad = 1; }
        /* expected output, element by element */
        unsigned char tmp[16];
        double *vals = malloc(sizeof(double) * (size_t)N);
        for (int r = 0; r < N && !bad; r++) {
            unsigned char *o = R.out[r];
            for (size_t g = 0; g < GUARD && !bad; g++)
                if (o[g] != GUARD_BYTE || o[GUARD + R.out_bytes[r] + g] != GUARD_BYTE) {
                    fail(&k, "write outside the receive buffer", r, g);
                    bad = 1;
                }
            if (!k.inplace || inplace_offset(&R, r) < 0)
                for (size_t g = 0; g < R.in_bytes[r] + 2 * GUARD && !bad; g++) {
                    unsigned char want = GUARD_BYTE;
                    if (g >= GUARD && g < GUARD + R.in_bytes[r]) continue;
                    if (R.in[r][g] != want) { fail(&k, "write outside the send buffer", r, g); bad = 1; }
                }
            int ob = out_blocks(&R, r);
            for (int b = 0; b < ob && !bad; b++) {
                for (size_t i = 0; i < k.count && !bad; i++) {
                    coll_collective c = (coll_collective)E2E_COLL;
                    if (R.L.reducing) {
                        size_t src_idx = (c == COLL_REDUCE_SCATTER ? (size_t)r * k.count : 0) + i;
                        for (int j = 0; j < N; j++) vals[j] = value_of(&k, j, src_idx);
                        ref_reduce(&k, tmp, vals, N);
                    } else {
                        int src_rank; size_t src_idx;
                        switch (c) {
                        case COLL_BROADCAST: src_rank = k.root; src_idx = i; break;
                        case COLL_SCATTER: src_rank = k.root; src_idx = (size_t)r * k.count + i; break;
                        case COLL_GATHER: case COLL_ALLGATHER: src_rank = b; src_idx = i; break;
                        case COLL_ALLTOALL: src_rank = b; src_idx = (size_t)r * k.count + i; break;
                        default: abort();
                        }
                        store(k.dt, tmp, value_of(&k, src_rank, src_idx));
                    }
                    const unsigned char *got = o + GUARD + ((size_t)b * k.count + i) * R.esz;
                    if (memcmp(got, tmp, R.esz) != 0) {
                        fail(&k, "wrong value", r, (size_t)b * k.count + i);
                        bad = 1;
                    }
                }
            }
        }
        free(vals);
        if (!bad) g_passed++;
    }
    for (int r = 0; r < N; r++) { free(R.in[r]); free(R.out[r]); }
    free(R.in); free(R.out); free(R.in_bytes); free(R.out_bytes); free(R.rc);
}

int main(int argc, char **argv) {
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    Layout L = layout_of((coll_collective)E2E_COLL);
    static const int Ns[] = {1, 2, 3, 4, 5, 7, 8, 16};
    static const coll_dtype all_dt[] = {COLL_F32, COLL_F64, COLL_F16, COLL_BF16, COLL_I8, COLL_U8,
                                        COLL_I32, COLL_U32, COLL_I64, COLL_U64};
    static const coll_dtype move_dt[] = {COLL_F32, COLL_U8, COLL_F64, COLL_BF16};
    static const coll_op ops[] = {COLL_SUM, COLL_PROD, COLL_MAX, COLL_MIN, COLL_BAND, COLL_BOR, COLL_BXOR};
    for (size_t ni = 0; ni < sizeof Ns / sizeof *Ns; ni++) {
        int N = Ns[ni];
        int roots[3] = {0, N - 1, N / 2}, nroots = E2E_ROOTED ? (N > 2 ? 3 : N) : 1;
        for (int ri = 0; ri < nroots; ri++) {
            int root = E2E_ROOTED ? roots[ri] : -1;
            size_t counts[4] = {0, 1, (size_t)(N > 1 ? N - 1 : 2), (size_t)N + 5};
            const coll_dtype *dts = L.reducing ? all_dt : move_dt;
            size_t ndt = L.reducing ? sizeof all_dt / sizeof *all_dt : sizeof move_dt / sizeof *move_dt;
            for (size_t di = 0; di < ndt; di++)
                for (size_t oi = 0; oi < (L.reducing ? sizeof ops / sizeof *ops : 1); oi++) {
                    coll_op op = L.reducing ? ops[oi] : COLL_SUM;
                    if (L.reducing && coll_op_supported(dts[di], op) != COLL_OK) continue;
                    for (int ci = 0; ci < 4; ci++)
                        for (int ip = 0; ip < 2; ip++) {
                            if (quick && (di > 1 || (oi > 0 && oi != 2) || ri > 0)) continue;
                            run_case((Case){N, root, ip, counts[ci], dts[di], op});
                        }
                }
            /* large and uneven counts: 1000003 elements and 3 MiB */
            if ((N == 3 || N == 8) && ri == 0) {
                size_t div = (L.in_n || L.out_n) ? (size_t)N : 1;
                size_t big[2] = {1000003 / div, (3u << 20) / 4 / div + 1};
                for (int bi = 0; bi < 2; bi++)
                    for (int ip = 0; ip < 2; ip++)
                        run_case((Case){N, root, ip, big[bi], COLL_F32, COLL_SUM});
            }
        }
    }
    printf("%s: %d passed, %d failed, %d skipped\n", STR(E2E_ALG), g_passed, g_failed, g_skipped);
    return g_failed ? 1 : 0;
}
