#!/usr/bin/env python3
"""Expands two algorithms for the same N and params and compares their
schedules transfer by transfer: the dump of `collc expand` without the
header line and the source lines of the steps, buffer names mapped with
--rename OLD=NEW (a called algorithm's scratch is named after it).

usage: same_schedule.py COLLC A.coll B.coll --rename OLD=NEW N:ARGS... 
Prints "N=8 -D A=2: same (total ...)" per case or the first difference;
exits 1 on any difference."""
import re
import subprocess
import sys

collc, a, b = sys.argv[1:4]
rest = sys.argv[4:]
renames = []
while rest and rest[0] == "--rename":
    old, new = rest[1].split("=")
    renames.append((old, new))
    rest = rest[2:]


def dump(path, n, args):
    out = subprocess.run([collc, "expand", path, "-N", str(n)] + args, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, check=True).stdout
    lines = []
    for line in out.splitlines():
        if line.startswith("schedule "):
            continue
        line = re.sub(r" line [0-9]+:", ":", line)
        for old, new in renames:
            line = line.replace(old, new)
        lines.append(line)
    return lines


bad = 0
for case in rest:
    n, _, args = case.partition(":")
    args = args.split()
    x, y = dump(a, n, args), dump(b, n, args)
    label = "N=%s %s" % (n, " ".join(args))
    if x == y:
        print("%s: same (%s)" % (label, x[-1]))
        continue
    bad = 1
    for i, (p, q) in enumerate(zip(x + [""] * len(y), y + [""] * len(x))):
        if p != q:
            print("%s: differ at line %d:\n  %s\n  %s" % (label, i + 1, p, q))
            break
sys.exit(bad)
