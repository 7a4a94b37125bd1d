#!/bin/sh
# run.sh BUILD_DIR [ROUNDS]: overlap_bench (MPI_Iallreduce with computation,
# collc against the library) at 1 MiB and 16 MiB under Open MPI (N = 2,
# OMPI_NS) and MPICH (N = 2, MPICH_NS; more ranks than cores make every
# rank's computation steal time from the others' communication), with libcollmpi.so serving
# allreduce by ALG (default ring_allreduce) from bench/mpi_collectives'
# shared object. SLICES (default 64) compute slices, each followed by an
# MPI_Test.
set -eu
b=${1:-build}
r=${2:-9}
alg=${ALG:-ring_allreduce}
cfg=$(mktemp)
trap 'rm -f "$cfg"' EXIT
for f in openmpi mpich; do
  echo "allreduce 0 - $b/bench/mpi_collectives/$f/libbenchalgs.so $alg" > "$cfg"
  lib=$b/targets/mpi/$f/libcollmpi.so
  exe=$b/bench/mpi_overlap/overlap_bench_$f
  if [ $f = openmpi ]; then
    for n in ${OMPI_NS-2}; do
      echo "## Open MPI, N=$n, $alg"
      mpirun.openmpi --allow-run-as-root --oversubscribe -n "$n" -x LD_PRELOAD="$lib" \
        -x COLLMPI_CONFIG="$cfg" "$exe" -r "$r" -t "${SLICES:-64}" 1048576 16777216
    done
  else
    for n in ${MPICH_NS-2}; do
      echo "## MPICH, N=$n, $alg"
      mpirun.mpich -n "$n" -env LD_PRELOAD "$lib" -env COLLMPI_CONFIG "$cfg" \
        "$exe" -r "$r" -t "${SLICES:-64}" 1048576 16777216
    done
  fi
done
