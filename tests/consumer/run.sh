#!/bin/sh
# Installs the collc build in BUILD into a fresh prefix under WORK and uses
# it as a user would (ctest: consumer_project):
#   - every file is installed once; headers, examples, machine files, the
#     simulator and the docs are there;
#   - the installed collc and sg2260-sim find the installed machines by
#     name, and collc compares the installed examples;
#   - this folder's outside project (find_package(collc), collc_add_algorithm,
#     generated headers) builds; its cpu program runs, and its MPI program
#     runs under each MPI given as MPI LAUNCHER (e.g. mpich "mpirun.mpich");
#   - mixed/ (a program with two runtimes, two outputs of one name) is
#     refused at configure time with a clear message.
# usage: run.sh BUILD WORK [MPI LAUNCHER]...
set -eu
build=$1
work=$2
shift 2
src=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$src/../.." && pwd)
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix

# run LOG CMD...: CMD's output into LOG, shown when CMD fails
run() {
    log=$1
    shift
    if ! "$@" >"$log" 2>&1; then
        cat "$log"
        echo "consumer: FAILED: $*"
        exit 1
    fi
}
fail() {
    echo "consumer: FAILED: $*"
    exit 1
}

run "$work/install.log" cmake --install "$build" --prefix "$prefix"
dups=$(sed -n 's/^-- [A-Za-z-]*: //p' "$work/install.log" | sort | uniq -d)
[ -z "$dups" ] || fail "installed more than once: $dups"
for f in include/coll.h include/coll_collectives.def include/coll_cpu.h bin/collc bin/sg2260-sim \
         lib/cmake/collc/collcConfig.cmake lib/cmake/collc/collcTargets.cmake \
         share/collc/machines/sg2260-board.machine share/doc/collc/README.md \
         share/doc/collc/docs/codegen.md; do
    [ -e "$prefix/$f" ] || fail "not installed: $f"
done
n_src=$(ls "$root"/dsl-examples/*.coll | wc -l)
n_inst=$(ls "$prefix"/share/collc/dsl-examples/*.coll | wc -l)
[ "$n_src" = "$n_inst" ] || fail "$n_inst of the $n_src dsl-examples installed"
echo "consumer: install OK ($n_inst examples)"

# The installed programs and data, away from the build tree.
cd "$work"
run cost.log "$prefix/bin/collc" cost "$prefix/share/collc/dsl-examples/ring_allreduce.coll" -N 8 \
    --machine sg2260-board
grep -q "topology sg2260-board (8 nodes" cost.log || fail "collc cost --machine sg2260-board: $(cat cost.log)"
run sim.log "$prefix/bin/sg2260-sim" --print-machine --no-run --machine sg2260-board-22g
grep -q "^name = sg2260-board-22g" sim.log || fail "sg2260-sim --machine sg2260-board-22g: $(cat sim.log)"
if "$prefix/bin/collc" cost "$prefix/share/collc/dsl-examples/ring_allreduce.coll" -N 8 \
       --machine no-such-board >unknown.log 2>&1; then
    fail "collc cost --machine no-such-board succeeded"
fi
grep -q "in $prefix/share/collc/machines " unknown.log || fail "unknown machine: $(cat unknown.log)"
run compare.log "$prefix/bin/collc" compare "$prefix"/share/collc/dsl-examples/*_allreduce.coll -N 8
grep -q "ring_allreduce" compare.log || fail "collc compare: $(cat compare.log)"
# A project outside the source tree imports the installed examples by name.
mkdir -p "$work/own"
printf '%s\n' 'import "ring_allgather.coll";' 'algorithm own_ag : allgather {' '    call ring_allgather();' '}' \
    > "$work/own/own.coll"
run import.log "$prefix/bin/collc" verify -N 2..8 "$work/own/own.coll"
grep -q "^own_ag: verified for N = 2..8" import.log || fail "import of an installed example: $(cat import.log)"
echo "consumer: installed collc and sg2260-sim find machines by name; compare and import OK"

# The outside project.
[ $(($# % 2)) = 0 ] || fail "usage: run.sh BUILD WORK [MPI LAUNCHER]..."
mpis=""
i=0
for a in "$@"; do
    [ $((i % 2)) = 0 ] && mpis="$mpis${mpis:+;}$a"
    i=$((i + 1))
done
run configure.log cmake -S "$src" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" -DCONSUMER_MPI="$mpis"
run build.log cmake --build "$work/build"
"$work/build/consumer"
while [ $# -ge 2 ]; do
    # shellcheck disable=SC2086  # the launcher is a command line
    $2 -n 4 "$work/build/consumer_mpi_$1" || fail "consumer_mpi_$1 under $2"
    shift 2
done

# What the package refuses: configure fails with this message.
refused() {
    case=$1
    want=$2
    if cmake -S "$src/mixed" -B "$work/mixed-$case" -DCMAKE_PREFIX_PATH="$prefix" -DCASE="$case" \
           >"$work/mixed-$case.log" 2>&1; then
        fail "mixed/ CASE=$case configured; it must be refused"
    fi
    # CMake wraps long messages: compare with the lines joined
    tr -s ' \n' '  ' <"$work/mixed-$case.log" | grep -q "$want" || {
        cat "$work/mixed-$case.log"
        fail "mixed/ CASE=$case: no '$want' in the error"
    }
}
refused same-name "mixed already has an algorithm output named 'ring_allreduce'; give this one a PREFIX"
if [ -n "$mpis" ]; then
    first=${mpis%%;*}
    refused functions "mixed already has algorithms for the cpu runtime; this one needs mpi_$first"
    refused link "INTERFACE_COLLC_RUNTIME"
fi
case "$mpis" in
*";"*) refused two-mpi "mixed_mpi already has algorithms for the mpi_${mpis%%;*} runtime" ;;
esac
echo "consumer: mixed runtimes and duplicate outputs refused"
