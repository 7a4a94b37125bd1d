#!/usr/bin/env python3
"""Generates tests/examples/expand-*.test from the cost formulas of the
examples (the step and transfer counts promised in each dsl-examples/*.coll
header comment).

The expected numbers below are written from the algorithms' structure, not
taken from collc's output, so the generated tests check collc's expansion
against the formulas. Re-run after changing an example or a formula:

    python3 tests/examples/gen_expand_tests.py

For every example and every N = 1..16 (rooted collectives: root 0 and, where
the counts do not depend on the root, root N-1) the test expands the example
and checks the schedule header line and the exact `total S steps, T transfers`
line. For every N that a `require` excludes it checks the exact
"does not apply" diagnostic (the line and column of the `require` are read
from the example, so editing its header comment only needs a re-run).
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(HERE)), "dsl-examples")
NS = range(1, 17)


def clog2(n):
    """ceil(log2 n) for n >= 1."""
    return (n - 1).bit_length()


def clogk(k, n):
    """ceil(log_k n) for n >= 1: the least t with k^t >= n."""
    t, p = 0, 1
    while p < n:
        p *= k
        t += 1
    return t


def pat_counts(n, r):
    """(blocks per dimension) of the PAT algorithms: distance d = 2^(L-1)
    .. 1, blocks r + m·2d with m·2d + d < N; and how many messages of at
    most r blocks they take."""
    L = clog2(n)
    cnts = [(n - (1 << (L - 1 - k)) + 2 * (1 << (L - 1 - k)) - 1) // (2 * (1 << (L - 1 - k)))
            for k in range(L)]
    return cnts, sum(-(-c // r) for c in cnts)


def swing_counts(n):
    """(p2, k, e): the largest power of two <= n, its log2, the folded ranks."""
    p2 = 1 << log2(n)
    return p2, log2(n), n - p2


def log2(n):
    return n.bit_length() - 1


def pow2(n):
    return n > 0 and n & (n - 1) == 0


def bruck_xfers(n):
    L = clog2(n)
    return n * (L + 1) + sum(min(1 << k, n - (1 << k)) - 1 for k in range(1, L))


def bruck_a2a_xfers(n):
    """rotation (2 ranges, one empty on rank 0) + per step and rank one
    staying and one moving run per 2d slots + N final placements per rank."""
    runs = 0
    for k in range(clog2(n)):
        d = 1 << k
        runs += -(-n // (2 * d)) + -(-(n - d) // (2 * d))
    return 2 * n - 1 + n * runs + n * n


def tree_sg_xfers(n):
    """binomial scatter/gather, root 0: own blocks + one remainder per
    receiver whose subtree has more than one rank."""
    return 1 if n == 1 else n + (n - 2) // 2


def rab_reduce_counts(n, whole_fold):
    """(steps, transfers) of the libraries' Rabenseifner Reduce at root 0:
    a rank-local copy, the fold of rem = n - p2 pairs (halves both ways and
    one half back, or the whole vector), log2 p2 halving steps of p2
    transfers, log2 p2 gather steps of p2 - 1 transfers in all, and the
    root's own chunk copied locally."""
    if n == 1:
        return 1, 1
    l = log2(n)
    p2 = 1 << l
    rem = n - p2
    fold_steps = 0 if rem == 0 else 1 if whole_fold else 2
    fold_xfers = rem if whole_fold else 3 * rem
    return 1 + fold_steps + 2 * l, n + fold_xfers + p2 * l + p2


# name -> (collective, split(N, params), steps(N, params), transfers(N, params),
#          requirement(N) or None, root-independent counts?, default params)
ALGS = {
    "hierarchical_allgather": ("allgather", lambda n, p: 1,
                               lambda n, p: max(p["A"] - 1, 1) + n // p["A"] - 1,
                               lambda n, p: n * (p["A"] + n // p["A"] - 1),
                               lambda n, p: n % p["A"] == 0, True, {"A": 2}),
    "pat_allgather": ("allgather", lambda n, p: 1,
                      lambda n, p: 1 + 3 * pat_counts(n, p["R"])[1],
                      lambda n, p: n + 2 * n * (n - 1) + n * pat_counts(n, p["R"])[1],
                      None, True, {"R": lambda n: n}),
    "ring_allgather": ("allgather", lambda n, p: 1,
                       lambda n, p: max(n - 1, 1), lambda n, p: n * n, None, True, {}),
    "bidir_ring_allgather": ("allgather", lambda n, p: 1,
                             lambda n, p: max(n // 2, 1), lambda n, p: n * n, None, True, {}),
    "recursive_doubling_allgather": ("allgather", lambda n, p: 1,
                                     lambda n, p: max(log2(n), 1),
                                     lambda n, p: n * (log2(n) + 1), pow2, True, {}),
    "sccl_bulk_ring_allgather": ("allgather", lambda n, p: p["B"],
                                 lambda n, p: 1 if n == 1 else n + p["B"] - 2,
                                 lambda n, p: 1 if n == 1 else p["B"] * n * n,
                                 None, True, {"B": 2}),
    "bidir_bulk_allgather": ("allgather", lambda n, p: p["B"],
                             lambda n, p: max(n // 2, 1),
                             lambda n, p: n * (1 + 2 * ((n - 1) // 2)
                                               + (1 + (p["B"] >= 2) if n % 2 == 0 else 0)),
                             None, True, {"B": 2}),
    "bruck_allgather": ("allgather", lambda n, p: 1,
                        lambda n, p: max(clog2(n), 1), lambda n, p: bruck_xfers(n),
                        None, True, {}),
    "pat_reduce_scatter": ("reduce_scatter", lambda n, p: 1,
                           lambda n, p: 2 + 3 * pat_counts(n, p["R"])[1],
                           lambda n, p: 2 * n + 2 * n * (n - 1) + n * pat_counts(n, p["R"])[1],
                           None, True, {"R": lambda n: n}),
    "ring_reduce_scatter": ("reduce_scatter", lambda n, p: 1,
                            lambda n, p: n, lambda n, p: n * (n + 1), None, True, {}),
    "bidir_ring_reduce_scatter": ("reduce_scatter", lambda n, p: 2 * p["B"],
                                  lambda n, p: n, lambda n, p: 2 * n + 2 * p["B"] * n * (n - 1),
                                  None, True, {"B": 1}),
    "recursive_halving_reduce_scatter": ("reduce_scatter", lambda n, p: 1,
                                         lambda n, p: log2(n) + 1,
                                         lambda n, p: 3 * n * log2(n) - 2 * n + 4,
                                         pow2, True, {}),
    "pairwise_reduce_scatter": ("reduce_scatter", lambda n, p: 1,
                                lambda n, p: n, lambda n, p: n * n, None, True, {}),
    "direct_reduce_scatter": ("reduce_scatter", lambda n, p: 1,
                              lambda n, p: 1 if n == 1 else 2, lambda n, p: n * n, None, True, {}),
    "ring_allreduce": ("allreduce", lambda n, p: n,
                       lambda n, p: 2 * n - 1, lambda n, p: n * (2 * n - 1), None, True, {}),
    "bidir_ring_allreduce": ("allreduce", lambda n, p: 2 * n * p["B"],
                             lambda n, p: 2 * n - 1, lambda n, p: n + 4 * p["B"] * n * (n - 1),
                             None, True, {"B": 1}),
    "two_ring_peer_allreduce": ("allreduce", lambda n, p: 2 * n,
                                lambda n, p: n + 1, lambda n, p: n * (2 * n - 1),
                                lambda n: n % 2 == 0, True, {}),
    "rabenseifner_allreduce": ("allreduce", lambda n, p: n,
                               lambda n, p: 2 * log2(n) + 1,
                               lambda n, p: n * (2 * log2(n) + 1), pow2, True, {}),
    "rabenseifner_doubling_allreduce": ("allreduce", lambda n, p: n,
                                        lambda n, p: 2 * log2(n) + 1,
                                        lambda n, p: n * (2 * log2(n) + 1), pow2, True, {}),
    "rabenseifner_fold_allreduce": ("allreduce", lambda n, p: 1 << log2(n),
                                    lambda n, p: 2 * log2(n) + 1 + (0 if pow2(n) else 2),
                                    lambda n, p: n + 2 * (1 << log2(n)) * log2(n)
                                    + 2 * (n - (1 << log2(n))), None, True, {}),
    "hierarchical_allreduce": ("allreduce", lambda n, p: n,
                               lambda n, p: 2 * p["A"] + 2 * (n // p["A"]) - 3,
                               lambda n, p: 2 * n * (p["A"] + n // p["A"] - 1),
                               lambda n, p: n % p["A"] == 0, True, {"A": 2}),
    "torus_2d_allreduce": ("allreduce", lambda n, p: n,
                           lambda n, p: 2 * p["A"] + 2 * (n // p["A"]) - 2,
                           lambda n, p: n * (2 * p["A"] + 2 * (n // p["A"]) - 1),
                           lambda n, p: n % p["A"] == 0, True, {"A": 2}),
    "swing_allreduce": ("allreduce",
                        lambda n, p: 1 if p["latency"] else swing_counts(n)[0],
                        lambda n, p: 1 + 2 * swing_counts(n)[1] + 2 * (swing_counts(n)[2] > 0),
                        lambda n, p: n + 2 * swing_counts(n)[2]
                        + (2 * swing_counts(n)[1] * swing_counts(n)[0] if p["latency"]
                           else 2 * swing_counts(n)[0] * (swing_counts(n)[0] - 1)),
                        None, True, {"latency": 0}),
    "two_tree_allreduce": ("allreduce", lambda n, p: 2 * p["K"],
                           lambda n, p: 1 if n == 1 else 1 + 2 * (log2(n) + p["K"] - 1),
                           lambda n, p: n + 4 * p["K"] * (n - 1), None, True, {"K": 4}),
    "reduce_broadcast_allreduce": ("allreduce", lambda n, p: 1,
                                   lambda n, p: 2 * clog2(n) + 1, lambda n, p: 3 * n - 2,
                                   None, True, {}),
    "recursive_doubling_allreduce": ("allreduce", lambda n, p: 1,
                                     lambda n, p: max(2 * log2(n), 1),
                                     lambda n, p: n * (2 * log2(n) + 1), pow2, True, {}),
    "binomial_broadcast": ("broadcast", lambda n, p: 1,
                           lambda n, p: max(clog2(n), 1), lambda n, p: n, None, True, {}),
    "binomial_halving_broadcast": ("broadcast", lambda n, p: 1,
                           lambda n, p: max(clog2(n), 1), lambda n, p: n, None, True, {}),
    "knomial_broadcast": ("broadcast", lambda n, p: 1,
                          lambda n, p: max(clogk(p["K"], n), 1), lambda n, p: n, None, True,
                          {"K": 4}),
    "pipelined_ring_broadcast": ("broadcast", lambda n, p: p["K"],
                                 lambda n, p: 1 if n == 1 else n + p["K"] - 2,
                                 lambda n, p: 1 if n == 1 else (n - 1) * p["K"] + 1,
                                 None, True, {"K": 4}),
    "scatter_allgather_broadcast": ("broadcast", lambda n, p: n,
                                    lambda n, p: max(clog2(n) + n - 1, 1),
                                    lambda n, p: n * n, None, True, {}),
    "binomial_scatter": ("scatter", lambda n, p: 1,
                         lambda n, p: max(clog2(n), 1), lambda n, p: tree_sg_xfers(n),
                         None, False, {}),
    "pipelined_chain_reduce": ("reduce", lambda n, p: p["K"],
                               lambda n, p: 1 if n == 1 else n + p["K"] - 1,
                               lambda n, p: 1 if n == 1 else (n - 1) * p["K"] + n,
                               None, True, {"K": 8}),
    "linear_broadcast": ("broadcast", lambda n, p: 1,
                         lambda n, p: 1, lambda n, p: n, None, True, {}),
    "linear_scatter": ("scatter", lambda n, p: 1,
                       lambda n, p: 1, lambda n, p: n, None, True, {}),
    "binomial_gather": ("gather", lambda n, p: 1,
                        lambda n, p: max(clog2(n), 1), lambda n, p: tree_sg_xfers(n),
                        None, False, {}),
    "linear_gather": ("gather", lambda n, p: 1,
                      lambda n, p: 1, lambda n, p: n, None, True, {}),
    "linear_reduce": ("reduce", lambda n, p: 1,
                      lambda n, p: 1 if n == 1 else 2, lambda n, p: n, None, True, {}),
    "binomial_reduce": ("reduce", lambda n, p: 1,
                        lambda n, p: clog2(n) + 1, lambda n, p: 2 * n - 1, None, True, {}),
    "knomial_reduce": ("reduce", lambda n, p: 1,
                       lambda n, p: clogk(p["K"], n) + 1, lambda n, p: 2 * n - 1, None, True,
                       {"K": 4}),
    "rabenseifner_reduce": ("reduce", lambda n, p: n,
                            lambda n, p: 2 * log2(n) + 1,
                            lambda n, p: 1 if n == 1 else n * (log2(n) + 2), pow2, True, {}),
    "rabenseifner_doubling_reduce": ("reduce", lambda n, p: 1 << log2(n),
                                     lambda n, p: rab_reduce_counts(n, p["whole_fold"])[0],
                                     lambda n, p: rab_reduce_counts(n, p["whole_fold"])[1],
                                     None, False, {"whole_fold": 0}),
    "rabenseifner_doubling_whole_fold_reduce": ("reduce", lambda n, p: 1 << log2(n),
                                                lambda n, p: rab_reduce_counts(n, 1)[0],
                                                lambda n, p: rab_reduce_counts(n, 1)[1],
                                                None, False, {}),
    "pairwise_alltoall": ("alltoall", lambda n, p: 1,
                          lambda n, p: max(n - 1, 1), lambda n, p: n * n, None, True, {}),
    "xor_pairwise_alltoall": ("alltoall", lambda n, p: 1,
                              lambda n, p: max(n - 1, 1), lambda n, p: n * n, pow2, True, {}),
    "bruck_alltoall": ("alltoall", lambda n, p: 1,
                       lambda n, p: clog2(n) + 2, lambda n, p: bruck_a2a_xfers(n),
                       None, True, {}),
    "direct_alltoall": ("alltoall", lambda n, p: 1,
                        lambda n, p: 1, lambda n, p: n * n, None, True, {}),
    "direct_allgather": ("allgather", lambda n, p: 1,
                         lambda n, p: 1, lambda n, p: n * n, None, True, {}),
}

# Extra -D runs: (name, params, Ns)
DEFINES = [
    ("sccl_bulk_ring_allgather", {"B": 1}, [2, 4, 7]),
    ("sccl_bulk_ring_allgather", {"B": 4}, [1, 2, 4, 5, 8]),
    ("bidir_bulk_allgather", {"B": 1}, [2, 4, 7, 8]),
    ("bidir_bulk_allgather", {"B": 5}, [3, 6]),
    ("bidir_ring_allreduce", {"B": 4}, [1, 2, 5]),
    ("bidir_ring_reduce_scatter", {"B": 3}, [1, 4, 7]),
    ("pipelined_ring_broadcast", {"K": 1}, [1, 2, 5]),
    ("pipelined_ring_broadcast", {"K": 16}, [2, 8, 13]),
    ("hierarchical_allreduce", {"A": 1}, [1, 3, 5]),
    ("rabenseifner_doubling_reduce", {"whole_fold": 1}, [2, 3, 6, 7, 8]),
    ("hierarchical_allreduce", {"A": 3}, [3, 9, 12]),
    ("hierarchical_allreduce", {"A": 4}, [4, 8, 16]),
    ("torus_2d_allreduce", {"A": 1}, [1, 3]),
    ("torus_2d_allreduce", {"A": 3}, [6, 9, 12]),
    ("torus_2d_allreduce", {"A": 4}, [4, 16]),
    ("hierarchical_allgather", {"A": 1}, [1, 3]),
    ("hierarchical_allgather", {"A": 3}, [3, 9, 12]),
    ("hierarchical_allgather", {"A": 4}, [8, 16]),
    ("pat_allgather", {"R": 1}, [2, 5, 9]),
    ("pat_allgather", {"R": 3}, [7, 12, 16]),
    ("pat_reduce_scatter", {"R": 1}, [2, 5, 9]),
    ("pat_reduce_scatter", {"R": 2}, [7, 12, 16]),
    ("swing_allreduce", {"latency": 1}, [1, 2, 5, 8, 12]),
    ("two_tree_allreduce", {"K": 1}, [2, 5, 9]),
    ("two_tree_allreduce", {"K": 7}, [3, 8, 13]),
    ("knomial_broadcast", {"K": 2}, [5, 8, 9]),
    ("knomial_broadcast", {"K": 7}, [7, 8, 50]),
    ("knomial_reduce", {"K": 2}, [5, 8, 9]),
    ("knomial_reduce", {"K": 3}, [9, 10, 28]),
]

ROOTED = {"broadcast", "scatter", "gather", "reduce"}


def plural(k, word):
    return "%d %s%s" % (k, word, "" if k == 1 else "s")


def require_pos(name):
    """(line, column, message) of the first `require` in the example, or of
    the first `call` on rows(A) or cols(A) (whose group requires A >= 1
    dividing N)."""
    with open(os.path.join(EXAMPLES, name + ".coll"), encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            m = re.match(r'^(\s*)require .*"(.*)";', line)
            if m:
                return i, len(m.group(1)) + 1, m.group(2)
            m = re.match(r'^(\s*)call .* on ((?:rows|cols)\((\w+)\))', line)
            if m:
                return (i, len(m.group(1)) + 1,
                        "%s needs %s >= 1 and N a multiple of it" % (m.group(2), m.group(3)))
    raise SystemExit("no require in " + name)


def gen(name):
    coll, split, steps, xfers, req, root_free, params = ALGS[name]
    out = []
    out.append("# Generated by gen_expand_tests.py from the formulas in the header of")
    out.append("# dsl-examples/%s.coll; do not edit, re-run the generator." % name)
    out.append("#")
    out.append("# Exact step and transfer counts of `collc expand` for N = 1..16%s."
               % (" (root 0 and root N-1)" if coll in ROOTED and root_free else
                  " (root 0)" if coll in ROOTED else ""))
    if req:
        out.append("# N that the `require` excludes: the exact 'does not apply' diagnostic.")
    runs = [(params, n) for n in NS]
    for dname, dparams, dns in DEFINES:
        if dname == name:
            runs += [(dict(params, **dparams), n) for n in dns]
    rl = require_pos(name) if req else None
    for p, n in runs:
        # a default may depend on N (a callable of N): its value for this N
        base = {k: v(n) if callable(v) else v for k, v in params.items()}
        p = {k: v(n) if callable(v) else v for k, v in p.items()}
        defs = "".join(" -D %s=%d" % (k, v) for k, v in p.items() if v != base[k])
        tag = "N%d" % n + "".join("%s%d" % (k, v) for k, v in p.items() if v != base[k])
        roots = [0]
        if coll in ROOTED and root_free and n > 1:
            roots.append(n - 1)
        out.append("")
        # a requirement of N alone, or of N and the params
        if req and not (req(n, p) if req.__code__.co_argcount == 2 else req(n)):
            line, col, msg = rl
            out.append("RUN: not %%collc expand %%examples/%s.coll -N %d%s 2>&1 | FileCheck %%s --check-prefix=%s"
                       % (name, n, defs, tag))
            out.append("%s: %s.coll:%d:%d: error: '%s' does not apply for N = %d: %s [require-failed]"
                       % (tag, name, line, col, name, n, msg))
            continue
        for root in roots:
            rtag = tag + ("R%d" % root if coll in ROOTED else "")
            ropt = " --root %d" % root if coll in ROOTED else ""
            out.append("RUN: %%collc expand %%examples/%s.coll -N %d%s%s | FileCheck %%s --match-full-lines --check-prefix=%s"
                       % (name, n, ropt, defs, rtag))
            hdr = "schedule %s : %s N=%d%s split=%d" % (name, coll, n,
                                                        " root=%d" % root if coll in ROOTED else "",
                                                        split(n, p))
            out.append("%s: %s" % (rtag, hdr))
            if p:
                out.append("%s-NEXT: params %s" % (rtag, " ".join("%s=%d" % kv for kv in p.items())))
            out.append("%s: total %s, %s" % (rtag, plural(steps(n, p), "step"),
                                             plural(xfers(n, p), "transfer")))
    return "\n".join(out) + "\n"


def main():
    """Writes the tests; with --check, only compares them with what is in the
    tree and exits 1 when one is missing or stale (used by headers.test)."""
    check = "--check" in sys.argv[1:]
    names = sorted(f[:-5] for f in os.listdir(EXAMPLES) if f.endswith(".coll"))
    missing = [n for n in names if n not in ALGS]
    if missing:
        raise SystemExit("no formula for: " + ", ".join(missing))
    stale = []
    for name in names:
        path = os.path.join(HERE, "expand-%s.test" % name.replace("_", "-"))
        text = gen(name)
        if check:
            try:
                with open(path, encoding="utf-8") as f:
                    if f.read() == text:
                        continue
            except OSError:
                pass
            stale.append(os.path.basename(path))
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    if stale:
        print("stale or missing (re-run tests/examples/gen_expand_tests.py): " + ", ".join(stale))
        sys.exit(1)


if __name__ == "__main__":
    main()
