#!/usr/bin/env python3
"""profile_report.py --calls C --mpi FUNCTION [--title T] NAME=FILE[,FILE...] ...:
the table of profile.sh. Each NAME (native, direct, served) is a set of
callgrind files, one per rank, of C timed calls (mpi_bench's timed_calls);
the cells are instructions per call, the mean over the ranks, by phase
(inclusive counts of the runtime's entry points) and by object (exclusive
counts grouped by the shared object they ran in).

The progress engine (Open MPI's opal_progress, MPICH's progress test)
spins while the peer has not sent yet, so it grows with the time the other
rank takes, unlike the other rows: the last row, the total less the
progress engine, is the software path of a call.
"""
import argparse
import re
import subprocess
from collections import defaultdict

LINE = re.compile(r"^\s*([\d,]+)\s+\([\s\d.]+%\)\s+(\S+?):(\S+)(?:\s+\[(.*)\])?\s*$")


def annotate(path, inclusive):
    out = subprocess.run(["callgrind_annotate", "--threshold=100",
                          "--inclusive=" + ("yes" if inclusive else "no"), path],
                         check=True, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            rows.append((int(m.group(1).replace(",", "")), m.group(3), m.group(4) or ""))
    return rows


def group(obj):
    base = obj.rsplit("/", 1)[-1]
    if base.startswith("mpi_bench") or base.startswith("libbenchalgs"):
        return "generated code"
    if base.startswith("libcollrt") or base.startswith("libcollmpi"):
        return "collc runtime"
    if re.match(r"lib(mpi|open-|pmix|mpich|hwloc|ucp|ucs|uct|event)|mca_|libfabric", base):
        return "MPI library"
    if base.startswith("libc.") or base.startswith("ld-linux"):
        return "libc"
    return "other"


def inclusive_of(rows, *names):
    """Sum of the inclusive counts of functions named exactly so (or
    name* for a prefix)."""
    total = 0
    for n, fn, _ in rows:
        fn = fn.split("'")[0]
        for want in names:
            if fn == want or (want.endswith("*") and fn.startswith(want[:-1])):
                total += n
                break
    return total


# The MPI libraries' waits (outermost functions only: the sum must not count
# a nested one twice): they spin until a message is there. A blocking
# MPI_Recv of Open MPI spins on opal_progress without going through the
# request wait: --progress opal_progress counts every progress call instead
# (then the loop around each call in a wait counts as software path).
PROGRESS = ("ompi_request_default_wait*", "MPID_Progress_wait", "MPID_Progress_test")

PHASES = [
    ("total", None),
    ("the library's collective (PMPI_*, native)", "library"),
    ("decision (decide, applies; served: the rule lookup)", "decision"),
    ("buffers (prepare, staging)", ("collmpi_prepare",)),
    ("coll_begin + coll_setup (checks, plan, scratch)", ("coll_begin", "coll_setup")),
    ("MPI posting (Isend, Irecv)", ("PMPI_Isend", "PMPI_Irecv")),
    ("MPI one-call exchanges (Sendrecv, Recv; their wait included)", ("PMPI_Sendrecv", "PMPI_Recv")),
    ("MPI waits (Wait*, Test*, Get_count)",
     ("PMPI_Wait", "PMPI_Waitany", "PMPI_Waitall", "PMPI_Waitsome", "PMPI_Test*", "PMPI_Get_count")),
    ("rest (generated code, queue, step ends, copies)", "rest"),
    ("of all these: inside the library's wait (polling, receiving)", "progress"),
    ("total less the wait (the software path)", "busy"),
]


def phases(rows, coll_entry, progress):
    total = inclusive_of(rows, "timed_calls*")
    out = {"total": total}
    served = inclusive_of(rows, "try_collc")
    if served:
        out["decision"] = served - inclusive_of(rows, "collmpi_execute", "collmpi_end")
    else:
        out["decision"] = inclusive_of(rows, "collmpi_decide", "collmpi_applies")
    out["library"] = inclusive_of(rows, "PMPI_" + coll_entry)
    accounted = out["decision"] + out["library"]
    for label, names in PHASES[3:-1]:
        out[label] = inclusive_of(rows, *names)
        accounted += out[label]
    out["rest"] = total - accounted
    out["progress"] = inclusive_of(rows, *progress)
    out["busy"] = total - out["progress"]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, required=True)
    ap.add_argument("--mpi", required=True, help="the MPI function: Allgather, Bcast ...")
    ap.add_argument("--title", default="")
    ap.add_argument("--progress", default=",".join(PROGRESS),
                    help="comma-separated functions counted as the library's wait")
    ap.add_argument("sets", nargs="+")
    a = ap.parse_args()
    names, ph, ob = [], {}, {}
    for s in a.sets:
        name, files = s.split("=", 1)
        files = files.split(",")
        names.append(name)
        acc, objs = defaultdict(float), defaultdict(float)
        for f in files:
            for k, v in phases(annotate(f, True), a.mpi, a.progress.split(",")).items():
                acc[k] += v / a.calls / len(files)
            for n, _, obj in annotate(f, False):
                objs[group(obj)] += n / a.calls / len(files)
        ph[name], ob[name] = acc, objs
    print(f"Instructions per call (callgrind), {a.title}, mean of the ranks\n")
    print("| | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for label, key in PHASES:
        k = "total" if key is None else key if isinstance(key, str) else label
        if k != "total" and all(ph[n].get(k, 0) < 0.5 for n in names):
            continue
        print(f"| {label} | " + " | ".join(f"{ph[n].get(k, 0):,.0f}" for n in names) + " |")
    for g in ["generated code", "collc runtime", "MPI library", "libc", "other"]:
        if any(ob[n].get(g, 0) >= 0.5 for n in names):
            print(f"| by object: {g} | " + " | ".join(f"{ob[n].get(g, 0):,.0f}" for n in names) + " |")


if __name__ == "__main__":
    main()
