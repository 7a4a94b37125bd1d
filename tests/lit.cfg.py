# lit.cfg.py - the collc lit suite.
#
# Normally loaded through the lit.site.cfg.py that CMake writes into
# <build>/tests (it knows where this build's collc, lit and FileCheck are);
# build/tests/lit runs the lit that CMake found:
#     build/tests/lit -sv build/tests
# Running lit on the source folder also works; collc is then taken from
# --param collc=PATH, $COLLC, or build/compiler/collc, and FileCheck from
# --param filecheck=PATH, $FILECHECK, `llvm-config-14 --bindir` or PATH:
#     build/tests/lit -sv tests/
#
# Substitutions: %collc %FileCheck %examples %srcroot %builddir %python %cc
# %run_compiled (plus lit's %s %t %S %T %p); `FileCheck`, `not`, `count` and
# `split-file` from LLVM 14 are on PATH. Features: asan (ASan+UBSan build), tsan.
# Test files: *.test, and *.coll *.c *.sh that contain a RUN: line (other
# such files are ctest unit-test sources or inputs). Inputs/ folders are
# never searched; put the files your tests read there.
import os
import shlex
import shutil
import subprocess
import sys

import lit.formats
import lit.util



# The format lives in its own module: lit pickles it for its workers.
sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from collc_lit_format import CollcTest  # noqa: E402

config.name = "collc"
config.test_format = CollcTest(execute_external=False)
config.suffixes = [".coll", ".test", ".c", ".sh"]
# Inputs/ folders hold files that tests read; they are not tests themselves.
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py",
                   "lit.site.cfg.py.in", "README.md", "collc_lit_format.py", "__pycache__"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))


def find_filecheck():
    """FileCheck without a site config: the one named by --param or
    $FILECHECK, else LLVM 14's (llvm-config-14 --bindir), else PATH's."""
    named = lit_config.params.get("filecheck", os.environ.get("FILECHECK"))
    if named:
        return named
    for llvm_config in ("llvm-config-14", "llvm-config"):
        try:
            bindir = subprocess.run([llvm_config, "--bindir"], capture_output=True,
                                    text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            continue
        if os.path.exists(os.path.join(bindir, "FileCheck")):
            return os.path.join(bindir, "FileCheck")
    found = shutil.which("FileCheck") or shutil.which("FileCheck-14")
    if not found:
        lit_config.fatal("FileCheck not found: install the Debian package llvm-14-tools, "
                         "or pass --param filecheck=PATH")
    return found


src_root = getattr(config, "collc_src_root", None) or os.path.dirname(config.test_source_root)
if not getattr(config, "collc_bin", None):
    # Run on the source tree without a site config.
    obj_root = os.environ.get("COLLC_BUILD", os.path.join(src_root, "build"))
    config.collc_src_root = src_root
    config.collc_obj_root = obj_root
    config.collc_bin = lit_config.params.get(
        "collc", os.environ.get("COLLC", os.path.join(obj_root, "compiler", "collc")))
    config.filecheck = find_filecheck()
    config.python = lit_config.params.get("python", "python3")
    config.cc = os.environ.get("CC", "cc")
    config.cc_flags = ""
    config.sanitize = False
    config.tsan = False
    config.test_exec_root = os.path.join(obj_root, "tests")

if not os.path.exists(config.collc_bin):
    lit_config.fatal("collc not built: %s (run cmake --build first)" % config.collc_bin)

llvm_bin = os.path.dirname(config.filecheck)
config.environment["PATH"] = os.pathsep.join(
    [os.path.dirname(config.collc_bin), llvm_bin, config.environment.get("PATH", os.environ.get("PATH", ""))])
# Diagnostics must not depend on the terminal or the user's locale.
config.environment["LC_ALL"] = "C"
config.environment["TERM"] = "dumb"
config.environment.pop("NO_COLOR", None)
for var in ("HOME", "TMPDIR", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS",
            "TSAN_OPTIONS", "OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM",
            "OMPI_MCA_op", "COLLC_FUZZ_MUTANTS", "COLLC_FUZZ_SECONDS"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
if config.sanitize:
    config.available_features.add("asan")
    # Make every sanitizer finding a failure with a report, never silent.
    config.environment.setdefault(
        "ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0:halt_on_error=1:strict_string_checks=1")
    config.environment.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
if config.tsan:
    config.available_features.add("tsan")

examples = os.path.join(src_root, "dsl-examples")
cc = config.cc + ((" " + config.cc_flags) if config.cc_flags else "")

# Longest names first: lit applies substitutions in order.
# %run_compiled OUTDIR FILE ALG COLLECTIVE [compile options]: both backends
# linked with tests/e2e/e2e_main.c and run over its matrix (run-compiled.sh).
config.substitutions.append(("%run_compiled", " ".join(shlex.quote(a) for a in (
    "sh", os.path.join(src_root, "tests", "e2e", "run-compiled.sh"), config.collc_bin, cc,
    src_root, config.collc_obj_root))))
config.substitutions.append(("%FileCheck", shlex.quote(config.filecheck)))
config.substitutions.append(("%examples", shlex.quote(examples)))
config.substitutions.append(("%srcroot", shlex.quote(src_root)))
config.substitutions.append(("%builddir", shlex.quote(config.collc_obj_root)))
config.substitutions.append(("%python", shlex.quote(config.python)))
config.substitutions.append(("%collc", shlex.quote(config.collc_bin)))
config.substitutions.append(("%cc", cc))
