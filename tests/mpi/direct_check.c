/* direct_check.c - the compiled MPI functions called directly (no PMPI
 * library): a call one rank refuses is refused by every rank, before any
 * message, with the reason in MPI_Error_string of the returned code; what
 * only the root knows (a strided datatype, MPI_IN_PLACE) runs the same
 * algorithm on every rank; communicators of one process, intercommunicators
 * and zero counts; a refused try through the transport ABI on some ranks
 * only leaves the communicator's tags alone.
 *
 *   mpirun -n N direct_check        (any N; some cases need N >= 2 or 3)
 *   mpirun -n 3 direct_check --fatal
 * Every communicator uses MPI_ERRORS_RETURN, but with --fatal, where a
 * refused call on MPI_COMM_WORLD (MPI_ERRORS_ARE_FATAL) aborts the job and
 * tests/mpi/fatal_test.sh checks that the message gives collc's reason. Exit 0 when every check
 * passed on every rank. tests/mpi/direct_test.sh also checks what
 * COLLMPI_DEBUG=1 prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <collmpi.h>

#include "mpi_test_util.h"

COLLMPI_DECLARE_ALLREDUCE(recursive_doubling_allreduce);
COLLMPI_DECLARE_ALLREDUCE(ring_allreduce);
COLLMPI_DECLARE_BROADCAST(binomial_broadcast);
COLLMPI_DECLARE_REDUCE(binomial_reduce);
COLLMPI_DECLARE_REDUCE(rabenseifner_reduce);
COLLMPI_DECLARE_GATHER(binomial_gather);
COLLMPI_DECLARE_SCATTER(binomial_scatter);
COLLMPI_DECLARE_ALLGATHER(ring_allgather);
COLLMPI_DECLARE_ALLTOALL(pairwise_alltoall);
COLLMPI_DECLARE_REDUCE_SCATTER(ring_reduce_scatter);
/* The same algorithms through coll.h's transport ABI (collc_NAME). */
int collc_recursive_doubling_allreduce(coll_comm *comm, const void *sendbuf, void *recvbuf,
                                       size_t count, coll_dtype dtype, coll_op op);
int collc_ring_allreduce(coll_comm *comm, const void *sendbuf, void *recvbuf, size_t count,
                         coll_dtype dtype, coll_op op);

static int N, me, checks, errors;

static void expect(int ok, const char *what) {
    checks++;
    if (!ok) {
        errors++;
        fprintf(stderr, "rank %d: FAIL: %s\n", me, what);
    }
}

/* The code's class is `cls` and collmpi_last_error() contains `text`; so
 * does MPI_Error_string of the code where MPI keeps strings of added codes
 * of predefined classes (Open MPI does, MPICH 4.0 does not). */
static void expect_error(int rc, int cls, const char *text, const char *what) {
    char s[MPI_MAX_ERROR_STRING + 1] = "";
    int len = 0;
    if (rc != MPI_SUCCESS) MPI_Error_string(rc, s, &len);
    int ok = err_class(rc) == cls && strstr(collmpi_last_error(), text) != NULL;
#ifdef OMPI_MAJOR_VERSION
    ok &= strstr(s, text) != NULL;
#endif
    if (!ok)
        fprintf(stderr, "rank %d: %s: got class %d, \"%s\", last error \"%s\"\n", me, what,
                err_class(rc), s, collmpi_last_error());
    expect(ok, what);
}

static MPI_Comm split(MPI_Comm from, int color, int key) {
    MPI_Comm c;
    MPI_Comm_split(from, color, key, &c);
    if (c != MPI_COMM_NULL) MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    return c;
}

/* An algorithm whose `require` excludes N: every rank gets the same error
 * with the reason, nothing is sent, and the communicator works afterwards
 * (a refused call leaves the step counter where it was). */
static void refusals(void) {
    if (N < 3) return;
    MPI_Comm three = split(MPI_COMM_WORLD, me < 3 ? 0 : MPI_UNDEFINED, me);
    if (three == MPI_COMM_NULL) return;
    int x[4] = {me, me, me, me}, y[4];
    for (int round = 0; round < 3; round++) {
        int rc = recursive_doubling_allreduce(x, y, 4, MPI_INT, MPI_SUM, three);
        expect_error(rc, MPI_ERR_UNSUPPORTED_OPERATION,
                     "recursive_doubling_allreduce: does not apply for N = 3",
                     "a power-of-two algorithm at N = 3 is refused with its reason");
        expect(collmpi_last_status() == COLL_ERR_NOT_APPLICABLE, "collmpi_last_status after it");
        rc = ring_allreduce(x, y, 4, MPI_INT, MPI_SUM, three);
        expect(rc == MPI_SUCCESS && y[0] == 3 && y[3] == 3, "ring_allreduce on the same communicator");
    }
    /* rooted: the reason names the root */
    double d[3] = {1, 2, 3}, e[3];
    int rc = rabenseifner_reduce(d, e, 3, MPI_DOUBLE, MPI_SUM, 2, three);
    expect_error(rc, MPI_ERR_UNSUPPORTED_OPERATION, "does not apply for N = 3, root 2",
                 "a rooted refusal names N and the root");
    /* refusals of the datatype or op: the same on every rank */
    MPI_Op noncommute;
    MPI_Op_create(first_wins, 0, &noncommute);
    rc = ring_allreduce(x, y, 4, MPI_INT, noncommute, three);
    expect_error(rc, MPI_ERR_OP, "ring_allreduce: non-commutative op",
                 "a non-commutative op is refused with its reason");
    MPI_Op_free(&noncommute);
    rc = ring_allreduce(x, y, 1, MPI_DOUBLE_INT, MPI_MAXLOC, three);
    expect_error(rc, MPI_ERR_TYPE, "datatype not supported for reductions",
                 "MPI_DOUBLE_INT (12 bytes) is refused with its reason");
    rc = ring_allreduce(x, y, 4, MPI_INT, MPI_SUM, three);
    expect(rc == MPI_SUCCESS && y[0] == 3, "ring_allreduce after the refusals");
    MPI_Comm_free(&three);
}

/* A compiled program whose `require` fails leaves no trace on the
 * communicator: on {0, 1, 2}, ranks 1 and 2 try power-of-two recursive
 * doubling through the transport ABI (refused: N = 3), rank 0 does not, and
 * then all three run ring AllReduce. Had the refused try advanced the step
 * counter (the tags) on ranks 1 and 2 only, the ring's messages would not
 * match and this would hang. */
static void refused_try_leaves_no_trace(void) {
    if (N < 3) return;
    MPI_Comm three = split(MPI_COMM_WORLD, me < 3 ? 0 : MPI_UNDEFINED, me);
    if (three == MPI_COMM_NULL) return;
    coll_comm *cc;
    int rc = coll_comm_from_mpi(three, &cc);
    expect(rc == COLL_OK, "coll_comm_from_mpi");
    int x[4] = {me + 1, me + 1, me + 1, me + 1}, y[4] = {0};
    for (int round = 0; rc == COLL_OK && round < 3; round++) {
        if (me != 0)
            expect(collc_recursive_doubling_allreduce(cc, x, y, 4, COLL_I32, COLL_SUM) ==
                       COLL_ERR_NOT_APPLICABLE,
                   "recursive doubling through the ABI at N = 3 is not applicable");
        int r = collc_ring_allreduce(cc, x, y, 4, COLL_I32, COLL_SUM);
        expect(r == COLL_OK && y[0] == 6 && y[3] == 6,
               "ring AllReduce after a refused try on some ranks only");
    }
    MPI_Comm_free(&three);
}

/* Ranks that call with different counts (rank 0 gathers 2 ints a rank,
 * rank 1 4): a message longer or shorter than its receive is a clear error
 * of the arguments on both ranks, not an internal error of collc. */
static void count_mismatch(void) {
    if (N < 2) return;
    MPI_Comm two = split(MPI_COMM_WORLD, me < 2 ? 0 : MPI_UNDEFINED, me);
    if (two == MPI_COMM_NULL) return;
    int count = me == 0 ? 2 : 4, x[4] = {me, me, me, me}, y[8];
    int rc = ring_allgather(x, count, MPI_INT, y, count, MPI_INT, two);
    expect_error(rc, MPI_ERR_TRUNCATE, "count or datatype differ between ranks",
                 "counts that differ between ranks are an error of the arguments");
    expect(collmpi_last_status() == COLL_ERR_MISMATCH, "collmpi_last_status is COLL_ERR_MISMATCH");
    MPI_Comm_free(&two);
}

/* Root-only facts: a strided type at the root, plain doubles elsewhere;
 * MPI_IN_PLACE at the root only. */
static void root_only(MPI_Comm comm) {
    int n, r;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &r);
    MPI_Datatype sv = strided();
    int c = 9;
    size_t nc = (size_t)n * (size_t)c;
    double *big = calloc(2 * nc, sizeof(double)), *blk = calloc(2 * (size_t)c, sizeof(double));
    for (int root = 0; root < n; root += n > 1 ? n - 1 : 1) {
        int is_root = r == root, ok = 1, rc;
        for (size_t k = 0; k < 2 * nc; k++) big[k] = val(root, (int)k);
        rc = binomial_scatter(big, c, is_root ? sv : MPI_DOUBLE, blk, c, MPI_DOUBLE, root, comm);
        for (int i = 0; i < c; i++) ok &= blk[i] == val(root, 2 * (r * c + i));
        expect(rc == MPI_SUCCESS && ok, "binomial_scatter from a strided root");
        for (int i = 0; i < c; i++) blk[i] = val(r, i);
        for (size_t k = 0; k < 2 * nc; k++) big[k] = -1;
        rc = binomial_gather(blk, c, MPI_DOUBLE, big, c, sv, root, comm);
        ok = 1;
        if (is_root)
            for (size_t k = 0; k < nc; k++)
                ok &= big[2 * k] == val((int)(k / (size_t)c), (int)(k % (size_t)c)) && big[2 * k + 1] == -1;
        expect(rc == MPI_SUCCESS && ok, "binomial_gather into a strided root");
        for (int k = 0; k < 2 * c; k++) blk[k] = is_root ? val(root, k) : -1;
        rc = binomial_broadcast(blk, c, is_root ? sv : MPI_DOUBLE, root, comm);
        ok = 1;
        for (int i = 0; i < c; i++) ok &= blk[is_root ? 2 * i : i] == val(root, 2 * i);
        expect(rc == MPI_SUCCESS && ok, "binomial_broadcast from a strided root");
        /* in place at the root only */
        for (int i = 0; i < c; i++) blk[i] = val(r, i), big[i] = val(r, i);
        rc = binomial_reduce(is_root ? MPI_IN_PLACE : blk, big, c, MPI_DOUBLE, MPI_SUM, root, comm);
        ok = 1;
        if (is_root)
            for (int i = 0; i < c; i++) {
                double want = 0;
                for (int j = 0; j < n; j++) want += val(j, i);
                ok &= big[i] == want;
            }
        expect(rc == MPI_SUCCESS && ok, "binomial_reduce in place at the root only");
    }
    /* a strided type everywhere on one side of allgather and alltoall */
    for (int i = 0; i < 2 * c; i++) blk[i] = val(r, i / 2);
    int rc = ring_allgather(blk, c, sv, big, c, MPI_DOUBLE, comm);
    int ok = 1;
    for (size_t k = 0; k < nc; k++) ok &= big[k] == val((int)(k / (size_t)c), (int)(k % (size_t)c));
    expect(rc == MPI_SUCCESS && ok, "ring_allgather from a strided send type");
    double *in = calloc(2 * nc, sizeof(double));
    for (size_t k = 0; k < nc; k++) in[k] = val(r, (int)k);
    for (size_t k = 0; k < 2 * nc; k++) big[k] = -1;
    rc = pairwise_alltoall(in, c, MPI_DOUBLE, big, c, sv, comm);
    ok = 1;
    for (size_t k = 0; k < nc; k++)
        ok &= big[2 * k] == val((int)(k / (size_t)c), r * c + (int)(k % (size_t)c)) && big[2 * k + 1] == -1;
    expect(rc == MPI_SUCCESS && ok, "pairwise_alltoall into a strided receive type");
    /* reductions on a strided type (the same on every rank) */
    for (size_t k = 0; k < 2 * nc; k++) in[k] = val(r, (int)k), big[k] = -1;
    rc = ring_reduce_scatter(in, big, c, sv, MPI_SUM, comm);
    ok = 1;
    for (int i = 0; i < c; i++) {
        double want = 0;
        for (int j = 0; j < n; j++) want += val(j, 2 * (r * c + i));
        ok &= big[2 * i] == want && big[2 * i + 1] == -1;
    }
    expect(rc == MPI_SUCCESS && ok, "ring_reduce_scatter on a strided type");
    free(in);
    free(big);
    free(blk);
    MPI_Type_free(&sv);
}

/* What a call keeps for the next (its decision, its scratch plan) must
 * never serve a call that differs: the same algorithms called again and
 * again with counts that change back and forth, in place and not, on two
 * communicators, one of them freed and replaced by a new one between the
 * calls (MPI may give the new one the freed handle). binomial_reduce and
 * binomial_gather use scratch buffers whose size follows the count;
 * ring_allreduce's in-place form copies on write. Every result is checked
 * exactly (integer sums, exact doubles). */
static void repeated_calls(void) {
    static const int counts[] = {1, 7, 1, 64, 7, 1000, 64, 1};
    enum { NCOUNTS = sizeof counts / sizeof *counts, MAXC = 1000 };
    int *x = calloc(MAXC, sizeof *x), *y = calloc(MAXC, sizeof *y);
    double *blk = calloc(MAXC, sizeof *blk), *all = calloc((size_t)N * MAXC, sizeof *all);
    MPI_Comm dup = MPI_COMM_NULL;
    for (int round = 0; round < 3 * NCOUNTS; round++) {
        int c = counts[round % NCOUNTS], in_place = round % 3 == 1, ok = 1, rc;
        if (round % 4 == 0) {     /* a new communicator, the old one freed */
            if (dup != MPI_COMM_NULL) MPI_Comm_free(&dup);
            MPI_Comm_dup(MPI_COMM_WORLD, &dup);
            MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
        }
        MPI_Comm comm = round % 2 ? dup : MPI_COMM_WORLD;
        for (int i = 0; i < c; i++) x[i] = y[i] = me * 1000 + i + round;
        rc = ring_allreduce(in_place ? MPI_IN_PLACE : x, y, c, MPI_INT, MPI_SUM, comm);
        for (int i = 0; i < c; i++) ok &= y[i] == N * (N - 1) / 2 * 1000 + N * (i + round);
        expect(rc == MPI_SUCCESS && ok, "ring_allreduce repeated with changing counts");
        int root = round % N;
        for (int i = 0; i < c; i++) x[i] = me + i, y[i] = -1;
        rc = binomial_reduce(x, y, c, MPI_INT, MPI_SUM, root, comm);
        ok = 1;
        if (me == root)
            for (int i = 0; i < c; i++) ok &= y[i] == N * (N - 1) / 2 + N * i;
        expect(rc == MPI_SUCCESS && ok, "binomial_reduce repeated with changing counts and roots");
        for (int i = 0; i < c; i++) blk[i] = val(me, i + round);
        for (size_t k = 0; k < (size_t)N * (size_t)c; k++) all[k] = -1;
        rc = binomial_gather(blk, c, MPI_DOUBLE, all, c, MPI_DOUBLE, root, comm);
        ok = 1;
        if (me == root)
            for (size_t k = 0; k < (size_t)N * (size_t)c; k++)
                ok &= all[k] == val((int)(k / (size_t)c), (int)(k % (size_t)c) + round);
        expect(rc == MPI_SUCCESS && ok, "binomial_gather repeated with changing counts and roots");
        for (size_t k = 0; k < (size_t)N * (size_t)c; k++) all[k] = -1;
        if (in_place)
            for (int i = 0; i < c; i++) all[(size_t)me * (size_t)c + (size_t)i] = blk[i];
        rc = ring_allgather(in_place ? MPI_IN_PLACE : blk, c, MPI_DOUBLE, all, c, MPI_DOUBLE, comm);
        ok = 1;
        for (size_t k = 0; k < (size_t)N * (size_t)c; k++)
            ok &= all[k] == val((int)(k / (size_t)c), (int)(k % (size_t)c) + round);
        expect(rc == MPI_SUCCESS && ok, "ring_allgather repeated with changing counts");
    }
    MPI_Comm_free(&dup);
    free(x);
    free(y);
    free(blk);
    free(all);
}

/* Communicators of one process, intercommunicators, zero counts. */
static void others(void) {
    double s[4] = {1, 2, 3, 4}, o[4] = {0};
    int rc = ring_allreduce(s, o, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF);
    expect(rc == MPI_SUCCESS && memcmp(s, o, sizeof s) == 0, "ring_allreduce on MPI_COMM_SELF");
    rc = recursive_doubling_allreduce(MPI_IN_PLACE, o, 4, MPI_DOUBLE, MPI_MAX, MPI_COMM_SELF);
    expect(rc == MPI_SUCCESS && memcmp(s, o, sizeof s) == 0,
           "recursive_doubling_allreduce in place on MPI_COMM_SELF");
    root_only(MPI_COMM_SELF);
    if (N >= 2) {
        MPI_Comm local, inter;
        MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &local);
        MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, me % 2 ? 0 : 1, 78, &inter);
        MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
        rc = ring_allreduce(s, o, 4, MPI_DOUBLE, MPI_SUM, inter);
        expect_error(rc, MPI_ERR_COMM, "ring_allreduce: intercommunicator",
                     "an intercommunicator is refused with its reason");
        MPI_Comm_free(&inter);
        MPI_Comm_free(&local);
    }
    /* zero counts, NULL buffers */
    rc = ring_allreduce(NULL, NULL, 0, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    expect(rc == MPI_SUCCESS, "ring_allreduce of 0 elements");
    rc = binomial_scatter(NULL, 0, MPI_DOUBLE, NULL, 0, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    expect(rc == MPI_SUCCESS, "binomial_scatter of 0 elements");
    rc = ring_allgather(NULL, 0, MPI_BYTE, NULL, 0, MPI_BYTE, MPI_COMM_WORLD);
    expect(rc == MPI_SUCCESS, "ring_allgather of 0 elements");
    int x = me, y = -1;
    rc = ring_allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    expect(rc == MPI_SUCCESS && y == N * (N - 1) / 2, "ring_allreduce after the zero counts");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &N);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (argc > 1 && strcmp(argv[1], "--fatal") == 0) {
        int x[4] = {me, me, me, me}, y[4];
        recursive_doubling_allreduce(x, y, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        printf("direct_check: rank %d: the refused call returned under MPI_ERRORS_ARE_FATAL\n", me);
        MPI_Finalize();
        return 1;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    refusals();
    refused_try_leaves_no_trace();
    count_mismatch();
    root_only(MPI_COMM_WORLD);
    others();
    repeated_calls();
    int tot[2] = {checks, errors}, sum[2];
    MPI_Reduce(tot, sum, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0) printf("direct_check: N=%d: %d checks, %d failed\n", N, sum[0], sum[1]);
    int any = 0;
    MPI_Allreduce(&errors, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any ? 1 : 0;
}
