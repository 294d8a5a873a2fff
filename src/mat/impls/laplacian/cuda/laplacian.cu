/*
  CUDA kernels of the matrix-free Q_k Laplacian: several owned cells per thread block, the cells'
  (k+1)^d values and the 1D matrices in shared memory, sum factorization with one thread per 1D line
  (VPDContractLines) or linear indexing (VPDContract), chosen per degree and precision (VPLapLines), scatter-add with atomics; arithmetic in T (double, or float for single precision). Dirichlet nodes are eliminated as in laplacian_cpu.c.
  d_mats holds M_h and K_h per direction: [M_0, K_0, M_1, K_1, M_2, K_2], (k+1)^2 each.
*/
#include <petscvpatch/private/vpcuda.cuh>

/* The cells one launch processes: first + step * (i, j, l), i < n0, j < n1 (step 1: all owned cells,
   atomics; step 2: one parity color of cells, which share no node, so plain adds: deterministic) */
typedef struct {
  int first[3], step, n0, n1;
} VPCellSet;

__device__ __forceinline__ void VPDCell(const VPCellSet &cs, int c, int &cx, int &cy, int &cz)
{
  cx = cs.first[0] + cs.step * (c % cs.n0);
  cy = cs.first[1] + cs.step * ((c / cs.n0) % cs.n1);
  cz = cs.first[2] + cs.step * (c / (cs.n0 * cs.n1));
}

/* line contractions (VPDContractLines) or linear indexing (VPDContract), by measurement on an H100
   (bench/RESULTS.md) */
template <int DIM, int K, typename T> struct VPLapLines {
  static constexpr bool value = DIM == 3 ? (K <= 4 || (sizeof(T) == 4 && K <= 7)) : (K <= 2 || (sizeof(T) == 4 && K <= 3));
};
template <int DIM, int K, typename T> struct VPLapBatch {
  static constexpr int NT      = (K + 1) * (K + 1) * (DIM == 3 ? K + 1 : 1);
  static constexpr int value   = VPLapLines<DIM, K, T>::value ? VPLineBatch<NT, K + 1, 4, 40960, T>::value : VPBatch<NT>::value;
  static constexpr int threads = value * (VPLapLines<DIM, K, T>::value ? NT / (K + 1) : NT);
};

template <int DIM, int K, typename T> __global__ void __launch_bounds__(512) VPLapApplyKernel(VPGrid g, VPCellSet cset, int ncells, bool atomic, const PetscReal *__restrict__ d_mats, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y)
{
  constexpr int  N = K + 1, NZ = DIM == 3 ? N : 1, NT = N * N * NZ, NB = VPLapBatch<DIM, K, T>::value, NBT = NB * NT;
  constexpr bool LINES = VPLapLines<DIM, K, T>::value;
  __shared__ T   mats[6 * N * N];
  __shared__ T   A[NBT], B[NBT], C[NBT], D[NBT];

  for (int i = threadIdx.x; i < 2 * DIM * N * N; i += blockDim.x) mats[i] = (T)d_mats[i];
  for (int t = threadIdx.x; t < NBT; t += blockDim.x) {
    const int b = t / NT, e = t - b * NT, c = blockIdx.x * NB + b;
    int       cx, cy, cz;
    A[t] = 0;
    if (c >= ncells) continue;
    VPDCell(cset, c, cx, cy, cz);
    const int px = cx * K + e % N, py = cy * K + (e / N) % N, pz = DIM == 3 ? cz * K + e / (N * N) : 0;
    if (!VPDIsBoundary(g, px, py, pz)) A[t] = (T)x[VPDLocalIndex(g, px, py, pz)];
  }
  __syncthreads();
  const T *M0 = mats, *K0 = mats + N * N, *M1 = mats + 2 * N * N, *K1 = mats + 3 * N * N, *M2 = mats + 4 * N * N, *K2 = mats + 5 * N * N;
  VPDContractSel2<LINES, N, N, NZ, 0, N, false>(M0, K0, A, B, C, NB); /* B = M_x u, C = K_x u */
  __syncthreads();
  if (DIM == 2) {
    VPDContractSel<LINES, N, N, NZ, 1, N, false>(K1, B, D, NB); /* K_y M_x u */
    VPDContractSel<LINES, N, N, NZ, 1, N, false>(M1, C, A, NB); /* M_y K_x u */
    __syncthreads();
    for (int t = threadIdx.x; t < NBT; t += blockDim.x) B[t] = D[t] + A[t];
  } else {
    VPDContractSel<LINES, N, N, NZ, 1, N, false>(M1, C, D, NB); /* M_y K_x u */
    VPDContractSel<LINES, N, N, NZ, 1, N, false>(K1, B, A, NB); /* K_y M_x u (u is no longer needed) */
    __syncthreads();
    for (int t = threadIdx.x; t < NBT; t += blockDim.x) D[t] += A[t];
    VPDContractSel<LINES, N, N, NZ, 1, N, false>(M1, B, C, NB); /* M_y M_x u */
    __syncthreads();
    VPDContractSel<LINES, N, N, NZ, 2, N, false>(M2, D, A, NB); /* M_z (M_y K_x + K_y M_x) u */
    VPDContractSel<LINES, N, N, NZ, 2, N, false>(K2, C, B, NB); /* K_z M_y M_x u */
    __syncthreads();
    for (int t = threadIdx.x; t < NBT; t += blockDim.x) B[t] += A[t];
  }
  for (int t = threadIdx.x; t < NBT; t += blockDim.x) {
    const int b = t / NT, e = t - b * NT, c = blockIdx.x * NB + b;
    int       cx, cy, cz;
    if (c >= ncells) continue;
    VPDCell(cset, c, cx, cy, cz);
    const int px = cx * K + e % N, py = cy * K + (e / N) % N, pz = DIM == 3 ? cz * K + e / (N * N) : 0;
    if (VPDIsBoundary(g, px, py, pz)) continue;
    if (atomic)
      atomicAdd(&y[VPDLocalIndex(g, px, py, pz)], (PetscScalar)B[t]);
    else
      y[VPDLocalIndex(g, px, py, pz)] += (PetscScalar)B[t];
  }
}

template <int DIM, int K> __global__ void VPLapDiagKernel(VPGrid g, const PetscReal *__restrict__ d_mats, PetscScalar *__restrict__ y)
{
  constexpr int    N = K + 1, NZ = DIM == 3 ? N : 1, NT = N * N * NZ;
  const int        cell = blockIdx.x;
  const int        cx = g.cs[0] + cell % g.cm[0], cy = g.cs[1] + (cell / g.cm[0]) % g.cm[1], cz = DIM == 3 ? g.cs[2] + cell / (g.cm[0] * g.cm[1]) : 0;
  const PetscReal *M0 = d_mats, *K0 = d_mats + N * N, *M1 = d_mats + 2 * N * N, *K1 = d_mats + 3 * N * N, *M2 = d_mats + 4 * N * N, *K2 = d_mats + 5 * N * N;
  for (int e = threadIdx.x; e < NT; e += blockDim.x) {
    const int ix = e % N, iy = (e / N) % N, iz = e / (N * N);
    const int px = cx * K + ix, py = cy * K + iy, pz = DIM == 3 ? cz * K + iz : 0;
    if (VPDIsBoundary(g, px, py, pz)) continue;
    PetscReal v = M1[iy * N + iy] * K0[ix * N + ix] + K1[iy * N + iy] * M0[ix * N + ix];
    if (DIM == 3) v = M2[iz * N + iz] * v + K2[iz * N + iz] * M1[iy * N + iy] * M0[ix * N + ix];
    atomicAdd(&y[VPDLocalIndex(g, px, py, pz)], v);
  }
}

static inline int VPCells(const VPGrid *g)
{
  return g->cm[0] * g->cm[1] * (g->dim == 3 ? g->cm[2] : 1);
}

template <int DIM, int K, typename T> struct VPLapApply {
  static PetscErrorCode run(const VPGrid *g, const PetscReal *d_mats, PetscBool deterministic, const PetscScalar *x, PetscScalar *y)
  {
    constexpr int NB = VPLapBatch<DIM, K, T>::value;
    cudaStream_t  stream;
    PetscFunctionBegin;
    PetscCall(VPGetStream(&stream));
    for (int color = 0; color < (deterministic ? (1 << DIM) : 1); color++) {
      VPCellSet cset;
      int       n[3] = {1, 1, 1};
      cset.step      = deterministic ? 2 : 1;
      for (int d = 0; d < 3; d++) {
        cset.first[d] = d < DIM ? (int)g->cs[d] : 0;
        if (d < DIM) {
          if (deterministic && (cset.first[d] % 2) != ((color >> d) & 1)) cset.first[d]++;
          n[d] = (int)(g->cs[d] + g->cm[d]) > cset.first[d] ? ((int)(g->cs[d] + g->cm[d]) - cset.first[d] + cset.step - 1) / cset.step : 0;
        }
      }
      cset.n0      = n[0];
      cset.n1      = n[1];
      const int nc = n[0] * n[1] * n[2];
      if (!nc) continue;
      VPLapApplyKernel<DIM, K, T><<<(nc + NB - 1) / NB, VPThreads(VPLapBatch<DIM, K, T>::threads), 0, stream>>>(*g, cset, nc, deterministic ? false : true, d_mats, x, y);
      PetscCallCUDA(cudaGetLastError());
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};

template <int DIM, int K> struct VPLapDiag {
  static PetscErrorCode run(const VPGrid *g, const PetscReal *d_mats, PetscScalar *y)
  {
    constexpr int N = K + 1, NT = N * N * (DIM == 3 ? N : 1);
    cudaStream_t  stream;
    PetscFunctionBegin;
    PetscCall(VPGetStream(&stream));
    if (VPCells(g)) {
      VPLapDiagKernel<DIM, K><<<VPCells(g), VPThreads(NT), 0, stream>>>(*g, d_mats, y);
      PetscCallCUDA(cudaGetLastError());
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};

VP_PRECISION_ALIASES(VPLapApply);

PetscErrorCode VPLaplacianApply_CUDA(const VPGrid *g, const PetscReal *d_mats, PetscBool single, PetscBool deterministic, const PetscScalar *xl, PetscScalar *yl)
{
  PetscFunctionBegin;
  VP_DISPATCH_PRECISION(VPLapApply, single, g->dim, g->k, g, d_mats, deterministic, xl, yl);
  PetscCall(VPOwnedBoundary_CUDA(g, xl, yl, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPLaplacianDiagonal_CUDA(const VPGrid *g, const PetscReal *d_mats, PetscScalar *dl)
{
  PetscFunctionBegin;
  VP_DISPATCH(VPLapDiag, g->dim, g->k, g, d_mats, dl);
  PetscCall(VPOwnedBoundary_CUDA(g, NULL, dl, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
