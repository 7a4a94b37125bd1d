#!/bin/sh
# run.sh BUILD_DIR [ROUNDS]: the MPI benchmark table - Open MPI at N = 2, 4, 8
# and MPICH at N = 2 (MPICH busy-polls: oversubscribed its numbers mean
# nothing), every size 4 KiB .. 64 MiB, ROUNDS (default 5) alternating rounds.
set -eu
b=${1:-build}/bench/mpi_collectives
r=${2:-5}
export GLIBC_TUNABLES=glibc.malloc.hugetlb=1
for n in 2 4 8; do
  mpirun.openmpi --allow-run-as-root --oversubscribe -n $n "$b/mpi_bench_openmpi" -r "$r"
done
mpirun.mpich -n 2 "$b/mpi_bench_mpich" -r "$r"
