#!/usr/bin/env python3
"""Runs the synthesized SG2260 examples (EXAMPLES_DIR/*_sg2260_n8.coll) on
the engine model with 8 chips over a few dtypes, ops and counts; collc sim
checks each result bit-exactly. Prints one line per run and a summary.

usage: sim_matrix.py COLLC EXAMPLES_DIR"""
import glob
import os
import re
import subprocess
import sys

collc, examples = sys.argv[1], sys.argv[2]
# the explicit count: 3 x 64 bf16 elements (3 x 128 bytes) per chunk, so that
# reducing writes stay aligned whatever the split
REDUCING = ["fp32 sum", "fp16 max", "bf16 min", "int32 sum", "fp32 prod", "bf16 sum --count {192P}"]
COPYING = ["fp32", "int8", "fp16 --count 37", "int8 --count 4097"]
runs = ok = 0
failed = []
for f in sorted(glob.glob(os.path.join(examples, "*_sg2260_n8.coll"))):
    name = os.path.basename(f)[:-5]
    text = open(f).read()
    reducing = ": allgather" not in text
    split = int(re.search(r"^\s*split (\d+);", text, re.M).group(1))
    for combo in REDUCING if reducing else COPYING:
        parts = combo.replace("{192P}", str(192 * split)).split()
        args = [collc, "sim", f, "-N", "8", "--size", "8KiB", "--dtype", parts[0]]
        args += (["--op", parts[1]] + parts[2:]) if reducing else parts[1:]
        p = subprocess.run(args, capture_output=True, text=True)
        runs += 1
        if p.returncode == 0 and "check    OK" in p.stdout:
            ok += 1
            print("%s %s: OK" % (name, combo))
        else:
            failed.append("%s %s" % (name, combo))
            print("%s %s: FAILED\n%s%s" % (name, combo, p.stdout, p.stderr))
print("summary: %d runs, %d bit-exact, %d failed" % (runs, ok, len(failed)))
sys.exit(1 if failed else 0)
