#!/usr/bin/env python3
"""`collc synth` on topologies of synth_bench's seeded random family.

synth_bench --random COUNT --seed S --write DIR writes DIR/randSEED.coll and
prints `SEED N` per topology (SEEDS, this script's input). For every one,
every collective synth makes is synthesized with the bench's arguments
(--root SEED mod N), and its output must pass `collc verify` at that N and
be priced by `collc cost` exactly as its header says. Prints one line per
AllGather and ReduceScatter: whether its bandwidth term equals the bound of
its header; exits 1 on any failure.

usage: bench_family.py COLLC DIR SEEDS"""
import json
import re
import subprocess
import sys
from fractions import Fraction

from cost_terms import terms

collc, tmp, seeds = sys.argv[1], sys.argv[2], sys.argv[3]
COLLS = ["allgather", "reduce_scatter", "allreduce", "broadcast", "reduce"]


failed = 0
for line in open(seeds):
    seed, n = (int(x) for x in line.split())
    topo = "%s/rand%d.coll" % (tmp, seed)
    root = ["--root", str(seed % n)]
    for coll in COLLS:
        out = "%s/rand%d_%s.coll" % (tmp, seed, coll)
        rooted = root if coll in ("broadcast", "reduce") else []
        why = None
        p = subprocess.run([collc, "synth", coll, topo, "--topo", "rand", "-N", str(n), "-o", out] + root,
                           capture_output=True, text=True)
        if p.returncode != 0:
            why = "synth failed: " + p.stderr.strip()
        else:
            text = open(out).read()
            cost = terms(re.search(r"^// Cost on .*: T = (.*)$", text, re.M).group(1))
            bound = terms(re.search(r"^// Lower bound \(collc cost\): (.*)$", text, re.M).group(1))
            v = subprocess.run([collc, "verify", out, "-N", str(n)] + rooted, capture_output=True, text=True)
            c = subprocess.run([collc, "cost", out, topo, "--topo", "rand", "-N", str(n), "--format=json"] + rooted,
                               capture_output=True, text=True)
            if v.returncode != 0:
                why = "does not verify: " + v.stdout + v.stderr
            elif c.returncode != 0:
                why = "cost failed: " + c.stderr
            else:
                j = json.loads(c.stdout)
                priced = tuple(Fraction(j["terms"][k]["exact"] or 0) for k in ("alpha", "beta", "gamma"))
                if priced != cost:
                    why = "header says %s, collc cost says %s" % (cost, priced)
                elif cost[1] < bound[1]:
                    why = "below the bound"
        if why:
            failed += 1
            print("seed %d N=%d %s: FAILED %s" % (seed, n, coll, why))
        elif coll in ("allgather", "reduce_scatter"):
            print("seed %d N=%d %s: %s" % (seed, n, coll,
                                           "at the bound" if cost[1] == bound[1] else "above the bound"))
print("%s" % ("all verified" if not failed else "%d failed" % failed))
sys.exit(1 if failed else 0)
