#!/usr/bin/env bash
# mpich_shape_test.sh - MPICH follows the shape conditions (comm_avg_ppn)
# of collc tune --emit=mpich-json (docs/cluster.md section 6): a file tuned
# for 2 nodes of 2 ranks on a machine whose model makes Bruck's allgather
# the fastest names MPIR_Allgather_intra_brucks for communicators of 4 ranks
# with 2 per node, the general algorithm (ring) for other shapes. Which
# algorithm ran is seen in the messages rank 0 hands to UCX
# (tests/mpi/mpich_json_app.c, "PEER:MSGS"; tests/mpi/mpich_json_test.sh):
# Bruck's sends one to rank 2 and one to rank 3, the ring three to rank 1,
# MPICH's own choice at 8 KiB a rank (recursive doubling) one to 1, one to 2.
#   - 2 nodes x 2 ranks on the emulated cluster: MPICH's own without the
#     file, Bruck's with it;
#   - 4 ranks on one node (no cluster): the ring with the file.
#
#   mpich_shape_test.sh CLUSTER_SH COLLC APP EXAMPLES MACHINE WORKDIR
#
# Exit 77 (skipped) where namespaces cannot be made or MPICH is not over UCX.
set -uo pipefail
cluster_sh=$1 collc=$2 app=$3 examples=$4 machine=$5 work=$6
export CLUSTER="ms$$"
"$cluster_sh" check || exit 77
mkdir -p "$work"
"$collc" tune --emit=mpich-json "$examples/bruck_allgather.coll" --machine "$machine" -o "$work/bruck.json" \
  || { echo "FAIL: collc tune"; exit 1; }
grep -q '"comm_avg_ppn<=2"' "$work/bruck.json" || { echo "FAIL: no comm_avg_ppn<=2 in the file"; exit 1; }
export MPIR_CVAR_DEVICE_COLLECTIVES=none
fail=0
# expect WHAT GOT WANT
expect() {
  if [ "$2" = "$3" ]; then echo "ok: $1: rank 0 sends $2"
  else echo "FAIL: $1: rank 0 sends '$2', expected '$3'"; fail=1; fi
}
one=$(timeout 120 mpiexec.mpich -n 4 env MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE="$work/bruck.json" \
        "$app" allgather 1024 2> "$work/one.err")
grep -q "not over UCX\|not ch4:ucx" "$work/one.err" && { cat "$work/one.err"; exit 77; }
expect "one node of 4 ranks, the file" "$one" "1:3 "
cluster() {
  local f
  for f in "" "$work/bruck.json"; do
    rm -f "$work/cluster.report"
    timeout 120 "$cluster_sh" mpirun mpich -ppn 2 --done "mpich_json_app: done" -- \
      env ${f:+MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$f} "$app" allgather 1024 "$work/cluster.report" \
      > "$work/cluster.out" 2> "$work/cluster.err"
    grep -E "^([0-9?]+:[0-9]+ )+$" "$work/cluster.report" 2>/dev/null \
      || { echo "the job failed:"; tail -n 20 "$work/cluster.out" "$work/cluster.err" >&2; }
  done
}
export -f cluster
export cluster_sh app work
out=$("$cluster_sh" run -n 2 -- bash -c cluster)
expect "2 nodes x 2 ranks, MPICH's own" "$(echo "$out" | sed -n 1p)" "1:1 2:1 "
expect "2 nodes x 2 ranks, the file" "$(echo "$out" | sed -n 2p)" "2:1 3:1 "
exit $fail
