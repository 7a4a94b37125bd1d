/* run_threads.h - the runtime half of `collc run` (see run_threads.c): the
 * cpu target running a compiled collective on threads. */
#ifndef COLLC_RUN_THREADS_H
#define COLLC_RUN_THREADS_H

#include <stddef.h>
#include <coll.h>

typedef struct RunSymbol { const char *name; void *address; } RunSymbol;
/* The runtime functions generated code calls, for the JIT. */
extern const RunSymbol run_runtime_symbols[];
extern const int run_nruntime_symbols;

typedef struct RunRequest {
    void *fn;            /* the compiled function */
    int rooted;
    coll_collective collective;
    int N, root, in_place, iters, warmup;
    size_t count;
    coll_dtype dtype;
    coll_op op;
} RunRequest;

typedef struct RunResult {
    int setup_status;    /* coll_cpu_run's status (a coll_status) */
    int bad_rank;        /* -1, or the first rank whose call failed / is wrong */
    int bad_status;      /* that rank's status (0 = it returned OK but is wrong) */
    size_t bad_elem;     /* first wrong element of bad_rank */
    double seconds;      /* per call: max over ranks of the mean */
} RunResult;

void run_threads(const RunRequest *req, RunResult *res);
/* The largest N the cpu target runs. */
int run_max_ranks(void);
/* Blocks of the larger buffer (1 or N) and nccl-tests' bus factor. */
int run_blocks(coll_collective collective, int N);
double run_bus_factor(coll_collective collective, int N);

#endif
