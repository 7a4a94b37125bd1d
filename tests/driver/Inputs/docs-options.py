"""docs/cli.md documents every command of commands.def (and every page of
`compile --target=NAME` of targets.def) in a section "### collc NAME", and every option that `collc help NAME`
lists (the option table's view) in that section; the common options in the
section "## Common options". usage: docs-options.py COLLC COMMANDS.DEF CLI.MD"""
import re
import subprocess
import sys

import os

collc, defs, doc = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read()
commands = [(n, [n]) for n in re.findall(r"^X\(\s*(\w+)\s*,", defs, re.M)]
# the pages of `compile --target=NAME` of targets.def, beside commands.def
targets = open(os.path.join(os.path.dirname(sys.argv[2]), "targets.def")).read()
for name in re.findall(r"^TARGET_PAGE\(\s*(\w+)\s*,", targets, re.M):
    shown = "compile --target=" + name
    commands.append((shown, shown.split() + ["--help"]))


def section(title):
    """The text from the heading `title` to the next heading of its level."""
    level = title.split(" ")[0]
    m = re.search(r"^%s$" % re.escape(title), doc, re.M)
    if not m:
        return None
    end = re.search(r"^#{1,%d} " % len(level), doc[m.end():], re.M)
    return doc[m.end():m.end() + end.start()] if end else doc[m.end():]


def spellings(page, heading):
    """The option spellings of one part of a help page: "-N", "--root",
    "-emit-llvm", "--emit-llvm", "-Werror", "-Wno-", "-h", "--help"."""
    m = re.search(r"^%s\n(.*?)(?:\n\n|\Z)" % re.escape(heading), page, re.M | re.S)
    found = []
    for line in (m.group(1).splitlines() if m else []):
        if not line.startswith("  -"):
            continue
        synopsis = re.split(r"\s{2,}", line.strip())[0]
        for part in synopsis.split(", "):
            name = re.match(r"-[-A-Za-z]*?(?=[ =\[]|[A-Z]{2,}|$)", part)
            found.append(name.group(0) if name else part)
    return found


def documented(text, spelling):
    # "-Wno-" is followed by its CODE; any other spelling ends where it ends
    after = "" if spelling.endswith("-") else r"(?![\w])"
    return re.search(r"(?<![\w-])%s%s" % (re.escape(spelling), after), text) is not None


problems = []
common = section("## Common options") or ""
for name, argv in commands:
    text = section("### collc " + name)
    if text is None:
        problems.append("%s: no section '### collc %s'" % (name, name))
        continue
    page = subprocess.run([collc] + (["help"] + argv if argv[-1] != "--help" else argv),
                          capture_output=True, text=True).stdout
    own = spellings(page, "options:" if "\ncommon options:" in page else "")
    if "\ncommon options:" not in page:
        own = []  # only common options: check lists them under "options:"
    for s in own:
        if not documented(text, s):
            problems.append("%s: %s is not in its section of docs/cli.md" % (name, s))
    for s in spellings(page, "common options:" if "\ncommon options:" in page else "options:"):
        if not documented(common, s):
            problems.append("%s: common option %s is not under '## Common options'" % (name, s))
if "-v" in sys.argv[4:]:
    for name, argv in commands:
        page = subprocess.run([collc] + (["help"] + argv if argv[-1] != "--help" else argv),
                              capture_output=True, text=True).stdout
        print(name, spellings(page, "options:"), spellings(page, "common options:"))
for p in problems:
    print(p)
print("%d commands, %d problems" % (len(commands), len(problems)))
