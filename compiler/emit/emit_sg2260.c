/* emit_sg2260.c - Schedule IR -> SG2260 CDMA descriptor programs (see
 * emit_sg2260.h for the scheme, docs/sg2260.md "Backend" for the user's
 * view). */
#include "emit/emit_sg2260.h"
#include "emit/llvm_target.h"
#include "support/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

/* One SEND/RECV pair on one link (a hop of a possibly routed transfer). */
typedef struct LMsg {
    int from, to;          /* chips */
    int hop;               /* index on the route (0 = leaves the source) */
    size_t order;          /* creation order, keeps transfer order per link */
    uint64_t src, dst, elems;
    Sg2260Op op;           /* at the destination (NONE for copies, staging) */
    int in_port;           /* hop > 0: `from`'s port on which the data arrived */
    int out_port;          /* not the last hop: `to`'s port it leaves by, else -1 */
    int segment;           /* index of the piece in its transfer (0 = first) */
} LMsg;

/* A rank-local copy or reduction. */
typedef struct LGen {
    size_t xi;             /* its transfer */
    int32_t sub;           /* its chunk in the transfer (the unit that may move) */
    int chip, port;
    uint64_t src, dst, elems;
    Sg2260Op op;
} LGen;

typedef struct StepWork {
    LMsg *msgs;
    size_t nmsgs, capmsgs;
    LGen *gens;
    size_t ngens, capgens;
} StepWork;

static void add_msg(StepWork *w, const LMsg *m) {
    if (w->nmsgs == w->capmsgs) {
        w->capmsgs = w->capmsgs ? 2 * w->capmsgs : 16;
        w->msgs = xrealloc(w->msgs, w->capmsgs * sizeof *w->msgs);
    }
    w->msgs[w->nmsgs++] = *m;
}

static void add_gen(StepWork *w, const LGen *g) {
    if (w->ngens == w->capgens) {
        w->capgens = w->capgens ? 2 * w->capgens : 16;
        w->gens = xrealloc(w->gens, w->capgens * sizeof *w->gens);
    }
    w->gens[w->ngens++] = *g;
}

static int cmp_msg(const void *pa, const void *pb) {
    const LMsg *a = pa, *b = pb;
    if (a->from != b->from) return a->from < b->from ? -1 : 1;
    if (a->to != b->to) return a->to < b->to ? -1 : 1;
    if (a->hop != b->hop) return a->hop < b->hop ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

uint64_t sg2260_chunk_elem_offset(const Schedule *s, uint64_t count, int64_t c) {
    uint64_t P = (uint64_t)s->split, block = (uint64_t)c / P, pos = (uint64_t)c % P;
    uint64_t rem = count % P;
    return block * count + pos * (count / P) + (pos < rem ? pos : rem);
}

static uint64_t align_up(uint64_t x) {
    return (x + SG2260_ALIGN - 1) / SG2260_ALIGN * SG2260_ALIGN;
}

/* Contiguous pieces of at most a few descriptors: one packed view when the
 * element count factors into N,C,H,W <= 65535, else 2^28-element blocks, a
 * multiple of 2^14 and a rest below 2^14 (each of which packs). Returns the
 * number of pieces written to len[] (<= 64). */
static int pieces(uint64_t n, uint64_t *len) {
    Sg2260Shape sh;
    if (n == 0) return 0;
    if (sg2260_shape_packed(n, &sh) == 0) {
        len[0] = n;
        return 1;
    }
    int k = 0;
    const uint64_t big = UINT64_C(1) << 28, mid = UINT64_C(1) << 14;
    while (n >= big && k < 61) len[k++] = big, n -= big;
    if (n / mid) len[k++] = n / mid * mid;
    if (n % mid) len[k++] = n % mid;
    return k;
}

/* Shortest route a -> b over the machine's links (BFS, ports in order, as
 * the cost model's topology routes). Writes chips a..b into path; returns
 * its length in chips, or 0 when b is unreachable. */
static int route(const Sg2260Machine *m, int a, int b, int *path) {
    int prev[SG2260_MAX_CHIPS], queue[SG2260_MAX_CHIPS], qh = 0, qt = 0;
    for (int c = 0; c < m->nchips; c++) prev[c] = -2;
    prev[a] = -1;
    queue[qt++] = a;
    while (qh < qt && prev[b] == -2) {
        int v = queue[qh++];
        for (int p = 0; p < m->nports[v]; p++) {
            int w = m->port_peer[v][p];
            if (prev[w] == -2) prev[w] = v, queue[qt++] = w;
        }
    }
    if (prev[b] == -2) return 0;
    int tmp[SG2260_MAX_CHIPS], n = 0;
    for (int v = b; v != -1; v = prev[v]) tmp[n++] = v;
    for (int i = 0; i < n; i++) path[i] = tmp[n - 1 - i];
    return n;
}

/* 1 when the local copies of a step (GENERAL, on the DDR-L2 path) would
 * take longer than its longest link transfer, alone or queued behind the
 * SENDs of their TX channel: the step then lasts longer than its link
 * traffic, which is all the cost model prices. An estimate without start-up
 * latencies, for the statistics. */
static int local_exposed(const Sg2260Machine *m, const StepWork *w, size_t es) {
    double link = 0, ddr = m->ddr_l2_GBps * 1e3; /* bytes per us */
    for (size_t k = 0; k < w->nmsgs; k++) {
        int l = m->port_link[w->msgs[k].from][sg2260_machine_port_to(m, w->msgs[k].from, w->msgs[k].to)];
        double t = 0;
        for (size_t j = 0; j < w->nmsgs; j++)
            if (w->msgs[j].from == w->msgs[k].from && w->msgs[j].to == w->msgs[k].to)
                t += (double)(w->msgs[j].elems * es) / (sg2260_machine_link_bw(m, l) * 1e3);
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
                chan += (double)(w->msgs[j].elems * es) / (sg2260_machine_link_bw(m, l) * 1e3);
        if (chip > link * 1.0001 || chan > link * 1.0001) return 1;
    }
    return 0;
}

static const char *buffer_name(const Schedule *s, int b) {
    return s->alg->buffers[b].name;
}

/* Reports a transfer's error with the "with N = .." note. */
static void xfer_note(const Schedule *s, size_t xi, DiagEngine *dx, Arena *arena) {
    const char *d = schedule_describe_transfer(s, xi, arena);
    if (d && *d) diag_note(dx, s->xfers[xi].span, "with %s", d);
}

static void push(Sg2260Bundle *b, int chip, int port, Sg2260Chan ch, const Sg2260Desc *d, size_t *ndescs) {
    /* bundle_program may move other programs: never keep the pointer */
    sg2260_program_push(sg2260_bundle_program(b, chip, port, ch), d);
    (*ndescs)++;
}

static void push_sys(Sg2260Bundle *b, int chip, int port, Sg2260Chan ch, Sg2260Sys sys, uint32_t id,
                     uint32_t count, size_t *ndescs) {
    Sg2260Desc d;
    memset(&d, 0, sizeof d);
    d.cmd = SG2260_CMD_SYS;
    d.sys = sys;
    d.msg_id = id;
    d.count = count;
    push(b, chip, port, ch, &d, ndescs);
}

/* Transfer u touches slot range r (same rank, buffer, overlapping chunks). */
static int overlaps(const SlotRange *a, const SlotRange *b) {
    return a->rank == b->rank && a->buffer == b->buffer && a->lo < b->hi && b->lo < a->hi;
}

/* Time (us) of the link traffic of step w: its busiest link direction. */
static double step_link_time(const Sg2260Machine *m, const StepWork *w, size_t es) {
    double t = 0, cur = 0;
    for (size_t k = 0; k < w->nmsgs; k++) {
        int same = k && w->msgs[k].from == w->msgs[k - 1].from && w->msgs[k].to == w->msgs[k - 1].to;
        int l = m->port_link[w->msgs[k].from][sg2260_machine_port_to(m, w->msgs[k].from, w->msgs[k].to)];
        double x = (double)(w->msgs[k].elems * es) / (sg2260_machine_link_bw(m, l) * 1e3);
        cur = same ? cur + x : x;
        if (cur > t) t = cur;
    }
    return t;
}

/* One chunk of a local transfer: pending entries [first, end). */
typedef struct LocalGroup {
    size_t first, end, step, last;
    uint64_t elems;
} LocalGroup;

static int cmp_group(const void *pa, const void *pb) {
    const LocalGroup *a = pa, *b = pb;
    if (a->last != b->last) return a->last < b->last ? -1 : 1;
    return a->first < b->first ? -1 : a->first > b->first;
}

/* Places the local copies (GENERAL). A local transfer may run in any step
 * from its own up to the last one before a later transfer reads or writes
 * its destination or writes its source ("sinking"): every pair of
 * transfers that touch common data keeps its order, and no step gets a
 * race. Chunks with the earliest deadline go first; each goes, among
 * its steps, where it hides best behind the link
 * traffic (least time beyond the step's busiest link; the earliest on a
 * tie), on the chip's TX channel that finishes first. Without
 * o->sink_local every copy stays in its step. Returns 1 after an error. */
static int place_local(const Schedule *s, const Sg2260LowerOptions *o, StepWork *work, const StepWork *pending,
                       const size_t *pending_step, DiagEngine *dx, Sg2260LowerStats *st) {
    const Sg2260Machine *m = o->machine;
    size_t es = sg2260_dtype_size(o->dtype);
    double ddr = m->ddr_l2_GBps * 1e3;
    /* the chunks (groups of pending entries) and the last step each may
     * move to; placed earliest deadline first, so that the chunks with the
     * fewest choices find room next to the link traffic */
    size_t ngroups = 0;
    LocalGroup *grp = xmalloc((pending->ngens + 1) * sizeof *grp);
    for (size_t gi = 0; gi < pending->ngens;) {
        size_t gend = gi, xi = pending->gens[gi].xi, si = pending_step[gi];
        int32_t sub = pending->gens[gi].sub;
        uint64_t elems = 0;
        while (gend < pending->ngens && pending->gens[gend].xi == xi && pending->gens[gend].sub == sub)
            elems += pending->gens[gend++].elems;
        int c = pending->gens[gi].chip;
        if (m->nports[c] == 0) {
            diag_error(dx, s->xfers[xi].span, "sg2260-no-link",
                       "chip %d has no CDMA engine (no link) to run a local copy on", c);
            free(grp);
            return 1;
        }
        /* the chunk this entry copies */
        SlotRange tsrc = s->xfers[xi].src, tdst = s->xfers[xi].dst;
        tsrc.lo += sub, tsrc.hi = tsrc.lo + 1;
        tdst.lo += sub, tdst.hi = tdst.lo + 1;
        size_t last = si;
        if (o->sink_local)
            for (size_t k = si + 1; k < s->nsteps; k++) {
                int clash = 0;
                for (size_t u = s->steps[k].first; u < s->steps[k].first + s->steps[k].count && !clash; u++)
                    clash = overlaps(&s->xfers[u].src, &tdst) || overlaps(&s->xfers[u].dst, &tdst) ||
                            overlaps(&s->xfers[u].dst, &tsrc);
                if (clash) break;
                last = k;
            }
        grp[ngroups++] = (LocalGroup){.first = gi, .end = gend, .step = si, .last = last, .elems = elems};
        gi = gend;
    }
    qsort(grp, ngroups, sizeof *grp, cmp_group);
    for (size_t q = 0; q < ngroups; q++) {
        size_t gi = grp[q].first, gend = grp[q].end, si = grp[q].step, last = grp[q].last;
        uint64_t elems = grp[q].elems;
        int c = pending->gens[gi].chip;
        double best = 1e300;
        size_t best_step = si;
        int best_port = 0;
        for (size_t k = si; k <= last; k++) {
            StepWork *w = &work[k];
            double link = step_link_time(m, w, es), chip = (double)(elems * es) / ddr;
            for (size_t j = 0; j < w->ngens; j++)
                if (w->gens[j].chip == c) chip += (double)(w->gens[j].elems * es) / ddr;
            double port_best = 1e300;
            int port = 0;
            for (int p = 0; p < m->nports[c]; p++) {
                double busy = (double)(elems * es) / ddr;
                int l = m->port_link[c][p];
                for (size_t j = 0; j < w->nmsgs; j++)
                    if (w->msgs[j].from == c && w->msgs[j].to == m->port_peer[c][p])
                        busy += (double)(w->msgs[j].elems * es) / (sg2260_machine_link_bw(m, l) * 1e3);
                /* copies already on p are not counted: they share the chip's
                 * DDR-L2 path (`chip`) whatever channel runs them, and one
                 * channel keeps a transfer's chunks in one GENERAL */
                if (busy < port_best) port_best = busy, port = p;
            }
            double exposed = (port_best > chip ? port_best : chip) - link;
            if (exposed < 0) exposed = 0;
            if (exposed < best - 1e-9) best = exposed, best_step = k, best_port = port;
        }
        if (best_step != si) st->sunk++;
        for (size_t g = gi; g < gend; g++) {
            LGen x = pending->gens[g];
            x.port = best_port;
            StepWork *w = &work[best_step];
            LGen *prev = w->ngens ? &w->gens[w->ngens - 1] : NULL;
            Sg2260Shape sh;
            /* a chunk that continues the previous copy joins its GENERAL */
            if (prev && prev->chip == x.chip && prev->port == x.port && prev->op == x.op &&
                prev->src + prev->elems * es == x.src && prev->dst + prev->elems * es == x.dst &&
                sg2260_shape_packed(prev->elems + x.elems, &sh) == 0) {
                prev->elems += x.elems;
                continue;
            }
            add_gen(w, &x);
            st->generals++;
        }
    }
    free(grp);
    return 0;
}

/* Channel key of a chip: 2*port + chan. */
enum { CH_MAX = 2 * SG2260_MAX_PORTS };

int sg2260_lower(const Schedule *s, const Sg2260LowerOptions *o, DiagEngine *dx, Arena *arena,
                 Sg2260Bundle *b, Sg2260Layout *lay, Sg2260LowerStats *st) {
    const Sg2260Machine *m = o->machine;
    size_t es = sg2260_dtype_size(o->dtype);
    memset(lay, 0, sizeof *lay);
    memset(st, 0, sizeof *st);
    COLLC_ASSERT(s->nbuffers <= 64);

    /* ---- layout ---- */
    uint64_t at = SG2260_LAYOUT_BASE;
    lay->nbuffers = s->nbuffers;
    for (int k = 0; k < s->nbuffers; k++) {
        uint64_t mx = 0;
        for (int64_t r = 0; r < s->N; r++) {
            uint64_t e = sg2260_chunk_elem_offset(s, o->count, schedule_chunks(s, k, r)) * es;
            if (e > mx) mx = e;
        }
        lay->base[k] = at;
        lay->bytes[k] = mx;
        at = align_up(at + mx);
    }
    lay->staging = at;

    /* ---- pass 1: every step's link messages and local copies ---- */
    StepWork *work = xmalloc((s->nsteps ? s->nsteps : 1) * sizeof *work);
    memset(work, 0, (s->nsteps ? s->nsteps : 1) * sizeof *work);
    int failed = 0;
    size_t order = 0, misaligned = 0;
    StepWork pending = {0}; /* local copies, placed after the link traffic is known */
    size_t pending_cap = 0, *pending_step = NULL;
    uint64_t staging_max = 0;
    for (size_t si = 0; si < s->nsteps; si++) {
        StepWork *w = &work[si];
        uint64_t stage_off[SG2260_MAX_CHIPS] = {0};
        for (size_t xi = s->steps[si].first; xi < s->steps[si].first + s->steps[si].count; xi++) {
            const Transfer *t = &s->xfers[xi];
            int reduce = t->op == XFER_REDUCE;
            int ca = o->chips[t->src.rank], cb = o->chips[t->dst.rank];
            uint64_t so = sg2260_chunk_elem_offset(s, o->count, t->src.lo);
            uint64_t doff = sg2260_chunk_elem_offset(s, o->count, t->dst.lo);
            uint64_t n = sg2260_chunk_elem_offset(s, o->count, t->src.hi) - so;
            COLLC_ASSERT(n == sg2260_chunk_elem_offset(s, o->count, t->dst.hi) - doff);
            if (n == 0) continue; /* empty chunks (count < split): nothing moves */
            uint64_t src = lay->base[t->src.buffer] + so * es, dst = lay->base[t->dst.buffer] + doff * es;
            if ((reduce || o->dtype == SG2260_FP20) && (dst % SG2260_ALIGN || (o->dtype == SG2260_FP20 && src % SG2260_ALIGN))) {
                /* the first one is enough: the others follow from the count */
                if (!misaligned++) {
                    diag_error(dx, t->span, "sg2260-align",
                               "%s into rank %d's %s[%d] at 0x%" PRIx64 " is not 128-byte aligned, which %s need; "
                               "with split %" PRId64 ", a count that is a multiple of %" PRId64 " aligns every chunk",
                               reduce ? "reduction" : "fp20 transfer", (int)t->dst.rank,
                               buffer_name(s, t->dst.buffer), (int)t->dst.lo, dst,
                               reduce ? "reducing writes" : "fp20 views", s->split,
                               s->split * (int64_t)(SG2260_ALIGN / es));
                    xfer_note(s, xi, dx, arena);
                }
                failed = 1;
                continue;
            }
            uint64_t len[64];
            int np = pieces(n, len);
            if (ca == cb) {
                /* one entry per chunk: each chunk may sink on its own */
                for (int32_t c = 0; c < t->src.hi - t->src.lo; c++) {
                    uint64_t cs = sg2260_chunk_elem_offset(s, o->count, t->src.lo + c) - so;
                    uint64_t cn = sg2260_chunk_elem_offset(s, o->count, t->src.lo + c + 1) - so - cs;
                    uint64_t clen[64], off = 0;
                    int cp = pieces(cn, clen);
                    for (int k = 0; k < cp; k++) {
                        LGen g = {.xi = xi, .sub = c, .chip = ca, .port = -1, .src = src + (cs + off) * es,
                                  .dst = dst + (cs + off) * es, .elems = clen[k],
                                  .op = reduce ? o->op : SG2260_OP_NONE};
                        add_gen(&pending, &g);
                        if (pending.ngens > pending_cap)
                            pending_cap = pending.capgens,
                            pending_step = xrealloc(pending_step, pending_cap * sizeof *pending_step);
                        pending_step[pending.ngens - 1] = si;
                        off += clen[k];
                    }
                }
                continue;
            }
            int path[SG2260_MAX_CHIPS], hops;
            int linked = sg2260_machine_port_to(m, ca, cb) >= 0;
            hops = route(m, ca, cb, path);
            if (!linked && (!o->store_forward || hops == 0)) {
                if (hops == 0)
                    diag_error(dx, t->span, "sg2260-no-link",
                               "transfer from rank %d (chip %d) to rank %d (chip %d): no route between the "
                               "chips on machine '%s'",
                               (int)t->src.rank, ca, (int)t->dst.rank, cb, m->name);
                else {
                    diag_error(dx, t->span, "sg2260-no-link",
                               "transfer from rank %d (chip %d) to rank %d (chip %d): the chips share no link",
                               (int)t->src.rank, ca, (int)t->dst.rank, cb);
                    char via[128] = "";
                    size_t vl = 0;
                    for (int i = 0; i < hops; i++)
                        vl += (size_t)snprintf(via + vl, sizeof via - vl, "%s%d", i ? " -> " : "", path[i]);
                    xfer_note(s, xi, dx, arena);
                    diag_note(dx, t->span, "--route=store-forward routes it through other chips (%s)", via);
                    failed = 1;
                    continue;
                }
                xfer_note(s, xi, dx, arena);
                failed = 1;
                continue;
            }
            /* a routed message moves in segments of >= 1 MiB (at most 8), so
             * that a hop forwards one segment while the next arrives */
            uint64_t seg[64 * SG2260_ROUTE_SEGMENTS];
            int nseg = 0;
            for (int k = 0; k < np; k++) {
                uint64_t nsub = hops > 2 ? len[k] * es / SG2260_ROUTE_SEGMENT_MIN : 1;
                if (nsub > SG2260_ROUTE_SEGMENTS) nsub = SG2260_ROUTE_SEGMENTS;
                if (nsub < 1) nsub = 1;
                uint64_t unit = SG2260_ALIGN / es, q = (len[k] / nsub + unit - 1) / unit * unit;
                for (uint64_t done = 0; done < len[k];) {
                    uint64_t n1 = len[k] - done < q ? len[k] - done : q, l2[64];
                    int np2 = pieces(n1, l2);
                    for (int j = 0; j < np2; j++) seg[nseg++] = l2[j];
                    done += n1;
                }
            }
            if (hops > 2) st->routed++;
            uint64_t off = 0;
            for (int k = 0; k < nseg; k++) {
                uint64_t bytes = seg[k] * es, cur = src + off * es;
                for (int h = 0; h + 1 < hops; h++) {
                    int u = path[h], v = path[h + 1], last = h + 2 == hops;
                    LMsg lm = {.from = u, .to = v, .hop = h, .order = order++, .src = cur, .elems = seg[k],
                               .segment = k,
                               .op = last && reduce ? o->op : SG2260_OP_NONE,
                               .in_port = h ? sg2260_machine_port_to(m, u, path[h - 1]) : -1,
                               .out_port = last ? -1 : sg2260_machine_port_to(m, v, path[h + 2])};
                    if (last) {
                        lm.dst = dst + off * es;
                    } else {
                        lm.dst = lay->staging + stage_off[v];
                        stage_off[v] = align_up(stage_off[v] + bytes);
                        if (stage_off[v] > staging_max) staging_max = stage_off[v];
                    }
                    cur = lm.dst;
                    add_msg(w, &lm);
                    st->link_msgs++;
                }
                off += seg[k];
            }
        }
        if (w->nmsgs > 1) qsort(w->msgs, w->nmsgs, sizeof *w->msgs, cmp_msg);
    }
    if (!failed) failed = place_local(s, o, work, &pending, pending_step, dx, st);
    for (size_t si = 0; si < s->nsteps; si++) {
        StepWork *w = &work[si];
        if (w->ngens && w->nmsgs && local_exposed(m, w, es)) st->local_exposed++;
        if (w->nmsgs == 0 && w->ngens > 0) st->local_steps++;
        /* messages per link: the pieces of one transfer count once */
        for (size_t k = 0, run = 0; k < w->nmsgs; k++) {
            int same = k && w->msgs[k].from == w->msgs[k - 1].from && w->msgs[k].to == w->msgs[k - 1].to;
            run = same ? run + (w->msgs[k].segment == 0) : 1;
            if (run > st->max_link_msgs) st->max_link_msgs = run;
        }
    }
    free(pending.gens);
    free(pending_step);
    if (misaligned > 1)
        diag_note(dx, s->alg->name_span, "%zu more transfers of '%s' are misaligned", misaligned - 1, s->alg->name);
    lay->staging_bytes = staging_max;
    lay->end = align_up(lay->staging + staging_max);
    if (failed) goto done;

    /* ---- pass 2: programs, step by step ----
     * Between two consecutive steps p < s in which chip c works, a barrier:
     * every channel of c that worked in p signals every channel that works
     * in s, which waits for all of them. By induction each channel's step-s
     * work then follows all of c's work in earlier steps (a waiter waits for
     * the channels of p, which waited for those before them). A waiter's
     * inbox ids are 2k and 2k+1 (k = 2*port + channel), alternating between
     * barriers: a signal of the barrier after the next one is sent only once
     * this waiter has passed its wait (its sender worked in the step between
     * them, after a barrier this waiter signalled), so a wait never counts a
     * later barrier's signal. */
    uint8_t prev[SG2260_MAX_CHIPS][CH_MAX], used[SG2260_MAX_CHIPS][CH_MAX];
    memset(prev, 0, sizeof prev);
    memset(used, 0, sizeof used);
    int active_before[SG2260_MAX_CHIPS] = {0}, nbarrier[SG2260_MAX_CHIPS] = {0};
    for (size_t si = 0; si < s->nsteps; si++) {
        StepWork *w = &work[si];
        uint8_t act[SG2260_MAX_CHIPS][CH_MAX], active[SG2260_MAX_CHIPS] = {0};
        memset(act, 0, sizeof act);
        for (size_t k = 0; k < w->nmsgs; k++) {
            act[w->msgs[k].from][2 * sg2260_machine_port_to(m, w->msgs[k].from, w->msgs[k].to) + SG2260_TX] = 1;
            act[w->msgs[k].to][2 * sg2260_machine_port_to(m, w->msgs[k].to, w->msgs[k].from) + SG2260_RX] = 1;
            active[w->msgs[k].from] = active[w->msgs[k].to] = 1;
        }
        for (size_t k = 0; k < w->ngens; k++) {
            act[w->gens[k].chip][2 * w->gens[k].port + SG2260_TX] = 1;
            active[w->gens[k].chip] = 1;
        }
        for (int c = 0; c < m->nchips; c++) {
            if (!active[c]) continue;
            if (active_before[c]) {
                int nsig = 0, nwait = 0, only = -1;
                for (int k = 0; k < CH_MAX; k++) {
                    if (prev[c][k]) nsig++, only = k;
                    nwait += act[c][k];
                }
                /* one channel working in both steps: its own order suffices */
                if (!(nsig == 1 && nwait == 1 && act[c][only])) {
                    uint32_t par = (uint32_t)(nbarrier[c]++ & 1);
                    for (int i = 0; i < CH_MAX; i++) {
                        if (!prev[c][i] && !act[c][i]) continue;
                        Sg2260Chan ch = (Sg2260Chan)(i % 2);
                        if (prev[c][i])
                            for (int j = 0; j < CH_MAX; j++)
                                if (j != i && act[c][j])
                                    push_sys(b, c, i / 2, ch,
                                             ch == SG2260_TX ? SG2260_SYS_TX_SEND_MSG : SG2260_SYS_RX_SEND_MSG,
                                             2 * (uint32_t)j + par, 0, &st->descs);
                        uint32_t cnt = (uint32_t)(nsig - prev[c][i]);
                        if (act[c][i] && cnt)
                            push_sys(b, c, i / 2, ch, ch == SG2260_TX ? SG2260_SYS_TX_WAIT_MSG : SG2260_SYS_RX_WAIT_MSG,
                                     2 * (uint32_t)i + par, cnt, &st->descs);
                    }
                    st->barriers++;
                }
            }
            active_before[c] = 1;
            memcpy(prev[c], act[c], sizeof prev[c]);
            for (int k = 0; k < CH_MAX; k++) used[c][k] |= act[c][k];
        }
        for (size_t k = 0; k < w->nmsgs; k++) {
            const LMsg *lm = &w->msgs[k];
            int ptx = sg2260_machine_port_to(m, lm->from, lm->to), prx = sg2260_machine_port_to(m, lm->to, lm->from);
            if (lm->hop > 0)
                push_sys(b, lm->from, ptx, SG2260_TX, SG2260_SYS_TX_WAIT_MSG,
                         SG2260_FWD_MSG_BASE + 8 * (uint32_t)lm->in_port + (uint32_t)ptx, 1, &st->descs);
            Sg2260Desc d;
            memset(&d, 0, sizeof d);
            d.cmd = SG2260_CMD_SEND;
            d.dtype = o->dtype;
            d.psum = lm->op != SG2260_OP_NONE ? SG2260_PSUM_WR : SG2260_PSUM_WO;
            d.src = lm->src;
            if (sg2260_shape_packed(lm->elems, &d.shape)) COLLC_UNREACHABLE("piece does not pack");
            Sg2260Error err;
            if (sg2260_desc_check(&d, &err)) goto bad_desc;
            push(b, lm->from, ptx, SG2260_TX, &d, &st->descs);
            d.cmd = SG2260_CMD_RECV;
            d.psum = SG2260_PSUM_WO;
            d.src = 0;
            d.dst = lm->dst;
            d.op = lm->op;
            if (sg2260_desc_check(&d, &err)) goto bad_desc;
            push(b, lm->to, prx, SG2260_RX, &d, &st->descs);
            if (lm->out_port >= 0)
                push_sys(b, lm->to, prx, SG2260_RX, SG2260_SYS_RX_SEND_MSG,
                         SG2260_FWD_MSG_BASE + 8 * (uint32_t)prx + (uint32_t)lm->out_port, 0, &st->descs);
            continue;
        bad_desc:
            diag_error(dx, s->steps[si].span, err.code, "step %zu: %s", si + 1, err.msg);
            failed = 1;
            goto done;
        }
        for (size_t k = 0; k < w->ngens; k++) {
            const LGen *g = &w->gens[k];
            Sg2260Desc d;
            memset(&d, 0, sizeof d);
            d.cmd = SG2260_CMD_GENERAL;
            d.dtype = o->dtype;
            d.op = g->op;
            d.src = g->src;
            d.dst = g->dst;
            d.src_chip = d.dst_chip = g->chip;
            if (sg2260_shape_packed(g->elems, &d.shape)) COLLC_UNREACHABLE("piece does not pack");
            d.dshape = d.shape;
            Sg2260Error err;
            if (sg2260_desc_check(&d, &err)) {
                diag_error(dx, s->steps[si].span, err.code, "step %zu: %s", si + 1, err.msg);
                failed = 1;
                goto done;
            }
            push(b, g->chip, g->port, SG2260_TX, &d, &st->descs);
        }
    }
    for (int c = 0; c < m->nchips; c++)
        for (int k = 0; k < CH_MAX; k++)
            if (used[c][k]) push_sys(b, c, k / 2, (Sg2260Chan)(k % 2), SG2260_SYS_END, 0, 0, &st->descs);
    st->channels = b->nslots;

done:
    for (size_t si = 0; si < s->nsteps; si++) {
        free(work[si].msgs);
        free(work[si].gens);
    }
    free(work);
    return failed ? -1 : 0;
}

/* ---- C source and object ---- */

static int layout_words(const Sg2260Compiled *c, uint64_t *w) {
    int n = 0;
    w[n++] = 1;
    w[n++] = (uint64_t)c->N;
    w[n++] = c->count;
    w[n++] = (uint64_t)c->dtype;
    w[n++] = (uint64_t)c->op;
    w[n++] = (uint64_t)c->root;
    w[n++] = (uint64_t)c->layout->nbuffers;
    w[n++] = c->layout->staging;
    w[n++] = c->layout->staging_bytes;
    for (int k = 0; k < c->layout->nbuffers; k++) w[n++] = c->layout->base[k], w[n++] = c->layout->bytes[k];
    for (int64_t r = 0; r < c->N; r++) w[n++] = (uint64_t)c->chips[r];
    return n;
}

int sg2260_write_c(FILE *out, const Sg2260Compiled *c, int n, DiagEngine *dx) {
    fprintf(out, "/* Generated by collc --target=sg2260: CDMA descriptor bundles (docs/sg2260.md). */\n");
    for (int i = 0; i < n; i++) {
        Sg2260Error err;
        fprintf(out, "\n");
        if (sg2260_bundle_write_c(out, c[i].bundle, c[i].name, &err)) {
            diag_error(dx, span_none(), err.code, "%s", err.msg);
            return -1;
        }
        uint64_t *w = xmalloc((size_t)(16 + 2 * c[i].layout->nbuffers + c[i].N) * sizeof *w);
        int nw = layout_words(&c[i], w);
        fprintf(out, "/* version, N, count, dtype, op, root, nbuffers, staging, staging_bytes,\n"
                     "   (base, bytes) per buffer, chip per rank */\n");
        fprintf(out, "const unsigned long long %s_layout[%d] = {", c[i].name, nw);
        for (int k = 0; k < nw; k++) fprintf(out, "%s0x%" PRIx64 "ull,", k % 6 ? " " : "\n    ", w[k]);
        fprintf(out, "\n};\n");
        free(w);
    }
    return ferror(out) ? -1 : 0;
}

int sg2260_write_object(const char *path, const char *triple, const Sg2260Compiled *c, int n,
                        DiagEngine *dx) {
    LLVMTargetCtx t;
    if (llvm_target_open(&t, NULL, "sg2260", triple, 0, dx)) return -1;
    LLVMTypeRef i8 = LLVMInt8TypeInContext(t.ctx), i64 = LLVMInt64TypeInContext(t.ctx);
    LLVMTypeRef ulong = LLVMIntPtrTypeInContext(t.ctx, t.td); /* `unsigned long` on LP64 and ILP32 */
    int failed = 0;
    for (int i = 0; i < n && !failed; i++) {
        Sg2260Error err;
        uint8_t *img;
        long sz = sg2260_bundle_encode(c[i].bundle, &img, &err);
        if (sz < 0) {
            diag_error(dx, span_none(), err.code, "%s", err.msg);
            failed = 1;
            break;
        }
        LLVMValueRef init = LLVMConstStringInContext(t.ctx, (const char *)img, (unsigned)sz, 1);
        LLVMValueRef g = LLVMAddGlobal(t.mod, LLVMArrayType(i8, (unsigned)sz), c[i].name);
        LLVMSetInitializer(g, init);
        LLVMSetGlobalConstant(g, 1);
        LLVMSetAlignment(g, SG2260_ALIGN);
        free(img);
        size_t nmsz = strlen(c[i].name) + 16;
        char *nm = xmalloc(nmsz);
        snprintf(nm, nmsz, "%s_size", c[i].name);
        g = LLVMAddGlobal(t.mod, ulong, nm);
        LLVMSetInitializer(g, LLVMConstInt(ulong, (unsigned long long)sz, 0));
        LLVMSetGlobalConstant(g, 1);
        uint64_t *w = xmalloc((size_t)(16 + 2 * c[i].layout->nbuffers + c[i].N) * sizeof *w);
        int nw = layout_words(&c[i], w);
        LLVMValueRef *vals = xmalloc((size_t)nw * sizeof *vals);
        for (int k = 0; k < nw; k++) vals[k] = LLVMConstInt(i64, w[k], 0);
        snprintf(nm, nmsz, "%s_layout", c[i].name);
        g = LLVMAddGlobal(t.mod, LLVMArrayType(i64, (unsigned)nw), nm);
        LLVMSetInitializer(g, LLVMConstArray(i64, vals, (unsigned)nw));
        LLVMSetGlobalConstant(g, 1);
        free(vals);
        free(w);
        free(nm);
    }
    if (!failed && llvm_target_write(&t, LLVM_OUT_OBJECT, path, dx)) failed = 1;
    llvm_target_close(&t);
    return failed ? -1 : 0;
}
