#!/bin/sh
# pmpi_v_test.sh MPIRUN APP LIBCOLLMPI ALGS_SO WORKDIR
# Runs the unmodified MPI program APP (pmpi_v_app.c: the v-collectives in
# their blocking, nonblocking and persistent forms; blocks of one size side
# by side and at scattered displacements, uneven and zero counts, in place)
# under LD_PRELOAD=LIBCOLLMPI with a COLLMPI_CONFIG whose rules name the
# regular collectives, for N = 4 and 3, and checks that its results are
# right, that COLLMPI_DEBUG=1 shows collc serving every v-form with the
# regular collective's rule, uneven ones with per-block counts (those of
# MPI_Igatherv, MPI_Iscatterv and MPI_Ialltoallv exchanged in the
# background), none by the MPI library; and with a rule bounded by size,
# that the MPI library serves those three forms with the reason. MPIRUN
# may hold options.
set -eu
mpirun=$1 app=$2 lib=$3 algs=$4 dir=$5
mkdir -p "$dir"
cfg=$dir/collmpi_v.conf
cat > "$cfg" <<CONF
# collective     min     max     object   algorithm
allgather        *       *       $algs    ring_allgather
alltoall         *       *       $algs    pairwise_alltoall
gather           *       *       $algs    binomial_gather
scatter          *       *       $algs    binomial_scatter
reduce_scatter   *       *       $algs    ring_reduce_scatter
CONF
status=0
for n in 4 3; do
  log=$dir/pmpi_v_n$n.log
  if ! $mpirun -n $n env LD_PRELOAD="$lib" COLLMPI_CONFIG="$cfg" COLLMPI_DEBUG=1 "$app" > "$log" 2>&1; then
    echo "pmpi_v_test: N=$n: the program failed"; cat "$log"; status=1; continue
  fi
  grep -q "pmpi_v_app: N=$n: .* 0 wrong" "$log" || { echo "pmpi_v_test: N=$n: wrong results"; cat "$log"; status=1; }
  # the persistent forms: MPI-4 (MPICH) and Open MPI 4.1's MPIX_*_init
  served="MPI_Allgatherv:ring_allgather MPI_Iallgatherv:ring_allgather
          MPI_Gatherv:binomial_gather MPI_Scatterv:binomial_scatter
          MPI_Alltoallv:pairwise_alltoall MPI_Reduce_scatter:ring_reduce_scatter
          MPI_Ireduce_scatter:ring_reduce_scatter MPI_Allgatherv_init:ring_allgather
          MPI_Gatherv_init:binomial_gather MPI_Scatterv_init:binomial_scatter
          MPI_Alltoallv_init:pairwise_alltoall MPI_Reduce_scatter_init:ring_reduce_scatter"
  for form in $served; do
    f=${form%%:*} alg=${form#*:}
    grep -q -- "$f (.*) -> $alg (collc" "$log" ||
      { echo "pmpi_v_test: N=$n: COLLMPI_DEBUG does not show $f served by $alg"; status=1; }
  done
  # uneven counts with zeros: per block (these algorithms keep chunks to
  # their blocks), in every form the ranks can agree in
  for f in MPI_Allgatherv MPI_Gatherv MPI_Scatterv MPI_Alltoallv MPI_Reduce_scatter \
           MPI_Iallgatherv MPI_Ireduce_scatter MPI_Allgatherv_init MPI_Gatherv_init \
           MPI_Scatterv_init MPI_Alltoallv_init MPI_Reduce_scatter_init; do
    grep -q -- "$f (.*) -> .* (collc, $algs; uneven blocks, per-block counts)" "$log" ||
      { echo "pmpi_v_test: N=$n: COLLMPI_DEBUG does not show uneven $f served per block"; status=1; }
  done
  ! grep -q "MPI library: blocks of different sizes" "$log" ||
    { echo "pmpi_v_test: N=$n: an uneven call went to the MPI library"; status=1; }
  for form in MPI_Igatherv:binomial_gather MPI_Iscatterv:binomial_scatter \
              MPI_Ialltoallv:pairwise_alltoall; do
    f=${form%%:*} alg=${form#*:}
    grep -q -- "$f (.*) -> $alg (collc, $algs; per-block counts, exchanged in the background)" "$log" ||
      { echo "pmpi_v_test: N=$n: COLLMPI_DEBUG does not show $f served by $alg per block"; status=1; }
  done
  # nothing of these calls goes to the MPI library (MPI_Allreduce has no rule)
  ! grep -v 'MPI_Allreduce\|MPI_Barrier' "$log" | grep -q "MPI library" ||
    { echo "pmpi_v_test: N=$n: a v-call went to the MPI library"; status=1; }
  echo "--- N=$n"; cat "$log"
done
# A rule bounded by size cannot decide a call whose size only the root (or
# no rank) knows: MPI_Igatherv, MPI_Iscatterv, MPI_Ialltoallv go to the MPI
# library, the same on every rank, and the results stay right.
cat > "$dir/collmpi_v_bounded.conf" <<CONF
allgather        *       *       $algs    ring_allgather
alltoall         0       1GiB    $algs    pairwise_alltoall
gather           0       1GiB    $algs    binomial_gather
scatter          0       1GiB    $algs    binomial_scatter
reduce_scatter   *       *       $algs    ring_reduce_scatter
CONF
log=$dir/pmpi_v_bounded.log
if $mpirun -n 4 env LD_PRELOAD="$lib" COLLMPI_CONFIG="$dir/collmpi_v_bounded.conf" COLLMPI_DEBUG=1 "$app" > "$log" 2>&1; then
  grep -q "pmpi_v_app: N=4: .* 0 wrong" "$log" || { echo "pmpi_v_test: bounded: wrong results"; status=1; }
  for f in MPI_Igatherv MPI_Iscatterv MPI_Ialltoallv; do
    grep -q -- "^collmpi\[0\]: $f (.*) -> MPI library: a rule bounded by size, and the size needs the other ranks' counts first\$" "$log" ||
      { echo "pmpi_v_test: bounded: COLLMPI_DEBUG does not give the reason for $f"; status=1; }
  done
  grep -q -- "^collmpi\[0\]: MPI_Gatherv (.*) -> binomial_gather (collc" "$log" ||
    { echo "pmpi_v_test: bounded: MPI_Gatherv not served by its bounded rule"; status=1; }
else
  echo "pmpi_v_test: bounded: the program failed"; cat "$log"; status=1
fi
echo "--- bounded"; cat "$log"
exit $status
