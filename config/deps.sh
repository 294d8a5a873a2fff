#!/usr/bin/env bash
# Install the Debian packages petsc-vpatch needs (MPI, LAPACK/LAPACKE, BLAS) when they are missing.
set -euo pipefail
pkgs=(libopenmpi-dev openmpi-bin liblapack-dev liblapacke-dev libblas-dev python3 make pkg-config)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "petsc-vpatch: installing Debian packages: ${missing[*]}"
if [ "$(id -u)" = 0 ]; then sudo=""; elif command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
  echo "petsc-vpatch: please run: apt-get install ${missing[*]}" >&2; exit 1
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
