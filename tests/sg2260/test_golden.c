/* test_golden.c - golden descriptor words from SOPHGO's firmware generators.
 *
 * The functions below re-type the command generators of SOPHGO's public
 * TPU1686 firmware (docs/references.md [SG-fw]) - the code that writes a
 * descriptor's 64-bit halves - with every enum value copied from the
 * firmware's headers, each with the public-code index id of its source.
 * Nothing here comes from collc's tables or enums: a descriptor reaches
 * collc only as a line of its documented text form (docs/sg2260.md section
 * 3), and collc's answer is the program image its encoder writes. The test
 * reads the text form itself (key=value fields) to get the generator's
 * arguments, so a field that collc places differently from the firmware,
 * or an enum value that differs, fails here word by word.
 *
 * Without arguments it runs the built-in cases: every command type and SYS
 * subtype collc encodes, with field values at their limits. With
 * `test_golden PROGRAMS.s BUNDLE.cdma` it checks a compiled bundle: every
 * descriptor of the text programs (`collc compile --emit=cdma-asm`) must be
 * the firmware's encoding of its fields in the bundle image of the same
 * compilation (`--emit=cdma`). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check.h"
#include "sg2260.h"

typedef uint64_t u64;

/* ---- firmware enum values ----------------------------------------------
 * cdma_reg_value.h, id 26598751239 */
enum {
    CDMA_SEND = 0, CDMA_READ = 1, CDMA_WRITE = 2, CDMA_GENERAL = 3, CDMA_RECV = 4, CDMA_SYS = 7,
};
enum {
    CDMA_SYS_END = 0, CDMA_SYS_NOP = 1, CDMA_SYS_TRWR = 2, CDMA_SYS_TX_SEND_MSG = 3, CDMA_SYS_TX_WAIT_MSG = 4,
    CDMA_SYS_RX_SEND_MSG = 5, CDMA_SYS_RX_WAIT_MSG = 6,
};
enum {
    CDMA_DTYPE_INT8 = 0, CDMA_DTYPE_FP16 = 1, CDMA_DTYPE_FP32 = 2, CDMA_DTYPE_INT16 = 3, CDMA_DTYPE_INT32 = 4,
    CDMA_DTYPE_BF16 = 5, CDMA_DTYPE_FP20 = 6,
};
enum { CDMA_OPCODE_NONE = 0, CDMA_OPCODE_MUL = 1, CDMA_OPCODE_MAX = 2, CDMA_OPCODE_MIN = 3, CDMA_OPCODE_ADD = 4 };
enum { PSUM_OP_WO = 0, PSUM_OP_WR = 1 };

/* ---- CDMA generators: atomic_cdma_gen_cmd.c, id 26315577785 ------------ */

/* cdma_send_cmodel_gen_cmd */
static int fw_cdma_send(u64 src_addr, u64 n, u64 c, u64 h, u64 w, u64 sn, u64 sc, u64 sh, u64 dtype,
                        u64 stride_enable, int reduce_op, u64 nchw_copy, u64 *low, u64 *high) {
    u64 psum_op = reduce_op == CDMA_OPCODE_NONE ? PSUM_OP_WO : PSUM_OP_WR;
    low[0] = 1 | stride_enable << 1 | nchw_copy << 2 | (u64)CDMA_SEND << 4 | dtype << 12 |
             ((src_addr >> 32) & 0x1fff) << 16 | psum_op << 29 | sn << 32;
    high[0] = sc | sh << 32;
    low[1] = n | c << 16 | h << 32;
    high[1] = w | (src_addr & 0xffffffff) << 32;
    return 2;
}

/* cdma_recv_gen_cmd */
static int fw_cdma_recv(u64 dst_addr, u64 n, u64 c, u64 h, u64 w, u64 sn, u64 sc, u64 sh, u64 opcode, u64 dtype,
                        u64 stride_enable, u64 *low, u64 *high) {
    low[0] = stride_enable << 1 | (u64)CDMA_RECV << 4 | dtype << 11 | ((dst_addr >> 32) & 0x1fff) << 16 |
             opcode << 29 | sn << 32;
    high[0] = sc | sh << 32;
    low[1] = n | c << 16 | h << 32;
    high[1] = w | (dst_addr & 0xffffffff) << 32;
    return 2;
}

/* cdma_p2p_send_gen_cmd */
static int fw_cdma_general(u64 src_chipid, u64 dst_chipid, u64 length, u64 src_addr, u64 dst_addr, u64 dtype,
                           u64 *low, u64 *high) {
    low[0] = (u64)CDMA_GENERAL << 4 | dtype << 12 | ((src_addr >> 32) & 0x1fff) << 16 |
             ((dst_addr >> 32) & 0x1fff) << 32 | src_chipid << 45 | dst_chipid << 49;
    high[0] = length | (src_addr & 0xffffffff) << 32;
    low[1] = dst_addr & 0xffffffff;
    high[1] = 0;
    return 2;
}

/* The two views of READ and WRITE. */
typedef struct View {
    u64 n, c, h, w, sn, sc, sh;
} View;

/* cdma_read_gen_cmd (remote_chipid, chipid) and cdma_write_gen_cmd
 * (src_chipid, dst_chipid): one layout, WRITE's fill flag at bit 11 with the
 * constant in place of the source N stride. */
static int fw_cdma_rw(u64 cmd_type, u64 chip_a, u64 chip_b, u64 src_addr, u64 dst_addr, View s, View d,
                      u64 is_fill_const, u64 const_val, u64 dtype, u64 stride_enable, u64 *low, u64 *high) {
    low[0] = stride_enable << 1 | cmd_type << 4 | is_fill_const << 11 | dtype << 12 |
             ((src_addr >> 32) & 0x1fff) << 16 | ((dst_addr >> 32) & 0x1fff) << 32 | chip_a << 45 | chip_b << 49;
    high[0] = (is_fill_const ? (const_val & 0xffffffff) : s.sn) | s.sc << 32;
    low[1] = s.sh | d.sn << 32;
    high[1] = d.sc | d.sh << 32;
    low[2] = s.n | s.c << 16 | s.h << 32;
    high[2] = s.w | d.n << 32 | d.c << 48;
    low[3] = d.h | d.w << 32;
    high[3] = (src_addr & 0xffffffff) | (dst_addr & 0xffffffff) << 32;
    return 4;
}

/* ---- CDMA SYS: atomic_sys_gen_cmd.c, id 26469098238 -------------------- */

/* atomic_cdma_{tx,rx}_{send,wait}_msg_gen_cmd */
static int fw_cdma_msg(u64 subtype, u64 msg_id, u64 cnt, u64 *low, u64 *high) {
    low[0] = (u64)CDMA_SYS << 4 | subtype << 8 | (cnt & 0x7f) << 48 | (msg_id & 0x1ff) << 32;
    high[0] = 0;
    return 1;
}
/* atomic_cdma_end_gen_cmd */
static int fw_cdma_end(u64 *low, u64 *high) {
    low[0] = 1 | (u64)CDMA_SYS << 4 | (u64)CDMA_SYS_END << 8;
    high[0] = 0;
    return 1;
}
/* atomic_cdma_nop_gen_cmd */
static int fw_cdma_nop(u64 *low, u64 *high) {
    low[0] = (u64)CDMA_SYS << 4 | (u64)CDMA_SYS_NOP << 8;
    high[0] = 0;
    return 1;
}
/* atomic_set_cdma_id_gen_cmd */
static int fw_cdma_trwr(u64 cdma_id, u64 *low, u64 *high) {
    low[0] = (u64)CDMA_SYS << 4 | (u64)CDMA_SYS_TRWR << 8 | cdma_id << 32;
    high[0] = 0;
    return 1;
}

/* ---- GDMA and SDMA/VSDMA ------------------------------------------------
 * gdma_reg_value.h, id 26577536182; sdma_reg_value.h, id 26634446851 (the
 * SDMA values are the same: SDMA_TENSOR 0, SDMA_SYS 6, SDMA_SYS_* 0-4) */
enum { GDMA_TENSOR = 0, GDMA_SYS = 6 };
enum { GDMA_SYS_END = 0, GDMA_SYS_NOP = 1, GDMA_SYS_TRWR = 2, GDMA_SYS_SEND_MSG = 3, GDMA_SYS_WAIT_MSG = 4 };
enum { GDMA_FUNC_NONE = 0 };
enum { GDMA_ARE_PSUM_WO = 0, GDMA_ARE_PSUM_RW = 1 };
enum { GDMA_ARE_FP32 = 0, GDMA_ARE_FP20 = 1, GDMA_ARE_FP16 = 2, GDMA_ARE_BF16 = 3, GDMA_ARE_INT32 = 4 };
/* GDMA_FORMAT: the CDMA dtype values (INT8 0 ... FP20 6); get_gdma_are_dtype */
static u64 get_gdma_are_dtype(int fmt) {
    return fmt == CDMA_DTYPE_FP32 ? GDMA_ARE_FP32 : fmt == CDMA_DTYPE_FP16 ? GDMA_ARE_FP16
           : fmt == CDMA_DTYPE_BF16 ? GDMA_ARE_BF16 : fmt == CDMA_DTYPE_INT32 ? GDMA_ARE_INT32 : GDMA_ARE_FP20;
}
/* The firmware's defaults for what collc does not set: the TIU command id
 * a GDMA command depends on (none), gdma_get_cache_en() (off),
 * gdma_get_lane_mask() (all lanes). */
enum { BD_CMD_ID = 0, CACHE_EN = 0 };
#define LANE_MASK UINT64_C(0xffffffffffffffff)

/* tensor_general_move_gen_cmd (GDMA; atomic_gdma_gen_cmd.c, id 26749329039),
 * and with reduce = 1 tensor_general_move_reduce_gen_cmd (the same file),
 * and with gdma = 0 sdma_tensor_general_move_gen_cmd (atomic_sdma_gen_cmd.c,
 * id 26159087053: no cache bit, no word-0 high half). */
static int fw_tensor_move(int gdma, u64 src_addr, View s, u64 src_w_stride, u64 src_format, u64 dst_addr, View d,
                          u64 dst_w_stride, int reduce, u64 reduce_psum_op, u64 reduce_opcode, u64 *low, u64 *high) {
    low[0] = 1ull << 1 | (gdma ? (u64)CACHE_EN << 4 : 0) | (u64)GDMA_TENSOR << 32 | (u64)GDMA_FUNC_NONE << 37 |
             src_format << 41;
    high[0] = gdma ? ((u64)BD_CMD_ID & 0xfffff) | 1ull << 20 : 0;
    low[1] = s.sn | s.sc << 32;
    high[1] = s.sh | src_w_stride << 32;
    low[2] = d.sn | d.sc << 32;
    high[2] = d.sh | dst_w_stride << 32;
    low[3] = s.n | s.c << 16 | s.h << 32 | s.w << 48;
    high[3] = d.n | d.c << 16 | d.h << 32 | d.w << 48;
    low[4] = src_addr & 0x1ffffffffffful;
    high[4] = dst_addr & 0x1ffffffffffful;
    low[5] = reduce ? get_gdma_are_dtype((int)src_format) | reduce_opcode << 4 | reduce_psum_op << 8 | 1ull << 15 : 0;
    high[5] = LANE_MASK;
    return 6;
}

/* atomic_sys_gen_cmd.c, id 26469098238: gdma_{send,wait}_msg_gen_cmd,
 * atomic_gdma_{end,nop}_gen_cmd, atomic_set_gdma_id_gen_cmd and the SDMA
 * ones (port_id = the VSDMA core): the SDMA's have no high-half bits 0-20. */
static int fw_local_sys(int gdma, u64 subtype, u64 msg_id, u64 cnt, u64 id, u64 *low, u64 *high) {
    low[0] = (subtype == GDMA_SYS_END) | 1ull << 3 | (u64)GDMA_SYS << 32 | subtype << 37;
    if (subtype == GDMA_SYS_TRWR) {
        high[0] = (gdma ? (u64)BD_CMD_ID & 0xfffff : 0) | (u64)0 << 22 | id << 32;
        return 1;
    }
    high[0] = gdma ? ((u64)BD_CMD_ID & 0xfffff) | 1ull << 20 : 0;
    if (subtype == GDMA_SYS_SEND_MSG || subtype == GDMA_SYS_WAIT_MSG)
        high[0] |= (msg_id & 0x1ff) << 32 | (cnt & 0x7f) << 41;
    return 1;
}

/* ---- reading the text form ----------------------------------------------
 * docs/sg2260.md section 3: `KEYWORD [SUBTYPE] key=value ...`, `;` comment. */

/* The engines of a `.program` line (text form) and of the bundle image's
 * directory byte (docs/sg2260.md "Bundle image": 0 CDMA, 1 GDMA, 2 VSDMA). */
enum { ENG_CDMA = 0, ENG_GDMA = 1, ENG_VSDMA = 2 };

typedef struct Line {
    char cmd[16], sub[16];
    int have_dtype, dtype, op, psum_wr, fill;
    u64 src, dst, src_chip, dst_chip, len, id, count, imm, fillv;
    View s, d;
    int have_shape, have_dshape, have_stride, have_dstride;
} Line;

static int name_index(const char *v, const char *const *names, int n) {
    for (int i = 0; i < n; i++)
        if (!strcasecmp(v, names[i])) return i;
    return -1;
}

/* Firmware dtype and opcode of a text name (values: cdma_reg_value.h). */
static int dtype_of(const char *v) {
    static const char *const names[] = {"int8", "fp16", "fp32", "int16", "int32", "bf16", "fp20"};
    static const int values[] = {CDMA_DTYPE_INT8, CDMA_DTYPE_FP16, CDMA_DTYPE_FP32, CDMA_DTYPE_INT16,
                                 CDMA_DTYPE_INT32, CDMA_DTYPE_BF16, CDMA_DTYPE_FP20};
    int i = name_index(v, names, 7);
    return i < 0 ? -1 : values[i];
}
static int op_of(const char *v) {
    static const char *const names[] = {"none", "mul", "max", "min", "add"};
    static const int values[] = {CDMA_OPCODE_NONE, CDMA_OPCODE_MUL, CDMA_OPCODE_MAX, CDMA_OPCODE_MIN, CDMA_OPCODE_ADD};
    int i = name_index(v, names, 5);
    return i < 0 ? -1 : values[i];
}

/* L2 SRAM: tpu_l2_sram_get_start_addr() is L2_SRAM_START_ADDR | (L2M_TAG
 * << 40) (id 26215129680), L2_SRAM_START_ADDR 0x6980000000 (memmap.h, id
 * 26407480746), L2M_TAG 0x1e (id 26329818836). */
#define L2M_TAG UINT64_C(0x1e)
#define L2_SRAM_START_ADDR UINT64_C(0x6980000000)

/* An address of the text form: a DDR offset, or l2:OFFSET from L2 SRAM's
 * start. */
static int parse_addr(const char *v, u64 *a) {
    char *end;
    int l2 = !strncasecmp(v, "l2:", 3);
    *a = strtoull(v + (l2 ? 3 : 0), &end, 0);
    if (l2) *a = (L2_SRAM_START_ADDR | L2M_TAG << 40) + *a;
    return *end ? -1 : 0;
}
static int parse_chip_addr(const char *v, u64 *chip, u64 *a) {
    char *end;
    *chip = strtoull(v, &end, 0);
    return *end != ':' ? -1 : parse_addr(end + 1, a);
}
static int parse_dims(const char *v, u64 *out, int k) {
    const char *p = v;
    for (int i = 0; i < k; i++) {
        char *end;
        out[i] = strtoull(p, &end, 0);
        if (end == p || (i < k - 1 && *end != ',')) return -1;
        p = end + (i < k - 1);
    }
    return *p ? -1 : 0;
}
static void contiguous(View *v) {
    v->sh = v->w, v->sc = v->h * v->w, v->sn = v->c * v->h * v->w;
}
static int is_contiguous(const View *v) {
    View c = *v;
    contiguous(&c);
    return c.sn == v->sn && c.sc == v->sc && c.sh == v->sh;
}

static int parse_field(Line *L, const char *k, const char *v) {
    u64 t[4];
    if (!strcmp(k, "dtype")) return L->have_dtype = 1, (L->dtype = dtype_of(v)) < 0 ? -1 : 0;
    if (!strcmp(k, "op")) return (L->op = op_of(v)) < 0 ? -1 : 0;
    if (!strcmp(k, "psum")) return L->psum_wr = !strcmp(v, "wr"), strcmp(v, "wr") && strcmp(v, "wo") ? -1 : 0;
    if (!strcmp(k, "fill")) return L->fill = 1, L->fillv = strtoull(v, NULL, 0), 0;
    if (!strcmp(k, "len")) return L->len = strtoull(v, NULL, 0), 0;
    if (!strcmp(k, "id")) return L->id = strtoull(v, NULL, 0), 0;
    if (!strcmp(k, "count")) return L->count = strtoull(v, NULL, 0), 0;
    if (!strcmp(k, "imm")) return L->imm = strtoull(v, NULL, 0), 0;
    int chips = !strcmp(L->cmd, "WRITE") || !strcmp(L->cmd, "READ") || !strcmp(L->cmd, "GENERAL");
    if (!strcmp(k, "src")) return chips ? parse_chip_addr(v, &L->src_chip, &L->src) : parse_addr(v, &L->src);
    if (!strcmp(k, "dst")) return chips ? parse_chip_addr(v, &L->dst_chip, &L->dst) : parse_addr(v, &L->dst);
    int sh = !strcmp(k, "shape"), dsh = !strcmp(k, "dshape"), st = !strcmp(k, "stride"), dst = !strcmp(k, "dstride");
    if (!sh && !dsh && !st && !dst) return -1;
    if (parse_dims(v, t, sh || dsh ? 4 : 3)) return -1;
    View *w = sh || st ? &L->s : &L->d;
    if (sh || dsh) w->n = t[0], w->c = t[1], w->h = t[2], w->w = t[3];
    else w->sn = t[0], w->sc = t[1], w->sh = t[2];
    *(sh ? &L->have_shape : dsh ? &L->have_dshape : st ? &L->have_stride : &L->have_dstride) = 1;
    return 0;
}

/* One line of the canonical text form (every field given) into *L. */
static int parse_line(const char *text, Line *L) {
    char buf[1024];
    memset(L, 0, sizeof *L);
    snprintf(buf, sizeof buf, "%s", text);
    char *semi = strchr(buf, ';');
    if (semi) *semi = 0;
    char *save, *tok = strtok_r(buf, " \t\r\n", &save);
    if (!tok) return 1; /* blank */
    snprintf(L->cmd, sizeof L->cmd, "%s", tok);
    if (!strcmp(L->cmd, "SYS")) {
        tok = strtok_r(NULL, " \t\r\n", &save);
        if (!tok) return -1;
        snprintf(L->sub, sizeof L->sub, "%s", tok);
    }
    while ((tok = strtok_r(NULL, " \t\r\n", &save))) {
        char *eq = strchr(tok, '=');
        if (!eq) return -1;
        *eq = 0;
        if (parse_field(L, tok, eq + 1)) return -1;
    }
    if (L->have_shape && !L->have_stride) contiguous(&L->s);
    /* the assembler's defaults (docs/sg2260.md section 3): dshape = shape */
    if (!L->have_dshape) L->d.n = L->s.n, L->d.c = L->s.c, L->d.h = L->s.h, L->d.w = L->s.w;
    if (!L->have_dstride) contiguous(&L->d);
    return 0;
}

/* The firmware's words for one text line on engine `eng`: 128-bit words
 * as (low, high) pairs into w; returns the word count, or -1. */
static int fw_words(int eng, const Line *L, u64 *w) {
    u64 low[8] = {0}, high[8] = {0};
    int k = -1;
    const View *s = &L->s, *d = &L->d;
    if (eng == ENG_CDMA && !strcmp(L->cmd, "SEND")) {
        k = fw_cdma_send(L->src, s->n, s->c, s->h, s->w, s->sn, s->sc, s->sh, (u64)L->dtype, !is_contiguous(s),
                         L->psum_wr ? CDMA_OPCODE_ADD : CDMA_OPCODE_NONE, 0, low, high);
    } else if (eng == ENG_CDMA && !strcmp(L->cmd, "RECV")) {
        k = fw_cdma_recv(L->dst, s->n, s->c, s->h, s->w, s->sn, s->sc, s->sh, (u64)L->op, (u64)L->dtype,
                         !is_contiguous(s), low, high);
    } else if (eng == ENG_CDMA && !strcmp(L->cmd, "GENERAL")) {
        k = fw_cdma_general(L->src_chip, L->dst_chip, L->len, L->src, L->dst,
                            L->have_dtype ? (u64)L->dtype : CDMA_DTYPE_INT8, low, high);
    } else if (eng == ENG_CDMA && (!strcmp(L->cmd, "WRITE") || !strcmp(L->cmd, "READ"))) {
        int wr = !strcmp(L->cmd, "WRITE");
        u64 se = (!L->fill && !is_contiguous(s)) || !is_contiguous(d);
        k = fw_cdma_rw(wr ? CDMA_WRITE : CDMA_READ, L->src_chip, L->dst_chip, L->src, L->dst, *s, *d, (u64)L->fill,
                       L->fillv, (u64)L->dtype, se, low, high);
    } else if (eng == ENG_CDMA && !strcmp(L->cmd, "SYS")) {
        static const char *const subs[] = {"TX_SEND_MSG", "TX_WAIT_MSG", "RX_SEND_MSG", "RX_WAIT_MSG"};
        static const int subv[] = {CDMA_SYS_TX_SEND_MSG, CDMA_SYS_TX_WAIT_MSG, CDMA_SYS_RX_SEND_MSG,
                                   CDMA_SYS_RX_WAIT_MSG};
        int m = name_index(L->sub, subs, 4);
        if (m >= 0) k = fw_cdma_msg((u64)subv[m], L->id, L->count, low, high);
        else if (!strcmp(L->sub, "END")) k = fw_cdma_end(low, high);
        else if (!strcmp(L->sub, "NOP")) k = fw_cdma_nop(low, high);
        else if (!strcmp(L->sub, "TRWR")) k = fw_cdma_trwr(L->imm, low, high);
    } else if (eng != ENG_CDMA && (!strcmp(L->cmd, "COPY") || !strcmp(L->cmd, "REDUCE"))) {
        int reduce = !strcmp(L->cmd, "REDUCE");
        k = fw_tensor_move(eng == ENG_GDMA, L->src, *s, 1, (u64)L->dtype, L->dst, *d, 1, reduce, GDMA_ARE_PSUM_RW,
                           (u64)L->op, low, high);
    } else if (eng != ENG_CDMA && !strcmp(L->cmd, "SYS")) {
        static const char *const subs[] = {"END", "NOP", "TRWR", "SEND_MSG", "WAIT_MSG"};
        static const int subv[] = {GDMA_SYS_END, GDMA_SYS_NOP, GDMA_SYS_TRWR, GDMA_SYS_SEND_MSG, GDMA_SYS_WAIT_MSG};
        int m = name_index(L->sub, subs, 5);
        if (m >= 0) k = fw_local_sys(eng == ENG_GDMA, (u64)subv[m], L->id, L->count, L->imm, low, high);
    }
    for (int i = 0; i < k; i++) w[2 * i] = low[i], w[2 * i + 1] = high[i];
    return k;
}

/* ---- comparing --------------------------------------------------------- */

static u64 le64(const uint8_t *p) {
    u64 v = 0;
    for (int i = 0; i < 8; i++) v |= (u64)p[i] << (8 * i);
    return v;
}

static int g_compared;

/* The kinds compared ("CDMA SEND", "GDMA SYS WAIT_MSG", ...), so that a
 * compiled bundle's test can say which ones its programs have. */
static char g_kinds[64][40];
static int g_nkinds;

static void saw_kind(int eng, const Line *L) {
    static const char *const engines[] = {"CDMA", "GDMA", "VSDMA"};
    char k[40];
    snprintf(k, sizeof k, "%s %s%s%s", engines[eng], L->cmd, strcmp(L->cmd, "SYS") ? "" : " ",
             strcmp(L->cmd, "SYS") ? "" : L->sub);
    for (int i = 0; i < g_nkinds; i++)
        if (!strcmp(g_kinds[i], k)) return;
    if (g_nkinds < 64) strcpy(g_kinds[g_nkinds++], k);
}

static int cmp_kind(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

/* Compares the firmware's words of `lines` (one program of engine eng)
 * with an encoded image; `what` names the program in messages. */
static void compare_program(int eng, char **lines, int n, const uint8_t *img, size_t size, const char *what) {
    size_t pos = 0;
    for (int i = 0; i < n; i++) {
        Line L;
        int r = parse_line(lines[i], &L);
        if (r == 1) continue;
        CHECK_MSG(r == 0, "%s: cannot read '%s'", what, lines[i]);
        if (r) return;
        u64 w[16];
        int k = fw_words(eng, &L, w);
        CHECK_MSG(k > 0, "%s: no firmware generator for '%s'", what, lines[i]);
        if (k <= 0) return;
        CHECK_MSG(pos + (size_t)k * 16 <= size, "%s: image ends before '%s'", what, lines[i]);
        if (pos + (size_t)k * 16 > size) return;
        for (int j = 0; j < 2 * k; j++) {
            u64 got = le64(img + pos + (size_t)j * 8);
            CHECK_MSG(got == w[j], "%s: '%s' word %d %s: collc 0x%016llx, firmware 0x%016llx", what, lines[i], j / 2,
                      j % 2 ? "high" : "low", (unsigned long long)got, (unsigned long long)w[j]);
        }
        pos += (size_t)k * 16;
        g_compared++;
        saw_kind(eng, &L);
    }
}

/* One built-in case: `header` (a .program line) and descriptor lines
 * (SYS END appended) go through collc's text parser and encoder. */
static void check_case(const char *header, int eng, const char *const *descs, int n) {
    char text[8192];
    size_t len = (size_t)snprintf(text, sizeof text, "%s\n", header);
    for (int i = 0; i < n; i++) len += (size_t)snprintf(text + len, sizeof text - len, "%s\n", descs[i]);
    snprintf(text + len, sizeof text - len, "SYS END\n");
    Sg2260Machine m;
    sg2260_machine_default(&m);
    Sg2260Bundle b = {0};
    Sg2260Error err;
    int ok = sg2260_bundle_parse(text, "case", &m, &b, &err) == 0 && b.nslots == 1;
    CHECK_MSG(ok, "collc does not accept:\n%s%s", text, ok ? "" : err.msg);
    if (ok) {
        uint8_t *img;
        long size = sg2260_program_encode(b.slots[0].engine, &b.slots[0].prog, &img, &err);
        CHECK_MSG(size > 0, "collc does not encode:\n%s%s", text, size > 0 ? "" : err.msg);
        if (size > 0) {
            char *lines[66];
            for (int i = 0; i < n; i++) lines[i] = (char *)descs[i];
            lines[n] = "SYS END";
            compare_program(eng, lines, n + 1, img, (size_t)size, descs[0]);
            free(img);
        }
    }
    sg2260_bundle_free(&b);
}

static void builtin_cases(void) {
    /* CDMA: every command type collc encodes, fields at their limits
     * (45-bit addresses, 16-bit N and C, 32-bit H, W and strides). */
    static const char *const cdma[] = {
        "SEND dtype=fp32 psum=wo src=0x10000 shape=1,1,1,64",
        "SEND dtype=bf16 psum=wr src=0x1fffffffff80 shape=65535,65535,4294967295,4294967295 "
        "stride=4294967295,4294967294,4294967293",
        "SEND dtype=fp20 psum=wr src=0x123480 shape=2,3,5,7 stride=1000,300,9",
        "RECV dtype=int32 op=add dst=0x2000 shape=1,1,4,32",
        "RECV dtype=fp16 op=max dst=0x1abcdef01280 shape=7,9,11,13 stride=100000,9000,700",
        "RECV dtype=fp32 op=mul dst=0x80 shape=1,1,1,32",
        "RECV dtype=bf16 op=min dst=0x100 shape=1,2,1,64",
        "RECV dtype=int8 op=none dst=0x4000 shape=1,1,1,1024",
        "RECV dtype=int16 op=none dst=0x4000 shape=1,1,1,1024",
        "RECV dtype=fp32 op=add dst=l2:0x0 shape=1,1,1,64",
        "RECV dtype=bf16 op=add dst=l2:0x7ff80 shape=1,1,2,64",
        "SEND dtype=fp32 psum=wr src=l2:0x100 shape=1,1,1,64",
        "GENERAL dtype=int8 src=0:0x1000 dst=2:0x4000 len=4096",
        "GENERAL dtype=fp20 src=15:0x1fffffffff80 dst=14:0x1234500080 len=4294967295",
        "WRITE dtype=int32 src=0:0x100 dst=2:0x200 shape=1,1,1,4 dshape=1,1,2,2",
        "WRITE dtype=fp32 fill=0x3f800000 src=0:0x0 dst=2:0x80 shape=1,1,1,32 dshape=1,1,1,32",
        "WRITE dtype=fp16 src=3:0x1fffffffff00 dst=12:0x1000000000 shape=65535,2,3,4 stride=99,88,77 "
        "dshape=2,65535,4,3 dstride=4294967295,66,55",
        "READ dtype=int8 src=5:0x300 dst=1:0x400 shape=1,1,1,8 dshape=1,1,1,8",
        "READ dtype=bf16 src=9:0x1000000300 dst=4:0xfff00400 shape=3,1,7,8 stride=99,88,8 dshape=1,3,8,7 "
        "dstride=200,60,7",
        "SYS NOP",
        "SYS TRWR imm=0xdeadbeef",
        "SYS TX_SEND_MSG id=0 count=1",
        "SYS TX_WAIT_MSG id=511 count=127",
        "SYS RX_SEND_MSG id=300 count=5",
        "SYS RX_WAIT_MSG id=77 count=3",
    };
    for (size_t i = 0; i < sizeof cdma / sizeof *cdma; i++) check_case(".program chip=0 port=0", ENG_CDMA, &cdma[i], 1);
    /* A whole program: words back to back, END last. */
    check_case(".program chip=0 port=1", ENG_CDMA, cdma, (int)(sizeof cdma / sizeof *cdma));
    /* GDMA: the tensor move (COPY), its reducing form, the short SYS. */
    static const char *const gdma[] = {
        "COPY dtype=fp32 src=0x10000 dst=0x20000 shape=1,1,1,64",
        "COPY dtype=int8 src=0x1fffffffff00 dst=0x1000000000 shape=65535,65535,65535,65535 "
        "stride=4294967295,4294967294,4294967293 dshape=65535,65535,65535,65535 dstride=1,2,3",
        "COPY dtype=fp16 src=0x100 dst=0x200 shape=2,3,4,5 stride=100,30,6 dshape=5,4,3,2 dstride=90,8,3",
        "COPY dtype=fp32 src=0x10000 dst=l2:0x80 shape=1,1,1,64",
        "COPY dtype=fp32 src=l2:0x80 dst=0x10000 shape=1,1,1,64",
        "REDUCE dtype=fp32 op=add src=0x10100 dst=l2:0x0 shape=1,1,1,64",
        "REDUCE dtype=fp32 op=add src=0x10000 dst=0x20000 shape=1,1,1,64",
        "REDUCE dtype=fp16 op=max src=0x100 dst=0x200 shape=1,1,2,64",
        "REDUCE dtype=bf16 op=min src=0x100 dst=0x200 shape=1,2,1,64",
        "REDUCE dtype=int32 op=add src=0x100 dst=0x200 shape=1,1,1,32",
        "REDUCE dtype=fp20 op=mul src=0x180 dst=0x280 shape=1,1,1,32",
        "SYS NOP",
        "SYS TRWR imm=0xfedcba98",
        "SYS SEND_MSG id=0 count=1",
        "SYS SEND_MSG id=511 count=127",
        "SYS WAIT_MSG id=384 count=9",
    };
    for (size_t i = 0; i < sizeof gdma / sizeof *gdma; i++) check_case(".program chip=0 gdma", ENG_GDMA, &gdma[i], 1);
    check_case(".program chip=0 gdma", ENG_GDMA, gdma, (int)(sizeof gdma / sizeof *gdma));
    /* VSDMA: COPY and the short SYS (no REDUCE there). */
    static const char *const vsdma[] = {
        "COPY dtype=bf16 src=0x4000 dst=0x8000 shape=1,1,1,1024",
        "COPY dtype=int32 src=0x1abcdef00000 dst=0x40 shape=7,1,3,65535 stride=300000,200000,65536 dshape=1,7,65535,3 "
        "dstride=2000000,1000000,4",
        "SYS NOP",
        "SYS TRWR imm=0x7",
        "SYS SEND_MSG id=48 count=2",
        "SYS WAIT_MSG id=95 count=127",
    };
    for (size_t i = 0; i < sizeof vsdma / sizeof *vsdma; i++) check_case(".program chip=0 vsdma=7", ENG_VSDMA, &vsdma[i], 1);
    check_case(".program chip=0 vsdma=3", ENG_VSDMA, vsdma, (int)(sizeof vsdma / sizeof *vsdma));
}

/* ---- a compiled bundle -------------------------------------------------- */

static char *read_all(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap + 1);
    size_t k;
    while ((k = fread(buf + len, 1, cap - len, f)) > 0) {
        len += k;
        if (len == cap) buf = realloc(buf, (cap *= 2) + 1);
    }
    fclose(f);
    buf[len] = 0;
    *n = len;
    return buf;
}

/* `.program chip=C port=P | gdma | vsdma=K`: 0 with the program's key. */
static int program_key(const char *line, int *chip, int *eng, int *index) {
    if (sscanf(line, ".program chip=%d port=%d", chip, index) == 2) return *eng = ENG_CDMA, 0;
    if (sscanf(line, ".program chip=%d vsdma=%d", chip, index) == 2) return *eng = ENG_VSDMA, 0;
    char word[8] = "";
    if (sscanf(line, ".program chip=%d %7s", chip, word) == 2 && !strcmp(word, "gdma")) return *eng = ENG_GDMA, *index = 0, 0;
    return -1;
}

/* The image's directory entry of (chip, engine, index): its bytes. Layout:
 * docs/sg2260.md "Bundle image". */
static const uint8_t *image_program(const uint8_t *img, size_t n, int chip, int eng, int index, size_t *size) {
    if (n < 32 || memcmp(img, "SG2260CDMA\0\0", 12) || (img[12] | img[13] << 8) != 4) return NULL;
    unsigned count = img[14] | (unsigned)img[15] << 8;
    for (unsigned i = 0; i < count && 32 + (i + 1) * 24 <= n; i++) {
        const uint8_t *e = img + 32 + i * 24;
        if (e[0] != chip || e[1] != eng || e[2] != index) continue;
        u64 sz = e[4] | (u64)e[5] << 8 | (u64)e[6] << 16 | (u64)e[7] << 24, off = le64(e + 8);
        if (off > n || sz > n - off) return NULL;
        *size = (size_t)sz;
        return img + off;
    }
    return NULL;
}

static int check_compiled(const char *asm_path, const char *img_path) {
    size_t tn, in;
    char *text = read_all(asm_path, &tn);
    uint8_t *img = (uint8_t *)read_all(img_path, &in);
    if (!text || !img) {
        fprintf(stderr, "cannot read %s or %s\n", asm_path, img_path);
        return 2;
    }
    char **lines = malloc(sizeof *lines * (tn + 1));
    int nlines = 0, programs = 0;
    for (char *save, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) lines[nlines++] = l;
    for (int i = 0; i < nlines; i++) {
        int chip, eng, index;
        if (program_key(lines[i], &chip, &eng, &index)) continue;
        int j = i + 1;
        while (j < nlines && lines[j][0] != '.') j++;
        size_t size = 0;
        const uint8_t *p = image_program(img, in, chip, eng, index, &size);
        char what[64];
        snprintf(what, sizeof what, "chip %d engine %d index %d", chip, eng, index);
        CHECK_MSG(p != NULL, "%s: not in the bundle image", what);
        if (p) compare_program(eng, lines + i + 1, j - i - 1, p, size, what);
        programs++;
        i = j - 1;
    }
    printf("%d programs, %d descriptors equal to the firmware's words\n", programs, g_compared);
    qsort(g_kinds, (size_t)g_nkinds, sizeof g_kinds[0], cmp_kind);
    printf("kinds:");
    for (int i = 0; i < g_nkinds; i++) printf("%s %s", i ? "," : "", g_kinds[i]);
    printf("\n");
    free(lines);
    free(text);
    free(img);
    TEST_DONE();
}

int main(int argc, char **argv) {
    if (argc == 3) return check_compiled(argv[1], argv[2]);
    builtin_cases();
    CHECK(g_compared > 80);
    TEST_DONE();
}
