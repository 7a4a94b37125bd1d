#!/bin/sh
# run.sh BUILD_DIR [ROUNDS]: the MPI benchmark table - Open MPI at N = 2, 4, 8
# and MPICH at N = 2, every size 4 KiB .. 64 MiB, ROUNDS (default 5)
# alternating rounds. MPICH busy-polls: with more ranks than cores each
# message waits for a time slice, so its N > 2 numbers are scheduler noise
# and take long (N = 4: ~12 min at 3 rounds); MPICH_NS="2 4" adds them
# anyway (OMPI_NS likewise; an empty list skips that MPI).
# bench/mpi_collectives/summary.py reduces the
# output to one row per collective.
set -eu
b=${1:-build}/bench/mpi_collectives
r=${2:-5}
export GLIBC_TUNABLES=glibc.malloc.hugetlb=1
for n in ${OMPI_NS-2 4 8}; do
  mpirun.openmpi --allow-run-as-root --oversubscribe -n "$n" "$b/mpi_bench_openmpi" -r "$r"
done
for n in ${MPICH_NS-2}; do
  mpirun.mpich -n "$n" "$b/mpi_bench_mpich" -r "$r"
done
