/* cpu_transport.c - the CPU-threads target: ranks are threads of one
 * process, the receiver copies straight out of the sender's buffer.
 *
 * Protocol (docs/runtime.md has the rationale):
 *  - One channel per ordered pair (a -> b), allocated by a on first use. It
 *    holds a ring of CHAN_CAP message descriptors {pointer, bytes, tag},
 *    `posted` (messages published, written only by a) and `acked` (messages
 *    consumed, written only by b). Both are monotonic 64-bit counters.
 *  - Send: a fills descriptor posted % CAP, then store-release posted + 1.
 *  - Receive: b load-acquires posted, reads the descriptor and a's memory
 *    (memcpy or reduction kernel into b's own buffer), then store-release
 *    acked + 1. Only b ever writes b's memory.
 *  - Step end: a returns only when every receive of the step is done and
 *    acked has reached posted on every channel a sent on in this step
 *    (load-acquire), so a may overwrite anything it sent from the next step
 *    on. No global barrier: a rank waits only for the peers it exchanges with.
 *  - Waiting: every rank has a doorbell (a 32-bit futex word). Publishing and
 *    acknowledging bump the peer's doorbell; a waiter spins briefly on its
 *    doorbell, then sleeps in FUTEX_WAIT (eventcount protocol with a
 *    `sleeping` flag so that wakers skip the syscall when nobody sleeps). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "coll_cpu.h"
#include "collrt_internal.h"

#define CHAN_CAP 16

typedef struct slot {
    const void *ptr;
    size_t bytes;
    uint64_t tag;          /* call sequence << 32 | step */
} slot;

typedef struct chan {
    _Alignas(64) _Atomic uint64_t posted;   /* written by the sender */
    slot slots[CHAN_CAP];                   /* written by the sender */
    _Alignas(64) _Atomic uint64_t acked;    /* written by the receiver */
} chan;

typedef struct bell {
    _Alignas(64) _Atomic uint32_t seq;      /* futex word */
    _Atomic uint32_t sleeping;
} bell;

enum { JOIN_NEVER = 0, JOIN_IN = 1, JOIN_LEFT = 2 };

struct coll_world {
    int nranks;
    int64_t spin_ns;                        /* spin this long before sleeping */
    _Atomic(chan *) *chans;                 /* [from * N + to] */
    bell *bells;                            /* [N] */
    _Atomic int *joined;                    /* [N] JOIN_* */
    _Atomic int active;                     /* ranks joined and not destroyed */
    _Atomic int broken;                     /* a call was abandoned mid-way */
    _Atomic int64_t failed_call;            /* highest call number a rank failed */
    _Atomic int64_t *cur_call;              /* [N] call a rank is in (or was) */
    _Atomic int64_t *done_call;             /* [N] last call in which a rank will
                                               read no more peer memory */
};

typedef struct psend {
    int peer;
    const char *src;
    size_t bytes;
} psend;

struct coll_call {
    collrt_call b;          /* must be first: common code views it; its op
                               queue holds the step's receives (mark: done)
                               and local operations */
    struct coll_comm *comm;
    uint64_t tag;           /* current call << 32 | step */
    int communicated;       /* posted a transfer (the channels changed) */
    int posted;             /* a request's step is posted (step_post) */
};

struct coll_comm {
    coll_world *w;
    int rank, nranks;
    int64_t call_seq;       /* coll_begin calls so far */
    struct coll_call call;
    chan **out, **in;       /* cached channel pointers [N] */
    uint64_t *send_mark;    /* [N] == step_id when sent to this step */
    uint64_t *block_mark;   /* [N] == pass id when blocked in a receive pass */
    uint64_t step_id, pass_id;
    int *step_peers;        /* peers sent to in this step */
    size_t nstep_peers;
    psend *sends;           /* unpublished sends of this step, in order */
    size_t nsends, cap_sends, first_send;
    size_t recvs_left;      /* receives of this step not done yet */
    int64_t spin_ns;        /* current spin budget (adaptive, <= w->spin_ns) */
    struct coll_call *arm;  /* the next coll_begin records into it (collrt_arm) */
    int req;                /* a request's call is active (collrt_req_begin) */
    int probe;              /* a probe (collrt_cpu_probe): no world */
};

/* ---- waiting ---- */

static long futex(_Atomic uint32_t *addr, int op, uint32_t val) {
    return syscall(SYS_futex, (uint32_t *)addr, op, val, NULL, NULL, 0);
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static void ring(coll_world *w, int rank) {
    bell *b = &w->bells[rank];
    atomic_fetch_add(&b->seq, 1);                 /* seq_cst: pairs with sleeper */
    if (atomic_load(&b->sleeping)) futex(&b->seq, FUTEX_WAKE_PRIVATE, 1);
}

static void ring_all(coll_world *w) {
    for (int r = 0; r < w->nranks; r++) ring(w, r);
}

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Waits until this rank's doorbell differs from `seen` (or spuriously
 * returns). Spins first, bounded in time, not iterations (`pause` costs from
 * a few to ~150 cycles depending on the CPU), then sleeps in FUTEX_WAIT.
 * The spin budget adapts, as glibc's adaptive mutexes do: it grows (up to
 * the world's maximum) when a spin succeeds or a sleep was short enough that
 * a longer spin would have avoided it, and halves when a sleep was long
 * (peers are slow or descheduled: on a loaded machine spinning only steals
 * their time). */
static void wait_bell(coll_comm *c, uint32_t seen) {
    coll_world *w = c->w;
    bell *b = &w->bells[c->rank];
    int64_t budget = c->spin_ns;
    if (budget > 0) {
        int64_t deadline = 0;
        for (unsigned i = 1;; i++) {
            if (atomic_load_explicit(&b->seq, memory_order_relaxed) != seen) {
                int64_t more = budget + budget / 4 + 500;
                c->spin_ns = more < w->spin_ns ? more : w->spin_ns;
                return;
            }
            cpu_relax();
            if ((i & 63) == 0) {
                int64_t t = now_ns();
                if (!deadline) deadline = t + budget;
                else if (t >= deadline) break;
            }
        }
    }
    int64_t t0 = w->spin_ns > 0 ? now_ns() : 0;
    atomic_store(&b->sleeping, 1);
    if (atomic_load(&b->seq) == seen) futex(&b->seq, FUTEX_WAIT_PRIVATE, seen);
    atomic_store_explicit(&b->sleeping, 0, memory_order_relaxed);
    if (w->spin_ns > 0) {
        if (now_ns() - t0 < w->spin_ns) {
            int64_t more = 2 * c->spin_ns + 1000;
            c->spin_ns = more < w->spin_ns ? more : w->spin_ns;
        } else {
            c->spin_ns /= 2;
        }
    }
}

static int call_aborted(const coll_comm *c) {
    return atomic_load_explicit(&c->w->broken, memory_order_acquire) ||
           atomic_load_explicit(&c->w->failed_call, memory_order_acquire) >= c->call_seq;
}

static void mark_failed(coll_world *w, int64_t seq) {
    int64_t cur = atomic_load(&w->failed_call);
    while (cur < seq && !atomic_compare_exchange_weak(&w->failed_call, &cur, seq)) {
    }
    ring_all(w);
}

/* ---- world and communicators ---- */

/* Frees a world whose channels (if any) are all unused. */
static void world_free(coll_world *w) {
    if (w->chans) {
        size_t n = (size_t)w->nranks * (size_t)w->nranks;
        for (size_t i = 0; i < n; i++) free(atomic_load(&w->chans[i]));
    }
    free(w->chans);
    free(w->bells);
    free(w->joined);
    free(w->cur_call);
    free(w->done_call);
    free(w);
}

int coll_comm_create_cpu(int nranks, coll_world **out) {
    if (!out) return COLL_ERR_NULL_COMM;
    *out = NULL;
    if (nranks < 1 || nranks > COLL_CPU_MAX_RANKS) return COLL_ERR_BAD_SIZE;
    coll_world *w = calloc(1, sizeof *w);
    if (!w) return COLL_ERR_NOMEM;
    w->nranks = nranks;
    w->chans = calloc((size_t)nranks * (size_t)nranks, sizeof *w->chans);
    w->bells = aligned_alloc(64, sizeof(bell) * (size_t)nranks);
    w->joined = calloc((size_t)nranks, sizeof *w->joined);
    w->cur_call = calloc((size_t)nranks, sizeof *w->cur_call);
    w->done_call = calloc((size_t)nranks, sizeof *w->done_call);
    if (!w->chans || !w->bells || !w->joined || !w->cur_call || !w->done_call) {
        world_free(w);
        return COLL_ERR_NOMEM;
    }
    for (int r = 0; r < nranks; r++) {
        atomic_init(&w->bells[r].seq, 0);
        atomic_init(&w->bells[r].sleeping, 0);
        atomic_init(&w->cur_call[r], 0);
        atomic_init(&w->done_call[r], 0);
    }
    atomic_init(&w->active, 0);
    atomic_init(&w->broken, 0);
    atomic_init(&w->failed_call, -1);
    /* Spinning only pays when every rank can have a core; oversubscribed,
     * a spinning waiter steals the time slice of the rank it waits for. */
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    w->spin_ns = (ncpu > 0 && nranks <= ncpu) ? 20000 : 0;
    const char *env = getenv("COLL_CPU_SPIN_NS");
    if (env && *env) w->spin_ns = atoll(env) < 0 ? 0 : atoll(env);
    *out = w;
    return COLL_OK;
}

int coll_comm_join(coll_world *w, int rank, coll_comm **out) {
    if (!w || !out) return COLL_ERR_NULL_COMM;
    *out = NULL;
    if (rank < 0 || rank >= w->nranks) return COLL_ERR_BAD_RANK;
    int expect = JOIN_NEVER;
    if (!atomic_compare_exchange_strong(&w->joined[rank], &expect, JOIN_IN))
        return COLL_ERR_BAD_RANK;
    size_t n = (size_t)w->nranks;
    coll_comm *c = calloc(1, sizeof *c);
    if (c) {
        c->out = calloc(n, sizeof *c->out);
        c->in = calloc(n, sizeof *c->in);
        c->send_mark = calloc(n, sizeof *c->send_mark);
        c->block_mark = calloc(n, sizeof *c->block_mark);
        c->step_peers = calloc(n, sizeof *c->step_peers);
    }
    if (!c || !c->out || !c->in || !c->send_mark || !c->block_mark || !c->step_peers) {
        if (c) {
            free(c->out);
            free(c->in);
            free(c->send_mark);
            free(c->block_mark);
            free(c->step_peers);
            free(c);
        }
        atomic_store(&w->joined[rank], JOIN_NEVER);
        return COLL_ERR_NOMEM;
    }
    c->w = w;
    c->rank = rank;
    c->nranks = w->nranks;
    c->call.comm = c;
    c->spin_ns = w->spin_ns;
    atomic_fetch_add(&w->active, 1);
    *out = c;
    return COLL_OK;
}

int collrt_cpu_probe(int nranks, int rank, coll_comm **out) {
    if (!out) return COLL_ERR_NULL_COMM;
    *out = NULL;
    if (nranks < 1) return COLL_ERR_BAD_SIZE;
    if (rank < 0 || rank >= nranks) return COLL_ERR_BAD_RANK;
    coll_comm *c = calloc(1, sizeof *c);
    if (!c) return COLL_ERR_NOMEM;
    c->rank = rank;
    c->nranks = nranks;
    c->call.comm = c;
    c->probe = 1;
    *out = c;
    return COLL_OK;
}

int coll_comm_rank(const coll_comm *c) { return c ? c->rank : -1; }
int coll_comm_size(const coll_comm *c) { return c ? c->nranks : -1; }

int coll_comm_destroy(coll_comm *c) {
    if (!c) return COLL_ERR_NULL_COMM;
    if (c->call.b.active) return COLL_ERR_BUSY;
    if (c->probe) {
        collrt_call_free(&c->call.b);
        free(c);
        return COLL_OK;
    }
    coll_world *w = c->w;
    atomic_store(&w->joined[c->rank], JOIN_LEFT);
    free(c->out);
    free(c->in);
    free(c->send_mark);
    free(c->block_mark);
    free(c->step_peers);
    free(c->sends);
    collrt_call_free(&c->call.b);
    free(c);
    atomic_fetch_sub(&w->active, 1);
    return COLL_OK;
}

int coll_world_destroy(coll_world *w) {
    if (!w) return COLL_ERR_NULL_COMM;
    if (atomic_load(&w->active) != 0) return COLL_ERR_BUSY;
    world_free(w);
    return COLL_OK;
}

/* ---- calls ---- */

static void reset_step(coll_comm *c) {
    c->nsends = c->first_send = 0;
    collrt_op_queue_clear(&c->call.b.q);
    c->recvs_left = 0;
    c->nstep_peers = 0;
    c->step_id++;
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
    if (comm->req) return COLL_ERR_INTERNAL;   /* a request is between start and done */
    if (comm->probe) {   /* the arguments checked, nothing announced */
        rc = collrt_begin_args(&comm->call.b, info, comm->nranks, comm->rank, sendbuf, recvbuf,
                               count, dtype, op, root);
        if (rc != COLL_OK) return rc;
        comm->call.b.active = 1;
        *call = &comm->call;
        return COLL_OK;
    }
    coll_world *w = comm->w;
    int64_t seq = ++comm->call_seq;
    /* Announce the call before looking at `broken` (both seq_cst): a rank
     * that breaks the world either sees us inside this call and waits until
     * we stop reading its memory (drain in coll_finish), or we see `broken`
     * here and never read it. */
    atomic_store(&w->cur_call[comm->rank], seq);
    if (atomic_load(&w->broken)) {
        atomic_store(&w->done_call[comm->rank], seq);
        return COLL_ERR_PEER;
    }
    struct coll_call *cl = &comm->call;
    rc = collrt_begin_args(&cl->b, info, comm->nranks, comm->rank, sendbuf, recvbuf, count,
                           dtype, op, root);
    if (rc != COLL_OK) {
        atomic_store(&w->done_call[comm->rank], seq);
        mark_failed(w, seq);
        return rc;
    }
    cl->b.hooks_ok = 1; /* collrt_step_done, collrt_defer_flush */
    cl->b.active = 1;
    cl->tag = (uint64_t)seq << 32;
    cl->communicated = 0;
    cl->posted = 0;
    reset_step(comm);
    *call = cl;
    return COLL_OK;
}

/* ---- posting ---- */

static int check_peer(struct coll_call *cl, int64_t peer) {
    return cl && collrt_postable(&cl->b, peer);
}

static chan *out_chan(coll_comm *c, int peer) {
    chan *ch = c->out[peer];
    if (ch) return ch;
    ch = aligned_alloc(64, sizeof *ch);
    if (!ch) return NULL;
    memset(ch, 0, sizeof *ch);
    atomic_init(&ch->posted, 0);
    atomic_init(&ch->acked, 0);
    atomic_store_explicit(&c->w->chans[(size_t)c->rank * c->nranks + peer], ch,
                          memory_order_release);
    c->out[peer] = ch;
    return ch;
}

/* Publishes one send if the channel has room; returns 1 if published. */
static int publish(coll_comm *c, int peer, const void *src, size_t bytes) {
    chan *ch = out_chan(c, peer);
    if (!ch) {
        collrt_fail(&c->call.b, COLL_ERR_NOMEM);
        return 1; /* dropped; the call fails */
    }
    uint64_t i = atomic_load_explicit(&ch->posted, memory_order_relaxed);
    if (i - atomic_load_explicit(&ch->acked, memory_order_acquire) >= CHAN_CAP) return 0;
    slot *s = &ch->slots[i % CHAN_CAP];
    s->ptr = src;
    s->bytes = bytes;
    s->tag = c->call.tag;
    atomic_store_explicit(&ch->posted, i + 1, memory_order_release);
    ring(c->w, peer);
    return 1;
}


void coll_send_bytes(coll_call *cl, int64_t peer, const void *src, size_t bytes) {
    if (!check_peer(cl, peer) || bytes == 0) return;
    coll_comm *c = cl->comm;
    if (c->probe) {   /* a probe has no peers */
        collrt_fail(&cl->b, COLL_ERR_INTERNAL);
        return;
    }
    int p = (int)peer;
    cl->communicated = 1;
    if (c->send_mark[p] != c->step_id) {
        c->send_mark[p] = c->step_id;
        c->step_peers[c->nstep_peers++] = p;
    }
    /* Publish now unless earlier sends still wait for room (keeps FIFO). */
    if (c->first_send == c->nsends && publish(c, p, src, bytes)) return;
    if (!collrt_grow((void **)&c->sends, &c->cap_sends, c->nsends + 1, sizeof *c->sends)) {
        collrt_fail(&cl->b, COLL_ERR_NOMEM);
        return;
    }
    c->sends[c->nsends++] = (psend){p, src, bytes};
}

/* ---- progress ---- */

static int publish_pending(coll_comm *c) {
    int progress = 0;
    while (c->first_send < c->nsends) {
        psend *s = &c->sends[c->first_send];
        if (!publish(c, s->peer, s->src, s->bytes)) break;
        c->first_send++;
        progress = 1;
    }
    return progress;
}

/* One pass over the pending receives; returns 1 if any completed. */
static int recv_pass(coll_comm *c) {
    collrt_call *b = &c->call.b;
    int progress = 0;
    uint64_t pass = ++c->pass_id;
    for (size_t i = 0; i < b->q.n && c->recvs_left; i++) {
        collrt_op *op = &b->q.ops[i];
        if (op->mark) continue;
        int p = op->peer;
        if (c->block_mark[p] == pass) continue;    /* an earlier one from p waits */
        chan *ch = c->in[p];
        if (!ch) {
            ch = atomic_load_explicit(&c->w->chans[(size_t)p * c->nranks + c->rank],
                                      memory_order_acquire);
            c->in[p] = ch;
        }
        uint64_t k = ch ? atomic_load_explicit(&ch->acked, memory_order_relaxed) : 0;
        if (!ch || atomic_load_explicit(&ch->posted, memory_order_acquire) <= k) {
            c->block_mark[p] = pass;
            continue;
        }
        const slot *s = &ch->slots[k % CHAN_CAP];
        if (s->tag != c->call.tag || s->bytes != op->bytes) {
            /* A message of another call: the peer gave up on one of them
             * (the channel is out of step for good). Same call, other step
             * step: the ranks run different schedules, a compiler bug; other
             * length: the ranks called with different counts. */
            if ((s->tag >> 32) != (c->call.tag >> 32)) {
                atomic_store(&c->w->broken, 1);
                collrt_fail(b, COLL_ERR_PEER);
            } else if (s->tag == c->call.tag) {
                collrt_fail(b, COLL_ERR_MISMATCH);
            } else {
                collrt_fail(b, COLL_ERR_INTERNAL);
            }
            return 1;
        }
        if (op->kind == COLLRT_OP_RECV)
            memcpy(op->dst, s->ptr, op->bytes);
        else
            collrt_reduce(b->kern, b->esz, op->dst, op->a, s->ptr, op->bytes / b->esz);
        atomic_store_explicit(&ch->acked, k + 1, memory_order_release);
        ring(c->w, p);
        op->mark = 1;
        c->recvs_left--;
        progress = 1;
    }
    return progress;
}

static int sends_done(coll_comm *c) {
    if (c->first_send < c->nsends) return 0;
    for (size_t i = 0; i < c->nstep_peers; i++) {
        chan *ch = c->out[c->step_peers[i]];
        if (ch && atomic_load_explicit(&ch->acked, memory_order_acquire) <
                      atomic_load_explicit(&ch->posted, memory_order_relaxed))
            return 0;
    }
    return 1;
}

/* The start of a step end: the step's receives become pending, its local
 * operations run. */
static void step_post(struct coll_call *cl) {
    coll_comm *c = cl->comm;
    collrt_call *b = &cl->b;
    c->recvs_left = b->q.nrecvs;
    if (c->recvs_left) cl->communicated = 1;
    if (b->status == COLL_OK) {
        publish_pending(c);
        collrt_run_local(b);
    }
}

/* Makes progress on the posted step: 1 when it is over (complete or
 * failed), 0 when something is still outstanding. Waits for the doorbell
 * when nothing moved and `block`. */
static int step_poll(struct coll_call *cl, int block) {
    coll_comm *c = cl->comm;
    collrt_call *b = &cl->b;
    while (b->status == COLL_OK) {
        uint32_t seen = atomic_load_explicit(&c->w->bells[c->rank].seq,
                                             memory_order_acquire);
        int progress = publish_pending(c);
        progress |= recv_pass(c);
        if (b->status != COLL_OK) break;
        if (c->recvs_left == 0 && sends_done(c)) break;
        if (call_aborted(c)) {
            collrt_fail(b, COLL_ERR_PEER);
            break;
        }
        if (!progress) {
            if (!block) return 0;
            wait_bell(c, seen);
        }
    }
    return 1;
}

/* The end of a step end, once step_poll said it is over. */
static int step_close(struct coll_call *cl) {
    collrt_call *b = &cl->b;
    if (b->status == COLL_OK) collrt_step_done(b);
    reset_step(cl->comm);
    cl->tag++;
    cl->posted = 0;
    return b->status;
}

int coll_step_end(coll_call *cl) {
    if (cl && cl->b.rec) return collrt_rec_step_end(&cl->b);
    if (!cl || !cl->b.active) return COLL_ERR_INTERNAL;
    if (cl->comm->probe) return COLL_ERR_INTERNAL;   /* a probe runs no step */
    step_post(cl);
    step_poll(cl, 1);
    return step_close(cl);
}

int collrt_step_progress(coll_call *cl, int block, int *done) {
    *done = 1;
    if (!cl || !cl->b.active) return COLL_ERR_INTERNAL;
    if (!cl->posted) {
        step_post(cl);
        cl->posted = 1;
    }
    if (!step_poll(cl, block)) {
        *done = 0;
        return COLL_OK;
    }
    return step_close(cl);
}

/* Abandoning a call: messages this rank published may still be read by a
 * peer that is inside the same call. Wait until each is acknowledged or its
 * reader has stopped reading (done_call), so that the caller may free or
 * reuse its buffers once we return. A peer that is not in this call cannot
 * read them: it sees `broken` at its next coll_begin, and in an earlier call
 * the tag does not match. */
static void drain(coll_comm *c) {
    coll_world *w = c->w;
    for (int p = 0; p < c->nranks; p++) {
        chan *ch = c->out[p];
        if (!ch) continue;
        for (;;) {
            uint32_t seen = atomic_load(&w->bells[c->rank].seq);
            if (atomic_load(&ch->acked) >= atomic_load_explicit(&ch->posted, memory_order_relaxed) ||
                atomic_load(&w->cur_call[p]) != c->call_seq ||
                atomic_load(&w->done_call[p]) >= c->call_seq)
                break;
            wait_bell(c, seen);
        }
    }
}

/* coll_finish once its last step (operations posted after the last step
 * end) is done. */
static int finish_close(struct coll_call *cl, int status) {
    coll_comm *c = cl->comm;
    if (status == COLL_OK) status = cl->b.status;
    if (status == COLL_OK) collrt_defer_flush(&cl->b);
    coll_world *w = c->w;
    if (status != COLL_OK) {
        if (cl->communicated) atomic_store(&w->broken, 1);
        /* From here on this rank reads no peer memory in this call. */
        atomic_store(&w->done_call[c->rank], c->call_seq);
        mark_failed(w, c->call_seq);
        if (cl->communicated) drain(c);
    } else {
        /* seq_cst store then load, against drain()'s store of `broken` then
         * load of done_call: one of the two sees the other. */
        atomic_store(&w->done_call[c->rank], c->call_seq);
        if (atomic_load(&w->broken)) ring_all(w);
    }
    cl->b.active = 0;
    c->req = 0;
    return status;
}

int coll_finish(coll_call *cl, int status) {
    if (cl && cl->b.rec) return collrt_rec_finish(&cl->b, status);
    if (!cl || !cl->b.active) return status != COLL_OK ? status : COLL_ERR_INTERNAL;
    coll_comm *c = cl->comm;
    if (c->probe) {   /* the program's verdict; nothing was moved */
        if (status == COLL_OK) status = cl->b.q.n ? COLL_ERR_INTERNAL : cl->b.status;
        collrt_op_queue_clear(&cl->b.q);
        cl->b.active = 0;
        return status;
    }
    if (cl->b.q.nrecvs) cl->communicated = 1;
    if (status == COLL_OK && (c->nsends || cl->b.q.n)) status = coll_step_end(cl);
    return finish_close(cl, status);
}

/* ---- requests (runtime/request.c): one call per communicator ---- */

coll_call *collrt_req_call(coll_comm *comm, int *status) {
    if (comm->probe) {
        *status = COLL_ERR_INTERNAL;
        return NULL;
    }
    if (comm->call.b.active || comm->req || comm->arm) {
        *status = COLL_ERR_BUSY;
        return NULL;
    }
    return &comm->call;
}

void collrt_req_call_free(coll_call *cl) {
    (void)cl;   /* the communicator's own call */
}

void collrt_arm(coll_comm *comm, coll_call *call) { comm->arm = call; }

int collrt_req_begin(coll_call *cl, const coll_alg_info *info, const void *sendbuf,
                     void *recvbuf, size_t count, coll_dtype dtype, coll_op op, int root,
                     size_t ntags) {
    (void)ntags;   /* the tag is the call number and the step */
    coll_comm *c = cl->comm;
    coll_call *out;
    int rc = coll_begin(c, info, sendbuf, recvbuf, count, dtype, op, root, &out);
    if (rc == COLL_OK) c->req = 1;   /* until finish_close */
    return rc;
}

void collrt_req_reserve(coll_call *cl, size_t ntags) {
    (void)cl;      /* one call at a time: its tag is the call number */
    (void)ntags;
}

int collrt_finish_progress(coll_call *cl, int status, int block, int *done) {
    *done = 1;
    if (!cl || !cl->b.active) return status != COLL_OK ? status : COLL_ERR_INTERNAL;
    coll_comm *c = cl->comm;
    if (!cl->posted) {
        if (cl->b.q.nrecvs) cl->communicated = 1;
        if (status != COLL_OK || !(c->nsends || cl->b.q.n)) return finish_close(cl, status);
    }
    int rc = collrt_step_progress(cl, block, done);
    if (!*done) return COLL_OK;
    return finish_close(cl, rc);
}

/* ---- convenience runner ---- */

typedef struct runner {
    coll_world *w;
    int rank;
    int (*fn)(coll_comm *, void *);
    void *arg;
    int result;
} runner;

static void *run_rank(void *p) {
    runner *r = p;
    coll_comm *c;
    r->result = coll_comm_join(r->w, r->rank, &c);
    if (r->result != COLL_OK) return NULL;
    r->result = r->fn(c, r->arg);
    coll_comm_destroy(c);
    return NULL;
}

int coll_cpu_run(int nranks, int (*fn)(coll_comm *comm, void *arg), void *arg) {
    if (!fn) return COLL_ERR_NULL_COMM;
    coll_world *w;
    int rc = coll_comm_create_cpu(nranks, &w);
    if (rc != COLL_OK) return rc;
    runner *rs = calloc((size_t)nranks, sizeof *rs);
    pthread_t *th = calloc((size_t)nranks, sizeof *th);
    if (!rs || !th) {
        free(rs);
        free(th);
        coll_world_destroy(w);
        return COLL_ERR_NOMEM;
    }
    int started = 0;
    for (int r = 0; r < nranks; r++) {
        rs[r] = (runner){w, r, fn, arg, COLL_OK};
        if (pthread_create(&th[r], NULL, run_rank, &rs[r]) != 0) {
            rc = COLL_ERR_NOMEM;
            break;
        }
        started++;
    }
    if (started < nranks) {
        /* The started ranks would wait for the missing ones forever: mark
         * the world broken so their collectives fail with COLL_ERR_PEER. */
        atomic_store(&w->broken, 1);
        ring_all(w);
    }
    for (int r = 0; r < started; r++) pthread_join(th[r], NULL);
    for (int r = 0; r < started && rc == COLL_OK; r++)
        if (rs[r].result != 0) rc = rs[r].result;
    free(rs);
    free(th);
    coll_world_destroy(w);
    return rc;
}
