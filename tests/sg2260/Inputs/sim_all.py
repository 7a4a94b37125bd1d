#!/usr/bin/env python3
"""Runs every example on the SG2260 engine model (collc sim) for the given
chip counts and several dtypes and ops, each result checked bit-exactly
against the naive reference by collc sim itself. Prints one line per run and
a summary; exits 1 if any run failed (require-excluded N are skipped).

usage: sim_all.py COLLC EXAMPLES_DIR N[,N...] [extra collc sim args...]
With --root among the extra arguments only the rooted collectives run."""
import glob
import os
import subprocess
import sys

collc, examples, ns = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3].split(",")]
extra = sys.argv[4:]
REDUCING = ["fp32 sum", "fp16 max", "bf16 min", "int32 sum", "fp32 prod", "bf16 sum --count 8192"]
COPYING = ["fp32", "int8", "fp16 --count 37", "int8 --count 4097"]
runs = ok = skipped = 0
failed = []
for f in sorted(glob.glob(os.path.join(examples, "*.coll"))):
    name = os.path.basename(f)[:-5]
    text = open(f).read()
    reducing = any(k in text for k in (": allreduce", ": reduce_scatter", ": reduce "))
    rooted = any(k in text for k in (": broadcast", ": scatter", ": gather", ": reduce "))
    if "--root" in extra and not rooted:
        continue  # --root: only the rooted collectives
    for n in ns:
        for combo in REDUCING if reducing else COPYING:
            parts = combo.split()
            args = [collc, "sim", f, "-N", str(n), "--size", "8KiB", "--route=store-forward",
                    "--dtype", parts[0]] + (["--op", parts[1]] if reducing else []) + parts[2 if reducing else 1:] + extra
            p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            runs += 1
            if p.returncode != 0 and "require-failed" in p.stderr:
                skipped += 1
                continue
            if p.returncode == 0 and "check    OK" in p.stdout:
                ok += 1
                print("%s N=%d %s: OK" % (name, n, combo))
            else:
                failed.append("%s N=%d %s" % (name, n, combo))
                print("%s N=%d %s: FAILED\n%s%s" % (name, n, combo, p.stdout, p.stderr))
print("summary: %d runs, %d bit-exact, %d skipped by require, %d failed" % (runs, ok, skipped, len(failed)))
for x in failed:
    print("FAILED: " + x)
sys.exit(1 if failed else 0)
