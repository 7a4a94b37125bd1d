"""Checks the "never" rules of the layering on the #include lines of the
tree: usage check_includes.py SRCROOT. Prints one line per violation and
"includes: N files, M violations"."""
import os
import re
import sys

root = sys.argv[1]
COMPILER_FOLDERS = {"support", "front", "schedule", "analysis", "lower", "emit", "driver"}
# compiler/<folder> never includes these folders (an include counts as a use)
NEVER = {
    "front": {"analysis", "emit", "schedule", "lower", "driver"},
    "analysis": {"lower", "emit", "driver"},
    "schedule": {"analysis", "lower", "emit", "driver"},
    "lower": {"schedule", "analysis", "emit", "driver"},
    "support": COMPILER_FOLDERS - {"support"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def sources(top):
    for d, _, files in os.walk(os.path.join(root, top)):
        for f in sorted(files):
            if f.endswith((".c", ".h", ".def", ".l", ".y")):
                yield os.path.join(d, f)


def basenames(top):
    return {f for _, _, files in os.walk(os.path.join(root, top)) for f in files}


target_headers = basenames("targets") - basenames("runtime")
nfiles = bad = 0
for top in ("compiler", "runtime", "targets"):
    for path in sources(top):
        nfiles += 1
        rel = os.path.relpath(path, root)
        parts = rel.split(os.sep)
        text = open(path, encoding="utf-8", errors="replace").read()
        for inc in INCLUDE.findall(text):
            first = inc.split("/")[0] if "/" in inc else None
            why = None
            if top == "compiler" and first in NEVER.get(parts[1], ()):
                why = f"{parts[1]}/ never uses {first}/"
            elif top in ("runtime", "targets") and first in COMPILER_FOLDERS:
                why = f"{top}/ never uses compiler code"
            elif top == "runtime" and os.path.basename(inc) in target_headers:
                why = "runtime/ never uses targets/"
            if why:
                bad += 1
                print(f"{rel}: #include \"{inc}\": {why}")
print(f"includes: {nfiles} files, {bad} violations")
