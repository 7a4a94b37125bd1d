/* cost.h - the alpha-beta-gamma cost of a Schedule, its lower bounds, and
 * closed forms in N (docs/cost.md is the user's reference).
 *
 * A cost is kept as exact coefficients
 *     T = a*alpha + b*M/beta + c*M/gamma
 * where M is the larger per-rank buffer of the collective (AllGather's out,
 * ReduceScatter's in, AllReduce's buffer, ...; nccl-tests' "size"). A chunk
 * is 1/(B*P) of M, where B = N when the collective has an N-block buffer
 * (else 1) and P is the schedule's split.
 *
 * Per step (every step, summed):
 *   a  = max( max over messages of the alpha of its route (sum of the link
 *             alphas; 1 per hop on built-in graphs, 1 on full/switch),
 *             max over ranks of the port serialisation of the messages it
 *             sends, and of those it receives: in waves of `ports`
 *             messages, a wave as long as its longest start-up (the alpha
 *             of a message's first link); ceil(messages / ports) * s when
 *             every start-up is s )
 *        where a message is one (src rank, dst rank) pair of the step with
 *        src != dst; 0 when the step has no such pair. Link alphas are
 *        multiples of the global alpha (an absolute `alpha = 500ns` is
 *        divided by it when the topology is built), so a stays exact;
 *   b  = max over links of (chunks crossing the link) * (its time per byte)
 *        * chunk fraction; a routed transfer loads every link on its route;
 *   c  = max over ranks of (chunks reduced into that rank) * chunk fraction
 *        (local reductions included: the arithmetic happens either way),
 *        plus, on a topology with local_copy (an SG2260 machine file), that
 *        weight times the rank's local copy chunks of the step that cannot
 *        hide: no step of their window (schedule_copy_deadline) has the
 *        rank on a link without receiving a reduction. On a topology with
 *        stage_tpb (an SG2260 machine file that stages reductions in L2)
 *        c is instead the time the step's stagings add to b, pipelined on
 *        each rank's DDR<->L2 path with the link transfers (cost.c,
 *        step_pipelined), in chunks of the compute term.
 * Local copies (src rank == dst rank) cost nothing otherwise. */
#ifndef COLLC_COST_H
#define COLLC_COST_H

#include <stddef.h>
#include <stdint.h>
#include "analysis/rational.h"
#include "schedule/schedule.h"
#include "analysis/topology.h"

typedef struct CostTerms {
    Rat a; /* multiple of alpha */
    Rat b; /* multiple of M/beta */
    Rat c; /* multiple of M/gamma */
} CostTerms;

/* The machine: M in bytes, alpha in seconds, beta and gamma in bytes/s. */
typedef struct CostMachine {
    double M, alpha, beta, gamma;
} CostMachine;

typedef struct CostResult {
    CostTerms total;
    size_t nsteps;
    size_t comm_steps;    /* steps with a non-zero cost */
    int max_hops;         /* longest route of any message */
    Rat chunk;            /* one chunk as a fraction of M */
    CostTerms *steps;     /* [nsteps] when requested (malloc), else NULL */
} CostResult;

/* The blocks of the larger buffer: N or 1. */
int64_t cost_blocks(Collective coll, int64_t N);

/* Prices schedule s on topology t. Returns 0, or -1 after reporting an error
 * through dx (a message between ranks the topology does not connect,
 * "cost-unroutable"; coefficients beyond int64, "cost-overflow"). With
 * keep_steps, out->steps gets the per-step terms (free with cost_result_free). */
int cost_schedule(const Schedule *s, TopoModel *t, DiagEngine *dx, int keep_steps,
                  CostResult *out);
void cost_result_free(CostResult *r);

double cost_time(CostTerms t, const CostMachine *m);
double cost_alpha_time(CostTerms t, const CostMachine *m);
double cost_beta_time(CostTerms t, const CostMachine *m);
double cost_gamma_time(CostTerms t, const CostMachine *m);

/* ---- lower bounds (bounds.c) ---- */

typedef struct CostBounds {
    CostTerms lb;
    char latency_why[160];   /* which bound binds, with its source */
    char bandwidth_why[160];
    char compute_why[160];
    /* cost_bounds_at_split: the bandwidth bound of schedules that cut every
     * block into `split` chunks (>= lb.b; docs/cost.md section 2, "At a
     * finite split"), and the cut that binds; lb.b and its reason when
     * split is 0 or adds nothing. */
    int64_t split;
    Rat b_split;
    char split_why[224];
} CostBounds;

/* Lower bounds for collective `coll` on N ranks (root for rooted ones) on
 * topology t: latency max(ceil(log_{d+1} N), the hop distance the data must
 * travel); bandwidth the max over the node cuts, the bisection and other
 * cuts of the topology (and 2(N-1)/N*M over the total injection capacity for
 * AllReduce); compute (N-1)/N*M for reducing collectives. Returns 0, -1 on
 * rational overflow. */
int cost_bounds(Collective coll, int64_t N, int64_t root, TopoModel *t, CostBounds *out);
/* cost_bounds, and b_split for schedules of `split` chunks per block
 * (AllGather, ReduceScatter, AllReduce; the others get lb.b). */
int cost_bounds_at_split(Collective coll, int64_t N, int64_t root, TopoModel *t, int64_t split,
                         CostBounds *out);

/* ---- closed forms in N (closedform.c) ---- */

typedef struct CostPoint {
    int64_t N;
    Rat v;
    int64_t P;        /* cost_fit2: the value of the swept param */
} CostPoint;

/* Fits the values to an exact rational combination of at most 3 terms of
 * the basis {1, N, 1/N, log2 N, ceil(log2 N), ceil((N-1)/2),
 * ceil((N-1)/2)/N, log2(N)/N, N^2, ...} that matches every point, and writes
 * it as text ("N-1", "(N-1)/N", "2·log2(N)", ...) into buf. Returns 0, or
 * -1 when no combination fits (buf gets "?"). */
int cost_fit(const CostPoint *pts, size_t n, char *buf, size_t size);

/* The same over points (N, P) of one swept param named `pname` (-D K=1..8):
 * the basis is every product f(N)·g(P) of f in the basis above and g in
 * {1, P, 1/P, log2 P, ceil(log2 P), P^2}, at most three terms, written as
 * "N + K - 2", "N/K + 1 - 2/K". Returns 0, or -1 with "?" in buf. */
int cost_fit2(const CostPoint *pts, size_t n, const char *pname, char *buf, size_t size);

/* ---- shared printing helpers (cost_format.c) ---- */

/* "64 MiB", "1.5 KiB", "100 B" */
void cost_fmt_bytes(double bytes, char *buf, size_t size);
/* "2 us", "1.25 ms", "0 s" */
void cost_fmt_time(double s, char *buf, size_t size);
/* "64 GB/s" */
void cost_fmt_bw(double Bps, char *buf, size_t size);
/* "7/8·M/β"-style term: coefficient then unit ("α", "M/β", "M/γ");
 * a zero coefficient prints "0". */
void cost_fmt_term(Rat k, const char *unit, char *buf, size_t size);

#endif
