/* lower.c - the SG2260 lowering pass (lower.h): runs the stages in order and
 * counts what the programs do, and the helpers the stages share. */
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

void lgen_add(StepWork *w, const LGen *g) {
    if (w->ngens == w->capgens) {
        w->capgens = w->capgens ? 2 * w->capgens : 16;
        w->gens = xrealloc(w->gens, w->capgens * sizeof *w->gens);
    }
    w->gens[w->ngens++] = *g;
}

int lmsg_link(const Lowering *L, const LMsg *m) {
    return L->m->port_link[m->from][sg2260_machine_port_to(L->m, m->from, m->to)];
}

double link_time(const Lowering *L, uint64_t elems, int l) {
    return (double)(elems * L->es) / (sg2260_machine_link_bw(L->m, l) * 1e3);
}

void lowering_xfer_note(const Lowering *L, size_t xi) {
    const char *d = schedule_describe_transfer(L->s, xi, L->arena);
    if (d && *d) diag_note(L->dx, L->s->xfers[xi].span, "with %s", d);
}

/* 1 when the local copies of a step (GENERAL, on the DDR-L2 path) would
 * take longer than its longest link transfer, alone or queued behind the
 * SENDs of their TX channel: the step then lasts longer than its link
 * traffic, which is all the cost model prices. An estimate without start-up
 * latencies, for the statistics. */
static int local_exposed(const Lowering *L, const StepWork *w) {
    const Sg2260Machine *m = L->m;
    size_t es = L->es;
    double link = 0, ddr = m->ddr_l2_GBps * 1e3; /* bytes per us */
    for (size_t k = 0; k < w->nmsgs; k++) {
        int l = lmsg_link(L, &w->msgs[k]);
        double t = 0;
        for (size_t j = 0; j < w->nmsgs; j++)
            if (w->msgs[j].from == w->msgs[k].from && w->msgs[j].to == w->msgs[k].to)
                t += link_time(L, w->msgs[j].elems, l);
        if (t > link) link = t;
    }
    for (size_t g = 0; g < w->ngens; g++) {
        int c = w->gens[g].chip, p = w->gens[g].port, l = m->port_link[c][p];
        double chip = 0, chan = 0;
        for (size_t j = 0; j < w->ngens; j++)
            if (w->gens[j].chip == c) {
                chip += (double)(w->gens[j].elems * es) / ddr;
                if (w->gens[j].port == p) chan += (double)(w->gens[j].elems * es) / ddr;
            }
        for (size_t j = 0; j < w->nmsgs; j++)
            if (w->msgs[j].from == c && w->msgs[j].to == m->port_peer[c][p])
                chan += link_time(L, w->msgs[j].elems, l);
        if (chip > link * 1.0001 || chan > link * 1.0001) return 1;
    }
    return 0;
}

/* The statistics of the steps' work (after copies.c). */
static void count_steps(Lowering *L) {
    Sg2260LowerStats *st = L->st;
    for (size_t si = 0; si < L->s->nsteps; si++) {
        const StepWork *w = &L->work[si];
        if (w->ngens && w->nmsgs && local_exposed(L, w)) st->local_exposed++;
        if (w->nmsgs == 0 && w->ngens > 0) st->local_steps++;
        /* messages per link: the pieces of one transfer count once */
        for (size_t k = 0, run = 0; k < w->nmsgs; k++) {
            int same = k && w->msgs[k].from == w->msgs[k - 1].from && w->msgs[k].to == w->msgs[k - 1].to;
            run = same ? run + (w->msgs[k].segment == 0) : 1;
            if (run > st->max_link_msgs) st->max_link_msgs = run;
        }
    }
}

int sg2260_lower(const Schedule *s, const Sg2260LowerOptions *o, DiagEngine *dx, Arena *arena,
                 Sg2260Bundle *b, Sg2260Layout *lay, Sg2260LowerStats *st) {
    memset(lay, 0, sizeof *lay);
    memset(st, 0, sizeof *st);
    size_t nw = s->nsteps ? s->nsteps : 1;
    Lowering L = {.s = s, .o = o, .m = o->machine, .es = sg2260_dtype_size(o->dtype), .dx = dx, .arena = arena,
                  .lay = lay, .st = st, .work = xcalloc(nw, sizeof *L.work)};
    sg2260_layout_buffers(&L);
    int failed = sg2260_plan_messages(&L);
    if (!failed) failed = sg2260_place_copies(&L);
    count_steps(&L);
    if (!failed) failed = sg2260_write_programs(&L, b);
    for (size_t si = 0; si < s->nsteps; si++) {
        free(L.work[si].msgs);
        free(L.work[si].gens);
    }
    free(L.work);
    free(L.local.gens);
    return failed ? -1 : 0;
}
