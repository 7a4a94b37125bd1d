/* dtype.c - data types, operators, status strings and the public local
 * reduction / conversion helpers. */
#include <string.h>
#include "collrt_internal.h"
#include "half.h"

static const char *const status_text[COLL_STATUS_COUNT] = {
    [COLL_OK] = "success",
    [COLL_ERR_NULL_COMM] = "communicator (or world/output pointer) is NULL",
    [COLL_ERR_NULL_BUFFER] = "a buffer this rank needs is NULL while count > 0",
    [COLL_ERR_BAD_DTYPE] = "unknown data type",
    [COLL_ERR_BAD_OP] = "unknown reduction operator",
    [COLL_ERR_OP_DTYPE] = "reduction operator not defined for this data type",
    [COLL_ERR_BAD_COUNT] = "count too large (buffer size overflows)",
    [COLL_ERR_NOT_APPLICABLE] = "algorithm does not apply to this number of ranks (require failed)",
    [COLL_ERR_BAD_ROOT] = "root outside [0, number of ranks)",
    [COLL_ERR_OVERLAP] = "send and receive buffers overlap but the call is not in place",
    [COLL_ERR_IN_PLACE] = "COLL_IN_PLACE is not allowed for this collective or rank",
    [COLL_ERR_NOMEM] = "out of memory",
    [COLL_ERR_BAD_RANK] = "rank outside [0, number of ranks) or already joined",
    [COLL_ERR_BAD_SIZE] = "number of ranks outside the target's limits",
    [COLL_ERR_ABI] = "object compiled for a different runtime ABI version",
    [COLL_ERR_PEER] = "another rank failed this call; the communicator is unusable",
    [COLL_ERR_TRANSPORT] = "transport failure",
    [COLL_ERR_INTERNAL] = "internal error (ranks disagree on the schedule, or a chunk range is out of bounds)",
    [COLL_ERR_BUSY] = "ranks are still joined to this world",
    [COLL_ERR_MISMATCH] = "the ranks disagree on the call: a message is not the length this rank expects "
                          "(count or datatype differ between ranks)",
};

const char *coll_strerror(int status) {
    if (status < 0 || status >= COLL_STATUS_COUNT || !status_text[status])
        return "unknown status";
    return status_text[status];
}

static const struct { const char *name; size_t size; } dtypes[COLL_DTYPE_COUNT] = {
    [COLL_I8] = {"i8", 1},   [COLL_U8] = {"u8", 1},     [COLL_I32] = {"i32", 4},
    [COLL_U32] = {"u32", 4}, [COLL_I64] = {"i64", 8},   [COLL_U64] = {"u64", 8},
    [COLL_F16] = {"f16", 2}, [COLL_F32] = {"f32", 4},   [COLL_F64] = {"f64", 8},
    [COLL_BF16] = {"bf16", 2},
};

static const char *const op_names[COLL_OP_COUNT] = {
    "sum", "prod", "max", "min", "band", "bor", "bxor",
};

size_t coll_dtype_size(coll_dtype dtype) {
    return (unsigned)dtype < COLL_DTYPE_COUNT ? dtypes[dtype].size : 0;
}

const char *coll_dtype_name(coll_dtype dtype) {
    return (unsigned)dtype < COLL_DTYPE_COUNT ? dtypes[dtype].name : "?";
}

const char *coll_op_name(coll_op op) {
    return (unsigned)op < COLL_OP_COUNT ? op_names[op] : "?";
}

int coll_dtype_from_name(const char *name, coll_dtype *out) {
    /* collc's --dtype spellings (compiler/driver/options.def's DTYPE rows;
     * tests/driver/dtype-names.test holds the two to each other) */
    static const struct { const char *alias; coll_dtype dt; } aliases[] = {
        {"int8", COLL_I8},     {"uint8", COLL_U8},     {"int32", COLL_I32},
        {"uint32", COLL_U32},  {"int64", COLL_I64},    {"uint64", COLL_U64},
        {"float16", COLL_F16}, {"half", COLL_F16},     {"fp16", COLL_F16},
        {"float32", COLL_F32}, {"float", COLL_F32},    {"fp32", COLL_F32},
        {"float64", COLL_F64}, {"double", COLL_F64},   {"fp64", COLL_F64},
        {"bfloat16", COLL_BF16},
    };
    if (!name || !out) return -1;
    for (int i = 0; i < COLL_DTYPE_COUNT; i++)
        if (strcmp(name, dtypes[i].name) == 0) { *out = (coll_dtype)i; return 0; }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(name, aliases[i].alias) == 0) { *out = aliases[i].dt; return 0; }
    return -1;
}

int coll_op_from_name(const char *name, coll_op *out) {
    if (!name || !out) return -1;
    for (int i = 0; i < COLL_OP_COUNT; i++)
        if (strcmp(name, op_names[i]) == 0) { *out = (coll_op)i; return 0; }
    return -1;
}

int coll_op_supported(coll_dtype dtype, coll_op op) {
    if ((unsigned)dtype >= COLL_DTYPE_COUNT) return COLL_ERR_BAD_DTYPE;
    if ((unsigned)op >= COLL_OP_COUNT) return COLL_ERR_BAD_OP;
    return collrt_kernels_for(dtype, op) ? COLL_OK : COLL_ERR_OP_DTYPE;
}

int coll_reduce3(void *dst, const void *a, const void *b, size_t count,
                 coll_dtype dtype, coll_op op) {
    int rc = coll_op_supported(dtype, op);
    if (rc != COLL_OK) return rc;
    if (count == 0) return COLL_OK;
    if (!dst || !a || !b) return COLL_ERR_NULL_BUFFER;
    size_t esz = coll_dtype_size(dtype);
    if (count > SIZE_MAX / esz) return COLL_ERR_BAD_COUNT;
    collrt_reduce(collrt_kernels_for(dtype, op), esz, dst, a, b, count);
    return COLL_OK;
}

int coll_reduce_local(void *dst, const void *src, size_t count, coll_dtype dtype,
                      coll_op op) {
    return coll_reduce3(dst, dst, src, count, dtype, op);
}

float coll_f16_to_f32(uint16_t h) { return collrt_h2f(h); }
uint16_t coll_f32_to_f16(float f) { return collrt_f2h(f); }
float coll_bf16_to_f32(uint16_t h) { return collrt_bf2f(h); }
uint16_t coll_f32_to_bf16(float f) { return collrt_f2bf(f); }
