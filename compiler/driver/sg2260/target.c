/* target.c - the SG2260 target: CDMA, GDMA and VSDMA descriptor programs
 * for N chips (compile.c; the lowering is compiler/sg2260/, the writers
 * emit/emit_sg2260.c); `collc sim` runs them on the engine model
 * (cmd_sim.c). */
#include "driver/sg2260/sg2260_cli.h"
#include "support/util.h"

/* The engine's element types: a switch, so that a DTYPE row added to
 * options.def is a compile error here until it is given its value. */
int sg_dtype(DriverDtype t) {
    switch (t) {
    case DT_F32: return SG2260_FP32;
    case DT_F16: return SG2260_FP16;
    case DT_BF16: return SG2260_BF16;
    case DT_F20: return SG2260_FP20;
    case DT_I8: return SG2260_INT8;
    case DT_I16: return SG2260_INT16;
    case DT_I32: return SG2260_INT32;
    case DT_F64: case DT_U8: case DT_U32: case DT_I64: case DT_U64: return -1;
    case DT__COUNT: break;
    }
    COLLC_UNREACHABLE("element type");
}

int sg_op(DriverOp op) {
    switch (op) {
    case OP_SUM: return SG2260_OP_ADD;
    case OP_PROD: return SG2260_OP_MUL;
    case OP_MAX: return SG2260_OP_MAX;
    case OP_MIN: return SG2260_OP_MIN;
    case OP_BAND: case OP_BOR: case OP_BXOR: return -1;
    case OP__COUNT: break;
    }
    COLLC_UNREACHABLE("reduction operator");
}

/* The engine's names: fp32, int8 (sg2260_dtype_name). */
static const char *sg_dtype_name(DriverDtype t) {
    int v = sg_dtype(t);
    return v >= 0 ? sg2260_dtype_name((Sg2260Dtype)v) : driver_dtypes[t].name;
}

const Target target_sg2260 = {
    .name = "sg2260",
    .summary = "descriptor programs for N SG2260 chips, with options of their own: collc compile "
               "--target=sg2260 --help",
    .fixed_n = "chips",
    .emits = sg_emits,
    .commands = CMD_BIT(sim),
    .engine = "the SG2260 CDMA engine",
    .dtype = sg_dtype,
    .op = sg_op,
    .dtype_name = sg_dtype_name,
    .machine = &sg_machine,
    .options = sg_compile_options,
    .compile = sg_compile,
};
