/* cpu_kernels.c - reduction kernel throughput against memcpy.
 *
 *   cpu_kernels_bench [BYTES]      (default 1 MiB: cache-resident)
 *
 * For every (dtype, op) pair: dst = dst (+) src over BYTES of dst
 * (coll_reduce_local, the kernel collectives use for receive-reduce), median
 * of 7 runs, as GB/s of dst and as a ratio to memcpy of the same size. A
 * vectorised integer/f32 kernel is close to memcpy in cache; f16 pays for
 * the conversions. Never asserts anything. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "coll.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define RUNS 7

int main(int argc, char **argv) {
    size_t bytes = argc > 1 ? (size_t)strtoull(argv[1], NULL, 0) : (size_t)1 << 20;
    if (bytes < 64) bytes = 64;
    unsigned char *dst = malloc(bytes), *src = malloc(bytes);
    if (!dst || !src) return 1;
    for (size_t i = 0; i < bytes; i++) {
        src[i] = (unsigned char)(i * 7 + 1);
        dst[i] = (unsigned char)(i * 13 + 5);
    }
    int iters = (int)(200e6 / (double)bytes);
    if (iters < 3) iters = 3;
    double t[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = now();
        for (int i = 0; i < iters; i++) {
            memcpy(dst, src, bytes);
            __asm__ __volatile__("" ::"r"(dst) : "memory");
        }
        t[r] = (now() - t0) / iters;
    }
    qsort(t, RUNS, sizeof t[0], cmp_double);
    double mc = (double)bytes / t[RUNS / 2] / 1e9;
    printf("memcpy %zu bytes: %.2f GB/s\n", bytes, mc);
    printf("%-6s %-5s %10s %8s\n", "dtype", "op", "GB/s", "/memcpy");
    for (int d = 0; d < COLL_DTYPE_COUNT; d++)
        for (int o = 0; o < COLL_OP_COUNT; o++) {
            coll_dtype dt = (coll_dtype)d;
            coll_op op = (coll_op)o;
            if (coll_op_supported(dt, op) != COLL_OK) continue;
            size_t n = bytes / coll_dtype_size(dt);
            /* Floats: tame values (1.0), so that no lane turns into a
             * subnormal, whose arithmetic takes a slow microcode path. */
            if (dt == COLL_F16 || dt == COLL_BF16) {
                uint16_t one = dt == COLL_F16 ? 0x3c00 : 0x3f80;
                for (size_t i = 0; i < n; i++) {
                    memcpy(dst + 2 * i, &one, 2);
                    memcpy(src + 2 * i, &one, 2);
                }
            } else if (dt == COLL_F32) {
                for (size_t i = 0; i < n; i++) ((float *)(void *)dst)[i] = ((float *)(void *)src)[i] = 1.0f;
            } else if (dt == COLL_F64) {
                for (size_t i = 0; i < n; i++) ((double *)(void *)dst)[i] = ((double *)(void *)src)[i] = 1.0;
            }
            for (int r = 0; r < RUNS; r++) {
                double t0 = now();
                for (int i = 0; i < iters; i++) coll_reduce_local(dst, src, n, dt, op);
                t[r] = (now() - t0) / iters;
            }
            qsort(t, RUNS, sizeof t[0], cmp_double);
            double bw = (double)bytes / t[RUNS / 2] / 1e9;
            printf("%-6s %-5s %10.2f %8.2f\n", coll_dtype_name(dt), coll_op_name(op), bw,
                   bw / mc);
        }
    free(dst);
    free(src);
    return 0;
}
