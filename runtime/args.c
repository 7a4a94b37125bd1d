/* args.c - the argument checks of coll_begin: validates one call on one
 * rank and resolves its buffers and in-place layout. */
#include <stdint.h>
#include <string.h>
#include "collrt_internal.h"

static int ranges_overlap(const void *p, size_t pn, const void *q, size_t qn) {
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)q;
    return pn && qn && a < b + qn && b < a + pn;
}

int collrt_begin_args(collrt_call *c, const coll_alg_info *info, int nranks, int me,
                      const void *sendbuf, void *recvbuf, size_t count,
                      coll_dtype dtype, coll_op op, int root) {
    memset(c, 0, offsetof(collrt_call, base));
    collrt_op_queue_clear(&c->q);
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
    if (c->vg) {
        /* per-block counts (vblocks.c): never in place, the buffers' ends */
        const collrt_vgeom *g = c->vg;
        if (g->nbufs < COLL_BUF_SCRATCH0) return COLL_ERR_INTERNAL;
        if ((sendbuf == COLL_IN_PLACE && lay.in_blocks) ||
            (recvbuf == COLL_IN_PLACE && lay.out_blocks))
            return COLL_ERR_IN_PLACE;
        if (__builtin_mul_overflow(g->off[COLL_BUF_IN][g->chunks[COLL_BUF_IN]], c->esz, &in_bytes) ||
            __builtin_mul_overflow(g->off[COLL_BUF_OUT][g->chunks[COLL_BUF_OUT]], c->esz,
                                   &out_bytes) ||
            in_bytes > (size_t)PTRDIFF_MAX || out_bytes > (size_t)PTRDIFF_MAX)
            return COLL_ERR_BAD_COUNT;
        block_bytes = 0;   /* no in-place position */
    }

    /* Buffers a rank has no memory for are ignored (whatever was passed). */
    const char *in = lay.in_blocks ? sendbuf : NULL;
    char *out = lay.out_blocks ? recvbuf : NULL;

    if (ci->in_place == COLLRT_INPLACE_IN_ME) {
        if (sendbuf == COLL_IN_PLACE && lay.in_blocks) return COLL_ERR_IN_PLACE;
        if (recvbuf == COLL_IN_PLACE) {
            if (!lay.in_blocks) return COLL_ERR_IN_PLACE; /* only at the root */
            out = in ? (char *)in + (size_t)me * block_bytes : NULL;
            c->in_place = 1;
        } else if (in && in != COLL_IN_PLACE && out && count && !c->vg &&
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
        } else if (in && out && count && !c->vg && in == out + in_off) {
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
