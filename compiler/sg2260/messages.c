/* messages.c - SG2260 lowering, stage 2: what each step moves. A transfer
 * between two chips becomes link messages (one SEND/RECV pair per hop and
 * piece); a transfer between chips that share no link is rejected, or with
 * store_forward routed along the machine's shortest path through the
 * staging areas of the chips on the way, in segments so that the hops
 * overlap. A rank-local transfer is collected chunk by chunk for copies.c.
 * Reductions and fp20 views need 128-byte aligned addresses. */
#include "sg2260/lower_internal.h"
#include "support/util.h"

#include <inttypes.h>
#include <stdlib.h>

int sg2260_pieces(uint64_t n, uint64_t *len) {
    /* one packed view when the element count factors into N,C,H,W <=
     * 65535, else 2^28-element blocks, a multiple of 2^14 and a rest below
     * 2^14 (each of which packs) */
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

static int cmp_msg(const void *pa, const void *pb) {
    const LMsg *a = pa, *b = pb;
    if (a->from != b->from) return a->from < b->from ? -1 : 1;
    if (a->to != b->to) return a->to < b->to ? -1 : 1;
    if (a->hop != b->hop) return a->hop < b->hop ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* State across the steps. */
typedef struct Planner {
    Lowering *L;
    size_t order;          /* messages created so far */
    size_t misaligned;     /* transfers with a misaligned address */
    uint64_t staging_max;  /* largest staging area of any chip and step */
    uint64_t stage_off[SG2260_MAX_CHIPS]; /* staging used in this step */
} Planner;

/* 1 (after reporting the first) when transfer xi needs aligned addresses
 * and src or dst is not. */
static int misaligned(Planner *P, size_t xi, uint64_t src, uint64_t dst) {
    const Lowering *L = P->L;
    const Transfer *t = &L->s->xfers[xi];
    int reduce = t->op == XFER_REDUCE, fp20 = L->o->dtype == SG2260_FP20;
    if (!(reduce || fp20) || !(dst % SG2260_ALIGN || (fp20 && src % SG2260_ALIGN))) return 0;
    /* the first one is enough: the others follow from the count */
    if (!P->misaligned++) {
        diag_error(L->dx, t->span, "sg2260-align",
                   "%s into rank %d's %s[%d] at 0x%" PRIx64 " is not 128-byte aligned, which %s need; "
                   "with split %" PRId64 ", a count that is a multiple of %" PRId64 " aligns every chunk",
                   reduce ? "reduction" : "fp20 transfer", (int)t->dst.rank,
                   L->s->alg->buffers[t->dst.buffer].name, (int)t->dst.lo, dst,
                   reduce ? "reducing writes" : "fp20 views", L->s->split,
                   L->s->split * (int64_t)(SG2260_ALIGN / L->es));
        lowering_xfer_note(L, xi);
    }
    return 1;
}

/* A rank-local transfer: one entry per chunk (each chunk may sink on its
 * own), each cut into pieces. */
static void local_chunks(Planner *P, size_t si, size_t xi, uint64_t src, uint64_t dst, uint64_t so) {
    Lowering *L = P->L;
    const Schedule *s = L->s;
    const Transfer *t = &s->xfers[xi];
    for (int32_t c = 0; c < t->src.hi - t->src.lo; c++) {
        uint64_t cs = sg2260_chunk_elem_offset(s, L->o->count, t->src.lo + c) - so;
        uint64_t cn = sg2260_chunk_elem_offset(s, L->o->count, t->src.lo + c + 1) - so - cs;
        uint64_t clen[64], off = 0;
        int cp = sg2260_pieces(cn, clen);
        for (int k = 0; k < cp; k++) {
            LGen g = {.xi = xi, .step = si, .sub = c, .chip = L->o->chips[t->src.rank], .port = -1,
                      .src = src + (cs + off) * L->es, .dst = dst + (cs + off) * L->es, .elems = clen[k],
                      .op = t->op == XFER_REDUCE ? L->o->op : SG2260_OP_NONE};
            lgen_add(&L->local, &g);
            off += clen[k];
        }
    }
}

/* The route of transfer xi from chip ca to cb into path (chips); its
 * length, or 0 after reporting that it cannot be taken. */
static int find_route(Planner *P, size_t xi, int ca, int cb, int *path) {
    const Lowering *L = P->L;
    const Sg2260Machine *m = L->m;
    const Transfer *t = &L->s->xfers[xi];
    int hops = route(m, ca, cb, path);
    if (sg2260_machine_port_to(m, ca, cb) >= 0 || (L->o->store_forward && hops > 0)) return hops;
    if (hops == 0) {
        diag_error(L->dx, t->span, "sg2260-no-link",
                   "transfer from rank %d (chip %d) to rank %d (chip %d): no route between the "
                   "chips on machine '%s'",
                   (int)t->src.rank, ca, (int)t->dst.rank, cb, m->name);
        lowering_xfer_note(L, xi);
        return 0;
    }
    diag_error(L->dx, t->span, "sg2260-no-link",
               "transfer from rank %d (chip %d) to rank %d (chip %d): the chips share no link",
               (int)t->src.rank, ca, (int)t->dst.rank, cb);
    char via[128] = "";
    size_t vl = 0;
    for (int i = 0; i < hops; i++) vl += (size_t)snprintf(via + vl, sizeof via - vl, "%s%d", i ? " -> " : "", path[i]);
    lowering_xfer_note(L, xi);
    diag_note(L->dx, t->span, "--route=store-forward routes it through other chips (%s)", via);
    return 0;
}

/* A transfer between chips along path (hops chips, >= 2): its pieces,
 * cut into segments when routed, one message per hop and segment. */
static void link_messages(Planner *P, StepWork *w, size_t xi, uint64_t src, uint64_t dst, uint64_t n,
                          const int *path, int hops) {
    Lowering *L = P->L;
    const Sg2260Machine *m = L->m;
    size_t es = L->es;
    int reduce = L->s->xfers[xi].op == XFER_REDUCE;
    uint64_t len[64];
    int np = sg2260_pieces(n, len);
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
            int np2 = sg2260_pieces(n1, l2);
            for (int j = 0; j < np2; j++) seg[nseg++] = l2[j];
            done += n1;
        }
    }
    if (hops > 2) L->st->routed++;
    uint64_t off = 0;
    for (int k = 0; k < nseg; k++) {
        uint64_t bytes = seg[k] * es, cur = src + off * es;
        for (int h = 0; h + 1 < hops; h++) {
            int u = path[h], v = path[h + 1], last = h + 2 == hops;
            LMsg lm = {.from = u, .to = v, .hop = h, .order = P->order++, .src = cur, .elems = seg[k],
                       .segment = k,
                       .op = last && reduce ? L->o->op : SG2260_OP_NONE,
                       .in_port = h ? sg2260_machine_port_to(m, u, path[h - 1]) : -1,
                       .out_port = last ? -1 : sg2260_machine_port_to(m, v, path[h + 2])};
            if (last) {
                lm.dst = dst + off * es;
            } else {
                lm.dst = L->lay->staging + P->stage_off[v];
                P->stage_off[v] = sg2260_align_up(P->stage_off[v] + bytes);
                if (P->stage_off[v] > P->staging_max) P->staging_max = P->stage_off[v];
            }
            cur = lm.dst;
            lmsg_add(w, &lm);
            L->st->link_msgs++;
        }
        off += seg[k];
    }
}

int sg2260_plan_messages(Lowering *L) {
    const Schedule *s = L->s;
    Planner P = {.L = L};
    int failed = 0;
    for (size_t si = 0; si < s->nsteps; si++) {
        StepWork *w = &L->work[si];
        for (int c = 0; c < SG2260_MAX_CHIPS; c++) P.stage_off[c] = 0;
        for (size_t xi = s->steps[si].first; xi < s->steps[si].first + s->steps[si].count; xi++) {
            const Transfer *t = &s->xfers[xi];
            int ca = L->o->chips[t->src.rank], cb = L->o->chips[t->dst.rank];
            uint64_t so = sg2260_chunk_elem_offset(s, L->o->count, t->src.lo);
            uint64_t doff = sg2260_chunk_elem_offset(s, L->o->count, t->dst.lo);
            uint64_t n = sg2260_chunk_elem_offset(s, L->o->count, t->src.hi) - so;
            COLLC_ASSERT(n == sg2260_chunk_elem_offset(s, L->o->count, t->dst.hi) - doff);
            if (n == 0) continue; /* empty chunks (count < split): nothing moves */
            uint64_t src = L->lay->base[t->src.buffer] + so * L->es;
            uint64_t dst = L->lay->base[t->dst.buffer] + doff * L->es;
            if (misaligned(&P, xi, src, dst)) {
                failed = 1;
                continue;
            }
            if (ca == cb) {
                local_chunks(&P, si, xi, src, dst, so);
                continue;
            }
            int path[SG2260_MAX_CHIPS];
            int hops = find_route(&P, xi, ca, cb, path);
            if (hops == 0) {
                failed = 1;
                continue;
            }
            link_messages(&P, w, xi, src, dst, n, path, hops);
        }
        if (w->nmsgs > 1) qsort(w->msgs, w->nmsgs, sizeof *w->msgs, cmp_msg);
    }
    if (P.misaligned > 1)
        diag_note(L->dx, s->alg->name_span, "%zu more transfers of '%s' are misaligned", P.misaligned - 1,
                  s->alg->name);
    L->lay->staging_bytes = P.staging_max;
    L->lay->end = sg2260_align_up(L->lay->staging + P.staging_max);
    return failed;
}
