/* programs.c - SG2260 lowering, stage 6: the descriptor programs. Step by
 * step: the barriers (barriers.c); the GDMA's staging of the step's
 * reductions (copy each destination chunk into its L2 slot and tell the
 * receiving port, later wait for the landed reduction and copy the slot
 * back; a rank-local reduction is a copy in, a REDUCE and a copy out); every
 * link message as a SEND on the sender's port and a RECV on the receiver's
 * port (a routed hop waits for the arrival on the chip before it and
 * signals the next one), a "data landed" message after a NOP; the local copies as COPY on the VSDMA engines. SYS
 * END closes every program. Each descriptor carries a note: its step, the
 * source line of its transfer, the chip at the other end and the transfer
 * in the language's terms. */
#include "sg2260/lower_internal.h"
#include "support/util.h"

#include <stdlib.h>
#include <string.h>

/* d breaks no static rule of the engine; else reported at step si. */
static int check(Lowering *L, size_t si, const Sg2260Desc *d) {
    Sg2260Error err;
    if (sg2260_desc_check(d, &err) == 0) return 0;
    diag_error(L->dx, L->s->steps[si].span, err.code, "step %zu: %s", si + 1, err.msg);
    return 1;
}

/* The note of a descriptor of transfer xi in step si. */
static Sg2260Note note_of(Lowering *L, size_t si, size_t xi, int peer, const char *prefix) {
    Sg2260Note n = {.step = (int)si + 1, .peer = peer};
    const Span sp = L->s->xfers[xi].span;
    if (L->o->sources && span_valid(sp)) {
        unsigned line, col;
        source_line_col(L->o->sources, sp.file, sp.lo, &line, &col);
        n.line = (int)line;
        n.file = source_file_base(L->o->sources, sp.file);
    }
    const char *x = lowering_xfer_text(L, xi);
    n.what = prefix ? arena_printf(L->arena, "%s: %s", prefix, x) : x;
    return n;
}

static void view(Sg2260Shape *sh, uint64_t elems) {
    if (sg2260_shape_packed(elems, sh)) COLLC_UNREACHABLE("piece does not pack");
}

/* A GDMA copy between DDR and L2 (or DDR and DDR). */
static int gdma_copy(Lowering *L, Sg2260Bundle *b, size_t si, int chip, uint64_t src, uint64_t dst, uint64_t elems,
                     Sg2260Op op, const Sg2260Note *note) {
    Sg2260Desc d = {.cmd = op == SG2260_OP_NONE ? SG2260_CMD_COPY : SG2260_CMD_REDUCE, .dtype = L->o->dtype,
                    .op = op, .src = src, .dst = dst};
    view(&d.shape, elems);
    d.dshape = d.shape;
    if (check(L, si, &d)) return 1;
    sg2260_push(L, b, chip, SG2260_GDMA, 0, &d, note);
    return 0;
}

/* Staged item j of a chip's step: a link reduction (lm) or a local one (r). */
typedef struct Staged {
    const LMsg *lm;
    const LGen *r;
    uint64_t slot, bytes;
    int out_pending;
} Staged;

static int stage_out(Lowering *L, Sg2260Bundle *b, size_t si, int c, Staged *it) {
    Sg2260Note n = note_of(L, si, it->lm->xi, -1, "stage out");
    sg2260_push_msg(L, b, c, SG2260_CH_GDMA, 1, SG2260_MSG_REDUCED + (uint32_t)it->lm->rx_port, 1, &n);
    it->out_pending = 0;
    return gdma_copy(L, b, si, c, it->slot, it->lm->ddr_dst, it->lm->elems, SG2260_OP_NONE, &n);
}

/* The GDMA program of chip c in step si: staging in the order staging.c
 * gave out the slots; a slot is copied in only after its previous user was
 * copied out. */
static int gdma_step(Lowering *L, Sg2260Bundle *b, size_t si, int c) {
    const StepWork *w = &L->work[si];
    size_t n = 0;
    Staged *it = xmalloc((w->nmsgs + w->nreds + 1) * sizeof *it);
    for (size_t k = 0; k < w->nmsgs; k++)
        if (w->msgs[k].to == c && w->msgs[k].staged)
            it[n++] = (Staged){&w->msgs[k], NULL, w->msgs[k].dst, w->msgs[k].elems * L->es, 0};
    for (size_t k = 0; k < w->nreds; k++)
        if (w->reds[k].chip == c) it[n++] = (Staged){NULL, &w->reds[k], w->reds[k].slot, w->reds[k].elems * L->es, 0};
    int failed = 0;
    for (size_t j = 0; j < n && !failed; j++) {
        for (size_t i = 0; i < j && !failed; i++)
            if (it[i].out_pending && it[i].slot < it[j].slot + it[j].bytes && it[j].slot < it[i].slot + it[i].bytes)
                failed = stage_out(L, b, si, c, &it[i]);
        if (failed) break;
        if (it[j].lm) {
            Sg2260Note nt = note_of(L, si, it[j].lm->xi, -1, "stage in");
            failed = gdma_copy(L, b, si, c, it[j].lm->ddr_dst, it[j].slot, it[j].lm->elems, SG2260_OP_NONE, &nt);
            sg2260_push_msg(L, b, c, SG2260_CH_GDMA, 0, SG2260_MSG_STAGED + (uint32_t)it[j].lm->rx_port, 1, &nt);
            it[j].out_pending = 1;
        } else {
            const LGen *r = it[j].r;
            Sg2260Note nt = note_of(L, si, r->xi, -1, NULL);
            failed = gdma_copy(L, b, si, c, r->dst, r->slot, r->elems, SG2260_OP_NONE, &nt) ||
                     gdma_copy(L, b, si, c, r->src, r->slot, r->elems, r->op, &nt) ||
                     gdma_copy(L, b, si, c, r->slot, r->dst, r->elems, SG2260_OP_NONE, &nt);
        }
    }
    for (size_t j = 0; j < n && !failed; j++)
        if (it[j].out_pending) failed = stage_out(L, b, si, c, &it[j]);
    free(it);
    return failed;
}

/* An RX side's "data landed" message: the firmware fences a port's
 * messages with a NOP, which waits for the port's posted RECVs to land and
 * joins its two sides. On a port whose TX side also works in the step the
 * join would hold its SENDs until the RECVs landed (and the peer's SENDs
 * until its own), so there the NOP and the messages wait for the end of the
 * port's work in the step's hop (below); elsewhere each follows its RECV.
 * A step's messages go out hop by hop: the SENDs of hop h wait for the
 * messages of hop h-1, and the NOPs of hop h wait only for hop h's RECVs and
 * the SENDs before them, so no NOP waits for a later hop (a routed segment
 * is forwarded once every segment of its hop has landed on its port). */
typedef struct Landed {
    int chip, port;
    uint32_t id;
    Sg2260Note note;
} Landed;

typedef struct LandedList {
    Landed *v;
    size_t n, cap;
} LandedList;

/* 1 if chip's port sends in step w. */
static int port_sends(const StepWork *w, int chip, int port) {
    for (size_t k = 0; k < w->nmsgs; k++)
        if (w->msgs[k].from == chip && w->msgs[k].tx_port == port) return 1;
    return 0;
}

static void landed(Lowering *L, Sg2260Bundle *b, LandedList *ll, const StepWork *w, int chip, int port, uint32_t id,
                   const Sg2260Note *n) {
    if (!port_sends(w, chip, port)) {
        sg2260_push_nop(L, b, chip, port, n);
        sg2260_push_msg(L, b, chip, 2 * port + SG2260_RX, 0, id, 1, n);
        return;
    }
    if (ll->n == ll->cap) {
        ll->cap = ll->cap ? 2 * ll->cap : 16;
        ll->v = xrealloc(ll->v, ll->cap * sizeof *ll->v);
    }
    ll->v[ll->n++] = (Landed){chip, port, id, *n};
}

/* The deferred messages of the step: per port one NOP, then its messages. */
static void flush_landed(Lowering *L, Sg2260Bundle *b, LandedList *ll) {
    for (size_t i = 0; i < ll->n; i++) {
        int first = 1;
        for (size_t j = 0; j < i && first; j++) first = !(ll->v[j].chip == ll->v[i].chip && ll->v[j].port == ll->v[i].port);
        if (!first) continue;
        sg2260_push_nop(L, b, ll->v[i].chip, ll->v[i].port, &ll->v[i].note);
        for (size_t j = i; j < ll->n; j++)
            if (ll->v[j].chip == ll->v[i].chip && ll->v[j].port == ll->v[i].port)
                sg2260_push_msg(L, b, ll->v[j].chip, 2 * ll->v[j].port + SG2260_RX, 0, ll->v[j].id, 1, &ll->v[j].note);
    }
    ll->n = 0;
}

/* One hop: SEND on the sender's port, RECV on the receiver's port (into an
 * L2 slot when staged). */
static int message(Lowering *L, size_t si, const LMsg *lm, Sg2260Bundle *b, LandedList *ll) {
    Sg2260Note ntx = note_of(L, si, lm->xi, lm->to, NULL), nrx = note_of(L, si, lm->xi, lm->from, NULL);
    if (lm->hop > 0) {
        Sg2260Note nf = note_of(L, si, lm->xi, lm->to, "forward");
        sg2260_push_msg(L, b, lm->from, 2 * lm->tx_port + SG2260_TX, 1,
                        SG2260_MSG_FWD + 11 * (uint32_t)lm->in_port + (uint32_t)lm->tx_port, 1, &nf);
    }
    Sg2260Desc d;
    memset(&d, 0, sizeof d);
    d.cmd = SG2260_CMD_SEND;
    d.dtype = L->o->dtype;
    d.psum = lm->op != SG2260_OP_NONE ? SG2260_PSUM_WR : SG2260_PSUM_WO;
    d.src = lm->src;
    view(&d.shape, lm->elems);
    if (check(L, si, &d)) return 1;
    sg2260_push(L, b, lm->from, SG2260_CDMA, lm->tx_port, &d, &ntx);
    int rxch = 2 * lm->rx_port + SG2260_RX;
    if (lm->staged) sg2260_push_msg(L, b, lm->to, rxch, 1, SG2260_MSG_STAGED + (uint32_t)lm->rx_port, 1, &nrx);
    d.cmd = SG2260_CMD_RECV;
    d.psum = SG2260_PSUM_WO;
    d.src = 0;
    d.dst = lm->dst;
    d.op = lm->op;
    if (check(L, si, &d)) return 1;
    sg2260_push(L, b, lm->to, SG2260_CDMA, lm->rx_port, &d, &nrx);
    const StepWork *w = &L->work[si];
    if (lm->staged) landed(L, b, ll, w, lm->to, lm->rx_port, SG2260_MSG_REDUCED + (uint32_t)lm->rx_port, &nrx);
    if (lm->out_port >= 0) {
        Sg2260Note nf = note_of(L, si, lm->xi, lm->from, "forward");
        landed(L, b, ll, w, lm->to, lm->rx_port, SG2260_MSG_FWD + 11 * (uint32_t)lm->rx_port + (uint32_t)lm->out_port,
               &nf);
    }
    return 0;
}

/* One local copy: COPY on the chip's VSDMA g->core. */
static int copy(Lowering *L, size_t si, const LGen *g, Sg2260Bundle *b) {
    Sg2260Desc d;
    memset(&d, 0, sizeof d);
    d.cmd = SG2260_CMD_COPY;
    d.dtype = L->o->dtype;
    d.src = g->src;
    d.dst = g->dst;
    view(&d.shape, g->elems);
    d.dshape = d.shape;
    if (check(L, si, &d)) return 1;
    Sg2260Note n = note_of(L, si, g->xi, -1, NULL);
    sg2260_push(L, b, g->chip, SG2260_VSDMA, g->core, &d, &n);
    return 0;
}

int sg2260_write_programs(Lowering *L, Sg2260Bundle *b) {
    BarrierState bs;
    memset(&bs, 0, sizeof bs);
    LandedList ll = {0};
    int failed = 0;
    for (size_t si = 0; si < L->s->nsteps && !failed; si++) {
        const StepWork *w = &L->work[si];
        sg2260_step_barriers(L, &bs, si, b);
        for (int c = 0; c < L->m->nchips && !failed; c++) failed = gdma_step(L, b, si, c);
        int hops = 0;
        for (size_t k = 0; k < w->nmsgs; k++)
            if (w->msgs[k].hop >= hops) hops = w->msgs[k].hop + 1;
        for (int h = 0; h < hops && !failed; h++) {
            for (size_t k = 0; k < w->nmsgs && !failed; k++)
                if (w->msgs[k].hop == h) failed = message(L, si, &w->msgs[k], b, &ll);
            flush_landed(L, b, &ll);
        }
        for (size_t k = 0; k < w->ngens && !failed; k++) failed = copy(L, si, &w->gens[k], b);
    }
    free(ll.v);
    if (failed) return 1;
    Sg2260Desc end = {.cmd = SG2260_CMD_SYS, .sys = SG2260_SYS_END};
    for (int c = 0; c < L->m->nchips; c++)
        for (int k = 0; k < SG2260_CHANNELS; k++) {
            if (!bs.used[c][k]) continue;
            if (k < SG2260_CH_GDMA) { /* one END per port program, for both sides */
                if (k % 2 == SG2260_RX && bs.used[c][k - 1]) continue;
                sg2260_push(L, b, c, SG2260_CDMA, k / 2, &end, NULL);
                L->st->cdma_programs++;
            } else if (k == SG2260_CH_GDMA) {
                sg2260_push(L, b, c, SG2260_GDMA, 0, &end, NULL);
                L->st->gdma_programs++;
            } else {
                sg2260_push(L, b, c, SG2260_VSDMA, k - SG2260_CH_VSDMA0, &end, NULL);
                L->st->vsdma_programs++;
            }
        }
    L->st->programs = b->nslots;
    return 0;
}
