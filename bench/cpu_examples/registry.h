/* registry.h - the compiled examples linked into cpu_examples_bench. The
 * functions are declared loosely (void (*)(void)) in the generated registry
 * and cast back to their real signature (coll.h) by the bench. */
#ifndef BENCH_REGISTRY_H
#define BENCH_REGISTRY_H
#include <coll.h>

typedef struct BenchAlg {
    const char *name;
    coll_collective coll;
    int rooted;
    void (*fn)(void);
} BenchAlg;

extern const BenchAlg bench_algs[];
extern const int bench_nalgs;
#endif
