#!/usr/bin/env python3
"""Writes a .coll file of about SIZE bytes: copies of a ring AllGather with
distinct names; with --valid nothing else, otherwise a final algorithm with a
syntax error on its last line ("let x = ;" at column 13)."""
import sys

size = int(sys.argv[1])
valid = "--valid" in sys.argv[2:]
out = sys.stdout
written = 0
i = 0
while written < size:
    text = ("algorithm ring_%d : allgather {\n"
            "    step { for r in ranks { copy in[r][0] -> out[r][r]; } }\n"
            "    for s in 0 .. N - 1 {\n"
            "        step {\n"
            "            for r in ranks {\n"
            "                let c = (r - s) %% N;\n"
            "                copy out[r][c] -> out[(r + 1) %% N][c];\n"
            "            }\n"
            "        }\n"
            "    }\n"
            "}\n") % i
    out.write(text)
    written += len(text)
    i += 1
if not valid:
    out.write("algorithm last : allreduce {\n    let x = ;\n}\n")
