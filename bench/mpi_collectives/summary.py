#!/usr/bin/env python3
"""summary.py RUN_OUTPUT...: the table of bench/mpi_collectives/run.sh, reduced
to one markdown row per (MPI, N, collective): in each size column the best
collc algorithm's median busbw ratio (ours / native), and after it the range
of the "(native again)" noise column over the row. Given several runs, each
cell is the median of the runs' cells (a run in which the library's own
collective happens to be slow lifts every ratio of that run), and the noise
range is over all of them. Cells under the target
(< 0.90 from 256 KiB, 1.0 less 10 % noise; < 0.67 below) are marked with
'*', cells in [0.90, 1.0) from 256 KiB with '~'. Results: bench/RESULTS.md.

    sh bench/mpi_collectives/run.sh build 7 > run.txt
    python3 bench/mpi_collectives/summary.py run.txt
"""
import re
import sys
from statistics import median


def read(path):
    """[(MPI, N, collective)] in order, and per key [(label, bytes, noise, best)]."""
    order, rows, impl, n = [], {}, "?", "?"
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
            rows[key] = []
            continue
        m = re.match(r"^(\d+)(KiB|MiB)\s+([\d.]+)\s+(.*)", line)
        if m and order:
            vals = [float(x) for x in re.findall(r"([\d.]+) \(", m.group(4))]
            if len(vals) < 2:
                continue
            size = int(m.group(1)) * (1024 if m.group(2) == "KiB" else 1 << 20)
            rows[order[-1]].append((m.group(1) + m.group(2)[0], size, vals[0], max(vals[1:])))
    if not order:
        sys.exit("no table in " + path)
    return order, rows


def main(paths):
    runs = [read(p) for p in paths]
    order = runs[0][0]
    rows = {}
    for key in order:
        if any(key not in r for _, r in runs) or len({len(r[key]) for _, r in runs}) != 1:
            sys.exit(f"the runs differ in {key}: not runs of one table")
        cells = zip(*(r[key] for _, r in runs))
        rows[key] = [(c[0][0], c[0][1], [x[2] for x in c], median([x[3] for x in c])) for c in cells]
    sizes = [s for s, _, _, _ in rows[order[0]]]
    print("| MPI | N | collective | " + " | ".join(sizes) + " | noise |")
    print("|---|---|---|" + "---|" * (len(sizes) + 1))
    below = near = 0
    for key in order:
        cells = []
        for _, size, _, best in rows[key]:
            big = size >= 256 * 1024
            low = best < (0.90 if big else 0.67)
            close = big and not low and best < 1.0
            below += low
            near += close
            cells.append(f"{best:.2f}{'*' if low else '~' if close else ''}")
        noise = [x for _, _, xs, _ in rows[key] for x in xs]
        print(f"| {key[0]} | {key[1]} | {key[2]} | " + " | ".join(cells) +
              f" | {min(noise):.2f}–{max(noise):.2f} |")
    print(f"\n{below} cells under target (*), {near} within 10 % under 1.0 (~)")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: summary.py RUN_OUTPUT...")
    main(sys.argv[1:])
