/* collmpi_vforms.c - the v-forms' buffers (collmpi_prepare of
 * MPI_Allgatherv, Gatherv, Scatterv, Alltoallv and Reduce_scatter): padded
 * to the largest block (collmpi_vpad), or with per-block counts
 * (collmpi_vblocks, which also decides whether an algorithm serves them).
 * docs/mpi.md, "v-collectives". */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

/* ---- padded v-forms (collmpi_vpad) ---- */

/* The sides of a rooted or all-to-all v-form that this rank has (a scatter's
 * input and a gather's output only at the root), and MPI_IN_PLACE where MPI
 * allows it: the send side of a gather or an allgather, the root's receive
 * side of a scatter. Shared by both kinds of v-form. */
typedef struct vsides {
    const void *sb;            /* the input, NULL where this rank has none */
    void *rb;                  /* the output, NULL where this rank has none */
    int has_in, has_out;
    int scatter_root_in_place; /* the root of a scatter, recvbuf MPI_IN_PLACE */
} vsides;

static int v_sides(const collmpi_args *a, int is_root, vsides *s, const char **why) {
    int coll = a->coll;
    s->has_in = coll != COLL_SCATTER || is_root;
    s->has_out = coll != COLL_GATHER || is_root;
    s->sb = s->has_in ? a->sendbuf : NULL;
    s->rb = s->has_out ? a->recvbuf : NULL;
    s->scatter_root_in_place = coll == COLL_SCATTER && is_root && s->rb == MPI_IN_PLACE;
    if ((s->sb == MPI_IN_PLACE && (coll == COLL_SCATTER || !s->has_out)) ||
        (s->rb == MPI_IN_PLACE && !s->scatter_root_in_place)) {
        *why = "MPI_IN_PLACE where MPI does not allow it";
        return COLL_ERR_IN_PLACE;
    }
    return COLL_OK;
}

/* Packs (unpack = 0) the `count` elements of dt at `displ` extents of user
 * into buf, or unpacks them back. */
int collmpi_pack_block(void *user, MPI_Datatype dt, int displ, int count, char *buf, int unpack) {
    MPI_Aint lb, extent;
    int rc = PMPI_Type_get_extent(dt, &lb, &extent);
    if (rc != MPI_SUCCESS || count <= 0) return rc;
    /* integer arithmetic: user may be MPI_BOTTOM with absolute displacements */
    void *u = (void *)((uintptr_t)user + (uintptr_t)((MPI_Aint)displ * extent));
    coll_dtype named;
    if (collmpi_named_dtype(dt, &named)) {
        size_t bytes = (size_t)count * (size_t)extent;
        if (unpack) memcpy(u, buf, bytes);
        else memcpy(buf, u, bytes);
        return MPI_SUCCESS;
    }
    return collmpi_pack_all(u, dt, (size_t)count, buf, unpack);
}

/* Stages the n blocks of a padded side into s: block r (counts[r]
 * elements of dt at displs[r] extents of user; displs NULL: side by side)
 * at r * stride bytes of the stage, copied in with zeros after it when
 * `pack` (an output stage is left as it is: only the blocks are read). When
 * `unpack_all`, every block is copied back by collmpi_unstage; else
 * `unpack` elements from the stage's start to user's. */
static int vstage(collmpi_call *m, collmpi_stage *s, void *user, MPI_Datatype dt, int n,
                  const int *counts, const int *displs, size_t stride, int pack, int unpack_all,
                  size_t unpack, const char **why) {
    int size = 0;
    if (PMPI_Type_size(dt, &size) != MPI_SUCCESS || size < 0) {
        *why = "bad datatype";
        return COLL_ERR_BAD_DTYPE;
    }
    size_t total = 0;
    for (int r = 0; r < n; r++) {
        if (counts[r] < 0 || (stride && (size_t)counts[r] * (size_t)size > stride)) {
            *why = "a block larger than the largest block the ranks agreed on";
            return COLL_ERR_BAD_COUNT;
        }
        total += (size_t)counts[r] * (size_t)size;
    }
    /* stride 0: the blocks side by side at their own sizes */
    int rc = collmpi_stage_open(m, s, user, dt, (stride ? (size_t)n * stride : total) + 1,
                        stride ? "no memory for the padded blocks" : "no memory for the blocks",
                        why);
    if (rc != COLL_OK) return rc;
    int displ = 0;
    size_t at = 0;
    for (int r = 0; pack && r < n; r++) {
        char *slot = s->stage + (stride ? (size_t)r * stride : at);
        size_t bytes = (size_t)counts[r] * (size_t)size;
        if (collmpi_pack_block(user, dt, displs ? displs[r] : displ, counts[r], slot, 0) != MPI_SUCCESS) {
            *why = "cannot pack the datatype";
            return COLL_ERR_BAD_DTYPE;
        }
        if (stride) memset(slot + bytes, 0, stride - bytes);   /* the padding moves too: zeros */
        displ += counts[r];
        at += bytes;
    }
    if (!unpack_all) {
        s->unpack_count = unpack;
        return COLL_OK;
    }
    s->vcounts = malloc(sizeof *s->vcounts * (size_t)n);
    s->vdispls = malloc(sizeof *s->vdispls * (size_t)n);
    if (!s->vcounts || !s->vdispls) {
        *why = "no memory for the blocks";
        return COLL_ERR_NOMEM;
    }
    memcpy(s->vcounts, counts, sizeof *counts * (size_t)n);
    displ = 0;
    for (int r = 0; r < n; r++) {   /* displs NULL: side by side */
        s->vdispls[r] = displs ? displs[r] : displ;
        displ += counts[r];
    }
    s->vn = n;
    s->vstride = stride;
    s->vsize = (size_t)size;
    return COLL_OK;
}

/* collmpi_prepare of a v-form on padded blocks: every side that moves is
 * staged (its blocks of `pad` bytes side by side). */
int collmpi_prepare_padded(const collmpi_args *a, collmpi_call *m, const char **why) {
    const collmpi_vpad *v = a->vpad;
    int N = m->nranks, me = m->rank;
    int is_root = me == a->root;
    const void *sb = a->sendbuf;
    void *rb = a->recvbuf;
    size_t pad = v->pad;
    int rc = COLL_OK;
    if (a->coll == COLL_REDUCE_SCATTER) {
        /* the input: N blocks side by side (rcounts); the output: this
         * rank's block at the start of recvbuf */
        int mine = v->rcounts[me];
        if (sb == MPI_IN_PLACE) {
            sb = COLL_IN_PLACE;
            rc = vstage(m, &m->out, rb, a->sendtype, N, v->rcounts, NULL, pad, 1, 0,
                        (size_t)mine, why);
        } else {
            rc = vstage(m, &m->in, (void *)sb, a->sendtype, N, v->rcounts, NULL, pad, 1, 0, 0,
                        why);
            sb = m->in.stage;
            if (rc == COLL_OK)
                rc = vstage(m, &m->out, rb, a->sendtype, 1, &mine, NULL, pad, 0, 0, (size_t)mine,
                            why);
        }
        m->sendbuf = sb;
        m->recvbuf = rc == COLL_OK ? m->out.stage : NULL;
        return rc;
    }
    int coll = a->coll;
    vsides sd;
    rc = v_sides(a, is_root, &sd, why);
    if (rc != COLL_OK) return rc;
    int has_in = sd.has_in, has_out = sd.has_out, scatter_root_in_place = sd.scatter_root_in_place;
    sb = sd.sb;
    rb = sd.rb;
    int in_multi = coll == COLL_SCATTER || coll == COLL_ALLTOALL;
    int out_multi = coll != COLL_SCATTER;
    if (sb == MPI_IN_PLACE) {
        /* the input is in recvbuf, in its blocks */
        m->sendbuf = COLL_IN_PLACE;
        rc = vstage(m, &m->out, rb, a->recvtype, N, v->rcounts, a->rdispls, pad, 1, 1, 0, why);
        m->recvbuf = m->out.stage;
        return rc;
    }
    /* A side of one block must be the size of its block on the other side. */
    if (has_in && has_out && !scatter_root_in_place && coll != COLL_ALLTOALL) {
        long long one = coll == COLL_SCATTER ? collmpi_type_bytes(a->recvcount, a->recvtype)
                                             : collmpi_type_bytes(a->sendcount, a->sendtype);
        long long blk = coll == COLL_SCATTER ? collmpi_type_bytes(v->scounts[me], a->sendtype)
                                             : collmpi_type_bytes(v->rcounts[me], a->recvtype);
        if (one < 0 || one != blk) {
            *why = "send and receive block sizes differ";
            return COLL_ERR_BAD_COUNT;
        }
    }
    if (has_in) {
        rc = in_multi ? vstage(m, &m->in, (void *)sb, a->sendtype, N, v->scounts, a->sdispls, pad,
                               1, 0, 0, why)
                      : vstage(m, &m->in, (void *)sb, a->sendtype, 1, &a->sendcount, NULL, pad, 1,
                               0, 0, why);
        sb = m->in.stage;
    }
    if (rc == COLL_OK && scatter_root_in_place) {
        rb = COLL_IN_PLACE;
    } else if (rc == COLL_OK && has_out) {
        rc = out_multi ? vstage(m, &m->out, rb, a->recvtype, N, v->rcounts, a->rdispls, pad, 0, 1,
                                0, why)
                       : vstage(m, &m->out, rb, a->recvtype, 1, &a->recvcount, NULL, pad, 0, 0,
                                (size_t)(a->recvcount > 0 ? a->recvcount : 0), why);
        rb = m->out.stage;
    }
    m->sendbuf = sb;
    m->recvbuf = rb;
    return rc;
}

/* ---- v-forms with per-block counts (collmpi_vblocks) ---- */

/* Whether n blocks of counts[r] elements of dt at displs[r] (NULL: side
 * by side) are already the side-by-side layout the algorithm reads (a
 * named type, displacements the running sums of the counts). */
static int side_by_side(const collmpi_call *m, MPI_Datatype dt, int n, const int *counts,
                        const int *displs) {
    if (!m->plain || !collmpi_contiguous_type(dt, 0)) return 0;
    long long at = 0;
    for (int r = 0; displs && r < n; r++) {
        if (displs[r] != at) return 0;
        at += counts[r];
    }
    return 1;
}

/* Checks that the n blocks of a side (counts of dt) have the bytes the
 * ranks agreed on: block r is bbytes[first + r * step]. */
static int agreed_sizes(const collmpi_call *m, MPI_Datatype dt, int n, const int *counts,
                        size_t first, size_t step, const char **why) {
    int size = 0;
    PMPI_Type_size(dt, &size);
    for (int r = 0; r < n; r++) {
        size_t k = first + (size_t)r * step;
        if (!counts || counts[r] < 0 || k >= m->nbb ||
            (long long)counts[r] * size != m->bbytes[k]) {
            *why = "send and receive block sizes differ";
            return COLL_ERR_BAD_COUNT;
        }
    }
    return COLL_OK;
}

/* An N-block side of a v-form: the user's memory when it is side by side
 * already, else a stage of the blocks side by side (packed when `pack`,
 * unpacked by collmpi_unstage when `unpack`). */
static int vside(collmpi_call *m, collmpi_stage *st, void *user, MPI_Datatype dt, int n,
                 const int *counts, const int *displs, int pack, int unpack, void **ptr,
                 const char **why) {
    if (side_by_side(m, dt, n, counts, displs)) {
        *ptr = user;
        return COLL_OK;
    }
    int rc = vstage(m, st, user, dt, n, counts, displs, 0, pack, unpack, 0, why);
    *ptr = st->stage;
    return rc;
}

/* A one-block side: the user's memory, or a stage when its type is not
 * contiguous. */
static int oside(collmpi_call *m, collmpi_stage *st, void *user, MPI_Datatype dt, int count,
                 int pack, int unpack, void **ptr, const char **why) {
    size_t n = count > 0 ? (size_t)count : 0;
    if (!collmpi_needs_stage(m, dt, n)) {
        *ptr = user;
        return COLL_OK;
    }
    int rc = collmpi_stage_buffer(m, st, user, dt, n, pack, unpack ? n : 0, why);
    *ptr = st->stage;
    return rc;
}

/* collmpi_prepare of a v-form of uneven blocks with per-block counts: the
 * blocks side by side at their own sizes (the runtime's geometry, built
 * at the start from bbytes), never in place (an in-place input is staged
 * apart). */
int collmpi_prepare_blocks(const collmpi_args *a, collmpi_call *m, const char **why) {
    const collmpi_vpad *v = a->vpad;
    int N = m->nranks, me = m->rank, coll = a->coll;
    int is_root = me == a->root;
    const void *sb = a->sendbuf;
    void *rb = a->recvbuf;
    void *in = NULL, *out = NULL;
    int rc = COLL_OK;
    m->bbytes = v->bbytes;
    m->nbb = v->nbb;
    m->count = 1;
    if (coll == COLL_REDUCE_SCATTER) {
        /* the input: N blocks side by side; the output: this rank's block */
        long long total = 0;
        for (int r = 0; r < N; r++) total += v->rcounts[r];
        int mine = v->rcounts[me];
        int contig = m->red_contig;
        if (sb == MPI_IN_PLACE) {
            rc = collmpi_stage_buffer(m, &m->in, rb, m->red_type, (size_t)total, 1, 0, why);
            in = m->in.stage;
            if (rc == COLL_OK && !contig) {
                rc = collmpi_stage_buffer(m, &m->out, rb, m->red_type, (size_t)mine, 0, (size_t)mine, why);
                out = m->out.stage;
            } else {
                out = rb;
            }
        } else {
            in = (void *)sb;
            out = rb;
            if (!contig) {
                rc = collmpi_stage_buffer(m, &m->in, (void *)sb, m->red_type, (size_t)total, 1, 0, why);
                in = m->in.stage;
                if (rc == COLL_OK)
                    rc = collmpi_stage_buffer(m, &m->out, rb, m->red_type, (size_t)mine, 0, (size_t)mine, why);
                out = m->out.stage;
            }
        }
        m->sendbuf = in;
        m->recvbuf = out;
        return rc;
    }
    vsides sd;
    rc = v_sides(a, is_root, &sd, why);
    if (rc != COLL_OK) return rc;
    int has_in = sd.has_in, has_out = sd.has_out, scatter_root_in_place = sd.scatter_root_in_place;
    sb = sd.sb;
    rb = sd.rb;
    size_t Nn = (size_t)N;
    /* every block this rank holds has the size the ranks agreed on */
    if (coll == COLL_ALLTOALL) {
        if (sb != MPI_IN_PLACE)
            rc = agreed_sizes(m, a->sendtype, N, v->scounts, (size_t)me * Nn, 1, why);
        if (rc == COLL_OK) rc = agreed_sizes(m, a->recvtype, N, v->rcounts, (size_t)me, Nn, why);
    } else if (coll == COLL_SCATTER) {
        if (is_root) rc = agreed_sizes(m, a->sendtype, N, v->scounts, 0, 1, why);
        if (rc == COLL_OK && !scatter_root_in_place)
            rc = agreed_sizes(m, a->recvtype, 1, &a->recvcount, (size_t)me, 1, why);
    } else {
        if (has_out) rc = agreed_sizes(m, a->recvtype, N, v->rcounts, 0, 1, why);
        if (rc == COLL_OK && sb != MPI_IN_PLACE)
            rc = agreed_sizes(m, a->sendtype, 1, &a->sendcount, (size_t)me, 1, why);
    }
    if (rc != COLL_OK) return rc;
    if (sb == MPI_IN_PLACE) {
        /* the input is in recvbuf: an allgather's or gather's own block at
         * rdispls[me], an alltoall's whole row; staged apart so that the
         * call is not in place */
        if (coll == COLL_ALLTOALL) {
            rc = vstage(m, &m->in, rb, a->recvtype, N, v->rcounts, a->rdispls, 0, 1, 0, 0, why);
        } else {
            int one = v->rcounts[me];
            const int *d = a->rdispls;
            int displ = 0;
            for (int r = 0; !d && r < me; r++) displ += v->rcounts[r];
            int at = d ? d[me] : displ;
            rc = vstage(m, &m->in, rb, a->recvtype, 1, &one, &at, 0, 1, 0, 0, why);
        }
        in = m->in.stage;
    } else if (has_in) {
        rc = coll == COLL_SCATTER || coll == COLL_ALLTOALL
                 ? vside(m, &m->in, (void *)sb, a->sendtype, N, v->scounts, a->sdispls, 1, 0, &in,
                         why)
                 : oside(m, &m->in, (void *)sb, a->sendtype, a->sendcount, 1, 0, &in, why);
    }
    if (rc == COLL_OK && scatter_root_in_place) {
        /* the root's block stays where it is in sendbuf: the algorithm
         * writes a copy that nobody reads */
        rc = collmpi_stage_buffer(m, &m->out, NULL, MPI_BYTE, (size_t)m->bbytes[me], 0, 0, why);
        m->out.user = NULL;
        out = m->out.stage;
    } else if (rc == COLL_OK && has_out) {
        rc = coll == COLL_SCATTER
                 ? oside(m, &m->out, rb, a->recvtype, a->recvcount, 0, 1, &out, why)
                 : vside(m, &m->out, rb, a->recvtype, N, v->rcounts, a->rdispls, 0, 1, &out, why);
    }
    m->sendbuf = in;
    m->recvbuf = out;
    return rc;
}

/* The map of blocks of recent (algorithm, N, rank, root) pairs, per
 * thread: following every rank's plan costs the recording of N plans. */
enum { VMAP_CACHE = 8 };
typedef struct vmap_entry {
    void (*fn)(void);
    int nranks, rank, root;
    coll_dtype dtype;
    coll_op op;
    int rc;
    const char *why;
    collrt_vmap map;
} vmap_entry;
static _Thread_local vmap_entry vmap_cache[VMAP_CACHE];
static _Thread_local unsigned vmap_next;

int collmpi_vblocks(coll_collective coll, void (*fn)(void), collmpi_call *m, const char **why) {
    int rooted = collmpi_is_root_coll(coll);
    int root = rooted ? m->root : 0;
    m->vblocks = 0;
    m->vmap = NULL;
    vmap_entry *e = NULL;
    for (int i = 0; i < VMAP_CACHE && !e; i++) {
        vmap_entry *c = &vmap_cache[i];
        if (c->fn == fn && c->nranks == m->nranks && c->rank == m->rank && c->root == root &&
            c->dtype == m->dtype && c->op == m->op)
            e = c;
    }
    if (!e) {
        e = &vmap_cache[vmap_next++ % VMAP_CACHE];
        collrt_vmap_free(&e->map);
        *e = (vmap_entry){fn, m->nranks, m->rank, root, m->dtype, m->op, COLL_OK, NULL, {0}};
        collrt_recording *plans = calloc((size_t)m->nranks, sizeof *plans);
        if (!plans) {
            e->fn = NULL;
            *why = "out of memory";
            return COLL_ERR_NOMEM;
        }
        for (int r = 0; e->rc == COLL_OK && r < m->nranks; r++)
            if (collmpi_record_rank(m->nranks, r, fn, rooted, m->dtype, m->op, root, &plans[r]) !=
                COLL_OK) {
                e->rc = COLL_ERR_NOT_APPLICABLE;
                e->why = "its plan could not be recorded";
            }
        if (e->rc == COLL_OK)
            e->rc = collrt_vmap_build(coll, m->nranks, m->rank, root, plans, &e->map, &e->why);
        for (int r = 0; r < m->nranks; r++) free(plans[r].ops);
        free(plans);
    }
    *why = e->why;
    if (e->rc != COLL_OK) return e->rc;
    const coll_alg_info *info = NULL;
    collmpi_call probe = *m;
    (void)collmpi_applies(coll, &probe, fn, &info);
    if (!info) {
        *why = "no algorithm information";
        return COLL_ERR_NOT_APPLICABLE;
    }
    m->vinfo = info;
    m->vmap = &e->map;
    m->vblocks = 1;
    return COLL_OK;
}

