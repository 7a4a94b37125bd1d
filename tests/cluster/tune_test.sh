#!/usr/bin/env bash
# tune_test.sh - calibrate and tune on the emulated cluster
# (docs/cluster.md sections 3 and 4), and an unmodified MPI program
# (tests/mpi/pmpi_app.c) through libcollmpi.so with the tuned rules: on
# NODES nodes of PPN ranks under Open MPI, collc-probe's measurements are
# calibrated, collc tune writes the rules of the AllReduce and AllGather
# examples for the job's shape (n=, ppn=, nodes=), and the program's
# results are right with the algorithms the rules name serving its calls
# (COLLMPI_DEBUG=1 names each one).
#
#   tune_test.sh CLUSTER_SH COLLC PROBE APP LIBCOLLMPI ALGS_SO EXAMPLES WORKDIR [NODES PPN]
#
# Exit 77 (skipped) with the reason where namespaces cannot be made.
set -uo pipefail
. "$(dirname "$0")/rules_served.sh"
cluster_sh=$1 collc=$2 probe=$3 app=$4 lib=$5 algs=$6 examples=$7 work=$8 nodes=${9:-2} ppn=${10:-2}
export CLUSTER="tu$$"
"$cluster_sh" check || exit 77
mkdir -p "$work"
run() {
  timeout 200 "$cluster_sh" mpirun openmpi -ppn "$ppn" -- "$probe" > "$work/probe.txt" 2> "$work/probe.err" \
    || { echo "collc-probe failed:"; tail -20 "$work/probe.err"; return 1; }
  "$collc" calibrate "$work/probe.txt" -o "$work/cluster.machine" || { echo "calibrate failed"; return 1; }
  "$collc" tune "$examples"/{ring,recursive_doubling,hierarchical,rabenseifner}_allreduce.coll \
    "$examples"/{ring,recursive_doubling,bruck}_allgather.coll \
    --machine "$work/cluster.machine" --object "$algs" -o "$work/collmpi.conf" || { echo "tune failed"; return 1; }
  cat "$work/cluster.machine" "$work/collmpi.conf"
  grep -q "^allreduce .* n=$((nodes * ppn)) ppn=$ppn nodes=$nodes  #" "$work/collmpi.conf" \
    || { echo "no allreduce rule for the shape n=$((nodes * ppn)) ppn=$ppn nodes=$nodes"; return 1; }
  grep -q "^allgather " "$work/collmpi.conf" || { echo "no allgather rule"; return 1; }
  timeout 200 "$cluster_sh" mpirun openmpi -ppn "$ppn" -- env LD_PRELOAD="$lib" \
    COLLMPI_CONFIG="$work/collmpi.conf" COLLMPI_DEBUG=1 "$app" > "$work/app.log" 2>&1 \
    || { echo "the program failed:"; tail -30 "$work/app.log"; return 1; }
  grep -q "pmpi_app: N=$((nodes * ppn)): .* 0 wrong" "$work/app.log" \
    || { echo "wrong results:"; tail -30 "$work/app.log"; return 1; }
  rules_served "$work/app.log" "$work/collmpi.conf"
}
export -f run rules_served
export cluster_sh collc probe app lib algs examples work nodes ppn
"$cluster_sh" run -n "$nodes" -- bash -c run
