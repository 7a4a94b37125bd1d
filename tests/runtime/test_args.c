/* test_args.c - every documented status of argument checking, the
 * communicator lifecycle, and error propagation between ranks (a rank that
 * fails makes its peers fail with COLL_ERR_PEER instead of hanging). */
#include <pthread.h>
#include <time.h>
#include "ring_algos.h"
#include "rt_ref.h"

static coll_alg_info info_for(coll_collective coll) {
    return (coll_alg_info){COLL_ABI_VERSION, "probe", coll, 0};
}

/* begin + setup + finish, no transfers: the checks of one rank. */
static int probe(coll_comm *c, coll_collective coll, const void *sb, void *rb,
                 size_t count, coll_dtype dt, coll_op op, int root, int *in_place) {
    coll_alg_info info = info_for(coll);
    coll_call *call = (coll_call *)&info; /* must be reset to NULL on error */
    int rc = coll_begin(c, &info, sb, rb, count, dt, op, root, &call);
    if (rc != COLL_OK) {
        CHECK(call == NULL);
        return rc;
    }
    if (in_place) *in_place = coll_call_in_place(call);
    rc = coll_setup(call, 2, 0, NULL);
    return coll_finish(call, rc);
}

static void test_single_rank_checks(void) {
    coll_world *w;
    coll_comm *c; /* rank 1 of 4; probes never communicate */
    CHECK_EQ(coll_comm_create_cpu(4, &w), COLL_OK);
    CHECK_EQ(coll_comm_join(w, 1, &c), COLL_OK);
    CHECK_EQ(coll_comm_rank(c), 1);
    CHECK_EQ(coll_comm_size(c), 4);
    CHECK_EQ(coll_comm_rank(NULL), -1);
    CHECK_EQ(coll_comm_size(NULL), -1);
    float a[64], b[256];
    int ip = -1;

    CHECK_EQ(probe(NULL, COLL_ALLREDUCE, a, b, 4, COLL_F32, COLL_SUM, 0, NULL), COLL_ERR_NULL_COMM);
    coll_alg_info old = {COLL_ABI_VERSION + 1, "old", COLL_ALLREDUCE, 0};
    coll_call *call;
    CHECK_EQ(coll_begin(c, &old, a, b, 4, COLL_F32, COLL_SUM, 0, &call), COLL_ERR_ABI);
    CHECK_EQ(coll_begin(c, NULL, a, b, 4, COLL_F32, COLL_SUM, 0, &call), COLL_ERR_INTERNAL);
    /* dtype / op */
    CHECK_EQ(probe(c, COLL_ALLREDUCE, a, b, 4, (coll_dtype)-1, COLL_SUM, 0, NULL), COLL_ERR_BAD_DTYPE);
    CHECK_EQ(probe(c, COLL_ALLGATHER, a, b, 4, COLL_DTYPE_COUNT, COLL_SUM, 0, NULL), COLL_ERR_BAD_DTYPE);
    CHECK_EQ(probe(c, COLL_ALLREDUCE, a, b, 4, COLL_F32, (coll_op)42, 0, NULL), COLL_ERR_BAD_OP);
    CHECK_EQ(probe(c, COLL_ALLGATHER, a, b, 4, COLL_F32, (coll_op)42, 0, NULL), COLL_OK); /* ignored */
    CHECK_EQ(probe(c, COLL_ALLREDUCE, a, b, 4, COLL_F32, COLL_BXOR, 0, NULL), COLL_ERR_OP_DTYPE);
    CHECK_EQ(probe(c, COLL_REDUCE_SCATTER, a, b, 4, COLL_BF16, COLL_BAND, 0, NULL), COLL_ERR_OP_DTYPE);
    CHECK_EQ(probe(c, COLL_ALLREDUCE, a, b, 4, COLL_I32, COLL_BXOR, 0, NULL), COLL_OK);
    /* root */
    CHECK_EQ(probe(c, COLL_BROADCAST, a, b, 4, COLL_F32, COLL_SUM, -1, NULL), COLL_ERR_BAD_ROOT);
    CHECK_EQ(probe(c, COLL_REDUCE, a, b, 4, COLL_F32, COLL_SUM, 4, NULL), COLL_ERR_BAD_ROOT);
    CHECK_EQ(probe(c, COLL_ALLREDUCE, a, b, 4, COLL_F32, COLL_SUM, 99, NULL), COLL_OK); /* ignored */
    /* count */
    CHECK_EQ(probe(c, COLL_ALLREDUCE, a, b, SIZE_MAX / 2, COLL_F32, COLL_SUM, 0, NULL), COLL_ERR_BAD_COUNT);
    CHECK_EQ(probe(c, COLL_ALLGATHER, a, b, SIZE_MAX / 3, COLL_U8, COLL_SUM, 0, NULL), COLL_ERR_BAD_COUNT);
    CHECK_EQ(probe(c, COLL_ALLREDUCE, NULL, NULL, 0, COLL_F32, COLL_SUM, 0, NULL), COLL_OK);
    CHECK_EQ(probe(c, COLL_ALLTOALL, NULL, NULL, 0, COLL_F32, COLL_SUM, 0, NULL), COLL_OK);
    /* NULL buffers */
    CHECK_EQ(probe(c, COLL_ALLREDUCE, NULL, b, 4, COLL_F32, COLL_SUM, 0, NULL), COLL_ERR_NULL_BUFFER);
    CHECK_EQ(probe(c, COLL_ALLREDUCE, a, NULL, 4, COLL_F32, COLL_SUM, 0, NULL), COLL_ERR_NULL_BUFFER);
    /* buffers a rank does not use are ignored, NULL or not */
    CHECK_EQ(probe(c, COLL_BROADCAST, NULL, b, 4, COLL_F32, COLL_SUM, 0, NULL), COLL_OK);
    CHECK_EQ(probe(c, COLL_BROADCAST, NULL, b, 4, COLL_F32, COLL_SUM, 1, NULL), COLL_ERR_NULL_BUFFER);
    CHECK_EQ(probe(c, COLL_REDUCE, a, NULL, 4, COLL_F32, COLL_SUM, 0, NULL), COLL_OK);
    CHECK_EQ(probe(c, COLL_REDUCE, a, NULL, 4, COLL_F32, COLL_SUM, 1, NULL), COLL_ERR_NULL_BUFFER);
    CHECK_EQ(probe(c, COLL_GATHER, a, NULL, 4, COLL_F32, COLL_SUM, 0, NULL), COLL_OK);
    CHECK_EQ(probe(c, COLL_SCATTER, NULL, b, 4, COLL_F32, COLL_SUM, 0, NULL), COLL_OK);
    CHECK_EQ(probe(c, COLL_SCATTER, NULL, b, 4, COLL_F32, COLL_SUM, 1, NULL), COLL_ERR_NULL_BUFFER);
    /* overlap */
    CHECK_EQ(probe(c, COLL_ALLREDUCE, b + 1, b, 4, COLL_F32, COLL_SUM, 0, NULL), COLL_ERR_OVERLAP);
    CHECK_EQ(probe(c, COLL_ALLREDUCE, b + 4, b, 4, COLL_F32, COLL_SUM, 0, NULL), COLL_OK);
    CHECK_EQ(probe(c, COLL_ALLGATHER, b, b, 4, COLL_F32, COLL_SUM, 0, NULL), COLL_ERR_OVERLAP);
    CHECK_EQ(probe(c, COLL_ALLGATHER, b + 15, b, 4, COLL_F32, COLL_SUM, 0, NULL), COLL_ERR_OVERLAP);
    CHECK_EQ(probe(c, COLL_ALLGATHER, b + 16, b, 4, COLL_F32, COLL_SUM, 0, NULL), COLL_OK);
    CHECK_EQ(probe(c, COLL_ALLTOALL, b + 8, b, 4, COLL_F32, COLL_SUM, 0, NULL), COLL_ERR_OVERLAP);
    CHECK_EQ(probe(c, COLL_ALLREDUCE, b + 1, b, 4, COLL_F32, COLL_SUM, 0, NULL), COLL_ERR_OVERLAP);
    /* in place: COLL_IN_PLACE and the same-position convention */
    CHECK_EQ(probe(c, COLL_ALLREDUCE, COLL_IN_PLACE, b, 4, COLL_F32, COLL_SUM, 0, &ip), COLL_OK);
    CHECK_EQ(ip, 1);
    CHECK_EQ(probe(c, COLL_ALLREDUCE, b, b, 4, COLL_F32, COLL_SUM, 0, &ip), COLL_OK);
    CHECK_EQ(ip, 1);
    CHECK_EQ(probe(c, COLL_ALLREDUCE, a, b, 4, COLL_F32, COLL_SUM, 0, &ip), COLL_OK);
    CHECK_EQ(ip, 0);
    CHECK_EQ(probe(c, COLL_ALLGATHER, b + 4, b, 4, COLL_F32, COLL_SUM, 0, &ip), COLL_OK);
    CHECK_EQ(ip, 1); /* rank 1's block */
    CHECK_EQ(probe(c, COLL_ALLGATHER, COLL_IN_PLACE, b, 4, COLL_F32, COLL_SUM, 0, &ip), COLL_OK);
    CHECK_EQ(probe(c, COLL_REDUCE_SCATTER, b, b, 4, COLL_F32, COLL_SUM, 0, &ip), COLL_OK);
    CHECK_EQ(ip, 1);
    CHECK_EQ(probe(c, COLL_ALLTOALL, COLL_IN_PLACE, b, 4, COLL_F32, COLL_SUM, 0, &ip), COLL_OK);
    CHECK_EQ(probe(c, COLL_GATHER, COLL_IN_PLACE, b, 4, COLL_F32, COLL_SUM, 1, &ip), COLL_OK);
    CHECK_EQ(ip, 1);
    CHECK_EQ(probe(c, COLL_GATHER, b + 4, b, 4, COLL_F32, COLL_SUM, 1, &ip), COLL_OK);
    CHECK_EQ(ip, 1); /* root's block */
    CHECK_EQ(probe(c, COLL_SCATTER, b, COLL_IN_PLACE, 4, COLL_F32, COLL_SUM, 1, &ip), COLL_OK);
    CHECK_EQ(ip, 1);
    CHECK_EQ(probe(c, COLL_BROADCAST, COLL_IN_PLACE, b, 4, COLL_F32, COLL_SUM, 1, &ip), COLL_OK);
    CHECK_EQ(probe(c, COLL_BROADCAST, COLL_IN_PLACE, b, 4, COLL_F32, COLL_SUM, 0, &ip), COLL_OK);
    /* ... where it is not allowed */
    CHECK_EQ(probe(c, COLL_ALLREDUCE, a, COLL_IN_PLACE, 4, COLL_F32, COLL_SUM, 0, NULL), COLL_ERR_IN_PLACE);
    CHECK_EQ(probe(c, COLL_SCATTER, COLL_IN_PLACE, b, 4, COLL_F32, COLL_SUM, 1, NULL), COLL_ERR_IN_PLACE);
    CHECK_EQ(probe(c, COLL_SCATTER, NULL, COLL_IN_PLACE, 4, COLL_F32, COLL_SUM, 0, NULL), COLL_ERR_IN_PLACE);
    CHECK_EQ(probe(c, COLL_REDUCE, COLL_IN_PLACE, b, 4, COLL_F32, COLL_SUM, 0, NULL), COLL_ERR_IN_PLACE);
    CHECK_EQ(probe(c, COLL_GATHER, COLL_IN_PLACE, b, 4, COLL_F32, COLL_SUM, 0, NULL), COLL_ERR_IN_PLACE);
    /* setup misuse and bad ranges are internal errors */
    coll_alg_info ar = info_for(COLL_ALLREDUCE);
    CHECK_EQ(coll_begin(c, &ar, a, b, 4, COLL_F32, COLL_SUM, 0, &call), COLL_OK);
    CHECK_EQ(coll_setup(call, 0, 0, NULL), COLL_ERR_INTERNAL);
    CHECK_EQ(coll_finish(call, COLL_ERR_INTERNAL), COLL_ERR_INTERNAL);
    CHECK_EQ(coll_begin(c, &ar, a, b, 4, COLL_F32, COLL_SUM, 0, &call), COLL_OK);
    CHECK_EQ(coll_setup(call, 2, 0, NULL), COLL_OK);
    CHECK_EQ(coll_setup(call, 2, 0, NULL), COLL_ERR_INTERNAL);
    coll_copy(call, COLL_BUF_IN, 0, COLL_BUF_OUT, 1, 2); /* chunks [1,3) of 2 */
    CHECK_EQ(coll_step_end(call), COLL_ERR_INTERNAL);
    CHECK_EQ(coll_finish(call, COLL_OK), COLL_ERR_INTERNAL);
    CHECK_EQ(coll_begin(c, &ar, a, b, 4, COLL_F32, COLL_SUM, 0, &call), COLL_OK);
    CHECK_EQ(coll_setup(call, 2, 0, NULL), COLL_OK);
    coll_send(call, 4, COLL_BUF_IN, 0, 1); /* no rank 4 */
    CHECK_EQ(coll_step_end(call), COLL_ERR_INTERNAL);
    CHECK_EQ(coll_finish(call, COLL_OK), COLL_ERR_INTERNAL);
    /* the program's own verdict */
    CHECK_EQ(coll_begin(c, &ar, a, b, 4, COLL_F32, COLL_SUM, 0, &call), COLL_OK);
    CHECK_EQ(coll_finish(call, COLL_ERR_NOT_APPLICABLE), COLL_ERR_NOT_APPLICABLE);
    CHECK_EQ(coll_step_end(NULL), COLL_ERR_INTERNAL);
    CHECK_EQ(coll_finish(NULL, COLL_OK), COLL_ERR_INTERNAL);

    /* lifecycle */
    coll_comm *c2;
    coll_world *w2;
    CHECK_EQ(coll_comm_join(w, 1, &c2), COLL_ERR_BAD_RANK);
    CHECK_EQ(coll_comm_join(w, 4, &c2), COLL_ERR_BAD_RANK);
    CHECK_EQ(coll_comm_join(w, -1, &c2), COLL_ERR_BAD_RANK);
    CHECK_EQ(coll_comm_join(NULL, 0, &c2), COLL_ERR_NULL_COMM);
    CHECK_EQ(coll_world_destroy(w), COLL_ERR_BUSY);
    CHECK_EQ(coll_comm_create_cpu(0, &w2), COLL_ERR_BAD_SIZE);
    CHECK_EQ(coll_comm_create_cpu(COLL_CPU_MAX_RANKS + 1, &w2), COLL_ERR_BAD_SIZE);
    CHECK_EQ(coll_comm_create_cpu(2, NULL), COLL_ERR_NULL_COMM);
    CHECK_EQ(coll_comm_destroy(c), COLL_OK);
    CHECK_EQ(coll_comm_destroy(NULL), COLL_ERR_NULL_COMM);
    CHECK_EQ(coll_world_destroy(w), COLL_OK);
    CHECK_EQ(coll_cpu_run(0, NULL, NULL), COLL_ERR_NULL_COMM);
}

/* ---- multi-rank error propagation ---- */

typedef struct scen {
    int bad_rank;          /* this rank passes bad arguments */
    int mode;              /* 0: NULL recvbuf on bad_rank; 1: every rank bad
                              dtype; 2: a message's length differs from
                              its receive's (counts that differ);
                              3: a late reader of a failed rank's buffer */
    int rc1[16], rc2[16];  /* per rank: first and second call */
} scen;

static int mismatched(coll_comm *comm, const float *in, float *out) {
    coll_call *c;
    int rc = coll_begin(comm, &ring_allreduce_info, in, out, 64, COLL_F32, COLL_SUM, 0, &c);
    if (rc != COLL_OK) return rc;
    int me = coll_comm_rank(comm), N = coll_comm_size(comm);
    if ((rc = coll_setup(c, 4, 0, NULL)) != COLL_OK) return coll_finish(c, rc);
    /* rank 0 sends 2 chunks to rank 1, which expects 1 */
    if (me == 0) coll_send(c, 1 % N, COLL_BUF_IN, 0, 2);
    if (me == 1) coll_recv(c, 0, COLL_BUF_OUT, 0, 1);
    STEP_END(c);
    return coll_finish(c, COLL_OK);
}

/* Rank 0 publishes a send from a heap buffer, then fails the call and frees
 * the buffer; rank 1 reads it late. finish() must wait for that read (ASan
 * would report a use after free otherwise). */
static pthread_barrier_t late_bar;

static int late_reader(coll_comm *comm) {
    coll_call *c;
    int me = coll_comm_rank(comm);
    float *in = calloc(64, sizeof *in), *out = calloc(64, sizeof *out);
    CHECK(in && out);
    int rc = coll_begin(comm, &ring_allreduce_info, in, out, 64, COLL_F32, COLL_SUM, 0, &c);
    if (rc != COLL_OK) goto done;
    rc = coll_setup(c, 2, 0, NULL);
    pthread_barrier_wait(&late_bar);         /* everybody is inside the call */
    if (rc != COLL_OK) goto fin;
    if (me == 0) {
        coll_send(c, 1, COLL_BUF_IN, 0, 2);
        coll_copy(c, COLL_BUF_IN, 0, COLL_BUF_OUT, 1, 5); /* out of range */
        rc = coll_step_end(c);
    } else if (me == 1) {
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
        coll_recv(c, 0, COLL_BUF_OUT, 0, 2);
        rc = coll_step_end(c);
        if (rc == COLL_OK) {
            coll_recv(c, 0, COLL_BUF_OUT, 0, 2);
            rc = coll_step_end(c);
        }
    }
fin:
    rc = coll_finish(c, rc);
done:
    memset(in, 0xff, 64 * sizeof *in);
    free(in);
    free(out);
    return rc;
}

static int scen_rank(coll_comm *comm, void *arg) {
    scen *s = arg;
    int me = coll_comm_rank(comm);
    float in[64], out[64];
    for (int i = 0; i < 64; i++) in[i] = (float)me;
    if (s->mode == 0)
        s->rc1[me] = ring_allreduce(comm, in, me == s->bad_rank ? NULL : out, 64, COLL_F32, COLL_SUM);
    else if (s->mode == 1)
        s->rc1[me] = ring_allreduce(comm, in, out, 64, (coll_dtype)77, COLL_SUM);
    else if (s->mode == 2)
        s->rc1[me] = mismatched(comm, in, out);
    else
        s->rc1[me] = late_reader(comm);
    s->rc2[me] = ring_allreduce(comm, in, out, 64, COLL_F32, COLL_SUM);
    if (s->rc2[me] == COLL_OK) {
        float want = 0;
        for (int r = 0; r < coll_comm_size(comm); r++) want += (float)r;
        for (int i = 0; i < 64; i++) CHECK(out[i] == want);
    }
    return 0;
}

static void test_propagation(void) {
    for (int N = 2; N <= 8; N += 3) {
        scen s = {.bad_rank = N / 2, .mode = 0};
        CHECK_EQ(coll_cpu_run(N, scen_rank, &s), 0);
        for (int r = 0; r < N; r++) {
            /* the bad rank reports its own error, the others that it failed;
             * the communicator is unusable afterwards */
            CHECK_EQ(s.rc1[r], r == s.bad_rank ? COLL_ERR_NULL_BUFFER : COLL_ERR_PEER);
            CHECK_EQ(s.rc2[r], COLL_ERR_PEER);
        }
        scen t = {.mode = 1};
        CHECK_EQ(coll_cpu_run(N, scen_rank, &t), 0);
        for (int r = 0; r < N; r++) {
            /* every rank fails alike before communicating: still usable */
            CHECK_EQ(t.rc1[r], COLL_ERR_BAD_DTYPE);
            CHECK_EQ(t.rc2[r], COLL_OK);
        }
        scen v = {.mode = 3};
        pthread_barrier_init(&late_bar, NULL, (unsigned)N);
        CHECK_EQ(coll_cpu_run(N, scen_rank, &v), 0);
        pthread_barrier_destroy(&late_bar);
        CHECK_EQ(v.rc1[0], COLL_ERR_INTERNAL);
        CHECK_EQ(v.rc1[1], COLL_ERR_PEER);
        for (int r = 0; r < N; r++) CHECK_EQ(v.rc2[r], COLL_ERR_PEER);
        scen u = {.mode = 2};
        CHECK_EQ(coll_cpu_run(N, scen_rank, &u), 0);
        CHECK_EQ(u.rc1[1], COLL_ERR_MISMATCH);
        CHECK_EQ(u.rc1[0], COLL_ERR_PEER);
        for (int r = 0; r < N; r++) {
            if (r > 1) CHECK(u.rc1[r] == COLL_OK || u.rc1[r] == COLL_ERR_PEER);
            CHECK_EQ(u.rc2[r], COLL_ERR_PEER);
        }
    }
}

int main(void) {
    test_single_rank_checks();
    test_propagation();
    printf("args: ok\n");
    return 0;
}
