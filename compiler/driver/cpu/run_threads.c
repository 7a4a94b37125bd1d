/* run_threads.c - the runtime half of `collc run`: runs a compiled
 * collective on N threads with the cpu target, checks every rank bit for bit
 * against the naive reference and times it. */
#include "driver/cpu/run_threads.h"
#include "collref.h"

#include <coll_cpu.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const RunSymbol run_runtime_symbols[] = {
    {"coll_begin", (void *)coll_begin},
    {"coll_setup", (void *)coll_setup},
    {"coll_send", (void *)coll_send},
    {"coll_recv", (void *)coll_recv},
    {"coll_recv_reduce", (void *)coll_recv_reduce},
    {"coll_recv_reduce_copy", (void *)coll_recv_reduce_copy},
    {"coll_copy", (void *)coll_copy},
    {"coll_reduce", (void *)coll_reduce},
    {"coll_step_end", (void *)coll_step_end},
    {"coll_finish", (void *)coll_finish},
    {"coll_comm_size", (void *)coll_comm_size},
    {"coll_comm_rank", (void *)coll_comm_rank},
    {"coll_start", (void *)coll_start},   /* NAME_start, NAME_init */
    {"coll_init", (void *)coll_init},
};
const int run_nruntime_symbols = (int)(sizeof run_runtime_symbols / sizeof *run_runtime_symbols);

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef int (*AlgFn)(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op);
typedef int (*RootedAlgFn)(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op, int);

typedef struct Ctx {
    const RunRequest *q;
    pthread_barrier_t barrier;
    int *status;
    size_t *bad_elem;
    double *seconds;
} Ctx;

/* Where MPI's in-place layout puts the input in recvbuf: the in_place
 * column of coll_collectives.def. */
typedef enum InPlaceAt {
    IN_PLACE_OUT_0,    /* block 0 */
    IN_PLACE_OUT_ME,   /* the rank's own block */
    IN_PLACE_OUT_ROOT, /* the root's block */
    IN_PLACE_IN_ME,    /* recvbuf is the one passed as COLL_IN_PLACE: collc run passes the input */
} InPlaceAt;
static const InPlaceAt in_place_at[] = {
#define X(id, kw, abi, rooted, ib, iw, ob, ow, red, inplace, mpi, params) [COLL_##id] = IN_PLACE_##inplace,
#include <coll_collectives.def>
#undef X
};

/* The byte offset of the input inside recvbuf in the in-place layout, or
 * -1 where this rank passes its input normally: it has no input or no
 * output buffer, or the input does not fit there (reduce_scatter's N
 * blocks in its one-block output). */
static long in_place_offset(const RunRequest *q, int r, size_t block_bytes, size_t in_bytes, size_t out_bytes) {
    long at = -1;
    switch (in_place_at[q->collective]) {
    case IN_PLACE_OUT_0: at = 0; break;
    case IN_PLACE_OUT_ME: at = (long)((size_t)r * block_bytes); break;
    case IN_PLACE_OUT_ROOT: at = (long)((size_t)q->root * block_bytes); break;
    case IN_PLACE_IN_ME: break;
    }
    return at >= 0 && in_bytes && out_bytes && (size_t)at + in_bytes <= out_bytes ? at : -1;
}

static int call_alg(const RunRequest *q, coll_comm *comm, const void *send, void *recv) {
    if (q->rooted)
        return ((RootedAlgFn)q->fn)(comm, send, recv, q->count, q->dtype, q->op, q->root);
    return ((AlgFn)q->fn)(comm, send, recv, q->count, q->dtype, q->op);
}

static int rank_main(coll_comm *comm, void *arg) {
    Ctx *c = arg;
    const RunRequest *q = c->q;
    coll_collective coll = q->collective;
    int r = coll_comm_rank(comm);
    size_t bb = q->count * coll_dtype_size(q->dtype);
    size_t in_bytes = (size_t)collref_in_blocks(coll, q->N, q->root, r) * bb;
    size_t out_bytes = (size_t)collref_out_blocks(coll, q->N, q->root, r) * bb;
    unsigned char *in = in_bytes ? malloc(in_bytes) : NULL;
    unsigned char *out = out_bytes ? malloc(out_bytes) : NULL;
    c->bad_elem[r] = (size_t)-1;
    if ((in_bytes && !in) || (out_bytes && !out)) {
        c->status[r] = COLL_ERR_NOMEM;
    } else {
        if (in) collref_fill(coll, q->dtype, q->op, q->N, q->root, r, q->count, in);
        if (out) memset(out, 0, out_bytes); /* first touch outside the timing */
    }
    long ipo = in_place_offset(q, r, bb, in_bytes, out_bytes);
    const void *send = in;
    if (q->in_place && ipo >= 0 && in && out) {
        memcpy(out + ipo, in, in_bytes);
        send = COLL_IN_PLACE;
    }
    /* 1. one checked call on fresh data */
    pthread_barrier_wait(&c->barrier);
    int ok = 1;
    for (int i = 0; i < q->N; i++) ok &= c->status[i] == COLL_OK;
    pthread_barrier_wait(&c->barrier);
    if (ok) c->status[r] = call_alg(q, comm, send, out);
    if (ok && c->status[r] == COLL_OK && out_bytes)
        c->bad_elem[r] = collref_check(coll, q->dtype, q->op, q->N, q->root,
                                       q->count, r, out);
    /* 2. timed calls (in-place reductions accumulate; only the time counts) */
    pthread_barrier_wait(&c->barrier);
    for (int i = 0; i < q->N; i++) ok &= c->status[i] == COLL_OK;
    for (int it = 0; ok && it < q->warmup; it++) call_alg(q, comm, send, out);
    pthread_barrier_wait(&c->barrier);
    double t0 = now_s();
    for (int it = 0; ok && it < q->iters; it++) {
        int st = call_alg(q, comm, send, out);
        if (st != COLL_OK && c->status[r] == COLL_OK) c->status[r] = st;
    }
    c->seconds[r] = now_s() - t0;
    pthread_barrier_wait(&c->barrier);
    free(in);
    free(out);
    return 0;
}

void run_threads(const RunRequest *q, RunResult *res) {
    Ctx c = {.q = q};
    c.status = calloc((size_t)q->N, sizeof *c.status);
    c.bad_elem = calloc((size_t)q->N, sizeof *c.bad_elem);
    c.seconds = calloc((size_t)q->N, sizeof *c.seconds);
    memset(res, 0, sizeof *res);
    res->bad_rank = -1;
    res->bad_elem = (size_t)-1;
    if (!c.status || !c.bad_elem || !c.seconds) {
        res->setup_status = COLL_ERR_NOMEM;
    } else {
        pthread_barrier_init(&c.barrier, NULL, (unsigned)q->N);
        res->setup_status = coll_cpu_run(q->N, rank_main, &c);
        pthread_barrier_destroy(&c.barrier);
        for (int r = 0; r < q->N && res->bad_rank < 0; r++) {
            if (c.status[r] != COLL_OK || c.bad_elem[r] != (size_t)-1) {
                res->bad_rank = r;
                res->bad_status = c.status[r];
                res->bad_elem = c.bad_elem[r];
            }
        }
        for (int r = 0; r < q->N; r++)
            if (c.seconds[r] > res->seconds) res->seconds = c.seconds[r];
        res->seconds /= q->iters > 0 ? q->iters : 1;
    }
    free(c.status);
    free(c.bad_elem);
    free(c.seconds);
}

int run_max_ranks(void) { return COLL_CPU_MAX_RANKS; }

int run_blocks(coll_collective collective, int N) {
    int root = 0;
    return collref_in_blocks(collective, N, root, root) == N ||
                   collref_out_blocks(collective, N, root, root) == N
               ? N
               : 1;
}

double run_bus_factor(coll_collective collective, int N) {
    return collref_bus_factor(collective, N);
}
