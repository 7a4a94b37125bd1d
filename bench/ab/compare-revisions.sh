#!/bin/sh
# compare-revisions.sh - the cpu and mpi targets of two revisions, timed in
# one run.
#
#   bench/ab/compare-revisions.sh [-r ROUNDS] [-n N] [-m MAXBYTES] [-k DIR] OLD NEW
#
# Builds OLD and NEW (any git revisions) optimised in temporary worktrees,
# then runs their cpu_examples_bench (N threads) and mpi_bench_openmpi
# (N processes) alternately, ROUNDS times each, swapping which revision goes
# first every round. summary.py prints, per example, the geometric mean over
# sizes of NEW/OLD (cpu: median time; mpi: collc time over the MPI library's
# time measured in the same process, which cancels most machine noise) and
# the spread of that ratio between rounds. A ratio inside the spread is
# noise. -k DIR keeps every raw table in DIR. Nothing is asserted; numbers
# go to bench/RESULTS.md.
set -eu
rounds=3 n=4 maxbytes=1048576 keep=
while getopts r:n:m:k: opt; do
  case $opt in
    r) rounds=$OPTARG ;;
    n) n=$OPTARG ;;
    m) maxbytes=$OPTARG ;;
    k) keep=$OPTARG ;;
    *) echo "usage: $0 [-r ROUNDS] [-n N] [-m MAXBYTES] [-k DIR] OLD NEW" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || { echo "usage: $0 [-r ROUNDS] [-n N] [-m MAXBYTES] [-k DIR] OLD NEW" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)
work=$(mktemp -d "${TMPDIR:-/tmp}/collc-ab.XXXXXX")
cleanup() {
  for side in old new; do
    git -C "$repo" worktree remove --force "$work/$side/src" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

build() { # side revision
  mkdir -p "$work/$1"
  git -C "$repo" worktree add --detach "$work/$1/src" "$2" >/dev/null 2>&1
  cmake -S "$work/$1/src" -B "$work/$1/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$work/$1/build" -j2 --target cpu_examples_bench >/dev/null
  has_mpi=0
  if cmake --build "$work/$1/build" -j2 --target mpi_bench_openmpi >/dev/null 2>&1; then has_mpi=1; fi
  echo "$has_mpi" >"$work/$1/has_mpi"
  echo "$1 = $(git -C "$repo" rev-parse --short "$2") ($2)"
}
build old "$1"
build new "$2"

export GLIBC_TUNABLES=glibc.malloc.hugetlb=1
run() { # side round
  b=$work/$1/build
  "$b/bench/cpu_examples/cpu_examples_bench" -n "$n" -r 5 -m "$maxbytes" \
    >"$work/$1/cpu.$2.txt"
  if [ "$(cat "$work/old/has_mpi")$(cat "$work/new/has_mpi")" = 11 ]; then
    mpirun.openmpi --allow-run-as-root --oversubscribe -n "$n" "$b/bench/mpi_collectives/mpi_bench_openmpi" \
      -r 5 -max "$maxbytes" >"$work/$1/mpi.$2.txt" 2>"$work/$1/mpi.$2.err" || true
  fi
}
i=1
while [ "$i" -le "$rounds" ]; do
  if [ $((i % 2)) -eq 1 ]; then run old "$i"; run new "$i"; else run new "$i"; run old "$i"; fi
  echo "round $i of $rounds done" >&2
  i=$((i + 1))
done
if [ -n "$keep" ]; then
  for side in old new; do
    mkdir -p "$keep/$side"
    cp "$work/$side"/*.txt "$keep/$side/"
  done
fi
python3 "$here/summary.py" "$work" "$rounds"
