#!/usr/bin/env python3
"""Runs a command and prints its exit status and whether its peak resident
memory stayed under a bound (in MB).

Usage: max_rss.py LIMIT_MB CMD ARGS...   (prints "rc R, rss under LIMIT MB: yes|no (N MB)")
"""
import resource
import subprocess
import sys


def main():
    limit = float(sys.argv[1])
    rc = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL).returncode
    rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0  # KiB on Linux
    print("rc %d, rss under %g MB: %s (%.0f MB)" % (rc, limit, "yes" if rss_mb < limit else "no", rss_mb))


if __name__ == "__main__":
    main()
