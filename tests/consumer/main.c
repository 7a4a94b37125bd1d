/* An application using two collc-compiled allreduces on 6 threads. */
#include <coll_cpu.h>
#include <stdio.h>
#include <stdlib.h>

int ring_allreduce(coll_comm *comm, const void *sendbuf, void *recvbuf, size_t count,
                   coll_dtype dtype, coll_op op);
int ring_allreduce_c(coll_comm *comm, const void *sendbuf, void *recvbuf, size_t count,
                     coll_dtype dtype, coll_op op);

enum { NRANKS = 6, COUNT = 1001 };
static int failures;

static int rank_main(coll_comm *comm, void *arg) {
    (void)arg;
    int me = coll_comm_rank(comm);
    int32_t in[COUNT], out[COUNT], out2[COUNT];
    for (int i = 0; i < COUNT; i++) in[i] = me * 1000 + i;
    int rc = ring_allreduce(comm, in, out, COUNT, COLL_I32, COLL_SUM);
    int rc2 = ring_allreduce_c(comm, in, out2, COUNT, COLL_I32, COLL_SUM);
    if (rc != COLL_OK || rc2 != COLL_OK) {
        fprintf(stderr, "rank %d: %s / %s\n", me, coll_strerror(rc), coll_strerror(rc2));
        __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
        return 1;
    }
    for (int i = 0; i < COUNT; i++) {
        int32_t want = 0;
        for (int r = 0; r < NRANKS; r++) want += r * 1000 + i;
        if (out[i] != want || out2[i] != want) {
            fprintf(stderr, "rank %d element %d: %d %d, want %d\n", me, i, out[i], out2[i], want);
            __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
            return 1;
        }
    }
    return 0;
}

int main(void) {
    int rc = coll_cpu_run(NRANKS, rank_main, NULL);
    if (rc != COLL_OK || failures) {
        printf("consumer: FAILED (%s)\n", coll_strerror(rc));
        return 1;
    }
    printf("consumer: ring_allreduce OK on %d ranks\n", NRANKS);
    return 0;
}
