#!/usr/bin/env python3
"""check-diag-codes.py - list the diagnostic codes used in the sources and
whether a page under docs/ mentions each (docs/diagnostics.md is the
catalogue). A code is found as the first string argument that follows the
span of a call to a function whose name contains error/warning/report/warn,
e.g. diag_error(dx, span, "code", ...), parse_error_at(ps, sp, "code", ...).

usage: python3 scripts/check-diag-codes.py [--all]
Prints the undocumented codes (with --all: every code) and exits 1 if there
are any. A developer aid, not part of the test suite."""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CALL = re.compile(r'\b\w*(?:error|warning|report|warn)\w*\s*\(([^;"]*?),\s*'
                  r'"([a-z][a-z0-9]*(?:-[a-z0-9]+)*)"', re.S)


def main():
    codes = {}
    sources = (glob.glob(ROOT + "/compiler/**/*.[cly]", recursive=True)
               + glob.glob(ROOT + "/targets/**/*.c", recursive=True))
    for f in sources:
        text = open(f, errors="replace").read()
        for m in CALL.finditer(text):
            codes.setdefault(m.group(2), set()).add(os.path.relpath(f, ROOT))
    docs = "".join(open(f, errors="replace").read() for f in glob.glob(ROOT + "/docs/*.md"))
    missing = 0
    for code in sorted(codes):
        ok = re.search(r"(?<![\w-])" + re.escape(code) + r"(?![\w-])", docs) is not None
        missing += not ok
        if not ok or "--all" in sys.argv:
            print("%-24s %-12s %s" % (code, "documented" if ok else "UNDOCUMENTED",
                                      " ".join(sorted(codes[code]))))
    print("%d codes, %d undocumented" % (len(codes), missing))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
