#!/usr/bin/env bash
# mpiexec with device buffers between GPUs: Open MPI's pml ucx over the CUDA-enabled UCX of config/ucx.sh (or
# VPATCH_UCX_DIR, e.g. .carry/ucx/libucx on a node without network), and -vpatch_exchange_device (the DM's and
# PCAUXAMG's device buffers), which probe that MPI really moves device memory before it is used. Without Open MPI's
# pml ucx or without that UCX, plain mpiexec: the exchanges are staged through host memory.
# Usage: config/mpiexec-gpu.sh -n 2 program [args]
set -euo pipefail
# as root (the README's set-up on a fresh machine or a container) Open MPI refuses to start unless told that is meant
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
u=${VPATCH_UCX_DIR:-}
if [ -z "$u" ]; then
  cache=${VPATCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/petsc-vpatch}
  for d in "$cache"/ucx-*/libucx; do [ -d "$d/lib/ucx" ] && u=$d; done
fi
info=$(ompi_info 2>/dev/null || true) # whole, then searched: grep -q on a pipe would end ompi_info by SIGPIPE (pipefail)
if [ -z "$u" ] || [ ! -d "$u/lib/ucx" ] || ! grep -q "MCA pml: ucx" <<< "$info"; then
  echo "mpiexec-gpu.sh: no Open MPI pml ucx or no CUDA-enabled UCX (make ucx): exchanges staged through host memory" >&2
  exec mpiexec "$@"
fi
export LD_LIBRARY_PATH=$u/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export UCX_MODULE_DIR=$u/lib/ucx
export UCX_MEMTYPE_CACHE=n # PETSc's allocations bypass the hooks of UCX's memory-type cache: detect each buffer
# UCX 1.20's cuda_ipc caches a peer's buffer mappings by address: a device buffer MPI saw and that was freed, its
# range then given out again as another allocation, made exchanges fail ("cuIpcOpenMemHandle() failed: resource already
# mapped", or "operation not permitted" and a hang). Every device buffer the DM hands to MPI now comes from a pool that
# goes back to CUDA only at PetscFinalize() (src/sys/vpdevicempi.c; bench/RESULTS.md session 28).
# PETSc's own start-up check of a CUDA-aware MPI (a collective on device memory) fails on this MPI: the DM's star
# forests and PCAUXAMG's take device buffers by themselves (-vpatch_exchange_device: the default of every DMQBOX's
# -dm_qbox_exchange_device and every PCAUXAMG's -pc_auxamg_exchange_device, read once by the package, so that no
# program is left with an unused option), the rest of PETSc stays staged
case " ${PETSC_OPTIONS:-} " in *use_gpu_aware_mpi*) ;; *) PETSC_OPTIONS="${PETSC_OPTIONS:-} -use_gpu_aware_mpi 0" ;; esac
export PETSC_OPTIONS="$PETSC_OPTIONS -vpatch_exchange_device"
exec mpiexec --mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any \
  -x LD_LIBRARY_PATH -x UCX_MODULE_DIR -x UCX_MEMTYPE_CACHE -x PETSC_OPTIONS "$@"
