/* machine.h - the SG2260 machine model (targets/sg2260, one parser and one
 * board description) for `collc cost`, `compare`, `draw` and `synth`: alpha,
 * beta, gamma and the topology of a machine file (--machine FILE) or of the
 * built-in board (--topo sg2260), the target's TargetMachine (sg_machine).
 * The conversion lives in the target's driver folder, which may see both the
 * target and the cost model (analysis/ never includes targets/).
 * docs/cost.md "Machine files". */
#ifndef COLLC_SG2260_MACHINE_H
#define COLLC_SG2260_MACHINE_H

#include "analysis/cost.h"
#include "analysis/topology.h"
#include "sg2260.h"

/* The boards --topo names: "sg2260", the built-in board with rank i on
 * chip i of its first ring of N chips, over the links among those chips. */
extern const TopoExtra cost_machine_boards[1];

/* Loads machine file `path` (--machine FILE, for every command that takes
 * it: the cost commands, sim, compile --target=sg2260). Returns 0, or
 * EXIT_USAGE after printing the error as `collc CMD: ...`: a file that
 * cannot be read or is not a machine file is a bad option value. */
int cost_machine_load(const char *cmd, const char *path, Sg2260Machine *m);
/* alpha = startup_latency + sync_latency (a message pays one command start-up
 * and one wait), beta = the slower of link_bandwidth and cdma_bandwidth,
 * gamma = ddr_l2_bandwidth / 2 (a reduction is staged through L2: its bytes
 * cross the DDR<->L2 path twice; sum_bandwidth on a machine with
 * reduce_to_ddr); M is left. */
void cost_machine_params(const Sg2260Machine *m, CostMachine *out);
/* The topology of m for N ranks: rank r on chip sg2260_machine_place(m)[r],
 * every chip a node (the chips off the ranks only forward), every pair of
 * linked chips one link in each direction with alpha 1 and its time per byte
 * relative to beta: parallel links add their rates, each the slower of the
 * link and the CDMA engine (a link of bandwidth=8 on a 32 GB/s machine
 * costs 4/beta per byte). */
TopoStatus cost_machine_topology(const Sg2260Machine *m, int64_t N, int64_t ports, TopoModel **out, char *err,
                                 size_t errsz);

#endif
