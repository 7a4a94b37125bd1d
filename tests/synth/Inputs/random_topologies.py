#!/usr/bin/env python3
"""Property test of `collc synth` on random connected topologies.

For SEED .. SEED+COUNT-1: a random connected topology of 4..16 ranks (a
random spanning tree plus extra links, some of them parallel, slower or
faster, some one-way, and sometimes a switch node the ranks hang off), then
for every collective synth makes: the schedule synth writes must pass
`collc verify` at its N, `collc cost` must price it exactly as its header
says, and never below the lower bound. Prints one line per case with the
ratio of the bandwidth term to its bound, and a summary; exits 1 on any
failure.

usage: random_topologies.py COLLC TMPDIR SEED COUNT"""
import os
import random
import re
import subprocess
import sys
from fractions import Fraction

from cost_terms import terms

collc, tmp, seed0, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
os.makedirs(tmp, exist_ok=True)
COLLS = ["allgather", "reduce_scatter", "allreduce", "broadcast", "reduce"]


def topology(rng, n):
    """A `topology rand` block for n ranks, connected in both directions."""
    links = []
    switch = rng.random() < 0.25
    nodes = n + (1 if switch else 0)
    order = list(range(n))
    rng.shuffle(order)
    for i in range(1, n):
        a, b = order[i], order[rng.randrange(i)]
        if switch and rng.random() < 0.5:
            links.append("link %d <-> %d;" % (a, n))
            links.append("link %d <-> %d;" % (b, n))
        else:
            links.append("link %d <-> %d;" % (a, b))
    for _ in range(rng.randrange(n)):
        a, b = rng.sample(range(n), 2)
        attrs = rng.choice(["", " [beta = 2]", " [beta = 0.5]", " [alpha = 2]"])
        arrow = rng.choice(["<->", "<->", "->"])
        links.append("link %d %s %d%s;" % (a, arrow, b, attrs))
    body = "\n    ".join(links)
    return "topology rand {\n    nodes %d;\n    %s\n}\n" % (nodes, body)


def frac(text):
    return Fraction(text) if text else Fraction(0)


cases = failed = 0
worst = Fraction(1)
hist = {}
for seed in range(seed0, seed0 + count):
    rng = random.Random(seed)
    n = rng.randint(4, 16)
    topo = os.path.join(tmp, "rand%d.coll" % seed)
    with open(topo, "w") as f:
        f.write(topology(rng, n))
    for coll in COLLS:
        cases += 1
        out = os.path.join(tmp, "rand%d_%s.coll" % (seed, coll))
        root = rng.randrange(n)
        args = [collc, "synth", coll, topo, "--topo", "rand", "-N", str(n), "-o", out]
        if coll in ("broadcast", "reduce"):
            args += ["--root", str(root)]
        p = subprocess.run(args, capture_output=True, text=True)
        why = None
        if p.returncode != 0:
            why = "synth failed: " + p.stderr.strip()
        else:
            text = open(out).read()
            cost = re.search(r"^// Cost on .*: T = (.*)$", text, re.M).group(1)
            bound = re.search(r"^// Lower bound \(collc cost\): (.*)$", text, re.M).group(1)
            v = subprocess.run([collc, "verify", out, "-N", str(n)] +
                               (["--root", str(root)] if coll in ("broadcast", "reduce") else []),
                               capture_output=True, text=True)
            c = subprocess.run([collc, "cost", out, topo, "--topo", "rand", "-N", str(n),
                                "--format=json"] + (["--root", str(root)] if coll in ("broadcast", "reduce") else []),
                               capture_output=True, text=True)
            a, b, g = terms(cost)
            la, lb, lg = terms(bound)
            if v.returncode != 0:
                why = "does not verify: " + v.stdout + v.stderr
            elif c.returncode != 0:
                why = "cost failed: " + c.stderr
            else:
                import json
                j = json.loads(c.stdout)
                priced = tuple(frac(j["terms"][k]["exact"]) for k in ("alpha", "beta", "gamma"))
                if priced != (a, b, g):
                    why = "header says %s, collc cost says %s" % (cost, priced)
                elif b < lb or g < lg:
                    why = "below the bound: %s < %s" % (cost, bound)
                else:
                    r = b / lb if lb else Fraction(1)
                    worst = max(worst, r)
                    bucket = "1" if r == 1 else "<=9/8" if r <= Fraction(9, 8) else "<=5/4" if r <= Fraction(5, 4) \
                        else "<=3/2" if r <= Fraction(3, 2) else "<=2" if r <= 2 else ">2"
                    hist[bucket] = hist.get(bucket, 0) + 1
                    print("seed %d N=%d %s: bandwidth %s, bound %s, ratio %s" % (seed, n, coll, b, lb, r))
        if why:
            failed += 1
            print("seed %d N=%d %s: FAILED %s" % (seed, n, coll, why))
order = ["1", "<=9/8", "<=5/4", "<=3/2", "<=2", ">2"]
print("bandwidth / bound: " + ", ".join("%s: %d" % (k, hist.get(k, 0)) for k in order))
print("summary: %d cases, %d failed, worst ratio %s" % (cases, failed, worst))
sys.exit(1 if failed else 0)
