#!/usr/bin/env bash
# calibrate_test.sh - collc calibrate on the emulated cluster
# (docs/cluster.md section 3): collc-probe on NODES nodes of PPN ranks under
# Open MPI, its output fitted by collc calibrate, the machine file read back
# by collc cost. (Not MPICH: its ranks poll without yielding, so where the
# nodes share few cores a ping-pong within a node measures the scheduler's
# time slice, not the shared memory; docs/cluster.md.) The fit must see the network that cluster.sh
# shaped (--rate 1gbit): β between nodes within 50..150 MB/s (1 Gbit/s is
# 125 MB/s; TCP takes some, the token bucket's burst of 256 KiB passes at
# the veth pair's speed), β within a node above it,
# α between nodes above α within a node.
#
#   calibrate_test.sh CLUSTER_SH COLLC PROBE_OPENMPI EXAMPLES WORKDIR [NODES PPN]
#
# Exit 77 (skipped) with the reason where namespaces cannot be made.
set -uo pipefail
cluster_sh=$1 collc=$2 probe_openmpi=$3 examples=$4 work=$5 nodes=${6:-2} ppn=${7:-2}
export CLUSTER="ct$$"
"$cluster_sh" check || exit 77
mkdir -p "$work"
run() {
  local lib probe
  for lib in openmpi; do
    probe=probe_$lib
    timeout 200 "$cluster_sh" mpirun $lib -ppn "$ppn" --done "collc-probe: done" -- "${!probe}" \
      > "$work/$lib.probe" 2> "$work/$lib.err" || { echo "$lib: collc-probe failed:"; tail -20 "$work/$lib.err"; return 1; }
    "$collc" calibrate "$work/$lib.probe" -o "$work/$lib.machine" || { echo "$lib: calibrate failed"; return 1; }
    cat "$work/$lib.machine"
    python3 - "$work/$lib.machine" "$lib" "$nodes" "$ppn" <<'PY' || return 1
import re, sys
path, lib, nodes, ppn = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
v = {}
for line in open(path):
    m = re.match(r"(\w+) = ([0-9.e+-]+)", line)
    if m: v[m.group(1)] = float(m.group(2)) if m.group(1) not in ("kind", "name") else m.group(2)
bad = []
if v.get("nodes") != nodes or v.get("ppn") != ppn: bad.append("shape %s x %s" % (v.get("nodes"), v.get("ppn")))
if not 0.05 <= v["inter_bandwidth"] <= 0.15: bad.append("inter_bandwidth %g GB/s outside 0.05..0.15" % v["inter_bandwidth"])
if not v["intra_bandwidth"] > v["inter_bandwidth"]: bad.append("intra_bandwidth not above inter_bandwidth")
if not v["inter_latency"] > v["intra_latency"]: bad.append("inter_latency not above intra_latency")
for b in bad: print("%s: %s" % (lib, b))
print("%s: %s" % (lib, "calibrated" if not bad else "FAILED"))
sys.exit(1 if bad else 0)
PY
    "$collc" cost "$examples/ring_allreduce.coll" -N $((nodes * ppn)) --size 1MiB --machine "$work/$lib.machine" \
      > "$work/$lib.cost" || { echo "$lib: cost --machine failed"; return 1; }
    grep -q "topology cluster-${nodes}x${ppn} (${nodes} nodes x ${ppn})" "$work/$lib.cost" \
      || { echo "$lib: cost did not use the machine's topology:"; head -3 "$work/$lib.cost"; return 1; }
  done
}
export -f run
export cluster_sh collc probe_openmpi examples work nodes ppn
"$cluster_sh" run -n "$nodes" -- bash -c run
