/*
  CUDA kernel of the DG vertex patches (discontinuous DMQBOX, PCVPATCH): one thread block per patch of one color (the
  2^d cells around an interior vertex, (2(k+1))^d unknowns), the device version of VPDGPatchColor_CPU().

  The fused variant computes each patch's residual itself (the localized residual): b - A x on the patch's cells from x
  on the patch and on its face neighbours, direction by direction (a box of 4 (k+1) x 2 (k+1) x 2 (k+1) values of x
  staged in shared memory, the 1D SIPG rows of the patch's two cells against the four cells along the direction, then
  the cell mass along the other directions); the global variant takes a residual computed before (xl NULL). The exact
  patch solve is the fast diagonalization Q (sum_e Lambda_e)^-1 Q^T with the two-cell pencils of VPDGPatch1DSetUp().
  Patches of one color are disjoint: each block adds its correction to its own cells of dl; no atomics. Arithmetic in
  T (double, or float for single precision); vectors stay PetscScalar.
*/
#include <petscvpatch/private/vpcuda.cuh>
#include <petscvpatch/private/vpdg.h>
#include <type_traits>

template <int DIM, int K> struct VPDGPatchShape {
  static constexpr int N = K + 1, NN = N * N, P2 = 2 * N, NP = DIM == 3 ? P2 * P2 * P2 : P2 * P2;
  static constexpr int TH = NP >= 512 ? 512 : ((NP + 31) / 32) * 32, NQ = (NP + TH - 1) / TH; /* threads, unknowns per thread */
  static constexpr int LP = P2 * 4 * N;                                                       /* per direction: the patch's rows, 4 cells of columns */
  /* shared memory (T): X [2 NP] (x along a direction, then work), B [NP], Lp [DIM LP], Q [DIM P2^2], lam [DIM P2], M [DIM N^2] */
  static constexpr int OB = 2 * NP, OL = 3 * NP, OQ = OL + DIM * LP, OLAM = OQ + DIM * P2 * P2, OM = OLAM + DIM * P2, SIZE = OM + DIM * NN;
};

/* entry (j, i) of the block with the rows of cell c and the columns of cell c + o (VPDGBlockEntry() on the device) */
__device__ __forceinline__ PetscReal VPDGDeviceBlockEntry(const VPDG1D &dg, int c, int o, int j, int i)
{
  const int N = (int)dg.k + 1, n = (int)dg.n;
  if (o == 0) {
    const PetscReal *D = n == 1 ? dg.Done : (c == 0 ? dg.Dfirst : (c == n - 1 ? dg.Dlast : dg.Din));
    return D[j * N + i];
  }
  return o == 1 ? dg.U[j * N + i] : dg.U[i * N + j];
}

/* coordinates of entry q of a tensor of extents E0 x E1 (x E2) */
template <int DIM> __device__ __forceinline__ void VPDGCoords(int q, int E0, int E1, int i[3])
{
  i[0] = q % E0;
  i[1] = (q / E0) % E1;
  i[2] = DIM == 3 ? q / (E0 * E1) : 0;
}

/* out[q] = sum_j A(i_e, j) in[q with i_e = j] over the patch tensor (TRANS: A(j, i_e)), A P2 x P2 */
template <int DIM, int P2, int NP, int TH, bool TRANS, typename T> __device__ __forceinline__ void VPDGPatchContract(int e, const T *A, const T *in, T *out)
{
  const int s = e == 0 ? 1 : (e == 1 ? P2 : P2 * P2);
  for (int q = threadIdx.x; q < NP; q += TH) {
    const int i = (q / s) % P2, q0 = q - i * s;
    T         v = 0;
#pragma unroll
    for (int j = 0; j < P2; j++) v += (TRANS ? A[j * P2 + i] : A[i * P2 + j]) * in[q0 + j * s];
    out[q] = v;
  }
}
/* sum_j M(i_f mod N, j) in[q with i_f = its cell's first node + j]: the cell mass along f of the patch tensor */
template <int N, int P2> __device__ __forceinline__ int VPDGPatchStride(int f)
{
  return f == 0 ? 1 : (f == 1 ? P2 : P2 * P2);
}
template <int N, int P2, typename T> __device__ __forceinline__ T VPDGPatchMass(int f, const T *M, int q, const T *in)
{
  const int s = VPDGPatchStride<N, P2>(f), i = (q / s) % P2, i0 = i % N, q0 = q - i0 * s;
  T         v = 0;
#pragma unroll
  for (int j = 0; j < N; j++) v += M[i0 * N + j] * in[q0 + j * s];
  return v;
}

/* a patch's 1D data into shared memory (all nthreads threads of the block): per direction the eigenvectors Q and
   eigenvalues lam of the pencil of vertex v and the cell mass M; with rows, the patch rows of L_e against the four cells
   v - 2 .. v + 1 (2N x 4N per direction, zero outside the mesh) */
template <int DIM, int N, typename T> __device__ __forceinline__ void VPDGLoadTables(const VPGrid &g, const VPDG1D *__restrict__ dg, const VPDGPatchDevice &pd, const int v[3], bool rows, T *Lp, T *Q, T *lam, T *M, int nthreads)
{
  constexpr int NN = N * N, P2 = 2 * N, LP = P2 * 4 * N;
  for (int t = threadIdx.x; t < DIM * P2 * P2; t += nthreads) {
    const int e = t / (P2 * P2);
    Q[t]        = (T)pd.Q[e][(PetscInt)(v[e] - 1) * P2 * P2 + (t - e * P2 * P2)];
  }
  for (int t = threadIdx.x; t < DIM * P2; t += nthreads) lam[t] = (T)pd.lam[t / P2][(PetscInt)(v[t / P2] - 1) * P2 + t % P2];
  for (int t = threadIdx.x; t < DIM * NN; t += nthreads) M[t] = (T)dg[t / NN].M[t % NN];
  if (rows)
    for (int t = threadIdx.x; t < DIM * LP; t += nthreads) {
      const int e = t / LP, rr = t - e * LP, row = rr / (4 * N), col = rr - row * 4 * N, a = row / N, bb = col / N;
      const int c = v[e] - 1 + a, cn = v[e] - 2 + bb, o = bb - 1 - a;
      Lp[t] = (o >= -1 && o <= 1 && cn >= 0 && cn < (int)g.N[e]) ? (T)VPDGDeviceBlockEntry(dg[e], c, o, row % N, col % N) : (T)0;
    }
}

template <int DIM, int K, typename T>
__global__ void __launch_bounds__(VPDGPatchShape<DIM, K>::TH)
    VPDGPatchKernel(const VPGrid g, const VPDG1D *__restrict__ dg, const VPDGPatchDevice pd, int vlo0, int vlo1, int vlo2, int nv0, int nv1, const PetscScalar *__restrict__ b, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ d)
{
  using S         = VPDGPatchShape<DIM, K>;
  constexpr int N = S::N, NN = S::NN, P2 = S::P2, NP = S::NP, TH = S::TH, NQ = S::NQ, LP = S::LP;
  VP_DYNAMIC_SHARED(T, sm);
  T *const X = sm, *const B = sm + S::OB, *const Lp = sm + S::OL, *const Q = sm + S::OQ, *const lam = sm + S::OLAM, *const M = sm + S::OM;
  const int      pid = blockIdx.x, v[3] = {vlo0 + 2 * (pid % nv0), vlo1 + 2 * ((pid / nv0) % nv1), DIM == 3 ? vlo2 + 2 * (pid / (nv0 * nv1)) : 1};
  const PetscInt str[3] = {1, g.gxm[0], (PetscInt)g.gxm[0] * g.gxm[1]};
  PetscInt       base   = 0;
  T              r[NQ];

#pragma unroll
  for (int e = 0; e < DIM; e++) base += ((PetscInt)(v[e] - 1) * N - g.gxs[e]) * str[e];
  VPDGLoadTables<DIM, N, T>(g, dg, pd, v, x != NULL, Lp, Q, lam, M, TH);
#pragma unroll
  for (int m = 0; m < NQ; m++) {
    const int q = threadIdx.x + m * TH;
    int       i[3];
    VPDGCoords<DIM>(q, P2, P2, i);
    r[m] = q < NP ? (T)b[base + i[0] + i[1] * str[1] + i[2] * str[2]] : (T)0;
  }
  if (x) { /* r -= A x on the patch's cells, direction by direction */
#pragma unroll
    for (int e = 0; e < DIM; e++) {
      const int E0 = e == 0 ? 2 * P2 : P2, E1 = e == 1 ? 2 * P2 : P2, es[3] = {1, E0, E0 * E1};
      const int f1 = e == 0 ? 1 : 0, f2 = e == 2 ? 1 : 2;
      __syncthreads(); /* the tables; X and B free */
      for (int t = threadIdx.x; t < 2 * NP; t += TH) {
        int i[3];
        VPDGCoords<DIM>(t, E0, E1, i);
        const int cell = v[e] - 2 + i[e] / N;
        T         val  = 0;
        if (cell >= 0 && cell < (int)g.N[e]) val = (T)x[base + (i[0] - (e == 0 ? N : 0)) + (i[1] - (e == 1 ? N : 0)) * str[1] + (i[2] - (e == 2 ? N : 0)) * str[2]];
        X[t] = val;
      }
      __syncthreads();
      for (int q = threadIdx.x; q < NP; q += TH) {
        int i[3];
        VPDGCoords<DIM>(q, P2, P2, i);
        const int ie = i[e], a = ie / N, q0 = i[0] * es[0] + i[1] * es[1] + i[2] * es[2] - ie * es[e] + a * N * es[e];
        const T  *L = Lp + e * LP + ie * 4 * N + a * N;
        T         s = 0;
#pragma unroll
        for (int j = 0; j < 3 * N; j++) s += L[j] * X[q0 + j * es[e]];
        B[q] = s;
      }
      __syncthreads();
      if constexpr (DIM == 3) {
        for (int q = threadIdx.x; q < NP; q += TH) X[q] = VPDGPatchMass<N, P2>(f1, M + f1 * NN, q, B);
        __syncthreads();
#pragma unroll
        for (int m = 0; m < NQ; m++) {
          const int q = threadIdx.x + m * TH;
          if (q < NP) r[m] -= VPDGPatchMass<N, P2>(f2, M + f2 * NN, q, X);
        }
      } else {
#pragma unroll
        for (int m = 0; m < NQ; m++) {
          const int q = threadIdx.x + m * TH;
          if (q < NP) r[m] -= VPDGPatchMass<N, P2>(f1, M + f1 * NN, q, B);
        }
      }
    }
  }
  __syncthreads();
#pragma unroll
  for (int m = 0; m < NQ; m++) {
    const int q = threadIdx.x + m * TH;
    if (q < NP) B[q] = r[m];
  }
  /* the exact solve: Q^T along every direction, divide by the eigenvalue sums, Q along every direction */
  T *in = B, *out = X;
  for (int pass = 0; pass < 2; pass++) {
    for (int e = 0; e < DIM; e++) {
      __syncthreads();
      if (pass)
        VPDGPatchContract<DIM, P2, NP, TH, false>(e, Q + e * P2 * P2, in, out);
      else
        VPDGPatchContract<DIM, P2, NP, TH, true>(e, Q + e * P2 * P2, in, out);
      T *tmp = in;
      in     = out;
      out    = tmp;
    }
    if (pass) break;
    __syncthreads();
    for (int q = threadIdx.x; q < NP; q += TH) {
      int i[3];
      VPDGCoords<DIM>(q, P2, P2, i);
      T l = 0;
#pragma unroll
      for (int e = 0; e < DIM; e++) l += lam[e * P2 + i[e]];
      in[q] /= l;
    }
  }
  __syncthreads();
  for (int q = threadIdx.x; q < NP; q += TH) {
    int i[3];
    VPDGCoords<DIM>(q, P2, P2, i);
    const PetscInt a = base + i[0] + i[1] * str[1] + i[2] * str[2];
    d[a]             = (x ? x[a] : d[a]) + (PetscScalar)in[q]; /* x given: d = x + the correction (a separate array) */
  }
}

/* ------------------------------------------------------------------------------------------------------------ */
/* 3D: one thread per 1D line of the patch (the "lines" kernel). A block of (2N)^2 threads takes one patch; every pass
   along a direction e gives each thread one line along e: it loads the line into registers, applies the 1D matrix
   (from shared memory, the same entry for every thread: a broadcast) and writes the line back. A multiply-add then
   reads one shared operand instead of two, and the line's entries are read once per pass instead of once per output.
   The residual's pass along e loads x's line over the patch's two cells and their two neighbours (4N values) from
   global memory straight into registers, before the barrier that frees the work tensor; for lines along y and z, x runs
   fastest over the threads, so that these loads coalesce (measured, 134M unknowns, H100: the float kernel at k = 3,
   whose fewest-conflict layout had z fastest along y, solves 6% faster; copying the lines along x, which are contiguous
   per thread, through shared memory with coalesced loads measured 1-17% slower). The mass along the two other
   directions and the solve's passes work in place on two shared tensors (R: the residual, then the solve; B: the work
   tensor), since a pass reads and writes only its threads' own lines. The tensors' strides and, for lines along x,
   which of y and z is the threads' fastest are chosen at compile time (VPDGLineLayoutSearch) for the fewest
   shared-memory bank conflicts. */
struct VPDGLineLayout {
  int s[3];    /* strides of the patch coordinates (x, y, z) in the shared tensors */
  int fast[3]; /* for lines along e: the other coordinate that runs fastest over the threads (x for e = y, z) */
  int cost;    /* wavefronts of the first warp, summed over the three directions */
};
/* wavefronts of one shared access by the first warp for lines along e, fast coordinate f, strides s; BK entries of T
   make one bank cycle, served per group of BK threads */
__host__ __device__ constexpr int VPDGLineConflicts(int P2, int BK, const int *s, int e, int f)
{
  const int g = 3 - e - f, T = P2 * P2 < 32 ? P2 * P2 : 32;
  int       w = 0;
  for (int t0 = 0; t0 < T; t0 += BK) {
    int cnt[32] = {0}, m = 0;
    for (int t = t0; t < t0 + BK && t < T; t++) {
      const int a = ((t % P2) * s[f] + (t / P2) * s[g]) % BK;
      cnt[a]++;
      if (cnt[a] > m) m = cnt[a];
    }
    w += m;
  }
  return w;
}
__host__ __device__ constexpr VPDGLineLayout VPDGLineLayoutSearch(int P2, int BK)
{
  VPDGLineLayout best       = {{1, P2, P2 * P2}, {1, 0, 0}, 1 << 30};
  const int      perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}; /* fastest, middle, slowest */
  for (int p = 0; p < 6; p++)
    for (int pm = 0; pm < 2; pm++)
      for (int ps = 0; ps < BK; ps++) {
        VPDGLineLayout L = {{0, 0, 0}, {0, 0, 0}, 0};
        L.s[perm[p][0]]  = 1;
        L.s[perm[p][1]]  = P2 + pm;
        L.s[perm[p][2]]  = P2 * (P2 + pm) + ps;
        for (int e = 0; e < 3; e++) {
          /* lines along y and z: x fastest over the threads, for the global loads; along x: y or z, the cheaper */
          const int c1 = VPDGLineConflicts(P2, BK, L.s, e, e == 0 ? 1 : 0), c2 = e == 0 ? VPDGLineConflicts(P2, BK, L.s, e, 2) : 1 << 20;
          L.fast[e] = c1 <= c2 ? (e == 0 ? 1 : 0) : 2;
          L.cost += c1 <= c2 ? c1 : c2;
        }
        if (L.cost < best.cost || (L.cost == best.cost && L.s[0] + L.s[1] + L.s[2] < best.s[0] + best.s[1] + best.s[2])) best = L; /* then the smallest tensor */
      }
  return best;
}

/* The interior patches (vertex v with 2 <= v <= n - 2 along every direction: the patch's cells and their neighbours
   are interior cells) all have the same 1D data up to the cell size h: L_e = Lref / h_e, M_e = h_e Mref, the pencil's
   eigenvectors Qref / sqrt(h_e) and eigenvalues lamref / h_e^2. The reference data (h = 1) per degree K <= 8 sit in
   constant memory (VPDGRefEnsure()), so that the lines kernel reads them as immediate operands of its multiply-adds
   where they fit the constant cache (double k <= 3, float k <= 5): the patch rows of Lref against the four cells
   ((2N) x 4N), Qref ((2N)^2, row-major; columns: the N even modes, then the N odd ones), lamref (2N), Mref (N^2). The
   boundary patches read their own data from shared memory (VPDGLoadTables()). */
__host__ __device__ constexpr int VPDGRefSize(int K)
{
  return 2 * (K + 1) * 4 * (K + 1) + 4 * (K + 1) * (K + 1) + 2 * (K + 1) + (K + 1) * (K + 1);
}
__host__ __device__ constexpr int VPDGRefOffset(int K)
{
  int o = 0;
  for (int k = 1; k < K; k++) o += VPDGRefSize(k);
  return o;
}
VP_CONSTANT_TABLE(VPDGRef, VPDGRefOffset(VPATCH_MAX_DEGREE_3D + 1));

template <int K, typename T> struct VPDGLineShape {
  static constexpr int            N = K + 1, NN = N * N, P2 = 2 * N, NL = P2 * P2, NP = P2 * NL, LP = P2 * 4 * N, BK = 128 / (int)sizeof(T);
  static constexpr VPDGLineLayout L  = VPDGLineLayoutSearch(P2, BK);
  static constexpr int            S0 = L.s[0], S1 = L.s[1], S2 = L.s[2], F0 = L.fast[0], F1 = L.fast[1], F2 = L.fast[2];
  static constexpr int            BUF = (P2 - 1) * (S0 + S1 + S2) + 1; /* entries of a shared tensor */
  /* shared memory (T): R [BUF], B [BUF], Lp [3 LP], Q [3 P2^2], lam [3 P2], M [3 N^2] */
  static constexpr int                                             OB = BUF, OL = 2 * BUF, OQ = OL + 3 * LP, OLAM = OQ + 3 * P2 * P2, OM = OLAM + 3 * P2, SIZE = OM + 3 * NN;
  template <int E> static __device__ __forceinline__ constexpr int stride()
  {
    return E == 0 ? S0 : (E == 1 ? S1 : S2);
  }
  /* thread t's line along E: its coordinates (i[E] = 0) */
  template <int E> static __device__ __forceinline__ void line(int t, int i[3])
  {
    constexpr int F = E == 0 ? F0 : (E == 1 ? F1 : F2), G = 3 - E - F;
    i[E] = 0;
    i[F] = t % P2;
    i[G] = t / P2;
  }
};

/* the lines kernel's work on patch v; REF: an interior patch, its 1D data from the constant reference tables */
template <int K, typename T, bool REF>
__device__ __forceinline__ void VPDGPatchLineBody(const VPGrid &g, const VPDG1D *__restrict__ dg, const VPDGPatchDevice &pd, const int v[3], const PetscScalar *__restrict__ b, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ d)
{
  using S         = VPDGLineShape<K, T>;
  constexpr int N = S::N, NN = S::NN, P2 = S::P2, NL = S::NL, NP = S::NP, LP = S::LP, RO = VPDGRefOffset(K);
  constexpr int RL = RO, RQ = RL + P2 * 4 * N, RLAM = RQ + P2 * P2, RM = RLAM + P2; /* the reference tables of degree K */
  VP_DYNAMIC_SHARED(T, sm);
  T *const R = sm, *const B = sm + S::OB, *const Lp = sm + S::OL, *const Q = sm + S::OQ, *const lam = sm + S::OLAM, *const M = sm + S::OM;
  const int      t      = threadIdx.x;
  const PetscInt str[3] = {1, g.gxm[0], (PetscInt)g.gxm[0] * g.gxm[1]};
  const T        h[3] = {(T)g.h[0], (T)g.h[1], (T)g.h[2]}, ih2[3] = {(T)(1.0 / (g.h[0] * g.h[0])), (T)(1.0 / (g.h[1] * g.h[1])), (T)(1.0 / (g.h[2] * g.h[2]))};
  PetscInt       base = 0;
  /* the 1D data: entry c of row r of the patch rows of L_E, entry ij of Q_E and of the mass along F, eigenvalue i of E
     (REF: the reference data; the scalings by h are applied once per pass below) */
  auto lpv  = [&](int E, int r, int c) -> T { return REF ? VPDGRef<T>(RL + r * 4 * N + c) : Lp[E * LP + r * 4 * N + c]; };
  auto qv   = [&](int E, int ij) -> T { return REF ? VPDGRef<T>(RQ + ij) : Q[E * P2 * P2 + ij]; };
  auto mv   = [&](int F, int ij) -> T { return REF ? VPDGRef<T>(RM + ij) : M[F * NN + ij]; };
  auto lamv = [&](int E, int i) -> T { return REF ? VPDGRef<T>(RLAM + i) * ih2[E] : lam[E * P2 + i]; };

#pragma unroll
  for (int e = 0; e < 3; e++) base += ((PetscInt)(v[e] - 1) * N - g.gxs[e]) * str[e];
  if (!REF) VPDGLoadTables<3, N, T>(g, dg, pd, v, x != NULL, Lp, Q, lam, M, NL);
  for (int q = t; q < NP; q += NL) { /* R = b on the patch, read along x */
    const int i0 = q % P2, i1 = (q / P2) % P2, i2 = q / NL;
    R[i0 * S::S0 + i1 * S::S1 + i2 * S::S2] = (T)b[base + i0 + i1 * str[1] + i2 * str[2]];
  }
  /* Rows of a 1D product: emit(r, sum_{j < NJ} coef(r, j) u[(r / N) UO + j]) for the 2N rows r = a N + n of a line (a: the
     patch's cell). Fully unrolled, or (ROWS: large degrees, where the unrolled products kept too many values in
     registers and spilled) a loop over n, two rows at a time, so that u stays the only register array */
  constexpr bool ROWS   = sizeof(T) == sizeof(double) ? K >= 5 : K >= 7;
  auto           rowsum = [&](auto NJc, auto UOc, const T *u, auto &&coef, auto &&emit) {
    constexpr int NJ = decltype(NJc)::value, UO = decltype(UOc)::value;
#pragma unroll
    for (int a = 0; a < 2; a++) {
      auto row = [&](int n) {
        T s = 0;
#pragma unroll
        for (int j = 0; j < NJ; j++) s += coef(a * N + n, j) * u[a * UO + j];
        emit(a * N + n, s);
      };
      if constexpr (ROWS) {
#pragma unroll 2
        for (int n = 0; n < N; n++) row(n);
      } else {
#pragma unroll
        for (int n = 0; n < N; n++) row(n);
      }
    }
  };
  using NC = std::integral_constant<int, N>;
  using PC = std::integral_constant<int, P2>;
  using ZC = std::integral_constant<int, 0>;
  /* a pass along E: the thread's line of X into registers u, then f(line coordinates, u, emit), emit(r, value) storing
     value by store(offset of entry r of the line) (in place: no other thread reads or writes the line) */
  auto pass = [&](auto Ec, const T *X, auto &&f, auto &&store) {
    constexpr int E = decltype(Ec)::value;
    int           i[3];
    S::template line<E>(t, i);
    const int o = i[0] * S::S0 + i[1] * S::S1 + i[2] * S::S2;
    T         u[P2];
#pragma unroll
    for (int j = 0; j < P2; j++) u[j] = X[o + j * S::template stride<E>()];
    f(i, u, [&](int r, T w) { store(o + r * S::template stride<E>(), w); });
  };
  auto toB = [&](int a, T w) { B[a] = w; };
  auto toR = [&](int a, T w) { R[a] = w; };
  /* emit Q_E u, or Q_E^T u (TR). REF: the reference modes are N even ones, then N odd ones under the reflection
     i -> 2N - 1 - i of the patch (PCVPatchDGReference()), so only rows i < N of Qref are used: Q^T u from the sums and
     differences u_i +- u_(2N-1-i), Q v as se +- so for the rows i and 2N - 1 - i (2 N^2 multiply-adds instead of 4 N^2) */
  auto qmul = [&](auto Ec, auto TRc, const T *u, auto &&emit) {
    constexpr int  E  = decltype(Ec)::value;
    constexpr bool TR = decltype(TRc)::value;
    (void)E;                      /* not every instantiation's branch reads it */
    if constexpr (REF && !ROWS) { /* (with ROWS, never run: the constant tables serve double k <= 3, float k <= 5) */
      if constexpr (TR) {
        T e[N], o[N];
#pragma unroll
        for (int i = 0; i < N; i++) {
          e[i] = u[i] + u[P2 - 1 - i];
          o[i] = u[i] - u[P2 - 1 - i];
        }
#pragma unroll
        for (int c = 0; c < N; c++) {
          T se = 0, so = 0;
#pragma unroll
          for (int i = 0; i < N; i++) {
            se += VPDGRef<T>(RQ + i * P2 + c) * e[i];
            so += VPDGRef<T>(RQ + i * P2 + N + c) * o[i];
          }
          emit(c, se);
          emit(N + c, so);
        }
      } else {
#pragma unroll
        for (int i = 0; i < N; i++) {
          T se = 0, so = 0;
#pragma unroll
          for (int c = 0; c < N; c++) {
            se += VPDGRef<T>(RQ + i * P2 + c) * u[c];
            so += VPDGRef<T>(RQ + i * P2 + N + c) * u[N + c];
          }
          emit(i, se + so);
          emit(P2 - 1 - i, se - so);
        }
      }
    } else
      rowsum(
          PC(), ZC(), u, [&](int r, int j) { return qv(E, TR ? j * P2 + r : r * P2 + j); }, emit);
  };
  using TRUE_  = std::true_type;
  using FALSE_ = std::false_type;
  /* emit the cell mass along F of the line u (block diagonal: two cells of N) */
  auto mass = [&](auto Fc, const T *u, auto &&emit) {
    constexpr int F = decltype(Fc)::value;
    rowsum(
        NC(), NC(), u, [&](int r, int j) { return mv(F, (r % N) * N + j); }, emit);
  };
  if (x) { /* R -= A x on the patch's cells: per direction e, L_e along e (x's line over four cells), then the masses */
    auto direction = [&](auto Ec) {
      constexpr int E = decltype(Ec)::value, F1 = E == 0 ? 1 : 0, F2 = E == 2 ? 1 : 2;
      int           i[3];
      S::template line<E>(t, i);
      const int o = i[0] * S::S0 + i[1] * S::S1 + i[2] * S::S2;
      T         u[4 * N];
      { /* x's line over the four cells, loaded before the barrier (the tables and R; B free) */
        const PetscInt go = base + i[0] * str[0] + i[1] * str[1] + i[2] * str[2];
        const bool     lo = v[E] - 2 >= 0, hi = v[E] + 1 < (int)g.N[E]; /* the neighbour cells exist */
#pragma unroll
        for (int j = 0; j < 4 * N; j++) u[j] = ((j < N && !lo) || (j >= 3 * N && !hi)) ? (T)0 : (T)x[go + (PetscInt)(j - N) * str[E]];
      }
      __syncthreads();
      rowsum(
          std::integral_constant<int, 3 * N>(), NC(), u, [&](int r, int j) { return lpv(E, r, (r / N) * N + j); }, [&](int r, T w) { B[o + r * S::template stride<E>()] = w; });
      __syncthreads();
      pass(
          std::integral_constant<int, F1>(), B, [&](const int *, const T *u, auto &&emit) { mass(std::integral_constant<int, F1>(), u, emit); }, toB);
      __syncthreads();
      const T sc = REF ? h[F1] * h[F2] / h[E] : (T)1; /* REF: L_E = Lref / h_E and the masses h Mref */
      pass(
          std::integral_constant<int, F2>(), B, [&](const int *, const T *u, auto &&emit) { mass(std::integral_constant<int, F2>(), u, emit); }, [&](int a, T w) { R[a] -= sc * w; });
    };
    direction(std::integral_constant<int, 0>());
    direction(std::integral_constant<int, 1>());
    direction(std::integral_constant<int, 2>());
  }
  /* the exact solve in place in R: Q_z^T, Q_y^T, then along x Q_x^T, the eigenvalue sums, Q_x; then Q_y, Q_z into d */
  auto qt = [&](auto Ec) {
    __syncthreads();
    pass(
        Ec, R, [&](const int *, const T *u, auto &&emit) { qmul(Ec, TRUE_(), u, emit); }, toR);
  };
  qt(std::integral_constant<int, 2>());
  qt(std::integral_constant<int, 1>());
  __syncthreads();
  if constexpr (ROWS) { /* the scaled Q_x^T back into the thread's own line of R, then Q_x (no register array indexed by a loop) */
    pass(
        ZC(), R,
        [&](const int *i, const T *u, auto &&emit) {
          const T l12 = lamv(1, i[1]) + lamv(2, i[2]);
          qmul(ZC(), TRUE_(), u, [&](int r, T w) { emit(r, w / (lamv(0, r) + l12)); });
        },
        toR);
    pass(
        ZC(), R, [&](const int *, const T *u, auto &&emit) { qmul(ZC(), FALSE_(), u, emit); }, toR);
  } else
    pass(
        ZC(), R,
        [&](const int *i, const T *u, auto &&emit) {
          T       y[P2];
          const T l12 = lamv(1, i[1]) + lamv(2, i[2]);
          qmul(ZC(), TRUE_(), u, [&](int r, T w) { y[r] = w / (lamv(0, r) + l12); });
          qmul(ZC(), FALSE_(), y, emit);
        },
        toR);
  __syncthreads();
  pass(
      std::integral_constant<int, 1>(), R, [&](const int *, const T *u, auto &&emit) { qmul(std::integral_constant<int, 1>(), FALSE_(), u, emit); }, toR);
  __syncthreads();
  {
    int i[3];
    S::template line<2>(t, i);
    const int      o  = i[0] * S::S0 + i[1] * S::S1;
    const PetscInt go = base + i[0] + i[1] * str[1];
    const T        sc = REF ? (T)(1.0 / (g.h[0] * g.h[1] * g.h[2])) : (T)1; /* REF: Q_e = Qref / sqrt(h_e) */
    T              u[P2];
#pragma unroll
    for (int j = 0; j < P2; j++) u[j] = R[o + j * S::S2];
    qmul(std::integral_constant<int, 2>(), FALSE_(), u, [&](int r, T w) {
      const PetscInt a = go + r * str[2];
      d[a]             = (x ? x[a] : d[a]) + (PetscScalar)(sc * w); /* x given: d = x + the correction */
    });
  }
}

template <int K, typename T>
__global__ void __launch_bounds__(VPDGLineShape<K, T>::NL) VPDGPatchLineKernel(const VPGrid g, const VPDG1D *__restrict__ dg, const VPDGPatchDevice pd, int vlo0, int vlo1, int vlo2, int nv0, int nv1, PetscBool ref, const PetscScalar *__restrict__ b,
                                                                               const PetscScalar *__restrict__ x, PetscScalar *__restrict__ d)
{
  const int pid = blockIdx.x, v[3] = {vlo0 + 2 * (pid % nv0), vlo1 + 2 * ((pid / nv0) % nv1), vlo2 + 2 * (pid / (nv0 * nv1))};
  bool      interior = ref;
#pragma unroll
  for (int e = 0; e < 3; e++) interior = interior && v[e] >= 2 && v[e] + 2 <= (int)g.N[e];
  if (interior) /* the same for every thread of the block */
    VPDGPatchLineBody<K, T, true>(g, dg, pd, v, b, x, d);
  else
    VPDGPatchLineBody<K, T, false>(g, dg, pd, v, b, x, d);
}

/* the reference tables of degree K (VPDGRef) hold ref (VPDGRefSize(K) values, vpdg.h's layout): uploaded when they differ
   from the last upload */
static PetscErrorCode VPDGRefEnsure(int K, const PetscReal *ref)
{
  static PetscReal last[VPDGRefOffset(VPATCH_MAX_DEGREE_3D + 1)];
  static bool      have[VPATCH_MAX_DEGREE_3D + 1];
  const int        n = VPDGRefSize(K), off = VPDGRefOffset(K);

  PetscFunctionBegin;
  PetscCheck(K >= 1 && K <= VPATCH_MAX_DEGREE_3D, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DG reference tables for degree %d: only 1..%d", K, VPATCH_MAX_DEGREE_3D);
  if (have[K] && !memcmp(last + off, ref, (size_t)n * sizeof(PetscReal))) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VPDGRefUpload(ref, n, off));
  memcpy(last + off, ref, (size_t)n * sizeof(PetscReal));
  have[K] = true;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dst = src on the nodes of a box of n0 x n1 x n2 (local strides 1, s1, s2 from off) */
__global__ void VPDGCopyBox(int n0, int n1, int n2, PetscInt off, PetscInt s1, PetscInt s2, const PetscScalar *__restrict__ src, PetscScalar *__restrict__ dst)
{
  const PetscInt t = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x;
  if (t >= (PetscInt)n0 * n1 * n2) return;
  const PetscInt a = off + t % n0 + ((t / n0) % n1) * s1 + (t / ((PetscInt)n0 * n1)) * s2;
  dst[a]           = src[a];
}

/* With x given the patch kernels write d = x + correction on the cells of the color's patches only; the other owned
   cells (those outside the color's covered range [vlo - 1, vlo + 2 (nv - 1)] along some direction: slabs at the box's
   faces) get d = x here, so that d is x after the color */
static PetscErrorCode VPDGCopyUncovered(const VPGrid *g, const int vlo[3], const int nv[3], const PetscScalar *x, PetscScalar *d, cudaStream_t stream)
{
  const int      N      = (int)g->k + 1;
  const PetscInt str[3] = {1, g->gxm[0], (PetscInt)g->gxm[0] * g->gxm[1]};

  PetscFunctionBegin;
  for (int e = 0; e < g->dim; e++) {
    const int c0 = (int)g->cs[e], c1 = (int)(g->cs[e] + g->cm[e]);                          /* owned cells [c0, c1) */
    const int lo = nv[e] ? vlo[e] - 1 : c1, hi = nv[e] ? vlo[e] + 2 * (nv[e] - 1) + 1 : c1; /* covered [lo, hi) */
    const int seg[2][2] = {{c0, lo}, {hi, c1}};
    for (int k = 0; k < 2; k++) {
      int      a[3], n[3] = {1, 1, 1};
      PetscInt off = 0;
      if (seg[k][1] <= seg[k][0]) continue;
      for (int f = 0; f < g->dim; f++) {
        a[f] = f == e ? seg[k][0] * N : (int)g->cs[f] * N;
        n[f] = f == e ? (seg[k][1] - seg[k][0]) * N : (int)g->cm[f] * N;
        off += (PetscInt)(a[f] - g->gxs[f]) * str[f];
      }
      const PetscInt tot = (PetscInt)n[0] * n[1] * n[2];
      VPDGCopyBox<<<(unsigned)((tot + 255) / 256), 256, 0, stream>>>(n[0], n[1], n[2], off, str[1], str[2], x, d);
      PetscCallCUDA(cudaGetLastError());
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int DIM, int K, typename T> struct VPDGPatch {
  static PetscErrorCode run(const VPGrid *g, PetscBool lines, const PetscReal *ref, const VPDG1D *d_dg, const VPDGPatchDevice *pd, PetscInt color, const PetscScalar *bl, const PetscScalar *xl, PetscScalar *dl)
  {
    using S             = VPDGPatchShape<DIM, K>;
    const size_t bytes  = sizeof(T) * S::SIZE;
    int          vlo[3] = {1, 1, 1}, nv[3] = {1, 1, 1};
    size_t       npatch = 1;
    cudaStream_t stream;

    PetscFunctionBegin;
    for (int e = 0; e < DIM; e++) {
      const int hi = (int)PetscMin(g->cs[e] + g->cm[e], g->N[e]); /* vertices [vlo, hi) */
      vlo[e]       = (int)PetscMax(g->cs[e], 1);
      if (vlo[e] % 2 != ((color >> e) & 1)) vlo[e]++;
      nv[e] = hi > vlo[e] ? (hi - vlo[e] + 1) / 2 : 0;
      npatch *= (size_t)nv[e];
    }
    PetscCall(VPGetStream(&stream));
    if (xl) PetscCall(VPDGCopyUncovered(g, vlo, nv, xl, dl, stream));
    if (!npatch) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCheck(npatch <= (size_t)PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "The CUDA DG patch kernel takes at most 2^31 - 1 patches of one color per rank, this rank has %zu: use more ranks", npatch);
    bool line = false; /* 3D: the lines kernel (only instantiated in 3D) */
    if constexpr (DIM == 3) {
      if (lines) {
        using SL            = VPDGLineShape<K, T>;
        const size_t lbytes = sizeof(T) * SL::SIZE;
        /* the constant tables where they fit the SM's constant cache (2 KB): measured (134M unknowns, H100) 1.24x faster
           at k = 3 in double (1.7 KB), 1.47x slower at k = 7 (6.8 KB; float 3.4 KB: 1.05x slower) than shared memory */
        constexpr bool CREF = K <= VPATCH_MAX_DEGREE_3D && VPDGRefSize(K) * sizeof(T) <= 2048;
        if constexpr (CREF) {
          if (ref) PetscCall(VPDGRefEnsure(K, ref));
        }
        PetscCallCUDA(cudaFuncSetAttribute(VPDGPatchLineKernel<K, T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)lbytes));
        VPDGPatchLineKernel<K, T><<<(unsigned)npatch, SL::NL, lbytes, stream>>>(*g, d_dg, *pd, vlo[0], vlo[1], vlo[2], nv[0], nv[1], (PetscBool)(CREF && ref != NULL), bl, xl, dl);
        line = true;
      }
    }
    if (!line) {
      PetscCallCUDA(cudaFuncSetAttribute(VPDGPatchKernel<DIM, K, T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
      VPDGPatchKernel<DIM, K, T><<<(unsigned)npatch, S::TH, bytes, stream>>>(*g, d_dg, *pd, vlo[0], vlo[1], vlo[2], nv[0], nv[1], bl, xl, dl);
    }
    PetscCallCUDA(cudaGetLastError());
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};
VP_PRECISION_ALIASES(VPDGPatch);

PetscErrorCode VPDGPatchColor_CUDA(const VPGrid *g, PetscBool single, PetscBool lines, const PetscReal *ref, const VPDG1D *d_dg, const VPDGPatchDevice *pd, PetscInt color, const PetscScalar *bl, const PetscScalar *xl, PetscScalar *dl)
{
  PetscFunctionBegin;
  if (VPGridEmpty(g)) PetscFunctionReturn(PETSC_SUCCESS);
  VP_DISPATCH_PRECISION(VPDGPatch, single, g->dim, g->k, g, lines, ref, d_dg, pd, color, bl, xl, dl);
  PetscFunctionReturn(PETSC_SUCCESS);
}
