#!/usr/bin/env bash
# Bootstrap PETSc once into a cache directory outside the checkout, and reuse it when present.
#
#   config/bootstrap-petsc.sh            prints "PETSC_DIR PETSC_ARCH" on its last line
#
# Environment: VPATCH_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/petsc-vpatch),
#              PETSC_VERSION (default 3.26.1), CUDA_ARCH (default 90), VPATCH_WITH_CUDA (auto|0|1),
#              VPATCH_64BIT_INDICES (default 1: PetscInt is 64-bit; 0: 32-bit).
# Sources: PETSc's source distribution on PyPI; MPI, BLAS/LAPACK from Debian (config/deps.sh); petsc4py of the same
# version from PyPI, built against this PETSc into $dir/$arch/petsc4py (tutorials/petscvpatch.py finds it there).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ver=${PETSC_VERSION:-3.26.1}
cache=${VPATCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/petsc-vpatch}
dir=$cache/petsc-$ver
with_cuda=${VPATCH_WITH_CUDA:-auto}
if [ "$with_cuda" = auto ]; then
  if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then with_cuda=1; else with_cuda=0; fi
fi
# 64-bit PetscInt: a problem on several GPUs passes 2^31 unknowns (VPATCH_64BIT_INDICES=0: 32-bit, for comparison)
i64=${VPATCH_64BIT_INDICES:-1}
if [ "$with_cuda" = 1 ]; then arch=arch-vpatch-cuda; else arch=arch-vpatch; fi
if [ "$i64" = 1 ]; then arch=$arch-int64; fi
stamp=$dir/$arch/.vpatch-bootstrap-done

# petsc4py for this PETSc (its own stamp, so that a cache made before petsc4py was part of the bootstrap gets it too)
petsc4py() {
  local target=$dir/$arch/petsc4py
  [ -f "$target/.vpatch-petsc4py-done" ] && return 0
  echo "petsc-vpatch: building petsc4py $ver for $dir/$arch (pip, about 2-4 minutes)" >&2
  rm -rf "$target"
  local t0
  t0=$(date +%s)
  PETSC_DIR=$dir PETSC_ARCH=$arch python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --target "$target" "petsc4py==$ver" >&2 || {
    echo "petsc-vpatch: building petsc4py failed (the C library and tests do not need it; the Python tutorial does)" >&2
    return 1
  }
  echo "petsc-vpatch: petsc4py built in $(($(date +%s) - t0)) s" >&2
  touch "$target/.vpatch-petsc4py-done"
}

if [ -f "$stamp" ]; then
  echo "petsc-vpatch: reusing PETSc $ver at $dir/$arch" >&2
  petsc4py || true
  echo "$dir $arch"
  exit 0
fi

bash "$here/deps.sh" >&2
mkdir -p "$cache"
if [ ! -f "$dir/configure" ]; then
  echo "petsc-vpatch: downloading PETSc $ver source from PyPI" >&2
  tmp=$(mktemp -d)
  python3 -m pip download --quiet --no-binary :all: --no-deps "petsc==$ver" -d "$tmp" >&2
  tar xzf "$tmp"/petsc-"$ver".tar.gz -C "$cache"
  rm -rf "$tmp"
fi

cd "$dir"
# PETSc 3.26.1's CUDA vectors log the flops of VecAXPY, VecAYPX, VecAXPBY, VecWAXPY, VecDot, VecMDot and VecNorm as
# products of a 32-bit int length: past 2^30 entries per rank the count turns negative and -log_view stops the program
# at its end ("Minimum flop ... is negative! Not possible!", bench/RESULTS.md, session 34). The products in double
# instead (logging only; applied once, before the build)
f=src/vec/vec/impls/seq/cupm/vecseqcupm_impl.hpp
if [ "$ver" = 3.26.1 ] && [ -f "$f" ] && [ ! -f .vpatch-flops-patched ]; then
  sed -i -e 's/PetscLogGpuFlops((alphaIsOne ? 1 : 2) \* n)/PetscLogGpuFlops((alphaIsOne ? 1.0 : 2.0) * n)/' \
    -e 's/PetscLogGpuFlops((betaIsZero ? 1 : 3) \* n)/PetscLogGpuFlops((betaIsZero ? 1.0 : 3.0) * n)/' \
    -e 's/PetscLogGpuFlops(2 \* n)/PetscLogGpuFlops(2.0 * n)/' -e 's/PetscLogGpuFlops(2 \* n - 1)/PetscLogGpuFlops(2.0 * n - 1)/' \
    -e 's/PetscLogGpuFlops(nv \* (2 \* n - 1))/PetscLogGpuFlops(nv * (2.0 * n - 1))/' "$f"
  if grep -q 'PetscLogGpuFlops(\(2 \* n\|nv \* (2 \* n\|(alphaIsOne ? 1 :\|(betaIsZero ? 1 :\)' "$f"; then
    echo "petsc-vpatch: the flop counts of $f were not all changed" >&2
    exit 1
  fi
  touch .vpatch-flops-patched
fi
opts=(PETSC_ARCH="$arch" --with-debugging=0 --with-shared-libraries=1 --with-fc=0
      --with-cc=mpicc --with-cxx=mpicxx --with-blaslapack-lib="-llapack -lblas"
      COPTFLAGS=-O3 CXXOPTFLAGS=-O3 --with-x=0 --with-ssl=0)
if [ "$i64" = 1 ]; then opts+=(--with-64-bit-indices=1); fi
if [ "$with_cuda" = 1 ]; then
  cudadir=$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")
  opts+=(--with-cuda=1 --with-cuda-dir="$cudadir" --with-cuda-arch="${CUDA_ARCH:-90}" CUDAOPTFLAGS=-O3)
fi
echo "petsc-vpatch: configuring PETSc $ver ($arch): ${opts[*]}" >&2
t0=$(date +%s)
python3 ./configure "${opts[@]}" >&2
t1=$(date +%s)
make PETSC_DIR="$dir" PETSC_ARCH="$arch" MAKE_NP="$(nproc)" all >&2
t2=$(date +%s)
echo "petsc-vpatch: PETSc configure $((t1 - t0)) s, build $((t2 - t1)) s" >&2
touch "$stamp"
petsc4py || true
echo "$dir $arch"
