/*
  CUDA kernels of the grid transfer: a block of owned coarse cells, the cells' coarse / fine values in
  shared memory, tensor contractions with one thread per 1D line (register lines) and the 1D matrix P
  ((2k+1) x (k+1), the same on every level) in constant memory; arithmetic in T (double, or float for single
  precision). Prolongation: each fine node is written by the one coarse cell that owns it (VPDFineOwned), no
  atomics; restriction: each fine value is read in its owner cell, the coarse sums by atomics.
*/
#include <petscvpatch/private/vpcuda.cuh>

/* P of degree K = 1..VPATCH_MAX_DEGREE, row-major (2K+1) x (K+1), at VPTrPOffset(K) */
__host__ __device__ constexpr int VPTrPOffset(int K)
{
  int o = 0;
  for (int k = 1; k < K; k++) o += (2 * k + 1) * (k + 1);
  return o;
}
VP_CONSTANT_TABLE(VPTrP, VPTrPOffset(VPATCH_MAX_DEGREE + 1));

/* out = P (TRANS: P^T) along DIR of NB tensors of extents I0 x I1 x I2, one thread per line, the line in registers */
template <int K, int I0, int I1, int I2, int DIR, bool TRANS, typename T> __device__ __forceinline__ void VPTrLines(const T *__restrict__ in, T *__restrict__ out, const int NB)
{
  constexpr int N = K + 1, M = TRANS ? N : 2 * K + 1, ND = TRANS ? 2 * K + 1 : N;
  constexpr int E0 = DIR == 0 ? M : I0, E1 = DIR == 1 ? M : I1, E2 = DIR == 2 ? M : I2, EO = E0 * E1 * E2, EI = I0 * I1 * I2;
  constexpr int L0 = DIR == 0 ? I1 : I0, NL = L0 * (DIR == 2 ? I1 : I2);
  constexpr int SI = DIR == 0 ? 1 : (DIR == 1 ? I0 : I0 * I1), SO = DIR == 0 ? 1 : (DIR == 1 ? E0 : E0 * E1);
  (void)E2;
  for (int t = threadIdx.x; t < NB * NL; t += blockDim.x) {
    const int b = t / NL, l = t - b * NL, a0 = l % L0, a1 = l / L0;
    const int bi = DIR == 0 ? (a1 * I1 + a0) * I0 : (DIR == 1 ? a1 * I0 * I1 + a0 : a1 * I0 + a0);
    const int bo = DIR == 0 ? (a1 * E1 + a0) * E0 : (DIR == 1 ? a1 * E0 * E1 + a0 : a1 * E0 + a0);
    T         v[ND];
#pragma unroll
    for (int j = 0; j < ND; j++) v[j] = in[b * EI + bi + j * SI];
#pragma unroll
    for (int i = 0; i < M; i++) {
      T s = 0;
#pragma unroll
      for (int j = 0; j < ND; j++) s += VPTrP<T>(VPTrPOffset(K) + (TRANS ? j * N + i : i * N + j)) * v[j];
      out[b * EO + bo + i * SO] = s;
    }
  }
}

/* Is fine node (fx, fy, fz) of a coarse cell with neighbour bits wf (bit 2 d + 1: the cell has a neighbour above along d)
   owned by this cell: a fine node on a face shared with the cell above belongs to that cell. Every fine node has one
   owner. The prolongation of a continuous coarse function is continuous, so both cells compute the same value at a
   shared fine node (up to rounding), and the owner alone writes it: no atomics. The restriction P^T reads a fine
   value in its owner cell only: the coarse basis functions not on a shared face vanish there, so the other cell would
   add the same terms again (transfer_cpu.c weighs each by 1/2 instead). */
template <int NF> __device__ __forceinline__ bool VPDFineOwned(int wf, int fx, int fy, int fz)
{
  return !(((wf & 2) && fx == NF - 1) || ((wf & 8) && fy == NF - 1) || ((wf & 32) && fz == NF - 1));
}

template <int DIM, int K, bool RESTRICT, typename T> __global__ void VPTransferKernel(VPGrid gc, VPGrid gf, int ncells, bool homogeneous, const PetscScalar *__restrict__ in, PetscScalar *__restrict__ out)
{
  constexpr int N = K + 1, NF = 2 * K + 1, NZ = DIM == 3 ? N : 1, NFZ = DIM == 3 ? NF : 1;
  constexpr int NC = N * N * NZ, NFT = NF * NF * NFZ, NB = VPBatch<NFT>::value;
  VP_DYNAMIC_SHARED(T, smem); /* three buffers of NB tensors of NF^d */
  T                  *U = smem, *T1 = U + NB * NFT, *T2 = T1 + NB * NFT;
  __shared__ PetscInt cbase[NB], fbase[NB];            /* local index of the cell's first coarse and first fine node */
  __shared__ int      cflag[NB], fflag[NB], wflag[NB]; /* VPDBoxFlags (0 if not homogeneous; -1: no cell), neighbour bits (VPDFineOwned) */
  const int           csy = (int)gc.gxm[0], csz = (int)(gc.gxm[0] * gc.gxm[1]), fsy = (int)gf.gxm[0], fsz = (int)(gf.gxm[0] * gf.gxm[1]);

  for (int b = threadIdx.x; b < NB; b += blockDim.x) { /* once per cell: runtime divisions, 64-bit index arithmetic */
    const int c  = blockIdx.x * NB + b;
    int       cf = -1, ff = -1, wf = 0;
    PetscInt  co = 0, fo = 0;
    if (c < ncells) {
      const int cx = (int)gc.cs[0] + c % (int)gc.cm[0], cy = (int)gc.cs[1] + (c / (int)gc.cm[0]) % (int)gc.cm[1], cz = DIM == 3 ? (int)gc.cs[2] + c / (int)(gc.cm[0] * gc.cm[1]) : 0;
      co = VPDLocalIndex(gc, cx * K, cy * K, cz * K);
      fo = VPDLocalIndex(gf, 2 * cx * K, 2 * cy * K, 2 * cz * K);
      cf = homogeneous ? VPDBoxFlags(gc, N, cx * K, cy * K, cz * K) : 0;
      ff = homogeneous ? VPDBoxFlags(gf, NF, 2 * cx * K, 2 * cy * K, 2 * cz * K) : 0;
      wf = (cx > 0 ? 1 : 0) | (cx < gc.N[0] - 1 ? 2 : 0) | (cy > 0 ? 4 : 0) | (cy < gc.N[1] - 1 ? 8 : 0);
      if (DIM == 3) wf |= (cz > 0 ? 16 : 0) | (cz < gc.N[2] - 1 ? 32 : 0);
    }
    cbase[b] = co;
    fbase[b] = fo;
    cflag[b] = cf;
    fflag[b] = ff;
    wflag[b] = wf;
  }
  __syncthreads();
  if (!RESTRICT) {
    for (int t = threadIdx.x; t < NB * NC; t += blockDim.x) {
      const int b = t / NC, e = t - b * NC, ex = e % N, ey = (e / N) % N, ez = e / (N * N), f = cflag[b];
      T         v = 0;
      if (f >= 0 && !VPDBoxOnBoundary<N>(f, ex, ey, ez)) v = (T)in[cbase[b] + (ex + ey * csy + ez * csz)];
      U[t] = v;
    }
    __syncthreads();
    VPTrLines<K, N, N, NZ, 0, false>(U, T1, NB);
    __syncthreads();
    VPTrLines<K, NF, N, NZ, 1, false>(T1, T2, NB);
    __syncthreads();
    T *R = T2;
    if (DIM == 3) {
      VPTrLines<K, NF, NF, NZ, 2, false>(T2, U, NB);
      __syncthreads();
      R = U;
    }
    for (int t = threadIdx.x; t < NB * NFT; t += blockDim.x) {
      const int b = t / NFT, e = t - b * NFT, fx = e % NF, fy = (e / NF) % NF, fz = e / (NF * NF), f = fflag[b];
      if (f < 0 || VPDBoxOnBoundary<NF>(f, fx, fy, fz) || !VPDFineOwned<NF>(wflag[b], fx, fy, fz)) continue;
      out[fbase[b] + (fx + fy * fsy + fz * fsz)] += (PetscScalar)R[t]; /* the owner cell only: no other thread writes this node */
    }
  } else {
    for (int t = threadIdx.x; t < NB * NFT; t += blockDim.x) {
      const int b = t / NFT, e = t - b * NFT, fx = e % NF, fy = (e / NF) % NF, fz = e / (NF * NF), f = fflag[b];
      T         v = 0;
      if (f >= 0 && !VPDBoxOnBoundary<NF>(f, fx, fy, fz) && VPDFineOwned<NF>(wflag[b], fx, fy, fz)) v = (T)in[fbase[b] + (fx + fy * fsy + fz * fsz)];
      U[t] = v;
    }
    __syncthreads();
    VPTrLines<K, NF, NF, NFZ, 0, true>(U, T1, NB);
    __syncthreads();
    VPTrLines<K, N, NF, NFZ, 1, true>(T1, T2, NB);
    __syncthreads();
    T *R = T2;
    if (DIM == 3) {
      VPTrLines<K, N, N, NFZ, 2, true>(T2, U, NB);
      __syncthreads();
      R = U;
    }
    for (int t = threadIdx.x; t < NB * NC; t += blockDim.x) {
      const int b = t / NC, e = t - b * NC, ex = e % N, ey = (e / N) % N, ez = e / (N * N), f = cflag[b];
      if (f < 0 || VPDBoxOnBoundary<N>(f, ex, ey, ez)) continue;
      atomicAdd(&out[cbase[b] + (ex + ey * csy + ez * csz)], (PetscScalar)R[t]);
    }
  }
}

template <int DIM, int K, typename T> struct VPTransfer {
  static PetscErrorCode run(const VPGrid *gc, const VPGrid *gf, PetscBool homogeneous, PetscBool restrict_, const PetscScalar *in, PetscScalar *out)
  {
    constexpr int NF = 2 * K + 1, NFT = NF * NF * (DIM == 3 ? NF : 1), NB = VPBatch<NFT>::value;
    const int     ncells = gc->cm[0] * gc->cm[1] * (DIM == 3 ? gc->cm[2] : 1);
    const size_t  shmem  = sizeof(T) * (3 * NB * NFT);
    cudaStream_t  stream;
    PetscFunctionBegin;
    PetscCall(VPGetStream(&stream));
    if (ncells) {
      if (restrict_) {
        PetscCallCUDA(cudaFuncSetAttribute(VPTransferKernel<DIM, K, true, T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem));
        VPTransferKernel<DIM, K, true, T><<<(ncells + NB - 1) / NB, VPThreads(NB * NFT), shmem, stream>>>(*gc, *gf, ncells, homogeneous ? true : false, in, out);
      } else {
        PetscCallCUDA(cudaFuncSetAttribute(VPTransferKernel<DIM, K, false, T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem));
        VPTransferKernel<DIM, K, false, T><<<(ncells + NB - 1) / NB, VPThreads(NB * NFT), shmem, stream>>>(*gc, *gf, ncells, homogeneous ? true : false, in, out);
      }
      PetscCallCUDA(cudaGetLastError());
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};

VP_PRECISION_ALIASES(VPTransfer);

PetscErrorCode VPTransferSetUp_CUDA(PetscInt k, const PetscReal *P)
{
  PetscFunctionBegin;
  PetscCheck(k >= 1 && k <= VPATCH_MAX_DEGREE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "No CUDA transfer for degree %d", (int)k);
  PetscCall(VPTrPUpload(P, (int)((2 * k + 1) * (k + 1)), VPTrPOffset((int)k)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPTransferApply_CUDA(const VPGrid *gc, const VPGrid *gf, PetscBool single, PetscBool homogeneous, PetscBool restrict_, const PetscScalar *in, PetscScalar *out)
{
  PetscFunctionBegin;
  VP_DISPATCH_PRECISION(VPTransfer, single, gc->dim, gc->k, gc, gf, homogeneous, restrict_, in, out);
  PetscFunctionReturn(PETSC_SUCCESS);
}
