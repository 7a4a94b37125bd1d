/* maxflow.c - Dinic's maximum flow (see maxflow.h): BFS levels, then
 * blocking flows by DFS along level-increasing edges, iteratively. */
#include "analysis/maxflow.h"

#include <string.h>

#include "support/util.h"

void maxflow_init(MaxFlow *f, int nnodes) {
    memset(f, 0, sizeof *f);
    f->nnodes = nnodes;
    f->head = xmalloc((size_t)nnodes * sizeof *f->head);
    for (int v = 0; v < nnodes; v++) f->head[v] = -1;
    f->level = xmalloc((size_t)nnodes * sizeof *f->level);
    f->iter = xmalloc((size_t)nnodes * sizeof *f->iter);
    f->queue = xmalloc((size_t)nnodes * sizeof *f->queue);
}

void maxflow_free(MaxFlow *f) {
    free(f->to);
    free(f->next);
    free(f->cap);
    free(f->orig);
    free(f->head);
    free(f->level);
    free(f->iter);
    free(f->queue);
    memset(f, 0, sizeof *f);
}

static void push_edge(MaxFlow *f, int u, int v, int64_t c) {
    if (f->nedges == f->cap_edges) {
        f->cap_edges = f->cap_edges ? 2 * f->cap_edges : 64;
        f->to = xrealloc(f->to, f->cap_edges * sizeof *f->to);
        f->next = xrealloc(f->next, f->cap_edges * sizeof *f->next);
        f->cap = xrealloc(f->cap, f->cap_edges * sizeof *f->cap);
        f->orig = xrealloc(f->orig, f->cap_edges * sizeof *f->orig);
    }
    size_t e = f->nedges++;
    f->to[e] = v;
    f->cap[e] = f->orig[e] = c;
    f->next[e] = f->head[u];
    f->head[u] = (int32_t)e;
}

size_t maxflow_edge(MaxFlow *f, int u, int v, int64_t c) {
    COLLC_ASSERT(u >= 0 && u < f->nnodes && v >= 0 && v < f->nnodes && c >= 0);
    size_t e = f->nedges;
    push_edge(f, u, v, c);
    push_edge(f, v, u, 0);
    return e;
}

void maxflow_set_cap(MaxFlow *f, size_t e, int64_t c) { f->orig[e] = c; }

void maxflow_reset(MaxFlow *f) {
    for (size_t e = 0; e < f->nedges; e++) f->cap[e] = f->orig[e];
}

static int bfs(MaxFlow *f, int s, int t) {
    for (int v = 0; v < f->nnodes; v++) f->level[v] = -1;
    int qh = 0, qt = 0;
    f->level[s] = 0;
    f->queue[qt++] = s;
    while (qh < qt) {
        int v = f->queue[qh++];
        for (int32_t e = f->head[v]; e >= 0; e = f->next[e])
            if (f->cap[e] > 0 && f->level[f->to[e]] < 0) {
                f->level[f->to[e]] = f->level[v] + 1;
                f->queue[qt++] = f->to[e];
            }
    }
    return f->level[t] >= 0;
}

/* One augmenting path of the level graph from v, at most `lim`; iterative
 * (the paths of the synthesizer's networks are short, but a recursion depth
 * bound is not worth relying on). */
static int64_t augment(MaxFlow *f, int s, int t, int64_t lim) {
    /* path of edges from s */
    int32_t *path = f->queue; /* the BFS queue is free during the DFS */
    int depth = 0, v = s;
    for (;;) {
        if (v == t) {
            int64_t push = lim;
            for (int k = 0; k < depth; k++)
                if (f->cap[path[k]] < push) push = f->cap[path[k]];
            for (int k = 0; k < depth; k++) {
                f->cap[path[k]] -= push;
                f->cap[path[k] ^ 1] += push;
            }
            return push;
        }
        int32_t e = f->iter[v];
        while (e >= 0 && !(f->cap[e] > 0 && f->level[f->to[e]] == f->level[v] + 1)) e = f->next[e];
        f->iter[v] = e;
        if (e >= 0) {
            path[depth++] = e;
            v = f->to[e];
            continue;
        }
        /* dead end: retreat and skip the edge that led here */
        f->level[v] = -1;
        if (depth == 0) return 0;
        depth--;
        v = path[depth] >= 0 ? f->to[path[depth] ^ 1] : s;
        f->iter[v] = f->next[f->iter[v]];
    }
}

int64_t maxflow_run(MaxFlow *f, int s, int t) {
    int64_t total = 0;
    while (bfs(f, s, t)) {
        for (int v = 0; v < f->nnodes; v++) f->iter[v] = f->head[v];
        int64_t p;
        while ((p = augment(f, s, t, INT64_MAX)) > 0) total += p;
    }
    return total;
}
