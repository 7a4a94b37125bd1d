#!/usr/bin/env python3
"""check_transports.py - reads the output of tests/cluster/pairs.c run on the
emulated cluster with the MPI library's verbose output, and checks that every
pair of ranks on one node uses shared memory and every pair on two nodes the
network, both as the library says (its verbose lines) and as the node's eth0
counter measures (pairs.c's own lines).

  check_transports.py openmpi|mpich OUTPUT REPORT NODES PPN BYTES

OUTPUT is the job's output (the library's verbose lines), REPORT the file
pairs.c wrote (its rank and pair lines).

Open MPI (--mca btl_base_verbose 100) prints one line per peer when it adds
the processes of the job:
  [host:pid] mca: bml: Using vader btl for send to [[job,1],3] on node host1
MPICH over UCX (UCX_LOG_LEVEL=debug) prints every endpoint it creates, one
per rank of MPI_COMM_WORLD in rank order, and its lanes:
  [host:pid:0] ucp_ep.c:354 UCX DEBUG created ep 0x... to ... from api call
  [host:pid:0] wireup.c:1094 UCX DEBUG ep 0x...: lane[0]: 2:tcp/eth0.0 md[1] ...
Prints one line per pair and exits 1 on the first disagreement."""
import re
import sys

MEMORY = {"self", "vader", "sm", "sysv", "posix", "cma", "xpmem", "knem", "memory", "memory0"}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def main():
    if len(sys.argv) != 7:
        sys.exit(__doc__)
    mpi, path, report_path = sys.argv[1], sys.argv[2], sys.argv[3]
    nodes, ppn, nbytes = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
    text = open(path, errors="replace").read()
    report = open(report_path, errors="replace").read()
    n = nodes * ppn
    rank_of_pid, host_of_rank = {}, {}
    for m in re.finditer(r"^rank (\d+) pid (\d+) host (\S+) node-rank (\d+)/(\d+)$", report, re.M):
        r, pid, host, size = int(m[1]), int(m[2]), m[3], int(m[5])
        rank_of_pid[pid], host_of_rank[r] = r, host
        if size != ppn:
            fail(f"rank {r}: MPI_COMM_TYPE_SHARED has {size} ranks, expected {ppn}")
    if len(host_of_rank) != n:
        fail(f"{len(host_of_rank)} ranks reported, expected {n}")
    if len(set(host_of_rank.values())) != nodes:
        fail(f"ranks on {len(set(host_of_rank.values()))} host names, expected {nodes}")
    for r in range(n):  # ranks in blocks of ppn per node
        if host_of_rank[r] != host_of_rank[r - r % ppn]:
            fail(f"rank {r} is not on the node of rank {r - r % ppn}")

    def same(a, b):
        return host_of_rank[a] == host_of_rank[b]

    # the library's view: transports[(rank, peer)] = set of transport names
    transports = {}
    if mpi == "openmpi":
        for m in re.finditer(r"\[[^:\]]+:(\d+)\] mca: bml: Using (\w+) btl for send to \[\[\d+,\d+\],(\d+)\]", text):
            if int(m[1]) in rank_of_pid:
                transports.setdefault((rank_of_pid[int(m[1])], int(m[3])), set()).add(m[2])
    else:
        eps = {}  # pid -> [ep address in creation order]
        lanes = {}  # (pid, ep) -> set of transports
        for m in re.finditer(r"\[[^:\]]+:(\d+)\s*:\d+\].*created ep (0x[0-9a-f]+) .*from api call", text):
            eps.setdefault(int(m[1]), []).append(m[2])
        for m in re.finditer(r"\[[^:\]]+:(\d+)\s*:\d+\].*ep (0x[0-9a-f]+): lane\[\d+\]:\s+\d+:(\w+)/(\w+)", text):
            lanes.setdefault((int(m[1]), m[2]), set()).add(m[3])
        for pid, r in rank_of_pid.items():
            for peer, ep in enumerate(eps.get(pid, [])[:n]):
                transports[(r, peer)] = lanes.get((pid, ep), set())
    for r in range(n):
        for p in range(n):
            if r == p:
                continue
            t = transports.get((r, p))
            if not t:
                fail(f"{mpi}: no transport reported from rank {r} to rank {p}")
            if same(r, p) and not t <= MEMORY:
                fail(f"{mpi}: ranks {r} and {p} share node {host_of_rank[r]} but use {sorted(t)}")
            if not same(r, p) and (t & MEMORY or "tcp" not in t):
                fail(f"{mpi}: ranks {r} and {p} are on nodes {host_of_rank[r]}, {host_of_rank[p]} but use {sorted(t)}")

    # the network's view
    seen = 0
    for m in re.finditer(r"^pair (\d+) (\d+) eth0_tx_delta (-?\d+)$", report, re.M):
        i, j, d = int(m[1]), int(m[2]), int(m[3])
        seen += 1
        if d < 0:
            fail(f"rank {i} cannot read its node's eth0 counter")
        if same(i, j) and d >= nbytes // 4:
            fail(f"{i} -> {j} on one node sent {d} bytes through eth0")
        if not same(i, j) and d < nbytes:
            fail(f"{i} -> {j} on two nodes sent only {d} bytes through eth0 ({nbytes} expected)")
        where = "one node, shared memory" if same(i, j) else "two nodes, network"
        print(f"{mpi} {i} -> {j}: {','.join(sorted(transports[(i, j)]))} ({where}; eth0 +{d} B)")
    if seen != n * (n - 1):
        fail(f"{seen} pairs measured, expected {n * (n - 1)}")
    print(f"{mpi}: {n * (n - 1)} pairs on {nodes} nodes x {ppn} ranks as expected")


main()
