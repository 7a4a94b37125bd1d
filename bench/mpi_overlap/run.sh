#!/bin/sh
# run.sh BUILD_DIR [ROUNDS]: overlap_bench (MPI_Iallreduce with computation,
# collc against the library) at 1 MiB and 16 MiB under Open MPI (N = 2,
# OMPI_NS) and MPICH (N = 2, MPICH_NS; more ranks than cores make every
# rank's computation steal time from the others' communication), with libcollmpi.so serving
# allreduce by ALG (default ring_allreduce) from bench/mpi_collectives'
# shared object. SLICES (default 64) compute slices, each followed by an
# MPI_Test. SIZES (default "1048576 16777216") the message sizes in bytes.
# With PROGRESS=thread, collc's requests also advance in its progress
# thread (COLLMPI_PROGRESS=thread; the program asks for
# MPI_THREAD_MULTIPLE, under which both implementations then run).
# SEGMENT (default 1048576) collc's segment size (COLLMPI_SEGMENT).
#
# With NODES=K (root; scripts/cluster.sh): Open MPI only, one rank on each
# of K emulated nodes joined by RATE (default 1gbit) links, so the
# AllReduce's bytes cross a network instead of being copied by the ranks'
# own cores, which on one machine are the cores the computation needs.
set -eu
b=${1:-build}
r=${2:-9}
alg=${ALG:-ring_allreduce}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if [ -n "${NODES-}" ] && [ -z "${CLUSTER_UP-}" ]; then
  b=$(cd "$b" && pwd)
  exec env CLUSTER_UP=1 "$root/scripts/cluster.sh" run -n "$NODES" --rate "${RATE:-1gbit}" -- \
    sh "$here/run.sh" "$b" "$r"
fi
cfg=$(mktemp)
trap 'rm -f "$cfg"' EXIT
slicing="-r $r -t ${SLICES:-64} ${SIZES:-1048576 16777216}"
progress=${PROGRESS:-test}
seg=${SEGMENT:-1048576}
[ "$progress" = test ] || slicing="-m $slicing"
for f in openmpi mpich; do
  echo "allreduce 0 - $b/bench/mpi_collectives/$f/libbenchalgs.so $alg" > "$cfg"
  lib=$b/targets/mpi/$f/libcollmpi.so
  exe=$b/bench/mpi_overlap/overlap_bench_$f
  if [ -n "${CLUSTER_UP-}" ]; then
    [ $f = openmpi ] || continue
    echo "## Open MPI, $NODES nodes x 1 rank (${RATE:-1gbit} links), $alg, progress: $progress"
    # shellcheck disable=SC2086
    "$root/scripts/cluster.sh" mpirun openmpi -ppn 1 -- env LD_PRELOAD="$lib" COLLMPI_CONFIG="$cfg" \
      COLLMPI_PROGRESS="$progress" COLLMPI_SEGMENT="$seg" \
      "$exe" $slicing
  elif [ $f = openmpi ]; then
    for n in ${OMPI_NS-2}; do
      echo "## Open MPI, N=$n, $alg"
      # shellcheck disable=SC2086
      mpirun.openmpi --allow-run-as-root --oversubscribe -n "$n" -x LD_PRELOAD="$lib" \
        -x COLLMPI_CONFIG="$cfg" -x COLLMPI_PROGRESS="$progress" -x COLLMPI_SEGMENT="$seg" "$exe" $slicing
    done
  else
    for n in ${MPICH_NS-2}; do
      echo "## MPICH, N=$n, $alg"
      # shellcheck disable=SC2086
      mpirun.mpich -n "$n" -env LD_PRELOAD "$lib" -env COLLMPI_CONFIG "$cfg" \
        -env COLLMPI_PROGRESS "$progress" -env COLLMPI_SEGMENT "$seg" "$exe" $slicing
    done
  fi
done
