/*
  CUDA kernels of the matrix-free Q_k Laplacian: in 2D several owned cells per thread block, in 3D a box of cells
  (VPLapBoxKernel), their values in shared memory, sum factorization with one thread per 1D line (register lines) and the
  reference element matrices in constant memory (the uniform mesh: M_h = h Mhat, K_h = Khat / h), scatter-add
  with atomics (or plain adds per color of cells); arithmetic in T (double, or float for single precision). The same
  kernels give the residual b - A x in one pass (bres, VPLaplacianResidual_CUDA()).
  Dirichlet nodes are eliminated as in laplacian_cpu.c. The diagonal kernel reads d_mats: M_h and K_h per
  direction, [M_0, K_0, M_1, K_1, M_2, K_2], (k+1)^2 each.
*/
#include <petscvpatch/private/vpcuda.cuh>
#include "laplacian_tuning.cuh"

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

/* The passes, with c_d = stiff (prod_e h_e) / h_d^2 and cm = mass prod_e h_e (VPWeights), one thread per 1D line:
     x pass:  B = Mhat_x u,  C = c_0 Khat_x u + cm B               (B in place of u)
     y pass:  D = Mhat_y C + c_1 Khat_y B,  E = Mhat_y B           (in place: each thread reads its lines first)
     z pass:  A u = Mhat_z D + c_2 Khat_z E, added to y (atomics, or plain adds for one color)
   2D: the y pass gives A u = Mhat_y C + c_1 Khat_y B. Dirichlet nodes: x is read as zero there and their rows are
   skipped (VPOwnedBoundary_CUDA sets them). */

/* 2D: cells per block, about 256 lines per pass, within 40 KB of shared memory (two tensors per cell); rows of the cell
   tensors padded to an odd length so that the lines along x of a warp start in distinct banks */
template <int K, typename T> struct VPLapShape {
  static constexpr int N = K + 1, R = N | 1, NT = R * N, LINES = N;
  static constexpr int want = 256 / LINES > 0 ? 256 / LINES : 1, cap = 40960 / (2 * NT * (int)sizeof(T));
  static constexpr int NB = want < cap ? want : (cap > 0 ? cap : 1), THREADS = ((NB * LINES + 31) / 32) * 32;
};

/* 2D: y += A x on the cells of cset, NB cells per block, the cells' values gathered into shared memory */
template <int K, typename T>
__global__ void __launch_bounds__(512) VPLapApplyKernel(VPGrid g, VPCellSet cset, int ncells, bool atomic, T c0, T c1, T cm, const PetscScalar *__restrict__ bres, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y)
{
  using S               = VPLapShape<K, T>;
  constexpr int       N = S::N, R = S::R, NT = S::NT, NB = S::NB, LINES = S::LINES;
  __shared__ T        A[NB * NT], C[NB * NT];
  __shared__ PetscInt cbase[NB]; /* local index of each cell's first node */
  __shared__ int      cflag[NB]; /* VPDBoxFlags of each cell, -1: no cell */
  const int           sy = (int)g.gxm[0];

  for (int b = threadIdx.x; b < NB; b += blockDim.x) { /* once per cell: the runtime divisions and 64-bit index arithmetic */
    const int c = blockIdx.x * NB + b;
    int       cx, cy, cz, f = -1;
    PetscInt  o = 0;
    if (c < ncells) {
      VPDCell(cset, c, cx, cy, cz);
      o = VPDLocalIndex(g, cx * K, cy * K, 0);
      f = VPDBoxFlags(g, N, cx * K, cy * K, 0);
    }
    cbase[b] = o;
    cflag[b] = f;
  }
  __syncthreads();
  for (int t = threadIdx.x; t < NB * N * N; t += blockDim.x) {
    const int b = t / (N * N), e = t - b * (N * N), ix = e % N, iy = e / N, f = cflag[b];
    T         v = 0;
    if (f >= 0 && !VPDBoxOnBoundary<N>(f, ix, iy, 0)) v = (T)x[cbase[b] + (ix + iy * sy)];
    A[b * NT + iy * R + ix] = v;
  }
  __syncthreads();
  for (int t = threadIdx.x; t < NB * LINES; t += blockDim.x) { /* x pass: lines y */
    const int b = t / LINES, l = t - b * LINES, o = b * NT + l * R;
    T         v[N];
#pragma unroll
    for (int j = 0; j < N; j++) v[j] = A[o + j];
#pragma unroll
    for (int i = 0; i < N; i++) {
      const T m = VPLapRow<K, 0>(v, i);
      A[o + i]  = m;
      C[o + i]  = c0 * VPLapRow<K, 1>(v, i) + cm * m;
    }
  }
  __syncthreads();
  for (int t = threadIdx.x; t < NB * LINES; t += blockDim.x) { /* y pass: lines x, into y */
    const int b = t / LINES, ix = t - b * LINES, o = b * NT + ix, f = cflag[b];
    T         bv[N], cv[N];
    if (f < 0) continue;
#pragma unroll
    for (int j = 0; j < N; j++) {
      bv[j] = A[o + j * R];
      cv[j] = C[o + j * R];
    }
#pragma unroll
    for (int i = 0; i < N; i++) {
      if (VPDBoxOnBoundary<N>(f, ix, i, 0)) continue;
      const T        r   = VPLapRow<K, 0>(cv, i) + c1 * VPLapRow<K, 1>(bv, i);
      const PetscInt idx = cbase[b] + (ix + i * sy);
      PetscScalar    v   = (PetscScalar)r;
      if (bres) v = (ix < K && i < K ? bres[idx] : (PetscScalar)0) - v; /* the residual: b once, from the cell that owns the node */
      if (atomic)
        atomicAdd(&y[idx], v);
      else
        y[idx] += v;
    }
  }
}

/* 3D: boxes of BX x BY x BZ owned cells per thread block (VPLapBoxShape). On a box the operator is a tensor product of
   assembled 1D matrices (the sum over the box's cells of K_x (x) M_y (x) M_z + ... factors per direction), so the
   three passes run on the box's (BX k + 1) x (BY k + 1) x (BZ k + 1) nodes, one thread per 1D line, cell by cell
   along the line with the shared node carried in a register. Nodes inside the box get their whole A x from the box and
   are stored without atomics; only the nodes on the box's faces (a fraction of about 3 / (B k) instead of all
   (k+1)^3 of each cell) are added with atomics. ncu (H100, 64M DoF) found the cell kernel bound by the
   L2 atomics: memory pipes 81-84% busy at k = 1, 3 with DRAM at 10-32%. */
template <int K, typename T> struct VPLapBoxShape {
  static constexpr int BX = VPTuneLapBox(K, 0), BY = BX, BZ = VPTuneLapBox(K, 2); /* laplacian_tuning.cuh */
  static constexpr int EX = BX * K + 1, EY = BY * K + 1, EZ = BZ * K + 1, R = EX | 1, P = R * EY, NT = P * EZ;
  static constexpr int LX = EY * EZ, LY = EX * EZ, LZ = EX * EY, LMAX = LX > LY ? (LX > LZ ? LX : LZ) : (LY > LZ ? LY : LZ);
  static constexpr int THREADS = ((LMAX + 31) / 32) * 32 > 512 ? 512 : ((LMAX + 31) / 32) * 32;
};

/* The boxes one launch processes: box (i, j, l) starts at owned cell cs + B (first + step (i, j, l)) (first, step in box
   units; step 2: one parity color of boxes, which share no node: plain adds, deterministic) */
typedef struct {
  int first[3], step, n0, n1;
} VPBoxSet;

/* One line of nc <= B cells of the box, its values at U[o + i S] and W[o + i S] (i <= nc K): over the assembled line,
   r1 = Mhat u and r2 = a Khat u (+ Mhat w if HASW), given node by node to store(i, r1_i, r2_i) once complete: cell by
   cell, the node shared with the next cell carried in a register. In place (store may write U and W): a cell's values are
   loaded before any of its nodes but the first is stored, and each thread owns its line. */
template <int K, int B, bool HASW, typename T, typename ST> __device__ __forceinline__ void VPLapBoxLine(const T *U, const T *W, int o, int S, int nc, T a, ST store)
{
  T carry1 = 0, carry2 = 0;
#pragma unroll
  for (int c = 0; c < B; c++) {
    if (c < nc) {
      T u[K + 1], w[K + 1];
#pragma unroll
      for (int j = 0; j <= K; j++) {
        u[j] = U[o + (c * K + j) * S];
        if (HASW) w[j] = W[o + (c * K + j) * S];
      }
#pragma unroll
      for (int i = 0; i <= K; i++) { /* row by row: few registers held */
        T r1 = VPLapRow<K, 0>(u, i), r2 = a * VPLapRow<K, 1>(u, i);
        if (HASW) r2 += VPLapRow<K, 0>(w, i);
        if (i == 0) {
          r1 += carry1;
          r2 += carry2;
        }
        if (i < K)
          store(c * K + i, r1, r2);
        else {
          carry1 = r1;
          carry2 = r2;
        }
      }
    }
  }
  store(nc * K, carry1, carry2);
}

template <int K, typename T> struct VPLapBoxMinBlocks { /* laplacian_tuning.cuh */
  static constexpr int value = VPTuneLapBoxMinBlocks(K, (int)sizeof(T));
};
template <int K, typename T> __device__ __forceinline__ void VPLapBoxBody(VPGrid g, VPBoxSet bset, bool atomic, T c0, T c1, T c2, T cm, const PetscScalar *__restrict__ bres, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y)
{
  using S                = VPLapBoxShape<K, T>;
  constexpr int       EX = S::EX, EY = S::EY, EZ = S::EZ, R = S::R, P = S::P;
  __shared__ T        A[S::NT], C[S::NT];
  __shared__ PetscInt base;    /* local index of the box's first node */
  __shared__ int      info[4]; /* cells of the box per direction; bits 2 d, 2 d + 1: its first, last node layer along d is Dirichlet */
  const int           sy = (int)g.gxm[0], sz = (int)(g.gxm[0] * g.gxm[1]);

  if (threadIdx.x == 0) { /* once per box: runtime divisions, 64-bit index */
    const int b = blockIdx.x, bi[3] = {b % bset.n0, (b / bset.n0) % bset.n1, b / (bset.n0 * bset.n1)}, B[3] = {S::BX, S::BY, S::BZ};
    int       c[3];
    info[3] = VPDCellBox(g, bi, B, bset.first, bset.step, c, info);
    base    = VPDLocalIndex(g, c[0] * K, c[1] * K, c[2] * K);
  }
  __syncthreads();
  const int      nx = info[0] * K, ny = info[1] * K, nz = info[2] * K, f = info[3]; /* last node of the box per direction */
  const PetscInt b0        = base;
  auto           dirichlet = [&](int ex, int ey, int ez) { return VPDBoxOnFace(f, ex, ey, ez, nx, ny, nz); };
  /* gather u, zero on Dirichlet nodes and past the box, several loads in flight per thread (laplacian_tuning.cuh) */
  VPGatherBatched<VPTuneLapGatherBatch()>(EX * EY * EZ, A, [&](int t, T &v) {
    const int ex = t % EX, ey = (t / EX) % EY, ez = t / (EX * EY);
    if (ex <= nx && ey <= ny && ez <= nz && !dirichlet(ex, ey, ez)) v = (T)x[b0 + (ex + ey * sy + ez * sz)];
    return ez * P + ey * R + ex;
  });
  __syncthreads();
  for (int t = threadIdx.x; t < EY * EZ; t += blockDim.x) { /* x pass: B = Mhat_x u (into A), C = c0 Khat_x u + cm Mhat_x u */
    const int ey = t % EY, ez = t / EY, o = ez * P + ey * R;
    if (ey <= ny && ez <= nz)
      VPLapBoxLine<K, S::BX, false>(A, A, o, 1, info[0], c0, [&](int i, T r1, T r2) {
        A[o + i] = r1;
        C[o + i] = r2 + cm * r1;
      });
  }
  __syncthreads();
  for (int t = threadIdx.x; t < EX * EZ; t += blockDim.x) { /* y pass: E = Mhat_y B (into A), D = Mhat_y C + c1 Khat_y B (into C) */
    const int ex = t % EX, ez = t / EX, o = ez * P + ex;
    if (ex <= nx && ez <= nz)
      VPLapBoxLine<K, S::BY, true>(A, C, o, R, info[1], c1, [&](int i, T r1, T r2) {
        A[o + i * R] = r1;
        C[o + i * R] = r2;
      });
  }
  __syncthreads();
  for (int t = threadIdx.x; t < EX * EY; t += blockDim.x) { /* z pass: A u = Mhat_z D + c2 Khat_z E, into y */
    const int ex = t % EX, ey = t / EX, o = ey * R + ex;
    if (ex > nx || ey > ny) continue;
    const bool     inxy = ex > 0 && ex < nx && ey > 0 && ey < ny;
    const PetscInt bo   = b0 + (ex + ey * sy);
    VPLapBoxLine<K, S::BZ, true>(A, C, o, P, info[2], c2, [&](int i, T r1, T r2) {
      (void)r1;
      if (dirichlet(ex, ey, i)) return;
      const PetscInt idx = bo + (PetscInt)i * sz;
      PetscScalar   *yi = &y[idx], v = (PetscScalar)r2;
      if (bres) v = (ex < nx && ey < ny && i < nz ? bres[idx] : (PetscScalar)0) - v; /* the residual: b once, from the box that owns the node */
      if (!atomic)
        *yi += v; /* one color of boxes: no other thread adds here */
      else if (inxy && i > 0 && i < nz)
        *yi = v; /* inside the box: its whole value comes from this box */
      else
        atomicAdd(yi, v);
    });
  }
}
/* the kernel with the launch bound, or with the blocks per SM of VPLapBoxMinBlocks */
template <int K, typename T> __global__ void __launch_bounds__(512) VPLapBoxKernel(VPGrid g, VPBoxSet bset, bool atomic, T c0, T c1, T c2, T cm, const PetscScalar *__restrict__ bres, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y)
{
  VPLapBoxBody<K, T>(g, bset, atomic, c0, c1, c2, cm, bres, x, y);
}
template <int K, typename T>
__global__ void __launch_bounds__(VPLapBoxShape<K, T>::THREADS, VPLapBoxMinBlocks<K, T>::value)
    VPLapBoxKernelMinB(VPGrid g, VPBoxSet bset, bool atomic, T c0, T c1, T c2, T cm, const PetscScalar *__restrict__ bres, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y)
{
  VPLapBoxBody<K, T>(g, bset, atomic, c0, c1, c2, cm, bres, x, y);
}

template <int DIM, int K> __global__ void VPLapDiagKernel(VPGrid g, VPWeights w, const PetscReal *__restrict__ d_mats, PetscScalar *__restrict__ y)
{
  constexpr int    N = K + 1, NZ = DIM == 3 ? N : 1, NT = N * N * NZ;
  const int        cell = blockIdx.x;
  const int        cx = g.cs[0] + cell % g.cm[0], cy = g.cs[1] + (cell / g.cm[0]) % g.cm[1], cz = DIM == 3 ? g.cs[2] + cell / (g.cm[0] * g.cm[1]) : 0;
  const PetscReal *M0 = d_mats, *K0 = d_mats + N * N, *M1 = d_mats + 2 * N * N, *K1 = d_mats + 3 * N * N, *M2 = d_mats + 4 * N * N, *K2 = d_mats + 5 * N * N;
  for (int e = threadIdx.x; e < NT; e += blockDim.x) {
    const int ix = e % N, iy = (e / N) % N, iz = e / (N * N);
    const int px = cx * K + ix, py = cy * K + iy, pz = DIM == 3 ? cz * K + iz : 0;
    if (VPDIsBoundary(g, px, py, pz)) continue;
    PetscReal v = M1[iy * N + iy] * (w.stiff * K0[ix * N + ix] + w.mass * M0[ix * N + ix]) + w.stiff * K1[iy * N + iy] * M0[ix * N + ix];
    if (DIM == 3) v = M2[iz * N + iz] * v + w.stiff * K2[iz * N + iz] * M1[iy * N + iy] * M0[ix * N + ix];
    atomicAdd(&y[VPDLocalIndex(g, px, py, pz)], v);
  }
}

static inline int VPCells(const VPGrid *g)
{
  return g->cm[0] * g->cm[1] * (g->dim == 3 ? g->cm[2] : 1);
}

template <int DIM, int K, typename T> struct VPLapApply {
  static PetscErrorCode run(const VPGrid *g, const VPWeights *w, PetscBool deterministic, const PetscScalar *bres, const PetscScalar *x, PetscScalar *y)
  {
    cudaStream_t stream;
    PetscReal    vol = 1, c[3] = {0, 0, 0}, cm;
    PetscFunctionBegin;
    PetscCall(VPGetStream(&stream));
    for (int d = 0; d < DIM; d++) vol *= g->h[d];
    for (int d = 0; d < DIM; d++) c[d] = w->stiff * vol / (g->h[d] * g->h[d]);
    cm = w->mass * vol;
    if constexpr (DIM == 3) { /* boxes of cells (VPLapBoxKernel) */
      using SB        = VPLapBoxShape<K, T>;
      const int nb[3] = {((int)g->cm[0] + SB::BX - 1) / SB::BX, ((int)g->cm[1] + SB::BY - 1) / SB::BY, ((int)g->cm[2] + SB::BZ - 1) / SB::BZ};
      for (int color = 0; color < (deterministic ? 8 : 1); color++) {
        VPBoxSet bset;
        int      n[3];
        bset.step = deterministic ? 2 : 1;
        for (int d = 0; d < 3; d++) {
          bset.first[d] = deterministic ? (color >> d) & 1 : 0;
          n[d]          = nb[d] > bset.first[d] ? (nb[d] - bset.first[d] + bset.step - 1) / bset.step : 0;
        }
        bset.n0        = n[0];
        bset.n1        = n[1];
        const int nbox = n[0] * n[1] * n[2];
        if (!nbox) continue;
        if constexpr (VPLapBoxMinBlocks<K, T>::value > 1)
          VPLapBoxKernelMinB<K, T><<<nbox, SB::THREADS, 0, stream>>>(*g, bset, deterministic ? false : true, (T)c[0], (T)c[1], (T)c[2], (T)cm, bres, x, y);
        else
          VPLapBoxKernel<K, T><<<nbox, SB::THREADS, 0, stream>>>(*g, bset, deterministic ? false : true, (T)c[0], (T)c[1], (T)c[2], (T)cm, bres, x, y);
        PetscCallCUDA(cudaGetLastError());
      }
    } else
      for (int color = 0; color < (deterministic ? 4 : 1); color++) { /* 2D: cells (VPLapApplyKernel) */
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
        VPLapApplyKernel<K, T><<<(nc + VPLapShape<K, T>::NB - 1) / VPLapShape<K, T>::NB, VPLapShape<K, T>::THREADS, 0, stream>>>(*g, cset, nc, deterministic ? false : true, (T)c[0], (T)c[1], (T)cm, bres, x, y);
        PetscCallCUDA(cudaGetLastError());
      }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};

template <int DIM, int K> struct VPLapDiag {
  static PetscErrorCode run(const VPGrid *g, const VPWeights *w, const PetscReal *d_mats, PetscScalar *y)
  {
    constexpr int N = K + 1, NT = N * N * (DIM == 3 ? N : 1);
    cudaStream_t  stream;
    PetscFunctionBegin;
    PetscCall(VPGetStream(&stream));
    if (VPCells(g)) {
      VPLapDiagKernel<DIM, K><<<VPCells(g), VPThreads(NT), 0, stream>>>(*g, *w, d_mats, y);
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

static const VPWeights VPLaplacianWeights = {0.0, 1.0};

PetscErrorCode VPLaplacianApply_CUDA(const VPGrid *g, const VPWeights *w, PetscBool single, PetscBool deterministic, const PetscScalar *xl, PetscScalar *yl)
{
  PetscFunctionBegin;
  if (VPGridEmpty(g)) PetscFunctionReturn(PETSC_SUCCESS);
  if (!w) w = &VPLaplacianWeights;
  VP_DISPATCH_PRECISION(VPLapApply, single, g->dim, g->k, g, w, deterministic, (const PetscScalar *)NULL, xl, yl);
  PetscCall(VPOwnedBoundary_CUDA(g, w->mass + w->stiff, xl, yl, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* r = b - A x in one pass over x and b (MatResidual()), on a rank whose ghosted box is its owned box (one rank): r is
   zeroed, each box (2D: cell) adds b - (its part of A x) at the nodes it owns (those not on its upper faces; the upper
   faces of the last box are Dirichlet) and -(its part) elsewhere; the Dirichlet rows get b - x */
PetscErrorCode VPLaplacianResidual_CUDA(const VPGrid *g, const VPWeights *w, PetscBool single, PetscBool deterministic, const PetscScalar *b, const PetscScalar *x, PetscScalar *r)
{
  PetscFunctionBegin;
  if (VPGridEmpty(g)) PetscFunctionReturn(PETSC_SUCCESS);
  if (!w) w = &VPLaplacianWeights;
  PetscCall(VPZero_CUDA(r, (size_t)g->xm[0] * g->xm[1] * g->xm[2]));
  VP_DISPATCH_PRECISION(VPLapApply, single, g->dim, g->k, g, w, deterministic, b, x, r);
  PetscCall(VPOwnedBoundaryResidual_CUDA(g, w->mass + w->stiff, b, x, r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPLaplacianDiagonal_CUDA(const VPGrid *g, const VPWeights *w, const PetscReal *d_mats, PetscScalar *dl)
{
  PetscFunctionBegin;
  if (VPGridEmpty(g)) PetscFunctionReturn(PETSC_SUCCESS);
  if (!w) w = &VPLaplacianWeights;
  VP_DISPATCH(VPLapDiag, g->dim, g->k, g, w, d_mats, dl);
  PetscCall(VPOwnedBoundary_CUDA(g, w->mass + w->stiff, NULL, dl, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
