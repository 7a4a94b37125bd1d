#!/usr/bin/env bash
# cluster.sh - an emulated cluster of K nodes on one Linux machine, for
# running and measuring MPI jobs whose ranks are on different "nodes"
# (docs/cluster.md).
#
# Each node is a network namespace with its own host name (a UTS namespace),
# joined by a veth pair to one bridge, the "switch". Every node's link is
# shaped by tc (a tbf rate limit in each direction), so traffic between
# nodes crosses a link of the given rate and ranks of different nodes cannot
# share memory (the MPI libraries tell nodes apart by host name), while
# ranks of one node use the MPI library's shared-memory transport. Only the
# namespaces' own addresses (10.250.0.0/24 on the bridge, which has no
# address of its own) are used; nothing outside the namespaces changes but
# the bridge, the host ends of the veth pairs and /etc/netns/<node>/hosts
# (which `ip netns exec` mounts over /etc/hosts inside the node).
#
#   cluster.sh check                         can namespaces be made? (exit 0, or 77 with the reason)
#   cluster.sh up [-n K] [--rate R]          make K nodes (default 2, 1gbit); R as tc reads it
#   cluster.sh down                          remove them (also kills what still runs in them)
#   cluster.sh status                        the nodes, their addresses and shaping
#   cluster.sh exec NODE CMD...              run CMD on node NODE (0..K-1 or its host name)
#   cluster.sh mpirun openmpi|mpich -ppn P [--done LINE] [MPIRUN-OPTION...] -- PROG [ARG...]
#                                            P ranks on every node, K*P in all, mpirun on node 0;
#                                            with --done, a job whose every rank printed LINE
#                                            and that has not ended 10 s later is ended (exit 0)
#   cluster.sh run [-n K] [--rate R] -- CMD...
#                                            up, CMD (in this namespace, CLUSTER set), down,
#                                            also when CMD fails or is interrupted
#   cluster.sh agent [SSH-OPTION...] HOST CMD...
#                                            what mpirun/Hydra start remote daemons with (as ssh)
#
# CLUSTER (default "collc", at most 8 letters or digits) names the cluster,
# so several may exist at once: nodes CLUSTER-node0 .. CLUSTER-node<K-1>.
# Needs root, iproute2 (ip, tc) and util-linux (unshare, nsenter).
set -euo pipefail

SELF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
CLUSTER="${CLUSTER:-collc}"
STATE="/run/collc-cluster/$CLUSTER"
SUBNET="10.250.0"

die() { echo "cluster.sh: $*" >&2; exit 1; }
usage() { echo "cluster.sh: $*" >&2; echo "usage: see the header of $SELF" >&2; exit 2; }

[[ "$CLUSTER" =~ ^[a-z0-9]{1,8}$ ]] || usage "CLUSTER must be 1..8 lower-case letters or digits, got '$CLUSTER'"

node_name() { echo "$CLUSTER-node$1"; }         # host name and network namespace
host_if() { echo "$CLUSTER-v$1"; }              # host end of node i's veth pair (<= 15 chars)
bridge() { echo "$CLUSTER-br"; }

nodes() { cat "$STATE/nodes" 2>/dev/null || echo 0; }

# node_index NODE: 0..K-1 from an index or a host name.
node_index() {
  local k; k=$(nodes)
  if [[ "$1" =~ ^[0-9]+$ ]] && (( $1 < k )); then echo "$1"; return; fi
  if [[ "$1" =~ ^$CLUSTER-node([0-9]+)$ ]] && (( BASH_REMATCH[1] < k )); then echo "${BASH_REMATCH[1]}"; return; fi
  die "no node '$1' in cluster '$CLUSTER' (it has $k nodes)"
}

# in_node I CMD...: CMD in node I's network and UTS namespaces (and a mount
# namespace of ip netns exec's, with the node's /etc/hosts).
in_node() {
  local i=$1; shift
  exec ip netns exec "$(node_name "$i")" nsenter --uts="$STATE/uts$i" --ipc="$STATE/ipc$i" -- "$@"
}

# why_not: empty when this process can make namespaces, else the reason.
why_not() {
  [[ $(id -u) == 0 ]] || { echo "needs root (network namespaces, veth, tc)"; return; }
  local t
  for t in ip tc unshare nsenter; do
    command -v "$t" >/dev/null || { echo "needs '$t' (iproute2, util-linux)"; return; }
  done
  local probe="collcprobe$$"
  if ! ip netns add "$probe" 2>/dev/null; then echo "cannot make a network namespace (ip netns add failed)"; return; fi
  local ok=1
  ip -n "$probe" link add p0 type veth peer name p1 2>/dev/null || ok=0
  ((ok)) && { ip netns exec "$probe" tc qdisc add dev p0 root tbf rate 1gbit burst 256kb latency 50ms 2>/dev/null || ok=2; }
  ((ok == 1)) && { unshare --uts true 2>/dev/null || ok=3; }
  ip netns del "$probe" 2>/dev/null || true
  case $ok in
    0) echo "cannot make a veth pair inside a network namespace";;
    2) echo "tc cannot add a tbf qdisc (no sch_tbf?)";;
    3) echo "cannot make a UTS namespace (unshare --uts failed)";;
  esac
}

cmd_check() {
  local r; r=$(why_not)
  if [[ -n "$r" ]]; then echo "cluster.sh: no emulated cluster here: $r" >&2; exit 77; fi
}

# tbf for a rate R: a burst of 2 ms at that rate (at least 256 KiB: a GSO
# segment of 64 KiB passes the filter whole) and 50 ms of queue.
shape() { # NETNS-or-"" DEV RATE
  local ns=$1 dev=$2 rate=$3
  local -a tcx=(tc); [[ -n "$ns" ]] && tcx=(ip netns exec "$ns" tc)
  "${tcx[@]}" qdisc replace dev "$dev" root tbf rate "$rate" burst 256kb latency 50ms
}

cmd_up() {
  local k=2 rate=1gbit
  while (($#)); do
    case $1 in
      -n) k=${2:?}; shift 2;;
      --rate) rate=${2:?}; shift 2;;
      *) usage "up: unknown argument '$1'";;
    esac
  done
  [[ "$k" =~ ^[0-9]+$ ]] && (( k >= 1 && k <= 64 )) || usage "up: -n must be 1..64, got '$k'"
  local r; r=$(why_not)
  [[ -z "$r" ]] || { echo "cluster.sh: cannot make an emulated cluster here: $r" >&2; exit 77; }
  [[ ! -e "$STATE" ]] || die "cluster '$CLUSTER' is up already (cluster.sh down, or another CLUSTER=...)"
  mkdir -p "$STATE"
  echo 0 > "$STATE/nodes"
  # a failure or an interrupt half-way takes down what was made
  trap 'trap - ERR INT TERM; cmd_down >/dev/null 2>&1; exit 1' ERR INT TERM
  echo "$rate" > "$STATE/rate"
  ip link add "$(bridge)" type bridge
  ip link set "$(bridge)" up
  local i hosts=""
  for ((i = 0; i < k; i++)); do hosts+="$SUBNET.$((i + 1)) $(node_name "$i")"$'\n'; done
  for ((i = 0; i < k; i++)); do
    local ns; ns=$(node_name "$i")
    echo $((i + 1)) > "$STATE/nodes"   # so that down removes node i
    ip netns add "$ns"
    mkdir -p "/etc/netns/$ns"
    printf '127.0.0.1 localhost\n%s' "$hosts" > "/etc/netns/$ns/hosts"
    ip link add "$(host_if "$i")" type veth peer name eth0 netns "$ns"
    ip link set "$(host_if "$i")" master "$(bridge)" up
    ip -n "$ns" addr add "$SUBNET.$((i + 1))/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
    shape "$ns" eth0 "$rate"            # node -> switch
    shape "" "$(host_if "$i")" "$rate"  # switch -> node
    touch "$STATE/uts$i" "$STATE/ipc$i"
    unshare --uts="$STATE/uts$i" --ipc="$STATE/ipc$i" hostname "$ns"
  done
  # the agent as one program (Hydra's -launcher-exec takes no arguments)
  printf '#!/bin/sh\nCLUSTER=%s exec %q agent "$@"\n' "$CLUSTER" "$SELF" > "$STATE/agent"
  chmod +x "$STATE/agent"
  trap - ERR INT TERM
  echo "cluster '$CLUSTER': $k nodes ($(node_name 0) .. $(node_name $((k - 1)))), links $rate"
}

cmd_down() {
  [[ -d "$STATE" ]] || return 0
  local k i; k=$(nodes)
  for ((i = 0; i < k; i++)); do
    local ns; ns=$(node_name "$i")
    # what still runs in the node (an MPI job of an interrupted run) ends with it
    local pids; pids=$(ip netns pids "$ns" 2>/dev/null || true)
    [[ -n "$pids" ]] && kill -TERM $pids 2>/dev/null || true
  done
  for ((i = 0; i < k; i++)); do
    local ns t; ns=$(node_name "$i")
    for t in 1 2 3 4 5 6 7 8 9 10; do [[ -z "$(ip netns pids "$ns" 2>/dev/null)" ]] && break; sleep 0.2; done
    local pids; pids=$(ip netns pids "$ns" 2>/dev/null || true)
    [[ -n "$pids" ]] && kill -KILL $pids 2>/dev/null || true
    ip link del "$(host_if "$i")" 2>/dev/null || true
    ip netns del "$ns" 2>/dev/null || true
    rm -rf "/etc/netns/$ns"
    umount "$STATE/uts$i" "$STATE/ipc$i" 2>/dev/null || true
  done
  rmdir /etc/netns 2>/dev/null || true
  ip link del "$(bridge)" 2>/dev/null || true
  rm -rf "$STATE"
  rmdir /run/collc-cluster 2>/dev/null || true
  echo "cluster '$CLUSTER': down"
}

cmd_status() {
  [[ -d "$STATE" ]] || { echo "cluster '$CLUSTER' is not up"; exit 1; }
  local k i; k=$(nodes)
  echo "cluster '$CLUSTER': $k nodes, links $(cat "$STATE/rate")"
  for ((i = 0; i < k; i++)); do
    echo "$(node_name "$i") $SUBNET.$((i + 1)) $(ip netns exec "$(node_name "$i")" tc qdisc show dev eth0 | head -1)"
  done
}

cmd_exec() {
  (($# >= 2)) || usage "exec NODE CMD..."
  [[ -d "$STATE" ]] || die "cluster '$CLUSTER' is not up (cluster.sh up)"
  local i; i=$(node_index "$1"); shift
  in_node "$i" "$@"
}

# The remote-shell agent: mpirun and Hydra call it as they would call ssh,
# `agent [-x ...] HOST 'COMMAND LINE'`; it runs the command line with sh on
# that node. The environment is this process's (mpirun's), as a local launch
# would pass it.
cmd_agent() {
  while (($#)) && [[ "$1" == -* ]]; do shift; done
  (($# >= 2)) || usage "agent HOST CMD..."
  local i; i=$(node_index "$1"); shift
  in_node "$i" sh -c "$*"
}

# kill_tree PID: PID and every process below it (a job this script started).
kill_tree() {
  local c
  for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do kill_tree "$c"; done
  kill -TERM "$1" 2>/dev/null || true
}

# watch_job DONE N CMD...: runs CMD with its output on stdout; once DONE
# has appeared N times and CMD has not ended 10 s later, ends it and
# exits 0 (the ranks' work is done; only MPI_Finalize hangs).
watch_job() {
  local done=$1 n=$2; shift 2
  local out; out=$(mktemp)
  "$@" > "$out" 2>&1 &
  local job=$! since=0 shown=0 total rc
  # show_new: the complete lines of the output not shown yet
  show_new() { total=$(wc -l < "$out"); sed -n "$((shown + 1)),${total}p" "$out"; shown=$total; }
  while kill -0 "$job" 2>/dev/null; do
    sleep 0.5
    show_new
    # every occurrence counts, not only whole lines: the launcher forwards
    # the ranks' stdout and stderr through separate pipes, and a rank's
    # LINE can share its line with another rank's (or the library's) text
    if (( since == 0 )) && (( $(grep -oF -- "$done" "$out" | wc -l) >= n )); then since=$SECONDS; fi
    if (( since > 0 && SECONDS - since >= 10 )) && kill -0 "$job" 2>/dev/null; then
      kill_tree "$job"
      wait "$job" 2>/dev/null || true
      show_new
      rm -f "$out"
      echo "cluster.sh: every rank printed '$done' but the job did not end within 10 s; ended it" \
           "(MPICH 4.0.2 over UCX's tcp transport can hang in MPI_Finalize, docs/cluster.md)" >&2
      return 0
    fi
  done
  rc=0; wait "$job" || rc=$?
  show_new
  tail -c 1 "$out" | grep -q . && tail -n 1 "$out"   # a last line without a newline
  rm -f "$out"
  return $rc
}

cmd_mpirun() {
  (($# >= 1)) || usage "mpirun openmpi|mpich -ppn P [--done LINE] [OPTION...] -- PROG [ARG...]"
  local mpi=$1 ppn=1 done=""; shift
  local -a extra=()
  while (($#)) && [[ "$1" != -- ]]; do
    case $1 in
      -ppn) ppn=${2:?}; shift 2;;
      --done) done=${2:?}; shift 2;;
      *) extra+=("$1"); shift;;
    esac
  done
  (($#)) && shift
  (($#)) || usage "mpirun: no program after --"
  [[ "$ppn" =~ ^[0-9]+$ ]] && (( ppn >= 1 )) || usage "mpirun: -ppn must be a positive number, got '$ppn'"
  [[ -d "$STATE" ]] || die "cluster '$CLUSTER' is not up (cluster.sh up)"
  local k i hosts=""; k=$(nodes)
  for ((i = 0; i < k; i++)); do hosts+="${hosts:+,}$(node_name "$i"):$ppn"; done
  local -a cmd
  case $mpi in
    openmpi)
      # TCP between nodes on the node's eth0 only, shared memory within a
      # node; ranks do not busy-poll (the nodes share the machine's cores)
      cmd=(mpirun.openmpi --allow-run-as-root -n $((k * ppn)) --host "$hosts" --bind-to none
           --mca plm_rsh_agent "$STATE/agent" --mca btl self,vader,tcp
           --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0 --mca mpi_yield_when_idle 1);;
    mpich)
      # UCX: TCP on eth0 for other nodes, shared memory within one
      cmd=(env UCX_NET_DEVICES="${UCX_NET_DEVICES:-eth0,lo}" mpiexec.hydra -launcher ssh
           -launcher-exec "$STATE/agent" -hosts "$hosts" -n $((k * ppn)));;
    *) usage "mpirun: openmpi or mpich, got '$mpi'";;
  esac
  if [[ -z "$done" ]]; then in_node 0 "${cmd[@]}" "${extra[@]}" "$@"; fi
  watch_job "$done" $((k * ppn)) "$SELF" exec 0 "${cmd[@]}" "${extra[@]}" "$@"
}

cmd_run() {
  local -a up=()
  while (($#)) && [[ "$1" != -- ]]; do up+=("$1"); shift; done
  (($#)) && shift
  (($#)) || usage "run [-n K] [--rate R] -- CMD..."
  cmd_up "${up[@]}" >&2
  # CMD in the background, so that a signal is handled at once (bash runs a
  # trap only after the foreground command ends)
  CLUSTER="$CLUSTER" "$@" &
  local child=$! rc=0
  trap 'trap - INT TERM HUP; kill_tree $child; wait $child 2>/dev/null || true; cmd_down >&2; exit 130' INT TERM HUP
  wait "$child" || rc=$?
  trap - INT TERM HUP
  cmd_down >&2
  return $rc
}

(($#)) || usage "no command"
cmd=$1; shift
case $cmd in
  check) cmd_check;;
  up) cmd_up "$@";;
  down) cmd_down;;
  status) cmd_status;;
  exec) cmd_exec "$@";;
  agent) cmd_agent "$@";;
  mpirun) cmd_mpirun "$@";;
  run) cmd_run "$@";;
  *) usage "unknown command '$cmd'";;
esac
