/* programs.c - SG2260 lowering, stage 5: the descriptor programs. Step by
 * step: the barriers (barriers.c), then every link message as a SEND on
 * the sender's TX and a RECV on the receiver's RX (a routed hop waits for
 * the arrival on the chip before it and signals the next one), then the
 * local copies as GENERALs; SYS END closes every channel that worked. */
#include "sg2260/lower_internal.h"
#include "support/util.h"

#include <string.h>

void sg2260_push(Lowering *L, Sg2260Bundle *b, int chip, int port, Sg2260Chan ch, const Sg2260Desc *d) {
    /* bundle_program may move other programs: never keep the pointer */
    sg2260_program_push(sg2260_bundle_program(b, chip, port, ch), d);
    L->st->descs++;
}

void sg2260_push_sys(Lowering *L, Sg2260Bundle *b, int chip, int port, Sg2260Chan ch, Sg2260Sys sys,
                     uint32_t id, uint32_t count) {
    Sg2260Desc d = {.cmd = SG2260_CMD_SYS, .sys = sys, .msg_id = id, .count = count};
    sg2260_push(L, b, chip, port, ch, &d);
}

/* d breaks no static rule of the engine; else reported at step si. */
static int check(Lowering *L, size_t si, const Sg2260Desc *d) {
    Sg2260Error err;
    if (sg2260_desc_check(d, &err) == 0) return 0;
    diag_error(L->dx, L->s->steps[si].span, err.code, "step %zu: %s", si + 1, err.msg);
    return 1;
}

/* One hop: SEND on the sender's port, RECV on the receiver's. */
static int message(Lowering *L, size_t si, const LMsg *lm, Sg2260Bundle *b) {
    const Sg2260Machine *m = L->m;
    int ptx = sg2260_machine_port_to(m, lm->from, lm->to), prx = sg2260_machine_port_to(m, lm->to, lm->from);
    if (lm->hop > 0)
        sg2260_push_sys(L, b, lm->from, ptx, SG2260_TX, SG2260_SYS_TX_WAIT_MSG,
                        SG2260_FWD_MSG_BASE + 8 * (uint32_t)lm->in_port + (uint32_t)ptx, 1);
    Sg2260Desc d;
    memset(&d, 0, sizeof d);
    d.cmd = SG2260_CMD_SEND;
    d.dtype = L->o->dtype;
    d.psum = lm->op != SG2260_OP_NONE ? SG2260_PSUM_WR : SG2260_PSUM_WO;
    d.src = lm->src;
    if (sg2260_shape_packed(lm->elems, &d.shape)) COLLC_UNREACHABLE("piece does not pack");
    if (check(L, si, &d)) return 1;
    sg2260_push(L, b, lm->from, ptx, SG2260_TX, &d);
    d.cmd = SG2260_CMD_RECV;
    d.psum = SG2260_PSUM_WO;
    d.src = 0;
    d.dst = lm->dst;
    d.op = lm->op;
    if (check(L, si, &d)) return 1;
    sg2260_push(L, b, lm->to, prx, SG2260_RX, &d);
    if (lm->out_port >= 0)
        sg2260_push_sys(L, b, lm->to, prx, SG2260_RX, SG2260_SYS_RX_SEND_MSG,
                        SG2260_FWD_MSG_BASE + 8 * (uint32_t)prx + (uint32_t)lm->out_port, 0);
    return 0;
}

/* One local copy: GENERAL on the chip's TX channel of g->port. */
static int general(Lowering *L, size_t si, const LGen *g, Sg2260Bundle *b) {
    Sg2260Desc d;
    memset(&d, 0, sizeof d);
    d.cmd = SG2260_CMD_GENERAL;
    d.dtype = L->o->dtype;
    d.op = g->op;
    d.src = g->src;
    d.dst = g->dst;
    d.src_chip = d.dst_chip = g->chip;
    if (sg2260_shape_packed(g->elems, &d.shape)) COLLC_UNREACHABLE("piece does not pack");
    d.dshape = d.shape;
    if (check(L, si, &d)) return 1;
    sg2260_push(L, b, g->chip, g->port, SG2260_TX, &d);
    return 0;
}

int sg2260_write_programs(Lowering *L, Sg2260Bundle *b) {
    BarrierState bs;
    memset(&bs, 0, sizeof bs);
    for (size_t si = 0; si < L->s->nsteps; si++) {
        const StepWork *w = &L->work[si];
        sg2260_step_barriers(L, &bs, si, b);
        for (size_t k = 0; k < w->nmsgs; k++)
            if (message(L, si, &w->msgs[k], b)) return 1;
        for (size_t k = 0; k < w->ngens; k++)
            if (general(L, si, &w->gens[k], b)) return 1;
    }
    for (int c = 0; c < L->m->nchips; c++)
        for (int k = 0; k < SG2260_CHANNELS; k++)
            if (bs.used[c][k]) sg2260_push_sys(L, b, c, k / 2, (Sg2260Chan)(k % 2), SG2260_SYS_END, 0, 0);
    L->st->channels = b->nslots;
    return 0;
}
