#!/usr/bin/env python3
"""Checks the header comment of every dsl-examples/*.coll file: it must come
first and name the algorithm, its source, its expected cost (with M, the
larger per-rank buffer) and its requirements; the file must hold exactly one
algorithm, named like the file.

Usage: check_headers.py EXAMPLES_DIR   (prints "N headers ok" or the problems)
"""
import os
import re
import sys


def check(path):
    problems = []
    name = os.path.basename(path)[:-5]
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    header = []
    for line in lines:
        if not line.startswith("//"):
            break
        header.append(line[2:].strip())
    text = "\n".join(header)
    if not header:
        return ["%s: no header comment on the first line" % name]
    if not header[0] or header[0].startswith(("Source", "Cost", "Requires")):
        problems.append("%s: the first line must name the algorithm" % name)
    for key in ("Source:", "Cost", "Requires:"):
        if key not in text:
            problems.append("%s: header lacks '%s'" % (name, key))
    if not re.search(r"\bM\b", text):
        problems.append("%s: the cost does not say what M is" % name)
    if not re.search(r"T\s*=", text):
        problems.append("%s: no cost formula 'T = ...'" % name)
    algs = re.findall(r"^algorithm\s+(\w+)\s*:", "\n".join(lines), re.M)
    if algs != [name]:
        problems.append("%s: expected exactly one algorithm named '%s', found %s" % (name, name, algs))
    return problems


def main():
    d = sys.argv[1]
    files = sorted(f for f in os.listdir(d) if f.endswith(".coll"))
    problems = [p for f in files for p in check(os.path.join(d, f))]
    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print("%d headers ok" % len(files))


if __name__ == "__main__":
    main()
