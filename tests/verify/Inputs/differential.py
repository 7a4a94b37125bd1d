#!/usr/bin/env python3
"""Differential test of `collc verify` (tests/verify/differential.test).

Mutates the examples at random (an integer literal +-1, + <-> -, copy <->
reduce, a transfer deleted), and compares, for every N in 1..MAX_N (every
root of rooted collectives), the verdict of `collc verify` with that of an
independent reference: a plain simulation of the `collc expand` dump with
explicit multisets of contributions (no intervals, no sharing, no caches).
Exit status 1 and the mutant's source on the first disagreement.

usage: differential.py COLLC EXAMPLES_DIR WORKDIR SEED COUNT MAX_N [--defaults]

With --defaults the claim checked is the one a CI gate relies on: every
mutant that the reference finds wrong at some N is rejected by `collc
verify` with its default options (its own N set and param sweep, no -N);
a mutant the reference accepts at N <= MAX_N may still fail there (a bug at
a larger N or another param value).
"""
import glob
import os
import random
import re
import subprocess
import sys
from collections import Counter

COLLC = sys.argv[1]
NS = list(range(1, int(sys.argv[6]) + 1))
import re, sys
from collections import Counter

COLL = {  # name: (rooted, reducing)
 "broadcast": (1, 0), "scatter": (1, 0), "gather": (1, 0), "reduce": (1, 1),
 "allgather": (0, 0), "reduce_scatter": (0, 1), "allreduce": (0, 1), "alltoall": (0, 0)}

ref_re = re.compile(r"(\w+)\[(\d+)\]\[(\d+)(?:\.\.(\d+))?\]")

def parse(text):
    algs = []
    cur = None
    for line in text.split("\n"):
        if line.startswith("schedule "):
            m = re.match(r"schedule (\w+) : (\w+) N=(\d+)(?: root=(\d+))? split=(\d+)", line)
            cur = dict(name=m[1], coll=m[2], N=int(m[3]), root=int(m[4]) if m[4] else -1,
                       P=int(m[5]), bufs={}, order=[], steps=[])
            algs.append(cur)
        elif line.startswith("buffer "):
            parts = line.split()
            if len(parts) == 3:
                cur["bufs"][parts[1]] = (int(parts[2]), int(parts[2]))
            else:
                cur["bufs"][parts[1]] = (int(parts[2].split("=")[1]), int(parts[3].split("=")[1]))
            cur["order"].append(parts[1])
        elif line.startswith("step "):
            cur["steps"].append([])
        elif line.startswith("  copy") or line.startswith("  reduce"):
            op = line.split()[0]
            refs = ref_re.findall(line)
            def rng(r):
                lo = int(r[2]); hi = int(r[3]) if r[3] else lo + 1
                return (r[0], int(r[1]), lo, hi)
            cur["steps"][-1].append((op, rng(refs[0]), rng(refs[1])))
    return algs

def check(a):
    N, root, P = a["N"], a["root"], a["P"]
    rooted, reducing = COLL[a["coll"]]
    st = {}
    inr, ino = a["bufs"]["in"]
    for r in range(N):
        n = inr if r == root else ino
        for c in range(n):
            st[("in", r, c)] = (frozenset([c]), Counter({r: 1}))
    for step in a["steps"]:
        # reads see the state before the step; reduces into one slot
        # combine (a slot may take several reduces, or one copy)
        reads, copies, reduces = Counter(), Counter(), Counter()
        new = {}
        for op, s, d in step:
            if d[0] == "in":
                return "write-to-in"
            for i in range(s[3] - s[2]):
                ss = (s[0], s[1], s[2] + i); dd = (d[0], d[1], d[2] + i)
                reads[ss] += 1
                v = st.get(ss)
                if v is None: return "undefined"
                if op == "copy":
                    copies[dd] += 1
                    new[dd] = v
                else:
                    reduces[dd] += 1
                    w = new.get(dd, st.get(dd))
                    if w is None: return "undefined"
                    if v[0] != w[0] or len(v[0]) != 1: return "mixed"
                    if set(v[1]) & set(w[1]): return "double"
                    new[dd] = (v[0], v[1] + w[1])
        for slot in set(copies) | set(reduces):
            if copies[slot] > 1 or (copies[slot] and reduces[slot]) or reads[slot] > 0: return "race"
        st.update(new)
    outr, outo = a["bufs"]["out"]
    for r in range(N):
        for c in range(outr if r == root else outo):
            coll = a["coll"]
            if coll == "broadcast": ch, rk = c, [root]
            elif coll == "scatter": ch, rk = r * P + c, [root]
            elif coll in ("gather", "allgather"): ch, rk = c % P, [c // P]
            elif coll in ("reduce", "allreduce"): ch, rk = c, list(range(N))
            elif coll == "reduce_scatter": ch, rk = r * P + c, list(range(N))
            elif coll == "alltoall": ch, rk = r * P + c % P, [c // P]
            v = st.get(("out", r, c))
            if v is None or v[0] != frozenset([ch]) or v[1] != Counter({x: 1 for x in rk}):
                return "post"
    return None


def mutate(src, rng):
    lines = src.split("\n")
    body = [i for i, l in enumerate(lines) if not l.strip().startswith("//") and
            re.search(r"\b(copy|reduce|let)\b", l)]
    if not body:
        return None  # an example made of calls only: nothing to mutate here
    i = rng.choice(body)
    l = lines[i]
    kind = rng.randrange(4)
    if kind == 0:
        nums = list(re.finditer(r"\b\d+\b", l))
        if not nums: return None
        m = rng.choice(nums)
        v = int(m.group()) + rng.choice([-1, 1])
        if v < 0: return None
        l = l[:m.start()] + str(v) + l[m.end():]
    elif kind == 1:
        ops = list(re.finditer(r" [+-] ", l))
        if not ops: return None
        m = rng.choice(ops)
        l = l[:m.start()] + (" - " if m.group() == " + " else " + ") + l[m.end():]
    elif kind == 2:
        if "copy" in l: l = l.replace("copy", "reduce", 1)
        elif "reduce" in l: l = l.replace("reduce", "copy", 1)
        else: return None
    else:
        if not re.search(r"\b(copy|reduce)\b", l) or l.count(";") != 1: return None
        l = re.sub(r"\b(copy|reduce)\b.*;", "", l)
    lines[i] = l
    return "\n".join(lines)

def reference(path, rooted):
    out = {}
    for n in NS:
        verdicts = []
        for root in (range(n) if rooted else [None]):
            args = [COLLC, "expand", path, "-N", str(n)] + (["--root", str(root)] if root is not None else [])
            p = subprocess.run(args, capture_output=True, text=True)
            if p.returncode != 0:
                verdicts.append("skip" if "require-failed" in p.stderr else "fail")
                continue
            res = [check(a) for a in parse(p.stdout)]
            verdicts.append("fail" if any(res) else "ok")
        if "fail" in verdicts: out[n] = "fail"
        elif "ok" in verdicts: out[n] = "ok"
        else: out[n] = "skip"
    return out

def collc(path):
    p = subprocess.run([COLLC, "verify", "--quick", path, "-N", "1..%d" % NS[-1]], capture_output=True, text=True)
    out = {}
    line = p.stdout.strip()
    for part in line.split(": ", 1)[1].split("; "):
        m = re.match(r"(verified for|FAILED for|skipped) N = ([\d., ]+)", part)
        if not m: continue
        kind = {"verified for": "ok", "FAILED for": "fail", "skipped": "skip"}[m[1]]
        for item in m[2].strip().split(", "):
            if ".." in item:
                a, b = map(int, item.split(".."))
                for n in range(a, b + 1): out[n] = kind
            elif item: out[int(item)] = kind
    return out, p


def killed_by_defaults(path):
    """`collc verify` with its defaults: exit 1 rejects the input."""
    return subprocess.run([COLLC, "verify", path], capture_output=True).returncode == 1


def main():
    examples, work = sys.argv[2], sys.argv[3]
    defaults = sys.argv[7:] == ["--defaults"]
    rng = random.Random(int(sys.argv[4]))
    count = int(sys.argv[5])
    os.makedirs(work, exist_ok=True)
    files = sorted(glob.glob(os.path.join(examples, "*.coll")))
    tried = 0
    stats = Counter()
    attempts = 0
    while tried < count and attempts < 100 * count:
        attempts += 1
        f = rng.choice(files)
        src = open(f).read()
        if src.count("algorithm ") != 1:
            continue
        m = mutate(src, rng)
        if m is None or m == src:
            continue
        path = os.path.join(work, "mutant.coll")
        open(path, "w").write(m)
        if subprocess.run([COLLC, "check", path], capture_output=True).returncode != 0:
            continue
        tried += 1
        coll = re.search(r"algorithm \w+ : (\w+)", m)[1]
        r = reference(path, COLL[coll][0])
        stats.update(r.values())
        if defaults:
            wrong = "fail" in r.values()
            stats["wrong mutants"] += wrong
            if wrong and not killed_by_defaults(path):
                sys.stdout.write(m)
                print("SURVIVED (mutant of %s): reference %s, collc verify passes" % (f, r))
                return 1
            continue
        c, p = collc(path)
        if r != c:
            sys.stdout.write(m)
            print("MISMATCH (mutant of %s): reference %s, collc %s" % (f, r, c))
            print(p.stdout + p.stderr)
            return 1
    if defaults:
        print("differential: %d mutants, all %d wrong ones rejected by the defaults"
              % (tried, stats["wrong mutants"]))
        return 0
    print("differential: %d mutants agree (%d failing, %d verified, %d skipped instances)"
          % (tried, stats["fail"], stats["ok"], stats["skip"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
