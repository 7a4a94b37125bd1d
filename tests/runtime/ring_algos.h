/* ring_algos.h - collectives written by hand against the transport ABI of
 * coll.h, exactly as `collc compile` would emit them (per-rank programs,
 * chunk-level calls). Used by the runtime tests and the cpu benchmarks.
 *
 *   ring_allgather        split 1; N-1 steps
 *   ring_allreduce        split N; reduce-scatter with the fused
 *                         receive-reduce-copy, then allgather (2(N-1) steps)
 *   ring_allreduce_rr     same, but an initial local copy + coll_recv_reduce
 *   ring_allreduce_tmp    receives into a scratch buffer, reduces locally in
 *                         a separate step (coll_recv + coll_reduce), and is
 *                         not marked in-place safe (private input copy)
 *   linear_broadcast      rooted: root sends to everyone (split 2)
 *   flat_alltoall         one step, every block sent as P separate messages
 *                         (more messages per pair and step than a channel
 *                         holds: exercises the deferred-publish path) */
#ifndef RING_ALGOS_H
#define RING_ALGOS_H

#include "coll.h"

#define MOD(a, n) ((((a) % (n)) + (n)) % (n))
#define STEP_END(c)                                                            \
    do {                                                                       \
        int rc_ = coll_step_end(c);                                            \
        if (rc_ != COLL_OK) return coll_finish(c, rc_);                        \
    } while (0)

static const coll_alg_info ring_allgather_info = {COLL_ABI_VERSION, "ring_allgather",
                                                  COLL_ALLGATHER, COLL_ALG_INPLACE_SAFE};

static inline int ring_allgather(coll_comm *comm, const void *sendbuf, void *recvbuf,
                          size_t count, coll_dtype dtype, coll_op op) {
    coll_call *c;
    int rc = coll_begin(comm, &ring_allgather_info, sendbuf, recvbuf, count, dtype, op,
                        0, &c);
    if (rc != COLL_OK) return rc;
    int64_t N = coll_comm_size(comm), me = coll_comm_rank(comm);
    if (count == 0) return coll_finish(c, COLL_OK);
    rc = coll_setup(c, 1, 0, NULL);
    if (rc != COLL_OK) return coll_finish(c, rc);
    coll_copy(c, COLL_BUF_IN, 0, COLL_BUF_OUT, me, 1);
    STEP_END(c);
    for (int64_t s = 0; s < N - 1; s++) {
        int64_t k = MOD(me - s, N), j = MOD(me - 1 - s, N);
        coll_send(c, MOD(me + 1, N), COLL_BUF_OUT, k, k + 1);
        coll_recv(c, MOD(me - 1, N), COLL_BUF_OUT, j, j + 1);
        STEP_END(c);
    }
    return coll_finish(c, COLL_OK);
}

/* variant: 0 fused, 1 copy + recv_reduce, 2 scratch + local reduce */
static inline int ring_allreduce_v(coll_comm *comm, const void *sendbuf, void *recvbuf,
                            size_t count, coll_dtype dtype, coll_op op,
                            const coll_alg_info *info, int variant) {
    coll_call *c;
    int rc = coll_begin(comm, info, sendbuf, recvbuf, count, dtype, op, 0, &c);
    if (rc != COLL_OK) return rc;
    int64_t N = coll_comm_size(comm), me = coll_comm_rank(comm);
    if (count == 0) return coll_finish(c, COLL_OK);
    int64_t tmp_chunks[1] = {N};
    rc = coll_setup(c, N, variant == 2 ? 1 : 0, tmp_chunks);
    if (rc != COLL_OK) return coll_finish(c, rc);
    int64_t right = MOD(me + 1, N), left = MOD(me - 1, N);
    if (N == 1 || variant != 0) {
        coll_copy(c, COLL_BUF_IN, 0, COLL_BUF_OUT, 0, N);
        STEP_END(c);
    }
    /* reduce-scatter: after step s, out[me][me-1-s] holds s+2 contributions */
    for (int64_t s = 0; s < N - 1; s++) {
        int64_t k = MOD(me - s, N), j = MOD(me - 1 - s, N);
        int sbuf = (variant == 0 && s == 0) ? COLL_BUF_IN : COLL_BUF_OUT;
        coll_send(c, right, sbuf, k, k + 1);
        if (variant == 0) {
            coll_recv_reduce_copy(c, left, COLL_BUF_IN, j, COLL_BUF_OUT, j, 1);
        } else if (variant == 1) {
            coll_recv_reduce(c, left, COLL_BUF_OUT, j, j + 1);
        } else {
            coll_recv(c, left, COLL_BUF_SCRATCH0, j, j + 1);
            STEP_END(c);
            coll_reduce(c, COLL_BUF_SCRATCH0, j, COLL_BUF_OUT, j, 1);
        }
        STEP_END(c);
    }
    /* allgather of the reduced chunks: rank me owns chunk me+1 */
    for (int64_t t = 0; t < N - 1; t++) {
        int64_t k = MOD(me + 1 - t, N), j = MOD(me - t, N);
        coll_send(c, right, COLL_BUF_OUT, k, k + 1);
        coll_recv(c, left, COLL_BUF_OUT, j, j + 1);
        STEP_END(c);
    }
    return coll_finish(c, COLL_OK);
}

static const coll_alg_info ring_allreduce_info = {COLL_ABI_VERSION, "ring_allreduce",
                                                  COLL_ALLREDUCE, COLL_ALG_INPLACE_SAFE};
static const coll_alg_info ring_allreduce_rr_info = {
    COLL_ABI_VERSION, "ring_allreduce_rr", COLL_ALLREDUCE, COLL_ALG_INPLACE_SAFE};
static const coll_alg_info ring_allreduce_tmp_info = {COLL_ABI_VERSION,
                                                      "ring_allreduce_tmp",
                                                      COLL_ALLREDUCE, 0};

static inline int ring_allreduce(coll_comm *comm, const void *sendbuf, void *recvbuf,
                          size_t count, coll_dtype dtype, coll_op op) {
    return ring_allreduce_v(comm, sendbuf, recvbuf, count, dtype, op,
                            &ring_allreduce_info, 0);
}
static inline int ring_allreduce_rr(coll_comm *comm, const void *sendbuf, void *recvbuf,
                             size_t count, coll_dtype dtype, coll_op op) {
    return ring_allreduce_v(comm, sendbuf, recvbuf, count, dtype, op,
                            &ring_allreduce_rr_info, 1);
}
static inline int ring_allreduce_tmp(coll_comm *comm, const void *sendbuf, void *recvbuf,
                              size_t count, coll_dtype dtype, coll_op op) {
    return ring_allreduce_v(comm, sendbuf, recvbuf, count, dtype, op,
                            &ring_allreduce_tmp_info, 2);
}

static const coll_alg_info linear_broadcast_info = {COLL_ABI_VERSION, "linear_broadcast",
                                                    COLL_BROADCAST, COLL_ALG_INPLACE_SAFE};

static inline int linear_broadcast(coll_comm *comm, const void *sendbuf, void *recvbuf,
                            size_t count, coll_dtype dtype, coll_op op, int root) {
    coll_call *c;
    int rc = coll_begin(comm, &linear_broadcast_info, sendbuf, recvbuf, count, dtype, op,
                        root, &c);
    if (rc != COLL_OK) return rc;
    int64_t N = coll_comm_size(comm), me = coll_comm_rank(comm);
    if (count == 0) return coll_finish(c, COLL_OK);
    rc = coll_setup(c, 2, 0, NULL);
    if (rc != COLL_OK) return coll_finish(c, rc);
    if (me == root) {
        for (int64_t r = 0; r < N; r++)
            if (r != root) {
                coll_send(c, r, COLL_BUF_IN, 0, 1);  /* two messages per peer: */
                coll_send(c, r, COLL_BUF_IN, 1, 2);  /* FIFO matching */
            }
        coll_copy(c, COLL_BUF_IN, 0, COLL_BUF_OUT, 0, 2);
    } else {
        coll_recv(c, root, COLL_BUF_OUT, 0, 1);
        coll_recv(c, root, COLL_BUF_OUT, 1, 2);
    }
    STEP_END(c);
    return coll_finish(c, COLL_OK);
}

static const coll_alg_info flat_alltoall_info = {COLL_ABI_VERSION, "flat_alltoall",
                                                 COLL_ALLTOALL, 0};

static inline int flat_alltoall(coll_comm *comm, const void *sendbuf, void *recvbuf,
                         size_t count, coll_dtype dtype, coll_op op, int64_t P) {
    coll_call *c;
    int rc = coll_begin(comm, &flat_alltoall_info, sendbuf, recvbuf, count, dtype, op,
                        0, &c);
    if (rc != COLL_OK) return rc;
    int64_t N = coll_comm_size(comm), me = coll_comm_rank(comm);
    if (count == 0) return coll_finish(c, COLL_OK);
    rc = coll_setup(c, P, 0, NULL);
    if (rc != COLL_OK) return coll_finish(c, rc);
    /* out[me][block r] = in[r][block me] */
    for (int64_t d = 1; d < N; d++) {
        int64_t r = MOD(me + d, N);
        for (int64_t k = 0; k < P; k++) coll_send(c, r, COLL_BUF_IN, r * P + k, r * P + k + 1);
    }
    for (int64_t d = 1; d < N; d++) {
        int64_t r = MOD(me - d, N);
        for (int64_t k = 0; k < P; k++) coll_recv(c, r, COLL_BUF_OUT, r * P + k, r * P + k + 1);
    }
    coll_copy(c, COLL_BUF_IN, me * P, COLL_BUF_OUT, me * P, P);
    STEP_END(c);
    return coll_finish(c, COLL_OK);
}

#endif
