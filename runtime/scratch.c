/* scratch.c - the scratch plan of coll_setup: one plan sizes and places
 * every piece of a call's scratch area (scratch buffers, private input
 * copy, copy-on-write state, deferral bitmaps) in the communicator's
 * growing block. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "collrt_internal.h"

static size_t align64(size_t x) { return (x + 63) & ~(size_t)63; }

/* Bytes of buffer buf of `chunks` chunks, or SIZE_MAX on overflow. */
static size_t chunk_bytes(const collrt_call *c, int buf, int64_t chunks) {
    size_t bytes;
    if (c->vg)   /* per-block counts: the buffer's end */
        return __builtin_mul_overflow(c->vg->off[buf][chunks], c->esz, &bytes) ||
                       bytes > (size_t)PTRDIFF_MAX
                   ? SIZE_MAX
                   : bytes;
    size_t P = (size_t)c->split, blocks = (size_t)chunks / P;
    size_t elems;
    if (__builtin_mul_overflow(blocks, c->count, &elems)) return SIZE_MAX;
    elems += coll_chunk_offset(c->count, c->split, chunks % c->split);
    if (__builtin_mul_overflow(elems, c->esz, &bytes) || bytes > (size_t)PTRDIFF_MAX)
        return SIZE_MAX;
    return bytes;
}

/* Where the pieces of one call's scratch area go: offsets from its start,
 * each 64-byte aligned, SIZE_MAX for a piece that is not there. One plan
 * both sizes the area and places the pieces, so the two cannot disagree. */
typedef struct scratch_plan {
    size_t scratch[COLL_MAX_SCRATCH];   /* scratch buffer k */
    size_t input_copy;                  /* private input copy */
    size_t cow_save, cow_tmp, cow_saved, cow_read, cow_fix; /* copy on write */
    size_t defer_bits[COLL_BUF_SCRATCH0 + COLL_MAX_SCRATCH]; /* per buffer */
    size_t total;
} scratch_plan;

/* Appends a piece of n bytes at *at (SIZE_MAX when n is 0); false on
 * overflow. */
static bool place(scratch_plan *p, size_t *at, size_t n) {
    *at = n ? p->total : SIZE_MAX;
    return n <= (size_t)PTRDIFF_MAX && !__builtin_add_overflow(p->total, align64(n), &p->total);
}

/* What a scratch plan is made of besides coll_setup's arguments: every
 * field of the call that plan_scratch (and the predicates it asks) reads. */
typedef struct plan_key {
    unsigned flags;          /* info->flags */
    int hooks_ok, in_place, reducing;
    int64_t in_blocks, out_blocks, split;
    size_t count, esz;
    int nscratch;
    int64_t chunks[COLL_MAX_SCRATCH];
} plan_key;

/* The plan of the last setup of a call and its key, kept with the call
 * (collrt_call.plan_memo): a repeated call (the same program, count,
 * type and layout) reuses the plan instead of making it again. */
struct collrt_plan_memo {
    int valid;
    plan_key key;
    scratch_plan plan;
};

static void key_of(const collrt_call *c, int64_t split, int nscratch, const int64_t *scratch_chunks,
                   plan_key *k) {
    k->flags = c->info->flags;
    k->hooks_ok = c->hooks_ok;
    k->in_place = c->in_place;
    k->reducing = c->kern != NULL;
    k->in_blocks = c->in_blocks;
    k->out_blocks = c->out_blocks;
    k->split = split;
    k->count = c->count;
    k->esz = c->esz;
    k->nscratch = nscratch;
    for (int i = 0; i < nscratch; i++) k->chunks[i] = scratch_chunks[i];
}

static bool same_key(const plan_key *k, const collrt_call *c, int64_t split, int nscratch,
                     const int64_t *scratch_chunks) {
    if (k->flags != c->info->flags || k->hooks_ok != c->hooks_ok || k->in_place != c->in_place ||
        k->reducing != (c->kern != NULL) || k->in_blocks != c->in_blocks ||
        k->out_blocks != c->out_blocks || k->split != split || k->count != c->count ||
        k->esz != c->esz || k->nscratch != nscratch)
        return false;
    for (int i = 0; i < nscratch; i++)
        if (k->chunks[i] != scratch_chunks[i]) return false;
    return true;
}

/* Validates coll_setup's arguments and records the geometry (split, chunk
 * counts, nbufs). */
static int plan_geometry(collrt_call *c, int64_t split, int nscratch, const int64_t *scratch_chunks) {
    if (c->split) return COLL_ERR_INTERNAL;              /* setup twice */
    if (split < 1 || nscratch < 0 || nscratch > COLL_MAX_SCRATCH ||
        (nscratch && !scratch_chunks))
        return COLL_ERR_INTERNAL;
    if (__builtin_mul_overflow(c->in_blocks, split, &c->chunks[COLL_BUF_IN]) ||
        __builtin_mul_overflow(c->out_blocks, split, &c->chunks[COLL_BUF_OUT]))
        return COLL_ERR_BAD_COUNT;
    c->split = split;
    for (int k = 0; k < nscratch; k++) {
        if (scratch_chunks[k] < 0) return COLL_ERR_INTERNAL;
        c->chunks[COLL_BUF_SCRATCH0 + k] = scratch_chunks[k];
        c->base[COLL_BUF_SCRATCH0 + k] = NULL;
    }
    /* per-block counts: the geometry is of this very program */
    for (int b = 0; c->vg && b < COLL_BUF_SCRATCH0 + nscratch; b++)
        if (c->vg->nbufs != COLL_BUF_SCRATCH0 + nscratch || c->vg->chunks[b] != c->chunks[b])
            return COLL_ERR_INTERNAL;
    /* entries [0, nbufs) are set; a failed setup leaves no deferral */
    memset(c->defer, 0, (size_t)(COLL_BUF_SCRATCH0 + nscratch) * sizeof *c->defer);
    c->nbufs = COLL_BUF_SCRATCH0 + nscratch;
    return COLL_OK;
}

/* Plans the scratch area of a call whose geometry plan_geometry recorded. */
static int plan_scratch(collrt_call *c, int nscratch, const int64_t *scratch_chunks,
                        scratch_plan *p) {
    p->total = 0;
    p->cow_save = p->cow_tmp = p->cow_saved = p->cow_read = p->cow_fix = SIZE_MAX;
    for (int k = 0; k < nscratch; k++) {
        size_t b = chunk_bytes(c, COLL_BUF_SCRATCH0 + k, scratch_chunks[k]);
        if (b == SIZE_MAX || !place(p, &p->scratch[k], b)) return COLL_ERR_BAD_COUNT;
    }
    /* in and out fit in memory (collrt_begin_args) */
    size_t in_bytes = chunk_bytes(c, COLL_BUF_IN, c->chunks[COLL_BUF_IN]);
    size_t out_bytes = chunk_bytes(c, COLL_BUF_OUT, c->chunks[COLL_BUF_OUT]);
    if (!place(p, &p->input_copy, collrt_input_copy_wanted(c) ? in_bytes : 0)) return COLL_ERR_BAD_COUNT;
    if (collrt_cow_wanted(c)) {
        /* save and redirect areas (their pages are touched only when
         * needed), saved bitmap, read steps, redirected ranges */
        size_t in_chunks = (size_t)c->chunks[COLL_BUF_IN], out_chunks = (size_t)c->chunks[COLL_BUF_OUT];
        size_t steps, fixes;
        if (__builtin_mul_overflow(in_chunks, sizeof(uint32_t), &steps) ||
            __builtin_mul_overflow(out_chunks, 2 * sizeof(int64_t), &fixes) ||
            !place(p, &p->cow_save, in_bytes) || !place(p, &p->cow_tmp, out_bytes) ||
            !place(p, &p->cow_saved, (in_chunks + 7) / 8) || !place(p, &p->cow_read, steps) ||
            !place(p, &p->cow_fix, fixes))
            return COLL_ERR_BAD_COUNT;
    }
    for (int b = COLL_BUF_OUT; b < c->nbufs; b++)
        if (!place(p, &p->defer_bits[b], collrt_defers_into(c, b) ? ((size_t)c->chunks[b] + 7) / 8 : 0))
            return COLL_ERR_BAD_COUNT;
    return COLL_OK;
}

static char *at(char *mem, size_t off) { return off == SIZE_MAX ? NULL : mem + off; }

/* Assigns the planned pieces inside `mem` (at least p->total bytes) and
 * makes the private input copy if needed. */
static void assign_scratch(collrt_call *c, int nscratch, const scratch_plan *p, char *mem) {
    for (int k = 0; k < nscratch; k++) c->base[COLL_BUF_SCRATCH0 + k] = at(mem, p->scratch[k]);
    if (p->input_copy != SIZE_MAX) {
        memcpy(mem + p->input_copy, c->base[COLL_BUF_IN], chunk_bytes(c, COLL_BUF_IN, c->chunks[COLL_BUF_IN]));
        c->base[COLL_BUF_IN] = mem + p->input_copy;
        c->in_place = 0;
    }
    c->npending = 0;
    c->cow = collrt_cow_wanted(c);
    c->ncow_fix = 0;
    c->step = 1;
    if (c->cow) {
        size_t in_chunks = (size_t)c->chunks[COLL_BUF_IN];
        c->cow_shift = c->inplace_shift * c->split;
        c->cow_save = mem + p->cow_save;
        c->cow_tmp = mem + p->cow_tmp;
        c->cow_saved = (unsigned char *)mem + p->cow_saved;
        memset(c->cow_saved, 0, (in_chunks + 7) / 8);
        c->cow_read = (uint32_t *)(void *)(mem + p->cow_read);
        memset(c->cow_read, 0, in_chunks * sizeof(uint32_t));
        c->cow_fix = (int64_t *)(void *)(mem + p->cow_fix);
    }
    for (int b = COLL_BUF_OUT; b < c->nbufs; b++) {
        c->defer[b].bits = (unsigned char *)at(mem, p->defer_bits[b]); /* NULL: no deferral */
        if (c->defer[b].bits) memset(c->defer[b].bits, 0, ((size_t)c->chunks[b] + 7) / 8);
    }
}

/* Plans the scratch area, grows the communicator's block when needed
 * (once, then reused: fresh pages cost ~20 us each here), and assigns the
 * buffers. Nothing still reads the old block: every target finishes (or
 * drains) the exchanges of a call before the next coll_begin succeeds. */
int coll_setup(coll_call *call, int64_t split, int nscratch, const int64_t *scratch_chunks) {
    collrt_call *c = COLLRT_CALL(call);
    if (c && c->rec) return collrt_rec_setup(c, split, nscratch, scratch_chunks);
    if (!c || !c->active) return COLL_ERR_INTERNAL;
    int rc = plan_geometry(c, split, nscratch, scratch_chunks);
    if (rc != COLL_OK) return rc;
    struct collrt_plan_memo *m = c->plan_memo;
    if (!m || !m->valid || !same_key(&m->key, c, split, nscratch, scratch_chunks)) {
        if (!m && !(m = c->plan_memo = malloc(sizeof *m))) return COLL_ERR_NOMEM;
        m->valid = 0;
        rc = plan_scratch(c, nscratch, scratch_chunks, &m->plan);
        if (rc != COLL_OK) return rc;
        key_of(c, split, nscratch, scratch_chunks, &m->key);
        m->valid = 1;
    }
    const scratch_plan *p = &m->plan;
    if (!collrt_scratch_reserve(c, p->total)) return COLL_ERR_NOMEM;
    assign_scratch(c, nscratch, p, c->scratch);
    return COLL_OK;
}

bool collrt_scratch_reserve(collrt_call *c, size_t bytes) {
    if (bytes <= c->scratch_cap) return true;
    free(c->scratch);
    c->scratch_cap = 0;
    if (!(c->scratch = aligned_alloc(64, bytes))) return false;   /* a multiple of 64 */
    c->scratch_cap = bytes;
    return true;
}

/* The recording coll_setup (request.c): the same validation and geometry,
 * no memory. */
int collrt_rec_check_setup(collrt_call *c, int64_t split, int nscratch,
                           const int64_t *scratch_chunks) {
    scratch_plan p;
    int rc = plan_geometry(c, split, nscratch, scratch_chunks);
    return rc == COLL_OK ? plan_scratch(c, nscratch, scratch_chunks, &p) : rc;
}

void collrt_call_free(collrt_call *c) {
    free(c->scratch);
    c->scratch = NULL;
    c->scratch_cap = 0;
    free(c->plan_memo);
    c->plan_memo = NULL;
    collrt_trace_cache_free(c);
    collrt_op_queue_free(&c->q);
}
