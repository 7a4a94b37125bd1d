/* pmpi_v.c - the v-forms of the PMPI library (pmpi.c): which regular call
 * serves an MPI_Allgatherv, MPI_Gatherv, MPI_Scatterv, MPI_Alltoallv or
 * MPI_Reduce_scatter (and their I- and _init forms).
 *
 * They are served by the rules of the regular collective (allgather,
 * gather, scatter, alltoall, reduce_scatter), the size of the call being
 * the bytes of its blocks:
 *  - when all their blocks have one size, the call is that collective,
 *    with its blocks at the call's displacements (staged side by side when
 *    they are not);
 *  - when they differ, the call is that collective's algorithm with
 *    per-block counts when the algorithm keeps its chunks to their blocks
 *    (collmpi_vblocks), else on blocks padded to the largest (collmpi_vpad:
 *    each block staged with zero bytes after it) if padding costs little:
 *    the bytes the padded call moves (N blocks of the largest, N * N for
 *    MPI_Alltoallv) are at most COLLMPI_VPAD times the bytes of the blocks
 *    (default 1.25; 1 never pads). Otherwise the MPI library serves the
 *    call (collmpi_v_serve decides, once the rule's algorithm is known).
 * Every rank must decide alike. The counts of MPI_Allgatherv and
 * MPI_Reduce_scatter are known to every rank; those of MPI_Gatherv and
 * MPI_Scatterv (the root's) and of MPI_Alltoallv (a row and a column of
 * the matrix on each rank) are not, and the ranks agree on them first with
 * one MPI_Allgather (per rank its smallest and largest block, its share of
 * the total and the bytes of its own block, or its row), in the blocking
 * and the persistent forms (at init). A nonblocking call cannot wait for
 * that: MPI_Igatherv, MPI_Iscatterv and MPI_Ialltoallv are decided without
 * the sizes (collmpi_vpad.deferred: a rule for every size, per-block
 * counts or nothing) and exchange them in the background (pmpi.c). */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

/* The blocks a v-call's rank knows of: the smallest and the largest in
 * bytes (lo < 0: a negative count or a bad datatype; the MPI library
 * reports it) and their total (this rank's share of the call's). */
typedef struct vsizes {
    long long lo, hi;
    long long total;
} vsizes;

static void vs_add(vsizes *v, int count, MPI_Datatype dt, int in_total) {
    int size = 0;
    if (count < 0 || dt == MPI_DATATYPE_NULL || PMPI_Type_size(dt, &size) != MPI_SUCCESS ||
        size < 0) {
        v->lo = -1;
        return;
    }
    long long b = (long long)count * size;
    if (v->lo >= 0 && b < v->lo) v->lo = b;
    if (b > v->hi) v->hi = b;
    if (in_total) v->total += b;
}

static void vs_add_all(vsizes *v, const int *counts, int n, MPI_Datatype dt, int in_total) {
    if (!counts) v->lo = -1;
    for (int r = 0; counts && r < n; r++) vs_add(v, counts[r], dt, in_total);
}

/* The largest ratio of padded to actual bytes (COLLMPI_VPAD). */
static double vpad_limit(void) {
    static double limit = -1;
    if (limit < 0) {
        const char *e = getenv("COLLMPI_VPAD");
        char *end = NULL;
        double x = e && *e ? strtod(e, &end) : 1.25;
        limit = end && *end ? 1.25 : x < 1 ? 1 : x;
    }
    return limit;
}

/* The size of comm (an intracommunicator) and this rank in it; 0 for a
 * null, invalid or inter-communicator, whose arrays are not read here. */
static int v_comm(MPI_Comm comm, int *n, int *rank) {
    int inter = 1;
    if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return 0;
    PMPI_Comm_size(comm, n);
    PMPI_Comm_rank(comm, rank);
    return 1;
}

/* The bytes of every block of the current call (collmpi_vpad.bbytes),
 * per thread, grown. */
static _Thread_local long long *bb;
static _Thread_local size_t bb_cap;

static long long *bb_get(size_t n) {
    return collrt_grow((void **)&bb, &bb_cap, n ? n : 1, sizeof *bb) ? bb : NULL;
}

/* Whether v's call is its regular collective on every rank, with v->pad
 * set when its blocks differ (nblocks of them; which way it runs, per
 * block or padded, is collmpi_v_serve's once the algorithm is known): 1,
 * or 0 with the reason logged (the MPI library serves it). `known` holds
 * the bytes of this rank's blocks that not every rank knows (agree: its
 * one block for MPI_Gatherv and MPI_Scatterv, its row for
 * MPI_Alltoallv, nknown of them), or, without agreement, the bytes of
 * every block. */
static int v_regular(collmpi_vcall *v, vsizes vs, int agree, int form, int nranks, int rank,
                     size_t nblocks, const long long *known, size_t nknown) {
    collmpi_args *a = &v->a;
    a->vpad = NULL;
    if (!collmpi_pmpi_gate(a, form)) return 0;
    const char *why = NULL;
    long long *bytes = NULL;
    size_t nbb = agree == COLLMPI_V_AGREE ? (size_t)nranks * nknown : nknown;
    if (agree == COLLMPI_V_NO_AGREE) {
        /* the sizes are exchanged in the background (collmpi_vpad.deferred):
         * whether the blocks differ is not known here, nor the total */
        if (!(bytes = bb_get(nknown))) {
            why = "no memory for the counts";
        } else {
            memcpy(bytes, known, sizeof *known * nknown);
            v->pad = (collmpi_vpad){1, vs.total > 0 ? (size_t)vs.total : 0, 0, NULL, NULL, NULL, 0,
                                    1, bytes, nknown};
            a->vpad = &v->pad;
            return 1;
        }
    } else if (!(bytes = bb_get(nbb))) {
        why = "no memory for the counts";
    } else if (agree == COLLMPI_V_AGREE) {
        /* every rank's smallest, largest and share of the blocks, and the
         * bytes of its blocks that the others do not know */
        size_t per = 3 + nknown;
        long long *mine = malloc(sizeof *mine * per);
        long long *all = malloc(sizeof *all * per * (size_t)nranks);
        int ok = mine && all;
        if (ok) {
            mine[0] = vs.lo;
            mine[1] = vs.hi;
            mine[2] = vs.total;
            for (size_t k = 0; k < nknown; k++) mine[3 + k] = known[k];
            ok = PMPI_Allgather(mine, (int)per, MPI_LONG_LONG, all, (int)per, MPI_LONG_LONG,
                                a->comm) == MPI_SUCCESS;
        }
        vs.lo = ok ? LLONG_MAX : -1;
        vs.total = 0;
        for (int r = 0; ok && r < nranks; r++) {
            const long long *e = all + per * (size_t)r;
            if (e[0] < vs.lo) vs.lo = e[0];
            if (e[1] > vs.hi) vs.hi = e[1];
            vs.total += e[2];
            for (size_t k = 0; k < nknown; k++) {
                bytes[(size_t)r * nknown + k] = e[3 + k];
                if (e[3 + k] < 0) vs.lo = -1;
            }
        }
        free(mine);
        free(all);
    } else {
        memcpy(bytes, known, sizeof *known * nknown);
    }
    if (!why && vs.lo < 0) {
        why = "a negative count or a bad datatype";
    } else if (!why && vs.lo != vs.hi) {
        v->pad = (collmpi_vpad){(size_t)vs.hi, (size_t)vs.total, nblocks * (size_t)vs.hi,
                                NULL, NULL, bytes, nbb, 0, NULL, 0};
        a->vpad = &v->pad;
    }
    if (!why) return 1;
    collmpi_call m;
    memset(&m, 0, sizeof m);
    m.nranks = nranks;
    m.rank = rank;
    m.form = form;
    m.vform = 1;
    m.total_bytes = vs.total > 0 ? (size_t)vs.total : 0;
    collmpi_log(a->coll, &m, 0, "MPI library:", why);
    return 0;
}

int collmpi_v_serve(const collmpi_args *a, collmpi_call *m, void (*fn)(void), const char *alg) {
    m->vblocks = 0;
    if (!a->vpad) return 1;
    const char *why = "";
    if (collmpi_vblocks(a->coll, fn, m, &why) == COLL_OK) return 1;
    const collmpi_vpad *v = a->vpad;
    char text[300];
    if (v->deferred) {
        snprintf(text, sizeof text,
                 "%s does not keep chunks to their blocks (%s), and padding would need the other "
                 "ranks' counts first",
                 alg, why);
        collmpi_log(a->coll, m, 0, "MPI library:", text);
        return 0;
    }
    double padded = (double)v->padded, limit = vpad_limit();
    if (padded <= limit * (double)v->total) return 1;   /* padded to the largest */
    snprintf(text, sizeof text,
             "blocks of different sizes (%s does not keep chunks to their blocks: %s; padded to "
             "the largest they would move %.2fx the bytes; COLLMPI_VPAD=%.2f)",
             alg, why, padded / (double)v->total, limit);
    collmpi_log(a->coll, m, 0, "MPI library:", text);
    return 0;
}

/* The bytes of count elements of dt (-1: a bad count or datatype). */
static long long v_bytes(int count, MPI_Datatype dt) {
    int size = 0;
    if (count < 0 || dt == MPI_DATATYPE_NULL || PMPI_Type_size(dt, &size) != MPI_SUCCESS ||
        size < 0)
        return -1;
    return (long long)count * size;
}

/* counts[r] elements of dt for r < n, in bytes (into the per-thread
 * buffer of at least n entries; NULL counts: -1 each). */
static long long *v_all_bytes(const int *counts, int n, MPI_Datatype dt, long long *out) {
    for (int r = 0; r < n; r++) out[r] = counts ? v_bytes(counts[r], dt) : -1;
    return out;
}

/* displs, or NULL when block r is at r * count (nothing to stage). */
static const int *v_displs(const int *displs, int n, int count) {
    for (int r = 0; displs && r < n; r++)
        if ((long long)displs[r] != (long long)r * count) return displs;
    return NULL;
}

int collmpi_v_allgatherv(collmpi_vcall *v, const void *sendbuf, int sendcount,
                         MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                         const int displs[], MPI_Datatype recvtype, MPI_Comm comm, int form) {
    collmpi_args *a = &v->a;
    int n = 0, rank = 0;
    *a = (collmpi_args){COLL_ALLGATHER, sendbuf, recvbuf, sendcount, 0, sendtype, recvtype,
                        MPI_OP_NULL, 0, comm, 1, NULL, NULL, NULL};
    if (!v_comm(comm, &n, &rank)) return collmpi_pmpi_library(a, form);
    vsizes vs = {LLONG_MAX, 0, 0};
    vs_add_all(&vs, recvcounts, n, recvtype, 1);
    if (recvcounts) a->recvcount = recvcounts[0];
    long long *known = malloc(sizeof *known * (size_t)n);
    int ok = known && v_regular(v, vs, COLLMPI_V_LOCAL, form, n, rank, (size_t)n,
                                v_all_bytes(recvcounts, n, recvtype, known), (size_t)n);
    free(known);
    if (!ok) return known ? 0 : collmpi_pmpi_library(a, form);
    if (a->vpad) {
        v->pad.rcounts = recvcounts;
        a->rdispls = displs;
        if (!displs) return collmpi_pmpi_library(a, form);
    } else {
        a->rdispls = v_displs(displs, n, a->recvcount);
    }
    return 1;
}

/* Gatherv and Scatterv: the root's side has a block per rank (many_counts
 * of many_type at displs), every rank one block (one_count of one_type;
 * none on the root in place). *count, *displs and *vcounts are the many
 * side's fields (recvcount/rdispls/rcounts for Gatherv, sendcount/sdispls/
 * scounts for Scatterv). */
static int v_rooted(collmpi_vcall *v, int one_count, MPI_Datatype one_type, int one_in_place,
                    const int many_counts[], MPI_Datatype many_type, const int displs[], int *count,
                    const int **displs_out, const int **vcounts, int form, int agree) {
    collmpi_args *a = &v->a;
    int n = 0, rank = 0, root = a->root;
    if (!v_comm(a->comm, &n, &rank) || root < 0 || root >= n) return collmpi_pmpi_library(a, form);
    vsizes vs = {LLONG_MAX, 0, 0};
    if (rank != root || !one_in_place) vs_add(&vs, one_count, one_type, 0);
    if (rank == root) {
        vs_add_all(&vs, many_counts, n, many_type, 1);
        if (many_counts) *count = many_counts[0];
    }
    /* this rank's block, which the others learn by the agreement */
    long long own = rank == root && one_in_place
                        ? (many_counts ? v_bytes(many_counts[rank], many_type) : -1)
                        : v_bytes(one_count, one_type);
    if (!v_regular(v, vs, agree, form, n, rank, (size_t)n, &own, 1)) return 0;
    if (rank == root && a->vpad) {
        *vcounts = many_counts;
        *displs_out = displs;
        *count = 0;
    } else if (rank == root) {
        *displs_out = v_displs(displs, n, *count);
    }
    return 1;
}

int collmpi_v_gatherv(collmpi_vcall *v, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const int recvcounts[], const int displs[],
                      MPI_Datatype recvtype, int root, MPI_Comm comm, int form, int agree) {
    collmpi_args *a = &v->a;
    *a = (collmpi_args){COLL_GATHER, sendbuf, recvbuf, sendcount, 0, sendtype, recvtype,
                        MPI_OP_NULL, root, comm, 1, NULL, NULL, NULL};
    return v_rooted(v, sendcount, sendtype, sendbuf == MPI_IN_PLACE, recvcounts, recvtype, displs,
                    &a->recvcount, &a->rdispls, &v->pad.rcounts, form, agree);
}

int collmpi_v_scatterv(collmpi_vcall *v, const void *sendbuf, const int sendcounts[],
                       const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, int root, MPI_Comm comm, int form, int agree) {
    collmpi_args *a = &v->a;
    *a = (collmpi_args){COLL_SCATTER, sendbuf, recvbuf, 0, recvcount, sendtype, recvtype,
                        MPI_OP_NULL, root, comm, 1, NULL, NULL, NULL};
    return v_rooted(v, recvcount, recvtype, recvbuf == MPI_IN_PLACE, sendcounts, sendtype, displs,
                    &a->sendcount, &a->sdispls, &v->pad.scounts, form, agree);
}

int collmpi_v_alltoallv(collmpi_vcall *v, const void *sendbuf, const int sendcounts[],
                        const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                        MPI_Comm comm, int form, int agree) {
    collmpi_args *a = &v->a;
    int n = 0, rank = 0;
    *a = (collmpi_args){COLL_ALLTOALL, sendbuf, recvbuf, 0, 0, sendtype, recvtype,
                        MPI_OP_NULL, 0, comm, 1, NULL, NULL, NULL};
    if (!v_comm(comm, &n, &rank)) return collmpi_pmpi_library(a, form);
    vsizes vs = {LLONG_MAX, 0, 0};
    if (sendbuf != MPI_IN_PLACE) {
        vs_add_all(&vs, sendcounts, n, sendtype, 0);
        if (sendcounts) a->sendcount = sendcounts[0];
    }
    vs_add_all(&vs, recvcounts, n, recvtype, 1);
    if (recvcounts) a->recvcount = recvcounts[0];
    /* this rank's row of the matrix (in place: recvcounts) */
    long long *row = malloc(sizeof *row * (size_t)n);
    int ok = row != NULL;
    if (ok) {
        if (sendbuf == MPI_IN_PLACE) v_all_bytes(recvcounts, n, recvtype, row);
        else v_all_bytes(sendcounts, n, sendtype, row);
        ok = v_regular(v, vs, agree, form, n, rank, (size_t)n * (size_t)n, row, (size_t)n);
    }
    free(row);
    if (!ok) return row ? 0 : collmpi_pmpi_library(a, form);
    if (a->vpad) {
        v->pad.scounts = sendbuf != MPI_IN_PLACE ? sendcounts : NULL;
        v->pad.rcounts = recvcounts;
        a->sdispls = sendbuf != MPI_IN_PLACE ? sdispls : NULL;
        a->rdispls = rdispls;
        a->sendcount = a->recvcount = 0;
        if (!rdispls || (sendbuf != MPI_IN_PLACE && !sdispls)) return collmpi_pmpi_library(a, form);
        return 1;
    }
    if (sendbuf != MPI_IN_PLACE) a->sdispls = v_displs(sdispls, n, a->sendcount);
    a->rdispls = v_displs(rdispls, n, a->recvcount);
    return 1;
}

int collmpi_v_reduce_scatter(collmpi_vcall *v, const void *sendbuf, void *recvbuf,
                             const int recvcounts[], MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                             int form) {
    collmpi_args *a = &v->a;
    int n = 0, rank = 0;
    *a = (collmpi_args){COLL_REDUCE_SCATTER, sendbuf, recvbuf, 0, 0, dt, MPI_DATATYPE_NULL, op, 0,
                        comm, 1, NULL, NULL, NULL};
    if (!v_comm(comm, &n, &rank)) return collmpi_pmpi_library(a, form);
    vsizes vs = {LLONG_MAX, 0, 0};
    vs_add_all(&vs, recvcounts, n, dt, 1);
    if (recvcounts) a->sendcount = recvcounts[0];
    long long *known = malloc(sizeof *known * (size_t)n);
    int ok = known && v_regular(v, vs, COLLMPI_V_LOCAL, form, n, rank, (size_t)n,
                                v_all_bytes(recvcounts, n, dt, known), (size_t)n);
    free(known);
    if (!ok) return known ? 0 : collmpi_pmpi_library(a, form);
    if (a->vpad) {
        int size = 0;
        PMPI_Type_size(dt, &size);
        if (size <= 0 || v->pad.pad / (size_t)size > INT_MAX) return collmpi_pmpi_library(a, form);
        a->sendcount = (int)(v->pad.pad / (size_t)size);   /* the largest block's count */
        v->pad.rcounts = recvcounts;
    }
    return 1;
}

collmpi_vpad *collmpi_vpad_copy(const collmpi_vpad *v, int n) {
    size_t arr = sizeof(int) * (size_t)n, bbs = sizeof(long long) * v->nbb;
    collmpi_vpad *c = malloc(sizeof *c + bbs + 2 * arr);
    if (!c) return NULL;
    *c = *v;
    long long *b = (long long *)(c + 1);
    int *s = (int *)(b + v->nbb), *r = s + n;
    if (v->bbytes) c->bbytes = memcpy(b, v->bbytes, bbs);
    if (v->scounts) c->scounts = memcpy(s, v->scounts, arr);
    if (v->rcounts) c->rcounts = memcpy(r, v->rcounts, arr);
    return c;
}
