/* collrt_internal.h - what the target-independent runtime shares with the
 * targets (not installed). A target defines `struct coll_call` with a
 * collrt_call as its FIRST member, so common code can view any call as a
 * collrt_call. */
#ifndef COLLRT_INTERNAL_H
#define COLLRT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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

/* The target-independent state of one call. */
typedef struct collrt_call {
    const coll_alg_info *info;
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
    int64_t npending;      /* deferred chunks over all buffers */
    /* Copy-on-write of the input of an in-place call that is not
     * COLL_ALG_INPLACE_SAFE (see chunk.c). */
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
    /* Per buffer; collrt_begin_args clears nothing from here on (a call
     * costs no clearing of 66-entry arrays): entries [0, nbufs) are set by
     * begin_args and setup, the others are never read. */
    char *base[COLL_BUF_SCRATCH0 + COLL_MAX_SCRATCH];
    int64_t chunks[COLL_BUF_SCRATCH0 + COLL_MAX_SCRATCH]; /* on this rank */
    /* Deferred copies in -> out or scratch (COLL_ALG_CHUNK_CALLS_ONLY, see
     * chunk.c). */
    collrt_deferred defer[COLL_BUF_SCRATCH0 + COLL_MAX_SCRATCH];
} collrt_call;

/* Materialises every deferred copy (a target's coll_finish calls it on the
 * success path, after the last step). */
void collrt_defer_flush(collrt_call *c);
/* A target calls it when every operation of a step has completed (sends
 * included) and the step succeeded: lands the writes redirected by
 * copy-on-write and starts the next step. */
void collrt_step_done(collrt_call *c);

/* Validates the arguments of one call on rank `me` of `nranks` and fills
 * everything but split/scratch. Returns a status. */
int collrt_begin_args(collrt_call *c, const coll_alg_info *info, int nranks, int me,
                      const void *sendbuf, void *recvbuf, size_t count,
                      coll_dtype dtype, coll_op op, int root);

/* The whole of coll_setup for a target that keeps one growing scratch block
 * (*scratch, *cap) per communicator: validates, plans the scratch area
 * (scratch buffers, private input copy or copy-on-write state, deferral
 * bitmaps; chunk.c), grows the block, assigns the pieces. */
int collrt_setup(collrt_call *c, int64_t split, int nscratch, const int64_t *scratch_chunks,
                 char **scratch, size_t *cap);

/* Records the first error of a call. */
static inline void collrt_fail(collrt_call *c, int status) {
    if (c->status == COLL_OK) c->status = status;
}

/* Transport helpers shared by the targets:
 *   collrt_postable: an operation may be posted on an active call that has
 *     not failed, with peer (when it has one) a rank; a bad peer is a
 *     sticky COLL_ERR_INTERNAL;
 *   collrt_reducible: the call reduces and `bytes` is whole elements (else
 *     sticky COLL_ERR_INTERNAL);
 *   collrt_grow: *arr holds at least `need` elements of `elem` bytes
 *     (doubling); false when out of memory. */
static inline bool collrt_postable(collrt_call *c, int active, int64_t peer) {
    if (!active || c->status != COLL_OK) return false;
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
bool collrt_grow(void **arr, size_t *cap, size_t need, size_t elem);

/* Byte range of chunks [lo, hi) of buffer buf; false (and sticky
 * COLL_ERR_INTERNAL) if out of bounds. */
bool collrt_range(collrt_call *c, int buf, int64_t lo, int64_t hi, char **ptr,
                  size_t *bytes);

#endif
