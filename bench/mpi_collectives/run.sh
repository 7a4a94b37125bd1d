#!/bin/sh
# run.sh BUILD_DIR [ROUNDS]: the MPI benchmark table - Open MPI at N = 2, 4, 8
# and MPICH at N = 2, every size 8 B .. 64 MiB (MAX=BYTES for less), ROUNDS
# (default 5) alternating rounds. MPICH busy-polls: with more ranks than
# cores each message waits for a time slice, so its N > 2 numbers are
# scheduler noise and take long (N = 4: ~12 min at 3 rounds); MPICH_NS="2 4"
# adds them anyway (OMPI_NS likewise; an empty list skips that MPI).
# Then the "served" table: at N = 2 and 8 B .. 64 KiB, one algorithm per
# collective (SERVED="collective:algorithm ...") called directly against the
# same call served through libcollmpi.so (LD_PRELOAD, a rule for it);
# SERVED= skips it, SERVED_MPIS=openmpi runs one MPI. bench/mpi_collectives/summary.py reduces the output to
# one row per collective.
set -eu
b=${1:-build}/bench/mpi_collectives
r=${2:-5}
max=${MAX:-67108864}
export GLIBC_TUNABLES=glibc.malloc.hugetlb=1
for n in ${OMPI_NS-2 4 8}; do
  mpirun.openmpi --allow-run-as-root --oversubscribe -n "$n" "$b/mpi_bench_openmpi" -r "$r" -max "$max"
done
for n in ${MPICH_NS-2}; do
  mpirun.mpich -n "$n" "$b/mpi_bench_mpich" -r "$r" -max "$max"
done
served=${SERVED-allreduce:recursive_doubling_allreduce bcast:binomial_broadcast
  reduce:binomial_reduce allgather:recursive_doubling_allgather
  reduce_scatter:recursive_halving_reduce_scatter alltoall:direct_alltoall
  gather:linear_gather scatter:linear_scatter}
[ -n "$served" ] || exit 0
cfg=$(mktemp)
trap 'rm -f "$cfg"' EXIT
for f in ${SERVED_MPIS-openmpi mpich}; do
  lib=${1:-build}/targets/mpi/$f/libcollmpi.so
  for s in $served; do
    c=${s%%:*} a=${s#*:}
    echo "$c 0 - $b/$f/libbenchalgs.so $a" > "$cfg"
    if [ $f = openmpi ]; then
      mpirun.openmpi --allow-run-as-root -n 2 -x LD_PRELOAD="$lib" -x COLLMPI_CONFIG="$cfg" \
        "$b/mpi_bench_openmpi" -r "$r" -max 65536 -c "$c" -s "$a"
    else
      mpirun.mpich -n 2 -env LD_PRELOAD "$lib" -env COLLMPI_CONFIG "$cfg" \
        "$b/mpi_bench_mpich" -r "$r" -max 65536 -c "$c" -s "$a"
    fi
  done
done
