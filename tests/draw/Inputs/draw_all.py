"""draw_all.py COLLC EXAMPLES_DIR TMP_PREFIX: draws every example at N = 8
(svg and dot), checks that each SVG is well-formed XML, prints failures."""
import glob
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

collc, examples, tmp = sys.argv[1:4]
bad = 0
files = sorted(glob.glob(os.path.join(examples, "*.coll")))
for f in files:
    out = tmp + "." + os.path.basename(f) + ".svg"
    r = subprocess.run([collc, "draw", f, "-N", "8", "-o", out], capture_output=True, text=True)
    if r.returncode != 0:
        print("FAILED draw", os.path.basename(f), r.stderr.strip())
        bad += 1
        continue
    try:
        ET.parse(out)
    except ET.ParseError as e:
        print("FAILED xml", os.path.basename(f), e)
        bad += 1
    r = subprocess.run([collc, "draw", f, "-N", "8", "--format=dot"], capture_output=True, text=True)
    if r.returncode != 0 or not r.stdout.startswith("digraph"):
        print("FAILED dot", os.path.basename(f))
        bad += 1
print(f"drew {len(files)} examples, {bad} failures")
