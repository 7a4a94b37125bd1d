/* cpu_allreduce.c - the cpu target against the machine's memory bandwidth.
 *
 *   cpu_allreduce_bench [-n N,N,...] [-r REPS] [-m MAXBYTES]
 *
 * Measures, alternating in one run (run-to-run noise is large): memcpy bandwidth
 * with 1 and 2 threads (bytes copied per second), then the hand-written ring
 * allreduce (tests/runtime/ring_algos.h, f32 sum) on N threads for sizes 8 B
 * .. MAXBYTES. Reports median and best of REPS repetitions: time per call,
 * algbw = bytes / time, busbw = algbw * 2(N-1)/N (nccl-tests), and busbw as
 * a ratio of the 2-thread memcpy bandwidth. Never asserts anything. Run with
 * GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (first touch of fresh pages is expensive). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "coll_cpu.h"
#include "ring_algos.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- memcpy baseline ---- */

typedef struct mc_arg {
    char *src, *dst;
    size_t bytes;
    int iters;
    pthread_barrier_t *bar;
    double secs;
} mc_arg;

static void *mc_thread(void *p) {
    mc_arg *a = p;
    pthread_barrier_wait(a->bar);
    double t0 = now();
    for (int i = 0; i < a->iters; i++) {
        memcpy(a->dst, a->src, a->bytes);
        __asm__ __volatile__("" ::"r"(a->dst) : "memory");
    }
    a->secs = now() - t0;
    return NULL;
}

/* GB/s copied by `threads` threads, each copying its own `bytes` buffer. */
static double memcpy_bw(mc_arg *args, int threads) {
    pthread_t th[2];
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, (unsigned)threads);
    for (int t = 0; t < threads; t++) {
        args[t].bar = &bar;
        pthread_create(&th[t], NULL, mc_thread, &args[t]);
    }
    double worst = 0, total = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(th[t], NULL);
        if (args[t].secs > worst) worst = args[t].secs;
        total += (double)args[t].bytes * args[t].iters;
    }
    pthread_barrier_destroy(&bar);
    return total / worst / 1e9;
}

/* ---- ring allreduce ---- */

#define MAX_SIZES 32
typedef struct ar_ctx {
    int N;
    size_t sizes[MAX_SIZES];
    int nsizes;
    size_t max_bytes;
    pthread_barrier_t bar;
    double secs[MAX_SIZES];   /* per call, rank 0's view */
    int failed;
} ar_ctx;

static int ar_rank(coll_comm *comm, void *p) {
    ar_ctx *cx = p;
    int me = coll_comm_rank(comm);
    float *in = malloc(cx->max_bytes), *out = malloc(cx->max_bytes);
    if (!in || !out) return COLL_ERR_NOMEM;
    memset(in, 0, cx->max_bytes);   /* touch once, outside the timing */
    memset(out, 0, cx->max_bytes);
    for (int s = 0; s < cx->nsizes; s++) {
        size_t count = cx->sizes[s] / sizeof(float);
        /* enough calls for ~20 ms, at least 2 */
        int iters = (int)(20e6 / (double)(cx->sizes[s] + 20000));
        if (iters < 2) iters = 2;
        if (ring_allreduce(comm, in, out, count, COLL_F32, COLL_SUM) != COLL_OK) cx->failed = 1;
        pthread_barrier_wait(&cx->bar);
        double t0 = now();
        for (int i = 0; i < iters; i++)
            if (ring_allreduce(comm, in, out, count, COLL_F32, COLL_SUM) != COLL_OK)
                cx->failed = 1;
        pthread_barrier_wait(&cx->bar);
        if (me == 0) cx->secs[s] = (now() - t0) / iters;
    }
    free(in);
    free(out);
    return 0;
}

int main(int argc, char **argv) {
    int Ns[8] = {2, 4, 8}, nN = 3, reps = 5;
    size_t max_bytes = (size_t)64 << 20;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc) {
            nN = 0;
            for (char *t = strtok(argv[++i], ","); t && nN < 8; t = strtok(NULL, ","))
                Ns[nN++] = atoi(t);
        } else if (!strcmp(argv[i], "-r") && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "-m") && i + 1 < argc) {
            max_bytes = (size_t)strtoull(argv[++i], NULL, 0);
        } else {
            fprintf(stderr, "usage: %s [-n N,N,...] [-r REPS] [-m MAXBYTES]\n", argv[0]);
            return 2;
        }
    }
    if (reps < 1) reps = 1;
    /* memcpy buffers: 64 MiB each, well beyond the caches */
    size_t mc_bytes = (size_t)64 << 20;
    mc_arg mc[2];
    for (int t = 0; t < 2; t++) {
        mc[t] = (mc_arg){malloc(mc_bytes), malloc(mc_bytes), mc_bytes, 5, NULL, 0};
        if (!mc[t].src || !mc[t].dst) return 1;
        memset(mc[t].src, 1, mc_bytes);
        memset(mc[t].dst, 0, mc_bytes);
    }
    ar_ctx *cx = calloc((size_t)nN, sizeof *cx);
    for (int n = 0; n < nN; n++) {
        cx[n].N = Ns[n];
        cx[n].max_bytes = max_bytes;
        for (size_t b = 8; b <= max_bytes && cx[n].nsizes < MAX_SIZES; b *= 8)
            cx[n].sizes[cx[n].nsizes++] = b;
        if (cx[n].sizes[cx[n].nsizes - 1] != max_bytes && cx[n].nsizes < MAX_SIZES)
            cx[n].sizes[cx[n].nsizes++] = max_bytes;
    }
    double *mc1 = calloc((size_t)reps, sizeof(double)), *mc2 = calloc((size_t)reps, sizeof(double));
    double *ar = calloc((size_t)reps * (size_t)nN * MAX_SIZES, sizeof(double));
    for (int r = 0; r < reps; r++) {
        mc1[r] = memcpy_bw(mc, 1);
        mc2[r] = memcpy_bw(mc, 2);
        for (int n = 0; n < nN; n++) {
            pthread_barrier_init(&cx[n].bar, NULL, (unsigned)cx[n].N);
            int rc = coll_cpu_run(cx[n].N, ar_rank, &cx[n]);
            pthread_barrier_destroy(&cx[n].bar);
            if (rc != COLL_OK || cx[n].failed) {
                fprintf(stderr, "allreduce failed: %s\n", coll_strerror(rc));
                return 1;
            }
            for (int s = 0; s < cx[n].nsizes; s++)
                ar[((size_t)n * MAX_SIZES + (size_t)s) * (size_t)reps + (size_t)r] = cx[n].secs[s];
        }
    }
    double m1 = median(mc1, reps), m2 = median(mc2, reps);
    printf("memcpy 64 MiB: 1 thread %.2f GB/s (best %.2f), 2 threads %.2f GB/s (best %.2f); "
           "%d repetitions, alternated with the allreduce runs\n",
           m1, mc1[reps - 1], m2, mc2[reps - 1], reps);
    printf("%4s %12s %11s %11s %10s %10s %10s %10s\n", "N", "bytes", "time_us", "best_us",
           "algbw", "busbw", "bus/mc2", "best/mc2");
    for (int n = 0; n < nN; n++) {
        int N = cx[n].N;
        for (int s = 0; s < cx[n].nsizes; s++) {
            double *v = &ar[((size_t)n * MAX_SIZES + (size_t)s) * (size_t)reps];
            double med = median(v, reps), best = v[0];
            double bytes = (double)cx[n].sizes[s];
            double algbw = bytes / med / 1e9, factor = 2.0 * (N - 1) / N;
            double busbw = algbw * factor, busbest = bytes / best / 1e9 * factor;
            printf("%4d %12zu %11.2f %11.2f %10.3f %10.3f %10.3f %10.3f\n", N,
                   cx[n].sizes[s], med * 1e6, best * 1e6, algbw, busbw, busbw / m2,
                   busbest / m2);
        }
    }
    printf("(GB/s; busbw = algbw * 2(N-1)/N; ratios against the median 2-thread memcpy)\n");
    for (int t = 0; t < 2; t++) {
        free(mc[t].src);
        free(mc[t].dst);
    }
    free(mc1);
    free(mc2);
    free(ar);
    free(cx);
    return 0;
}
