"""Writes an MSCCL-IR ring AllReduce of the size of the public ones: N GPUs,
C channels, two rings (one each way) per channel, each over its own N
chunks: 2*C thread blocks per GPU of 2N-1 steps each.

usage: gen_ring.py N C > FILE.xml
"""
import sys

N, C = int(sys.argv[1]), int(sys.argv[2])
out = [f'<algo name="ring_allreduce_{N}x{C}" proto="Simple" nchannels="{C}" '
       f'nchunksperloop="{N * C * 2}" ngpus="{N}" coll="allreduce" inplace="0" outofplace="1" '
       f'minBytes="0" maxBytes="0">']
for r in range(N):
    out.append(f'  <gpu id="{r}" i_chunks="{N * C * 2}" o_chunks="{N * C * 2}" s_chunks="0">')
    tb = 0
    for c in range(C):
        for d in (1, -1):
            base = (c * 2 + (d < 0)) * N
            out.append(f'    <tb id="{tb}" send="{(r + d) % N}" recv="{(r - d) % N}" chan="{c}">')
            tb += 1
            steps = [("s", "i", base + r, "o", base + r)]
            for k in range(1, N):
                x = base + (r - d * k) % N
                steps.append(("rrcs", "i", x, "o", x))
            for k in range(N, 2 * N - 2):
                x = base + (r - d * k) % N
                steps.append(("rcs", "o", x, "o", x))
            x = base + (r - d * (2 * N - 2)) % N
            steps.append(("r", "o", x, "o", x))
            for s, (t, sb, so, db, do) in enumerate(steps):
                out.append(f'      <step s="{s}" type="{t}" srcbuf="{sb}" srcoff="{so}" dstbuf="{db}" '
                           f'dstoff="{do}" cnt="1" depid="-1" deps="-1" hasdep="0"/>')
            out.append("    </tb>")
    out.append("  </gpu>")
out.append("</algo>")
print("\n".join(out))
