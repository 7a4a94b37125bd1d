"""Round trip through MSCCL-IR: every example of a collective the MSCCL
executor runs (allreduce, allgather, reduce_scatter, broadcast, alltoall)
compiled with --target=msccl for each N, read back, verified (compile does
both), and its schedule compared with the source's: the same transfers (op, source,
destination), each in the same step, one line per (example, N): `ok` when
every transfer is in its source step, `steps` (with how many are in a later
and an earlier step) when the transfers are the source's but not all in
their steps, `FAIL` otherwise.

usage: roundtrip.py COLLC EXAMPLES_DIR OUT_DIR N...
"""
import os
import re
import subprocess
import sys

COLLS = {"allreduce", "allgather", "reduce_scatter", "broadcast", "alltoall"}


def transfers(collc, path, n):
    """The sorted (step, op, source, destination) of `collc expand`, with
    scratch buffers named as
    one buffer `scratch` (their chunks one after the other, as the MSCCL
    writer lays them out) and a send's buffered copy through `fifo` folded
    back into the transfer that takes it."""
    out = subprocess.run([collc, "expand", path, "-N", str(n)], capture_output=True, text=True)
    if out.returncode:
        return None, out.stderr
    base, at, step = {}, 0, 0
    xs, fifo = [], {}
    for line in out.stdout.splitlines():
        m = re.match(r"buffer (\S+) (\d+)$", line)
        if m and m.group(1) not in ("in", "out", "fifo"):
            base[m.group(1)] = at
            at += int(m.group(2))
        m = re.match(r"step (\d+) ", line)
        if m:
            step = int(m.group(1))
        m = re.match(r"\s+(copy|reduce)\s+(\S+) -> (\S+)$", line)
        if m:
            xs.append((step,) + m.groups())

    def norm(ref):
        m = re.match(r"([^\[]+)\[(\d+)\]\[(\d+)(?:\.\.(\d+))?\]$", ref)
        name, rank, lo = m.group(1), m.group(2), int(m.group(3))
        hi = int(m.group(4)) if m.group(4) else lo + 1
        if name in base:
            lo, hi, name = lo + base[name], hi + base[name], "scratch"
        return (name, rank, lo, hi)

    res = []
    for step, op, src, dst in xs:
        s, d = norm(src), norm(dst)
        if d[0] == "fifo":
            fifo[d] = s
            continue
        res.append((step, op, fifo.get(s, s), d))
    return sorted(res), ""


def main():
    collc, examples, outdir = sys.argv[1:4]
    ns = [int(n) for n in sys.argv[4:]]
    bad = faithful = moved = 0
    for name in sorted(os.listdir(examples)):
        if not name.endswith(".coll"):
            continue
        path = os.path.join(examples, name)
        text = open(path).read()
        m = re.search(r"^algorithm\s+(\w+)\s*:\s*(\w+)", text, re.M)
        if not m or m.group(2) not in COLLS:
            continue
        for n in ns:
            xml = os.path.join(outdir, "%s-%d.xml" % (m.group(1), n))
            r = subprocess.run([collc, "compile", "--target=msccl", "-N", str(n), path, "-o", xml],
                               capture_output=True, text=True)
            if r.returncode:
                if "require-failed" in r.stderr:
                    print("skip %s N=%d (does not apply)" % (m.group(1), n))
                    continue
                print("FAIL %s N=%d: compile: %s" % (m.group(1), n, r.stderr.strip()[:2000]))
                bad += 1
                continue
            a, err_a = transfers(collc, path, n)
            b, err_b = transfers(collc, xml, n)
            if a is None or b is None:
                print("FAIL %s N=%d: expand: %s%s" % (m.group(1), n, err_a, err_b))
                bad += 1
                continue
            ta, tb = sorted(x[1:] for x in a), sorted(x[1:] for x in b)
            if ta != tb:
                extra = sorted(set(tb) - set(ta))[:3]
                missing = sorted(set(ta) - set(tb))[:3]
                print("FAIL %s N=%d: transfers differ: %d vs %d; read back only %s; source only %s"
                      % (m.group(1), n, len(ta), len(tb), extra, missing))
                bad += 1
            elif a != b:
                # the same transfers (each once: the writer's transfers are
                # distinct) in other steps
                sa, sb = {x[1:]: x[0] for x in a}, {x[1:]: x[0] for x in b}
                later = sum(1 for x in sa if sb[x] > sa[x])
                earlier = sum(1 for x in sa if sb[x] < sa[x])
                print("steps %s N=%d: %d of %d transfers in a later step, %d in an earlier one"
                      % (m.group(1), n, later, len(a), earlier))
                moved += 1
            else:
                print("ok %s N=%d (%d transfers)" % (m.group(1), n, len(a)))
                faithful += 1
    print("%d in their steps, %d in other steps, %d failed" % (faithful, moved, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
