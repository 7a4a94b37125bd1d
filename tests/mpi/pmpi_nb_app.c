/* pmpi_nb_app.c - a plain MPI program (it knows nothing about collc) that
 * uses the nonblocking collectives the way applications do: computation
 * between the start and MPI_Test polling, several collectives in flight on
 * one communicator, request arrays that mix them with point-to-point
 * requests (MPI_Waitall, MPI_Waitany, MPI_Testsome), MPI_Request_get_status,
 * in-place forms, a non-contiguous datatype freed before the wait; and
 * the persistent ones (MPI_Allreduce_init ..., Open
 * MPI 4.1: MPIX_*_init) started again and again on new data. It checks
 * every result against values it computes itself and prints one line; with
 * -m it runs under MPI_THREAD_MULTIPLE. Used to test libcollmpi.so under LD_PRELOAD
 * (tests/mpi/pmpi_nb_test.sh). */
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int N, me, errors, checks;
static volatile double sink;

static void expect(int ok, const char *what, int count) {
    checks++;
    if (!ok) {
        errors++;
        if (errors < 10) fprintf(stderr, "rank %d: wrong result: %s (count %d)\n", me, what, count);
    }
}

static int val(int rank, int i) { return (rank * 7 + i * 13) % 1000 - 500; }
static int sum_at(int i) {
    int s = 0;
    for (int j = 0; j < N; j++) s += val(j, i);
    return s;
}

static void compute(void) {
    for (int i = 0; i < 5000; i++) sink += i * 0.5;
}

/* Start, compute, poll with MPI_Test until done. */
static void overlap_test(MPI_Request *r) {
    int flag = 0;
    while (!flag) {
        compute();
        MPI_Test(r, &flag, MPI_STATUS_IGNORE);
    }
}

static int *ints(int n) { return calloc((size_t)n + 1, sizeof(int)); }

static void t_allreduce(int count, int in_place) {
    int *s = ints(count), *r = ints(count);
    for (int i = 0; i < count; i++) s[i] = val(me, i);
    MPI_Request q;
    if (in_place) {
        memcpy(r, s, sizeof(int) * (size_t)count);
        MPI_Iallreduce(MPI_IN_PLACE, r, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q);
    } else {
        MPI_Iallreduce(s, r, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q);
    }
    overlap_test(&q);
    int ok = q == MPI_REQUEST_NULL;
    for (int i = 0; i < count && ok; i++) ok = r[i] == sum_at(i);
    expect(ok, in_place ? "MPI_Iallreduce in place" : "MPI_Iallreduce", count);
    free(s), free(r);
}

static void t_reduce_rsb(int count, int root) {
    int *s = ints(count * N), *r = ints(count * N), *rs = ints(count);
    for (int i = 0; i < count * N; i++) s[i] = val(me, i);
    MPI_Request q[2];
    MPI_Ireduce(s, r, count, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &q[0]);
    MPI_Ireduce_scatter_block(s, rs, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[1]);
    /* both in flight at once, completed by MPI_Request_get_status polling
     * and MPI_Wait */
    int flag = 0;
    while (!flag) {
        compute();
        MPI_Request_get_status(q[1], &flag, MPI_STATUS_IGNORE);
    }
    MPI_Wait(&q[1], MPI_STATUS_IGNORE);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    int ok = 1;
    if (me == root)
        for (int i = 0; i < count && ok; i++) ok = r[i] == sum_at(i);
    expect(ok, "MPI_Ireduce", count);
    ok = 1;
    for (int i = 0; i < count && ok; i++) ok = rs[i] == sum_at(me * count + i);
    expect(ok, "MPI_Ireduce_scatter_block", count);
    free(s), free(r), free(rs);
}

/* MPI_Waitall over a collective and a ring exchange. */
static void t_mixed_waitall(int count) {
    int *s = ints(count), *r = ints(count), *pin = ints(count), *pout = ints(count);
    for (int i = 0; i < count; i++) s[i] = pout[i] = val(me, i);
    MPI_Request q[3];
    MPI_Irecv(pin, count, MPI_INT, (me + N - 1) % N, 7, MPI_COMM_WORLD, &q[0]);
    MPI_Iallreduce(s, r, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[1]);
    MPI_Isend(pout, count, MPI_INT, (me + 1) % N, 7, MPI_COMM_WORLD, &q[2]);
    MPI_Status st[3];
    MPI_Waitall(3, q, st);
    int ok = q[0] == MPI_REQUEST_NULL && q[1] == MPI_REQUEST_NULL && q[2] == MPI_REQUEST_NULL;
    int got = -1;
    MPI_Get_count(&st[0], MPI_INT, &got);
    ok = ok && got == count && st[0].MPI_SOURCE == (me + N - 1) % N && st[0].MPI_TAG == 7;
    for (int i = 0; i < count && ok; i++) ok = r[i] == sum_at(i) && pin[i] == val((me + N - 1) % N, i);
    expect(ok, "MPI_Waitall of MPI_Iallreduce with MPI_Isend/MPI_Irecv", count);
    free(s), free(r), free(pin), free(pout);
}

/* MPI_Waitany over a broadcast, an allgather (in place) and a gather. */
static void t_waitany(int count, int root) {
    int *b = ints(count), *ag = ints(count * N), *g = ints(count * N), *gs = ints(count);
    for (int i = 0; i < count; i++) b[i] = me == root ? val(root, i) : -1;
    for (int i = 0; i < count; i++) ag[me * count + i] = gs[i] = val(me, i);
    MPI_Request q[3];
    MPI_Ibcast(b, count, MPI_INT, root, MPI_COMM_WORLD, &q[0]);
    MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ag, count, MPI_INT, MPI_COMM_WORLD, &q[1]);
    MPI_Igather(gs, count, MPI_INT, g, count, MPI_INT, root, MPI_COMM_WORLD, &q[2]);
    int seen = 0, ok = 1;
    for (int k = 0; k < 3; k++) {
        int idx = -1;
        MPI_Waitany(3, q, &idx, MPI_STATUS_IGNORE);
        if (idx < 0 || idx > 2 || (seen >> idx & 1)) ok = 0;
        else seen |= 1 << idx;
    }
    int idx = 0;
    MPI_Waitany(3, q, &idx, MPI_STATUS_IGNORE);   /* all inactive */
    ok = ok && idx == MPI_UNDEFINED;
    for (int i = 0; i < count && ok; i++) ok = b[i] == val(root, i);
    for (int j = 0; j < N && ok; j++)
        for (int i = 0; i < count && ok; i++) ok = ag[j * count + i] == val(j, i);
    if (me == root)
        for (int j = 0; j < N && ok; j++)
            for (int i = 0; i < count && ok; i++) ok = g[j * count + i] == val(j, i);
    expect(ok, "MPI_Waitany of MPI_Ibcast, MPI_Iallgather in place, MPI_Igather", count);
    free(b), free(ag), free(g), free(gs);
}

/* MPI_Testsome over an alltoall, a scatter and a receive. */
static void t_testsome(int count, int root) {
    int *s = ints(count * N), *r = ints(count * N), *sc = ints(count * N), *scr = ints(count);
    int *pin = ints(1), *pout = ints(1);
    for (int j = 0; j < N; j++)
        for (int i = 0; i < count; i++) {
            s[j * count + i] = val(me, j * 1000 + i);
            sc[j * count + i] = val(root, j * count + i);
        }
    pout[0] = me;
    MPI_Request q[4];
    MPI_Ialltoall(s, count, MPI_INT, r, count, MPI_INT, MPI_COMM_WORLD, &q[0]);
    MPI_Irecv(pin, 1, MPI_INT, (me + 1) % N, 9, MPI_COMM_WORLD, &q[1]);
    MPI_Iscatter(sc, count, MPI_INT, scr, count, MPI_INT, root, MPI_COMM_WORLD, &q[2]);
    MPI_Isend(pout, 1, MPI_INT, (me + N - 1) % N, 9, MPI_COMM_WORLD, &q[3]);
    int left = 4, idx[4];
    MPI_Status sts[4];
    while (left > 0) {
        int out = 0;
        compute();
        MPI_Testsome(4, q, &out, idx, sts);
        if (out == MPI_UNDEFINED) break;
        left -= out;
    }
    int ok = left == 0 && pin[0] == (me + 1) % N;
    for (int j = 0; j < N && ok; j++)
        for (int i = 0; i < count && ok; i++) ok = r[j * count + i] == val(j, me * 1000 + i);
    for (int i = 0; i < count && ok; i++) ok = scr[i] == val(root, me * count + i);
    expect(ok, "MPI_Testsome of MPI_Ialltoall, MPI_Iscatter, MPI_Isend/MPI_Irecv", count);
    free(s), free(r), free(sc), free(scr), free(pin), free(pout);
}

/* A non-contiguous receive type freed before the wait (MPI allows it; the
 * operation completes as if the type were still there): every second int. */
static void t_freed_type(int count) {
    MPI_Datatype v, every2;
    MPI_Type_vector(1, 1, 2, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, 2 * (MPI_Aint)sizeof(int), &every2);
    MPI_Type_commit(&every2);
    MPI_Type_free(&v);
    int *s = ints(count), *r = ints(2 * count * N);
    for (int i = 0; i < count; i++) s[i] = val(me, i);
    for (int i = 0; i < 2 * count * N; i++) r[i] = -1;
    MPI_Request q;
    MPI_Iallgather(s, count, MPI_INT, r, count, every2, MPI_COMM_WORLD, &q);
    MPI_Type_free(&every2);
    overlap_test(&q);
    int ok = 1;
    for (int j = 0; j < N && ok; j++)
        for (int i = 0; i < count && ok; i++)
            ok = r[2 * (j * count + i)] == val(j, i) && r[2 * (j * count + i) + 1] == -1;
    expect(ok, "MPI_Iallgather, strided receive type freed before the wait", count);
    free(s), free(r);
}

#if MPI_VERSION >= 4
#define PINIT(name) MPI_##name##_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
#define PINIT(name) MPIX_##name##_init
#endif

#ifdef PINIT
/* Persistent: one init, several starts on new data, MPI_Start polled with
 * MPI_Test, MPI_Startall completed by MPI_Waitall, inactive requests
 * tested, freed. */
static void t_persistent(int count, int root) {
    int *s = ints(count), *r = ints(count), *b = ints(count), *ag = ints(count * N);
    int *ags = ints(count);
    MPI_Request ar, bc, al;
    PINIT(Allreduce)(s, r, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &ar);
    PINIT(Bcast)(b, count, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &bc);
    PINIT(Allgather)(ags, count, MPI_INT, ag, count, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &al);
    int ok = ar != MPI_REQUEST_NULL && bc != MPI_REQUEST_NULL;
    int flag = 0;
    MPI_Test(&ar, &flag, MPI_STATUS_IGNORE);   /* inactive: complete at once */
    ok = ok && flag && ar != MPI_REQUEST_NULL;
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < count; i++) s[i] = val(me, i) + round;
        MPI_Start(&ar);
        flag = 0;
        while (!flag) {
            compute();
            MPI_Test(&ar, &flag, MPI_STATUS_IGNORE);
        }
        ok = ok && ar != MPI_REQUEST_NULL;   /* inactive again, not freed */
        for (int i = 0; i < count && ok; i++) ok = r[i] == sum_at(i) + N * round;
        /* both at once */
        for (int i = 0; i < count; i++) {
            b[i] = me == root ? val(root, i) - round : -1;
            s[i] = val(me, i) * (round + 1);
            ags[i] = val(me, i) + 7 * round;
        }
        MPI_Request two[3] = {ar, bc, al};
        MPI_Startall(3, two);
        MPI_Status sts[3];
        MPI_Waitall(3, two, sts);
        ok = ok && two[0] == ar && two[1] == bc && two[2] == al;
        for (int i = 0; i < count && ok; i++)
            ok = r[i] == sum_at(i) * (round + 1) && b[i] == val(root, i) - round;
        for (int j = 0; j < N && ok; j++)
            for (int i = 0; i < count && ok; i++) ok = ag[j * count + i] == val(j, i) + 7 * round;
    }
    MPI_Request_free(&ar);
    MPI_Request_free(&bc);
    MPI_Request_free(&al);
    ok = ok && ar == MPI_REQUEST_NULL && bc == MPI_REQUEST_NULL && al == MPI_REQUEST_NULL;
    expect(ok, "persistent MPI_Allreduce/MPI_Bcast/MPI_Allgather _init, restarted", count);
    free(s), free(r), free(b), free(ag), free(ags);
}
#endif

/* With -m: MPI_THREAD_MULTIPLE (what COLLMPI_PROGRESS=thread needs). */
int main(int argc, char **argv) {
    int multiple = argc > 1 && strcmp(argv[1], "-m") == 0, provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    if (multiple && provided != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "pmpi_nb_app: MPI_THREAD_MULTIPLE not provided\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_size(MPI_COMM_WORLD, &N);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    const int counts[] = {0, 1, 7, 1000, 40000};
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
        int n = counts[c];
        t_allreduce(n, 0);
        t_allreduce(n, 1);
        t_reduce_rsb(n, 0);
        t_reduce_rsb(n, N - 1);
        t_mixed_waitall(n);
        t_waitany(n, 0);
        t_waitany(n, N / 2);
        t_testsome(n, N - 1);
        t_freed_type(n);
#ifdef PINIT
        t_persistent(n, N / 2);
#endif
    }
    int tot[2] = {checks, errors}, all[2];
    MPI_Allreduce(tot, all, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) printf("pmpi_nb_app: N=%d: %d checks, %d wrong\n", N, all[0], all[1]);
    MPI_Finalize();
    return all[1] != 0;
}
