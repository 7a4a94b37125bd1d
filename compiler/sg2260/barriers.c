/* barriers.c - SG2260 lowering, stage 5: the order between steps on each
 * chip.
 *
 * An engine side is one of: the TX or the RX side of a CDMA port, the GDMA,
 * a VSDMA. Between two consecutive steps p < s in which chip c works, a
 * barrier: every side of c that worked in p sends a message (for one
 * waiter) to every other side that works in s, which waits for all of them;
 * a port whose RX side sends first runs a NOP, the firmware's fence that
 * waits for the side's posted RECVs to land.
 * By induction each side's step-s work then follows all of c's work in
 * earlier steps (a waiter waits for the sides of p, which waited for those
 * before them).
 *
 * Every waiter has its own inbox, message ids 2k and 2k+1 for side k,
 * alternating between the chip's barriers. A shared id would not do: a side
 * idle in the steps between two barriers reaches its wait early and would
 * take the sends another waiter of an earlier barrier has not taken yet. In
 * its own inbox a waiter takes exactly the sends addressed to it, in order;
 * and a send for the barrier after the next one comes from a side that
 * worked in the step between them, so it passed the next barrier's wait,
 * which needed this waiter's own send, made after this waiter passed this
 * barrier: a wait never counts a later barrier's send. One side working in
 * both steps needs no barrier: its own order suffices. */
#include "sg2260/lower_internal.h"

#include <string.h>

void sg2260_step_channels(const Lowering *L, const StepWork *w, uint8_t act[][SG2260_CHANNELS], uint8_t *active) {
    for (size_t k = 0; k < w->nmsgs; k++) {
        const LMsg *lm = &w->msgs[k];
        act[lm->from][2 * lm->tx_port + SG2260_TX] = 1;
        act[lm->to][2 * lm->rx_port + SG2260_RX] = 1;
        if (lm->staged) act[lm->to][SG2260_CH_GDMA] = 1;
        active[lm->from] = active[lm->to] = 1;
    }
    for (size_t k = 0; k < w->ngens; k++) {
        act[w->gens[k].chip][SG2260_CH_VSDMA0 + w->gens[k].core] = 1;
        active[w->gens[k].chip] = 1;
    }
    for (size_t k = 0; k < w->nreds; k++) {
        act[w->reds[k].chip][SG2260_CH_GDMA] = 1;
        active[w->reds[k].chip] = 1;
    }
    (void)L;
}

/* Chip c's barrier between the sides prev (its last step) and act. */
static void chip_barrier(Lowering *L, BarrierState *bs, int c, const uint8_t *act, size_t si, Sg2260Bundle *b) {
    const uint8_t *prev = bs->prev[c];
    int nsig = 0, nwait = 0, only = -1;
    for (int k = 0; k < SG2260_CHANNELS; k++) {
        if (prev[k]) nsig++, only = k;
        nwait += act[k];
    }
    if (nsig == 1 && nwait == 1 && act[only]) return;
    uint32_t par = (uint32_t)(bs->nbarrier[c]++ & 1);
    Sg2260Note note = {.step = (int)si + 1, .peer = -1, .what = "barrier"};
    for (int i = 0; i < SG2260_CHANNELS; i++) {
        /* an RX side signals once its data landed: a NOP on the port first,
         * ahead of the port's other barrier messages (its TX side meets the
         * NOP before its own wait, which may need the RX side's send) */
        if (i < SG2260_CH_GDMA && i % 2 == SG2260_TX && prev[i + 1] && nwait > act[i + 1])
            sg2260_push_nop(L, b, c, i / 2, &note);
        if (!prev[i] && !act[i]) continue;
        if (prev[i])
            for (int j = 0; j < SG2260_CHANNELS; j++)
                if (j != i && act[j]) sg2260_push_msg(L, b, c, i, 0, SG2260_MSG_BARRIER + 2 * (uint32_t)j + par, 1, &note);
        /* a side of both steps does not signal itself */
        uint32_t cnt = (uint32_t)(nsig - prev[i]);
        if (act[i] && cnt) sg2260_push_msg(L, b, c, i, 1, SG2260_MSG_BARRIER + 2 * (uint32_t)i + par, cnt, &note);
    }
    L->st->barriers++;
}

void sg2260_step_barriers(Lowering *L, BarrierState *bs, size_t si, Sg2260Bundle *b) {
    uint8_t act[SG2260_MAX_CHIPS][SG2260_CHANNELS], active[SG2260_MAX_CHIPS] = {0};
    memset(act, 0, sizeof act);
    sg2260_step_channels(L, &L->work[si], act, active);
    for (int c = 0; c < L->m->nchips; c++) {
        if (!active[c]) continue;
        if (bs->active_before[c]) chip_barrier(L, bs, c, act[c], si, b);
        bs->active_before[c] = 1;
        memcpy(bs->prev[c], act[c], sizeof bs->prev[c]);
        for (int k = 0; k < SG2260_CHANNELS; k++) bs->used[c][k] |= act[c][k];
    }
}
