#!/bin/sh
# run.sh BUILD_DIR [ROUNDS]: start_bench (MPI_Start + MPI_Wait of a
# persistent MPI_Allreduce_init, collc against the library) at 8 B and
# 4 KiB (SIZES) under Open MPI and MPICH at N = 2, with libcollmpi.so
# serving allreduce by ALG (default recursive_doubling_allreduce) from
# bench/mpi_collectives' shared object. ITERS calls per round (default 2000).
set -eu
b=${1:-build}
r=${2:-9}
alg=${ALG:-recursive_doubling_allreduce}
cfg=$(mktemp)
trap 'rm -f "$cfg"' EXIT
for f in openmpi mpich; do
  echo "allreduce 0 - $b/bench/mpi_collectives/$f/libbenchalgs.so $alg" > "$cfg"
  lib=$b/targets/mpi/$f/libcollmpi.so
  exe=$b/bench/mpi_start/start_bench_$f
  if [ $f = openmpi ]; then
    echo "## Open MPI, N=2, $alg"
    mpirun.openmpi --allow-run-as-root --oversubscribe -n 2 -x LD_PRELOAD="$lib" \
      -x COLLMPI_CONFIG="$cfg" "$exe" -r "$r" -i "${ITERS:-2000}" ${SIZES:-8 4096}
  else
    echo "## MPICH, N=2, $alg"
    mpirun.mpich -n 2 -env LD_PRELOAD "$lib" -env COLLMPI_CONFIG "$cfg" \
      "$exe" -r "$r" -i "${ITERS:-2000}" ${SIZES:-8 4096}
  fi
done
