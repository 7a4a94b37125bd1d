#!/usr/bin/env bash
# demo.sh - set up, build, and show collc on the ring AllGather example.
#
#   bash scripts/demo.sh            # build into ./build (BUILD_DIR=... to change)
#
# Each demo step names a collc subcommand; a step whose subcommand does not
# exist (yet) in this build is skipped, so the demo grows with collc. To add
# a step, add one `demo` line below.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${BUILD_DIR:-$ROOT/build}"
JOBS="${JOBS:-2}"
cd "$ROOT"

bash scripts/setup.sh || exit 1
echo "== configure + build collc ($BUILD)"
# Optimised, and without -Werror: a new compiler warning must not stop a demo
# (scripts/test.sh is where warnings fail the build). Only collc: every step
# below runs collc alone (`collc run` links its runtime in), so the test
# suite and the benchmarks are not built.
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCOLLC_WERROR=OFF >/dev/null || exit 1
if ! cmake --build "$BUILD" --target collc -j"$JOBS" >"$BUILD/demo-build.log" 2>&1; then
  grep -E "error|Error" "$BUILD/demo-build.log" | head -40
  echo "demo: build failed (full log: $BUILD/demo-build.log)"
  exit 1
fi
COLLC="$BUILD/compiler/collc"
OUT="$BUILD/demo"
mkdir -p "$OUT"

failed=0
ran=0
skipped=0
# demo TITLE SUBCOMMAND ARGS... : run `collc SUBCOMMAND ARGS...` if collc has
# that subcommand; echo the command line so the user can repeat it.
demo() {
  local title="$1" sub="$2"
  shift 2
  echo
  echo "== $title"
  if ! "$COLLC" help "$sub" >/dev/null 2>&1; then
    echo "(skipped: this collc has no '$sub' command yet)"
    skipped=$((skipped + 1))
    return 0
  fi
  echo "\$ collc $sub $*"
  "$COLLC" "$sub" "$@"
  local rc=$?
  ran=$((ran + 1))
  if [ $rc -ne 0 ]; then
    echo "(collc $sub exited with status $rc)"
    failed=$((failed + 1))
  fi
}

EX=dsl-examples
"$COLLC" --version
demo "check every example" check $EX/*.coll
demo "expand ring AllGather for N = 4" expand $EX/ring_allgather.coll -N 4 --table out
demo "verify ring AllGather for N = 2..16 and powers of two" verify $EX/ring_allgather.coll
demo "cost of ring AllGather vs the lower bounds (N = 8, 64 MiB)" cost $EX/ring_allgather.coll -N 8 --size 64MiB
demo "which AllGather is fastest at which message size" compare $EX/ring_allgather.coll $EX/bruck_allgather.coll $EX/recursive_doubling_allgather.coll -N 8
demo "synthesize an AllGather for the SG2260 board and write it as .coll" synth allgather --topo sg2260 -N 8 -o "$OUT/synth_allgather.coll"
demo "the synthesized AllReduce beside ring AllReduce on the board" compare $EX/ring_allreduce.coll --topo sg2260 -N 8 --synth
demo "draw the chunk flows (SVG)" draw $EX/ring_allgather.coll -N 4 -o "$OUT/ring_allgather.svg"
demo "compile ring AllGather to C" compile $EX/ring_allgather.coll --emit=c -o "$OUT/ring_allgather.c"
demo "compile ring AllGather to an object via LLVM" compile $EX/ring_allgather.coll -c -o "$OUT/ring_allgather.o"
demo "run ring AllGather on 8 CPU threads, check against a reference, time it" run $EX/ring_allgather.coll -N 8 --size 1MiB
demo "run ring AllReduce on 8 CPU threads (f32 sum)" run $EX/ring_allreduce.coll -N 8 --size 4MiB
echo
echo "== files written to $OUT"
ls -l "$OUT" | tail -n +2

echo
echo "demo: $ran steps ran, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
