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

/* Whether [dst, dst + bytes) overlaps the destination of a reduce posted
 * earlier in this step; if not, records it. Reduces into distinct memory
 * in ascending or descending order (the common case) take the quick test
 * against the hull only. */
static bool reduced_before(collrt_call *c, const char *dst, size_t bytes) {
    collrt_op_queue *q = &c->q;
    const char *end = dst + bytes;
    if (q->nreduced && dst < q->rhi && q->rlo < end)
        for (size_t i = 0; i < q->nreduced; i++)
            if (dst < q->reduced[i].hi && q->reduced[i].lo < end) return true;
    if (q->nreduced == q->capreduced &&
        !collrt_grow((void **)&q->reduced, &q->capreduced, q->nreduced + 1, sizeof *q->reduced)) {
        collrt_fail(c, COLL_ERR_NOMEM);
        return false;
    }
    if (!q->nreduced || dst < q->rlo) q->rlo = dst;
    if (!q->nreduced || end > q->rhi) q->rhi = end;
    q->reduced[q->nreduced++] = (struct collrt_span){dst, end};
    return false;
}

/* A staging area of `bytes` for the rest of the step, or NULL (sticky
 * COLL_ERR_NOMEM): the next kept area, grown if it is too small (only the
 * first calls of a kind allocate). */
bool collrt_stage_reserve(collrt_op_queue *q, size_t k, size_t bytes) {
    if (k >= q->nkept) {
        if (!collrt_grow((void **)&q->staged, &q->capstaged, k + 1, sizeof *q->staged))
            return false;
        while (q->nkept <= k) q->staged[q->nkept++] = (struct collrt_stage){NULL, 0};
    }
    struct collrt_stage *s = &q->staged[k];
    if (s->cap >= bytes) return true;
    free(s->p);
    s->cap = 0;
    if (!(s->p = malloc(bytes))) return false;
    s->cap = bytes;
    return true;
}

static char *stage(collrt_call *c, size_t bytes) {
    collrt_op_queue *q = &c->q;
    if (!collrt_stage_reserve(q, q->nstaged, bytes)) {
        collrt_fail(c, COLL_ERR_NOMEM);
        return NULL;
    }
    return q->staged[q->nstaged++].p;
}

void coll_recv_reduce_bytes(coll_call *call, int64_t peer, void *dst, const void *local,
                            size_t bytes) {
    collrt_call *c = COLLRT_CALL(call);
    if (!c || !collrt_postable(c, peer) || bytes == 0 || !collrt_reducible(c, bytes)) return;
    if (!reduced_before(c, dst, bytes)) {
        push_recv(c, COLLRT_OP_RECV_REDUCE, (int)peer, dst, local, bytes);
        return;
    }
    /* Another reduce of this step writes dst: receive aside, reduce late. */
    char *s = stage(c, bytes);
    if (!s) return;
    push_recv(c, COLLRT_OP_RECV, (int)peer, s, NULL, bytes);
    push(c, (collrt_op){COLLRT_OP_REDUCE_LATE, 0, dst, local, s, bytes, 0});
    c->q.nlate++;
}

void coll_copy_bytes(coll_call *call, void *dst, const void *src, size_t bytes) {
    collrt_call *c = COLLRT_CALL(call);
    if (!c || !collrt_postable(c, 0) || bytes == 0 || dst == src) return;
    push(c, (collrt_op){COLLRT_OP_COPY, 0, dst, src, NULL, bytes, 0});
}

void coll_reduce_bytes(coll_call *call, void *dst, const void *a, const void *b, size_t bytes) {
    collrt_call *c = COLLRT_CALL(call);
    if (!c || !collrt_postable(c, 0) || bytes == 0 || !collrt_reducible(c, bytes)) return;
    collrt_op_kind k = reduced_before(c, dst, bytes) ? COLLRT_OP_REDUCE_LATE : COLLRT_OP_REDUCE;
    push(c, (collrt_op){k, 0, dst, a, b, bytes, 0});
    if (k == COLLRT_OP_REDUCE_LATE) c->q.nlate++;
}

void collrt_run_late(collrt_call *c) {
    collrt_op_queue *q = &c->q;
    if (!q->nlate) return;
    for (size_t i = 0; i < q->n; i++) {
        collrt_op *op = &q->ops[i];
        if (op->kind != COLLRT_OP_REDUCE_LATE) continue;
        if (c->reduce) c->reduce(c, op->dst, op->a, op->b, op->bytes);
        else collrt_reduce(c->kern, c->esz, op->dst, op->a, op->b, op->bytes / c->esz);
    }
}

void collrt_step_done(collrt_call *c) {
    collrt_run_late(c);
    collrt_cow_land(c);
    c->step++;
}

void collrt_op_queue_free(collrt_op_queue *q) {
    for (size_t i = 0; i < q->nkept; i++) free(q->staged[i].p);
    free(q->ops);
    free(q->reduced);
    free(q->staged);
    memset(q, 0, sizeof *q);
}
