/* test_encode.c - descriptor layout: every field of every command type at
 * the bit position of SOPHGO's firmware field table, golden words,
 * encode/decode and text round trips, decode errors, program and bundle
 * images that round-trip through the disassembler.
 *
 * The tables below are a transcription of the firmware's layouts as
 * docs/sg2260.md section 2 lists them (docs/references.md [SG-fw]), made
 * independently of the encoder's own tables in targets/sg2260/desc.c: a
 * field moved in either place fails here. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "sg2260.h"

/* Which descriptor field a table row sets. */
typedef enum Which {
    W_SRC_HI, W_SRC_LO, W_DST_HI, W_DST_LO, W_DTYPE, W_PSUM, W_OP, W_SRC_CHIP, W_DST_CHIP, W_LEN,
    W_N, W_C, W_H, W_W, W_SN, W_SC, W_SH, W_DN, W_DC, W_DH, W_DW, W_DSN, W_DSC, W_DSH,
    W_MSG_ID, W_MSG_CNT, W_TRWR, W_FILL_CONST,
} Which;

/* One row of the firmware's table: field, 128-bit word, half (0 low, 1
 * high), first bit within the half, width. */
typedef struct Row {
    Which which;
    int word, half, lo, width;
    const char *name;
} Row;

/* SEND (2 words). */
static const Row send_rows[] = {
    {W_DTYPE, 0, 0, 12, 4, "dtype"}, {W_SRC_HI, 0, 0, 16, 13, "src addr h13"}, {W_PSUM, 0, 0, 29, 1, "psum_op"},
    {W_N, 1, 0, 0, 16, "n"}, {W_C, 1, 0, 16, 16, "c"}, {W_H, 1, 0, 32, 32, "h"}, {W_W, 1, 1, 0, 32, "w"},
    {W_SRC_LO, 1, 1, 32, 32, "src addr l32"}, {0, 0, 0, 0, 0, NULL} /* end */};
/* RECV (2 words): dtype one bit lower, reduce op at 29-31. */
static const Row recv_rows[] = {
    {W_DTYPE, 0, 0, 11, 4, "dtype"}, {W_DST_HI, 0, 0, 16, 13, "dst addr h13"}, {W_OP, 0, 0, 29, 3, "reduce op"},
    {W_N, 1, 0, 0, 16, "n"}, {W_C, 1, 0, 16, 16, "c"}, {W_H, 1, 0, 32, 32, "h"}, {W_W, 1, 1, 0, 32, "w"},
    {W_DST_LO, 1, 1, 32, 32, "dst addr l32"}, {0, 0, 0, 0, 0, NULL} /* end */};
/* The strides of SEND/RECV (they set stride_enable too). */
static const Row sr_stride_rows[] = {
    {W_SN, 0, 0, 32, 32, "n-stride"}, {W_SC, 0, 1, 0, 32, "c-stride"}, {W_SH, 0, 1, 32, 32, "h-stride"},
    {0, 0, 0, 0, 0, NULL} /* end */};
/* GENERAL (2 words): a copy of a byte length between chips. */
static const Row general_rows[] = {
    {W_DTYPE, 0, 0, 12, 4, "dtype"}, {W_SRC_HI, 0, 0, 16, 13, "src addr h13"}, {W_DST_HI, 0, 0, 32, 13, "dst addr h13"},
    {W_SRC_CHIP, 0, 0, 45, 4, "src chip"}, {W_DST_CHIP, 0, 0, 49, 4, "dst chip"}, {W_LEN, 0, 1, 0, 32, "length"},
    {W_SRC_LO, 0, 1, 32, 32, "src addr l32"}, {W_DST_LO, 1, 0, 0, 32, "dst addr l32"}, {0, 0, 0, 0, 0, NULL} /* end */};
/* READ and WRITE (4 words). */
static const Row rw_rows[] = {
    {W_DTYPE, 0, 0, 12, 4, "dtype"}, {W_SRC_HI, 0, 0, 16, 13, "src addr h13"}, {W_DST_HI, 0, 0, 32, 13, "dst addr h13"},
    {W_SRC_CHIP, 0, 0, 45, 4, "src chip"}, {W_DST_CHIP, 0, 0, 49, 4, "dst chip"},
    {W_SN, 0, 1, 0, 32, "src n-stride"}, {W_SC, 0, 1, 32, 32, "src c-stride"}, {W_SH, 1, 0, 0, 32, "src h-stride"},
    {W_DSN, 1, 0, 32, 32, "dst n-stride"}, {W_DSC, 1, 1, 0, 32, "dst c-stride"}, {W_DSH, 1, 1, 32, 32, "dst h-stride"},
    {W_N, 2, 0, 0, 16, "src n"}, {W_C, 2, 0, 16, 16, "src c"}, {W_H, 2, 0, 32, 32, "src h"}, {W_W, 2, 1, 0, 32, "src w"},
    {W_DN, 2, 1, 32, 16, "dst n"}, {W_DC, 2, 1, 48, 16, "dst c"}, {W_DH, 3, 0, 0, 32, "dst h"},
    {W_DW, 3, 0, 32, 32, "dst w"}, {W_SRC_LO, 3, 1, 0, 32, "src addr l32"}, {W_DST_LO, 3, 1, 32, 32, "dst addr l32"},
    {0, 0, 0, 0, 0, NULL} /* end */};
/* SYS messages and TRWR (1 word). */
static const Row msg_rows[] = {{W_MSG_ID, 0, 0, 32, 9, "message id"}, {W_MSG_CNT, 0, 0, 48, 7, "count"},
                               {0, 0, 0, 0, 0, NULL} /* end */};
static const Row trwr_rows[] = {{W_TRWR, 0, 0, 32, 32, "value"}, {0, 0, 0, 0, 0, NULL} /* end */};

static void set_field(Sg2260Desc *d, Which w, uint64_t v) {
    switch (w) {
    case W_SRC_HI: d->src = (d->src & UINT32_MAX) | v << 32; break;
    case W_SRC_LO: d->src = (d->src & ~(uint64_t)UINT32_MAX) | v; break;
    case W_DST_HI: d->dst = (d->dst & UINT32_MAX) | v << 32; break;
    case W_DST_LO: d->dst = (d->dst & ~(uint64_t)UINT32_MAX) | v; break;
    case W_DTYPE: d->dtype = (Sg2260Dtype)v; break;
    case W_PSUM: d->psum = (Sg2260Psum)v; break;
    case W_OP: d->op = (Sg2260Op)v; break;
    case W_SRC_CHIP: d->src_chip = (int)v; break;
    case W_DST_CHIP: d->dst_chip = (int)v; break;
    case W_LEN: d->length = (uint32_t)v; break;
    case W_N: d->shape.n = (uint32_t)v; break;
    case W_C: d->shape.c = (uint32_t)v; break;
    case W_H: d->shape.h = (uint32_t)v; break;
    case W_W: d->shape.w = (uint32_t)v; break;
    case W_SN: d->shape.sn = (uint32_t)v; break;
    case W_SC: d->shape.sc = (uint32_t)v; break;
    case W_SH: d->shape.sh = (uint32_t)v; break;
    case W_DN: d->dshape.n = (uint32_t)v; break;
    case W_DC: d->dshape.c = (uint32_t)v; break;
    case W_DH: d->dshape.h = (uint32_t)v; break;
    case W_DW: d->dshape.w = (uint32_t)v; break;
    case W_DSN: d->dshape.sn = (uint32_t)v; break;
    case W_DSC: d->dshape.sc = (uint32_t)v; break;
    case W_DSH: d->dshape.sh = (uint32_t)v; break;
    case W_MSG_ID: d->msg_id = (uint32_t)v; break;
    case W_MSG_CNT: d->count = (uint32_t)v; break;
    case W_TRWR: d->imm = (uint32_t)v; break;
    case W_FILL_CONST: d->imm = (uint32_t)v; break;
    }
}

static uint64_t bits(const uint64_t *w, int word, int half, int lo, int width) {
    uint64_t x = w[2 * word + half] >> lo;
    return width == 64 ? x : x & ((UINT64_C(1) << width) - 1);
}

static int g_fields_checked;

/* For every row: the descriptor with only that field set encodes to the
 * empty descriptor's words plus the field's bits at the row's position
 * (and stride_enable, bit 1, when the field makes a view non-contiguous). */
static void check_rows(Sg2260Engine e, Sg2260Desc base, const Row *rows, int words, int has_stride_enable,
                       const char *what) {
    uint64_t w0[8] = {0}, w1[8];
    Sg2260Error err;
    CHECK_MSG(sg2260_encode(e, &base, w0, &err) == words, "%s: %s", what, err.msg);
    for (const Row *r = rows; r->name; r++)
        for (int pat = 0; pat < 2; pat++) {
        /* all ones, then alternating bits */
        uint64_t mask = (UINT64_C(1) << r->width) - 1, v = pat ? (0x5a5a5a5a5a5a5a5aull | 1) & mask : mask;
        Sg2260Desc d = base;
        set_field(&d, r->which, v);
        CHECK_MSG(sg2260_encode(e, &d, w1, &err) == words, "%s %s: %s", what, r->name, err.msg);
        int strided = has_stride_enable && (!sg2260_shape_is_contiguous(&d.shape) ||
                                            (words == 4 && !sg2260_shape_is_contiguous(&d.dshape)));
        uint64_t want[8] = {0};
        want[2 * r->word + r->half] |= v << r->lo;
        if (strided) want[0] |= 2;
        int ok = 1;
        for (int k = 0; k < 2 * words; k++) ok &= (w0[k] ^ w1[k]) == want[k];
        CHECK_MSG(ok, "%s: field %s is not at word %d %s bits %d..%d", what, r->name, r->word, r->half ? "high" : "low",
                  r->lo, r->lo + r->width - 1);
        CHECK(bits(w1, r->word, r->half, r->lo, r->width) == v);
        g_fields_checked += pat;
        }
}

static Sg2260Desc empty(Sg2260Cmd cmd) {
    Sg2260Desc d;
    memset(&d, 0, sizeof d);
    d.cmd = cmd;
    return d;
}

/* H and W up to hw_max: 32-bit fields on CDMA, 16-bit on GDMA/VSDMA. */
static Sg2260Shape rnd_shape(uint64_t hw_max) {
    Sg2260Shape s;
    s.n = 1 + (uint32_t)(rnd() % 65535);
    s.c = 1 + (uint32_t)(rnd() % 65535);
    s.h = 1 + (uint32_t)(rnd() % hw_max);
    s.w = 1 + (uint32_t)(rnd() % hw_max);
    s.sn = (uint32_t)rnd();
    s.sc = (uint32_t)rnd();
    s.sh = (uint32_t)rnd();
    if (rnd() % 2) sg2260_shape_contiguous(&s);
    return s;
}

static uint64_t rnd_addr(void) {
    uint64_t a = rnd() & SG2260_OFFSET_MASK;
    return rnd() % 2 ? SG2260_L2(a) : a;
}

/* A random descriptor of a command the engine encodes. */
static Sg2260Desc rnd_desc(Sg2260Engine e) {
    static const Sg2260Cmd cdma[] = {SG2260_CMD_SEND, SG2260_CMD_RECV, SG2260_CMD_WRITE,
                                     SG2260_CMD_READ, SG2260_CMD_GENERAL, SG2260_CMD_SYS};
    static const Sg2260Cmd local[] = {SG2260_CMD_COPY, SG2260_CMD_REDUCE, SG2260_CMD_SYS};
    static const Sg2260Sys cdma_sys[] = {SG2260_SYS_END, SG2260_SYS_NOP, SG2260_SYS_TRWR, SG2260_SYS_TX_SEND_MSG,
                                         SG2260_SYS_RX_SEND_MSG, SG2260_SYS_TX_WAIT_MSG, SG2260_SYS_RX_WAIT_MSG};
    static const Sg2260Sys local_sys[] = {SG2260_SYS_END, SG2260_SYS_NOP, SG2260_SYS_TRWR, SG2260_SYS_SEND_MSG,
                                          SG2260_SYS_WAIT_MSG};
    Sg2260Desc d;
    memset(&d, 0, sizeof d);
    if (e == SG2260_CDMA) d.cmd = cdma[rnd() % 6];
    else if (e == SG2260_GDMA) d.cmd = local[rnd() % 3];
    else d.cmd = rnd() % 2 ? SG2260_CMD_COPY : SG2260_CMD_SYS;
    switch (d.cmd) {
    case SG2260_CMD_SYS:
        d.sys = e == SG2260_CDMA ? cdma_sys[rnd() % 7] : local_sys[rnd() % 5];
        if (d.sys == SG2260_SYS_TRWR) d.imm = (uint32_t)rnd();
        else if (d.sys >= SG2260_SYS_TX_SEND_MSG) d.msg_id = (uint32_t)(rnd() % 512), d.count = (uint32_t)(rnd() % 128);
        break;
    case SG2260_CMD_SEND:
        d.dtype = (Sg2260Dtype)(rnd() % 7);
        d.psum = (Sg2260Psum)(rnd() % 2);
        d.src = rnd_addr();
        d.shape = rnd_shape(0xfffffffeull);
        break;
    case SG2260_CMD_RECV:
        d.dtype = (Sg2260Dtype)(rnd() % 7);
        d.op = (Sg2260Op)(rnd() % 5);
        d.dst = rnd_addr();
        d.shape = rnd_shape(0xfffffffeull);
        break;
    case SG2260_CMD_GENERAL:
        d.dtype = (Sg2260Dtype)(rnd() % 7);
        d.src_chip = (int)(rnd() % 16), d.dst_chip = (int)(rnd() % 16);
        d.src = rnd_addr(), d.dst = rnd_addr();
        d.length = (uint32_t)rnd();
        break;
    default:
        d.dtype = (Sg2260Dtype)(rnd() % 7);
        if (d.cmd == SG2260_CMD_REDUCE) {
            /* the reduce word has a dtype for the reducible types only */
            static const Sg2260Dtype reducible[] = {SG2260_FP32, SG2260_FP16, SG2260_BF16, SG2260_INT32, SG2260_FP20};
            d.dtype = reducible[rnd() % 5];
            d.op = (Sg2260Op)(1 + rnd() % 4);
        }
        if (d.cmd == SG2260_CMD_WRITE || d.cmd == SG2260_CMD_READ) {
            d.src_chip = (int)(rnd() % 16);
            d.dst_chip = (int)(rnd() % 16);
        }
        d.src = rnd_addr();
        d.dst = rnd_addr();
        d.shape = rnd_shape(e == SG2260_CDMA ? 0xfffffffeull : 65535);
        d.dshape = rnd_shape(e == SG2260_CDMA ? 0xfffffffeull : 65535);
        if (d.cmd == SG2260_CMD_WRITE && rnd() % 4 == 0) {
            d.fill = 1;
            d.imm = (uint32_t)rnd();
            sg2260_shape_contiguous(&d.shape);
        }
        break;
    }
    return d;
}

static int same_words(const uint64_t *a, const uint64_t *b, int words) {
    return memcmp(a, b, (size_t)words * 16) == 0;
}

static char *bundle_text(const Sg2260Bundle *b, const Sg2260Machine *m, char *buf, size_t cap) {
    FILE *f = fmemopen(buf, cap, "w");
    sg2260_bundle_write(f, b, m);
    fclose(f);
    return buf;
}

int main(void) {
    Sg2260Error err;
    uint64_t w[12], w2[12];
    Sg2260Desc d;

    /* 1. Every field of every command type against the firmware's table. */
    check_rows(SG2260_CDMA, empty(SG2260_CMD_SEND), send_rows, 2, 1, "SEND");
    check_rows(SG2260_CDMA, empty(SG2260_CMD_SEND), sr_stride_rows, 2, 1, "SEND");
    check_rows(SG2260_CDMA, empty(SG2260_CMD_RECV), recv_rows, 2, 1, "RECV");
    check_rows(SG2260_CDMA, empty(SG2260_CMD_RECV), sr_stride_rows, 2, 1, "RECV");
    check_rows(SG2260_CDMA, empty(SG2260_CMD_GENERAL), general_rows, 2, 0, "GENERAL");
    check_rows(SG2260_CDMA, empty(SG2260_CMD_WRITE), rw_rows, 4, 1, "WRITE");
    check_rows(SG2260_CDMA, empty(SG2260_CMD_READ), rw_rows, 4, 1, "READ");
    Sg2260Desc sys = empty(SG2260_CMD_SYS);
    for (int s = SG2260_SYS_TX_SEND_MSG; s <= SG2260_SYS_RX_WAIT_MSG; s++) {
        sys.sys = (Sg2260Sys)s;
        check_rows(SG2260_CDMA, sys, msg_rows, 1, 0, sg2260_sys_name(sys.sys));
    }
    sys.sys = SG2260_SYS_TRWR;
    check_rows(SG2260_CDMA, sys, trwr_rows, 1, 0, "TRWR");
    CHECK(g_fields_checked == 8 + 3 + 8 + 3 + 8 + 21 + 21 + 4 * 2 + 1);
    /* The constant bits: cmd_type at 4-7, SYS subtype at 8-11, intr_en
     * (bit 0) on SEND and END only, WRITE's fill flag at 11. */
    struct { Sg2260Cmd cmd; Sg2260Sys sys; uint64_t low; } consts[] = {
        {SG2260_CMD_SEND, 0, 1 | 0 << 4}, {SG2260_CMD_RECV, 0, 4 << 4}, {SG2260_CMD_GENERAL, 0, 3 << 4},
        {SG2260_CMD_WRITE, 0, 2 << 4}, {SG2260_CMD_READ, 0, 1 << 4},
        {SG2260_CMD_SYS, SG2260_SYS_END, 1 | 7 << 4 | 0 << 8}, {SG2260_CMD_SYS, SG2260_SYS_NOP, 7 << 4 | 1 << 8},
        {SG2260_CMD_SYS, SG2260_SYS_TRWR, 7 << 4 | 2 << 8},
        /* CDMA_SYS_TYPE of the firmware's cdma_reg_value.h: TX_WAIT_MSG 4,
         * RX_SEND_MSG 5 */
        {SG2260_CMD_SYS, SG2260_SYS_TX_SEND_MSG, 7 << 4 | 3 << 8}, {SG2260_CMD_SYS, SG2260_SYS_TX_WAIT_MSG, 7 << 4 | 4 << 8},
        {SG2260_CMD_SYS, SG2260_SYS_RX_SEND_MSG, 7 << 4 | 5 << 8}, {SG2260_CMD_SYS, SG2260_SYS_RX_WAIT_MSG, 7 << 4 | 6 << 8}};
    for (size_t i = 0; i < sizeof consts / sizeof consts[0]; i++) {
        d = empty(consts[i].cmd);
        d.sys = consts[i].sys;
        int k = sg2260_encode(SG2260_CDMA, &d, w, &err);
        CHECK_MSG(k > 0 && w[0] == consts[i].low, "%s %s: low word 0x%llx", sg2260_cmd_name(d.cmd),
                  sg2260_sys_name(d.sys), (unsigned long long)w[0]);
        for (int j = 1; j < 2 * k; j++) CHECK(w[j] == 0);
    }
    d = empty(SG2260_CMD_WRITE);
    d.fill = 1;
    d.imm = 0x3f800000; /* the constant takes the source n-stride's place */
    CHECK(sg2260_encode(SG2260_CDMA, &d, w, &err) == 4 && w[0] == (2 << 4 | 1 << 11) && w[1] == 0x3f800000);
    /* The firmware's TX_SEND_MSG id 5 for 3 waiters. */
    CHECK(sg2260_asm_line("SYS TX_SEND_MSG id=5 count=3", &d, &err) == 0);
    CHECK(sg2260_encode(SG2260_CDMA, &d, w, &err) == 1 && w[0] == (7ull << 4 | 3ull << 8 | 5ull << 32 | 3ull << 48) &&
          w[1] == 0);
    /* A SEND of 64 fp32 from DDR 0x10000 (contiguous: stride_enable 0). */
    CHECK(sg2260_asm_line("SEND dtype=fp32 psum=wr src=0x10000 elems=64", &d, &err) == 0);
    CHECK(sg2260_encode(SG2260_CDMA, &d, w, &err) == 2);
    CHECK(w[0] == (1ull | 2ull << 12 | 1ull << 29 | 64ull << 32) && w[1] == (64ull | 64ull << 32));
    CHECK(w[2] == (1ull | 1ull << 16 | 1ull << 32) && w[3] == (64ull | 0x10000ull << 32));
    /* An L2 address: tag 0x1e in bits 40-44, the top five of the high 13,
     * and L2 SRAM's start 0x6980000000 plus the offset below them. */
    CHECK(sg2260_asm_line("RECV dtype=fp32 op=add dst=l2:0x80 elems=64", &d, &err) == 0 && d.dst == SG2260_L2(0x80));
    CHECK(sg2260_encode(SG2260_CDMA, &d, w, &err) == 2 && bits(w, 0, 0, 16, 13) == 0x1e69 &&
          bits(w, 1, 1, 32, 32) == 0x80000080);
    CHECK(bits(w, 0, 0, 11, 4) == SG2260_FP32 && bits(w, 0, 0, 29, 3) == SG2260_OP_ADD);
    /* Engines without an encoding for a command. */
    d = empty(SG2260_CMD_COPY);
    CHECK(sg2260_encode(SG2260_CDMA, &d, w, &err) == -1 && !strcmp(err.code, "unsupported-cmd"));
    d = empty(SG2260_CMD_REDUCE);
    d.dtype = SG2260_FP32;
    CHECK(sg2260_encode(SG2260_VSDMA, &d, w, &err) == -1);
    CHECK(sg2260_encode(SG2260_GDMA, &d, w, &err) == 6);
    CHECK(sg2260_desc_words(SG2260_CDMA, SG2260_CMD_SEND) == 2 && sg2260_desc_words(SG2260_CDMA, SG2260_CMD_WRITE) == 4 &&
          sg2260_desc_words(SG2260_CDMA, SG2260_CMD_GENERAL) == 2 && sg2260_desc_words(SG2260_CDMA, SG2260_CMD_SYS) == 1 &&
          sg2260_desc_words(SG2260_GDMA, SG2260_CMD_COPY) == 6 && sg2260_desc_words(SG2260_CDMA, SG2260_CMD_LOSSY_COMPRESS) == 0);
    /* WRITE with a reduce op has no field on SG2260. */
    CHECK(sg2260_asm_line("WRITE dtype=fp32 op=add src=0:0x100 dst=2:0x200 elems=4", &d, &err) == 0);
    CHECK(sg2260_encode(SG2260_CDMA, &d, w, &err) == -1 && !strcmp(err.code, "unsupported-field"));

    /* 2. Random round trips: encode -> decode -> encode and text -> desc. */
    static const Sg2260Engine engines[] = {SG2260_CDMA, SG2260_GDMA, SG2260_VSDMA};
    for (int i = 0; i < 30000; i++) {
        Sg2260Engine e = engines[i % 3];
        Sg2260Desc a = rnd_desc(e), b, c;
        int k = sg2260_encode(e, &a, w, &err);
        CHECK_MSG(k == sg2260_desc_words(e, a.cmd), "encode %s: %s", sg2260_cmd_name(a.cmd), err.msg);
        if (k < 0) continue;
        CHECK_MSG(sg2260_decode(e, w, 6, &b, &err) == k, "decode: %s", err.msg);
        CHECK(sg2260_encode(e, &b, w2, &err) == k && same_words(w, w2, k));
        char txt[512], txt2[512];
        sg2260_disasm(&a, txt, sizeof txt);
        sg2260_disasm(&b, txt2, sizeof txt2);
        CHECK_MSG(!strcmp(txt, txt2), "%s vs %s", txt, txt2);
        CHECK_MSG(sg2260_asm_line(txt, &c, &err) == 0, "%s: %s", txt, err.msg);
        CHECK_MSG(sg2260_encode(e, &c, w2, &err) == k && same_words(w, w2, k), "text round trip: %s", txt);
    }

    /* Field limits and static rules. */
    CHECK(sg2260_asm_line("SEND dtype=fp32 src=0 shape=65536,1,1,1", &d, &err) == 0);
    CHECK(sg2260_encode(SG2260_CDMA, &d, w, &err) == -1 && !strcmp(err.code, "field-range"));
    CHECK(sg2260_desc_check(&d, &err) == -1 && !strcmp(err.code, "shape"));
    /* H and W too are capped at 65535 (CDMA_MAX_H, CDMA_MAX_W of the
     * firmware's atomic_cdma_gen_cmd.h), though their fields are wider */
    CHECK(sg2260_asm_line("SEND dtype=fp32 src=0 shape=1,1,1,4000000000", &d, &err) == 0 &&
          sg2260_desc_check(&d, &err) == -1 && !strcmp(err.code, "shape"));
    CHECK(sg2260_asm_line("SEND dtype=fp32 src=0 shape=65535,65535,65535,65535 stride=1,1,1", &d, &err) == 0 &&
          sg2260_desc_check(&d, &err) == 0);
    CHECK(sg2260_asm_line("SEND dtype=fp32 src=0x200000000000 elems=1", &d, &err) == -1);
    CHECK(sg2260_asm_line("SEND dtype=fp32 src=0x30000000000 elems=1", &d, &err) == 0);
    CHECK(sg2260_desc_check(&d, &err) == -1 && !strcmp(err.code, "bad-tag"));
    CHECK(sg2260_asm_line("SYS TX_SEND_MSG id=512 count=1", &d, &err) == -1);
    CHECK(sg2260_asm_line("SYS TX_WAIT_MSG id=1 count=128", &d, &err) == -1);
    CHECK(sg2260_asm_line("SYS TX_SEND_MSG id=1", &d, &err) == 0);
    CHECK(sg2260_desc_check(&d, &err) == -1 && !strcmp(err.code, "msg-count"));
    CHECK(sg2260_asm_line("LOSSY_COMPRESS", &d, &err) == -1 && !strcmp(err.code, "unsupported-cmd"));
    CHECK(sg2260_asm_line("GENERAL src=1:0x100 dst=1:0x200 len=64", &d, &err) == 0);
    CHECK(sg2260_desc_check(&d, &err) == -1 && !strcmp(err.code, "chip-mismatch"));
    CHECK(sg2260_asm_line("GENERAL src=0:0x100 dst=2:0x200 len=64 op=add", &d, &err) == -1);
    CHECK(sg2260_asm_line("REDUCE dtype=fp32 op=add src=0x100 dst=0x200 elems=32", &d, &err) == 0);
    CHECK(sg2260_desc_check(&d, &err) == -1 && !strcmp(err.code, "reduce-l2"));
    CHECK(sg2260_asm_line("REDUCE dtype=int8 op=add src=0x100 dst=l2:0 elems=32", &d, &err) == 0);
    CHECK(sg2260_desc_check(&d, &err) == -1 && !strcmp(err.code, "dtype-op"));
    CHECK(sg2260_asm_line("COPY dtype=fp32 op=add src=0 dst=l2:0 elems=4", &d, &err) == -1);

    /* Decode errors. */
    memset(w, 0, sizeof w);
    w[0] = 5 << 4;
    CHECK(sg2260_decode(SG2260_CDMA, w, 4, &d, &err) == -1 && !strcmp(err.code, "unsupported-cmd"));
    w[0] = 7 << 4 | 9 << 8; /* SYS subtype 9 */
    CHECK(sg2260_decode(SG2260_CDMA, w, 4, &d, &err) == -1 && !strcmp(err.code, "bad-sys"));
    w[0] = 7 << 4 | 1u << 30; /* SYS reserved bit 30 */
    CHECK(sg2260_decode(SG2260_CDMA, w, 4, &d, &err) == -1 && !strcmp(err.code, "reserved-bits"));
    w[0] = 0 << 4 | 1 << 3; /* SEND reserved bit 3 */
    CHECK(sg2260_decode(SG2260_CDMA, w, 4, &d, &err) == -1 && !strcmp(err.code, "reserved-bits"));
    w[0] = 0 << 4 | 1 << 2; /* nchw_copy */
    CHECK(sg2260_decode(SG2260_CDMA, w, 4, &d, &err) == -1 && !strcmp(err.code, "unsupported-field"));
    w[0] = 2 << 4;
    CHECK(sg2260_decode(SG2260_CDMA, w, 2, &d, &err) == -1 && !strcmp(err.code, "truncated"));
    w[0] = 0; /* GDMA cmd 0 is the tensor move, 6 words */
    CHECK(sg2260_decode(SG2260_GDMA, w, 4, &d, &err) == -1 && !strcmp(err.code, "truncated"));
    /* all zero: no stride_enable, no lanes, which collc does not write */
    CHECK(sg2260_decode(SG2260_GDMA, w, 6, &d, &err) == -1 && !strcmp(err.code, "unsupported-field"));
    CHECK(sg2260_asm_line("COPY dtype=fp32 src=0x100 dst=l2:0x80 elems=32", &d, &err) == 0);
    CHECK(sg2260_encode(SG2260_GDMA, &d, w, &err) == 6 && sg2260_decode(SG2260_GDMA, w, 6, &d, &err) == 6 &&
          d.cmd == SG2260_CMD_COPY);
    w[11] = 0xff; /* a lane mask other than all lanes */
    CHECK(sg2260_decode(SG2260_GDMA, w, 6, &d, &err) == -1 && !strcmp(err.code, "unsupported-field"));

    /* 3. Program images: 128-byte aligned, stop at SYS END, and decode back
     * to the same text. */
    Sg2260Program p = {0};
    const char *lines[] = {"RECV dtype=fp32 op=add dst=l2:0x80 elems=32", "SYS RX_SEND_MSG id=1 count=2",
                           "GENERAL dtype=fp16 src=0:0x0 dst=2:0x1000 len=128", "WRITE dtype=fp32 src=0:0 dst=2:0x80 elems=4",
                           "SYS END"};
    for (int i = 0; i < 5; i++) {
        CHECK(sg2260_asm_line(lines[i], &d, &err) == 0);
        sg2260_program_push(&p, &d);
    }
    uint8_t *img;
    long n = sg2260_program_encode(SG2260_CDMA, &p, &img, &err);
    CHECK(n == 256); /* 2 + 1 + 2 + 4 + 1 = 10 words = 160 bytes, padded */
    Sg2260Program q;
    CHECK(sg2260_program_decode(SG2260_CDMA, img, (size_t)n, &q, &err) == 0 && q.ndescs == 5);
    for (int i = 0; i < 5 && i < q.ndescs; i++) {
        char a[512], b[512];
        sg2260_disasm(&p.descs[i], a, sizeof a);
        sg2260_disasm(&q.descs[i], b, sizeof b);
        CHECK_MSG(!strcmp(a, b), "%s vs %s", a, b);
    }
    free(img);
    sg2260_program_free(&q);
    CHECK(sg2260_program_encode(SG2260_GDMA, &p, &img, &err) == -1); /* RECV is not a GDMA command */
    p.ndescs = 4; /* no END */
    n = sg2260_program_encode(SG2260_CDMA, &p, &img, &err);
    CHECK(sg2260_program_decode(SG2260_CDMA, img, (size_t)n, &q, &err) == -1); /* the zero padding is no END */
    free(img);
    sg2260_program_free(&p);

    /* Bundle images: text -> image -> bundle gives the same text, for every
     * engine. */
    {
        Sg2260Machine m;
        sg2260_machine_default(&m);
        Sg2260Bundle b1, b2;
        const char *txt = ".program chip=0 peer=2\nSEND dtype=fp32 src=0x80 elems=8\nSYS TX_SEND_MSG id=3 count=1\nSYS END\n"
                          ".program chip=2 peer=0\nRECV dtype=fp32 dst=0x80 elems=8\nSYS END\n"
                          ".program chip=0 gdma\nSYS WAIT_MSG id=3 count=1\nCOPY dtype=fp32 src=0x80 dst=l2:0 elems=8\nSYS END\n"
                          ".program chip=0 vsdma=3 msg_base=144\nCOPY dtype=int8 src=0 dst=0x1000 shape=1,1,2,4 stride=16,16,8\nSYS END\n";
        CHECK_MSG(sg2260_bundle_parse(txt, "t", &m, &b1, &err) == 0, "%s", err.msg);
        uint8_t *bimg;
        long bn = sg2260_bundle_encode(&b1, &bimg, &err);
        CHECK(bn == 128 * 5 && sg2260_bundle_is_binary(bimg, (size_t)bn));
        CHECK(bimg[12] == 4 && bimg[14] == 4); /* version 4, four programs */
        CHECK(bimg[16] == 0 && bimg[18] == 0 && bimg[19] == 0); /* no launch records, no bases, not linked */
        CHECK(bimg[32 + 3 * 24 + 1] == SG2260_VSDMA && bimg[32 + 3 * 24 + 2] == 3);
        CHECK(bimg[32 + 1 * 24 + 16] == 2 && bimg[32 + 2 * 24 + 16] == 3); /* command counts, END included */
        CHECK(bimg[32 + 3 * 24 + 20] == 144 && bimg[32 + 3 * 24 + 21] == 0); /* the VSDMA's base message id */
        CHECK_MSG(sg2260_bundle_decode(bimg, (size_t)bn, &b2, &err) == 0 && b2.nslots == 4, "%s", err.msg);
        static char t1[8192], t2[8192];
        bundle_text(&b1, &m, t1, sizeof t1);
        bundle_text(&b2, &m, t2, sizeof t2);
        CHECK_MSG(!strcmp(t1, t2), "%s\nvs\n%s", t1, t2);
        CHECK(strstr(t1, ".program chip=0 port=0               ; link to chip 2\n") != NULL);
        CHECK(strstr(t1, ".program chip=0 vsdma=3 msg_base=144\n  COPY dtype=int8 src=0x0 dst=0x1000 shape=1,1,2,4 stride=16,16,8 "
                         "dshape=1,1,2,4 dstride=8,8,4\n") != NULL);
        sg2260_bundle_free(&b2);
        char csrc[16384];
        FILE *fc = fmemopen(csrc, sizeof csrc, "w");
        CHECK(sg2260_bundle_write_c(fc, &b1, "ring_prog", &err) == 0);
        fclose(fc);
        CHECK(strstr(csrc, "const unsigned char ring_prog[640] __attribute__((aligned(128))) = {\n    0x53, 0x47,") != NULL);
        CHECK(strstr(csrc, "const unsigned long ring_prog_size = 640ul;") != NULL);
        CHECK(sg2260_bundle_write_c(stdout, &b1, "1bad", &err) == -1 && !strcmp(err.code, "bad-name"));
        bimg[32 + 8] = 3; /* misaligned program offset */
        CHECK(sg2260_bundle_decode(bimg, (size_t)bn, &b2, &err) == -1 && !strcmp(err.code, "bad-image"));
        bimg[32 + 8] = 0;
        bimg[12] = 3; /* the v3 image (no launch records) is not read */
        CHECK(sg2260_bundle_decode(bimg, (size_t)bn, &b2, &err) == -1 && !strcmp(err.code, "bad-image"));
        bimg[0] = 'X';
        CHECK(!sg2260_bundle_is_binary(bimg, (size_t)bn));
        free(bimg);
        /* notes print beside the descriptors */
        Sg2260ProgramSlot *sl = &b1.slots[0];
        sl->notes = calloc((size_t)sl->prog.ndescs, sizeof *sl->notes);
        sl->notes[0] = (Sg2260Note){.step = 3, .line = 14, .peer = 2, .what = "rank 0 -> 1: copy in[0][1]"};
        for (int i = 1; i < sl->prog.ndescs; i++) sl->notes[i].peer = -1;
        bundle_text(&b1, &m, t1, sizeof t1);
        CHECK_MSG(strstr(t1, "; step 3 line 14 chip 2: rank 0 -> 1: copy in[0][1]\n") != NULL, "%s", t1);
        sg2260_bundle_free(&b1);
    }

    /* Launch records and relocation (v4 image). The struct's field offsets
     * are the firmware's packed sg_api_c2c_descriptor_t (26688507495):
     * u64 reduce_data_addr, u64 cdma_cmd_addr[3], u64 vsdma_cmd_addr[8], u64
     * gdma_cmd_addr, i32 cdma_cmd_num[3] at 104, i32 vsdma_cmd_num[8] at 116,
     * i32 gdma_cmd_num at 148, cdma_engine_num 152, vsdma_engine_num 156,
     * loop 160, sccl_args_t { nranks 164, rank 168, use_ring 172,
     * chip_map[16] 176 }: 240 bytes. */
    {
        Sg2260Machine m;
        sg2260_machine_default(&m);
        Sg2260Bundle b1, b2;
        const char *txt = ".program chip=0 peer=2\nSEND dtype=fp32 src=0x80 elems=8\nSYS TX_SEND_MSG id=3 count=1\nSYS END\n"
                          ".program chip=2 peer=0\nRECV dtype=fp32 dst=0x80 elems=8\nSYS END\n"
                          ".program chip=0 gdma\nSYS WAIT_MSG id=3 count=1\nCOPY dtype=fp32 src=0x80 dst=l2:0 elems=8\nSYS END\n";
        CHECK_MSG(sg2260_bundle_parse(txt, "t", &m, &b1, &err) == 0, "%s", err.msg);
        int chips[2] = {0, 2};
        CHECK(sg2260_bundle_set_launch(&b1, &m, 2, chips, &err) == 0);
        CHECK(sg2260_bundle_add_base(&b1, "x", 0x80, 0x100, &err) == 0);
        CHECK(sg2260_bundle_add_base(&b1, "x", 0x1000, 0x100, &err) == -1); /* twice */
        CHECK(sg2260_bundle_add_base(&b1, "a#2", 0x1000, 0x100, &err) == -1);
        uint8_t *bimg;
        long bn = sg2260_bundle_encode(&b1, &bimg, &err);
        /* header 32, directory 3 * 24, one base of 48, two launch records of
         * 256, three relocations of 12 (SEND src, RECV dst, COPY src) = 700,
         * padded to 768; programs 128 + 128 + 128 */
        CHECK(bn == 768 + 3 * 128);
        CHECK(bimg[16] == 2 && bimg[18] == 1 && bimg[20] == 3);
        const uint8_t *rec0 = bimg + 32 + 3 * 24 + 48, *st0 = rec0 + 16;
        CHECK(rec0[0] == 0 && rec0[1] == 0 && rec0[2] == 1 && rec0[3] == 1 && rec0[4] == 0 && rec0[8] == 2);
        /* chip 0: its CDMA port 0 program (3 commands) in slot 0, at offset 768;
         * its GDMA program (3 commands) third in the directory (the text's order), at 1024 */
        CHECK(st0[8] == 0x00 && st0[9] == 0x03 && st0[104] == 3 && st0[152] == 1 && st0[156] == 0);
        CHECK(st0[96] == 0x00 && st0[97] == 0x04 && st0[148] == 3);
        CHECK(st0[160] == 1 && st0[164] == 2 && st0[168] == 0 && st0[172] == 1 && st0[176] == 0 && st0[180] == 2);
        const uint8_t *st1 = rec0 + 256 + 16;
        CHECK(st1[104] == 2 && st1[148] == 0 && st1[168] == 1);
        free(bimg);
        /* relocation: x moves, addresses in it keep their offset; the
         * image's command addresses follow image= */
        CHECK(sg2260_bundle_relocate(&b1, "x", 0x10000, &err) == 0);
        CHECK(b1.slots[0].prog.descs[0].src == 0x10000 && b1.slots[1].prog.descs[0].dst == 0x10000 &&
              b1.slots[2].prog.descs[1].src == 0x10000 && b1.slots[2].prog.descs[1].dst == SG2260_L2(0));
        CHECK(sg2260_bundle_relocate(&b1, "x", 0x10010, &err) == -1 && !strcmp(err.code, "bad-base"));
        CHECK(sg2260_bundle_relocate(&b1, "y", 0x10000, &err) == -1 && !strcmp(err.code, "unknown-base"));
        CHECK(sg2260_bundle_relocate(&b1, "image", 0x10080, &err) == -1 && !strcmp(err.code, "base-overlap"));
        CHECK(sg2260_bundle_relocate(&b1, "image", 0x200000, &err) == 0);
        bn = sg2260_bundle_encode(&b1, &bimg, &err);
        CHECK(bimg[19] == 1 && bimg[24 + 2] == 0x20);
        st0 = bimg + 32 + 3 * 24 + 48 + 16;
        CHECK(st0[8] == 0x00 && st0[9] == 0x03 && st0[10] == 0x20);
        CHECK_MSG(sg2260_bundle_decode(bimg, (size_t)bn, &b2, &err) == 0 && b2.linked && b2.image_addr == 0x200000 &&
                      b2.bases[0].addr == 0x10000,
                  "%s", err.msg);
        sg2260_bundle_free(&b2);
        bimg[32 + 3 * 24 + 48 + 16 + 104] = 7; /* a command count the program does not have */
        CHECK(sg2260_bundle_decode(bimg, (size_t)bn, &b2, &err) == -1 && !strcmp(err.code, "bad-image"));
        free(bimg);
        sg2260_bundle_free(&b1);
    }

    /* Decoder fuzz: random words either fail to decode or re-encode to
     * exactly the same bits (every bit that is not reserved is a field),
     * except stride fields the decoder ignores without stride_enable. */
    {
        int decoded = 0;
        for (int i = 0; i < 200000; i++) {
            uint64_t r[8];
            Sg2260Engine e = engines[i % 3];
            for (int k = 0; k < 8; k++) r[k] = rnd() & rnd() & rnd();
            r[0] = (r[0] & ~0xf0ull) | (uint64_t)(rnd() % 8) << 4;
            r[0] |= 2; /* stride_enable: the strides are fields */
            Sg2260Desc fd;
            int k = sg2260_decode(e, r, 4, &fd, &err);
            if (k < 0) continue;
            decoded++;
            uint64_t back[8];
            int k2 = sg2260_encode(e, &fd, back, &err);
            CHECK(k2 == k);
            /* strides that happen to be contiguous lose stride_enable, a
             * fill's source strides are not kept, and the encoder sets
             * intr_en by the firmware's rule (SEND, END) */
            back[0] = (back[0] & ~UINT64_C(3)) | (r[0] & 3);
            CHECK_MSG(k2 != k || fd.fill || same_words(back, r, k), "%s re-encodes differently",
                      sg2260_cmd_name(fd.cmd));
        }
        CHECK(decoded > 1000);
        /* program and bundle decoders on random bytes: no crash */
        uint8_t junk[1024];
        for (int i = 0; i < 2000; i++) {
            for (size_t k = 0; k < sizeof junk; k++) junk[k] = (uint8_t)rnd();
            if (i % 2) memcpy(junk, "SG2260CDMA\0\0\3\0\3\0", 16);
            Sg2260Program fp;
            if (sg2260_program_decode(engines[i % 3], junk, sizeof junk, &fp, &err) == 0) sg2260_program_free(&fp);
            Sg2260Bundle fb;
            if (sg2260_bundle_decode(junk, sizeof junk, &fb, &err) == 0) sg2260_bundle_free(&fb);
        }
        /* assembler on shuffled tokens: no crash */
        static const char *toks[] = {"SEND", "RECV", "WRITE", "SYS", "END", "NOP", "dtype=fp32", "op=add", "psum=wr",
                                     "src=0x80", "dst=1:0x100", "shape=1,1,1,", "stride=1,1,1", "elems=99999999",
                                     "id=3", "count=", "=", ",", "0x", "dshape=0,0,0,0", ";", "TRWR", "imm=-1",
                                     "GENERAL", "len=7", "dst=l2:", "src=2:l2:0x80", "COPY", "REDUCE", "fill=1"};
        for (int i = 0; i < 20000; i++) {
            char line[256] = "";
            int nt = 1 + (int)(rnd() % 6);
            for (int k = 0; k < nt; k++) {
                strcat(line, toks[rnd() % (sizeof toks / sizeof *toks)]);
                strcat(line, " ");
            }
            Sg2260Desc fd;
            if (sg2260_asm_line(line, &fd, &err) == 0) {
                char back[512];
                sg2260_disasm(&fd, back, sizeof back);
            }
        }
    }

    /* Packed shapes: every dimension within 65535. */
    Sg2260Shape s;
    CHECK(sg2260_shape_packed(1u << 20, &s) == 0 && sg2260_shape_elems(&s) == (1u << 20) && s.w == 32768 &&
          s.h == 32 && s.c == 1 && s.n == 1);
    CHECK(sg2260_shape_packed(65535, &s) == 0 && s.w == 65535);
    CHECK(sg2260_shape_packed(65537, &s) == -1); /* a prime above the limit */
    CHECK(sg2260_shape_packed(UINT64_C(65521) * 65519 * 3, &s) == 0 && s.w == 65521 && s.h == 65519 && s.c == 1 && s.n == 3);
    CHECK(sg2260_shape_packed(UINT64_C(1) << 34, &s) == 0 && sg2260_shape_elems(&s) == (UINT64_C(1) << 34) &&
          sg2260_shape_is_contiguous(&s));
    CHECK(sg2260_shape_packed(0, &s) == -1);
    TEST_DONE();
}
