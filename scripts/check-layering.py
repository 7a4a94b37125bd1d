#!/usr/bin/env python3
"""check-layering.py - hold the include graph to the layering rules.

The rules are stated once, in the "Layers" table of docs/architecture.md:
each row names a part, the folders it covers and the parts it may use. This
script reads that table, then every `#include "..."` in the C sources of the
tree, resolves it to a file, and reports each include that goes from one
part into another part its row does not list. Exit 0 when every include
keeps the rules, 1 when one does not (one line per include), 2 when the
table cannot be read.

    python3 scripts/check-layering.py [ROOT]
"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), ".."))
DOC = os.path.join(ROOT, "docs", "architecture.md")
SOURCE_EXT = (".c", ".h", ".def", ".y", ".l")
# Folders that hold code linked into collc or into user programs. Tests and
# benchmarks may use any part: they check the parts, they are not one.
CHECKED_TOPS = ("compiler", "runtime", "targets")


def read_rules():
    """Returns [(part, [folder prefixes], set(may use))] from the table."""
    try:
        text = open(DOC, encoding="utf-8").read()
    except OSError as e:
        sys.exit(f"check-layering: cannot read {DOC}: {e.strerror}")
    m = re.search(r"^\| part \| folders \| may use \|\s*$", text, re.M)
    if not m:
        print(f"check-layering: {DOC}: no '| part | folders | may use |' table",
              file=sys.stderr)
        sys.exit(2)
    rules = []
    for line in text[m.end():].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3:
            print(f"check-layering: bad table row: {line}", file=sys.stderr)
            sys.exit(2)
        part = cells[0].strip("`* ")
        folders = [f.strip("` ") for f in cells[1].split(",") if f.strip("` -")]
        uses = {u.strip("` ") for u in cells[2].split(",") if u.strip("` -—")}
        rules.append((part, folders, uses))
    names = {r[0] for r in rules}
    for part, _, uses in rules:
        for u in uses - names:
            print(f"check-layering: part {part} may use unknown part '{u}'",
                  file=sys.stderr)
            sys.exit(2)
    return rules


def part_of(path, rules):
    """The part whose longest folder prefix holds `path` (relative to ROOT)."""
    best, best_len = None, -1
    for part, folders, _ in rules:
        for f in folders:
            if path.startswith(f) and len(f) > best_len:
                best, best_len = part, len(f)
    return best


def include_dirs(rules):
    """Where a quoted include is looked for, after the including file's own
    folder: every folder of every part (the build's include paths are a
    subset of these), and compiler/ for "folder/file.h"."""
    dirs = ["compiler"]
    for _, folders, _ in rules:
        dirs.extend(f.rstrip("/") for f in folders)
    return dirs


def main():
    rules = read_rules()
    dirs = include_dirs(rules)
    # A bare name the folders above do not hold is a header of another
    # library's own include folder (targets/cpu/cpu.h as "cpu.h"): found by
    # its name when exactly one file of the checked folders has it.
    by_name = {}
    for top in CHECKED_TOPS:
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            for name in files:
                by_name.setdefault(name, []).append(
                    os.path.relpath(os.path.join(d, name), ROOT))
    uses = {part: allowed for part, _, allowed in rules}
    bad = 0
    unplaced = []
    for top in CHECKED_TOPS:
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            for name in sorted(files):
                if not name.endswith(SOURCE_EXT):
                    continue
                full = os.path.join(d, name)
                rel = os.path.relpath(full, ROOT)
                src_part = part_of(rel, rules)
                if src_part is None:
                    unplaced.append(rel)
                    continue
                with open(full, encoding="utf-8", errors="replace") as fh:
                    for lineno, line in enumerate(fh, 1):
                        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                        if not m:
                            continue
                        inc = m.group(1)
                        target = None
                        for base in [os.path.dirname(rel)] + dirs:
                            cand = os.path.normpath(os.path.join(base, inc))
                            if os.path.isfile(os.path.join(ROOT, cand)):
                                target = cand
                                break
                        if target is None and "/" not in inc and len(by_name.get(inc, [])) == 1:
                            target = by_name[inc][0]
                        if target is None:
                            continue  # generated (parser.h) or a system header
                        dst_part = part_of(target, rules)
                        if dst_part is None or dst_part == src_part:
                            continue
                        if dst_part not in uses[src_part]:
                            print(f"{rel}:{lineno}: {src_part} may not use "
                                  f"{dst_part}: #include \"{inc}\" ({target})")
                            bad += 1
    for rel in unplaced:
        print(f"{rel}: in no part of the Layers table of docs/architecture.md")
        bad += 1
    if bad:
        print(f"check-layering: {bad} include(s) break the layering rules")
        return 1
    print("check-layering: every include keeps the layering rules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
