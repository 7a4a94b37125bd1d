/* messages.c - SG2260 lowering, stage 2: what each step moves. A transfer
 * between two linked chips becomes link messages (one SEND/RECV pair per
 * piece), its pieces spread over the parallel links between the two chips in
 * proportion to their rates; a transfer between chips that share no link is
 * rejected (one diagnostic per statement), or with store_forward routed along
 * the machine's shortest path through the staging areas of the chips on the
 * way, in segments so that the hops overlap. A rank-local transfer is
 * collected chunk by chunk for copies.c (copies) and staging.c (reductions).
 * Reductions and fp20 views need 128-byte aligned addresses. */
#include "sg2260/lower_internal.h"
#include "support/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int sg2260_pieces(uint64_t n, uint64_t *len) {
    /* one packed view when the element count factors into N,C,H,W, else
     * 2^30-element blocks, a multiple of 2^14 and a rest below 2^14 (each
     * of which packs) */
    Sg2260Shape sh;
    if (n == 0) return 0;
    if (sg2260_shape_packed(n, &sh) == 0) {
        len[0] = n;
        return 1;
    }
    int k = 0;
    const uint64_t big = UINT64_C(1) << 30, mid = UINT64_C(1) << 14;
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
        for (int l = 0; l < m->nlinks; l++) {
            const Sg2260Link *k = &m->links[l];
            int w = k->a == v ? k->b : k->b == v ? k->a : -1;
            if (w >= 0 && prev[w] == -2) prev[w] = v, queue[qt++] = w;
        }
    }
    if (prev[b] == -2) return 0;
    int tmp[SG2260_MAX_CHIPS], n = 0;
    for (int v = b; v != -1; v = prev[v]) tmp[n++] = v;
    for (int i = 0; i < n; i++) path[i] = tmp[n - 1 - i];
    return n;
}

/* The links between chips a and b, fastest first (file order among equal
 * rates), at most SG2260_MAX_LINKS; returns how many. */
static int links_by_rate(const Sg2260Machine *m, int a, int b, int *ls) {
    int nl = sg2260_machine_links_between(m, a, b, ls, SG2260_MAX_LINKS);
    for (int i = 1; i < nl; i++) /* stable: insertion sort by rate, descending */
        for (int j = i; j > 0 && sg2260_machine_link_rate(m, ls[j]) > sg2260_machine_link_rate(m, ls[j - 1]); j--) {
            int x = ls[j];
            ls[j] = ls[j - 1];
            ls[j - 1] = x;
        }
    return nl;
}

/* Link l's place in the order the messages of a step are listed in: the
 * first file position of the links between its two chips, then its place
 * among them fastest first. Swapping two parallel links in the file changes
 * no message's place. */
static int link_key(const Sg2260Machine *m, int l) {
    int ls[SG2260_MAX_LINKS];
    int nl = links_by_rate(m, m->links[l].a, m->links[l].b, ls), first = l, pos = 0;
    for (int i = 0; i < nl; i++) {
        if (ls[i] < first) first = ls[i];
        if (ls[i] == l) pos = i;
    }
    return first * SG2260_MAX_LINKS + pos;
}

static int cmp_msg(const void *pa, const void *pb) {
    const LMsg *a = pa, *b = pb;
    if (a->from != b->from) return a->from < b->from ? -1 : 1;
    if (a->link_key != b->link_key) return a->link_key < b->link_key ? -1 : 1;
    if (a->hop != b->hop) return a->hop < b->hop ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* A transfer that could not be routed. */
typedef struct NoLink {
    size_t xi;
    int ca, cb, hops;
    int path[SG2260_MAX_CHIPS];
} NoLink;

/* State across the steps. */
typedef struct Planner {
    Lowering *L;
    size_t order;          /* messages created so far */
    size_t misaligned;     /* transfers with a misaligned address */
    uint64_t staging_max;  /* largest staging area of any chip and step */
    uint64_t stage_off[SG2260_MAX_CHIPS]; /* staging used in this step */
    NoLink *nolink;        /* unroutable transfers, in order */
    size_t nnolink, capnolink;
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
            LGen g = {.xi = xi, .step = si, .sub = c, .chip = L->o->chips[t->src.rank], .core = -1,
                      .src = src + (cs + off) * L->es, .dst = dst + (cs + off) * L->es, .elems = clen[k],
                      .op = t->op == XFER_REDUCE ? L->o->op : SG2260_OP_NONE};
            lgen_add(&L->local.gens, &L->local.ngens, &L->local.capgens, &g);
            off += clen[k];
        }
    }
}

/* The route of transfer xi from chip ca to cb into path (chips); its
 * length, or 0 when it cannot be taken (recorded for report_nolinks). */
static int find_route(Planner *P, size_t xi, int ca, int cb, int *path) {
    const Lowering *L = P->L;
    const Sg2260Machine *m = L->m;
    int hops = route(m, ca, cb, path);
    if (sg2260_machine_port_to(m, ca, cb) >= 0 || (L->o->store_forward && hops > 0)) return hops;
    if (P->nnolink == P->capnolink) {
        P->capnolink = P->capnolink ? 2 * P->capnolink : 16;
        P->nolink = xrealloc(P->nolink, P->capnolink * sizeof *P->nolink);
    }
    NoLink *n = &P->nolink[P->nnolink++];
    n->xi = xi, n->ca = ca, n->cb = cb, n->hops = hops;
    memcpy(n->path, path, sizeof n->path);
    return 0;
}

/* "7 -> 6 -> 2" */
static const char *route_text(const Lowering *L, const NoLink *n) {
    char via[128] = "";
    size_t vl = 0;
    for (int i = 0; i < n->hops && vl < sizeof via; i++)
        vl += (size_t)snprintf(via + vl, sizeof via - vl, "%s%d", i ? " -> " : "", n->path[i]);
    return arena_strdup(L->arena, via);
}

static int same_span(Span a, Span b) { return a.file == b.file && a.lo == b.lo && a.hi == b.hi; }

/* The unroutable transfers, one diagnostic per statement: the first few
 * transfers by rank and chip with their variables and route, then how many
 * more. */
static void report_nolinks(Planner *P) {
    Lowering *L = P->L;
    enum { SHOWN = 4 };
    uint8_t *done = xcalloc(P->nnolink + 1, 1);
    for (size_t i = 0; i < P->nnolink; i++) {
        if (done[i]) continue;
        Span span = L->s->xfers[P->nolink[i].xi].span;
        size_t group = 0;
        for (size_t j = i; j < P->nnolink; j++)
            if (!done[j] && same_span(L->s->xfers[P->nolink[j].xi].span, span)) group++;
        const NoLink *n = &P->nolink[i];
        const Transfer *t = &L->s->xfers[n->xi];
        if (group == 1 && n->hops == 0) {
            diag_error(L->dx, span, "sg2260-no-link",
                       "transfer from rank %d (chip %d) to rank %d (chip %d): no route between the chips on "
                       "machine '%s'",
                       (int)t->src.rank, n->ca, (int)t->dst.rank, n->cb, L->m->name);
            lowering_xfer_note(L, n->xi);
        } else if (group == 1) {
            diag_error(L->dx, span, "sg2260-no-link",
                       "transfer from rank %d (chip %d) to rank %d (chip %d): the chips share no link",
                       (int)t->src.rank, n->ca, (int)t->dst.rank, n->cb);
            lowering_xfer_note(L, n->xi);
            diag_note(L->dx, span, "--route=store-forward routes it through other chips (%s)", route_text(L, n));
        } else {
            diag_error(L->dx, span, "sg2260-no-link",
                       "%zu transfers of this statement connect chips that share no link on machine '%s'", group,
                       L->m->name);
        }
        size_t shown = 0;
        int routable = 1;
        for (size_t j = i; j < P->nnolink; j++) {
            if (done[j] || !same_span(L->s->xfers[P->nolink[j].xi].span, span)) continue;
            done[j] = 1;
            const NoLink *q = &P->nolink[j];
            routable &= q->hops > 0;
            if (group == 1 || shown++ >= SHOWN) continue;
            const Transfer *u = &L->s->xfers[q->xi];
            const char *vars = schedule_describe_transfer(L->s, q->xi, L->arena);
            if (q->hops)
                diag_note(L->dx, span, "rank %d (chip %d) -> rank %d (chip %d), with %s: route %s", (int)u->src.rank,
                          q->ca, (int)u->dst.rank, q->cb, vars && *vars ? vars : "no variables", route_text(L, q));
            else
                diag_note(L->dx, span, "rank %d (chip %d) -> rank %d (chip %d), with %s: no route", (int)u->src.rank,
                          q->ca, (int)u->dst.rank, q->cb, vars && *vars ? vars : "no variables");
        }
        if (group > 1 && group > SHOWN) diag_note(L->dx, span, "and %zu more", group - SHOWN);
        if (group > 1 && routable)
            diag_note(L->dx, span, "--route=store-forward routes them through other chips");
    }
    free(done);
}

/* Splits n elements over the links between a and b (in proportion to their
 * rates, pieces aligned to L->align) into len[]/link[]; returns how many.
 * The links are taken fastest first (file order among equal rates), and the
 * fastest takes what the rounding leaves and every message too small to
 * split: the pieces, their order in the buffer and their times do not
 * depend on the order the machine file declares parallel links in. */
static int spread(const Lowering *L, int a, int b, uint64_t n, uint64_t *len, int *link) {
    const Sg2260Machine *m = L->m;
    int ls[SG2260_MAX_LINKS];
    int nl = links_by_rate(m, a, b, ls);
    uint64_t unit = L->align / L->es;
    if (nl < 2 || n < 2 * unit) {
        len[0] = n, link[0] = nl > 0 ? ls[0] : m->port_link[a][sg2260_machine_port_to(m, a, b)];
        return 1;
    }
    double total = 0;
    for (int i = 0; i < nl; i++) total += sg2260_machine_link_rate(m, ls[i]);
    uint64_t share[SG2260_MAX_LINKS], rest = n;
    for (int i = 1; i < nl; i++) {
        share[i] = (uint64_t)((double)n * sg2260_machine_link_rate(m, ls[i]) / total) / unit * unit;
        if (share[i] > rest) share[i] = rest;
        rest -= share[i];
    }
    share[0] = rest;
    int k = 0;
    for (int i = 0; i < nl; i++) {
        if (!share[i]) continue;
        len[k] = share[i], link[k] = ls[i];
        k++;
    }
    return k;
}

/* Chip c's port on link l. */
static int port_at(const Sg2260Machine *m, int l, int c) {
    return m->links[l].a == c ? m->links[l].port_a : m->links[l].port_b;
}

/* A transfer between chips along path (hops chips, >= 2): its pieces, each
 * at most an L2 slot when it is a staged reduction, cut into segments when
 * routed, spread over parallel links when direct; one message per hop and
 * piece. */
static void link_messages(Planner *P, StepWork *w, size_t xi, uint64_t src, uint64_t dst, uint64_t n,
                          const int *path, int hops) {
    Lowering *L = P->L;
    const Sg2260Machine *m = L->m;
    size_t es = L->es;
    int reduce = L->s->xfers[xi].op == XFER_REDUCE;
    uint64_t unit = L->align / es;
    uint64_t len[64];
    int np = sg2260_pieces(n, len);
    /* pieces of a staged reduction fit half the L2 SRAM, so that two of
     * them pipeline */
    uint64_t cap = reduce && L->stage ? (m->l2_bytes / 2) / es / unit * unit : UINT64_MAX;
    if (cap == 0) cap = unit;
    /* a routed message moves in segments of >= 1 MiB (at most 8), so that
     * a hop forwards one segment while the next arrives */
    uint64_t *seg = NULL;
    size_t nseg = 0, capseg = 0;
    for (int k = 0; k < np; k++) {
        uint64_t nsub = hops > 2 ? len[k] * es / SG2260_ROUTE_SEGMENT_MIN : 1;
        if (nsub > SG2260_ROUTE_SEGMENTS) nsub = SG2260_ROUTE_SEGMENTS;
        if (nsub < 1) nsub = 1;
        uint64_t q = (len[k] / nsub + unit - 1) / unit * unit;
        if (q > cap) q = cap;
        for (uint64_t done = 0; done < len[k];) {
            uint64_t n1 = len[k] - done < q ? len[k] - done : q, l2[64];
            int np2 = sg2260_pieces(n1, l2);
            for (int j = 0; j < np2; j++) {
                if (nseg == capseg) seg = xrealloc(seg, (capseg = capseg ? 2 * capseg : 16) * sizeof *seg);
                seg[nseg++] = l2[j];
            }
            done += n1;
        }
    }
    if (hops > 2) L->st->routed++;
    uint64_t off = 0;
    for (size_t k = 0; k < nseg; k++) {
        uint64_t cur = src + off * es;
        for (int h = 0; h + 1 < hops; h++) {
            int u = path[h], v = path[h + 1], last = h + 2 == hops;
            uint64_t plen[SG2260_MAX_LINKS];
            int plink[SG2260_MAX_LINKS];
            /* a direct message uses every link between the two chips; a
             * routed hop the send port's, which the forwarding messages name */
            int npar = hops == 2 ? spread(L, u, v, seg[k], plen, plink) : 1;
            if (hops > 2) plen[0] = seg[k], plink[0] = m->port_link[u][sg2260_machine_port_to(m, u, v)];
            if (npar > 1) L->st->parallel++;
            uint64_t poff = 0, next = 0;
            for (int j = 0; j < npar; j++) {
                uint64_t bytes = plen[j] * es;
                LMsg lm = {.from = u, .to = v, .link = plink[j], .link_key = link_key(m, plink[j]),
                           .tx_port = port_at(m, plink[j], u), .rx_port = port_at(m, plink[j], v), .hop = h,
                           .order = P->order++, .xi = xi,
                           .src = cur + poff * es, .elems = plen[j], .segment = (int)k + j,
                           .op = last && reduce ? L->o->op : SG2260_OP_NONE,
                           .in_port = h ? sg2260_machine_recv_port(m, u, path[h - 1]) : -1,
                           .out_port = last ? -1 : sg2260_machine_port_to(m, v, path[h + 2])};
                if (last) {
                    lm.dst = dst + (off + poff) * es;
                } else {
                    lm.dst = L->lay->staging + P->stage_off[v];
                    P->stage_off[v] = sg2260_align_up(L, P->stage_off[v] + bytes);
                    if (P->stage_off[v] > P->staging_max) P->staging_max = P->stage_off[v];
                    next = lm.dst;
                }
                lmsg_add(w, &lm);
                L->st->link_msgs++;
                poff += plen[j];
            }
            cur = last ? cur : next;
        }
        off += seg[k];
    }
    free(seg);
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
    report_nolinks(&P);
    free(P.nolink);
    if (P.misaligned > 1)
        diag_note(L->dx, s->alg->name_span, "%zu more transfers of '%s' are misaligned", P.misaligned - 1,
                  s->alg->name);
    L->lay->staging_bytes = P.staging_max;
    L->lay->end = sg2260_align_up(L, L->lay->staging + P.staging_max);
    return failed;
}
