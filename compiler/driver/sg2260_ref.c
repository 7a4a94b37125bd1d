/* sg2260_ref.c - the naive reference (runtime/reference/collref.h) for
 * `collc sim`, behind the plain ints of driver/sg2260_ref.h. */
#include "driver/sg2260_ref.h"
#include "collref.h"
#include "sg2260.h"

static int to_dtype(int t, coll_dtype *out) {
    switch ((Sg2260Dtype)t) {
    case SG2260_INT8: *out = COLL_I8; return 0;
    case SG2260_FP16: *out = COLL_F16; return 0;
    case SG2260_FP32: *out = COLL_F32; return 0;
    case SG2260_INT32: *out = COLL_I32; return 0;
    case SG2260_BF16: *out = COLL_BF16; return 0;
    default: return -1; /* int16, fp20: the reference has no such type */
    }
}

static coll_op to_op(int op) {
    switch ((Sg2260Op)op) {
    case SG2260_OP_MUL: return COLL_PROD;
    case SG2260_OP_MAX: return COLL_MAX;
    case SG2260_OP_MIN: return COLL_MIN;
    default: return COLL_SUM;
    }
}

int sg2260_ref_dtype_ok(int dtype) {
    coll_dtype d;
    return to_dtype(dtype, &d) == 0;
}

size_t sg2260_ref_in_blocks(int coll, int N, int root, int r) {
    return (size_t)collref_in_blocks((coll_collective)coll, N, root, r);
}

size_t sg2260_ref_out_blocks(int coll, int N, int root, int r) {
    return (size_t)collref_out_blocks((coll_collective)coll, N, root, r);
}

void sg2260_ref_fill(int coll, int dtype, int op, int N, int root, int r, size_t count, void *in) {
    coll_dtype d = COLL_F32;
    to_dtype(dtype, &d);
    collref_fill((coll_collective)coll, d, to_op(op), N, root, r, count, in);
}

size_t sg2260_ref_check(int coll, int dtype, int op, int N, int root, size_t count, int r, const void *out) {
    coll_dtype d = COLL_F32;
    to_dtype(dtype, &d);
    return collref_check((coll_collective)coll, d, to_op(op), N, root, count, r, out);
}

void sg2260_ref_value(int coll, int dtype, int op, int N, int root, int r, size_t count, size_t e, void *out) {
    coll_dtype d = COLL_F32;
    to_dtype(dtype, &d);
    (void)coll, (void)N, (void)root, (void)count; /* collref's inputs depend on the rank and index only */
    collref_store(d, out, collref_value(d, to_op(op), r, e));
}

void sg2260_ref_expected(int coll, int dtype, int op, int N, int root, size_t count, int r, size_t e, void *out) {
    coll_dtype d = COLL_F32;
    to_dtype(dtype, &d);
    collref_expected((coll_collective)coll, d, to_op(op), N, root, count, r, e, out);
}
