#!/usr/bin/env python3
"""summary.py WORKDIR ROUNDS - the NEW/OLD table of compare-revisions.sh.

Reads WORKDIR/{old,new}/cpu.R.txt (cpu_examples_bench) and mpi.R.txt
(mpi_bench_openmpi) for rounds 1..ROUNDS. For each example it takes, per
size, the median over rounds of each revision's measure (cpu: the median
time of the call; mpi: the collc time over the MPI library's time of the
same process, i.e. 1 / the bench's median cell), forms NEW/OLD, and prints
the geometric mean over sizes. "spread" is the same geometric mean formed
between OLD's own rounds (the first round against the others): how far two
runs of one revision are apart. A NEW/OLD ratio inside 1 +- spread is
noise; below 1 NEW is faster."""
import math
import re
import statistics
import sys


def parse_cpu(path):
    """{(example, size): median time in us}"""
    out, alg = {}, None
    with open(path) as f:
        for line in f:
            m = re.match(r"^(\S+) \((\w+)\)\s+memcpy", line)
            if m:
                alg = m.group(1)
                continue
            cols = line.split()
            if alg and len(cols) == 8 and cols[0].isdigit():
                out[(alg, int(cols[0]))] = float(cols[2])
    return out


def parse_mpi(path):
    """{(collective/algorithm, size): t(ours)/t(native), median}"""
    out, names, coll = {}, [], None
    cell = re.compile(r"(\d+\.\d+) \((\d+\.\d+)\)")
    try:
        f = open(path)
    except OSError:
        return out
    with f:
        for line in f:
            m = re.match(r"^## (\S+)", line)
            if m:
                coll = m.group(1)
                continue
            if line.startswith("size "):
                names = re.split(r"\s{2,}", line.strip())[2:]
                continue
            m = re.match(r"^(\d+)(KiB|MiB)\s", line)
            if m and coll:
                size = int(m.group(1)) << (10 if m.group(2) == "KiB" else 20)
                for name, c in zip(names, cell.findall(line)):
                    # a cell printed as 0.00 is too slow to resolve at two digits
                    if name != "(native again)" and float(c[0]) > 0:
                        out[(coll + "/" + name, size)] = 1.0 / float(c[0])
    return out


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def table(title, parse, work, rounds):
    runs = {side: [parse(f"{work}/{side}/{title}.{r}.txt") for r in range(1, rounds + 1)]
            for side in ("old", "new")}
    keys = sorted(set.intersection(*(set(r) for side in runs.values() for r in side)))
    # mpi rows whose name differs between the revisions are left out
    if not keys:
        print(f"\n{title}: no results")
        return
    algs = sorted({k[0] for k in keys})
    print(f"\n{title}: NEW/OLD (geometric mean over sizes; < 1: NEW faster)")
    print(f"{'example':44s} {'NEW/OLD':>8s} {'spread':>8s} {'sizes':>6s}")
    every, spreads = [], []
    for alg in algs:
        ks = [k for k in keys if k[0] == alg]
        med = {side: {k: statistics.median(r[k] for r in runs[side]) for k in ks} for side in runs}
        ratio = geomean([med["new"][k] / med["old"][k] for k in ks])
        if rounds > 1:
            first = runs["old"][0]
            rest = {k: statistics.median(r[k] for r in runs["old"][1:]) for k in ks}
            spread = abs(geomean([first[k] / rest[k] for k in ks]) - 1)
        else:
            spread = float("nan")
        every.append(ratio)
        spreads.append(spread)
        print(f"{alg:44s} {ratio:8.3f} {spread:8.3f} {len(ks):6d}")
    print(f"{'all examples':44s} {geomean(every):8.3f} {statistics.median(spreads):8.3f} {len(keys):6d}")


def main():
    if len(sys.argv) != 3:
        print("usage: summary.py WORKDIR ROUNDS", file=sys.stderr)
        sys.exit(2)
    work, rounds = sys.argv[1], int(sys.argv[2])
    table("cpu", parse_cpu, work, rounds)
    table("mpi", parse_mpi, work, rounds)


main()
