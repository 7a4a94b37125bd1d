#!/bin/sh
# pmpi_vpad_test.sh MPIRUN APP LIBCOLLMPI ALGS_SO WORKDIR
# Runs the unmodified MPI program APP (pmpi_vpad_app.c: the v-collectives
# with blocks of different sizes, zero blocks, gaps between blocks and in
# place, in their blocking, nonblocking and persistent forms, each result
# compared bit for bit with the MPI library's own) under
# LD_PRELOAD=LIBCOLLMPI, for N = 4 and 3. Checks that nothing differs, and
# from COLLMPI_DEBUG=1: that algorithms whose chunks keep to their blocks
# (ring, pairwise, binomial) serve every form per block, zero blocks
# included, with COLLMPI_VPAD=1 too; and that algorithms that move blocks
# between chunk slots (pat_allgather, bruck_alltoall, pat_reduce_scatter)
# serve them padded to the largest, with the default COLLMPI_VPAD (1.25)
# leaving the calls with a zero block to the MPI library (the reason and
# ratio given exactly) and with COLLMPI_VPAD=3 padding those too. MPIRUN
# may hold options.
set -eu
mpirun=$1 app=$2 lib=$3 algs=$4 dir=$5
mkdir -p "$dir"
# blocks: algorithms whose chunks keep to their blocks (per-block counts);
# slots: algorithms that move blocks between slots (padded, or the MPI
# library when padding costs too much)
cat > "$dir/collmpi_vblocks.conf" <<CONF
# collective     min     max     object   algorithm
allgather        *       *       $algs    ring_allgather
alltoall         *       *       $algs    pairwise_alltoall
gather           *       *       $algs    binomial_gather
scatter          *       *       $algs    binomial_scatter
reduce_scatter   *       *       $algs    ring_reduce_scatter
CONF
cat > "$dir/collmpi_vslots.conf" <<CONF
allgather        *       *       $algs    pat_allgather
alltoall         *       *       $algs    bruck_alltoall
reduce_scatter   *       *       $algs    pat_reduce_scatter
CONF
status=0
fail() { echo "pmpi_vpad_test: $*"; status=1; }
# has LOG LINE: the log holds LINE exactly
has() { grep -qxF -- "$2" "$1" || fail "$(basename "$1"): no line '$2'"; }
# run N CONF VPAD: runs the program, checks its results; the log in $log
run() {
  log=$dir/pmpi_vpad_n$1_$2_$3.log
  if [ $3 = default ]; then set -- $1 $2 env; else set -- $1 $2 env COLLMPI_VPAD=$3; fi
  n=$1 conf=$2; shift 2
  if ! $mpirun -n $n "$@" LD_PRELOAD="$lib" COLLMPI_CONFIG="$dir/collmpi_$conf.conf" COLLMPI_DEBUG=1 "$app" > "$log" 2>&1; then
    fail "N=$n $conf $*: the program failed"; cat "$log"; return 0
  fi
  grep -qx "pmpi_vpad_app: N=$n: [0-9]* checks, 0 differ" "$log" ||
    fail "N=$n $conf $*: results differ from the MPI library's"
  # the nonblocking forms whose ranks learn each other's counts in the
  # background: per block, or the MPI library when the algorithm would
  # need padding
  if [ $conf = vblocks ]; then
    for form in MPI_Igatherv:binomial_gather MPI_Iscatterv:binomial_scatter \
                MPI_Ialltoallv:pairwise_alltoall; do
      f=${form%%:*} alg=${form#*:}
      grep -q -- "^collmpi\[0\]: $f (.*) -> $alg (collc, $algs; per-block counts, exchanged in the background)\$" "$log" ||
        fail "N=$n $conf $*: COLLMPI_DEBUG does not show $f served by $alg per block"
    done
  else
    grep -q -- "^collmpi\[0\]: MPI_Ialltoallv (.*) -> MPI library: bruck_alltoall does not keep chunks to their blocks (a chunk holds different blocks in turn), and padding would need the other ranks' counts first\$" "$log" ||
      fail "N=$n $conf $*: COLLMPI_DEBUG does not give the reason for MPI_Ialltoallv"
  fi
}
served="MPI_Allgatherv:ring_allgather MPI_Iallgatherv:ring_allgather
        MPI_Gatherv:binomial_gather MPI_Scatterv:binomial_scatter
        MPI_Alltoallv:pairwise_alltoall MPI_Reduce_scatter:ring_reduce_scatter
        MPI_Ireduce_scatter:ring_reduce_scatter MPI_Allgatherv_init:ring_allgather
        MPI_Gatherv_init:binomial_gather MPI_Scatterv_init:binomial_scatter
        MPI_Alltoallv_init:pairwise_alltoall MPI_Reduce_scatter_init:ring_reduce_scatter"
per="uneven blocks, per-block counts"
pad="uneven blocks padded to the largest"
for n in 4 3; do
  # per-block counts, whatever COLLMPI_VPAD says (1: never pad)
  for vpad in default 1; do
    run $n vblocks $vpad
    for form in $served; do
      f=${form%%:*} alg=${form#*:}
      grep -q -- "^collmpi\[0\]: $f (.*) -> $alg (collc, $algs; $per)\$" "$log" ||
        fail "N=$n COLLMPI_VPAD=$vpad: COLLMPI_DEBUG does not show $f served by $alg per block"
    done
    ! grep -q "MPI library: blocks of different sizes\|$pad" "$log" ||
      fail "N=$n COLLMPI_VPAD=$vpad: an uneven call was padded or went to the MPI library"
    # the first call of each: blocks 8, 9, 8, 9 (N=4) or 8, 9, 8 ints; an
    # alltoallv's matrix 8 + (i + j) % 2; then a zero block among blocks
    # of 8 ints (an alltoallv: a zero row and column)
    if [ $n = 4 ]; then
      has "$log" "collmpi[0]: MPI_Allgatherv (136 B, N=4) -> ring_allgather (collc, $algs; $per)"
      has "$log" "collmpi[0]: MPI_Alltoallv (544 B, N=4) -> pairwise_alltoall (collc, $algs; $per)"
    else
      has "$log" "collmpi[0]: MPI_Allgatherv (100 B, N=3) -> ring_allgather (collc, $algs; $per)"
      has "$log" "collmpi[0]: MPI_Alltoallv (304 B, N=3) -> pairwise_alltoall (collc, $algs; $per)"
    fi
    echo "--- N=$n vblocks COLLMPI_VPAD=$vpad"; cat "$log"
  done
  # algorithms that move blocks between chunk slots: padded, or with the
  # default COLLMPI_VPAD the MPI library for the zero-block calls (the
  # ratio given exactly), and with COLLMPI_VPAD=3 padded too
  for vpad in default 3; do
    run $n vslots $vpad
    for form in MPI_Allgatherv:pat_allgather MPI_Alltoallv:bruck_alltoall \
                MPI_Reduce_scatter:pat_reduce_scatter MPI_Reduce_scatter_init:pat_reduce_scatter; do
      f=${form%%:*} alg=${form#*:}
      grep -q -- "^collmpi\[0\]: $f (.*) -> $alg (collc, $algs; $pad)\$" "$log" ||
        fail "N=$n vslots COLLMPI_VPAD=$vpad: COLLMPI_DEBUG does not show $f served by $alg padded"
    done
    if [ $vpad = default ]; then
      k="does not keep chunks to their blocks: a chunk holds different blocks in turn; padded to the largest they would move"
      why="MPI library: blocks of different sizes"
      if [ $n = 4 ]; then
        has "$log" "collmpi[0]: MPI_Allgatherv (96 B, N=4) -> $why (pat_allgather $k 1.33x the bytes; COLLMPI_VPAD=1.25)"
        has "$log" "collmpi[0]: MPI_Reduce_scatter (96 B, N=4) -> $why (pat_reduce_scatter $k 1.33x the bytes; COLLMPI_VPAD=1.25)"
        has "$log" "collmpi[0]: MPI_Alltoallv (288 B, N=4) -> $why (bruck_alltoall $k 1.78x the bytes; COLLMPI_VPAD=1.25)"
      else
        has "$log" "collmpi[0]: MPI_Allgatherv (64 B, N=3) -> $why (pat_allgather $k 1.50x the bytes; COLLMPI_VPAD=1.25)"
        has "$log" "collmpi[0]: MPI_Reduce_scatter (64 B, N=3) -> $why (pat_reduce_scatter $k 1.50x the bytes; COLLMPI_VPAD=1.25)"
        has "$log" "collmpi[0]: MPI_Alltoallv (128 B, N=3) -> $why (bruck_alltoall $k 2.25x the bytes; COLLMPI_VPAD=1.25)"
      fi
    else
      ! grep -q "MPI library: blocks of different sizes" "$log" ||
        fail "N=$n vslots COLLMPI_VPAD=3: some uneven call went to the MPI library"
    fi
    echo "--- N=$n vslots COLLMPI_VPAD=$vpad"; cat "$log"
  done
done
exit $status
