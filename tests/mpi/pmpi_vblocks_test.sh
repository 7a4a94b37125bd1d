#!/bin/sh
# pmpi_vblocks_test.sh MPIRUN APP LIBCOLLMPI ALGS_SO WORKDIR
# Runs the unmodified MPI program APP (pmpi_vpad_app.c: the v-collectives
# with uneven and zero blocks, gaps, in place, every form, each result
# compared bit for bit with the MPI library's own) under
# LD_PRELOAD=LIBCOLLMPI once per example algorithm of the five
# v-collectives, with one rule naming it, at N = 4 and 3. Checks that no
# result differs and that COLLMPI_DEBUG=1 gives each algorithm the verdict
# below on its first uneven blocking call: per block (its chunks keep to
# their blocks), padded (it moves blocks between chunk slots), or not
# applicable at that N (a `require`). The verdicts are the algorithms'
# own (docs/mpi.md "v-collectives"), written here from reading them.
# MPIRUN may hold options.
set -eu
mpirun=$1 app=$2 lib=$3 algs=$4 dir=$5
mkdir -p "$dir"
status=0
fail() { echo "pmpi_vblocks_test: $*"; status=1; }
# collective:algorithm:verdict at N=4:verdict at N=3
cases="allgather:ring_allgather:per:per
allgather:bidir_ring_allgather:per:per
allgather:bidir_bulk_allgather:per:per
allgather:bruck_allgather:per:per
allgather:direct_allgather:per:per
allgather:hierarchical_allgather:per:na
allgather:recursive_doubling_allgather:per:na
allgather:sccl_bulk_ring_allgather:per:per
allgather:pat_allgather:pad:pad
alltoall:pairwise_alltoall:per:per
alltoall:direct_alltoall:per:per
alltoall:xor_pairwise_alltoall:per:na
alltoall:bruck_alltoall:pad:pad
gather:binomial_gather:per:per
gather:linear_gather:per:per
scatter:binomial_scatter:per:per
scatter:linear_scatter:per:per
reduce_scatter:ring_reduce_scatter:per:per
reduce_scatter:bidir_ring_reduce_scatter:per:per
reduce_scatter:direct_reduce_scatter:per:per
reduce_scatter:pairwise_reduce_scatter:per:per
reduce_scatter:recursive_halving_reduce_scatter:per:na
reduce_scatter:pat_reduce_scatter:pad:pad"
for c in $cases; do
  coll=$(echo "$c" | cut -d: -f1) alg=$(echo "$c" | cut -d: -f2)
  case $coll in
    allgather) f=MPI_Allgatherv ;; alltoall) f=MPI_Alltoallv ;; gather) f=MPI_Gatherv ;;
    scatter) f=MPI_Scatterv ;; reduce_scatter) f=MPI_Reduce_scatter ;;
  esac
  for n in 4 3; do
    if [ $n = 4 ]; then v=$(echo "$c" | cut -d: -f3); else v=$(echo "$c" | cut -d: -f4); fi
    cfg=$dir/vblocks_$alg.conf log=$dir/vblocks_${alg}_n$n.log
    printf '%s * * %s %s\n' "$coll" "$algs" "$alg" > "$cfg"
    if ! $mpirun -n $n env LD_PRELOAD="$lib" COLLMPI_CONFIG="$cfg" COLLMPI_DEBUG=1 "$app" > "$log" 2>&1; then
      fail "$alg N=$n: the program failed"; cat "$log"; continue
    fi
    grep -qx "pmpi_vpad_app: N=$n: [0-9]* checks, 0 differ" "$log" ||
      fail "$alg N=$n: results differ from the MPI library's"
    case $v in
      per) want="-> $alg (collc, $algs; uneven blocks, per-block counts)" ;;
      pad) want="-> $alg (collc, $algs; uneven blocks padded to the largest)" ;;
      na)  want="-> not applicable: $alg" ;;
    esac
    grep -q -- "^collmpi\[0\]: $f (.*) $want\$" "$log" ||
      fail "$alg N=$n: COLLMPI_DEBUG does not show '$f ... $want'"
  done
done
exit $status
