/* Device helpers of the DMQBOX exchanges: the owned part between a global vector (the owned box) and a local vector
   (the ghosted box), zeroing a ghosted buffer, and the packing of the color exchanges (qboxcolor.c) */
#include <petscvpatch/private/vpcuda.cuh>

/* one block per row (fixed y, z) of the owned box, the threads along x */
__global__ void VPOwnedCopyKernel(VPGrid g, int mode, PetscScalar *__restrict__ glob, PetscScalar *__restrict__ loc)
{
  const int      rows = (int)(g.xm[1] * g.xm[2]);
  const PetscInt m0   = g.xm[0];
  for (int r = blockIdx.x; r < rows; r += gridDim.x) {
    const int      i1 = r % (int)g.xm[1], i2 = r / (int)g.xm[1];
    const PetscInt go = (PetscInt)r * m0;
    const PetscInt lo = ((PetscInt)(i2 + g.xs[2] - g.gxs[2]) * g.gxm[1] + (i1 + g.xs[1] - g.gxs[1])) * g.gxm[0] + (g.xs[0] - g.gxs[0]);
    for (PetscInt i = threadIdx.x; i < m0; i += blockDim.x) {
      if (mode == 0)
        loc[lo + i] = glob[go + i];
      else if (mode == 1)
        glob[go + i] = loc[lo + i];
      else
        glob[go + i] += loc[lo + i];
    }
  }
}

PetscErrorCode VPOwnedCopy_CUDA(const VPGrid *g, VPOwnedCopyMode mode, PetscScalar *glob, PetscScalar *loc)
{
  const PetscInt rows = g->xm[1] * g->xm[2];
  cudaStream_t   stream;

  PetscFunctionBegin;
  if (!rows || !g->xm[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VPGetStream(&stream));
  VPOwnedCopyKernel<<<(unsigned)PetscMin(rows, 1 << 30), g->xm[0] >= 256 ? 256 : 128, 0, stream>>>(*g, (int)mode, glob, loc);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a ghosted vector buffer (qboxghosted.c), zeroed, from the stream-ordered pool on the kernels' stream, where PETSc's CUDA
   vectors come from too: buffers MPI never sees (the exchanges pack into the star forests' own) */
PetscErrorCode VPBufferAlloc_CUDA(size_t n, PetscScalar **a)
{
  cudaStream_t stream;
  cudaError_t  err;

  PetscFunctionBegin;
  PetscCall(VPGetStream(&stream));
  err = cudaMallocAsync((void **)a, PetscMax(n, 1) * sizeof(PetscScalar), stream);
  if (err != cudaSuccess) {
    (void)cudaGetLastError(); /* not sticky: the caller reports the memory left */
    *a = NULL;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VPZero_CUDA(*a, n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPBufferFree_CUDA(PetscScalar *a)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!a) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VPGetStream(&stream));
  PetscCallCUDA(cudaFreeAsync(a, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPZero_CUDA(PetscScalar *a, size_t n)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VPGetStream(&stream));
  PetscCallCUDA(cudaMemsetAsync(a, 0, n * sizeof(PetscScalar), stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPCopy_CUDA(PetscScalar *dst, const PetscScalar *src, size_t n)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VPGetStream(&stream));
  PetscCallCUDA(cudaMemcpyAsync(dst, src, n * sizeof(PetscScalar), cudaMemcpyDeviceToDevice, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the packed values of an exchange: packed[i] = loc[idx[i]] (0 where idx[i] < 0, padding), or loc[idx[i]] = (or +=)
   packed[i] */
__global__ void VPIndexedCopyKernel(PetscInt n, const PetscInt *__restrict__ idx, int mode, PetscScalar *__restrict__ packed, PetscScalar *__restrict__ loc)
{
  for (PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    const PetscInt j = idx[i];
    if (mode == VP_UNPACK) {
      if (j >= 0) loc[j] = packed[i];
    } else if (mode == VP_UNPACK_ADD) {
      if (j >= 0) loc[j] += packed[i];
    } else
      packed[i] = j >= 0 ? loc[j] : (PetscScalar)0;
  }
}

PetscErrorCode VPIndexedCopy_CUDA(PetscInt n, const PetscInt *idx, VPIndexedCopyMode mode, PetscScalar *packed, PetscScalar *loc)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VPGetStream(&stream));
  VPIndexedCopyKernel<<<(unsigned)PetscMin((n + 255) / 256, 65536), 256, 0, stream>>>(n, idx, (int)mode, packed, loc);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one block per run: idx[pos + i] = first + i */
__global__ void VPRunsExpandKernel(PetscInt nrun, const PetscInt *__restrict__ run, PetscInt *__restrict__ idx)
{
  for (PetscInt r = blockIdx.x; r < nrun; r += gridDim.x) {
    const PetscInt first = run[3 * r], len = run[3 * r + 1], pos = run[3 * r + 2];
    for (PetscInt i = threadIdx.x; i < len; i += blockDim.x) idx[pos + i] = first + i;
  }
}

PetscErrorCode VPRunsExpand_CUDA(PetscInt nrun, const PetscInt *run, PetscInt n, PetscInt *idx)
{
  cudaStream_t stream;
  PetscInt    *d_run;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VPGetStream(&stream));
  PetscCallCUDA(cudaMemsetAsync(idx, 0xff, n * sizeof(PetscInt), stream)); /* -1: padding */
  if (nrun) {
    PetscCallCUDA(cudaMallocAsync((void **)&d_run, 3 * nrun * sizeof(PetscInt), stream));
    PetscCallCUDA(cudaMemcpyAsync(d_run, run, 3 * nrun * sizeof(PetscInt), cudaMemcpyHostToDevice, stream));
    VPRunsExpandKernel<<<(unsigned)PetscMin(nrun, 65536), 128, 0, stream>>>(nrun, d_run, idx);
    PetscCallCUDA(cudaGetLastError());
    PetscCallCUDA(cudaFreeAsync(d_run, stream));
  }
  PetscCallCUDA(cudaStreamSynchronize(stream)); /* set-up only: the lists complete before any stream uses them */
  PetscFunctionReturn(PETSC_SUCCESS);
}
