#!/usr/bin/env bash
# Pack what a GPU node without network needs to run this checkout's tests and benchmarks:
#   .carry/petsc-lib.tar.xz  the bootstrapped PETSc's shared library (stripped)
#   .carry/syslib/           runtime libraries of this machine that the node may lack (LAPACK(E), BLAS, gfortran)
# Usage: config/pack.sh PETSC_DIR PETSC_ARCH. On the node, from the checkout's root:
#   P=$PETSC_DIR/$PETSC_ARCH/lib; mkdir -p $P && tar xJf .carry/petsc-lib.tar.xz -C $P
#   export LD_LIBRARY_PATH=$PWD/lib:$PWD/.carry/syslib:$P PETSC_OPTIONS="-use_gpu_aware_mpi 0"
set -euo pipefail
dir=$1 arch=$2
out=.carry
rm -rf "$out" && mkdir -p "$out/syslib"
tmp=$(mktemp -d)
cp -L "$dir/$arch"/lib/libpetsc.so.* "$tmp/" 2>/dev/null || true
for f in "$tmp"/*; do strip --strip-unneeded "$f"; done
# keep the soname links
(cd "$tmp" && real=$(ls libpetsc.so.*.*.* | head -n 1) && for f in libpetsc.so.*; do [ "$f" = "$real" ] || ln -sf "$real" "$f"; done && ln -sf "$real" libpetsc.so)
tar cJf "$out/petsc-lib.tar.xz" -C "$tmp" .
rm -rf "$tmp"
for l in liblapacke.so.3 liblapack.so.3 libblas.so.3 libgfortran.so.5 libtmglib.so.3 libquadmath.so.0; do
  p=$(ldconfig -p | awk -v l="$l" '$1 == l && /x86-64/ {print $NF; exit}')
  [ -n "$p" ] && cp -L "$p" "$out/syslib/$l"
done
du -sh "$out"/* >&2
