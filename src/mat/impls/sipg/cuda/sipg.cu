/*
  CUDA kernels of the discontinuous Q_k space (SIPG) on a Cartesian box: the operator (VPDGApply_CUDA) and the embedding
  between levels (VPDGTransfer_CUDA), the device versions of sipg_cpu.c's kernels.

  One thread per node of a cell, several cells per thread block (VPBatch: about 128 threads), the cells' values and the
  1D blocks in shared memory, arithmetic in T (double, or float for single precision; vectors stay PetscScalar).
  Operator: per direction e the cell's own values, those of its two neighbours along e (the ghost layer of one cell),
  contracted with the diagonal block and the coupling blocks U, U^T, then the cell mass along the other directions;
  each cell writes only its own rows, no atomics. Embedding: one coarse cell per tensor, its 2^d children in turn.
*/
#include <petscvpatch/private/vpcuda.cuh>
#include <petscvpatch/private/vpdg.h>

/* the blocks of every direction in shared memory as T: per direction [M, Din, Dfirst, Dlast, Done, U], N^2 each */
template <int DIM, int N, typename T> __device__ __forceinline__ void VPDGLoadBlocks(const VPDG1D *__restrict__ dg, T *s)
{
  constexpr int NN = N * N;
  for (int t = threadIdx.x; t < DIM * 6 * NN; t += blockDim.x) {
    const int        e = t / (6 * NN), r = t - e * 6 * NN, m = r / NN, ij = r - m * NN;
    const VPDG1D    &b   = dg[e];
    const PetscReal *src = m == 0 ? b.M : (m == 1 ? b.Din : (m == 2 ? b.Dfirst : (m == 3 ? b.Dlast : (m == 4 ? b.Done : b.U))));
    s[t]                 = (T)src[ij];
  }
}
/* threads for NB cell tensors of ND nodes, one per node: a multiple of the warp size (at most 1024: 3D k = 8 has 729) */
static inline int VPDGThreads(int n)
{
  return ((n + 31) / 32) * 32;
}
/* which diagonal block (1..4 in VPDGLoadBlocks' order) cell c of n along a direction has */
__device__ __forceinline__ int VPDGDiagSlot(int c, int n)
{
  return n == 1 ? 4 : (c == 0 ? 2 : (c == n - 1 ? 3 : 1));
}
/* sum_j A(i, j) in[p with index j along DIR] (TRANS: A(j, i)) in a cell tensor of N^DIM values, x fastest */
template <int N, int DIR, bool TRANS, typename T> __device__ __forceinline__ T VPDGCellLine(const T *A, int p, const T *in)
{
  constexpr int s = DIR == 0 ? 1 : (DIR == 1 ? N : N * N);
  const int     i = (p / s) % N, q0 = p - i * s;
  T             v = 0;
#pragma unroll
  for (int j = 0; j < N; j++) v += (TRANS ? A[j * N + i] : A[i * N + j]) * in[q0 + j * s];
  return v;
}
/* owned cell number `cell` of a rank (x fastest among its owned cells): its global cell c[] and the local-box index of its
   first node */
template <int DIM, int N> __device__ __forceinline__ PetscInt VPDGCellBase(const VPGrid &g, int cell, int c[3])
{
  const PetscInt s1 = g.gxm[0], s2 = (PetscInt)g.gxm[0] * g.gxm[1];
  c[0] = (int)g.cs[0] + cell % (int)g.cm[0];
  c[1] = (int)g.cs[1] + (cell / (int)g.cm[0]) % (int)g.cm[1];
  c[2] = DIM == 3 ? (int)g.cs[2] + cell / ((int)g.cm[0] * (int)g.cm[1]) : 0;
  return ((PetscInt)c[0] * N - g.gxs[0]) + ((PetscInt)c[1] * N - g.gxs[1]) * s1 + (DIM == 3 ? ((PetscInt)c[2] * N - g.gxs[2]) * s2 : 0);
}
/* offset of node p of a cell tensor in a local box of row length s1 and plane size s2 */
template <int N> __device__ __forceinline__ PetscInt VPDGCellOffset(int p, PetscInt s1, PetscInt s2)
{
  return (PetscInt)(p % N) + (PetscInt)((p / N) % N) * s1 + (PetscInt)(p / (N * N)) * s2;
}

template <int DIM, int K, typename T> __global__ void __launch_bounds__(1024) VPDGApplyKernel(const VPGrid g, const VPDG1D *__restrict__ dg, int ncells, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y)
{
  constexpr int N = K + 1, NN = N * N, ND = DIM == 3 ? NN * N : NN, NB = VPBatch<ND>::value;
  VP_DYNAMIC_SHARED(T, sm);
  T *const tab = sm, *const xc = sm + DIM * 6 * NN + (threadIdx.x / ND) * 5 * ND, *const xm = xc + ND, *const xp = xm + ND, *const t = xp + ND, *const u = t + ND;
  const int      lc = threadIdx.x / ND, p = threadIdx.x - lc * ND, cell = blockIdx.x * NB + lc;
  const bool     active = lc < NB && cell < ncells;
  const PetscInt s1 = g.gxm[0], s2 = (PetscInt)g.gxm[0] * g.gxm[1], str[3] = {N, (PetscInt)N * s1, (PetscInt)N * s2};
  int            c[3] = {0, 0, 0};
  PetscInt       base = 0, off = 0;
  T              acc = 0;

  VPDGLoadBlocks<DIM, N, T>(dg, tab);
  if (active) {
    base  = VPDGCellBase<DIM, N>(g, cell, c);
    off   = VPDGCellOffset<N>(p, s1, s2);
    xc[p] = (T)x[base + off];
  }
#pragma unroll
  for (int e = 0; e < DIM; e++) {
    if (active) {
      xm[p] = c[e] > 0 ? (T)x[base - str[e] + off] : (T)0;
      xp[p] = c[e] < (int)g.N[e] - 1 ? (T)x[base + str[e] + off] : (T)0;
    }
    __syncthreads();
    if (active) {
      const T *D = tab + (e * 6 + VPDGDiagSlot(c[e], (int)g.N[e])) * NN, *U = tab + (e * 6 + 5) * NN;
      T        v;
      if (e == 0)
        v = VPDGCellLine<N, 0, false>(D, p, xc) + VPDGCellLine<N, 0, false>(U, p, xp) + VPDGCellLine<N, 0, true>(U, p, xm);
      else if (e == 1)
        v = VPDGCellLine<N, 1, false>(D, p, xc) + VPDGCellLine<N, 1, false>(U, p, xp) + VPDGCellLine<N, 1, true>(U, p, xm);
      else
        v = VPDGCellLine<N, 2, false>(D, p, xc) + VPDGCellLine<N, 2, false>(U, p, xp) + VPDGCellLine<N, 2, true>(U, p, xm);
      t[p] = v;
    }
    __syncthreads();
    if constexpr (DIM == 2) {
      if (active) acc += e == 0 ? VPDGCellLine<N, 1, false>(tab + 6 * NN, p, t) : VPDGCellLine<N, 0, false>(tab, p, t);
    } else {
      if (active) u[p] = e == 0 ? VPDGCellLine<N, 1, false>(tab + 6 * NN, p, t) : VPDGCellLine<N, 0, false>(tab, p, t);
      __syncthreads();
      if (active) acc += e == 2 ? VPDGCellLine<N, 1, false>(tab + 6 * NN, p, u) : VPDGCellLine<N, 2, false>(tab + 12 * NN, p, u);
    }
    __syncthreads();
  }
  if (active) y[base + off] += (PetscScalar)acc;
}

template <int DIM, int K, typename T> struct VPDGApply {
  static PetscErrorCode run(const VPGrid *g, const VPDG1D *d_dg, const PetscScalar *xl, PetscScalar *yl)
  {
    constexpr int N = K + 1, NN = N * N, ND = DIM == 3 ? NN * N : NN, NB = VPBatch<ND>::value;
    const size_t  ncells = (size_t)g->cm[0] * (size_t)g->cm[1] * (size_t)(DIM == 3 ? g->cm[2] : 1), bytes = sizeof(T) * (DIM * 6 * NN + NB * 5 * ND);
    cudaStream_t  stream;

    PetscFunctionBegin;
    PetscCheck(ncells <= (size_t)PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "The CUDA SIPG operator takes at most 2^31 - 1 cells per rank, this rank owns %zu: use more ranks", ncells);
    if (!ncells) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(VPGetStream(&stream));
    PetscCallCUDA(cudaFuncSetAttribute(VPDGApplyKernel<DIM, K, T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    VPDGApplyKernel<DIM, K, T><<<(unsigned)((ncells + NB - 1) / NB), VPDGThreads(NB * ND), bytes, stream>>>(*g, d_dg, (int)ncells, xl, yl);
    PetscCallCUDA(cudaGetLastError());
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};
VP_PRECISION_ALIASES(VPDGApply);

PetscErrorCode VPDGApply_CUDA(const VPGrid *g, PetscBool single, const VPDG1D *d_dg, const PetscScalar *xl, PetscScalar *yl)
{
  PetscFunctionBegin;
  if (VPGridEmpty(g)) PetscFunctionReturn(PETSC_SUCCESS);
  VP_DISPATCH_PRECISION(VPDGApply, single, g->dim, g->k, g, d_dg, xl, yl);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one contraction of the embedding of child ch (0, 1) along DIR: P (TRANS: P^T); E holds [child][f][c] */
template <int N, int DIR, bool TRANS, typename T> __device__ __forceinline__ T VPDGEmbedLine(const T *E, int ch, int p, const T *in)
{
  return VPDGCellLine<N, DIR, TRANS>(E + ch * N * N, p, in);
}

/* one coarse cell per tensor; prolongation (TR false): y on each child += P_ch x; restriction: y += sum_ch P_ch^T x_ch */
template <int DIM, int K, bool TR, typename T>
__global__ void __launch_bounds__(1024) VPDGTransferKernel(const VPGrid gc, const VPGrid gf, const PetscReal *__restrict__ embed, int ncells, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y)
{
  constexpr int N = K + 1, NN = N * N, ND = DIM == 3 ? NN * N : NN, NB = VPBatch<ND>::value;
  VP_DYNAMIC_SHARED(T, sm);
  T *const E = sm, *const a = sm + 2 * NN + (threadIdx.x / ND) * 3 * ND, *const b = a + ND, *const c2 = b + ND;
  const int      lc = threadIdx.x / ND, p = threadIdx.x - lc * ND, cell = blockIdx.x * NB + lc;
  const bool     active = lc < NB && cell < ncells;
  const PetscInt c1 = gc.gxm[0], c2s = (PetscInt)gc.gxm[0] * gc.gxm[1], f1 = gf.gxm[0], f2 = (PetscInt)gf.gxm[0] * gf.gxm[1];
  int            c[3] = {0, 0, 0};
  PetscInt       cb = 0, co = 0, fo = 0;
  T              acc = 0;

  for (int t = threadIdx.x; t < 2 * NN; t += blockDim.x) E[t] = (T)embed[t];
  if (active) {
    cb = VPDGCellBase<DIM, N>(gc, cell, c);
    co = VPDGCellOffset<N>(p, c1, c2s);
    fo = VPDGCellOffset<N>(p, f1, f2);
    if (!TR) a[p] = (T)x[cb + co];
  }
  for (int ch = 0; ch < (DIM == 3 ? 8 : 4); ch++) {
    const int      h[3] = {ch & 1, (ch >> 1) & 1, (ch >> 2) & 1};
    const PetscInt fb   = ((PetscInt)(2 * c[0] + h[0]) * N - gf.gxs[0]) + ((PetscInt)(2 * c[1] + h[1]) * N - gf.gxs[1]) * f1 + (DIM == 3 ? ((PetscInt)(2 * c[2] + h[2]) * N - gf.gxs[2]) * f2 : 0);
    T              v;
    if (TR && active) a[p] = (T)x[fb + fo];
    __syncthreads();
    if (active) b[p] = VPDGEmbedLine<N, 0, TR>(E, h[0], p, a);
    __syncthreads();
    if constexpr (DIM == 3) {
      if (active) c2[p] = VPDGEmbedLine<N, 1, TR>(E, h[1], p, b);
      __syncthreads();
      v = active ? VPDGEmbedLine<N, 2, TR>(E, h[2], p, c2) : (T)0;
    } else
      v = active ? VPDGEmbedLine<N, 1, TR>(E, h[1], p, b) : (T)0;
    if (active) {
      if (TR)
        acc += v;
      else
        y[fb + fo] += (PetscScalar)v;
    }
    __syncthreads();
  }
  if (TR && active) y[cb + co] += (PetscScalar)acc;
}

template <int DIM, int K, typename T> struct VPDGTransfer {
  static PetscErrorCode run(const VPGrid *gc, const VPGrid *gf, const PetscReal *d_embed, PetscBool transp, const PetscScalar *x, PetscScalar *y)
  {
    constexpr int N = K + 1, NN = N * N, ND = DIM == 3 ? NN * N : NN, NB = VPBatch<ND>::value;
    const size_t  ncells = (size_t)gc->cm[0] * (size_t)gc->cm[1] * (size_t)(DIM == 3 ? gc->cm[2] : 1), bytes = sizeof(T) * (2 * NN + NB * 3 * ND);
    const int     nb = (int)((ncells + NB - 1) / NB), th = VPDGThreads(NB * ND);
    cudaStream_t  stream;

    PetscFunctionBegin;
    for (PetscInt e = 0; e < DIM; e++)
      PetscCheck(gf->N[e] == 2 * gc->N[e] && gf->cs[e] == 2 * gc->cs[e] && gf->cm[e] == 2 * gc->cm[e], PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "Direction %" PetscInt_FMT ": the fine part is not the refinement of the coarse one", e);
    PetscCheck(ncells <= (size_t)PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "The CUDA DG embedding takes at most 2^31 - 1 coarse cells per rank, this rank owns %zu: use more ranks", ncells);
    if (!ncells) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(VPGetStream(&stream));
    if (transp) {
      PetscCallCUDA(cudaFuncSetAttribute(VPDGTransferKernel<DIM, K, true, T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
      VPDGTransferKernel<DIM, K, true, T><<<nb, th, bytes, stream>>>(*gc, *gf, d_embed, (int)ncells, x, y);
    } else {
      PetscCallCUDA(cudaFuncSetAttribute(VPDGTransferKernel<DIM, K, false, T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
      VPDGTransferKernel<DIM, K, false, T><<<nb, th, bytes, stream>>>(*gc, *gf, d_embed, (int)ncells, x, y);
    }
    PetscCallCUDA(cudaGetLastError());
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};
VP_PRECISION_ALIASES(VPDGTransfer);

PetscErrorCode VPDGTransfer_CUDA(const VPGrid *gc, const VPGrid *gf, PetscBool single, const PetscReal *d_embed, PetscBool transp, const PetscScalar *x, PetscScalar *y)
{
  PetscFunctionBegin;
  if (VPGridEmpty(gc)) PetscFunctionReturn(PETSC_SUCCESS);
  VP_DISPATCH_PRECISION(VPDGTransfer, single, gf->dim, gf->k, gc, gf, d_embed, transp, x, y);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the diagonal of the Kronecker sum on the owned nodes (as MatGetDiagonal_SIPG()'s host loop): one thread per node,
   sum_e L_e(i_e, i_e) prod_{f != e} M_f(i_f, i_f) */
static __global__ void VPDGDiagonalKernel(const VPGrid g, const VPDG1D *__restrict__ dg, PetscInt64 nodes, PetscScalar *__restrict__ d)
{
  const PetscInt64 i = (PetscInt64)blockIdx.x * blockDim.x + threadIdx.x;
  const int        N = (int)g.k + 1;
  if (i >= nodes) return;
  const PetscInt64 p[3] = {g.xs[0] + i % g.xm[0], g.xs[1] + (i / g.xm[0]) % g.xm[1], g.xs[2] + i / ((PetscInt64)g.xm[0] * g.xm[1])};
  PetscReal        v    = 0;
  for (int e = 0; e < g.dim; e++) {
    const VPDG1D    *b = &dg[e];
    const PetscInt64 c = p[e] / N;
    const int        j = (int)(p[e] % N);
    const PetscReal *D = b->n == 1 ? b->Done : (c == 0 ? b->Dfirst : (c == b->n - 1 ? b->Dlast : b->Din));
    PetscReal        t = D[j * N + j];
    for (int f = 0; f < g.dim; f++)
      if (f != e) {
        const int jf = (int)(p[f] % N);
        t *= dg[f].M[jf * N + jf];
      }
    v += t;
  }
  d[i] = v;
}

PetscErrorCode VPDGDiagonal_CUDA(const VPGrid *g, const VPDG1D *d_dg, PetscScalar *d)
{
  const PetscInt64 nodes = (PetscInt64)g->xm[0] * g->xm[1] * (g->dim == 3 ? g->xm[2] : 1);
  cudaStream_t     stream;

  PetscFunctionBegin;
  if (VPGridEmpty(g)) PetscFunctionReturn(PETSC_SUCCESS);
  if (!nodes) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VPGetStream(&stream));
  VPDGDiagonalKernel<<<(unsigned)((nodes + 255) / 256), 256, 0, stream>>>(*g, d_dg, nodes, d);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}
