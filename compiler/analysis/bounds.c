/* bounds.c - lower bounds on a, b, c for a collective on a topology.
 *
 * Sources (docs/cost.md has the derivations):
 *  - Chan, Heimlich, Purkayastha, van de Geijn, "Collective communication:
 *    theory, practice, and experience", CCPE 19(13), 2007, Table 1: latency
 *    ceil(log2 p)*alpha for all eight collectives; bandwidth n*beta for
 *    broadcast and reduce, (p-1)/p*n*beta for scatter, gather, allgather,
 *    reduce-scatter, 2(p-1)/p*n*beta for allreduce; computation
 *    (p-1)/p*n*gamma for the reducing ones.
 *  - Thakur, Rabenseifner, Gropp, "Optimization of collective communication
 *    operations in MPICH", IJHPCA 19(1), 2005: the same model; alltoall's
 *    (p-1)/p*n*beta per node.
 *  - Patarasuk, Yuan, "Bandwidth optimal all-reduce algorithms for clusters
 *    of workstations", JPDC 69(2), 2009: 2(p-1)/p*n*beta for allreduce.
 * With d ports the latency bound becomes ceil(log_{d+1} p) (every informed
 * rank informs at most d more per round) and every bandwidth bound is a
 * cut bound: bytes that must cross the cut over the capacity of the links
 * crossing it. Single-node cuts reproduce the per-node formulas above with
 * the node's real capacity (d*beta on full(d)); bisections and other cuts
 * add the topology. */
#include "analysis/cost.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/maxflow.h"
#include "support/util.h"

/* Bytes (fraction of M) that must enter and leave a node set S holding k of
 * the N ranks (root_in: the root is in S). */
static void cut_need(Collective coll, int64_t N, int64_t k, int root_in, Rat *in, Rat *out,
                     int *ovf) {
    *in = *out = rat_zero();
    if (k == 0 && coll != COLLECTIVE_BROADCAST && coll != COLLECTIVE_SCATTER && coll != COLLECTIVE_GATHER &&
        coll != COLLECTIVE_REDUCE)
        return;
    int64_t rest = N - k;
    switch (coll) {
    case COLLECTIVE_ALLGATHER:
        /* every rank in S needs the blocks of the ranks outside, and v.v. */
        if (k > 0) *in = rat_make(rest, N, ovf);
        if (rest > 0) *out = rat_make(k, N, ovf);
        break;
    case COLLECTIVE_REDUCE_SCATTER:
        /* each rank's result block needs every other rank's input for it */
        if (rest > 0) *in = rat_make(k, N, ovf);
        if (k > 0) *out = rat_make(rest, N, ovf);
        break;
    case COLLECTIVE_ALLREDUCE:
        if (k > 0 && rest > 0) *in = *out = rat_int(1);
        break;
    case COLLECTIVE_ALLTOALL:
        /* each of the k ranks gets one block (M/N) from each of the rest */
        if (k > 0 && rest > 0) *in = *out = rat_make(k * rest, N, ovf);
        break;
    case COLLECTIVE_BROADCAST:
        if (!root_in && k > 0) *in = rat_int(1);
        if (root_in && rest > 0) *out = rat_int(1);
        break;
    case COLLECTIVE_SCATTER:
        if (!root_in) *in = rat_make(k, N, ovf);
        else *out = rat_make(rest, N, ovf);
        break;
    case COLLECTIVE_GATHER:
        if (root_in) *in = rat_make(rest, N, ovf);
        else *out = rat_make(k, N, ovf);
        break;
    case COLLECTIVE_REDUCE:
        if (root_in && rest > 0) *in = rat_int(1);
        if (!root_in && k > 0) *out = rat_int(1);
        break;
    case COLLECTIVE__COUNT: COLLC_UNREACHABLE("not a collective");
    }
}

typedef struct CutCtx {
    Collective coll;
    int64_t N, root;
    TopoModel *t;
    uint8_t *in_s;     /* [nnodes] membership */
    Rat best;
    char *why;
    size_t whysz;
    int64_t split;     /* > 0: also the bound at this split (split_tail) */
    Rat best_split;
    char *why_split;
    size_t why_splitsz;
    int ovf;
} CutCtx;

/* Describes a cut's set for the report: "node 3", or "nodes {0..3, 8}"
 * (runs of consecutive nodes; ", ...}" when it does not fit). */
static void describe_set(CutCtx *c, char *buf, size_t size) {
    int64_t nn = c->t->nnodes, cnt = 0, first = -1;
    for (int64_t v = 0; v < nn; v++)
        if (c->in_s[v]) cnt++, first = first < 0 ? v : first;
    if (cnt == 1) {
        snprintf(buf, size, "node %lld", (long long)first);
        return;
    }
    size_t len = (size_t)snprintf(buf, size, "nodes {");
    for (int64_t v = 0; v < nn && len < size; v++) {
        if (!c->in_s[v] || (v > 0 && c->in_s[v - 1])) continue;
        int64_t end = v;
        while (end + 1 < nn && c->in_s[end + 1]) end++;
        char run[48];
        if (end == v) snprintf(run, sizeof run, "%s%lld", v > first ? ", " : "", (long long)v);
        else snprintf(run, sizeof run, "%s%lld..%lld", v > first ? ", " : "", (long long)v, (long long)end);
        if (len + strlen(run) + 6 >= size) {
            snprintf(buf + len, size - len, ", ...");
            len = strlen(buf);
            break;
        }
        len += (size_t)snprintf(buf + len, size - len, "%s", run);
    }
    snprintf(buf + len, size - len, "}");
}

/* "cut: 1/2·M must go into nodes {4..7, 9} over 25/64·β" into buf. */
static void describe_cut(CutCtx *c, int into, Rat need, Rat cap, const char *kind, char *buf, size_t size) {
    TopoModel *t = c->t;
    char set[96], nd[48], cp[48];
    int64_t cnt = 0, last_out = -1;
    for (int64_t x = 0; x < t->nnodes; x++) {
        cnt += c->in_s[x];
        if (!c->in_s[x]) last_out = x;
    }
    if (cnt == t->nnodes - 1) {
        /* the complement of one node: say it from that node's side */
        snprintf(set, sizeof set, "node %lld", (long long)last_out);
        into = !into;
        cnt = 1;
    } else {
        describe_set(c, set, sizeof set);
    }
    if (!kind) kind = cnt == 1 ? "node cut" : "cut";
    rat_format(need, nd, sizeof nd);
    rat_format(cap, cp, sizeof cp);
    snprintf(buf, size, "%s: %s·M must go %s %s over %s·β", kind, nd, into ? "into" : "out of", set, cp);
}

/* chunk * min(1/cap, the least time per byte of a link into a rank on
 * `side` of the cut: 1 = S, 0 = its complement); 0 where that side holds
 * fewer than two ranks. */
static Rat side_step(CutCtx *c, int side, Rat cap) {
    TopoModel *t = c->t;
    int64_t ranks = 0;
    for (int64_t r = 0; r < c->N; r++) ranks += c->in_s[r] == side;
    if (ranks < 2) return rat_zero();
    Rat per = rat_div(rat_int(1), cap, &c->ovf);
    Rat floor_tpb = t->port_limit ? rat_make(1, t->port_limit, &c->ovf) : rat_zero();
    for (size_t li = 0; li < t->nlinks; li++) {
        const TopoLink *l = &t->links[li];
        if (l->to >= c->N || c->in_s[l->to] != side) continue;
        Rat tpb = rat_max(l->tpb, floor_tpb); /* a rank ejects at most port_limit·β */
        if (rat_cmp(tpb, per) < 0) per = tpb;
    }
    /* the chunk the cost model prices a step with (cost.c) */
    Rat chunk = rat_div(rat_make(1, cost_blocks(c->coll, c->N), &c->ovf), rat_int(c->split), &c->ovf);
    return rat_mul(chunk, per, &c->ovf);
}

/* The step model's price of a finite split on the cut in one direction
 * (docs/cost.md section 2, "At a finite split"): the ranks on the side
 * that receives the crossing data need the last chunk to cross passed on
 * in a later step (AllGather, AllReduce), and those on the side that sends
 * it gather the first chunk to cross in an earlier step (ReduceScatter,
 * AllReduce), unless the chunk crosses once more. *what: "last", "first",
 * "first and the last". */
static Rat split_tail(CutCtx *c, int into, Rat cap, const char **what) {
    int last = c->coll == COLLECTIVE_ALLGATHER || c->coll == COLLECTIVE_ALLREDUCE;
    int first = c->coll == COLLECTIVE_REDUCE_SCATTER || c->coll == COLLECTIVE_ALLREDUCE;
    Rat tl = last ? side_step(c, into, cap) : rat_zero();
    Rat tf = first ? side_step(c, !into, cap) : rat_zero();
    *what = !rat_is_zero(tl) && !rat_is_zero(tf) ? "first and the last" : !rat_is_zero(tl) ? "last" : "first";
    return rat_add(tl, tf, &c->ovf);
}

static void eval_cut(CutCtx *c, const char *kind) {
    TopoModel *t = c->t;
    int64_t k = 0;
    for (int64_t r = 0; r < c->N; r++) k += c->in_s[r];
    int root_in = c->root >= 0 ? c->in_s[c->root] : 0;
    Rat need_in, need_out;
    cut_need(c->coll, c->N, k, root_in, &need_in, &need_out, &c->ovf);
    if (rat_is_zero(need_in) && rat_is_zero(need_out)) return;
    Rat cap_in = rat_zero(), cap_out = rat_zero();
    for (size_t li = 0; li < t->nlinks; li++) {
        const TopoLink *l = &t->links[li];
        int a = c->in_s[l->from], b = c->in_s[l->to];
        if (a == b) continue;
        Rat cap = rat_div(rat_int(1), l->tpb, &c->ovf);
        if (b) cap_in = rat_add(cap_in, cap, &c->ovf);
        else cap_out = rat_add(cap_out, cap, &c->ovf);
    }
    if (t->port_limit) {
        /* a single rank injects/ejects at most port_limit*beta */
        int64_t cnt = 0, rank_in = -1, rank_out = -1;
        for (int64_t x = 0; x < t->nnodes; x++) {
            cnt += c->in_s[x];
            if (c->in_s[x]) rank_in = x;
            else rank_out = x;
        }
        Rat pl = rat_int(t->port_limit);
        if ((cnt == 1 && rank_in < c->N) || (cnt == t->nnodes - 1 && rank_out < c->N)) {
            if (rat_cmp(cap_in, pl) > 0) cap_in = pl;
            if (rat_cmp(cap_out, pl) > 0) cap_out = pl;
        }
    }
    /* a zero capacity with data to move means the topology cannot do it at
     * all; cost reports that as unroutable, the bound just skips the cut. */
    for (int into = 1; into >= 0; into--) {
        Rat need = into ? need_in : need_out, cap = into ? cap_in : cap_out;
        if (rat_is_zero(need) || rat_is_zero(cap)) continue;
        Rat v = rat_div(need, cap, &c->ovf);
        if (rat_cmp(v, c->best) > 0) {
            c->best = v;
            describe_cut(c, into, need, cap, kind, c->why, c->whysz);
        }
        if (c->split <= 0) continue;
        const char *what;
        Rat tail = split_tail(c, into, cap, &what);
        Rat vs = rat_add(v, tail, &c->ovf);
        if (rat_cmp(vs, c->best_split) > 0) {
            c->best_split = vs;
            describe_cut(c, into, need, cap, kind, c->why_split, c->why_splitsz);
            if (!rat_is_zero(tail)) {
                char tb[48];
                size_t len = strlen(c->why_split);
                snprintf(c->why_split + len, c->why_splitsz - len, ", plus %s·M/β for the %s chunk to cross",
                         rat_format(tail, tb, sizeof tb), what);
            }
        }
    }
}

static void set_all(CutCtx *c, int v) { memset(c->in_s, v, (size_t)c->t->nnodes); }

/* S := the nodes the source of f's last run no longer reaches (its
 * minimum cut's sink side) into c->in_s; returns how many ranks S holds. */
static int64_t sink_side(CutCtx *c, MaxFlow *f, int src, int32_t *queue, uint8_t *seen) {
    int64_t nn = c->t->nnodes, k = 0;
    memset(seen, 0, (size_t)f->nnodes);
    int qh = 0, qt = 0;
    queue[qt++] = src;
    seen[src] = 1;
    while (qh < qt) {
        int u = queue[qh++];
        for (int32_t e = f->head[u]; e >= 0; e = f->next[e])
            if (f->cap[e] > 0 && !seen[f->to[e]]) {
                seen[f->to[e]] = 1;
                queue[qt++] = f->to[e];
            }
    }
    for (int64_t x = 0; x < nn; x++) {
        c->in_s[x] = !seen[x];
        k += x < c->N && !seen[x];
    }
    return k;
}

/* The cuts of least capacity between rank s0 (the root, or rank 0) and
 * every other rank, both ways, by maximum flows: the cuts that bind where
 * a whole block must cross (AllReduce, Broadcast, Reduce); each priced
 * exactly by eval_cut. */
static void min_cuts(CutCtx *c) {
    TopoModel *t = c->t;
    int64_t nn = t->nnodes, N = c->N, s0 = c->root >= 0 ? c->root : 0;
    MaxFlow f;
    maxflow_init(&f, (int)nn);
    for (size_t li = 0; li < t->nlinks; li++) {
        double cap = 1073741824.0 / rat_to_double(t->links[li].tpb);
        maxflow_edge(&f, t->links[li].from, t->links[li].to, cap > 4e18 ? INT64_MAX / 4 : (int64_t)cap);
    }
    int32_t *queue = xmalloc((size_t)nn * sizeof *queue);
    uint8_t *seen = xmalloc((size_t)nn);
    for (int64_t v = 0; v < N; v++) {
        if (v == s0) continue;
        for (int dir = 0; dir < 2; dir++) {
            maxflow_reset(&f);
            int a = (int)(dir ? v : s0), b = (int)(dir ? s0 : v);
            maxflow_run(&f, a, b);
            sink_side(c, &f, a, queue, seen);
            eval_cut(c, NULL);
        }
    }
    free(queue);
    free(seen);
    maxflow_free(&f);
}

/* The AllGather cuts of a topology too large to try every cut, found by
 * maximum flows (ForestColl's bound, [ForestColl24] in docs/references.md:
 * (M/N)·max over the node sets S that hold a rank of |ranks outside S| /
 * (bandwidth into S)).
 * T bounds every S exactly when, for every rank v, a flow of 1 reaches v
 * from a source with an arc of 1/N to every rank over the links at T times
 * their bandwidth: the minimum cut on v's side is |ranks in S|/N + T·(into
 * S), at least 1 for every S holding v. Starting from the best bound so
 * far, a minimum cut below 1 is a set S whose own bound exceeds T, and T
 * moves up to it (Newton's method on a concave, piecewise linear function:
 * a few rounds). The flows run in scaled integers; every S they find is
 * priced exactly by eval_cut, so a rounding can only miss a cut, never
 * overstate one. reverse: the links turned round, the cuts that data must
 * leave (ReduceScatter's). */
static void flow_cuts(CutCtx *c, int reverse) {
    TopoModel *t = c->t;
    int64_t nn = t->nnodes, N = c->N;
    const double K = 1073741824.0; /* 2^30: the flow of a whole block */
    double *bw = xmalloc((t->nlinks ? t->nlinks : 1) * sizeof *bw);
    for (size_t li = 0; li < t->nlinks; li++) bw[li] = 1.0 / rat_to_double(t->links[li].tpb);
    MaxFlow f;
    maxflow_init(&f, (int)nn + 1);
    int src = (int)nn;
    int64_t share = (int64_t)(K / (double)N), full = share * N;
    for (int64_t u = 0; u < N; u++) maxflow_edge(&f, src, (int)u, share);
    size_t first_link = f.nedges;
    for (size_t li = 0; li < t->nlinks; li++) {
        const TopoLink *l = &t->links[li];
        maxflow_edge(&f, reverse ? l->to : l->from, reverse ? l->from : l->to, 0);
    }
    int32_t *queue = xmalloc((size_t)(nn + 1) * sizeof *queue);
    uint8_t *seen = xmalloc((size_t)(nn + 1));
    double T = rat_to_double(c->best);
    for (int round = 0; round < 32; round++) {
        double next = T;
        for (size_t li = 0; li < t->nlinks; li++) {
            double cap = K * T * bw[li];
            maxflow_set_cap(&f, first_link + 2 * li, cap > 4e18 ? INT64_MAX / 4 : (int64_t)cap);
        }
        for (int64_t v = 0; v < N; v++) {
            maxflow_reset(&f);
            int64_t flow = maxflow_run(&f, src, (int)v);
            if (flow + (int64_t)t->nlinks + N >= full) continue; /* every S holding v within rounding */
            int64_t k = sink_side(c, &f, src, queue, seen);
            double into = 0;
            for (size_t li = 0; li < t->nlinks; li++) {
                const TopoLink *l = &t->links[li];
                int32_t a = reverse ? l->to : l->from, b = reverse ? l->from : l->to;
                if (seen[a] && !seen[b]) into += bw[li];
            }
            if (k == 0 || k == N || into <= 0) continue;
            double r = (double)(N - k) / (double)N / into;
            eval_cut(c, NULL);
            if (r > next) next = r;
        }
        if (!(next > T * (1 + 1e-12))) break;
        T = next;
    }
    free(queue);
    free(seen);
    free(bw);
    maxflow_free(&f);
}

static void bandwidth_cuts(CutCtx *c) {
    TopoModel *t = c->t;
    int64_t nn = t->nnodes, N = c->N;
    if (nn <= 14) {
        /* small boards and user topologies: every cut */
        for (uint32_t m = 1; m + 1 < (1u << nn); m++) {
            for (int64_t v = 0; v < nn; v++) c->in_s[v] = (m >> v) & 1;
            eval_cut(c, NULL);
        }
        return;
    }
    if (t->kind == TOPO_STAR) {
        /* Every rank's in/out capacity is d; the cuts that bind are the
         * single ranks (and the rank plus the hub, which is the complement
         * of a single rank); evaluate ranks 0, root and N-1 - the star is
         * symmetric, so they stand for all. */
        int64_t pick[3] = {0, N - 1, c->root >= 0 ? c->root : 0};
        for (int k = 0; k < 3; k++) {
            set_all(c, 0);
            c->in_s[pick[k]] = 1;
            eval_cut(c, NULL);
            set_all(c, 1);
            c->in_s[pick[k]] = 0;
            eval_cut(c, NULL);
        }
        return;
    }
    /* single nodes and their complements */
    for (int64_t v = 0; v < nn; v++) {
        set_all(c, 0);
        c->in_s[v] = 1;
        eval_cut(c, NULL);
        set_all(c, 1);
        c->in_s[v] = 0;
        eval_cut(c, NULL);
    }
    /* bisections: every arc of floor(N/2) consecutive ranks */
    if (N >= 2) {
        int64_t half = N / 2;
        for (int64_t s0 = 0; s0 < N; s0++) {
            set_all(c, 0);
            for (int64_t j = 0; j < half; j++) c->in_s[(s0 + j) % N] = 1;
            eval_cut(c, "bisection cut");
        }
    }
    /* dimension cuts of power-of-two N (hypercube and torus dimensions) */
    if (N >= 2 && (N & (N - 1)) == 0) {
        for (int64_t b = 1; b < N; b <<= 1) {
            set_all(c, 0);
            for (int64_t r = 0; r < N; r++) c->in_s[r] = (r & b) == 0;
            eval_cut(c, "bisection cut");
        }
    }
    /* the cuts maximum flows find (up to 64 ranks and 256 nodes: N or 2N
     * flows, a few rounds of them for AllGather and ReduceScatter) */
    if ((c->coll == COLLECTIVE_ALLGATHER || c->coll == COLLECTIVE_REDUCE_SCATTER) && N <= 64 && nn <= 256 &&
        !t->port_limit)
        flow_cuts(c, c->coll == COLLECTIVE_REDUCE_SCATTER);
    else if ((c->coll == COLLECTIVE_ALLREDUCE || c->coll == COLLECTIVE_BROADCAST || c->coll == COLLECTIVE_REDUCE) &&
             N <= 64 && nn <= 256)
        min_cuts(c);
}

static int64_t ceil_log(int64_t N, int64_t base) {
    int64_t k = 0;
    __int128 p = 1;
    while (p < N) {
        p *= base;
        k++;
    }
    return k;
}

/* d[v] = the smallest alpha of a walk src -> v (reverse: v -> src), the sum
 * of its links' alphas (store and forward) or, cut-through, the smallest
 * largest alpha on such a walk; den 0 where no walk exists. Dijkstra on
 * exact rationals, O(V^2 + E) (reverse, for the one root: O(V*E)); only
 * run where the links' alphas differ, else hops * alpha is the same. */
static void alpha_distances(TopoModel *t, int64_t src, int reverse, Rat *d, int *ovf) {
    int64_t V = t->nnodes;
    uint8_t *done = xcalloc((size_t)V, 1);
    for (int64_t v = 0; v < V; v++) d[v] = (Rat){0, 0};
    d[src] = rat_zero();
    for (;;) {
        int64_t u = -1;
        for (int64_t v = 0; v < V; v++)
            if (!done[v] && d[v].den != 0 && (u < 0 || rat_cmp(d[v], d[u]) < 0)) u = v;
        if (u < 0) break;
        done[u] = 1;
        size_t lo = reverse ? 0 : t->out_first[u], hi = reverse ? t->nlinks : t->out_first[u + 1];
        for (size_t k = lo; k < hi; k++) {
            const TopoLink *l = &t->links[reverse ? k : (size_t)t->out_idx[k]];
            int64_t a = reverse ? l->to : l->from, b = reverse ? l->from : l->to;
            if (a != u || done[b]) continue;
            Rat nd = t->cut_through ? rat_max(d[u], l->alpha) : rat_add(d[u], l->alpha, ovf);
            if (d[b].den == 0 || rat_cmp(nd, d[b]) < 0) d[b] = nd;
        }
    }
    free(done);
}

int cost_bounds(Collective coll, int64_t N, int64_t root, TopoModel *t, CostBounds *out) {
    return cost_bounds_at_split(coll, N, root, t, 0, out);
}

int cost_bounds_at_split(Collective coll, int64_t N, int64_t root, TopoModel *t, int64_t split,
                         CostBounds *out) {
    memset(out, 0, sizeof *out);
    out->lb.a = out->lb.b = out->lb.c = out->b_split = rat_zero();
    int ovf = 0;
    const CollectiveInfo *ci = &collective_info[coll];
    if (!ci->rooted) root = -1;
    if (N <= 1) {
        snprintf(out->latency_why, sizeof out->latency_why, "N = 1: nothing to communicate");
        snprintf(out->bandwidth_why, sizeof out->bandwidth_why, "N = 1: nothing to communicate");
        snprintf(out->compute_why, sizeof out->compute_why, "N = 1: nothing to reduce");
        return 0;
    }

    /* latency: rounds, each at least the shortest start-up of a message
     * (a step in which a rank starts j waves of messages costs at least j
     * start-ups, so in total at least rounds of them) */
    int64_t d = t->max_ports;
    int64_t rounds = ceil_log(N, d + 1);
    out->lb.a = rat_mul(rat_int(rounds), t->min_startup, &ovf);
    char per[64] = "";
    if (!rat_eq(t->min_startup, rat_int(1))) {
        char sb[48];
        snprintf(per, sizeof per, " of %s·α (the shortest start-up)",
                 rat_format(t->min_startup, sb, sizeof sb));
    }
    if (d == 1)
        snprintf(out->latency_why, sizeof out->latency_why,
                 "ceil(log2 N) rounds%s (Chan et al. 2007)", per);
    else
        snprintf(out->latency_why, sizeof out->latency_why,
                 "ceil(log_%lld N) rounds with %lld ports%s (Chan et al. 2007)", (long long)(d + 1),
                 (long long)d, per);
    if (t->kind == TOPO_GRAPH && !rat_is_zero(t->min_alpha)) {
        /* data of u must reach v along a walk of messages, each in a later
         * step than the one before and paying its route's alpha, so the
         * start-ups add up to at least the alpha-weighted distance */
        int64_t fu = 0, fv = 0;
        Rat dist = rat_zero();
        int rooted_in = coll == COLLECTIVE_GATHER || coll == COLLECTIVE_REDUCE;
        int rooted_out = coll == COLLECTIVE_BROADCAST || coll == COLLECTIVE_SCATTER;
        Rat *ad = xcalloc((size_t)t->nnodes, sizeof *ad);
        int uniform = 1;
        for (size_t li = 0; li < t->nlinks; li++)
            if (!rat_eq(t->links[li].alpha, t->min_alpha)) uniform = 0;
        for (int64_t src = 0; src < N; src++) {
            if ((rooted_out || rooted_in) && src != root) continue;
            if (!uniform)
                alpha_distances(t, src, rooted_in, ad, &ovf);
            else if (t->cut_through)
                break; /* every walk costs at least min_alpha: the rounds say more */
            for (int64_t v = 0; v < N; v++) {
                if (uniform) {
                    int h = rooted_in ? topo_hops(t, v, src) : topo_hops(t, src, v);
                    ad[v] = h < 0 ? (Rat){0, 0} : rat_mul(rat_int(h), t->min_alpha, &ovf);
                }
                if (v == src || ad[v].den == 0) continue;
                if (rat_cmp(ad[v], dist) > 0) {
                    dist = ad[v];
                    fu = rooted_in ? v : src;
                    fv = rooted_in ? src : v;
                }
            }
        }
        free(ad);
        if (rat_cmp(dist, out->lb.a) > 0) {
            char ab[48];
            out->lb.a = dist;
            int h = topo_hops(t, fu, fv);
            if (t->cut_through)
                snprintf(out->latency_why, sizeof out->latency_why,
                         "distance: every path from rank %lld to rank %lld on %s has a link of "
                         "%s·α (cut-through)",
                         (long long)fu, (long long)fv, t->name, rat_format(dist, ab, sizeof ab));
            else if (rat_eq(dist, rat_mul(rat_int(h), t->min_alpha, &ovf)))
                snprintf(out->latency_why, sizeof out->latency_why,
                         "distance: rank %lld -> rank %lld is %d hops on %s", (long long)fu,
                         (long long)fv, h, t->name);
            else
                snprintf(out->latency_why, sizeof out->latency_why,
                         "distance: rank %lld -> rank %lld is %s·α of link start-ups on %s",
                         (long long)fu, (long long)fv, rat_format(dist, ab, sizeof ab), t->name);
        }
    }

    /* bandwidth: cuts */
    CutCtx c = {0};
    c.coll = coll;
    c.N = N;
    c.root = root;
    c.t = t;
    c.in_s = xcalloc((size_t)t->nnodes, 1);
    c.best = rat_zero();
    c.why = out->bandwidth_why;
    c.whysz = sizeof out->bandwidth_why;
    c.split = split;
    c.best_split = rat_zero();
    c.why_split = out->split_why;
    c.why_splitsz = sizeof out->split_why;
    bandwidth_cuts(&c);
    free(c.in_s);
    ovf |= c.ovf;
    out->lb.b = c.best;
    if (coll == COLLECTIVE_ALLREDUCE) {
        /* Patarasuk & Yuan 2009: 2(N-1)*M bytes leave ranks in total */
        Rat cap = rat_zero();
        Rat *rc = xcalloc((size_t)N, sizeof *rc);
        for (int64_t r = 0; r < N; r++) rc[r] = rat_zero();
        for (size_t li = 0; li < t->nlinks; li++)
            if (t->links[li].from < N)
                rc[t->links[li].from] = rat_add(rc[t->links[li].from],
                                                rat_div(rat_int(1), t->links[li].tpb, &ovf), &ovf);
        for (int64_t r = 0; r < N; r++) {
            if (t->port_limit && rat_cmp(rc[r], rat_int(t->port_limit)) > 0)
                rc[r] = rat_int(t->port_limit);
            cap = rat_add(cap, rc[r], &ovf);
        }
        free(rc);
        if (!rat_is_zero(cap)) {
            Rat v = rat_div(rat_make(2 * (N - 1), 1, &ovf), cap, &ovf);
            if (rat_cmp(v, out->lb.b) > 0) {
                char cs[48];
                out->lb.b = v;
                snprintf(out->bandwidth_why, sizeof out->bandwidth_why,
                         "2(N-1)·M leave the ranks over total injection %s·β "
                         "(Patarasuk & Yuan 2009)",
                         rat_format(cap, cs, sizeof cs));
            }
        }
    }
    if (t->kind == TOPO_STAR && strncmp(out->bandwidth_why, "node cut", 8) == 0) {
        /* say it the way the literature does */
        size_t n = strlen(out->bandwidth_why);
        static const char src[] = " (Chan et al. 2007)";
        if (n + sizeof src <= sizeof out->bandwidth_why)
            memcpy(out->bandwidth_why + n, src, sizeof src);
    }

    out->split = split > 0 ? split : 0;
    out->b_split = out->lb.b;
    if (split > 0 && rat_cmp(c.best_split, out->lb.b) > 0) out->b_split = c.best_split;
    else snprintf(out->split_why, sizeof out->split_why, "%s", out->bandwidth_why);

    /* compute */
    if (ci->reducing) {
        out->lb.c = rat_make(N - 1, N, &ovf);
        snprintf(out->compute_why, sizeof out->compute_why,
                 "(N-1)·M reduced over N ranks (Chan et al. 2007)");
    } else {
        snprintf(out->compute_why, sizeof out->compute_why, "no reduction");
    }
    return ovf ? -1 : 0;
}
