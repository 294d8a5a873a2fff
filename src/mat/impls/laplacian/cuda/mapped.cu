/*
  CUDA kernels of the operator -div(a grad u) on mapped cells (the general path of the DMQBOX operator; the CPU kernels
  and the formulas: laplacian_cpu.c, VPMappedCellApply_CPU()). 3D: one thread per 1D line (VPMapLineKernel); 2D: NB
  cells per thread block, one thread per node of a cell;
  the cell's tensors in shared memory; the 1D basis values S and derivatives D at the k+1 Gauss points in constant
  memory; the factors G (d (d+1) / 2 per point) read from global memory once per apply, coalesced (point fastest; in
  float for single precision);
  scatter-add with atomics. Arithmetic in T (double, or float for single precision), G converted on load.
  VPMapPatchResidualKernel: the same passes per vertex patch, for PCVPATCH's colors (a patch's residual from its cells,
  summed in shared memory, and optionally its surrogate's solve), here because it shares the passes and the tables.
*/
#include <petscvpatch/private/vpgeomap.cuh>
#include <petscvpatch/private/vpprofile.h>
#include <type_traits>

/* S then D ((K+1)^2 each, row-major [q][i]) per degree K = 1..VPATCH_MAX_DEGREE */
__host__ __device__ constexpr int VPMapSDOffset(int K)
{
  int o = 0;
  for (int k = 1; k < K; k++) o += 2 * (k + 1) * (k + 1);
  return o;
}
VP_CONSTANT_TABLE(VPMapSD, VPMapSDOffset(VPATCH_MAX_DEGREE + 1));

template <int K, int MAT, typename T> __device__ __forceinline__ T VPMapB(int q, int i)
{
  return VPMapSD<T>(VPMapSDOffset(K) + MAT * (K + 1) * (K + 1) + q * (K + 1) + i);
}

template <int DIM, int K> struct VPMapShape {
  static constexpr int N = K + 1, ND = DIM == 3 ? N * N * N : N * N, NB = VPBatch<ND>::value, THREADS = ((NB * ND + 31) / 32) * 32;
};

/* contraction along direction DIR of the tensor in (x fastest) at the node (i0, i1, i2), with matrix MAT (0: S, 1: D),
   transposed (sum over the first index) when TR */
template <int DIM, int K, int DIR, int MAT, bool TR, typename T> __device__ __forceinline__ T VPMapContract(const T *in, int i0, int i1, int i2)
{
  constexpr int N    = K + 1;
  const int     self = DIR == 0 ? i0 : (DIR == 1 ? i1 : i2);
  const int     base = DIR == 0 ? (i1 * N + i2 * N * N) : (DIR == 1 ? (i0 + i2 * N * N) : (i0 + i1 * N));
  const int     step = DIR == 0 ? 1 : (DIR == 1 ? N : N * N);
  T             s    = 0;
#pragma unroll
  for (int j = 0; j < N; j++) s += (TR ? VPMapB<K, MAT, T>(j, self) : VPMapB<K, MAT, T>(self, j)) * in[base + j * step];
  return s;
}

template <int DIM, int K, typename T> __global__ void __launch_bounds__(VPMapShape<DIM, K>::THREADS) VPMapApplyKernel(VPGrid g, int ncells, const T *__restrict__ geo, PetscScalar alpha, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y)
{
  using S         = VPMapShape<DIM, K>;
  constexpr int N = S::N, ND = S::ND, NB = S::NB, NC = DIM == 3 ? 6 : 3;
  __shared__ T  P[3][NB * ND], Q[3][NB * ND];
  const int     b = threadIdx.x / ND, t = threadIdx.x - b * ND, cell = blockIdx.x * NB + b;
  const bool    active = b < NB && cell < ncells;
  const int     i0 = t % N, i1 = (t / N) % N, i2 = DIM == 3 ? t / (N * N) : 0, o = b * ND;
  int           px = 0, py = 0, pz = 0;
  bool          bnd = true;
  PetscInt      idx = 0;

  if (active) {
    const int cx = cell % (int)g.cm[0], cy = (cell / (int)g.cm[0]) % (int)g.cm[1], cz = DIM == 3 ? cell / (int)(g.cm[0] * g.cm[1]) : 0;
    px          = ((int)g.cs[0] + cx) * K + i0;
    py          = ((int)g.cs[1] + cy) * K + i1;
    pz          = DIM == 3 ? ((int)g.cs[2] + cz) * K + i2 : 0;
    bnd         = VPDIsBoundary(g, px, py, pz);
    idx         = VPDLocalIndex(g, px, py, pz);
    P[0][o + t] = bnd ? (T)0 : (T)x[idx];
  }
  __syncthreads();
  if (active) { /* x: D_x u, S_x u */
    Q[0][o + t] = VPMapContract<DIM, K, 0, 1, false>(P[0] + o, i0, i1, i2);
    Q[1][o + t] = VPMapContract<DIM, K, 0, 0, false>(P[0] + o, i0, i1, i2);
  }
  __syncthreads();
  T gr[3] = {0, 0, 0};
  if (DIM == 2) {
    if (active) {
      gr[0] = VPMapContract<DIM, K, 1, 0, false>(Q[0] + o, i0, i1, i2);
      gr[1] = VPMapContract<DIM, K, 1, 1, false>(Q[1] + o, i0, i1, i2);
    }
  } else {
    if (active) {
      P[0][o + t] = VPMapContract<DIM, K, 1, 0, false>(Q[0] + o, i0, i1, i2);
      P[1][o + t] = VPMapContract<DIM, K, 1, 1, false>(Q[1] + o, i0, i1, i2);
      P[2][o + t] = VPMapContract<DIM, K, 1, 0, false>(Q[1] + o, i0, i1, i2);
    }
    __syncthreads();
    if (active) {
      gr[0] = VPMapContract<DIM, K, 2, 0, false>(P[0] + o, i0, i1, i2);
      gr[1] = VPMapContract<DIM, K, 2, 0, false>(P[1] + o, i0, i1, i2);
      gr[2] = VPMapContract<DIM, K, 2, 1, false>(P[2] + o, i0, i1, i2);
    }
  }
  __syncthreads();                                 /* every gradient read its lines before f overwrites them (2D) */
  if (active) {                                    /* f = G grad at this point */
    const T *G = geo + (size_t)cell * NC * ND + t; /* in T: float factors for single precision */
    if (DIM == 2) {
      const T g00 = (T)G[0], g11 = (T)G[ND], g01 = (T)G[2 * ND];
      Q[0][o + t] = g00 * gr[0] + g01 * gr[1];
      Q[1][o + t] = g01 * gr[0] + g11 * gr[1];
    } else {
      const T g00 = (T)G[0], g11 = (T)G[ND], g22 = (T)G[2 * ND], g01 = (T)G[3 * ND], g02 = (T)G[4 * ND], g12 = (T)G[5 * ND];
      Q[0][o + t] = g00 * gr[0] + g01 * gr[1] + g02 * gr[2];
      Q[1][o + t] = g01 * gr[0] + g11 * gr[1] + g12 * gr[2];
      Q[2][o + t] = g02 * gr[0] + g12 * gr[1] + g22 * gr[2];
    }
  }
  __syncthreads();
  /* back: toward D_x^T into P[0], toward S_x^T into P[1] */
  if (DIM == 2) {
    if (active) {
      P[0][o + t] = VPMapContract<DIM, K, 1, 0, true>(Q[0] + o, i0, i1, i2);
      P[1][o + t] = VPMapContract<DIM, K, 1, 1, true>(Q[1] + o, i0, i1, i2);
    }
  } else {
    if (active) {
      P[0][o + t] = VPMapContract<DIM, K, 2, 0, true>(Q[0] + o, i0, i1, i2);
      P[1][o + t] = VPMapContract<DIM, K, 2, 0, true>(Q[1] + o, i0, i1, i2);
      P[2][o + t] = VPMapContract<DIM, K, 2, 1, true>(Q[2] + o, i0, i1, i2);
    }
    __syncthreads();
    if (active) {
      Q[0][o + t] = VPMapContract<DIM, K, 1, 0, true>(P[0] + o, i0, i1, i2);
      Q[1][o + t] = VPMapContract<DIM, K, 1, 1, true>(P[1] + o, i0, i1, i2) + VPMapContract<DIM, K, 1, 0, true>(P[2] + o, i0, i1, i2);
    }
  }
  __syncthreads();
  if (active && !bnd) {
    const T *bx = DIM == 2 ? P[0] : Q[0], *bs = DIM == 2 ? P[1] : Q[1];
    const T  v = VPMapContract<DIM, K, 0, 1, true>(bx + o, i0, i1, i2) + VPMapContract<DIM, K, 0, 0, true>(bs + o, i0, i1, i2);
    atomicAdd(&y[idx], alpha * (PetscScalar)v);
  }
}

/* 3D: one thread per 1D line of a cell (N^2 lines of N = k+1 nodes per direction), the line in registers: each pass
   reads a line of its input once and writes a line of each output (the thread-per-node kernel above reads N values per
   output value: 16 N^4 shared-memory loads per cell against 11 N^3 here). Passes: x (D u, S u), y (the three
   partial gradients), z (the gradients, G at the line's points from global memory, and back along z, in place), y
   back, x back with the scatter-add. */
/* The cells' tensors in shared memory: node (i0, i1, i2) of the block's cell b at b PC + i0 + i1 PX + i2 PY. The passes'
   lanes (two to eight cells per warp at k <= 3) read lines along x (lane (la, lb) at la PX + lb PY), y (la + lb PY)
   and z (la + lb PX); with the plain strides (N, N^2, N^3) the x and y passes conflict 4-way at k = 3 (lanes 4 floats
   apart, and the cells N^3 = 64 apart share their banks) and 8-way at k = 7. These strides, found by trying every
   padding up to 32 words for the fewest conflicts over the three passes (32 banks of 4 bytes; a double takes two, a
   half-warp at a time), make them 1, 2, 1 at k = 3 and 1, 1, 2 at k = 7 (k = 1: 1, 2, 1); the other degrees keep the
   plain ones, which are as good as any padding there or better. */
template <int K, typename T> struct VPMapPad {
  static constexpr int N = K + 1, PX = K == 1 ? 2 : (K == 7 ? 9 : N), PY = K == 1 ? 5 : (K == 3 ? 19 : (K == 7 ? 72 : N * PX));
  static constexpr int PC = K == 1 ? 12 : (K == 3 ? (sizeof(T) == 4 ? 80 : 73) : (K == 7 ? 575 : N * PY));
  static_assert(PY >= N * PX && PC >= (N - 1) * (PX + PY) + N, "the padded strides must keep the nodes of the cells apart");
};

template <int K, typename T, bool FLY = false> struct VPMapLineShape {
  /* FLY: three more arrays (the nodes' images); NB capped to keep the eight in the 48 KB of static shared memory */
  static constexpr int N = K + 1, ND = N * N * N, PC = VPMapPad<K, T>::PC, L = N * N, NB0 = L >= 128 ? 1 : 128 / L, CAP = 49152 / (8 * PC * (int)sizeof(T));
  static constexpr int NB = !FLY || NB0 <= CAP ? NB0 : (CAP > 0 ? CAP : 1), THREADS = ((NB * L + 31) / 32) * 32;
};

/* out = B v (TR: B^T v) for the 1D matrix MAT (0: S, 1: D) */
template <int K, int MAT, bool TR, typename T> __device__ __forceinline__ void VPMapLine(const T *v, T *out)
{
  constexpr int N = K + 1;
#pragma unroll
  for (int i = 0; i < N; i++) {
    T s = 0;
#pragma unroll
    for (int j = 0; j < N; j++) s += (TR ? VPMapB<K, MAT, T>(j, i) : VPMapB<K, MAT, T>(i, j)) * v[j];
    out[i] = s;
  }
}

/* the forward passes of the gradient, shared by the operator and (FLY) the map's Jacobian; thread (la, lb) of a cell
   at offset o. x lines (y = la, z = lb) of the line u: A = D_x u, B = S_x u */
template <int K, typename T> __device__ __forceinline__ void VPMapForwardX(const T *u, T *A, T *B, int o, int la, int lb)
{
  constexpr int N = K + 1, PX = VPMapPad<K, T>::PX, PY = VPMapPad<K, T>::PY;
  T             r1[N], r2[N];
  VPMapLine<K, 1, false>(u, r1);
  VPMapLine<K, 0, false>(u, r2);
#pragma unroll
  for (int i = 0; i < N; i++) {
    A[o + i + la * PX + lb * PY] = r1[i];
    B[o + i + la * PX + lb * PY] = r2[i];
  }
}

/* y lines (x = la, z = lb): P0 = S_y A, P1 = D_y B, P2 = S_y B */
template <int K, typename T> __device__ __forceinline__ void VPMapForwardY(const T *A, const T *B, T *P0, T *P1, T *P2, int o, int la, int lb)
{
  constexpr int N = K + 1, PX = VPMapPad<K, T>::PX, PY = VPMapPad<K, T>::PY;
  T             a[N], c[N], r[N];
#pragma unroll
  for (int j = 0; j < N; j++) {
    a[j] = A[o + la + j * PX + lb * PY];
    c[j] = B[o + la + j * PX + lb * PY];
  }
  VPMapLine<K, 0, false>(a, r);
#pragma unroll
  for (int i = 0; i < N; i++) P0[o + la + i * PX + lb * PY] = r[i];
  VPMapLine<K, 1, false>(c, r);
#pragma unroll
  for (int i = 0; i < N; i++) P1[o + la + i * PX + lb * PY] = r[i];
  VPMapLine<K, 0, false>(c, r);
#pragma unroll
  for (int i = 0; i < N; i++) P2[o + la + i * PX + lb * PY] = r[i];
}

/* the lines of P0, P1, P2 that start at base with stride step */
template <int K, typename T> __device__ __forceinline__ void VPMapLines3(const T *P0, const T *P1, const T *P2, int base, int step, T a0[K + 1], T a1[K + 1], T a2[K + 1])
{
#pragma unroll
  for (int j = 0; j < K + 1; j++) {
    a0[j] = P0[base + j * step];
    a1[j] = P1[base + j * step];
    a2[j] = P2[base + j * step];
  }
}

/* z lines (x = la, y = lb): the gradient (S_z P0, S_z P1, D_z P2), times the factors G(i, m) (component m at the
   line's point i, order 00 11 22 01 02 12), back along z; in place (the thread owns its line) */
template <int K, typename T, typename GF> __device__ __forceinline__ void VPMapPassZ(T *P0, T *P1, T *P2, int o, int la, int lb, GF G)
{
  constexpr int N = K + 1, PX = VPMapPad<K, T>::PX, PY = VPMapPad<K, T>::PY;
  T             p0[N], p1[N], p2[N], g0[N], g1[N], g2[N];
  VPMapLines3<K>(P0, P1, P2, o + la + lb * PX, PY, p0, p1, p2);
  VPMapLine<K, 0, false>(p0, g0);
  VPMapLine<K, 0, false>(p1, g1);
  VPMapLine<K, 1, false>(p2, g2);
#pragma unroll
  for (int i = 0; i < N; i++) {
    const T g00 = G(i, 0), g11 = G(i, 1), g22 = G(i, 2), g01 = G(i, 3), g02 = G(i, 4), g12 = G(i, 5);
    const T a0 = g0[i], a1 = g1[i], a2 = g2[i];
    g0[i] = g00 * a0 + g01 * a1 + g02 * a2;
    g1[i] = g01 * a0 + g11 * a1 + g12 * a2;
    g2[i] = g02 * a0 + g12 * a1 + g22 * a2;
  }
  VPMapLine<K, 0, true>(g0, p0);
  VPMapLine<K, 0, true>(g1, p1);
  VPMapLine<K, 1, true>(g2, p2);
#pragma unroll
  for (int i = 0; i < N; i++) {
    P0[o + la + lb * PX + i * PY] = p0[i];
    P1[o + la + lb * PX + i * PY] = p1[i];
    P2[o + la + lb * PX + i * PY] = p2[i];
  }
}

/* y lines back (x = la, z = lb): toward D_x^T (into A), toward S_x^T (into B) */
template <int K, typename T> __device__ __forceinline__ void VPMapBackY(T *A, T *B, const T *P0, const T *P1, const T *P2, int o, int la, int lb)
{
  constexpr int N = K + 1, PX = VPMapPad<K, T>::PX, PY = VPMapPad<K, T>::PY;
  T             a0[N], a1[N], a2[N], r1[N], r2[N], r3[N];
  VPMapLines3<K>(P0, P1, P2, o + la + lb * PY, PX, a0, a1, a2);
  VPMapLine<K, 0, true>(a0, r1);
  VPMapLine<K, 1, true>(a1, r2);
  VPMapLine<K, 0, true>(a2, r3);
#pragma unroll
  for (int i = 0; i < N; i++) {
    A[o + la + i * PX + lb * PY] = r1[i];
    B[o + la + i * PX + lb * PY] = r2[i] + r3[i];
  }
}

/* x line back (y = la, z = lb): v = D_x^T A + S_x^T B, the cell's K u along the line */
template <int K, typename T> __device__ __forceinline__ void VPMapBackX(const T *A, const T *B, int o, int la, int lb, T v[K + 1])
{
  constexpr int N = K + 1, PX = VPMapPad<K, T>::PX, PY = VPMapPad<K, T>::PY;
  T             a[N], c[N], r1[N], r2[N];
#pragma unroll
  for (int j = 0; j < N; j++) {
    a[j] = A[o + j + la * PX + lb * PY];
    c[j] = B[o + j + la * PX + lb * PY];
  }
  VPMapLine<K, 1, true>(a, r1);
  VPMapLine<K, 0, true>(c, r2);
#pragma unroll
  for (int i = 0; i < N; i++) v[i] = r1[i] + r2[i];
}

/* FLY: the factors G = w a adj(J^T J) / det J at the points of the thread's z line, computed from the built-in map p
   and coefficient in T (instead of read from geo): the cell's node images (relative to the first node's) into shared
   memory, then per component of the map the three passes of the gradient (J's row) and of the value (the point, for
   the coefficient). J stays in registers (12 (k+1) values). */
template <int K, typename T, bool FLY, bool SPLIT = false>
__global__ void __launch_bounds__(VPMapLineShape<K, T, FLY>::THREADS)
    VPMapLineKernel(VPGrid g, VPGeometryParams p, int ncells, const void *__restrict__ geo, const float *__restrict__ glo, PetscScalar alpha, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y)
{
  using S               = VPMapLineShape<K, T, FLY>;
  constexpr int       N = S::N, ND = S::ND, L = S::L, NB = S::NB, NN = N * N, PC = S::PC, PX = VPMapPad<K, T>::PX, PY = VPMapPad<K, T>::PY, NX = FLY ? NB * PC : 1;
  __shared__ T        A[NB * PC], B[NB * PC], P0[NB * PC], P1[NB * PC], P2[NB * PC], X[3][NX];
  __shared__ PetscInt cbase[NB]; /* local index of each cell's first node */
  __shared__ int      cflag[NB]; /* VPDBoxFlags of each cell, -1: no cell */
  __shared__ int      ccell[NB][3];
  __shared__ double   cref[FLY ? NB : 1][3]; /* FLY: the image of the cell's first node; T holds the images relative to it */
  const int           sy = (int)g.gxm[0], sz = (int)(g.gxm[0] * g.gxm[1]);

  for (int b = threadIdx.x; b < NB; b += blockDim.x) {
    const int c = blockIdx.x * NB + b;
    int       f = -1, cx = 0, cy = 0, cz = 0;
    PetscInt  o = 0;
    if (c < ncells) {
      cx = (int)g.cs[0] + c % (int)g.cm[0];
      cy = (int)g.cs[1] + (c / (int)g.cm[0]) % (int)g.cm[1];
      cz = (int)g.cs[2] + c / (int)(g.cm[0] * g.cm[1]);
      o  = VPDLocalIndex(g, cx * K, cy * K, cz * K);
      f  = VPDBoxFlags(g, N, cx * K, cy * K, cz * K);
    }
    cbase[b]    = o;
    cflag[b]    = f;
    ccell[b][0] = cx;
    ccell[b][1] = cy;
    ccell[b][2] = cz;
    if constexpr (FLY) {
      const int c3[3] = {cx, cy, cz}, i0[3] = {0, 0, 0};
      double    xr[3] = {0, 0, 0};
      if (c < ncells) VPGeoNodeImage(g, p, 3, K, c3, i0, xr);
      for (int a = 0; a < 3; a++) cref[b][a] = xr[a];
    }
  }
  __syncthreads();
  const int  b = threadIdx.x / L, l = threadIdx.x - b * L, cell = blockIdx.x * NB + b, la = l % N, lb = l / N, o = b * PC;
  const bool active = b < NB && cflag[b] >= 0;
  const int  f      = active ? cflag[b] : 0;
  T          Gr[FLY ? 6 : 1][FLY ? N : 1]; /* FLY: the factors at the points (la, lb, i) of the thread's z line */
  if constexpr (FLY) {
    T J[3][3][N], xq[3][N]; /* J[a][e]: d x_a / d X_e */
    if (active) {           /* the images of the x line (y = la, z = lb) */
#pragma unroll
      for (int i = 0; i < N; i++) {
        const int it[3] = {i, la, lb};
        double    xx[3];
        VPGeoNodeImage(g, p, 3, K, ccell[b], it, xx);
        for (int a = 0; a < 3; a++) X[a][o + i + la * PX + lb * PY] = (T)(xx[a] - cref[b][a]); /* J loses no digits in float */
      }
    }
    __syncthreads();
#pragma unroll
    for (int a = 0; a < 3; a++) {
      if (active) { /* x lines: D_x x_a, S_x x_a */
        T u[N];
#pragma unroll
        for (int i = 0; i < N; i++) u[i] = X[a][o + i + la * PX + lb * PY];
        VPMapForwardX<K>(u, A, B, o, la, lb);
      }
      __syncthreads();
      if (active) VPMapForwardY<K>(A, B, P0, P1, P2, o, la, lb);
      __syncthreads();
      if (active) { /* z lines: the row a of J and the point's coordinate a */
        T q0[N], q1[N], q2[N];
#pragma unroll
        for (int j = 0; j < N; j++) {
          q0[j] = P0[o + la + lb * PX + j * PY];
          q1[j] = P1[o + la + lb * PX + j * PY];
          q2[j] = P2[o + la + lb * PX + j * PY];
        }
        VPMapLine<K, 0, false>(q0, J[a][0]);
        VPMapLine<K, 0, false>(q1, J[a][1]);
        VPMapLine<K, 1, false>(q2, J[a][2]);
        VPMapLine<K, 0, false>(q2, xq[a]);
      }
      __syncthreads();
    }
    if (active) {
#pragma unroll
      for (int i = 0; i < N; i++) {
        PetscReal Jm[9], adj[6];
        double    xx[3];
        for (int a = 0; a < 3; a++) {
          xx[a] = cref[b][a] + xq[a][i]; /* S interpolates: its rows sum to 1 */
          for (int e = 0; e < 3; e++) Jm[a * 3 + e] = J[a][e][i];
        }
        const double det = VPGeoDetAdj(3, Jm, adj), w = p.w[la] * p.w[lb] * p.w[i], s = w * VPGeoCoefficient(p, 3, xx) / det;
        for (int m = 0; m < 6; m++) Gr[m][i] = (T)(s * adj[m]);
      }
    }
  }
  if (active) { /* x lines (y = la, z = lb): D_x u, S_x u; Dirichlet nodes read as zero */
    T u[N];
#pragma unroll
    for (int i = 0; i < N; i++) u[i] = VPDBoxOnBoundary<N>(f, i, la, lb) ? (T)0 : (T)x[cbase[b] + (i + la * sy + lb * sz)];
    VPMapForwardX<K>(u, A, B, o, la, lb);
  }
  __syncthreads();
  if (active) VPMapForwardY<K>(A, B, P0, P1, P2, o, la, lb); /* y lines (x = la, z = lb): S_y D_x u, D_y S_x u, S_y S_x u */
  __syncthreads();
  if (active) { /* z lines (x = la, y = lb): the gradient, G, back along z */
    if constexpr (FLY)
      VPMapPassZ<K>(P0, P1, P2, o, la, lb, [&](int i, int m) { return Gr[m][i]; });
    else if constexpr (SPLIT) { /* the factors as hi + lo (VPMappedSplit_CUDA()) */
      const size_t off = (size_t)cell * 6 * ND + la + lb * N;
      const float *Gh = (const float *)geo + off, *Gl = glo + off;
      VPMapPassZ<K>(P0, P1, P2, o, la, lb, [&](int i, int m) { return (T)((double)Gh[i * NN + m * ND] + (double)Gl[i * NN + m * ND]); });
    } else {
      const T *G = (const T *)geo + (size_t)cell * 6 * ND + la + lb * N;
      VPMapPassZ<K>(P0, P1, P2, o, la, lb, [&](int i, int m) { return G[i * NN + m * ND]; });
    }
  }
  __syncthreads();
  if (active) VPMapBackY<K>(A, B, P0, P1, P2, o, la, lb); /* y lines back (x = la, z = lb) */
  __syncthreads();
  if (active) { /* x lines back (y = la, z = lb), scatter-add; Dirichlet rows skipped */
    T v[N];
    VPMapBackX<K>(A, B, o, la, lb, v);
#pragma unroll
    for (int i = 0; i < N; i++)
      if (!VPDBoxOnBoundary<N>(f, i, la, lb)) atomicAdd(&y[cbase[b] + (i + la * sy + lb * sz)], alpha * (PetscScalar)v[i]);
  }
}

/* The residual of the vertex patches of one color (3D), r = b - alpha K x on each patch's interior nodes, with one
   thread block per patch: its box of (2k+1)^3 values of x read once, coalesced (Dirichlet nodes as zero), its 2^3 cells
   CB at a time through the passes of VPMapLineKernel, and the cells' contributions summed node by node in shared
   memory (no atomics: deterministic). A patch interior node couples only to the patch's cells, so this is the residual
   the patch's solve needs; the patches of a color cover each cell at most once: one operator application per color,
   without the copy of b, the atomics, and the rows that no patch of the color solves for. */
template <int K, typename T> struct VPMapPatchShape {
  static constexpr int    N = K + 1, L = N * N, PC = VPMapPad<K, T>::PC, NP = 2 * K + 1, NI = 2 * K - 1;
  static constexpr int    CB0     = 8 * L <= 256 ? 8 : (4 * L <= 256 ? 4 : (2 * L <= 256 ? 2 : 1)); /* cells at a time: up to 256 threads */
  static constexpr size_t CELL    = 5 * (size_t)PC * sizeof(T);                                     /* shared bytes per cell */
  static constexpr int    CB      = CB0 * CELL <= 49152 ? CB0 : (CB0 / 2 * CELL <= 49152 ? CB0 / 2 : (CB0 / 4 >= 1 ? CB0 / 4 : 1));
  static constexpr int    THREADS = ((CB * L + 31) / 32) * 32;
  static constexpr size_t OPER    = 5 * (size_t)CB * PC + NP * NP * NP; /* T entries of the operator's passes */
  static constexpr size_t SURR    = 3 * (size_t)NI * NI + 9 * NI;       /* T entries of a surrogate's tables (VPMapSurr): VPProfileSize(K) */
  static constexpr size_t SOLVE   = 3 * (size_t)NI * NI * NI + SURR;    /* T entries of the local solve's */
  static constexpr size_t SHARED  = NI * NI * NI * sizeof(double) + (OPER > SOLVE ? OPER : SOLVE) * sizeof(T);
  /* the local solver cg's: acc and 32 block sums in double; the operator's passes or the solve's two tensors (SCR), then
     the CG vectors r, p, u, Dsc and the surrogate's tables in T */
  static constexpr size_t NT2      = 2 * (size_t)NI * NI * NI; /* two interior tensors */
  static constexpr size_t SCR      = OPER > NT2 ? OPER : NT2;
  static constexpr size_t CGSHARED = (NI * NI * NI + 32) * sizeof(double) + (SCR + 4 * (size_t)NI * NI * NI + SURR) * sizeof(T);
  /* blocks per SM the registers must allow (0: the compiler's choice). In float at k >= 7 the compiler takes more than
     half the register file for one block (158 registers at k = 7): one block per SM, 12.5% occupancy, latency-bound
     (Nsight Compute); two fit in 128 registers without spills, and the kernel then takes 35% less time */
  static constexpr int MINB = sizeof(T) == 4 && K >= 7 ? 2 : 0;
};

/* out = S^T in (TR) or S in along direction DIR of an NI^3 tensor (x fastest), one thread per line; S (NI x NI,
   row-major, eigenvectors in the columns) in shared memory */
template <int NI, int DIR, bool TR, typename T> __device__ __forceinline__ void VPMapFDMPass(const T *S, const T *in, T *out)
{
  constexpr int step = DIR == 0 ? 1 : (DIR == 1 ? NI : NI * NI);
  for (int line = threadIdx.x; line < NI * NI; line += blockDim.x) {
    const int a = line % NI, c = line / NI, base = DIR == 0 ? (a * NI + c * NI * NI) : (DIR == 1 ? (a + c * NI * NI) : (a + c * NI));
    T         v[NI];
#pragma unroll
    for (int j = 0; j < NI; j++) v[j] = in[base + j * step];
#pragma unroll
    for (int i = 0; i < NI; i++) {
      T s = 0;
#pragma unroll
      for (int j = 0; j < NI; j++) s += (TR ? S[j * NI + i] : S[i * NI + j]) * v[j];
      out[base + i * step] = s;
    }
  }
  __syncthreads();
}

/* the factors of cell c: an owned cell's in geo, a cell of the layer below this rank's (VPLayerCellIndex()) in lgeo */
template <int K, typename T> __device__ __forceinline__ const T *VPMapCellFactors(const VPGrid &g, const T *geo, const T *lgeo, const int c[3])
{
  constexpr int   ND = (K + 1) * (K + 1) * (K + 1);
  const long long l  = VPLayerCellIndex(g.cs, g.cm, c);
  return l < 0 ? geo + (((size_t)(c[2] - g.cs[2]) * (size_t)g.cm[1] + (size_t)(c[1] - g.cs[1])) * (size_t)g.cm[0] + (size_t)(c[0] - g.cs[0])) * 6 * ND : lgeo + (size_t)l * 6 * ND;
}

/* acc += K X on the interior of a patch (X: its (2k+1)^3 box in shared memory, zero on its boundary), its 2^3 cells CB
   at a time through the line passes of VPMapLineKernel (A..P2: CB cells' pass arrays), the cells' outputs summed node by
   node; cellgeo(cc): the factors of cell cc (at the vertex - 1 + bit d of cc) */
template <int K, typename T, typename CG> __device__ __forceinline__ void VPMapPatchOperator(const T *X, double *acc, T *A, T *B, T *P0, T *P1, T *P2, CG cellgeo)
{
  using S         = VPMapPatchShape<K, T>;
  constexpr int N = S::N, ND = N * N * N, NN = N * N, L = S::L, CB = S::CB, PC = S::PC, NP = S::NP, NI = S::NI, NT = NI * NI * NI, PX = VPMapPad<K, T>::PX, PY = VPMapPad<K, T>::PY;
  const int     bc = threadIdx.x / L, l = threadIdx.x - bc * L, la = l % N, lb = l / N, o = bc * PC;
  const bool    active = bc < CB;
  for (int c0 = 0; c0 < 8; c0 += CB) {
    const int cc = c0 + bc, ox = (cc & 1) * K, oy = ((cc >> 1) & 1) * K, oz = ((cc >> 2) & 1) * K;
    if (active) { /* x lines (y = la, z = lb) of the cell from the box */
      T u[N];
#pragma unroll
      for (int i = 0; i < N; i++) u[i] = X[((oz + lb) * NP + oy + la) * NP + ox + i];
      VPMapForwardX<K>(u, A, B, o, la, lb);
    }
    __syncthreads();
    if (active) VPMapForwardY<K>(A, B, P0, P1, P2, o, la, lb);
    __syncthreads();
    if (active) {
      const T *G = cellgeo(cc) + la + lb * N;
      VPMapPassZ<K>(P0, P1, P2, o, la, lb, [&](int i, int m) { return G[i * NN + m * ND]; });
    }
    __syncthreads();
    if (active) VPMapBackY<K>(A, B, P0, P1, P2, o, la, lb);
    __syncthreads();
    if (active) { /* the cell's K x along its x line, in place of the line in A */
      T w[N];
      VPMapBackX<K>(A, B, o, la, lb, w);
#pragma unroll
      for (int i = 0; i < N; i++) A[o + i + la * PX + lb * PY] = w[i];
    }
    __syncthreads();
    for (int e = threadIdx.x; e < NT; e += blockDim.x) { /* each interior node sums the batch's cells that hold it */
      const int j0 = e % NI + 1, j1 = (e / NI) % NI + 1, j2 = e / (NI * NI) + 1;
      double    s = 0;
#pragma unroll
      for (int c = 0; c < CB; c++) {
        const int cb = c0 + c, l0 = j0 - (cb & 1) * K, l1 = j1 - ((cb >> 1) & 1) * K, l2 = j2 - (cb >> 2) * K;
        if (l0 >= 0 && l0 <= K && l1 >= 0 && l1 <= K && l2 >= 0 && l2 <= K) s += (double)A[c * PC + l0 + l1 * PX + l2 * PY];
      }
      acc[e] += s;
    }
    __syncthreads();
  }
}

/* A patch's separable surrogate as the kernels read it (shared memory): per direction d its eigenvectors S[d] (NI x NI,
   row-major, in the columns), eigenvalues lam[d] and interior 1D diagonals Kd[d], Md[d], and the factors g: the unit
   patch's tables (the same for every d) with the patch's g (surrogates mean, pointmax, cellmax), or the patch's own
   (profile, vpprofile.h; g = 1) */
template <typename T> struct VPMapSurr {
  const T                     *S[3], *lam[3], *Kd[3], *Md[3];
  T                            g[3];
  __device__ __forceinline__ T eig(int i0, int i1, int i2) const
  {
    return g[0] * lam[0][i0] + g[1] * lam[1][i1] + g[2] * lam[2][i2];
  }
  /* the surrogate's diagonal at interior node (i0, i1, i2), in R */
  template <typename R> __device__ __forceinline__ R diag(int i0, int i1, int i2) const
  {
    return (R)g[0] * Kd[0][i0] * Md[1][i1] * Md[2][i2] + (R)g[1] * Md[0][i0] * Kd[1][i1] * Md[2][i2] + (R)g[2] * Md[0][i0] * Md[1][i1] * Kd[2][i2];
  }
};

/* patch iv's surrogate into sm (VPMapPatchShape::SURR entries; the caller synchronizes before reading it): t.prof's
   tables of the patch, else the unit patch's of t with the factors pg of vertex iv */
template <int NI, typename T> __device__ __forceinline__ VPMapSurr<T> VPMapLoadSurr(const VPPatchScaledTables &t, size_t iv, const PetscReal *pg, T *sm)
{
  VPMapSurr<T> s;
  if (t.prof) {
    constexpr int    K  = (NI + 1) / 2;
    const int        SZ = VPProfileSize(K);
    const PetscReal *pt = t.prof + iv * SZ;
    for (int e = threadIdx.x; e < SZ; e += blockDim.x) sm[e] = (T)pt[e];
    for (int d = 0; d < 3; d++) { /* the layout of vpprofile.h */
      s.S[d]   = sm + d * NI * NI;
      s.lam[d] = sm + VPProfileLam(K, d);
      s.Kd[d]  = sm + VPProfileKd(K, d);
      s.Md[d]  = sm + VPProfileMd(K, d);
      s.g[d]   = 1;
    }
  } else {
    for (int e = threadIdx.x; e < NI * NI; e += blockDim.x) sm[e] = (T)t.S[e];
    for (int e = threadIdx.x; e < NI; e += blockDim.x) {
      sm[NI * NI + e]          = (T)t.lam[e];
      sm[NI * NI + NI + e]     = (T)t.Kd[e];
      sm[NI * NI + 2 * NI + e] = (T)t.Md[e];
    }
    for (int d = 0; d < 3; d++) {
      s.S[d]   = sm;
      s.lam[d] = sm + NI * NI;
      s.Kd[d]  = sm + NI * NI + NI;
      s.Md[d]  = sm + NI * NI + 2 * NI;
      s.g[d]   = (T)pg[3 * iv + d];
    }
  }
  return s;
}

/* ta = S (sum_d g_d Lambda_d)^-1 S^T ta on the NI^3 interior of a patch (fast diagonalization of its separable
   surrogate su, in shared memory), tb scratch */
template <int NI, typename T> __device__ __forceinline__ void VPMapFDMSolve(const VPMapSurr<T> &su, T *ta, T *tb)
{
  constexpr int NT = NI * NI * NI;
  VPMapFDMPass<NI, 0, true>(su.S[0], ta, tb);
  VPMapFDMPass<NI, 1, true>(su.S[1], tb, ta);
  VPMapFDMPass<NI, 2, true>(su.S[2], ta, tb);
  for (int e = threadIdx.x; e < NT; e += blockDim.x) tb[e] /= su.eig(e % NI, (e / NI) % NI, e / (NI * NI));
  __syncthreads();
  VPMapFDMPass<NI, 2, false>(su.S[2], tb, ta);
  VPMapFDMPass<NI, 1, false>(su.S[1], ta, tb);
  VPMapFDMPass<NI, 0, false>(su.S[0], tb, ta);
}

/* the sum over the block of each thread's v, the same value in every thread (summed in one order: deterministic); red:
   32 doubles of shared memory */
__device__ __forceinline__ double VPMapBlockSum(double v, double *red)
{
  const int nw = (blockDim.x + 31) / 32;
  double    s  = 0;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  __syncthreads(); /* red's previous values are read */
  if ((threadIdx.x & 31) == 0) red[threadIdx.x / 32] = v;
  __syncthreads();
  for (int i = 0; i < nw; i++) s += red[i];
  return s;
}

/* z = Dsc Atilde^-1 Dsc r into ta (the scaled surrogate's solve of a patch; tb scratch), and r^T z summed over the
   block (red: 32 doubles) */
template <int NI, typename T> __device__ __forceinline__ double VPMapScaledPrecondition(const VPMapSurr<T> &su, const T *sc, const T *r, T *ta, T *tb, double *red)
{
  constexpr int NT = NI * NI * NI;
  double        s  = 0;
  for (int e = threadIdx.x; e < NT; e += blockDim.x) ta[e] = sc[e] * r[e];
  __syncthreads();
  VPMapFDMSolve<NI>(su, ta, tb);
  for (int e = threadIdx.x; e < NT; e += blockDim.x) {
    ta[e] *= sc[e];
    s += (double)r[e] * (double)ta[e];
  }
  return VPMapBlockSum(s, red);
}

/* acc = K p on a patch's interior (p: its NI^3 interior values, zero on the box's boundary, copied into X) */
template <int K, typename T, typename CG> __device__ __forceinline__ void VPMapPatchOperatorInterior(const T *p, double *acc, T *A, T *B, T *P0, T *P1, T *P2, T *X, CG cellgeo)
{
  using S          = VPMapPatchShape<K, T>;
  constexpr int NP = S::NP, NI = S::NI, NT = NI * NI * NI;
  for (int e = threadIdx.x; e < NP * NP * NP; e += blockDim.x) {
    const int i0 = e % NP - 1, i1 = (e / NP) % NP - 1, i2 = e / (NP * NP) - 1;
    X[e] = i0 < 0 || i0 >= NI || i1 < 0 || i1 >= NI || i2 < 0 || i2 >= NI ? (T)0 : p[(i2 * NI + i1) * NI + i0];
  }
  for (int e = threadIdx.x; e < NT; e += blockDim.x) acc[e] = 0;
  __syncthreads();
  VPMapPatchOperator<K, T>(X, acc, A, B, P0, P1, P2, cellgeo);
}

/* MODE 0: the residual alone, into r. MODE 1: then the patch's local solver scaled (PCVPATCH) on that residual, added
   into r (x itself, or a correction array): u = damp Dsc S (sum_d g_d Lambda_d)^-1 S^T Dsc r, Dsc = (Dt / D)^1/2 (t: the
   unit patch's eigenpairs and 1D diagonals, pg: g per vertex, dg: the operator's diagonal D; without dg Dsc = I, the
   local solver fdm, with damp 1). MODE 2: the local solver cg instead, t.its CG steps on the patch's true operator
   preconditioned by that scaled surrogate (PatchCG() of vpatch_cpu.c), from u = 0. In place is safe: a patch reads x on
   its box, and no other patch of the color writes there (each writes its own interior only). lgeo: the factors of the
   layer of cells below this rank's (VPMapCellFactors()). */
template <int K, typename T, int MODE>
__global__ void __launch_bounds__(VPMapPatchShape<K, T>::THREADS, VPMapPatchShape<K, T>::MINB)
    VPMapPatchResidualKernel(VPGrid g, int vlo0, int vlo1, int vlo2, int nv0, int nv1, const T *__restrict__ geo, const T *__restrict__ lgeo, PetscScalar alpha, const PetscScalar *__restrict__ b, const PetscScalar *x, PetscScalar *r,
                             VPPatchScaledTables t, const PetscReal *__restrict__ pg, const PetscScalar *__restrict__ dg)
{
  using S           = VPMapPatchShape<K, T>;
  constexpr int  CB = S::CB, PC = S::PC, NP = S::NP, NI = S::NI, NT = NI * NI * NI;
  constexpr bool SOLVE = MODE > 0;
  VP_DYNAMIC_SHARED(double, acc); /* K x on the interior (MODE 2: then 32 doubles of block sums) */
  T        *A = reinterpret_cast<T *>(acc + NT + (MODE == 2 ? 32 : 0)), *B = A + CB * PC, *P0 = B + CB * PC, *P1 = P0 + CB * PC, *P2 = P1 + CB * PC, *X = P2 + CB * PC;
  const int pb = blockIdx.x, v[3] = {vlo0 + 2 * (pb % nv0), vlo1 + 2 * ((pb / nv0) % nv1), vlo2 + 2 * (pb / (nv0 * nv1))};
  const int q0 = (v[0] - 1) * K, q1 = (v[1] - 1) * K, q2 = (v[2] - 1) * K; /* the box's first node */
  /* index work once per patch: the box's Dirichlet faces, its first node's local index and the strides; the patch's
     interior node (i0, i1, i2) is at in + i2 sz + i1 sy + i0. The cells' factors: their addresses, by thread cc < 8 */
  const int           f  = VPDBoxFlags(g, NP, q0, q1, q2);
  const PetscInt      sy = g.gxm[0], sz = g.gxm[0] * g.gxm[1], bx = VPDLocalIndex(g, q0, q1, q2), in = bx + sz + sy + 1;
  __shared__ const T *cgeo[8];

  if (threadIdx.x < 8) {
    const int cc = threadIdx.x, c[3] = {v[0] - 1 + (cc & 1), v[1] - 1 + ((cc >> 1) & 1), v[2] - 1 + (cc >> 2)};
    cgeo[cc] = VPMapCellFactors<K, T>(g, geo, lgeo, c);
  }
  for (int row = threadIdx.x; row < NP * NP; row += blockDim.x) { /* the box, one thread per row along x */
    const int          e1 = row % NP, e2 = row / NP;
    const bool         zero = ((f & 4) && e1 == 0) || ((f & 8) && e1 == NP - 1) || ((f & 16) && e2 == 0) || ((f & 32) && e2 == NP - 1);
    const PetscScalar *xr   = x + bx + e2 * sz + e1 * sy;
    T                  u[NP];
#pragma unroll
    for (int e0 = 0; e0 < NP; e0++) u[e0] = zero || (e0 == 0 && (f & 1)) || (e0 == NP - 1 && (f & 2)) ? (T)0 : (T)xr[e0];
#pragma unroll
    for (int e0 = 0; e0 < NP; e0++) X[row * NP + e0] = u[e0];
  }
  for (int e = threadIdx.x; e < NT; e += blockDim.x) acc[e] = 0;
  /* where one pass of the block covers the interior, each thread's b, D and r values are loaded now: their latency
     hides behind the operator's passes */
  constexpr bool PRE   = NT <= S::THREADS;
  auto           node  = [&](int e) { return in + (e / (NI * NI)) * sz + ((e / NI) % NI) * sy + e % NI; };
  PetscScalar    pre_b = 0, pre_d = 1, pre_r = 0;
  if (PRE && threadIdx.x < NT) {
    const PetscInt li = node(threadIdx.x);
    pre_b             = b[li];
    if (SOLVE) {
      pre_r = r[li]; /* no other patch of the color writes this patch's interior */
      if (dg) pre_d = dg[li];
    }
  }
  __syncthreads();
  VPMapPatchOperator<K, T>(X, acc, A, B, P0, P1, P2, [&](int cc) { return cgeo[cc]; });
  if constexpr (!SOLVE) {
    for (int e = threadIdx.x; e < NT; e += blockDim.x) {
      const PetscInt li = node(e);
      r[li]             = (PRE ? pre_b : b[li]) - alpha * (PetscScalar)acc[e];
    }
  } else if constexpr (MODE == 2) { /* the solve's two tensors in the operator's scratch (dead between applications) */
    double            *red = acc + NT;
    T                 *ta = A, *tb = A + NT, *rr = A + S::SCR, *p = rr + NT, *u = p + NT, *sc = u + NT, *Sm = sc + NT;
    const size_t       iv = ((size_t)(v[2] - t.alo[2]) * (size_t)t.anv[1] + (size_t)(v[1] - t.alo[1])) * (size_t)t.anv[0] + (size_t)(v[0] - t.alo[0]);
    const VPMapSurr<T> su = VPMapLoadSurr<NI, T>(t, iv, pg, Sm);
    double             rz, rzold = 1, rz0 = 0;

    __syncthreads();
    for (int e = threadIdx.x; e < NT; e += blockDim.x) {
      const int      i0 = e % NI, i1 = (e / NI) % NI, i2 = e / (NI * NI);
      const PetscInt li = PRE ? 0 : node(e);
      sc[e]             = (T)sqrt(su.template diag<double>(i0, i1, i2) / (double)(PRE ? pre_d : dg[li]));
      rr[e]             = (T)((PRE ? pre_b : b[li]) - alpha * (PetscScalar)acc[e]);
      u[e]              = 0;
    }
    __syncthreads();
    for (int it = 0; it < t.its; it++) {
      double s;
      rz = VPMapScaledPrecondition<NI>(su, sc, rr, ta, tb, red); /* z in ta */
      if (!it) rz0 = rz;
      if (!(rz > VP_PATCH_CG_RTOL2 * rz0)) break; /* converged to round-off, or a zero residual */
      for (int e = threadIdx.x; e < NT; e += blockDim.x) p[e] = it ? ta[e] + (T)(rz / rzold) * p[e] : ta[e];
      __syncthreads(); /* X overwrites ta */
      VPMapPatchOperatorInterior<K, T>(p, acc, A, B, P0, P1, P2, X, [&](int cc) { return cgeo[cc]; });
      s = 0;
      for (int e = threadIdx.x; e < NT; e += blockDim.x) s += (double)p[e] * acc[e];
      const double pq = VPMapBlockSum(s, red); /* the true operator of PatchCG(): the cells' K, without the stiffness weight */
      if (!(pq > 0)) break;
      for (int e = threadIdx.x; e < NT; e += blockDim.x) {
        u[e] += (T)(rz / pq) * p[e];
        rr[e] -= (T)(rz / pq * acc[e]);
      }
      rzold = rz;
      __syncthreads();
    }
    for (int e = threadIdx.x; e < NT; e += blockDim.x) {
      const PetscInt li = node(e);
      r[li]             = (PRE ? pre_r : r[li]) + (PetscScalar)u[e];
    }
  } else { /* the operator's passes are done: their shared memory holds the local solve's tensors */
    T                 *Sm = A, *ta = A + S::SURR, *tb = ta + NT, *sc = tb + NT;
    const size_t       iv   = ((size_t)(v[2] - t.alo[2]) * (size_t)t.anv[1] + (size_t)(v[1] - t.alo[1])) * (size_t)t.anv[0] + (size_t)(v[0] - t.alo[0]);
    const VPMapSurr<T> su   = VPMapLoadSurr<NI, T>(t, iv, pg, Sm);
    const T            damp = (T)(t.pw ? t.pw[iv] : t.damp); /* the patch's own damping, or the one of all */
    __syncthreads();
    for (int e = threadIdx.x; e < NT; e += blockDim.x) { /* Dsc r */
      const int      i0 = e % NI, i1 = (e / NI) % NI, i2 = e / (NI * NI);
      const PetscInt li = PRE ? 0 : node(e);
      const T        dt = su.template diag<T>(i0, i1, i2);
      sc[e]             = !dg ? (T)1 : sqrt(dt / (T)(PRE ? pre_d : dg[li])); /* without dg the unscaled surrogate (local solver fdm) */
      ta[e]             = sc[e] * (T)((PRE ? pre_b : b[li]) - alpha * (PetscScalar)acc[e]);
    }
    __syncthreads();
    VPMapFDMSolve<NI>(su, ta, tb);
    for (int e = threadIdx.x; e < NT; e += blockDim.x) {
      const PetscInt li = node(e);
      r[li]             = (PRE ? pre_r : r[li]) + (PetscScalar)(damp * sc[e] * ta[e]);
    }
  }
}

template <int K, typename T> struct VPMapDampShape {
  using S                    = VPMapPatchShape<K, T>;
  static constexpr int    NI = S::NI, NT = NI * NI * NI;
  static constexpr size_t SCR   = S::SCR; /* the operator's passes, or the solve's two tensors */
  static constexpr size_t BYTES = (NT + 32 + 2 * VP_PATCH_LANCZOS_MAX) * sizeof(double) + (SCR + 3 * (size_t)NT + S::SURR) * sizeof(T);
};

/* VPPatchDampings_CPU() of the patches of this rank's vertex box (t.alo, t.anv), one block per patch, in T: steps PCG
   steps on A_v y = VPLanczosStart() preconditioned by the scaled surrogate and one more r^T z, the Lanczos estimate
   lambda_v of VPLanczosMax(), w_v = min(1, theta / lambda_v). Shared: acc (A p), the block sums and the CG coefficients
   in double; the operator's or the solve's scratch, r, p, Dsc, S, lam in T */
template <int K, typename T>
__global__ void __launch_bounds__(VPMapPatchShape<K, T>::THREADS) VPMapPatchDampingKernel(VPGrid g, const T *__restrict__ geo, const T *__restrict__ lgeo, VPPatchScaledTables t, const PetscReal *__restrict__ pg, const PetscScalar *__restrict__ dg,
                                                                                          double stiff, int steps, double theta, PetscReal *__restrict__ w)
{
  using S          = VPMapPatchShape<K, T>;
  using D          = VPMapDampShape<K, T>;
  constexpr int CB = S::CB, PC = S::PC, NI = S::NI, NT = NI * NI * NI;
  VP_DYNAMIC_SHARED(double, acc);
  double            *red = acc + NT, *al = red + 32, *be = al + VP_PATCH_LANCZOS_MAX;
  T                 *A = reinterpret_cast<T *>(be + VP_PATCH_LANCZOS_MAX), *B = A + CB * PC, *P0 = B + CB * PC, *P1 = P0 + CB * PC, *P2 = P1 + CB * PC, *X = P2 + CB * PC, *ta = A, *tb = A + NT;
  T                 *r = A + D::SCR, *p = r + NT, *sc = p + NT, *Sm = sc + NT;
  const size_t       iv   = blockIdx.x;
  const int          v[3] = {t.alo[0] + (int)(iv % t.anv[0]), t.alo[1] + (int)((iv / t.anv[0]) % t.anv[1]), t.alo[2] + (int)(iv / ((size_t)t.anv[0] * t.anv[1]))};
  const int          q0 = (v[0] - 1) * K, q1 = (v[1] - 1) * K, q2 = (v[2] - 1) * K;
  const VPMapSurr<T> su = VPMapLoadSurr<NI, T>(t, iv, pg, Sm);
  double             rz, rzold = 1, rz0 = 0;
  int                m = 0;

  if (threadIdx.x == 0) be[steps - 1] = 0; /* no residual step: no correction of the estimate */
  __syncthreads();
  for (int e = threadIdx.x; e < NT; e += blockDim.x) {
    const int i0 = e % NI, i1 = (e / NI) % NI, i2 = e / (NI * NI);
    sc[e] = (T)sqrt(su.template diag<double>(i0, i1, i2) / (double)dg[VPDLocalIndex(g, q0 + i0 + 1, q1 + i1 + 1, q2 + i2 + 1)]);
    r[e]  = (T)VPLanczosStart(e);
  }
  __syncthreads();
  for (int j = 0; j <= steps; j++) { /* steps steps, and of one more its r^T z (the Lanczos residual) */
    double s;
    rz = VPMapScaledPrecondition<NI>(su, sc, r, ta, tb, red); /* z in ta */
    if (!j) rz0 = rz;
    if (!(rz > VP_PATCH_CG_RTOL2 * rz0)) break; /* an invariant subspace: the Lanczos matrix is exact */
    if (j && threadIdx.x == 0) be[j - 1] = rz / rzold;
    if (j == steps) break;
    for (int e = threadIdx.x; e < NT; e += blockDim.x) p[e] = j ? ta[e] + (T)(rz / rzold) * p[e] : ta[e];
    __syncthreads(); /* X overwrites ta */
    VPMapPatchOperatorInterior<K, T>(p, acc, A, B, P0, P1, P2, X, [&](int cc) {
      const int c[3] = {v[0] - 1 + (cc & 1), v[1] - 1 + ((cc >> 1) & 1), v[2] - 1 + (cc >> 2)};
      return VPMapCellFactors<K, T>(g, geo, lgeo, c);
    });
    s = 0;
    for (int e = threadIdx.x; e < NT; e += blockDim.x) s += (double)p[e] * stiff * acc[e];
    const double pq = VPMapBlockSum(s, red);
    if (!(pq > 0)) break;
    if (threadIdx.x == 0) al[j] = rz / pq;
    for (int e = threadIdx.x; e < NT; e += blockDim.x) r[e] -= (T)(rz / pq * stiff * acc[e]);
    rzold = rz;
    m     = j + 1;
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    double a[VP_PATCH_LANCZOS_MAX], b[VP_PATCH_LANCZOS_MAX];
    VPLanczosFromCG(m, al, be, a, b);
    w[iv] = m ? fmin(1.0, theta / VPLanczosMax(m, a, b, m == steps && be[m - 1] > 0 ? sqrt(be[m - 1]) / al[m - 1] : 0.0)) : t.damp; /* no step (r^T z = 0 from the start): the damping of all */
  }
}

/* the 1D product of the two reference-gradient factors of component (b, c) along direction e at point q, node i:
   T_b,e T_c,e with T_b,e = D if e = b, else S */
template <int K> __device__ __forceinline__ double VPMapDiagFactor(int e, int b, int c, int q, int i)
{
  return (e == b ? VPMapB<K, 1, double>(q, i) : VPMapB<K, 0, double>(q, i)) * (e == c ? VPMapB<K, 1, double>(q, i) : VPMapB<K, 0, double>(q, i));
}

/* the diagonal, one thread per node of a cell, NB cells per block: for each component (b, c) of G, sum over the points
   of G_bc times the products of the two reference-gradient factors, which factor by direction, so by sum factorization
   (one contraction per direction with the 1D products VPMapDiagFactor(), (k+1)^(d+1) per cell and component) */
template <int DIM, int K> __global__ void __launch_bounds__(VPMapShape<DIM, K>::THREADS) VPMapDiagKernel(VPGrid g, int ncells, VPGeoRef geo, PetscScalar *__restrict__ y)
{
  using S             = VPMapShape<DIM, K>;
  constexpr int     N = S::N, ND = S::ND, NB = S::NB, NC = DIM == 3 ? 6 : 3;
  __shared__ double sh[2 * NB * ND];
  const int         b = threadIdx.x / ND, t = threadIdx.x - b * ND, cell = blockIdx.x * NB + b;
  const bool        active = b < NB && cell < ncells;
  double           *u = sh + 2 * (active ? b : 0) * ND, *v = u + ND;
  const int         i0 = t % N, i1 = (t / N) % N, i2 = DIM == 3 ? t / (N * N) : 0;
  const int         pb[6] = {0, 1, 2, 0, 0, 1}, pc[6] = {0, 1, 2, 1, 2, 2}, pb2[3] = {0, 1, 0}, pc2[3] = {0, 1, 1};
  const size_t      G = (size_t)(active ? cell : 0) * NC * ND;
  double            s = 0;

  for (int m = 0; m < NC; m++) {
    const int bb = DIM == 3 ? pb[m] : pb2[m], cc = DIM == 3 ? pc[m] : pc2[m];
    double    a = 0;
    if (active) { /* along x: u[(q2, q1), i0] = sum_q0 G[(q2, q1), q0] F_x(q0, i0) */
#pragma unroll
      for (int q = 0; q < N; q++) a += VPGeoAt(geo, G + m * ND + t - i0 + q) * VPMapDiagFactor<K>(0, bb, cc, q, i0);
      u[t] = a;
    }
    __syncthreads();
    if (active) { /* along y: v[(q2), i1, i0] = sum_q1 u[(q2), q1, i0] F_y(q1, i1) */
      a = 0;
#pragma unroll
      for (int q = 0; q < N; q++) a += u[i2 * N * N + q * N + i0] * VPMapDiagFactor<K>(1, bb, cc, q, i1);
      v[t] = a;
    }
    __syncthreads();
    if (active) {
      if constexpr (DIM == 3) { /* along z */
        a = 0;
#pragma unroll
        for (int q = 0; q < N; q++) a += v[q * N * N + i1 * N + i0] * VPMapDiagFactor<K>(2, bb, cc, q, i2);
      } else
        a = v[t];
      s += (bb == cc ? 1.0 : 2.0) * a;
    }
    __syncthreads(); /* u and v are the next component's */
  }
  if (!active) return;
  const int cx = cell % (int)g.cm[0], cy = (cell / (int)g.cm[0]) % (int)g.cm[1], cz = DIM == 3 ? cell / (int)(g.cm[0] * g.cm[1]) : 0;
  const int px = ((int)g.cs[0] + cx) * K + i0, py = ((int)g.cs[1] + cy) * K + i1, pz = DIM == 3 ? ((int)g.cs[2] + cz) * K + i2 : 0;
  if (VPDIsBoundary(g, px, py, pz)) return;
  atomicAdd(&y[VPDLocalIndex(g, px, py, pz)], (PetscScalar)s);
}

static inline int VPMapCells(const VPGrid *g)
{
  return (int)(g->cm[0] * g->cm[1] * (g->dim == 3 ? g->cm[2] : 1));
}

template <int DIM, int K, typename T> struct VPMapApply {
  static PetscErrorCode run(const VPGrid *g, const VPGeometryParams *p, const void *geo, const float *glo, PetscScalar alpha, const PetscScalar *x, PetscScalar *y)
  {
    using S         = VPMapShape<DIM, K>;
    const int    nc = VPMapCells(g);
    cudaStream_t stream;
    PetscFunctionBegin;
    PetscCall(VPGetStream(&stream));
    PetscCheck(!glo || (DIM == 3 && !p && std::is_same<T, double>::value), PETSC_COMM_SELF, PETSC_ERR_PLIB, "the split factors are read by the 3D double-precision kernel only");
    if constexpr (DIM == 3) {
      using SL              = VPMapLineShape<K, T>;
      VPGeometryParams none = {}; /* not read */
      if (nc && p) {
        using SF = VPMapLineShape<K, T, true>;
        VPMapLineKernel<K, T, true><<<(nc + SF::NB - 1) / SF::NB, SF::THREADS, 0, stream>>>(*g, *p, nc, NULL, NULL, alpha, x, y);
      } else if (nc && glo) {
        if constexpr (std::is_same<T, double>::value) VPMapLineKernel<K, T, false, true><<<(nc + SL::NB - 1) / SL::NB, SL::THREADS, 0, stream>>>(*g, none, nc, geo, glo, alpha, x, y);
      } else if (nc)
        VPMapLineKernel<K, T, false><<<(nc + SL::NB - 1) / SL::NB, SL::THREADS, 0, stream>>>(*g, none, nc, geo, NULL, alpha, x, y);
      PetscCallCUDA(cudaGetLastError());
    } else if (nc) {
      VPMapApplyKernel<DIM, K, T><<<(nc + S::NB - 1) / S::NB, S::THREADS, 0, stream>>>(*g, nc, (const T *)geo, alpha, x, y);
      PetscCallCUDA(cudaGetLastError());
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};
VP_PRECISION_ALIASES(VPMapApply);

template <int DIM, int K, typename T> struct VPMapPatchRes {
  static PetscErrorCode run(const VPGrid *g, int color, const void *geo, const void *lgeo, PetscScalar alpha, const PetscScalar *b, const PetscScalar *x, PetscScalar *r, const VPPatchScaledTables *t, const PetscReal *pg, const PetscScalar *dg)
  {
    PetscFunctionBegin;
    if constexpr (DIM != 3)
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "The patch residual of the mapped operator is built in 3D only");
    else {
      using S = VPMapPatchShape<K, T>;
      int          vlo[3], nv[3];
      cudaStream_t stream;
      if (!VPPatchColorVertices(g, color, vlo, nv)) PetscFunctionReturn(PETSC_SUCCESS);
      PetscCheck((double)nv[0] * nv[1] * nv[2] < 2147483647.0, PETSC_COMM_SELF, PETSC_ERR_SUP, "The patch residual numbers the patches of a color in int: use more processes");
      PetscCall(VPGetStream(&stream));
      if (t && t->its > 0) {
        PetscCheck(dg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the local solver cg of the patch kernel needs the operator's diagonal");
        if (S::CGSHARED > 49152) PetscCallCUDA(cudaFuncSetAttribute(VPMapPatchResidualKernel<K, T, 2>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)S::CGSHARED));
        VPMapPatchResidualKernel<K, T, 2><<<nv[0] * nv[1] * nv[2], S::THREADS, S::CGSHARED, stream>>>(*g, vlo[0], vlo[1], vlo[2], nv[0], nv[1], (const T *)geo, (const T *)lgeo, alpha, b, x, r, *t, pg, dg);
      } else if (t) {
        if (S::SHARED > 49152) PetscCallCUDA(cudaFuncSetAttribute(VPMapPatchResidualKernel<K, T, 1>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)S::SHARED));
        VPMapPatchResidualKernel<K, T, 1><<<nv[0] * nv[1] * nv[2], S::THREADS, S::SHARED, stream>>>(*g, vlo[0], vlo[1], vlo[2], nv[0], nv[1], (const T *)geo, (const T *)lgeo, alpha, b, x, r, *t, pg, dg);
      } else {
        VPPatchScaledTables none = {}; /* not read */
        if (S::SHARED > 49152) PetscCallCUDA(cudaFuncSetAttribute(VPMapPatchResidualKernel<K, T, 0>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)S::SHARED));
        VPMapPatchResidualKernel<K, T, 0><<<nv[0] * nv[1] * nv[2], S::THREADS, S::SHARED, stream>>>(*g, vlo[0], vlo[1], vlo[2], nv[0], nv[1], (const T *)geo, (const T *)lgeo, alpha, b, x, r, none, NULL, NULL);
      }
      PetscCallCUDA(cudaGetLastError());
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};
VP_PRECISION_ALIASES(VPMapPatchRes);

template <int DIM, int K, typename T> struct VPMapDamp {
  static PetscErrorCode run(const VPGrid *g, const void *geo, const void *lgeo, const VPPatchScaledTables *t, const PetscReal *pg, const PetscScalar *dg, PetscReal stiff, PetscInt steps, PetscReal theta, PetscReal *w)
  {
    PetscFunctionBegin;
    if constexpr (DIM != 3)
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "The patch dampings are built in 3D only");
    else {
      using S         = VPMapPatchShape<K, T>;
      using D         = VPMapDampShape<K, T>;
      const size_t nv = (size_t)t->anv[0] * (size_t)t->anv[1] * (size_t)t->anv[2];
      cudaStream_t stream;
      if (!nv) PetscFunctionReturn(PETSC_SUCCESS);
      PetscCheck(nv < 2147483647, PETSC_COMM_SELF, PETSC_ERR_SUP, "The patch dampings run one block per patch: at most 2^31 - 1 patches per rank, not %zu: use more processes", nv);
      PetscCall(VPGetStream(&stream));
      if (D::BYTES > 49152) PetscCallCUDA(cudaFuncSetAttribute(VPMapPatchDampingKernel<K, T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)D::BYTES));
      VPMapPatchDampingKernel<K, T><<<(unsigned)nv, S::THREADS, D::BYTES, stream>>>(*g, (const T *)geo, (const T *)lgeo, *t, pg, dg, (double)stiff, (int)steps, (double)theta, w);
      PetscCallCUDA(cudaGetLastError());
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};
VP_PRECISION_ALIASES(VPMapDamp);

template <int DIM, int K> struct VPMapDiag {
  static PetscErrorCode run(const VPGrid *g, VPGeoRef geo, PetscScalar *y)
  {
    using S         = VPMapShape<DIM, K>;
    const int    nc = VPMapCells(g);
    cudaStream_t stream;
    PetscFunctionBegin;
    PetscCall(VPGetStream(&stream));
    if (nc) {
      VPMapDiagKernel<DIM, K><<<(nc + S::NB - 1) / S::NB, S::THREADS, 0, stream>>>(*g, nc, geo, y);
      PetscCallCUDA(cudaGetLastError());
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};

PetscErrorCode VPMappedSetUp_CUDA(PetscInt k, const PetscReal *S, const PetscReal *D)
{
  const int n = (int)((k + 1) * (k + 1));
  PetscReal h[2 * VPATCH_MAX_N1D * VPATCH_MAX_N1D];

  PetscFunctionBegin;
  PetscCheck(k >= 1 && k <= VPATCH_MAX_DEGREE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "No CUDA mapped operator for degree %d", (int)k);
  for (int i = 0; i < n; i++) {
    h[i]     = S[i];
    h[n + i] = D[i];
  }
  PetscCall(VPMapSDUpload(h, 2 * n, VPMapSDOffset((int)k)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPMappedApply_CUDA(const VPGrid *g, PetscBool single, const VPGeometryParams *p, const void *d_geo, const float *d_glo, PetscScalar alpha, const PetscScalar *bl, const PetscScalar *xl, PetscScalar *yl)
{
  PetscFunctionBegin;
  if (VPGridEmpty(g)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck((double)g->cm[0] * g->cm[1] * g->cm[2] < 2147483647.0, PETSC_COMM_SELF, PETSC_ERR_SUP, "The CUDA mapped operator numbers the owned cells of a process in int: use more processes");
  PetscCheck(!p || g->dim == 3, PETSC_COMM_SELF, PETSC_ERR_SUP, "The factors computed on the fly are built in 3D only");
  VP_DISPATCH_PRECISION(VPMapApply, single, g->dim, g->k, g, p, d_geo, d_glo, alpha, xl, yl);
  if (bl)
    PetscCall(VPOwnedBoundaryResidual_CUDA(g, -alpha, bl, xl, yl));
  else
    PetscCall(VPOwnedBoundary_CUDA(g, alpha, xl, yl, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPMappedPatchResidual_CUDA(const VPGrid *g, PetscBool single, const void *d_geo, const void *d_lgeo, PetscInt color, PetscScalar alpha, const PetscScalar *b, const PetscScalar *x, PetscScalar *r, const VPPatchScaledTables *t,
                                          const PetscReal *d_pg, const PetscScalar *d_diag)
{
  PetscFunctionBegin;
  if (VPGridEmpty(g)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(d_lgeo || !VPLayerCellIndex(g->cs, g->cm, NULL), PETSC_COMM_SELF, PETSC_ERR_PLIB, "the patch residual of a rank with cells below its own needs their factors");
  VP_DISPATCH_PRECISION(VPMapPatchRes, single, g->dim, g->k, g, (int)color, d_geo, d_lgeo, alpha, b, x, r, t, d_pg, d_diag);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPMappedPatchDampings_CUDA(const VPGrid *g, PetscBool single, const void *d_geo, const void *d_lgeo, const VPPatchScaledTables *t, const PetscReal *d_pg, const PetscScalar *d_diag, PetscReal stiff, PetscInt steps, PetscReal theta,
                                          PetscReal *d_w)
{
  PetscFunctionBegin;
  PetscCheck(g->dim == 3 && steps >= 1 && steps <= VP_PATCH_LANCZOS_MAX, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the patch dampings are built in 3D for 1 to %d Lanczos steps", VP_PATCH_LANCZOS_MAX);
  VP_DISPATCH_PRECISION(VPMapDamp, single, g->dim, g->k, g, d_geo, d_lgeo, t, d_pg, d_diag, stiff, steps, theta, d_w);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPMappedDiagonal_CUDA(const VPGrid *g, VPGeoRef d_geo, PetscScalar *dl)
{
  PetscFunctionBegin;
  if (VPGridEmpty(g)) PetscFunctionReturn(PETSC_SUCCESS);
  VP_DISPATCH(VPMapDiag, g->dim, g->k, g, d_geo, dl);
  PetscCall(VPOwnedBoundary_CUDA(g, 1.0, NULL, dl, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* VPProfileTables() per patch of the vertex box [alo, alo + anv), one thread each (set-up: the eigenproblems are
   (2k-1)-square) */
template <int K>
__global__ void __launch_bounds__(64)
    VPMapProfileKernel(VPGrid g, const PetscReal *__restrict__ geo, const PetscReal *__restrict__ lgeo, VPProfileBasis b, double stiff, int alo0, int alo1, int alo2, int anv0, int anv1, size_t n, PetscReal *__restrict__ out)
{
  constexpr int NI = 2 * K - 1;
  const size_t  iv = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  const double *G[8];
  double        work[3 * NI * NI];
  if (iv >= n) return;
  const int v[3] = {alo0 + (int)(iv % anv0), alo1 + (int)((iv / anv0) % anv1), alo2 + (int)(iv / ((size_t)anv0 * anv1))};
  for (int cc = 0; cc < 8; cc++) {
    const int c[3] = {v[0] - 1 + (cc & 1), v[1] - 1 + ((cc >> 1) & 1), v[2] - 1 + (cc >> 2)};
    G[cc]          = VPMapCellFactors<K, double>(g, geo, lgeo, c);
  }
  VPProfileTables(&b, G, stiff, out + iv * VPProfileSize(K), work);
}

template <int DIM, int K> struct VPMapProfile {
  static PetscErrorCode run(const VPGrid *g, const PetscReal *geo, const PetscReal *lgeo, const VPProfileBasis *b, PetscReal stiff, const PetscInt alo[3], const PetscInt anv[3], PetscReal *out)
  {
    PetscFunctionBegin;
    if constexpr (DIM != 3)
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "The profile surrogate is built in 3D only");
    else {
      const size_t n = (size_t)anv[0] * (size_t)anv[1] * (size_t)anv[2];
      cudaStream_t stream;
      if (!n) PetscFunctionReturn(PETSC_SUCCESS);
      PetscCall(VPGetStream(&stream));
      VPMapProfileKernel<K><<<(unsigned)((n + 63) / 64), 64, 0, stream>>>(*g, geo, lgeo, *b, (double)stiff, (int)alo[0], (int)alo[1], (int)alo[2], (int)anv[0], (int)anv[1], n, out);
      PetscCallCUDA(cudaGetLastError());
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};

PetscErrorCode VPMappedProfile_CUDA(const VPGrid *g, const PetscReal *d_geo, const PetscReal *d_lgeo, const VPProfileBasis *b, PetscReal stiff, const PetscInt alo[3], const PetscInt anv[3], PetscReal *d_out)
{
  PetscFunctionBegin;
  PetscCheck(d_lgeo || !VPLayerCellIndex(g->cs, g->cm, NULL), PETSC_COMM_SELF, PETSC_ERR_PLIB, "the profile surrogate of a rank with cells below its own needs their factors");
  PetscCheck((double)anv[0] * anv[1] * anv[2] / 64 < 2147483647.0, PETSC_COMM_SELF, PETSC_ERR_SUP, "The profile surrogate's set-up: too many patches per rank: use more processes");
  VP_DISPATCH(VPMapProfile, g->dim, g->k, g, d_geo, d_lgeo, b, stiff, alo, anv, d_out);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the grid of the element-wise kernels below (grid-stride loops over n entries, 256 threads a block) */
static inline int VPMapElementGrid(size_t n)
{
  return (int)PetscMin((n + 255) / 256, (size_t)65536);
}

__global__ void VPMapToFloatKernel(const PetscReal *__restrict__ in, size_t n, float *__restrict__ out)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) out[i] = (float)in[i];
}

PetscErrorCode VPMappedToFloat_CUDA(const PetscReal *d_geo, size_t n, float **d_geof)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(VPGetStream(&stream));
  PetscCallCUDA(cudaMalloc((void **)d_geof, (n ? n : 1) * sizeof(float)));
  if (n) {
    VPMapToFloatKernel<<<VPMapElementGrid(n), 256, 0, stream>>>(d_geo, n, *d_geof);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* hi = (float)d, lo = (float)(d - hi): d - hi is exact in double and lo rounds it to 24 bits, so hi + lo, summed in
   double (exactly), equals d to 2^-48 relative; hi is bit for bit VPMapToFloatKernel's */
__global__ void VPMapSplitKernel(const PetscReal *__restrict__ d, size_t n, float *__restrict__ hi, float *__restrict__ lo)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const double v = d[i];
    const float  h = (float)v;
    hi[i]          = h;
    lo[i]          = (float)(v - (double)h);
  }
}

__global__ void VPMapJoinKernel(const float *__restrict__ hi, const float *__restrict__ lo, size_t n, PetscReal *__restrict__ d)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) d[i] = (double)hi[i] + (double)lo[i];
}

PetscErrorCode VPMappedSplit_CUDA(const PetscReal *d_geo, size_t first, size_t m, float *d_hi, float *d_lo)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(VPGetStream(&stream));
  if (m) {
    VPMapSplitKernel<<<VPMapElementGrid(m), 256, 0, stream>>>(d_geo + first, m, d_hi + first, d_lo + first);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCallCUDA(cudaStreamSynchronize(stream)); /* the caller releases d_geo's memory next */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* d (n values on the device, allocated by the caller) = hi + lo */
PetscErrorCode VPMappedJoin_CUDA(const float *d_hi, const float *d_lo, size_t n, PetscReal *d_geo)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(VPGetStream(&stream));
  if (n) {
    VPMapJoinKernel<<<VPMapElementGrid(n), 256, 0, stream>>>(d_hi, d_lo, n, d_geo);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* h (n values on the host) = hi + lo, through a host buffer of a chunk of each half at a time */
PetscErrorCode VPMappedJoinToHost_CUDA(const float *d_hi, const float *d_lo, size_t n, PetscReal *h)
{
  const size_t chunk = (size_t)1 << 24;
  float       *bh, *bl;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(PetscMin(n, chunk) + 1, &bh, PetscMin(n, chunk) + 1, &bl));
  for (size_t o = 0; o < n; o += chunk) {
    const size_t m = PetscMin(chunk, n - o);
    PetscCallCUDA(cudaMemcpy(bh, d_hi + o, m * sizeof(float), cudaMemcpyDeviceToHost));
    PetscCallCUDA(cudaMemcpy(bl, d_lo + o, m * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < m; i++) h[o + i] = (double)bh[i] + (double)bl[i];
  }
  PetscCall(PetscFree2(bh, bl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPMappedFloatAlloc_CUDA(size_t n, float **d_geof)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMalloc((void **)d_geof, (n ? n : 1) * sizeof(float)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPMappedFloatFree_CUDA(float **d_geof)
{
  PetscFunctionBegin;
  if (*d_geof) PetscCallCUDA(cudaFree(*d_geof));
  *d_geof = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The mass matrix on mapped cells (VPMappedMassApply_CPU()): one block per owned cell, the cell's values and the passes
   in shared memory, S (and for the diagonal S^2) per entry from shared memory, scatter-add with atomics. Not tuned: a
   mass term on mapped cells costs one more pass over the vectors than the stiffness alone. */
typedef struct {
  int       k;
  PetscReal S[VPATCH_MAX_N1D * VPATCH_MAX_N1D]; /* S[q][i] = phi_i(x_q) */
} VPMassTables;

__global__ void VPMappedMassKernel(VPGrid g, VPMassTables t, int diag, const PetscReal *__restrict__ m, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y)
{
  extern __shared__ PetscReal vp_mass_smem[];
  const int                   n = t.k + 1, nz = g.dim == 3 ? n : 1, nd = n * n * nz, cell = blockIdx.x;
  PetscReal                  *A = vp_mass_smem, *B = A + nd, *S = B + nd;
  const int                   cx = (int)(g.cs[0] + cell % g.cm[0]), cy = (int)(g.cs[1] + (cell / g.cm[0]) % g.cm[1]), cz = g.dim == 3 ? (int)(g.cs[2] + cell / (g.cm[0] * g.cm[1])) : 0;
  const PetscReal            *mc = m + (size_t)cell * nd;

  for (int e = threadIdx.x; e < n * n; e += blockDim.x) S[e] = diag ? t.S[e] * t.S[e] : t.S[e];
  if (diag) {
    for (int e = threadIdx.x; e < nd; e += blockDim.x) B[e] = mc[e];
    __syncthreads();
  } else {
    for (int e = threadIdx.x; e < nd; e += blockDim.x) {
      const int px = cx * t.k + e % n, py = cy * t.k + (e / n) % n, pz = g.dim == 3 ? cz * t.k + e / (n * n) : 0;
      A[e] = VPDIsBoundary(g, px, py, pz) ? 0.0 : (PetscReal)x[VPDLocalIndex(g, px, py, pz)];
    }
    __syncthreads();
    VPContractBlock(n, n, nz, 1, 0, S, n, false, A, B); /* to the points along x, y (and z), then times m */
    VPContractBlock(n, n, nz, 1, 1, S, n, false, B, A);
    if (g.dim == 3) VPContractBlock(n, n, n, 1, 2, S, n, false, A, B);
    for (int e = threadIdx.x; e < nd; e += blockDim.x) B[e] = (g.dim == 3 ? B[e] : A[e]) * mc[e];
    __syncthreads();
  }
  if (g.dim == 3) { /* back to the nodes along z and y (into B); x in the scatter below */
    VPContractBlock(n, n, n, 1, 2, S, n, true, B, A);
    VPContractBlock(n, n, n, 1, 1, S, n, true, A, B);
  } else { /* along y, into A */
    VPContractBlock(n, n, 1, 1, 1, S, n, true, B, A);
  }
  const PetscReal *F = g.dim == 3 ? B : A;
  for (int e = threadIdx.x; e < nd; e += blockDim.x) { /* S_x^T F, added to y off the Dirichlet rows */
    const int i = e % n, r = e / n, px = cx * t.k + i, py = cy * t.k + r % n, pz = g.dim == 3 ? cz * t.k + r / n : 0;
    PetscReal s = 0;
    for (int qx = 0; qx < n; qx++) s += S[qx * n + i] * F[r * n + qx];
    if (!VPDIsBoundary(g, px, py, pz)) atomicAdd(&y[VPDLocalIndex(g, px, py, pz)], (PetscScalar)s);
  }
}

static PetscErrorCode VPMappedMassLaunch(const VPGrid *g, const VPBasis1D *b, int diag, const PetscReal *d_m, const PetscScalar *x, PetscScalar *y)
{
  const int    n = (int)g->k + 1, nd = n * n * (g->dim == 3 ? n : 1);
  const size_t ncells = (size_t)g->cm[0] * (size_t)g->cm[1] * (size_t)(g->dim == 3 ? g->cm[2] : 1);
  VPMassTables t;
  cudaStream_t stream;

  PetscFunctionBegin;
  if (VPGridEmpty(g) || !ncells) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(ncells <= (size_t)PETSC_MPI_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "The mapped mass kernel takes at most 2^31 - 1 cells per rank, not %zu", ncells);
  t.k = n - 1;
  for (int i = 0; i < n * n; i++) t.S[i] = b->S[i];
  PetscCall(VPGetStream(&stream));
  VPMappedMassKernel<<<(unsigned)ncells, VPThreads(nd), (2 * nd + n * n) * sizeof(PetscReal), stream>>>(*g, t, diag, d_m, x, y);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(VPOwnedBoundary_CUDA(g, 1.0, diag ? NULL : x, y, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPMappedMassApply_CUDA(const VPGrid *g, const VPBasis1D *b, const PetscReal *d_mgeo, const PetscScalar *xl, PetscScalar *yl)
{
  PetscFunctionBegin;
  PetscCall(VPMappedMassLaunch(g, b, 0, d_mgeo, xl, yl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPMappedMassDiagonal_CUDA(const VPGrid *g, const VPBasis1D *b, const PetscReal *d_mgeo, PetscScalar *dl)
{
  PetscFunctionBegin;
  PetscCall(VPMappedMassLaunch(g, b, 1, d_mgeo, NULL, dl));
  PetscFunctionReturn(PETSC_SUCCESS);
}
