/* engine_load.c - the SG2260 model's simulator object: creation, settings,
 * and loading a bundle (its data into memory, each program checked against
 * the machine and split over the engine's channels). */
#include <string.h>

#include "engine_state.h"

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
    for (int c = 0; c < SG2260_MAX_CHIPS; c++) sg_chipmem_free(s->mem[c][0]), sg_chipmem_free(s->mem[c][1]);
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

int sg_desc_is_msg(const Sg2260Desc *d) {
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
            rc = sg_run_err(s, err, &tmp, e1.code, "%s", e1.msg);
            break;
        }
        if (!sg2260_cmd_on_engine(d, sl->engine)) {
            rc = sg_run_err(s, err, &tmp, "wrong-engine", "%s%s%s cannot run on a %s", sg2260_cmd_name(d->cmd),
                            d->cmd == SG2260_CMD_SYS ? " " : "", d->cmd == SG2260_CMD_SYS ? sg2260_sys_name(d->sys) : "",
                            sg2260_engine_name(sl->engine));
            break;
        }
        if (sg_desc_is_msg(d) && (uint32_t)p->msg_base + d->msg_id >= SG2260_MSG_IDS) {
            rc = sg_run_err(s, err, &tmp, "msg-range",
                            "message id %u on an engine with base id %d is chip id %u, past the last id %d",
                            d->msg_id, p->msg_base, (uint32_t)p->msg_base + d->msg_id, SG2260_MSG_IDS - 1);
            break;
        }
        if (d->cmd == SG2260_CMD_SYS && d->sys == SG2260_SYS_END && tmp.pc != p->n - 1) {
            rc = sg_run_err(s, err, &tmp, "after-end", "descriptors follow SYS END");
            break;
        }
        if ((d->cmd == SG2260_CMD_WRITE || d->cmd == SG2260_CMD_READ) && d->op != SG2260_OP_NONE && !m->write_reduce) {
            rc = sg_run_err(s, err, &tmp, "bad-op",
                            "%s cannot reduce on machine '%s': SG2260's %s has no reduce field (write_reduce = 1 "
                            "models later chips)",
                            sg2260_cmd_name(d->cmd), m->name, sg2260_cmd_name(d->cmd));
            break;
        }
        if (d->cmd == SG2260_CMD_RECV && d->op != SG2260_OP_NONE && SG2260_ADDR_TAG(d->dst) != SG2260_TAG_L2 &&
            !m->reduce_to_ddr) {
            rc = sg_run_err(s, err, &tmp, "reduce-l2",
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
            rc = sg_run_err(s, err, &tmp, "chip-mismatch", "%s on this port must go from chip %d to chip %d%s, not %d to %d",
                            sg2260_cmd_name(d->cmd), sc, dc, alt_sc >= 0 ? " (or back)" : "", d->src_chip, d->dst_chip);
            break;
        }
    }
    if (!rc && (p->n == 0 || !(p->descs[p->n - 1].cmd == SG2260_CMD_SYS && p->descs[p->n - 1].sys == SG2260_SYS_END))) {
        char label[64];
        tmp.side = 0;
        sg_chan_label(s, &tmp, label, sizeof label);
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
