"""cost_vs_sim.py COLLC MACHINE SIZE FILE N [FILE N ...]: for each example,
`collc cost --machine` and `collc sim` (the engine model) with the same
machine file and size; prints both times and whether they agree within 1 %.
Exits 1 if a run fails or a pair does not agree."""
import json
import os
import re
import subprocess
import sys

collc, machine, size = sys.argv[1:4]
pairs = sys.argv[4:]
bad = 0
for f, n in zip(pairs[0::2], pairs[1::2]):
    name = os.path.splitext(os.path.basename(f))[0]
    common = [f, "-N", n, "--machine", machine, "--size", size]
    cost = subprocess.run([collc, "cost", "--format", "json"] + common, capture_output=True, text=True)
    sim = subprocess.run([collc, "sim"] + common, capture_output=True, text=True)
    if cost.returncode or sim.returncode:
        print(f"{name} N={n}: FAILED\n{cost.stderr}{sim.stderr}")
        bad = 1
        continue
    cost_us = json.loads(cost.stdout)["time_s"] * 1e6
    sim_us = float(re.search(r"^  time +([0-9.]+) us", sim.stdout, re.M).group(1))
    ok = abs(sim_us / cost_us - 1) <= 0.01
    bad |= not ok
    print(f"{name} N={n}: cost {cost_us:.1f} us, sim {sim_us:.1f} us, "
          f"{'within 1%' if ok else 'DIFFER'} (sim/cost {sim_us / cost_us:.4f})")
sys.exit(bad)
