#!/bin/sh
# external_suite.sh TESTMPI BUILD [WORKDIR]
#
# Runs MPI collective tests this project does not contain - MPICH's
# test/mpi/coll, from a checkout of MPICH's test/mpi folder given as TESTMPI
# (util/mtest.c, include/mpitest.h, coll/*.c and coll/testlist or
# coll/testlist.in) - through libcollmpi.so with every intercepted collective
# sent to collc, under Open MPI and MPICH, and compares each test with the
# same test without the library. Nothing of that checkout is part of this
# repository; it is built under WORKDIR (default: a fresh mktemp -d).
#
# For each test of the testlist whose source builds (process counts above
# MAXNP are run at MAXNP), each MPI library and each configuration below,
# the test runs within TIMEOUT seconds (default 120; a hang fails fast):
#   native     without the library
#   pow2first  power-of-two algorithms first, general ones second
#              (tests/mpi/consist_test.sh's rules)
#   general    one algorithm for every N per collective
# A result is "pass" (exit 0 and MPICH's " No Errors" line), "FAIL" or
# "HANG". A test that fails or hangs with the library but not natively is a
# regression; one that fails natively too is reported with the native
# result. Known native failures of the MPI libraries of Debian 12 are listed
# in KNOWN_NATIVE below, so that a run says so instead of hiding them.
# The column "collc served" counts, per configuration, the distinct
# (collective, algorithm) decisions COLLMPI_DEBUG=1 logged on rank 0 (0: the
# test never reached collc).
#
# Environment: MPIS="openmpi mpich" (which libraries), CONFIGS="pow2first
# general", TESTS="gather2 scatter3 ..." (a subset by name), TIMEOUT,
# MAXNP (default 8: larger process counts of the testlist run at MAXNP;
# MPICH busy-polls, so on a machine with few cores MAXNP=4 keeps its runs
# short), EXTRA_CFLAGS (e.g. -DUSE_MTEST_NBC: MPICH 4.0's tests that call
# the collectives through include/mpicolltest.h then call the nonblocking
# forms and wait; use another WORKDIR for such a build).
# Exit status: 0 when there is no regression, 1 otherwise, 2 on usage
# errors.
set -u
if [ $# -lt 2 ]; then
  echo "usage: $0 TESTMPI BUILD [WORKDIR]" >&2; exit 2
fi
src=$1 build=$2
work=${3:-$(mktemp -d)}
timeout=${TIMEOUT:-120}
maxnp=${MAXNP:-8}
mpis=${MPIS:-openmpi mpich}
configs=${CONFIGS:-pow2first general}
case $src in /*) ;; *) src=$PWD/$src ;; esac
case $build in /*) ;; *) build=$PWD/$build ;; esac
if [ ! -f "$src/util/mtest.c" ] || [ ! -d "$src/coll" ]; then
  echo "$0: $src is not MPICH's test/mpi folder (no util/mtest.c or coll/)" >&2; exit 2
fi
list=$src/coll/testlist
[ -f "$list" ] || list=$src/coll/testlist.in
if [ ! -f "$list" ]; then echo "$0: no $src/coll/testlist(.in)" >&2; exit 2; fi
mkdir -p "$work" || exit 2

# Failures of the MPI libraries themselves, seen without libcollmpi.so:
# MPICH 4.0.2: allredmany (10000 one-element allreduces) hangs at 4 processes;
# Open MPI 4.1.4: nonblocking2 and nonblocking3 crash.
KNOWN_NATIVE="mpich:allredmany openmpi:nonblocking2 openmpi:nonblocking3"

# mpitestconf.h, which MPICH's configure would write: the MPI-1 functions
# that MPI-3 removed and some tests still call.
cat > "$work/mpitestconf.h" <<'H'
#ifndef MPITESTCONF_H_INCLUDED
#define MPITESTCONF_H_INCLUDED
#include <mpi.h>
#define HAVE_STDLIB_H 1
#define HAVE_STDARG_H 1
#define HAVE_STRING_H 1
#define HAVE_STDINT_H 1
#define HAVE_UNISTD_H 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_LONG_LONG 1
static inline int mtest_type_extent(MPI_Datatype t, MPI_Aint *e) {
    MPI_Aint lb;
    return MPI_Type_get_extent(t, &lb, e);
}
#undef MPI_Type_extent
#define MPI_Type_extent mtest_type_extent
#undef MPI_Errhandler_set
#define MPI_Errhandler_set MPI_Comm_set_errhandler
/* MPICH 4's tests: no thread package (util/mtest_single.c) */
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_NONE
/* Open MPI 4.1 has the MPI-4 persistent collectives as MPIX_*_init */
#if defined(OPEN_MPI) && OPEN_MPI && MPI_VERSION < 4
#include <mpi-ext.h>
#ifdef OMPI_HAVE_MPI_EXT_PCOLLREQ
#define MPI_Allgather_init MPIX_Allgather_init
#define MPI_Allgatherv_init MPIX_Allgatherv_init
#define MPI_Allreduce_init MPIX_Allreduce_init
#define MPI_Alltoall_init MPIX_Alltoall_init
#define MPI_Alltoallv_init MPIX_Alltoallv_init
#define MPI_Alltoallw_init MPIX_Alltoallw_init
#define MPI_Barrier_init MPIX_Barrier_init
#define MPI_Bcast_init MPIX_Bcast_init
#define MPI_Exscan_init MPIX_Exscan_init
#define MPI_Gather_init MPIX_Gather_init
#define MPI_Gatherv_init MPIX_Gatherv_init
#define MPI_Reduce_init MPIX_Reduce_init
#define MPI_Reduce_scatter_init MPIX_Reduce_scatter_init
#define MPI_Reduce_scatter_block_init MPIX_Reduce_scatter_block_init
#define MPI_Scan_init MPIX_Scan_init
#define MPI_Scatter_init MPIX_Scatter_init
#define MPI_Scatterv_init MPIX_Scatterv_init
#define MPI_Neighbor_allgather_init MPIX_Neighbor_allgather_init
#define MPI_Neighbor_allgatherv_init MPIX_Neighbor_allgatherv_init
#define MPI_Neighbor_alltoall_init MPIX_Neighbor_alltoall_init
#define MPI_Neighbor_alltoallv_init MPIX_Neighbor_alltoallv_init
#define MPI_Neighbor_alltoallw_init MPIX_Neighbor_alltoallw_init
#endif
#endif
#endif
H
# written by MPICH's build (MPIX extensions of MPICH itself): none here
: > "$work/mtest_mpix.h"

algs_of() { echo "$build/tests/mpi/$1/libtestalgs.so"; }
write_config() {  # write_config NAME ALGS_SO FILE
  case $1 in
    pow2first) cat > "$3" <<CONF
allreduce        *    *    $2   recursive_doubling_allreduce
allreduce        *    *    $2   ring_allreduce
bcast            *    *    $2   binomial_broadcast
reduce           *    *    $2   rabenseifner_reduce
reduce           *    *    $2   binomial_reduce
allgather        *    *    $2   recursive_doubling_allgather
allgather        *    *    $2   ring_allgather
alltoall         *    *    $2   xor_pairwise_alltoall
alltoall         *    *    $2   pairwise_alltoall
gather           *    *    $2   binomial_gather
scatter          *    *    $2   binomial_scatter
reduce_scatter   *    *    $2   recursive_halving_reduce_scatter
reduce_scatter   *    *    $2   ring_reduce_scatter
CONF
    ;;
    general) cat > "$3" <<CONF
allreduce        *    *    $2   ring_allreduce
bcast            *    *    $2   pipelined_ring_broadcast
reduce           *    *    $2   binomial_reduce
allgather        *    *    $2   ring_allgather
alltoall         *    *    $2   pairwise_alltoall
gather           *    *    $2   linear_gather
scatter          *    *    $2   linear_scatter
reduce_scatter   *    *    $2   ring_reduce_scatter
CONF
    ;;
    *) echo "$0: unknown configuration $1" >&2; exit 2 ;;
  esac
}

# run_one MPI NP EXE ARGS LOG [env ...]: prints pass, FAIL or HANG
run_one() {
  mpi=$1 np=$2 exe=$3 args=$4 log=$5
  shift 5
  if [ "$mpi" = openmpi ]; then
    set -- mpirun.openmpi --allow-run-as-root --oversubscribe -n "$np" env OMPI_MCA_op=^avx "$@"
  else
    set -- mpirun.mpich -n "$np" env "$@"
  fi
  # shellcheck disable=SC2086
  timeout -k 5 "$timeout" "$@" "$exe" $args < /dev/null > "$log" 2>&1
  rc=$?
  if [ $rc = 124 ] || [ $rc = 137 ]; then echo HANG
  elif [ $rc = 0 ] && grep -qi '^ *No Errors' "$log"; then echo pass
  else echo FAIL
  fi
}

regressions=0 total=0 passed=0
printf '%-8s %-22s %3s %-7s' MPI test np native
for c in $configs; do printf ' %-10s' "$c"; done
printf ' %s\n' "collc served"
for mpi in $mpis; do
  cc=mpicc.$mpi
  lib=$build/targets/mpi/$mpi/libcollmpi.so
  algs=$(algs_of "$mpi")
  if ! command -v "$cc" >/dev/null || [ ! -f "$lib" ] || [ ! -f "$algs" ]; then
    echo "$0: $mpi: no $cc, $lib or $algs; skipped" >&2; continue
  fi
  bin=$work/$mpi
  mkdir -p "$bin/logs"
  rm -f "$bin/regressions" "$bin/runs" "$bin/passes" "$bin/done"
  for c in $configs; do write_config "$c" "$algs" "$bin/$c.conf"; done
  # util/mtest.c, and in MPICH 4's tests its argument lists
  # (mtest_common.c) and the single-threaded stubs (mtest_single.c)
  utilobjs=""
  for u in mtest mtest_common mtest_single; do
    [ -f "$src/util/$u.c" ] || continue
    # shellcheck disable=SC2086
    $cc -O1 -w ${EXTRA_CFLAGS:-} -I"$work" -I"$src/include" -c "$src/util/$u.c" -o "$bin/$u.o" ||
      { echo "$0: $mpi: util/$u.c does not build" >&2; continue 2; }
    utilobjs="$utilobjs $bin/$u.o"
  done
  # "name np [key=value ...]" lines; @...@ (configure-time) lines are skipped
  grep -v '^[[:space:]]*#' "$list" | grep -v '@' | while read -r name np opts; do
    [ -n "$name" ] && [ -n "$np" ] || continue
    case " ${TESTS:-$name} " in *" $name "*) ;; *) continue ;; esac
    [ -f "$src/coll/$name.c" ] || continue
    [ "$np" -gt "$maxnp" ] && np=$maxnp
    args=""
    for o in $opts; do case $o in arg=*) args="$args ${o#arg=}" ;; esac; done
    exe=$bin/$name
    if [ ! -x "$exe" ]; then
      # shellcheck disable=SC2086
      if ! $cc -O1 -w ${EXTRA_CFLAGS:-} -I"$work" -I"$src/include" "$src/coll/$name.c" $utilobjs -lm -o "$exe" \
           > "$bin/logs/$name.build" 2>&1; then
        printf '%-8s %-22s %3s %s\n' "$mpi" "$name" "$np" "(does not build here: $bin/logs/$name.build)"
        continue
      fi
    fi
    tag=$name.np$np$(echo "$args" | tr -c 'A-Za-z0-9\n' _)
    # a count capped by MAXNP may repeat an earlier line
    grep -qx "$tag" "$bin/done" 2>/dev/null && continue
    echo "$tag" >> "$bin/done"
    native=$(run_one "$mpi" "$np" "$exe" "$args" "$bin/logs/$tag.native")
    line=$(printf '%-8s %-22s %3s %-7s' "$mpi" "$name$args" "$np" "$native")
    served=""
    for c in $configs; do
      r=$(run_one "$mpi" "$np" "$exe" "$args" "$bin/logs/$tag.$c" LD_PRELOAD="$lib" \
            COLLMPI_CONFIG="$bin/$c.conf" COLLMPI_DEBUG=1)
      k=$(grep -c -- '-> [A-Za-z0-9_]* (collc,' "$bin/logs/$tag.$c")
      served="$served $c=$k"
      mark=""
      if [ "$r" != pass ] && [ "$native" = pass ]; then
        mark="!"; echo x >> "$bin/regressions"
      fi
      echo y >> "$bin/runs"
      [ "$r" = pass ] && echo y >> "$bin/passes"
      line=$(printf '%s %-10s' "$line" "$r$mark")
    done
    known=""
    case " $KNOWN_NATIVE " in *" $mpi:$name "*) known=" (known failure of $mpi itself)" ;; esac
    [ "$native" != pass ] && [ -z "$known" ] && known=" (fails without the library too)"
    echo "$line$served$known"
  done
  [ -f "$bin/regressions" ] && regressions=$((regressions + $(wc -l < "$bin/regressions")))
  [ -f "$bin/runs" ] && total=$((total + $(wc -l < "$bin/runs")))
  [ -f "$bin/passes" ] && passed=$((passed + $(wc -l < "$bin/passes")))
  rm -f "$bin/regressions" "$bin/runs" "$bin/passes" "$bin/done"
done
echo "logs: $work/<mpi>/logs"
echo "with the library: $passed passed, $((total - passed)) failed ($regressions regressions: '!' above)"
[ "$regressions" = 0 ]
