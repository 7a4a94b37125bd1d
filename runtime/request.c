/* request.c - the nonblocking form of a compiled collective (coll.h §3):
 * coll_start records the program once (the plan: its setup, its transfers
 * and local operations, step by step), coll_test / coll_wait replay it on
 * a real call of the target, posting step k's transfers and completing the
 * step without blocking before posting step k+1.
 *
 * The replay makes the very calls the blocking program makes, in the same
 * order, so deferred copies, copy-on-write and the targets' matching rules
 * behave exactly as in the blocking call: the results are the same bits. */
#include <stdint.h>
#include <stdlib.h>
#include "collrt_internal.h"

/* Where a request is in its plan. */
typedef enum req_phase {
    REQ_WAITING,   /* recorded, its tags reserved, to be launched
                      (collrt_start_deferred) */
    REQ_POST,      /* replaying ops from `next` up to the next step end */
    REQ_STEP,      /* the posted step is being completed */
    REQ_FINISH,    /* coll_finish(status) is being completed */
    REQ_DONE       /* finished: `status` is final */
} req_phase;

struct coll_request {
    coll_call *call;           /* the target's call (collrt_req_call), kept
                                  until the request is freed (its scratch
                                  with it) */
    collrt_recording plan;
    size_t next;               /* next op of the plan to post */
    req_phase phase;
    int status;                /* the program's status so far / final */
    int persistent;            /* made by coll_init: restarted by
                                  coll_request_start */
    /* the call's arguments (a persistent request starts with them again) */
    const coll_alg_info *info;
    const void *sendbuf;
    void *recvbuf;
    size_t count;
    coll_dtype dtype;
    coll_op op;
    int root;
    collrt_vgeom *vg;          /* per-block counts (collrt_start_v), or NULL */
};

/* ---- recording ---- */

void collrt_rec_add(collrt_call *c, collrt_rec_kind kind, int64_t peer, int a, int64_t x, int b,
                    int64_t y, int64_t n) {
    collrt_recording *r = c->rec;
    if (r->finished) return;
    if (!collrt_grow((void **)&r->ops, &r->cap, r->n + 1, sizeof *r->ops)) {
        r->nomem = 1;
        return;
    }
    r->ops[r->n++] = (collrt_rec){kind, a, b, peer, x, y, n};
    if (kind == COLLRT_REC_STEP) r->nsteps++;
}

int collrt_rec_setup(collrt_call *c, int64_t split, int nscratch, const int64_t *chunks) {
    collrt_recording *r = c->rec;
    if (r->replayed) return COLL_OK;
    int rc = collrt_rec_check_setup(c, split, nscratch, chunks);
    if (rc != COLL_OK) return rc;   /* the program finishes with rc next */
    r->split = split;
    r->nscratch = nscratch;
    for (int k = 0; k < nscratch; k++) r->chunks[k] = chunks[k];
    collrt_rec_add(c, COLLRT_REC_SETUP, 0, 0, 0, 0, 0, 0);
    return r->nomem ? COLL_ERR_NOMEM : COLL_OK;
}

int collrt_rec_step_end(collrt_call *c) {
    collrt_rec_add(c, COLLRT_REC_STEP, 0, 0, 0, 0, 0, 0);
    return c->rec->nomem ? COLL_ERR_NOMEM : COLL_OK;
}

int collrt_rec_finish(collrt_call *c, int status) {
    collrt_recording *r = c->rec;
    if (!r->finished) {
        r->finished = 1;
        r->status = r->nomem ? COLL_ERR_NOMEM : status;
    }
    return r->status;
}

int collrt_rec_begin(collrt_call *c, const coll_alg_info *info, int nranks, int me,
                     const void *sendbuf, void *recvbuf, size_t count, coll_dtype dtype,
                     coll_op op, int root) {
    collrt_recording *r = c->rec;
    int rc = collrt_begin_args(c, info, nranks, me, sendbuf, recvbuf, count, dtype, op, root);
    c->rec = r;     /* begin_args clears the call */
    if (rc == COLL_OK) r->began = 1;
    return rc;
}

size_t collrt_rec_tags(const collrt_recording *r) {
    return r->nsteps + (r->n ? 1 : 0);
}

/* ---- replay ---- */

static void free_request(coll_request *q) {
    if (q->call) collrt_req_call_free(q->call);
    free(q->plan.ops);
    free(q->vg);
    free(q);
}

/* Posts the plan's ops up to the next step end (then REQ_STEP) or the end
 * of the plan (then REQ_FINISH with the program's status). */
static void post_ops(coll_request *q) {
    coll_call *call = q->call;
    const collrt_recording *p = &q->plan;
    const collrt_trace *t = COLLRT_CALL(call)->replay;
    if (t) {   /* the flat plan: step `next` at once */
        collrt_trace_post(COLLRT_CALL(call), q->next);
        if (q->next++ < collrt_trace_steps(t)) {
            q->phase = REQ_STEP;
            return;
        }
        q->status = COLL_OK;
        q->phase = REQ_FINISH;
        return;
    }
    while (q->next < p->n) {
        const collrt_rec *o = &p->ops[q->next++];
        switch (o->kind) {
        case COLLRT_REC_SETUP: {
            int rc = coll_setup(call, p->split, p->nscratch, p->chunks);
            if (rc != COLL_OK) {   /* the program: return coll_finish(c, rc) */
                q->status = rc;
                q->phase = REQ_FINISH;
                return;
            }
            break;
        }
        case COLLRT_REC_SEND: coll_send(call, o->peer, o->a, o->x, o->y); break;
        case COLLRT_REC_RECV: coll_recv(call, o->peer, o->a, o->x, o->y); break;
        case COLLRT_REC_RECV_REDUCE: coll_recv_reduce(call, o->peer, o->a, o->x, o->y); break;
        case COLLRT_REC_RECV_REDUCE_COPY:
            coll_recv_reduce_copy(call, o->peer, o->a, o->x, o->b, o->y, o->n);
            break;
        case COLLRT_REC_COPY: coll_copy(call, o->a, o->x, o->b, o->y, o->n); break;
        case COLLRT_REC_REDUCE: coll_reduce(call, o->a, o->x, o->b, o->y, o->n); break;
        case COLLRT_REC_STEP: q->phase = REQ_STEP; return;
        }
    }
    q->status = p->status;
    q->phase = REQ_FINISH;
}

/* Advances the request as far as it can go without waiting (block = 0) or
 * to its end (block = 1). */
static void progress(coll_request *q, int block) {
    for (;;) {
        int done = 0, rc;
        switch (q->phase) {
        case REQ_POST: post_ops(q); break;
        case REQ_STEP:
            rc = collrt_step_progress(q->call, block, &done);
            if (!done) return;
            if (rc != COLL_OK) {   /* the program: return coll_finish(c, rc) */
                q->status = rc;
                q->phase = REQ_FINISH;
            } else {
                q->phase = REQ_POST;
            }
            break;
        case REQ_FINISH:
            rc = collrt_finish_progress(q->call, q->status, block, &done);
            if (!done) return;
            q->status = rc;
            q->phase = REQ_DONE;
            return;
        case REQ_WAITING:
        case REQ_DONE: return;
        }
    }
}

typedef int (*unrooted_fn)(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op);
typedef int (*rooted_fn)(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op, int);

/* Makes a request of the call and records its plan: the program runs on
 * the armed call without acting. NULL with *rc when the target has no call
 * for it. */
static coll_request *record(coll_comm *comm, const coll_alg_info *info, void (*fn)(void),
                            const void *sendbuf, void *recvbuf, size_t count, coll_dtype dtype,
                            coll_op op, int root, int *rc) {
    *rc = COLL_OK;
    if (!comm) {
        *rc = COLL_ERR_NULL_COMM;
        return NULL;
    }
    if (!fn || !info) *rc = COLL_ERR_INTERNAL;
    else if (info->abi_version != COLL_ABI_VERSION) *rc = COLL_ERR_ABI;
    else if ((unsigned)info->collective >= COLL_COLLECTIVE_COUNT) *rc = COLL_ERR_INTERNAL;
    if (*rc != COLL_OK) return NULL;
    coll_request *q = calloc(1, sizeof *q);
    if (!q) {
        *rc = COLL_ERR_NOMEM;
        return NULL;
    }
    q->call = collrt_req_call(comm, rc);
    if (!q->call) {
        free(q);
        return NULL;
    }
    *q = (coll_request){.call = q->call, .phase = REQ_DONE, .info = info, .sendbuf = sendbuf,
                        .recvbuf = recvbuf, .count = count, .dtype = dtype, .op = op, .root = root};
    COLLRT_CALL(q->call)->rec = &q->plan;
    collrt_arm(comm, q->call);
    int prc;
    if (collrt_collectives[info->collective].rooted)
        prc = ((rooted_fn)fn)(comm, sendbuf, recvbuf, count, dtype, op, root);
    else
        prc = ((unrooted_fn)fn)(comm, sendbuf, recvbuf, count, dtype, op);
    collrt_arm(comm, NULL);
    COLLRT_CALL(q->call)->rec = NULL;
    if (!q->plan.finished) q->plan.status = prc;
    return q;
}

/* Begins the call of q on the target with the plan's arguments and posts
 * its first step. */
static int begin(coll_request *q) {
    int rc = collrt_req_begin(q->call, q->info, q->sendbuf, q->recvbuf, q->count, q->dtype, q->op,
                              q->root, collrt_rec_tags(&q->plan));
    if (rc != COLL_OK) return rc;
    q->next = 0;
    q->status = COLL_OK;
    q->phase = REQ_POST;
    /* A persistent request replays the flat plan its first start recorded
     * (a nonblocking call is started once: it records none). */
    const collrt_trace *t = q->persistent ? collrt_trace_select(COLLRT_CALL(q->call)) : NULL;
    if (t && (rc = collrt_trace_replay_begin(COLLRT_CALL(q->call), t)) != COLL_OK) {
        q->status = rc;
        q->phase = REQ_FINISH;
    }
    progress(q, 0);
    return COLL_OK;
}

/* coll_start (persistent = 0) and coll_init (1), with the geometry vg of
 * per-block counts (taken over) or NULL. */
static int start_or_init(coll_comm *comm, const coll_alg_info *info, void (*fn)(void),
                         const void *sendbuf, void *recvbuf, size_t count, coll_dtype dtype,
                         coll_op op, int root, collrt_vgeom *vg, int persistent,
                         coll_request **req) {
    if (req) *req = NULL;
    if (!req) {
        free(vg);
        return comm ? COLL_ERR_INTERNAL : COLL_ERR_NULL_COMM;
    }
    int rc;
    coll_request *q = record(comm, info, fn, sendbuf, recvbuf, count, dtype, op, root, &rc);
    if (!q) {
        free(vg);
        return rc;
    }
    q->vg = vg;
    COLLRT_CALL(q->call)->vg = vg;
    if (persistent) {
        /* what the blocking call returns without communicating */
        if (!q->plan.began) rc = q->plan.status != COLL_OK ? q->plan.status : COLL_ERR_INTERNAL;
        else if (q->plan.nomem) rc = COLL_ERR_NOMEM;
        else if (q->plan.n == 0) rc = q->plan.status;   /* a failed `require` */
        else rc = COLL_OK;
        if (rc != COLL_OK) {
            free_request(q);
            return rc;
        }
        q->persistent = 1;
        *req = q;
        return COLL_OK;
    }
    /* The real begin fails exactly when the recording one did, with the
     * target's side effects (peers told); a program that ends before
     * communicating (count 0, a failed `require`) ends in it, as the
     * blocking call does. */
    rc = begin(q);
    if (rc == COLL_OK && !q->plan.began) rc = COLL_ERR_INTERNAL;
    if (rc == COLL_OK && q->phase == REQ_DONE) rc = q->status;
    if (rc != COLL_OK) {
        free_request(q);
        return rc;
    }
    *req = q;
    return COLL_OK;
}

int coll_start(coll_comm *comm, const coll_alg_info *info, void (*fn)(void), const void *sendbuf,
               void *recvbuf, size_t count, coll_dtype dtype, coll_op op, int root,
               coll_request **req) {
    return start_or_init(comm, info, fn, sendbuf, recvbuf, count, dtype, op, root, NULL, 0, req);
}

int coll_init(coll_comm *comm, const coll_alg_info *info, void (*fn)(void), const void *sendbuf,
              void *recvbuf, size_t count, coll_dtype dtype, coll_op op, int root,
              coll_request **req) {
    return start_or_init(comm, info, fn, sendbuf, recvbuf, count, dtype, op, root, NULL, 1, req);
}

int collrt_start_v(coll_comm *comm, const coll_alg_info *info, void (*fn)(void),
                   const void *sendbuf, void *recvbuf, size_t count, coll_dtype dtype, coll_op op,
                   int root, collrt_vgeom *vg, int persistent, coll_request **req) {
    return start_or_init(comm, info, fn, sendbuf, recvbuf, count, dtype, op, root, vg, persistent,
                         req);
}

int collrt_request_restart(coll_request *req, const void *sendbuf, void *recvbuf) {
    if (!req || !req->persistent) return COLL_ERR_INTERNAL;
    if (req->phase != REQ_DONE) return COLL_ERR_BUSY;
    req->sendbuf = sendbuf;
    req->recvbuf = recvbuf;
    return begin(req);
}

int coll_request_start(coll_request *req) {
    return req ? collrt_request_restart(req, req->sendbuf, req->recvbuf) : COLL_ERR_INTERNAL;
}

int coll_test(coll_request *req, int *done) {
    if (done) *done = 0;
    if (!req) return COLL_ERR_INTERNAL;
    progress(req, 0);
    if (req->phase != REQ_DONE) return COLL_OK;
    if (done) *done = 1;
    return req->status;
}

int coll_wait(coll_request *req) {
    if (!req || req->phase == REQ_WAITING) return COLL_ERR_INTERNAL;
    progress(req, 1);
    return req->status;
}

int coll_request_free(coll_request *req) {
    if (!req) return COLL_OK;
    if (req->phase != REQ_DONE && req->phase != REQ_WAITING) return COLL_ERR_BUSY;
    free_request(req);
    return COLL_OK;
}

int collrt_start_deferred(coll_comm *comm, const coll_alg_info *info, void (*fn)(void),
                          coll_dtype dtype, coll_op op, int root, coll_request **req) {
    if (req) *req = NULL;
    if (!req) return comm ? COLL_ERR_INTERNAL : COLL_ERR_NULL_COMM;
    /* recorded on buffers it never touches, far apart (no overlap) */
    const void *in = (const void *)((uintptr_t)1 << 44);
    void *out = (void *)((uintptr_t)2 << 44);
    int rc;
    coll_request *q = record(comm, info, fn, in, out, 1, dtype, op, root, &rc);
    if (!q) return rc;
    if (!q->plan.began) rc = q->plan.status != COLL_OK ? q->plan.status : COLL_ERR_INTERNAL;
    else if (q->plan.nomem) rc = COLL_ERR_NOMEM;
    else if (q->plan.n == 0) rc = q->plan.status;   /* a failed `require` */
    if (rc != COLL_OK) {
        free_request(q);
        return rc;
    }
    collrt_req_reserve(q->call, collrt_rec_tags(&q->plan));
    q->phase = REQ_WAITING;
    *req = q;
    return COLL_OK;
}

int collrt_request_launch(coll_request *q, const void *sendbuf, void *recvbuf, collrt_vgeom *vg) {
    if (!q || q->phase != REQ_WAITING) {
        free(vg);
        return COLL_ERR_INTERNAL;
    }
    free(q->vg);
    q->vg = vg;
    COLLRT_CALL(q->call)->vg = vg;
    q->sendbuf = sendbuf;
    q->recvbuf = recvbuf;
    q->phase = REQ_DONE;   /* unless it begins */
    int rc = begin(q);
    if (rc != COLL_OK) q->status = rc;
    return rc;
}
