#!/bin/sh
# run-compiled.sh - a lit helper (the substitution %run_compiled): compiles
# one algorithm of a .coll file with both backends (collc compile --emit=c,
# then the host C compiler; and collc compile -c, the LLVM object), links
# each with the end-to-end program e2e_main.c and the cpu runtime, and runs
# its matrix with --quick (N = 1, 2, 3, 4, 5, 7, 8, 16, counts 0, 1, N-1, N, N+5 and large
# uneven ones, in place or not, bit-exact against the naive reference).
#
#   run-compiled.sh COLLC "CC" SRCROOT BUILDDIR OUTDIR FILE.coll ALG COLLECTIVE [compile options]
#
# COLLECTIVE is the coll.h name (ALLREDUCE, BCAST is BROADCAST here);
# compile options (-D P=v, --algorithm A, ...) go to both collc compiles.
set -eu
collc=$1 cc=$2 src=$3 build=$4 out=$5 file=$6 alg=$7 coll=$8
shift 8
case $coll in
    BROADCAST|SCATTER|GATHER|REDUCE) rooted=1 ;;
    *) rooted=0 ;;
esac
mkdir -p "$out"
defs="-DE2E_ALG=$alg -DE2E_COLL=COLL_$coll -DE2E_ROOTED=$rooted"
incs="-I$src/runtime/include -I$src/runtime/reference"
libs="$build/compiler/libcollref.a $build/targets/cpu/libcollrt.a -lpthread -lm"
"$collc" compile --emit=c "$@" "$file" -o "$out/$alg.c"
"$collc" compile -c -O2 "$@" "$file" -o "$out/$alg.o"
# shellcheck disable=SC2086 # $cc, $defs, $incs and $libs are word lists
$cc -std=c17 -O1 $defs $incs "$src/tests/e2e/e2e_main.c" "$out/$alg.c" $libs -o "$out/$alg.c.exe"
# shellcheck disable=SC2086
$cc -std=c17 -O1 $defs $incs "$src/tests/e2e/e2e_main.c" "$out/$alg.o" $libs -o "$out/$alg.llvm.exe"
echo "C backend:"
"$out/$alg.c.exe" --quick
echo "LLVM backend:"
"$out/$alg.llvm.exe" --quick
