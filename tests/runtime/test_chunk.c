/* test_chunk.c - chunk geometry: uneven counts, count < chunks (empty
 * chunks), ranges across block boundaries, and what a call reports for its
 * buffers. */
#include "ring_algos.h"
#include "rt_ref.h"

static void test_geometry(void) {
    for (size_t count = 0; count <= 70; count++)
        for (int64_t P = 1; P <= 17; P++) {
            size_t q = count / (size_t)P, r = count % (size_t)P;
            size_t sum = 0, mn = SIZE_MAX, mx = 0;
            for (int64_t blk = 0; blk < 3; blk++)
                for (int64_t k = 0; k < P; k++) {
                    int64_t c = blk * P + k;
                    size_t len = coll_chunk_len(count, P, c);
                    size_t off = coll_chunk_offset(count, P, c);
                    /* contiguous: chunk c ends where chunk c+1 starts */
                    CHECK_EQ(off + len, coll_chunk_offset(count, P, c + 1));
                    /* the first count % P positions are one longer */
                    CHECK_EQ(len, q + ((size_t)k < r));
                    if (blk == 0) {
                        sum += len;
                        if (len < mn) mn = len;
                        if (len > mx) mx = len;
                    }
                    if (k == 0) CHECK_EQ(off, (size_t)blk * count);
                }
            CHECK_EQ(sum, count);
            CHECK(mx - mn <= 1);
            CHECK_EQ(coll_chunk_offset(count, P, 3 * P), 3 * count);
        }
    /* count < P: the first `count` chunks hold one element, the rest none */
    CHECK_EQ(coll_chunk_len(3, 8, 2), 1);
    CHECK_EQ(coll_chunk_len(3, 8, 3), 0);
    CHECK_EQ(coll_chunk_offset(3, 8, 7), 3);
    CHECK_EQ(coll_chunk_offset(3, 8, 8 + 2), 3 + 2);
    /* large counts do not overflow */
    size_t big = (size_t)1 << 40;
    CHECK_EQ((big + 3) % 7, 5);
    CHECK_EQ(coll_chunk_offset(big + 3, 7, 7 * 3 + 6), 3 * (big + 3) + 6 * ((big + 3) / 7) + 5);
    /* invalid split */
    CHECK_EQ(coll_chunk_offset(10, 0, 1), 0);
    CHECK_EQ(coll_chunk_len(10, -1, 1), 0);
}

static const coll_alg_info ag_info = {COLL_ABI_VERSION, "probe", COLL_ALLGATHER, 0};

/* A rank-1-of-4 allgather call that only inspects its geometry. */
static void test_call_geometry(void) {
    coll_world *w;
    coll_comm *c;
    CHECK_EQ(coll_comm_create_cpu(4, &w), COLL_OK);
    CHECK_EQ(coll_comm_join(w, 1, &c), COLL_OK);
    float in[10], out[40];
    coll_call *call;
    CHECK_EQ(coll_begin(c, &ag_info, in, out, 10, COLL_F32, COLL_SUM, 0, &call), COLL_OK);
    int64_t scratch[2] = {7, 0};
    CHECK_EQ(coll_setup(call, 3, 2, scratch), COLL_OK);
    CHECK_EQ(coll_buf_chunks(call, COLL_BUF_IN), 3);
    CHECK_EQ(coll_buf_chunks(call, COLL_BUF_OUT), 12);
    CHECK_EQ(coll_buf_chunks(call, COLL_BUF_SCRATCH0), 7);
    CHECK_EQ(coll_buf_chunks(call, COLL_BUF_SCRATCH0 + 1), 0);
    CHECK(coll_buf_ptr(call, COLL_BUF_IN) == (void *)in);
    CHECK(coll_buf_ptr(call, COLL_BUF_OUT) == (void *)out);
    CHECK(coll_buf_ptr(call, COLL_BUF_SCRATCH0) != NULL);
    CHECK(coll_buf_ptr(call, COLL_BUF_SCRATCH0 + 1) == NULL);
    CHECK_EQ((uintptr_t)coll_buf_ptr(call, COLL_BUF_SCRATCH0) % 64, 0);
    CHECK_EQ(coll_call_count(call), 10);
    CHECK_EQ(coll_call_elem_size(call), 4);
    CHECK_EQ(coll_call_in_place(call), 0);
    /* a local copy across a block boundary: out chunks [2, 5) are positions
     * 2, 0, 1 (3 + 4 + 3 elements) = elements [7, 17) */
    for (int i = 0; i < 10; i++) in[i] = (float)i;
    for (int i = 0; i < 40; i++) out[i] = -1;
    coll_copy(call, COLL_BUF_IN, 0, COLL_BUF_OUT, 2, 3);
    CHECK_EQ(coll_step_end(call), COLL_OK);
    for (int i = 0; i < 40; i++) CHECK(out[i] == (i >= 7 && i < 17 ? (float)(i - 7) : -1.0f));
    /* chunk 0 (4 elements) into chunk 1 (3 elements): a schedule bug */
    coll_copy(call, COLL_BUF_IN, 0, COLL_BUF_OUT, 1, 1);
    CHECK_EQ(coll_step_end(call), COLL_ERR_INTERNAL);
    CHECK_EQ(coll_finish(call, COLL_OK), COLL_ERR_INTERNAL);
    CHECK_EQ(coll_comm_destroy(c), COLL_OK);
    CHECK_EQ(coll_world_destroy(w), COLL_OK);
}

static const coll_alg_info ar_chunk_info = {COLL_ABI_VERSION, "deferral probe", COLL_ALLREDUCE,
                                            COLL_ALG_CHUNK_CALLS_ONLY};

/* Deferred copies into a scratch buffer (one rank): reads of pending chunks
 * take `in`, a reduce into them fuses, an overwrite drops them, a partly
 * pending read materialises the pending part, and what is still pending in
 * scratch at the end is never copied. count 8, split 4: chunks of 2. */
static void test_scratch_deferral(void) {
    coll_world *w;
    coll_comm *c;
    CHECK_EQ(coll_comm_create_cpu(1, &w), COLL_OK);
    CHECK_EQ(coll_comm_join(w, 0, &c), COLL_OK);
    float in[8], out[8];
    for (int i = 0; i < 8; i++) in[i] = (float)(i + 1), out[i] = -5;
    coll_call *call;
    CHECK_EQ(coll_begin(c, &ar_chunk_info, in, out, 8, COLL_F32, COLL_SUM, 0, &call), COLL_OK);
    int64_t scratch[2] = {4, 4};
    CHECK_EQ(coll_setup(call, 4, 2, scratch), COLL_OK);
    float *acc = coll_buf_ptr(call, COLL_BUF_SCRATCH0), *tmp = coll_buf_ptr(call, COLL_BUF_SCRATCH0 + 1);
    for (int i = 0; i < 8; i++) acc[i] = -1, tmp[i] = 100;
    coll_copy(call, COLL_BUF_IN, 0, COLL_BUF_SCRATCH0, 0, 4);
    CHECK_EQ(coll_step_end(call), COLL_OK);
    for (int i = 0; i < 8; i++) CHECK(acc[i] == -1); /* deferred */
    coll_reduce(call, COLL_BUF_IN, 0, COLL_BUF_SCRATCH0, 0, 1);  /* fused: in0 + in0 */
    coll_copy(call, COLL_BUF_SCRATCH0 + 1, 2, COLL_BUF_SCRATCH0, 2, 1); /* overwrite */
    CHECK_EQ(coll_step_end(call), COLL_OK);
    CHECK(acc[0] == 2 && acc[1] == 4 && acc[4] == 100 && acc[5] == 100);
    CHECK(acc[2] == -1 && acc[3] == -1 && acc[6] == -1 && acc[7] == -1);
    coll_copy(call, COLL_BUF_SCRATCH0, 1, COLL_BUF_OUT, 1, 3); /* partly pending */
    coll_copy(call, COLL_BUF_SCRATCH0, 0, COLL_BUF_OUT, 0, 1);
    CHECK_EQ(coll_step_end(call), COLL_OK);
    CHECK(acc[2] == 3 && acc[3] == 4 && acc[6] == 7 && acc[7] == 8); /* materialised */
    CHECK_EQ(coll_finish(call, COLL_OK), COLL_OK);
    const float want[8] = {2, 4, 3, 4, 100, 100, 7, 8};
    for (int i = 0; i < 8; i++) CHECK(out[i] == want[i]);

    /* pending scratch chunks are dropped; pending out chunks are flushed,
     * reading through scratch: out[1] := acc[1] := in[1] */
    CHECK_EQ(coll_begin(c, &ar_chunk_info, in, out, 8, COLL_F32, COLL_SUM, 0, &call), COLL_OK);
    CHECK_EQ(coll_setup(call, 4, 2, scratch), COLL_OK);
    acc = coll_buf_ptr(call, COLL_BUF_SCRATCH0);
    for (int i = 0; i < 8; i++) acc[i] = -1, out[i] = -5;
    coll_copy(call, COLL_BUF_IN, 0, COLL_BUF_SCRATCH0, 0, 4);
    CHECK_EQ(coll_step_end(call), COLL_OK);
    coll_copy(call, COLL_BUF_SCRATCH0, 1, COLL_BUF_OUT, 1, 1);
    CHECK_EQ(coll_finish(call, COLL_OK), COLL_OK);
    for (int i = 0; i < 8; i++) CHECK(acc[i] == -1);
    for (int i = 0; i < 8; i++) CHECK(out[i] == (i == 2 || i == 3 ? (float)(i + 1) : -5.0f));
    CHECK_EQ(coll_comm_destroy(c), COLL_OK);
    CHECK_EQ(coll_world_destroy(w), COLL_OK);
}

static const coll_alg_info a2a_cow_info = {COLL_ABI_VERSION, "copy-on-write probe", COLL_ALLTOALL,
                                           COLL_ALG_CHUNK_CALLS_ONLY};

/* In-place copy on write (one rank, alltoall in place, split 2): one step
 * swaps the two halves: in chunk 1 is saved before out chunk 1 (its memory)
 * is written, the write to out chunk 0 (the memory of in chunk 0, read in
 * the same step) is redirected and landed after the step. One rank runs its
 * local operations in order, so only the e2e in-place alltoall tests (a
 * peer reading in chunk 0 while out chunk 0 is received) show a missing
 * redirect. The last call leaves its input untouched: an identity copy moves
 * nothing. */
static void test_copy_on_write(void) {
    coll_world *w;
    coll_comm *c;
    CHECK_EQ(coll_comm_create_cpu(1, &w), COLL_OK);
    CHECK_EQ(coll_comm_join(w, 0, &c), COLL_OK);
    double buf[7];
    for (int i = 0; i < 7; i++) buf[i] = i;
    coll_call *call;
    CHECK_EQ(coll_begin(c, &a2a_cow_info, COLL_IN_PLACE, buf, 7, COLL_F64, COLL_SUM, 0, &call), COLL_OK);
    CHECK_EQ(coll_call_in_place(call), 1);
    CHECK_EQ(coll_setup(call, 2, 0, NULL), COLL_OK);
    CHECK(coll_buf_ptr(call, COLL_BUF_IN) == (void *)buf); /* no private copy */
    coll_copy(call, COLL_BUF_IN, 0, COLL_BUF_OUT, 1, 1); /* 4 elements: sizes differ */
    CHECK_EQ(coll_step_end(call), COLL_ERR_INTERNAL);
    CHECK_EQ(coll_finish(call, COLL_OK), COLL_ERR_INTERNAL);

    /* count 8: chunks of 4 */
    double b8[8];
    for (int i = 0; i < 8; i++) b8[i] = i;
    CHECK_EQ(coll_begin(c, &a2a_cow_info, COLL_IN_PLACE, b8, 8, COLL_F64, COLL_SUM, 0, &call), COLL_OK);
    CHECK_EQ(coll_setup(call, 2, 0, NULL), COLL_OK);
    coll_copy(call, COLL_BUF_IN, 0, COLL_BUF_OUT, 1, 1);
    coll_copy(call, COLL_BUF_IN, 1, COLL_BUF_OUT, 0, 1);
    CHECK_EQ(coll_step_end(call), COLL_OK);
    for (int i = 0; i < 8; i++) CHECK(b8[i] == (i + 4) % 8);
    /* in chunk 0 is still readable (from the save area): the copy into its
     * own memory is a real copy now */
    coll_copy(call, COLL_BUF_IN, 0, COLL_BUF_OUT, 0, 1);
    CHECK_EQ(coll_finish(call, COLL_OK), COLL_OK);
    const double want[8] = {0, 1, 2, 3, 0, 1, 2, 3};
    for (int i = 0; i < 8; i++) CHECK(b8[i] == want[i]);

    for (int i = 0; i < 8; i++) b8[i] = i;
    CHECK_EQ(coll_begin(c, &a2a_cow_info, b8, b8, 8, COLL_F64, COLL_SUM, 0, &call), COLL_OK);
    CHECK_EQ(coll_setup(call, 2, 0, NULL), COLL_OK);
    coll_copy(call, COLL_BUF_IN, 0, COLL_BUF_OUT, 0, 2);
    CHECK_EQ(coll_finish(call, COLL_OK), COLL_OK);
    for (int i = 0; i < 8; i++) CHECK(b8[i] == i);
    CHECK_EQ(coll_comm_destroy(c), COLL_OK);
    CHECK_EQ(coll_world_destroy(w), COLL_OK);
}

int main(void) {
    test_geometry();
    test_call_geometry();
    test_scratch_deferral();
    test_copy_on_write();
    printf("chunk: ok\n");
    return 0;
}
