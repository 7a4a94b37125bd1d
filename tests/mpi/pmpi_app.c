/* pmpi_app.c - a plain MPI program (it knows nothing about collc): runs the
 * eight collectives on data whose results it can compute itself, checks
 * them, and prints one line. Used to test libcollmpi.so under LD_PRELOAD
 * (tests/mpi/pmpi_test.sh), but it is meant to be any MPI user's program. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int N, me, errors, checks;

static void expect(int ok, const char *what, int count) {
    checks++;
    if (!ok) {
        errors++;
        if (errors < 10) fprintf(stderr, "rank %d: wrong result: %s (count %d)\n", me, what, count);
    }
}

static int val(int rank, int i) { return (rank * 7 + i * 13) % 1000 - 500; }

static void test_allreduce(int count, int in_place) {
    int *s = calloc((size_t)count + 1, sizeof(int)), *r = calloc((size_t)count + 1, sizeof(int));
    for (int i = 0; i < count; i++) s[i] = val(me, i);
    if (in_place) {
        memcpy(r, s, sizeof(int) * (size_t)count);
        MPI_Allreduce(MPI_IN_PLACE, r, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else {
        MPI_Allreduce(s, r, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    int ok = 1;
    for (int i = 0; i < count && ok; i++) {
        int want = 0;
        for (int j = 0; j < N; j++) want += val(j, i);
        ok = r[i] == want;
    }
    expect(ok, in_place ? "MPI_Allreduce in place" : "MPI_Allreduce", count);
    /* doubles, max */
    double *d = malloc(sizeof(double) * (size_t)count + 8), *e = malloc(sizeof(double) * (size_t)count + 8);
    for (int i = 0; i < count; i++) d[i] = val(me, i) * 0.5;
    MPI_Allreduce(d, e, count, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    ok = 1;
    for (int i = 0; i < count && ok; i++) {
        double want = -1e300;
        for (int j = 0; j < N; j++) want = val(j, i) * 0.5 > want ? val(j, i) * 0.5 : want;
        ok = e[i] == want;
    }
    expect(ok, "MPI_Allreduce MPI_DOUBLE MPI_MAX", count);
    free(s), free(r), free(d), free(e);
}

static void test_bcast(int count, int root) {
    int *b = malloc(sizeof(int) * (size_t)count + 1);
    for (int i = 0; i < count; i++) b[i] = me == root ? val(root, i) : -1;
    MPI_Bcast(b, count, MPI_INT, root, MPI_COMM_WORLD);
    int ok = 1;
    for (int i = 0; i < count && ok; i++) ok = b[i] == val(root, i);
    expect(ok, "MPI_Bcast", count);
    free(b);
}

static void test_reduce(int count, int root) {
    long *s = malloc(sizeof(long) * (size_t)count + 1), *r = malloc(sizeof(long) * (size_t)count + 1);
    for (int i = 0; i < count; i++) s[i] = val(me, i);
    MPI_Reduce(s, r, count, MPI_LONG, MPI_SUM, root, MPI_COMM_WORLD);
    int ok = 1;
    if (me == root)
        for (int i = 0; i < count && ok; i++) {
            long want = 0;
            for (int j = 0; j < N; j++) want += val(j, i);
            ok = r[i] == want;
        }
    expect(ok, "MPI_Reduce", count);
    free(s), free(r);
}

static void test_gathers(int count, int root) {
    size_t c = (size_t)count, n = (size_t)N;
    int *s = malloc(sizeof(int) * c * n + 1), *r = malloc(sizeof(int) * c * n + 1);
    /* allgather */
    for (size_t i = 0; i < c; i++) s[i] = val(me, (int)i);
    MPI_Allgather(s, count, MPI_INT, r, count, MPI_INT, MPI_COMM_WORLD);
    int ok = 1;
    for (size_t j = 0; j < n && ok; j++)
        for (size_t i = 0; i < c && ok; i++) ok = r[j * c + i] == val((int)j, (int)i);
    expect(ok, "MPI_Allgather", count);
    /* gather */
    memset(r, 0, sizeof(int) * c * n);
    MPI_Gather(s, count, MPI_INT, r, count, MPI_INT, root, MPI_COMM_WORLD);
    ok = 1;
    if (me == root)
        for (size_t j = 0; j < n && ok; j++)
            for (size_t i = 0; i < c && ok; i++) ok = r[j * c + i] == val((int)j, (int)i);
    expect(ok, "MPI_Gather", count);
    /* scatter: block j of the root's buffer goes to rank j */
    if (me == root)
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < c; i++) s[j * c + i] = val((int)j, (int)i) + 3;
    MPI_Scatter(s, count, MPI_INT, r, count, MPI_INT, root, MPI_COMM_WORLD);
    ok = 1;
    for (size_t i = 0; i < c && ok; i++) ok = r[i] == val(me, (int)i) + 3;
    expect(ok, "MPI_Scatter", count);
    /* alltoall: block j from rank me is val(me*N + j) */
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < c; i++) s[j * c + i] = val(me * N + (int)j, (int)i);
    MPI_Alltoall(s, count, MPI_INT, r, count, MPI_INT, MPI_COMM_WORLD);
    ok = 1;
    for (size_t j = 0; j < n && ok; j++)
        for (size_t i = 0; i < c && ok; i++) ok = r[j * c + i] == val((int)j * N + me, (int)i);
    expect(ok, "MPI_Alltoall", count);
    /* reduce_scatter_block */
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < c; i++) s[j * c + i] = val(me + (int)j, (int)i);
    MPI_Reduce_scatter_block(s, r, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    ok = 1;
    for (size_t i = 0; i < c && ok; i++) {
        int want = 0;
        for (int k = 0; k < N; k++) want += val(k + me, (int)i);
        ok = r[i] == want;
    }
    expect(ok, "MPI_Reduce_scatter_block", count);
    free(s), free(r);
}

/* A strided type: the library's own collective must serve it. */
static void test_vector_bcast(void) {
    MPI_Datatype vec;
    MPI_Type_vector(4, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int b[8];
    for (int i = 0; i < 8; i++) b[i] = me == 0 ? i : -1;
    MPI_Bcast(b, 1, vec, 0, MPI_COMM_WORLD);
    int ok = 1;
    for (int i = 0; i < 8; i++) ok &= b[i] == (i % 2 == 0 || me == 0 ? i : -1);
    expect(ok, "MPI_Bcast of a vector type", 1);
    MPI_Type_free(&vec);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &N);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int counts[] = {1, 3, 1000, 40000, 300000};
    for (int k = 0; k < 5; k++) {
        int c = counts[k];
        test_allreduce(c, 0);
        test_allreduce(c, 1);
        test_bcast(c, N > 1 ? 1 : 0);
        test_reduce(c, N - 1);
        if (c <= 40000) test_gathers(c, N / 2);
    }
    test_vector_bcast();
    int tot[2] = {errors, checks}, sum[2];
    MPI_Reduce(tot, sum, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0) printf("pmpi_app: N=%d: %d checks, %d wrong\n", N, sum[1], sum[0]);
    MPI_Finalize();
    return errors ? 1 : 0;
}
