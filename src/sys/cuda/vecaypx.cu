/*
  y = x + alpha y for real CUDA vectors in one pass (VecAYPX of the vectors DMQBOX creates, qboxveccuda.c).

  Why: PETSc 3.26's CUDA VecAYPX (vecseqcupm_impl.hpp) does y = alpha y with cuBLAS scal, then y += x with axpy when
  alpha is neither 0 nor 1: five passes over the vectors where three suffice. MatResidual() (r = b - A x: MatMult, then
  VecAYPX(r, -1, b)) and KSPRICHARDSON's residual call it once per multigrid level and cycle; at 455M unknowns the
  extra passes cost about 2 ms each.

  One element per thread (a grid-stride loop only past 2^31 - 1 blocks). The result is alpha y + x with one rounding (a
  fused multiply-add), where cuBLAS's two operations round twice.
*/
#include <petscvpatch/private/vpcuda.cuh>

#define VP_AYPX_THREADS 256

__global__ void __launch_bounds__(VP_AYPX_THREADS) VPAYPXKernel(PetscInt n, PetscScalar alpha, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y)
{
  const PetscInt stride = (PetscInt)gridDim.x * VP_AYPX_THREADS;
  for (PetscInt i = (PetscInt)blockIdx.x * VP_AYPX_THREADS + threadIdx.x; i < n; i += stride) y[i] = alpha * y[i] + x[i];
}

PetscErrorCode VPAYPX_CUDA(PetscInt n, PetscScalar alpha, const PetscScalar *x, PetscScalar *y)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VPGetStream(&stream));
  VPAYPXKernel<<<(unsigned)PetscMin((n + VP_AYPX_THREADS - 1) / VP_AYPX_THREADS, (PetscInt)2147483647), VP_AYPX_THREADS, 0, stream>>>(n, alpha, x, y);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}
