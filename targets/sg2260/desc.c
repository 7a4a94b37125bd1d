/* desc.c - descriptor encode/decode in collc's bit layout, static checks.
 *
 * A descriptor is 1, 2 or 4 128-bit words. Bit k of a descriptor is bit
 * (k % 64) of 64-bit half w[k / 64]; halves are stored little-endian in the
 * binary image. The field table lives in docs/sg2260.md; the F_* offsets
 * below are the single source of truth for it. */
#include <string.h>

#include "internal.h"

/* Common header. */
enum { F_CMD = 0, F_LEN = 4 };
/* SYS */
enum { F_SYS_TYPE = 8, F_SYS_ID = 12, F_SYS_COUNT = 21, F_SYS_IMM = 32, F_SYS_ADDR = 64 };
/* SEND / RECV and WRITE / READ / GENERAL share dtype, op, psum offsets. */
enum { F_DTYPE = 8, F_OP = 12, F_PSUM = 15 };
enum { F_SR_ADDR = 16, F_SR_SHAPE = 64, F_SR_STRIDE = 128 };
enum {
    F_WR_SRC_CHIP = 16, F_WR_DST_CHIP = 20, F_WR_SRC = 24, F_WR_DST = 64,
    F_WR_SSHAPE = 128, F_WR_SSTRIDE = 192, F_WR_DSHAPE = 320, F_WR_DSTRIDE = 384
};

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

size_t sg2260_dtype_size(Sg2260Dtype t) {
    switch (t) {
    case SG2260_INT8: return 1;
    case SG2260_FP16:
    case SG2260_INT16:
    case SG2260_BF16: return 2;
    case SG2260_FP32:
    case SG2260_INT32:
    case SG2260_FP20: return 4;
    }
    return 0;
}

int sg2260_desc_words(Sg2260Cmd cmd) {
    switch (cmd) {
    case SG2260_CMD_SEND:
    case SG2260_CMD_RECV: return 2;
    case SG2260_CMD_READ:
    case SG2260_CMD_WRITE:
    case SG2260_CMD_GENERAL: return 4;
    case SG2260_CMD_SYS: return 1;
    default: return 0;
    }
}

uint64_t sg2260_shape_elems(const Sg2260Shape *s) {
    return (uint64_t)s->n * s->c * s->h * s->w;
}

void sg2260_shape_contiguous(Sg2260Shape *s) {
    s->sw = 1;
    s->sh = s->w;
    s->sc = s->h * s->w;
    s->sn = s->c * s->h * s->w;
}

int sg2260_shape_packed(uint64_t count, Sg2260Shape *s) {
    memset(s, 0, sizeof *s);
    uint32_t d[4] = {1, 1, 1, 1};
    uint64_t rest = count;
    if (count == 0) return -1;
    /* Fill W, then H, C, N with the largest divisor <= 65535. */
    for (int i = 3; i >= 0 && rest > 1; i--) {
        uint64_t best = rest <= SG2260_MAX_DIM ? rest : 0;
        for (uint64_t k = SG2260_MAX_DIM; !best && k >= 2; k--)
            if (rest % k == 0) best = k;
        if (!best) return -1;
        d[i] = (uint32_t)best;
        rest /= best;
    }
    if (rest != 1) return -1;
    s->n = d[0], s->c = d[1], s->h = d[2], s->w = d[3];
    sg2260_shape_contiguous(s);
    return 0;
}

static int put_shape(uint64_t *w, int shape_off, int stride_off, const Sg2260Shape *s) {
    uint32_t dims[4] = {s->n, s->c, s->h, s->w};
    for (int i = 0; i < 4; i++) {
        if (!fits(dims[i], 16)) return -1;
        put(w, shape_off + 16 * i, 16, dims[i]);
    }
    if (!fits(s->sw, 16)) return -1;
    put(w, stride_off, 32, s->sn);
    put(w, stride_off + 32, 32, s->sc);
    put(w, stride_off + 64, 32, s->sh);
    put(w, stride_off + 96, 16, s->sw);
    return 0;
}

static void get_shape(const uint64_t *w, int shape_off, int stride_off, Sg2260Shape *s) {
    s->n = (uint32_t)get(w, shape_off, 16);
    s->c = (uint32_t)get(w, shape_off + 16, 16);
    s->h = (uint32_t)get(w, shape_off + 32, 16);
    s->w = (uint32_t)get(w, shape_off + 48, 16);
    s->sn = (uint32_t)get(w, stride_off, 32);
    s->sc = (uint32_t)get(w, stride_off + 32, 32);
    s->sh = (uint32_t)get(w, stride_off + 64, 32);
    s->sw = (uint32_t)get(w, stride_off + 96, 16);
}

int sg2260_encode(const Sg2260Desc *d, uint64_t *w, Sg2260Error *err) {
    int words = sg2260_desc_words(d->cmd);
    if (!words)
        return sg_err(err, "unsupported-cmd", NULL, 0, "command type %d is not encoded by collc",
                      (int)d->cmd);
    memset(w, 0, (size_t)words * 16);
    put(w, F_CMD, 4, (uint64_t)d->cmd);
    put(w, F_LEN, 4, (uint64_t)words);
    switch (d->cmd) {
    case SG2260_CMD_SYS:
        if (!fits((unsigned)d->sys, 4) || !fits(d->msg_id, 9) || !fits(d->count, 7) ||
            !fits(d->dst, SG2260_ADDR_BITS))
            return sg_err(err, "field-range", NULL, 0, "SYS field out of range");
        put(w, F_SYS_TYPE, 4, (uint64_t)d->sys);
        put(w, F_SYS_ID, 9, d->msg_id);
        put(w, F_SYS_COUNT, 7, d->count);
        put(w, F_SYS_IMM, 32, d->imm);
        put(w, F_SYS_ADDR, SG2260_ADDR_BITS, d->dst);
        return words;
    case SG2260_CMD_SEND:
    case SG2260_CMD_RECV: {
        uint64_t addr = d->cmd == SG2260_CMD_SEND ? d->src : d->dst;
        if (!fits((unsigned)d->dtype, 4) || !fits((unsigned)d->op, 3) ||
            !fits((unsigned)d->psum, 1) || !fits(addr, SG2260_ADDR_BITS))
            return sg_err(err, "field-range", NULL, 0, "%s field out of range",
                          sg2260_cmd_name(d->cmd));
        put(w, F_DTYPE, 4, (uint64_t)d->dtype);
        if (d->cmd == SG2260_CMD_RECV) put(w, F_OP, 3, (uint64_t)d->op);
        else put(w, F_PSUM, 1, (uint64_t)d->psum);
        put(w, F_SR_ADDR, SG2260_ADDR_BITS, addr);
        if (put_shape(w, F_SR_SHAPE, F_SR_STRIDE, &d->shape))
            return sg_err(err, "field-range", NULL, 0, "shape dimension or W stride exceeds 65535");
        return words;
    }
    default: /* WRITE, READ, GENERAL */
        if (!fits((unsigned)d->dtype, 4) || !fits((unsigned)d->op, 3) || !fits((unsigned)d->src_chip, 4) ||
            !fits((unsigned)d->dst_chip, 4) || !fits(d->src, SG2260_ADDR_BITS) ||
            !fits(d->dst, SG2260_ADDR_BITS))
            return sg_err(err, "field-range", NULL, 0, "%s field out of range",
                          sg2260_cmd_name(d->cmd));
        put(w, F_DTYPE, 4, (uint64_t)d->dtype);
        put(w, F_OP, 3, (uint64_t)d->op);
        put(w, F_WR_SRC_CHIP, 4, (uint64_t)d->src_chip);
        put(w, F_WR_DST_CHIP, 4, (uint64_t)d->dst_chip);
        put(w, F_WR_SRC, SG2260_ADDR_BITS, d->src);
        put(w, F_WR_DST, SG2260_ADDR_BITS, d->dst);
        if (put_shape(w, F_WR_SSHAPE, F_WR_SSTRIDE, &d->shape) ||
            put_shape(w, F_WR_DSHAPE, F_WR_DSTRIDE, &d->dshape))
            return sg_err(err, "field-range", NULL, 0, "shape dimension or W stride exceeds 65535");
        return words;
    }
}

/* Reserved-bit masks: bits that must be zero, per layout. */
static int reserved_clear(const uint64_t *w, const int (*ranges)[2], int n) {
    for (int i = 0; i < n; i++)
        if (get(w, ranges[i][0], ranges[i][1] - ranges[i][0] + 1)) return 0;
    return 1;
}

int sg2260_decode(const uint64_t *w, size_t avail, Sg2260Desc *d, Sg2260Error *err) {
    memset(d, 0, sizeof *d);
    if (avail < 1) return sg_err(err, "truncated", NULL, 0, "empty descriptor stream");
    Sg2260Cmd cmd = (Sg2260Cmd)get(w, F_CMD, 4);
    int words = sg2260_desc_words(cmd);
    if (!words)
        return sg_err(err, "unsupported-cmd", NULL, 0, "command type %d is not modelled", (int)cmd);
    if ((int)get(w, F_LEN, 4) != words)
        return sg_err(err, "bad-length", NULL, 0, "%s descriptor with length field %d (expected %d)",
                      sg2260_cmd_name(cmd), (int)get(w, F_LEN, 4), words);
    if ((size_t)words > avail)
        return sg_err(err, "truncated", NULL, 0, "%s descriptor truncated", sg2260_cmd_name(cmd));
    d->cmd = cmd;
    static const int sys_res[][2] = {{28, 31}, {104, 127}};
    static const int send_res[][2] = {{12, 14}, {56, 63}, {240, 255}};
    static const int recv_res[][2] = {{15, 15}, {56, 63}, {240, 255}};
    static const int wr_res[][2] = {{15, 15}, {104, 127}, {304, 319}, {496, 511}};
    int ok;
    switch (cmd) {
    case SG2260_CMD_SYS:
        ok = reserved_clear(w, sys_res, 2);
        d->sys = (Sg2260Sys)get(w, F_SYS_TYPE, 4);
        d->msg_id = (uint32_t)get(w, F_SYS_ID, 9);
        d->count = (uint32_t)get(w, F_SYS_COUNT, 7);
        d->imm = (uint32_t)get(w, F_SYS_IMM, 32);
        d->dst = get(w, F_SYS_ADDR, SG2260_ADDR_BITS);
        break;
    case SG2260_CMD_SEND:
    case SG2260_CMD_RECV:
        ok = reserved_clear(w, cmd == SG2260_CMD_SEND ? send_res : recv_res, 3);
        d->dtype = (Sg2260Dtype)get(w, F_DTYPE, 4);
        if (cmd == SG2260_CMD_RECV) {
            d->op = (Sg2260Op)get(w, F_OP, 3);
            d->dst = get(w, F_SR_ADDR, SG2260_ADDR_BITS);
        } else {
            d->psum = (Sg2260Psum)get(w, F_PSUM, 1);
            d->src = get(w, F_SR_ADDR, SG2260_ADDR_BITS);
        }
        get_shape(w, F_SR_SHAPE, F_SR_STRIDE, &d->shape);
        break;
    default:
        ok = reserved_clear(w, wr_res, 4);
        d->dtype = (Sg2260Dtype)get(w, F_DTYPE, 4);
        d->op = (Sg2260Op)get(w, F_OP, 3);
        d->src_chip = (int)get(w, F_WR_SRC_CHIP, 4);
        d->dst_chip = (int)get(w, F_WR_DST_CHIP, 4);
        d->src = get(w, F_WR_SRC, SG2260_ADDR_BITS);
        d->dst = get(w, F_WR_DST, SG2260_ADDR_BITS);
        get_shape(w, F_WR_SSHAPE, F_WR_SSTRIDE, &d->shape);
        get_shape(w, F_WR_DSHAPE, F_WR_DSTRIDE, &d->dshape);
        break;
    }
    if (!ok)
        return sg_err(err, "reserved-bits", NULL, 0, "%s descriptor has reserved bits set",
                      sg2260_cmd_name(cmd));
    return words;
}

static int check_shape(const Sg2260Shape *s, const char *what, Sg2260Error *err) {
    uint32_t dims[4] = {s->n, s->c, s->h, s->w};
    for (int i = 0; i < 4; i++)
        if (dims[i] < 1 || dims[i] > SG2260_MAX_DIM)
            return sg_err(err, "shape", NULL, 0, "%s dimension %c = %u is outside 1..%d", what,
                          "NCHW"[i], dims[i], SG2260_MAX_DIM);
    if (s->sw > SG2260_MAX_DIM)
        return sg_err(err, "shape", NULL, 0, "%s W stride %u exceeds %d", what, s->sw, SG2260_MAX_DIM);
    return 0;
}

int sg2260_desc_check(const Sg2260Desc *d, Sg2260Error *err) {
    const char *name = sg2260_cmd_name(d->cmd);
    if (!sg2260_desc_words(d->cmd))
        return sg_err(err, "unsupported-cmd", NULL, 0, "command %s is not modelled", name);
    if (d->cmd == SG2260_CMD_SYS) {
        if ((unsigned)d->sys > SG2260_SYS_RX_WAIT_MSG)
            return sg_err(err, "bad-sys", NULL, 0, "unknown SYS subtype %d", (int)d->sys);
        if (d->msg_id >= SG2260_MSG_IDS || d->count > SG2260_MAX_MSG_COUNT)
            return sg_err(err, "field-range", NULL, 0, "message id must be < 512 and count <= 127");
        if (d->dst > SG2260_ADDR_MASK)
            return sg_err(err, "addr-range", NULL, 0, "address 0x%llx exceeds 40 bits",
                          (unsigned long long)d->dst);
        if (d->sys == SG2260_SYS_TRWR && d->dst % 4)
            return sg_err(err, "align", NULL, 0, "SYS TRWR address 0x%llx is not 4-byte aligned",
                          (unsigned long long)d->dst);
        return 0;
    }
    if ((unsigned)d->dtype > SG2260_FP20)
        return sg_err(err, "bad-dtype", NULL, 0, "%s: unknown dtype %d", name, (int)d->dtype);
    if ((unsigned)d->op > SG2260_OP_ADD)
        return sg_err(err, "bad-op", NULL, 0, "%s: unknown reduce op %d", name, (int)d->op);
    if ((unsigned)d->psum > SG2260_PSUM_WR)
        return sg_err(err, "bad-op", NULL, 0, "%s: unknown psum_op %d", name, (int)d->psum);
    if (check_shape(&d->shape, d->cmd == SG2260_CMD_SEND || d->cmd == SG2260_CMD_RECV ? name : "source", err))
        return -1;
    int has_src = d->cmd != SG2260_CMD_RECV, has_dst = d->cmd != SG2260_CMD_SEND;
    if ((has_src && d->src > SG2260_ADDR_MASK) || (has_dst && d->dst > SG2260_ADDR_MASK))
        return sg_err(err, "addr-range", NULL, 0, "%s: address exceeds 40 bits", name);
    if (d->cmd == SG2260_CMD_SEND && d->op != SG2260_OP_NONE)
        return sg_err(err, "bad-op", NULL, 0, "SEND carries no reduce op (the RECV does)");
    if (d->cmd != SG2260_CMD_SEND && !sg2260_dtype_op_ok(d->dtype, d->op))
        return sg_err(err, "dtype-op", NULL, 0, "%s: reduce op %s is not allowed on dtype %s", name,
                      sg2260_op_name(d->op), sg2260_dtype_name(d->dtype));
    if (d->cmd == SG2260_CMD_SEND && d->psum == SG2260_PSUM_WR &&
        !sg2260_dtype_op_ok(d->dtype, SG2260_OP_ADD))
        return sg_err(err, "dtype-op", NULL, 0, "SEND: psum=wr (reduce) on non-reducible dtype %s",
                      sg2260_dtype_name(d->dtype));
    if (d->dtype == SG2260_FP20) {
        if (has_src && d->src % SG2260_ALIGN)
            return sg_err(err, "align", NULL, 0, "%s: FP20 source 0x%llx is not 128-byte aligned",
                          name, (unsigned long long)d->src);
        if (has_dst && d->dst % SG2260_ALIGN)
            return sg_err(err, "align", NULL, 0, "%s: FP20 destination 0x%llx is not 128-byte aligned",
                          name, (unsigned long long)d->dst);
    }
    if (has_dst && d->op != SG2260_OP_NONE && d->dst % SG2260_ALIGN)
        return sg_err(err, "align", NULL, 0,
                      "%s: reducing destination 0x%llx is not 128-byte aligned", name,
                      (unsigned long long)d->dst);
    if (d->cmd == SG2260_CMD_WRITE || d->cmd == SG2260_CMD_READ || d->cmd == SG2260_CMD_GENERAL) {
        if (check_shape(&d->dshape, "destination", err)) return -1;
        if (d->src_chip < 0 || d->src_chip >= SG2260_MAX_CHIPS || d->dst_chip < 0 ||
            d->dst_chip >= SG2260_MAX_CHIPS)
            return sg_err(err, "field-range", NULL, 0, "%s: chip ids are 4 bits", name);
        if (sg2260_shape_elems(&d->shape) != sg2260_shape_elems(&d->dshape))
            return sg_err(err, "size-mismatch", NULL, 0,
                          "%s: source has %llu elements but destination %llu", name,
                          (unsigned long long)sg2260_shape_elems(&d->shape),
                          (unsigned long long)sg2260_shape_elems(&d->dshape));
    }
    return 0;
}

static const char *const cmd_names[] = {"SEND",  "READ",     "WRITE",    "GENERAL",
                                        "RECV",  "LOSSY_COMPRESS", "LOSSY_DECOMPRESS",
                                        "SYS",   "TCP_SEND", "TCP_RECV"};
static const char *const sys_names[] = {"END",         "NOP",         "TRWR",       "TX_SEND_MSG",
                                        "TX_WAIT_MSG", "RX_SEND_MSG", "RX_WAIT_MSG"};
static const char *const dtype_names[] = {"int8", "fp16", "fp32", "int16", "int32", "bf16", "fp20"};
static const char *const op_names[] = {"none", "mul", "max", "min", "add"};

const char *sg2260_cmd_name(Sg2260Cmd c) {
    return (unsigned)c < sizeof cmd_names / sizeof *cmd_names ? cmd_names[c] : "?";
}
const char *sg2260_sys_name(Sg2260Sys s) {
    return (unsigned)s < sizeof sys_names / sizeof *sys_names ? sys_names[s] : "?";
}
const char *sg2260_dtype_name(Sg2260Dtype t) {
    return (unsigned)t < sizeof dtype_names / sizeof *dtype_names ? dtype_names[t] : "?";
}
const char *sg2260_op_name(Sg2260Op o) {
    return (unsigned)o < sizeof op_names / sizeof *op_names ? op_names[o] : "?";
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

long sg2260_program_encode(const Sg2260Program *p, uint8_t **out, Sg2260Error *err) {
    size_t words = 0;
    for (int i = 0; i < p->ndescs; i++) {
        int k = sg2260_desc_words(p->descs[i].cmd);
        if (!k) return sg_err(err, "unsupported-cmd", NULL, 0, "descriptor %d: command not encodable", i);
        words += (size_t)k;
    }
    size_t bytes = (words * 16 + SG2260_ALIGN - 1) / SG2260_ALIGN * SG2260_ALIGN;
    if (bytes == 0) bytes = SG2260_ALIGN;
    uint8_t *buf = sg_xcalloc(bytes, 1);
    size_t pos = 0;
    for (int i = 0; i < p->ndescs; i++) {
        uint64_t w[8];
        int k = sg2260_encode(&p->descs[i], w, err);
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

int sg2260_program_decode(const uint8_t *bytes, size_t n, Sg2260Program *p, Sg2260Error *err) {
    size_t nwords = n / 16, i = 0;
    memset(p, 0, sizeof *p);
    while (i < nwords) {
        uint64_t w[8] = {0};
        size_t avail = nwords - i < 4 ? nwords - i : 4;
        for (size_t j = 0; j < 2 * avail; j++)
            for (int b = 0; b < 8; b++) w[j] |= (uint64_t)bytes[(i * 2 + j) * 8 + b] << (8 * b);
        Sg2260Desc d;
        int k = sg2260_decode(w, avail, &d, err);
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

/* ---- bundle images ------------------------------------------------------
 * Header (little-endian): bytes 0-11 magic "SG2260CDMA\0\0", u32 version (1),
 * u32 program count, then the directory at byte 16: per program 16 bytes
 * { u8 chip, u8 port, u8 chan (0 TX, 1 RX), u8 reserved, u32 size in bytes,
 * u64 offset from the image start }. The header+directory is padded to a
 * multiple of 128 bytes, and so is every program. */
static const uint8_t bundle_magic[12] = {'S', 'G', '2', '2', '6', '0', 'C', 'D', 'M', 'A', 0, 0};

static void put_le(uint8_t *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

int sg2260_bundle_is_binary(const uint8_t *bytes, size_t n) {
    return n >= sizeof bundle_magic && !memcmp(bytes, bundle_magic, sizeof bundle_magic);
}

long sg2260_bundle_encode(const Sg2260Bundle *b, uint8_t **out, Sg2260Error *err) {
    size_t head = (16 + (size_t)b->nslots * 16 + SG2260_ALIGN - 1) / SG2260_ALIGN * SG2260_ALIGN;
    uint8_t *img = sg_xcalloc(head, 1);
    size_t size = head;
    memcpy(img, bundle_magic, sizeof bundle_magic);
    put_le(img + 12, 1, 2);
    put_le(img + 14, (uint64_t)b->nslots, 2);
    for (int i = 0; i < b->nslots; i++) {
        uint8_t *prog;
        long n = sg2260_program_encode(&b->slots[i].prog, &prog, err);
        if (n < 0) {
            free(img);
            return -1;
        }
        img = sg_xrealloc(img, size + (size_t)n);
        memcpy(img + size, prog, (size_t)n);
        free(prog);
        uint8_t *dir = img + 16 + (size_t)i * 16;
        dir[0] = (uint8_t)b->slots[i].chip;
        dir[1] = (uint8_t)b->slots[i].port;
        dir[2] = (uint8_t)b->slots[i].chan;
        dir[3] = 0;
        put_le(dir + 4, (uint64_t)n, 4);
        put_le(dir + 8, size, 8);
        size += (size_t)n;
    }
    *out = img;
    return (long)size;
}

int sg2260_bundle_decode(const uint8_t *bytes, size_t n, Sg2260Bundle *b, Sg2260Error *err) {
    memset(b, 0, sizeof *b);
    if (!sg2260_bundle_is_binary(bytes, n) || n < 16)
        return sg_err(err, "bad-image", NULL, 0, "not an SG2260 bundle image");
    if (get_le(bytes + 12, 2) != 1)
        return sg_err(err, "bad-image", NULL, 0, "bundle image version %u is not 1", (unsigned)get_le(bytes + 12, 2));
    unsigned count = (unsigned)get_le(bytes + 14, 2);
    if (16 + (size_t)count * 16 > n) return sg_err(err, "bad-image", NULL, 0, "bundle directory truncated");
    for (unsigned i = 0; i < count; i++) {
        const uint8_t *dir = bytes + 16 + (size_t)i * 16;
        uint64_t size = get_le(dir + 4, 4), off = get_le(dir + 8, 8);
        if (dir[0] >= SG2260_MAX_CHIPS || dir[1] >= SG2260_MAX_PORTS || dir[2] > 1 || off % SG2260_ALIGN ||
            off > n || size > n - off) {
            sg2260_bundle_free(b);
            return sg_err(err, "bad-image", NULL, 0, "bundle directory entry %u is invalid", i);
        }
        int before = b->nslots;
        Sg2260Program *p = sg2260_bundle_program(b, dir[0], dir[1], (Sg2260Chan)dir[2]);
        if (b->nslots == before) {
            sg2260_bundle_free(b);
            return sg_err(err, "duplicate-program", NULL, 0, "two programs for chip %d port %d %s", dir[0],
                          dir[1], dir[2] ? "rx" : "tx");
        }
        if (sg2260_program_decode(bytes + off, (size_t)size, p, err)) {
            sg2260_bundle_free(b);
            return -1;
        }
    }
    return 0;
}

int sg2260_bundle_write_c(FILE *out, const Sg2260Bundle *b, const char *name, Sg2260Error *err) {
    int ok = name && (name[0] == '_' || ((name[0] | 32) >= 'a' && (name[0] | 32) <= 'z'));
    for (const char *p = name; ok && *p; p++)
        ok = *p == '_' || ((*p | 32) >= 'a' && (*p | 32) <= 'z') || (*p >= '0' && *p <= '9');
    if (!ok) return sg_err(err, "bad-name", NULL, 0, "'%s' is not a C identifier", name ? name : "");
    uint8_t *img;
    long n = sg2260_bundle_encode(b, &img, err);
    if (n < 0) return -1;
    fprintf(out, "/* SG2260 CDMA bundle image: %d program(s), %ld bytes (docs/sg2260.md). */\n", b->nslots, n);
    fprintf(out, "const unsigned char %s[%ld] __attribute__((aligned(128))) = {", name, n);
    for (long i = 0; i < n; i++) fprintf(out, "%s0x%02x,", i % 16 ? " " : "\n    ", img[i]);
    fprintf(out, "\n};\nconst unsigned long %s_size = %ldul;\n", name, n);
    free(img);
    return ferror(out) ? -1 : 0;
}
