"""Prints the fields of a `collc cost --format=json` object, one per line,
and checks that the float fields agree with the exact ones."""
import json
import sys
from fractions import Fraction

d = json.load(open(sys.argv[1]))
for k in ("algorithm", "collective", "N", "size_bytes", "steps"):
    print(k, d[k])
for part in ("terms", "lower_bound"):
    for t in ("alpha", "beta", "gamma"):
        e = d[part][t]
        assert abs(float(Fraction(e["exact"])) - e["value"]) < 1e-12, e
        print(part, t, e["exact"], float(e["value"]))
o = d["optimal"]
print("optimal", " ".join(f"{k}={o[k]}" for k in ("latency", "bandwidth", "compute")))
r = d["ratio"]
print("ratio", " ".join(f"{k}={r[k]}" for k in ("latency", "bandwidth", "compute")))
M, a, b, g = d["size_bytes"], d["alpha_s"], d["beta_Bps"], d["gamma_Bps"]
T = (float(Fraction(d["terms"]["alpha"]["exact"])) * a
     + float(Fraction(d["terms"]["beta"]["exact"])) * M / b
     + float(Fraction(d["terms"]["gamma"]["exact"])) * M / g)
assert abs(T - d["time_s"]) <= 1e-12 * T, (T, d["time_s"])
assert abs(d["ratio"]["total"] - d["time_s"] / d["lower_bound"]["time_s"]) < 1e-12
print("time consistent")
