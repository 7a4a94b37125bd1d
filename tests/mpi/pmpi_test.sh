#!/bin/sh
# pmpi_test.sh MPIRUN APP LIBCOLLMPI ALGS_SO WORKDIR
# Runs the unmodified MPI program APP under LD_PRELOAD=LIBCOLLMPI with a
# COLLMPI_CONFIG that maps every collective to algorithms of ALGS_SO, for
# N = 4 (powers of two: recursive doubling) and N = 3 (its `require` fails:
# the next rule serves), and checks that the program's results are right and
# that COLLMPI_DEBUG=1 names collc's algorithms. MPIRUN may hold options.
set -eu
mpirun=$1 app=$2 lib=$3 algs=$4 dir=$5
mkdir -p "$dir"
cfg=$dir/collmpi.conf
cat > "$cfg" <<CONF
# collective     min     max     object   algorithm                      [n=...]
allreduce        0       64KiB   $algs    recursive_doubling_allreduce
allreduce        0       64KiB   $algs    reduce_broadcast_allreduce
allreduce        64KiB   -       $algs    ring_allreduce
bcast            *       *       $algs    binomial_broadcast
reduce           *       *       $algs    binomial_reduce
allgather        0       16KiB   $algs    bruck_allgather
allgather        16KiB   -       $algs    ring_allgather
alltoall         *       *       $algs    pairwise_alltoall
gather           *       *       $algs    binomial_gather
scatter          *       *       $algs    binomial_scatter
reduce_scatter   *       *       $algs    ring_reduce_scatter       n=2..64
CONF
status=0
for n in 4 3; do
  log=$dir/pmpi_n$n.log
  # The library goes in through the environment of the launched program.
  if ! $mpirun -n $n env LD_PRELOAD="$lib" COLLMPI_CONFIG="$cfg" COLLMPI_DEBUG=1 "$app" > "$log" 2>&1; then
    echo "pmpi_test: N=$n: the program failed"; cat "$log"; status=1; continue
  fi
  grep -q "pmpi_app: N=$n: .* 0 wrong" "$log" || { echo "pmpi_test: N=$n: wrong results"; cat "$log"; status=1; }
  want="ring_allreduce binomial_broadcast binomial_reduce bruck_allgather ring_allgather pairwise_alltoall binomial_gather binomial_scatter ring_reduce_scatter"
  if [ $n = 4 ]; then want="$want recursive_doubling_allreduce"; else want="$want reduce_broadcast_allreduce"; fi
  for a in $want; do
    grep -q -- "-> $a (collc" "$log" || { echo "pmpi_test: N=$n: COLLMPI_DEBUG does not show $a"; status=1; }
  done
  # A strided type is packed into a contiguous copy: collc serves it too
  # (pmpi_app checks the result).
  grep -q "MPI_Bcast .*-> binomial_broadcast (collc, .*; non-contiguous datatype packed)" "$log" ||
    { echo "pmpi_test: N=$n: the vector-type MPI_Bcast was not packed"; status=1; }
  if [ $n = 3 ]; then
    grep -q "not applicable: recursive_doubling_allreduce" "$log" ||
      { echo "pmpi_test: N=3: recursive doubling was not reported not applicable"; status=1; }
  fi
  echo "--- N=$n"; cat "$log"
done
# Without a config the library changes nothing.
$mpirun -n 2 env LD_PRELOAD="$lib" "$app" > "$dir/pmpi_noconf.log" 2>&1 &&
  grep -q "0 wrong" "$dir/pmpi_noconf.log" || { echo "pmpi_test: no-config run failed"; cat "$dir/pmpi_noconf.log"; status=1; }
exit $status
