/* engine.c - functional + timing model of the SG2260 DMA engines.
 *
 * Every chip runs one descriptor program per CDMA port, one GDMA program and
 * one VSDMA program per TPU core. A CDMA port's program holds the port's TX
 * and RX work in one stream: the engine hands each descriptor to its TX side
 * (SEND, WRITE, READ, GENERAL, TX_*_MSG) or its RX side (RECV, RX_*_MSG);
 * NOP and TRWR go to both and join them, END ends both. Each side, and each
 * GDMA/VSDMA engine, runs its commands in order, one at a time. The model is
 * a discrete-event simulation in microseconds:
 *   - a CDMA data command costs the start-up latency, then streams its bytes
 *     over one direction of its link at most at the CDMA engine's rate; a
 *     GDMA/VSDMA copy streams over the chip's DDR<->L2 path. Concurrent
 *     transfers on one resource share it max-min fairly; a reducing transfer
 *     is also capped by the SUM unit;
 *   - RECV posts a credit (destination view, dtype, op) to the sending port
 *     at the other end of its link and retires at once; at most credit_depth
 *     credits of one RX side may be outstanding (posted, data not landed);
 *     END, NOP and TRWR on an RX side first wait until all its credits have
 *     landed, so a message after a NOP means "data is here" (an RX_SEND_MSG
 *     with credits not landed is a warning);
 *   - messages are the chip's, shared by all its engines, each engine's ids
 *     relative to its base message id register: a SEND_MSG carries
 *     how many waiters consume it, a WAIT_MSG how many sends it needs; a wait
 *     takes the oldest sends, then costs the sync latency; a send every one
 *     of whose waiters has passed is gone.
 * Data moves at a transfer's completion time (read source, write or reduce
 * destination), so results are exact and ordering follows simulated time.
 * When no event is pending and some engine has not reached END the run is a
 * deadlock; every blocked descriptor is named. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

/* ---- sparse memory ----------------------------------------------------- */

enum { PAGE_BITS = 12, L2_BITS = 14, L1_BITS = SG2260_OFFSET_BITS - PAGE_BITS - L2_BITS };
#define PAGE_SIZE ((uint64_t)1 << PAGE_BITS)

typedef struct ChipMem {
    uint8_t **l1[1u << L1_BITS];
} ChipMem;

static uint8_t *page_of(ChipMem *m, uint64_t off, int create) {
    uint64_t pg = off >> PAGE_BITS;
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
    if (!m) return;
    for (size_t i = 0; i < ((size_t)1 << L1_BITS); i++) {
        if (!m->l1[i]) continue;
        for (size_t j = 0; j < ((size_t)1 << L2_BITS); j++) free(m->l1[i][j]);
        free(m->l1[i]);
    }
    free(m);
}

/* ---- simulator state --------------------------------------------------- */

typedef enum ChanState {
    CH_ABSENT,  /* no program */
    CH_READY,   /* may try its current command */
    CH_BUSY,    /* a transfer or timed wait is in flight */
    CH_DONE,    /* reached SYS END */
} ChanState;

/* Channels of one chip: the TX and RX side of each CDMA port, the GDMA,
 * one VSDMA per core. */
enum {
    CH_GDMA = 2 * SG2260_MAX_PORTS,
    CH_VSDMA0 = CH_GDMA + 1,
    CH_PER_CHIP = CH_VSDMA0 + SG2260_MAX_CORES,
    NCH = SG2260_MAX_CHIPS * CH_PER_CHIP,
};

typedef struct Prog {
    Sg2260Desc *descs;
    int *lines;
    Sg2260Note *notes;
    int n;
    int msg_base;           /* the engine's base message id register */
} Prog;

typedef struct Channel {
    int chip, index, side;  /* side: SG2260_TX/RX on a CDMA port, 0 elsewhere */
    Sg2260Engine engine;
    ChanState state;
    const Prog *prog;
    int *order;             /* descriptor indices this channel runs, in order */
    int n, pc;              /* order[pc] is the current one */
    int outstanding;        /* RX: credits posted whose data has not landed */
    int joins;              /* NOP/TRWR reached */
    int at_join;            /* arrival at the current join counted */
    int checked;            /* pc + 1 of the message descriptor last checked for warnings */
    double busy_until;      /* timed wait (sync latency) end, when state BUSY */
    int timed;              /* BUSY because of a timed wait (not a transfer) */
    double block_since;     /* <0: not blocked */
    double started;         /* start of the command in flight */
    char why[192];          /* reason of the current block */
} Channel;

typedef struct Credit {
    uint64_t dst;
    Sg2260Shape shape;
    Sg2260Dtype dtype;
    Sg2260Op op;
    int rx;        /* channel of the RX side that posted it */
    int rx_index;  /* descriptor index of the RECV */
} Credit;

enum { MAX_CREDITS = 64 };
typedef struct CreditQ {
    Credit q[MAX_CREDITS];
    int head, count;
} CreditQ;

/* One pending SEND_MSG of a message id. */
typedef struct MsgEntry {
    int remaining;      /* waiters still to take it */
    int waiters;        /* its count */
    uint64_t takers[2]; /* bit per channel of the chip that took it */
    int ch, index;      /* the sender */
} MsgEntry;

typedef struct MsgQ {
    MsgEntry *e;
    int n, cap;
} MsgQ;

typedef struct Xfer {
    int ch;              /* owning channel */
    int res;             /* resource index */
    int index;           /* descriptor index */
    double t0, stream_at;
    double remaining, bytes, cap, rate;
    int src_chip, dst_chip;
    uint64_t src, dst;
    Sg2260Shape sshape, dshape;
    Sg2260Dtype dtype;
    Sg2260Op op;
    int fill;
    uint32_t imm;
    int credit_rx;       /* RX channel whose credit this consumes, or -1 */
    int credit_index;    /* the RECV's descriptor index */
} Xfer;

typedef enum TraceKind {
    TR_CMD,   /* a command from start to completion */
    TR_WAIT,  /* blocked */
    TR_SYNC,  /* message-wait sync latency */
    TR_MARK,  /* an instant: RECV posted, SEND_MSG, data landed */
} TraceKind;

typedef struct TraceEv {
    int ch, index;
    double t0, t1;
    TraceKind kind;
    int flow;            /* >0: flow id (SEND start -> data landed at the RECV) */
    int flow_end;        /* 1: this event ends the flow */
    char name[48];
} TraceEv;

/* A transfer streaming on a link direction or a chip's local path. */
typedef struct LinkEv {
    int res;
    double t0, t1, bytes;
    int ch, index;
} LinkEv;

struct Sg2260Sim {
    Sg2260Machine m;
    ChipMem *mem[SG2260_MAX_CHIPS][2];  /* DDR, L2 */
    Channel ch[NCH];
    Prog *progs;
    int nprogs;
    CreditQ credits[SG2260_MAX_CHIPS * SG2260_MAX_PORTS]; /* at the sending port */
    MsgQ msgs[SG2260_MAX_CHIPS][SG2260_MSG_IDS];
    uint32_t trwr[NCH];                 /* id register of each engine */
    Xfer *xf;
    int nxf, capxf;
    int nres;
    double res_bw[2 * SG2260_MAX_LINKS + SG2260_MAX_CHIPS]; /* bytes per us */
    double res_busy[2 * SG2260_MAX_LINKS + SG2260_MAX_CHIPS];
    double res_bytes[2 * SG2260_MAX_LINKS + SG2260_MAX_CHIPS];
    double t;
    uint64_t commands, total_descs;
    Sg2260DataMode data;
    uint64_t sample_stride, sample_window;
    int trace_on;
    Sg2260Result *res;      /* of the run in progress (warnings) */
    int race_check;
    void (*progress)(void *, double, double, int);
    void *progress_ctx;
    TraceEv *tr;
    int ntr, captr;
    LinkEv *lk;
    int nlk, caplk;
    int nflows;
    double end_time;
    uint8_t *tmp[2];     /* data scratch, TMP_BYTES each */
};

enum { TMP_BYTES = 1 << 20 };

static int chan_index(int chip, Sg2260Engine e, int index, int side) {
    int local = e == SG2260_CDMA ? 2 * index + side : e == SG2260_GDMA ? CH_GDMA : CH_VSDMA0 + index;
    return chip * CH_PER_CHIP + local;
}

Sg2260Sim *sg2260_sim_new(const Sg2260Machine *m) {
    Sg2260Sim *s = sg_xcalloc(1, sizeof *s);
    s->m = *m;
    for (int c = 0; c < SG2260_MAX_CHIPS; c++)
        for (int k = 0; k < CH_PER_CHIP; k++) {
            Channel *h = &s->ch[c * CH_PER_CHIP + k];
            h->chip = c;
            h->engine = k < CH_GDMA ? SG2260_CDMA : k == CH_GDMA ? SG2260_GDMA : SG2260_VSDMA;
            h->index = k < CH_GDMA ? k / 2 : k == CH_GDMA ? 0 : k - CH_VSDMA0;
            h->side = k < CH_GDMA ? k % 2 : 0;
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
    s->data = SG2260_DATA_FULL;
    return s;
}

void sg2260_sim_free(Sg2260Sim *s) {
    if (!s) return;
    for (int c = 0; c < SG2260_MAX_CHIPS; c++) mem_free(s->mem[c][0]), mem_free(s->mem[c][1]);
    for (int i = 0; i < NCH; i++) free(s->ch[i].order);
    for (int i = 0; i < s->nprogs; i++) {
        free(s->progs[i].descs);
        free(s->progs[i].lines);
        free(s->progs[i].notes);
    }
    for (int c = 0; c < SG2260_MAX_CHIPS; c++)
        for (int i = 0; i < SG2260_MSG_IDS; i++) free(s->msgs[c][i].e);
    free(s->progs);
    free(s->xf);
    free(s->tr);
    free(s->lk);
    free(s->tmp[0]);
    free(s->tmp[1]);
    free(s);
}

void sg2260_sim_enable_trace(Sg2260Sim *s, int on) { s->trace_on = on; }

void sg2260_sim_set_race_check(Sg2260Sim *s, int on) { s->race_check = on; }

void sg2260_sim_set_progress(Sg2260Sim *s, void (*fn)(void *, double, double, int), void *ctx) {
    s->progress = fn;
    s->progress_ctx = ctx;
}

void sg2260_sim_set_data(Sg2260Sim *s, Sg2260DataMode mode, uint64_t stride, uint64_t window) {
    s->data = mode;
    s->sample_stride = stride;
    s->sample_window = window;
}

/* The memory space of a tagged address (0 DDR, 1 L2) and its size; -1 for
 * a tag the model does not have. */
static int space_of(const Sg2260Sim *s, uint64_t addr, uint64_t *limit) {
    uint64_t tag = SG2260_ADDR_TAG(addr);
    if (tag == SG2260_TAG_DDR) {
        *limit = s->m.mem_bytes;
        return 0;
    }
    if (tag == SG2260_TAG_L2 && SG2260_ADDR_OK(addr)) {
        *limit = s->m.l2_bytes;
        return 1;
    }
    return -1;
}

static int range_ok(const Sg2260Sim *s, int chip, uint64_t addr, uint64_t n) {
    uint64_t limit, off = SG2260_ADDR_OFFSET(addr);
    return chip >= 0 && chip < s->m.nchips && space_of(s, addr, &limit) >= 0 && off <= limit && n <= limit - off;
}

int sg2260_mem_kept(const Sg2260Sim *s, uint64_t addr) {
    if (s->data == SG2260_DATA_NONE) return 0;
    if (s->data == SG2260_DATA_SAMPLED) return (addr & (s->sample_stride - 1)) < s->sample_window;
    return 1;
}

/* Raw page access for [off, off+n) of one space, n within one page. */
static void raw_write(Sg2260Sim *s, int chip, int sp, uint64_t off, const uint8_t *p, size_t n) {
    if (!s->mem[chip][sp]) s->mem[chip][sp] = sg_xcalloc(1, sizeof(ChipMem));
    memcpy(page_of(s->mem[chip][sp], off, 1) + (off & (PAGE_SIZE - 1)), p, n);
}

static void raw_read(Sg2260Sim *s, int chip, int sp, uint64_t off, uint8_t *p, size_t n) {
    uint8_t *pg = s->mem[chip][sp] ? page_of(s->mem[chip][sp], off, 0) : NULL;
    if (pg) memcpy(p, pg + (off & (PAGE_SIZE - 1)), n);
    else memset(p, 0, n);
}

/* Walks [addr, addr+n) in pieces within one page and, when sampling, within
 * the kept windows; calls fn for each kept piece. */
static void walk(Sg2260Sim *s, int chip, uint64_t addr, size_t n, uint8_t *buf, int wr) {
    uint64_t limit;
    int sp = space_of(s, addr, &limit);
    uint64_t off = SG2260_ADDR_OFFSET(addr);
    while (n) {
        size_t k = (size_t)(PAGE_SIZE - (off & (PAGE_SIZE - 1)));
        int kept = 1;
        if (s->data == SG2260_DATA_SAMPLED) {
            uint64_t in = off & (s->sample_stride - 1);
            kept = in < s->sample_window;
            uint64_t edge = kept ? s->sample_window - in : s->sample_stride - in;
            if (edge < k) k = (size_t)edge;
        }
        if (k > n) k = n;
        if (kept) {
            if (wr) raw_write(s, chip, sp, off, buf, k);
            else raw_read(s, chip, sp, off, buf, k);
        } else if (!wr) {
            memset(buf, 0, k);
        }
        off += k, buf += k, n -= k;
    }
}

int sg2260_mem_write(Sg2260Sim *s, int chip, uint64_t addr, const void *src, size_t n) {
    if (!range_ok(s, chip, addr, n)) return -1;
    if (s->data != SG2260_DATA_NONE) walk(s, chip, addr, n, (uint8_t *)(uintptr_t)src, 1);
    return 0;
}

int sg2260_mem_read(Sg2260Sim *s, int chip, uint64_t addr, void *dst, size_t n) {
    if (!range_ok(s, chip, addr, n)) return -1;
    if (s->data == SG2260_DATA_NONE) memset(dst, 0, n);
    else walk(s, chip, addr, n, dst, 0);
    return 0;
}

/* ---- locations and errors ---------------------------------------------- */

static const char *side_name(int side) { return side == SG2260_TX ? "TX" : "RX"; }

static int desc_at(const Channel *h, int pos) {
    return pos >= 0 && pos < h->n ? h->order[pos] : -1;
}

/* "chip 0 port 1 (->2) TX", "chip 0 gdma", "chip 0 vsdma 1" */
static void chan_label(const Sg2260Sim *s, const Channel *h, char *buf, size_t cap) {
    if (h->engine == SG2260_CDMA)
        snprintf(buf, cap, "chip %d port %d (->%d) %s", h->chip, h->index,
                 sg2260_machine_port_peer(&s->m, h->chip, h->index), side_name(h->side));
    else if (h->engine == SG2260_GDMA)
        snprintf(buf, cap, "chip %d gdma", h->chip);
    else
        snprintf(buf, cap, "chip %d vsdma %d", h->chip, h->index);
}

/* "chip 0 port 1 (->2) TX #3 (line 12): SEND ..." for descriptor idx. */
static void where_desc(const Sg2260Sim *s, const Channel *h, int idx, char *buf, size_t cap) {
    char dis[320] = "", label[64], lbuf[32] = "";
    if (idx >= 0 && h->prog && idx < h->prog->n) sg2260_disasm(&h->prog->descs[idx], dis, sizeof dis);
    int line = (h->prog && h->prog->lines && idx >= 0 && idx < h->prog->n) ? h->prog->lines[idx] : 0;
    if (line) snprintf(lbuf, sizeof lbuf, " (line %d)", line);
    chan_label(s, h, label, sizeof label);
    snprintf(buf, cap, "%s #%d%s: %s", label, idx, lbuf, dis);
}

/* Formats fmt into e, at the descriptor h is on (its source line kept). */
static int located_err(Sg2260Sim *s, Sg2260Error *e, const Channel *h, const char *code, const char *fmt,
                       va_list ap) {
    char what[1024], loc[512];
    vsnprintf(what, sizeof what, fmt, ap);
    int idx = desc_at(h, h->pc);
    where_desc(s, h, idx, loc, sizeof loc);
    int line = h->prog && h->prog->lines && idx >= 0 ? h->prog->lines[idx] : 0;
    return sg_err(e, code, NULL, line, "%s\n  at %s", what, loc);
}

static int run_err(Sg2260Sim *s, Sg2260Error *e, const Channel *h, const char *code, const char *fmt,
                   ...) __attribute__((format(printf, 5, 6)));
static int run_err(Sg2260Sim *s, Sg2260Error *e, const Channel *h, const char *code, const char *fmt,
                   ...) {
    va_list ap;
    va_start(ap, fmt);
    int r = located_err(s, e, h, code, fmt, ap);
    va_end(ap);
    return r;
}

/* A warning: the hardware does not check it, the run goes on; the first
 * one is kept in the result. */
static void run_warn(Sg2260Sim *s, const Channel *h, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void run_warn(Sg2260Sim *s, const Channel *h, const char *code, const char *fmt, ...) {
    if (!s->res || s->res->nwarnings++) return;
    va_list ap;
    va_start(ap, fmt);
    located_err(s, &s->res->warning, h, code, fmt, ap);
    va_end(ap);
}

/* ---- loading ----------------------------------------------------------- */

typedef enum Side { SIDE_TX, SIDE_RX, SIDE_JOIN, SIDE_END } Side;

/* Where a CDMA descriptor goes: TX, RX, both as a join, or both (END). */
static Side cdma_side(const Sg2260Desc *d) {
    switch (d->cmd) {
    case SG2260_CMD_RECV: return SIDE_RX;
    case SG2260_CMD_SYS:
        switch (d->sys) {
        case SG2260_SYS_END: return SIDE_END;
        case SG2260_SYS_NOP:
        case SG2260_SYS_TRWR: return SIDE_JOIN;
        case SG2260_SYS_RX_SEND_MSG:
        case SG2260_SYS_RX_WAIT_MSG: return SIDE_RX;
        default: return SIDE_TX;
        }
    default: return SIDE_TX;
    }
}

/* 1 for a SEND_MSG or WAIT_MSG of any engine. */
static int is_msg(const Sg2260Desc *d) {
    return d->cmd == SG2260_CMD_SYS && d->sys >= SG2260_SYS_TX_SEND_MSG && d->sys <= SG2260_SYS_WAIT_MSG;
}

static void add_to_order(Channel *h, int idx, int cap) {
    if (!h->order) h->order = sg_xmalloc((size_t)(cap ? cap : 1) * sizeof(int));
    h->order[h->n++] = idx;
}

/* Static checks of slot sl's program against the machine; 0 or -1. */
static int check_program(Sg2260Sim *s, const Sg2260ProgramSlot *sl, const Prog *p, Sg2260Error *err) {
    const Sg2260Machine *m = &s->m;
    Channel tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.chip = sl->chip, tmp.engine = sl->engine, tmp.index = sl->index, tmp.prog = p;
    int peer = sl->engine == SG2260_CDMA ? sg2260_machine_port_peer(m, sl->chip, sl->index) : -1;
    int *order = sg_xmalloc((size_t)(p->n ? p->n : 1) * sizeof(int));
    for (int i = 0; i < p->n; i++) order[i] = i;
    tmp.order = order, tmp.n = p->n;
    int rc = 0;
    for (tmp.pc = 0; tmp.pc < p->n && !rc; tmp.pc++) {
        const Sg2260Desc *d = &p->descs[tmp.pc];
        Sg2260Error e1;
        tmp.side = sl->engine == SG2260_CDMA && cdma_side(d) == SIDE_RX;
        if (sg2260_desc_check(d, &e1)) {
            rc = run_err(s, err, &tmp, e1.code, "%s", e1.msg);
            break;
        }
        if (!sg2260_cmd_on_engine(d, sl->engine)) {
            rc = run_err(s, err, &tmp, "wrong-engine", "%s%s%s cannot run on a %s", sg2260_cmd_name(d->cmd),
                         d->cmd == SG2260_CMD_SYS ? " " : "", d->cmd == SG2260_CMD_SYS ? sg2260_sys_name(d->sys) : "",
                         sg2260_engine_name(sl->engine));
            break;
        }
        if (is_msg(d) && (uint32_t)p->msg_base + d->msg_id >= SG2260_MSG_IDS) {
            rc = run_err(s, err, &tmp, "msg-range",
                         "message id %u on an engine with base id %d is chip id %u, past the last id %d",
                         d->msg_id, p->msg_base, (uint32_t)p->msg_base + d->msg_id, SG2260_MSG_IDS - 1);
            break;
        }
        if (d->cmd == SG2260_CMD_SYS && d->sys == SG2260_SYS_END && tmp.pc != p->n - 1) {
            rc = run_err(s, err, &tmp, "after-end", "descriptors follow SYS END");
            break;
        }
        if ((d->cmd == SG2260_CMD_WRITE || d->cmd == SG2260_CMD_READ) && d->op != SG2260_OP_NONE && !m->write_reduce) {
            rc = run_err(s, err, &tmp, "bad-op",
                         "%s cannot reduce on machine '%s': SG2260's %s has no reduce field (write_reduce = 1 "
                         "models later chips)",
                         sg2260_cmd_name(d->cmd), m->name, sg2260_cmd_name(d->cmd));
            break;
        }
        if (d->cmd == SG2260_CMD_RECV && d->op != SG2260_OP_NONE && SG2260_ADDR_TAG(d->dst) != SG2260_TAG_L2 &&
            !m->reduce_to_ddr) {
            rc = run_err(s, err, &tmp, "reduce-l2",
                         "RECV reduces into L2 SRAM (l2:ADDR) on machine '%s', not into DDR 0x%llx (reduce_to_ddr "
                         "= 1 allows it)",
                         m->name, (unsigned long long)d->dst);
            break;
        }
        int sc = -1, dc = -1, alt_sc = -1, alt_dc = -1;
        if (d->cmd == SG2260_CMD_WRITE) sc = sl->chip, dc = peer;
        else if (d->cmd == SG2260_CMD_READ) sc = peer, dc = sl->chip;
        else if (d->cmd == SG2260_CMD_GENERAL) sc = sl->chip, dc = peer, alt_sc = peer, alt_dc = sl->chip;
        if (sc >= 0 && !(d->src_chip == sc && d->dst_chip == dc) && !(d->src_chip == alt_sc && d->dst_chip == alt_dc)) {
            rc = run_err(s, err, &tmp, "chip-mismatch", "%s on this port must go from chip %d to chip %d%s, not %d to %d",
                         sg2260_cmd_name(d->cmd), sc, dc, alt_sc >= 0 ? " (or back)" : "", d->src_chip, d->dst_chip);
            break;
        }
    }
    if (!rc && (p->n == 0 || !(p->descs[p->n - 1].cmd == SG2260_CMD_SYS && p->descs[p->n - 1].sys == SG2260_SYS_END))) {
        char label[64];
        tmp.side = 0;
        chan_label(s, &tmp, label, sizeof label);
        if (sl->engine == SG2260_CDMA) snprintf(label, sizeof label, "chip %d port %d", sl->chip, sl->index);
        rc = sg_err(err, "no-end", NULL, p->lines && p->n ? p->lines[p->n - 1] : 0,
                    "program of %s does not end with SYS END", label);
    }
    free(order);
    return rc;
}

int sg2260_sim_load(Sg2260Sim *s, const Sg2260Bundle *b, Sg2260Error *err) {
    for (int i = 0; i < b->ninits; i++) {
        const Sg2260Init *in = &b->inits[i];
        if (sg2260_mem_write(s, in->chip, in->addr, in->bytes, in->n))
            return sg_err(err, "addr-range", NULL, 0, "data for chip %d at 0x%llx (%zu bytes) is outside its memory",
                          in->chip, (unsigned long long)in->addr, in->n);
    }
    s->progs = sg_xrealloc(s->progs, (size_t)(s->nprogs + b->nslots + 1) * sizeof *s->progs);
    for (int i = 0; i < b->nslots; i++) {
        const Sg2260ProgramSlot *sl = &b->slots[i];
        const Sg2260Machine *m = &s->m;
        if (sl->chip < 0 || sl->chip >= m->nchips)
            return sg_err(err, "bad-port", NULL, 0, "program for chip %d: no such chip", sl->chip);
        if (sl->engine == SG2260_CDMA && sg2260_machine_port_peer(m, sl->chip, sl->index) < 0)
            return sg_err(err, "bad-port", NULL, 0, "program for chip %d port %d: the port has no link", sl->chip,
                          sl->index);
        if (sl->engine == SG2260_VSDMA && (sl->index < 0 || sl->index >= m->cores))
            return sg_err(err, "bad-port", NULL, 0, "program for chip %d vsdma %d: the chip has %d cores", sl->chip,
                          sl->index, m->cores);
        Channel *h = &s->ch[chan_index(sl->chip, sl->engine, sl->index, 0)];
        if (h->state != CH_ABSENT)
            return sg_err(err, "duplicate-program", NULL, 0, "two programs for chip %d %s %d", sl->chip,
                          sg2260_engine_name(sl->engine), sl->index);
        Prog *p = &s->progs[s->nprogs++];
        memset(p, 0, sizeof *p);
        p->n = sl->prog.ndescs;
        p->msg_base = sl->msg_base;
        if (sl->msg_base < 0 || sl->msg_base >= SG2260_MSG_IDS - 1)
            return sg_err(err, "msg-range", NULL, 0, "program for chip %d %s %d: base message id %d is not in 0-%d",
                          sl->chip, sg2260_engine_name(sl->engine), sl->index, sl->msg_base, SG2260_MSG_IDS - 2);
        p->descs = sg_xmalloc((size_t)(p->n ? p->n : 1) * sizeof *p->descs);
        memcpy(p->descs, sl->prog.descs, (size_t)p->n * sizeof *p->descs);
        if (sl->lines) {
            p->lines = sg_xmalloc((size_t)(p->n ? p->n : 1) * sizeof(int));
            memcpy(p->lines, sl->lines, (size_t)p->n * sizeof(int));
        }
        if (sl->notes) {
            p->notes = sg_xmalloc((size_t)(p->n ? p->n : 1) * sizeof *p->notes);
            memcpy(p->notes, sl->notes, (size_t)p->n * sizeof *p->notes);
        }
        if (check_program(s, sl, p, err)) return -1;
        s->total_descs += (uint64_t)p->n;
        if (sl->engine != SG2260_CDMA) {
            h->prog = p;
            h->state = CH_READY;
            for (int k = 0; k < p->n; k++) add_to_order(h, k, p->n);
            continue;
        }
        Channel *tx = &s->ch[chan_index(sl->chip, SG2260_CDMA, sl->index, SG2260_TX)];
        Channel *rx = &s->ch[chan_index(sl->chip, SG2260_CDMA, sl->index, SG2260_RX)];
        tx->prog = rx->prog = p;
        tx->state = rx->state = CH_READY;
        for (int k = 0; k < p->n; k++) {
            Side sd = cdma_side(&p->descs[k]);
            if (sd != SIDE_RX) add_to_order(tx, k, p->n);
            if (sd != SIDE_TX) add_to_order(rx, k, p->n);
        }
    }
    return 0;
}

/* ---- data movement ----------------------------------------------------- */

static uint64_t view_extent(const Sg2260Shape *v, size_t es) {
    uint64_t last = (uint64_t)(v->n - 1) * v->sn + (uint64_t)(v->c - 1) * v->sc + (uint64_t)(v->h - 1) * v->sh +
                    (uint64_t)(v->w - 1);
    return (last + 1) * es;
}

/* A position in a view walked in logical (n, c, h, w) order. */
typedef struct ViewPos {
    const Sg2260Shape *v;
    uint64_t base;
    size_t es;
    uint32_t n, c, h, w;
} ViewPos;

static uint64_t vp_addr(const ViewPos *p) {
    return p->base + ((uint64_t)p->n * p->v->sn + (uint64_t)p->c * p->v->sc + (uint64_t)p->h * p->v->sh + p->w) * p->es;
}

/* Elements left in the current row. */
static uint64_t vp_row(const ViewPos *p) { return (uint64_t)p->v->w - p->w; }

static void vp_advance(ViewPos *p, uint64_t k) {
    p->w += (uint32_t)k;
    if (p->w < p->v->w) return;
    p->w = 0;
    if (++p->h < p->v->h) return;
    p->h = 0;
    if (++p->c < p->v->c) return;
    p->c = 0;
    p->n++;
}

/* One run: n bytes from src to dst (op NONE: write; else reduce). Data of
 * the source was snapshot into `snap` (when not NULL) at offset sofs. */
static void move_run(Sg2260Sim *s, const Xfer *x, uint64_t src, uint64_t dst, uint64_t n, const uint8_t *snap,
                     uint64_t sofs) {
    size_t es = sg2260_dtype_size(x->dtype);
    if (!s->tmp[0]) s->tmp[0] = sg_xmalloc(TMP_BYTES), s->tmp[1] = sg_xmalloc(TMP_BYTES);
    uint64_t done = 0;
    while (done < n) {
        /* a piece within the scratch and, when sampling, one kept window */
        uint64_t k = n - done < TMP_BYTES ? n - done : TMP_BYTES;
        uint64_t d = dst + done;
        if (s->data == SG2260_DATA_SAMPLED) {
            uint64_t in = d & (s->sample_stride - 1);
            if (in >= s->sample_window) {
                uint64_t skip = s->sample_stride - in;
                done += skip < n - done ? skip : n - done;
                continue;
            }
            if (s->sample_window - in < k) k = s->sample_window - in;
        }
        uint8_t *a = s->tmp[0], *b = s->tmp[1];
        if (x->fill) {
            for (uint64_t i = 0; i < k; i += es) memcpy(a + i, &x->imm, es);
        } else if (snap) {
            memcpy(a, snap + sofs + done, (size_t)k);
        } else {
            sg2260_mem_read(s, x->src_chip, src + done, a, (size_t)k);
        }
        if (x->op == SG2260_OP_NONE) {
            sg2260_mem_write(s, x->dst_chip, d, a, (size_t)k);
        } else {
            sg2260_mem_read(s, x->dst_chip, d, b, (size_t)k);
            sg_reduce_row(x->dtype, x->op, b, a, (size_t)(k / es));
            sg2260_mem_write(s, x->dst_chip, d, b, (size_t)k);
        }
        done += k;
    }
}

/* Applies a completed transfer; -1 with *e when the sampled data mode cannot
 * follow it (source and destination not the same distance from a sampling
 * window). */
static int apply_xfer(Sg2260Sim *s, const Xfer *x, Sg2260Error *e) {
    if (s->data == SG2260_DATA_NONE) return 0;
    size_t es = sg2260_dtype_size(x->dtype);
    ViewPos sp = {&x->sshape, x->src, es, 0, 0, 0, 0}, dp = {&x->dshape, x->dst, es, 0, 0, 0, 0};
    uint64_t total = sg2260_shape_elems(&x->dshape);
    /* a source that overlaps the destination is read whole first */
    uint8_t *snap = NULL;
    uint64_t sbase = x->src, sext = view_extent(&x->sshape, es);
    if (!x->fill && x->src_chip == x->dst_chip && x->src < x->dst + view_extent(&x->dshape, es) &&
        x->dst < x->src + sext && s->data == SG2260_DATA_FULL) {
        snap = sg_xmalloc((size_t)sext);
        sg2260_mem_read(s, x->src_chip, sbase, snap, (size_t)sext);
    }
    for (uint64_t done = 0; done < total;) {
        uint64_t k = vp_row(&dp);
        if (!x->fill && vp_row(&sp) < k) k = vp_row(&sp);
        if (k > total - done) k = total - done;
        uint64_t sa = vp_addr(&sp), da = vp_addr(&dp);
        if (s->data == SG2260_DATA_SAMPLED && !x->fill &&
            (((da - sa) & (s->sample_stride - 1)) || (da & (es - 1)) || (sa & (es - 1)))) {
            free(snap);
            return sg_err(e, "sample-align", NULL, 0,
                          "sampled data mode: a transfer moves chip %d 0x%llx to chip %d 0x%llx, whose distance is "
                          "not a multiple of the %llu-byte sampling stride",
                          x->src_chip, (unsigned long long)sa, x->dst_chip, (unsigned long long)da,
                          (unsigned long long)s->sample_stride);
        }
        move_run(s, x, sa, da, k * es, snap, sa - sbase);
        if (!x->fill) vp_advance(&sp, k);
        vp_advance(&dp, k);
        done += k;
    }
    free(snap);
    return 0;
}

/* ---- trace ------------------------------------------------------------- */

static TraceEv *trace(Sg2260Sim *s, int ch, double t0, double t1, TraceKind kind, int index, const char *name) {
    if (!s->trace_on) return NULL;
    if (s->ntr == s->captr) {
        s->captr = s->captr ? s->captr * 2 : 256;
        s->tr = sg_xrealloc(s->tr, (size_t)s->captr * sizeof *s->tr);
    }
    TraceEv *e = &s->tr[s->ntr++];
    memset(e, 0, sizeof *e);
    e->ch = ch, e->t0 = t0, e->t1 = t1, e->kind = kind, e->index = index;
    snprintf(e->name, sizeof e->name, "%s", name);
    return e;
}

static void trace_link(Sg2260Sim *s, const Xfer *x) {
    if (!s->trace_on) return;
    if (s->nlk == s->caplk) {
        s->caplk = s->caplk ? s->caplk * 2 : 256;
        s->lk = sg_xrealloc(s->lk, (size_t)s->caplk * sizeof *s->lk);
    }
    s->lk[s->nlk++] = (LinkEv){x->res, x->stream_at, s->t, x->bytes, x->ch, x->index};
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
    if (h->block_since >= 0 && s->t > h->block_since) trace(s, (int)(h - s->ch), h->block_since, s->t, TR_WAIT, desc_at(h, h->pc), "wait");
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

/* The resource of the link on chip's port, in the direction out of chip
 * (outgoing) or into it. */
static int link_res(const Sg2260Sim *s, int chip, int port, int outgoing) {
    int l = s->m.port_link[chip][port];
    int from_a = s->m.links[l].a == chip && s->m.links[l].port_a == port;
    return 2 * l + ((from_a == outgoing) ? 0 : 1);
}

/* Checks a view lies in the chip's memory. */
static int check_view(Sg2260Sim *s, Sg2260Error *e, Channel *h, const char *what, int chip, uint64_t addr,
                      const Sg2260Shape *v, Sg2260Dtype t) {
    uint64_t ext = view_extent(v, sg2260_dtype_size(t)), limit = 0;
    int sp = space_of(s, addr, &limit);
    uint64_t off = SG2260_ADDR_OFFSET(addr);
    if (sp < 0)
        return run_err(s, e, h, "addr-range", "%s view at 0x%llx on chip %d is in no memory of the chip", what,
                       (unsigned long long)addr, chip);
    if (off > limit || ext > limit - off)
        return run_err(s, e, h, "addr-range", "%s view [%s0x%llx, 0x%llx) on chip %d is outside its %s (0x%llx bytes)",
                       what, sp ? "l2:" : "", (unsigned long long)off, (unsigned long long)(off + ext), chip,
                       sp ? "L2 SRAM" : "memory", (unsigned long long)limit);
    return 0;
}

/* Two in-flight transfers conflict when one writes bytes the other reads or
 * writes on the same chip; the model moves data at completion, the hardware
 * streams, so such a program has no defined result. The check compares the
 * views' address ranges [base, base + extent), so interleaved strided views
 * are reported conservatively. */
static int overlaps(int ca, uint64_t a, const Sg2260Shape *va, int cb, uint64_t b, const Sg2260Shape *vb, size_t es) {
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
        else if (!y->fill && overlaps(x->dst_chip, x->dst, &x->dshape, y->src_chip, y->src, &y->sshape, eb))
            what = "writes what it reads";
        else if (!x->fill && overlaps(x->src_chip, x->src, &x->sshape, y->dst_chip, y->dst, &y->dshape, eb))
            what = "reads what it writes";
        if (!what) continue;
        char other[512];
        where_desc(s, &s->ch[y->ch], y->index, other, sizeof other);
        return run_err(s, e, h, "race", "transfer overlaps one in flight: this command %s\n  other: %s", what, other);
    }
    return 0;
}

static void start_xfer(Sg2260Sim *s, Channel *h, Xfer *x, double startup, double cap) {
    size_t es = sg2260_dtype_size(x->dtype);
    x->ch = (int)(h - s->ch);
    x->index = desc_at(h, h->pc);
    x->t0 = s->t;
    x->stream_at = s->t + startup;
    x->bytes = x->remaining = (double)sg2260_shape_elems(&x->dshape) * (double)es;
    x->cap = cap;
    if (x->op != SG2260_OP_NONE && s->m.sum_bw_GBps * 1e3 < x->cap) x->cap = s->m.sum_bw_GBps * 1e3;
    h->state = CH_BUSY;
    h->timed = 0;
    h->started = s->t;
    s->commands++;
}

/* The message queue of id on chip. */
static MsgQ *msgq(Sg2260Sim *s, int chip, uint32_t id) { return &s->msgs[chip][id]; }

/* The chip's message id a descriptor of h names: its engine's base id plus
 * the descriptor's (check_program keeps it below SG2260_MSG_IDS). */
static uint32_t chip_msg_id(const Channel *h, const Sg2260Desc *d) { return (uint32_t)h->prog->msg_base + d->msg_id; }

static void msg_send(Sg2260Sim *s, Channel *h, const Sg2260Desc *d) {
    MsgQ *q = msgq(s, h->chip, chip_msg_id(h, d));
    if (q->n == q->cap) {
        q->cap = q->cap ? 2 * q->cap : 4;
        q->e = sg_xrealloc(q->e, (size_t)q->cap * sizeof *q->e);
    }
    q->e[q->n++] = (MsgEntry){(int)d->count, (int)d->count, {0, 0}, (int)(h - s->ch), desc_at(h, h->pc)};
}

/* Takes the oldest `count` sends of d's id for channel h: 1 done, 0 not
 * enough sends yet, -1 (reported) when one of them was taken by h before. */
static int msg_take(Sg2260Sim *s, Sg2260Error *e, Channel *h, const Sg2260Desc *d) {
    uint32_t id = chip_msg_id(h, d);
    MsgQ *q = msgq(s, h->chip, id);
    if ((uint32_t)q->n < d->count) {
        block(s, h, "waiting for message id %u on chip %d (%d of %u sent)", id, h->chip, q->n, d->count);
        return 0;
    }
    int bit = (int)(h - s->ch) % CH_PER_CHIP;
    for (uint32_t k = 0; k < d->count; k++)
        if (q->e[k].takers[bit / 64] >> (bit % 64) & 1) {
            char other[512];
            where_desc(s, &s->ch[q->e[k].ch], q->e[k].index, other, sizeof other);
            return run_err(s, e, h, "msg-reuse",
                           "message id %u on chip %d: this wait would take a send it took before (a send for %d "
                           "waiters is still pending; the id is reused too early)\n  send: %s",
                           id, h->chip, q->e[k].waiters, other);
        }
    int w = 0;
    for (int k = 0; k < q->n; k++) {
        MsgEntry me = q->e[k];
        if ((uint32_t)k < d->count) {
            me.remaining--;
            me.takers[bit / 64] |= UINT64_C(1) << (bit % 64);
        }
        if (me.remaining > 0) q->e[w++] = me;
    }
    q->n = w;
    return 1;
}

/* Tries the channel's current command at time s->t. Returns 1 on progress,
 * 0 if blocked or busy, -1 on a rule violation (e filled). */
static int step(Sg2260Sim *s, Channel *h, Sg2260Error *e) {
    if (h->state != CH_READY) return 0;
    const Sg2260Desc *d = &h->prog->descs[h->order[h->pc]];
    int peer = h->engine == SG2260_CDMA ? sg2260_machine_port_peer(&s->m, h->chip, h->index) : -1;
    int ci = (int)(h - s->ch);
    double cdma_cap = s->m.cdma_bw_GBps * 1e3;
    switch (d->cmd) {
    case SG2260_CMD_SEND: {
        CreditQ *q = &s->credits[h->chip * SG2260_MAX_PORTS + h->index];
        if (q->count == 0) {
            block(s, h, "waiting for a RECV credit from chip %d", peer);
            return 0;
        }
        Credit c = q->q[q->head];
        q->head = (q->head + 1) % MAX_CREDITS;
        q->count--;
        Channel *rx = &s->ch[c.rx];
        char rloc[512];
        where_desc(s, rx, c.rx_index, rloc, sizeof rloc);
        /* The credit has no dtype field: the hardware streams the SEND's
         * bytes into the RECV's view as the RECV's dtype. A difference is
         * almost surely a mistake, so it is a warning; the sizes must agree
         * in bytes. */
        if (sg2260_dtype_size(c.dtype) != sg2260_dtype_size(d->dtype))
            return run_err(s, e, h, "dtype-mismatch",
                           "SEND dtype %s but the matching RECV has %s, of another element size (the model cannot "
                           "land one as the other)\n  RECV at %s",
                           sg2260_dtype_name(d->dtype), sg2260_dtype_name(c.dtype), rloc);
        if (c.dtype != d->dtype)
            run_warn(s, h, "dtype-mismatch",
                     "SEND dtype %s but the matching RECV has %s (the credit carries no dtype: the bytes land as "
                     "%s)\n  RECV at %s",
                     sg2260_dtype_name(d->dtype), sg2260_dtype_name(c.dtype), sg2260_dtype_name(c.dtype), rloc);
        if (sg2260_shape_elems(&c.shape) * sg2260_dtype_size(c.dtype) !=
            sg2260_shape_elems(&d->shape) * sg2260_dtype_size(d->dtype))
            return run_err(s, e, h, "size-mismatch",
                           "SEND of %llu bytes but the matching RECV expects %llu bytes\n  RECV at %s",
                           (unsigned long long)(sg2260_shape_elems(&d->shape) * sg2260_dtype_size(d->dtype)),
                           (unsigned long long)(sg2260_shape_elems(&c.shape) * sg2260_dtype_size(c.dtype)), rloc);
        if ((d->psum == SG2260_PSUM_WR) != (c.op != SG2260_OP_NONE))
            return run_err(s, e, h, "psum-mismatch",
                           "SEND psum=%s but the matching RECV has op=%s (wr needs a reduce op, wo needs none)\n  "
                           "RECV at %s",
                           d->psum == SG2260_PSUM_WR ? "wr" : "wo", sg2260_op_name(c.op), rloc);
        if (check_view(s, e, h, "source", h->chip, d->src, &d->shape, d->dtype) ||
            check_view(s, e, h, "destination", peer, c.dst, &c.shape, c.dtype))
            return -1;
        unblock(s, h);
        Xfer *x = new_xfer(s);
        x->res = link_res(s, h->chip, h->index, 1);
        x->src_chip = h->chip, x->dst_chip = peer;
        x->src = d->src, x->dst = c.dst;
        x->sshape = d->shape, x->dshape = c.shape;
        x->dtype = c.dtype, x->op = c.op;
        x->credit_rx = c.rx, x->credit_index = c.rx_index;
        if (check_race(s, e, h, x)) return -1;
        start_xfer(s, h, x, s->m.startup_us, cdma_cap);
        return 1;
    }
    case SG2260_CMD_RECV: {
        if (h->outstanding >= s->m.credit_depth) {
            block(s, h, "credit depth %d reached (no SEND has consumed a posted credit)", s->m.credit_depth);
            return 0;
        }
        int l = s->m.port_link[h->chip][h->index];
        const Sg2260Link *lk = &s->m.links[l];
        int pport = lk->a == h->chip && lk->port_a == h->index ? lk->port_b : lk->port_a;
        CreditQ *q = &s->credits[peer * SG2260_MAX_PORTS + pport];
        if (q->count >= MAX_CREDITS) {
            block(s, h, "credit queue full");
            return 0;
        }
        Credit *c = &q->q[(q->head + q->count) % MAX_CREDITS];
        c->dst = d->dst, c->shape = d->shape, c->dtype = d->dtype, c->op = d->op;
        c->rx = ci, c->rx_index = desc_at(h, h->pc);
        q->count++;
        h->outstanding++;
        unblock(s, h);
        trace(s, ci, s->t, s->t, TR_MARK, desc_at(h, h->pc), "RECV posted");
        s->commands++;
        h->pc++;
        return 1;
    }
    case SG2260_CMD_WRITE:
    case SG2260_CMD_READ:
    case SG2260_CMD_GENERAL:
    case SG2260_CMD_COPY:
    case SG2260_CMD_REDUCE: {
        Xfer *x = new_xfer(s);
        int local = d->cmd == SG2260_CMD_COPY || d->cmd == SG2260_CMD_REDUCE;
        x->src_chip = local ? h->chip : d->src_chip;
        x->dst_chip = local ? h->chip : d->dst_chip;
        x->src = d->src, x->dst = d->dst;
        x->dtype = d->dtype, x->op = d->op;
        x->fill = d->fill, x->imm = d->imm;
        if (d->cmd == SG2260_CMD_GENERAL) {
            /* a byte copy: one row of `length` bytes */
            x->dtype = SG2260_INT8;
            x->sshape = (Sg2260Shape){1, 1, 1, d->length, d->length, d->length, d->length};
            x->dshape = x->sshape;
        } else {
            x->sshape = d->shape, x->dshape = d->dshape;
        }
        if ((!x->fill && check_view(s, e, h, "source", x->src_chip, x->src, &x->sshape, x->dtype)) ||
            check_view(s, e, h, "destination", x->dst_chip, x->dst, &x->dshape, x->dtype)) {
            s->nxf--;
            return -1;
        }
        unblock(s, h);
        if (local) x->res = 2 * s->m.nlinks + h->chip;
        else x->res = link_res(s, h->chip, h->index, x->src_chip == h->chip);
        if (check_race(s, e, h, x)) return -1;
        start_xfer(s, h, x, local ? 0 : s->m.startup_us, local ? INFINITY : cdma_cap);
        return 1;
    }
    case SG2260_CMD_SYS: break;
    default: return run_err(s, e, h, "unsupported-cmd", "command not modelled");
    }
    /* SYS */
    /* the fence: an RX side's END, NOP and TRWR wait for its posted
     * credits to land (the firmware brackets a port's messages with a NOP) */
    int fence = h->side == SG2260_RX && h->engine == SG2260_CDMA &&
                (d->sys == SG2260_SYS_END || d->sys == SG2260_SYS_NOP || d->sys == SG2260_SYS_TRWR);
    if (fence && h->outstanding > 0) {
        block(s, h, "waiting for %d posted RECV credit(s) to be filled", h->outstanding);
        return 0;
    }
    if (is_msg(d) && h->checked != h->pc + 1) { /* once per descriptor, not per retry */
        uint32_t id = chip_msg_id(h, d);
        h->checked = h->pc + 1;
        if (id >= SG2260_MSG_RESERVED)
            run_warn(s, h, "msg-reserved",
                     "message id %u on chip %d is in %d-%d, the ids the runtime keeps for its barriers between "
                     "tasks",
                     id, h->chip, SG2260_MSG_RESERVED, SG2260_MSG_IDS - 1);
        else if (d->sys == SG2260_SYS_RX_SEND_MSG && h->outstanding > 0)
            run_warn(s, h, "msg-before-landed",
                     "RX_SEND_MSG with %d posted RECV credit(s) not landed: the message does not wait for their "
                     "data (a NOP before it does)",
                     h->outstanding);
    }
    switch (d->sys) {
    case SG2260_SYS_END:
        unblock(s, h);
        h->state = CH_DONE;
        if (h->side == SG2260_TX || h->engine != SG2260_CDMA) s->commands++;
        return 1;
    case SG2260_SYS_NOP:
    case SG2260_SYS_TRWR: {
        if (h->engine == SG2260_CDMA) {
            Channel *other = &s->ch[chan_index(h->chip, SG2260_CDMA, h->index, 1 - h->side)];
            if (!h->at_join) {
                h->at_join = 1;
                h->joins++;
            }
            if (other->joins < h->joins) {
                block(s, h, "waiting for the %s channel of this port to reach %s %d", side_name(1 - h->side),
                      d->sys == SG2260_SYS_NOP ? "NOP" : "TRWR", h->joins);
                return 0;
            }
            h->at_join = 0;
        }
        unblock(s, h);
        if (d->sys == SG2260_SYS_TRWR && h->side == SG2260_TX) s->trwr[ci] = d->imm;
        if (h->side == SG2260_TX || h->engine != SG2260_CDMA) s->commands++;
        h->pc++;
        return 1;
    }
    case SG2260_SYS_TX_SEND_MSG:
    case SG2260_SYS_RX_SEND_MSG:
    case SG2260_SYS_SEND_MSG:
        unblock(s, h);
        msg_send(s, h, d);
        trace(s, ci, s->t, s->t, TR_MARK, desc_at(h, h->pc), "SEND_MSG");
        s->commands++;
        h->pc++;
        return 1;
    case SG2260_SYS_TX_WAIT_MSG:
    case SG2260_SYS_RX_WAIT_MSG:
    case SG2260_SYS_WAIT_MSG: {
        int rc = msg_take(s, e, h, d);
        if (rc <= 0) return rc;
        unblock(s, h);
        h->state = CH_BUSY;
        h->timed = 1;
        h->busy_until = s->t + s->m.sync_us;
        h->started = s->t;
        trace(s, ci, s->t, h->busy_until, TR_SYNC, desc_at(h, h->pc), "sync");
        s->commands++;
        return 1;
    }
    }
    return run_err(s, e, h, "bad-sys", "unknown SYS subtype");
}

/* Max-min fair rates on every resource. */
static void set_rates(Sg2260Sim *s) {
    int *idx = sg_xmalloc((size_t)(s->nxf ? s->nxf : 1) * sizeof(int));
    for (int r = 0; r < s->nres; r++) {
        int k = 0;
        for (int i = 0; i < s->nxf; i++)
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
    free(idx);
    for (int i = 0; i < s->nxf; i++)
        if (s->t < s->xf[i].stream_at) s->xf[i].rate = 0;
}

static int finish_xfer(Sg2260Sim *s, int i, Sg2260Error *e) {
    Xfer x = s->xf[i];
    s->xf[i] = s->xf[--s->nxf];
    if (apply_xfer(s, &x, e)) return -1;
    s->res_bytes[x.res] += x.bytes;
    Channel *h = &s->ch[x.ch];
    const Sg2260Desc *d = &h->prog->descs[x.index];
    char name[48];
    snprintf(name, sizeof name, "%s %.0fB", sg2260_cmd_name(d->cmd), x.bytes);
    TraceEv *te = trace(s, x.ch, x.t0, s->t, TR_CMD, x.index, name);
    trace_link(s, &x);
    if (x.credit_rx >= 0) {
        s->ch[x.credit_rx].outstanding--;
        TraceEv *land = trace(s, x.credit_rx, s->t, s->t, TR_MARK, x.credit_index, "landed");
        if (te && land) {
            te->flow = land->flow = ++s->nflows;
            land->flow_end = 1;
        }
    }
    h->state = CH_READY;
    h->pc++;
    return 0;
}

static void deadlock(Sg2260Sim *s, Sg2260Error *e) {
    char msg[8192];
    size_t n = 0;
    int nblocked = 0;
    for (int i = 0; i < NCH; i++) nblocked += s->ch[i].state == CH_READY;
    n += (size_t)snprintf(msg, sizeof msg, "deadlock at %.3f us: %d channel(s) blocked", s->t, nblocked);
    for (int i = 0; i < NCH && n < sizeof msg; i++) {
        Channel *h = &s->ch[i];
        if (h->state != CH_READY) continue;
        char loc[512];
        where_desc(s, h, desc_at(h, h->pc), loc, sizeof loc);
        n += (size_t)snprintf(msg + n, sizeof msg - n, "\n  %s\n    blocked: %s", loc, h->why);
    }
    sg_err(e, "deadlock", NULL, 0, "%s", msg);
}

/* Sends whose waiters did not all come: the counts of the program disagree. */
static int unconsumed(Sg2260Sim *s, Sg2260Error *e) {
    for (int c = 0; c < SG2260_MAX_CHIPS; c++)
        for (int id = 0; id < SG2260_MSG_IDS; id++) {
            MsgQ *q = &s->msgs[c][id];
            if (!q->n) continue;
            char loc[512];
            const MsgEntry *me = &q->e[0];
            where_desc(s, &s->ch[me->ch], me->index, loc, sizeof loc);
            return sg_err(e, "msg-unconsumed", NULL, 0,
                          "message id %d on chip %d: a send for %d waiter(s) was taken by %d when every engine had "
                          "ended (%d send(s) left)\n  send at %s",
                          id, c, me->waiters, me->waiters - me->remaining, q->n, loc);
        }
    return 0;
}

int sg2260_sim_run(Sg2260Sim *s, Sg2260Result *r) {
    memset(r, 0, sizeof *r);
    s->res = r;
    Sg2260Error *e = &r->err;
    int failed = 0;
    clock_t last = clock();
    for (;;) {
        /* Let every channel make all progress possible at this instant. */
        int progress = 1;
        while (progress && !failed) {
            progress = 0;
            for (int i = 0; i < NCH; i++) {
                if (s->ch[i].state != CH_READY) continue;
                int rc = step(s, &s->ch[i], e);
                if (rc < 0) {
                    failed = 1;
                    break;
                }
                if (rc > 0) progress = 1;
            }
        }
        if (failed) break;
        if (s->progress && clock() - last > CLOCKS_PER_SEC / 2) {
            last = clock();
            s->progress(s->progress_ctx, s->t, s->total_descs ? (double)s->commands / (double)s->total_descs : 1, 0);
        }
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
            } else if (unconsumed(s, e)) {
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
        for (int i = 0; i < s->nxf && !failed;) {
            Xfer *x = &s->xf[i];
            if (s->t >= x->stream_at && x->remaining <= 1e-9 * (x->bytes + 1)) failed = finish_xfer(s, i, e) != 0;
            else i++;
        }
        if (failed) break;
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
            trace(s, i, s->ch[i].block_since, s->t, TR_WAIT, desc_at(&s->ch[i], s->ch[i].pc), "wait (blocked at end)");
    s->end_time = s->t;
    /* the last report: where the run ended */
    if (s->progress)
        s->progress(s->progress_ctx, s->t, s->total_descs ? (double)s->commands / (double)s->total_descs : 1, 1);
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
    for (int c = 0; c < s->m.nchips; c++) {
        r->local_busy_us[c] = s->res_busy[2 * s->m.nlinks + c];
        r->local_bytes[c] = s->res_bytes[2 * s->m.nlinks + c];
    }
    return failed ? -1 : 0;
}

void sg2260_result_print(FILE *out, const Sg2260Sim *s, const Sg2260Result *r) {
    fprintf(out, "machine: %s, %d chips, %d links, link %.4g GB/s per direction, CDMA engine %.4g GB/s\n", s->m.name,
            s->m.nchips, s->m.nlinks, s->m.link_bw_GBps, s->m.cdma_bw_GBps);
    fprintf(out, "status: %s\n", r->ok ? "ok" : "failed");
    fprintf(out, "simulated time: %.6f us\n", r->time_us);
    fprintf(out, "commands: %llu, link bytes: %.0f\n", (unsigned long long)r->commands, r->bytes);
    fprintf(out, "%-14s %14s %12s %8s %8s\n", "link", "bytes", "busy_us", "busy%", "util%");
    for (int i = 0; i < r->nlinkstats; i++) {
        const Sg2260LinkStats *ls = &r->linkstats[i];
        if (ls->bytes == 0) continue;
        char name[32];
        snprintf(name, sizeof name, "%d->%d", ls->from, ls->to);
        if (sg2260_machine_links_between(&s->m, ls->from, ls->to, (int[2]){0, 0}, 2) > 1)
            snprintf(name, sizeof name, "%d->%d/%d", ls->from, ls->to, ls->link);
        fprintf(out, "%-14s %14.0f %12.6f %8.2f %8.2f\n", name, ls->bytes, ls->busy_us,
                r->time_us > 0 ? 100.0 * ls->busy_us / r->time_us : 0.0, 100.0 * ls->util);
    }
    for (int c = 0; c < s->m.nchips; c++) {
        if (r->local_bytes[c] == 0) continue;
        char name[32];
        snprintf(name, sizeof name, "chip %d local", c);
        fprintf(out, "%-14s %14.0f %12.6f %8.2f %8.2f\n", name, r->local_bytes[c], r->local_busy_us[c],
                r->time_us > 0 ? 100.0 * r->local_busy_us[c] / r->time_us : 0.0,
                r->time_us > 0 ? 100.0 * r->local_bytes[c] / (s->m.ddr_l2_GBps * 1e3 * r->time_us) : 0.0);
    }
}

/* ---- trace writers ----------------------------------------------------- */

/* JSON-escaped copy of s into buf. */
static const char *jesc(const char *s, char *buf, size_t cap) {
    size_t n = 0;
    for (; *s && n + 2 < cap; s++) {
        if (*s == '"' || *s == '\\') buf[n++] = '\\';
        buf[n++] = *s;
    }
    buf[n] = 0;
    return buf;
}

/* Track ids: engine channels at their index within the chip; link
 * directions and the local path on a "links" process after the chips. */
int sg2260_trace_write_json(const Sg2260Sim *s, FILE *out) {
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", out);
    const int links_pid = s->m.nchips;
    char label[64], esc[640];
    for (int c = 0; c < s->m.nchips; c++) {
        fprintf(out, "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"chip %d\"}}",
                c ? ",\n" : "", c, c);
        for (int k = 0; k < CH_PER_CHIP; k++) {
            const Channel *h = &s->ch[c * CH_PER_CHIP + k];
            if (h->state == CH_ABSENT) continue;
            chan_label(s, h, label, sizeof label);
            /* "chip 0 port 1 (->2) TX" is "port 1 (->2) TX" on chip 0's track */
            const char *name = strchr(strchr(label, ' ') + 1, ' ') + 1;
            fprintf(out, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"%s\"}}", c,
                    k, name);
        }
    }
    fprintf(out, ",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"links\"}}", links_pid);
    uint8_t used[2 * SG2260_MAX_LINKS + SG2260_MAX_CHIPS] = {0};
    for (int i = 0; i < s->nlk; i++) used[s->lk[i].res] = 1;
    for (int r = 0; r < s->nres; r++) {
        if (!used[r]) continue; /* a track per link direction or local path that carried data */
        if (r < 2 * s->m.nlinks) {
            const Sg2260Link *l = &s->m.links[r / 2];
            fprintf(out, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"link %d->%d (port %d)\"}}",
                    links_pid, r, r % 2 ? l->b : l->a, r % 2 ? l->a : l->b, r % 2 ? l->port_b : l->port_a);
        } else {
            fprintf(out, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"chip %d DDR<->L2\"}}",
                    links_pid, r, r - 2 * s->m.nlinks);
        }
    }
    static const char *const cat[] = {"cmd", "wait", "sync", "mark"};
    for (int i = 0; i < s->ntr; i++) {
        const TraceEv *e = &s->tr[i];
        const Channel *h = &s->ch[e->ch];
        char dis[320] = "";
        if (e->index >= 0 && e->index < h->prog->n) sg2260_disasm(&h->prog->descs[e->index], dis, sizeof dis);
        int tid = e->ch % CH_PER_CHIP;
        if (e->t1 > e->t0)
            fprintf(out, ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%.6f,\"dur\":%.6f,", e->name, cat[e->kind],
                    e->t0, e->t1 - e->t0);
        else
            fprintf(out, ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"i\",\"s\":\"t\",\"ts\":%.6f,", e->name,
                    cat[e->kind], e->t0);
        fprintf(out, "\"pid\":%d,\"tid\":%d,\"args\":{\"index\":%d,\"desc\":\"%s\"", h->chip, tid, e->index,
                jesc(dis, esc, sizeof esc));
        const Sg2260Note *nt = h->prog->notes && e->index >= 0 ? &h->prog->notes[e->index] : NULL;
        if (nt && nt->step) fprintf(out, ",\"step\":%d", nt->step);
        if (nt && nt->line) fprintf(out, ",\"line\":%d", nt->line);
        if (nt && nt->what) fprintf(out, ",\"what\":\"%s\"", jesc(nt->what, esc, sizeof esc));
        fputs("}}", out);
        if (e->flow)
            fprintf(out, ",\n{\"name\":\"data\",\"cat\":\"flow\",\"ph\":\"%s\",%s\"id\":%d,\"ts\":%.6f,\"pid\":%d,\"tid\":%d}",
                    e->flow_end ? "f" : "s", e->flow_end ? "\"bp\":\"e\"," : "", e->flow, e->t0, h->chip, tid);
    }
    for (int i = 0; i < s->nlk; i++) {
        const LinkEv *l = &s->lk[i];
        if (l->t1 <= l->t0) continue;
        const Channel *h = &s->ch[l->ch];
        chan_label(s, h, label, sizeof label);
        fprintf(out, ",\n{\"name\":\"%.0f B\",\"cat\":\"link\",\"ph\":\"X\",\"ts\":%.6f,\"dur\":%.6f,\"pid\":%d,\"tid\":%d,"
                     "\"args\":{\"by\":\"%s #%d\",\"GBps\":%.3f}}",
                l->bytes, l->t0, l->t1 - l->t0, links_pid, l->res, label, l->index, l->bytes / ((l->t1 - l->t0) * 1e3));
    }
    /* step markers: the first command of each schedule step (from notes) */
    int maxstep = 0;
    for (int i = 0; i < s->ntr; i++) {
        const Channel *h = &s->ch[s->tr[i].ch];
        if (s->tr[i].kind == TR_CMD && h->prog->notes && s->tr[i].index >= 0 &&
            h->prog->notes[s->tr[i].index].step > maxstep)
            maxstep = h->prog->notes[s->tr[i].index].step;
    }
    for (int st = 1; st <= maxstep; st++) {
        double t = INFINITY;
        for (int i = 0; i < s->ntr; i++) {
            const TraceEv *e = &s->tr[i];
            const Channel *h = &s->ch[e->ch];
            if (e->kind == TR_CMD && h->prog->notes && e->index >= 0 && h->prog->notes[e->index].step == st &&
                e->t0 < t)
                t = e->t0;
        }
        if (t < INFINITY)
            fprintf(out, ",\n{\"name\":\"step %d\",\"cat\":\"step\",\"ph\":\"i\",\"s\":\"g\",\"ts\":%.6f,\"pid\":0,\"tid\":0}",
                    st, t);
    }
    fputs("\n]}\n", out);
    return ferror(out) ? -1 : 0;
}

/* Colours of the SVG timeline, one per kind of bar (the legend lists them). */
#define SVG_KINDS(X)                                     \
    X(SEND, "#4a7fd4", "SEND / link transfer")           \
    X(WRITE, "#4caf50", "WRITE")                         \
    X(READ, "#ff9800", "READ")                           \
    X(GENERAL, "#00897b", "GENERAL (chip to chip)")      \
    X(LOCAL, "#888888", "COPY / REDUCE (GDMA, VSDMA)")   \
    X(SYNC, "#9b6fd1", "message wait (sync)")            \
    X(WAIT, "#f3c6c6", "blocked")

enum {
#define X(id, color, label) SVG_##id,
    SVG_KINDS(X)
#undef X
    SVG_NKINDS
};
static const char *const svg_color[] = {
#define X(id, color, label) color,
    SVG_KINDS(X)
#undef X
};
static const char *const svg_label[] = {
#define X(id, color, label) label,
    SVG_KINDS(X)
#undef X
};

/* s as SVG (XML) character data: & < > and " as entities. */
static void svg_puts(FILE *out, const char *s) {
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        default: putc(*s, out);
        }
    }
}

/* A "nice" axis step for a span of T: 1, 2 or 5 times a power of ten. */
static double axis_step(double T) {
    double raw = T / 8, p = pow(10, floor(log10(raw)));
    return raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
}

int sg2260_trace_write_svg(const Sg2260Sim *s, FILE *out) {
    int rows[NCH + 2 * SG2260_MAX_LINKS + SG2260_MAX_CHIPS], nrows = 0;
    int row_of[NCH];
    for (int i = 0; i < NCH; i++) {
        row_of[i] = -1;
        if (s->ch[i].state != CH_ABSENT) row_of[i] = nrows, rows[nrows++] = i;
    }
    int link_row[2 * SG2260_MAX_LINKS + SG2260_MAX_CHIPS];
    int nchrows = nrows;
    for (int r = 0; r < s->nres; r++) {
        link_row[r] = -1;
        for (int i = 0; i < s->nlk; i++)
            if (s->lk[i].res == r) {
                link_row[r] = nrows;
                rows[nrows++] = NCH + r;
                break;
            }
    }
    const double left = 200, width = 900, rowh = 18, top = 30;
    double T = s->end_time > 0 ? s->end_time : 1;
    double axis_y = top + nrows * rowh + 6, legend_y = axis_y + 36;
    double H = legend_y + 18 * ((SVG_NKINDS + 2) / 3) + 10;
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"monospace\" font-size=\"11\">\n",
            left + width + 30, H);
    fputs("<text x=\"4\" y=\"16\">", out);
    svg_puts(out, s->m.name);
    fprintf(out, ": %.3f us</text>\n", T);
    char label[64];
    for (int r = 0; r < nrows; r++) {
        double y = top + r * rowh;
        if (rows[r] < NCH) {
            chan_label(s, &s->ch[rows[r]], label, sizeof label);
        } else {
            int res = rows[r] - NCH;
            if (res < 2 * s->m.nlinks) {
                const Sg2260Link *l = &s->m.links[res / 2];
                snprintf(label, sizeof label, "link %d->%d", res % 2 ? l->b : l->a, res % 2 ? l->a : l->b);
            } else {
                snprintf(label, sizeof label, "chip %d DDR<->L2", res - 2 * s->m.nlinks);
            }
        }
        fprintf(out, "<text x=\"4\" y=\"%.1f\">", y + 12);
        svg_puts(out, label);
        fputs("</text>\n", out);
        fprintf(out, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"%s\"/>\n", left, y + rowh - 1,
                left + width, y + rowh - 1, r == nchrows ? "#999" : "#ddd");
    }
    for (int i = 0; i < s->ntr; i++) {
        const TraceEv *e = &s->tr[i];
        if (row_of[e->ch] < 0 || e->t1 <= e->t0) continue;
        const Channel *h = &s->ch[e->ch];
        const Sg2260Desc *d = &h->prog->descs[e->index];
        int kind = SVG_SEND;
        if (e->kind == TR_WAIT) kind = SVG_WAIT;
        else if (e->kind == TR_SYNC) kind = SVG_SYNC;
        else if (d->cmd == SG2260_CMD_WRITE) kind = SVG_WRITE;
        else if (d->cmd == SG2260_CMD_READ) kind = SVG_READ;
        else if (d->cmd == SG2260_CMD_GENERAL) kind = SVG_GENERAL;
        else if (d->cmd == SG2260_CMD_COPY || d->cmd == SG2260_CMD_REDUCE) kind = SVG_LOCAL;
        double x = left + width * e->t0 / T, w = width * (e->t1 - e->t0) / T;
        double y = top + row_of[e->ch] * rowh + (e->kind == TR_WAIT ? 6 : 2);
        fprintf(out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"><title>", x, y,
                w < 0.5 ? 0.5 : w, e->kind == TR_WAIT ? 4.0 : rowh - 5, svg_color[kind]);
        svg_puts(out, e->name);
        fprintf(out, " [%.3f, %.3f] us</title></rect>\n", e->t0, e->t1);
    }
    for (int i = 0; i < s->nlk; i++) {
        const LinkEv *l = &s->lk[i];
        if (link_row[l->res] < 0 || l->t1 <= l->t0) continue;
        double x = left + width * l->t0 / T, w = width * (l->t1 - l->t0) / T;
        double y = top + link_row[l->res] * rowh + 2;
        fprintf(out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\" fill-opacity=\"0.6\"><title>%.0f B [%.3f, %.3f] us</title></rect>\n",
                x, y, w < 0.5 ? 0.5 : w, rowh - 5, svg_color[l->res < 2 * s->m.nlinks ? SVG_SEND : SVG_LOCAL], l->bytes,
                l->t0, l->t1);
    }
    /* time axis with ticks at a round step */
    fprintf(out, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#000\"/>\n", left, axis_y, left + width,
            axis_y);
    double st = axis_step(T);
    for (double t = 0; t <= T * (1 + 1e-9); t += st) {
        double x = left + width * t / T;
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\"/>\n", x, axis_y, x, axis_y + 4);
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n", x, axis_y + 16, t);
    }
    fprintf(out, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">time (us)</text>\n", left - 6, axis_y + 16);
    for (int k = 0; k < SVG_NKINDS; k++) {
        double x = 4 + (k % 3) * 330, y = legend_y + (k / 3) * 18;
        fprintf(out, "<rect x=\"%.0f\" y=\"%.1f\" width=\"14\" height=\"11\" fill=\"%s\"/><text x=\"%.0f\" y=\"%.1f\">",
                x, y, svg_color[k], x + 20, y + 10);
        svg_puts(out, svg_label[k]);
        fputs("</text>\n", out);
    }
    fputs("</svg>\n", out);
    return ferror(out) ? -1 : 0;
}
