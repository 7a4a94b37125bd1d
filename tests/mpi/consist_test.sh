#!/bin/sh
# consist_test.sh MPIRUN APP LIBCOLLMPI ALGS_SO WORKDIR N [CASE ...]
# Runs consist_app (a plain MPI program, tests/mpi/consist_app.c) on N
# processes under LD_PRELOAD=LIBCOLLMPI with a COLLMPI_CONFIG that sends
# every collective to collc, power-of-two algorithms first and general ones
# second (the pattern docs/mpi.md recommends), one case per run, each within
# 60 s: a rank that decides differently from the others hangs its
# collective, and the timeout fails the test. No CASE: every case but
# `huge`; `huge` (over 2^31 bytes per buffer) is skipped (exit 77) without
# 12 GiB of available memory. MPIRUN may hold options.
set -u
mpirun=$1 app=$2 lib=$3 algs=$4 dir=$5 n=$6
shift 6
cases=${*:-rootonly inplace overlap self inter zero types}
mkdir -p "$dir"
cfg=$dir/consist.conf
cat > "$cfg" <<CONF
# collective     min  max  object  algorithm
allreduce        *    *    $algs   recursive_doubling_allreduce
allreduce        *    *    $algs   ring_allreduce
bcast            *    *    $algs   binomial_broadcast
reduce           *    *    $algs   rabenseifner_reduce
reduce           *    *    $algs   binomial_reduce
allgather        *    *    $algs   recursive_doubling_allgather
allgather        *    *    $algs   ring_allgather
alltoall         *    *    $algs   xor_pairwise_alltoall
alltoall         *    *    $algs   pairwise_alltoall
gather           *    *    $algs   binomial_gather
scatter          *    *    $algs   binomial_scatter
reduce_scatter   *    *    $algs   recursive_halving_reduce_scatter
reduce_scatter   *    *    $algs   ring_reduce_scatter
CONF
status=0
for c in $cases; do
  if [ "$c" = huge ]; then
    avail=$(awk '/^MemAvailable:/ { print int($2 / 1048576) }' /proc/meminfo)
    if [ "${avail:-0}" -lt 12 ]; then
      echo "consist_test: N=$n: huge: skipped, ${avail:-?} GiB available (needs 12)"; exit 77
    fi
  fi
  log=$dir/consist_n${n}_$c.log
  limit=60
  [ "$c" = huge ] && limit=600
  timeout $limit $mpirun -n "$n" env LD_PRELOAD="$lib" COLLMPI_CONFIG="$cfg" "$app" "$c" > "$log" 2>&1
  rc=$?
  if [ $rc = 124 ]; then
    echo "consist_test: N=$n: $c: timed out after $limit s (a hang)"; status=1
  elif [ $rc != 0 ] || ! grep -q "consist_app: N=$n: $c: .* 0 wrong" "$log"; then
    echo "consist_test: N=$n: $c: failed ($rc)"; status=1
  fi
  cat "$log"
done
exit $status
