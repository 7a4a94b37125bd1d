#!/bin/sh
# ompi_rules_test.sh COLLC EXAMPLES MPIRUN APP DIR - Open MPI reads the rules
# files of `collc tune --emit=ompi-rules` and runs the algorithm they name.
# Which algorithm ran is seen in Open MPI's pml monitoring (mca_pml_monitoring,
# pml_monitoring_enable=2: per peer, the messages of collectives, line "I"):
# on 4 ranks rank 0 of ring allreduce (algorithm 4) sends only to rank 1,
# 2(N-1) = 6 messages; recursive doubling (3) sends one message to 1 and
# one to 2; rabenseifner (6) two to 1 and two to 2, one each way of its
# halving and gathering (ompi/mca/coll/base/coll_base_allreduce.c). Open MPI's own
# decision differs from each at the size used (checked first: otherwise the
# rules would prove nothing), and the sums are right in every run.
set -eu
collc=$1 examples=$2 mpirun=$3 app=$4 dir=$5
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
fail=0

# peers COUNT [RULES]: rank 0's collective messages, "PEER:MSGS ..."; a run
# that fails is reported on stderr and fails the test
peers() {
    rm -f prof.*
    rules=
    [ -n "${2:-}" ] && rules="--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename $PWD/$2"
    # shellcheck disable=SC2086
    if ! $mpirun -np 4 $rules --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 \
            --mca pml_monitoring_filename "$PWD/prof" "$app" "$1" > run.out 2>&1; then
        # in $(...): a variable set here is lost, so a file marks the failure
        { cat run.out; echo "FAIL: the allreduce of $1 doubles ${2:+with $2 }failed"; } >&2
        : > run.failed
    fi
    awk -F'\t' '$1 == "I" && $2 == 0 { split($5, m, " "); printf "%s:%s ", $3, m[1] }' prof.0.prof
}

# expect WHAT GOT WANT
expect() {
    if [ "$2" = "$3" ]; then echo "ok: $1: rank 0 sends $2"
    else echo "FAIL: $1: rank 0 sends '$2', expected '$3'"; fail=1; fi
}

# 8 KiB: Open MPI's own choice on 4 ranks is not the ring
"$collc" tune --emit=ompi-rules "$examples/ring_allreduce.coll" -N 4 --topo full -o ring.rules
native=$(peers 1024)
[ "$native" != "1:6 " ] || { echo "FAIL: Open MPI's own choice at 8 KiB is the ring already"; fail=1; }
expect "ring rules, 8 KiB" "$(peers 1024 ring.rules)" "1:6 "

# 8 MiB: nor recursive doubling
"$collc" tune --emit=ompi-rules "$examples/recursive_doubling_allreduce.coll" -N 4 --topo full -o rd.rules
native=$(peers 1048576)
[ "$native" != "1:1 2:1 " ] || { echo "FAIL: Open MPI's own choice at 8 MiB is recursive doubling already"; fail=1; }
expect "recursive doubling rules, 8 MiB" "$(peers 1048576 rd.rules)" "1:1 2:1 "

# 128 B: Open MPI's own is not rabenseifner there (at 8 KiB it is)
"$collc" tune --emit=ompi-rules "$examples/rabenseifner_doubling_allreduce.coll" -N 4 --topo full -o rab.rules
native=$(peers 16)
[ "$native" != "1:2 2:2 " ] || { echo "FAIL: Open MPI's own choice at 128 B is rabenseifner already"; fail=1; }
expect "rabenseifner rules, 128 B" "$(peers 16 rab.rules)" "1:2 2:2 "
# A file with a crossover: each side runs what the file says there.
"$collc" tune --emit=ompi-rules "$examples/ring_allreduce.coll" "$examples/recursive_doubling_allreduce.coll" \
    -N 4 --topo full --alpha 10us --beta 1GB/s -o both.rules
grep -q '^0 3 0 0 ' both.rules && grep -q '^[1-9][0-9]* 4 0 0 ' both.rules ||
    { cat both.rules; echo "FAIL: no crossover from recursive doubling to ring in both.rules"; fail=1; }
expect "crossover rules, 128 B" "$(peers 16 both.rules)" "1:1 2:1 "
expect "crossover rules, 8 MiB" "$(peers 1048576 both.rules)" "1:6 "

[ -e run.failed ] && fail=1
[ $fail = 0 ] && echo "ompi rules: ok"
exit $fail
