#!/bin/sh
# pmpi_config_test.sh MPIRUN APP LIBCOLLMPI ALGS_SO WORKDIR
# What libcollmpi.so does with its configuration, on 4 and 3 processes of
# APP (tests/mpi/consist_app.c, case overlap), each run within 60 s:
#  - a bad line and a rule whose object does not exist are reported once
#    (by rank 0), not once per process;
#  - processes that read different configurations agree, in MPI_Init, to
#    leave every collective to the MPI library (no hang);
#  - a rule whose object loads on some processes only is dropped on all;
#  - COLLMPI_DEBUG=1 says why a call falls back: the algorithm whose
#    `require` excludes this N, and that no later rule applies either;
#  - rules on the communicator's shape (ppn=, nodes=) match its shape;
#  - each configuration error names its file, line, column and field
#    (did you mean for a collective), and min-size must be below max-size;
#  - COLLMPI_STRICT=1 makes any configuration error fatal in MPI_Init
#    (MPI_Abort, non-zero exit) and changes nothing for a good one.
# MPIRUN may hold options.
set -u
mpirun=$1 app=$2 lib=$3 algs=$4 dir=$5
mkdir -p "$dir"
status=0
fail() { echo "pmpi_config_test: $*"; status=1; }
# run N LOG [env ...]: the program on N processes with the library
run() {
  n=$1 log=$2
  shift 2
  timeout 60 $mpirun -n "$n" env LD_PRELOAD="$lib" "$@" "$app" overlap > "$log" 2>&1
  rc=$?
  cat "$log"
  if [ $rc = 124 ]; then fail "$log: timed out (a hang)"; return 1; fi
  if [ $rc != 0 ] || ! grep -q "consist_app: N=$n: overlap: .* 0 wrong" "$log"; then
    fail "$log: the program failed ($rc)"; return 1
  fi
  return 0
}
count() { grep -c -- "$1" "$2"; }

# 1. Errors once, from rank 0.
cat > "$dir/bad.conf" <<CONF
allreduce  *  *  $algs  ring_allreduce
allreduce  0  1  2  3  4  5  6
bcast      *  *  $dir/no-such-object.so  binomial_broadcast
CONF
if run 4 "$dir/bad.log" COLLMPI_CONFIG="$dir/bad.conf"; then
  [ "$(count "bad.conf:2:[0-9]*: error: condition '4': not a condition" "$dir/bad.log")" = 1 ] ||
    fail "the bad line is not reported exactly once"
  [ "$(count 'rule at line 3: .*no-such-object.so' "$dir/bad.log")" = 1 ] ||
    fail "the missing object is not reported exactly once"
fi

# 2. Different configurations on different processes: rank 0 sends allreduce
# to collc, the others would not.
printf 'allreduce * * %s ring_allreduce\n' "$algs" > "$dir/one.conf"
printf 'bcast * * %s binomial_broadcast\n' "$algs" > "$dir/other.conf"
cat > "$dir/per_rank.sh" <<SH
#!/bin/sh
r=\${OMPI_COMM_WORLD_RANK:-\${PMI_RANK:-0}}
if [ "\$r" = 0 ]; then COLLMPI_CONFIG=$dir/one.conf; else COLLMPI_CONFIG=$dir/other.conf; fi
export COLLMPI_CONFIG
exec "\$@"
SH
log=$dir/differ.log
timeout 60 $mpirun -n 4 env LD_PRELOAD="$lib" COLLMPI_DEBUG=1 sh "$dir/per_rank.sh" "$app" overlap > "$log" 2>&1
rc=$?
cat "$log"
[ $rc = 124 ] && fail "different configurations: timed out (a hang)"
[ $rc = 0 ] && grep -q "consist_app: N=4: overlap: .* 0 wrong" "$log" || fail "different configurations: the program failed ($rc)"
[ "$(count 'differ between processes' "$log")" = 1 ] || fail "different configurations are not reported exactly once"
grep -q -- "-> ring_allreduce (collc" "$log" && fail "different configurations: a process still used collc"

# 3. The same configuration, an object found by some processes only (a
# relative path, each process in its own folder).
for r in 0 1 2 3; do mkdir -p "$dir/cwd$r"; done
ln -sf "$algs" "$dir/cwd0/algs.so"
ln -sf "$algs" "$dir/cwd2/algs.so"
printf 'allreduce * * ./algs.so ring_allreduce\n' > "$dir/relative.conf"
cat > "$dir/per_cwd.sh" <<SH
#!/bin/sh
r=\${OMPI_COMM_WORLD_RANK:-\${PMI_RANK:-0}}
cd "$dir/cwd\$r" && exec "\$@"
SH
log=$dir/partial.log
timeout 60 $mpirun -n 4 env LD_PRELOAD="$lib" COLLMPI_CONFIG="$dir/relative.conf" COLLMPI_DEBUG=1 \
  sh "$dir/per_cwd.sh" "$app" overlap > "$log" 2>&1
rc=$?
cat "$log"
[ $rc = 124 ] && fail "an object on some processes only: timed out (a hang)"
[ $rc = 0 ] && grep -q "consist_app: N=4: overlap: .* 0 wrong" "$log" || fail "an object on some processes only: the program failed ($rc)"
[ "$(count "could not be loaded by every process" "$log")" = 1 ] ||
  fail "an object on some processes only is not reported exactly once"
grep -q -- "-> ring_allreduce (collc" "$log" && fail "an object on some processes only: a process still used it"

# 4. The reason of a fallback.
printf 'allreduce * * %s recursive_doubling_allreduce\n' "$algs" > "$dir/pow2.conf"
if run 3 "$dir/reason.log" COLLMPI_CONFIG="$dir/pow2.conf" COLLMPI_DEBUG=1; then
  grep -q "MPI_Allreduce ([0-9]* B, N=3) -> MPI library: recursive_doubling_allreduce does not apply for N = 3" \
    "$dir/reason.log" || fail "COLLMPI_DEBUG does not say why MPI_Allreduce falls back at N = 3"
fi

# 5. Two rules that both refuse: the reason names the first and says that
# the later one refused too.
printf 'allreduce * * %s recursive_doubling_allreduce\n' "$algs" "$algs" > "$dir/pow2x2.conf"
if run 3 "$dir/reasons.log" COLLMPI_CONFIG="$dir/pow2x2.conf" COLLMPI_DEBUG=1; then
  grep -q "MPI_Allreduce ([0-9]* B, N=3) -> MPI library: recursive_doubling_allreduce does not apply for N = 3.* (nor does any later rule)" \
    "$dir/reasons.log" || fail "COLLMPI_DEBUG does not say that no later rule applies either"
fi
# 6. Rules on the communicator's shape: the processes of this test share
# one host, so a communicator of N ranks is one node of N: MPI_COMM_WORLD
# (N = 4) matches only ppn=4 nodes=1, the program's communicators of two
# ranks only ppn=2; a bad shape condition is a bad line.
cat > "$dir/shape.conf" <<CONF
allreduce  *  *  $algs  recursive_doubling_allreduce  ppn=4 nodes=2..
allreduce  *  *  $algs  recursive_doubling_allreduce  ppn=2
allreduce  *  *  $algs  ring_allreduce                n=4 ppn=4 nodes=1
bcast      *  *  $algs  binomial_broadcast            ppn=x
CONF
if run 4 "$dir/shape.log" COLLMPI_CONFIG="$dir/shape.conf" COLLMPI_DEBUG=1; then
  grep -q "MPI_Allreduce ([0-9]* B, N=4) -> ring_allreduce (collc" "$dir/shape.log" ||
    fail "the rule of the shape ppn=4 nodes=1 did not serve MPI_Allreduce"
  grep -q "MPI_Allreduce ([0-9]* B, N=4) -> recursive_doubling_allreduce (collc" "$dir/shape.log" &&
    fail "a rule of another shape served MPI_Allreduce at N = 4"
  grep -q "MPI_Allreduce ([0-9]* B, N=2) -> recursive_doubling_allreduce (collc" "$dir/shape.log" ||
    fail "the rule of the shape ppn=2 did not serve MPI_Allreduce at N = 2"
  [ "$(count "shape.conf:4:[0-9]*: error: condition 'ppn=x': expected A, A..B or A.. with A >= 1" "$dir/shape.log")" = 1 ] ||
    fail "the bad shape condition is not reported exactly once"
fi
# 7. Errors name the field; min-size below max-size; COLLMPI_STRICT=1.
cat > "$dir/fields.conf" <<CONF
allreduse  *     *     $algs  ring_allreduce
allreduce  10XB  *     $algs  ring_allreduce
allreduce  *     *     $algs  ring_allreduce  n=8..2
allreduce  *     *     $algs  ring_allreduce  junk
allreduce  1MiB  4KiB  $algs  ring_allreduce
allreduce  *     *     $algs
CONF
if run 4 "$dir/fields.log" COLLMPI_CONFIG="$dir/fields.conf"; then
  for want in "fields.conf:1:1: error: unknown collective 'allreduse' (did you mean 'allreduce'?); line ignored" \
              "fields.conf:2:12: error: min-size '10XB' is not a size" \
              "fields.conf:3:[0-9]*: error: condition 'n=8..2': the range 8..2 is empty; line ignored" \
              "fields.conf:4:[0-9]*: error: condition 'junk': not a condition" \
              "fields.conf:5:18: error: max-size 4KiB is not above min-size 1MiB: the rule serves no size" \
              "fields.conf:6:[0-9]*: error: missing field 'algorithm'"; do
    [ "$(count "$want" "$dir/fields.log")" = 1 ] || fail "not reported exactly once: $want"
  done
fi
log=$dir/strict.log
timeout 60 $mpirun -n 4 env LD_PRELOAD="$lib" COLLMPI_CONFIG="$dir/fields.conf" COLLMPI_STRICT=1 "$app" overlap > "$log" 2>&1
rc=$?
cat "$log"
[ $rc = 124 ] && fail "COLLMPI_STRICT=1: timed out (a hang)"
[ $rc = 0 ] && fail "COLLMPI_STRICT=1: a configuration with errors did not fail the job"
grep -q "COLLMPI_STRICT=1: 6 errors in the configuration; MPI_Abort" "$log" || fail "COLLMPI_STRICT=1 does not say why it aborts"
grep -q "consist_app: N=4" "$log" && fail "COLLMPI_STRICT=1: the program ran past MPI_Init"
run 4 "$dir/strict-good.log" COLLMPI_CONFIG="$dir/one.conf" COLLMPI_STRICT=1 ||
  fail "COLLMPI_STRICT=1 failed a good configuration"
exit $status
