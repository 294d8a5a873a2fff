/*
  CUDA kernels of the matrix-free Q_k Laplacian: several owned cells per thread block, the cells'
  (k+1)^d values in shared memory, sum factorization with one thread per 1D line (register lines) and the
  reference element matrices in constant memory (the uniform mesh: M_h = h Mhat, K_h = Khat / h), scatter-add
  with atomics (or plain adds per color of cells); arithmetic in T (double, or float for single precision).
  Dirichlet nodes are eliminated as in laplacian_cpu.c. The diagonal kernel reads d_mats: M_h and K_h per
  direction, [M_0, K_0, M_1, K_1, M_2, K_2], (k+1)^2 each.
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

/* reference element matrices per degree K = 1..VPATCH_MAX_DEGREE in constant memory: Mhat, Khat ((K+1)^2 each,
   row-major, on the unit interval; VPLaplacianSetUp_CUDA). Unrolled over compile-time indices, each entry is a
   constant-bank operand of the multiply-add: the contractions load no matrix entry. */
__host__ __device__ constexpr int VPLapHatOffset(int K)
{
  int o = 0;
  for (int k = 1; k < K; k++) o += 2 * (k + 1) * (k + 1);
  return o;
}
#define VP_LAP_HAT_TOTAL VPLapHatOffset(VPATCH_MAX_DEGREE + 1)
VP_CONSTANT_TABLE(VPLapHat, VP_LAP_HAT_TOTAL);

/* row i of Mhat (MAT 0) or Khat (MAT 1) of degree K times the line v[K+1] */
template <int K, int MAT, typename T> __device__ __forceinline__ T VPLapRow(const T *v, int i)
{
  constexpr int N = K + 1;
  T             s = 0;
#pragma unroll
  for (int j = 0; j < N; j++) s += VPLapHat<T>(VPLapHatOffset(K) + MAT * N * N + i * N + j) * v[j];
  return s;
}

/* cells per block: about 256 lines per pass, within 40 KB of shared memory (two tensors per cell); rows of the
   cell tensors padded to an odd length so that the lines along x of a warp start in distinct banks */
template <int DIM, int K, typename T> struct VPLapShape {
  static constexpr int N = K + 1, NZ = DIM == 3 ? N : 1, R = N | 1, P = R * N, NT = P * NZ, LINES = N * NZ;
  static constexpr int want = 256 / LINES > 0 ? 256 / LINES : 1, cap = 40960 / (2 * NT * (int)sizeof(T));
  static constexpr int NB = want < cap ? want : (cap > 0 ? cap : 1), THREADS = ((NB * LINES + 31) / 32) * 32;
};

/* y += A x on the cells of cset: NB cells per block, the cell values gathered into shared memory, then one thread per
   1D line, with c_d = (prod_e h_e) / h_d^2:
     x pass:  B = Mhat_x u,  C = c_0 Khat_x u                      (B in place of u)
     y pass:  D = Mhat_y C + c_1 Khat_y B,  E = Mhat_y B           (in place: each thread reads its lines first)
     z pass:  A u = Mhat_z D + c_2 Khat_z E, added to y (atomics, or plain adds for one color of cells)
   2D: the y pass gives A u = Mhat_y C + c_1 Khat_y B. Dirichlet nodes: x is read as zero there and their rows are
   skipped (VPOwnedBoundary_CUDA sets them). */
template <int DIM, int K, typename T> __global__ void __launch_bounds__(512) VPLapApplyKernel(VPGrid g, VPCellSet cset, int ncells, bool atomic, T c0, T c1, T c2, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y)
{
  using S               = VPLapShape<DIM, K, T>;
  constexpr int       N = S::N, NZ = S::NZ, R = S::R, P = S::P, NT = S::NT, NB = S::NB, LINES = S::LINES;
  __shared__ T        A[NB * NT], C[NB * NT];
  __shared__ PetscInt cbase[NB]; /* local index of each cell's first node */
  __shared__ int      cflag[NB]; /* VPDBoxFlags of each cell, -1: no cell */
  const int           sy = (int)g.gxm[0], sz = (int)(g.gxm[0] * g.gxm[1]);

  for (int b = threadIdx.x; b < NB; b += blockDim.x) { /* once per cell: the runtime divisions and 64-bit index arithmetic */
    const int c = blockIdx.x * NB + b;
    int       cx, cy, cz, f = -1;
    PetscInt  o = 0;
    if (c < ncells) {
      VPDCell(cset, c, cx, cy, cz);
      o = VPDLocalIndex(g, cx * K, cy * K, DIM == 3 ? cz * K : 0);
      f = VPDBoxFlags(g, N, cx * K, cy * K, DIM == 3 ? cz * K : 0);
    }
    cbase[b] = o;
    cflag[b] = f;
  }
  __syncthreads();
  for (int t = threadIdx.x; t < NB * N * N * NZ; t += blockDim.x) {
    const int b = t / (N * N * NZ), e = t - b * (N * N * NZ), ix = e % N, iy = (e / N) % N, iz = e / (N * N), f = cflag[b];
    T         v = 0;
    if (f >= 0 && !VPDBoxOnBoundary<N>(f, ix, iy, iz)) v = (T)x[cbase[b] + (ix + iy * sy + iz * sz)];
    A[b * NT + iz * P + iy * R + ix] = v;
  }
  __syncthreads();
  for (int t = threadIdx.x; t < NB * LINES; t += blockDim.x) { /* x pass: lines (y, z) */
    const int b = t / LINES, l = t - b * LINES, o = b * NT + (l / N) * P + (l % N) * R;
    T         v[N];
#pragma unroll
    for (int j = 0; j < N; j++) v[j] = A[o + j];
#pragma unroll
    for (int i = 0; i < N; i++) {
      A[o + i] = VPLapRow<K, 0>(v, i);
      C[o + i] = c0 * VPLapRow<K, 1>(v, i);
    }
  }
  __syncthreads();
  for (int t = threadIdx.x; t < NB * LINES; t += blockDim.x) { /* y pass: lines (x, z) */
    const int b = t / LINES, l = t - b * LINES, ix = l % N, iz = l / N, o = b * NT + iz * P + ix;
    T         bv[N], cv[N];
#pragma unroll
    for (int j = 0; j < N; j++) {
      bv[j] = A[o + j * R];
      cv[j] = C[o + j * R];
    }
    if (DIM == 2) {
      const int f = cflag[b];
      if (f < 0) continue;
#pragma unroll
      for (int i = 0; i < N; i++) {
        if (VPDBoxOnBoundary<N>(f, ix, i, 0)) continue;
        const T        r   = VPLapRow<K, 0>(cv, i) + c1 * VPLapRow<K, 1>(bv, i);
        const PetscInt idx = cbase[b] + (ix + i * sy);
        if (atomic)
          atomicAdd(&y[idx], (PetscScalar)r);
        else
          y[idx] += (PetscScalar)r;
      }
    } else {
#pragma unroll
      for (int i = 0; i < N; i++) {
        C[o + i * R] = VPLapRow<K, 0>(cv, i) + c1 * VPLapRow<K, 1>(bv, i); /* D */
        A[o + i * R] = VPLapRow<K, 0>(bv, i);                              /* E */
      }
    }
  }
  if (DIM == 2) return;
  __syncthreads();
  for (int t = threadIdx.x; t < NB * LINES; t += blockDim.x) { /* z pass: lines (x, y) */
    const int b = t / LINES, l = t - b * LINES, ix = l % N, iy = l / N, o = b * NT + iy * R + ix, f = cflag[b];
    T         dv[N], ev[N];
    if (f < 0) continue;
#pragma unroll
    for (int j = 0; j < N; j++) {
      dv[j] = C[o + j * P];
      ev[j] = A[o + j * P];
    }
#pragma unroll
    for (int i = 0; i < N; i++) {
      if (VPDBoxOnBoundary<N>(f, ix, iy, i)) continue;
      const T        r   = VPLapRow<K, 0>(dv, i) + c2 * VPLapRow<K, 1>(ev, i);
      const PetscInt idx = cbase[b] + (ix + iy * sy + i * sz);
      if (atomic)
        atomicAdd(&y[idx], (PetscScalar)r);
      else
        y[idx] += (PetscScalar)r;
    }
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
  static PetscErrorCode run(const VPGrid *g, PetscBool deterministic, const PetscScalar *x, PetscScalar *y)
  {
    using S = VPLapShape<DIM, K, T>;
    cudaStream_t stream;
    PetscReal    vol = 1, c[3] = {0, 0, 0};
    PetscFunctionBegin;
    PetscCall(VPGetStream(&stream));
    for (int d = 0; d < DIM; d++) vol *= g->h[d];
    for (int d = 0; d < DIM; d++) c[d] = vol / (g->h[d] * g->h[d]);
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
      VPLapApplyKernel<DIM, K, T><<<(nc + S::NB - 1) / S::NB, S::THREADS, 0, stream>>>(*g, cset, nc, deterministic ? false : true, (T)c[0], (T)c[1], (T)c[2], x, y);
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

PetscErrorCode VPLaplacianSetUp_CUDA(PetscInt k, const PetscReal *Mhat, const PetscReal *Khat)
{
  const int n = (int)((k + 1) * (k + 1));
  PetscReal h[2 * (VPATCH_MAX_DEGREE + 1) * (VPATCH_MAX_DEGREE + 1)];

  PetscFunctionBegin;
  PetscCheck(k >= 1 && k <= VPATCH_MAX_DEGREE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "No CUDA Laplacian for degree %d", (int)k);
  for (int i = 0; i < n; i++) {
    h[i]     = Mhat[i];
    h[n + i] = Khat[i];
  }
  PetscCall(VPLapHatUpload(h, 2 * n, VPLapHatOffset((int)k)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPLaplacianApply_CUDA(const VPGrid *g, PetscBool single, PetscBool deterministic, const PetscScalar *xl, PetscScalar *yl)
{
  PetscFunctionBegin;
  VP_DISPATCH_PRECISION(VPLapApply, single, g->dim, g->k, g, deterministic, xl, yl);
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
