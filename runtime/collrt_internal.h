/* collrt_internal.h - what the target-independent runtime shares with the
 * targets (not installed). A target defines `struct coll_call` with a
 * collrt_call as its FIRST member, so common code can view any call as a
 * collrt_call.
 *
 * The runtime's files, one job each:
 *   dtype.c        data types, operators, status strings, local reductions
 *   kernels*.c     reduction kernels per instruction set
 *   collectives.c  the collective table in the runtime's terms, layouts
 *   args.c         argument checks of coll_begin
 *   scratch.c      coll_setup and its scratch plan; growing arrays
 *   chunk.c        chunk geometry, chunk ranges, call queries
 *   chunk_calls.c  the chunk-level transfer calls (coll_send ... coll_reduce)
 *   deferral.c     deferred copies of `in` chunks
 *   cow.c          copy-on-write of at-risk in-place input
 *   op_queue.c     the per-step queue of receives and local operations, and
 *                  the byte-level calls that fill it
 *   quantity.c     numbers with units: byte sizes (quantity.h; the MPI
 *                  target's config and collc's options read sizes with it)
 *   request.c      the nonblocking form (coll_start, coll_test ...): a
 *                  compiled program recorded once, replayed step by step
 *   trace.c        the flat plan of a call at the byte level, recorded by
 *                  its first call and replayed by the later ones
 *   vblocks.c      per-block counts (v-collectives): which block each chunk
 *                  of a program holds, the geometry of uneven blocks
 * and what each target provides is at the end of this file. */
#ifndef COLLRT_INTERNAL_H
#define COLLRT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "coll.h"

/* Reduction kernels. All three compute dst[i] = a[i] (+) b[i] for i < n
 * elements, bit-identically; they differ in what may alias:
 *   k3:   nothing aliases (restrict)            dst = a (+) b
 *   kacc: dst == a, b separate (restrict)       dst = dst (+) b
 *   kgen: anything (no restrict; element order) */
typedef void (*collrt_kernel)(void *dst, const void *a, const void *b, size_t n);
typedef struct collrt_kernels {
    collrt_kernel k3, kacc, kgen;
} collrt_kernels;

/* Instruction sets with their own kernel table. */
enum { COLLRT_ISA_GENERIC = 0, COLLRT_ISA_AVX2 = 1, COLLRT_ISA_COUNT };
int collrt_isa_available(int isa);      /* built in and supported by this CPU */
int collrt_isa_selected(void);          /* the one collectives use */
const char *collrt_isa_name(int isa);
/* Kernels of (dtype, op) for one ISA; NULL when the pair is undefined or the
 * ISA unavailable. */
const collrt_kernels *collrt_kernels_isa(coll_dtype dtype, coll_op op, int isa);
/* Kernels of (dtype, op) for the selected ISA; NULL when
 * coll_op_supported() fails. */
const collrt_kernels *collrt_kernels_for(coll_dtype dtype, coll_op op);
/* dst = a (+) b choosing the right kernel for the aliasing at hand. */
void collrt_reduce(const collrt_kernels *k, size_t esz, void *dst, const void *a,
                   const void *b, size_t n);

/* The rows of coll_collectives.def in the runtime's terms, indexed by
 * coll_collective (collectives.c). */
enum {
    COLLRT_BLOCKS_ONE = 1,  /* one block per holding rank */
    COLLRT_BLOCKS_N = 2     /* N blocks per holding rank */
};
enum {
    COLLRT_HELD_ALL = 0,    /* every rank holds the buffer */
    COLLRT_HELD_ROOT = 1    /* the root only */
};
enum {
    COLLRT_INPLACE_OUT_0,   /* in-place input at recvbuf block 0 */
    COLLRT_INPLACE_OUT_ME,  /* ... at recvbuf block `me` */
    COLLRT_INPLACE_OUT_ROOT, /* ... at recvbuf block `root` */
    COLLRT_INPLACE_IN_ME    /* recvbuf is COLL_IN_PLACE: out is sendbuf block `me` */
};
typedef struct collrt_collective {
    int rooted, reducing;
    int in_blocks, in_where, out_blocks, out_where; /* COLLRT_BLOCKS_*, COLLRT_HELD_* */
    int in_place;                                   /* COLLRT_INPLACE_* */
} collrt_collective;
extern const collrt_collective collrt_collectives[COLL_COLLECTIVE_COUNT];

/* Block layout of a collective for one rank. */
typedef struct collrt_layout {
    int rooted, reducing;
    int64_t in_blocks, out_blocks; /* on this rank (0 = no memory) */
} collrt_layout;
void collrt_layout_for(coll_collective coll, int nranks, int me, int root,
                       collrt_layout *out);

/* Deferred copies into one buffer: chunk d with bit d set in `bits` still
 * has to receive in chunk d + delta. */
typedef struct collrt_deferred {
    unsigned char *bits;   /* over the buffer's chunks, in the scratch area;
                              NULL: no deferral into this buffer */
    int64_t n;             /* chunks pending */
    int64_t delta;
} collrt_deferred;

/* One receive or local operation of the current step (op_queue.c). */
typedef enum collrt_op_kind {
    COLLRT_OP_RECV,        /* dst := remote */
    COLLRT_OP_RECV_REDUCE, /* dst := a (+) remote */
    COLLRT_OP_COPY,        /* dst := a */
    COLLRT_OP_REDUCE,      /* dst := a (+) b */
    COLLRT_OP_REDUCE_LATE  /* dst := a (+) b once every other operation of
                              the step is done, in posting order: a reduce
                              into memory an earlier reduce of the step
                              writes (collrt_step_done runs it) */
} collrt_op_kind;
typedef struct collrt_op {
    collrt_op_kind kind;
    int peer;              /* receives */
    char *dst;
    const char *a, *b;     /* local operands */
    size_t bytes;
    size_t mark;           /* the target's own (0 when posted): done flag,
                              staging offset ... */
} collrt_op;
/* The queue, in posting order. Kept by the communicator across calls (the
 * array is reused); emptied at every step end. */
typedef struct collrt_op_queue {
    collrt_op *ops;
    size_t n, cap;
    size_t nrecvs;         /* receives among them */
    /* Several reduces into one destination in one step (a parent taking
     * its children's partial sums at once) must not run concurrently nor in
     * arrival order: the destinations of the step's reduces, so that a
     * reduce into one of them is queued as COLLRT_OP_REDUCE_LATE (a
     * receive into a staging area first). */
    struct collrt_span { const char *lo, *hi; } *reduced;
    size_t nreduced, capreduced;
    const char *rlo, *rhi; /* the hull of `reduced` (a quick test) */
    size_t nlate;          /* COLLRT_OP_REDUCE_LATE among the ops */
    /* Staging areas, kept from step to step and call to call (a repeated
     * call allocates nothing): the step uses staged[0, nstaged) in posting
     * order, each grown to the largest size asked of it so far. */
    struct collrt_stage { char *p; size_t cap; } *staged;
    size_t nstaged;        /* in use by this step */
    size_t nkept, capstaged; /* allocated slots */
} collrt_op_queue;

/* Words of a target's own part of the key of a flat plan (trace.c). */
#define COLLRT_TRACE_KEY 3

/* The target-independent state of one call. */
typedef struct collrt_call {
    const coll_alg_info *info;
    int active;            /* between a successful coll_begin and coll_finish */
    int nranks, me, root;
    coll_dtype dtype;
    coll_op op;
    size_t count;          /* elements per block */
    size_t esz;            /* element size */
    const collrt_kernels *kern; /* NULL for non-reducing collectives */
    int64_t split;         /* P, set by coll_setup (0 before) */
    int nbufs;             /* 2 + nscratch */
    int64_t in_blocks, out_blocks;
    int in_place;          /* in and out alias in the in-place layout */
    int status;            /* first error (sticky) */
    int hooks_ok;          /* set by the target: it calls collrt_step_done after
                              every completed step and collrt_defer_flush
                              before finishing a successful call */
    /* Set by a target whose sends may still read their memory after their
     * step: called before the runtime itself writes [p, p + bytes) (deferred
     * copies materialised at post time). */
    void (*before_write)(struct collrt_call *c, void *p, size_t bytes);
    /* Set by a target that reduces some calls itself (the mpi target's
     * MPI_Reduce_local): dst := a (+) b for the local reductions of
     * collrt_run_local; NULL: the kernels. */
    void (*reduce)(struct collrt_call *c, char *dst, const char *a, const char *b, size_t bytes);
    size_t segment;        /* receives longer than this are queued in pieces
                              of this many bytes (0: never cut) */
    int64_t npending;      /* deferred chunks over all buffers */
    /* Copy-on-write of the input of an in-place call that is not
     * COLL_ALG_INPLACE_SAFE (cow.c). */
    int cow;               /* active for this call */
    int64_t inplace_shift; /* in-place layout: in block b is out block b + shift */
    int64_t cow_shift;     /* in chunk i shares memory with out chunk i + cow_shift */
    char *cow_save;        /* saved input chunks, laid out like `in` */
    char *cow_tmp;         /* writes redirected in this step, laid out like `out` */
    unsigned char *cow_saved; /* bitmap over in chunks */
    uint32_t *cow_read;    /* per in chunk: step of its last read from its own memory */
    int64_t *cow_fix;      /* out ranges [lo, hi) redirected in this step */
    int64_t ncow_fix;
    uint32_t step;         /* current step, from 1 */
    /* Not NULL while coll_start records the program (request.c): the
     * chunk-level calls, coll_setup, coll_step_end and coll_finish append
     * to it instead of acting. */
    struct collrt_recording *rec;
    /* The flat plan (trace.c) this call records (NULL: none), or the one
     * it replays (NULL: it runs the program), and the target's part of
     * the key of a plan (collrt_trace_select). */
    struct collrt_trace *trace_rec;
    const struct collrt_trace *replay;
    uintptr_t trace_key[COLLRT_TRACE_KEY];
    int traces_ok;         /* set by a target whose sends, step ends and
                              finish feed a recording (collrt_trace_note,
                              _step, _end): only its calls keep plans */
    /* Per buffer; collrt_begin_args clears nothing from here on (a call
     * costs no clearing of 66-entry arrays): entries [0, nbufs) are set by
     * begin_args and setup, the others are never read. */
    char *base[COLL_BUF_SCRATCH0 + COLL_MAX_SCRATCH];
    int64_t chunks[COLL_BUF_SCRATCH0 + COLL_MAX_SCRATCH]; /* on this rank */
    /* Deferred copies in -> out or scratch (COLL_ALG_CHUNK_CALLS_ONLY,
     * deferral.c). */
    collrt_deferred defer[COLL_BUF_SCRATCH0 + COLL_MAX_SCRATCH];
    /* Blocks of counts of their own (vblocks.c), NULL: every block is
     * `count` elements. Set by the request that owns the call, before its
     * begin (collrt_begin_args leaves it). */
    const struct collrt_vgeom *vg;
    /* Kept from call to call, as long as the communicator (collrt_call_free
     * when it is destroyed): */
    char *scratch;         /* the scratch block (scratch.c), grown when a
                              call needs more */
    size_t scratch_cap;
    struct collrt_plan_memo *plan_memo; /* the last scratch plan (scratch.c) */
    struct collrt_trace_cache *traces;  /* the flat plans of the last kinds of
                                           call (trace.c) */
    collrt_op_queue q;     /* the step's receives and local operations */
} collrt_call;

/* A call of the transport ABI as the common code sees it. */
#define COLLRT_CALL(call) ((collrt_call *)(void *)(call))
#define COLLRT_CONST_CALL(call) ((const collrt_call *)(const void *)(call))

/* Records the first error of a call. */
static inline void collrt_fail(collrt_call *c, int status) {
    if (c->status == COLL_OK) c->status = status;
}

/* ---- argument checks (args.c) ---- */

/* What every coll_begin checks first: clears *call, then COLL_OK, or
 * COLL_ERR_NULL_COMM without a communicator (c == NULL), or
 * COLL_ERR_INTERNAL without a place for the call or with a call in
 * progress. */
static inline int collrt_begin_check(const collrt_call *c, coll_call **call) {
    if (call) *call = NULL;
    if (!c) return COLL_ERR_NULL_COMM;
    return !call || c->active ? COLL_ERR_INTERNAL : COLL_OK;
}

/* Validates the arguments of one call on rank `me` of `nranks` and fills
 * everything but split/scratch; empties the op queue. Returns a status. */
int collrt_begin_args(collrt_call *c, const coll_alg_info *info, int nranks, int me,
                      const void *sendbuf, void *recvbuf, size_t count,
                      coll_dtype dtype, coll_op op, int root);

/* Posting checks shared by the targets:
 *   collrt_postable: an operation may be posted on an active call that has
 *     not failed, with peer (when it has one) a rank; a bad peer is a
 *     sticky COLL_ERR_INTERNAL;
 *   collrt_reducible: the call reduces and `bytes` is whole elements (else
 *     sticky COLL_ERR_INTERNAL). */
static inline bool collrt_postable(collrt_call *c, int64_t peer) {
    if (!c->active || c->status != COLL_OK) return false;
    if (peer < 0 || peer >= c->nranks) {
        collrt_fail(c, COLL_ERR_INTERNAL);
        return false;
    }
    return true;
}
static inline bool collrt_reducible(collrt_call *c, size_t bytes) {
    if (!c->kern || bytes % c->esz) {
        collrt_fail(c, COLL_ERR_INTERNAL);
        return false;
    }
    return true;
}

/* ---- the scratch plan (scratch.c) ---- */

/* coll_setup is the runtime's, for every target: it validates, plans the
 * scratch area (scratch buffers, private input copy or copy-on-write
 * state, deferral bitmaps), grows the communicator's block (c->scratch)
 * and assigns the pieces. */

/* Frees what a call keeps from call to call (the scratch block, the op
 * queue); a target calls it when it destroys a communicator. */
void collrt_call_free(collrt_call *c);
/* The scratch block at least `bytes` (64-aligned; its contents are not
 * kept when it grows); false when out of memory (scratch.c). */
bool collrt_scratch_reserve(collrt_call *c, size_t bytes);
/* *arr holds at least `need` elements of `elem` bytes (doubling); false
 * when out of memory (grow.c). */
bool collrt_grow(void **arr, size_t *cap, size_t need, size_t elem);

/* ---- chunk ranges (chunk.c) ---- */

/* Byte range of chunks [lo, hi) of buffer buf; false (and sticky
 * COLL_ERR_INTERNAL) if out of bounds. Inline: every chunk-level call
 * resolves its ranges with it; without `split` (P = 1) a chunk is a block
 * and the range is two multiplications, else collrt_range_split. */
bool collrt_range_split(collrt_call *c, int buf, int64_t lo, int64_t hi, char **ptr,
                        size_t *bytes);
static inline bool collrt_range(collrt_call *c, int buf, int64_t lo, int64_t hi, char **ptr,
                                size_t *bytes) {
    if (c->split != 1 || c->vg || buf < 0 || buf >= c->nbufs || lo < 0 || lo > hi || hi > c->chunks[buf])
        return collrt_range_split(c, buf, lo, hi, ptr, bytes);
    *bytes = (size_t)(hi - lo) * c->count * c->esz;
    *ptr = *bytes ? c->base[buf] + (size_t)lo * c->count * c->esz : NULL;
    return true;
}

/* Bit i of a bitmap. */
static inline bool collrt_bit(const unsigned char *map, int64_t i) {
    return (map[i >> 3] >> (i & 7)) & 1;
}

/* The runtime sees every transfer of a program that uses chunk-level calls
 * only, on a target that calls the hooks (collrt_step_done,
 * collrt_defer_flush): the condition of deferral and copy-on-write. */
static inline bool collrt_chunk_level(const collrt_call *c) {
    return c->hooks_ok && (c->info->flags & COLL_ALG_CHUNK_CALLS_ONLY);
}

/* ---- deferred copies (deferral.c) ----
 * The inline forms skip the call when nothing is pending (the common case
 * of every chunk-level call). */

/* Whether coll_setup gives buf a deferral bitmap. */
bool collrt_defers_into(const collrt_call *c, int buf);
/* Materialises every deferred copy into `out` (a target's coll_finish calls
 * it on the success path, after the last step). */
void collrt_defer_flush(collrt_call *c);

bool collrt_deferred_copy(collrt_call *c, int64_t slo, int dbuf, int64_t dlo, int64_t n);
int collrt_deferred_read_source(collrt_call *c, int buf, int64_t *lo, int64_t n);
void collrt_deferred_clear(collrt_call *c, int buf, int64_t lo, int64_t hi);
const char *collrt_deferred_fused_operand(collrt_call *c, int dbuf, int64_t lo, int64_t n,
                                          size_t bytes);
/* Tries to defer the copy sbuf[slo, slo+n) -> dbuf[dlo, dlo+n) (sbuf must
 * be `in`, dbuf a buffer coll_setup gave a bitmap); false when it has to be
 * done now. */
static inline bool collrt_defer_copy(collrt_call *c, int sbuf, int64_t slo, int dbuf, int64_t dlo,
                                     int64_t n) {
    return sbuf == COLL_BUF_IN && dbuf > COLL_BUF_IN && dbuf < c->nbufs && c->defer[dbuf].bits &&
           collrt_deferred_copy(c, slo, dbuf, dlo, n);
}
/* Where to read the n chunks buf[lo, lo + n) from: `in` when all of them
 * are pending (then *lo moves to the in chunks), else buf (after
 * materialising a pending part). */
static inline int collrt_read_source(collrt_call *c, int buf, int64_t *lo, int64_t n) {
    return c->npending ? collrt_deferred_read_source(c, buf, lo, n) : buf;
}
/* buf[lo, hi) is overwritten: its pending copies are dropped. */
static inline void collrt_clear_pending(collrt_call *c, int buf, int64_t lo, int64_t hi) {
    if (c->npending) collrt_deferred_clear(c, buf, lo, hi);
}
/* The `in` operand that replaces a read-modify-write destination
 * dbuf[lo, lo+n) of `bytes` bytes when it is all pending (the fusion of the
 * copy with the reduction); NULL (after materialising any pending part)
 * when it is not. */
static inline const char *collrt_fused_operand(collrt_call *c, int dbuf, int64_t lo, int64_t n,
                                               size_t bytes) {
    return c->npending ? collrt_deferred_fused_operand(c, dbuf, lo, n, bytes) : NULL;
}

/* ---- copy-on-write of at-risk input (cow.c) ---- */

/* An in-place call whose input is at risk (not COLL_ALG_INPLACE_SAFE) is
 * protected by copy-on-write (collrt_chunk_level) or else by a private
 * copy of the whole input made by coll_setup. */
/* An in-place call of a program that may read an input chunk after writing
 * the out chunk that shares its memory: the runtime protects its input
 * (copy on write, or a private copy). */
bool collrt_input_at_risk(const collrt_call *c);
bool collrt_cow_wanted(const collrt_call *c);
bool collrt_input_copy_wanted(const collrt_call *c);

const char *collrt_cow_read_at(collrt_call *c, int64_t lo, int64_t hi, const char *p);
char *collrt_cow_write_at(collrt_call *c, int64_t lo, int64_t hi, char *p);
bool collrt_cow_intact_at(const collrt_call *c, int64_t lo, int64_t hi);
/* Where to read buf[lo, hi) (at p) from. */
static inline const char *collrt_cow_read(collrt_call *c, int buf, int64_t lo, int64_t hi,
                                          const char *p) {
    return c->cow && buf == COLL_BUF_IN && lo < hi ? collrt_cow_read_at(c, lo, hi, p) : p;
}
/* Where to write buf[lo, hi) (at p): saves the input chunks it overwrites
 * and redirects the write if one of them is being read in this step. */
static inline char *collrt_cow_write(collrt_call *c, int buf, int64_t lo, int64_t hi, char *p) {
    return c->cow && buf == COLL_BUF_OUT && lo < hi ? collrt_cow_write_at(c, lo, hi, p) : p;
}
/* True when buf[lo, hi) are input chunks that still hold the input in
 * their own memory (none saved). */
static inline bool collrt_cow_intact(const collrt_call *c, int buf, int64_t lo, int64_t hi) {
    return !c->cow || buf != COLL_BUF_IN || collrt_cow_intact_at(c, lo, hi);
}
/* Lands the writes of the step that copy-on-write redirected (from
 * collrt_step_done, after the step's late reduces). */
void collrt_cow_land(collrt_call *c);

/* ---- the op queue (op_queue.c) ----
 * coll_recv_bytes, coll_recv_reduce_bytes, coll_copy_bytes and
 * coll_reduce_bytes check and queue their operation (receives cut into
 * c->segment pieces); the target runs the queue in its coll_step_end. */

/* Runs the local operations (copies, reductions) of the queue in order and
 * marks them (mark = 1). Inline: it is on every step's path. */
static inline void collrt_run_local(collrt_call *c) {
    collrt_op_queue *q = &c->q;
    for (size_t i = 0; i < q->n; i++) {
        collrt_op *op = &q->ops[i];
        if (op->kind == COLLRT_OP_COPY) {
            memmove(op->dst, op->a, op->bytes);
        } else if (op->kind == COLLRT_OP_REDUCE) {
            if (c->reduce) c->reduce(c, op->dst, op->a, op->b, op->bytes);
            else collrt_reduce(c->kern, c->esz, op->dst, op->a, op->b, op->bytes / c->esz);
        } else if (op->kind != COLLRT_OP_REDUCE_LATE) {
            continue; /* a receive (a late reduce runs in collrt_step_done) */
        }
        op->mark = 1;
    }
}
/* Runs the COLLRT_OP_REDUCE_LATE operations in posting order (from
 * collrt_step_done, once the step's other operations are done). */
void collrt_run_late(collrt_call *c);
/* A target calls it when every operation of a step has completed (sends
 * included) and the step succeeded: runs the late reduces of the step
 * (collrt_run_late), lands the writes redirected by copy-on-write
 * (collrt_cow_land) and starts the next step. */
void collrt_step_done(collrt_call *c);
/* Empties the queue (at the end of every step); its staging areas stay
 * allocated for the next steps. */
static inline void collrt_op_queue_clear(collrt_op_queue *q) {
    q->n = 0;
    q->nrecvs = 0;
    q->nreduced = 0;
    q->nlate = 0;
    q->nstaged = 0;
}
void collrt_op_queue_free(collrt_op_queue *q);
/* Staging area k kept and at least `bytes` (op_queue.c); false when out
 * of memory. */
bool collrt_stage_reserve(collrt_op_queue *q, size_t k, size_t bytes);


/* ---- the nonblocking form (request.c) ----
 * coll_start runs the compiled program once in recording mode: the program
 * depends only on N, me, root, count and its parameters, never on data, so
 * the calls it makes are the plan of the call. The request then replays
 * the plan on a real call of the target, one step at a time: it posts the
 * step's transfers with the same chunk-level calls the blocking program
 * makes (deferral and copy-on-write decide alike), and lets the target
 * finish the step without blocking (collrt_step_progress). The step
 * structure has one source, the generated function itself. */
typedef enum collrt_rec_kind {
    COLLRT_REC_SETUP,          /* coll_setup(split, nscratch, chunks) */
    COLLRT_REC_SEND,           /* coll_send(peer, a, x, y) */
    COLLRT_REC_RECV,           /* coll_recv(peer, a, x, y) */
    COLLRT_REC_RECV_REDUCE,    /* coll_recv_reduce(peer, a, x, y) */
    COLLRT_REC_RECV_REDUCE_COPY, /* coll_recv_reduce_copy(peer, a, x, b, y, n) */
    COLLRT_REC_COPY,           /* coll_copy(a, x, b, y, n) */
    COLLRT_REC_REDUCE,         /* coll_reduce(a, x, b, y, n) */
    COLLRT_REC_STEP            /* coll_step_end */
} collrt_rec_kind;
typedef struct collrt_rec {
    collrt_rec_kind kind;
    int a, b;                  /* buffers */
    int64_t peer, x, y, n;
} collrt_rec;
typedef struct collrt_recording {
    collrt_rec *ops;
    size_t n, cap;
    int64_t split;             /* the arguments of coll_setup */
    int nscratch;
    int64_t chunks[COLL_MAX_SCRATCH];
    size_t nsteps;             /* COLLRT_REC_STEP among the ops */
    int began;                 /* coll_begin accepted the arguments */
    int finished;              /* coll_finish was called, with: */
    int status;
    int nomem;                 /* an append failed */
    int replayed;              /* a call that replayed its flat plan in its
                                  coll_begin: the program's calls are
                                  absorbed, coll_finish returns `status` */
} collrt_recording;
/* What the recording calls do (the chunk-level calls test c->rec first). */
void collrt_rec_add(collrt_call *c, collrt_rec_kind kind, int64_t peer, int a, int64_t x, int b,
                    int64_t y, int64_t n);
int collrt_rec_setup(collrt_call *c, int64_t split, int nscratch, const int64_t *chunks);
/* coll_setup's checks and geometry without memory (scratch.c). */
int collrt_rec_check_setup(collrt_call *c, int64_t split, int nscratch, const int64_t *chunks);
int collrt_rec_step_end(collrt_call *c);
int collrt_rec_finish(collrt_call *c, int status);
/* The recording coll_begin: a target's coll_begin calls it (instead of its
 * own work) when collrt_arm armed the communicator; c is the armed call. */
int collrt_rec_begin(collrt_call *c, const coll_alg_info *info, int nranks, int me,
                     const void *sendbuf, void *recvbuf, size_t count, coll_dtype dtype,
                     coll_op op, int root);
/* Step tags a request uses (the mpi target reserves them at start): one
 * per coll_step_end, plus one for coll_finish once the program set up or
 * posted anything, exactly as many as the blocking call advances by. */
size_t collrt_rec_tags(const collrt_recording *r);
/* coll_request_start on other buffers (the mpi target's staged copies). */
int collrt_request_restart(coll_request *req, const void *sendbuf, void *recvbuf);

/* ---- the flat plan (trace.c) ----
 * The first call of a kind (program, count, dtype, op, root, in-place
 * layout, N, rank, segment size and the target's trace_key) records what
 * it does at the byte level; a later call of that kind replays it instead
 * of running the program's chunk-level calls:
 *   collrt_trace_select: after a successful coll_begin (trace_key set):
 *     the plan to replay, or NULL (then the call records one into the
 *     call's cache, replacing the oldest of its few);
 *   collrt_trace_note: while recording, a send (the target's
 *     coll_send_bytes, before it cuts segments) or an immediate copy
 *     (deferral materialising a copy), in posting order;
 *   collrt_trace_step: while recording, at the end of every step (the
 *     queue as it ran) and once at the end of the call, before its copies;
 *   collrt_trace_end: the end of the recording call (its status); a
 *     failed call, one that never set up and an in-place call whose input
 *     the runtime must protect keep none;
 *   collrt_trace_replay_begin: makes the call replay t (its scratch and
 *     staging grown to what t uses); then for k = 0 .. collrt_trace_steps,
 *     collrt_trace_post(k) posts step k (k = steps: what the program posts
 *     at its end, a step of its own when it posted anything) and the
 *     target completes it as a step of the program; collrt_defer_flush
 *     runs the copies of the end of the call. */
#define COLLRT_TRACE_STAGES 64
typedef struct collrt_trace collrt_trace;
const collrt_trace *collrt_trace_select(collrt_call *c);
void collrt_trace_note(collrt_call *c, int send, int peer, const void *dst, const void *src,
                       size_t bytes);
void collrt_trace_step(collrt_call *c);
void collrt_trace_end(collrt_call *c, int status);
int collrt_trace_replay_begin(collrt_call *c, const collrt_trace *t);
size_t collrt_trace_steps(const collrt_trace *t);
void collrt_trace_post(collrt_call *c, size_t k);
void collrt_trace_flush(collrt_call *c);
void collrt_trace_cache_free(collrt_call *c);

/* ---- per-block counts (vblocks.c) ----
 * The piece a chunk slot holds: position `pos` of block `blk` (rank r's
 * block is r; an alltoall's block from s to d is s * N + d); blk < 0: a
 * scratch chunk the program never uses. */
typedef struct collrt_vpiece {
    int64_t blk, pos;
} collrt_vpiece;
/* This rank's piece of every chunk of every buffer of a program. */
typedef struct collrt_vmap {
    int64_t split;
    int nbufs;
    int64_t chunks[COLL_BUF_SCRATCH0 + COLL_MAX_SCRATCH];
    collrt_vpiece *piece[COLL_BUF_SCRATCH0 + COLL_MAX_SCRATCH];
    collrt_vpiece *mem;    /* the one allocation behind piece[] */
} collrt_vmap;
/* Follows the plans of all N ranks (plans[r] recorded for rank r, root,
 * count > 0) and checks that each chunk slot holds one piece for the whole
 * call and that every transfer, copy and reduction moves ranges of equal
 * pieces: then the program serves blocks of any counts. COLL_OK with
 * rank me's map in *out (collrt_vmap_free), or COLL_ERR_NOT_APPLICABLE
 * with *why (a static text). The verdict is the same for every `me`. */
int collrt_vmap_build(coll_collective coll, int N, int me, int root,
                      const collrt_recording *plans, collrt_vmap *out, const char **why);
void collrt_vmap_free(collrt_vmap *m);
/* The element offsets of every chunk (off[b][i], i = 0 .. chunks[b]) of a
 * call whose block id k has counts[k] elements (ncounts ids), from map m:
 * one malloc'ed block (free), NULL when out of memory, on overflow or an
 * id outside counts. */
typedef struct collrt_vgeom {
    int nbufs;
    int64_t chunks[COLL_BUF_SCRATCH0 + COLL_MAX_SCRATCH];
    size_t *off[COLL_BUF_SCRATCH0 + COLL_MAX_SCRATCH];
} collrt_vgeom;
collrt_vgeom *collrt_vgeom_build(const collrt_vmap *m, const size_t *counts, size_t ncounts);
/* coll_start / coll_init of a call of per-block counts: vg (taken over,
 * freed with the request) gives its geometry; count must be 1 (0: a call
 * that moves nothing). */
int collrt_start_v(coll_comm *comm, const coll_alg_info *info, void (*fn)(void),
                   const void *sendbuf, void *recvbuf, size_t count, coll_dtype dtype, coll_op op,
                   int root, collrt_vgeom *vg, int persistent, coll_request **req);

/* A request whose buffers and geometry are known only later (a v-form
 * whose ranks learn each other's counts in the background): recorded now
 * (count 1, on buffers it never touches) with its tags reserved now, in
 * the communicator's order of calls, and begun by collrt_request_launch
 * (its buffers, vg taken over). Until then coll_test reports it not done
 * and coll_wait refuses it (COLL_ERR_INTERNAL); coll_request_free frees
 * it. A failed launch leaves it done with that status. */
int collrt_start_deferred(coll_comm *comm, const coll_alg_info *info, void (*fn)(void),
                          coll_dtype dtype, coll_op op, int root, coll_request **req);
int collrt_request_launch(coll_request *q, const void *sendbuf, void *recvbuf, collrt_vgeom *vg);

/* ---- provided by each target ----
 * A target (targets/<name>/) defines `struct coll_call` (collrt_call first)
 * and `struct coll_comm`, and these functions of coll.h; the runtime calls
 * coll_send_bytes (chunk-level sends) and relies on the others' contract:
 *   coll_begin: collrt_begin_args, then `active`, `hooks_ok` (if it calls
 *     collrt_step_done after every completed step and collrt_defer_flush
 *     on success), `segment`, and the before_write / reduce hooks; when it
 *     succeeds, nothing reads memory of an earlier call any more (the
 *     scratch block is reused);
 *   coll_send_bytes: checks with collrt_postable, sends [src, src + bytes);
 *   coll_step_end: runs the queue (receives in order per peer, local
 *     operations: collrt_run_local), clears it, collrt_step_done;
 *   coll_finish: the last step, collrt_defer_flush on success, `active`
 *     cleared.
 * Redeclared here so that a signature drifting from coll.h does not
 * compile. */
int coll_begin(coll_comm *comm, const coll_alg_info *info, const void *sendbuf,
               void *recvbuf, size_t count, coll_dtype dtype, coll_op op,
               int root, coll_call **call);
void coll_send_bytes(coll_call *call, int64_t peer, const void *src, size_t bytes);
int coll_step_end(coll_call *call);
int coll_finish(coll_call *call, int status);
int coll_comm_rank(const coll_comm *comm);
int coll_comm_size(const coll_comm *comm);

/* For the nonblocking form (request.c); a target's coll_begin,
 * coll_step_end and coll_finish first hand a recording call to
 * collrt_rec_begin / collrt_rec_step_end / collrt_rec_finish:
 *   collrt_req_call: a call object for a request on comm, or NULL with
 *     *status (the cpu target has one call per communicator: COLL_ERR_BUSY
 *     when a call or request is active on it; the mpi target gives each
 *     request its own, so requests and blocking calls may overlap);
 *   collrt_req_call_free: gives it back (after the request finished);
 *   collrt_arm: the next coll_begin on comm records into `call` (NULL:
 *     disarm);
 *   collrt_req_begin: the real coll_begin on the request's call; `ntags`
 *     is collrt_rec_tags of its plan;
 *   collrt_req_reserve: takes the request's tags before its begin;
 *   collrt_step_progress: coll_step_end of the posted step without
 *     blocking (block = 0): *done = 0 while some transfer is still
 *     outstanding; once the step completed it did all that coll_step_end
 *     does (*done = 1) and returns its status; block = 1 waits as
 *     coll_step_end does;
 *   collrt_finish_progress: coll_finish in the same way. */
coll_call *collrt_req_call(coll_comm *comm, int *status);
void collrt_req_call_free(coll_call *call);
void collrt_arm(coll_comm *comm, coll_call *call);
int collrt_req_begin(coll_call *call, const coll_alg_info *info, const void *sendbuf,
                     void *recvbuf, size_t count, coll_dtype dtype, coll_op op, int root,
                     size_t ntags);
/* Reserves the ntags tags of a request's call now, for its later
 * collrt_req_begin (which then takes these instead of the next ones). */
void collrt_req_reserve(coll_call *call, size_t ntags);
int collrt_step_progress(coll_call *call, int block, int *done);
int collrt_finish_progress(coll_call *call, int status, int block, int *done);

/* ---- the cpu target's probe (targets/cpu) ----
 * A communicator of nranks ranks (any number >= 1) in no world: a compiled
 * program called on it with count 0 runs its `require`s and returns COLL_OK
 * or COLL_ERR_NOT_APPLICABLE, moving nothing (whatever it posts fails the
 * call with COLL_ERR_INTERNAL). `collc mpi-config check -N` asks an MPI
 * algorithm this way, without MPI (libcollmpi.so asks on its own probe,
 * collmpi_probe_comm). Freed with coll_comm_destroy. */
int collrt_cpu_probe(int nranks, int rank, coll_comm **out);

#endif
