#!/bin/sh
# Installs the collc build in $1 into a fresh prefix, then configures, builds
# and runs the outside project in this folder against it, as a user would.
set -eu
build=$1
work=$2
src=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$src" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/consumer"
