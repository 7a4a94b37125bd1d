#!/usr/bin/env python3
"""sg2260_consistency: simulated time (collc sim, the CDMA engine model) vs the
alpha-beta-gamma cost model (collc cost --machine) for every example on the
SG2260 board with 4 and 8 chips, same machine file, same rank -> chip mapping
(the machine's ring of N chips) and topology.

usage: sg2260_consistency.py [--collc PATH] [--machine FILE] [--size 16MiB]
                             [--n 4,8] [--examples DIR] [--markdown]

Prints one row per (example, N): cost, sim, sim/cost, the schedule's shape
on the board and why the two differ. A row is "1:1" when every step maps
one-to-one onto links (no routed transfer, at most one message per link
direction and step, no step of local work only, no local copy that outlasts
its step's link traffic); for those the check column says whether they agree
within 1 %. The cost model's gamma is the L2 staging of a reduction (the
DDR<->L2 path crossed twice), which the engine model runs in series with the
link transfer; on a machine with reduce_to_ddr = 1 the engine reduces inside
the stream and gamma is the SUM unit's, so the comparison drops the cost
model's M/gamma term (sim/(cost-γ))."""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


LEGEND = """
why they differ (every row: the simulation needs no barrier after the last step, -sync_latency):
  local step      steps of local work only (COPY/REDUCE at the DDR-L2 bandwidth); the cost
                  model prices local copies at 0
  exposed copies  steps whose local copies outlast their link traffic (or queue behind a SEND)
  routed xK       K transfers between chips without a link, store-and-forward: each hop waits
                  for the whole message (and one sync); the cost model loads every link of the
                  route but charges only the busiest one, plus one alpha per hop
  <=K msgs/link   up to K messages on one link direction in one step: serialised on its engine,
                  one start-up each; the cost model sums their bytes but charges one alpha
  gamma           (reduce_to_ddr machines only) the cost model adds c*M/gamma; the engine
                  reduces inside the stream at min(link, SUM) = link bandwidth, so the sim has
                  no separate reduction time (sim/(cost-gamma) removes that term)"""


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--collc", default=os.environ.get("COLLC", "@COLLC_PATH@"))
    ap.add_argument("--machine", default=os.path.join(ROOT, "targets/sg2260/machines/sg2260-board.machine"))
    ap.add_argument("--size", default="16MiB")
    ap.add_argument("--n", default="4,8")
    ap.add_argument("--examples", default=os.path.join(ROOT, "dsl-examples"))
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args()
    if a.collc.startswith("@"):
        a.collc = "collc"
    # does the engine reduce inside the stream (reduce_to_ddr), or stage through L2?
    in_stream = re.search(r"^\s*reduce_to_ddr\s*=\s*1", open(a.machine).read(), re.M) is not None
    rows = []
    for n in [int(x) for x in a.n.split(",")]:
        for f in sorted(glob.glob(os.path.join(a.examples, "*.coll"))):
            name = os.path.basename(f)[:-5]
            # the time does not depend on the data: --timing-only (sim-examples-*.test check the data)
            rc, out, err = run([a.collc, "sim", f, "-N", str(n), "--machine", a.machine, "--size", a.size,
                                "--route=store-forward", "--timing-only"])
            if rc != 0:
                why = "require" if "require-failed" in err else "sim failed: " + err.strip().splitlines()[0]
                rows.append(dict(name=name, n=n, skip=why))
                continue
            t = float(re.search(r"^  time +([0-9.]+) us", out, re.M).group(1))
            st = re.search(r"(\d+) SEND/RECV, (\d+) COPY \((\d+) chunk copies sunk\), (\d+) staged reductions, "
                           r"(\d+) barriers, (\d+) routed", out)
            sp = re.search(r"steps +(\d+) \((\d+) local only, (\d+) with exposed local copies\), at most (\d+) "
                           r"messages? per link and step, M = (\d+) B", out)
            routed = int(st.group(6))
            local_steps, exposed, maxmsg, M = int(sp.group(2)), int(sp.group(3)), int(sp.group(4)), int(sp.group(5))
            rc, cout, cerr = run([a.collc, "cost", f, "-N", str(n), "--machine", a.machine, "--size", str(M),
                                  "--format", "json"])
            if rc != 0:
                rows.append(dict(name=name, n=n, skip="cost failed: " + cerr.strip().splitlines()[0]))
                continue
            c = json.loads(cout.strip().splitlines()[0])
            cost = c["time_s"] * 1e6
            gamma = c["terms"]["gamma"]["time_s"] * 1e6
            why = []
            if local_steps:
                why.append("local step" + (" x%d" % local_steps if local_steps > 1 else ""))
            if exposed:
                why.append("exposed copies x%d" % exposed)
            if routed:
                why.append("routed x%d" % routed)
            if maxmsg > 1:
                why.append("<=%d msgs/link" % maxmsg)
            if gamma > 0 and in_stream:
                why.append("gamma")
            one = not local_steps and not exposed and not routed and maxmsg == 1
            ratio = t / cost
            radj = t / (cost - gamma) if in_stream else ratio
            rows.append(dict(name=name, n=n, cost=cost, sim=t, ratio=ratio, radj=radj, one=one,
                             check=("ok" if abs(radj - 1) < 0.01 else "DIFFERS") if one else "-",
                             why=", ".join(why) or "-"))
            sys.stderr.write(".")
            sys.stderr.flush()
    sys.stderr.write("\n")
    print("# sg2260 consistency: collc sim vs collc cost --machine %s, M = %s (bytes of the larger buffer)"
          % (os.path.basename(a.machine), a.size))
    hdr = ["example", "N", "cost us", "sim us", "sim/cost", "sim/(cost-γ)" if in_stream else "compared",
           "1:1", "within 1%", "why they differ"]
    if a.markdown:
        print("| " + " | ".join(hdr) + " |")
        print("|" + "---|" * len(hdr))
    else:
        print("%-34s %2s %11s %11s %8s %12s %4s %9s  %s" % tuple(hdr))
    bad = 0
    for r in rows:
        if "skip" in r:
            cells = [r["name"], str(r["n"]), "-", "-", "-", "-", "-", "-", "skipped: " + r["skip"]]
        else:
            cells = [r["name"], str(r["n"]), "%.1f" % r["cost"], "%.1f" % r["sim"], "%.4f" % r["ratio"],
                     "%.4f" % r["radj"], "yes" if r["one"] else "no", r["check"], r["why"]]
            bad += r["check"] == "DIFFERS"
        if a.markdown:
            print("| " + " | ".join(cells) + " |")
        else:
            print("%-34s %2s %11s %11s %8s %12s %4s %9s  %s" % tuple(cells))
    print(LEGEND)
    one = [r for r in rows if r.get("one")]
    print("\n%d rows, %d map one-to-one onto links, %d of those outside 1 %%" % (len(rows), len(one), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
