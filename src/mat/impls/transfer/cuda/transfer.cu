/*
  CUDA kernels of the grid transfer: one thread block per owned coarse cell, the 1D matrix P
  ((2k+1) x (k+1)) and the cell's coarse / fine values in shared memory, tensor contractions with
  linear thread indexing, scatter-add with atomics and the same face weights as transfer_cpu.c;
  arithmetic in T (double, or float for single precision).
*/
#include <petscvpatch/private/vpcuda.cuh>

__device__ __forceinline__ PetscReal VPDFineWeight(const VPGrid &gc, int d, int c, int f)
{
  if (f == 0 && c > 0) return 0.5;
  if (f == 2 * gc.k && c < gc.N[d] - 1) return 0.5;
  return 1.0;
}

template <int DIM, int K, bool RESTRICT, typename T> __global__ void VPTransferKernel(VPGrid gc, VPGrid gf, int ncells, const PetscReal *__restrict__ d_P, bool homogeneous, const PetscScalar *__restrict__ in, PetscScalar *__restrict__ out)
{
  constexpr int N = K + 1, NF = 2 * K + 1, NZ = DIM == 3 ? N : 1, NFZ = DIM == 3 ? NF : 1;
  constexpr int NC = N * N * NZ, NFT = NF * NF * NFZ, NB = VPBatch<NFT>::value;
  VP_DYNAMIC_SHARED(T, smem); /* P (NF x N), then three buffers of NB tensors of NF^d */
  T *P = smem;
  T *U = smem + NF * N, *T1 = U + NB * NFT, *T2 = T1 + NB * NFT;

  for (int i = threadIdx.x; i < NF * N; i += blockDim.x) P[i] = (T)d_P[i];
  if (!RESTRICT) {
    for (int t = threadIdx.x; t < NB * NC; t += blockDim.x) {
      const int b = t / NC, e = t - b * NC, c = blockIdx.x * NB + b;
      U[t] = 0;
      if (c >= ncells) continue;
      const int cx = gc.cs[0] + c % gc.cm[0], cy = gc.cs[1] + (c / gc.cm[0]) % gc.cm[1], cz = DIM == 3 ? gc.cs[2] + c / (gc.cm[0] * gc.cm[1]) : 0;
      const int px = cx * K + e % N, py = cy * K + (e / N) % N, pz = DIM == 3 ? cz * K + e / (N * N) : 0;
      if (!(homogeneous && VPDIsBoundary(gc, px, py, pz))) U[t] = (T)in[VPDLocalIndex(gc, px, py, pz)];
    }
    __syncthreads();
    VPDContract<N, N, NZ, 0, NF, false>(P, U, T1, NB);
    __syncthreads();
    VPDContract<NF, N, NZ, 1, NF, false>(P, T1, T2, NB);
    __syncthreads();
    T *R = T2;
    if (DIM == 3) {
      VPDContract<NF, NF, NZ, 2, NF, false>(P, T2, U, NB);
      __syncthreads();
      R = U;
    }
    for (int t = threadIdx.x; t < NB * NFT; t += blockDim.x) {
      const int b = t / NFT, e = t - b * NFT, c = blockIdx.x * NB + b;
      if (c >= ncells) continue;
      const int cx = gc.cs[0] + c % gc.cm[0], cy = gc.cs[1] + (c / gc.cm[0]) % gc.cm[1], cz = DIM == 3 ? gc.cs[2] + c / (gc.cm[0] * gc.cm[1]) : 0;
      const int fx = e % NF, fy = (e / NF) % NF, fz = e / (NF * NF);
      const int px = 2 * cx * K + fx, py = 2 * cy * K + fy, pz = DIM == 3 ? 2 * cz * K + fz : 0;
      if (homogeneous && VPDIsBoundary(gf, px, py, pz)) continue;
      const PetscReal w = VPDFineWeight(gc, 0, cx, fx) * VPDFineWeight(gc, 1, cy, fy) * (DIM == 3 ? VPDFineWeight(gc, 2, cz, fz) : 1.0);
      atomicAdd(&out[VPDLocalIndex(gf, px, py, pz)], w * (PetscScalar)R[t]);
    }
  } else {
    for (int t = threadIdx.x; t < NB * NFT; t += blockDim.x) {
      const int b = t / NFT, e = t - b * NFT, c = blockIdx.x * NB + b;
      U[t] = 0;
      if (c >= ncells) continue;
      const int cx = gc.cs[0] + c % gc.cm[0], cy = gc.cs[1] + (c / gc.cm[0]) % gc.cm[1], cz = DIM == 3 ? gc.cs[2] + c / (gc.cm[0] * gc.cm[1]) : 0;
      const int fx = e % NF, fy = (e / NF) % NF, fz = e / (NF * NF);
      const int px = 2 * cx * K + fx, py = 2 * cy * K + fy, pz = DIM == 3 ? 2 * cz * K + fz : 0;
      if (!(homogeneous && VPDIsBoundary(gf, px, py, pz))) U[t] = (T)(VPDFineWeight(gc, 0, cx, fx) * VPDFineWeight(gc, 1, cy, fy) * (DIM == 3 ? VPDFineWeight(gc, 2, cz, fz) : 1.0) * in[VPDLocalIndex(gf, px, py, pz)]);
    }
    __syncthreads();
    VPDContract<NF, NF, NFZ, 0, N, true>(P, U, T1, NB);
    __syncthreads();
    VPDContract<N, NF, NFZ, 1, N, true>(P, T1, T2, NB);
    __syncthreads();
    T *R = T2;
    if (DIM == 3) {
      VPDContract<N, N, NFZ, 2, N, true>(P, T2, U, NB);
      __syncthreads();
      R = U;
    }
    for (int t = threadIdx.x; t < NB * NC; t += blockDim.x) {
      const int b = t / NC, e = t - b * NC, c = blockIdx.x * NB + b;
      if (c >= ncells) continue;
      const int cx = gc.cs[0] + c % gc.cm[0], cy = gc.cs[1] + (c / gc.cm[0]) % gc.cm[1], cz = DIM == 3 ? gc.cs[2] + c / (gc.cm[0] * gc.cm[1]) : 0;
      const int px = cx * K + e % N, py = cy * K + (e / N) % N, pz = DIM == 3 ? cz * K + e / (N * N) : 0;
      if (homogeneous && VPDIsBoundary(gc, px, py, pz)) continue;
      atomicAdd(&out[VPDLocalIndex(gc, px, py, pz)], (PetscScalar)R[t]);
    }
  }
}

template <int DIM, int K, typename T> struct VPTransfer {
  static PetscErrorCode run(const VPGrid *gc, const VPGrid *gf, const PetscReal *d_P, PetscBool homogeneous, PetscBool restrict_, const PetscScalar *in, PetscScalar *out)
  {
    constexpr int NF = 2 * K + 1, NFT = NF * NF * (DIM == 3 ? NF : 1), NB = VPBatch<NFT>::value;
    const int     ncells = gc->cm[0] * gc->cm[1] * (DIM == 3 ? gc->cm[2] : 1);
    const size_t  shmem  = sizeof(T) * (NF * (K + 1) + 3 * NB * NFT);
    cudaStream_t  stream;
    PetscFunctionBegin;
    PetscCall(VPGetStream(&stream));
    if (ncells) {
      if (restrict_) {
        PetscCallCUDA(cudaFuncSetAttribute(VPTransferKernel<DIM, K, true, T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem));
        VPTransferKernel<DIM, K, true, T><<<(ncells + NB - 1) / NB, VPThreads(NB * NFT), shmem, stream>>>(*gc, *gf, ncells, d_P, homogeneous ? true : false, in, out);
      } else {
        PetscCallCUDA(cudaFuncSetAttribute(VPTransferKernel<DIM, K, false, T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem));
        VPTransferKernel<DIM, K, false, T><<<(ncells + NB - 1) / NB, VPThreads(NB * NFT), shmem, stream>>>(*gc, *gf, ncells, d_P, homogeneous ? true : false, in, out);
      }
      PetscCallCUDA(cudaGetLastError());
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};

VP_PRECISION_ALIASES(VPTransfer);

PetscErrorCode VPTransferApply_CUDA(const VPGrid *gc, const VPGrid *gf, const PetscReal *d_P, PetscBool single, PetscBool homogeneous, PetscBool restrict_, const PetscScalar *in, PetscScalar *out)
{
  PetscFunctionBegin;
  VP_DISPATCH_PRECISION(VPTransfer, single, gc->dim, gc->k, gc, gf, d_P, homogeneous, restrict_, in, out);
  PetscFunctionReturn(PETSC_SUCCESS);
}
