#!/usr/bin/env bash
# run.sh BUILD_DIR [ROUNDS] - the cluster benchmark (docs/cluster.md,
# bench/RESULTS.md section 5): on the emulated cluster (scripts/cluster.sh,
# root), for each shape of SHAPES (default "2x4 4x2": nodes x ranks per
# node, 1 Gbit/s links), under Open MPI:
#   1. collc-probe and collc calibrate: the shape's machine file;
#   2. the examples of each collective compiled with -D A=ppn (the
#      hierarchical ones' ranks per node) into a shared object, and collc
#      tune's rules for the shape;
#   3. cluster_bench.c per collective of COLLS (default allreduce allgather
#      reduce_scatter bcast), MIN..MAX (default 4096..67108864, x4),
#      ROUNDS (default 5) alternating rounds, median: the library's own
#      collective against the same call through libcollmpi.so with the
#      rules, and the calibrated model's prediction for the algorithm the
#      rules chose (collc cost).
# One line per measurement:
#   cluster COLL SIZE nodes=K ppn=P native_us=T tuned_lib_us=- collc_us=T predicted_us=T ratio=R
# ratio = native / collc; tuned_lib_us (the library with a rules file of its
# own algorithms) is "-": collc does not write those files yet.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$(cd "${1:-build}" && pwd)"
rounds=${2:-5}
collc=$build/compiler/collc
lib=$build/targets/mpi/openmpi/libcollmpi.so
probe=$build/targets/mpi/openmpi/collc-probe
ex=$root/dsl-examples
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicc.openmpi -O2 -o "$work/cluster_bench" "$here/cluster_bench.c"
declare -A algs=(
  [allreduce]="ring_allreduce recursive_doubling_allreduce rabenseifner_allreduce hierarchical_allreduce"
  [allgather]="ring_allgather recursive_doubling_allgather bruck_allgather hierarchical_allgather"
  [reduce_scatter]="ring_reduce_scatter recursive_halving_reduce_scatter pairwise_reduce_scatter"
  [bcast]="binomial_broadcast scatter_allgather_broadcast pipelined_ring_broadcast"
)
inner() {
  local nodes=$1 ppn=$2 n=$(($1 * $2)) d=$work/$1x$2
  mkdir -p "$d"
  "$root/scripts/cluster.sh" mpirun openmpi -ppn "$ppn" -- "$probe" > "$d/probe.txt"
  "$collc" calibrate "$d/probe.txt" -o "$d/machine"
  local files=() c a defs=()
  for c in $COLLS; do for a in ${algs[$c]}; do files+=("$ex/$a.coll"); done; done
  grep -q "param A\b" "${files[@]}" && defs=(-D A="$ppn")
  "$collc" compile --target=mpi -c "${defs[@]}" "${files[@]}" -o "$d/algs.o"
  cc -shared "$d/algs.o" -o "$d/libalgs.so"
  "$collc" tune "${files[@]}" "${defs[@]}" --machine "$d/machine" --object "$d/libalgs.so" \
    --range "${MIN}B..$((MAX * 4))B" -o "$d/rules"
  sed 's/^/# /' "$d/machine" "$d/rules" >&2
  for c in $COLLS; do
    "$root/scripts/cluster.sh" mpirun openmpi -ppn "$ppn" -- env LD_PRELOAD="$lib" COLLMPI_CONFIG="$d/rules" \
      "$work/cluster_bench" "$c" "$MIN" "$MAX" "$rounds" > "$d/$c.out"
    local size rest native ours alg pred
    while read -r size rest; do
      [[ "$size" =~ ^[0-9]+$ ]] || continue
      native=${rest#native_us=}; native=${native%% *}
      ours=${rest#*collc_us=}
      # the rule that serves this size, and the model's time for its algorithm
      local key=$c; [ "$c" = bcast ] && key=broadcast
      alg=$(awk -v c="$key" -v s="$size" '$1 == c && s >= $2 && s < $3 { print $5; exit }' "$d/rules")
      pred=-
      if [ -n "$alg" ]; then
        local def=(); grep -q "param A\b" "$ex/$alg.coll" && def=(-D A="$ppn")
        pred=$("$collc" cost "$ex/$alg.coll" "${def[@]}" -N "$n" --size "${size}B" --machine "$d/machine" \
                 | awk '$1 == "total" { v = $2; u = $3; if (u == "ms") v *= 1000; else if (u == "s") v *= 1e6; else if (u == "ns") v /= 1000; printf "%.1f", v }')
      fi
      echo "cluster $c $size nodes=$nodes ppn=$ppn native_us=$native tuned_lib_us=- collc_us=$ours" \
           "predicted_us=$pred ratio=$(awk -v a="$native" -v b="$ours" 'BEGIN { printf "%.2f", a / b }')" \
           "# ${alg:-MPI library}"
    done < "$d/$c.out"
  done
}
export -f inner
export root collc lib probe ex work rounds
export COLLS=${COLLS:-allreduce allgather reduce_scatter bcast} MIN=${MIN:-4096} MAX=${MAX:-67108864}
for shape in ${SHAPES:-2x4 4x2}; do
  nodes=${shape%x*} ppn=${shape#*x}
  CLUSTER=bench$nodes$ppn "$root/scripts/cluster.sh" run -n "$nodes" -- \
    bash -c "set -euo pipefail; $(declare -p algs); inner $nodes $ppn"
done
