/* trace.c - the flat plan of a call: what the first call of a kind did at
 * the byte level (its sends and the immediate copies of deferral, in
 * posting order, and each step's queue of receives and local operations),
 * with every pointer kept as (buffer, offset). A later call of the same
 * kind (program, count, type, op, root, in-place layout) replays it on its
 * own buffers: no chunk ranges, no deferral or queue decisions, no scratch
 * plan; the target completes each step as it completes the program's. */
#include <stdlib.h>
#include <string.h>
#include "collrt_internal.h"

/* Where a pointer of the trace points: a region, the staging area k
 * being region TR_STAGED + k. */
enum { TR_NULL, TR_IN, TR_OUT, TR_SCRATCH, TR_STAGED };
typedef struct tref {
    uint32_t region;
    size_t off;
} tref;

/* A send or an immediate copy, in posting order. */
typedef struct tact {
    int send;                  /* 1: coll_send_bytes(peer, src), 0: dst := src */
    int peer;
    tref dst, src;
    size_t bytes;
} tact;

typedef struct top {
    collrt_op_kind kind;
    int peer;
    tref dst, a, b;
    size_t bytes;
} top;

/* Step k's actions are acts[step[k-1].acts, step[k].acts), its queue
 * ops[step[k-1].ops, step[k].ops); the last step is what the program posts
 * after its last coll_step_end, followed by the copies of the end of the
 * call (acts from `flush`). */
typedef struct tstep {
    size_t acts, ops, nrecvs, nlate, nstaged;
} tstep;

/* The fields of a call that decide its plan, once: the key, its making
 * and its comparison are generated from this list. */
#define TKEY_FIELDS(X)                                                         \
    X(const coll_alg_info *, info) X(size_t, count) X(size_t, segment)         \
    X(coll_dtype, dtype) X(coll_op, op) X(int, root) X(int, in_place)          \
    X(int, nranks) X(int, me)

typedef struct tkey {
#define TKEY_DECLARE(type, name) type name;
    TKEY_FIELDS(TKEY_DECLARE)
#undef TKEY_DECLARE
    uintptr_t target[COLLRT_TRACE_KEY]; /* the target's own part (trace_key) */
} tkey;

struct collrt_trace {
    int valid;                 /* holds the verdict on key's kind: */
    int replayable;            /* the plan below, or "not replayable" */
    int failed;                /* the recording cannot be replayed */
    int nomem;                 /* ... for want of memory (no verdict) */
    tkey key;
    int64_t split;
    size_t scratch_need;       /* bytes of the scratch block it uses */
    size_t stage_need[COLLRT_TRACE_STAGES];
    size_t nstages;
    size_t flush;
    tact *acts;
    size_t nacts, capacts;
    top *ops;
    size_t nops, capops;
    tstep *steps;
    size_t nsteps, capsteps;   /* nsteps - 1 step ends, then the last step */
};

/* The verdicts on the last TRACES kinds of call, and slot[TRACES], which
 * the recording call fills: a recording that ends with a verdict (a plan,
 * or "not replayable", so that such a kind records once, not on every
 * call) takes the place of the oldest; one that failed for want of memory
 * or with the call evicts nothing. */
#define TRACES 4
struct collrt_trace_cache {
    struct collrt_trace slot[TRACES + 1];
    unsigned next;             /* the oldest */
};

/* The key of c's kind of call, for the recording call. */
static void key_of(const collrt_call *c, tkey *k) {
    memset(k, 0, sizeof *k);
#define TKEY_COPY(type, name) k->name = c->name;
    TKEY_FIELDS(TKEY_COPY)
#undef TKEY_COPY
    memcpy(k->target, c->trace_key, sizeof k->target);
}

/* Whether c is a call of k's kind (compared with c's own fields: every
 * call looks its plan up, only a recording one builds a key). */
static bool key_matches(const tkey *k, const collrt_call *c) {
#define TKEY_SAME(type, name) k->name == c->name &&
    return TKEY_FIELDS(TKEY_SAME) !memcmp(k->target, c->trace_key, sizeof k->target);
#undef TKEY_SAME
}

/* ---- recording ---- */

static size_t buf_bytes(const collrt_call *c, int64_t blocks) {
    return (size_t)blocks * c->count * c->esz;
}

/* p as (buffer, offset) for an access of n bytes; false when it lies in
 * none of the call's buffers. The output first: in place, the input lies
 * inside it. */
static bool ref_of(collrt_call *c, const void *p, size_t n, tref *r) {
    const char *x = p;
    *r = (tref){TR_NULL, 0};
    if (!x) return true;
    struct { uint32_t region; const char *lo; size_t len; } reg[] = {
        {TR_OUT, c->base[COLL_BUF_OUT], buf_bytes(c, c->out_blocks)},
        {TR_IN, c->base[COLL_BUF_IN], buf_bytes(c, c->in_blocks)},
        {TR_SCRATCH, c->scratch, c->scratch_cap},
    };
    for (size_t i = 0; i < sizeof reg / sizeof *reg; i++)
        if (reg[i].lo && x >= reg[i].lo && x + n <= reg[i].lo + reg[i].len) {
            *r = (tref){reg[i].region, (size_t)(x - reg[i].lo)};
            return true;
        }
    for (size_t k = 0; k < c->q.nkept && k < COLLRT_TRACE_STAGES; k++) {
        const struct collrt_stage *s = &c->q.staged[k];
        if (s->p && x >= s->p && x + n <= s->p + s->cap) {
            *r = (tref){TR_STAGED + (uint32_t)k, (size_t)(x - s->p)};
            return true;
        }
    }
    return false;
}

static void fail(collrt_trace *t) { t->failed = 1; }
static void fail_nomem(collrt_trace *t) { t->failed = t->nomem = 1; }

void collrt_trace_note(collrt_call *c, int send, int peer, const void *dst, const void *src,
                       size_t bytes) {
    collrt_trace *t = c->trace_rec;
    if (t->failed) return;
    if (!collrt_grow((void **)&t->acts, &t->capacts, t->nacts + 1, sizeof *t->acts)) {
        fail_nomem(t);
        return;
    }
    tact *a = &t->acts[t->nacts];
    a->send = send;
    a->peer = peer;
    a->bytes = bytes;
    if (!ref_of(c, dst, bytes, &a->dst) || !ref_of(c, src, bytes, &a->src)) fail(t);
    t->nacts++;
}

void collrt_trace_step(collrt_call *c) {
    collrt_trace *t = c->trace_rec;
    if (t->failed) return;
    const collrt_op_queue *q = &c->q;
    if (!collrt_grow((void **)&t->ops, &t->capops, t->nops + q->n, sizeof *t->ops) ||
        !collrt_grow((void **)&t->steps, &t->capsteps, t->nsteps + 1, sizeof *t->steps)) {
        fail_nomem(t);
        return;
    }
    if (q->nstaged > COLLRT_TRACE_STAGES) {
        fail(t);
        return;
    }
    for (size_t i = 0; i < q->n; i++) {
        const collrt_op *op = &q->ops[i];
        top *o = &t->ops[t->nops++];
        o->kind = op->kind;
        o->peer = op->peer;
        o->bytes = op->bytes;
        if (!ref_of(c, op->dst, op->bytes, &o->dst) || !ref_of(c, op->a, op->bytes, &o->a) ||
            !ref_of(c, op->b, op->bytes, &o->b))
            fail(t);
    }
    for (size_t k = 0; k < q->nstaged; k++) {
        if (q->staged[k].cap > t->stage_need[k]) t->stage_need[k] = q->staged[k].cap;
        if (k + 1 > t->nstages) t->nstages = k + 1;
    }
    t->steps[t->nsteps++] = (tstep){t->nacts, t->nops, q->nrecvs, q->nlate, q->nstaged};
}

/* The recording slot, emptied. */
static collrt_trace *take_slot(collrt_call *c) {
    if (!c->traces && !(c->traces = calloc(1, sizeof *c->traces))) return NULL;
    collrt_trace *t = &c->traces->slot[TRACES];
    t->valid = t->replayable = t->failed = t->nomem = 0;
    t->nacts = t->nops = t->nsteps = t->nstages = 0;
    memset(t->stage_need, 0, sizeof t->stage_need);
    return t;
}

const collrt_trace *collrt_trace_select(collrt_call *c) {
    /* (an in-place call whose input the runtime protects is never kept) */
    if (!c->traces_ok || c->vg || c->rec || collrt_input_at_risk(c)) return NULL;
    for (unsigned i = 0; c->traces && i < TRACES; i++) {
        const collrt_trace *t = &c->traces->slot[i];
        if (t->valid && key_matches(&t->key, c)) return t->replayable ? t : NULL;
    }
    collrt_trace *t = take_slot(c);
    if (t) {
        key_of(c, &t->key);
        c->trace_rec = t;
    }
    return NULL;
}

void collrt_trace_end(collrt_call *c, int status) {
    collrt_trace *t = c->trace_rec;
    c->trace_rec = NULL;
    if (!t) return;
    /* A call that failed, or whose recording ran out of memory, decides
     * nothing about its kind. One that never set up (count 0, a failed
     * `require`: decided by the key) or whose plan lies outside what a
     * trace holds is not replayable, nor is any later call of its kind
     * (one whose input the runtime protects never records:
     * collrt_trace_select). */
    if (t->nomem || status != COLL_OK || c->status != COLL_OK) return;
    t->replayable = !t->failed && c->split && t->nsteps;
    if (t->replayable) {
        t->split = c->split;
        t->scratch_need = c->scratch_cap;
        t->flush = t->steps[t->nsteps - 1].acts;
    }
    t->valid = 1;
    struct collrt_trace_cache *k = c->traces;
    collrt_trace *old = &k->slot[k->next++ % TRACES], spare = *old;
    *old = *t;
    *t = spare;
}

/* ---- replay ---- */

/* The call's buffers as the trace's regions, looked up once per step. */
typedef struct tbases {
    char *region[TR_STAGED];
    const struct collrt_stage *staged;
} tbases;

static tbases bases_of(const collrt_call *c) {
    return (tbases){{NULL, c->base[COLL_BUF_IN], c->base[COLL_BUF_OUT], c->scratch},
                    c->q.staged};
}

/* (integer arithmetic: TR_NULL, a null base at offset 0, stays NULL
 * without a branch of its own) */
static void *at(const tbases *b, tref r) {
    if (r.region >= TR_STAGED) return b->staged[r.region - TR_STAGED].p + r.off;
    return (void *)((uintptr_t)b->region[r.region] + r.off);
}

/* The memory the trace uses: the scratch block and the staging areas at
 * least as large as when it was recorded (a later call may have grown
 * them; a call of another kind may have replaced them). */
static int make_room(collrt_call *c, const collrt_trace *t) {
    if (!collrt_scratch_reserve(c, t->scratch_need)) return COLL_ERR_NOMEM;
    collrt_op_queue *q = &c->q;
    for (size_t k = 0; k < t->nstages; k++)
        if (!collrt_stage_reserve(q, k, t->stage_need[k])) return COLL_ERR_NOMEM;
    if (!collrt_grow((void **)&q->ops, &q->cap, 1, sizeof *q->ops)) return COLL_ERR_NOMEM;
    return COLL_OK;
}

int collrt_trace_replay_begin(collrt_call *c, const collrt_trace *t) {
    int rc = make_room(c, t);
    if (rc != COLL_OK) return rc;
    c->split = t->split;
    c->replay = t;
    c->step = 1;
    return COLL_OK;
}

size_t collrt_trace_steps(const collrt_trace *t) { return t->nsteps - 1; }

static void run_acts(collrt_call *c, const tbases *b, size_t lo, size_t hi) {
    const collrt_trace *t = c->replay;
    for (size_t i = lo; i < hi && c->status == COLL_OK; i++) {
        const tact *a = &t->acts[i];
        if (a->send) {
            coll_send_bytes((coll_call *)c, a->peer, at(b, a->src), a->bytes);
            continue;
        }
        void *dst = at(b, a->dst);
        if (c->before_write) c->before_write(c, dst, a->bytes);
        memcpy(dst, at(b, a->src), a->bytes);
    }
}

void collrt_trace_post(collrt_call *c, size_t k) {
    const collrt_trace *t = c->replay;
    const tstep *s = &t->steps[k], *prev = k ? &t->steps[k - 1] : NULL;
    size_t a0 = prev ? prev->acts : 0, o0 = prev ? prev->ops : 0;
    tbases b = bases_of(c);
    run_acts(c, &b, a0, s->acts);
    collrt_op_queue *q = &c->q;
    size_t n = s->ops - o0;
    if (n > q->cap && !collrt_grow((void **)&q->ops, &q->cap, n, sizeof *q->ops)) {
        collrt_fail(c, COLL_ERR_NOMEM);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const top *o = &t->ops[o0 + i];
        q->ops[i] = (collrt_op){o->kind, o->peer, at(&b, o->dst), at(&b, o->a), at(&b, o->b),
                                o->bytes, 0};
    }
    q->n = n;
    q->nrecvs = s->nrecvs;
    q->nlate = s->nlate;
    q->nstaged = s->nstaged;
}

void collrt_trace_flush(collrt_call *c) {
    const collrt_trace *t = c->replay;
    tbases b = bases_of(c);
    run_acts(c, &b, t->flush, t->nacts);
}

void collrt_trace_cache_free(collrt_call *c) {
    if (!c->traces) return;
    for (unsigned i = 0; i <= TRACES; i++) {
        free(c->traces->slot[i].acts);
        free(c->traces->slot[i].ops);
        free(c->traces->slot[i].steps);
    }
    free(c->traces);
    c->traces = NULL;
}
