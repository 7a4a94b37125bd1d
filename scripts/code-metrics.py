#!/usr/bin/env python3
"""code-metrics.py - measures of the code that the rules of CONTRIBUTING.md
and docs/architecture.md ask for, printed one per line:

  - functions longer than 150 lines in compiler/, runtime/ and targets/
    (C sources, the grammar and the scanner; a function counts from the
    first line of its signature to its closing brace);
  - for every target of compiler/driver/targets.def (and any NAME given with
    --name), the compiler files that name it (case-insensitive, comments
    included, not inside a longer word: "mpi" is not in "compile")
    outside its own folders: compiler/NAME/,
    compiler/driver/NAME/ and compiler/emit/emit_NAME.*;
  - strcmp calls against a target's name in compiler/ (the driver
    dispatches through the table of targets instead).

    python3 scripts/code-metrics.py [--name NAME] [--max-long K]
        [--max-files NAME=K ...] [ROOT]

Exit 0, or 1 when a --max-* limit is exceeded or a strcmp on a target's
name is found (then the offending lines are listed)."""
import argparse
import os
import re
import sys

TOPS = ("compiler", "runtime", "targets")
SOURCES = (".c", ".y", ".l")
LIMIT = 150


def function_lengths(path):
    """(name, first line, length) of each function defined in path."""
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        # a body opens at column 0 after a signature that starts at column 0
        if line.endswith("{") and line[:1] not in ("", " ", "\t", "#", "/", "*", "}") and "(" in "".join(
                lines[max(0, i - 6):i + 1]) and not re.match(r"(typedef|struct|enum|union|static const|const)\b.*=", line) \
                and "=" not in line.split("(")[0]:
            start = i
            while start > 0 and lines[start - 1][:1] not in ("", "#", "}") and not lines[start - 1].rstrip().endswith(
                    (";", "*/", "{")) and not lines[start - 1].startswith(("/*", " *", "//")):
                start -= 1
            sig = " ".join(lines[start:i + 1])
            m = re.search(r"(\w+)\s*\(", sig)
            if not m or re.match(r"\s*(struct|enum|union|typedef)\b", sig) or sig.rstrip().endswith("= {"):
                i += 1
                continue
            j = i + 1
            while j < len(lines) and not lines[j].startswith("}"):
                j += 1
            out.append((m.group(1), start + 1, j - start + 1))
            i = j
        i += 1
    return out


def target_names(root):
    text = open(os.path.join(root, "compiler", "driver", "targets.def"), encoding="utf-8").read()
    return re.findall(r"^TARGET(?:_PAGE)?\(\s*(\w+)", text, re.M)


def compiler_files(root):
    for d, _, files in os.walk(os.path.join(root, "compiler")):
        for f in sorted(files):
            yield os.path.relpath(os.path.join(d, f), root)


def own(rel, name):
    return (rel.startswith("compiler/%s/" % name) or rel.startswith("compiler/driver/%s/" % name)
            or os.path.basename(rel).startswith("emit_%s." % name) and rel.startswith("compiler/emit/"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root", nargs="?", default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("--name", action="append", default=[], help="another target name to count")
    ap.add_argument("--max-long", type=int, help="most functions over %d lines allowed" % LIMIT)
    ap.add_argument("--max-files", action="append", default=[], metavar="NAME=K")
    ap.add_argument("-v", action="store_true", help="list the files too")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    bad = 0

    long_fns = []
    for top in TOPS:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith(SOURCES):
                    p = os.path.join(d, f)
                    for name, line, n in function_lengths(p):
                        if n > LIMIT:
                            long_fns.append((os.path.relpath(p, root), line, name, n))
    print("functions over %d lines: %d" % (LIMIT, len(long_fns)))
    for rel, line, name, n in sorted(long_fns):
        print("  %s:%d: %s (%d lines)" % (rel, line, name, n))
    if a.max_long is not None and len(long_fns) > a.max_long:
        bad = 1

    limits = dict(x.split("=") for x in a.max_files)
    names = target_names(root) + a.name
    files = list(compiler_files(root))
    for name in names:
        hits = []
        for rel in files:
            if own(rel, name):
                continue
            try:
                text = open(os.path.join(root, rel), encoding="utf-8", errors="replace").read()
            except OSError:
                continue
            if re.search(r"(?<![A-Za-z])%s(?![A-Za-z])" % re.escape(name), text, re.I):
                hits.append(rel)
        print("compiler files naming %s outside its folders: %d" % (name, len(hits)))
        if a.v:
            for rel in hits:
                print("  " + rel)
        if name in limits and len(hits) > int(limits[name]):
            bad = 1

    pattern = re.compile(r"str(n?case)?n?cmp\s*\([^;]*\"(%s)\"" % "|".join(map(re.escape, names)), re.I)
    strcmps = []
    for rel in files:
        if not rel.endswith((".c", ".h", ".y", ".l")):
            continue
        for k, line in enumerate(open(os.path.join(root, rel), encoding="utf-8", errors="replace"), 1):
            if pattern.search(line):
                strcmps.append("%s:%d: %s" % (rel, k, line.strip()))
    print("strcmp on a target's name in compiler/: %d" % len(strcmps))
    for s in strcmps:
        print("  " + s)
    if strcmps:
        bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
