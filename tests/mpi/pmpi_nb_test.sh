#!/bin/sh
# pmpi_nb_test.sh MPIRUN APP LIBCOLLMPI ALGS_SO WORKDIR
# Runs the unmodified MPI program APP (pmpi_nb_app.c: the nonblocking
# collectives with overlap, mixed request arrays, several in flight; the
# persistent ones restarted on new data) under
# LD_PRELOAD=LIBCOLLMPI with a COLLMPI_CONFIG whose rules name the blocking
# collectives only, for N = 4 and 3, and checks that its results are right
# and that COLLMPI_DEBUG=1 shows collc serving every I-form with the
# blocking form's rule, and every persistent form used; then N = 4 with
# COLLMPI_PROGRESS=thread, under MPI_THREAD_MULTIPLE (the thread starts on
# every rank) and without (it is refused with a note). MPIRUN may hold
# options.
set -eu
mpirun=$1 app=$2 lib=$3 algs=$4 dir=$5
mkdir -p "$dir"
cfg=$dir/collmpi_nb.conf
cat > "$cfg" <<CONF
# collective     min     max     object   algorithm                      [n=...]
allreduce        0       64KiB   $algs    recursive_doubling_allreduce
allreduce        0       -       $algs    ring_allreduce
bcast            *       *       $algs    binomial_broadcast
reduce           *       *       $algs    binomial_reduce
allgather        *       *       $algs    ring_allgather
alltoall         *       *       $algs    pairwise_alltoall
gather           *       *       $algs    binomial_gather
scatter          *       *       $algs    binomial_scatter
reduce_scatter   *       *       $algs    ring_reduce_scatter
CONF
status=0
for n in 4 3; do
  log=$dir/pmpi_nb_n$n.log
  if ! $mpirun -n $n env LD_PRELOAD="$lib" COLLMPI_CONFIG="$cfg" COLLMPI_DEBUG=1 "$app" > "$log" 2>&1; then
    echo "pmpi_nb_test: N=$n: the program failed"; cat "$log"; status=1; continue
  fi
  grep -q "pmpi_nb_app: N=$n: .* 0 wrong" "$log" || { echo "pmpi_nb_test: N=$n: wrong results"; cat "$log"; status=1; }
  for form in "MPI_Iallreduce ring_allreduce" "MPI_Ireduce binomial_reduce" \
              "MPI_Ireduce_scatter_block ring_reduce_scatter" "MPI_Ibcast binomial_broadcast" \
              "MPI_Iallgather ring_allgather" "MPI_Igather binomial_gather" \
              "MPI_Iscatter binomial_scatter" "MPI_Ialltoall pairwise_alltoall"; do
    set -- $form
    grep -q -- "$1 (.*) -> $2 (collc" "$log" ||
      { echo "pmpi_nb_test: N=$n: COLLMPI_DEBUG does not show $1 served by $2"; status=1; }
  done
  for form in "MPI_Allreduce_init ring_allreduce" "MPI_Bcast_init binomial_broadcast" \
              "MPI_Allgather_init ring_allgather"; do
    set -- $form
    grep -q -- "$1 (.*) -> $2 (collc" "$log" ||
      { echo "pmpi_nb_test: N=$n: COLLMPI_DEBUG does not show $1 served by $2"; status=1; }
  done
  if [ $n = 4 ]; then
    grep -q -- "MPI_Iallreduce (.*) -> recursive_doubling_allreduce (collc" "$log" ||
      { echo "pmpi_nb_test: N=4: small MPI_Iallreduce not served by its rule"; status=1; }
  fi
  echo "--- N=$n"; cat "$log"
done
# The progress thread: under MPI_THREAD_MULTIPLE it starts on every rank
# and the results stay right (the job ends: it is stopped in MPI_Finalize);
# without, it is refused with a note and the tests and waits advance alone.
for mode in "-m started" "- refused"; do
  set -- $mode
  log=$dir/pmpi_nb_thread_$2.log
  args=; [ "$1" = - ] || args=$1
  # shellcheck disable=SC2086
  if ! $mpirun -n 4 env LD_PRELOAD="$lib" COLLMPI_CONFIG="$cfg" COLLMPI_DEBUG=1 \
       COLLMPI_PROGRESS=thread "$app" $args > "$log" 2>&1; then
    echo "pmpi_nb_test: progress thread $2: the program failed"; cat "$log"; status=1; continue
  fi
  grep -q "pmpi_nb_app: N=4: .* 0 wrong" "$log" ||
    { echo "pmpi_nb_test: progress thread $2: wrong results"; cat "$log"; status=1; }
  if [ "$2" = started ]; then
    [ "$(grep -c '^collmpi: progress thread started$' "$log")" = 4 ] ||
      { echo "pmpi_nb_test: the progress thread did not start on every rank"; status=1; }
  else
    [ "$(grep -c '^collmpi: COLLMPI_PROGRESS=thread needs MPI_THREAD_MULTIPLE' "$log")" = 4 ] &&
      ! grep -q 'progress thread started' "$log" ||
      { echo "pmpi_nb_test: the progress thread was not refused without MPI_THREAD_MULTIPLE"; status=1; }
  fi
  echo "--- progress thread $2"; grep -v '^collmpi\[' "$log"
done
exit $status
