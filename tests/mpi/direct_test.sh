#!/bin/sh
# direct_test.sh MPIRUN APP N
# Runs direct_check (the compiled MPI functions called directly) on N
# processes with COLLMPI_DEBUG=1, within 60 s (a hang fails), and checks
# that it passed and that the debug output gives the reason of a refusal.
# MPIRUN may hold options.
set -u
mpirun=$1 app=$2 n=$3
log=$(mktemp)
trap 'rm -f "$log"' EXIT
timeout 60 $mpirun -n "$n" env COLLMPI_DEBUG=1 "$app" > "$log" 2>&1
rc=$?
cat "$log"
if [ $rc = 124 ]; then echo "direct_test: N=$n: timed out (a hang)"; exit 1; fi
if [ $rc != 0 ]; then echo "direct_test: N=$n: failed ($rc)"; exit 1; fi
grep -q "direct_check: N=$n: .* 0 failed" "$log" || { echo "direct_test: N=$n: no summary"; exit 1; }
if [ "$n" -ge 3 ]; then
  grep -q "collmpi\[0\]: MPI_Allreduce (16 B, N=3) -> error: recursive_doubling_allreduce: does not apply for N = 3" "$log" ||
    { echo "direct_test: N=$n: COLLMPI_DEBUG did not give the reason of the refusal"; exit 1; }
fi
exit 0
