"""Prints the first fenced block of language LANG after the heading HEADING
of a Markdown file, so that a test runs the example the docs show.

    md_block.py FILE HEADING LANG
"""
import sys

path, heading, lang = sys.argv[1:4]
lines = open(path, encoding="utf-8").read().split("\n")
try:
    start = next(i for i, l in enumerate(lines) if l.lstrip("#").strip() == heading and l.startswith("#"))
except StopIteration:
    sys.exit(f"{path}: no heading '{heading}'")
out, inside = [], False
for l in lines[start + 1:]:
    if not inside and l.startswith("#"):
        break
    if not inside and l.strip() == "```" + lang:
        inside = True
        continue
    if inside and l.strip() == "```":
        print("\n".join(out))
        sys.exit(0)
    if inside:
        out.append(l)
sys.exit(f"{path}: no ```{lang} block under '{heading}'")
