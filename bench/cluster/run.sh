#!/usr/bin/env bash
# run.sh [BUILD_DIR] [ROUNDS] - the cluster benchmark (docs/cluster.md
# section 7, bench/RESULTS.md section 9): on the emulated cluster
# (scripts/cluster.sh, root), for each shape of SHAPES (default "2x4 4x2":
# nodes x ranks per node, 1 Gbit/s links), under Open MPI:
#   1. collc-probe and collc calibrate: the shape's machine file;
#   2. the examples of each collective compiled with -D A=ppn (the
#      hierarchical ones' ranks per node) into a shared object, collc
#      tune's COLLMPI_CONFIG rules for the shape, and collc tune
#      --emit=ompi-rules's rules file of Open MPI's own algorithms;
#   3. cluster_bench.c per collective of COLLS (default allreduce allgather
#      reduce_scatter bcast), MIN..MAX (default 4096..67108864, x4), in
#      ROUNDS (default 5) rounds, each two jobs in alternating order: one
#      that alternates the library's own collective (native) with the same
#      call through libcollmpi.so and the rules (collc), and one of the
#      library with its rules file (tuned_lib); the median of the rounds.
# With TUNE=measure, collc's rules of step 2 come from collc-measure (the
# shape's candidates timed against the library's own call, MIN..MAX x4, in
# MEASURE_ROUNDS rounds, default ROUNDS) and collc tune --measure instead of
# the model (docs/cluster.md section 4); predicted_us stays the model's
# time for the algorithm the rules chose, and sizes the library keeps print
# `-` and MPI-library.
# BUILD_DIR (default build-rel) must be a Release build: the algorithms'
# reduction kernels and the probe's are the optimised ones.
# Two lines per measurement:
#   cluster COLL SIZE nodes=K ppn=P native_us=T tuned_lib_us=T collc_us=T predicted_us=T ratio=R
#           tuned_lib_predicted_us=T # COLLC-ALGORITHM TUNED-LIB-ALGORITHM
#   link COLL SIZE nodes=K ppn=P native_B=B tuned_lib_B=B collc_B=B model_tuned_lib_B=B model_collc_B=B
# ratio = native / collc; predicted_us is the calibrated model's time for
# the algorithm collc's rules chose, tuned_lib_predicted_us for the one the
# rules file gave Open MPI. *_B are the bytes per call that left the nodes
# over their links: measured (eth0's counter, what tc -s shows; TCP/IP
# headers and acknowledgements included) and the model's (the schedule's
# transfers between ranks of different nodes, link_bytes.py).
# Duration: one shape and one collective, 4 KiB..64 MiB in 2 rounds, took
# 1 min 40 s on a heavily loaded 2-core machine, so the default run (2
# shapes, 4 collectives, 5 rounds) takes about 20 minutes there, less on an
# idle one; most of it is the 16 and 64 MiB calls at 1 Gbit/s.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$(cd "${1:-$root/build-rel}" && pwd)"
rounds=${2:-5}
type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
if [ "$type" != Release ]; then
  echo "run.sh: $build is a '${type:-unknown}' build; the benchmark needs a Release build" \
       "(cmake -DCMAKE_BUILD_TYPE=Release)" >&2
  exit 2
fi
collc=$build/compiler/collc
lib=$build/targets/mpi/openmpi/libcollmpi.so
probe=$build/targets/mpi/openmpi/collc-probe
measure=$build/targets/mpi/openmpi/collc-measure
ex=$root/dsl-examples
ompi_def=$root/compiler/driver/ompi_rules.def
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicc.openmpi -O2 -o "$work/cluster_bench" "$here/cluster_bench.c"
# collc's candidates per collective, and the models of Open MPI's own
# algorithms (compiler/driver/ompi_rules.def) for its rules file
declare -A algs=(
  [allreduce]="ring_allreduce recursive_doubling_allreduce rabenseifner_allreduce hierarchical_allreduce"
  [allgather]="ring_allgather recursive_doubling_allgather bruck_allgather hierarchical_allgather"
  [reduce_scatter]="ring_reduce_scatter recursive_halving_reduce_scatter pairwise_reduce_scatter"
  [bcast]="binomial_broadcast scatter_allgather_broadcast pipelined_ring_broadcast"
)
declare -A ompi_algs=(
  [allreduce]="recursive_doubling_allreduce ring_allreduce rabenseifner_doubling_allreduce"
  [allgather]="bruck_allgather recursive_doubling_allgather ring_allgather"
  [reduce_scatter]="recursive_halving_reduce_scatter"
  [bcast]="linear_broadcast binomial_broadcast"
)
# the collective's name in collc's rules and its COLLTYPE in Open MPI's
declare -A rule_name=([allreduce]=allreduce [allgather]=allgather [reduce_scatter]=reduce_scatter [bcast]=broadcast)
declare -A ompi_type=([allreduce]=2 [allgather]=0 [reduce_scatter]=13 [bcast]=7)

inner() {
  local nodes=$1 ppn=$2 n=$(($1 * $2)) d=$work/$1x$2
  mkdir -p "$d"
  "$root/scripts/cluster.sh" mpirun openmpi -ppn "$ppn" -- "$probe" > "$d/probe.txt"
  "$collc" calibrate "$d/probe.txt" -o "$d/machine"
  local files=() ofiles=() c a defs=()
  for c in $COLLS; do
    for a in ${algs[$c]}; do files+=("$ex/$a.coll"); done
    for a in ${ompi_algs[$c]}; do ofiles+=("$ex/$a.coll"); done
  done
  grep -q "param A\b" "${files[@]}" && defs=(-D A="$ppn")
  "$collc" compile --target=mpi -c "${defs[@]}" "${files[@]}" -o "$d/algs.o"
  cc -shared "$d/algs.o" -o "$d/libalgs.so"
  if [ "$TUNE" = measure ]; then
    # the rules from the candidates timed on this shape (collc-measure)
    local names=()
    for c in $COLLS; do names+=(${algs[$c]}); done
    "$root/scripts/cluster.sh" mpirun openmpi -ppn "$ppn" -- "$measure" --object "$d/libalgs.so" \
      --min "$MIN" --max "$MAX" --factor 4 --rounds "$MEASURE_ROUNDS" "${names[@]}" > "$d/measure.txt"
    "$collc" tune --measure "$d/measure.txt" -o "$d/rules"
  else
    "$collc" tune "${files[@]}" "${defs[@]}" --machine "$d/machine" --object "$d/libalgs.so" \
      --range "${MIN}B..$((MAX * 4))B" -o "$d/rules"
  fi
  "$collc" tune --emit=ompi-rules "${ofiles[@]}" --machine "$d/machine" \
    --range "${MIN}B..$((MAX * 4))B" -o "$d/ompi.rules"
  sed 's/^/# /' "$d/machine" "$d/rules" >&2
  local mpirun=("$root/scripts/cluster.sh" mpirun openmpi -ppn "$ppn")
  local tuned_mca=(--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename "$d/ompi.rules")
  for c in $COLLS; do
    local q
    for ((q = 1; q <= rounds; q++)); do
      # a: native against collc; b: the library with its rules file
      local job_a=("${mpirun[@]}" -- env LD_PRELOAD="$lib" COLLMPI_CONFIG="$d/rules"
                   "$work/cluster_bench" "$c" "$MIN" "$MAX" 1)
      local job_b=("${mpirun[@]}" "${tuned_mca[@]}" -- "$work/cluster_bench" "$c" "$MIN" "$MAX" 1 native)
      if ((q % 2)); then "${job_a[@]}" > "$d/$c.a.$q"; "${job_b[@]}" > "$d/$c.b.$q"
      else "${job_b[@]}" > "$d/$c.b.$q"; "${job_a[@]}" > "$d/$c.a.$q"; fi
    done
    local size
    for size in $(awk '$1 ~ /^[0-9]+$/ { print $1 }' "$d/$c.a.1"); do
      # med K F: field F of this size's line over the rounds of job kind K,
      # the median (to 0.1 us, or a whole byte for the _B fields)
      med() {
        local fmt="%.1f\n"; [[ "$2" == *_B ]] && fmt="%.0f\n"
        cat "$d/$c.$1".* | awk -v s="$size" -v f="$2=" '$1 == s { for (i = 2; i <= NF; i++) if (index($i, f) == 1) print substr($i, length(f) + 1) }' \
          | sort -g | awk -v fmt="$fmt" '{ v[NR] = $1 } END { if (NR == 0 || v[1] == "-") print "-"; else if (NR % 2) printf fmt, v[(NR + 1) / 2]; else printf fmt, (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
      }
      local native ours tuned
      native=$(med a native_us) ours=$(med a collc_us) tuned=$(med b native_us)
      # the rule that serves this size, and the model's time for its algorithm
      local alg talg pred tpred
      alg=$(awk -v c="${rule_name[$c]}" -v s="$size" '$1 == c && s >= $2 && s < $3 { print $5; exit }' "$d/rules")
      talg=$(python3 "$here/ompi_rule.py" "$d/ompi.rules" "$ompi_def" "${ompi_type[$c]}" "$n" "$size" | awk '{ print $2 }')
      [ "$talg" = - ] && talg=
      pred=$(predict "$alg" "$n" "$size" "$ppn" "$d/machine") tpred=$(predict "$talg" "$n" "$size" "$ppn" "$d/machine")
      echo "cluster $c $size nodes=$nodes ppn=$ppn native_us=$native tuned_lib_us=$tuned collc_us=$ours" \
           "predicted_us=$pred ratio=$(awk -v a="$native" -v b="$ours" 'BEGIN { printf "%.2f", a / b }')" \
           "tuned_lib_predicted_us=$tpred # ${alg:-MPI-library} ${talg:-MPI-library}"
      echo "link $c $size nodes=$nodes ppn=$ppn native_B=$(med a native_link_B) tuned_lib_B=$(med b native_link_B)" \
           "collc_B=$(med a collc_link_B) model_tuned_lib_B=$(model_bytes "$talg" "$n" "$size" "$ppn")" \
           "model_collc_B=$(model_bytes "$alg" "$n" "$size" "$ppn")"
    done
  done
}
# group_def ALG PPN: the -D of ALG's group parameter, if it has one
group_def() { grep -q "param A\b" "$ex/$1.coll" && echo "-D A=$2" || true; }
# predict ALG N SIZE PPN MACHINE: the model's time in us ("-" without ALG)
predict() {
  [ -n "$1" ] || { echo -; return; }
  # shellcheck disable=SC2046
  "$collc" cost "$ex/$1.coll" $(group_def "$1" "$4") -N "$2" --size "${3}B" --machine "$5" \
    | awk '$1 == "total" { v = $2; u = $3; if (u == "ms") v *= 1000; else if (u == "s") v *= 1e6; else if (u == "ns") v /= 1000; printf "%.1f", v }'
}
# model_bytes ALG N SIZE PPN: the bytes ALG's schedule sends between nodes
model_bytes() {
  [ -n "$1" ] || { echo -; return; }
  # shellcheck disable=SC2046
  "$collc" expand "$ex/$1.coll" $(group_def "$1" "$4") -N "$2" | python3 "$here/link_bytes.py" "$4" "$3" \
    | sed 's/.*link_B=\([0-9]*\).*/\1/'
}
export -f inner group_def predict model_bytes
export root here collc lib probe measure ex ompi_def work rounds
case ${TUNE:=model} in model | measure) ;; *) echo "run.sh: TUNE is model or measure, got '$TUNE'" >&2; exit 2 ;; esac
export TUNE MEASURE_ROUNDS=${MEASURE_ROUNDS:-$rounds}
export COLLS=${COLLS:-allreduce allgather reduce_scatter bcast} MIN=${MIN:-4096} MAX=${MAX:-67108864}
for shape in ${SHAPES:-2x4 4x2}; do
  nodes=${shape%x*} ppn=${shape#*x}
  CLUSTER=bench$nodes$ppn "$root/scripts/cluster.sh" run -n "$nodes" -- \
    bash -c "set -euo pipefail; $(declare -p algs ompi_algs rule_name ompi_type); inner $nodes $ppn"
done
