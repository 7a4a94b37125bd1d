#!/usr/bin/env python3
"""summary.py RUN_OUTPUT...: the table of bench/mpi_collectives/run.sh, reduced
to one markdown row per (MPI, N, collective): in each size column the best
collc algorithm's median busbw ratio (ours / native), and after it the range
of the "(native again)" noise column over the row. Given several runs, each
cell is the median of the runs' cells (a run in which the library's own
collective happens to be slow lifts every ratio of that run), and the noise
range is over all of them. Cells under the target (< 0.90: the library less
10 %) are marked with '*', cells in [0.90, 1.0) with '~'; '-' is a size the
collective cannot split at that N. Results: bench/RESULTS.md.

Tables of `mpi_bench -s ALG` (run.sh's served table: a "served" column)
reduce to the cost of the call served through libcollmpi.so over the same
algorithm called directly: t(served) / t(direct), median times of the same
rounds (<= 1.05 is the target).

    sh bench/mpi_collectives/run.sh build 7 > run.txt
    python3 bench/mpi_collectives/summary.py run.txt
"""
import re
import sys
from statistics import median

UNITS = {"B": 1, "KiB": 1024, "MiB": 1 << 20}


def label(size):
    for u, f in (("M", 1 << 20), ("K", 1024)):
        if size >= f:
            return f"{size // f}{u}"
    return f"{size}B"


def read(path):
    """[(MPI, N, collective)] in order; per key {bytes: (noise, best, served/direct)}."""
    order, rows, impl, n, cols = [], {}, "?", "?", []
    for line in open(path, encoding="utf-8"):
        m = re.match(r"# collc --target=mpi vs (.*?), N=(\d+)", line)
        if m:
            impl = "Open MPI" if m.group(1).startswith("Open") else m.group(1).split(",")[0]
            n = m.group(2)
            continue
        m = re.match(r"## (\S+)", line)
        if m:
            key = (impl, n, m.group(1))
            order.append(key)
            rows[key] = {}
            continue
        m = re.match(r"size\s+native GB/s\s+(.*)", line)
        if m:
            cols = re.split(r"\s{2,}", m.group(1).strip())
            if "served" in cols and order and len(order[-1]) == 3:
                key = order.pop()
                rows[key + ("served",)] = rows.pop(key)
                order.append(key + ("served",))
            continue
        m = re.match(r"^(\d+)(B|KiB|MiB)\s+([\d.]+)\s+(.*)", line)
        if m and order:
            vals = [float(x) for x in re.findall(r"([\d.]+) \(", m.group(4))]
            if len(vals) < 2 or len(vals) != len(cols):
                continue
            size = int(m.group(1)) * UNITS[m.group(2)]
            named = dict(zip(cols, vals))
            algs = [v for c, v in named.items() if c not in ("(native again)", "served")]
            sd = None
            if "served" in named and algs:
                sd = algs[0] / named["served"]   # t(served) / t(direct)
            rows[order[-1]][size] = (named.get("(native again)", 1.0), max(algs), sd)
    if not order:
        sys.exit("no table in " + path)
    return order, rows


def main(paths):
    runs = [read(p) for p in paths]
    order = runs[0][0]
    for key in order:
        if any(key not in r for _, r in runs):
            sys.exit(f"the runs differ in {key}: not runs of one table")
    plain = [k for k in order if len(k) == 3]
    served = [k for k in order if len(k) == 4]
    if plain:
        table(plain, runs, 1, "the best collc algorithm / the library (busbw)", mark=True)
    if served:
        table(served, runs, 2, "t(served through libcollmpi.so) / t(called directly)", mark=False)


def table(keys, runs, field, what, mark):
    sizes = sorted({s for k in keys for _, r in runs for s in r[k]})
    print(f"{what}\n")
    print("| MPI | N | collective | " + " | ".join(label(s) for s in sizes) + " | noise |")
    print("|---|---|---|" + "---|" * (len(sizes) + 1))
    below = near = 0
    for key in keys:
        cells, noise = [], []
        for size in sizes:
            got = [r[key][size] for _, r in runs if size in r[key]]
            if not got:
                cells.append("-")
                continue
            noise += [g[0] for g in got]
            v = median([g[field] for g in got])
            if not mark:
                cells.append(f"{v:.3f}")
                continue
            low, close = v < 0.90, 0.90 <= v < 1.0
            below += low
            near += close
            cells.append(f"{v:.2f}{'*' if low else '~' if close else ''}")
        rng = f"{min(noise):.2f}–{max(noise):.2f}" if noise else "-"
        print(f"| {key[0]} | {key[1]} | {key[2]} | " + " | ".join(cells) + f" | {rng} |")
    if mark:
        print(f"\n{below} cells under 0.90 (*), {near} in [0.90, 1.0) (~)")
    print()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: summary.py RUN_OUTPUT...")
    main(sys.argv[1:])
