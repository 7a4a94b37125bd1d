/* cpu_examples.c - nccl-tests-style table for every compiled example on the
 * cpu target.
 *
 *   cpu_examples_bench [-n N] [-r REPS] [-m MAXBYTES] [-a NAME] [-t dtype]
 *
 * For each example (or -a NAME) and size 8 B .. MAXBYTES (x4 steps), on N
 * threads: one checked call (bit-exact against runtime/reference/collref.c),
 * then REPS timed calls; prints time (median and best), algbw, busbw (nccl-
 * tests factors) and busbw as a ratio of the 2-thread memcpy bandwidth,
 * which is measured in the same run, right before each example's table
 * (these machines are noisy: compare numbers from one run only). Size is
 * the larger per-rank buffer (nccl-tests' size). Never asserts anything.
 * Run with GLIBC_TUNABLES=glibc.malloc.hugetlb=1. */
#include "registry.h"
#include "collref.h"

#include <coll_cpu.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int (*AlgFn)(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op);
typedef int (*RootedFn)(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op, int);

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ---- memcpy baseline: bytes copied per second, 2 threads ---- */

typedef struct Mc { char *src, *dst; size_t bytes; pthread_barrier_t *bar; double secs; } Mc;

static void *mc_thread(void *p) {
    Mc *m = p;
    memcpy(m->dst, m->src, m->bytes); /* first touch */
    pthread_barrier_wait(m->bar);
    double t0 = now();
    for (int i = 0; i < 5; i++) memcpy(m->dst, m->src, m->bytes);
    m->secs = (now() - t0) / 5;
    return NULL;
}

static double memcpy_bw(int threads, size_t bytes) {
    pthread_t t[2];
    Mc m[2];
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, (unsigned)threads);
    for (int i = 0; i < threads; i++) {
        m[i] = (Mc){malloc(bytes), malloc(bytes), bytes, &bar, 0};
        memset(m[i].src, i + 1, bytes);
        pthread_create(&t[i], NULL, mc_thread, &m[i]);
    }
    double worst = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        if (m[i].secs > worst) worst = m[i].secs;
        free(m[i].src);
        free(m[i].dst);
    }
    pthread_barrier_destroy(&bar);
    return (double)bytes * threads / worst;
}

/* ---- one (algorithm, size) point ---- */

typedef struct Point {
    const BenchAlg *a;
    int N, reps;
    size_t count;
    coll_dtype dt;
    pthread_barrier_t bar;
    int bad;
    double *secs; /* [reps]: max over ranks */
    double *rank_secs; /* [N * reps] */
} Point;

static int call(const Point *p, coll_comm *c, const void *s, void *r) {
    if (p->a->rooted) return ((RootedFn)(void *)p->a->fn)(c, s, r, p->count, p->dt, COLL_SUM, 0);
    return ((AlgFn)(void *)p->a->fn)(c, s, r, p->count, p->dt, COLL_SUM);
}

static int rank_main(coll_comm *comm, void *arg) {
    Point *p = arg;
    int me = coll_comm_rank(comm);
    size_t esz = coll_dtype_size(p->dt);
    size_t ib = (size_t)collref_in_blocks(p->a->coll, p->N, 0, me) * p->count * esz;
    size_t ob = (size_t)collref_out_blocks(p->a->coll, p->N, 0, me) * p->count * esz;
    char *in = ib ? malloc(ib) : NULL, *out = ob ? malloc(ob) : NULL;
    if (in) collref_fill(p->a->coll, p->dt, COLL_SUM, p->N, 0, me, p->count, in);
    if (out) memset(out, 0, ob);
    pthread_barrier_wait(&p->bar);
    int rc = call(p, comm, in, out);
    if (rc != COLL_OK || (out && collref_check(p->a->coll, p->dt, COLL_SUM, p->N, 0, p->count, me, out) != (size_t)-1))
        __atomic_store_n(&p->bad, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < p->reps; i++) {
        pthread_barrier_wait(&p->bar);
        double t0 = now();
        call(p, comm, in, out);
        p->rank_secs[(size_t)me * (size_t)p->reps + (size_t)i] = now() - t0;
    }
    pthread_barrier_wait(&p->bar);
    free(in);
    free(out);
    return 0;
}

int main(int argc, char **argv) {
    int N = 4, reps = 5;
    size_t maxbytes = (size_t)256 << 20;
    const char *only = NULL;
    coll_dtype dt = COLL_F32;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc) N = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-r") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-m") && i + 1 < argc) maxbytes = (size_t)strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "-a") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(argv[i], "-t") && i + 1 < argc) {
            if (coll_dtype_from_name(argv[++i], &dt)) { fprintf(stderr, "bad dtype\n"); return 2; }
        } else {
            fprintf(stderr, "usage: %s [-n N] [-r REPS] [-m MAXBYTES] [-a NAME] [-t dtype]\n", argv[0]);
            return 2;
        }
    }
    if (N < 1 || reps < 1) return 2;
    size_t esz = coll_dtype_size(dt);
    printf("# cpu target, N = %d threads, %s sum, %d timed reps (median / best), check = bit-exact\n",
           N, coll_dtype_name(dt), reps);
    for (int k = 0; k < bench_nalgs; k++) {
        const BenchAlg *a = &bench_algs[k];
        if (only && strcmp(only, a->name)) continue;
        double mc = memcpy_bw(2, (size_t)64 << 20);
        printf("\n%s (%s)   memcpy 2 threads: %.2f GB/s\n", a->name, coll_collective_name(a->coll),
               mc / 1e9);
        printf("%12s %12s %12s %12s %10s %10s %8s %6s\n", "size(B)", "count", "time(us)", "best(us)",
               "algbw", "busbw", "bus/mc", "check");
        int blocks = collref_in_blocks(a->coll, N, 0, 0) == N || collref_out_blocks(a->coll, N, 0, 0) == N ? N : 1;
        for (size_t bytes = 8; bytes <= maxbytes; bytes *= 4) {
            size_t count = bytes / ((size_t)blocks * esz);
            Point p = {.a = a, .N = N, .reps = reps, .count = count, .dt = dt};
            p.secs = calloc((size_t)reps, sizeof(double));
            p.rank_secs = calloc((size_t)N * (size_t)reps, sizeof(double));
            pthread_barrier_init(&p.bar, NULL, (unsigned)N);
            int rc = coll_cpu_run(N, rank_main, &p);
            pthread_barrier_destroy(&p.bar);
            if (rc == COLL_OK) {
                for (int i = 0; i < reps; i++)
                    for (int r = 0; r < N; r++)
                        if (p.rank_secs[(size_t)r * (size_t)reps + (size_t)i] > p.secs[i])
                            p.secs[i] = p.rank_secs[(size_t)r * (size_t)reps + (size_t)i];
                qsort(p.secs, (size_t)reps, sizeof(double), cmp_double);
                double med = reps % 2 ? p.secs[reps / 2] : (p.secs[reps / 2 - 1] + p.secs[reps / 2]) / 2;
                double sz = (double)count * (double)esz * blocks;
                double algbw = med > 0 ? sz / med / 1e9 : 0, busbw = algbw * collref_bus_factor(a->coll, N);
                printf("%12zu %12zu %12.1f %12.1f %10.3f %10.3f %8.3f %6s\n", (size_t)sz, count, med * 1e6,
                       p.secs[0] * 1e6, algbw, busbw, busbw * 1e9 / mc, p.bad ? "WRONG" : "ok");
            } else {
                printf("%12zu %12zu  %s\n", bytes, count, coll_strerror(rc));
            }
            free(p.secs);
            free(p.rank_secs);
        }
    }
    return 0;
}
