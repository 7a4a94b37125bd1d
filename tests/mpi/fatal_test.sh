#!/bin/sh
# fatal_test.sh MPIRUN APP
# Runs `APP --fatal` (direct_check: a power-of-two algorithm called at N = 3
# on MPI_COMM_WORLD, whose handler is MPI_ERRORS_ARE_FATAL) on 3 processes
# within 60 s: the job must abort, and its output must give collc's reason,
# not only the error class's text (MPICH's class text for a refusal reads
# "Unsupported file operation"). MPIRUN may hold options.
set -u
mpirun=$1 app=$2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
timeout 60 $mpirun -n 3 "$app" --fatal > "$log" 2>&1
rc=$?
cat "$log"
if [ $rc = 124 ]; then echo "fatal_test: timed out (a hang)"; exit 1; fi
if [ $rc = 0 ]; then echo "fatal_test: the job did not abort"; exit 1; fi
grep -q "collc: recursive_doubling_allreduce: does not apply for N = 3" "$log" ||
  { echo "fatal_test: the abort does not give collc's reason"; exit 1; }
exit 0
