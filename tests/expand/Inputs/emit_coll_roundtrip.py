"""Every example, expanded, written back with `collc expand --emit=coll` and
expanded again, must give the same schedule (the step lines name source
lines, which differ, and are compared without them).

usage: emit_coll_roundtrip.py COLLC EXAMPLES_DIR TMPDIR"""
import glob
import os
import re
import subprocess
import sys

collc, examples, tmp = sys.argv[1:4]
os.makedirs(tmp, exist_ok=True)
STEP_LINE = re.compile(r"^(step \d+) line \d+:")
# a called algorithm's scratch `callee.buf#k` is written back as callee__buf__k
CALLEE_BUFFER = re.compile(r"\b([A-Za-z_]\w*)\.([A-Za-z_]\w*)(?:#(\d+))?")


def callee_buffer(m):
    return m.group(1) + "__" + m.group(2) + ("__" + m.group(3) if m.group(3) else "")


def expand(path, n, root):
    r = subprocess.run([collc, "expand", path, "-N", str(n), "--root", str(root)],
                       capture_output=True, text=True)
    return r.returncode, [STEP_LINE.sub(r"\1:", l) for l in r.stdout.splitlines()]


checked = failed = 0
for ex in sorted(glob.glob(os.path.join(examples, "*.coll"))):
    name = os.path.basename(ex)[:-5]
    for n, root in ((1, 0), (5, 0), (8, 0), (8, 3)):
        rc, want = expand(ex, n, root)
        if rc != 0:
            continue  # a `require` excludes this N
        out = os.path.join(tmp, "%s.%d.%d.coll" % (name, n, root))
        r = subprocess.run([collc, "expand", ex, "-N", str(n), "--root", str(root), "--emit=coll"],
                           capture_output=True, text=True)
        with open(out, "w") as f:
            f.write(r.stdout)
        rc2, got = expand(out, n, root)
        # the printed algorithm is named like the original and has no params
        want = [CALLEE_BUFFER.sub(callee_buffer, l) for l in want if not l.startswith("params ")]
        checked += 1
        if r.returncode != 0 or rc2 != 0 or got != want:
            failed += 1
            print("FAILED %s N=%d root=%d" % (name, n, root))
print("checked %d schedules, %d failed" % (checked, failed))
