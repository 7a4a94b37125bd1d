/* machine.h - cluster machine files: the two-level machine of an MPI job
 * (ranks of one node share memory, nodes share a network), as `collc
 * calibrate` writes it from collc-probe's measurements and as the cost
 * commands read it with --machine (docs/cluster.md section 3).
 *
 *   # comments
 *   kind = cluster
 *   name = cluster-2x2
 *   nodes = 2
 *   ppn = 2
 *   intra_latency = 5.2 (5.1..5.6)     α within a node, us (measured spread)
 *   intra_bandwidth = 8.1 (7.9..8.4)   β within a node, GB/s (1e9 B/s)
 *   inter_latency = 61 (55..70)        α between nodes, us
 *   inter_bandwidth = 0.117 (...)      β between nodes, GB/s
 *   reduce f32 sum = 2.6 (2.5..2.7)    reduction throughput, GB/s; the
 *                                      f32 sum row is γ (else the first)
 *
 * The spread `(LO..HI)` is optional. */
#ifndef COLLC_DRIVER_MPI_MACHINE_H
#define COLLC_DRIVER_MPI_MACHINE_H

#include <stdint.h>
#include <stdio.h>

#include "driver/target.h"

#define CLUSTER_MAX_REDUCE 16

/* A measured value and its spread (lo = hi = v when none was given). */
typedef struct ClusterValue {
    double v, lo, hi;
} ClusterValue;

typedef struct ClusterReduce {
    char dtype[16], op[16];
    ClusterValue GBps;
} ClusterReduce;

typedef struct ClusterMachine {
    char name[64];
    int64_t nodes, ppn;
    ClusterValue intra_us, intra_GBps; /* α, β within a node */
    ClusterValue inter_us, inter_GBps; /* α, β between nodes */
    ClusterReduce reduce[CLUSTER_MAX_REDUCE];
    int nreduce;
} ClusterMachine;

/* Writes m in the file format above (the one writer: collc calibrate). */
void cluster_machine_write(FILE *f, const ClusterMachine *m);

/* γ of m in bytes/s: its f32 sum row, else its first reduce row. */
double cluster_machine_gamma(const ClusterMachine *m);

/* The machine files of the mpi target for the cost commands (target.h):
 * files whose first setting is `kind = cluster`. */
extern const TargetMachine cluster_machines;

#endif
