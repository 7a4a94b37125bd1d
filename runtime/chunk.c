/* chunk.c - chunk geometry, argument checking, scratch layout and the
 * chunk-level transfer calls (built on the target's byte-level calls). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "collrt_internal.h"

/* ---- geometry ---- */

size_t coll_chunk_offset(size_t count, int64_t split, int64_t c) {
    if (split == 1 && c >= 0) return (size_t)c * count;
    if (split < 1 || c < 0) return 0;
    size_t P = (size_t)split, cc = (size_t)c;
    size_t block = cc / P, k = cc % P;
    size_t q = count / P, r = count % P;
    return block * count + k * q + (k < r ? k : r);
}

size_t coll_chunk_len(size_t count, int64_t split, int64_t c) {
    if (split == 1 && c >= 0) return count;
    if (split < 1 || c < 0) return 0;
    size_t P = (size_t)split, k = (size_t)c % P;
    return count / P + (k < count % P ? 1 : 0);
}

/* ---- argument checks ---- */

static int ranges_overlap(const void *p, size_t pn, const void *q, size_t qn) {
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)q;
    return pn && qn && a < b + qn && b < a + pn;
}

int collrt_begin_args(collrt_call *c, const coll_alg_info *info, int nranks, int me,
                      const void *sendbuf, void *recvbuf, size_t count,
                      coll_dtype dtype, coll_op op, int root) {
    memset(c, 0, offsetof(collrt_call, base));
    /* the per-buffer entries below nbufs (the rest is never read) */
    c->nbufs = COLL_BUF_SCRATCH0;
    for (int b = COLL_BUF_IN; b < COLL_BUF_SCRATCH0; b++) {
        c->base[b] = NULL;
        c->chunks[b] = 0;
        c->defer[b] = (collrt_deferred){0};
    }
    if (!info) return COLL_ERR_INTERNAL;
    if (info->abi_version != COLL_ABI_VERSION) return COLL_ERR_ABI;
    coll_collective coll = info->collective;
    if ((unsigned)coll >= COLL_COLLECTIVE_COUNT) return COLL_ERR_INTERNAL;
    const collrt_collective *ci = &collrt_collectives[coll];
    c->info = info;
    c->nranks = nranks;
    c->me = me;
    c->count = count;
    c->dtype = dtype;
    c->op = op;
    c->esz = coll_dtype_size(dtype);
    if (c->esz == 0) return COLL_ERR_BAD_DTYPE;
    if (ci->reducing) {
        int rc = coll_op_supported(dtype, op);
        if (rc != COLL_OK) return rc;
        c->kern = collrt_kernels_for(dtype, op);
    }
    if (ci->rooted) {
        if (root < 0 || root >= nranks) return COLL_ERR_BAD_ROOT;
        c->root = root;
    } else {
        c->root = -1;
    }
    /* The same bound on every rank (the largest buffer of the collective), so
     * that all ranks agree on the outcome. */
    size_t blocks = (ci->in_blocks == COLLRT_BLOCKS_N || ci->out_blocks == COLLRT_BLOCKS_N)
                        ? (size_t)nranks : 1;
    size_t total;
    if (__builtin_mul_overflow(count, blocks, &total) ||
        __builtin_mul_overflow(total, c->esz, &total) || total > (size_t)PTRDIFF_MAX)
        return COLL_ERR_BAD_COUNT;

    collrt_layout lay;
    collrt_layout_for(coll, nranks, me, c->root, &lay);
    c->in_blocks = lay.in_blocks;
    c->out_blocks = lay.out_blocks;
    size_t block_bytes = count * c->esz;
    size_t in_bytes = (size_t)lay.in_blocks * block_bytes;
    size_t out_bytes = (size_t)lay.out_blocks * block_bytes;

    /* Buffers a rank has no memory for are ignored (whatever was passed). */
    const char *in = lay.in_blocks ? sendbuf : NULL;
    char *out = lay.out_blocks ? recvbuf : NULL;

    if (ci->in_place == COLLRT_INPLACE_IN_ME) {
        if (sendbuf == COLL_IN_PLACE && lay.in_blocks) return COLL_ERR_IN_PLACE;
        if (recvbuf == COLL_IN_PLACE) {
            if (!lay.in_blocks) return COLL_ERR_IN_PLACE; /* only at the root */
            out = in ? (char *)in + (size_t)me * block_bytes : NULL;
            c->in_place = 1;
        } else if (in && in != COLL_IN_PLACE && out && count &&
                   out == in + (size_t)me * block_bytes) {
            c->in_place = 1;
        }
        c->inplace_shift = -(int64_t)me;
    } else {
        if (recvbuf == COLL_IN_PLACE && lay.out_blocks) return COLL_ERR_IN_PLACE;
        c->inplace_shift = ci->in_place == COLLRT_INPLACE_OUT_ME     ? me
                           : ci->in_place == COLLRT_INPLACE_OUT_ROOT ? c->root
                                                                     : 0;
        size_t in_off = (size_t)c->inplace_shift * block_bytes;
        if (sendbuf == COLL_IN_PLACE && lay.in_blocks) {
            /* Only where the input has a place in recvbuf on this rank. */
            if (!lay.out_blocks) return COLL_ERR_IN_PLACE;
            in = out ? out + in_off : NULL;
            c->in_place = 1;
        } else if (in && out && count && in == out + in_off) {
            c->in_place = 1;       /* NCCL's convention: same position */
        }
    }
    if (count == 0) {
        c->in_place = 0;
        return COLL_OK;
    }
    if ((lay.in_blocks && !in) || (lay.out_blocks && !out)) return COLL_ERR_NULL_BUFFER;
    if (!c->in_place && ranges_overlap(in, in_bytes, out, out_bytes))
        return COLL_ERR_OVERLAP;
    c->base[COLL_BUF_IN] = (char *)in;
    c->base[COLL_BUF_OUT] = out;
    return COLL_OK;
}

/* ---- scratch ---- */

static size_t align64(size_t x) { return (x + 63) & ~(size_t)63; }

/* Bytes of a buffer of `chunks` chunks, or SIZE_MAX on overflow. */
static size_t chunk_bytes(const collrt_call *c, int64_t chunks) {
    size_t P = (size_t)c->split, blocks = (size_t)chunks / P;
    size_t elems, bytes;
    if (__builtin_mul_overflow(blocks, c->count, &elems)) return SIZE_MAX;
    elems += coll_chunk_offset(c->count, c->split, chunks % c->split);
    if (__builtin_mul_overflow(elems, c->esz, &bytes) || bytes > (size_t)PTRDIFF_MAX)
        return SIZE_MAX;
    return bytes;
}

/* An in-place call of a program that may read an input chunk after writing
 * the out chunk that shares its memory. */
static int input_at_risk(const collrt_call *c) {
    return c->in_place && !(c->info->flags & COLL_ALG_INPLACE_SAFE) && c->in_blocks;
}

/* The runtime sees every transfer of a program that uses chunk-level calls
 * only, on a target that calls the hooks (collrt_step_done,
 * collrt_defer_flush). */
static int chunk_level(const collrt_call *c) {
    return c->hooks_ok && (c->info->flags & COLL_ALG_CHUNK_CALLS_ONLY);
}

/* At-risk input: copied on write when the runtime sees every transfer, else
 * copied to private memory up front. */
static int copy_on_write(const collrt_call *c) { return input_at_risk(c) && chunk_level(c); }
static int needs_input_copy(const collrt_call *c) { return input_at_risk(c) && !chunk_level(c); }

/* Deferred copies need the chunk level, and separate in and out memory. */
static int defer_possible(const collrt_call *c) {
    return chunk_level(c) && c->in_blocks && c->count && !c->in_place;
}

/* Copies into `out` are deferred only for reducing collectives, where they
 * usually fuse with a reduction; elsewhere they are almost always final,
 * and done at once they overlap the step's communication instead of
 * running after the last step. Scratch copies are deferred for all. */
static int defers_into(const collrt_call *c, int buf) {
    return defer_possible(c) && c->chunks[buf] && (buf != COLL_BUF_OUT || c->kern);
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

/* Validates coll_setup's arguments, records the geometry (split, chunk
 * counts, nbufs) and plans the scratch area. */
static int plan_scratch(collrt_call *c, int64_t split, int nscratch, const int64_t *scratch_chunks,
                        scratch_plan *p) {
    if (c->split) return COLL_ERR_INTERNAL;              /* setup twice */
    if (split < 1 || nscratch < 0 || nscratch > COLL_MAX_SCRATCH ||
        (nscratch && !scratch_chunks))
        return COLL_ERR_INTERNAL;
    if (__builtin_mul_overflow(c->in_blocks, split, &c->chunks[COLL_BUF_IN]) ||
        __builtin_mul_overflow(c->out_blocks, split, &c->chunks[COLL_BUF_OUT]))
        return COLL_ERR_BAD_COUNT;
    c->split = split;
    p->total = 0;
    p->cow_save = p->cow_tmp = p->cow_saved = p->cow_read = p->cow_fix = SIZE_MAX;
    for (int k = 0; k < nscratch; k++) {
        if (scratch_chunks[k] < 0) return COLL_ERR_INTERNAL;
        c->chunks[COLL_BUF_SCRATCH0 + k] = scratch_chunks[k];
        c->base[COLL_BUF_SCRATCH0 + k] = NULL;
        size_t b = chunk_bytes(c, scratch_chunks[k]);
        if (b == SIZE_MAX || !place(p, &p->scratch[k], b)) return COLL_ERR_BAD_COUNT;
    }
    /* entries [0, nbufs) are set; a failed setup leaves no deferral */
    memset(c->defer, 0, (size_t)(COLL_BUF_SCRATCH0 + nscratch) * sizeof *c->defer);
    c->nbufs = COLL_BUF_SCRATCH0 + nscratch;
    /* in and out fit in memory (collrt_begin_args) */
    size_t in_bytes = (size_t)c->in_blocks * c->count * c->esz;
    size_t out_bytes = (size_t)c->out_blocks * c->count * c->esz;
    if (!place(p, &p->input_copy, needs_input_copy(c) ? in_bytes : 0)) return COLL_ERR_BAD_COUNT;
    if (copy_on_write(c)) {
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
        if (!place(p, &p->defer_bits[b], defers_into(c, b) ? ((size_t)c->chunks[b] + 7) / 8 : 0))
            return COLL_ERR_BAD_COUNT;
    return COLL_OK;
}

static char *at(char *mem, size_t off) { return off == SIZE_MAX ? NULL : mem + off; }

/* Assigns the planned pieces inside `mem` (at least p->total bytes) and
 * makes the private input copy if needed. */
static void assign_scratch(collrt_call *c, int nscratch, const scratch_plan *p, char *mem) {
    for (int k = 0; k < nscratch; k++) c->base[COLL_BUF_SCRATCH0 + k] = at(mem, p->scratch[k]);
    if (p->input_copy != SIZE_MAX) {
        memcpy(mem + p->input_copy, c->base[COLL_BUF_IN], (size_t)c->in_blocks * c->count * c->esz);
        c->base[COLL_BUF_IN] = mem + p->input_copy;
        c->in_place = 0;
    }
    c->npending = 0;
    c->cow = copy_on_write(c);
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

/* coll_setup of every target: plans the scratch area, grows the target's
 * per-communicator block when needed (once, then reused: fresh pages cost
 * ~20 us each here), and assigns the buffers. The caller guarantees that
 * nothing still reads the old block (all requests of earlier calls done). */
int collrt_setup(collrt_call *c, int64_t split, int nscratch, const int64_t *scratch_chunks,
                 char **scratch, size_t *cap) {
    scratch_plan p;
    int rc = plan_scratch(c, split, nscratch, scratch_chunks, &p);
    if (rc != COLL_OK) return rc;
    if (p.total > *cap) {
        free(*scratch);
        *cap = 0;
        *scratch = aligned_alloc(64, p.total);   /* a multiple of 64 */
        if (!*scratch) return COLL_ERR_NOMEM;
        *cap = p.total;
    }
    assign_scratch(c, nscratch, &p, *scratch);
    return COLL_OK;
}

bool collrt_grow(void **arr, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return true;
    size_t ncap = *cap ? *cap * 2 : 64;
    while (ncap < need) ncap *= 2;
    size_t bytes;
    if (__builtin_mul_overflow(ncap, elem, &bytes)) return false;
    void *p = realloc(*arr, bytes);
    if (!p) return false;
    *arr = p;
    *cap = ncap;
    return true;
}

/* ---- chunk ranges ---- */

bool collrt_range(collrt_call *c, int buf, int64_t lo, int64_t hi, char **ptr,
                  size_t *bytes) {
    if (c->split < 1 || buf < 0 || buf >= c->nbufs || lo < 0 || lo > hi ||
        hi > c->chunks[buf]) {
        collrt_fail(c, COLL_ERR_INTERNAL);
        return false;
    }
    size_t a = coll_chunk_offset(c->count, c->split, lo);
    size_t b = coll_chunk_offset(c->count, c->split, hi);
    *bytes = (b - a) * c->esz;
    *ptr = *bytes ? c->base[buf] + a * c->esz : NULL;
    return true;
}

#define BASE(call) ((collrt_call *)(void *)(call))

/* ---- deferred copies ----
 *
 * With COLL_ALG_CHUNK_CALLS_ONLY, `coll_copy(in[s..] -> X[d..])` (X = out or
 * a scratch buffer) only marks the X chunks pending (value: the in chunk
 * delta = s - d away; one delta per buffer at a time). Before any other
 * chunk-level call touches X[a, b):
 *   - a read (send, copy or reduce source) of a range that is all pending
 *     reads `in` instead; of a partly pending range, first materialises it;
 *   - an overwrite (receive, copy or receive-reduce-copy destination) clears
 *     the bits: the copy never has to happen;
 *   - a read-modify-write (receive-reduce, reduce destination) of an all
 *     pending range becomes dst := in (+) x in one pass (the fusion of the
 *     copy with the reduce), of a partly pending range materialises first.
 * Materialising writes X chunks that nobody else can be reading (sends of
 * pending chunks went out of `in`), synchronously at post time, so it never
 * races with the step's posted operations (race-free schedules do not read
 * and write one chunk in one step). Whatever is still pending in `out` at
 * the end is copied by collrt_defer_flush; pending scratch chunks are
 * dropped (a scratch chunk that is only ever sent costs no copy at all). */

static bool bit(const unsigned char *map, int64_t i) { return (map[i >> 3] >> (i & 7)) & 1; }

static bool pending_bit(const collrt_call *c, int buf, int64_t d) {
    return bit(c->defer[buf].bits, d);
}

static void set_pending(collrt_call *c, int buf, int64_t d, bool on) {
    collrt_deferred *x = &c->defer[buf];
    bool was = bit(x->bits, d);
    if (on && !was) {
        x->bits[d >> 3] |= (unsigned char)(1u << (d & 7));
        x->n++;
        c->npending++;
    } else if (!on && was) {
        x->bits[d >> 3] &= (unsigned char)~(1u << (d & 7));
        x->n--;
        c->npending--;
    }
}

/* Whether buf may have pending chunks (a valid deferral target). */
static bool deferring(const collrt_call *c, int buf) {
    return c->npending && buf > COLL_BUF_IN && buf < c->nbufs && c->defer[buf].n;
}

/* How many of buf's chunks [lo, hi) are pending. */
static int64_t pending_in(const collrt_call *c, int buf, int64_t lo, int64_t hi) {
    if (!deferring(c, buf)) return 0;
    int64_t n = 0;
    for (int64_t d = lo; d < hi; d++) n += pending_bit(c, buf, d);
    return n;
}

/* Copies the pending chunks of buf[lo, hi) from `in`, one memcpy per run
 * of consecutive pending chunks (a run is contiguous on both sides: one
 * delta per buffer). */
static void materialise(collrt_call *c, int buf, int64_t lo, int64_t hi) {
    int64_t delta = c->defer[buf].delta;
    for (int64_t d = lo; d < hi; d++) {
        if (!pending_bit(c, buf, d)) continue;
        int64_t e = d + 1;
        while (e < hi && pending_bit(c, buf, e)) e++;
        char *dp, *sp;
        size_t dn, sn;
        if (!collrt_range(c, buf, d, e, &dp, &dn) ||
            !collrt_range(c, COLL_BUF_IN, d + delta, e + delta, &sp, &sn))
            return;
        if (dn && c->before_write) c->before_write(c, dp, dn);
        if (dn) memcpy(dp, sp, dn);
        for (; d < e; d++) set_pending(c, buf, d, false);
    }
}

static void clear_pending(collrt_call *c, int buf, int64_t lo, int64_t hi) {
    if (!deferring(c, buf)) return;
    for (int64_t d = lo; d < hi; d++) set_pending(c, buf, d, false);
}

/* Where to read the n chunks buf[lo, lo + n) from: `in` when all of them
 * are pending. Returns the buffer and lo to use; out-of-range arguments are
 * left for collrt_range to reject. */
static int read_source(collrt_call *c, int buf, int64_t *lo, int64_t n) {
    if (!deferring(c, buf) || n <= 0 || *lo < 0 || *lo > c->chunks[buf] - n) return buf;
    int64_t p = pending_in(c, buf, *lo, *lo + n);
    if (p == n) {
        *lo += c->defer[buf].delta;
        return COLL_BUF_IN;
    }
    if (p) materialise(c, buf, *lo, *lo + n);
    return buf;
}

/* The `in` operand that replaces a read-modify-write destination
 * dbuf[lo, lo+n) of `bytes` bytes when it is all pending (the fusion); NULL
 * (after materialising any pending part) when it is not. */
static const char *fused_operand(collrt_call *c, int dbuf, int64_t lo, int64_t n, size_t bytes) {
    int64_t pend = pending_in(c, dbuf, lo, lo + n);
    if (!pend) return NULL;
    char *ip;
    size_t in_n;
    int64_t delta = c->defer[dbuf].delta;
    if (pend == n && collrt_range(c, COLL_BUF_IN, lo + delta, lo + n + delta, &ip, &in_n) &&
        in_n == bytes) {
        clear_pending(c, dbuf, lo, lo + n);
        return ip;
    }
    materialise(c, dbuf, lo, lo + n);
    return NULL;
}

/* Tries to defer copy in[slo, slo+n) -> dbuf[dlo, dlo+n). */
static bool defer_copy(collrt_call *c, int sbuf, int64_t slo, int dbuf, int64_t dlo, int64_t n) {
    if (sbuf != COLL_BUF_IN || dbuf <= COLL_BUF_IN || dbuf >= c->nbufs || !c->defer[dbuf].bits ||
        n <= 0)
        return false;
    if (slo < 0 || dlo < 0 || slo + n > c->chunks[COLL_BUF_IN] || dlo + n > c->chunks[dbuf])
        return false;
    collrt_deferred *x = &c->defer[dbuf];
    int64_t delta = slo - dlo;
    if (x->n && delta != x->delta) return false; /* one mapping at a time */
    /* positions must agree so that chunk sizes match (chunk position rule) */
    if (((slo % c->split) + c->split) % c->split != ((dlo % c->split) + c->split) % c->split) return false;
    x->delta = delta;
    for (int64_t d = dlo; d < dlo + n; d++) set_pending(c, dbuf, d, true);
    return true;
}

void collrt_defer_flush(collrt_call *c) {
    if (deferring(c, COLL_BUF_OUT)) materialise(c, COLL_BUF_OUT, 0, c->chunks[COLL_BUF_OUT]);
}

/* ---- copy-on-write of at-risk input ----
 *
 * In an in-place call of a program that is not COLL_ALG_INPLACE_SAFE, in
 * chunk i and out chunk i + cow_shift are the same memory, and the program
 * may read in chunk i after writing that out chunk. Instead of copying the
 * whole input to private memory up front, the runtime saves in chunk i just
 * before the first write to its memory is posted (writes complete later, in
 * the step: the memory still holds the input when it is posted) and reads
 * it from the save area from then on. Identity copies (in chunk i -> out
 * chunk i + cow_shift) stay free, so a broadcast root or an in-place gather
 * moves nothing locally.
 *
 * One hazard remains: a read of in chunk i from its own memory posted
 * earlier in the SAME step (a send, or a local operation that runs at step
 * end) may still be in flight when the write is posted. Such a write is
 * redirected to the redirect area and copied to its place by
 * collrt_step_done, once every operation of the step has completed. Reads
 * record their step (cow_read) to detect it. */

/* Saves in chunks [lo, hi) not saved yet. */
static void cow_save(collrt_call *c, int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; i++) {
        if (bit(c->cow_saved, i)) continue;
        size_t a = coll_chunk_offset(c->count, c->split, i) * c->esz;
        size_t n = coll_chunk_len(c->count, c->split, i) * c->esz;
        if (n) memcpy(c->cow_save + a, c->base[COLL_BUF_IN] + a, n);
        c->cow_saved[i >> 3] |= (unsigned char)(1u << (i & 7));
    }
}

/* Where to read buf[lo, hi) (at p) from. */
static const char *cow_read(collrt_call *c, int buf, int64_t lo, int64_t hi, const char *p) {
    if (!c->cow || buf != COLL_BUF_IN || lo >= hi) return p;
    bool saved = false;
    for (int64_t i = lo; i < hi && !saved; i++) saved = bit(c->cow_saved, i);
    if (saved) {
        cow_save(c, lo, hi); /* the rest is still intact in its own memory */
        return c->cow_save + (p - c->base[COLL_BUF_IN]);
    }
    for (int64_t i = lo; i < hi; i++) c->cow_read[i] = c->step;
    return p;
}

/* Where to write buf[lo, hi) (at p): saves the input chunks it overwrites
 * and redirects the write if one of them is being read in this step. */
static char *cow_write(collrt_call *c, int buf, int64_t lo, int64_t hi, char *p) {
    if (!c->cow || buf != COLL_BUF_OUT || lo >= hi) return p;
    int64_t ilo = lo - c->cow_shift, ihi = hi - c->cow_shift;
    if (ilo < 0) ilo = 0;
    if (ihi > c->chunks[COLL_BUF_IN]) ihi = c->chunks[COLL_BUF_IN];
    if (ilo >= ihi) return p;
    bool busy = false;
    for (int64_t i = ilo; i < ihi; i++) busy |= c->cow_read[i] == c->step;
    cow_save(c, ilo, ihi);
    if (!busy) return p;
    /* One range per out chunk at most in a race-free step; a schedule that
     * writes a chunk twice in one step (compiled with --no-verify) must not
     * overrun the list. */
    if (c->ncow_fix >= c->chunks[COLL_BUF_OUT]) {
        collrt_fail(c, COLL_ERR_INTERNAL);
        return p;
    }
    c->cow_fix[2 * c->ncow_fix] = lo;
    c->cow_fix[2 * c->ncow_fix + 1] = hi;
    c->ncow_fix++;
    return c->cow_tmp + (p - c->base[COLL_BUF_OUT]);
}

/* True when buf[lo, hi) are input chunks that still hold the input in
 * their own memory (none saved). */
static bool cow_intact(const collrt_call *c, int buf, int64_t lo, int64_t hi) {
    if (!c->cow || buf != COLL_BUF_IN) return true;
    for (int64_t i = lo; i < hi; i++)
        if (bit(c->cow_saved, i)) return false;
    return true;
}

void collrt_step_done(collrt_call *c) {
    for (int64_t k = 0; k < c->ncow_fix; k++) {
        char *p;
        size_t n;
        if (!collrt_range(c, COLL_BUF_OUT, c->cow_fix[2 * k], c->cow_fix[2 * k + 1], &p, &n)) break;
        if (n) memcpy(p, c->cow_tmp + (p - c->base[COLL_BUF_OUT]), n);
    }
    c->ncow_fix = 0;
    c->step++;
}

void coll_send(coll_call *call, int64_t peer, int buf, int64_t lo, int64_t hi) {
    collrt_call *c = BASE(call);
    char *p;
    size_t n;
    int64_t l = lo, len = lo >= 0 && hi >= lo ? hi - lo : -1;
    int b = read_source(c, buf, &l, len);
    int64_t h = b == buf ? hi : l + len;
    if (collrt_range(c, b, l, h, &p, &n)) coll_send_bytes(call, peer, cow_read(c, b, l, h, p), n);
}

void coll_recv(coll_call *call, int64_t peer, int buf, int64_t lo, int64_t hi) {
    collrt_call *c = BASE(call);
    char *p;
    size_t n;
    if (collrt_range(c, buf, lo, hi, &p, &n)) {
        clear_pending(c, buf, lo, hi);
        coll_recv_bytes(call, peer, cow_write(c, buf, lo, hi, p), n);
    }
}

void coll_recv_reduce(coll_call *call, int64_t peer, int buf, int64_t lo, int64_t hi) {
    collrt_call *c = BASE(call);
    char *p;
    size_t n;
    if (!collrt_range(c, buf, lo, hi, &p, &n)) return;
    const char *in = fused_operand(c, buf, lo, hi - lo, n);
    if (in) {
        coll_recv_reduce_bytes(call, peer, p, in, n); /* buf := in (+) remote */
        return;
    }
    coll_recv_reduce_bytes(call, peer, cow_write(c, buf, lo, hi, p), p, n);
}

/* A length n from the program that lo + n cannot overflow for either
 * range (else sticky COLL_ERR_INTERNAL). */
static bool length_ok(collrt_call *c, int64_t slo, int64_t dlo, int64_t n) {
    if (n < 0 || slo > INT64_MAX - n || dlo > INT64_MAX - n) {
        collrt_fail(c, COLL_ERR_INTERNAL);
        return false;
    }
    return true;
}

/* Two ranges of n chunks (length_ok); false unless both are valid and the
 * same size (the chunk position rule makes that so for verified programs). */
static bool two_ranges(collrt_call *c, int sbuf, int64_t slo, int dbuf, int64_t dlo,
                       int64_t n, char **sp, char **dp, size_t *bytes) {
    size_t sn, dn;
    if (!collrt_range(c, sbuf, slo, slo + n, sp, &sn) ||
        !collrt_range(c, dbuf, dlo, dlo + n, dp, &dn))
        return false;
    if (sn != dn) {
        collrt_fail(c, COLL_ERR_INTERNAL);
        return false;
    }
    *bytes = sn;
    return true;
}

void coll_recv_reduce_copy(coll_call *call, int64_t peer, int src_buf, int64_t src_lo,
                           int dst_buf, int64_t dst_lo, int64_t n) {
    collrt_call *c = BASE(call);
    char *s, *d;
    size_t bytes;
    if (!length_ok(c, src_lo, dst_lo, n)) return;
    int sb = read_source(c, src_buf, &src_lo, n);
    if (two_ranges(c, sb, src_lo, dst_buf, dst_lo, n, &s, &d, &bytes)) {
        clear_pending(c, dst_buf, dst_lo, dst_lo + n);
        const char *src = cow_read(c, sb, src_lo, src_lo + n, s);
        coll_recv_reduce_bytes(call, peer, cow_write(c, dst_buf, dst_lo, dst_lo + n, d), src, bytes);
    }
}

void coll_copy(coll_call *call, int src_buf, int64_t src_lo, int dst_buf,
               int64_t dst_lo, int64_t n) {
    collrt_call *c = BASE(call);
    char *s, *d;
    size_t bytes;
    if (!length_ok(c, src_lo, dst_lo, n)) return;
    int sb = read_source(c, src_buf, &src_lo, n);
    if (!two_ranges(c, sb, src_lo, dst_buf, dst_lo, n, &s, &d, &bytes)) return;
    if (s == d && cow_intact(c, sb, src_lo, src_lo + n)) return; /* in place: nothing to move */
    if (defer_copy(c, sb, src_lo, dst_buf, dst_lo, n)) return;
    clear_pending(c, dst_buf, dst_lo, dst_lo + n);
    const char *src = cow_read(c, sb, src_lo, src_lo + n, s);
    coll_copy_bytes(call, cow_write(c, dst_buf, dst_lo, dst_lo + n, d), src, bytes);
}

void coll_reduce(coll_call *call, int src_buf, int64_t src_lo, int dst_buf,
                 int64_t dst_lo, int64_t n) {
    collrt_call *c = BASE(call);
    char *s, *d;
    size_t bytes;
    if (!length_ok(c, src_lo, dst_lo, n)) return;
    int sb = read_source(c, src_buf, &src_lo, n);
    if (!two_ranges(c, sb, src_lo, dst_buf, dst_lo, n, &s, &d, &bytes)) return;
    const char *in = fused_operand(c, dst_buf, dst_lo, n, bytes);
    if (in) {
        coll_reduce_bytes(call, d, in, s, bytes); /* dst := in (+) src, one pass */
        return;
    }
    const char *src = cow_read(c, sb, src_lo, src_lo + n, s);
    coll_reduce_bytes(call, cow_write(c, dst_buf, dst_lo, dst_lo + n, d), d, src, bytes);
}

/* ---- queries ---- */

void *coll_buf_ptr(const coll_call *call, int buf) {
    const collrt_call *c = (const collrt_call *)(const void *)call;
    return buf >= 0 && buf < c->nbufs ? c->base[buf] : NULL;
}

int64_t coll_buf_chunks(const coll_call *call, int buf) {
    const collrt_call *c = (const collrt_call *)(const void *)call;
    return buf >= 0 && buf < c->nbufs ? c->chunks[buf] : 0;
}

size_t coll_call_count(const coll_call *call) {
    return ((const collrt_call *)(const void *)call)->count;
}

size_t coll_call_elem_size(const coll_call *call) {
    return ((const collrt_call *)(const void *)call)->esz;
}

int coll_call_in_place(const coll_call *call) {
    return ((const collrt_call *)(const void *)call)->in_place;
}
