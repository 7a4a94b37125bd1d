"""The targets whose output links a runtime (the Target rows' CMake names,
as `collc help compile` lists them: "NAME (...; links LIB, CMake IMPORTED)")
are the TARGET values cmake/CollcFunctions.cmake's collc_add_algorithm
accepts, each linking that imported library ("<mpi>" stands for the MPI
library's name), and the function accepts no other.
usage: targets-cmake.py COLLC COLLCFUNCTIONS.CMAKE"""
import re
import subprocess
import sys

collc, cmake = sys.argv[1], open(sys.argv[2]).read()
page = " ".join(subprocess.run([collc, "help", "compile"], capture_output=True, text=True).stdout.split())
rows = re.findall(r"(\w+) \((?:the default; )?[^()]*?(?:\([^()]*\)[^()]*?)*; links ([\w.-]+), CMake ([\w:<>_]+)\)", page)
problems = []
if not rows:
    problems.append("no target with a CMake name in collc help compile")
accepted = re.findall(r'CA_TARGET STREQUAL "(\w+)"', cmake)
for name, lib, imported in rows:
    if name not in accepted:
        problems.append("%s: not a TARGET of collc_add_algorithm" % name)
        continue
    # the branch of that TARGET sets _lib to the imported library
    branch = cmake.split('CA_TARGET STREQUAL "%s"' % name, 1)[1].split("elseif", 1)[0].split("else()", 1)[0]
    want = imported.replace("<mpi>", "${_mpi}")
    if "set(_lib %s)" % want not in branch:
        problems.append("%s: collc_add_algorithm does not link %s" % (name, imported))
for name in accepted:
    if name not in [r[0] for r in rows]:
        problems.append("%s: a TARGET of collc_add_algorithm without a CMake name in the table" % name)
for p in problems:
    print(p)
print("%d targets with a CMake name, %d problems" % (len(rows), len(problems)))
