/* barriers.c - SG2260 lowering, stage 4: the order between steps on each
 * chip.
 *
 * Between two consecutive steps p < s in which chip c works, a barrier:
 * every channel of c that worked in p signals every channel that works in
 * s, which waits for all of them. By induction each channel's step-s work
 * then follows all of c's work in earlier steps (a waiter waits for the
 * channels of p, which waited for those before them). A waiter's inbox ids
 * are 2k and 2k+1 (k = 2*port + channel), alternating between barriers: a
 * signal of the barrier after the next one is sent only once this waiter
 * has passed its wait (its sender worked in the step between them, after a
 * barrier this waiter signalled), so a wait never counts a later barrier's
 * signal. One channel working in both steps needs no barrier: its own order
 * suffices. */
#include "sg2260/lower_internal.h"

#include <string.h>

/* The channels of each chip that work in step w. */
static void step_channels(const Lowering *L, const StepWork *w, uint8_t act[][SG2260_CHANNELS], uint8_t *active) {
    const Sg2260Machine *m = L->m;
    for (size_t k = 0; k < w->nmsgs; k++) {
        const LMsg *lm = &w->msgs[k];
        act[lm->from][2 * sg2260_machine_port_to(m, lm->from, lm->to) + SG2260_TX] = 1;
        act[lm->to][2 * sg2260_machine_port_to(m, lm->to, lm->from) + SG2260_RX] = 1;
        active[lm->from] = active[lm->to] = 1;
    }
    for (size_t k = 0; k < w->ngens; k++) {
        act[w->gens[k].chip][2 * w->gens[k].port + SG2260_TX] = 1;
        active[w->gens[k].chip] = 1;
    }
}

/* Chip c's barrier between the channels prev (its last step) and act. */
static void chip_barrier(Lowering *L, BarrierState *bs, int c, const uint8_t *act, Sg2260Bundle *b) {
    const uint8_t *prev = bs->prev[c];
    int nsig = 0, nwait = 0, only = -1;
    for (int k = 0; k < SG2260_CHANNELS; k++) {
        if (prev[k]) nsig++, only = k;
        nwait += act[k];
    }
    if (nsig == 1 && nwait == 1 && act[only]) return;
    uint32_t par = (uint32_t)(bs->nbarrier[c]++ & 1);
    for (int i = 0; i < SG2260_CHANNELS; i++) {
        if (!prev[i] && !act[i]) continue;
        Sg2260Chan ch = (Sg2260Chan)(i % 2);
        if (prev[i])
            for (int j = 0; j < SG2260_CHANNELS; j++)
                if (j != i && act[j])
                    sg2260_push_sys(L, b, c, i / 2, ch, ch == SG2260_TX ? SG2260_SYS_TX_SEND_MSG : SG2260_SYS_RX_SEND_MSG,
                                    2 * (uint32_t)j + par, 0);
        uint32_t cnt = (uint32_t)(nsig - prev[i]);
        if (act[i] && cnt)
            sg2260_push_sys(L, b, c, i / 2, ch, ch == SG2260_TX ? SG2260_SYS_TX_WAIT_MSG : SG2260_SYS_RX_WAIT_MSG,
                            2 * (uint32_t)i + par, cnt);
    }
    L->st->barriers++;
}

void sg2260_step_barriers(Lowering *L, BarrierState *bs, size_t si, Sg2260Bundle *b) {
    uint8_t act[SG2260_MAX_CHIPS][SG2260_CHANNELS], active[SG2260_MAX_CHIPS] = {0};
    memset(act, 0, sizeof act);
    step_channels(L, &L->work[si], act, active);
    for (int c = 0; c < L->m->nchips; c++) {
        if (!active[c]) continue;
        if (bs->active_before[c]) chip_barrier(L, bs, c, act[c], b);
        bs->active_before[c] = 1;
        memcpy(bs->prev[c], act[c], sizeof bs->prev[c]);
        for (int k = 0; k < SG2260_CHANNELS; k++) bs->used[c][k] |= act[c][k];
    }
}
