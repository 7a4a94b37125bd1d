#!/usr/bin/env python3
"""check-self-contained.py - the repository stands on its own.

Checks every file of the source tree (in a git checkout: the tracked files
plus new files not ignored; otherwise every file under the root except build
trees) for three kinds of problem, and prints one line per finding:

    path:line:col: RULE: message

Rules (the lines that break them, and what is allowed):

  machine-path   An absolute path of one particular machine: a path starting
                 /work/, /home/, /root/, /Users/, /mnt/ or /media/ (not
                 inside a longer path or a URL, so "https://host/home/x" and
                 "--allow-run-as-root" are fine). System paths every
                 installation has (/usr/bin/env, /dev/null, /proc/...) are
                 fine; example paths in docs (/opt/algs/libalgs.so) are fine.
  tmp-path       A path under /tmp/. Allowed only in Markdown code (a fenced
                 block or a `code span`), where it is part of a command a
                 user types; scripts, tests and sources use mktemp, $TMPDIR
                 or lit's %t instead.
  llvm-path      An LLVM installation folder written out (/usr/lib/llvm-14,
                 /usr/local/opt/llvm, ...). CMake finds LLVM, lit and
                 FileCheck through LLVM's CMake package, so no file needs one.
  outside-file   A reference to a file the repository does not hold: the
                 design file, board picture and SG2260 notes the project
                 started from (DESIGN.md in capitals, SG2260-CDMA.md,
                 SG2260-firmware.md, SG2260-board.png), "seed notes" and
                 their folder, and any relative path ("../x") that climbs
                 out of the repository from the file that names it. Cite
                 docs/design.md and docs/references.md instead.
  lab-notebook   A line that addresses the people who wrote the code rather
                 than users and contributors: load averages, "this session",
                 "Owners: append", "other engineers", "measured today/here",
                 "this machine" / "this VM", dates of runs (2026-11-29) and
                 times of day ("at 09:16"). Measurements go into
                 bench/RESULTS.md with the command that produced them and the
                 machine described in words.

Not checked: binary files and this script (its rules name what they
reject). The corpus of its own test, tests/repo/Inputs/, is checked like
every other file: it is stored with "@@" inside each offending word and
decoded by the test.

usage: check-self-contained.py [--root DIR] [--no-git]
Exit status: 0 no findings, 1 findings, 2 usage error.
"""
import argparse
import os
import re
import subprocess
import sys

SELF = "scripts/check-self-contained.py"

# A path component boundary before an absolute path: not part of a longer
# path, word, option or URL.
_START = r"(?<![\w.~/:@%$-])"

RULES = [
    ("machine-path", re.compile(_START + r"/(?:work|home|root|Users|mnt|media)(?:/|\b)"),
     "absolute path of one machine"),
    ("llvm-path", re.compile(_START + r"(?:/usr/(?:local/)?lib/llvm-?\d+|/usr/local/opt/llvm|"
                             r"/opt/homebrew/opt/llvm)\b"),
     "LLVM installation folder written out; CMake finds LLVM and its tools"),
    ("outside-file", re.compile(r"(?-i:\bDESIGN\.md\b)|\bSG2260-(?:CDMA|firmware)\.md\b|"
                                r"\bSG2260-board\.png\b|\bseed[ -]notes?\b|\bseeds/|"
                                r"\bseeds? (?:note )?0\d\d\b", re.I),
     "file outside the repository; cite docs/design.md or docs/references.md"),
    ("lab-notebook", re.compile(r"\bload average|\bthis session\b|\bowners?\b[^.\n]{0,40}\bappend\b|"
                                r"^\W*owners:|\bother engineers?\b|\bother engineers'|"
                                r"\b(?:measured|ran|run|tested) (?:today|here|this morning)\b|"
                                r"\bthis (?:[\w-]+ )?(?:VM|machine)\b(?! file| model| description)|"
                                r"\b20\d\d-[01]\d-[0-3]\d\b|\bat [0-2]?\d:[0-5]\d\b", re.I),
     "lab-notebook line; docs speak to users and contributors"),
]
TMP = re.compile(_START + r"/tmp/")
# Relative paths that may climb: ../x, ../../x (in links, includes, CMake).
CLIMB = re.compile(r"(?<![\w.])((?:\.\./)+)[\w.-]*")
FENCE = re.compile(r"^\s*(```|~~~)")
SPAN = re.compile(r"`[^`\n]*`")


def list_files(root, use_git):
    if use_git:
        try:
            out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others",
                                  "--exclude-standard"], capture_output=True, check=True).stdout
            return sorted({p for p in out.decode().split("\0") if p})
        except (OSError, subprocess.CalledProcessError):
            pass
    files = []
    for d, subdirs, names in os.walk(root):
        # Build trees (they hold a CMakeCache.txt) and VCS folders are not sources.
        subdirs[:] = sorted(s for s in subdirs if s not in (".git", "__pycache__")
                            and not os.path.exists(os.path.join(d, s, "CMakeCache.txt")))
        for n in names:
            files.append(os.path.relpath(os.path.join(d, n), root).replace(os.sep, "/"))
    return sorted(files)


def read_text(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace")


def markdown_code_mask(lines):
    """For each line: None if in a fenced block, else the list of (start,
    end) column ranges of its code spans."""
    mask, fenced = [], False
    for line in lines:
        if FENCE.match(line):
            mask.append(None)
            fenced = not fenced
        elif fenced:
            mask.append(None)
        else:
            mask.append([m.span() for m in SPAN.finditer(line)])
    return mask


def check_file(root, rel, text):
    findings = []
    lines = text.split("\n")
    is_md = rel.endswith(".md")
    mask = markdown_code_mask(lines) if is_md else None
    here = os.path.dirname(os.path.join(root, rel))
    top = os.path.realpath(root)
    for n, line in enumerate(lines, 1):
        for rule, rx, msg in RULES:
            for m in rx.finditer(line):
                findings.append((n, m.start() + 1, rule, "%s: '%s'" % (msg, m.group(0).strip())))
        for m in TMP.finditer(line):
            if is_md:
                spans = mask[n - 1]
                if spans is None or any(a <= m.start() < b for a, b in spans):
                    continue
            findings.append((n, m.start() + 1, "tmp-path",
                             "path under /tmp/ outside a Markdown command; use mktemp, $TMPDIR or %t"))
        for m in CLIMB.finditer(line):
            target = os.path.realpath(os.path.join(here, m.group(0)))
            if target != top and not target.startswith(top + os.sep):
                findings.append((n, m.start() + 1, "outside-file",
                                 "'%s' climbs out of the repository" % m.group(0)))
    return findings


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--no-git", action="store_true", help="walk the folder even in a git checkout")
    a = ap.parse_args()
    if not os.path.isdir(a.root):
        print("check-self-contained: no such folder: %s" % a.root, file=sys.stderr)
        return 2
    checked = 0
    total = 0
    for rel in list_files(a.root, not a.no_git):
        if rel == SELF:
            continue
        text = read_text(os.path.join(a.root, rel))
        if text is None:
            continue
        checked += 1
        for line, col, rule, msg in sorted(check_file(a.root, rel, text)):
            print("%s:%d:%d: %s: %s" % (rel, line, col, rule, msg))
            total += 1
    if total:
        print("%d files checked: %d findings" % (checked, total))
        return 1
    print("%d files checked: no findings" % checked)
    return 0


if __name__ == "__main__":
    sys.exit(main())
