/* mpi_transport.c - the transport ABI of coll.h over MPI point-to-point.
 *
 * Design (docs/mpi.md has the rationale):
 *  - A coll_comm wraps a private duplicate of the application's
 *    communicator (MPI_Comm_dup, MPI_ERRORS_RETURN), cached on the
 *    application's communicator with an attribute: collc's messages can
 *    never match the application's, and the dup is made once.
 *  - Every step uses its own tag (a per-communicator step counter modulo
 *    MPI_TAG_UB + 1), so messages of different steps cannot match even when
 *    a sender runs steps ahead; within a step MPI's non-overtaking rule
 *    gives coll.h's FIFO matching per ordered pair.
 *  - A request's coll_send posts MPI_Isend at once; a blocking call's
 *    sends are posted by its step end, first (a race-free step never writes
 *    what it sends, so the send reads the same bytes). Receives and local
 *    operations are queued and started by coll_step_end: MPI_Irecv for every
 *    receive in program order (receive-reduces land in a staging area or in
 *    their destination), local copies and reductions, then MPI_Waitany,
 *    reducing each message as it completes, until every receive of the step
 *    is done. A blocking step whose transfers are one send and one receive
 *    is one MPI_Sendrecv, one receive alone one MPI_Recv (the shape of
 *    every step of a two-rank exchange, and of most small calls), after its
 *    local operations if they are small: no request, nothing left to wait
 *    for at the end of the call.
 *  - Sends outlive their step: a rank goes on as soon as its receives are
 *    done (a broadcast root posts its sends of all steps back to back, the
 *    way a tree broadcast posts all its children). coll.h lets a program
 *    overwrite a range it sent from the next step on, so an operation that
 *    writes memory an earlier step's send still reads waits for that send
 *    first (before_write), and coll_finish waits for all of them. A step
 *    cannot deadlock on this: the receive of an earlier step's send is
 *    posted by its step end, which never waits for a later step.
 *  - Messages above a segment size (COLLMPI_SEGMENT bytes, default 1 MiB)
 *    are cut into segments by both sides (the cut depends only on the byte
 *    length, which both sides know), so reductions overlap the transfers of
 *    the following segments and no count exceeds INT_MAX.
 *  - Scratch and staging memory are allocated once per communicator and
 *    grown when a call needs more (fresh pages are expensive).
 *  - MPI errors become COLL_ERR_TRANSPORT (the MPI code is kept).
 *  - Two kinds of coll_comm use no MPI at all (mpi == MPI_COMM_NULL): the
 *    thread's solo communicator, which runs every call on a communicator of
 *    size 1 (its messages go to itself through a local queue, so MPI_COMM_SELF
 *    and the like never get a duplicate, an attribute or a step counter),
 *    and the probe, on which a compiled program runs with count 0 to learn
 *    whether its `require`s hold for (N, root) without any side effect. */
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

typedef struct sent {
    MPI_Request req;        /* MPI_REQUEST_NULL until posted */
    const char *p;          /* the bytes it reads */
    size_t bytes;
    uint64_t step;          /* the call's step (tag counter) it was posted in */
    int peer;
} sent;

struct coll_call {
    collrt_call b;          /* must be first: common code views it; its op
                               queue holds the step's receives (mark of a
                               receive-reduce: its offset in the staging
                               area, SIZE_MAX: none) and local operations */
    struct coll_comm *comm;
    uint64_t step;          /* the tag counter of the current step */
    uint64_t step0;         /* ... when the call began */
    int req;                /* the call of a request (own tags, freed with it) */
    int reserved;           /* its tags were taken before its begin, from: */
    uint64_t step_base;
    int posted;             /* a request's step has posted its receives */
    MPI_Request *reqs;      /* this step's receive requests */
    int *req_op;            /* [nreqs] index of the queued op of each receive */
    size_t nreqs, cap_reqs, left;  /* left: receives of the step not done */
    sent *sends;            /* sends not known to be complete, of any step */
    size_t nsends, cap_sends;
    size_t unposted;        /* sends[nsends - unposted, nsends): this step's,
                               posted by its step end (blocking calls) */
    char *stage;
    size_t stage_cap;
    int user_op;            /* reduce with MPI_Reduce_local(uop, udt) */
    MPI_Op uop;
    MPI_Datatype udt;
    /* No MPI (comm->mpi == MPI_COMM_NULL): a solo communicator's sends to
     * itself wait here, in posting order, for the receives of their step. */
    size_t nself;           /* sends[0, nself) are messages to self */
};

struct coll_comm {
    MPI_Comm mpi;           /* private duplicate */
    int rank, nranks;
    int tag_ub;
    uint64_t step;          /* tags handed out so far: blocking calls take
                               them one per step, a request all of its own at
                               its start */
    size_t seg;             /* segment size in bytes (multiple of 64) */
    struct coll_call call;  /* the blocking calls' */
    struct coll_call *arm;  /* the next coll_begin records into it (collrt_arm) */
    int user_op;            /* for the next call (collmpi_comm_set_user_op) */
    MPI_Op uop;
    MPI_Datatype udt;
    int mpi_err;            /* MPI code of the last transport failure */
    int probe;              /* a probe (see collmpi_probe_comm); it records
                               the algorithm it ran: */
    const coll_alg_info *probed;
    /* A blocking call that replayed its flat plan in coll_begin absorbs
     * the program's calls into this (finished) recording, or with
     * `end_early` returns COLLMPI_REPLAYED (collmpi_comm_end_early). */
    collrt_recording replayed;
    int end_early;
};

static void call_free(struct coll_call *cl) {
    free(cl->sends);
    free(cl->reqs);
    free(cl->req_op);
    free(cl->stage);
    collrt_call_free(&cl->b);
}

/* ---- communicator cache ---- */

static int keyval = MPI_KEYVAL_INVALID;
static int keyval_err = MPI_SUCCESS;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;
static _Thread_local int from_mpi_err = MPI_SUCCESS;

/* Bumped whenever a cached coll_comm is freed (its communicator freed, or
 * MPI_Finalize): the per-thread memory of the last lookup below, and the
 * decisions collmpi.c keeps, are valid only in the epoch they were made in,
 * so a communicator handle that MPI reuses never finds a freed coll_comm. */
static unsigned long comm_epoch;
static _Thread_local struct {
    MPI_Comm comm;
    coll_comm *cc;          /* NULL: nothing remembered */
    unsigned long epoch;
} last_lookup;

unsigned long collmpi_comm_epoch(void) { return __atomic_load_n(&comm_epoch, __ATOMIC_ACQUIRE); }

static void free_comm(coll_comm *c) {
    if (c->mpi != MPI_COMM_NULL) PMPI_Comm_free(&c->mpi);
    call_free(&c->call);
    free(c);
}

static int delete_attr(MPI_Comm comm, int kv, void *val, void *extra) {
    (void)comm;
    (void)kv;
    (void)extra;
    __atomic_add_fetch(&comm_epoch, 1, __ATOMIC_ACQ_REL);
    free_comm(val);
    return MPI_SUCCESS;
}

static void make_keyval(void) {
    keyval_err = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_attr, &keyval, NULL);
}

int collmpi_from_mpi_error(void) { return from_mpi_err; }

static size_t segment_size(void) {
    const char *e = getenv("COLLMPI_SEGMENT");
    long long v = e && *e ? atoll(e) : (1 << 20);
    if (v <= 0 || v > (1LL << 30)) v = 1LL << 30;   /* 0: no segmentation */
    return ((size_t)v + 63) & ~(size_t)63;
}

/* A communicator of no MPI communicator yet. Its record of a replayed
 * call is set once here: a replay only writes its status. */
static coll_comm *comm_new(void) {
    coll_comm *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->mpi = MPI_COMM_NULL;
    c->call.comm = c;
    c->replayed = (collrt_recording){.began = 1, .finished = 1, .replayed = 1};
    return c;
}

coll_comm *collmpi_comm_cached(MPI_Comm comm) {
    void *val = NULL;
    int found = 0;
    if (comm == MPI_COMM_NULL) return NULL;
    unsigned long epoch = collmpi_comm_epoch();
    /* the common case: the communicator of the thread's previous call */
    if (last_lookup.cc && last_lookup.comm == comm && last_lookup.epoch == epoch)
        return last_lookup.cc;
    pthread_once(&keyval_once, make_keyval);
    if (keyval_err != MPI_SUCCESS || PMPI_Comm_get_attr(comm, keyval, &val, &found) != MPI_SUCCESS ||
        !found)
        return NULL;
    last_lookup.comm = comm;
    last_lookup.cc = val;
    last_lookup.epoch = epoch;
    return val;
}

int coll_comm_from_mpi(MPI_Comm comm, coll_comm **out) {
    from_mpi_err = MPI_SUCCESS;
    if (!out) return COLL_ERR_NULL_COMM;
    *out = NULL;
    if (comm == MPI_COMM_NULL) return COLL_ERR_NULL_COMM;
    /* Only intracommunicators get the attribute: a cached one needs no
     * more checks (the common case, one MPI call). */
    if ((*out = collmpi_comm_cached(comm))) return COLL_OK;
    int inter = 0, rc = PMPI_Comm_test_inter(comm, &inter);
    if (rc != MPI_SUCCESS) {
        from_mpi_err = rc;
        return COLL_ERR_TRANSPORT;
    }
    if (inter) return COLL_ERR_NULL_COMM;
    if (keyval_err != MPI_SUCCESS) {
        from_mpi_err = keyval_err;
        return COLL_ERR_TRANSPORT;
    }
    coll_comm *c = comm_new();
    if (!c) return COLL_ERR_NOMEM;
    c->seg = segment_size();
    /* Collective: every rank reaches this on its first collc call on comm. */
    rc = PMPI_Comm_dup(comm, &c->mpi);
    if (rc == MPI_SUCCESS) rc = PMPI_Comm_set_errhandler(c->mpi, MPI_ERRORS_RETURN);
    if (rc == MPI_SUCCESS) rc = PMPI_Comm_rank(c->mpi, &c->rank);
    if (rc == MPI_SUCCESS) rc = PMPI_Comm_size(c->mpi, &c->nranks);
    int *ub = NULL, found = 0;
    if (rc == MPI_SUCCESS) rc = PMPI_Comm_get_attr(c->mpi, MPI_TAG_UB, &ub, &found);
    if (rc == MPI_SUCCESS) c->tag_ub = found && ub && *ub > 0 ? *ub : 32767;
    if (rc == MPI_SUCCESS) rc = PMPI_Comm_set_attr(comm, keyval, c);
    if (rc != MPI_SUCCESS) {
        free_comm(c);
        from_mpi_err = rc;
        return COLL_ERR_TRANSPORT;
    }
    *out = c;
    return COLL_OK;
}

/* The calling thread's solo communicator, freed when the thread exits. */
static pthread_key_t solo_key;
static int solo_key_err;
static pthread_once_t solo_once = PTHREAD_ONCE_INIT;
static _Thread_local coll_comm *solo;

static void free_solo(void *c) { free_comm(c); }
static void make_solo_key(void) { solo_key_err = pthread_key_create(&solo_key, free_solo); }

coll_comm *collmpi_solo_comm(void) {
    if (solo) return solo;
    pthread_once(&solo_once, make_solo_key);
    coll_comm *c = comm_new();
    if (!c) return NULL;
    c->nranks = 1;
    c->seg = segment_size();
    c->tag_ub = INT_MAX;
    if (solo_key_err || pthread_setspecific(solo_key, c)) {
        free(c);
        return NULL;
    }
    return solo = c;
}

/* The probe needs no memory of its own (a probe run posts nothing), so it
 * cannot fail for want of it. */
static _Thread_local coll_comm probe;

coll_comm *collmpi_probe_comm(int nranks, int rank) {
    coll_comm *c = &probe;
    collrt_call_free(&c->call.b);   /* nothing, unless a program set up anyway */
    c->mpi = MPI_COMM_NULL;
    c->call.comm = c;
    c->call.b.active = 0;
    c->nranks = nranks;
    c->rank = rank;
    c->seg = (size_t)1 << 30;
    c->tag_ub = INT_MAX;
    c->probe = 1;
    c->probed = NULL;
    c->call.nself = c->call.nsends = c->call.nreqs = 0;
    return c;
}

const coll_alg_info *collmpi_probed(const coll_comm *c) { return c ? c->probed : NULL; }

int collmpi_record_rank(int nranks, int rank, void (*fn)(void), int rooted, coll_dtype dtype,
                        coll_op op, int root, collrt_recording *out) {
    /* The buffers are never touched while recording: distinct addresses
     * far apart, so that no overlap check refuses them. */
    static _Thread_local struct coll_call cl;
    memset(out, 0, sizeof *out);
    coll_comm *pc = collmpi_probe_comm(nranks, rank);
    memset(&cl, 0, sizeof cl);
    cl.comm = pc;
    cl.b.rec = out;
    pc->arm = &cl;
    const void *in = (const void *)((uintptr_t)1 << 44);
    void *o = (void *)((uintptr_t)2 << 44);
    int rc = rooted ? ((collmpi_rooted_fn)fn)(pc, in, o, 1, dtype, op, root)
                    : ((collmpi_fn)fn)(pc, in, o, 1, dtype, op);
    pc->arm = NULL;
    cl.b.rec = NULL;
    collrt_call_free(&cl.b);
    if (!out->finished) out->status = rc;
    return out->began && out->status == COLL_OK && !out->nomem ? COLL_OK : COLL_ERR_NOT_APPLICABLE;
}

MPI_Comm coll_comm_mpi(const coll_comm *c) { return c ? c->mpi : MPI_COMM_NULL; }
int coll_comm_rank(const coll_comm *c) { return c ? c->rank : -1; }
int coll_comm_size(const coll_comm *c) { return c ? c->nranks : -1; }

void collmpi_comm_end_early(coll_comm *c, int on) { c->end_early = on; }
int collmpi_replayed_status(const coll_comm *c) { return c->replayed.status; }

void collmpi_comm_set_user_op(coll_comm *c, int on, MPI_Op op, MPI_Datatype dt) {
    c->user_op = on;
    c->uop = op;
    c->udt = dt;
}

int collmpi_comm_mpi_error(const coll_comm *c) { return c ? c->mpi_err : MPI_SUCCESS; }

/* ---- helpers ---- */


static void mpi_fail(struct coll_call *cl, int rc) {
    if (cl->b.status == COLL_OK) cl->comm->mpi_err = rc;
    collrt_fail(&cl->b, COLL_ERR_TRANSPORT);
}

/* dst := a (+) b (dst may equal a or b). */
static void reduce(struct coll_call *cl, char *dst, const char *a, const char *b, size_t bytes) {
    size_t esz = cl->b.esz;
    if (!cl->user_op) {
        collrt_reduce(cl->b.kern, esz, dst, a, b, bytes / esz);
        return;
    }
    /* MPI_Reduce_local(in, inout): inout := in (+) inout. Only commutative
     * ops get here (collmpi_map), so the operand order is free. */
    const char *in = b;
    if (dst == b) {
        in = a;
    } else if (dst != a) {
        memmove(dst, a, bytes);
    }
    size_t n = bytes / esz;
    while (n) {
        int k = n > (size_t)INT_MAX ? INT_MAX : (int)n;
        int rc = PMPI_Reduce_local(in, dst, k, cl->udt, cl->uop);
        if (rc != MPI_SUCCESS) {
            mpi_fail(cl, rc);
            return;
        }
        in += (size_t)k * esz;
        dst += (size_t)k * esz;
        n -= (size_t)k;
    }
}

static int tag_of(const struct coll_call *cl) {
    return (int)(cl->step % ((uint64_t)cl->comm->tag_ub + 1));
}

static void reset_step(struct coll_call *cl) {
    cl->nreqs = 0;
    cl->left = 0;
    cl->posted = 0;
    collrt_op_queue_clear(&cl->b.q);
}

/* Drops the requests of an abandoned call. Sends complete in the
 * background; receives were only posted if the step got that far. */
static void drop_requests(struct coll_call *cl) {
    cl->nself = 0;
    for (size_t i = 0; i < cl->nreqs; i++)
        if (cl->reqs[i] != MPI_REQUEST_NULL) PMPI_Request_free(&cl->reqs[i]);
    for (size_t i = 0; i < cl->nsends; i++)
        if (cl->sends[i].req != MPI_REQUEST_NULL) PMPI_Request_free(&cl->sends[i].req);
    cl->nsends = 0;
    cl->unposted = 0;
}

/* Waits for the outstanding sends of earlier steps that read [p, p +
 * bytes) (all outstanding sends when p is NULL) and forgets them. A send of
 * the current step is never waited for here: its receiver may be waiting for
 * ours. With `test` it only tests them: false when one is still
 * outstanding (those that completed are forgotten). */
static bool settle_sends(struct coll_call *cl, const void *p, size_t bytes, int test) {
    /* sends are kept in posting order: none of an earlier step if the first
     * is of this one */
    if (!cl->nsends || (p && cl->sends[0].step == cl->step)) return true;
    const char *lo = p, *hi = lo + bytes;
    size_t keep = 0;
    bool all = true;
    for (size_t i = 0; i < cl->nsends; i++) {
        sent *x = &cl->sends[i];
        if (p && (x->step == cl->step || x->p >= hi || x->p + x->bytes <= lo)) {
            cl->sends[keep++] = *x;
            continue;
        }
        int flag = 1, rc = test ? PMPI_Test(&x->req, &flag, MPI_STATUS_IGNORE)
                                : PMPI_Wait(&x->req, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) mpi_fail(cl, rc);
        if (!flag && rc == MPI_SUCCESS) {
            cl->sends[keep++] = *x;
            all = false;
        }
    }
    cl->nsends = keep;
    return all;
}

static void wait_sends(struct coll_call *cl, const void *p, size_t bytes) {
    settle_sends(cl, p, bytes, 0);
}

/* collrt_call.reduce of a call with a user op. */
static void reduce_hook(collrt_call *b, char *dst, const char *x, const char *y, size_t bytes) {
    reduce((struct coll_call *)(void *)b, dst, x, y, bytes);
}

/* collrt_call.before_write: the runtime writes [p, p + bytes) itself. */
static void before_write(collrt_call *b, void *p, size_t bytes) {
    wait_sends((struct coll_call *)(void *)b, p, bytes);
}

/* ---- calls ---- */

static int replay(struct coll_call *cl, const collrt_trace *t);

/* coll_begin on a given call of comm. */
static int begin_on(coll_comm *comm, struct coll_call *cl, const coll_alg_info *info,
                    const void *sendbuf, void *recvbuf, size_t count, coll_dtype dtype,
                    coll_op op, int root) {
    if (comm->probe) comm->probed = info;
    int rc = collrt_begin_args(&cl->b, info, comm->nranks, comm->rank, sendbuf, recvbuf, count,
                               dtype, op, root);
    if (rc != COLL_OK) return rc;
    cl->b.hooks_ok = 1; /* collrt_step_done, collrt_defer_flush */
    cl->b.before_write = before_write;
    cl->user_op = comm->user_op;
    cl->uop = comm->uop;
    cl->udt = comm->udt;
    comm->user_op = 0;
    if (cl->user_op) cl->b.reduce = reduce_hook;
    cl->b.segment = comm->seg;
    /* the flat plan's key: the reductions' MPI op */
    cl->b.trace_key[0] = (uintptr_t)cl->user_op;
    cl->b.trace_key[1] = (uintptr_t)cl->uop;
    cl->b.trace_key[2] = (uintptr_t)cl->udt;
    cl->b.traces_ok = 1;
    cl->b.active = 1;
    cl->nreqs = 0;
    cl->nself = 0;
    cl->unposted = 0;
    cl->left = 0;
    cl->posted = 0;
    cl->step0 = cl->step = comm->step;
    return COLL_OK;
}

int coll_begin(coll_comm *comm, const coll_alg_info *info, const void *sendbuf,
               void *recvbuf, size_t count, coll_dtype dtype, coll_op op, int root,
               coll_call **call) {
    if (comm && comm->arm && call) {   /* coll_start records (request.c) */
        struct coll_call *cl = comm->arm;
        comm->arm = NULL;
        *call = NULL;
        int rc = collrt_rec_begin(&cl->b, info, comm->nranks, comm->rank, sendbuf, recvbuf,
                                  count, dtype, op, root);
        if (rc == COLL_OK) *call = cl;
        return rc;
    }
    int rc = collrt_begin_check(comm ? &comm->call.b : NULL, call);
    if (rc != COLL_OK) return rc;
    struct coll_call *cl = &comm->call;
    rc = begin_on(comm, cl, info, sendbuf, recvbuf, count, dtype, op, root);
    if (rc != COLL_OK) return rc;
    *call = cl;
    const collrt_trace *t = comm->probe ? NULL : collrt_trace_select(&cl->b);
    if (t) {   /* the whole call now; the program's calls are absorbed */
        comm->replayed.status = replay(cl, t);
        if (comm->end_early) {
            *call = NULL;
            return COLLMPI_REPLAYED;
        }
        cl->b.rec = &comm->replayed;
    }
    return COLL_OK;
}

static int check_peer(struct coll_call *cl, int64_t peer) {
    return cl && collrt_postable(&cl->b, peer);
}

static int add_req(struct coll_call *cl, int op_index) {
    if (cl->nreqs + 1 > cl->cap_reqs) {
        size_t c1 = cl->cap_reqs, c2 = cl->cap_reqs;
        if (!collrt_grow((void **)&cl->reqs, &c1, cl->nreqs + 1, sizeof *cl->reqs) ||
            !collrt_grow((void **)&cl->req_op, &c2, cl->nreqs + 1, sizeof *cl->req_op))
            return -1;
        cl->cap_reqs = c1 < c2 ? c1 : c2;
    }
    cl->req_op[cl->nreqs] = op_index;
    cl->reqs[cl->nreqs] = MPI_REQUEST_NULL;
    return (int)cl->nreqs++;
}

void coll_send_bytes(coll_call *cl, int64_t peer, const void *src, size_t bytes) {
    if (!check_peer(cl, peer) || bytes == 0) return;
    if (cl->b.trace_rec) collrt_trace_note(&cl->b, 1, (int)peer, NULL, src, bytes);
    coll_comm *c = cl->comm;
    const char *p = src;
    /* Without MPI only a solo communicator's message to itself has
     * somewhere to go: it waits in sends[0, nself) for its receive, cut into
     * segments as an MPI send is (the receive's lengths match). */
    int local = c->mpi == MPI_COMM_NULL;
    if (local && (c->probe || peer != c->rank)) {
        collrt_fail(&cl->b, COLL_ERR_INTERNAL);
        return;
    }
    size_t *nsent = local ? &cl->nself : &cl->nsends;
    for (size_t off = 0; off < bytes; off += c->seg) {
        size_t n = bytes - off < c->seg ? bytes - off : c->seg;
        if (!collrt_grow((void **)&cl->sends, &cl->cap_sends, *nsent + 1, sizeof *cl->sends)) {
            collrt_fail(&cl->b, COLL_ERR_NOMEM);
            return;
        }
        sent *x = &cl->sends[(*nsent)++];
        *x = (sent){MPI_REQUEST_NULL, p + off, n, cl->step, (int)peer};
        if (local) continue;
        if (!cl->req) {   /* posted by the step end */
            cl->unposted++;
            continue;
        }
        int rc = PMPI_Isend(p + off, (int)n, MPI_BYTE, (int)peer, tag_of(cl), c->mpi, &x->req);
        if (rc != MPI_SUCCESS) {
            mpi_fail(cl, rc);
            return;
        }
    }
}

/* ---- step end ---- */

/* A step on a communicator without MPI. Solo (N = 1): each receive takes the
 * next message to self of this step, of the same length (both sides cut
 * messages into segments alike), before the local operations run, as the
 * MPI step posts its receives first; a race-free schedule never reads in a
 * step what the step writes, so the order is free. A probe runs with count
 * 0: it has nothing to move. */
static void run_step_local(struct coll_call *cl) {
    collrt_op_queue *q = &cl->b.q;
    size_t next = 0;
    for (size_t i = 0; i < q->n; i++) {
        collrt_op *op = &q->ops[i];
        if (op->kind != COLLRT_OP_RECV && op->kind != COLLRT_OP_RECV_REDUCE) continue;
        if (next == cl->nself || cl->sends[next].bytes != op->bytes) {
            collrt_fail(&cl->b, COLL_ERR_INTERNAL);   /* the program's transfers do not pair */
            return;
        }
        const char *src = cl->sends[next++].p;
        if (op->kind == COLLRT_OP_RECV)
            memmove(op->dst, src, op->bytes);
        else
            reduce(cl, op->dst, op->a, src, op->bytes);
        if (cl->b.status != COLL_OK) return;
    }
    if (next != cl->nself) {
        collrt_fail(&cl->b, COLL_ERR_INTERNAL);       /* a message to self nobody received */
        return;
    }
    cl->nself = 0;
    collrt_run_local(&cl->b);
}

/* A wait that failed with rc because a message was longer than its
 * receive (MPI_ERR_TRUNCATE, in rc or in the status). */
static bool truncated(int rc, const MPI_Status *st) {
    int cls = MPI_ERR_OTHER;
    if (rc == MPI_ERR_IN_STATUS) rc = st->MPI_ERROR;
    return PMPI_Error_class(rc, &cls) == MPI_SUCCESS && cls == MPI_ERR_TRUNCATE;
}

/* Where receive op lands: its destination, or its staging piece (a
 * receive-reduce whose operand is its destination). */
static void *recv_buf(struct coll_call *cl, const collrt_op *op) {
    return op->kind == COLLRT_OP_RECV || op->mark == SIZE_MAX ? op->dst : cl->stage + op->mark;
}

/* Receive op of the step completed with status st. */
static void received_op(struct coll_call *cl, const collrt_op *op, const MPI_Status *st) {
    int got = 0;
    PMPI_Get_count(st, MPI_BYTE, &got);
    if ((size_t)got != op->bytes) {
        collrt_fail(&cl->b, COLL_ERR_MISMATCH);  /* shorter: the sender's count is smaller */
        return;
    }
    if (op->kind == COLLRT_OP_RECV_REDUCE && op->mark == SIZE_MAX)
        reduce(cl, op->dst, op->dst, op->a, op->bytes);
    else if (op->kind == COLLRT_OP_RECV_REDUCE)
        reduce(cl, op->dst, op->a, cl->stage + op->mark, op->bytes);
}

/* Receive r of the step completed with status st. */
static void received(struct coll_call *cl, int r, const MPI_Status *st) {
    cl->left--;
    received_op(cl, &cl->b.q.ops[cl->req_op[r]], st);
}

/* Local operations of at most this many bytes in all run before a step's
 * one exchange instead of overlapping it: a copy of 4 KiB takes about what
 * the requests it saves cost. */
#define BEFORE_EXCHANGE_BYTES 4096

/* The one receive of a step (q->nrecvs == 1) whose local operations move
 * at most BEFORE_EXCHANGE_BYTES, or NULL. */
static collrt_op *sole_receive(collrt_op_queue *q) {
    collrt_op *recv = NULL;
    size_t local = 0;
    for (size_t i = 0; i < q->n; i++) {
        collrt_op *op = &q->ops[i];
        if (op->kind == COLLRT_OP_RECV || op->kind == COLLRT_OP_RECV_REDUCE) recv = op;
        else if ((local += op->bytes) > BEFORE_EXCHANGE_BYTES) return NULL;
    }
    return recv;
}

/* A blocking step whose transfers are the receive op and this step's one
 * send if it has one: MPI_Sendrecv or MPI_Recv, then the receive's
 * reduction. The send is complete when it returns. */
static void one_exchange(struct coll_call *cl, const collrt_op *op, int tag) {
    coll_comm *c = cl->comm;
    MPI_Status st;
    int rc;
    if (cl->unposted) {
        const sent *x = &cl->sends[--cl->nsends];
        cl->unposted = 0;
        rc = PMPI_Sendrecv(x->p, (int)x->bytes, MPI_BYTE, x->peer, tag, recv_buf(cl, op),
                           (int)op->bytes, MPI_BYTE, op->peer, tag, c->mpi, &st);
    } else {
        rc = PMPI_Recv(recv_buf(cl, op), (int)op->bytes, MPI_BYTE, op->peer, tag, c->mpi, &st);
    }
    if (rc != MPI_SUCCESS) {
        if (truncated(rc, &st)) collrt_fail(&cl->b, COLL_ERR_MISMATCH);  /* longer */
        else mpi_fail(cl, rc);
        return;
    }
    received_op(cl, op, &st);
}

/* The first half of a step end: stages, posts the receives in program
 * order and runs the local operations. With `test`, returns false without
 * posting anything while a send of an earlier step still reads memory this
 * step writes. */
static bool step_post(struct coll_call *cl, int test) {
    coll_comm *c = cl->comm;
    /* Staging for the receive-reduces of this step, 64-byte aligned pieces.
     * A receive-reduce whose local operand is other memory than its
     * destination (the fused copy: dst := in (+) remote) receives straight
     * into dst and reduces dst := dst (+) in on arrival: a staging area cold
     * in cache would cost two more passes over memory. The operands swap
     * sides, which changes nothing but the sign of a zero MAX/MIN picks
     * between +0 and -0 and which NaN payload survives (MPI leaves operand
     * order to the library too; the cpu target keeps in (+) remote). */
    collrt_op_queue *q = &cl->b.q;
    /* Memory this step writes that an earlier step's send still reads. */
    bool free_to_write = true;
    for (size_t i = 0; i < q->n; i++)
        free_to_write &= settle_sends(cl, q->ops[i].dst, q->ops[i].bytes, test);
    if (cl->b.status != COLL_OK) return true;
    if (!free_to_write) return false;
    size_t need = 0;
    for (size_t i = 0; i < q->n; i++) {
        collrt_op *op = &q->ops[i];
        if (op->kind != COLLRT_OP_RECV_REDUCE) continue;
        if (op->a + op->bytes <= op->dst || op->dst + op->bytes <= op->a) {
            op->mark = SIZE_MAX;
            continue;
        }
        op->mark = need;
        need += (op->bytes + 63) & ~(size_t)63;
    }
    if (need > cl->stage_cap) {
        free(cl->stage);
        cl->stage_cap = 0;
        cl->stage = aligned_alloc(64, need);
        if (!cl->stage) {
            collrt_fail(&cl->b, COLL_ERR_NOMEM);
            return true;
        }
        cl->stage_cap = need;
    }
    int tag = tag_of(cl);
    /* A blocking step of one receive and at most one send (one segment
     * each): one call, no request, its small local operations first. */
    collrt_op *only = !test && q->nrecvs == 1 && cl->unposted <= 1 ? sole_receive(q) : NULL;
    if (only) {
        collrt_run_local(&cl->b);
        one_exchange(cl, only, tag);
        return true;
    }
    /* This step's sends first, then the receives in program order (FIFO
     * per pair), then local operations: a race-free schedule never touches
     * a received range locally. */
    for (size_t i = cl->nsends - cl->unposted; i < cl->nsends; i++) {
        sent *x = &cl->sends[i];
        int rc = PMPI_Isend(x->p, (int)x->bytes, MPI_BYTE, x->peer, tag, c->mpi, &x->req);
        if (rc != MPI_SUCCESS) {
            mpi_fail(cl, rc);
            return true;
        }
    }
    cl->unposted = 0;
    for (size_t i = 0; i < q->n; i++) {
        collrt_op *op = &q->ops[i];
        if (op->kind != COLLRT_OP_RECV && op->kind != COLLRT_OP_RECV_REDUCE) continue;
        int r = add_req(cl, (int)i);
        if (r < 0) {
            collrt_fail(&cl->b, COLL_ERR_NOMEM);
            return true;
        }
        int rc = PMPI_Irecv(recv_buf(cl, op), (int)op->bytes, MPI_BYTE, op->peer, tag, c->mpi,
                            &cl->reqs[r]);
        if (rc != MPI_SUCCESS) {
            mpi_fail(cl, rc);
            return true;
        }
    }
    collrt_run_local(&cl->b);
    cl->left = cl->nreqs;  /* this step's receives (sends are in cl->sends) */
    return true;
}

/* The second half: completes the posted receives, reducing each message
 * as it arrives. With `test`, returns false when some receive has not
 * arrived yet (call it again). */
static bool step_complete(struct coll_call *cl, int test) {
    /* MPI_Waitany, not MPI_Waitsome: Open MPI 4.1's Waitsome took milliseconds
     * per 256 KiB message where Wait/Waitany/Testsome take ~17 us
     * (docs/mpi.md). */
    while (cl->left && cl->b.status == COLL_OK) {
        int r = MPI_UNDEFINED, flag = 1;
        MPI_Status st;
        int rc;
        if (test) {
            rc = PMPI_Testany((int)cl->nreqs, cl->reqs, &r, &flag, &st);
        } else {
            /* one receive (most steps of small calls): no array to scan */
            rc = cl->nreqs == 1 ? (r = 0, PMPI_Wait(&cl->reqs[0], &st))
                                : PMPI_Waitany((int)cl->nreqs, cl->reqs, &r, &st);
        }
        if (rc != MPI_SUCCESS && truncated(rc, &st)) {
            collrt_fail(&cl->b, COLL_ERR_MISMATCH);  /* longer: the sender's count is larger */
            return true;
        }
        if (rc != MPI_SUCCESS) {
            mpi_fail(cl, rc);
            return true;
        }
        if (!flag) return false;
        if (r == MPI_UNDEFINED) break;
        received(cl, r, &st);
    }
    if (cl->b.status != COLL_OK) return true;
    /* Copy-on-write lands this step's redirected writes on memory its sends
     * may read (collrt_step_done): let them finish first. */
    if (cl->b.ncow_fix) return settle_sends(cl, NULL, 0, test);
    return true;
}

static void run_step(struct coll_call *cl) {
    if (cl->comm->mpi == MPI_COMM_NULL) {
        run_step_local(cl);
        return;
    }
    step_post(cl, 0);
    if (cl->b.status == COLL_OK) step_complete(cl, 0);
}

/* The end of a step end, once it is complete or failed. */
static int step_close(struct coll_call *cl) {
    if (cl->b.trace_rec) collrt_trace_step(&cl->b);
    if (cl->b.status == COLL_OK) collrt_step_done(&cl->b);
    if (cl->b.status != COLL_OK) drop_requests(cl);
    reset_step(cl);
    cl->step++;
    return cl->b.status;
}

int coll_step_end(coll_call *cl) {
    if (cl && cl->b.rec) return collrt_rec_step_end(&cl->b);
    if (!cl || !cl->b.active) return COLL_ERR_INTERNAL;
    if (cl->b.status == COLL_OK) run_step(cl);
    return step_close(cl);
}

/* Runs the posted step as far as it goes without blocking (or to its end
 * with `block`): true when it is complete (or failed). */
static bool step_advance(struct coll_call *cl, int block) {
    if (cl->b.status != COLL_OK) return true;
    if (cl->comm->mpi == MPI_COMM_NULL) {
        if (!cl->posted) run_step_local(cl);
        cl->posted = 1;
        return true;
    }
    if (!cl->posted) {
        if (!step_post(cl, !block)) return false;
        cl->posted = 1;
    }
    return cl->b.status != COLL_OK || step_complete(cl, !block);
}

int collrt_step_progress(coll_call *cl, int block, int *done) {
    *done = 1;
    if (!cl || !cl->b.active) return COLL_ERR_INTERNAL;
    if (!step_advance(cl, block)) {
        *done = 0;
        return COLL_OK;
    }
    return step_close(cl);
}

/* Whether a call ends with a step of its own (operations posted after the
 * last step end). */
static int has_last_step(const struct coll_call *cl) {
    return cl->nreqs || cl->b.q.n || cl->nself || cl->unposted;
}

/* coll_finish once its last step is over; `last`: it had one. */
static int finish_close(struct coll_call *cl, int status, int last) {
    coll_comm *c = cl->comm;
    /* Operations posted after the last step_end form one more step. The
     * step counter (the tag) advances exactly once here whether or not this
     * rank had any, so that all ranks keep the same tag sequence; but not
     * for a call that ends before coll_setup and its first step (a failed
     * `require`, count 0): that depends on N, root and count only, so every
     * rank ends such a call alike, and the counter stays the same as on a
     * rank that never made the call (the PMPI library decides a rule's
     * `require` with a probe and only then calls). A request took its tags
     * at its start. */
    int started = cl->b.split != 0 || cl->step != cl->step0 || cl->nsends || last;
    if (cl->b.trace_rec) collrt_trace_step(&cl->b);
    if (last && status == COLL_OK && cl->b.status == COLL_OK) collrt_step_done(&cl->b);
    /* The caller may reuse its buffers when we return. */
    if (status == COLL_OK && cl->b.status == COLL_OK) wait_sends(cl, NULL, 0);
    if (status == COLL_OK) status = cl->b.status;
    if (status == COLL_OK) collrt_defer_flush(&cl->b);
    if (status != COLL_OK) drop_requests(cl);
    reset_step(cl);
    if (started) cl->step++;
    if (!cl->req) c->step = cl->step;
    if (cl->b.trace_rec) collrt_trace_end(&cl->b, status);
    cl->b.replay = NULL;
    cl->b.active = 0;
    cl->user_op = 0;
    return status;
}

static int finish_call(struct coll_call *cl, int status) {
    int last = has_last_step(cl);
    if (status == COLL_OK && cl->b.status == COLL_OK && last) run_step(cl);
    return finish_close(cl, status, last);
}

int coll_finish(coll_call *cl, int status) {
    if (cl && cl->b.rec) return collrt_rec_finish(&cl->b, status);
    if (!cl || !cl->b.active) return status != COLL_OK ? status : COLL_ERR_INTERNAL;
    return finish_call(cl, status);
}

/* A blocking call of the kind of t: its steps as the program would post
 * them, each completed as coll_step_end completes it; the program's
 * status. */
static int replay(struct coll_call *cl, const collrt_trace *t) {
    int rc = collrt_trace_replay_begin(&cl->b, t);
    if (rc != COLL_OK) return finish_call(cl, rc);
    size_t n = collrt_trace_steps(t);
    for (size_t k = 0; k < n; k++) {
        collrt_trace_post(&cl->b, k);
        if (cl->b.status == COLL_OK) run_step(cl);
        if ((rc = step_close(cl)) != COLL_OK) return finish_call(cl, rc);
    }
    collrt_trace_post(&cl->b, n);
    return finish_call(cl, COLL_OK);
}

/* ---- requests (runtime/request.c): a call of their own each ---- */

coll_call *collrt_req_call(coll_comm *comm, int *status) {
    if (comm->arm || comm->probe) {
        *status = COLL_ERR_INTERNAL;
        return NULL;
    }
    struct coll_call *cl = calloc(1, sizeof *cl);
    if (!cl) {
        *status = COLL_ERR_NOMEM;
        return NULL;
    }
    cl->comm = comm;
    cl->req = 1;
    return cl;
}

void collrt_req_call_free(coll_call *cl) {
    if (!cl) return;
    if (cl->b.active) {   /* abandoned: what it posted completes in the background */
        drop_requests(cl);
        cl->b.active = 0;
    }
    call_free(cl);
    free(cl);
}

void collrt_arm(coll_comm *comm, coll_call *call) { comm->arm = call; }

int collrt_req_begin(coll_call *cl, const coll_alg_info *info, const void *sendbuf,
                     void *recvbuf, size_t count, coll_dtype dtype, coll_op op, int root,
                     size_t ntags) {
    coll_comm *c = cl->comm;
    int rc = begin_on(c, cl, info, sendbuf, recvbuf, count, dtype, op, root);
    if (rc != COLL_OK) return rc;
    if (cl->reserved) {   /* collrt_req_reserve took them, in the order of calls */
        cl->step0 = cl->step = cl->step_base;
        cl->reserved = 0;
        return COLL_OK;
    }
    c->step += ntags;     /* every rank reserves alike: the same plan length */
    return COLL_OK;
}

void collrt_req_reserve(coll_call *cl, size_t ntags) {
    cl->reserved = 1;
    cl->step_base = cl->comm->step;
    cl->comm->step += ntags;
}

int collrt_finish_progress(coll_call *cl, int status, int block, int *done) {
    *done = 1;
    if (!cl || !cl->b.active) return status != COLL_OK ? status : COLL_ERR_INTERNAL;
    int last = has_last_step(cl) || cl->posted;
    if (status == COLL_OK && cl->b.status == COLL_OK) {
        if (last && !step_advance(cl, block)) {
            *done = 0;
            return COLL_OK;
        }
        /* the sends of the call, without blocking */
        if (!block && cl->b.status == COLL_OK && !settle_sends(cl, NULL, 0, 1)) {
            *done = 0;
            return COLL_OK;
        }
    }
    return finish_close(cl, status, last);
}
