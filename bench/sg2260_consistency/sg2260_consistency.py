#!/usr/bin/env python3
"""sg2260_consistency: simulated time (collc sim, the CDMA engine model) vs the
alpha-beta-gamma cost model (collc cost --machine) for every example on the
SG2260 board with 4 and 8 chips, same machine file, same rank -> chip mapping
(the machine's ring of N chips) and topology.

usage: sg2260_consistency.py [--collc PATH] [--sim PATH] [--machine FILE]
                             [--size 16MiB] [--n 4,8] [--examples DIR[,DIR]]
                             [--agree NAME,...] [--bulks 1,8]
                             [--only consistency|planning] [--markdown]

Prints one row per (example, N): cost, sim, sim/cost, the schedule's shape
on the board and why the two differ. A row is "1:1" when every step maps
one-to-one onto links (no routed transfer, at most one message per link
direction and step, no step of local work only, no local copy that outlasts
its step's link traffic); for those the check column says whether they agree
within 1 %; the examples --agree names are checked within 2 % whatever their
shape (exit 1 when one is not). The cost model's gamma is the L2 staging of
the reductions (the DDR<->L2 path crossed twice each) and the local copies
that cannot hide behind link traffic (one crossing each), timed on each
chip's one DDR<->L2 path with the step's link transfers, as the engine model
runs them: what they add to the step's busiest link; on a machine with reduce_to_ddr = 1 the engine reduces inside
the stream and gamma is the SUM unit's, so the comparison drops the cost
model's M/gamma term (sim/(cost-γ)).

A second table compares the bidirectional ring AllReduce (both ring
directions, SCCL's use_ring=1) with SOPHGO's own planning formula,
getAllReduceTime of its performance model (docs/references.md [SG-fw]),
evaluated with the machine file's numbers (v_CDMA = the rate a transfer
streams at, the slower of link and engine), term by term: link, L2 staging,
SUM unit, latencies; docs/sg2260.md section 11 explains each difference."""
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
                  model charges only the copies that cannot move behind link traffic
  exposed copies  steps whose local copies outlast their link traffic (or queue behind a SEND)
  routed xK       K transfers between chips without a link, store-and-forward: each hop waits
                  for the whole message (and one sync); the cost model loads every link of the
                  route but charges only the busiest one, plus one alpha per hop
  <=K msgs/link   up to K messages on one link direction in one step: serialised on its engine,
                  one start-up each; the cost model sums their bytes but charges one alpha
  gamma           (reduce_to_ddr machines only) the cost model adds c*M/gamma; the engine
                  reduces inside the stream at min(link, SUM) = link bandwidth, so the sim has
                  no separate reduction time (sim/(cost-gamma) removes that term)"""

PLANNING_LEGEND = """
  link        both: (N-1)·M/N bytes per link direction at v_CDMA (the formula's 2(N/2-1)+1
              steps of M/N are the two rings' 2(N-1) steps of M/(2N))
  staging     the formula charges d/v_ddr2l2 + d/v_l22ddr per reduce step and direction, the
              directions in parallel; the model moves both directions' staging and the first
              in->out copy over one DDR<->L2 path per chip, overlapped with the link transfer
              as far as the bulks (B) allow
  SUM         the formula adds d/v_SUM; the model reduces inside the link stream (capped at
              v_SUM), so it adds no time
  latency     the formula charges lt_fire + 4 lt_sync per reduce step and nothing for the
              gather steps; the model pays a start-up per SEND and a wait per barrier"""


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout, p.stderr


def machine_numbers(sim, machine):
    """The machine file's numbers, as the one machine-file parser resolves
    them (`sg2260-sim --print-machine`: the file over the board's defaults)."""
    rc, out, err = run([sim, "--print-machine", "--machine", machine])
    if rc != 0:
        raise SystemExit("sg2260-sim --print-machine failed: " + err.strip())
    vals = {}
    for line in out.splitlines():
        m = re.match(r"^(\w+) = ([0-9.eE+-]+)\b", line)
        if m:
            vals[m.group(1)] = float(m.group(2))
    return vals


def sophgo_allreduce(M, n, v):
    """SOPHGO's getAllReduceTime for M bytes on n chips, in us, split into
    (link, staging, SUM, latency) terms. d = M/n; rates in GB/s (1 B at 1 GB/s
    is 1e-3 us). N = 2: one step of every term; N > 2: (N/2-1) steps of
    d/v_CDMA + d/v_ddr2l2 + d/v_SUM + d/v_l22ddr + lt_fire + 4 lt_sync, a
    middle step of d/v_CDMA + half of the staging and SUM terms, and (N/2-1)
    steps of d/v_CDMA."""
    d = M / n * 1e-3
    vc, vd, vs, fire, sync = v["cdma"], v["ddr_l2"], v["sum"], v["fire"], v["sync"]
    if n == 2:
        return d / vc, 2 * d / vd, d / vs, fire + 2 * sync
    h = n / 2 - 1
    return ((2 * h + 1) * d / vc, (h + 0.5) * 2 * d / vd, (h + 0.5) * d / vs, h * (fire + 4 * sync))


def planning(a):
    """Bidirectional ring AllReduce: collc sim against SOPHGO's formula."""
    mv = machine_numbers(a.sim, a.machine)
    v = dict(cdma=min(mv["link_bandwidth"], mv["cdma_bandwidth"]), ddr_l2=mv["ddr_l2_bandwidth"],
             sum=mv["sum_bandwidth"], fire=mv["startup_latency"], sync=mv["sync_latency"])
    f = os.path.join(a.examples.split(",")[0], "bidir_ring_allreduce.coll")
    rows = []
    for n in [int(x) for x in a.n.split(",")]:
        for b in [int(x) for x in a.bulks.split(",")]:
            rc, out, err = run([a.collc, "sim", f, "-N", str(n), "--machine", a.machine, "--size", a.size,
                                "-D", "B=%d" % b, "--timing-only"])
            if rc != 0:
                rows.append(dict(n=n, b=b, skip=(err.strip().splitlines() or ["?"])[0]))
                continue
            t = float(re.search(r"^  time +([0-9.]+) us", out, re.M).group(1))
            M = int(re.search(r"M = (\d+) B", out).group(1))
            link = max([float(x) for x in re.findall(r"^\d+->\d+ +\d+ +([0-9.]+)", out, re.M)] or [0])
            local = max([float(x) for x in re.findall(r"^chip \d+ local +\d+ +([0-9.]+)", out, re.M)] or [0])
            fl, fs, fsum, flat = sophgo_allreduce(M, n, v)
            rows.append(dict(n=n, b=b, sim=t, link=link, local=local, f=fl + fs + fsum + flat, fl=fl, fs=fs,
                             fsum=fsum, flat=flat))
    print("\n# bidirectional ring AllReduce vs SOPHGO's planning formula (getAllReduceTime), %s, M = %s,"
          % (os.path.basename(a.machine), a.size))
    print("# v_CDMA = %g GB/s (the slower of link and engine), v_ddr2l2 = v_l22ddr = %g, v_SUM = %g, "
          "lt_fire = %g us, lt_sync = %g us" % (v["cdma"], v["ddr_l2"], v["sum"], v["fire"], v["sync"]))
    hdr = ["N", "B", "formula us", "sim us", "sim/formula", "link: formula", "sim busiest",
           "staging: formula", "sim DDR-L2 busy", "SUM: formula", "latency: formula"]
    if a.markdown:
        print("| " + " | ".join(hdr) + " |")
        print("|" + "---|" * len(hdr))
    else:
        print("%2s %2s %11s %11s %11s %14s %11s %16s %15s %12s %16s" % tuple(hdr))
    for r in rows:
        if "skip" in r:
            cells = [str(r["n"]), str(r["b"])] + ["-"] * 8 + ["skipped: " + r["skip"]]
        else:
            cells = [str(r["n"]), str(r["b"]), "%.1f" % r["f"], "%.1f" % r["sim"], "%.4f" % (r["sim"] / r["f"]),
                     "%.1f" % r["fl"], "%.1f" % r["link"], "%.1f" % r["fs"], "%.1f" % r["local"],
                     "%.1f" % r["fsum"], "%.1f" % r["flat"]]
        if a.markdown:
            print("| " + " | ".join(cells) + " |")
        else:
            print("%2s %2s %11s %11s %11s %14s %11s %16s %15s %12s %16s" % tuple(cells))
    print(PLANNING_LEGEND)
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--collc", default=os.environ.get("COLLC", "@COLLC_PATH@"))
    ap.add_argument("--sim", default=os.environ.get("SG2260_SIM", "@SG2260_SIM_PATH@"))
    ap.add_argument("--bulks", default="1,8")
    ap.add_argument("--only", choices=["consistency", "planning"])
    ap.add_argument("--machine", default=os.path.join(ROOT, "targets/sg2260/machines/sg2260-board.machine"))
    ap.add_argument("--size", default="16MiB")
    ap.add_argument("--n", default="4,8")
    ap.add_argument("--examples", default=os.path.join(ROOT, "dsl-examples"),
                    help="folders of examples, separated by commas")
    ap.add_argument("--agree", default="", help="examples that must agree within 2 %%, separated by commas")
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args()
    if a.collc.startswith("@"):
        a.collc = "collc"
    if a.sim.startswith("@"):
        a.sim = "sg2260-sim"
    status = 0 if a.only == "planning" else consistency(a)
    if a.only != "consistency":
        planning(a)
    return status


def consistency(a):
    """Every example: collc sim against collc cost --machine."""
    # does the engine reduce inside the stream (reduce_to_ddr), or stage through L2?
    in_stream = re.search(r"^\s*reduce_to_ddr\s*=\s*1", open(a.machine).read(), re.M) is not None
    agree = set(x for x in a.agree.split(",") if x)
    rows = []
    for n in [int(x) for x in a.n.split(",")]:
        files = sorted(f for d in a.examples.split(",") for f in glob.glob(os.path.join(d, "*.coll")))
        for f in files:
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
            tol = 0.01 if one else 0.02 if name in agree else None
            rows.append(dict(name=name, n=n, cost=cost, sim=t, ratio=ratio, radj=radj, one=one,
                             check=("ok" if abs(radj - 1) < tol else "DIFFERS") if tol else "-",
                             why=", ".join(why) or "-"))
            sys.stderr.write(".")
            sys.stderr.flush()
    sys.stderr.write("\n")
    print("# sg2260 consistency: collc sim vs collc cost --machine %s, M = %s (bytes of the larger buffer)"
          % (os.path.basename(a.machine), a.size))
    hdr = ["example", "N", "cost us", "sim us", "sim/cost", "sim/(cost-γ)" if in_stream else "compared",
           "1:1", "agree", "why they differ"]
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
    print("\n%d rows, %d map one-to-one onto links, %d of those outside 1 %%" % (len(rows), len(one),
          sum(bool(r.get("one")) and r["check"] == "DIFFERS" for r in rows)))
    named = [r for r in rows if r.get("name") in agree and not r.get("one")]
    if agree:
        print("%d named rows (--agree), %d of those outside 2 %%" % (len(named),
              sum(r.get("check") == "DIFFERS" for r in named)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
