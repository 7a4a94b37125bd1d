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

int cost_schedule(const Schedule *s, TopoModel *t, DiagEngine *dx, int keep_steps,
                  CostResult *out) {
    memset(out, 0, sizeof *out);
    int ovf = 0;
    int64_t N = s->N;
    COLLC_ASSERT(t->N == N);
    out->chunk = rat_make(1, cost_blocks(s->alg->coll, N) * s->split, &ovf);
    out->total.a = out->total.b = out->total.c = rat_zero();
    out->nsteps = s->nsteps;
    if (keep_steps) out->steps = xcalloc(s->nsteps ? s->nsteps : 1, sizeof *out->steps);

    int64_t *load = xcalloc(t->nlinks ? t->nlinks : 1, sizeof *load);
    int32_t *touched = xmalloc((t->nlinks ? t->nlinks : 1) * sizeof *touched);
    int64_t *reduced = xcalloc((size_t)N, sizeof *reduced);
    int64_t *sent = xcalloc((size_t)N, sizeof *sent);
    int64_t *recvd = xcalloc((size_t)N, sizeof *recvd);
    int32_t *route = xmalloc((size_t)t->nnodes * sizeof *route);
    /* --ports on a graph: chunks each rank injects / ejects this step */
    int64_t *inj = t->port_limit ? xcalloc((size_t)N, sizeof *inj) : NULL;
    int64_t *ej = t->port_limit ? xcalloc((size_t)N, sizeof *ej) : NULL;
    int64_t max_port_load = 0;
    uint64_t *pairs = NULL;
    PortUse *senders = NULL, *receivers = NULL; /* start-ups that differ */
    size_t pairs_cap = 0;
    int status = 0;

    for (size_t si = 0; si < s->nsteps && status == 0; si++) {
        const Step *st = &s->steps[si];
        size_t ntouched = 0, npairs = 0;
        int64_t max_reduced = 0;
        int any_reduce = 0;
        if (st->count > pairs_cap) {
            pairs_cap = st->count;
            pairs = xrealloc(pairs, pairs_cap * sizeof *pairs);
            if (!t->uniform_startup) {
                senders = xrealloc(senders, pairs_cap * sizeof *senders);
                receivers = xrealloc(receivers, pairs_cap * sizeof *receivers);
            }
        }
        for (size_t xi = st->first; xi < st->first + st->count; xi++) {
            const Transfer *x = &s->xfers[xi];
            int64_t len = x->src.hi - x->src.lo;
            if (x->op == XFER_REDUCE) {
                reduced[x->dst.rank] += len;
                if (reduced[x->dst.rank] > max_reduced) max_reduced = reduced[x->dst.rank];
                any_reduce = 1;
            }
            if (x->src.rank == x->dst.rank) continue; /* local: free */
            int h = topo_route(t, x->src.rank, x->dst.rank, route);
            if (h < 0) {
                diag_error(dx, x->span, "cost-unroutable",
                           "topology '%s' has no path from rank %d to rank %d", t->name,
                           (int)x->src.rank, (int)x->dst.rank);
                Arena tmp;
                arena_init(&tmp);
                const char *why = schedule_describe_transfer(s, xi, &tmp);
                if (why && *why) diag_note(dx, x->span, "with %s", why);
                arena_free(&tmp);
                status = -1;
                break;
            }
            for (int k = 0; k < h; k++) {
                if (load[route[k]] == 0) touched[ntouched++] = route[k];
                load[route[k]] += len;
            }
            pairs[npairs++] = (uint64_t)x->src.rank * (uint64_t)N + (uint64_t)x->dst.rank;
            if (inj) {
                inj[x->src.rank] += len;
                ej[x->dst.rank] += len;
                if (inj[x->src.rank] > max_port_load) max_port_load = inj[x->src.rank];
                if (ej[x->dst.rank] > max_port_load) max_port_load = ej[x->dst.rank];
            }
        }
        if (status) break;

        CostTerms step = {rat_zero(), rat_zero(), rat_zero()};
        /* latency: distinct messages, their route alphas and port serialisation */
        if (npairs) {
            qsort(pairs, npairs, sizeof *pairs, cmp_u64);
            size_t u = 0;
            for (size_t k = 0; k < npairs; k++)
                if (u == 0 || pairs[u - 1] != pairs[k]) pairs[u++] = pairs[k];
            npairs = u;
            Rat a = rat_zero();
            for (size_t k = 0; k < npairs; k++) {
                int64_t src = (int64_t)(pairs[k] / (uint64_t)N), dst = (int64_t)(pairs[k] % (uint64_t)N);
                int h = topo_route(t, src, dst, route);
                Rat ra = rat_zero();
                for (int j = 0; j < h; j++)
                    ra = t->cut_through ? rat_max(ra, t->links[route[j]].alpha)
                                        : rat_add(ra, t->links[route[j]].alpha, &ovf);
                a = rat_max(a, ra);
                if (h > out->max_hops) out->max_hops = h;
                if (t->uniform_startup) {
                    sent[src]++;
                    recvd[dst]++;
                } else {
                    Rat su = t->links[route[0]].alpha;
                    senders[k] = (PortUse){src, su};
                    receivers[k] = (PortUse){dst, su};
                }
            }
            /* port serialisation: each rank starts (and accepts) at most
             * msg_ports messages at a time, each paying its start-up */
            Rat ser;
            if (t->uniform_startup) {
                int64_t waves = 0;
                for (size_t k = 0; k < npairs; k++) {
                    int64_t src = (int64_t)(pairs[k] / (uint64_t)N), dst = (int64_t)(pairs[k] % (uint64_t)N);
                    int64_t v1 = ceil_div(sent[src], t->msg_ports[src]);
                    int64_t v2 = ceil_div(recvd[dst], t->msg_ports[dst]);
                    if (v1 > waves) waves = v1;
                    if (v2 > waves) waves = v2;
                }
                for (size_t k = 0; k < npairs; k++) {
                    sent[pairs[k] / (uint64_t)N] = 0;
                    recvd[pairs[k] % (uint64_t)N] = 0;
                }
                ser = rat_mul(rat_int(waves), t->startup, &ovf);
            } else {
                ser = rat_max(port_waves(senders, npairs, t->msg_ports, &ovf),
                              port_waves(receivers, npairs, t->msg_ports, &ovf));
            }
            step.a = rat_max(a, ser);
        }
        /* bandwidth: the busiest link */
        Rat b = rat_zero();
        for (size_t k = 0; k < ntouched; k++) {
            const TopoLink *l = &t->links[touched[k]];
            b = rat_max(b, rat_mul(rat_int(load[touched[k]]), l->tpb, &ovf));
            load[touched[k]] = 0;
        }
        if (inj && max_port_load) {
            b = rat_max(b, rat_make(max_port_load, t->port_limit, &ovf));
            for (size_t xi = st->first; xi < st->first + st->count; xi++) {
                inj[s->xfers[xi].src.rank] = 0;
                ej[s->xfers[xi].dst.rank] = 0;
            }
            max_port_load = 0;
        }
        step.b = rat_mul(b, out->chunk, &ovf);
        /* compute: the busiest reducer */
        if (any_reduce) {
            step.c = rat_mul(rat_int(max_reduced), out->chunk, &ovf);
            for (size_t xi = st->first; xi < st->first + st->count; xi++)
                reduced[s->xfers[xi].dst.rank] = 0;
        }
        if (!rat_is_zero(step.a) || !rat_is_zero(step.b) || !rat_is_zero(step.c))
            out->comm_steps++;
        out->total.a = rat_add(out->total.a, step.a, &ovf);
        out->total.b = rat_add(out->total.b, step.b, &ovf);
        out->total.c = rat_add(out->total.c, step.c, &ovf);
        if (out->steps) out->steps[si] = step;
        if (ovf) {
            diag_error(dx, st->span, "cost-overflow",
                       "cost coefficients of '%s' exceed 64-bit fractions at this step (N = %lld)",
                       s->alg->name, (long long)N);
            status = -1;
        }
    }
    free(load);
    free(touched);
    free(reduced);
    free(sent);
    free(recvd);
    free(route);
    free(pairs);
    free(senders);
    free(receivers);
    free(inj);
    free(ej);
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
