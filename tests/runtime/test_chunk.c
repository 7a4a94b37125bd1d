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

int main(void) {
    test_geometry();
    test_call_geometry();
    printf("chunk: ok\n");
    return 0;
}
