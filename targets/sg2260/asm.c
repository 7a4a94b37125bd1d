/* asm.c - the text form of descriptors and of bundles (programs + data).
 *
 * One descriptor per line, `KEYWORD key=value ...`; the disassembler prints
 * the canonical form with every field, the assembler also accepts defaults
 * (op=none, psum=wo, contiguous strides, dshape=shape, elems=K). Addresses
 * are DDR offsets (0x10000) or L2 SRAM offsets (l2:0x100); chip-qualified
 * ones (WRITE, READ, GENERAL) are CHIP:ADDR. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

static int addr_str(char *buf, size_t cap, uint64_t a) {
    if (SG2260_ADDR_TAG(a) == SG2260_TAG_L2)
        return snprintf(buf, cap, "l2:0x%llx", (unsigned long long)SG2260_ADDR_OFFSET(a));
    return snprintf(buf, cap, "0x%llx", (unsigned long long)a);
}

static int shape_str(char *buf, size_t cap, const Sg2260Shape *s, const char *sk, const char *tk) {
    return snprintf(buf, cap, " %s=%u,%u,%u,%u %s=%u,%u,%u", sk, s->n, s->c, s->h, s->w, tk, s->sn, s->sc, s->sh);
}

int sg2260_disasm(const Sg2260Desc *d, char *buf, size_t cap) {
    size_t n = 0;
#define OUT(...)                                                                      \
    do {                                                                              \
        int k_ = snprintf(buf + n, n < cap ? cap - n : 0, __VA_ARGS__);               \
        if (k_ > 0) n += (size_t)k_;                                                  \
    } while (0)
    if (cap) buf[0] = 0;
    OUT("%s", sg2260_cmd_name(d->cmd));
    char tmp[160], a1[48], a2[48];
    addr_str(a1, sizeof a1, d->src);
    addr_str(a2, sizeof a2, d->dst);
    switch (d->cmd) {
    case SG2260_CMD_SYS:
        OUT(" %s", sg2260_sys_name(d->sys));
        if (d->sys >= SG2260_SYS_TX_SEND_MSG) OUT(" id=%u count=%u", d->msg_id, d->count);
        if (d->sys == SG2260_SYS_TRWR) OUT(" imm=0x%x", d->imm);
        break;
    case SG2260_CMD_SEND:
        OUT(" dtype=%s psum=%s src=%s", sg2260_dtype_name(d->dtype),
            d->psum == SG2260_PSUM_WR ? "wr" : d->psum == SG2260_PSUM_WO ? "wo" : "?", a1);
        shape_str(tmp, sizeof tmp, &d->shape, "shape", "stride");
        OUT("%s", tmp);
        break;
    case SG2260_CMD_RECV:
        OUT(" dtype=%s op=%s dst=%s", sg2260_dtype_name(d->dtype), sg2260_op_name(d->op), a2);
        shape_str(tmp, sizeof tmp, &d->shape, "shape", "stride");
        OUT("%s", tmp);
        break;
    case SG2260_CMD_GENERAL:
        OUT(" dtype=%s src=%d:%s dst=%d:%s len=%u", sg2260_dtype_name(d->dtype), d->src_chip, a1, d->dst_chip, a2,
            d->length);
        break;
    case SG2260_CMD_WRITE:
    case SG2260_CMD_READ:
    case SG2260_CMD_COPY:
    case SG2260_CMD_REDUCE: {
        int chips = d->cmd == SG2260_CMD_WRITE || d->cmd == SG2260_CMD_READ;
        OUT(" dtype=%s", sg2260_dtype_name(d->dtype));
        if (d->op != SG2260_OP_NONE || d->cmd == SG2260_CMD_REDUCE) OUT(" op=%s", sg2260_op_name(d->op));
        if (d->fill) OUT(" fill=0x%x", d->imm);
        if (chips) OUT(" src=%d:%s", d->src_chip, a1);
        else OUT(" src=%s", a1);
        if (chips) OUT(" dst=%d:%s", d->dst_chip, a2);
        else OUT(" dst=%s", a2);
        shape_str(tmp, sizeof tmp, &d->shape, "shape", "stride");
        OUT("%s", tmp);
        shape_str(tmp, sizeof tmp, &d->dshape, "dshape", "dstride");
        OUT("%s", tmp);
        break;
    }
    default: break;
    }
#undef OUT
    return (int)n;
}

/* "a,b,c,d" (k values) into out; each <= max. */
static int parse_dims(const char *v, uint32_t *out, int k, uint64_t max) {
    const char *p = v;
    for (int i = 0; i < k; i++) {
        char *end;
        if (!isdigit((unsigned char)*p)) return -1;
        unsigned long long x = strtoull(p, &end, 0);
        if (x > max) return -1;
        out[i] = (uint32_t)x;
        p = end;
        if (i < k - 1) {
            if (*p != ',') return -1;
            p++;
        }
    }
    return *p ? -1 : 0;
}

/* A DDR offset, or l2:OFFSET. */
static int parse_addr(const char *v, uint64_t *addr) {
    if (!strncasecmp(v, "l2:", 3)) {
        uint64_t off;
        if (sg_parse_u64(v + 3, &off) || off > SG2260_L2_MAX_OFFSET) return -1;
        *addr = SG2260_L2(off);
        return 0;
    }
    return sg_parse_u64(v, addr) || *addr > SG2260_ADDR_MASK ? -1 : 0;
}

static int parse_chip_addr(const char *v, int *chip, uint64_t *addr) {
    const char *colon = strchr(v, ':');
    if (!colon) return -1;
    char cbuf[16];
    size_t cl = (size_t)(colon - v);
    if (cl == 0 || cl >= sizeof cbuf) return -1;
    memcpy(cbuf, v, cl);
    cbuf[cl] = 0;
    uint64_t c;
    if (sg_parse_u64(cbuf, &c) || c >= SG2260_MAX_CHIPS) return -1;
    *chip = (int)c;
    return parse_addr(colon + 1, addr);
}

/* Splits on whitespace after cutting a `;`/`#` comment; returns word count. */
static int words_of(char *s, char **w, int max) {
    char *c = strpbrk(s, ";#");
    if (c) *c = 0;
    return sg_split_words(s, w, max);
}


/* Parses descriptor words w[0..n). */
static int asm_words(char **w, int n, Sg2260Desc *d, Sg2260Error *err) {
    memset(d, 0, sizeof *d);
    int cmd = sg2260_cmd_find(w[0]);
    if (cmd < 0) return sg_err(err, "syntax", NULL, 0, "unknown command '%s'", w[0]);
    d->cmd = (Sg2260Cmd)cmd;
    if (d->cmd == SG2260_CMD_LOSSY_COMPRESS || d->cmd == SG2260_CMD_LOSSY_DECOMPRESS ||
        d->cmd == SG2260_CMD_TCP_SEND || d->cmd == SG2260_CMD_TCP_RECV)
        return sg_err(err, "unsupported-cmd", NULL, 0, "command %s is not modelled", sg2260_cmd_name(d->cmd));
    int i = 1;
    if (d->cmd == SG2260_CMD_SYS) {
        if (n < 2) return sg_err(err, "syntax", NULL, 0, "SYS needs a subtype (END, NOP, ...)");
        int s = sg2260_sys_find(w[1]);
        if (s < 0) return sg_err(err, "syntax", NULL, 0, "unknown SYS subtype '%s'", w[1]);
        d->sys = (Sg2260Sys)s;
        i = 2;
    }
    int have_dtype = 0, have_shape = 0, have_dshape = 0, have_stride = 0, have_dstride = 0;
    int have_src = 0, have_dst = 0, have_len = 0;
    int is_data = d->cmd != SG2260_CMD_SYS;
    int chips = d->cmd == SG2260_CMD_WRITE || d->cmd == SG2260_CMD_READ || d->cmd == SG2260_CMD_GENERAL;
    int two_views = chips || d->cmd == SG2260_CMD_COPY || d->cmd == SG2260_CMD_REDUCE;
    if (d->cmd == SG2260_CMD_GENERAL) two_views = 0;
    for (; i < n; i++) {
        char *eq = strchr(w[i], '=');
        if (!eq) return sg_err(err, "syntax", NULL, 0, "expected key=value, got '%s'", w[i]);
        *eq = 0;
        const char *k = w[i], *v = eq + 1;
        uint64_t u;
        uint32_t dims[4];
        int bad = 0;
        if (!is_data) {
            if (!strcmp(k, "id")) bad = sg_parse_u64(v, &u) || u >= SG2260_MSG_IDS, d->msg_id = (uint32_t)u;
            else if (!strcmp(k, "count"))
                bad = sg_parse_u64(v, &u) || u > SG2260_MAX_MSG_COUNT, d->count = (uint32_t)u;
            else if (!strcmp(k, "imm")) bad = sg_parse_u64(v, &u) || u > UINT32_MAX, d->imm = (uint32_t)u;
            else return sg_err(err, "syntax", NULL, 0, "unknown SYS field '%s'", k);
        } else if (!strcmp(k, "dtype")) {
            int t = sg2260_dtype_find(v);
            bad = t < 0;
            d->dtype = (Sg2260Dtype)t;
            have_dtype = 1;
        } else if (!strcmp(k, "op") && d->cmd != SG2260_CMD_SEND && d->cmd != SG2260_CMD_GENERAL &&
                   d->cmd != SG2260_CMD_COPY) {
            int o = sg2260_op_find(v);
            bad = o < 0;
            d->op = (Sg2260Op)o;
        } else if (!strcmp(k, "psum") && d->cmd == SG2260_CMD_SEND) {
            if (!strcasecmp(v, "wo")) d->psum = SG2260_PSUM_WO;
            else if (!strcasecmp(v, "wr")) d->psum = SG2260_PSUM_WR;
            else bad = 1;
        } else if (!strcmp(k, "fill") && d->cmd == SG2260_CMD_WRITE) {
            bad = sg_parse_u64(v, &u) || u > UINT32_MAX;
            d->fill = 1;
            d->imm = (uint32_t)u;
        } else if (!strcmp(k, "len") && d->cmd == SG2260_CMD_GENERAL) {
            bad = sg_parse_u64(v, &u) || u > UINT32_MAX;
            d->length = (uint32_t)u;
            have_len = 1;
        } else if (!strcmp(k, "src") && d->cmd != SG2260_CMD_RECV) {
            bad = chips ? parse_chip_addr(v, &d->src_chip, &d->src) : parse_addr(v, &d->src);
            have_src = 1;
        } else if (!strcmp(k, "dst") && d->cmd != SG2260_CMD_SEND) {
            bad = chips ? parse_chip_addr(v, &d->dst_chip, &d->dst) : parse_addr(v, &d->dst);
            have_dst = 1;
        } else if ((!strcmp(k, "shape") && d->cmd != SG2260_CMD_GENERAL) || (two_views && !strcmp(k, "dshape"))) {
            Sg2260Shape *s = k[0] == 'd' ? &d->dshape : &d->shape;
            bad = parse_dims(v, dims, 4, UINT32_MAX);
            s->n = dims[0], s->c = dims[1], s->h = dims[2], s->w = dims[3];
            if (k[0] == 'd') have_dshape = 1;
            else have_shape = 1;
        } else if ((!strcmp(k, "stride") && d->cmd != SG2260_CMD_GENERAL) || (two_views && !strcmp(k, "dstride"))) {
            Sg2260Shape *s = k[0] == 'd' ? &d->dshape : &d->shape;
            bad = parse_dims(v, dims, 3, UINT32_MAX);
            s->sn = dims[0], s->sc = dims[1], s->sh = dims[2];
            if (k[0] == 'd') have_dstride = 1;
            else have_stride = 1;
        } else if (!strcmp(k, "elems") && d->cmd != SG2260_CMD_GENERAL) {
            bad = sg_parse_u64(v, &u) || sg2260_shape_packed(u, &d->shape);
            have_shape = 1;
        } else {
            return sg_err(err, "syntax", NULL, 0, "unknown %s field '%s'", sg2260_cmd_name(d->cmd), k);
        }
        if (bad) return sg_err(err, "syntax", NULL, 0, "bad value '%s' for %s", v, k);
    }
    if (!is_data) return 0;
    if (d->cmd == SG2260_CMD_GENERAL) {
        if (!have_src || !have_dst || !have_len)
            return sg_err(err, "syntax", NULL, 0, "GENERAL needs src=CHIP:ADDR, dst=CHIP:ADDR and len=BYTES");
        if (!have_dtype) d->dtype = SG2260_INT8; /* a byte copy */
        return 0;
    }
    if (!have_dtype) return sg_err(err, "syntax", NULL, 0, "%s needs dtype=", sg2260_cmd_name(d->cmd));
    if (!have_shape) return sg_err(err, "syntax", NULL, 0, "%s needs shape= or elems=", sg2260_cmd_name(d->cmd));
    /* a fill still names its source chip (the writer); its address is unused */
    if ((d->cmd != SG2260_CMD_RECV && !have_src) || (d->cmd != SG2260_CMD_SEND && !have_dst))
        return sg_err(err, "syntax", NULL, 0, "%s needs %s", sg2260_cmd_name(d->cmd),
                      d->cmd == SG2260_CMD_SEND ? "src=" : d->cmd == SG2260_CMD_RECV ? "dst=" : "src= and dst=");
    if (!have_stride || d->fill) sg2260_shape_contiguous(&d->shape);
    if (two_views) {
        if (!have_dshape) {
            uint32_t sn = d->dshape.sn, sc = d->dshape.sc, sh = d->dshape.sh;
            d->dshape = d->shape;
            d->dshape.sn = sn, d->dshape.sc = sc, d->dshape.sh = sh;
        }
        if (!have_dstride) sg2260_shape_contiguous(&d->dshape);
    }
    return 0;
}

int sg2260_asm_line(const char *line, Sg2260Desc *d, Sg2260Error *err) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", line);
    char *w[64];
    int n = words_of(buf, w, 64);
    if (n <= 0) return sg_err(err, "syntax", NULL, 0, "expected a descriptor");
    return asm_words(w, n, d, err);
}

/* ---- bundles ----------------------------------------------------------- */

static void add_init(Sg2260Bundle *b, int chip, uint64_t addr, uint8_t *bytes, size_t n) {
    if (b->ninits == b->capinits) {
        b->capinits = b->capinits ? b->capinits * 2 : 8;
        b->inits = sg_xrealloc(b->inits, (size_t)b->capinits * sizeof *b->inits);
    }
    b->inits[b->ninits++] = (Sg2260Init){chip, addr, bytes, n};
}

/* Stores value (given as double and as integer) in dtype t at p. */
static void store_elem(Sg2260Dtype t, uint8_t *p, double dv, long long iv) {
    switch (t) {
    case SG2260_INT8: p[0] = (uint8_t)iv; break;
    case SG2260_INT16: { uint16_t v = (uint16_t)iv; memcpy(p, &v, 2); break; }
    case SG2260_INT32: { uint32_t v = (uint32_t)iv; memcpy(p, &v, 4); break; }
    case SG2260_FP32: { float f = (float)dv; memcpy(p, &f, 4); break; }
    case SG2260_FP16: { uint16_t v = sg2260_float_to_fp16((float)dv); memcpy(p, &v, 2); break; }
    case SG2260_BF16: { uint16_t v = sg2260_float_to_bf16((float)dv); memcpy(p, &v, 2); break; }
    case SG2260_FP20: { uint32_t v = sg2260_float_to_fp20((float)dv); memcpy(p, &v, 4); break; }
    }
}

static int kv(const char *word, const char *key, const char **val) {
    size_t k = strlen(key);
    if (strncmp(word, key, k) || word[k] != '=') return 0;
    *val = word + k + 1;
    return 1;
}

static int parse_num(const char *s, double *dv, long long *iv) {
    char *end;
    *iv = strtoll(s, &end, 0);
    if (end != s && !*end) {
        *dv = (double)*iv;
        return 0;
    }
    if (sg_parse_double(s, dv)) return -1;
    *iv = (long long)*dv;
    return 0;
}

/* `.program chip=C port=P | peer=Q | gdma | vsdma=K [msg_base=B]` */
static int program_directive(char **w, int n, const char *file, int line, const Sg2260Machine *m, Sg2260Bundle *b,
                             Sg2260ProgramSlot **cur, Sg2260Error *err) {
    const char *v;
    uint64_t chip = UINT64_MAX, port = UINT64_MAX, peer = UINT64_MAX, core = UINT64_MAX, base = 0;
    int gdma = 0;
    for (int i = 1; i < n; i++) {
        int bad = 0;
        if (kv(w[i], "chip", &v)) bad = sg_parse_u64(v, &chip) || chip >= SG2260_MAX_CHIPS;
        else if (kv(w[i], "port", &v)) bad = sg_parse_u64(v, &port) || port >= SG2260_MAX_PORTS;
        else if (kv(w[i], "peer", &v)) bad = sg_parse_u64(v, &peer) || peer >= SG2260_MAX_CHIPS;
        else if (kv(w[i], "vsdma", &v)) bad = sg_parse_u64(v, &core) || core >= SG2260_MAX_CORES;
        else if (kv(w[i], "msg_base", &v)) {
            /* the firmware's atomic_set_base_msg_id asserts base < 511 */
            if (sg_parse_u64(v, &base)) bad = 1;
            else if (base >= SG2260_MSG_IDS - 1)
                return sg_err(err, "msg-range", file, line, "msg_base=%s is out of range: the base message id register takes 0-%d",
                              v, SG2260_MSG_IDS - 2);
        }
        else if (!strcasecmp(w[i], "gdma")) gdma = 1;
        else if (!strcasecmp(w[i], "tx") || !strcasecmp(w[i], "rx"))
            return sg_err(err, "syntax", file, line,
                          "'%s': a CDMA port runs one program holding its TX and its RX work; drop tx/rx", w[i]);
        else bad = 1;
        if (bad) return sg_err(err, "syntax", file, line, "bad .program argument '%s'", w[i]);
    }
    int kinds = (port != UINT64_MAX) + (peer != UINT64_MAX) + gdma + (core != UINT64_MAX);
    if (chip == UINT64_MAX || kinds != 1)
        return sg_err(err, "syntax", file, line, "expected '.program chip=C port=P|peer=Q|gdma|vsdma=K'");
    if (m && (int)chip >= m->nchips)
        return sg_err(err, "bad-port", file, line, "chip %d does not exist (machine has %d)", (int)chip, m->nchips);
    Sg2260Engine e = SG2260_CDMA;
    int index = 0;
    if (gdma) {
        e = SG2260_GDMA;
    } else if (core != UINT64_MAX) {
        e = SG2260_VSDMA;
        index = (int)core;
        if (m && index >= m->cores)
            return sg_err(err, "bad-port", file, line, "chip %d has no VSDMA %d (%d cores)", (int)chip, index,
                          m->cores);
    } else if (peer != UINT64_MAX) {
        int p = m ? sg2260_machine_port_to(m, (int)chip, (int)peer) : -1;
        if (p < 0) return sg_err(err, "bad-port", file, line, "chip %d has no link to chip %d", (int)chip, (int)peer);
        index = p;
    } else {
        index = (int)port;
        if (m && m->port_link[chip][index] < 0)
            return sg_err(err, "bad-port", file, line, "chip %d has no link on port %d", (int)chip, index);
    }
    int before = b->nslots;
    *cur = sg2260_bundle_slot(b, (int)chip, e, index);
    if (b->nslots == before)
        return sg_err(err, "duplicate-program", file, line, "second program for chip %d %s %d", (int)chip,
                      sg2260_engine_name(e), index);
    (*cur)->msg_base = (int)base;
    return 0;
}

static int data_directive(char **w, int n, const char *file, int line, Sg2260Bundle *b, Sg2260Error *err) {
    const char *v;
    uint64_t chip = UINT64_MAX, addr = UINT64_MAX, count = 0;
    int dtype = -1, have_count = 0;
    double start = 0, step = 0;
    long long istart = 0, istep = 0;
    int first_value = n;
    for (int i = 1; i < n; i++) {
        int bad = 0;
        if (kv(w[i], "chip", &v)) bad = sg_parse_u64(v, &chip) || chip >= SG2260_MAX_CHIPS;
        else if (kv(w[i], "addr", &v)) bad = parse_addr(v, &addr);
        else if (kv(w[i], "dtype", &v)) bad = (dtype = sg2260_dtype_find(v)) < 0;
        else if (kv(w[i], "count", &v)) bad = sg_parse_u64(v, &count) || count > (UINT64_C(1) << 30), have_count = 1;
        else if (kv(w[i], "start", &v)) bad = parse_num(v, &start, &istart);
        else if (kv(w[i], "step", &v)) bad = parse_num(v, &step, &istep);
        else if (!strcmp(w[0], ".data") && !strchr(w[i], '=')) {
            first_value = i;
            break;
        } else bad = 1;
        if (bad) return sg_err(err, "syntax", file, line, "bad %s argument '%s'", w[0], w[i]);
    }
    if (chip == UINT64_MAX || addr == UINT64_MAX || dtype < 0)
        return sg_err(err, "syntax", file, line, "%s needs chip=, addr= and dtype=", w[0]);
    size_t es = sg2260_dtype_size((Sg2260Dtype)dtype);
    if (!strcmp(w[0], ".fill")) {
        if (!have_count) return sg_err(err, "syntax", file, line, ".fill needs count=");
        uint8_t *bytes = sg_xcalloc(count, es);
        for (uint64_t i = 0; i < count; i++)
            store_elem((Sg2260Dtype)dtype, bytes + i * es, start + (double)i * step,
                       (long long)((unsigned long long)istart + i * (unsigned long long)istep));
        add_init(b, (int)chip, addr, bytes, count * es);
        return 0;
    }
    /* .data: values after the key=value arguments */
    int nv = n - first_value;
    uint8_t *bytes = sg_xcalloc((size_t)(nv ? nv : 1), es);
    for (int i = 0; i < nv; i++) {
        double dv;
        long long iv;
        if (parse_num(w[first_value + i], &dv, &iv)) {
            free(bytes);
            return sg_err(err, "syntax", file, line, "bad value '%s'", w[first_value + i]);
        }
        store_elem((Sg2260Dtype)dtype, bytes + (size_t)i * es, dv, iv);
    }
    add_init(b, (int)chip, addr, bytes, (size_t)nv * es);
    return 0;
}

int sg2260_bundle_parse(const char *text, const char *file, const Sg2260Machine *m,
                        Sg2260Bundle *b, Sg2260Error *err) {
    memset(b, 0, sizeof *b);
    int cur = -1; /* index of the current slot (slots may move) */
    int line = 0;
    const char *p = text, *ln;
    size_t len;
    while (sg_next_line(&p, &ln, &len)) {
        line++;
        char *buf = sg_xmalloc(len + 1);
        memcpy(buf, ln, len);
        buf[len] = 0;
        char *w[1024];
        int n = words_of(buf, w, 1024);
        int rc = 0;
        if (n < 0) {
            rc = sg_err(err, "syntax", file, line, "too many words on one line");
        } else if (n > 0 && !strcmp(w[0], ".program")) {
            Sg2260ProgramSlot *s = NULL;
            rc = program_directive(w, n, file, line, m, b, &s, err);
            if (!rc) cur = (int)(s - b->slots);
        } else if (n > 0 && (!strcmp(w[0], ".data") || !strcmp(w[0], ".fill"))) {
            rc = data_directive(w, n, file, line, b, err);
        } else if (n > 0 && w[0][0] == '.') {
            rc = sg_err(err, "syntax", file, line, "unknown directive '%s'", w[0]);
        } else if (n > 0) {
            Sg2260Desc d;
            if (cur < 0) {
                rc = sg_err(err, "syntax", file, line, "descriptor before any '.program' line");
            } else if (asm_words(w, n, &d, err)) {
                if (err) {
                    snprintf(err->file, sizeof err->file, "%s", file ? file : "");
                    err->line = line;
                }
                rc = -1;
            } else {
                Sg2260ProgramSlot *s = &b->slots[cur];
                sg2260_program_push(&s->prog, &d);
                s->lines = sg_xrealloc(s->lines, (size_t)s->prog.cap * sizeof(int));
                s->lines[s->prog.ndescs - 1] = line;
            }
        }
        free(buf);
        if (rc) {
            sg2260_bundle_free(b);
            return -1;
        }
    }
    return 0;
}

void sg2260_bundle_write(FILE *out, const Sg2260Bundle *b, const Sg2260Machine *m) {
    char buf[512];
    for (int i = 0; i < b->nslots; i++) {
        const Sg2260ProgramSlot *s = &b->slots[i];
        switch (s->engine) {
        case SG2260_CDMA: {
            fprintf(out, ".program chip=%d port=%d", s->chip, s->index);
            if (s->msg_base) fprintf(out, " msg_base=%d", s->msg_base);
            int peer = m ? sg2260_machine_port_peer(m, s->chip, s->index) : -1;
            if (peer >= 0) fprintf(out, "               ; link to chip %d", peer);
            fputc('\n', out);
            break;
        }
        case SG2260_GDMA: fprintf(out, ".program chip=%d gdma", s->chip); break;
        case SG2260_VSDMA: fprintf(out, ".program chip=%d vsdma=%d", s->chip, s->index); break;
        }
        if (s->engine != SG2260_CDMA) {
            if (s->msg_base) fprintf(out, " msg_base=%d", s->msg_base);
            fputc('\n', out);
        }
        for (int k = 0; k < s->prog.ndescs; k++) {
            int len = sg2260_disasm(&s->prog.descs[k], buf, sizeof buf);
            fprintf(out, "  %s", buf);
            const Sg2260Note *nt = s->notes ? &s->notes[k] : NULL;
            if (nt && (nt->step || nt->line || nt->peer >= 0 || nt->what)) {
                fprintf(out, "%*s;", len < 78 ? 78 - len : 1, "");
                if (nt->step) fprintf(out, " step %d", nt->step);
                if (nt->line && nt->file) fprintf(out, " %s:%d", nt->file, nt->line);
                else if (nt->line) fprintf(out, " line %d", nt->line);
                if (nt->peer >= 0) fprintf(out, " chip %d", nt->peer);
                if (nt->what) fprintf(out, "%s%s", nt->step || nt->line || nt->peer >= 0 ? ": " : " ", nt->what);
            }
            fputc('\n', out);
        }
    }
}
