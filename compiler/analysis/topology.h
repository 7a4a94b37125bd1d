/* topology.h - the network a schedule is priced on (docs/cost.md).
 *
 * A topology is a directed multigraph of nodes 0..nnodes-1; nodes 0..N-1 are
 * the ranks, further nodes are routers/switches that hold no data. Every
 * link has, in units of the global parameters,
 *   alpha : start-up cost of a message crossing it (1 = one alpha),
 *   tpb   : time per byte (1 = a link of bandwidth beta, 1/2 = 2*beta).
 * Both are exact rationals so that costs stay exact.
 *
 * Two shapes:
 *   TOPO_STAR  full(d) and switch: every rank has an injection link to a hub
 *              (alpha 1, tpb 1/d) and an ejection link from it (alpha 0,
 *              tpb 1/d). A transfer costs one alpha and loads the sender's
 *              injection and the receiver's ejection link, i.e. a rank's
 *              out-bytes and in-bytes are spread over its d ports.
 *   TOPO_GRAPH ring, biring, hypercube, torus(A,B), user topologies and
 *              those built outside analysis/ (a target's board: TopoExtra,
 *              topo_graph_new): transfers between non-adjacent ranks follow a
 *              shortest path (fewest links); among equal paths the one BFS
 *              finds scanning each node's out-links in declaration order.
 *
 * Message ports: a rank can start `msg_ports[r]` messages at once (d for a
 * star, the number of distinct out-neighbours for a graph, or --ports).
 * A message's start-up is the alpha of the first link of its route, the
 * link by which it leaves its sender (1 on a star: the injection link). */
#ifndef COLLC_TOPOLOGY_H
#define COLLC_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>
#include "front/ast.h"
#include "support/diag.h"
#include "analysis/rational.h"

typedef enum TopoKind {
    TOPO_STAR,  /* full(d) / switch: per-rank injection + ejection links */
    TOPO_GRAPH, /* explicit links, shortest-path routing */
} TopoKind;

typedef struct TopoLink {
    int32_t from, to;
    Rat alpha;  /* start-up cost, multiple of the global alpha */
    Rat tpb;    /* time per byte, multiple of 1/beta */
} TopoLink;

typedef struct TopoModel {
    char name[64];        /* "full(1)", "ring", "torus(4,2)", a board's or a user's name */
    TopoKind kind;
    int64_t N;            /* ranks = nodes 0..N-1 */
    int64_t nnodes;       /* >= N */
    TopoLink *links;
    size_t nlinks;
    size_t *out_first;    /* [nnodes + 1]: out-links of v are out_idx[out_first[v] ..] */
    int32_t *out_idx;
    int64_t *msg_ports;   /* [N] messages a rank can start concurrently */
    int64_t max_ports;    /* max of msg_ports */
    int64_t port_limit;   /* graphs with --ports d: a rank injects and ejects
                             at most d*beta in total (0 = only its links) */
    int cut_through;      /* set by the caller (--routing=cut-through): a
                             routed message pays the largest link alpha of
                             its route once instead of the sum (store and
                             forward, the default) */
    Rat min_alpha;        /* smallest link alpha (graphs) */
    int uniform_startup;  /* every link leaving a rank has alpha `startup`, */
    Rat startup;          /*   so every message starts up in that time */
    Rat min_startup;      /* smallest alpha of a link leaving a rank */
    Rat local_copy;       /* a chunk copied rank-locally, in chunks of the
                             compute term (c), where the copy cannot hide
                             behind the rank's link traffic (cost.h); 0 (the
                             built-in topologies): local copies are free */
    Rat stage_tpb;        /* a chunk crossing the rank's DDR<->L2 path, in
                             the time units of the bandwidth term (b): the
                             SG2260 machine files that stage reductions in
                             L2 set it, and cost.c then pipelines a step's
                             stagings with its link transfers (cost.h); 0:
                             the compute term is added in series */
    /* Routing tables (graphs), one BFS row per source, computed lazily:
     * parent[src * nnodes + v] = link entering v on the BFS tree of src. */
    int32_t *parent;
    int32_t *hops;
    uint8_t *row_done;    /* [nnodes] */
} TopoModel;

typedef enum TopoStatus {
    TOPO_OK,
    TOPO_USAGE,          /* bad --topo spec: message in err */
    TOPO_NOT_APPLICABLE, /* e.g. hypercube with N = 6: message in err */
    TOPO_INPUT_ERROR,    /* a user topology failed; reported through dx */
} TopoStatus;

/* A topology that the caller builds, named in --topo like a built-in one
 * and taking no arguments: a target's board, which analysis/ may not see
 * (a target's driver folder builds its board from its machine model). build
 * returns as topo_build does; its err is never NULL. */
typedef struct TopoExtra {
    const char *name;
    TopoStatus (*build)(int64_t N, int64_t ports, TopoModel **out, char *err, size_t errsz);
} TopoExtra;

/* Builds the topology named by `spec` for N ranks:
 *   full | full(d) | switch | ring | biring | hypercube | torus | torus(A,B)
 *   | the name of one of extra[0..nextra) | NAME of a `topology` block in
 *   prog.
 * ports > 0 overrides the ports of full/switch and the message ports of a
 * graph. alpha_s / beta_Bps are the global alpha and beta, needed to turn a
 * user link's absolute `alpha = 2us` / `beta = 32GB/s` into multiples. On
 * failure *out is NULL and err (if non-NULL) holds a message. */
TopoStatus topo_build(const char *spec, int64_t N, int64_t ports, const Program *prog,
                      const TopoExtra *extra, size_t nextra, double alpha_s, double beta_Bps,
                      DiagEngine *dx, TopoModel **out, char *err, size_t errsz);
/* A graph topology from explicit links (copied): nodes 0..nnodes-1, of
 * which 0..N-1 are the ranks and the others only forward. For topologies
 * described outside analysis/, e.g. by a target's machine model. */
TopoModel *topo_graph_new(const char *name, int64_t N, int64_t nnodes, const TopoLink *links, size_t nlinks,
                          int64_t ports);
void topo_free(TopoModel *t);

/* The links of the route src -> dst (src != dst, both ranks) into buf (room
 * for nnodes entries). Returns the number of links, or -1 if unreachable. */
int topo_route(TopoModel *t, int64_t src, int64_t dst, int32_t *buf);
/* Number of links on the route, -1 if unreachable. */
int topo_hops(TopoModel *t, int64_t src, int64_t dst);

/* Short description for reports: "ring (8 ranks, 8 links)". */
void topo_describe(const TopoModel *t, char *buf, size_t size);

#endif
