#!/bin/sh
# mpich_json_test.sh COLLC EXAMPLES MPIRUN APP DIR - MPICH reads the
# selection files of `collc tune --emit=mpich-json` and runs the algorithm
# they name. Which algorithm ran is seen in the messages rank 0 hands to UCX
# (mpich_json_app.c, "PEER:MSGS ..."): on 4 ranks, MPICH's
# (src/mpi/coll/allgather, allreduce, v4.0.2) ring allgather sends only to
# rank 1, 3 messages; recursive doubling allgather one to 1 and one to 2;
# Bruck's allgather one to 3 and one to 2; recursive doubling allreduce one
# to 1 and one to 2; reduce_scatter_allgather (Rabenseifner) two to each.
# MPICH's own choice differs from each at the size used (checked first:
# otherwise the file would prove nothing), and the results are right in
# every run. MPIR_CVAR_DEVICE_COLLECTIVES=none: the file is MPICH's
# device-independent tree, which the ch4 device's own would bypass. Exit
# 77 (skipped) where MPICH is not over UCX.
set -eu
collc=$1 examples=$2 mpirun=$3 app=$4 dir=$5
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
fail=0
export MPIR_CVAR_DEVICE_COLLECTIVES=none

# peers COLL COUNT [FILE]: rank 0's messages in the collective, "PEER:MSGS ..."
peers() {
    # shellcheck disable=SC2086
    if ! env ${3:+MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$PWD/$3} $mpirun -n 4 "$app" "$1" "$2" > run.out 2> run.err; then
        if grep -q "sends through no ucp_tag_send_nbx" run.err; then cat run.err >&2; echo "SKIP: MPICH is not over UCX" >&2; exit 77; fi
        cat run.out run.err; echo "FAIL: the $1 of $2 doubles ${3:+with $3 }failed"; fail=1
    fi
    cat run.out
}

# expect WHAT GOT WANT
expect() {
    if [ "$2" = "$3" ]; then echo "ok: $1: rank 0 sends $2"
    else echo "FAIL: $1: rank 0 sends '$2', expected '$3'"; fail=1; fi
}

# tune NAME MODEL... : NAME.json from these models at N = 4
tune() {
    name=$1; shift
    models=
    for m in "$@"; do models="$models $examples/$m.coll"; done
    # shellcheck disable=SC2086
    "$collc" tune --emit=mpich-json $models -N 4 --topo full --alpha 10us --beta 1GB/s -o "$name.json"
}

# Not in a subshell, so that a skip ends the test.
peers allgather 1 > /dev/null

# Allgather, 8 KiB a rank: MPICH's own choice is recursive doubling.
native=$(peers allgather 1024)
expect "MPICH's own allgather, 8 KiB" "$native" "1:1 2:1 "
tune ring ring_allgather
expect "ring file, allgather 8 KiB" "$(peers allgather 1024 ring.json)" "1:3 "
tune bruck bruck_allgather
expect "Bruck file, allgather 8 KiB" "$(peers allgather 1024 bruck.json)" "2:1 3:1 "

# 256 KiB a rank: MPICH's own is the ring.
native=$(peers allgather 32768)
expect "MPICH's own allgather, 256 KiB" "$native" "1:3 "
tune rd recursive_doubling_allgather
expect "recursive doubling file, allgather 256 KiB" "$(peers allgather 32768 rd.json)" "1:1 2:1 "

# Allreduce, 8 KiB: MPICH's own is Rabenseifner; the file says recursive
# doubling.
native=$(peers allreduce 1024)
expect "MPICH's own allreduce, 8 KiB" "$native" "1:2 2:2 "
tune rdar recursive_doubling_allreduce
expect "recursive doubling file, allreduce 8 KiB" "$(peers allreduce 1024 rdar.json)" "1:1 2:1 "
# Rabenseifner where the file says so, and where the call breaks its
# restriction (count 2 < 4 ranks) the file's fallback, recursive doubling.
tune rab rabenseifner_doubling_allreduce
expect "Rabenseifner file, allreduce 8 KiB" "$(peers allreduce 1024 rab.json)" "1:2 2:2 "
expect "Rabenseifner file, allreduce of 2" "$(peers allreduce 2 rab.json)" "1:1 2:1 "

# A file with a crossover: each side runs what the file says there.
tune both recursive_doubling_allreduce rabenseifner_doubling_allreduce
grep -q '"avg_msg_size<[0-9]*": {' both.json ||
    { cat both.json; echo "FAIL: no crossover in both.json"; fail=1; }
expect "crossover file, allreduce 128 B" "$(peers allreduce 16 both.json)" "1:1 2:1 "
expect "crossover file, allreduce 8 MiB" "$(peers allreduce 1048576 both.json)" "1:2 2:2 "

# MPICH parses the whole file at MPI_Init and aborts at a key or an
# algorithm name it does not know (csel.c, csel_container.c): a file of
# each model, whose tuned branches name its MPICH algorithm, runs.
for m in bruck_allgather recursive_doubling_allgather ring_allgather recursive_doubling_allreduce \
         rabenseifner_doubling_allreduce bruck_alltoall xor_pairwise_alltoall direct_alltoall binomial_halving_broadcast \
         scatter_allgather_broadcast binomial_gather binomial_reduce rabenseifner_doubling_whole_fold_reduce \
         pairwise_reduce_scatter recursive_halving_reduce_scatter binomial_scatter; do
    tune "$m" "$m"
    peers allreduce 4 "$m.json" > /dev/null
done
echo "ok: MPICH reads a file of each model"

[ $fail = 0 ] && echo "mpich json: ok"
exit $fail
