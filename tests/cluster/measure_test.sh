#!/usr/bin/env bash
# measure_test.sh - collc-measure and collc tune --measure on the emulated
# cluster (docs/cluster.md section 4), and an unmodified MPI program
# (tests/mpi/pmpi_app.c) through libcollmpi.so with the rules: on NODES
# nodes of PPN ranks under Open MPI, collc-measure times AllReduce and
# AllGather algorithms against the library at a few KiB, collc tune
# --measure writes rules that libcollmpi.so's own parser accepts (collc
# mpi-config check), each with the job's shape. The measured winners depend
# on the machine's load, so the program runs with rules from the same
# measurements with the library's times made 1000 times slower (an
# algorithm wins every size, over all sizes with --range): its results
# are right and every call is served by the algorithm the rules name
# (COLLMPI_DEBUG=1 names each one).
#
#   measure_test.sh CLUSTER_SH COLLC MEASURE APP LIBCOLLMPI ALGS_SO WORKDIR [NODES PPN]
#
# Exit 77 (skipped) with the reason where namespaces cannot be made.
set -uo pipefail
. "$(dirname "$0")/rules_served.sh"
cluster_sh=$1 collc=$2 measure=$3 app=$4 lib=$5 algs=$6 work=$7 nodes=${8:-2} ppn=${9:-2}
export CLUSTER="me$$"
"$cluster_sh" check || exit 77
mkdir -p "$work"
run() {
  local n=$((nodes * ppn)) shape="n=$((nodes * ppn)) ppn=$ppn nodes=$nodes"
  timeout 200 "$cluster_sh" mpirun openmpi -ppn "$ppn" -- "$measure" --object "$algs" --min 4096 --max 16384 \
    --rounds 2 ring_allreduce recursive_doubling_allreduce ring_allgather bruck_allgather \
    > "$work/measure.txt" 2> "$work/measure.err" \
    || { echo "collc-measure failed:"; tail -20 "$work/measure.err"; return 1; }
  cat "$work/measure.txt"
  grep -q "^shape ranks=$n nodes=$nodes ppn=$ppn$" "$work/measure.txt" || { echo "no shape line of the job"; return 1; }
  local coll cand size
  for coll in allreduce allgather; do
    for cand in mpi-library ring_$coll; do
      for size in 4096 16384; do
        grep -q "^time $coll $size $cand " "$work/measure.txt" || { echo "no time of $cand at $coll $size"; return 1; }
      done
    done
  done
  "$collc" tune --measure "$work/measure.txt" -o "$work/measured.conf" || { echo "tune --measure failed"; return 1; }
  cat "$work/measured.conf"
  "$collc" mpi-config check "$work/measured.conf" || { echo "libcollmpi.so's parser refuses the rules"; return 1; }
  if grep -v '^#' "$work/measured.conf" | grep -vq " $shape  #"; then
    echo "a rule without the shape $shape"; return 1
  fi
  # the library 1000 times slower: an algorithm wins everywhere
  awk '$1 == "time" && $4 == "mpi-library" { $5 *= 1000; $6 *= 1000; $7 *= 1000 } { print }' \
    "$work/measure.txt" > "$work/slow-library.txt"
  "$collc" tune --measure "$work/slow-library.txt" --range 1B..1GiB -o "$work/collmpi.conf" \
    || { echo "tune --measure failed"; return 1; }
  cat "$work/collmpi.conf"
  for coll in allreduce allgather; do
    grep -q "^$coll .* $shape  #" "$work/collmpi.conf" || { echo "no $coll rule for $shape"; return 1; }
  done
  timeout 200 "$cluster_sh" mpirun openmpi -ppn "$ppn" -- env LD_PRELOAD="$lib" \
    COLLMPI_CONFIG="$work/collmpi.conf" COLLMPI_DEBUG=1 "$app" > "$work/app.log" 2>&1 \
    || { echo "the program failed:"; tail -30 "$work/app.log"; return 1; }
  grep -q "pmpi_app: N=$n: .* 0 wrong" "$work/app.log" || { echo "wrong results:"; tail -30 "$work/app.log"; return 1; }
  rules_served "$work/app.log" "$work/collmpi.conf"
}
export -f run rules_served
export cluster_sh collc measure app lib algs work nodes ppn
"$cluster_sh" run -n "$nodes" -- bash -c run
