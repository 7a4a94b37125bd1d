"""Every command of commands.def is listed by `collc --help` and answers
`collc help CMD` / `collc CMD --help` with exit 0 and a usage line on stdout
(scripts/demo.sh and users rely on it); its help page (generated from the
option table) lists its arguments, options and exit status; a bogus option
is a usage error (exit 2). usage: every-command.py COLLC COMMANDS.DEF"""
import re
import subprocess
import sys

collc, defs = sys.argv[1], sys.argv[2]
text = open(defs).read()
# X(name, ...) rows, and XS(id, "shown", ...) rows of names that are no C identifier
names = [a or b for a, b in re.findall(r'^X\(\s*(\w+)\s*,|^XS\(\s*\w+\s*,\s*"([\w-]+)"', text, re.M)]
top = subprocess.run([collc, "--help"], capture_output=True, text=True)
bad = 0
for n in names:
    problems = []
    if not re.search(r"^  %s\b" % re.escape(n), top.stdout, re.M):
        problems.append("not listed by collc --help")
    for argv in ([collc, "help", n], [collc, n, "--help"]):
        p = subprocess.run(argv, capture_output=True, text=True)
        if p.returncode != 0 or "usage: collc %s" % n not in p.stdout:
            problems.append("'%s' exit %d, stdout %r" % (" ".join(argv[1:]), p.returncode,
                                                         p.stdout[:80]))
        for section in ("\narguments:\n  FILE", "options:\n  -D ",
                        "\nexit status:\n  0  ", "\n  1  ", "\n  2  usage error"):
            if section not in p.stdout:
                problems.append("'%s' has no %r" % (" ".join(argv[1:]), section.strip()))
    p = subprocess.run([collc, n, "--no-such-option"], capture_output=True, text=True)
    if p.returncode != 2:
        problems.append("unknown option: exit %d instead of 2" % p.returncode)
    for pr in problems:
        print("%s: %s" % (n, pr))
    bad += bool(problems)
print("%d commands, %d with problems" % (len(names), bad))
