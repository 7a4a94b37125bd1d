#!/bin/sh
# run.sh BUILD_DIR [ROUNDS]: vpad_bench (MPI_Allgatherv, MPI_Reduce_scatter,
# MPI_Alltoallv, MPI_Gatherv with blocks of base and base + 1 ints) at
# 64 KiB, 1 MiB and 16 MiB under Open MPI (N = OMPI_NS, default 2 4) and
# MPICH (N = MPICH_NS, default 2), with libcollmpi.so serving them with
# per-block counts by the test algorithms of tests/mpi (ring allgather and
# reduce_scatter, pairwise alltoall, binomial gather: all keep their chunks
# to their blocks). UNIFORM=1: blocks of one size side by side instead
# (vpad_bench -u).
set -eu
b=${1:-build}
r=${2:-9}
cfg=$(mktemp)
trap 'rm -f "$cfg"' EXIT
for f in openmpi mpich; do
  algs=$b/tests/mpi/$f/libtestalgs.so
  cat > "$cfg" <<CONF
allgather       0 - $algs ring_allgather
reduce_scatter  0 - $algs ring_reduce_scatter
alltoall        0 - $algs pairwise_alltoall
gather          0 - $algs binomial_gather
CONF
  lib=$b/targets/mpi/$f/libcollmpi.so
  exe=$b/bench/mpi_vpad/vpad_bench_$f
  if [ $f = openmpi ]; then
    for n in ${OMPI_NS-2 4}; do
      echo "## Open MPI, N=$n"
      mpirun.openmpi --allow-run-as-root --oversubscribe -n "$n" -x LD_PRELOAD="$lib" \
        -x COLLMPI_CONFIG="$cfg" "$exe" -r "$r" ${UNIFORM:+-u}
    done
  else
    for n in ${MPICH_NS-2}; do
      echo "## MPICH, N=$n"
      mpirun.mpich -n "$n" -env LD_PRELOAD "$lib" -env COLLMPI_CONFIG "$cfg" "$exe" -r "$r" ${UNIFORM:+-u}
    done
  fi
done
