/* Device helper: the owned Dirichlet rows of a level (identity rows) */
#include <petscvpatch/private/vpcuda.cuh>

__global__ void VPOwnedBoundaryKernel(VPGrid g, const PetscScalar *__restrict__ src, PetscScalar *__restrict__ dst, bool local)
{
  const PetscInt n = (PetscInt)g.xm[0] * g.xm[1] * g.xm[2];
  for (PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    const int px = g.xs[0] + (int)(i % g.xm[0]), py = g.xs[1] + (int)((i / g.xm[0]) % g.xm[1]), pz = g.xs[2] + (int)(i / ((PetscInt)g.xm[0] * g.xm[1]));
    if (!VPDIsBoundary(g, px, py, pz)) continue;
    const PetscInt idx = local ? VPDLocalIndex(g, px, py, pz) : i;
    dst[idx]           = src ? src[idx] : (PetscScalar)1.0;
  }
}

PetscErrorCode VPOwnedBoundary_CUDA(const VPGrid *g, const PetscScalar *src, PetscScalar *dst, PetscBool local)
{
  PetscInt     n = (PetscInt)g->xm[0] * g->xm[1] * g->xm[2];
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(VPGetStream(&stream));
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  VPOwnedBoundaryKernel<<<(int)PetscMin((n + 255) / 256, 65535), 256, 0, stream>>>(*g, src, dst, local ? true : false);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}
