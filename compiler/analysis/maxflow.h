/* maxflow.h - maximum flow on a small directed network (Dinic's algorithm),
 * integral capacities. Used by the synthesizer to split chunks over links
 * so that the busiest link of a step is as little loaded as possible
 * (docs/synth.md). */
#ifndef COLLC_MAXFLOW_H
#define COLLC_MAXFLOW_H

#include <stddef.h>
#include <stdint.h>

typedef struct MaxFlow {
    int nnodes;
    size_t nedges, cap_edges;
    int32_t *to, *next; /* [nedges]: edge e and its reverse e^1 */
    int64_t *cap;       /* residual capacity */
    int64_t *orig;      /* capacity as set (flow = orig - cap) */
    int32_t *head;      /* [nnodes] first edge of a node, -1 = none */
    int32_t *level, *iter, *queue;
} MaxFlow;

void maxflow_init(MaxFlow *f, int nnodes);
void maxflow_free(MaxFlow *f);
/* Adds the edge u -> v with capacity c; returns its index (the flow on it is
 * maxflow_flow(f, index) after a run). */
size_t maxflow_edge(MaxFlow *f, int u, int v, int64_t c);
/* Changes an edge's capacity (before maxflow_reset and a new run). */
void maxflow_set_cap(MaxFlow *f, size_t e, int64_t c);
/* Clears every flow (capacities as set). */
void maxflow_reset(MaxFlow *f);
int64_t maxflow_run(MaxFlow *f, int s, int t);
static inline int64_t maxflow_flow(const MaxFlow *f, size_t e) { return f->orig[e] - f->cap[e]; }

#endif
