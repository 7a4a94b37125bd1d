"""Runs a command with stdout and stderr merged, prints its output and then
"exit N" so that lit tests can check an exact exit status (lit's `not` only
says non-zero). A signal shows as "exit -SIG"."""
import subprocess
import sys

p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
sys.stdout.write(p.stdout.decode("utf-8", "backslashreplace"))
sys.stdout.write("exit %d\n" % p.returncode)
sys.exit(0)
