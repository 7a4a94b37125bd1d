/* desc.c - descriptor encode/decode, static checks, program and bundle
 * images.
 *
 * A descriptor is a list of 128-bit words, each stored as two 64-bit halves
 * (low, then high), each half little-endian. The layouts below are the
 * single source of truth for the field tables of docs/sg2260.md section 2:
 * they are the layouts of SOPHGO's TPU1686 firmware command generators
 * (docs/references.md [SG-fw]): the CDMA commands of atomic_cdma_gen_cmd.c,
 * the GDMA and SDMA/VSDMA tensor descriptors (96 bytes, with the reduce word
 * of the GDMA's reducing move) and their short SYS form. tests/sg2260/
 * test_golden.c compares the words with its own re-typing of those
 * generators, test_encode.c every field with a transcription of the table. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

/* The fields a descriptor can hold. */
typedef enum FieldId {
    F_INTR,      /* interrupt enable: set on SEND and on END */
    F_STRIDE,    /* stride_enable: the strides are not the contiguous ones */
    F_NCHW,      /* nchw_copy: not modelled, must be 0 */
    F_CMD,       /* cmd_type */
    F_FILL,      /* WRITE: fill the destination with a constant */
    F_DTYPE,     /* data format */
    F_SRC_H,     /* source address bits 32-44 */
    F_SRC_L,     /* source address bits 0-31 */
    F_DST_H,     /* destination address bits 32-44 */
    F_DST_L,     /* destination address bits 0-31 */
    F_PSUM,      /* SEND: psum_op */
    F_OP,        /* reduce op at the destination */
    F_SRC_CHIP,  /* source chip (READ: the remote chip) */
    F_DST_CHIP,  /* destination chip (READ: the local chip) */
    F_LEN,       /* GENERAL: byte length */
    F_SN, F_SC, F_SH, F_SW,       /* source (or SEND/RECV) view */
    F_SSN, F_SSC, F_SSH,          /* its strides */
    F_DN, F_DC, F_DH, F_DW,       /* destination view */
    F_DSN, F_DSC, F_DSH,          /* its strides */
    F_SYS,       /* SYS subtype */
    F_MSG_ID,    /* SYS message id */
    F_MSG_CNT,   /* SYS message count */
    F_TRWR,      /* SYS TRWR value */
    F_SRC_A,     /* GDMA/VSDMA: source address, 45 bits */
    F_DST_A,     /* GDMA/VSDMA: destination address, 45 bits */
    F_SSW,       /* GDMA/VSDMA: source W stride (1: W is contiguous) */
    F_DSW,       /* GDMA/VSDMA: destination W stride (1) */
    F_DEP,       /* GDMA: bit 20 of word 0's high half, which the firmware sets */
    F_LANE,      /* GDMA/VSDMA: lane mask (all ones) */
    F_ARE_DT,    /* GDMA reduce word: ARE dtype */
    F_ARE_EN,    /* GDMA reduce word: enable */
    F_SHORT,     /* GDMA/VSDMA SYS: cmd_short, the one-word form */
    F_COUNT
} FieldId;

/* One field: word (128-bit), half (0 low, 1 high), first bit in the half,
 * width. */
typedef struct Field {
    uint8_t id, word, half, lo, width;
} Field;

/* X(field, word, half, lo, width) */
#define LAYOUT_SEND(X)                                                                        \
    X(F_INTR, 0, 0, 0, 1) X(F_STRIDE, 0, 0, 1, 1) X(F_NCHW, 0, 0, 2, 1) X(F_CMD, 0, 0, 4, 4)   \
    X(F_DTYPE, 0, 0, 12, 4) X(F_SRC_H, 0, 0, 16, 13) X(F_PSUM, 0, 0, 29, 1)                   \
    X(F_SSN, 0, 0, 32, 32) X(F_SSC, 0, 1, 0, 32) X(F_SSH, 0, 1, 32, 32)                       \
    X(F_SN, 1, 0, 0, 16) X(F_SC, 1, 0, 16, 16) X(F_SH, 1, 0, 32, 32)                          \
    X(F_SW, 1, 1, 0, 32) X(F_SRC_L, 1, 1, 32, 32)
/* RECV's view and address are its destination; the dtype sits one bit lower. */
#define LAYOUT_RECV(X)                                                                        \
    X(F_STRIDE, 0, 0, 1, 1) X(F_CMD, 0, 0, 4, 4) X(F_DTYPE, 0, 0, 11, 4)                      \
    X(F_DST_H, 0, 0, 16, 13) X(F_OP, 0, 0, 29, 3)                                             \
    X(F_SSN, 0, 0, 32, 32) X(F_SSC, 0, 1, 0, 32) X(F_SSH, 0, 1, 32, 32)                       \
    X(F_SN, 1, 0, 0, 16) X(F_SC, 1, 0, 16, 16) X(F_SH, 1, 0, 32, 32)                          \
    X(F_SW, 1, 1, 0, 32) X(F_DST_L, 1, 1, 32, 32)
#define LAYOUT_GENERAL(X)                                                                     \
    X(F_CMD, 0, 0, 4, 4) X(F_DTYPE, 0, 0, 12, 4) X(F_SRC_H, 0, 0, 16, 13)                     \
    X(F_DST_H, 0, 0, 32, 13) X(F_SRC_CHIP, 0, 0, 45, 4) X(F_DST_CHIP, 0, 0, 49, 4)            \
    X(F_LEN, 0, 1, 0, 32) X(F_SRC_L, 0, 1, 32, 32) X(F_DST_L, 1, 0, 0, 32)
/* READ and WRITE; WRITE's fill constant takes the source n-stride's place. */
#define LAYOUT_RW(X)                                                                          \
    X(F_STRIDE, 0, 0, 1, 1) X(F_NCHW, 0, 0, 2, 1) X(F_CMD, 0, 0, 4, 4) X(F_FILL, 0, 0, 11, 1) \
    X(F_DTYPE, 0, 0, 12, 4) X(F_SRC_H, 0, 0, 16, 13) X(F_DST_H, 0, 0, 32, 13)                 \
    X(F_SRC_CHIP, 0, 0, 45, 4) X(F_DST_CHIP, 0, 0, 49, 4)                                     \
    X(F_SSN, 0, 1, 0, 32) X(F_SSC, 0, 1, 32, 32)                                              \
    X(F_SSH, 1, 0, 0, 32) X(F_DSN, 1, 0, 32, 32) X(F_DSC, 1, 1, 0, 32) X(F_DSH, 1, 1, 32, 32) \
    X(F_SN, 2, 0, 0, 16) X(F_SC, 2, 0, 16, 16) X(F_SH, 2, 0, 32, 32)                          \
    X(F_SW, 2, 1, 0, 32) X(F_DN, 2, 1, 32, 16) X(F_DC, 2, 1, 48, 16)                          \
    X(F_DH, 3, 0, 0, 32) X(F_DW, 3, 0, 32, 32) X(F_SRC_L, 3, 1, 0, 32) X(F_DST_L, 3, 1, 32, 32)
/* CDMA SYS: message commands carry id and count, TRWR a 32-bit value. */
#define LAYOUT_SYS(X) X(F_INTR, 0, 0, 0, 1) X(F_CMD, 0, 0, 4, 4) X(F_SYS, 0, 0, 8, 4)
#define LAYOUT_SYS_MSG(X) LAYOUT_SYS(X) X(F_MSG_ID, 0, 0, 32, 9) X(F_MSG_CNT, 0, 0, 48, 7)
#define LAYOUT_SYS_TRWR(X) LAYOUT_SYS(X) X(F_TRWR, 0, 0, 32, 32)
/* GDMA/VSDMA tensor descriptor (6 words, 96 bytes): tensor_general_move
 * (GDMA), sdma_tensor_general_move (VSDMA); COPY and REDUCE are its
 * GDMA_TENSOR command, REDUCE with the reduce word of
 * tensor_general_move_reduce (ARE dtype, op, psum, enable) in word 5. */
#define LAYOUT_TENSOR(X)                                                                      \
    X(F_STRIDE, 0, 0, 1, 1) X(F_CMD, 0, 0, 32, 5) X(F_DTYPE, 0, 0, 41, 4) X(F_DEP, 0, 1, 20, 1) \
    X(F_SSN, 1, 0, 0, 32) X(F_SSC, 1, 0, 32, 32) X(F_SSH, 1, 1, 0, 32) X(F_SSW, 1, 1, 32, 32) \
    X(F_DSN, 2, 0, 0, 32) X(F_DSC, 2, 0, 32, 32) X(F_DSH, 2, 1, 0, 32) X(F_DSW, 2, 1, 32, 32) \
    X(F_SN, 3, 0, 0, 16) X(F_SC, 3, 0, 16, 16) X(F_SH, 3, 0, 32, 16) X(F_SW, 3, 0, 48, 16)    \
    X(F_DN, 3, 1, 0, 16) X(F_DC, 3, 1, 16, 16) X(F_DH, 3, 1, 32, 16) X(F_DW, 3, 1, 48, 16)    \
    X(F_SRC_A, 4, 0, 0, 45) X(F_DST_A, 4, 1, 0, 45)                                           \
    X(F_ARE_DT, 5, 0, 0, 4) X(F_OP, 5, 0, 4, 4) X(F_PSUM, 5, 0, 8, 1) X(F_ARE_EN, 5, 0, 15, 1) \
    X(F_LANE, 5, 1, 0, 64)
/* GDMA/VSDMA short SYS (1 word): cmd_short, GDMA_SYS at 32-36, the
 * subtype at 37-40; messages hold id and count in the high half. */
#define LAYOUT_LSYS(X) \
    X(F_INTR, 0, 0, 0, 1) X(F_SHORT, 0, 0, 3, 1) X(F_CMD, 0, 0, 32, 5) X(F_SYS, 0, 0, 37, 4) X(F_DEP, 0, 1, 20, 1)
#define LAYOUT_LSYS_MSG(X) LAYOUT_LSYS(X) X(F_MSG_ID, 0, 1, 32, 9) X(F_MSG_CNT, 0, 1, 41, 7)
#define LAYOUT_LSYS_TRWR(X) LAYOUT_LSYS(X) X(F_TRWR, 0, 1, 32, 32)

#define FIELD(id, word, half, lo, width) {id, word, half, lo, width},
static const Field layout_send[] = {LAYOUT_SEND(FIELD)};
static const Field layout_recv[] = {LAYOUT_RECV(FIELD)};
static const Field layout_general[] = {LAYOUT_GENERAL(FIELD)};
static const Field layout_rw[] = {LAYOUT_RW(FIELD)};
static const Field layout_sys[] = {LAYOUT_SYS(FIELD)};
static const Field layout_sys_msg[] = {LAYOUT_SYS_MSG(FIELD)};
static const Field layout_sys_trwr[] = {LAYOUT_SYS_TRWR(FIELD)};
static const Field layout_tensor[] = {LAYOUT_TENSOR(FIELD)};
static const Field layout_lsys[] = {LAYOUT_LSYS(FIELD)};
static const Field layout_lsys_msg[] = {LAYOUT_LSYS_MSG(FIELD)};
static const Field layout_lsys_trwr[] = {LAYOUT_LSYS_TRWR(FIELD)};
#undef FIELD

typedef struct Layout {
    const Field *f;
    int n;
    int words;
} Layout;
#define LAYOUT(a, w) ((Layout){a, (int)(sizeof a / sizeof a[0]), w})

/* cmd_type of the GDMA/VSDMA descriptors (GDMA_TYPE, SDMA_TYPE). */
enum { LOCAL_TENSOR = 0, LOCAL_SYS = 6 };
/* Their SYS subtypes (GDMA_SYS_TYPE, SDMA_SYS_TYPE): END, NOP, TRWR as
 * CDMA's, then SEND_MSG 3 and WAIT_MSG 4. */
enum { LOCAL_SYS_SEND = 3, LOCAL_SYS_WAIT = 4 };
/* The GDMA's reduce word: psum_op RW (read-modify-write) and the ARE dtype
 * of each dtype (GDMA_ARE_TYPE: FP32 0, FP20 1, FP16 2, BF16 3, INT32 4;
 * 15: the dtype does not reduce). */
enum { LOCAL_PSUM_RW = 1, ARE_NONE = 15 };
static unsigned are_dtype(Sg2260Dtype t) {
    switch (t) {
    case SG2260_FP32: return 0;
    case SG2260_FP20: return 1;
    case SG2260_FP16: return 2;
    case SG2260_BF16: return 3;
    case SG2260_INT32: return 4;
    case SG2260_INT8:
    case SG2260_INT16: return ARE_NONE;
    }
    return ARE_NONE;
}

static int is_msg(Sg2260Sys s) {
    return s == SG2260_SYS_TX_SEND_MSG || s == SG2260_SYS_RX_SEND_MSG || s == SG2260_SYS_TX_WAIT_MSG ||
           s == SG2260_SYS_RX_WAIT_MSG || s == SG2260_SYS_SEND_MSG || s == SG2260_SYS_WAIT_MSG;
}

static Layout sys_layout(Sg2260Engine e, Sg2260Sys s) {
    if (e != SG2260_CDMA) {
        if (is_msg(s)) return LAYOUT(layout_lsys_msg, 1);
        if (s == SG2260_SYS_TRWR) return LAYOUT(layout_lsys_trwr, 1);
        return LAYOUT(layout_lsys, 1);
    }
    if (is_msg(s)) return LAYOUT(layout_sys_msg, 1);
    if (s == SG2260_SYS_TRWR) return LAYOUT(layout_sys_trwr, 1);
    return LAYOUT(layout_sys, 1);
}

/* The layout of cmd on engine e; words 0 when it has none. */
static Layout layout_of(Sg2260Engine e, Sg2260Cmd cmd, Sg2260Sys sys) {
    Layout none = {NULL, 0, 0};
    if (cmd == SG2260_CMD_SYS) return sys_layout(e, sys);
    if (e == SG2260_CDMA) {
        switch (cmd) {
        case SG2260_CMD_SEND: return LAYOUT(layout_send, 2);
        case SG2260_CMD_RECV: return LAYOUT(layout_recv, 2);
        case SG2260_CMD_GENERAL: return LAYOUT(layout_general, 2);
        case SG2260_CMD_READ:
        case SG2260_CMD_WRITE: return LAYOUT(layout_rw, 4);
        default: return none;
        }
    }
    if (cmd == SG2260_CMD_COPY || (cmd == SG2260_CMD_REDUCE && e == SG2260_GDMA)) return LAYOUT(layout_tensor, 6);
    return none;
}

static int bit_of(const Field *f) { return f->word * 128 + f->half * 64 + f->lo; }

static void put(uint64_t *w, int off, int width, uint64_t v) {
    for (int i = 0; i < width; i++) {
        int b = off + i;
        if ((v >> i) & 1) w[b / 64] |= UINT64_C(1) << (b % 64);
    }
}

static uint64_t get(const uint64_t *w, int off, int width) {
    uint64_t v = 0;
    for (int i = 0; i < width; i++) {
        int b = off + i;
        v |= ((w[b / 64] >> (b % 64)) & 1) << i;
    }
    return v;
}

static int fits(uint64_t v, int width) { return width >= 64 || v < (UINT64_C(1) << width); }

int sg2260_desc_words(Sg2260Engine e, Sg2260Cmd cmd) {
    return layout_of(e, cmd, SG2260_SYS_END).words;
}

uint64_t sg2260_shape_elems(const Sg2260Shape *s) {
    return (uint64_t)s->n * s->c * s->h * s->w;
}

void sg2260_shape_contiguous(Sg2260Shape *s) {
    s->sh = s->w;
    s->sc = (uint32_t)((uint64_t)s->h * s->w);
    s->sn = (uint32_t)((uint64_t)s->c * s->h * s->w);
}

int sg2260_shape_is_contiguous(const Sg2260Shape *s) {
    Sg2260Shape c = *s;
    sg2260_shape_contiguous(&c);
    return c.sn == s->sn && c.sc == s->sc && c.sh == s->sh;
}

/* The largest divisor of x that is <= max (x >= 1). */
static uint64_t divisor_upto(uint64_t x, uint64_t max) {
    if (x <= max) return x;
    for (uint64_t d = max; d > 1; d--)
        if (x % d == 0) return d;
    return 1;
}

int sg2260_shape_packed(uint64_t count, Sg2260Shape *s) {
    memset(s, 0, sizeof *s);
    if (count == 0) return -1;
    /* W, then H, C, N take the largest divisor within the dimension limit;
     * the N and C strides (C*H*W, H*W) must fit 32 bits too */
    uint64_t w = divisor_upto(count, SG2260_MAX_DIM), rest = count / w;
    uint64_t hmax = UINT32_MAX / w;
    uint64_t h = divisor_upto(rest, hmax < SG2260_MAX_DIM ? hmax : SG2260_MAX_DIM);
    rest /= h;
    uint64_t cmax = UINT32_MAX / (h * w);
    uint64_t c = divisor_upto(rest, cmax < SG2260_MAX_DIM ? cmax : SG2260_MAX_DIM);
    rest /= c;
    if (rest > SG2260_MAX_DIM) return -1;
    s->n = (uint32_t)rest, s->c = (uint32_t)c, s->h = (uint32_t)h, s->w = (uint32_t)w;
    sg2260_shape_contiguous(s);
    return 0;
}

/* The field values of d on engine e. */
static void to_fields(Sg2260Engine e, const Sg2260Desc *d, uint64_t *v) {
    memset(v, 0, F_COUNT * sizeof *v);
    const Sg2260Shape *a = &d->shape, *b = &d->dshape;
    v[F_DTYPE] = (uint64_t)d->dtype;
    v[F_SN] = a->n, v[F_SC] = a->c, v[F_SH] = a->h, v[F_SW] = a->w;
    v[F_SSN] = a->sn, v[F_SSC] = a->sc, v[F_SSH] = a->sh;
    v[F_DN] = b->n, v[F_DC] = b->c, v[F_DH] = b->h, v[F_DW] = b->w;
    v[F_DSN] = b->sn, v[F_DSC] = b->sc, v[F_DSH] = b->sh;
    v[F_SRC_H] = d->src >> 32, v[F_SRC_L] = d->src & UINT32_MAX;
    v[F_DST_H] = d->dst >> 32, v[F_DST_L] = d->dst & UINT32_MAX;
    v[F_SRC_CHIP] = (uint64_t)d->src_chip, v[F_DST_CHIP] = (uint64_t)d->dst_chip;
    v[F_OP] = (uint64_t)d->op;
    v[F_PSUM] = (uint64_t)d->psum;
    v[F_LEN] = d->length;
    v[F_MSG_ID] = d->msg_id, v[F_MSG_CNT] = d->count, v[F_TRWR] = d->imm;
    switch (d->cmd) {
    case SG2260_CMD_SEND:
        v[F_INTR] = 1;
        v[F_STRIDE] = !sg2260_shape_is_contiguous(a);
        break;
    case SG2260_CMD_RECV:
        /* RECV holds its destination in the single-view fields */
        v[F_DST_H] = d->dst >> 32, v[F_DST_L] = d->dst & UINT32_MAX;
        v[F_STRIDE] = !sg2260_shape_is_contiguous(a);
        break;
    case SG2260_CMD_WRITE:
    case SG2260_CMD_READ:
    case SG2260_CMD_COPY:
    case SG2260_CMD_REDUCE:
        /* a fill has no source: its n-stride slot holds the constant */
        v[F_STRIDE] = (!d->fill && !sg2260_shape_is_contiguous(a)) || !sg2260_shape_is_contiguous(b);
        v[F_FILL] = (uint64_t)d->fill;
        if (d->fill) v[F_SSN] = d->imm;
        break;
    default: break;
    }
    if (d->cmd == SG2260_CMD_SYS) {
        v[F_INTR] = d->sys == SG2260_SYS_END;
        v[F_SYS] = (uint64_t)d->sys;
        if (e != SG2260_CDMA)
            v[F_SYS] = d->sys == SG2260_SYS_SEND_MSG ? LOCAL_SYS_SEND
                       : d->sys == SG2260_SYS_WAIT_MSG ? LOCAL_SYS_WAIT : (uint64_t)d->sys;
        v[F_CMD] = e == SG2260_CDMA ? SG2260_CMD_SYS : LOCAL_SYS;
        v[F_SHORT] = 1;
        /* every GDMA SYS generator but TRWR's sets bit 20 */
        v[F_DEP] = e == SG2260_GDMA && d->sys != SG2260_SYS_TRWR;
    } else if (e == SG2260_CDMA) {
        v[F_CMD] = (uint64_t)d->cmd;
    } else {
        /* the firmware's general move: stride_enable set, W strides 1, all
         * lanes; a reduction sets the reduce word */
        v[F_CMD] = LOCAL_TENSOR;
        v[F_STRIDE] = 1;
        v[F_SSW] = v[F_DSW] = 1;
        v[F_DEP] = e == SG2260_GDMA;
        v[F_LANE] = UINT64_MAX;
        v[F_SRC_A] = d->src, v[F_DST_A] = d->dst;
        int reduce = d->cmd == SG2260_CMD_REDUCE;
        v[F_ARE_EN] = (uint64_t)reduce;
        v[F_ARE_DT] = reduce ? are_dtype(d->dtype) : 0;
        v[F_PSUM] = reduce ? LOCAL_PSUM_RW : 0;
        v[F_OP] = reduce ? (uint64_t)d->op : 0;
    }
}

static const char *const field_names[F_COUNT] = {
    "intr_en", "stride_enable", "nchw_copy", "cmd_type", "fill", "dtype", "source address", "source address",
    "destination address", "destination address", "psum_op", "reduce op", "source chip", "destination chip",
    "length", "N", "C", "H", "W", "N stride", "C stride", "H stride", "destination N", "destination C",
    "destination H", "destination W", "destination N stride", "destination C stride", "destination H stride",
    "SYS subtype", "message id", "message count", "TRWR value", "source address", "destination address",
    "W stride", "destination W stride", "bit 20", "lane mask", "ARE dtype", "reduce enable", "cmd_short"};

int sg2260_encode(Sg2260Engine e, const Sg2260Desc *d, uint64_t *w, Sg2260Error *err) {
    Layout L = layout_of(e, d->cmd, d->sys);
    if (!L.words)
        return sg_err(err, "unsupported-cmd", NULL, 0, "%s has no encoding on the %s", sg2260_cmd_name(d->cmd),
                      sg2260_engine_name(e));
    if ((d->cmd == SG2260_CMD_WRITE || d->cmd == SG2260_CMD_READ) && d->op != SG2260_OP_NONE)
        return sg_err(err, "unsupported-field", NULL, 0,
                      "%s with a reduce op has no encoding: SG2260's layout has no reduce field there",
                      sg2260_cmd_name(d->cmd));
    if (e != SG2260_CDMA && d->cmd == SG2260_CMD_REDUCE && are_dtype(d->dtype) == ARE_NONE)
        return sg_err(err, "unsupported-field", NULL, 0, "REDUCE: the reduce word has no dtype %s",
                      sg2260_dtype_name(d->dtype));
    if (d->src > SG2260_ADDR_MASK || d->dst > SG2260_ADDR_MASK)
        return sg_err(err, "field-range", NULL, 0, "%s: address exceeds 45 bits", sg2260_cmd_name(d->cmd));
    uint64_t v[F_COUNT];
    to_fields(e, d, v);
    memset(w, 0, (size_t)L.words * 16);
    for (int i = 0; i < L.n; i++) {
        const Field *f = &L.f[i];
        if (!fits(v[f->id], f->width))
            return sg_err(err, "field-range", NULL, 0, "%s: %s %llu does not fit %d bits", sg2260_cmd_name(d->cmd),
                          field_names[f->id], (unsigned long long)v[f->id], f->width);
        put(w, bit_of(f), f->width, v[f->id]);
    }
    return L.words;
}

/* The GDMA/VSDMA fields collc holds constant (stride_enable, W strides,
 * lane mask, bit 20, the reduce word's dtype and psum): a decoded
 * descriptor must encode back to the same words. */
static int canonical_local(Sg2260Engine e, const uint64_t *w, int words, Sg2260Desc *d, Sg2260Error *err) {
    uint64_t again[12];
    d->psum = SG2260_PSUM_WO;
    if (sg2260_encode(e, d, again, NULL) == words && !memcmp(again, w, (size_t)words * 16)) return words;
    return sg_err(err, "unsupported-field", NULL, 0,
                  "%s descriptor on the %s with fields collc does not model (W strides other than 1, a lane "
                  "mask, a reduce word that does not match its dtype and op)",
                  sg2260_cmd_name(d->cmd), sg2260_engine_name(e));
}

int sg2260_decode(Sg2260Engine e, const uint64_t *w, size_t avail, Sg2260Desc *d, Sg2260Error *err) {
    memset(d, 0, sizeof *d);
    if (avail < 1) return sg_err(err, "truncated", NULL, 0, "empty descriptor stream");
    unsigned ct = (unsigned)(e == SG2260_CDMA ? get(w, 4, 4) : get(w, 32, 5));
    Sg2260Cmd cmd;
    Sg2260Sys sys = SG2260_SYS_END;
    if (e == SG2260_CDMA) {
        cmd = (Sg2260Cmd)ct;
        if (cmd == SG2260_CMD_SYS) sys = (Sg2260Sys)get(w, 8, 4);
    } else {
        /* a tensor move with the reduce word's enable bit is a REDUCE */
        cmd = ct == LOCAL_SYS ? SG2260_CMD_SYS : ct != LOCAL_TENSOR ? (Sg2260Cmd)-1
              : avail >= 6 && get(w, 5 * 128 + 15, 1) ? SG2260_CMD_REDUCE : SG2260_CMD_COPY;
        if (cmd == SG2260_CMD_SYS) {
            unsigned st = (unsigned)get(w, 37, 4);
            sys = st == LOCAL_SYS_SEND ? SG2260_SYS_SEND_MSG : st == LOCAL_SYS_WAIT ? SG2260_SYS_WAIT_MSG
                  : st <= SG2260_SYS_TRWR ? (Sg2260Sys)st : (Sg2260Sys)99;
        }
    }
    if (cmd == SG2260_CMD_SYS && (e == SG2260_CDMA ? (unsigned)sys > SG2260_SYS_RX_WAIT_MSG : (unsigned)sys == 99))
        return sg_err(err, "bad-sys", NULL, 0, "unknown SYS subtype %u on the %s", (unsigned)get(w, 8, 4),
                      sg2260_engine_name(e));
    Layout L = layout_of(e, cmd, sys);
    if (!L.words)
        return sg_err(err, "unsupported-cmd", NULL, 0, "command type %u is not modelled on the %s", ct,
                      sg2260_engine_name(e));
    if ((size_t)L.words > avail)
        return sg_err(err, "truncated", NULL, 0, "%s descriptor truncated", sg2260_cmd_name(cmd));
    uint64_t v[F_COUNT] = {0}, covered[12] = {0};
    for (int i = 0; i < L.n; i++) {
        const Field *f = &L.f[i];
        v[f->id] = get(w, bit_of(f), f->width);
        put(covered, bit_of(f), f->width, UINT64_MAX);
    }
    for (int k = 0; k < 2 * L.words; k++)
        if (w[k] & ~covered[k])
            return sg_err(err, "reserved-bits", NULL, 0, "%s descriptor has reserved bits set (word %d %s: 0x%llx)",
                          sg2260_cmd_name(cmd), k / 2, k % 2 ? "high" : "low",
                          (unsigned long long)(w[k] & ~covered[k]));
    if (v[F_NCHW])
        return sg_err(err, "unsupported-field", NULL, 0, "%s with nchw_copy set is not modelled", sg2260_cmd_name(cmd));
    d->cmd = cmd;
    d->sys = sys;
    d->dtype = (Sg2260Dtype)v[F_DTYPE];
    d->op = (Sg2260Op)v[F_OP];
    d->psum = (Sg2260Psum)v[F_PSUM];
    d->src = (v[F_SRC_H] << 32 | v[F_SRC_L]) | v[F_SRC_A];
    d->dst = (v[F_DST_H] << 32 | v[F_DST_L]) | v[F_DST_A];
    d->src_chip = (int)v[F_SRC_CHIP], d->dst_chip = (int)v[F_DST_CHIP];
    d->length = (uint32_t)v[F_LEN];
    d->fill = (int)v[F_FILL];
    d->msg_id = (uint32_t)v[F_MSG_ID], d->count = (uint32_t)v[F_MSG_CNT];
    d->imm = (uint32_t)(cmd == SG2260_CMD_SYS ? v[F_TRWR] : 0);
    Sg2260Shape *a = &d->shape, *b = &d->dshape;
    a->n = (uint32_t)v[F_SN], a->c = (uint32_t)v[F_SC], a->h = (uint32_t)v[F_SH], a->w = (uint32_t)v[F_SW];
    a->sn = (uint32_t)v[F_SSN], a->sc = (uint32_t)v[F_SSC], a->sh = (uint32_t)v[F_SSH];
    b->n = (uint32_t)v[F_DN], b->c = (uint32_t)v[F_DC], b->h = (uint32_t)v[F_DH], b->w = (uint32_t)v[F_DW];
    b->sn = (uint32_t)v[F_DSN], b->sc = (uint32_t)v[F_DSC], b->sh = (uint32_t)v[F_DSH];
    if (d->fill) {
        d->imm = (uint32_t)v[F_SSN];
        sg2260_shape_contiguous(a);
    }
    /* without stride_enable the views are contiguous */
    if (!v[F_STRIDE]) {
        sg2260_shape_contiguous(a);
        sg2260_shape_contiguous(b);
    }
    if (cmd == SG2260_CMD_SEND || cmd == SG2260_CMD_RECV || cmd == SG2260_CMD_GENERAL || cmd == SG2260_CMD_SYS)
        memset(b, 0, sizeof *b);
    if (cmd == SG2260_CMD_GENERAL || cmd == SG2260_CMD_SYS) memset(a, 0, sizeof *a);
    if (e != SG2260_CDMA) return canonical_local(e, w, L.words, d, err);
    return L.words;
}

/* ---- static rules ------------------------------------------------------ */

static int check_shape(const Sg2260Shape *s, const char *what, Sg2260Error *err) {
    uint64_t dims[4] = {s->n, s->c, s->h, s->w}, max[4] = {SG2260_MAX_DIM, SG2260_MAX_DIM, SG2260_MAX_DIM, SG2260_MAX_DIM};
    for (int i = 0; i < 4; i++)
        if (dims[i] < 1 || dims[i] > max[i])
            return sg_err(err, "shape", NULL, 0, "%s dimension %c = %llu is outside 1..%llu", what, "NCHW"[i],
                          (unsigned long long)dims[i], (unsigned long long)max[i]);
    return 0;
}

static int check_addr(const char *name, const char *what, uint64_t a, Sg2260Error *err) {
    if (a > SG2260_ADDR_MASK)
        return sg_err(err, "addr-range", NULL, 0, "%s: %s address 0x%llx exceeds 45 bits", name, what,
                      (unsigned long long)a);
    uint64_t tag = SG2260_ADDR_TAG(a);
    if (tag != SG2260_TAG_DDR && tag != SG2260_TAG_L2)
        return sg_err(err, "bad-tag", NULL, 0,
                      "%s: %s address 0x%llx has tag 0x%llx; the model has DDR (tag 0) and L2 SRAM (tag 0x1e)",
                      name, what, (unsigned long long)a, (unsigned long long)tag);
    if (!SG2260_ADDR_OK(a))
        return sg_err(err, "addr-range", NULL, 0,
                      "%s: %s address 0x%llx has the L2 tag but lies below L2 SRAM's start 0x%llx", name, what,
                      (unsigned long long)a, (unsigned long long)SG2260_L2_BASE);
    return 0;
}

static int has_src(const Sg2260Desc *d) {
    return d->cmd == SG2260_CMD_SEND || d->cmd == SG2260_CMD_READ || (d->cmd == SG2260_CMD_WRITE && !d->fill) ||
           d->cmd == SG2260_CMD_GENERAL || d->cmd == SG2260_CMD_COPY || d->cmd == SG2260_CMD_REDUCE;
}

static int has_dst(const Sg2260Desc *d) {
    return d->cmd != SG2260_CMD_SEND && d->cmd != SG2260_CMD_SYS;
}

int sg2260_desc_check(const Sg2260Desc *d, Sg2260Error *err) {
    const char *name = sg2260_cmd_name(d->cmd);
    if (d->cmd == SG2260_CMD_SYS) {
        if (!((unsigned)d->sys <= SG2260_SYS_RX_WAIT_MSG || d->sys == SG2260_SYS_SEND_MSG ||
              d->sys == SG2260_SYS_WAIT_MSG))
            return sg_err(err, "bad-sys", NULL, 0, "unknown SYS subtype %d", (int)d->sys);
        if (d->msg_id >= SG2260_MSG_IDS || d->count > SG2260_MAX_MSG_COUNT)
            return sg_err(err, "field-range", NULL, 0, "message id must be < 512 and count <= 127");
        if (is_msg(d->sys) && d->count < 1)
            return sg_err(err, "msg-count", NULL, 0,
                          "SYS %s needs count >= 1 (a send names its waiters, a wait the sends it needs)",
                          sg2260_sys_name(d->sys));
        return 0;
    }
    if (d->cmd != SG2260_CMD_SEND && d->cmd != SG2260_CMD_RECV && d->cmd != SG2260_CMD_READ &&
        d->cmd != SG2260_CMD_WRITE && d->cmd != SG2260_CMD_GENERAL && d->cmd != SG2260_CMD_COPY &&
        d->cmd != SG2260_CMD_REDUCE)
        return sg_err(err, "unsupported-cmd", NULL, 0, "command %s is not modelled", name);
    if ((unsigned)d->dtype > SG2260_FP20)
        return sg_err(err, "bad-dtype", NULL, 0, "%s: unknown dtype %d", name, (int)d->dtype);
    if ((unsigned)d->op > SG2260_OP_ADD)
        return sg_err(err, "bad-op", NULL, 0, "%s: unknown reduce op %d", name, (int)d->op);
    if ((unsigned)d->psum > SG2260_PSUM_WR)
        return sg_err(err, "bad-op", NULL, 0, "%s: unknown psum_op %d", name, (int)d->psum);
    if ((has_src(d) && check_addr(name, "source", d->src, err)) || (has_dst(d) && check_addr(name, "destination", d->dst, err)))
        return -1;
    if (d->cmd == SG2260_CMD_GENERAL) {
        if (d->op != SG2260_OP_NONE)
            return sg_err(err, "bad-op", NULL, 0, "GENERAL is a copy: it has no reduce op");
        if (d->length == 0 || d->length > SG2260_MAX_GENERAL_LEN)
            return sg_err(err, "shape", NULL, 0, "GENERAL length %u is outside 1..%d bytes", (unsigned)d->length,
                          SG2260_MAX_GENERAL_LEN);
        if (d->src_chip < 0 || d->src_chip >= SG2260_MAX_CHIPS || d->dst_chip < 0 || d->dst_chip >= SG2260_MAX_CHIPS)
            return sg_err(err, "field-range", NULL, 0, "GENERAL: chip ids are 4 bits");
        if (d->src_chip == d->dst_chip)
            return sg_err(err, "chip-mismatch", NULL, 0,
                          "GENERAL copies between two chips (source and destination are chip %d); a copy on "
                          "one chip is a GDMA or VSDMA COPY",
                          d->src_chip);
        if (d->dtype == SG2260_FP20 && (d->src % SG2260_ALIGN || d->dst % SG2260_ALIGN))
            return sg_err(err, "align", NULL, 0, "GENERAL: FP20 addresses must be 128-byte aligned");
        return 0;
    }
    if (check_shape(&d->shape, d->cmd == SG2260_CMD_SEND || d->cmd == SG2260_CMD_RECV ? name : "source", err))
        return -1;
    if (d->cmd == SG2260_CMD_SEND && d->op != SG2260_OP_NONE)
        return sg_err(err, "bad-op", NULL, 0, "SEND carries no reduce op (the RECV does)");
    if (d->cmd == SG2260_CMD_COPY && d->op != SG2260_OP_NONE)
        return sg_err(err, "bad-op", NULL, 0, "COPY has no reduce op (REDUCE has)");
    if (d->cmd == SG2260_CMD_REDUCE && d->op == SG2260_OP_NONE)
        return sg_err(err, "bad-op", NULL, 0, "REDUCE needs a reduce op");
    if (d->cmd != SG2260_CMD_SEND && !sg2260_dtype_op_ok(d->dtype, d->op))
        return sg_err(err, "dtype-op", NULL, 0, "%s: reduce op %s is not allowed on dtype %s", name,
                      sg2260_op_name(d->op), sg2260_dtype_name(d->dtype));
    if (d->cmd == SG2260_CMD_SEND && d->psum == SG2260_PSUM_WR && !sg2260_dtype_op_ok(d->dtype, SG2260_OP_ADD))
        return sg_err(err, "dtype-op", NULL, 0, "SEND: psum=wr (reduce) on non-reducible dtype %s",
                      sg2260_dtype_name(d->dtype));
    if (d->cmd == SG2260_CMD_REDUCE && SG2260_ADDR_TAG(d->dst) != SG2260_TAG_L2)
        return sg_err(err, "reduce-l2", NULL, 0,
                      "REDUCE writes L2 SRAM (tag 0x1e): destination 0x%llx is in DDR", (unsigned long long)d->dst);
    if (d->dtype == SG2260_FP20) {
        if (has_src(d) && d->src % SG2260_ALIGN)
            return sg_err(err, "align", NULL, 0, "%s: FP20 source 0x%llx is not 128-byte aligned", name,
                          (unsigned long long)d->src);
        if (has_dst(d) && d->dst % SG2260_ALIGN)
            return sg_err(err, "align", NULL, 0, "%s: FP20 destination 0x%llx is not 128-byte aligned", name,
                          (unsigned long long)d->dst);
    }
    if (has_dst(d) && d->op != SG2260_OP_NONE && d->dst % SG2260_ALIGN)
        return sg_err(err, "align", NULL, 0, "%s: reducing destination 0x%llx is not 128-byte aligned", name,
                      (unsigned long long)d->dst);
    if (d->cmd == SG2260_CMD_WRITE || d->cmd == SG2260_CMD_READ || d->cmd == SG2260_CMD_COPY ||
        d->cmd == SG2260_CMD_REDUCE) {
        if (check_shape(&d->dshape, "destination", err)) return -1;
        if ((d->cmd == SG2260_CMD_WRITE || d->cmd == SG2260_CMD_READ) &&
            (d->src_chip < 0 || d->src_chip >= SG2260_MAX_CHIPS || d->dst_chip < 0 || d->dst_chip >= SG2260_MAX_CHIPS))
            return sg_err(err, "field-range", NULL, 0, "%s: chip ids are 4 bits", name);
        if (d->fill && d->cmd != SG2260_CMD_WRITE)
            return sg_err(err, "bad-op", NULL, 0, "%s cannot fill: only WRITE fills with a constant", name);
        if (sg2260_shape_elems(&d->shape) != sg2260_shape_elems(&d->dshape))
            return sg_err(err, "size-mismatch", NULL, 0, "%s: source has %llu elements but destination %llu", name,
                          (unsigned long long)sg2260_shape_elems(&d->shape),
                          (unsigned long long)sg2260_shape_elems(&d->dshape));
    }
    return 0;
}

int sg2260_cmd_on_engine(const Sg2260Desc *d, Sg2260Engine e) {
    if (d->cmd == SG2260_CMD_SYS) {
        if (d->sys == SG2260_SYS_END || d->sys == SG2260_SYS_NOP || d->sys == SG2260_SYS_TRWR) return 1;
        return e == SG2260_CDMA ? d->sys != SG2260_SYS_SEND_MSG && d->sys != SG2260_SYS_WAIT_MSG
                                : d->sys == SG2260_SYS_SEND_MSG || d->sys == SG2260_SYS_WAIT_MSG;
    }
    switch (e) {
    case SG2260_CDMA:
        return d->cmd == SG2260_CMD_SEND || d->cmd == SG2260_CMD_RECV || d->cmd == SG2260_CMD_READ ||
               d->cmd == SG2260_CMD_WRITE || d->cmd == SG2260_CMD_GENERAL;
    case SG2260_GDMA: return d->cmd == SG2260_CMD_COPY || d->cmd == SG2260_CMD_REDUCE;
    case SG2260_VSDMA: return d->cmd == SG2260_CMD_COPY;
    }
    return 0;
}

static const char *const cmd_names[] = {"SEND", "READ", "WRITE", "GENERAL", "RECV", "LOSSY_COMPRESS",
                                        "LOSSY_DECOMPRESS", "SYS", "TCP_SEND", "TCP_RECV"};
static const char *const sys_names[] = {"END", "NOP", "TRWR", "TX_SEND_MSG", "TX_WAIT_MSG",
                                        "RX_SEND_MSG", "RX_WAIT_MSG", "?", "SEND_MSG", "WAIT_MSG"};
static const char *const engine_names[] = {"CDMA", "GDMA", "VSDMA"};

const char *sg2260_cmd_name(Sg2260Cmd c) {
    if (c == SG2260_CMD_COPY) return "COPY";
    if (c == SG2260_CMD_REDUCE) return "REDUCE";
    return (unsigned)c < sizeof cmd_names / sizeof *cmd_names ? cmd_names[c] : "?";
}
const char *sg2260_sys_name(Sg2260Sys s) {
    return (unsigned)s < sizeof sys_names / sizeof *sys_names ? sys_names[s] : "?";
}
int sg2260_cmd_find(const char *name) {
    for (int c = 0; c <= SG2260_CMD_REDUCE; c++)
        if (strcmp(sg2260_cmd_name((Sg2260Cmd)c), "?") && !strcasecmp(name, sg2260_cmd_name((Sg2260Cmd)c))) return c;
    return -1;
}
int sg2260_sys_find(const char *name) {
    for (int s = 0; s <= SG2260_SYS_WAIT_MSG; s++)
        if (strcmp(sg2260_sys_name((Sg2260Sys)s), "?") && !strcasecmp(name, sg2260_sys_name((Sg2260Sys)s))) return s;
    return -1;
}
const char *sg2260_engine_name(Sg2260Engine e) {
    return (unsigned)e < sizeof engine_names / sizeof *engine_names ? engine_names[e] : "?";
}

/* ---- programs ---------------------------------------------------------- */

void sg2260_program_push(Sg2260Program *p, const Sg2260Desc *d) {
    if (p->ndescs == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 16;
        p->descs = sg_xrealloc(p->descs, (size_t)p->cap * sizeof *p->descs);
    }
    p->descs[p->ndescs++] = *d;
}

void sg2260_program_free(Sg2260Program *p) {
    free(p->descs);
    memset(p, 0, sizeof *p);
}

Sg2260ProgramSlot *sg2260_bundle_slot(Sg2260Bundle *b, int chip, Sg2260Engine e, int index) {
    for (int i = 0; i < b->nslots; i++)
        if (b->slots[i].chip == chip && b->slots[i].engine == e && b->slots[i].index == index) return &b->slots[i];
    if (b->nslots == b->capslots) {
        b->capslots = b->capslots ? b->capslots * 2 : 16;
        b->slots = sg_xrealloc(b->slots, (size_t)b->capslots * sizeof *b->slots);
    }
    Sg2260ProgramSlot *s = &b->slots[b->nslots++];
    memset(s, 0, sizeof *s);
    s->chip = chip, s->engine = e, s->index = index;
    return s;
}

Sg2260Program *sg2260_bundle_program(Sg2260Bundle *b, int chip, Sg2260Engine e, int index) {
    return &sg2260_bundle_slot(b, chip, e, index)->prog;
}

static int cmp_slot(const void *pa, const void *pb) {
    const Sg2260ProgramSlot *a = pa, *b = pb;
    if (a->chip != b->chip) return a->chip - b->chip;
    if (a->engine != b->engine) return (int)a->engine - (int)b->engine;
    return a->index - b->index;
}

void sg2260_bundle_sort(Sg2260Bundle *b) {
    if (b->nslots > 1) qsort(b->slots, (size_t)b->nslots, sizeof *b->slots, cmp_slot);
}

void sg2260_bundle_free(Sg2260Bundle *b) {
    for (int i = 0; i < b->nslots; i++) {
        sg2260_program_free(&b->slots[i].prog);
        free(b->slots[i].lines);
        free(b->slots[i].notes);
    }
    for (int i = 0; i < b->ninits; i++) free(b->inits[i].bytes);
    free(b->slots);
    free(b->inits);
    memset(b, 0, sizeof *b);
}

long sg2260_program_encode(Sg2260Engine e, const Sg2260Program *p, uint8_t **out, Sg2260Error *err) {
    size_t words = 0;
    for (int i = 0; i < p->ndescs; i++) {
        int k = layout_of(e, p->descs[i].cmd, p->descs[i].sys).words;
        if (!k)
            return sg_err(err, "unsupported-cmd", NULL, 0, "descriptor %d: %s has no encoding on the %s", i,
                          sg2260_cmd_name(p->descs[i].cmd), sg2260_engine_name(e));
        words += (size_t)k;
    }
    size_t bytes = (words * 16 + SG2260_ALIGN - 1) / SG2260_ALIGN * SG2260_ALIGN;
    if (bytes == 0) bytes = SG2260_ALIGN;
    uint8_t *buf = sg_xcalloc(bytes, 1);
    size_t pos = 0;
    for (int i = 0; i < p->ndescs; i++) {
        uint64_t w[12];
        int k = sg2260_encode(e, &p->descs[i], w, err);
        if (k < 0) {
            free(buf);
            return -1;
        }
        for (int j = 0; j < 2 * k; j++)
            for (int b = 0; b < 8; b++) buf[pos++] = (uint8_t)(w[j] >> (8 * b));
    }
    *out = buf;
    return (long)bytes;
}

int sg2260_program_decode(Sg2260Engine e, const uint8_t *bytes, size_t n, Sg2260Program *p, Sg2260Error *err) {
    size_t nwords = n / 16, i = 0;
    memset(p, 0, sizeof *p);
    while (i < nwords) {
        uint64_t w[12] = {0};
        size_t avail = nwords - i < 6 ? nwords - i : 6;
        for (size_t j = 0; j < 2 * avail; j++)
            for (int b = 0; b < 8; b++) w[j] |= (uint64_t)bytes[(i * 2 + j) * 8 + b] << (8 * b);
        Sg2260Desc d;
        int k = sg2260_decode(e, w, avail, &d, err);
        if (k < 0) {
            if (err)
                snprintf(err->msg + strlen(err->msg), sizeof err->msg - strlen(err->msg),
                         " (at byte offset %zu)", i * 16);
            sg2260_program_free(p);
            return -1;
        }
        sg2260_program_push(p, &d);
        i += (size_t)k;
        if (d.cmd == SG2260_CMD_SYS && d.sys == SG2260_SYS_END) return 0;
    }
    sg2260_program_free(p);
    return sg_err(err, "no-end", NULL, 0, "program image has no SYS END");
}
