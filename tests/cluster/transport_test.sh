#!/usr/bin/env bash
# transport_test.sh - the emulated cluster's promise (docs/cluster.md): on
# NODES nodes of PPN ranks, ranks of one node talk through shared memory and
# ranks of different nodes through the network, for both MPI libraries, as
# the libraries' verbose output says and as the nodes' eth0 counters count.
#
#   transport_test.sh CLUSTER_SH PAIRS_OPENMPI PAIRS_MPICH WORKDIR [NODES PPN]
#
# Exit 77 (skipped) with the reason where namespaces cannot be made.
set -uo pipefail
cluster_sh=$1 pairs_openmpi=$2 pairs_mpich=$3 work=$4 nodes=${5:-2} ppn=${6:-2}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bytes=262144
export CLUSTER="tt$$"
"$cluster_sh" check || exit 77
mkdir -p "$work"
run() {
  timeout 120 "$cluster_sh" mpirun openmpi -ppn "$ppn" --mca btl_base_verbose 100 -- \
    "$pairs_openmpi" $bytes "$work/openmpi.report" > "$work/openmpi.out" 2>&1 || { echo "openmpi run failed:"; tail -20 "$work/openmpi.out"; return 1; }
  python3 "$here/check_transports.py" openmpi "$work/openmpi.out" "$work/openmpi.report" "$nodes" "$ppn" $bytes || return 1
  timeout 120 "$cluster_sh" mpirun mpich -ppn "$ppn" --done "pairs: done" -- env UCX_LOG_LEVEL=debug \
    "$pairs_mpich" $bytes "$work/mpich.report" > "$work/mpich.out" 2>&1 || { echo "mpich run failed:"; tail -20 "$work/mpich.out"; return 1; }
  python3 "$here/check_transports.py" mpich "$work/mpich.out" "$work/mpich.report" "$nodes" "$ppn" $bytes || return 1
}
export -f run
export cluster_sh pairs_openmpi pairs_mpich work nodes ppn here bytes
"$cluster_sh" run -n "$nodes" -- bash -c run
