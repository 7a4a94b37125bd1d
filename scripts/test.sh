#!/usr/bin/env bash
# test.sh - the whole test suite, twice:
#   1. a normal build with -Werror (build-test/), ctest (lit suite + other
#      tests); "normal" = the default build type, as every developer builds;
#   2. an ASan+UBSan build at -O1 (build-asan/, warnings not fatal), the
#      same tests again.
# Ends with one line "N passed, N failed" covering both runs (every lit test
# and every other ctest test counted once per run); exits non-zero on any
# failure.
#
#   bash scripts/test.sh                 # both runs
#   SKIP_ASAN=1 bash scripts/test.sh     # first run only (quick local check)
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JOBS="${JOBS:-2}"
cd "$ROOT"
bash scripts/setup.sh || exit 1

total_pass=0
total_fail=0
broken=0
summaries=()

# count BUILD: prints "PASS FAIL" for the last ctest run in BUILD, counting
# the lit suite per lit test (lit-results.xml) and other ctest tests as one.
count() {
  python3 - "$1" <<'PY'
import os, sys, xml.etree.ElementTree as ET
b = sys.argv[1]
p = f = 0
lit_xml = os.path.join(b, "tests", "lit-results.xml")
ctest_xml = os.path.join(b, "ctest-results.xml")
lit_seen = False
try:
    for tc in ET.parse(ctest_xml).getroot().iter("testcase"):
        failed = tc.get("status") in ("fail", "failed") or tc.find("failure") is not None
        if tc.get("name") == "lit":
            lit_seen = True
            lit_failed = failed
            continue
        if tc.get("status") in ("notrun", "disabled") and not failed:
            continue
        f += failed; p += not failed
except (OSError, ET.ParseError):
    f += 1
if lit_seen:
    try:
        root = ET.parse(lit_xml).getroot()
        for tc in root.iter("testcase"):
            if tc.find("skipped") is not None:
                continue
            bad = tc.find("failure") is not None or tc.find("error") is not None
            f += bad; p += not bad
        # lit failed although no test did (e.g. a config error)
        if lit_failed and not any(tc.find("failure") is not None for tc in root.iter("testcase")):
            f += 1
    except (OSError, ET.ParseError):
        f += 1
print(p, f)
PY
}

# run NAME BUILD CMAKE-ARGS...: configure, build, ctest, tally.
run() {
  local name="$1" build="$2"
  shift 2
  echo "=== [$name] configure + build in $build"
  local t0=$SECONDS
  mkdir -p "$build"
  rm -f "$build/ctest-results.xml" "$build/tests/lit-results.xml"
  if ! cmake -S "$ROOT" -B "$build" "$@" >"$build/configure.log" 2>&1; then
    cat "$build/configure.log"
    echo "=== [$name] configure FAILED"
    broken=1; total_fail=$((total_fail + 1)); summaries+=("$name: configure failed")
    return
  fi
  if ! cmake --build "$build" -j"$JOBS" >"$build/build.log" 2>&1; then
    grep -E "error|warning" "$build/build.log" | head -50
    echo "=== [$name] build FAILED (full log: $build/build.log)"
    broken=1; total_fail=$((total_fail + 1)); summaries+=("$name: build failed")
    return
  fi
  echo "=== [$name] ctest"
  ctest --test-dir "$build" --output-on-failure -j"$JOBS" --output-junit "$build/ctest-results.xml"
  local pf
  pf=$(count "$build")
  local p=${pf% *} f=${pf#* }
  total_pass=$((total_pass + p))
  total_fail=$((total_fail + f))
  summaries+=("$name: $p passed, $f failed ($((SECONDS - t0))s)")
}

# Optimised (-O2 -g): GCC finds some warnings (-Wformat-truncation,
# -Walloc-size-larger-than, -Wmaybe-uninitialized) only when it optimises,
# and a Release build is what users make.
run "normal -Werror" "$ROOT/build-test" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCOLLC_WERROR=ON
if [ -z "${SKIP_ASAN:-}" ]; then
  # No -Werror here: the first run already enforces it, and -O1 brings
  # optimiser-dependent warnings (-Wmaybe-uninitialized, -Wformat-truncation)
  # that must not hide the sanitizer results.
  run "asan+ubsan" "$ROOT/build-asan" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS="-O1" \
      -DCOLLC_WERROR=OFF -DCOLLC_SANITIZE=ON
fi

echo
for s in "${summaries[@]}"; do echo "  $s"; done
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ] && [ "$broken" -eq 0 ]
