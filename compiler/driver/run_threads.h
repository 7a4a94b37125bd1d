/* run_threads.h - the runtime half of `collc run` (see run_threads.c). Plain
 * ints instead of the runtime's enums keep coll.h out of the commands that
 * include this header. */
#ifndef COLLC_RUN_THREADS_H
#define COLLC_RUN_THREADS_H

#include <stddef.h>

typedef struct RunSymbol { const char *name; void *address; } RunSymbol;
/* The runtime functions generated code calls, for the JIT. */
extern const RunSymbol run_runtime_symbols[];
extern const int run_nruntime_symbols;

typedef struct RunRequest {
    void *fn;            /* the compiled function */
    int rooted;
    int collective;      /* coll_collective: a Collective's value is its ABI
                            value (both from coll_collectives.def) */
    int N, root, in_place, iters, warmup;
    size_t count;
    int dtype, op;       /* coll_dtype, coll_op */
} RunRequest;

typedef struct RunResult {
    int setup_status;    /* coll_cpu_run's status */
    int bad_rank;        /* -1, or the first rank whose call failed / is wrong */
    int bad_status;      /* that rank's status (0 = it returned OK but is wrong) */
    size_t bad_elem;     /* first wrong element of bad_rank */
    double seconds;      /* per call: max over ranks of the mean */
} RunResult;

void run_threads(const RunRequest *req, RunResult *res);
const char *run_status_text(int status);
int run_dtype_from_name(const char *name, int *dtype);
int run_op_from_name(const char *name, int *op);
int run_op_supported(int dtype, int op);
size_t run_dtype_size(int dtype);
const char *run_dtype_name(int dtype);
const char *run_op_name(int op);
int run_max_ranks(void);
/* Blocks of the larger buffer (1 or N) and nccl-tests' bus factor. */
int run_blocks(int collective, int N);
double run_bus_factor(int collective, int N);

#endif
