/* op_queue.c - the per-step queue of receives and local operations that
 * every target runs in its coll_step_end, and the byte-level calls of
 * coll.h that fill it. Sends are the target's own (coll_send_bytes): they
 * leave at once on some targets and wait for room on others. */
#include <stdlib.h>
#include <string.h>
#include "collrt_internal.h"

/* Appends op; a sticky COLL_ERR_NOMEM when the queue cannot grow (the
 * array is kept from step to step: it grows only in the first calls). */
static void push(collrt_call *c, collrt_op op) {
    collrt_op_queue *q = &c->q;
    if (q->n == q->cap && !collrt_grow((void **)&q->ops, &q->cap, q->n + 1, sizeof *q->ops)) {
        collrt_fail(c, COLL_ERR_NOMEM);
        return;
    }
    q->ops[q->n++] = op;
}

/* A receive of `bytes` bytes, cut into pieces of c->segment bytes: both
 * sides cut a message by its length alone, so the pieces match. */
static void push_recv(collrt_call *c, collrt_op_kind kind, int peer, char *dst, const char *local,
                      size_t bytes) {
    size_t seg = c->segment;
    if (!seg || bytes <= seg) {
        push(c, (collrt_op){kind, peer, dst, local, NULL, bytes, 0});
        c->q.nrecvs++;
        return;
    }
    for (size_t off = 0; off < bytes; off += seg) {
        size_t n = bytes - off < seg ? bytes - off : seg;
        push(c, (collrt_op){kind, peer, dst + off, local ? local + off : NULL, NULL, n, 0});
        c->q.nrecvs++;
    }
}

void coll_recv_bytes(coll_call *call, int64_t peer, void *dst, size_t bytes) {
    collrt_call *c = COLLRT_CALL(call);
    if (!c || !collrt_postable(c, peer) || bytes == 0) return;
    push_recv(c, COLLRT_OP_RECV, (int)peer, dst, NULL, bytes);
}

void coll_recv_reduce_bytes(coll_call *call, int64_t peer, void *dst, const void *local,
                            size_t bytes) {
    collrt_call *c = COLLRT_CALL(call);
    if (!c || !collrt_postable(c, peer) || bytes == 0 || !collrt_reducible(c, bytes)) return;
    push_recv(c, COLLRT_OP_RECV_REDUCE, (int)peer, dst, local, bytes);
}

void coll_copy_bytes(coll_call *call, void *dst, const void *src, size_t bytes) {
    collrt_call *c = COLLRT_CALL(call);
    if (!c || !collrt_postable(c, 0) || bytes == 0 || dst == src) return;
    push(c, (collrt_op){COLLRT_OP_COPY, 0, dst, src, NULL, bytes, 0});
}

void coll_reduce_bytes(coll_call *call, void *dst, const void *a, const void *b, size_t bytes) {
    collrt_call *c = COLLRT_CALL(call);
    if (!c || !collrt_postable(c, 0) || bytes == 0 || !collrt_reducible(c, bytes)) return;
    push(c, (collrt_op){COLLRT_OP_REDUCE, 0, dst, a, b, bytes, 0});
}

void collrt_op_queue_free(collrt_op_queue *q) {
    free(q->ops);
    memset(q, 0, sizeof *q);
}
