#!/usr/bin/env python3
"""ompi_rule.py RULES DEF COLLTYPE N BYTES - the algorithm an Open MPI
coll_tuned rules file (the 4.1 format collc tune --emit=ompi-rules writes,
docs/cluster.md section 5) gives collective COLLTYPE (its number in the
file) on a communicator of N ranks at message size BYTES, as Open MPI picks
it: the last communicator size <= N, in it the last message size <= BYTES.
Prints `NUMBER MODEL`, MODEL the .coll algorithm compiler/driver/
ompi_rules.def (DEF) names for it, or `0 -` for Open MPI's own decision."""
import re
import sys


def numbers(path):
    """The file's numbers in order (a # starts a comment)."""
    out = []
    for line in open(path):
        out += [int(w) for w in line.split("#")[0].split()]
    return out


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    rules, defs, coll, n, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    v, at = numbers(rules), 0

    def take():
        nonlocal at
        at += 1
        return v[at - 1]

    alg = 0
    for _ in range(take()):
        ctype, chosen = take(), 0
        for _ in range(take()):
            csize, nmsg = take(), take()
            msgs = [(take(), take(), take(), take()) for _ in range(nmsg)]
            if csize <= n:
                chosen = 0
                for m in msgs:
                    if m[0] <= size:
                        chosen = m[1]
        if ctype == coll:
            alg = chosen
    colls = dict((name, int(num)) for name, num in re.findall(r"OMPI_COLL\((\w+), (\d+)\)", open(defs).read()))
    model = "-"
    for name, num, _, m in re.findall(r'OMPI_ALG\((\w+), (\d+), "(\w+)", "(\w+)"\)', open(defs).read()):
        if colls.get(name) == coll and int(num) == alg:
            model = m
    print(alg, model)


if __name__ == "__main__":
    main()
