/* cost.c - the alpha-beta-gamma cost of a Schedule (model in cost.h and
 * docs/cost.md). Counts chunks in int64 and turns them into exact fractions
 * of M only per step, so the inner loop is integer arithmetic. */
#include "analysis/cost.h"

#include <stdlib.h>
#include <string.h>

#include "support/util.h"

int64_t cost_blocks(Collective coll, int64_t N) {
    const CollectiveInfo *ci = &collective_info[coll];
    return (ci->in_blocks == BLOCKS_N || ci->out_blocks == BLOCKS_N) ? N : 1;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* ceil(k / d) for k >= 0, d >= 1 */
static int64_t ceil_div(int64_t k, int64_t d) { return (k + d - 1) / d; }

/* One message as one end of it sees it: the rank, and the message's
 * start-up (the alpha of the first link of its route). */
typedef struct PortUse { int64_t rank; Rat startup; } PortUse;

static int cmp_port_use(const void *a, const void *b) {
    const PortUse *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return -rat_cmp(x->startup, y->startup); /* longest start-up first */
}

/* The port serialisation of one side (senders or receivers) when start-ups
 * differ: a rank with p ports starts its messages in waves of p, a wave
 * lasting as long as its longest start-up. Taking them longest first makes
 * the waves shortest: the sum of every p-th start-up, from the longest.
 * The max over ranks. (With equal start-ups s: ceil(k / p) * s.) */
static Rat port_waves(PortUse *u, size_t n, const int64_t *ports, int *ovf) {
    qsort(u, n, sizeof *u, cmp_port_use);
    Rat worst = rat_zero();
    for (size_t i = 0; i < n;) {
        size_t j = i;
        Rat sum = rat_zero();
        for (; j < n && u[j].rank == u[i].rank; j++)
            if ((int64_t)(j - i) % ports[u[i].rank] == 0) sum = rat_add(sum, u[j].startup, ovf);
        worst = rat_max(worst, sum);
        i = j;
    }
    return worst;
}

/* The work arrays of one pricing, reused from step to step. */
typedef struct CostWork {
    const Schedule *s;
    TopoModel *t;
    DiagEngine *dx;
    int64_t *load;        /* [nlinks] chunks crossing each link this step */
    int32_t *touched;     /* the links with a load */
    size_t ntouched;
    int64_t *reduced;     /* [N] chunks reduced into each rank */
    int64_t max_reduced;
    int64_t *copied;      /* [N] chunks copied rank-locally that cannot hide */
    uint8_t *hides;       /* [nsteps * N] t->local_copy: rank r's copies hide in
                             step k (it has link traffic there and receives no
                             reduction) */
    int64_t *sent, *recvd; /* [N] messages per rank (equal start-ups) */
    int32_t *route;       /* [nnodes] */
    int64_t *inj, *ej;    /* --ports on a graph: chunks each rank injects / ejects */
    int64_t max_port_load;
    uint64_t *pairs;      /* the messages: src * N + dst */
    size_t npairs, pairs_cap;
    PortUse *senders, *receivers; /* start-ups that differ */
    int max_hops;
    /* t->stage_tpb (step_pipelined): per link the time its messages of the
     * step have taken so far (and their time back to back), per rank its
     * DDR<->L2 path's time, per transfer of the step its landing time and
     * last link */
    Rat *link_free, *tx_to, *sendload;
    Rat *landed;
    int64_t *landed_len;
    size_t landed_cap;
    int ovf;
} CostWork;

static void work_init(CostWork *w, const Schedule *s, TopoModel *t, DiagEngine *dx) {
    memset(w, 0, sizeof *w);
    size_t N = (size_t)s->N;
    w->s = s;
    w->t = t;
    w->dx = dx;
    w->load = xcalloc(t->nlinks ? t->nlinks : 1, sizeof *w->load);
    w->touched = xmalloc((t->nlinks ? t->nlinks : 1) * sizeof *w->touched);
    w->reduced = xcalloc(N, sizeof *w->reduced);
    w->sent = xcalloc(N, sizeof *w->sent);
    w->recvd = xcalloc(N, sizeof *w->recvd);
    w->route = xmalloc((size_t)t->nnodes * sizeof *w->route);
    if (!rat_is_zero(t->local_copy)) {
        w->copied = xcalloc(N, sizeof *w->copied);
        w->hides = xcalloc(s->nsteps * N + 1, sizeof *w->hides);
        uint8_t *reduced = xcalloc(N, 1);
        for (size_t k = 0; k < s->nsteps; k++) {
            const Step *st = &s->steps[k];
            uint8_t *h = w->hides + k * N;
            for (size_t xi = st->first; xi < st->first + st->count; xi++) {
                const Transfer *x = &s->xfers[xi];
                if (x->op == XFER_REDUCE) reduced[x->dst.rank] = 1;
                if (x->src.rank != x->dst.rank) h[x->src.rank] = h[x->dst.rank] = 1;
            }
            for (size_t xi = st->first; xi < st->first + st->count; xi++) {
                int64_t r = s->xfers[xi].dst.rank;
                if (reduced[r]) h[r] = 0;
                reduced[r] = 0;
            }
        }
        free(reduced);
    }
    if (!rat_is_zero(t->stage_tpb)) {
        w->link_free = xmalloc((t->nlinks ? t->nlinks : 1) * sizeof *w->link_free);
        w->tx_to = xmalloc((size_t)t->nnodes * sizeof *w->tx_to);
        w->sendload = xmalloc((t->nlinks ? t->nlinks : 1) * sizeof *w->sendload);
        for (size_t k = 0; k < (size_t)t->nlinks; k++) w->link_free[k] = w->sendload[k] = rat_zero();
        for (int64_t k = 0; k < t->nnodes; k++) w->tx_to[k] = rat_zero();
    }
    if (t->port_limit) {
        w->inj = xcalloc(N, sizeof *w->inj);
        w->ej = xcalloc(N, sizeof *w->ej);
    }
}

static void work_free(CostWork *w) {
    free(w->load);
    free(w->touched);
    free(w->reduced);
    free(w->sent);
    free(w->recvd);
    free(w->route);
    free(w->copied);
    free(w->hides);
    free(w->pairs);
    free(w->senders);
    free(w->receivers);
    free(w->inj);
    free(w->ej);
    free(w->link_free);
    free(w->sendload);
    free(w->tx_to);
    free(w->landed);
    free(w->landed_len);
}

/* The chunks of rank-local copy xi (in step si) that cannot hide behind
 * link traffic: those with no step between si and the last one they may
 * move to (schedule_copy_deadline, the window the SG2260 lowering sinks
 * copies in) in which their rank's copies hide. */
static int64_t exposed_copy(const CostWork *w, size_t xi, size_t si) {
    const Schedule *s = w->s;
    const Transfer *x = &s->xfers[xi];
    size_t N = (size_t)s->N, r = (size_t)x->dst.rank;
    int64_t exposed = 0;
    for (int32_t sub = 0; sub < x->src.hi - x->src.lo; sub++) {
        size_t last = schedule_copy_deadline(s, xi, sub, si);
        int hidden = 0;
        for (size_t k = si; k <= last && !hidden; k++) hidden = w->hides[k * N + r];
        exposed += !hidden;
    }
    return exposed;
}

/* Loads the links, the reducers and the ports with the transfers of step
 * st and collects its messages. Returns 0, or -1 after reporting a transfer
 * the topology cannot route. */
static int step_transfers(CostWork *w, size_t si) {
    const Step *st = &w->s->steps[si];
    const Schedule *s = w->s;
    TopoModel *t = w->t;
    uint64_t N = (uint64_t)s->N;
    w->ntouched = w->npairs = 0;
    w->max_reduced = 0;
    if (st->count > w->pairs_cap) {
        w->pairs_cap = st->count;
        w->pairs = xrealloc(w->pairs, w->pairs_cap * sizeof *w->pairs);
        if (!t->uniform_startup) {
            w->senders = xrealloc(w->senders, w->pairs_cap * sizeof *w->senders);
            w->receivers = xrealloc(w->receivers, w->pairs_cap * sizeof *w->receivers);
        }
    }
    for (size_t xi = st->first; xi < st->first + st->count; xi++) {
        const Transfer *x = &s->xfers[xi];
        int64_t len = x->src.hi - x->src.lo;
        if (x->op == XFER_REDUCE) {
            w->reduced[x->dst.rank] += len;
            if (w->reduced[x->dst.rank] > w->max_reduced) w->max_reduced = w->reduced[x->dst.rank];
        }
        if (x->src.rank == x->dst.rank) { /* local: free, or priced by step_compute */
            if (w->hides && x->op != XFER_REDUCE) w->copied[x->dst.rank] += exposed_copy(w, xi, si);
            continue;
        }
        int h = topo_route(t, x->src.rank, x->dst.rank, w->route);
        if (h < 0) {
            diag_error(w->dx, x->span, "cost-unroutable", "topology '%s' has no path from rank %d to rank %d",
                       t->name, (int)x->src.rank, (int)x->dst.rank);
            Arena tmp;
            arena_init(&tmp);
            const char *why = schedule_describe_transfer(s, xi, &tmp);
            if (why && *why) diag_note(w->dx, x->span, "with %s", why);
            arena_free(&tmp);
            return -1;
        }
        for (int k = 0; k < h; k++) {
            if (w->load[w->route[k]] == 0) w->touched[w->ntouched++] = w->route[k];
            w->load[w->route[k]] += len;
        }
        w->pairs[w->npairs++] = (uint64_t)x->src.rank * N + (uint64_t)x->dst.rank;
        if (w->inj) {
            w->inj[x->src.rank] += len;
            w->ej[x->dst.rank] += len;
            if (w->inj[x->src.rank] > w->max_port_load) w->max_port_load = w->inj[x->src.rank];
            if (w->ej[x->dst.rank] > w->max_port_load) w->max_port_load = w->ej[x->dst.rank];
        }
    }
    return 0;
}

/* The latency term of the step's messages: the largest route alpha, or the
 * port serialisation when that is longer. */
static Rat step_latency(CostWork *w) {
    TopoModel *t = w->t;
    uint64_t N = (uint64_t)w->s->N;
    if (!w->npairs) return rat_zero();
    uint64_t *pairs = w->pairs;
    qsort(pairs, w->npairs, sizeof *pairs, cmp_u64);
    size_t u = 0;
    for (size_t k = 0; k < w->npairs; k++)
        if (u == 0 || pairs[u - 1] != pairs[k]) pairs[u++] = pairs[k];
    size_t npairs = w->npairs = u;
    Rat a = rat_zero();
    for (size_t k = 0; k < npairs; k++) {
        int64_t src = (int64_t)(pairs[k] / N), dst = (int64_t)(pairs[k] % N);
        int h = topo_route(t, src, dst, w->route);
        Rat ra = rat_zero();
        for (int j = 0; j < h; j++)
            ra = t->cut_through ? rat_max(ra, t->links[w->route[j]].alpha)
                                : rat_add(ra, t->links[w->route[j]].alpha, &w->ovf);
        a = rat_max(a, ra);
        if (h > w->max_hops) w->max_hops = h;
        if (t->uniform_startup) {
            w->sent[src]++;
            w->recvd[dst]++;
        } else {
            Rat su = t->links[w->route[0]].alpha;
            w->senders[k] = (PortUse){src, su};
            w->receivers[k] = (PortUse){dst, su};
        }
    }
    /* port serialisation: each rank starts (and accepts) at most msg_ports
     * messages at a time, each paying its start-up */
    Rat ser;
    if (t->uniform_startup) {
        int64_t waves = 0;
        for (size_t k = 0; k < npairs; k++) {
            int64_t src = (int64_t)(pairs[k] / N), dst = (int64_t)(pairs[k] % N);
            int64_t v1 = ceil_div(w->sent[src], t->msg_ports[src]);
            int64_t v2 = ceil_div(w->recvd[dst], t->msg_ports[dst]);
            if (v1 > waves) waves = v1;
            if (v2 > waves) waves = v2;
        }
        for (size_t k = 0; k < npairs; k++) {
            w->sent[pairs[k] / N] = 0;
            w->recvd[pairs[k] % N] = 0;
        }
        ser = rat_mul(rat_int(waves), t->startup, &w->ovf);
    } else {
        ser = rat_max(port_waves(w->senders, npairs, t->msg_ports, &w->ovf),
                      port_waves(w->receivers, npairs, t->msg_ports, &w->ovf));
    }
    return rat_max(a, ser);
}

/* The link of t from node a to node b, or -1. */
static int32_t link_between(const TopoModel *t, int64_t a, int64_t b) {
    for (int32_t k = 0; k < (int32_t)t->nlinks; k++)
        if (t->links[k].from == a && t->links[k].to == b) return k;
    return -1;
}

/* The compute term of step st in chunks on a topology with stage_tpb: the
 * part of the step's stagings that does not overlap its link transfers, as
 * the SG2260 backend runs them on each rank's one DDR<->L2 path (x =
 * t->stage_tpb a chunk crossing, in the units of the bandwidth term):
 *  - a rank's path first takes its exposed copies, then every staging-in
 *    COPY in transfer order (a rank-local reduction takes two crossings);
 *  - each message takes its last link in transfer order, a reducing one
 *    once its slot is staged in;
 *  - then every staging-out COPY in the same order, each once its RECV has
 *    landed, and on a port that also sends to that peer in the step once
 *    the port's last RECV has landed and its sends are done (the fence
 *    before the "landed" message follows the port's last command of the
 *    step); the sends are timed from the step's start, at their link's
 *    rate, without the wait for the peer's credits.
 * The step lasts max(bw, the slowest rank's path), a rank without staged
 * reductions taking bw plus its exposed copies, and a rank that receives a
 * routed reduction bw plus all its crossings (in series, as step_compute:
 * this timing knows only a transfer's last hop); the excess over bw is
 * expressed in chunks of the compute term (two crossings). Clears the
 * counts. */
static Rat step_pipelined(CostWork *w, const Step *st, Rat bw) {
    const Schedule *s = w->s;
    TopoModel *t = w->t;
    Rat x = t->stage_tpb, T = bw;
    int *ovf = &w->ovf;
    size_t n = st->count;
    if (n > w->landed_cap) {
        w->landed_cap = n;
        w->landed = xrealloc(w->landed, n * sizeof *w->landed);
        w->landed_len = xrealloc(w->landed_len, n * sizeof *w->landed_len);
    }
    /* w->tx_to[r]: rank r's path after its copies and staging-in; landed[i]:
     * when transfer i's data is on its rank; landed_len[i]: its last link;
     * sendload: each link's bytes of the step at its rate, ungated */
    for (size_t xi = st->first; xi < st->first + n; xi++) {
        int64_t r = s->xfers[xi].dst.rank;
        w->tx_to[r] = w->copied ? rat_mul(rat_int(w->copied[r]), x, ovf) : rat_zero();
    }
    for (size_t i = 0; i < n; i++) {
        const Transfer *e = &s->xfers[st->first + i];
        int64_t r = e->dst.rank, len = e->src.hi - e->src.lo;
        Rat lx = rat_mul(rat_int(len), x, ovf);
        w->landed_len[i] = -1;
        if (e->src.rank == r) {
            if (e->op == XFER_REDUCE) w->tx_to[r] = rat_add(w->tx_to[r], rat_add(lx, lx, ovf), ovf);
            continue;
        }
        int h = topo_route(t, e->src.rank, r, w->route);
        int32_t li = w->route[h - 1];
        Rat start = w->link_free[li];
        if (e->op == XFER_REDUCE) {
            w->tx_to[r] = rat_add(w->tx_to[r], lx, ovf);
            start = rat_max(start, w->tx_to[r]);
        }
        w->link_free[li] = rat_add(start, rat_mul(rat_int(len), t->links[li].tpb, ovf), ovf);
        w->sendload[li] = rat_add(w->sendload[li], rat_mul(rat_int(len), t->links[li].tpb, ovf), ovf);
        w->landed[i] = w->link_free[li];
        w->landed_len[i] = li;
    }
    for (size_t i = 0; i < n; i++) {
        const Transfer *e = &s->xfers[st->first + i];
        int64_t r = e->dst.rank;
        if (e->op != XFER_REDUCE || w->landed_len[i] < 0) continue;
        int32_t li = (int32_t)w->landed_len[i];
        int32_t back = link_between(t, r, t->links[li].from);
        Rat landed = w->landed[i];
        if (back >= 0 && !rat_is_zero(w->sendload[back]))
            landed = rat_max(landed, rat_max(w->link_free[li], w->sendload[back]));
        w->tx_to[r] = rat_add(rat_max(w->tx_to[r], landed),
                              rat_mul(rat_int(e->src.hi - e->src.lo), x, ovf), ovf);
    }
    /* a rank that receives a routed reduction: its stagings in series with
     * bw (the timing above knows only the last hop) */
    for (size_t i = 0; i < n; i++) {
        const Transfer *e = &s->xfers[st->first + i];
        if (e->op == XFER_REDUCE && w->landed_len[i] >= 0 && topo_route(t, e->src.rank, e->dst.rank, w->route) > 1)
            w->reduced[e->dst.rank] = -w->reduced[e->dst.rank] - 1;
    }
    for (size_t xi = st->first; xi < st->first + n; xi++) {
        int64_t r = s->xfers[xi].dst.rank;
        if (w->reduced[r] < 0) {
            Rat serial = rat_mul(rat_add(rat_int(2 * (-w->reduced[r] - 1)), w->copied ? rat_int(w->copied[r]) : rat_zero(),
                                         ovf), x, ovf);
            T = rat_max(T, rat_add(bw, serial, ovf));
        } else if (w->reduced[r] > 0) T = rat_max(T, w->tx_to[r]);
        else if (w->copied && w->copied[r]) T = rat_max(T, rat_add(bw, rat_mul(rat_int(w->copied[r]), x, ovf), ovf));
    }
    for (size_t i = 0; i < n; i++) {
        const Transfer *e = &s->xfers[st->first + i];
        w->reduced[e->dst.rank] = 0;
        if (w->copied) w->copied[e->dst.rank] = 0;
        w->tx_to[e->dst.rank] = rat_zero();
        if (w->landed_len[i] >= 0) w->link_free[w->landed_len[i]] = w->sendload[w->landed_len[i]] = rat_zero();
    }
    return rat_div(rat_sub(T, bw, ovf), rat_add(x, x, ovf), ovf);
}

/* The compute term of step st in chunks: the busiest rank's reductions and,
 * on a topology that prices local copies (t->local_copy), the copies of the
 * step that cannot hide behind link traffic (exposed_copy). Clears the
 * counts. */
static Rat step_compute(CostWork *w, const Step *st) {
    const Schedule *s = w->s;
    Rat c = rat_int(w->max_reduced);
    for (size_t xi = st->first; w->copied && xi < st->first + st->count; xi++) {
        int64_t r = s->xfers[xi].dst.rank;
        if (w->copied[r])
            c = rat_max(c, rat_add(rat_int(w->reduced[r]), rat_mul(rat_int(w->copied[r]), w->t->local_copy, &w->ovf),
                                   &w->ovf));
    }
    for (size_t xi = st->first; xi < st->first + st->count; xi++) {
        w->reduced[s->xfers[xi].dst.rank] = 0;
        if (w->copied) w->copied[s->xfers[xi].dst.rank] = 0;
    }
    return c;
}

/* The bandwidth term of step st in chunks: its busiest link (or the port
 * limit); clears the loads. */
static Rat step_bandwidth(CostWork *w, const Step *st) {
    TopoModel *t = w->t;
    Rat b = rat_zero();
    for (size_t k = 0; k < w->ntouched; k++) {
        const TopoLink *l = &t->links[w->touched[k]];
        b = rat_max(b, rat_mul(rat_int(w->load[w->touched[k]]), l->tpb, &w->ovf));
        w->load[w->touched[k]] = 0;
    }
    if (w->inj && w->max_port_load) {
        b = rat_max(b, rat_make(w->max_port_load, t->port_limit, &w->ovf));
        for (size_t xi = st->first; xi < st->first + st->count; xi++) {
            w->inj[w->s->xfers[xi].src.rank] = 0;
            w->ej[w->s->xfers[xi].dst.rank] = 0;
        }
        w->max_port_load = 0;
    }
    return b;
}

int cost_schedule(const Schedule *s, TopoModel *t, DiagEngine *dx, int keep_steps,
                  CostResult *out) {
    memset(out, 0, sizeof *out);
    int64_t N = s->N;
    COLLC_ASSERT(t->N == N);
    CostWork w;
    work_init(&w, s, t, dx);
    out->chunk = rat_make(1, cost_blocks(s->alg->coll, N) * s->split, &w.ovf);
    out->total.a = out->total.b = out->total.c = rat_zero();
    out->nsteps = s->nsteps;
    if (keep_steps) out->steps = xcalloc(s->nsteps ? s->nsteps : 1, sizeof *out->steps);
    int status = 0;
    for (size_t si = 0; si < s->nsteps && status == 0; si++) {
        const Step *st = &s->steps[si];
        if (step_transfers(&w, si)) {
            status = -1;
            break;
        }
        CostTerms step = {rat_zero(), rat_zero(), rat_zero()};
        step.a = step_latency(&w);
        Rat bw = step_bandwidth(&w, st);
        step.b = rat_mul(bw, out->chunk, &w.ovf);
        /* compute: the busiest reducer (and the local copies it waits for),
         * or on an SG2260 machine file the stagings that outlast the links */
        Rat c = rat_is_zero(t->stage_tpb) ? step_compute(&w, st) : step_pipelined(&w, st, bw);
        step.c = rat_mul(c, out->chunk, &w.ovf);
        if (!rat_is_zero(step.a) || !rat_is_zero(step.b) || !rat_is_zero(step.c)) out->comm_steps++;
        out->total.a = rat_add(out->total.a, step.a, &w.ovf);
        out->total.b = rat_add(out->total.b, step.b, &w.ovf);
        out->total.c = rat_add(out->total.c, step.c, &w.ovf);
        if (out->steps) out->steps[si] = step;
        if (w.ovf) {
            diag_error(dx, st->span, "cost-overflow",
                       "cost coefficients of '%s' exceed 64-bit fractions at this step (N = %lld)", s->alg->name,
                       (long long)N);
            status = -1;
        }
    }
    out->max_hops = w.max_hops;
    work_free(&w);
    if (status) cost_result_free(out);
    return status;
}

void cost_result_free(CostResult *r) {
    free(r->steps);
    r->steps = NULL;
}

double cost_alpha_time(CostTerms t, const CostMachine *m) { return rat_to_double(t.a) * m->alpha; }
double cost_beta_time(CostTerms t, const CostMachine *m) {
    return m->beta > 0 ? rat_to_double(t.b) * m->M / m->beta : 0;
}
double cost_gamma_time(CostTerms t, const CostMachine *m) {
    return m->gamma > 0 ? rat_to_double(t.c) * m->M / m->gamma : 0;
}
double cost_time(CostTerms t, const CostMachine *m) {
    return cost_alpha_time(t, m) + cost_beta_time(t, m) + cost_gamma_time(t, m);
}
