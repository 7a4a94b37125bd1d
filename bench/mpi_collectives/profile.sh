#!/bin/sh
# profile.sh BUILD_DIR COLLECTIVE ALGORITHM [BYTES] [CALLS]: the per-call
# breakdown of one compiled algorithm against the library's own collective
# at N = 2 (Open MPI; MPI=mpich for MPICH), in instructions per call counted
# by callgrind (valgrind) inside the benchmark's timed_calls(): both contenders
# run CALLS calls (default 2000) of BYTES bytes (default 8) under
# `valgrind --tool=callgrind --toggle-collect=timed_calls`, and
# profile_report.py splits the counts by phase (the entry point's decision,
# plan and setup, posting, step ends and finish) and by object (generated
# code, collc's runtime, the MPI library, libc). SERVED=1 adds the call
# served through libcollmpi.so (mpi_bench -s ALGORITHM under LD_PRELOAD).
# PROGRESS=F1,F2 names the functions counted as the library's wait
# (profile_report.py --progress; default: the request waits).
# Instructions, not time: the figure that does not move with the load of
# the machine. Results: bench/RESULTS.md.
set -euf   # -f: the pattern of --toggle-collect stays a pattern
build=$1 coll=$2 alg=$3 bytes=${4:-8} calls=${5:-2000}
mpi=${MPI:-openmpi}
b=$build/bench/mpi_collectives
here=$(dirname "$0")
if [ -n "${PROFILE_DIR:-}" ]; then   # keep the callgrind files there
  out=$PROFILE_DIR
else
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
vg="valgrind --tool=callgrind --toggle-collect=timed_calls* --dump-instr=no"
run() { # NAME ENV... -- ARGS...
  name=$1
  shift
  envs=""
  while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
  shift
  if [ "$mpi" = openmpi ]; then
    xs=""
    for e in $envs; do xs="$xs -x $e"; done
    # shellcheck disable=SC2086
    mpirun.openmpi --allow-run-as-root -n 2 $xs $vg --callgrind-out-file="$out/$name.%p" \
      "$b/mpi_bench_openmpi" "$@" > /dev/null 2> "$out/$name.log"
  else
    xs=""
    for e in $envs; do xs="$xs -env ${e%%=*} ${e#*=}"; done
    # shellcheck disable=SC2086
    mpirun.mpich -n 2 $xs $vg --callgrind-out-file="$out/$name.%p" \
      "$b/mpi_bench_mpich" "$@" > /dev/null 2> "$out/$name.log"
  fi
}
common="-c $coll -min $bytes -max $bytes -r 1 -i $calls"
# shellcheck disable=SC2086
run native -- $common -a native
# shellcheck disable=SC2086
run direct -- $common -a "$alg"
files="native direct"
if [ -n "${SERVED:-}" ]; then
  cfg=$out/rules
  echo "$coll 0 - $(cd "$b/$mpi" && pwd)/libbenchalgs.so $alg" > "$cfg"
  # shellcheck disable=SC2086
  run served LD_PRELOAD="$(cd "$build/targets/mpi/$mpi" && pwd)/libcollmpi.so" COLLMPI_CONFIG="$cfg" \
    -- $common -s "$alg" -a served
  files="$files served"
fi
set +f
args=""
for f in $files; do args="$args $f=$(echo "$out/$f".[0-9]* | tr ' ' ,)"; done
# shellcheck disable=SC2086
case $coll in
  bcast) fn=Bcast ;; reduce_scatter) fn=Reduce_scatter_block ;;
  *) fn=$(echo "$coll" | cut -c1 | tr a-z A-Z)$(echo "$coll" | cut -c2-) ;;
esac
# shellcheck disable=SC2086
python3 "$here/profile_report.py" --calls "$calls" --mpi "$fn" ${PROGRESS:+--progress "$PROGRESS"} \
  --title "$coll $alg, $bytes B, N=2, $mpi" $args
