#!/usr/bin/env bash
# Pack what a GPU node without network needs to run this checkout's tests and benchmarks:
#   OUT/petsc-lib.tar.xz  the bootstrapped PETSc's shared library (stripped)
#   OUT/syslib/           runtime libraries of this machine that the node may lack (LAPACK(E), BLAS, gfortran, OpenMP)
#   OUT/ucx.tar.xz        the CUDA-enabled UCX of config/ucx.sh, when fetched (make ucx): device buffers between GPUs
#   OUT/petsc4py.tar.xz   petsc4py of the bootstrap (PETSC_DIR/PETSC_ARCH/petsc4py), for the Python tutorial; the node
#                         needs the same Python minor version
# Usage: config/pack.sh PETSC_DIR PETSC_ARCH [OUT] (OUT defaults to .carry). On the node, from the checkout's root:
#   P=$PETSC_DIR/$PETSC_ARCH/lib; mkdir -p $P && tar xJf .carry/petsc-lib.tar.xz -C $P
#   [ -f .carry/petsc4py.tar.xz ] && tar xJf .carry/petsc4py.tar.xz -C $PETSC_DIR/$PETSC_ARCH
#   export LD_LIBRARY_PATH=$PWD/lib:$PWD/.carry/syslib:$P PETSC_OPTIONS="-use_gpu_aware_mpi 0"
#   and for several GPUs: mkdir -p .carry/ucx && tar xJf .carry/ucx.tar.xz -C .carry/ucx
#   VPATCH_UCX_DIR=$PWD/.carry/ucx/libucx config/mpiexec-gpu.sh -n 2 program [args]
set -euo pipefail
dir=$1 arch=$2 out=${3:-.carry}
shopt -s nullglob
libs=("$dir/$arch"/lib/libpetsc.so.*)
[ ${#libs[@]} -gt 0 ] || { echo "pack.sh: no libpetsc.so.* in $dir/$arch/lib: build PETSc first (make lib)" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out/syslib"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
real=$(readlink -f "${libs[0]}")
cp "$real" "$tmp/"
strip --strip-unneeded "$tmp/$(basename "$real")"
# the soname links: libpetsc.so.X.Y and libpetsc.so point at the real file
for f in "${libs[@]}" "$dir/$arch/lib/libpetsc.so"; do
  b=$(basename "$f")
  [ "$b" = "$(basename "$real")" ] || ln -sf "$(basename "$real")" "$tmp/$b"
done
tar cJf "$out/petsc-lib.tar.xz" -C "$tmp" .
# runtime libraries: the first x86-64 match of each in the linker cache (awk reads all its input: no SIGPIPE)
for l in liblapacke.so.3 liblapack.so.3 libblas.so.3 libgfortran.so.5 libtmglib.so.3 libquadmath.so.0 libgomp.so.1; do
  p=$(ldconfig -p | awk -v l="$l" '$1 == l && /x86-64/ && !found {print $NF; found = 1}')
  if [ -n "$p" ]; then cp -L "$p" "$out/syslib/$l"; else echo "pack.sh: $l not found on this machine (skipped)" >&2; fi
done
# the UCX of config/ucx.sh, if fetched: its shared libraries, modules and ucx_info
cache=${VPATCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/petsc-vpatch}
ucx=""
for d in "$cache"/ucx-*/libucx; do [ -d "$d/lib/ucx" ] && ucx=$d; done
if [ -n "$ucx" ]; then
  tar cJf "$out/ucx.tar.xz" -C "$(dirname "$ucx")" --exclude='*.a' --exclude='*.la' --exclude='*perftest*' \
    --exclude='io_demo' --exclude='ucx_read_profile' --exclude=include --exclude=share libucx
else
  echo "pack.sh: no UCX fetched (make ucx): the node will stage exchanges between GPUs through host memory" >&2
fi
# petsc4py of the bootstrap (its extension finds libpetsc by its rpath, where the archive above is unpacked)
if [ -d "$dir/$arch/petsc4py/petsc4py" ]; then
  tar cJf "$out/petsc4py.tar.xz" -C "$dir/$arch" --exclude='__pycache__' --exclude='*.pyx' --exclude='*.pxd' --exclude='*.h' petsc4py
else
  echo "pack.sh: no petsc4py in $dir/$arch (make builds it): the node cannot run the Python tutorial" >&2
fi
du -sh "$out"/* >&2
