/*
  Vector operations of real CUDA vectors with 64-bit lengths: the operations of the DMQBOX vectors whose rank holds
  more than 2^31 - 1 values (qboxveccuda.c installs them).

  Why: PETSc 3.26's CUDA vectors hand their local length to cuBLAS as a 32-bit int (vecseqcupm_impl.hpp: AXPY, AYPX,
  AXPBY, WAXPY, Scale, Swap, Dot, TDot, MDot, Norm), and its MAXPY kernel numbers the entries in 32-bit unsigned
  arithmetic. Past 2^31 - 1 values on one rank they would fail or work on a wrapped length. Every index here is a
  PetscInt (64-bit in the bootstrapped PETSc); one element per thread, a grid-stride loop past 2^31 - 1 blocks. The
  reductions (dot products, norms) are VPMDot_CUDA() and VPNorm_CUDA() in vecmdot.cu.

  Where a coefficient is zero the term is not read, as PETSc's operations do (a NaN in an output vector that is about
  to be overwritten must not survive).
*/
#include <petscvpatch/private/vpcuda.cuh>

#define VP_VEC_THREADS 256
#define VP_MAXPY_BATCH 8 /* vectors per pass over y */

static unsigned VPVecBlocks(PetscInt n)
{
  return (unsigned)PetscMin((n + VP_VEC_THREADS - 1) / VP_VEC_THREADS, (PetscInt)2147483647);
}

#define VP_VEC_LOOP(i, n) for (PetscInt i = (PetscInt)blockIdx.x * VP_VEC_THREADS + threadIdx.x; i < (n); i += (PetscInt)gridDim.x * VP_VEC_THREADS)

/* z = a x + b y + c z; y may be NULL; a term whose coefficient is 0 is not read */
__global__ void __launch_bounds__(VP_VEC_THREADS) VPVecCombineKernel(PetscInt n, PetscScalar a, const PetscScalar *x, PetscScalar b, const PetscScalar *y, PetscScalar c, PetscScalar *z)
{
  VP_VEC_LOOP(i, n)
  {
    PetscScalar v = 0;
    if (a != (PetscScalar)0) v = a * x[i];
    if (y && b != (PetscScalar)0) v += b * y[i];
    if (c != (PetscScalar)0) v += c * z[i];
    z[i] = v;
  }
}

__global__ void __launch_bounds__(VP_VEC_THREADS) VPVecScaleKernel(PetscInt n, PetscScalar a, PetscScalar *x)
{
  VP_VEC_LOOP(i, n) x[i] *= a;
}

__global__ void __launch_bounds__(VP_VEC_THREADS) VPVecSwapKernel(PetscInt n, PetscScalar *x, PetscScalar *y)
{
  VP_VEC_LOOP(i, n)
  {
    const PetscScalar t = x[i];
    x[i]                = y[i];
    y[i]                = t;
  }
}

template <int N> struct VPMAXPYArgs {
  const PetscScalar *x[N];
  PetscScalar        a[N];
};

/* y += sum_j a_j x_j over N vectors */
template <int N> __global__ void __launch_bounds__(VP_VEC_THREADS) VPVecMAXPYKernel(PetscInt n, VPMAXPYArgs<N> p, PetscScalar *y)
{
  VP_VEC_LOOP(i, n)
  {
    PetscScalar s = y[i];
#pragma unroll
    for (int j = 0; j < N; j++) s += p.a[j] * p.x[j][i];
    y[i] = s;
  }
}

PetscErrorCode VPVecCombine_CUDA(PetscInt n, PetscScalar a, const PetscScalar *x, PetscScalar b, const PetscScalar *y, PetscScalar c, PetscScalar *z)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VPGetStream(&stream));
  VPVecCombineKernel<<<VPVecBlocks(n), VP_VEC_THREADS, 0, stream>>>(n, a, x, b, y, c, z);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPVecScale_CUDA(PetscInt n, PetscScalar a, PetscScalar *x)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VPGetStream(&stream));
  VPVecScaleKernel<<<VPVecBlocks(n), VP_VEC_THREADS, 0, stream>>>(n, a, x);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPVecSwap_CUDA(PetscInt n, PetscScalar *x, PetscScalar *y)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VPGetStream(&stream));
  VPVecSwapKernel<<<VPVecBlocks(n), VP_VEC_THREADS, 0, stream>>>(n, x, y);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int N> static PetscErrorCode VPVecMAXPYLaunch(PetscInt n, const PetscScalar *a, const PetscScalar *const *x, PetscScalar *y, cudaStream_t stream)
{
  VPMAXPYArgs<N> p;

  PetscFunctionBegin;
  for (int j = 0; j < N; j++) {
    p.x[j] = x[j];
    p.a[j] = a[j];
  }
  VPVecMAXPYKernel<N><<<VPVecBlocks(n), VP_VEC_THREADS, 0, stream>>>(n, p, y);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* VPVecMAXPYLaunch<m> for the runtime m = 1..N */
template <int N> static PetscErrorCode VPVecMAXPYDispatch(int m, PetscInt n, const PetscScalar *a, const PetscScalar *const *x, PetscScalar *y, cudaStream_t stream)
{
  if constexpr (N > 1)
    if (m < N) return VPVecMAXPYDispatch<N - 1>(m, n, a, x, y, stream);
  return VPVecMAXPYLaunch<N>(n, a, x, y, stream);
}

PetscErrorCode VPVecMAXPY_CUDA(PetscInt n, PetscInt nv, const PetscScalar *a, const PetscScalar *const *x, PetscScalar *y)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VPGetStream(&stream));
  for (PetscInt j0 = 0; j0 < nv; j0 += VP_MAXPY_BATCH) PetscCall(VPVecMAXPYDispatch<VP_MAXPY_BATCH>((int)PetscMin(nv - j0, VP_MAXPY_BATCH), n, a + j0, x + j0, y, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}
