#!/usr/bin/env bash
# Fetch the CUDA-enabled UCX of PyPI (wheel libucx-cu13) once into the cache and print its directory. Open MPI's
# pml ucx over it moves device buffers between GPUs (cuda_ipc, cuda_copy) although Open MPI itself was built without
# CUDA; config/mpiexec-gpu.sh runs a program that way. Measured with 1.20.1 (bench/RESULTS.md, session 15).
# Environment: VPATCH_CACHE (as config/bootstrap-petsc.sh), UCX_VERSION (default 1.20.1).
set -euo pipefail
ver=${UCX_VERSION:-1.20.1}
cache=${VPATCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/petsc-vpatch}
dir=$cache/ucx-$ver
if [ ! -x "$dir/libucx/bin/ucx_info" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$tmp" "libucx-cu13==$ver" >&2 ||
    { echo "ucx.sh: pip could not fetch libucx-cu13==$ver from PyPI" >&2; exit 1; }
  python3 -m zipfile -e "$tmp"/libucx_cu13-*.whl "$tmp/w"
  [ -d "$tmp/w/libucx/lib/ucx" ] || { echo "ucx.sh: the wheel has no libucx/lib/ucx (layout changed?)" >&2; exit 1; }
  mkdir -p "$dir" && rm -rf "$dir/libucx" && cp -r "$tmp/w/libucx" "$dir/"
  chmod +x "$dir/libucx/bin/"*
fi
echo "$dir/libucx"
