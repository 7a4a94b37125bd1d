/* engine.c - functional + timing model of the SG2260 CDMA engines.
 *
 * Every chip has one engine per port; each engine has a TX and an RX channel
 * running their own program in order, one command at a time. The model is a
 * discrete-event simulation in microseconds:
 *   - a data command (SEND, WRITE, READ, GENERAL) costs the start-up latency,
 *     then streams its bytes over a resource: one direction of a link, or the
 *     chip's DDR<->L2 path for GENERAL. Concurrent transfers on a resource
 *     share its bandwidth max-min fairly; a reducing transfer is also capped
 *     by the SUM unit;
 *   - RECV posts a credit (destination view, dtype, op) to the TX side of the
 *     other end of the link and retires at once; at most credit_depth credits
 *     of one RX channel may be outstanding (posted, data not landed yet);
 *     END, NOP, TRWR and RX_SEND_MSG on an RX channel first wait until all its
 *     credits have landed, so a message sent after RECVs means "data is here";
 *   - a message wait unblocks when the chip's counter for the id reaches
 *     `count`, consumes `count`, and then costs the sync latency;
 *   - NOP k on a port's TX waits for NOP k on its RX and vice versa.
 * Data moves at a transfer's completion time (read source, write or reduce
 * destination), so results are exact and ordering follows simulated time.
 * When no event is pending and some channel has not reached END the run is a
 * deadlock; every blocked descriptor is named. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- sparse memory ----------------------------------------------------- */

enum { PAGE_BITS = 16, L2_BITS = 12, L1_BITS = SG2260_ADDR_BITS - PAGE_BITS - L2_BITS };
#define PAGE_SIZE ((size_t)1 << PAGE_BITS)

typedef struct ChipMem {
    uint8_t **l1[1u << L1_BITS];
} ChipMem;

static uint8_t *page_of(ChipMem *m, uint64_t addr, int create) {
    uint64_t pg = addr >> PAGE_BITS;
    uint64_t i1 = pg >> L2_BITS, i2 = pg & ((1u << L2_BITS) - 1);
    if (!m->l1[i1]) {
        if (!create) return NULL;
        m->l1[i1] = sg_xcalloc((size_t)1 << L2_BITS, sizeof(uint8_t *));
    }
    if (!m->l1[i1][i2]) {
        if (!create) return NULL;
        m->l1[i1][i2] = sg_xcalloc(PAGE_SIZE, 1);
    }
    return m->l1[i1][i2];
}

static void mem_free(ChipMem *m) {
    for (size_t i = 0; i < ((size_t)1 << L1_BITS); i++) {
        if (!m->l1[i]) continue;
        for (size_t j = 0; j < ((size_t)1 << L2_BITS); j++) free(m->l1[i][j]);
        free(m->l1[i]);
    }
}

/* ---- simulator state --------------------------------------------------- */

typedef enum ChanState {
    CH_ABSENT,  /* no program */
    CH_READY,   /* may try its current command */
    CH_BUSY,    /* a transfer or timed wait is in flight */
    CH_DONE,    /* reached SYS END */
} ChanState;

typedef struct Channel {
    int chip, port, chan;
    ChanState state;
    Sg2260Desc *descs;
    int *lines;
    int n, pc;
    int outstanding;      /* RX: credits posted whose data has not landed */
    int nop_arrived;      /* NOPs this channel has reached */
    int at_nop;           /* arrival at the current NOP counted */
    double busy_until;    /* timed wait (sync latency) end, when state BUSY */
    int timed;            /* BUSY because of a timed wait (not a transfer) */
    double block_since;   /* <0: not blocked */
    char why[160];        /* reason of the current block */
} Channel;

typedef struct Credit {
    uint64_t dst;
    Sg2260Shape shape;
    Sg2260Dtype dtype;
    Sg2260Op op;
    int rx;        /* channel index of the RX that posted it */
    int rx_index;  /* descriptor index of the RECV */
} Credit;

enum { MAX_CREDITS = 64 };
typedef struct CreditQ {
    Credit q[MAX_CREDITS];
    int head, count;
} CreditQ;

typedef struct Xfer {
    int ch;              /* owning channel */
    int res;             /* resource index */
    double t0, stream_at;
    double remaining, bytes, cap, rate;
    int src_chip, dst_chip;
    uint64_t src, dst;
    Sg2260Shape sshape, dshape;
    Sg2260Dtype dtype;
    Sg2260Op op;
    int credit_rx;       /* RX channel whose credit this consumes, or -1 */
} Xfer;

typedef struct TraceEv {
    int ch;
    double t0, t1;
    int kind; /* 0 command, 1 wait (blocked), 2 sync latency */
    int index;
    char name[48];
} TraceEv;

struct Sg2260Sim {
    Sg2260Machine m;
    ChipMem *mem[SG2260_MAX_CHIPS];
    Channel ch[SG2260_MAX_CHIPS * SG2260_MAX_PORTS * 2];
    CreditQ credits[SG2260_MAX_CHIPS * SG2260_MAX_PORTS]; /* at the TX side */
    uint32_t msgs[SG2260_MAX_CHIPS][SG2260_MSG_IDS];
    Xfer *xf;
    int nxf, capxf;
    int nres;
    double res_bw[2 * SG2260_MAX_LINKS + SG2260_MAX_CHIPS]; /* bytes per us */
    double res_busy[2 * SG2260_MAX_LINKS + SG2260_MAX_CHIPS];
    double res_bytes[2 * SG2260_MAX_LINKS + SG2260_MAX_CHIPS];
    double t;
    uint64_t commands;
    int trace_on;
    int race_check; /* reject overlapping in-flight transfers (default on) */
    TraceEv *tr;
    int ntr, captr;
    double end_time;
};

static int chan_index(int chip, int port, int chan) {
    return (chip * SG2260_MAX_PORTS + port) * 2 + chan;
}

Sg2260Sim *sg2260_sim_new(const Sg2260Machine *m) {
    Sg2260Sim *s = sg_xcalloc(1, sizeof *s);
    s->m = *m;
    for (int c = 0; c < m->nchips; c++) s->mem[c] = sg_xcalloc(1, sizeof(ChipMem));
    for (int c = 0; c < SG2260_MAX_CHIPS; c++)
        for (int p = 0; p < SG2260_MAX_PORTS; p++)
            for (int k = 0; k < 2; k++) {
                Channel *h = &s->ch[chan_index(c, p, k)];
                h->chip = c, h->port = p, h->chan = k;
                h->state = CH_ABSENT;
                h->block_since = -1;
            }
    for (int l = 0; l < m->nlinks; l++) {
        double bw = sg2260_machine_link_bw(m, l) * 1e3; /* GB/s -> bytes/us */
        s->res_bw[2 * l] = bw;     /* a -> b */
        s->res_bw[2 * l + 1] = bw; /* b -> a */
    }
    for (int c = 0; c < m->nchips; c++) s->res_bw[2 * m->nlinks + c] = m->ddr_l2_GBps * 1e3;
    s->nres = 2 * m->nlinks + m->nchips;
    s->race_check = 1;
    return s;
}

void sg2260_sim_free(Sg2260Sim *s) {
    if (!s) return;
    for (int c = 0; c < SG2260_MAX_CHIPS; c++)
        if (s->mem[c]) {
            mem_free(s->mem[c]);
            free(s->mem[c]);
        }
    for (size_t i = 0; i < sizeof s->ch / sizeof s->ch[0]; i++) {
        free(s->ch[i].descs);
        free(s->ch[i].lines);
    }
    free(s->xf);
    free(s->tr);
    free(s);
}

void sg2260_sim_enable_trace(Sg2260Sim *s, int on) { s->trace_on = on; }

void sg2260_sim_set_race_check(Sg2260Sim *s, int on) { s->race_check = on; }

static int range_ok(const Sg2260Sim *s, int chip, uint64_t addr, size_t n) {
    return chip >= 0 && chip < s->m.nchips && addr <= s->m.mem_bytes && n <= s->m.mem_bytes - addr;
}

int sg2260_mem_write(Sg2260Sim *s, int chip, uint64_t addr, const void *src, size_t n) {
    if (!range_ok(s, chip, addr, n)) return -1;
    const uint8_t *p = src;
    while (n) {
        size_t off = (size_t)(addr & (PAGE_SIZE - 1)), k = PAGE_SIZE - off;
        if (k > n) k = n;
        memcpy(page_of(s->mem[chip], addr, 1) + off, p, k);
        addr += k, p += k, n -= k;
    }
    return 0;
}

int sg2260_mem_read(Sg2260Sim *s, int chip, uint64_t addr, void *dst, size_t n) {
    if (!range_ok(s, chip, addr, n)) return -1;
    uint8_t *p = dst;
    while (n) {
        size_t off = (size_t)(addr & (PAGE_SIZE - 1)), k = PAGE_SIZE - off;
        if (k > n) k = n;
        uint8_t *pg = page_of(s->mem[chip], addr, 0);
        if (pg) memcpy(p, pg + off, k);
        else memset(p, 0, k);
        addr += k, p += k, n -= k;
    }
    return 0;
}

/* ---- locations and errors ---------------------------------------------- */

static const char *chan_name(int chan) { return chan == SG2260_TX ? "TX" : "RX"; }

/* "chip 0 port 1 (->2) TX #3: SEND ..." */
static void where(const Sg2260Sim *s, const Channel *h, int idx, char *buf, size_t cap) {
    char dis[320];
    dis[0] = 0;
    if (idx >= 0 && idx < h->n) sg2260_disasm(&h->descs[idx], dis, sizeof dis);
    int peer = h->port < s->m.nports[h->chip] ? s->m.port_peer[h->chip][h->port] : -1;
    int line = (h->lines && idx >= 0 && idx < h->n) ? h->lines[idx] : 0;
    char lbuf[32] = "";
    if (line) snprintf(lbuf, sizeof lbuf, " (line %d)", line);
    snprintf(buf, cap, "chip %d port %d (->%d) %s #%d%s: %s", h->chip, h->port, peer,
             chan_name(h->chan), idx, lbuf, dis);
}

static int run_err(Sg2260Sim *s, Sg2260Error *e, const Channel *h, const char *code, const char *fmt,
                   ...) __attribute__((format(printf, 5, 6)));
static int run_err(Sg2260Sim *s, Sg2260Error *e, const Channel *h, const char *code, const char *fmt,
                   ...) {
    char what[1024], loc[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    where(s, h, h->pc, loc, sizeof loc);
    int line = h->lines && h->pc < h->n ? h->lines[h->pc] : 0;
    return sg_err(e, code, NULL, line, "%s\n  at %s", what, loc);
}

/* ---- loading ----------------------------------------------------------- */

static int cmd_chan_ok(const Sg2260Desc *d, int chan) {
    switch (d->cmd) {
    case SG2260_CMD_SEND:
    case SG2260_CMD_WRITE:
    case SG2260_CMD_READ:
    case SG2260_CMD_GENERAL: return chan == SG2260_TX;
    case SG2260_CMD_RECV: return chan == SG2260_RX;
    case SG2260_CMD_SYS:
        if (d->sys == SG2260_SYS_TX_SEND_MSG || d->sys == SG2260_SYS_TX_WAIT_MSG) return chan == SG2260_TX;
        if (d->sys == SG2260_SYS_RX_SEND_MSG || d->sys == SG2260_SYS_RX_WAIT_MSG) return chan == SG2260_RX;
        return 1;
    default: return 0;
    }
}

int sg2260_sim_load(Sg2260Sim *s, const Sg2260Bundle *b, Sg2260Error *err) {
    for (int i = 0; i < b->ninits; i++) {
        const Sg2260Init *in = &b->inits[i];
        if (sg2260_mem_write(s, in->chip, in->addr, in->bytes, in->n))
            return sg_err(err, "addr-range", NULL, 0,
                          "data for chip %d at 0x%llx (%zu bytes) is outside its memory", in->chip,
                          (unsigned long long)in->addr, in->n);
    }
    for (int i = 0; i < b->nslots; i++) {
        const Sg2260ProgramSlot *sl = &b->slots[i];
        if (sl->chip < 0 || sl->chip >= s->m.nchips || sl->port < 0 || sl->port >= s->m.nports[sl->chip])
            return sg_err(err, "bad-port", NULL, 0, "program for chip %d port %d: no such port",
                          sl->chip, sl->port);
        Channel *h = &s->ch[chan_index(sl->chip, sl->port, sl->chan)];
        if (h->state != CH_ABSENT)
            return sg_err(err, "duplicate-program", NULL, 0, "two programs for chip %d port %d %s",
                          sl->chip, sl->port, chan_name(sl->chan));
        h->n = sl->prog.ndescs;
        h->descs = sg_xmalloc((size_t)(h->n ? h->n : 1) * sizeof *h->descs);
        memcpy(h->descs, sl->prog.descs, (size_t)h->n * sizeof *h->descs);
        if (sl->lines) {
            h->lines = sg_xmalloc((size_t)(h->n ? h->n : 1) * sizeof(int));
            memcpy(h->lines, sl->lines, (size_t)h->n * sizeof(int));
        }
        h->state = CH_READY;
        int peer = s->m.port_peer[h->chip][h->port];
        for (h->pc = 0; h->pc < h->n; h->pc++) {
            const Sg2260Desc *d = &h->descs[h->pc];
            Sg2260Error e1;
            if (sg2260_desc_check(d, &e1)) return run_err(s, err, h, e1.code, "%s", e1.msg);
            if (!cmd_chan_ok(d, h->chan))
                return run_err(s, err, h, "wrong-channel", "%s%s%s cannot run on a %s channel",
                               sg2260_cmd_name(d->cmd), d->cmd == SG2260_CMD_SYS ? " " : "",
                               d->cmd == SG2260_CMD_SYS ? sg2260_sys_name(d->sys) : "", chan_name(h->chan));
            int is_end = d->cmd == SG2260_CMD_SYS && d->sys == SG2260_SYS_END;
            if (is_end && h->pc != h->n - 1)
                return run_err(s, err, h, "after-end", "descriptors follow SYS END");
            int sc = -1, dc = -1;
            if (d->cmd == SG2260_CMD_WRITE) sc = h->chip, dc = peer;
            else if (d->cmd == SG2260_CMD_READ) sc = peer, dc = h->chip;
            else if (d->cmd == SG2260_CMD_GENERAL) sc = dc = h->chip;
            if (sc >= 0 && (d->src_chip != sc || d->dst_chip != dc))
                return run_err(s, err, h, "chip-mismatch",
                               "%s on this port must go from chip %d to chip %d, not %d to %d",
                               sg2260_cmd_name(d->cmd), sc, dc, d->src_chip, d->dst_chip);
        }
        if (h->n == 0 || !(h->descs[h->n - 1].cmd == SG2260_CMD_SYS && h->descs[h->n - 1].sys == SG2260_SYS_END)) {
            h->pc = h->n ? h->n - 1 : 0;
            return sg_err(err, "no-end", NULL, h->lines && h->n ? h->lines[h->n - 1] : 0,
                          "program of chip %d port %d %s does not end with SYS END", h->chip,
                          h->port, chan_name(h->chan));
        }
        h->pc = 0;
    }
    return 0;
}

/* ---- data movement ----------------------------------------------------- */

static uint64_t view_extent(const Sg2260Shape *v, size_t es) {
    uint64_t last = (uint64_t)(v->n - 1) * v->sn + (uint64_t)(v->c - 1) * v->sc +
                    (uint64_t)(v->h - 1) * v->sh + (uint64_t)(v->w - 1) * v->sw;
    return (last + 1) * es;
}

/* Reads a view in logical (n,c,h,w) order into buf. */
static void gather(Sg2260Sim *s, int chip, uint64_t base, const Sg2260Shape *v, size_t es, uint8_t *buf) {
    size_t pos = 0;
    for (uint32_t n = 0; n < v->n; n++)
        for (uint32_t c = 0; c < v->c; c++)
            for (uint32_t h = 0; h < v->h; h++) {
                uint64_t row = base + ((uint64_t)n * v->sn + (uint64_t)c * v->sc + (uint64_t)h * v->sh) * es;
                if (v->sw == 1) {
                    sg2260_mem_read(s, chip, row, buf + pos, (size_t)v->w * es);
                    pos += (size_t)v->w * es;
                } else {
                    for (uint32_t w = 0; w < v->w; w++, pos += es)
                        sg2260_mem_read(s, chip, row + (uint64_t)w * v->sw * es, buf + pos, es);
                }
            }
}

/* Writes (op NONE) or reduces buf into a view. */
static void scatter(Sg2260Sim *s, int chip, uint64_t base, const Sg2260Shape *v, Sg2260Dtype t,
                    Sg2260Op op, const uint8_t *buf, uint8_t *tmp) {
    size_t es = sg2260_dtype_size(t), pos = 0;
    for (uint32_t n = 0; n < v->n; n++)
        for (uint32_t c = 0; c < v->c; c++)
            for (uint32_t h = 0; h < v->h; h++) {
                uint64_t row = base + ((uint64_t)n * v->sn + (uint64_t)c * v->sc + (uint64_t)h * v->sh) * es;
                if (v->sw == 1) {
                    size_t rb = (size_t)v->w * es;
                    if (op == SG2260_OP_NONE) {
                        sg2260_mem_write(s, chip, row, buf + pos, rb);
                    } else {
                        sg2260_mem_read(s, chip, row, tmp, rb);
                        sg_reduce_row(t, op, tmp, buf + pos, v->w);
                        sg2260_mem_write(s, chip, row, tmp, rb);
                    }
                    pos += rb;
                } else {
                    for (uint32_t w = 0; w < v->w; w++, pos += es) {
                        uint64_t a = row + (uint64_t)w * v->sw * es;
                        if (op == SG2260_OP_NONE) {
                            sg2260_mem_write(s, chip, a, buf + pos, es);
                        } else {
                            sg2260_mem_read(s, chip, a, tmp, es);
                            sg2260_reduce_elem(t, op, tmp, buf + pos);
                            sg2260_mem_write(s, chip, a, tmp, es);
                        }
                    }
                }
            }
}

static void apply_xfer(Sg2260Sim *s, const Xfer *x) {
    size_t es = sg2260_dtype_size(x->dtype);
    size_t bytes = (size_t)sg2260_shape_elems(&x->sshape) * es;
    uint8_t *buf = sg_xmalloc(bytes);
    uint8_t *tmp = sg_xmalloc((size_t)x->dshape.w * es + es);
    gather(s, x->src_chip, x->src, &x->sshape, es, buf);
    scatter(s, x->dst_chip, x->dst, &x->dshape, x->dtype, x->op, buf, tmp);
    free(buf);
    free(tmp);
}

/* ---- trace ------------------------------------------------------------- */

static void trace(Sg2260Sim *s, int ch, double t0, double t1, int kind, int index, const char *name) {
    if (!s->trace_on) return;
    if (s->ntr == s->captr) {
        s->captr = s->captr ? s->captr * 2 : 256;
        s->tr = sg_xrealloc(s->tr, (size_t)s->captr * sizeof *s->tr);
    }
    TraceEv *e = &s->tr[s->ntr++];
    e->ch = ch, e->t0 = t0, e->t1 = t1, e->kind = kind, e->index = index;
    snprintf(e->name, sizeof e->name, "%s", name);
}

/* ---- execution --------------------------------------------------------- */

static void block(Sg2260Sim *s, Channel *h, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void block(Sg2260Sim *s, Channel *h, const char *fmt, ...) {
    if (h->block_since < 0) h->block_since = s->t;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->why, sizeof h->why, fmt, ap);
    va_end(ap);
}

static void unblock(Sg2260Sim *s, Channel *h) {
    if (h->block_since >= 0 && s->t > h->block_since) {
        int ci = (int)(h - s->ch);
        trace(s, ci, h->block_since, s->t, 1, h->pc, "wait");
    }
    h->block_since = -1;
    h->why[0] = 0;
}

static Xfer *new_xfer(Sg2260Sim *s) {
    if (s->nxf == s->capxf) {
        s->capxf = s->capxf ? s->capxf * 2 : 32;
        s->xf = sg_xrealloc(s->xf, (size_t)s->capxf * sizeof *s->xf);
    }
    Xfer *x = &s->xf[s->nxf++];
    memset(x, 0, sizeof *x);
    x->credit_rx = -1;
    return x;
}

static int link_res(const Sg2260Sim *s, int chip, int port, int outgoing) {
    int l = s->m.port_link[chip][port];
    int from_a = s->m.links[l].a == chip;
    /* resource 2l is a->b */
    return 2 * l + ((from_a == outgoing) ? 0 : 1);
}

/* Checks a view lies in the chip's memory. */
static int check_view(Sg2260Sim *s, Sg2260Error *e, Channel *h, const char *what, int chip, uint64_t addr,
                      const Sg2260Shape *v, Sg2260Dtype t) {
    uint64_t ext = view_extent(v, sg2260_dtype_size(t));
    if (addr > s->m.mem_bytes || ext > s->m.mem_bytes - addr)
        return run_err(s, e, h, "addr-range",
                       "%s view [0x%llx, 0x%llx) on chip %d is outside its memory (0x%llx bytes)",
                       what, (unsigned long long)addr, (unsigned long long)(addr + ext), chip,
                       (unsigned long long)s->m.mem_bytes);
    return 0;
}

/* Two in-flight transfers conflict when one writes bytes the other reads or
 * writes on the same chip; the model moves data at completion, the hardware
 * streams, so such a program has no defined result. The check compares the
 * views' address ranges [base, base + extent), so interleaved strided views
 * are reported conservatively. */
static int overlaps(int ca, uint64_t a, const Sg2260Shape *va, int cb, uint64_t b, const Sg2260Shape *vb,
                    size_t es) {
    if (ca != cb) return 0;
    uint64_t ea = a + view_extent(va, es), eb = b + view_extent(vb, es);
    return a < eb && b < ea;
}

static int check_race(Sg2260Sim *s, Sg2260Error *e, Channel *h, const Xfer *x) {
    if (!s->race_check) return 0;
    size_t es = sg2260_dtype_size(x->dtype);
    for (int i = 0; i < s->nxf; i++) {
        const Xfer *y = &s->xf[i];
        if (y == x) continue;
        size_t ey = sg2260_dtype_size(y->dtype);
        const char *what = NULL;
        /* compare with the larger element size: extents are in bytes */
        size_t eb = es > ey ? es : ey;
        if (overlaps(x->dst_chip, x->dst, &x->dshape, y->dst_chip, y->dst, &y->dshape, eb)) what = "writes what it writes";
        else if (overlaps(x->dst_chip, x->dst, &x->dshape, y->src_chip, y->src, &y->sshape, eb)) what = "writes what it reads";
        else if (overlaps(x->src_chip, x->src, &x->sshape, y->dst_chip, y->dst, &y->dshape, eb)) what = "reads what it writes";
        if (!what) continue;
        char other[512];
        const Channel *o = &s->ch[y->ch];
        where(s, o, o->pc, other, sizeof other);
        return run_err(s, e, h, "race", "transfer overlaps one in flight: this command %s\n  other: %s", what,
                       other);
    }
    return 0;
}

static void start_xfer(Sg2260Sim *s, Channel *h, Xfer *x) {
    size_t es = sg2260_dtype_size(x->dtype);
    x->ch = (int)(h - s->ch);
    x->t0 = s->t;
    x->stream_at = s->t + s->m.startup_us;
    x->bytes = x->remaining = (double)sg2260_shape_elems(&x->sshape) * (double)es;
    x->cap = x->op != SG2260_OP_NONE ? s->m.sum_bw_GBps * 1e3 : INFINITY;
    h->state = CH_BUSY;
    h->timed = 0;
    s->commands++;
}

/* Tries the channel's current command at time s->t. Returns 1 on progress,
 * 0 if blocked or busy, -1 on a rule violation (e filled). */
static int step(Sg2260Sim *s, Channel *h, Sg2260Error *e) {
    if (h->state != CH_READY) return 0;
    const Sg2260Desc *d = &h->descs[h->pc];
    int peer = s->m.port_peer[h->chip][h->port];
    int ci = (int)(h - s->ch);
    switch (d->cmd) {
    case SG2260_CMD_SEND: {
        CreditQ *q = &s->credits[h->chip * SG2260_MAX_PORTS + h->port];
        if (q->count == 0) {
            block(s, h, "waiting for a RECV credit from chip %d", peer);
            return 0;
        }
        Credit c = q->q[q->head];
        q->head = (q->head + 1) % MAX_CREDITS;
        q->count--;
        Channel *rx = &s->ch[c.rx];
        char rloc[512];
        where(s, rx, c.rx_index, rloc, sizeof rloc);
        if (c.dtype != d->dtype)
            return run_err(s, e, h, "dtype-mismatch", "SEND dtype %s but the matching RECV has %s\n  RECV at %s",
                           sg2260_dtype_name(d->dtype), sg2260_dtype_name(c.dtype), rloc);
        if (sg2260_shape_elems(&c.shape) != sg2260_shape_elems(&d->shape))
            return run_err(s, e, h, "size-mismatch",
                           "SEND of %llu bytes but the matching RECV expects %llu bytes\n  RECV at %s",
                           (unsigned long long)(sg2260_shape_elems(&d->shape) * sg2260_dtype_size(d->dtype)),
                           (unsigned long long)(sg2260_shape_elems(&c.shape) * sg2260_dtype_size(c.dtype)),
                           rloc);
        if ((d->psum == SG2260_PSUM_WR) != (c.op != SG2260_OP_NONE))
            return run_err(s, e, h, "psum-mismatch",
                           "SEND psum=%s but the matching RECV has op=%s (wr needs a reduce op, wo needs none)\n  RECV at %s",
                           d->psum == SG2260_PSUM_WR ? "wr" : "wo", sg2260_op_name(c.op), rloc);
        if (check_view(s, e, h, "source", h->chip, d->src, &d->shape, d->dtype) ||
            check_view(s, e, h, "destination", peer, c.dst, &c.shape, c.dtype))
            return -1;
        unblock(s, h);
        Xfer *x = new_xfer(s);
        x->res = link_res(s, h->chip, h->port, 1);
        x->src_chip = h->chip, x->dst_chip = peer;
        x->src = d->src, x->dst = c.dst;
        x->sshape = d->shape, x->dshape = c.shape;
        x->dtype = d->dtype, x->op = c.op;
        x->credit_rx = c.rx;
        if (check_race(s, e, h, x)) return -1;
        start_xfer(s, h, x);
        return 1;
    }
    case SG2260_CMD_RECV: {
        if (h->outstanding >= s->m.credit_depth) {
            block(s, h, "credit depth %d reached (no SEND has consumed a posted credit)", s->m.credit_depth);
            return 0;
        }
        int l = s->m.port_link[h->chip][h->port];
        int pport = s->m.links[l].a == h->chip ? s->m.links[l].port_b : s->m.links[l].port_a;
        CreditQ *q = &s->credits[peer * SG2260_MAX_PORTS + pport];
        if (q->count >= MAX_CREDITS) {
            block(s, h, "credit queue full");
            return 0;
        }
        Credit *c = &q->q[(q->head + q->count) % MAX_CREDITS];
        c->dst = d->dst, c->shape = d->shape, c->dtype = d->dtype, c->op = d->op;
        c->rx = ci, c->rx_index = h->pc;
        q->count++;
        h->outstanding++;
        unblock(s, h);
        trace(s, ci, s->t, s->t, 0, h->pc, "RECV");
        s->commands++;
        h->pc++;
        return 1;
    }
    case SG2260_CMD_WRITE:
    case SG2260_CMD_READ:
    case SG2260_CMD_GENERAL: {
        if (check_view(s, e, h, "source", d->src_chip, d->src, &d->shape, d->dtype) ||
            check_view(s, e, h, "destination", d->dst_chip, d->dst, &d->dshape, d->dtype))
            return -1;
        unblock(s, h);
        Xfer *x = new_xfer(s);
        if (d->cmd == SG2260_CMD_GENERAL) x->res = 2 * s->m.nlinks + h->chip;
        else x->res = link_res(s, h->chip, h->port, d->cmd == SG2260_CMD_WRITE);
        x->src_chip = d->src_chip, x->dst_chip = d->dst_chip;
        x->src = d->src, x->dst = d->dst;
        x->sshape = d->shape, x->dshape = d->dshape;
        x->dtype = d->dtype, x->op = d->op;
        if (check_race(s, e, h, x)) return -1;
        start_xfer(s, h, x);
        return 1;
    }
    case SG2260_CMD_SYS: break;
    default: return run_err(s, e, h, "unsupported-cmd", "command not modelled");
    }
    /* SYS */
    int fence = h->chan == SG2260_RX && (d->sys == SG2260_SYS_END || d->sys == SG2260_SYS_NOP ||
                                         d->sys == SG2260_SYS_TRWR || d->sys == SG2260_SYS_RX_SEND_MSG);
    if (fence && h->outstanding > 0) {
        block(s, h, "waiting for %d posted RECV credit(s) to be filled", h->outstanding);
        return 0;
    }
    switch (d->sys) {
    case SG2260_SYS_END:
        unblock(s, h);
        h->state = CH_DONE;
        s->commands++;
        return 1;
    case SG2260_SYS_NOP: {
        Channel *other = &s->ch[chan_index(h->chip, h->port, 1 - h->chan)];
        if (!h->at_nop) {
            h->at_nop = 1;
            h->nop_arrived++;
        }
        if (other->nop_arrived < h->nop_arrived) {
            block(s, h, "waiting for the %s channel of this port to reach NOP %d", chan_name(1 - h->chan),
                  h->nop_arrived);
            return 0;
        }
        h->at_nop = 0;
        unblock(s, h);
        s->commands++;
        h->pc++;
        return 1;
    }
    case SG2260_SYS_TRWR: {
        if (sg2260_mem_write(s, h->chip, d->dst, &d->imm, 4))
            return run_err(s, e, h, "addr-range", "TRWR address outside chip memory");
        s->commands++;
        h->pc++;
        return 1;
    }
    case SG2260_SYS_TX_SEND_MSG:
    case SG2260_SYS_RX_SEND_MSG:
        unblock(s, h);
        s->msgs[h->chip][d->msg_id]++;
        trace(s, ci, s->t, s->t, 0, h->pc, "SEND_MSG");
        s->commands++;
        h->pc++;
        return 1;
    case SG2260_SYS_TX_WAIT_MSG:
    case SG2260_SYS_RX_WAIT_MSG: {
        uint32_t *ctr = &s->msgs[h->chip][d->msg_id];
        if (*ctr < d->count) {
            block(s, h, "waiting for message id %u on chip %d (%u of %u sent)", d->msg_id, h->chip, *ctr,
                  d->count);
            return 0;
        }
        *ctr -= d->count;
        unblock(s, h);
        h->state = CH_BUSY;
        h->timed = 1;
        h->busy_until = s->t + s->m.sync_us;
        trace(s, ci, s->t, h->busy_until, 2, h->pc, "sync");
        s->commands++;
        return 1;
    }
    }
    return run_err(s, e, h, "bad-sys", "unknown SYS subtype");
}

/* Max-min fair rates on every resource. */
static void set_rates(Sg2260Sim *s) {
    for (int r = 0; r < s->nres; r++) {
        int idx[256], k = 0;
        for (int i = 0; i < s->nxf && k < 256; i++)
            if (s->xf[i].res == r && s->t >= s->xf[i].stream_at) idx[k++] = i;
        if (!k) continue;
        /* sort by cap ascending (insertion sort; k is small) */
        for (int i = 1; i < k; i++)
            for (int j = i; j > 0 && s->xf[idx[j]].cap < s->xf[idx[j - 1]].cap; j--) {
                int t = idx[j];
                idx[j] = idx[j - 1];
                idx[j - 1] = t;
            }
        double left = s->res_bw[r];
        for (int i = 0; i < k; i++) {
            double share = left / (k - i);
            double rate = s->xf[idx[i]].cap < share ? s->xf[idx[i]].cap : share;
            s->xf[idx[i]].rate = rate;
            left -= rate;
        }
    }
    for (int i = 0; i < s->nxf; i++)
        if (s->t < s->xf[i].stream_at) s->xf[i].rate = 0;
}

static void finish_xfer(Sg2260Sim *s, int i) {
    Xfer x = s->xf[i];
    s->xf[i] = s->xf[--s->nxf];
    apply_xfer(s, &x);
    s->res_bytes[x.res] += x.bytes;
    Channel *h = &s->ch[x.ch];
    const Sg2260Desc *d = &h->descs[h->pc];
    char name[48];
    snprintf(name, sizeof name, "%s %.0fB", sg2260_cmd_name(d->cmd), x.bytes);
    trace(s, x.ch, x.t0, s->t, 0, h->pc, name);
    h->state = CH_READY;
    h->pc++;
    if (x.credit_rx >= 0) s->ch[x.credit_rx].outstanding--;
}

static void deadlock(Sg2260Sim *s, Sg2260Error *e) {
    char msg[8192];
    size_t n = 0;
    int nblocked = 0;
    for (size_t i = 0; i < sizeof s->ch / sizeof s->ch[0]; i++)
        if (s->ch[i].state == CH_READY) nblocked++;
    n += (size_t)snprintf(msg, sizeof msg, "deadlock at %.3f us: %d channel(s) blocked", s->t, nblocked);
    for (size_t i = 0; i < sizeof s->ch / sizeof s->ch[0] && n < sizeof msg; i++) {
        Channel *h = &s->ch[i];
        if (h->state != CH_READY) continue;
        char loc[512];
        where(s, h, h->pc, loc, sizeof loc);
        n += (size_t)snprintf(msg + n, sizeof msg - n, "\n  %s\n    blocked: %s", loc, h->why);
    }
    sg_err(e, "deadlock", NULL, 0, "%s", msg);
}

int sg2260_sim_run(Sg2260Sim *s, Sg2260Result *r) {
    memset(r, 0, sizeof *r);
    Sg2260Error *e = &r->err;
    const int NCH = (int)(sizeof s->ch / sizeof s->ch[0]);
    int failed = 0;
    for (;;) {
        /* Let every channel make all progress possible at this instant. */
        int progress = 1;
        while (progress && !failed) {
            progress = 0;
            for (int i = 0; i < NCH; i++) {
                int rc = step(s, &s->ch[i], e);
                if (rc < 0) {
                    failed = 1;
                    break;
                }
                if (rc > 0) progress = 1;
            }
        }
        if (failed) break;
        set_rates(s);
        /* Next event. */
        double next = INFINITY;
        for (int i = 0; i < s->nxf; i++) {
            Xfer *x = &s->xf[i];
            double t = s->t < x->stream_at ? x->stream_at : s->t + x->remaining / x->rate;
            if (t < next) next = t;
        }
        for (int i = 0; i < NCH; i++)
            if (s->ch[i].state == CH_BUSY && s->ch[i].timed && s->ch[i].busy_until < next)
                next = s->ch[i].busy_until;
        if (next == INFINITY) {
            int live = 0;
            for (int i = 0; i < NCH; i++) live |= s->ch[i].state == CH_READY;
            if (live) {
                deadlock(s, e);
                failed = 1;
            }
            break;
        }
        /* Advance to it. */
        double dt = next - s->t;
        int active[2 * SG2260_MAX_LINKS + SG2260_MAX_CHIPS] = {0};
        for (int i = 0; i < s->nxf; i++) {
            Xfer *x = &s->xf[i];
            if (s->t >= x->stream_at) {
                x->remaining -= x->rate * dt;
                active[x->res] = 1;
            }
        }
        for (int q = 0; q < s->nres; q++)
            if (active[q]) s->res_busy[q] += dt;
        s->t = next;
        /* Retire what ended at `next` (relative slack for rounding). */
        for (int i = 0; i < s->nxf;) {
            Xfer *x = &s->xf[i];
            if (s->t >= x->stream_at && x->remaining <= 1e-9 * (x->bytes + 1)) finish_xfer(s, i);
            else i++;
        }
        for (int i = 0; i < NCH; i++) {
            Channel *h = &s->ch[i];
            if (h->state == CH_BUSY && h->timed && h->busy_until <= s->t) {
                h->state = CH_READY;
                h->timed = 0;
                h->pc++;
            }
        }
    }
    /* Close the wait spans of channels still blocked (deadlock) for the trace. */
    for (int i = 0; i < NCH; i++)
        if (s->ch[i].state == CH_READY && s->ch[i].block_since >= 0 && s->t > s->ch[i].block_since)
            trace(s, i, s->ch[i].block_since, s->t, 1, s->ch[i].pc, "wait (blocked at end)");
    s->end_time = s->t;
    r->ok = !failed;
    r->time_us = s->t;
    r->commands = s->commands;
    for (int l = 0; l < s->m.nlinks; l++)
        for (int k = 0; k < 2; k++) {
            Sg2260LinkStats *ls = &r->linkstats[r->nlinkstats++];
            ls->link = l;
            ls->from = k ? s->m.links[l].b : s->m.links[l].a;
            ls->to = k ? s->m.links[l].a : s->m.links[l].b;
            ls->busy_us = s->res_busy[2 * l + k];
            ls->bytes = s->res_bytes[2 * l + k];
            ls->util = s->t > 0 ? ls->bytes / (s->res_bw[2 * l + k] * s->t) : 0;
            r->bytes += ls->bytes;
        }
    return failed ? -1 : 0;
}

void sg2260_result_print(FILE *out, const Sg2260Sim *s, const Sg2260Result *r) {
    fprintf(out, "machine: %s, %d chips, %d links, %.17g GB/s per direction\n", s->m.name, s->m.nchips,
            s->m.nlinks, s->m.link_bw_GBps);
    fprintf(out, "status: %s\n", r->ok ? "ok" : "failed");
    fprintf(out, "simulated time: %.6f us\n", r->time_us);
    fprintf(out, "commands: %llu, link bytes: %.0f\n", (unsigned long long)r->commands, r->bytes);
    fprintf(out, "%-10s %14s %12s %8s %8s\n", "link", "bytes", "busy_us", "busy%", "util%");
    for (int i = 0; i < r->nlinkstats; i++) {
        const Sg2260LinkStats *ls = &r->linkstats[i];
        if (ls->bytes == 0) continue;
        char name[32];
        snprintf(name, sizeof name, "%d->%d", ls->from, ls->to);
        fprintf(out, "%-10s %14.0f %12.6f %8.2f %8.2f\n", name, ls->bytes, ls->busy_us,
                r->time_us > 0 ? 100.0 * ls->busy_us / r->time_us : 0.0, 100.0 * ls->util);
    }
}

/* ---- trace writers ----------------------------------------------------- */

int sg2260_trace_write_json(const Sg2260Sim *s, FILE *out) {
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", out);
    int first = 1;
    for (int c = 0; c < s->m.nchips; c++) {
        fprintf(out, "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"chip %d\"}}",
                first ? "" : ",\n", c, c);
        first = 0;
        for (int p = 0; p < s->m.nports[c]; p++)
            for (int k = 0; k < 2; k++) {
                const Channel *h = &s->ch[chan_index(c, p, k)];
                if (h->state == CH_ABSENT) continue;
                fprintf(out,
                        ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"port %d (->%d) %s\"}}",
                        c, p * 2 + k, p, s->m.port_peer[c][p], chan_name(k));
            }
    }
    static const char *const cat[] = {"cmd", "wait", "sync"};
    for (int i = 0; i < s->ntr; i++) {
        const TraceEv *e = &s->tr[i];
        const Channel *h = &s->ch[e->ch];
        char dis[320] = "";
        if (e->index >= 0 && e->index < h->n) sg2260_disasm(&h->descs[e->index], dis, sizeof dis);
        if (e->t1 > e->t0)
            fprintf(out, ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%.6f,\"dur\":%.6f,",
                    e->name, cat[e->kind], e->t0, e->t1 - e->t0);
        else
            fprintf(out, ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"i\",\"s\":\"t\",\"ts\":%.6f,",
                    e->name, cat[e->kind], e->t0);
        fprintf(out, "\"pid\":%d,\"tid\":%d,\"args\":{\"index\":%d,\"desc\":\"%s\"}}", h->chip,
                h->port * 2 + h->chan, e->index, dis);
    }
    fputs("\n]}\n", out);
    return ferror(out) ? -1 : 0;
}

int sg2260_trace_write_svg(const Sg2260Sim *s, FILE *out) {
    int rows[SG2260_MAX_CHIPS * SG2260_MAX_PORTS * 2], nrows = 0;
    int row_of[SG2260_MAX_CHIPS * SG2260_MAX_PORTS * 2];
    for (int i = 0; i < (int)(sizeof s->ch / sizeof s->ch[0]); i++) {
        row_of[i] = -1;
        if (s->ch[i].state != CH_ABSENT) row_of[i] = nrows, rows[nrows++] = i;
    }
    const double left = 170, width = 900, rowh = 18;
    double T = s->end_time > 0 ? s->end_time : 1;
    double H = 40 + nrows * rowh + 30;
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"monospace\" font-size=\"11\">\n",
            left + width + 20, H);
    fprintf(out, "<text x=\"4\" y=\"16\">%s: %.3f us</text>\n", s->m.name, T);
    for (int r = 0; r < nrows; r++) {
        const Channel *h = &s->ch[rows[r]];
        double y = 30 + r * rowh;
        fprintf(out, "<text x=\"4\" y=\"%.1f\">chip%d p%d(-&gt;%d) %s</text>\n", y + 12, h->chip, h->port,
                s->m.port_peer[h->chip][h->port], chan_name(h->chan));
        fprintf(out, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", left,
                y + rowh - 1, left + width, y + rowh - 1);
    }
    for (int i = 0; i < s->ntr; i++) {
        const TraceEv *e = &s->tr[i];
        if (row_of[e->ch] < 0 || e->t1 <= e->t0) continue;
        const Channel *h = &s->ch[e->ch];
        const Sg2260Desc *d = &h->descs[e->index];
        const char *color = "#4a7fd4";
        if (e->kind == 1) color = "#f3c6c6";
        else if (e->kind == 2) color = "#9b6fd1";
        else if (d->cmd == SG2260_CMD_WRITE) color = "#4caf50";
        else if (d->cmd == SG2260_CMD_READ) color = "#ff9800";
        else if (d->cmd == SG2260_CMD_GENERAL) color = "#888";
        double x = left + width * e->t0 / T, w = width * (e->t1 - e->t0) / T;
        double y = 30 + row_of[e->ch] * rowh + (e->kind == 1 ? 6 : 2);
        fprintf(out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"><title>%s [%.3f, %.3f] us</title></rect>\n",
                x, y, w < 0.5 ? 0.5 : w, e->kind == 1 ? 4.0 : rowh - 5, color, e->name, e->t0, e->t1);
    }
    double ya = 30 + nrows * rowh + 14;
    for (int k = 0; k <= 4; k++)
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">%.2f</text>\n", left + width * k / 4 - 10, ya, T * k / 4);
    fputs("</svg>\n", out);
    return ferror(out) ? -1 : 0;
}
