#!/usr/bin/env bash
# setup.sh - install the Debian packages collc needs, only those missing.
# Runs apt-get (update + install) only when something is missing; needs root
# (or sudo) in that case. Safe to run repeatedly: a no-op on a set-up machine.
set -euo pipefail

PACKAGES=(
  build-essential cmake flex bison          # the compiler build
  llvm-14-dev llvm-14-tools                 # LLVM-C, FileCheck, lit
  clang libclang-rt-14-dev                  # clang + sanitizer runtimes
  python3                                   # lit, test scripts
  libexpat1-dev                             # the XML reader (MSCCL-IR input)
  openmpi-bin libopenmpi-dev                # MPI target (Open MPI)
  mpich libmpich-dev                        # MPI target (MPICH)
  iproute2 util-linux                       # the emulated cluster (scripts/cluster.sh)
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    echo "setup: error: missing packages (${missing[*]}) and not root; run as root" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -q
"${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "setup: done"
