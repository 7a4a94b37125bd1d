#!/bin/sh
out=/@@tmp/result.txt
/usr/lib/@@llvm-14/bin/FileCheck check.txt < "$out"
cd /@@mnt/data && ls
