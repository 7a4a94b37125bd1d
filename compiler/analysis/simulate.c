/* simulate.c - the chunk-state semantics of a Schedule (see simulate.h). */
#include "analysis/simulate.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "support/util.h"

/* The slot array reaches hundreds of MiB (N = 4096, split N: 33M slots) and
 * is accessed with a stride of one rank's chunks, so it is mapped directly
 * (zero pages for free) and offered to transparent huge pages, which cuts
 * the TLB misses that otherwise dominate large N. Not from the arena: it is
 * freed after each schedule. */
static void *big_zalloc(size_t bytes) {
    if (bytes < ((size_t)1 << 21)) return xcalloc(1, bytes);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL; /* the caller reports it: a limit, not a crash */
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
}

static void big_free(void *p, size_t bytes) {
    if (bytes < ((size_t)1 << 21)) free(p);
    else munmap(p, bytes);
}

int sim_init(Sim *m, const Schedule *s, const SimHooks *hooks) {
    return sim_init_limited(m, s, hooks, SIZE_MAX);
}

int sim_init_limited(Sim *m, const Schedule *s, const SimHooks *hooks, size_t max_bytes) {
    memset(m, 0, sizeof *m);
    m->s = s;
    if (hooks) m->hooks = *hooks;
    m->N = s->N;
    m->root = collective_info[s->alg->coll].rooted ? s->root : -1;
    m->bufs = xcalloc((size_t)s->nbuffers, sizeof *m->bufs);
    uint64_t total = 0;
    for (int b = 0; b < s->nbuffers; b++) {
        SimBuf *B = &m->bufs[b];
        B->base = total;
        B->co = s->chunks_other[b];
        B->cr = m->root >= 0 ? s->chunks_at_root[b] : s->chunks_other[b];
        total += m->root >= 0 ? (uint64_t)((m->N - 1) * B->co + B->cr) : (uint64_t)(m->N * B->co);
    }
    m->nin = s->nbuffers > 1 ? m->bufs[1].base : total;
    m->nslots = total;
    m->slot_bytes = total > SIZE_MAX / sizeof *m->sl ? SIZE_MAX
                                                     : (size_t)(total ? total : 1) * sizeof *m->sl;
    /* the memory first: far past the 32-bit ids, it is what limits */
    int rc = m->slot_bytes > max_bytes ? -2 : 0;
    if (!rc && (m->nin >= SIM_LEAF || s->nxfers >= UINT32_MAX || s->nsteps >= UINT32_MAX))
        rc = -1;
    if (!rc && !(m->sl = big_zalloc(m->slot_bytes))) rc = -2;
    if (rc) {
        free(m->bufs);
        m->bufs = NULL;
        return rc;
    }
    for (uint64_t i = 0; i < m->nin; i++) m->sl[i].val = SIM_LEAF | (uint32_t)i;
    return 0;
}

void sim_free(Sim *m) {
    if (m->sl) big_free(m->sl, m->slot_bytes);
    free(m->bufs);
    free(m->held);
    m->sl = NULL;
    m->bufs = NULL;
    m->held = NULL;
}

size_t sim_step_of(const Schedule *s, size_t x) {
    size_t lo = 0, hi = s->nsteps;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->steps[mid].first <= x) lo = mid;
        else hi = mid;
    }
    return lo;
}

static int covers(const SlotRange *r, int buf, int64_t rank, int64_t c) {
    return r->rank == rank && r->buffer == buf && r->lo <= c && c < r->hi;
}

size_t sim_writer_before(const Schedule *s, size_t bound, int buf, int64_t rank, int64_t c) {
    while (bound > 0)
        if (covers(&s->xfers[--bound].dst, buf, rank, c)) return bound;
    return SIZE_MAX;
}

size_t sim_writer_from(const Schedule *s, size_t from, int buf, int64_t rank, int64_t c) {
    for (size_t x = from; x < s->nxfers; x++)
        if (covers(&s->xfers[x].dst, buf, rank, c)) return x;
    return SIZE_MAX;
}

/* The transfer of step `st` (its transfers xs) that reads the slot as a
 * source. */
static size_t reader_in_step(const Step *st, const Transfer *xs, int buf, int64_t rank, int64_t c) {
    for (size_t i = 0; i < st->count; i++)
        if (covers(&xs[i].src, buf, rank, c)) return st->first + i;
    COLLC_UNREACHABLE("race: no reader found");
}

static void fault(Sim *m, SimFaultKind kind, size_t step, size_t x, size_t other, int buf,
                  int64_t rank, int64_t c) {
    if (!m->hooks.fault) return;
    SimFault f = {kind, step, x, other, buf, rank, c};
    m->hooks.fault(m->hooks.user, &f);
}

/* An undefined read, held until the step's races are reported. */
static void hold_undef(Sim *m, SimFaultKind kind, size_t step, size_t x, int buf, int64_t rank,
                       int64_t c) {
    if (m->streaming) {
        /* the earlier steps' transfers are gone: the caller replays */
        m->faulted = m->stop = 1;
        return;
    }
    if (!m->hooks.fault) return;
    if (m->nheld == m->capheld) {
        m->capheld = m->capheld ? 2 * m->capheld : 16;
        m->held = xrealloc(m->held, m->capheld * sizeof *m->held);
    }
    m->held[m->nheld++] = (SimFault){kind, step, x, x, buf, rank, c};
}

/* Reports the held undefined reads of the step that are not a race's
 * consequence: the slot is written in this step by another transfer (a
 * reduce's destination written again later in the step, not by another
 * reduce; a source written by any transfer of the step, which the race on
 * it has reported). */
static void report_held(Sim *m, const Step *st) {
    for (size_t i = 0; i < m->nheld && !m->stop; i++) {
        const SimFault *f = &m->held[i];
        uint32_t lw = m->sl[sim_slot(m, f->buffer, f->rank, f->chunk)].lastw;
        int follow_on = f->kind == SIM_FAULT_UNDEF_DEST
                            ? lw != f->xfer + 1 && m->s->xfers[lw - 1].op != XFER_REDUCE
                            : lw != 0 && lw - 1 >= st->first;
        if (!follow_on) m->hooks.fault(m->hooks.user, f);
    }
    m->nheld = 0;
}

/* Slots of one step lie a rank's worth of chunks apart, so nearly every
 * access misses the cache; transfers are independent, so the slots
 * PREFETCH_AHEAD transfers ahead are fetched while this one runs. */
#define PREFETCH_AHEAD 8

/* The scratch buffers whose use by a phase of a composed algorithm begins
 * at step k (Algorithm.lives): what an earlier phase left in them is
 * undefined from here on, so a read of it is reported as undefined. */
int sim_life_begins(const Schedule *s, size_t k, int i) {
    const struct ScratchLife *l = &s->alg->lives[i];
    int64_t p = s->steps[k].phase, q = k ? (int64_t)s->steps[k - 1].phase : -1;
    return p != q && p >= l->lo && p < l->hi && !(q >= l->lo && q < l->hi);
}

static void fresh_scratch(Sim *m, size_t k) {
    const Schedule *s = m->s;
    const Algorithm *a = s->alg;
    for (int i = 0; i < a->nlives; i++) {
        const struct ScratchLife *l = &a->lives[i];
        if (!sim_life_begins(s, k, i)) continue;
        uint64_t lo = m->bufs[l->buffer].base;
        uint64_t hi = l->buffer + 1 < s->nbuffers ? m->bufs[l->buffer + 1].base : m->nslots;
        for (uint64_t x = lo; x < hi; x++) m->sl[x].val = SIM_UNDEF;
    }
}

void sim_step(Sim *m) {
    const Schedule *s = m->s;
    if (m->stop || m->next >= s->nsteps) return;
    sim_step_xfers(m, s->xfers ? s->xfers + s->steps[m->next].first : NULL);
}

void sim_step_xfers(Sim *m, const Transfer *xs) {
    const Schedule *s = m->s;
    if (m->stop || m->next >= s->nsteps) return;
    size_t k = m->next++;
    const Step *st = &s->steps[k];
    if (s->alg->nlives) fresh_scratch(m, k);
    uint32_t stamp = (uint32_t)k + 1;
    size_t end = st->first + st->count;
    SimSlot *sl = m->sl;

    /* pass 1: stamp every source slot as read in this step */
    for (size_t x = st->first; x < end; x++) {
        const Transfer *t = &xs[x - st->first];
        if (x + PREFETCH_AHEAD < end) {
            const Transfer *u = t + PREFETCH_AHEAD;
            __builtin_prefetch(&sl[sim_slot(m, u->src.buffer, u->src.rank, u->src.lo)], 1);
        }
        for (int32_t c = t->src.lo; c < t->src.hi; c++)
            sl[sim_slot(m, t->src.buffer, t->src.rank, c)].rstamp = stamp;
    }

    /* pass 2: apply the transfers in order */
    for (size_t x = st->first; x < end && !m->stop; x++) {
        const Transfer *t = &xs[x - st->first];
        if (x + PREFETCH_AHEAD < end) {
            const Transfer *u = t + PREFETCH_AHEAD;
            __builtin_prefetch(&sl[sim_slot(m, u->dst.buffer, u->dst.rank, u->dst.lo)], 1);
            __builtin_prefetch(&sl[sim_slot(m, u->src.buffer, u->src.rank, u->src.lo)], 0);
        }
        if (t->dst.buffer == BUF_IN) {
            fault(m, SIM_FAULT_WRITE_TO_IN, k, x, x, BUF_IN, t->dst.rank, t->dst.lo);
            continue;
        }
        int raced = 0, undef = 0;
        for (int32_t i = 0; i < t->dst.hi - t->dst.lo && !m->stop; i++) {
            int64_t dc = t->dst.lo + i, sc = t->src.lo + i;
            SimSlot *d = &sl[sim_slot(m, t->dst.buffer, t->dst.rank, dc)];
            uint32_t lw = d->lastw;
            /* written before in this step; several reduces into one slot
             * are not a race: they all combine into it (any order gives
             * the same value) */
            int ww = lw && lw - 1 >= st->first &&
                     !(t->op == XFER_REDUCE && xs[lw - 1 - st->first].op == XFER_REDUCE);
            if (ww || d->rstamp == stamp) {
                if (!raced++ && m->hooks.fault)
                    fault(m, ww ? SIM_FAULT_RACE_WRITE : SIM_FAULT_RACE_READ, k, x,
                          ww ? lw - 1 : reader_in_step(st, xs, t->dst.buffer, t->dst.rank, dc),
                          t->dst.buffer, t->dst.rank, dc);
                /* The outcome depends on timing: poison the slot, so that
                 * what follows from it is not reported again. */
                d->val = SIM_POISON;
                d->lastw = (uint32_t)x + 1;
                continue;
            }
            if (m->stop) break;
            uint32_t vs = sl[sim_slot(m, t->src.buffer, t->src.rank, sc)].val, nv;
            if (t->op == XFER_COPY) {
                nv = vs;
                if (vs == SIM_UNDEF) {
                    nv = SIM_POISON;
                    if (!undef++)
                        hold_undef(m, SIM_FAULT_UNDEF_SOURCE, k, x, t->src.buffer, t->src.rank, sc);
                }
            } else {
                uint32_t vd = d->val;
                if (vs == SIM_UNDEF || vd == SIM_UNDEF) {
                    nv = SIM_POISON;
                    if (!undef++) {
                        if (vs == SIM_UNDEF)
                            hold_undef(m, SIM_FAULT_UNDEF_SOURCE, k, x, t->src.buffer, t->src.rank, sc);
                        else
                            hold_undef(m, SIM_FAULT_UNDEF_DEST, k, x, t->dst.buffer, t->dst.rank, dc);
                    }
                } else if (vs == SIM_POISON || vd == SIM_POISON) {
                    nv = SIM_POISON;
                } else {
                    nv = m->hooks.reduce(m->hooks.user, k, x, i, vd, vs);
                }
            }
            d->val = nv;
            d->lastw = (uint32_t)x + 1;
        }
    }
    report_held(m, st);
}
