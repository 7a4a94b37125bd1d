#!/usr/bin/env python3
"""link_bytes.py PPN BYTES [DUMP] - the bytes an algorithm sends over the
nodes' network links, from its schedule (collc expand's dump,
docs/schedule-format.md, on standard input or in DUMP): ranks in blocks of
PPN per node, as on the emulated cluster; BYTES is the collective's message
size M (the larger per-rank buffer), so a chunk is M / the larger of the
in and out buffers' chunk counts. One line per algorithm of the dump:

  NAME link_B=TOTAL busiest_B=MAX

TOTAL is every byte that leaves a node (a transfer between ranks of two
nodes, counted once: it leaves one node's link and enters another's), MAX
the most bytes one node sends (its uplink's share of the work; the busiest
direction of the busiest link)."""
import re
import sys

REF = re.compile(r"([\w.]+)\[(\d+)\]\[(\d+)(?:\.\.(\d+))?\]")


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    ppn, size = int(sys.argv[1]), int(sys.argv[2])
    text = open(sys.argv[3]).read() if len(sys.argv) == 4 else sys.stdin.read()
    for block in text.strip().split("\n\n"):
        lines = block.splitlines()
        name = lines[0].split()[1]
        counts = {}
        for l in lines:
            w = l.split()
            if w[0] == "buffer" and w[1] in ("in", "out"):
                counts[w[1]] = max(int(v.split("=")[-1]) for v in w[2:])
        chunk = size / max(counts.values())
        total, sent = 0.0, {}
        for l in lines:
            w = l.split()
            if w[0] not in ("copy", "reduce"):
                continue
            src, dst = REF.fullmatch(w[1]), REF.fullmatch(w[3])
            s_node, d_node = int(src.group(2)) // ppn, int(dst.group(2)) // ppn
            if s_node == d_node:
                continue
            lo = int(src.group(3))
            hi = int(src.group(4)) if src.group(4) else lo + 1
            b = (hi - lo) * chunk
            total += b
            sent[s_node] = sent.get(s_node, 0) + b
        print(f"{name} link_B={total:.0f} busiest_B={max(sent.values(), default=0):.0f}")


if __name__ == "__main__":
    main()
