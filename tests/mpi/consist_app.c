/* consist_app.c - a plain MPI program (it knows nothing about collc) made of
 * the calls where the ranks of a communicator see different things: a
 * datatype or MPI_IN_PLACE that only the root uses, communicators whose
 * members have different histories, communicators of one process,
 * intercommunicators, zero counts, every datatype and op the PMPI library
 * claims, and (on request) counts over 2^31 bytes. Run under
 * LD_PRELOAD=libcollmpi.so with a configuration that sends every collective
 * to collc (tests/mpi/consist_test.sh): every rank must take the same
 * decision, or a case hangs (the test's timeout fails it).
 *
 *   mpirun -n N consist_app [CASE ...]      CASE: rootonly inplace overlap
 *                                           self inter zero types huge
 * No CASE: all but huge. Results are checked against values computed here
 * or against the MPI library's own collective (PMPI_*), byte for byte.
 * Prints "consist_app: N=n: CASE: c checks, w wrong" per case; exit 1 when
 * something was wrong. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_test_util.h"

static int N, me;
static long checks, errors;
static const char *current;

static void expect(int ok, const char *what, long a, long b) {
    checks++;
    if (!ok) {
        errors++;
        if (errors < 20)
            fprintf(stderr, "rank %d: %s: wrong result: %s (%ld, %ld)\n", me, current, what, a, b);
    }
}

static int comm_size(MPI_Comm c) {
    int n;
    MPI_Comm_size(c, &n);
    return n;
}

static int comm_rank(MPI_Comm c) {
    int r;
    MPI_Comm_rank(c, &r);
    return r;
}

/* A block of `c` doubles at stride 2: one element of a vector type. */
static MPI_Datatype vector_of(int c) {
    MPI_Datatype v;
    MPI_Type_vector(c, 1, 2, MPI_DOUBLE, &v);
    MPI_Type_commit(&v);
    return v;
}

static double *dalloc(size_t n, double fillv) {
    double *p = n <= SIZE_MAX / sizeof(double) ? malloc(sizeof(double) * (n ? n : 1)) : NULL;
    if (!p) {
        fprintf(stderr, "consist_app: cannot allocate %zu doubles\n", n);
        exit(2);
    }
    for (size_t i = 0; i < n; i++) p[i] = fillv;
    return p;
}

/* Whether `b` holds the n ranks' blocks of c values val(j, i) in rank
 * order, element k at b[stride * k]; at stride 2 (a strided datatype) the
 * doubles between them must still be -1. */
static int gathered(const double *b, int n, int c, size_t stride) {
    int ok = 1;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < c; i++) {
            size_t k = (size_t)j * (size_t)c + (size_t)i;
            ok &= b[stride * k] == val(j, i) && (stride == 1 || b[stride * k + 1] == -1);
        }
    return ok;
}

/* ---- rootonly: datatypes that differ between the root and the others ---- */

static void rootonly_counts(MPI_Comm comm, int c, int root) {
    int n = comm_size(comm), r = comm_rank(comm), is_root = r == root;
    MPI_Datatype sv = strided();
    size_t nc = (size_t)n * (size_t)c;
    double *big = dalloc(2 * nc, -1), *blk = dalloc(2 * (size_t)c, -1);
    int ok;

    /* Scatter from a strided root buffer to plain doubles (the minimal case
     * of the issue): element k of the root's sequence is big[2k]. */
    for (size_t k = 0; k < 2 * nc; k++) big[k] = is_root ? val(root, (long)k) : -1;
    MPI_Scatter(big, c, sv, blk, c, MPI_DOUBLE, root, comm);
    ok = 1;
    for (int i = 0; i < c; i++) ok &= blk[i] == val(root, 2 * ((long)r * c + i));
    expect(ok, "MPI_Scatter strided root -> contiguous", c, root);

    /* Scatter from plain doubles to strided receivers (the root receives
     * plain doubles). */
    for (size_t k = 0; k < nc; k++) big[k] = is_root ? val(root, (long)k) : -1;
    for (int k = 0; k < 2 * c; k++) blk[k] = -1;
    if (is_root)
        MPI_Scatter(big, c, MPI_DOUBLE, blk, c, MPI_DOUBLE, root, comm);
    else
        MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, blk, c, sv, root, comm);
    ok = 1;
    for (int i = 0; i < c; i++) {
        double want = val(root, (long)r * c + i);
        ok &= is_root ? blk[i] == want : blk[2 * i] == want && blk[2 * i + 1] == -1;
    }
    expect(ok, "MPI_Scatter contiguous root -> strided", c, root);

    /* Gather into a strided root buffer; the others send plain doubles. */
    for (int i = 0; i < c; i++) blk[i] = val(r, i);
    for (size_t k = 0; k < 2 * nc; k++) big[k] = -1;
    MPI_Gather(blk, c, MPI_DOUBLE, big, c, sv, root, comm);
    if (is_root) expect(gathered(big, n, c, 2), "MPI_Gather contiguous -> strided root", c, root);

    /* Gather from strided senders into plain doubles at the root (which
     * sends plain doubles). */
    for (int i = 0; i < 2 * c; i++) blk[i] = i % 2 ? -7 : val(r, i / 2);
    if (is_root) {
        double *own = dalloc((size_t)c, 0);
        for (int i = 0; i < c; i++) own[i] = val(r, i);
        MPI_Gather(own, c, MPI_DOUBLE, big, c, MPI_DOUBLE, root, comm);
        free(own);
        expect(gathered(big, n, c, 1), "MPI_Gather strided -> contiguous root", c, root);
    } else {
        MPI_Gather(blk, c, sv, NULL, 0, MPI_DATATYPE_NULL, root, comm);
    }

    /* Bcast: strided at the root, plain elsewhere; then the other way. */
    for (int k = 0; k < 2 * c; k++) blk[k] = is_root ? val(root, k) : -1;
    MPI_Bcast(blk, c, is_root ? sv : MPI_DOUBLE, root, comm);
    ok = 1;
    for (int i = 0; i < c; i++) ok &= blk[is_root ? 2 * i : i] == val(root, 2 * i);
    expect(ok, "MPI_Bcast strided root", c, root);
    for (int k = 0; k < 2 * c; k++) blk[k] = is_root ? val(root, k) : -1;
    MPI_Bcast(blk, c, is_root ? MPI_DOUBLE : sv, root, comm);
    ok = 1;
    for (int i = 0; i < c; i++)
        ok &= is_root ? blk[i] == val(root, i) : blk[2 * i] == val(root, i) && blk[2 * i + 1] == -1;
    expect(ok, "MPI_Bcast strided receivers", c, root);

    /* Allgather and alltoall: odd ranks strided on both sides. */
    int odd = r % 2;
    MPI_Datatype t = odd ? sv : MPI_DOUBLE;
    size_t step = odd ? 2 : 1;
    double *out = dalloc(2 * nc, -1), *in = dalloc(2 * nc, -1);
    for (int i = 0; i < c; i++) in[step * (size_t)i] = val(r, i);
    MPI_Allgather(in, c, t, out, c, t, comm);
    ok = 1;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < c; i++)
            ok &= out[step * ((size_t)j * (size_t)c + (size_t)i)] == val(j, i);
    expect(ok, "MPI_Allgather mixed strided/contiguous", c, odd);
    for (size_t k = 0; k < nc; k++) in[step * k] = val(r, (long)k);
    for (size_t k = 0; k < 2 * nc; k++) out[k] = -1;
    MPI_Alltoall(in, c, t, out, c, t, comm);
    ok = 1;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < c; i++)
            ok &= out[step * ((size_t)j * (size_t)c + (size_t)i)] == val(j, (long)r * c + i);
    expect(ok, "MPI_Alltoall mixed strided/contiguous", c, odd);
    free(in);
    free(out);
    free(big);
    free(blk);
    MPI_Type_free(&sv);
}

/* Reductions with a strided type (the same on every rank, as MPI requires):
 * the gaps of recvbuf stay as they were. */
static void rootonly_reductions(MPI_Comm comm, int c, int root) {
    int n = comm_size(comm), r = comm_rank(comm);
    MPI_Datatype v = vector_of(c);
    double *s = dalloc(2 * (size_t)c * (size_t)n, 0), *o = dalloc(2 * (size_t)c * (size_t)n, -3);
    for (int i = 0; i < 2 * c * n; i++) s[i] = val(r, i);
    MPI_Allreduce(s, o, 1, v, MPI_SUM, comm);
    int ok = 1;
    for (int i = 0; i < 2 * c; i++) {
        double want = 0;
        for (int j = 0; j < n; j++) want += val(j, i);
        ok &= o[i] == (i % 2 ? -3 : want);
    }
    expect(ok, "MPI_Allreduce vector type", c, 0);
    for (int i = 0; i < 2 * c; i++) o[i] = -3;
    MPI_Reduce(s, o, 1, v, MPI_MAX, root, comm);
    if (r == root) {
        ok = 1;
        for (int i = 0; i < 2 * c; i++) {
            double want = -1e300;
            for (int j = 0; j < n; j++) want = val(j, i) > want ? val(j, i) : want;
            ok &= o[i] == (i % 2 ? -3 : want);
        }
        expect(ok, "MPI_Reduce vector type", c, root);
    }
    /* reduce_scatter_block: N vector elements in, one out */
    MPI_Datatype sv = strided();
    for (int i = 0; i < 2 * c; i++) o[i] = -3;
    MPI_Reduce_scatter_block(s, o, c, sv, MPI_SUM, comm);
    ok = 1;
    for (int i = 0; i < c; i++) {
        double want = 0;
        for (int j = 0; j < n; j++) want += val(j, 2 * ((long)r * c + i));
        ok &= o[2 * i] == want && o[2 * i + 1] == -3;
    }
    expect(ok, "MPI_Reduce_scatter_block strided type", c, 0);
    /* a struct of two ints with a hole: one element type, not contiguous */
    MPI_Datatype st;
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, 2 * sizeof(int)};
    MPI_Datatype ts[2] = {MPI_INT, MPI_INT};
    MPI_Type_create_struct(2, bl, disp, ts, &st);
    MPI_Type_commit(&st);
    int *is = malloc(sizeof(int) * 3 * (size_t)c), *io = malloc(sizeof(int) * 3 * (size_t)c);
    for (int i = 0; i < 3 * c; i++) is[i] = r * 3 + i, io[i] = -5;
    MPI_Allreduce(is, io, c, st, MPI_SUM, comm);
    ok = 1;
    for (int i = 0; i < c; i++) {
        /* element i: ints 3i and 3i+2 (resized? no: extent 3 ints, hole at 3i+1) */
        long w0 = 0, w2 = 0;
        for (int j = 0; j < n; j++) w0 += j * 3 + 3 * i, w2 += j * 3 + 3 * i + 2;
        ok &= io[3 * i] == w0 && io[3 * i + 2] == w2 && io[3 * i + 1] == -5;
    }
    expect(ok, "MPI_Allreduce struct type with a hole", c, 0);
    free(is);
    free(io);
    MPI_Type_free(&st);
    MPI_Type_free(&sv);
    MPI_Type_free(&v);
    free(s);
    free(o);
}

static void case_rootonly(MPI_Comm comm) {
    int n = comm_size(comm);
    int counts[] = {1, 7, 1000};
    for (int ci = 0; ci < 3; ci++)
        for (int root = 0; root < n; root += n > 1 ? n - 1 : 1) {
            rootonly_counts(comm, counts[ci], root);
            rootonly_reductions(comm, counts[ci], root);
        }
}

/* ---- inplace: MPI_IN_PLACE at the root only, and everywhere ---- */

static void case_inplace(MPI_Comm comm) {
    int n = comm_size(comm), r = comm_rank(comm);
    int c = 129;
    size_t nc = (size_t)n * (size_t)c;
    double *a = dalloc(2 * nc, 0), *b = dalloc(2 * nc, 0);
    MPI_Datatype sv = strided();
    int ok;
    for (int root = 0; root < n; root += n > 1 ? n - 1 : 1) {
        int is_root = r == root;
        /* reduce: in place at the root only */
        for (int i = 0; i < c; i++) a[i] = val(r, i), b[i] = val(r, i);
        MPI_Reduce(is_root ? MPI_IN_PLACE : a, b, c, MPI_DOUBLE, MPI_SUM, root, comm);
        if (is_root) {
            ok = 1;
            for (int i = 0; i < c; i++) {
                double want = 0;
                for (int j = 0; j < n; j++) want += val(j, i);
                ok &= b[i] == want;
            }
            expect(ok, "MPI_Reduce in place at the root", c, root);
        }
        /* gather: in place at the root (its block already in recvbuf) */
        for (size_t k = 0; k < nc; k++) b[k] = -1;
        for (int i = 0; i < c; i++) a[i] = val(r, i);
        if (is_root) memcpy(b + (size_t)root * (size_t)c, a, sizeof(double) * (size_t)c);
        MPI_Gather(is_root ? MPI_IN_PLACE : a, c, MPI_DOUBLE, b, c, MPI_DOUBLE, root, comm);
        if (is_root) expect(gathered(b, n, c, 1), "MPI_Gather in place at the root", c, root);
        /* the same into a strided root buffer: staged in place */
        for (size_t k = 0; k < 2 * nc; k++) b[k] = -1;
        if (is_root)
            for (int i = 0; i < c; i++) b[2 * ((size_t)root * (size_t)c + (size_t)i)] = val(r, i);
        MPI_Gather(is_root ? MPI_IN_PLACE : a, c, MPI_DOUBLE, b, c, is_root ? sv : MPI_DOUBLE, root,
                   comm);
        if (is_root) expect(gathered(b, n, c, 2), "MPI_Gather in place into a strided root buffer", c, root);
        /* scatter: recvbuf in place at the root */
        for (size_t k = 0; k < nc; k++) a[k] = is_root ? val(root, (long)k) : -1;
        for (int i = 0; i < c; i++) b[i] = -1;
        MPI_Scatter(a, c, MPI_DOUBLE, is_root ? MPI_IN_PLACE : b, c, MPI_DOUBLE, root, comm);
        ok = 1;
        for (int i = 0; i < c; i++)
            ok &= is_root ? a[(size_t)root * (size_t)c + (size_t)i] == val(root, (long)root * c + i)
                          : b[i] == val(root, (long)r * c + i);
        expect(ok, "MPI_Scatter in place at the root", c, root);
    }
    /* everywhere in place */
    for (int i = 0; i < c; i++) b[i] = val(r, i);
    MPI_Allreduce(MPI_IN_PLACE, b, c, MPI_DOUBLE, MPI_SUM, comm);
    ok = 1;
    for (int i = 0; i < c; i++) {
        double want = 0;
        for (int j = 0; j < n; j++) want += val(j, i);
        ok &= b[i] == want;
    }
    expect(ok, "MPI_Allreduce in place", c, 0);
    for (size_t k = 0; k < nc; k++) b[k] = (size_t)r == k / (size_t)c ? val(r, (long)(k % (size_t)c)) : -1;
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, c, MPI_DOUBLE, comm);
    ok = 1;
    for (size_t k = 0; k < nc; k++) ok &= b[k] == val((int)(k / (size_t)c), (long)(k % (size_t)c));
    expect(ok, "MPI_Allgather in place", c, 0);
    for (size_t k = 0; k < nc; k++) b[k] = val(r, (long)k);
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, c, MPI_DOUBLE, comm);
    ok = 1;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < c; i++) ok &= b[(size_t)j * (size_t)c + (size_t)i] == val(j, (long)r * c + i);
    expect(ok, "MPI_Alltoall in place", c, 0);
    for (size_t k = 0; k < nc; k++) b[k] = val(r, (long)k);
    MPI_Reduce_scatter_block(MPI_IN_PLACE, b, c, MPI_DOUBLE, MPI_SUM, comm);
    ok = 1;
    for (int i = 0; i < c; i++) {
        double want = 0;
        for (int j = 0; j < n; j++) want += val(j, (long)r * c + i);
        ok &= b[i] == want;
    }
    expect(ok, "MPI_Reduce_scatter_block in place", c, 0);
    /* allreduce in place on a strided type */
    MPI_Datatype v = vector_of(c);
    for (int i = 0; i < 2 * c; i++) b[i] = i % 2 ? -9 : val(r, i);
    MPI_Allreduce(MPI_IN_PLACE, b, 1, v, MPI_MIN, comm);
    ok = 1;
    for (int i = 0; i < 2 * c; i++) {
        double want = 1e300;
        for (int j = 0; j < n; j++) want = val(j, i) < want ? val(j, i) : want;
        ok &= b[i] == (i % 2 ? -9 : want);
    }
    expect(ok, "MPI_Allreduce in place, vector type", c, 0);
    MPI_Type_free(&v);
    MPI_Type_free(&sv);
    free(a);
    free(b);
}

/* ---- overlap: communicators with members of different histories ---- */

static void allreduce_check(MPI_Comm comm, int c, const char *what) {
    int n = comm_size(comm), r = comm_rank(comm);
    int *s = malloc(sizeof(int) * (size_t)c), *o = malloc(sizeof(int) * (size_t)c);
    int wr = me;
    int *ranks = malloc(sizeof(int) * (size_t)n);
    MPI_Allgather(&wr, 1, MPI_INT, ranks, 1, MPI_INT, comm);
    for (int i = 0; i < c; i++) s[i] = wr * 1000 + i;
    MPI_Allreduce(s, o, c, MPI_INT, MPI_SUM, comm);
    int ok = 1;
    for (int i = 0; i < c; i++) {
        int want = 0;
        for (int j = 0; j < n; j++) want += ranks[j] * 1000 + i;
        ok &= o[i] == want;
    }
    expect(ok, what, c, n);
    /* rooted, with the last member as root */
    int root = n - 1, b = r == root ? 4242 : 0;
    MPI_Bcast(&b, 1, MPI_INT, root, comm);
    expect(b == 4242, "MPI_Bcast after it", n, root);
    MPI_Reduce(s, o, c, MPI_INT, MPI_SUM, root, comm);
    if (r == root) {
        ok = 1;
        for (int i = 0; i < c; i++) {
            int want = 0;
            for (int j = 0; j < n; j++) want += ranks[j] * 1000 + i;
            ok &= o[i] == want;
        }
        expect(ok, "MPI_Reduce after it", c, root);
    }
    free(ranks);
    free(s);
    free(o);
}

static void case_overlap(void) {
    /* A = world ranks 0 .. N-2, B = 1 .. N-1 ({0,1,2} and {1,2,3} of 4): rank 0
     * and rank N-1 each see only one of them, the others both. */
    MPI_Comm a, b;
    MPI_Comm_split(MPI_COMM_WORLD, me <= N - 2 ? 0 : MPI_UNDEFINED, me, &a);
    MPI_Comm_split(MPI_COMM_WORLD, me >= 1 ? 0 : MPI_UNDEFINED, me, &b);
    for (int round = 0; round < 2; round++) {
        if (a != MPI_COMM_NULL) allreduce_check(a, 1, "MPI_Allreduce on {0 .. N-2}");
        if (b != MPI_COMM_NULL) allreduce_check(b, 1, "MPI_Allreduce on {1 .. N-1}");
        allreduce_check(MPI_COMM_WORLD, 3, "MPI_Allreduce on the world between them");
        if (b != MPI_COMM_NULL) allreduce_check(b, 100, "MPI_Allreduce on {1 .. N-1}, 100");
        if (a != MPI_COMM_NULL) allreduce_check(a, 100, "MPI_Allreduce on {0 .. N-2}, 100");
    }
    if (a != MPI_COMM_NULL) MPI_Comm_free(&a);
    if (b != MPI_COMM_NULL) MPI_Comm_free(&b);
    /* Halves and every second rank. */
    MPI_Comm h, e;
    MPI_Comm_split(MPI_COMM_WORLD, me < N / 2, me, &h);
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &e);
    allreduce_check(e, 5, "MPI_Allreduce on even/odd ranks");
    allreduce_check(h, 5, "MPI_Allreduce on the halves");
    allreduce_check(e, 5, "MPI_Allreduce on even/odd ranks again");
    MPI_Comm_free(&h);
    MPI_Comm_free(&e);
    /* Communicators freed and made again, the same call on each: MPI
     * reuses the handles, and what collc remembers of a handle (its
     * coll_comm, the decision of the call) must not outlive it. */
    for (int round = 0; round < 8; round++) {
        MPI_Comm x;
        MPI_Comm_split(MPI_COMM_WORLD, round % 2 ? me % 2 : me < N / 2, me, &x);
        allreduce_check(x, 5, "MPI_Allreduce on a communicator made again");
        allreduce_check(x, 5, "MPI_Allreduce on a communicator made again, twice");
        MPI_Comm_free(&x);
    }
}

/* ---- self: communicators of one process ---- */

static void one_process(MPI_Comm comm, const char *what) {
    int c = 5, ok;
    double s[10], o[10];
    MPI_Datatype sv = strided();
    for (int i = 0; i < 10; i++) s[i] = val(me, i), o[i] = -1;
    MPI_Allreduce(s, o, c, MPI_DOUBLE, MPI_SUM, comm);
    ok = memcmp(s, o, sizeof(double) * (size_t)c) == 0;
    MPI_Allreduce(MPI_IN_PLACE, o, c, MPI_DOUBLE, MPI_MAX, comm);
    ok &= memcmp(s, o, sizeof(double) * (size_t)c) == 0;
    for (int i = 0; i < 10; i++) o[i] = -1;
    MPI_Reduce(s, o, c, MPI_DOUBLE, MPI_SUM, 0, comm);
    ok &= memcmp(s, o, sizeof(double) * (size_t)c) == 0;
    for (int i = 0; i < 10; i++) o[i] = -1;
    MPI_Allgather(s, c, MPI_DOUBLE, o, c, MPI_DOUBLE, comm);
    ok &= memcmp(s, o, sizeof(double) * (size_t)c) == 0;
    for (int i = 0; i < 10; i++) o[i] = -1;
    MPI_Alltoall(s, c, MPI_DOUBLE, o, c, MPI_DOUBLE, comm);
    ok &= memcmp(s, o, sizeof(double) * (size_t)c) == 0;
    for (int i = 0; i < 10; i++) o[i] = -1;
    MPI_Gather(s, c, MPI_DOUBLE, o, c, MPI_DOUBLE, 0, comm);
    ok &= memcmp(s, o, sizeof(double) * (size_t)c) == 0;
    for (int i = 0; i < 10; i++) o[i] = -1;
    MPI_Scatter(s, c, MPI_DOUBLE, o, c, MPI_DOUBLE, 0, comm);
    ok &= memcmp(s, o, sizeof(double) * (size_t)c) == 0;
    for (int i = 0; i < 10; i++) o[i] = -1;
    MPI_Reduce_scatter_block(s, o, c, MPI_DOUBLE, MPI_SUM, comm);
    ok &= memcmp(s, o, sizeof(double) * (size_t)c) == 0;
    memcpy(o, s, sizeof s);
    MPI_Bcast(o, c, MPI_DOUBLE, 0, comm);
    ok &= memcmp(s, o, sizeof s) == 0;
    /* strided on one side */
    for (int i = 0; i < 10; i++) o[i] = -1;
    MPI_Allgather(s, c, sv, o, c, MPI_DOUBLE, comm);
    for (int i = 0; i < c; i++) ok &= o[i] == s[2 * i];
    expect(ok, what, c, 0);
    MPI_Type_free(&sv);
}

static void case_self(void) {
    one_process(MPI_COMM_SELF, "collectives on MPI_COMM_SELF");
    MPI_Comm d, single;
    MPI_Comm_dup(MPI_COMM_SELF, &d);
    one_process(d, "collectives on a duplicate of MPI_COMM_SELF");
    MPI_Comm_free(&d);
    MPI_Comm_split(MPI_COMM_WORLD, me, 0, &single);
    one_process(single, "collectives on a split of one process");
    one_process(MPI_COMM_SELF, "collectives on MPI_COMM_SELF again");
    MPI_Comm_free(&single);
    /* and the world still works afterwards */
    allreduce_check(MPI_COMM_WORLD, 7, "MPI_Allreduce on the world after them");
}

/* ---- inter: intercommunicators (the MPI library serves them) ---- */

static void case_inter(void) {
    if (N < 2) return;
    MPI_Comm local, inter;
    int color = me % 2;
    MPI_Comm_split(MPI_COMM_WORLD, color, me, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color ? 0 : 1, 77, &inter);
    int rsize;
    MPI_Comm_remote_size(inter, &rsize);
    int lr = comm_rank(local);
    /* allreduce: each group gets the sum over the other group */
    int x = me + 1, y = -1;
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, inter);
    int want = 0;
    for (int j = 0; j < N; j++)
        if (j % 2 != color) want += j + 1;
    expect(y == want, "MPI_Allreduce on an intercommunicator", y, want);
    /* bcast from the leader of the even group */
    int b = color == 0 && lr == 0 ? 99 : -1;
    int root = color == 0 ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Bcast(&b, 1, MPI_INT, root, inter);
    expect(color == 0 ? (lr == 0 ? b == 99 : b == -1) : b == 99, "MPI_Bcast on an intercommunicator",
           b, color);
    /* allgather: the other group's values */
    int *all = malloc(sizeof(int) * (size_t)rsize);
    MPI_Allgather(&x, 1, MPI_INT, all, 1, MPI_INT, inter);
    int ok = 1;
    for (int j = 0; j < rsize; j++) ok &= all[j] == 2 * j + (color ? 0 : 1) + 1;
    expect(ok, "MPI_Allgather on an intercommunicator", rsize, color);
    free(all);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
}

/* ---- zero: count 0 everywhere ---- */

static void case_zero(MPI_Comm comm) {
    int n = comm_size(comm);
    double a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
    MPI_Datatype sv = strided();
    for (int root = 0; root < n; root += n > 1 ? n - 1 : 1) {
        for (int t = 0; t < 2; t++) {
            MPI_Datatype dt = t ? sv : MPI_DOUBLE;
            MPI_Allreduce(a, b, 0, MPI_DOUBLE, MPI_SUM, comm);
            MPI_Allreduce(NULL, NULL, 0, MPI_DOUBLE, MPI_SUM, comm);
            MPI_Allreduce(MPI_IN_PLACE, b, 0, MPI_INT, MPI_MAX, comm);
            MPI_Reduce(a, b, 0, MPI_DOUBLE, MPI_SUM, root, comm);
            MPI_Reduce_scatter_block(a, b, 0, MPI_DOUBLE, MPI_SUM, comm);
            MPI_Bcast(b, 0, dt, root, comm);
            MPI_Bcast(NULL, 0, dt, root, comm);
            MPI_Allgather(a, 0, dt, b, 0, dt, comm);
            MPI_Alltoall(a, 0, dt, b, 0, dt, comm);
            MPI_Gather(a, 0, dt, b, 0, dt, root, comm);
            MPI_Scatter(a, 0, dt, b, 0, dt, root, comm);
            MPI_Gather(NULL, 0, dt, NULL, 0, dt, root, comm);
        }
    }
    expect(b[0] == 5 && b[1] == 6 && b[2] == 7 && b[3] == 8 && a[0] == 1, "count 0 writes nothing",
           (long)b[0], 0);
    /* and a real call afterwards still matches */
    allreduce_check(comm, 11, "MPI_Allreduce after count-0 calls");
    MPI_Type_free(&sv);
}

/* ---- types: every datatype and op the library claims ---- */

/* On pairs of ints (a contiguous derived type): (a, b) + (c, d) = (a+c, b^d). */
static void pairop(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    int *x = in, *y = inout;
    for (int i = 0; i < *len; i++) {
        y[2 * i] += x[2 * i];
        y[2 * i + 1] ^= x[2 * i + 1];
    }
}

/* Fills n elements of `dt` (laid out by its extent) with small values of
 * its kind: 'f' float (two for a complex), 'd' double, 'i' signed and 'u'
 * unsigned integer, 'b' logical 0/1, 'p' value-index pair; `small` keeps
 * products exact. */
static void fill(void *p, MPI_Datatype dt, char kind, int n, int r, int small) {
    int size;
    MPI_Aint lb, extent;
    MPI_Type_size(dt, &size);
    MPI_Type_get_extent(dt, &lb, &extent);
    unsigned char *b = p;
    memset(b, 0, (size_t)extent * (size_t)n);
    for (int i = 0; i < n; i++) {
        int v = small ? 1 + (r + i) % 2 : (r * 5 + i * 3) % 11 - 5;
        if (kind == 'u' && !small) v = (r * 5 + i * 3) % 11;
        if (kind == 'b') v = v > 0;
        unsigned char *e = b + (size_t)i * (size_t)extent;
        if (kind == 'f') {
            float f = (float)v;
            memcpy(e, &f, 4);
            if (size == 8) memcpy(e + 4, &f, 4); /* complex: both parts */
        } else if (kind == 'd') {
            double d = v;
            memcpy(e, &d, 8);
        } else if (kind == 'p') {
            /* value, then the int index at size - 4 (MPI_2INT, MPI_FLOAT_INT,
             * MPI_DOUBLE_INT, MPI_LONG_INT) */
            if (dt == MPI_FLOAT_INT) {
                float f = (float)v;
                memcpy(e, &f, 4);
            } else if (dt == MPI_DOUBLE_INT) {
                double d = v;
                memcpy(e, &d, 8);
            } else if (dt == MPI_LONG_INT) {
                long l = v;
                memcpy(e, &l, sizeof l);
            } else {
                memcpy(e, &v, 4);
            }
            memcpy(e + size - 4, &r, 4);
        } else {
            long long x = v;
            memcpy(e, &x, (size_t)size < sizeof x ? (size_t)size : sizeof x);
        }
    }
}

typedef struct tcase {
    MPI_Datatype dt;
    const char *name;
    char kind;
} tcase;

/* t with op through the library (MPI_*) against the MPI library's own
 * collective (PMPI_*) on `ref` elements of refdt per element of t. */
static void one_type_ref(MPI_Comm comm, tcase t, MPI_Op op, const char *opname, int small,
                         MPI_Datatype refdt, int ref) {
    int n = comm_size(comm), r = comm_rank(comm);
    int c = 5;
    MPI_Aint lb, size;
    MPI_Type_get_extent(t.dt, &lb, &size);
    size_t bytes = (size_t)size * (size_t)c * (size_t)n;
    unsigned char *s = malloc(bytes), *o1 = calloc(1, bytes), *o2 = calloc(1, bytes);
    fill(s, t.dt, t.kind, c * n, r, small);
    char what[160];
    MPI_Allreduce(s, o1, c, t.dt, op, comm);
    PMPI_Allreduce(s, o2, c * ref, refdt, op, comm);
    snprintf(what, sizeof what, "MPI_Allreduce %s %s", t.name, opname);
    expect(memcmp(o1, o2, (size_t)size * (size_t)c) == 0, what, c, size);
    memset(o1, 0, bytes);
    memset(o2, 0, bytes);
    MPI_Reduce(s, o1, c, t.dt, op, n - 1, comm);
    PMPI_Reduce(s, o2, c * ref, refdt, op, n - 1, comm);
    snprintf(what, sizeof what, "MPI_Reduce %s %s", t.name, opname);
    expect(memcmp(o1, o2, (size_t)size * (size_t)c) == 0, what, c, size);
    memset(o1, 0, bytes);
    memset(o2, 0, bytes);
    MPI_Reduce_scatter_block(s, o1, 2, t.dt, op, comm);
    PMPI_Reduce_scatter_block(s, o2, 2 * ref, refdt, op, comm);
    snprintf(what, sizeof what, "MPI_Reduce_scatter_block %s %s", t.name, opname);
    expect(memcmp(o1, o2, (size_t)size * 2) == 0, what, 2, size);
    free(s);
    free(o1);
    free(o2);
}

static void one_type(MPI_Comm comm, tcase t, MPI_Op op, const char *opname, int small) {
    one_type_ref(comm, t, op, opname, small, t.dt, 1);
}

static void case_types(MPI_Comm comm) {
    /* Above 4 processes (oversubscribed on small machines) a cross-section:
     * every type with MPI_SUM and MPI_MAX, every op with MPI_INT. */
    int all = comm_size(comm) <= 4;
    /* the kernels' types: SUM PROD MAX MIN, and BAND BOR BXOR on integers */
    tcase kern[] = {
        {MPI_FLOAT, "MPI_FLOAT", 'f'},       {MPI_DOUBLE, "MPI_DOUBLE", 'd'},
        {MPI_INT, "MPI_INT", 'i'},           {MPI_UNSIGNED, "MPI_UNSIGNED", 'u'},
        {MPI_LONG, "MPI_LONG", 'i'},         {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", 'u'},
        {MPI_LONG_LONG, "MPI_LONG_LONG", 'i'}, {MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", 'u'},
        {MPI_INT8_T, "MPI_INT8_T", 'i'},     {MPI_UINT8_T, "MPI_UINT8_T", 'u'},
        {MPI_INT32_T, "MPI_INT32_T", 'i'},   {MPI_UINT32_T, "MPI_UINT32_T", 'u'},
        {MPI_INT64_T, "MPI_INT64_T", 'i'},   {MPI_UINT64_T, "MPI_UINT64_T", 'u'},
        {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", 'i'}, {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", 'u'},
    };
    MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_BAND, MPI_BOR, MPI_BXOR};
    const char *opn[] = {"MPI_SUM", "MPI_PROD", "MPI_MAX", "MPI_MIN", "MPI_BAND", "MPI_BOR", "MPI_BXOR"};
    for (size_t t = 0; t < sizeof kern / sizeof *kern; t++)
        for (int o = 0; o < 7; o++) {
            if (o >= 4 && (kern[t].kind == 'f' || kern[t].kind == 'd')) continue;
            if (!all && o != 0 && o != 2 && kern[t].dt != MPI_INT) continue;
            one_type(comm, kern[t], ops[o], opn[o], o == 1);
        }
    tcase bytes = {MPI_BYTE, "MPI_BYTE", 'u'};
    for (int o = 4; o < 7; o++) one_type(comm, bytes, ops[o], opn[o], 0);
    /* through MPI_Reduce_local: other predefined ops and types of 1, 2, 4, 8 bytes */
    tcase other[] = {
        {MPI_SHORT, "MPI_SHORT", 'i'}, {MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", 'u'},
        {MPI_INT16_T, "MPI_INT16_T", 'i'}, {MPI_UINT16_T, "MPI_UINT16_T", 'u'},
    };
    for (size_t t = 0; t < sizeof other / sizeof *other; t++)
        for (int o = 0; o < 7; o++)
            if (all || o == 0 || o == 2 || t == 0) one_type(comm, other[t], ops[o], opn[o], o == 1);
    tcase logic[] = {{MPI_INT, "MPI_INT", 'b'}, {MPI_C_BOOL, "MPI_C_BOOL", 'b'},
                     {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", 'b'}};
    MPI_Op lops[] = {MPI_LAND, MPI_LOR, MPI_LXOR};
    const char *lopn[] = {"MPI_LAND", "MPI_LOR", "MPI_LXOR"};
    for (int t = 0; t < 3; t++)
        for (int o = 0; o < 3; o++)
            if (all || t == 0 || o == 0) one_type(comm, logic[t], lops[o], lopn[o], 0);
    tcase pairs[] = {{MPI_2INT, "MPI_2INT", 'p'}, {MPI_FLOAT_INT, "MPI_FLOAT_INT", 'p'}};
    for (int t = 0; t < 2; t++) {
        one_type(comm, pairs[t], MPI_MAXLOC, "MPI_MAXLOC", 0);
        one_type(comm, pairs[t], MPI_MINLOC, "MPI_MINLOC", 0);
    }
    tcase cf = {MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX", 'f'};
    one_type(comm, cf, MPI_SUM, "MPI_SUM", 0);
    /* what the library leaves to the MPI library: it must still be right */
    tcase fallback[] = {{MPI_DOUBLE_INT, "MPI_DOUBLE_INT", 'p'}, {MPI_LONG_INT, "MPI_LONG_INT", 'p'}};
    for (int t = 0; t < 2; t++) one_type(comm, fallback[t], MPI_MAXLOC, "MPI_MAXLOC", 0);
    tcase ld = {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", 'i'};
    (void)ld; /* its padding bytes make a byte-wise comparison meaningless */
    /* user ops: commutative on int, on a contiguous pair type; non-commutative */
    MPI_Op us, up, un;
    MPI_Op_create(isum, 1, &us);
    MPI_Op_create(pairop, 1, &up);
    MPI_Op_create(first_wins, 0, &un);
    tcase ti = {MPI_INT, "MPI_INT", 'i'};
    one_type(comm, ti, us, "user sum", 0);
    one_type(comm, ti, un, "user non-commutative", 0);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    tcase tp = {pair, "contiguous 2 x MPI_INT", 'i'};
    one_type(comm, tp, up, "user pair op", 0);
    /* a predefined op on a type made of one named type: element by element
     * (MPICH accepts it, Open MPI 4.1 refuses it: the reference is MPI_INT) */
    one_type_ref(comm, tp, MPI_SUM, "MPI_SUM", 0, MPI_INT, 2);
    MPI_Type_free(&pair);
    MPI_Op_free(&us);
    MPI_Op_free(&up);
    MPI_Op_free(&un);
}

/* ---- huge: counts over 2^31 bytes ---- */

/* Buffers of many 4 MiB pieces, each piece a copy of `piece` (cheap to fill
 * and to check with memcpy/memcmp). */
enum { PIECE = 4 << 20 };

static void fill_pieces(void *buf, size_t bytes, const void *piece) {
    for (size_t off = 0; off < bytes; off += PIECE)
        memcpy((char *)buf + off, piece, bytes - off < PIECE ? bytes - off : PIECE);
}

static int check_pieces(const void *buf, size_t bytes, const void *piece) {
    for (size_t off = 0; off < bytes; off += PIECE)
        if (memcmp((const char *)buf + off, piece, bytes - off < PIECE ? bytes - off : PIECE)) return 0;
    return 1;
}

static void case_huge(void) {
    /* 2.2 GiB per buffer (550 Mi floats: 550 pieces), reused by each call. */
    size_t n = (size_t)550 << 20, bytes = n * sizeof(float);
    float *buf = malloc(bytes), *piece = malloc(PIECE), *other = malloc(PIECE);
    char *mine = malloc(bytes / 2 + PIECE);
    if (!buf || !piece || !other || !mine) {
        expect(0, "malloc of 3.3 GiB", 0, 0);
        free(buf), free(piece), free(other), free(mine);
        return;
    }
    size_t per = PIECE / sizeof(float);
    int root = N - 1;
    for (size_t i = 0; i < per; i++) piece[i] = (float)(i % 1000), other[i] = -1.0f;
    fill_pieces(buf, bytes, me == root ? piece : other);
    double t0 = MPI_Wtime();
    MPI_Bcast(buf, (int)n, MPI_FLOAT, root, MPI_COMM_WORLD);
    if (me == 0) printf("consist_app: huge: MPI_Bcast %.1f s\n", MPI_Wtime() - t0);
    expect(check_pieces(buf, bytes, piece), "MPI_Bcast of 2.2 GiB", (long)(bytes >> 20), root);
    for (size_t i = 0; i < per; i++) piece[i] = (float)(me + 1), other[i] = (float)N * (float)(N + 1) / 2;
    fill_pieces(buf, bytes, piece);
    t0 = MPI_Wtime();
    MPI_Allreduce(MPI_IN_PLACE, buf, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) printf("consist_app: huge: MPI_Allreduce %.1f s\n", MPI_Wtime() - t0);
    expect(check_pieces(buf, bytes, other), "MPI_Allreduce in place of 2.2 GiB", (long)(bytes >> 20), 0);
    /* allgather of blocks of 1 MiB elements (a contiguous type), 2.2 GiB in
     * all at N = 2 */
    MPI_Datatype mib;
    MPI_Type_contiguous(1 << 20, MPI_BYTE, &mib);
    MPI_Type_commit(&mib);
    size_t blocks = (bytes >> 20) / (size_t)N;
    char (*pieces)[PIECE] = malloc(2 * (size_t)PIECE);
    int ok = pieces != NULL;
    if (ok) {
        for (size_t i = 0; i < PIECE; i++) pieces[0][i] = (char)(me * 31 + (int)(i % 97));
        fill_pieces(mine, blocks << 20, pieces[0]);
        t0 = MPI_Wtime();
        MPI_Allgather(mine, (int)blocks, mib, buf, (int)blocks, mib, MPI_COMM_WORLD);
        if (me == 0) printf("consist_app: huge: MPI_Allgather %.1f s\n", MPI_Wtime() - t0);
        for (int j = 0; j < N && ok; j++) {
            for (size_t i = 0; i < PIECE; i++) pieces[1][i] = (char)(j * 31 + (int)(i % 97));
            ok = check_pieces((char *)buf + ((size_t)j * blocks << 20), blocks << 20, pieces[1]);
        }
    }
    expect(ok, "MPI_Allgather of 1 MiB elements over 2^31 bytes", (long)blocks, N);
    free(pieces);
    MPI_Type_free(&mib);
    free(buf), free(piece), free(other), free(mine);
}

/* ---- main ---- */

typedef struct named_case {
    const char *name;
    void (*run)(void);
    int in_all;
} named_case;

static void run_rootonly(void) {
    case_rootonly(MPI_COMM_WORLD);
    MPI_Comm d;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    case_rootonly(d);
    MPI_Comm_free(&d);
}
static void run_inplace(void) { case_inplace(MPI_COMM_WORLD); }
static void run_zero(void) { case_zero(MPI_COMM_WORLD); }
static void run_types(void) { case_types(MPI_COMM_WORLD); }

static const named_case cases[] = {
    {"rootonly", run_rootonly, 1}, {"inplace", run_inplace, 1}, {"overlap", case_overlap, 1},
    {"self", case_self, 1},        {"inter", case_inter, 1},    {"zero", run_zero, 1},
    {"types", run_types, 1},       {"huge", case_huge, 0},
};

static int run_case(const named_case *c) {
    current = c->name;
    long before_c = checks, before_e = errors;
    c->run();
    long tot[2] = {checks - before_c, errors - before_e}, sum[2];
    /* the library's own reduction: the report must not depend on what is tested */
    PMPI_Reduce(tot, sum, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0) printf("consist_app: N=%d: %s: %ld checks, %ld wrong\n", N, c->name, sum[0], sum[1]);
    fflush(stdout);
    return me == 0 ? sum[1] != 0 : 0;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &N);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int bad = 0, ncases = (int)(sizeof cases / sizeof *cases);
    if (argc < 2) {
        for (int i = 0; i < ncases; i++)
            if (cases[i].in_all) bad |= run_case(&cases[i]);
    }
    for (int a = 1; a < argc; a++) {
        int found = 0;
        for (int i = 0; i < ncases; i++)
            if (strcmp(argv[a], cases[i].name) == 0) {
                bad |= run_case(&cases[i]);
                found = 1;
            }
        if (!found) {
            if (me == 0) fprintf(stderr, "consist_app: unknown case '%s'\n", argv[a]);
            bad = 1;
        }
    }
    int any = 0;
    PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any ? 1 : 0;
}
