/* An application using collc-compiled algorithms on 6 threads: two
 * allreduces (an LLVM object and a C source) and two builds of one
 * broadcast with different parameters (PREFIX k1_ / k8_), all declared by
 * the headers collc_add_algorithm wrote. */
#include <coll_cpu.h>
#include <stdio.h>
#include <stdlib.h>

#include "k1_pipelined_ring_broadcast.h"
#include "k8_pipelined_ring_broadcast.h"
#include "ring_allreduce.h"
#include "ring_allreduce_c.h"

enum { NRANKS = 6, COUNT = 1001, ROOT = 4 };
static int failures;

static int fail(int me, const char *what) {
    fprintf(stderr, "rank %d: %s\n", me, what);
    __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
    return 1;
}

static int rank_main(coll_comm *comm, void *arg) {
    (void)arg;
    int me = coll_comm_rank(comm);
    int32_t in[COUNT], out[COUNT], out2[COUNT];
    for (int i = 0; i < COUNT; i++) in[i] = me * 1000 + i;
    int rc = ring_allreduce(comm, in, out, COUNT, COLL_I32, COLL_SUM);
    int rc2 = ring_allreduce_c(comm, in, out2, COUNT, COLL_I32, COLL_SUM);
    if (rc != COLL_OK || rc2 != COLL_OK) {
        fprintf(stderr, "rank %d: %s / %s\n", me, coll_strerror(rc), coll_strerror(rc2));
        return fail(me, "allreduce failed");
    }
    for (int i = 0; i < COUNT; i++) {
        int32_t want = 0;
        for (int r = 0; r < NRANKS; r++) want += r * 1000 + i;
        if (out[i] != want || out2[i] != want) {
            fprintf(stderr, "rank %d element %d: %d %d, want %d\n", me, i, out[i], out2[i], want);
            return fail(me, "allreduce result");
        }
    }
    /* the two builds of one broadcast */
    float b1[COUNT], b8[COUNT], src[COUNT];
    for (int i = 0; i < COUNT; i++) src[i] = me == ROOT ? (float)i * 0.5f : -1.0f;
    if (k1_pipelined_ring_broadcast(comm, src, b1, COUNT, COLL_F32, COLL_SUM, ROOT) != COLL_OK ||
        k8_pipelined_ring_broadcast(comm, src, b8, COUNT, COLL_F32, COLL_SUM, ROOT) != COLL_OK)
        return fail(me, "broadcast failed");
    for (int i = 0; i < COUNT; i++)
        if (b1[i] != (float)i * 0.5f || b8[i] != (float)i * 0.5f) return fail(me, "broadcast result");
    return 0;
}

int main(void) {
    int rc = coll_cpu_run(NRANKS, rank_main, NULL);
    if (rc != COLL_OK || failures) {
        printf("consumer: FAILED (%s)\n", coll_strerror(rc));
        return 1;
    }
    printf("consumer: ring_allreduce OK on %d ranks\n", NRANKS);
    printf("consumer: pipelined_ring_broadcast K=1 and K=8 OK on %d ranks\n", NRANKS);
    return 0;
}
