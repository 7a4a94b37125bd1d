/* engine.c - functional + timing model of the SG2260 DMA engines: the
 * execution of the commands and the event loop (engine_state.h lists the
 * other files of the model).
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine_state.h"

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
            sg_where_desc(s, &s->ch[q->e[k].ch], q->e[k].index, other, sizeof other);
            return sg_run_err(s, e, h, "msg-reuse",
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

/* The checks of a SEND against the credit it takes: 0, or -1 (reported)
 * when the two do not agree. */
static int credit_mismatch(Sg2260Sim *s, Channel *h, const Sg2260Desc *d, const Credit *cr, Sg2260Error *e) {
    Credit c = *cr;
    char rloc[512];
    sg_where_desc(s, &s->ch[c.rx], c.rx_index, rloc, sizeof rloc);
    /* The credit has no dtype field: the hardware streams the SEND's
     * bytes into the RECV's view as the RECV's dtype. A difference is
     * almost surely a mistake, so it is a warning; the sizes must agree
     * in bytes. */
    if (sg2260_dtype_size(c.dtype) != sg2260_dtype_size(d->dtype))
        return sg_run_err(s, e, h, "dtype-mismatch",
                          "SEND dtype %s but the matching RECV has %s, of another element size (the model cannot "
                          "land one as the other)\n  RECV at %s",
                          sg2260_dtype_name(d->dtype), sg2260_dtype_name(c.dtype), rloc);
    if (c.dtype != d->dtype)
        sg_run_warn(s, h, "dtype-mismatch",
                    "SEND dtype %s but the matching RECV has %s (the credit carries no dtype: the bytes land as "
                    "%s)\n  RECV at %s",
                    sg2260_dtype_name(d->dtype), sg2260_dtype_name(c.dtype), sg2260_dtype_name(c.dtype), rloc);
    if (sg2260_shape_elems(&c.shape) * sg2260_dtype_size(c.dtype) !=
        sg2260_shape_elems(&d->shape) * sg2260_dtype_size(d->dtype))
        return sg_run_err(s, e, h, "size-mismatch",
                          "SEND of %llu bytes but the matching RECV expects %llu bytes\n  RECV at %s",
                          (unsigned long long)(sg2260_shape_elems(&d->shape) * sg2260_dtype_size(d->dtype)),
                          (unsigned long long)(sg2260_shape_elems(&c.shape) * sg2260_dtype_size(c.dtype)), rloc);
    if ((d->psum == SG2260_PSUM_WR) != (c.op != SG2260_OP_NONE))
        return sg_run_err(s, e, h, "psum-mismatch",
                          "SEND psum=%s but the matching RECV has op=%s (wr needs a reduce op, wo needs none)\n  "
                          "RECV at %s",
                          d->psum == SG2260_PSUM_WR ? "wr" : "wo", sg2260_op_name(c.op), rloc);
    return 0;
}

/* SEND: takes the oldest credit the other end posted and streams into it. */
static int step_send(Sg2260Sim *s, Channel *h, const Sg2260Desc *d, Sg2260Error *e) {
    double cdma_cap = s->m.cdma_bw_GBps * 1e3;
    int peer = sg2260_machine_port_peer(&s->m, h->chip, h->index);
    CreditQ *q = &s->credits[h->chip * SG2260_MAX_PORTS + h->index];
    if (q->count == 0) {
        block(s, h, "waiting for a RECV credit from chip %d", peer);
        return 0;
    }
    Credit c = q->q[q->head];
    q->head = (q->head + 1) % MAX_CREDITS;
    q->count--;
    if (credit_mismatch(s, h, d, &c, e)) return -1;
    if (sg_check_view(s, e, h, "source", h->chip, d->src, &d->shape, d->dtype) ||
        sg_check_view(s, e, h, "destination", peer, c.dst, &c.shape, c.dtype))
        return -1;
    unblock(s, h);
    Xfer *x = new_xfer(s);
    x->res = link_res(s, h->chip, h->index, 1);
    x->src_chip = h->chip, x->dst_chip = peer;
    x->src = d->src, x->dst = c.dst;
    x->sshape = d->shape, x->dshape = c.shape;
    x->dtype = c.dtype, x->op = c.op;
    x->credit_rx = c.rx, x->credit_index = c.rx_index;
    if (sg_check_race(s, e, h, x)) return -1;
    start_xfer(s, h, x, s->m.startup_us, cdma_cap);
    return 1;
}

/* RECV: posts a credit at the sending port of the other end and retires. */
static int step_recv(Sg2260Sim *s, Channel *h, const Sg2260Desc *d) {
    int peer = sg2260_machine_port_peer(&s->m, h->chip, h->index);
    int ci = (int)(h - s->ch);
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

/* WRITE, READ, GENERAL over a link; COPY, REDUCE on the chip's local path. */
static int step_data(Sg2260Sim *s, Channel *h, const Sg2260Desc *d, Sg2260Error *e) {
    double cdma_cap = s->m.cdma_bw_GBps * 1e3;
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
    if ((!x->fill && sg_check_view(s, e, h, "source", x->src_chip, x->src, &x->sshape, x->dtype)) ||
        sg_check_view(s, e, h, "destination", x->dst_chip, x->dst, &x->dshape, x->dtype)) {
        s->nxf--;
        return -1;
    }
    unblock(s, h);
    if (local) x->res = 2 * s->m.nlinks + h->chip;
    else x->res = link_res(s, h->chip, h->index, x->src_chip == h->chip);
    if (sg_check_race(s, e, h, x)) return -1;
    start_xfer(s, h, x, local ? 0 : s->m.startup_us, local ? INFINITY : cdma_cap);
    return 1;
}

/* The warnings of a message descriptor, once per descriptor (not per
 * retry while it waits). */
static void msg_warnings(Sg2260Sim *s, Channel *h, const Sg2260Desc *d) {
    if (!sg_desc_is_msg(d) || h->checked == h->pc + 1) return;
    uint32_t id = chip_msg_id(h, d);
    h->checked = h->pc + 1;
    if (id >= SG2260_MSG_RESERVED)
        sg_run_warn(s, h, "msg-reserved",
                    "message id %u on chip %d is in %d-%d, the ids the runtime keeps for its barriers between "
                    "tasks",
                    id, h->chip, SG2260_MSG_RESERVED, SG2260_MSG_IDS - 1);
    else if (d->sys == SG2260_SYS_RX_SEND_MSG && h->outstanding > 0)
        sg_run_warn(s, h, "msg-before-landed",
                    "RX_SEND_MSG with %d posted RECV credit(s) not landed: the message does not wait for their "
                    "data (a NOP before it does)",
                    h->outstanding);
}

/* NOP and TRWR: on a CDMA port both sides meet there before either goes on. */
static int step_join(Sg2260Sim *s, Channel *h, const Sg2260Desc *d) {
    if (h->engine == SG2260_CDMA) {
        Channel *other = &s->ch[chan_index(h->chip, SG2260_CDMA, h->index, 1 - h->side)];
        if (!h->at_join) {
            h->at_join = 1;
            h->joins++;
        }
        if (other->joins < h->joins) {
            block(s, h, "waiting for the %s channel of this port to reach %s %d", sg_side_name(1 - h->side),
                  d->sys == SG2260_SYS_NOP ? "NOP" : "TRWR", h->joins);
            return 0;
        }
        h->at_join = 0;
    }
    unblock(s, h);
    if (d->sys == SG2260_SYS_TRWR && h->side == SG2260_TX) s->trwr[h - s->ch] = d->imm;
    if (h->side == SG2260_TX || h->engine != SG2260_CDMA) s->commands++;
    h->pc++;
    return 1;
}

/* A SYS command: END, a join, a message send or wait. */
static int step_sys(Sg2260Sim *s, Channel *h, const Sg2260Desc *d, Sg2260Error *e) {
    int ci = (int)(h - s->ch);
    /* the fence: an RX side's END, NOP and TRWR wait for its posted
     * credits to land (the firmware brackets a port's messages with a NOP) */
    int fence = h->side == SG2260_RX && h->engine == SG2260_CDMA &&
                (d->sys == SG2260_SYS_END || d->sys == SG2260_SYS_NOP || d->sys == SG2260_SYS_TRWR);
    if (fence && h->outstanding > 0) {
        block(s, h, "waiting for %d posted RECV credit(s) to be filled", h->outstanding);
        return 0;
    }
    msg_warnings(s, h, d);
    switch (d->sys) {
    case SG2260_SYS_END:
        unblock(s, h);
        h->state = CH_DONE;
        if (h->side == SG2260_TX || h->engine != SG2260_CDMA) s->commands++;
        return 1;
    case SG2260_SYS_NOP:
    case SG2260_SYS_TRWR: return step_join(s, h, d);
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
    return sg_run_err(s, e, h, "bad-sys", "unknown SYS subtype");
}

/* Tries the channel's current command at time s->t. Returns 1 on progress,
 * 0 if blocked or busy, -1 on a rule violation (e filled). */
static int step(Sg2260Sim *s, Channel *h, Sg2260Error *e) {
    if (h->state != CH_READY) return 0;
    const Sg2260Desc *d = &h->prog->descs[h->order[h->pc]];
    switch (d->cmd) {
    case SG2260_CMD_SEND: return step_send(s, h, d, e);
    case SG2260_CMD_RECV: return step_recv(s, h, d);
    case SG2260_CMD_WRITE:
    case SG2260_CMD_READ:
    case SG2260_CMD_GENERAL:
    case SG2260_CMD_COPY:
    case SG2260_CMD_REDUCE: return step_data(s, h, d, e);
    case SG2260_CMD_SYS: return step_sys(s, h, d, e);
    default: return sg_run_err(s, e, h, "unsupported-cmd", "command not modelled");
    }
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
    if (sg_apply_xfer(s, &x, e)) return -1;
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
        sg_where_desc(s, h, desc_at(h, h->pc), loc, sizeof loc);
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
            sg_where_desc(s, &s->ch[me->ch], me->index, loc, sizeof loc);
            return sg_err(e, "msg-unconsumed", NULL, 0,
                          "message id %d on chip %d: a send for %d waiter(s) was taken by %d when every engine had "
                          "ended (%d send(s) left)\n  send at %s",
                          id, c, me->waiters, me->waiters - me->remaining, q->n, loc);
        }
    return 0;
}

/* Lets every channel make all progress possible at this instant; -1 when
 * a command broke a rule (e filled). */
static int run_instant(Sg2260Sim *s, Sg2260Error *e) {
    int progress = 1;
    while (progress) {
        progress = 0;
        for (int i = 0; i < NCH; i++) {
            if (s->ch[i].state != CH_READY) continue;
            int rc = step(s, &s->ch[i], e);
            if (rc < 0) return -1;
            if (rc > 0) progress = 1;
        }
    }
    return 0;
}

/* The time of the next event: a transfer starting to stream or ending, a
 * timed wait ending; INFINITY when none is pending. */
static double next_event(const Sg2260Sim *s) {
    double next = INFINITY;
    for (int i = 0; i < s->nxf; i++) {
        const Xfer *x = &s->xf[i];
        double t = s->t < x->stream_at ? x->stream_at : s->t + x->remaining / x->rate;
        if (t < next) next = t;
    }
    for (int i = 0; i < NCH; i++)
        if (s->ch[i].state == CH_BUSY && s->ch[i].timed && s->ch[i].busy_until < next) next = s->ch[i].busy_until;
    return next;
}

/* Streams every transfer up to time next and counts the resources busy. */
static void advance(Sg2260Sim *s, double next) {
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
}

/* Retires the transfers and timed waits that end at s->t (relative slack
 * for rounding); -1 when a transfer's data cannot be applied. */
static int retire(Sg2260Sim *s, Sg2260Error *e) {
    for (int i = 0; i < s->nxf;) {
        Xfer *x = &s->xf[i];
        if (s->t >= x->stream_at && x->remaining <= 1e-9 * (x->bytes + 1)) {
            if (finish_xfer(s, i, e)) return -1;
        } else {
            i++;
        }
    }
    for (int i = 0; i < NCH; i++) {
        Channel *h = &s->ch[i];
        if (h->state == CH_BUSY && h->timed && h->busy_until <= s->t) {
            h->state = CH_READY;
            h->timed = 0;
            h->pc++;
        }
    }
    return 0;
}

/* The run's totals and the per-link and per-chip statistics into r. */
static void fill_result(const Sg2260Sim *s, Sg2260Result *r, int failed) {
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
}

int sg2260_sim_run(Sg2260Sim *s, Sg2260Result *r) {
    memset(r, 0, sizeof *r);
    s->res = r;
    Sg2260Error *e = &r->err;
    int failed = 0;
    clock_t last = clock();
    for (;;) {
        if (run_instant(s, e)) {
            failed = 1;
            break;
        }
        if (s->progress && clock() - last > CLOCKS_PER_SEC / 2) {
            last = clock();
            s->progress(s->progress_ctx, s->t, s->total_descs ? (double)s->commands / (double)s->total_descs : 1, 0);
        }
        set_rates(s);
        double next = next_event(s);
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
        advance(s, next);
        if (retire(s, e)) {
            failed = 1;
            break;
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
    fill_result(s, r, failed);
    return failed ? -1 : 0;
}
