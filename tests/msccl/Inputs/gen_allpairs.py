"""Writes an MSCCL-IR all-pairs AllReduce of the shape of the public ones
(a reduce-scatter where every rank sends each peer its block, then an
allgather where it sends every peer its reduced block), for N GPUs over C
channels, in place or out of place.

Chunk c*N*N + r*N + k is sub-chunk k of rank r's block on channel c. On
channel c a rank has a local thread block (it reduces sub-chunk 0) and one
thread block per peer (the j-th peer's reduces sub-chunk j+1): it sends the
peer its block, receives the peer's copy of its own block into the peer's
slot of scratch, waits (nop steps) until every thread block of the channel
has received, reduces its sub-chunk from every slot, waits until every
sub-chunk is reduced, sends its reduced block and receives the peer's.
Out of place, the local thread block first copies the rank's block from i
to o and the reductions wait for it; in place i is the buffer.

usage: gen_allpairs.py N C inplace|outofplace > FILE.xml
"""
import sys

N, C, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
assert mode in ("inplace", "outofplace")
inplace = mode == "inplace"
X = "i" if inplace else "o"  # the buffer that is reduced into
P = N * N * C


def step(s, t, sb, so, db, do, cnt, depid=-1, deps=-1, hasdep=0):
    return (f'      <step s="{s}" type="{t}" srcbuf="{sb}" srcoff="{so}" dstbuf="{db}" '
            f'dstoff="{do}" cnt="{cnt}" depid="{depid}" deps="{deps}" hasdep="{hasdep}"/>')


def nop(s, depid, deps):
    return step(s, "nop", "i", -1, "o", -1, 0, depid, deps)


out = [f'<algo name="allpairs_allreduce_{N}x{C}" proto="Simple" nchannels="{C}" '
       f'nchunksperloop="{P}" ngpus="{N}" coll="allreduce" inplace="{int(inplace)}" '
       f'outofplace="{int(not inplace)}" minBytes="0" maxBytes="0">']
for r in range(N):
    peers = [p for p in range(N) if p != r]
    out.append(f'  <gpu id="{r}" i_chunks="{P}" o_chunks="{0 if inplace else P}" '
               f's_chunks="{(N - 1) * N * C}">')

    def tb_id(c, j):  # j = -1: the local thread block of channel c
        return c if j < 0 else C + j * C + c

    def block(c, q):
        return c * N * N + q * N

    def slot(c, j):
        return c * (N - 1) * N + j * N

    # the step of each thread block that ends its reductions
    last_re = {}
    for c in range(C):
        last_re[tb_id(c, -1)] = (1 if not inplace else 0) + (N - 2) + (N - 2)
        for j in range(N - 1):
            last_re[tb_id(c, j)] = 2 + (N - 2 if not inplace else N - 3) + (N - 2)
    tbs = {}  # id -> its lines, written in id order
    for c in range(C):
        # the local thread block
        lines = tbs[tb_id(c, -1)] = []
        lines.append(f'    <tb id="{tb_id(c, -1)}" send="-1" recv="-1" chan="{c}">')
        steps = []
        if not inplace:
            steps.append(("cpy", "i", block(c, r), "o", block(c, r), N, -1, -1, 1))
        for j in range(1, N - 1):
            steps.append(("nop", tb_id(c, j), 1))
        for j in range(N - 1):
            dep = (tb_id(c, 0), 1) if j == 0 else (-1, -1)
            steps.append(("re", "s", slot(c, j), X, block(c, r), 1, dep[0], dep[1], int(j == N - 2)))
        for s, st in enumerate(steps):
            lines.append(nop(s, st[1], st[2]) if st[0] == "nop" else step(s, *st))
        lines.append("    </tb>")
        # one thread block per peer
        for j, p in enumerate(peers):
            me = tb_id(c, j)
            others = [tb_id(c, k) for k in range(N - 1) if k != j]
            lines = tbs[me] = []
            lines.append(f'    <tb id="{me}" send="{p}" recv="{p}" chan="{c}">')
            steps = [("s", "i", block(c, p), "s", 0, N, -1, -1, 0),
                     ("r", "i", 0, "s", slot(c, j), N, -1, -1, 1)]
            waits = others if not inplace else others[1:]
            for t in waits:
                steps.append(("nop", t, 1))
            first = (tb_id(c, -1), 0) if not inplace else (others[0], 1)
            for k in range(N - 1):
                dep = first if k == 0 else (-1, -1)
                steps.append(("re", "s", slot(c, k) + j + 1, X, block(c, r) + j + 1, 1, dep[0], dep[1],
                              int(k == N - 2)))
            for t in others:
                steps.append(("nop", t, last_re[t]))
            steps.append(("s", X, block(c, r), X, block(c, r), N, tb_id(c, -1), last_re[tb_id(c, -1)], 0))
            steps.append(("r", X, block(c, p), X, block(c, p), N, -1, -1, 0))
            for s, st in enumerate(steps):
                lines.append(nop(s, st[1], st[2]) if st[0] == "nop" else step(s, *st))
            lines.append("    </tb>")
    for t in sorted(tbs):
        out.extend(tbs[t])
    out.append("  </gpu>")
out.append("</algo>")
print("\n".join(out))
