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
 *  - coll_send posts MPI_Isend at once. Receives and local operations are
 *    queued and started by coll_step_end: MPI_Irecv for every receive in
 *    program order (receive-reduces land in a staging area or in their
 *    destination), local copies and reductions, then MPI_Waitany, reducing
 *    each message as it completes, until every receive of the step is done.
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
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

typedef struct sent {
    MPI_Request req;
    const char *p;          /* the bytes it reads */
    size_t bytes;
    uint64_t step;          /* coll_comm.step it was posted in */
} sent;

struct coll_call {
    collrt_call b;          /* must be first: common code views it; its op
                               queue holds the step's receives (mark of a
                               receive-reduce: its offset in the staging
                               area, SIZE_MAX: none) and local operations */
    struct coll_comm *comm;
    uint64_t step0;         /* comm->step when the call began */
};

struct coll_comm {
    MPI_Comm mpi;           /* private duplicate */
    int rank, nranks;
    int tag_ub;
    uint64_t step;          /* steps so far: the tag of the current step */
    size_t seg;             /* segment size in bytes (multiple of 64) */
    struct coll_call call;
    MPI_Request *reqs;      /* this step's receive requests */
    int *req_op;            /* [nreqs] index of the queued op of each receive */
    size_t nreqs, cap_reqs;
    sent *sends;            /* sends not known to be complete, of any step */
    size_t nsends, cap_sends;
    char *stage;
    size_t stage_cap;
    int user_op;
    MPI_Op uop;
    MPI_Datatype udt;
    int mpi_err;            /* MPI code of the last transport failure */
    int probe;              /* a probe (see collmpi_probe_comm) */
    /* No MPI (mpi == MPI_COMM_NULL): a solo communicator's sends to itself
     * wait here, in posting order, for the receives of their step; a
     * probe records the algorithm it ran. */
    size_t nself;           /* sends[0, nself) are messages to self */
    const coll_alg_info *probed;
};

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
    free(c->sends);
    free(c->reqs);
    free(c->req_op);
    collrt_call_free(&c->call.b);
    free(c->stage);
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
    coll_comm *c = calloc(1, sizeof *c);
    if (!c) return COLL_ERR_NOMEM;
    c->mpi = MPI_COMM_NULL;
    c->call.comm = c;
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
    coll_comm *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->mpi = MPI_COMM_NULL;
    c->call.comm = c;
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
    c->nself = c->nsends = c->nreqs = 0;
    return c;
}

const coll_alg_info *collmpi_probed(const coll_comm *c) { return c ? c->probed : NULL; }

MPI_Comm coll_comm_mpi(const coll_comm *c) { return c ? c->mpi : MPI_COMM_NULL; }
int coll_comm_rank(const coll_comm *c) { return c ? c->rank : -1; }
int coll_comm_size(const coll_comm *c) { return c ? c->nranks : -1; }

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
    coll_comm *c = cl->comm;
    size_t esz = cl->b.esz;
    if (!c->user_op) {
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
        int rc = PMPI_Reduce_local(in, dst, k, c->udt, c->uop);
        if (rc != MPI_SUCCESS) {
            mpi_fail(cl, rc);
            return;
        }
        in += (size_t)k * esz;
        dst += (size_t)k * esz;
        n -= (size_t)k;
    }
}

static int tag_of(const coll_comm *c) { return (int)(c->step % ((uint64_t)c->tag_ub + 1)); }

static void reset_step(coll_comm *c) {
    c->nreqs = 0;
    collrt_op_queue_clear(&c->call.b.q);
}

/* Drops the requests of an abandoned call. Sends complete in the
 * background; receives were only posted if the step got that far. */
static void drop_requests(coll_comm *c) {
    c->nself = 0;
    for (size_t i = 0; i < c->nreqs; i++)
        if (c->reqs[i] != MPI_REQUEST_NULL) PMPI_Request_free(&c->reqs[i]);
    for (size_t i = 0; i < c->nsends; i++)
        if (c->sends[i].req != MPI_REQUEST_NULL) PMPI_Request_free(&c->sends[i].req);
    c->nsends = 0;
}

/* Waits for the outstanding sends of earlier steps that read [p, p +
 * bytes) (all outstanding sends when p is NULL) and forgets them. A send of
 * the current step is never waited for here: its receiver may be waiting for
 * ours. */
static void wait_sends(struct coll_call *cl, const void *p, size_t bytes) {
    coll_comm *c = cl->comm;
    /* sends are kept in posting order: none of an earlier step if the first
     * is of this one */
    if (!c->nsends || (p && c->sends[0].step == c->step)) return;
    const char *lo = p, *hi = lo + bytes;
    size_t keep = 0;
    for (size_t i = 0; i < c->nsends; i++) {
        sent *x = &c->sends[i];
        if (p && (x->step == c->step || x->p >= hi || x->p + x->bytes <= lo)) {
            c->sends[keep++] = *x;
            continue;
        }
        int rc = PMPI_Wait(&x->req, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) mpi_fail(cl, rc);
    }
    c->nsends = keep;
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

int coll_begin(coll_comm *comm, const coll_alg_info *info, const void *sendbuf,
               void *recvbuf, size_t count, coll_dtype dtype, coll_op op, int root,
               coll_call **call) {
    int rc = collrt_begin_check(comm ? &comm->call.b : NULL, call);
    if (rc != COLL_OK) return rc;
    if (comm->probe) comm->probed = info;
    struct coll_call *cl = &comm->call;
    rc = collrt_begin_args(&cl->b, info, comm->nranks, comm->rank, sendbuf, recvbuf, count,
                           dtype, op, root);
    if (rc != COLL_OK) return rc;
    cl->b.hooks_ok = 1; /* collrt_step_done, collrt_defer_flush */
    cl->b.before_write = before_write;
    if (comm->user_op) cl->b.reduce = reduce_hook;
    cl->b.segment = comm->seg;
    cl->b.active = 1;
    comm->nreqs = 0;
    comm->nself = 0;
    cl->step0 = comm->step;
    *call = cl;
    return COLL_OK;
}

static int check_peer(struct coll_call *cl, int64_t peer) {
    return cl && collrt_postable(&cl->b, peer);
}

static int add_req(coll_comm *c, int op_index) {
    if (c->nreqs + 1 > c->cap_reqs) {
        size_t c1 = c->cap_reqs, c2 = c->cap_reqs;
        if (!collrt_grow((void **)&c->reqs, &c1, c->nreqs + 1, sizeof *c->reqs) ||
            !collrt_grow((void **)&c->req_op, &c2, c->nreqs + 1, sizeof *c->req_op))
            return -1;
        c->cap_reqs = c1 < c2 ? c1 : c2;
    }
    c->req_op[c->nreqs] = op_index;
    c->reqs[c->nreqs] = MPI_REQUEST_NULL;
    return (int)c->nreqs++;
}

void coll_send_bytes(coll_call *cl, int64_t peer, const void *src, size_t bytes) {
    if (!check_peer(cl, peer) || bytes == 0) return;
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
    size_t *nsent = local ? &c->nself : &c->nsends;
    for (size_t off = 0; off < bytes; off += c->seg) {
        size_t n = bytes - off < c->seg ? bytes - off : c->seg;
        if (!collrt_grow((void **)&c->sends, &c->cap_sends, *nsent + 1, sizeof *c->sends)) {
            collrt_fail(&cl->b, COLL_ERR_NOMEM);
            return;
        }
        sent *x = &c->sends[(*nsent)++];
        *x = (sent){MPI_REQUEST_NULL, p + off, n, c->step};
        if (local) continue;
        int rc = PMPI_Isend(p + off, (int)n, MPI_BYTE, (int)peer, tag_of(c), c->mpi, &x->req);
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
    coll_comm *c = cl->comm;
    collrt_op_queue *q = &cl->b.q;
    size_t next = 0;
    for (size_t i = 0; i < q->n; i++) {
        collrt_op *op = &q->ops[i];
        if (op->kind != COLLRT_OP_RECV && op->kind != COLLRT_OP_RECV_REDUCE) continue;
        if (next == c->nself || c->sends[next].bytes != op->bytes) {
            collrt_fail(&cl->b, COLL_ERR_INTERNAL);   /* the program's transfers do not pair */
            return;
        }
        const char *src = c->sends[next++].p;
        if (op->kind == COLLRT_OP_RECV)
            memmove(op->dst, src, op->bytes);
        else
            reduce(cl, op->dst, op->a, src, op->bytes);
        if (cl->b.status != COLL_OK) return;
    }
    if (next != c->nself) {
        collrt_fail(&cl->b, COLL_ERR_INTERNAL);       /* a message to self nobody received */
        return;
    }
    c->nself = 0;
    collrt_run_local(&cl->b);
}

static void run_step(struct coll_call *cl) {
    coll_comm *c = cl->comm;
    if (c->mpi == MPI_COMM_NULL) {
        run_step_local(cl);
        return;
    }
    /* Staging for the receive-reduces of this step, 64-byte aligned pieces.
     * A receive-reduce whose local operand is other memory than its
     * destination (the fused copy: dst := in (+) remote) receives straight
     * into dst and reduces dst := dst (+) in on arrival: a staging area cold
     * in cache would cost two more passes over memory. The operands swap
     * sides, which changes nothing but the sign of a zero MAX/MIN picks
     * between +0 and -0 and which NaN payload survives (MPI leaves operand
     * order to the library too; the cpu target keeps in (+) remote). */
    collrt_op_queue *q = &cl->b.q;
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
    if (need > c->stage_cap) {
        free(c->stage);
        c->stage_cap = 0;
        c->stage = aligned_alloc(64, need);
        if (!c->stage) {
            collrt_fail(&cl->b, COLL_ERR_NOMEM);
            return;
        }
        c->stage_cap = need;
    }
    /* Memory this step writes that an earlier step's send still reads. */
    for (size_t i = 0; i < q->n; i++) wait_sends(cl, q->ops[i].dst, q->ops[i].bytes);
    if (cl->b.status != COLL_OK) return;
    /* Receives in program order (FIFO per pair), then local operations:
     * a race-free schedule never touches a received range locally. */
    int tag = tag_of(c);
    for (size_t i = 0; i < q->n; i++) {
        collrt_op *op = &q->ops[i];
        if (op->kind != COLLRT_OP_RECV && op->kind != COLLRT_OP_RECV_REDUCE) continue;
        int r = add_req(c, (int)i);
        if (r < 0) {
            collrt_fail(&cl->b, COLL_ERR_NOMEM);
            return;
        }
        void *buf = op->kind == COLLRT_OP_RECV || op->mark == SIZE_MAX ? op->dst : c->stage + op->mark;
        int rc = PMPI_Irecv(buf, (int)op->bytes, MPI_BYTE, op->peer, tag, c->mpi, &c->reqs[r]);
        if (rc != MPI_SUCCESS) {
            mpi_fail(cl, rc);
            return;
        }
    }
    collrt_run_local(&cl->b);
    size_t left = c->nreqs;  /* this step's receives (sends are in c->sends) */
    /* MPI_Waitany, not MPI_Waitsome: Open MPI 4.1's Waitsome took milliseconds
     * per 256 KiB message where Wait/Waitany/Testsome take ~17 us
     * (docs/mpi.md). */
    while (left) {
        int r = MPI_UNDEFINED;
        MPI_Status st;
        /* one receive (most steps of small calls): no array to scan */
        int rc = c->nreqs == 1 ? (r = 0, PMPI_Wait(&c->reqs[0], &st))
                               : PMPI_Waitany((int)c->nreqs, c->reqs, &r, &st);
        if (rc != MPI_SUCCESS) {
            mpi_fail(cl, rc);
            return;
        }
        if (r == MPI_UNDEFINED) break;
        left--;
        collrt_op *op = &q->ops[c->req_op[r]];
        int got = 0;
        PMPI_Get_count(&st, MPI_BYTE, &got);
        if ((size_t)got != op->bytes) {
            collrt_fail(&cl->b, COLL_ERR_INTERNAL);  /* the ranks' schedules disagree */
            return;
        }
        if (op->kind == COLLRT_OP_RECV_REDUCE && op->mark == SIZE_MAX)
            reduce(cl, op->dst, op->dst, op->a, op->bytes);
        else if (op->kind == COLLRT_OP_RECV_REDUCE)
            reduce(cl, op->dst, op->a, c->stage + op->mark, op->bytes);
        if (cl->b.status != COLL_OK) return;
    }
    /* Copy-on-write lands this step's redirected writes on memory its sends
     * may read (collrt_step_done): let them finish first. */
    if (cl->b.ncow_fix) wait_sends(cl, NULL, 0);
}

int coll_step_end(coll_call *cl) {
    if (!cl || !cl->b.active) return COLL_ERR_INTERNAL;
    coll_comm *c = cl->comm;
    if (cl->b.status == COLL_OK) run_step(cl);
    if (cl->b.status == COLL_OK) collrt_step_done(&cl->b);
    if (cl->b.status != COLL_OK) drop_requests(c);
    reset_step(c);
    c->step++;
    return cl->b.status;
}

int coll_finish(coll_call *cl, int status) {
    if (!cl || !cl->b.active) return status != COLL_OK ? status : COLL_ERR_INTERNAL;
    coll_comm *c = cl->comm;
    /* Operations posted after the last step_end form one more step. The
     * step counter (the tag) advances exactly once here whether or not this
     * rank had any, so that all ranks keep the same tag sequence; but not
     * for a call that ends before coll_setup and its first step (a failed
     * `require`, count 0): that depends on N, root and count only, so every
     * rank ends such a call alike, and the counter stays the same as on a
     * rank that never made the call (the PMPI library decides a rule's
     * `require` with a probe and only then calls). */
    int started = cl->b.split != 0 || c->step != cl->step0 || c->nsends || cl->b.q.n || c->nself;
    if (status == COLL_OK && cl->b.status == COLL_OK && (c->nreqs || cl->b.q.n || c->nself)) {
        run_step(cl);
        if (cl->b.status == COLL_OK) collrt_step_done(&cl->b);
    }
    /* The caller may reuse its buffers when we return. */
    if (status == COLL_OK && cl->b.status == COLL_OK) wait_sends(cl, NULL, 0);
    if (status == COLL_OK) status = cl->b.status;
    if (status == COLL_OK) collrt_defer_flush(&cl->b);
    if (status != COLL_OK) drop_requests(c);
    reset_step(c);
    if (started) c->step++;
    cl->b.active = 0;
    c->user_op = 0;
    return status;
}
