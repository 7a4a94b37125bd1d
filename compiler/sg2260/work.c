/* work.c - what the stages of the SG2260 lowering share: the growing work
 * lists of a step, link times, a transfer's text and note for diagnostics,
 * and appending a descriptor (or a barrier message) to a chip's program. */
#include "sg2260/lower_internal.h"
#include "support/util.h"

#include <stdlib.h>
#include <string.h>

void lmsg_add(StepWork *w, const LMsg *m) {
    if (w->nmsgs == w->capmsgs) {
        w->capmsgs = w->capmsgs ? 2 * w->capmsgs : 16;
        w->msgs = xrealloc(w->msgs, w->capmsgs * sizeof *w->msgs);
    }
    w->msgs[w->nmsgs++] = *m;
}

void lgen_add(LGen **v, size_t *n, size_t *cap, const LGen *g) {
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 16;
        *v = xrealloc(*v, *cap * sizeof **v);
    }
    (*v)[(*n)++] = *g;
}

double link_time(const Lowering *L, uint64_t elems, int l) {
    return (double)(elems * L->es) / (sg2260_machine_link_rate(L->m, l) * 1e3);
}

double step_link_time(const Lowering *L, const StepWork *w) {
    double t = 0;
    for (size_t k = 0; k < w->nmsgs; k++) {
        double cur = 0;
        for (size_t j = 0; j < w->nmsgs; j++)
            if (w->msgs[j].link == w->msgs[k].link && w->msgs[j].from == w->msgs[k].from)
                cur += link_time(L, w->msgs[j].elems, w->msgs[j].link);
        if (cur > t) t = cur;
    }
    return t;
}

void lowering_xfer_note(const Lowering *L, size_t xi) {
    const char *d = schedule_describe_transfer(L->s, xi, L->arena);
    if (d && *d) diag_note(L->dx, L->s->xfers[xi].span, "with %s", d);
}

/* "buf[rank][lo]" or "buf[rank][lo .. hi]" */
static const char *slot_text(Lowering *L, const SlotRange *r) {
    const char *name = L->s->alg->buffers[r->buffer].name;
    if (r->hi - r->lo == 1) return arena_printf(L->arena, "%s[%d][%d]", name, (int)r->rank, (int)r->lo);
    return arena_printf(L->arena, "%s[%d][%d .. %d]", name, (int)r->rank, (int)r->lo, (int)r->hi);
}

const char *lowering_xfer_text(Lowering *L, size_t xi) {
    if (!L->xtext[xi]) {
        const Transfer *t = &L->s->xfers[xi];
        L->xtext[xi] = arena_printf(L->arena, "%s %s -> %s", t->op == XFER_REDUCE ? "reduce" : "copy",
                                    slot_text(L, &t->src), slot_text(L, &t->dst));
    }
    return L->xtext[xi];
}

void sg2260_push(Lowering *L, Sg2260Bundle *b, int chip, Sg2260Engine e, int index, const Sg2260Desc *d,
                 const Sg2260Note *note) {
    /* bundle_slot may move other programs: never keep the pointer */
    Sg2260ProgramSlot *sl = sg2260_bundle_slot(b, chip, e, index);
    sg2260_program_push(&sl->prog, d);
    if (e == SG2260_CDMA && d->cmd == SG2260_CMD_RECV) L->unfenced[chip][index] = 1;
    sl->notes = xrealloc(sl->notes, (size_t)sl->prog.cap * sizeof *sl->notes);
    sl->notes[sl->prog.ndescs - 1] = note ? *note : (Sg2260Note){.peer = -1};
    L->st->descs++;
}

void sg2260_push_msg(Lowering *L, Sg2260Bundle *b, int chip, int ch, int wait, uint32_t id, uint32_t count,
                     const Sg2260Note *note) {
    Sg2260Desc d = {.cmd = SG2260_CMD_SYS, .msg_id = id, .count = count};
    if (ch < SG2260_CH_GDMA) {
        int rx = ch % 2 == SG2260_RX;
        d.sys = wait ? (rx ? SG2260_SYS_RX_WAIT_MSG : SG2260_SYS_TX_WAIT_MSG)
                     : (rx ? SG2260_SYS_RX_SEND_MSG : SG2260_SYS_TX_SEND_MSG);
        sg2260_push(L, b, chip, SG2260_CDMA, ch / 2, &d, note);
    } else {
        d.sys = wait ? SG2260_SYS_WAIT_MSG : SG2260_SYS_SEND_MSG;
        if (ch == SG2260_CH_GDMA) sg2260_push(L, b, chip, SG2260_GDMA, 0, &d, note);
        else sg2260_push(L, b, chip, SG2260_VSDMA, ch - SG2260_CH_VSDMA0, &d, note);
    }
}

void sg2260_push_nop(Lowering *L, Sg2260Bundle *b, int chip, int port, const Sg2260Note *note) {
    if (!L->unfenced[chip][port]) return;
    L->unfenced[chip][port] = 0;
    Sg2260Desc d = {.cmd = SG2260_CMD_SYS, .sys = SG2260_SYS_NOP};
    sg2260_push(L, b, chip, SG2260_CDMA, port, &d, note);
}
