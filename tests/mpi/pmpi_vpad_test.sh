#!/bin/sh
# pmpi_vpad_test.sh MPIRUN APP LIBCOLLMPI ALGS_SO WORKDIR
# Runs the unmodified MPI program APP (pmpi_vpad_app.c: the v-collectives
# with blocks of different sizes, zero blocks, gaps between blocks and in
# place, in their blocking, nonblocking and persistent forms, each result
# compared bit for bit with the MPI library's own) under
# LD_PRELOAD=LIBCOLLMPI, for N = 4 and 3, with the default COLLMPI_VPAD
# (1.25) and with COLLMPI_VPAD=3. Checks that nothing differs, and from
# COLLMPI_DEBUG=1: that collc serves the blocks that differ by one element
# padded to the largest, that with the default the MPI library serves the
# calls with a zero block (padding would cost too much; the ratio given
# exactly), and with COLLMPI_VPAD=3 collc serves those too. MPIRUN may
# hold options.
set -eu
mpirun=$1 app=$2 lib=$3 algs=$4 dir=$5
mkdir -p "$dir"
cfg=$dir/collmpi_vpad.conf
cat > "$cfg" <<CONF
# collective     min     max     object   algorithm
allgather        *       *       $algs    ring_allgather
alltoall         *       *       $algs    pairwise_alltoall
gather           *       *       $algs    binomial_gather
scatter          *       *       $algs    binomial_scatter
reduce_scatter   *       *       $algs    ring_reduce_scatter
CONF
status=0
fail() { echo "pmpi_vpad_test: $*"; status=1; }
# has LOG LINE: the log holds LINE exactly
has() { grep -qxF -- "$2" "$1" || fail "$(basename "$1"): no line '$2'"; }
served="MPI_Allgatherv:ring_allgather MPI_Iallgatherv:ring_allgather
        MPI_Gatherv:binomial_gather MPI_Scatterv:binomial_scatter
        MPI_Alltoallv:pairwise_alltoall MPI_Reduce_scatter:ring_reduce_scatter
        MPI_Ireduce_scatter:ring_reduce_scatter MPI_Allgatherv_init:ring_allgather
        MPI_Gatherv_init:binomial_gather MPI_Scatterv_init:binomial_scatter
        MPI_Alltoallv_init:pairwise_alltoall MPI_Reduce_scatter_init:ring_reduce_scatter"
pad="uneven blocks padded to the largest"
for n in 4 3; do
  for vpad in default 3; do
    log=$dir/pmpi_vpad_n${n}_$vpad.log
    if [ $vpad = default ]; then set -- env; else set -- env COLLMPI_VPAD=$vpad; fi
    if ! $mpirun -n $n "$@" LD_PRELOAD="$lib" COLLMPI_CONFIG="$cfg" COLLMPI_DEBUG=1 "$app" > "$log" 2>&1; then
      fail "N=$n COLLMPI_VPAD=$vpad: the program failed"; cat "$log"; continue
    fi
    grep -qx "pmpi_vpad_app: N=$n: [0-9]* checks, 0 differ" "$log" ||
      fail "N=$n COLLMPI_VPAD=$vpad: results differ from the MPI library's"
    for form in $served; do
      f=${form%%:*} alg=${form#*:}
      grep -q -- "^collmpi\[0\]: $f (.*) -> $alg (collc, $algs; $pad)\$" "$log" ||
        fail "N=$n COLLMPI_VPAD=$vpad: COLLMPI_DEBUG does not show $f served by $alg, padded"
    done
    # the first call of each: blocks 8, 9, 8, 9 (N=4) or 8, 9, 8 ints; an
    # alltoallv's matrix 8 + (i + j) % 2
    if [ $n = 4 ]; then
      has "$log" "collmpi[0]: MPI_Allgatherv (136 B, N=4) -> ring_allgather (collc, $algs; $pad)"
      has "$log" "collmpi[0]: MPI_Alltoallv (544 B, N=4) -> pairwise_alltoall (collc, $algs; $pad)"
    else
      has "$log" "collmpi[0]: MPI_Allgatherv (100 B, N=3) -> ring_allgather (collc, $algs; $pad)"
      has "$log" "collmpi[0]: MPI_Alltoallv (304 B, N=3) -> pairwise_alltoall (collc, $algs; $pad)"
    fi
    if [ $vpad = default ]; then
      # a zero block among blocks of 8 ints: N blocks of 32 B for N - 1;
      # the alltoallv's matrix has a zero row and column
      why="MPI library: blocks of different sizes (padded to the largest they would move"
      if [ $n = 4 ]; then
        has "$log" "collmpi[0]: MPI_Allgatherv (96 B, N=4) -> $why 1.33x the bytes; COLLMPI_VPAD=1.25)"
        has "$log" "collmpi[0]: MPI_Reduce_scatter (96 B, N=4) -> $why 1.33x the bytes; COLLMPI_VPAD=1.25)"
        has "$log" "collmpi[0]: MPI_Alltoallv (288 B, N=4) -> $why 1.78x the bytes; COLLMPI_VPAD=1.25)"
      else
        has "$log" "collmpi[0]: MPI_Allgatherv (64 B, N=3) -> $why 1.50x the bytes; COLLMPI_VPAD=1.25)"
        has "$log" "collmpi[0]: MPI_Reduce_scatter (64 B, N=3) -> $why 1.50x the bytes; COLLMPI_VPAD=1.25)"
        has "$log" "collmpi[0]: MPI_Alltoallv (128 B, N=3) -> $why 2.25x the bytes; COLLMPI_VPAD=1.25)"
      fi
      for f in MPI_Gatherv MPI_Scatterv; do
        grep -q -- "^collmpi\[0\]: $f (.*) -> $why .*; COLLMPI_VPAD=1.25)\$" "$log" ||
          fail "N=$n: COLLMPI_DEBUG does not show $f with a zero block sent to the MPI library"
      done
    else
      ! grep -q "MPI library: blocks of different sizes" "$log" ||
        fail "N=$n COLLMPI_VPAD=3: some uneven call went to the MPI library"
    fi
    for f in MPI_Igatherv MPI_Iscatterv MPI_Ialltoallv; do
      grep -q -- "$f (.*) -> MPI library: the nonblocking form would have to agree" "$log" ||
        fail "N=$n COLLMPI_VPAD=$vpad: COLLMPI_DEBUG does not give the reason for $f"
    done
    echo "--- N=$n COLLMPI_VPAD=$vpad"; cat "$log"
  done
done
exit $status
