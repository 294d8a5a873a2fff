/*
  CUDA kernels of PCVPATCH.

  The "fused" variant: one kernel per color; a thread block takes NB patches of the color, gathers their
  (2k+1)^d values into shared memory, computes the localized residual on the (2k-1)^d interior and solves the
  patch problem by fast diagonalization, then stores the patches' new interior values in place (d = x). The same
  kernel, instantiated by MODE, gives the reference's other variants: "separate" (a localized-residual kernel writes
  the patch residuals to a scratch buffer, a second kernel solves and adds the corrections into d) and "global" (the
  residual comes from a global MatMult; the kernel only solves and adds). No atomics: patches of one color share no
  interior node, so a sweep is bitwise reproducible; x and d may be one array, since no block reads a node that
  another block of the color writes.

  Design (bench/RESULTS.md has the measurements that led to it):
  - Register lines. Every tensor contraction is done one thread per 1D line: the thread loads the line's values
    into registers, applies the 1D matrix and writes the results. Per multiply-add this costs no shared-memory
    read of a matrix entry and 1/(2k+1) of a tensor entry.
  - Matrices in constant memory. On a uniform Cartesian mesh the 1D patch matrices of a level are scaled
    reference matrices: Mp = h Mhat, Kp = Khat / h, and the generalized eigenvectors and eigenvalues of the
    interior block are S = Shat / sqrt(h) and lam = lamhat / h^2. So the kernels use the reference data of degree
    k (VPPatchSetUp_CUDA puts it in constant memory once) and three scalars c_d = (prod_e h_e) / h_d^2:
      A = sum_d c_d Khat_d (x) Mhat_(others),  A^-1 = Shat^(x d) diag(1 / sum_d c_d lamhat_d) Shat^T(x d).
    The loops over a line are unrolled at compile time, so each matrix entry is an immediate constant-bank operand
    of the multiply-add: no load at all. The structural zeros of the patch matrices (the two cells' blocks) are
    skipped at compile time.
  - Interior rows only. The residual is needed on the interior, so each contraction of the residual computes only
    the 2k-1 interior rows: the tensors shrink from (2k+1)^d to (2k-1)^d along the way, about half the work of the
    full-patch product.
  - The y pass from x: the residual's first pass loads its lines along y from x itself (predicated loads, the lanes
    of a warp on consecutive x) where that measured faster (VPTunePatchDirectY(), vpatch_tuning.cuh); elsewhere the
    patch is gathered into shared memory first: in 3D one thread per row of the patch along x (its index work once
    per row) where that measured faster, elsewhere one per entry (VPTunePatchGatherRows()).
  - The reduced local residual (the reference's "Boundary" form, fused variant): with the exact local solver the new
    interior values are x_I = A_II^-1 (b_I - A_IB x_B), so the gather loads only the patch's boundary nodes (the
    interior enters the passes as zeros: inner rows load their two ends), the passes give b_I - A_IB x_B, and the
    update stores x_I instead of adding a correction to values it must first read. Same flops, fewer global loads.
  - The right-hand side b of the patches' interiors, in the way that measured fastest per case (vpatch_tuning.cuh): a
    few values per thread prefetched into registers at the start (VPTunePatchPrefetch()), asynchronous copies
    (cp.async) into its shared buffer issued at the start (VPTunePatchAsyncB(); double only: no conversion), or, after
    the residual's first passes, loads in batches whose latencies overlap (VPTunePatchBatchB()) or one at a time; or,
    fastest in most cases, no shared buffer at all: the x pass loads its row of b itself, the index work once per row
    (VPTunePatchRowB()).
  - The eigenvalue scaling by a reciprocal where that measured faster (VPTunePatchFastDiv()): no IEEE division's check
    and slow path.
  - Fused passes. The residual's last pass applies Shat^T along x in the same thread, the scaled pass along y
    applies Shat^T, the eigenvalue scaling and Shat in one thread.
  - Bank-conflict-free layouts. Each shared tensor has a layout (VPLay) chosen for the directions of the passes
    that read and write it, and for the line order of the kernel (VPOrder: which thread takes which line of which
    patch):
    grouped (LG = 1, 2, 4, ...): the lanes of a bank cycle (16 doubles, 32 floats) take LG consecutive lines of each
    of BC / LG consecutive patches; a patch stride of LG times an odd number puts the patches in distinct banks, and
    LG consecutive lines of a patch start in distinct banks modulo LG: conflict-free in every pass. LG = 1 is patch
    fastest. The padding to whole groups leaves idle slots, so it is used where it measured faster (VPPatchOrder);
    lexicographic: lines within a patch, then the patch; the start addresses of the lines of a (half-)warp fall in
    distinct banks if the plane stride is congruent to the row length modulo the bank count (for lines along y)
    and the patch stride matches the line count; the pass order (residual y, z, x; solve x, z, y, z, x) never
    pairs x and y on one tensor, so only plane and patch strides are padded. The patch stride can suit only one of
    the two passes on a tensor, so a (half-)warp that straddles two patches in the other pass can conflict.

  Residual passes (3D): P = Mhat_y G, Q = Khat_y G (interior y rows); W1 = Mhat_z P, W2 = c1 Mhat_z Q + c2 Khat_z P
  + cm W1 (interior z rows); r = b - (c0 Khat_x W1 + Mhat_x W2) (interior x rows). 2D: P, Q as above, then
  r = b - (c0 Khat_x P + Mhat_x (c1 Q + cm P)). With the weights of the operator (VPWeights: mass M + stiff K) the c_d
  carry stiff and cm = mass prod_e h_e; since S^T Mhat S = I, the mass term adds cm to every eigenvalue of the solve.
*/
#include <petscvpatch/private/vpcuda.cuh>
#include "vpatch_tuning.cuh"
#include <type_traits>
#include <cuda_pipeline.h>

/* ------------------------------------------------------------------------------------------------------------ */
/* Reference data per degree K = 1..VPATCH_MAX_DEGREE in constant memory. The 1D cell matrices C (Mhat, Khat:
   (K+1)^2) are symmetric under the reflection of the cell, C[K-b][K-a] = C[b][a], and the eigenvectors of the interior
   patch block come as K even ones, then K-1 odd ones (vpatch.c), so a 1D product can split into an even and an odd
   half (the "even-odd decomposition"): fewer multiply-adds, some more additions, and fewer constants.
   - Patch matrices Mhat, Khat ((2K+1)^2, row-major, two cells of size 1), for the plain products (VPHatK::EOROWS).
   - Cell matrices C in even-odd form, with H = K/2 + 1 even and HO = (K+1)/2 odd indices: Ce (H x H),
     Ce[b][a] = (C[b][a] + C[b][K-a])/2 for a < HO and C[b][K/2] for a = K/2 (K even), applied to e[a] = v[a] + v[K-a]
     (e[K/2] = v[K/2]); Co (HO x HO), Co[b][a] = (C[b][a] - C[b][K-a])/2, applied to o[a] = v[a] - v[K-a]; then
     out[b] = Ce e + Co o and out[K-b] = Ce e - Co o. Mhat's Ce, Co, then Khat's.
   - Eigenvectors S ((2K-1)^2, center row K-1): Se (K x K), Se[i][j] = S[i][j] (rows up to the center, even columns);
     So ((K-1) x (K-1)), So[i][j] = S[i][K+j] (rows before the center, odd columns). (2K-1)^2 multiply-adds become
     K^2 + (K-1)^2 and 2(K-1) additions.
   - lamhat (2K-1), in the order of S's columns. */
__host__ __device__ constexpr int VPHatSize(int K)
{
  return 2 * (2 * K + 1) * (2 * K + 1) + 2 * ((K / 2 + 1) * (K / 2 + 1) + ((K + 1) / 2) * ((K + 1) / 2)) + K * K + (K - 1) * (K - 1) + (2 * K - 1);
}
__host__ __device__ constexpr int VPHatOffset(int K)
{
  int o = 0;
  for (int k = 1; k < K; k++) o += VPHatSize(k);
  return o;
}
#define VP_HAT_TOTAL VPHatOffset(VPATCH_MAX_DEGREE + 1)
/* entry i of the reference data as T: VPHat<T>(i); with i known at compile time a constant-bank operand */
VP_CONSTANT_TABLE(VPHat, VP_HAT_TOTAL);

template <int K, typename T> struct VPHatK {
  static constexpr int  NP = 2 * K + 1, NI = 2 * K - 1, H = K / 2 + 1, HO = (K + 1) / 2, OFF = VPHatOffset(K);
  static constexpr int  CELL = OFF + 2 * NP * NP, SE = CELL + 2 * (H * H + HO * HO), SO = SE + K * K, LAM = SO + (K - 1) * (K - 1);
  static constexpr bool EOROWS = VPTunePatchEvenOdd(K); /* vpatch_tuning.cuh */
  /* patch row r has nonzeros in the columns of the cells it belongs to */
  static __host__ __device__ constexpr bool nz(int r, int j)
  {
    return (r <= K && j <= K) || (r >= K && j >= K);
  }
  /* f(b, (C v)[b]) for b = 0..K, the cell matrix C = Mhat (MAT 0) or Khat (MAT 1), even-odd; each output handed on as
     soon as it is computed (b is a compile-time constant after unrolling) */
  template <int MAT, typename F> static __device__ __forceinline__ void cell(const T *v, F f)
  {
    constexpr int CE = CELL + MAT * (H * H + HO * HO), CO = CE + H * H;
    T             e[H], o[HO];
#pragma unroll
    for (int a = 0; a < HO; a++) {
      e[a] = v[a] + v[K - a];
      o[a] = v[a] - v[K - a];
    }
    if constexpr (K % 2 == 0) e[H - 1] = v[K / 2];
#pragma unroll
    for (int b = 0; b < H; b++) {
      T se = VPHat<T>(CE + b * H) * e[0];
#pragma unroll
      for (int a = 1; a < H; a++) se += VPHat<T>(CE + b * H + a) * e[a];
      if (b < HO) {
        T so = VPHat<T>(CO + b * HO) * o[0];
#pragma unroll
        for (int a = 1; a < HO; a++) so += VPHat<T>(CO + b * HO + a) * o[a];
        f(b, se + so);
        f(K - b, se - so);
      } else
        f(b, se); /* the middle node, K even */
    }
  }
  /* f(i, s) with s = row i + 1 of the patch matrix Mhat (MAT 0) or Khat (MAT 1) times the patch line v[NP], i < NI:
     by cells (nodes 0..K and K..2K) in even-odd form, or plain. STREAM (VPTunePatchStreamRows()): each row is handed to
     f as soon as it is computed, so that a caller that stores or accumulates it keeps no array of rows in registers;
     otherwise all rows are computed into an array first, then handed on in order (the register schedules differ, and
     each measured faster in some kernels) */
  template <int MAT, bool STREAM, typename F> static __device__ __forceinline__ void rows(const T *v, F f)
  {
    if constexpr (EOROWS && STREAM) {
      T mid = 0; /* row K: the last node of the first cell plus the first of the second */
      cell<MAT>(v, [&](int b, T s) {
        if (b == K)
          mid = s;
        else if (b > 0)
          f(b - 1, s);
      });
      cell<MAT>(v + K, [&](int b, T s) {
        if (b == 0)
          f(K - 1, mid + s);
        else if (b < K)
          f(K + b - 1, s);
      });
    } else if constexpr (EOROWS) {
      T a[K + 1], b[K + 1], out[NI];
      cell<MAT>(v, [&](int i, T s) { a[i] = s; });
      cell<MAT>(v + K, [&](int i, T s) { b[i] = s; });
#pragma unroll
      for (int i = 0; i < K - 1; i++) {
        out[i]     = a[i + 1];
        out[K + i] = b[i + 1];
      }
      out[K - 1] = a[K] + b[0];
#pragma unroll
      for (int i = 0; i < NI; i++) f(i, out[i]);
    } else {
      T out[NI];
#pragma unroll
      for (int i = 0; i < NI; i++) {
        T s = 0;
#pragma unroll
        for (int j = 0; j < NP; j++)
          if (nz(i + 1, j)) s += VPHat<T>(OFF + MAT * NP * NP + (i + 1) * NP + j) * v[j];
        if constexpr (STREAM)
          f(i, s);
        else
          out[i] = s;
      }
      if constexpr (!STREAM) {
#pragma unroll
        for (int i = 0; i < NI; i++) f(i, out[i]);
      }
    }
  }
  /* out = Shat^T v (TRANS) or Shat v, for lines of NI entries, even-odd */
  template <bool TRANS> static __device__ __forceinline__ void shat(const T *v, T *out)
  {
    if constexpr (TRANS) {
      T e[K], o[K > 1 ? K - 1 : 1];
#pragma unroll
      for (int i = 0; i < K - 1; i++) {
        e[i] = v[i] + v[NI - 1 - i];
        o[i] = v[i] - v[NI - 1 - i];
      }
      e[K - 1] = v[K - 1];
#pragma unroll
      for (int j = 0; j < K; j++) {
        T s = VPHat<T>(SE + j) * e[0];
#pragma unroll
        for (int i = 1; i < K; i++) s += VPHat<T>(SE + i * K + j) * e[i];
        out[j] = s;
      }
#pragma unroll
      for (int j = 0; j < K - 1; j++) {
        T s = VPHat<T>(SO + j) * o[0];
#pragma unroll
        for (int i = 1; i < K - 1; i++) s += VPHat<T>(SO + i * (K - 1) + j) * o[i];
        out[K + j] = s;
      }
    } else {
#pragma unroll
      for (int i = 0; i < K; i++) {
        T se = VPHat<T>(SE + i * K) * v[0];
#pragma unroll
        for (int j = 1; j < K; j++) se += VPHat<T>(SE + i * K + j) * v[j];
        if (i < K - 1) {
          T so = VPHat<T>(SO + i * (K - 1)) * v[K];
#pragma unroll
          for (int j = 1; j < K - 1; j++) so += VPHat<T>(SO + i * (K - 1) + j) * v[K + j];
          out[i]          = se + so;
          out[NI - 1 - i] = se - so;
        } else
          out[i] = se; /* the center */
      }
    }
  }
  static __device__ __forceinline__ T lam(int i)
  {
    return VPHat<T>(LAM + i);
  }
  /* the diagonal entry of the patch matrix Mhat (MAT 0) or Khat (MAT 1) at interior node i (patch row i + 1) */
  template <int MAT> static __device__ __forceinline__ T diag(int i)
  {
    return VPHat<T>(OFF + MAT * NP * NP + (i + 1) * (NP + 1));
  }
};

/* a / b for b > 0 by a reciprocal (VPTunePatchFastDiv()): single __fdividef (2 ulp); double the hardware's
   approximation refined by two Newton steps (the error squares in each: about 1 ulp), then one product */
__device__ __forceinline__ float VPDivFast(float a, float b)
{
  return __fdividef(a, b);
}
__device__ __forceinline__ double VPDivFast(double a, double b)
{
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(b));
  r = fma(r, fma(-b, r, 1.0), r);
  r = fma(r, fma(-b, r, 1.0), r);
  return a * r;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* shared-memory layouts */
__host__ __device__ constexpr int VPPadTo(int n, int r, int B)
{
  return n + (((r - n) % B) + B) % B; /* the least m >= n with m = r (mod B) */
}
__host__ __device__ constexpr int VPMax(int a, int b)
{
  return a > b ? a : b;
}

/* Line orders: which thread of a pass takes which line (or entry) of which patch. LG, a compile-time choice per
   dimension, degree and precision (VPPatchOrder):
   LG = 0, lexicographic: the lines of a patch, then the next patch.
   LG >= 1, grouped: the lanes of a bank cycle (BC: 16 doubles, a half-warp; 32 floats, a warp) take LG consecutive
   lines of each of QP = BC / LG consecutive patches (lane i + LG q'); LG = 1 is patch fastest. The lines of a patch are
   padded to a multiple of LG, the patches to a multiple of QP (idle slots). */
template <int LG, typename T> struct VPOrder {
  static constexpr int BC = 128 / (int)sizeof(T), QP = LG ? BC / LG : 1;
  static_assert(LG == 0 || (LG <= BC && BC % (LG ? LG : 1) == 0), "LG: a power of two up to the bank cycle");
  /* slots of a pass over NB patches of N items (lines or entries) each */
  static __host__ __device__ constexpr int slots(int NB, int N)
  {
    return LG ? (NB + QP - 1) / QP * ((N + LG - 1) / LG) * BC : NB * N;
  }
  /* slot t < slots(NB, N) -> patch q and item n; false for an idle slot. Divisions by compile-time constants only */
  template <int N> static __device__ __forceinline__ bool item(int t, int NB, int &q, int &n)
  {
    if constexpr (LG == 0) {
      q = t / N;
      n = t - q * N;
      return true;
    } else {
      constexpr int NG = (N + LG - 1) / LG;
      const int     r = t / BC, pg = r / NG;
      q = pg * QP + (t / LG) % QP;
      n = (r - pg * NG) * LG + t % LG;
      return n < N && q < NB;
    }
  }
};

/* Layout of NB tensors of extents E0 x E1 x E2 (x fastest): entry (x, y, z) of tensor q at q PS + x + y R + z P, R = E0.
   RD and WR: the directions of the line passes that read and write the tensor (-1: accessed entry by entry). B entries
   of T make one bank cycle. The padding makes every access of a pass conflict-free, in the line order LG:
   - Lexicographic (LG = 0): the starts of B consecutive lines are distinct modulo B when: along x, P = E1 R; along y,
     P = E0 (mod B); along z, always; across tensors the patch stride PS continues the sequence (congruences below).
     PS can suit only one of the two passes, so a (half-)warp that straddles two patches in the other pass can
     conflict; so can the entry-by-entry passes where P is padded.
   - Grouped (LG >= 1): the starts of LG consecutive lines are distinct modulo LG when P = E0 (mod LG) for lines along
     y (along x and z with R = E0 and P = E1 R, always), and PS = LG times an odd number puts the QP patches of a bank
     cycle in distinct residues: conflict-free in every direction. The entry-by-entry passes run over the tensor's
     addresses, padding included (VPForEntries), so they are conflict-free too.
   The pass order never asks for both x and y on one tensor. */
__host__ __device__ constexpr int VPGroupStride(int n, int LG)
{
  return ((n + LG - 1) / LG) % 2 ? (n + LG - 1) / LG * LG : ((n + LG - 1) / LG + 1) * LG; /* the least m >= n, m / LG odd */
}
template <int E0_, int E1_, int E2_, int RD, int WR, int LG_, typename T> struct VPLay {
  using Type               = T;
  static constexpr int  E0 = E0_, E1 = E1_, E2 = E2_, B = 128 / (int)sizeof(T), LG = LG_;
  static constexpr bool Y = E2 > 1 && (RD == 1 || WR == 1);
  static constexpr int  D = RD >= 0 ? RD : WR;
  static constexpr int  R = E0, P = Y ? VPPadTo(E0 * E1, E0, LG ? LG : B) : E0 * E1;
  static constexpr int  PS = LG ? VPGroupStride(P * E2, LG) : VPPadTo(P * E2, D == 1 ? E0 * E2 : (D == 2 ? E0 * E1 : P * E2), B);
  static constexpr int  NE = LG ? P * E2 : E0 * E1 * E2; /* items of an entry-by-entry pass */
  static_assert(LG == 1 || !((RD == 0 && WR == 1) || (RD == 1 && WR == 0)) || E2 == 1, "a 3D tensor read and written along x and y");
  /* start of line (a0, a1) along DIR of tensor q, and the stride along the line */
  template <int DIR> static __device__ __forceinline__ int line(int q, int a0, int a1)
  {
    return q * PS + (DIR == 0 ? a0 * R + a1 * P : (DIR == 1 ? a0 + a1 * P : a0 + a1 * R));
  }
  template <int DIR> static __host__ __device__ constexpr int stride()
  {
    return DIR == 0 ? 1 : (DIR == 1 ? R : P);
  }
  static __device__ __forceinline__ int at(int q, int x, int y, int z)
  {
    return q * PS + x + y * R + z * P;
  }
  /* item n of an entry-by-entry pass -> (x, y, z); false on padding */
  static __device__ __forceinline__ bool entry(int n, int &x, int &y, int &z)
  {
    if constexpr (LG) {
      z           = n / P;
      const int r = n - z * P;
      y           = r / R;
      x           = r - y * R;
      return y < E1;
    } else {
      x = n % E0;
      y = (n / E0) % E1;
      z = n / (E0 * E1);
      return true;
    }
  }
};

/* The block's patches and threads: compile-time constants for the default block of a kernel where
   VPTunePatchStaticBlock() says so (CNB patches, CNT threads: the slot loops have fixed trip counts, are unrolled UNR
   times, and their index arithmetic folds), else nb_ patches and blockDim.x threads (always for a block of
   -pc_vpatch_patches_per_block) */
template <int CNB_, int CNT_, int UNR_ = 1> struct VPBlock {
  static constexpr int           CNB = CNB_, CNT = CNT_, UNR = UNR_; /* UNR: the unroll factor of the slot loops */
  int                            nb_;
  __device__ __forceinline__ int nb() const
  {
    if constexpr (CNB > 0)
      return CNB;
    else
      return nb_;
  }
  __device__ __forceinline__ unsigned nt() const /* unsigned as blockDim.x */
  {
    if constexpr (CNT > 0)
      return CNT;
    else
      return blockDim.x;
  }
};

/* calls f(q, n) for every item n < N of the block's patches q, one slot per thread in line order O (VPOrder), for a
   block of compile-time counts (BK::CNT > 0) */
template <class O, int N, class BK, typename F> __device__ __forceinline__ void VPForItemsStatic(F f)
{
  constexpr int NS = O::slots(BK::CNB, N), IT = (NS + BK::CNT - 1) / BK::CNT, UNR = BK::UNR;
#pragma unroll UNR
  for (int i = 0; i < IT; i++) {
    const int t = threadIdx.x + i * BK::CNT;
    int       q, n;
    if ((i < IT - 1 || t < NS) && O::template item<N>(t, BK::CNB, q, n)) f(q, n);
  }
}

/* calls f(q, a0, a1) for every line along DIR of the block's tensors of extents E0 x E1 x E2, one thread per line, in
   line order LG. The run-time branch (here and in VPForEntries) serves blocks of -pc_vpatch_patches_per_block, whose
   counts are known only at run time; the default block takes the branch of constants where VPTunePatchStaticBlock()
   says so. */
template <int DIR, int E0, int E1, int E2, int LG, typename T, class BK, typename F> __device__ __forceinline__ void VPForLines(const BK &bk, F f)
{
  using O          = VPOrder<LG, T>;
  constexpr int L0 = DIR == 0 ? E1 : E0, NL = L0 * (DIR == 2 ? E1 : E2);
  if constexpr (BK::CNT > 0)
    VPForItemsStatic<O, NL, BK>([&](int q, int l) { f(q, l % L0, l / L0); });
  else {
    const int NB = bk.nb();
    for (int t = threadIdx.x; t < O::slots(NB, NL); t += blockDim.x) {
      int q, l;
      if (O::template item<NL>(t, NB, q, l)) f(q, l % L0, l / L0);
    }
  }
}

/* entry-by-entry passes over NB tensors of layout L: slot t < VPEntrySlots<L>(NB) -> (q, x, y, z), false on an idle
   slot; VPForEntries calls f(q, x, y, z) for every entry */
template <class L> __device__ __forceinline__ bool VPEntry(int t, int NB, int &q, int &x, int &y, int &z)
{
  int n;
  return VPOrder<L::LG, typename L::Type>::template item<L::NE>(t, NB, q, n) && L::entry(n, x, y, z);
}
template <class L> __device__ __forceinline__ int VPEntrySlots(int NB)
{
  return VPOrder<L::LG, typename L::Type>::slots(NB, L::NE);
}
template <class L, class BK, typename F> __device__ __forceinline__ void VPForEntries(const BK &bk, F f)
{
  if constexpr (BK::CNT > 0)
    VPForItemsStatic<VPOrder<L::LG, typename L::Type>, L::NE, BK>([&](int q, int n) {
      int x, y, z;
      if (L::entry(n, x, y, z)) f(q, x, y, z);
    });
  else {
    const int NB = bk.nb();
    for (int t = threadIdx.x; t < VPEntrySlots<L>(NB); t += blockDim.x) {
      int q, x, y, z;
      if (VPEntry<L>(t, NB, q, x, y, z)) f(q, x, y, z);
    }
  }
}
/* out = Shat (Shat^T when TRANS) along DIR of NB tensors of (2K-1)^2 x NIZ entries: input layout LI, output layout LO */
template <int DIR, bool TRANS, class LI, class LO, int K, int NIZ, typename T, class BK> __device__ __forceinline__ void VPShatPass(const BK &bk, const T *in, T *out)
{
  constexpr int NI = 2 * K - 1;
  static_assert(LI::LG == LO::LG, "one line order per kernel");
  VPForLines<DIR, NI, NI, NIZ, LI::LG, T>(bk, [&](int q, int a0, int a1) {
    T         v[NI], u[NI];
    const int o = LI::template line<DIR>(q, a0, a1), w = LO::template line<DIR>(q, a0, a1);
#pragma unroll
    for (int j = 0; j < NI; j++) v[j] = in[o + j * LI::template stride<DIR>()];
    VPHatK<K, T>::template shat<TRANS>(v, u);
#pragma unroll
    for (int i = 0; i < NI; i++) out[w + i * LO::template stride<DIR>()] = u[i];
  });
}

#define VP_PATCH_THREADS 320 /* threads per block at most */

template <int DIM, int K, typename T> struct VPPatchInPlace { /* W1 and W2 over P and Q: vpatch_tuning.cuh */
  static constexpr bool value = VPTunePatchInPlace(DIM, K, (int)sizeof(T));
};

/* the tensors of one patch and where they live, for a line order LG (VPOrder, VPLay): X0 (gathered patch, then W1 and
   W2, or with INPLACE the residual), X1a and X1b */
template <int DIM, int K, int LG_, typename T> struct VPPatchTensors {
  static constexpr int  LG      = LG_;
  static constexpr bool INPLACE = VPPatchInPlace<DIM, K, T>::value;
  static constexpr bool DIRECT  = VPTunePatchDirectY(DIM, K, (int)sizeof(T)); /* the y pass reads x itself: no G */
  static constexpr int  NP = 2 * K + 1, NI = 2 * K - 1, NPZ = DIM == 3 ? NP : 1, NIZ = DIM == 3 ? NI : 1;
  static constexpr int  NPT = NP * NP * NPZ, NIT = NI * NI * NIZ;
  using G                  = VPLay<NP, NP, NPZ, 1, -1, LG, T>;               /* gathered patch, read along y */
  using PQ                 = VPLay<NP, NI, NPZ, DIM == 3 ? 2 : 0, 1, LG, T>; /* Mhat_y G, Khat_y G */
  using W                  = VPLay<NP, NI, NI, 0, 2, LG, T>;                 /* 3D: after the z pass */
  using R1                 = VPLay<NI, NI, NIZ, DIM == 3 ? 2 : 1, 0, LG, T>; /* b, then Shat_x^T r */
  using U2                 = VPLay<NI, NI, NI, 1, 2, LG, T>;                 /* 3D: after Shat_z^T */
  using U3                 = VPLay<NI, NI, NIZ, DIM == 3 ? 2 : 0, 1, LG, T>; /* after the scaled y pass */
  using U4                 = VPLay<NI, NI, NI, 0, 2, LG, T>;                 /* 3D: after Shat_z */
  using U5                 = VPLay<NI, NI, NIZ, -1, 0, LG, T>;               /* after Shat_x, read entry by entry */
  static constexpr int GPS = DIRECT ? 0 : G::PS;
  static constexpr int X0  = DIM == 3 ? (INPLACE ? VPMax(GPS, R1::PS) : VPMax(GPS, 2 * W::PS)) : VPMax(VPMax(GPS, R1::PS), U5::PS);
  static constexpr int X1  = DIM == 3 ? VPMax(VPMax(VPMax(PQ::PS, INPLACE ? 0 : R1::PS), VPMax(U2::PS, U3::PS)), VPMax(U4::PS, U5::PS)) : VPMax(PQ::PS, U3::PS);
  static constexpr int LAM = 32; /* room for lamhat, before X0 */
  /* bytes before lamhat: each patch's first local index and boundary flags (VPPatchInfo) */
  static __host__ __device__ constexpr size_t info(int nb)
  {
    return ((size_t)nb * (sizeof(PetscInt) + sizeof(int)) + 15) / 16 * 16;
  }
  static constexpr size_t smem(int nb)
  {
    return info(nb) + sizeof(T) * (LAM + (size_t)nb * (X0 + 2 * X1));
  }
};

/* Line order (VPOrder) per dimension, degree and precision: VPTunePatchLineGroup() (vpatch_tuning.cuh).
   VP_PATCH_QP_3D (vpmeasure.cuh) forces, on 3D k = 2..5, the grouped order of QP = VP_PATCH_QP_3D patches per bank
   cycle where QP patches take at most 96 KB of shared memory, or the lexicographic order if negative. */
template <int DIM, int K, typename T> struct VPPatchOrder {
  static constexpr int  BC = 128 / (int)sizeof(T), QPF = VP_PATCH_QP_3D > 0 && VP_PATCH_QP_3D <= BC ? VP_PATCH_QP_3D : 1;
  static constexpr bool forced = VP_PATCH_QP_3D != 0 && DIM == 3 && K >= 2 && K <= 5 && VPPatchTensors<DIM, K, BC / QPF, T>::smem(QPF) <= 98304;
  static constexpr int  defval = VPTunePatchLineGroup(DIM, K, (int)sizeof(T)); /* vpatch_tuning.cuh */
  static constexpr int  value  = forced ? (VP_PATCH_QP_3D > 0 ? BC / QPF : 0) : defval;
};
#define VP_SM_SHARED 233472 /* bytes of shared memory per SM (H100, H200; elsewhere only the defaults below change); each block also takes 1 KB of it */
/* the most patches, up to want, whose block leaves room for `blocks` blocks per SM */
template <class B> constexpr int VPPatchFit(int want, int blocks)
{
  int nb = want;
  while (nb > 1 && B::smem(nb) + 1024 > (size_t)(VP_SM_SHARED / blocks)) nb--;
  return nb;
}
/* Patches per block (NB): about 256 lines of work, at most 64; in a grouped order (LG >= 1) the multiple of QP
   nearest to that */
template <int DIM, int K, typename T> struct VPPatchShape : VPPatchTensors<DIM, K, VPPatchOrder<DIM, K, T>::value, T> {
  using Base                 = VPPatchTensors<DIM, K, VPPatchOrder<DIM, K, T>::value, T>;
  using Order                = VPOrder<Base::LG, T>;
  static constexpr int LINES = Base::NP * Base::NPZ; /* most lines of a pass, per patch */
  static constexpr int QP = Order::QP, WANT = 256 / LINES > 64 ? 64 : (256 / LINES > 0 ? 256 / LINES : 1);
  static constexpr int NBR = (WANT + QP / 2) / QP * QP < QP ? QP : (WANT + QP / 2) / QP * QP;
  /* Where WANT patches need more than half of an SM's shared memory, one block (8 warps) would run per SM: then as
     many as leave room for 4 blocks (only 2D k = 10 in double; 64M DoF: 5 patches 8.19 GDoF/s against 4.69 with 12) */
  static constexpr int NBW = Base::smem(WANT) + 1024 > VP_SM_SHARED / 2 ? VPPatchFit<Base>(WANT, 4) : WANT;
  static constexpr int NB  = Base::LG ? NBR : NBW; /* default patches per block */
  /* threads per block for NB patches: one per slot of the pass with the most lines, at most VP_PATCH_THREADS */
  static __host__ __device__ constexpr int threads(int nb)
  {
    return (Order::slots(nb, LINES) + 31) / 32 * 32 > VP_PATCH_THREADS ? VP_PATCH_THREADS : (Order::slots(nb, LINES) + 31) / 32 * 32;
  }
  static constexpr int THREADS = threads(NB);
};

/* Register cap per thread: the registers that let as many blocks run per SM as shared memory and threads allow (the
   occupancy bound), or, where that is 200 or more or VPTunePatchLaunchBound() says so (vpatch_tuning.cuh), the launch
   bound of VP_PATCH_THREADS threads */
template <int DIM, int K, typename T> struct VPPatchRegs {
  using S                       = VPPatchShape<DIM, K, T>;
  static constexpr size_t SMEM  = S::smem(S::NB) + 1024;                                /* per block, with the system's share */
  static constexpr int    BSMEM = (int)(VP_SM_SHARED / SMEM), BTHR = 2048 / S::THREADS; /* blocks per SM that shared memory and threads allow */
  static constexpr int    BLOCKS = BSMEM < BTHR ? BSMEM : BTHR;
  static constexpr int    CAP    = 65536 / (BLOCKS * S::THREADS) / 8 * 8;          /* the registers that still allow BLOCKS */
  static constexpr bool   LB     = VPTunePatchLaunchBound(DIM, K, (int)sizeof(T)); /* vpatch_tuning.cuh */
  static constexpr int    value  = LB || CAP >= 200 ? 0 : CAP;
};

/* patch number p of this color -> vertex coordinates */
__device__ __forceinline__ void VPDVertex(int p, int vlo0, int vlo1, int vlo2, int nv0, int nv1, int &vx, int &vy, int &vz)
{
  vx = vlo0 + 2 * (p % nv0);
  vy = vlo1 + 2 * ((p / nv0) % nv1);
  vz = vlo2 + 2 * (p / (nv0 * nv1));
}

/* Per patch of a block, computed once by one thread (runtime divisions and 64-bit index arithmetic per node were
   most of the integer work: ncu, 3D k = 3 single, found the integer pipe the busiest): base, the local index of the
   patch's first node (its lower corner); flags, VPDBoxFlags of the patch, or -1: no patch (past the color's last). */
template <int DIM, int K, class BK> __device__ __forceinline__ void VPPatchInfo(const VPGrid &g, int npatch, int vlo0, int vlo1, int vlo2, int nv0, int nv1, const BK &bk, PetscInt *base, int *flags)
{
  const int NB = bk.nb();
  for (int q = threadIdx.x; q < NB; q += blockDim.x) {
    const int p = blockIdx.x * NB + q;
    int       vx, vy, vz, f = -1;
    PetscInt  o = 0;
    if (p < npatch) {
      VPDVertex(p, vlo0, vlo1, vlo2, nv0, nv1, vx, vy, vz);
      const int px = vx * K - K, py = vy * K - K, pz = DIM == 3 ? vz * K - K : 0;
      o = VPDLocalIndex(g, px, py, pz);
      f = VPDBoxFlags(g, 2 * K + 1, px, py, pz);
    }
    base[q]  = o;
    flags[q] = f;
  }
}

/* whether the fused kernel skips the gather and the residual of a color from x = 0: it needs the reduced residual (the
   kernel's VPPatchBody() and the flop count of VPPatchZeroFirst_CUDA() both ask this) */
__host__ __device__ constexpr bool VPPatchSkipsZero(int dim, int k, int bytes)
{
  return VPTunePatchBoundary(dim, k, bytes) && VPTunePatchZeroFirst(dim, k, bytes);
}

enum {
  VP_MODE_FUSED,         /* localized residual and local solve */
  VP_MODE_RESIDUAL,      /* localized residual only, into scratch */
  VP_MODE_SOLVE_SCRATCH, /* local solve of the residuals in scratch */
  VP_MODE_SOLVE_GLOBAL   /* local solve of the residual b (a ghosted global residual) */
};

/* pg, alo, anv: the per-vertex surrogate factors (mode global on a mapped DMQBOX, else NULL) and this rank's vertex box
   (VPPatchVertexBox()) that indexes them; dg, damp: the local solver scaled (VPPatchScaling), else NULL; pw: NULL, or
   per vertex the damping of its patch, in place of damp */
#define VP_PATCH_ARGS_DECL                                                                                                                                                                                                   \
  VPGrid g, T c0, T c1, T c2, T cm, int npatch, int vlo0, int vlo1, int vlo2, int nv0, int nv1, const PetscScalar *__restrict__ b, const PetscScalar *x, PetscScalar *d, PetscScalar *__restrict__ scratch, const int nbarg, \
      const PetscReal *__restrict__ pg, const PetscReal *__restrict__ pm, int alo0, int alo1, int alo2, int anv0, int anv1, int xzero, const PetscScalar *__restrict__ dg, T damp, const PetscReal *__restrict__ pw
#define VP_PATCH_ARGS g, c0, c1, c2, cm, npatch, vlo0, vlo1, vlo2, nv0, nv1, b, x, d, scratch, nbarg, pg, pm, alo0, alo1, alo2, anv0, anv1, xzero, dg, damp, pw

/* Patch p's own surrogate factors (q0, q1, q2) and mass term (qm) where the level has them (mode global on a mapped
   box: pg, pm per vertex of this rank's vertex box alo, anv); otherwise, and for the idle slots past npatch, the values
   are left as they are (the level's weights) */
template <int MODE, typename T>
__device__ __forceinline__ void VPPatchOwnFactors(int p, int npatch, int vlo0, int vlo1, int vlo2, int nv0, int nv1, const PetscReal *pg, const PetscReal *pm, int alo0, int alo1, int alo2, int anv0, int anv1, T &q0, T &q1, T &q2, T &qm)
{
  if (MODE == VP_MODE_SOLVE_GLOBAL && pg && p < npatch) {
    int vx, vy, vz;
    VPDVertex(p, vlo0, vlo1, vlo2, nv0, nv1, vx, vy, vz);
    const size_t     iv = ((size_t)(vz - alo2) * (size_t)anv1 + (size_t)(vy - alo1)) * (size_t)anv0 + (size_t)(vx - alo0); /* past 2^31 vertices at k = 1 */
    const PetscReal *gp = pg + 3 * iv;
    q0                  = (T)gp[0];
    q1                  = (T)gp[1];
    q2                  = (T)gp[2];
    if (pm) qm = (T)pm[iv];
  }
}

/* The local solver scaled (mode global on a mapped box): each patch solves Dsc Atilde^-1 Dsc with the scaling
   Dsc = (Dt / D)^1/2, Atilde the patch's separable surrogate, Dt its diagonal (from the unit patch's 1D diagonals) and
   D the operator's (dg, ghosted), and its correction is damped by damp (pw: by its own). The per-patch data the phases
   need for it */
struct VPPatchScaling {
  const PetscReal   *pg, *pm, *pw;
  const PetscScalar *dg;
  int                npatch, vlo0, vlo1, vlo2, nv0, nv1, alo0, alo1, alo2, anv0, anv1;
};

/* Dt = ak Khat_x + am Mhat_x along the interior x row (., iy, iz) of patch p */
template <int DIM, int K, typename T> __device__ __forceinline__ void VPPatchScaleRow(const VPPatchScaling &s, int p, int iy, int iz, T &ak, T &am)
{
  using H = VPHatK<K, T>;
  T q0 = 0, q1 = 0, q2 = 0, qm = 0;
  VPPatchOwnFactors<VP_MODE_SOLVE_GLOBAL, T>(p, s.npatch, s.vlo0, s.vlo1, s.vlo2, s.nv0, s.nv1, s.pg, s.pm, s.alo0, s.alo1, s.alo2, s.anv0, s.anv1, q0, q1, q2, qm);
  const T my = H::template diag<0>(iy), ky = H::template diag<1>(iy), mz = DIM == 3 ? H::template diag<0>(iz) : (T)1, kz = DIM == 3 ? H::template diag<1>(iz) : (T)0;
  ak = q0 * my * mz;
  am = q1 * ky * mz + (q2 * kz + qm * mz) * my;
}
/* (Dt / D)^1/2 at entry ix of such a row, D the operator's diagonal there */
template <int K, typename T> __device__ __forceinline__ T VPPatchScaleAt(T ak, T am, int ix, PetscScalar D)
{
  using H = VPHatK<K, T>;
  return sqrt((ak * H::template diag<1>(ix) + am * H::template diag<0>(ix)) / (T)D);
}

/* patch p's own damping (pw per vertex of the box alo, anv) */
template <typename T> __device__ __forceinline__ T VPPatchOwnDamping(const VPPatchScaling &s, int p)
{
  int vx, vy, vz;
  VPDVertex(p, s.vlo0, s.vlo1, s.vlo2, s.nv0, s.nv1, vx, vy, vz);
  return (T)s.pw[((size_t)(vz - s.alo2) * (size_t)s.anv1 + (size_t)(vy - s.alo1)) * (size_t)s.anv0 + (size_t)(vx - s.alo0)];
}

/* v = the line along DIR (0: x, 1: y) of a patch box from x, at the other two box coordinates (e0, e1) = (y, z) or
   (x, z): zero on the box's Dirichlet faces (f: VPDBoxFlags(); f < 0: no patch), and with the reduced residual (BND) an
   inner line loads only its two ends */
template <int DIR, int NP, int NPZ, bool BND, typename T> __device__ __forceinline__ void VPPatchLoadLine(const PetscScalar *x, int f, PetscInt base, int e0, int e1, int sy, int sz, T *v)
{
  constexpr int ACROSS = DIR == 0 ? ~3 : ~12, LO = DIR == 0 ? 1 : 4, HI = DIR == 0 ? 2 : 8; /* the faces across the line; its ends' */
  const bool    inner = BND && e0 > 0 && e0 < NP - 1 && (NPZ == 1 || (e1 > 0 && e1 < NP - 1));
  if (f < 0 || (DIR == 0 ? VPDBoxOnFace(f & ACROSS, 0, e0, e1, NP - 1, NP - 1, NP - 1) : VPDBoxOnFace(f & ACROSS, e0, 1, e1, NP - 1, NP - 1, NP - 1))) {
#pragma unroll
    for (int j = 0; j < NP; j++) v[j] = 0;
  } else {
    const PetscScalar *xl = x + base + ((DIR == 0 ? e0 * sy : e0) + e1 * sz);
    const int          st = DIR == 0 ? 1 : sy;
#pragma unroll
    for (int j = 0; j < NP; j++) v[j] = inner && j > 0 && j < NP - 1 ? (T)0 : (T)xl[j * st];
    if (f & LO) v[0] = 0;
    if (f & HI) v[NP - 1] = 0;
  }
}

/* The fused kernel's plan: its compile-time choices (vpatch_tuning.cuh), shared by its phases below */
template <int DIM, int K, int MODE, typename T> struct VPPatchPlan {
  using S                  = VPPatchShape<DIM, K, T>;
  static constexpr int  B  = (int)sizeof(T);
  static constexpr bool SR = VPTunePatchStreamRows(DIM, K, B); /* VPHatK::rows(): streamed or buffered */
  /* Prefetch of b (VPTunePatchPrefetch()): a thread's few values of the block's right-hand side (PRE, for the default
     block) are loaded into registers at the start and stored into Rb after the residual's first passes, so that the
     loads' latency hides behind the gather and the y and z passes */
  static constexpr int PRE = (VPOrder<S::LG, T>::slots(S::NB, S::R1::NE) + S::THREADS - 1) / S::THREADS;
  /* b by rows in the x pass (VPTunePatchRowB()): no fill of Rb */
  static constexpr bool ROWB   = MODE != VP_MODE_SOLVE_SCRATCH && VPTunePatchRowB(DIM, K, B);
  static constexpr bool CANPRE = !ROWB && MODE != VP_MODE_SOLVE_SCRATCH && PRE <= 4 && VPTunePatchPrefetch(DIM, K, B);
  /* Asynchronous copy of b (VPTunePatchAsyncB()): where the arithmetic is the vectors' own (no conversion) and the
     residual's passes leave Rb alone until it is filled (2D, and 3D with the y pass from x and W1, W2 in place: Rb is
     X0, which then holds nothing else before), the copies into Rb start at once and complete during the residual's
     passes, holding no registers */
  static constexpr bool ASYNCB = !ROWB && MODE != VP_MODE_SOLVE_SCRATCH && !CANPRE && std::is_same<T, PetscScalar>::value && (DIM == 2 || (S::INPLACE && S::DIRECT)) && VPTunePatchAsyncB(DIM, K, B);
  /* the reduced local residual (VPTunePatchBoundary()): the interior of G is zero, so the passes give b_I - A_IB x_B
     and the solve x_I itself */
  static constexpr bool BND = MODE == VP_MODE_FUSED && VPTunePatchBoundary(DIM, K, B);
  /* b otherwise: a thread's values in batches of UB, the loads of a batch in flight together (VPTunePatchBatchB()) */
  static constexpr int UB = VP_PATCH_B_BATCH > 0 ? VP_PATCH_B_BATCH : (!VPTunePatchBatchB(DIM, K, B) || PRE < 1 ? 1 : (PRE > 8 ? 8 : PRE));
};

/* The block's data as the phases see it (VPPatchBody() makes it): the block (its patches NB, a constant in the default
   block), each patch's base index and boundary flags, lamhat and the tensors X0, X1a, X1b in shared memory
   (VPPatchTensors); Rb is the residual's tensor (2D and INPLACE: X0, since the x pass reads from X1) */
template <int DIM, int K, typename T, class BK> struct VPPatchSmem {
  const BK &bk;
  const int NB; /* a constant in the default block */
  PetscInt *pbase;
  int      *pflags;
  T        *lam, *X0, *X1a, *X1b, *Rb;
  const int sy, sz, in; /* local index strides; offset of the first interior node from a patch's base */
};

/* Each phase starts by unpacking the block's data into locals, which its lambdas capture, and VPPatchBody() computes
   those values as locals before it fills the struct: so every kernel compiles to the same machine code as the body
   in one piece did (checked kernel by kernel on the SASS). Lambdas that captured the struct itself, or a struct that
   computed its values in a constructor, compiled to other code, and some kernels ran 3-9% slower (2D double k = 2..5).
   interior(q, ix, iy, iz): the local index of interior entry (ix, iy, iz) of patch q (b, and x to store into) */
#define VP_PATCH_UNPACK(s)                                                                                                    \
  const auto &bk     = (s).bk;                                                                                                \
  const int   NB     = (s).NB;                                                                                                \
  PetscInt   *pbase  = (s).pbase;                                                                                             \
  int        *pflags = (s).pflags;                                                                                            \
  T          *lam = (s).lam, *X0 = (s).X0, *X1a = (s).X1a, *X1b = (s).X1b, *Rb = (s).Rb;                                      \
  const int   sy = (s).sy, sz = (s).sz, in = (s).in;                                                                          \
  const auto  interior = [&](int q, int ix, int iy, int iz) -> PetscInt { return pbase[q] + (in + ix + iy * sy + iz * sz); }; \
  (void)bk, (void)NB, (void)pbase, (void)pflags, (void)lam, (void)X0, (void)X1a, (void)X1b, (void)Rb, (void)interior

/* Phase 1, b in flight: the prefetch into registers (bpre) or the asynchronous copies into Rb */
template <int DIM, int K, int MODE, typename T, class BK, int NPRE> __device__ __forceinline__ void VPPatchBStart(const VPPatchSmem<DIM, K, T, BK> &s, const PetscScalar *b, bool pre, T (&bpre)[NPRE])
{
  VP_PATCH_UNPACK(s);
  using P  = VPPatchPlan<DIM, K, MODE, T>;
  using R1 = typename P::S::R1;
  if (P::CANPRE && pre) {
#pragma unroll
    for (int j = 0; j < P::PRE; j++) {
      int q, ix, iy, iz;
      bpre[j]     = 0;
      const int t = threadIdx.x + j * bk.nt();
      if (t < VPEntrySlots<R1>(NB) && VPEntry<R1>(t, NB, q, ix, iy, iz) && pflags[q] >= 0) bpre[j] = (T)b[interior(q, ix, iy, iz)];
    }
  }
  if constexpr (P::ASYNCB) {
    VPForEntries<R1>(bk, [&](int q, int ix, int iy, int iz) {
      T *dst = Rb + R1::at(q, ix, iy, iz);
      if (pflags[q] >= 0)
        __pipeline_memcpy_async(dst, b + interior(q, ix, iy, iz), sizeof(T));
      else
        *dst = 0;
    });
    __pipeline_commit();
  }
}

/* Phase 2, the residual's passes along y and z: the gather of the patch (G, unless the y pass loads x itself), then
   P = Mhat_y G, Q = Khat_y G on the interior y rows, then (3D) W1 = Mhat_z P, W2 = c1 Mhat_z Q + c2 Khat_z P + cm W1 */
template <int DIM, int K, int MODE, typename T, class BK> __device__ __forceinline__ void VPPatchResidualYZ(const VPPatchSmem<DIM, K, T, BK> &s, const PetscScalar *x, T c1, T c2, T cm)
{
  VP_PATCH_UNPACK(s);
  using P           = VPPatchPlan<DIM, K, MODE, T>;
  using S           = typename P::S;
  using H           = VPHatK<K, T>;
  using G           = typename S::G;
  using PQ          = typename S::PQ;
  using W           = typename S::W;
  constexpr int  NP = S::NP, NI = S::NI, NPZ = S::NPZ;
  constexpr bool SR = P::SR, BND = P::BND;
  /* gather the patch: G (not with the y pass from x itself, S::DIRECT) */
  constexpr bool ROWS = VPTunePatchGatherRows(DIM, K, (int)sizeof(T));
  if constexpr (S::DIRECT) {
    /* nothing to gather: the y pass loads x */
  } else if constexpr (ROWS) { /* one thread per row along x: its index work once per row */
    VPForLines<0, NP, NP, NPZ, S::LG, T>(bk, [&](int q, int ey, int ez) {
      const int o = G::template line<0>(q, ey, ez);
      T         v[NP];
      VPPatchLoadLine<0, NP, NPZ, BND>(x, pflags[q], pbase[q], ey, ez, sy, sz, v);
#pragma unroll
      for (int j = 0; j < NP; j++) X0[o + j] = v[j];
    });
  } else
    VPForEntries<G>(bk, [&](int q, int ex, int ey, int ez) {
      const int  f     = pflags[q];
      T          v     = 0;
      const bool inner = BND && ex > 0 && ex < NP - 1 && ey > 0 && ey < NP - 1 && (NPZ == 1 || (ez > 0 && ez < NP - 1));
      if (f >= 0 && !inner && !VPDBoxOnBoundary<NP>(f, ex, ey, ez)) v = (T)x[pbase[q] + (ex + ey * sy + ez * sz)];
      X0[G::at(q, ex, ey, ez)] = v;
    });
  if constexpr (!S::DIRECT) __syncthreads();
  /* y pass: P = Mhat_y G, Q = Khat_y G on the interior y rows */
  VPForLines<1, NP, NP, NPZ, S::LG, T>(bk, [&](int q, int a0, int a1) {
    T         v[NP];
    const int w = PQ::template line<1>(q, a0, a1);
    if constexpr (S::DIRECT)
      VPPatchLoadLine<1, NP, NPZ, BND>(x, pflags[q], pbase[q], a0, a1, sy, sz, v); /* the line (a0, ., a1) from x */
    else {
      const int o = G::template line<1>(q, a0, a1);
#pragma unroll
      for (int j = 0; j < NP; j++) v[j] = X0[o + j * G::template stride<1>()];
    }
    H::template rows<0, SR>(v, [&](int i, T t) { X1a[w + i * PQ::template stride<1>()] = t; });
    H::template rows<1, SR>(v, [&](int i, T t) { X1b[w + i * PQ::template stride<1>()] = t; });
  });
  __syncthreads();
  if constexpr (DIM == 3) { /* z pass: W1 = Mhat_z P, W2 = c1 Mhat_z Q + c2 Khat_z P, in X0 or (INPLACE) over P and Q */
    using WL = typename std::conditional<S::INPLACE, PQ, W>::type;
    T *W1 = S::INPLACE ? X1a : X0, *W2 = S::INPLACE ? X1b : X0 + NB * W::PS;
    VPForLines<2, NP, NI, NP, S::LG, T>(bk, [&](int q, int a0, int a1) {
      T         v[NP]; /* one line in registers at a time: Q's, then P's (each read before its line is overwritten) */
      const int o = PQ::template line<2>(q, a0, a1), w = WL::template line<2>(q, a0, a1);
#pragma unroll
      for (int j = 0; j < NP; j++) v[j] = X1b[o + j * PQ::template stride<2>()];
      H::template rows<0, SR>(v, [&](int i, T t) { W2[w + i * WL::template stride<2>()] = c1 * t; });
#pragma unroll
      for (int j = 0; j < NP; j++) v[j] = X1a[o + j * PQ::template stride<2>()];
      H::template rows<0, SR>(v, [&](int i, T t) {
        W1[w + i * WL::template stride<2>()] = t;
        W2[w + i * WL::template stride<2>()] += cm * t; /* the mass term */
      });
      H::template rows<1, SR>(v, [&](int i, T t) { W2[w + i * WL::template stride<2>()] += c2 * t; });
    });
    __syncthreads();
  }
}

/* Phase 3, the right-hand side of the patch problems (b on the interior, or the residuals) into Rb; with ROWB the x
   pass loads b itself */
template <int DIM, int K, int MODE, typename T, class BK, int NPRE> __device__ __forceinline__ void VPPatchFillB(const VPPatchSmem<DIM, K, T, BK> &s, const PetscScalar *b, const PetscScalar *scratch, bool pre, const T (&bpre)[NPRE])
{
  VP_PATCH_UNPACK(s);
  using P          = VPPatchPlan<DIM, K, MODE, T>;
  using R1         = typename P::S::R1;
  constexpr int NI = P::S::NI, NIT = P::S::NIT;
  if constexpr (P::ROWB) {
    /* nothing to fill */
  } else if constexpr (P::ASYNCB)
    __pipeline_wait_prior(0); /* this thread's copies; the barrier below makes all of them visible */
  else if (P::CANPRE && pre) {
#pragma unroll
    for (int j = 0; j < P::PRE; j++) {
      const int t = threadIdx.x + j * bk.nt();
      int       q, ix, iy, iz;
      if (t < VPEntrySlots<R1>(NB) && VPEntry<R1>(t, NB, q, ix, iy, iz)) Rb[R1::at(q, ix, iy, iz)] = bpre[j];
    }
  } else {
    constexpr int UB     = P::UB;
    const int     nslots = VPEntrySlots<R1>(NB);
    for (int t0 = threadIdx.x; t0 < nslots; t0 += UB * bk.nt()) {
      T   v[UB];
      int at[UB];
#pragma unroll
      for (int u = 0; u < UB; u++) {
        const int t = t0 + u * (int)bk.nt();
        int       q, ix, iy, iz;
        v[u]  = 0;
        at[u] = -1;
        if (t < nslots && VPEntry<R1>(t, NB, q, ix, iy, iz)) {
          at[u] = R1::at(q, ix, iy, iz);
          if (pflags[q] >= 0) {
            if (MODE == VP_MODE_SOLVE_SCRATCH)
              v[u] = (T)scratch[(PetscInt)(blockIdx.x * NB + q) * NIT + (ix + NI * (iy + NI * iz))];
            else
              v[u] = (T)b[interior(q, ix, iy, iz)];
          }
        }
      }
#pragma unroll
      for (int u = 0; u < UB; u++)
        if (at[u] >= 0) Rb[at[u]] = v[u];
    }
  }
  if constexpr (!P::ROWB) __syncthreads();
}

/* Phase 4, the x pass: r = b - A x on the interior x rows (fused, residual), then Shat_x^T r (fused, solve), in place
   in Rb */
template <int DIM, int K, int MODE, typename T, class BK> __device__ __forceinline__ void VPPatchResidualX(const VPPatchSmem<DIM, K, T, BK> &s, const PetscScalar *b, bool zero, T c0, T c1, T cm, const VPPatchScaling &sc)
{
  VP_PATCH_UNPACK(s);
  using P           = VPPatchPlan<DIM, K, MODE, T>;
  using S           = typename P::S;
  using H           = VPHatK<K, T>;
  using R1          = typename S::R1;
  using PQ          = typename S::PQ;
  using W           = typename S::W;
  constexpr int  NP = S::NP, NI = S::NI, NIZ = S::NIZ;
  constexpr bool SR = P::SR;
  VPForLines<0, NI, NI, NIZ, S::LG, T>(bk, [&](int q, int a0, int a1) {
    T         r[NI], t[NI];
    const int o = R1::template line<0>(q, a0, a1);
    if constexpr (P::ROWB) { /* the row (., a0, a1) of the interior's b */
      const bool         live = pflags[q] >= 0;
      const PetscScalar *bl   = b + (live ? interior(q, 0, a0, a1) : 0);
#pragma unroll
      for (int i = 0; i < NI; i++) r[i] = live ? (T)bl[i] : (T)0;
    } else {
#pragma unroll
      for (int i = 0; i < NI; i++) r[i] = Rb[o + i];
    }
    if ((MODE == VP_MODE_FUSED || MODE == VP_MODE_RESIDUAL) && !zero) {
      T              w[NP];                         /* W1's line, then W2's */
      constexpr bool INW = DIM == 3 && !S::INPLACE; /* W1 and W2 in X0 */
      const T       *V1 = INW ? X0 : X1a, *V2 = INW ? X0 + NB * W::PS : X1b;
      const T        a = c0, bb = DIM == 3 ? (T)1 : c1;
      const int      v = INW ? W::template line<0>(q, a0, a1) : PQ::template line<0>(q, a0, a1);
#pragma unroll
      for (int j = 0; j < NP; j++) w[j] = V1[v + j];
      H::template rows<1, SR>(w, [&](int i, T u) { r[i] -= a * u; });
      if constexpr (DIM == 2) { /* Mhat_x (c1 Q + cm P): the mass term */
#pragma unroll
        for (int j = 0; j < NP; j++) w[j] = bb * V2[v + j] + cm * w[j];
      } else {
#pragma unroll
        for (int j = 0; j < NP; j++) w[j] = V2[v + j];
      }
      H::template rows<0, SR>(w, [&](int i, T u) { r[i] -= u; });
    }
    if constexpr (MODE == VP_MODE_SOLVE_GLOBAL) { /* the local solver scaled: Dsc r */
      if (sc.dg && pflags[q] >= 0) {
        const PetscScalar *D = sc.dg + interior(q, 0, a0, a1);
        T                  ak, am;
        VPPatchScaleRow<DIM, K, T>(sc, blockIdx.x * NB + q, a0, a1, ak, am);
#pragma unroll
        for (int i = 0; i < NI; i++) r[i] *= VPPatchScaleAt<K, T>(ak, am, i, D[i]);
      }
    }
    if constexpr (MODE == VP_MODE_RESIDUAL) {
#pragma unroll
      for (int i = 0; i < NI; i++) Rb[o + i] = r[i];
    } else {
      H::template shat<true>(r, t);
#pragma unroll
      for (int i = 0; i < NI; i++) Rb[o + i] = t[i];
    }
  });
  __syncthreads();
}

/* Phase 5 of the residual mode: the residuals to scratch, entry by entry in its order, for coalesced stores */
template <int DIM, int K, int MODE, typename T, class BK> __device__ __forceinline__ void VPPatchStoreResidual(const VPPatchSmem<DIM, K, T, BK> &s, PetscScalar *scratch)
{
  VP_PATCH_UNPACK(s);
  using S          = VPPatchShape<DIM, K, T>;
  constexpr int NI = S::NI, NIT = S::NIT;
  for (int t = threadIdx.x; t < NB * NIT; t += bk.nt()) {
    const int q = t / NIT, e = t - q * NIT;
    if (pflags[q] >= 0) scratch[(PetscInt)(blockIdx.x * NB + q) * NIT + e] = Rb[S::R1::at(q, e % NI, (e / NI) % NI, e / (NI * NI))];
  }
}

/* Phase 5, the rest of the solve: (3D: Shat_z^T), Shat_y diag^-1 Shat_y^T, (3D: Shat_z), Shat_x. The eigenvalue
   scaling takes the patch's own surrogate factors where the level has them (pg, pm: mode global on a mapped box).
   Returns the tensor that holds the patch's correction (U5's layout) */
template <int DIM, int K, int MODE, typename T, class BK>
__device__ __forceinline__ T *VPPatchSolve(const VPPatchSmem<DIM, K, T, BK> &s, T c0, T c1, T c2, T cm, int npatch, int vlo0, int vlo1, int vlo2, int nv0, int nv1, const PetscReal *pg, const PetscReal *pm, int alo0, int alo1, int alo2, int anv0,
                                           int anv1)
{
  VP_PATCH_UNPACK(s);
  using S          = VPPatchShape<DIM, K, T>;
  using H          = VPHatK<K, T>;
  using R1         = typename S::R1;
  using U2         = typename S::U2;
  using U3         = typename S::U3;
  using U4         = typename S::U4;
  using U5         = typename S::U5;
  constexpr int NI = S::NI, NIZ = S::NIZ;
  T            *Y = Rb;                                                   /* input of the scaled y pass */
  T            *A = S::INPLACE ? X1a : X1b, *Bf = S::INPLACE ? X1b : X1a; /* 3D: the buffers the solve passes alternate between */
  if constexpr (DIM == 3) {
    VPShatPass<2, true, R1, U2, K, NI, T>(bk, Rb, A);
    __syncthreads();
    Y = A;
  }
  T *Z = DIM == 3 ? Bf : X1a; /* output of the scaled y pass */
  VPForLines<1, NI, NI, NIZ, S::LG, T>(bk, [&](int q, int a0, int a1) {
    using LI = typename std::conditional<DIM == 3, U2, R1>::type;
    T         v[NI], u[NI];
    const int o = LI::template line<1>(q, a0, a1), w = U3::template line<1>(q, a0, a1);
    T         q0 = c0, q1 = c1, q2 = c2, qm = cm;
    VPPatchOwnFactors<MODE, T>(blockIdx.x * NB + q, npatch, vlo0, vlo1, vlo2, nv0, nv1, pg, pm, alo0, alo1, alo2, anv0, anv1, q0, q1, q2, qm);
    const T base = qm + q0 * lam[a0] + (DIM == 3 ? q2 * lam[a1] : (T)0);
#pragma unroll
    for (int j = 0; j < NI; j++) v[j] = Y[o + j * LI::template stride<1>()];
    H::template shat<true>(v, u);
#pragma unroll
    for (int i = 0; i < NI; i++) u[i] = VPTunePatchFastDiv(DIM, K, (int)sizeof(T)) ? VPDivFast(u[i], base + q1 * H::lam(i)) : u[i] / (base + q1 * H::lam(i));
    H::template shat<false>(u, v);
#pragma unroll
    for (int i = 0; i < NI; i++) Z[w + i * U3::template stride<1>()] = v[i];
  });
  __syncthreads();
  T *Xin = Z; /* input of the final x pass */
  if constexpr (DIM == 3) {
    VPShatPass<2, false, U3, U4, K, NI, T>(bk, Bf, A);
    __syncthreads();
    Xin = A;
  }
  T *Out = DIM == 3 ? Bf : X0;
  VPShatPass<0, false, typename std::conditional<DIM == 3, U4, U3>::type, U5, K, NIZ, T>(bk, Xin, Out);
  __syncthreads();
  return Out;
}

/* Phase 6, the patch's correction into d: x_I itself with the reduced residual, else added */
template <int DIM, int K, int MODE, typename T, class BK> __device__ __forceinline__ void VPPatchStoreX(const VPPatchSmem<DIM, K, T, BK> &s, PetscScalar *d, const T *Out, const VPPatchScaling &sc, T damp)
{
  VP_PATCH_UNPACK(s);
  using U5 = typename VPPatchShape<DIM, K, T>::U5;
  VPForEntries<U5>(bk, [&](int q, int ix, int iy, int iz) {
    if (pflags[q] >= 0) {
      const PetscInt li = interior(q, ix, iy, iz);
      PetscScalar   *dq = d + li;
      if constexpr (VPPatchPlan<DIM, K, MODE, T>::BND)
        *dq = (PetscScalar)Out[U5::at(q, ix, iy, iz)]; /* x_I itself */
      else if constexpr (MODE == VP_MODE_SOLVE_GLOBAL) {
        T u = Out[U5::at(q, ix, iy, iz)];
        if (sc.dg) { /* the local solver scaled: damp Dsc z */
          T ak, am;
          VPPatchScaleRow<DIM, K, T>(sc, blockIdx.x * NB + q, iy, iz, ak, am);
          u *= (sc.pw ? VPPatchOwnDamping<T>(sc, blockIdx.x * NB + q) : damp) * VPPatchScaleAt<K, T>(ak, am, ix, sc.dg[li]);
        }
        *dq += (PetscScalar)u;
      } else
        *dq += (PetscScalar)Out[U5::at(q, ix, iy, iz)];
    }
  });
}

/* The fused kernel's body: its phases in order (MODE: fused, residual only, or the solve from scratch) */
template <int DIM, int K, int MODE, typename T, class BK> __device__ __forceinline__ void VPPatchBody(VP_PATCH_ARGS_DECL)
{
  using P = VPPatchPlan<DIM, K, MODE, T>;
  using S = VPPatchShape<DIM, K, T>;
  const BK          bk{nbarg};
  const int         NB = bk.nb(); /* a constant in the default block */
  extern __shared__ __align__(16) unsigned char vp_dynamic_smem[];
  PetscInt                                     *pbase  = reinterpret_cast<PetscInt *>(vp_dynamic_smem);
  int                                          *pflags = reinterpret_cast<int *>(pbase + NB);
  T                                            *lam = reinterpret_cast<T *>(vp_dynamic_smem + S::info(NB)), *X0 = lam + S::LAM, *X1a = X0 + NB * S::X0, *X1b = X1a + NB * S::X1;
  T                                            *Rb = DIM == 3 && !S::INPLACE ? X1a : X0;             /* the residual (2D, INPLACE: the x pass reads from X1) */
  const int                                     sy = (int)g.gxm[0], sz = (int)(g.gxm[0] * g.gxm[1]); /* local index strides */
  const int                                     in = 1 + sy + (DIM == 3 ? sz : 0);                   /* offset of the first interior node from the base */
  const VPPatchSmem<DIM, K, T, BK>              s{bk, NB, pbase, pflags, lam, X0, X1a, X1b, Rb, sy, sz, in};

  if (threadIdx.x < S::NI) lam[threadIdx.x] = VPHatK<K, T>::lam(threadIdx.x);
  VPPatchInfo<DIM, K>(g, npatch, vlo0, vlo1, vlo2, nv0, nv1, bk, pbase, pflags);
  __syncthreads();
  const bool pre = P::CANPRE && VPEntrySlots<typename S::R1>(NB) <= P::PRE * (int)bk.nt();
  T          bpre[P::CANPRE ? P::PRE : 1];
  VPPatchBStart<DIM, K, MODE, T, BK>(s, b, pre, bpre);
  /* x = 0 on entry (xzero: the first color of a sweep from a zero guess): then G = 0 and the residual is b, so the
     gather and the residual's passes are skipped where VPTunePatchZeroFirst() says */
  const bool zero = MODE == VP_MODE_FUSED && VPPatchSkipsZero(DIM, K, (int)sizeof(T)) && xzero;
  if ((MODE == VP_MODE_FUSED || MODE == VP_MODE_RESIDUAL) && !zero) VPPatchResidualYZ<DIM, K, MODE, T, BK>(s, x, c1, c2, cm);
  VPPatchFillB<DIM, K, MODE, T, BK>(s, b, scratch, pre, bpre);
  const VPPatchScaling sc{pg, pm, pw, dg, npatch, vlo0, vlo1, vlo2, nv0, nv1, alo0, alo1, alo2, anv0, anv1};
  VPPatchResidualX<DIM, K, MODE, T, BK>(s, b, zero, c0, c1, cm, sc);
  if constexpr (MODE == VP_MODE_RESIDUAL) {
    VPPatchStoreResidual<DIM, K, MODE, T, BK>(s, scratch);
    return;
  } else {
    const T *Out = VPPatchSolve<DIM, K, MODE, T, BK>(s, c0, c1, c2, cm, npatch, vlo0, vlo1, vlo2, nv0, nv1, pg, pm, alo0, alo1, alo2, anv0, anv1);
    VPPatchStoreX<DIM, K, MODE, T, BK>(s, d, Out, sc, damp);
  }
}

/* the kernel with the launch bound, or with the register cap of VPPatchRegs; BK: VPBlock, the default block's
   counts as constants (VPTunePatchStaticBlock()) or the block's counts at run time */
template <int DIM, int K, int MODE, typename T, class BK> __global__ void __launch_bounds__(VP_PATCH_THREADS) VPPatchKernel(VP_PATCH_ARGS_DECL)
{
  VPPatchBody<DIM, K, MODE, T, BK>(VP_PATCH_ARGS);
}
template <int DIM, int K, int MODE, typename T, class BK> __global__ void __maxnreg__((VPPatchRegs<DIM, K, T>::value)) VPPatchKernelCapped(VP_PATCH_ARGS_DECL)
{
  VPPatchBody<DIM, K, MODE, T, BK>(VP_PATCH_ARGS);
}

template <int DIM, int K, int MODE, typename T, class BK>
static PetscErrorCode VPPatchLaunchBlock(const VPGrid *g, const T c[4], int npatch, const int vlo[3], const int nv[3], const PetscScalar *b, const PetscScalar *x, PetscScalar *d, PetscScalar *scratch, int NB, int thr, size_t shmem,
                                         cudaStream_t stream, int xzero, const PetscReal *pg, const PetscReal *pm, const PetscScalar *dg, PetscReal damp, const PetscReal *pw)
{
  PetscInt alo[3], anv[3];

  PetscFunctionBegin;
  VPPatchVertexBox(g, alo, anv);
  if constexpr (VPPatchRegs<DIM, K, T>::value == 0) {
    PetscCallCUDA(cudaFuncSetAttribute(VPPatchKernel<DIM, K, MODE, T, BK>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem));
    VPPatchKernel<DIM, K, MODE, T, BK>
        <<<(npatch + NB - 1) / NB, thr, shmem, stream>>>(*g, c[0], c[1], c[2], c[3], npatch, vlo[0], vlo[1], vlo[2], nv[0], nv[1], b, x, d, scratch, NB, pg, pm, (int)alo[0], (int)alo[1], (int)alo[2], (int)anv[0], (int)anv[1], xzero, dg, (T)damp, pw);
  } else {
    PetscCallCUDA(cudaFuncSetAttribute(VPPatchKernelCapped<DIM, K, MODE, T, BK>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem));
    VPPatchKernelCapped<DIM, K, MODE, T, BK>
        <<<(npatch + NB - 1) / NB, thr, shmem, stream>>>(*g, c[0], c[1], c[2], c[3], npatch, vlo[0], vlo[1], vlo[2], nv[0], nv[1], b, x, d, scratch, NB, pg, pm, (int)alo[0], (int)alo[1], (int)alo[2], (int)anv[0], (int)anv[1], xzero, dg, (T)damp, pw);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int DIM, int K, int MODE, typename T>
static PetscErrorCode VPPatchLaunch(const VPGrid *g, const VPWeights *w, int npatch, const int vlo[3], const int nv[3], const PetscScalar *b, const PetscScalar *x, PetscScalar *d, PetscScalar *scratch, int ppb, cudaStream_t stream, int xzero = 0,
                                    const PetscReal *pg = NULL, const PetscReal *pm = NULL, const PetscScalar *dg = NULL, PetscReal damp = 0, const PetscReal *pw = NULL)
{
  using S            = VPPatchShape<DIM, K, T>;
  const int    NB    = ppb > 0 ? ppb : S::NB;
  const size_t shmem = S::smem(NB);
  const double hprod = g->h[0] * g->h[1] * (DIM == 3 ? g->h[2] : 1.0);
  const double st = w ? w->stiff : 1.0, ms = w ? w->mass : 0.0;
  const T      c[4] = {(T)(st * hprod / (g->h[0] * g->h[0])), (T)(st * hprod / (g->h[1] * g->h[1])), (T)(DIM == 3 ? st * hprod / (g->h[2] * g->h[2]) : 0.0), (T)(ms * hprod)};
  const int    thr  = S::threads(NB);
  int          dev, maxshmem;

  PetscFunctionBegin;
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaDeviceGetAttribute(&maxshmem, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  PetscCheck(shmem <= (size_t)maxshmem, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCVPATCH: %d patches per block of Q_%d in %dD need %zu bytes of shared memory, the GPU allows %d: lower -pc_vpatch_patches_per_block", NB, K, DIM, shmem, maxshmem);
  constexpr int UNR = VPTunePatchStaticBlock(DIM, K, (int)sizeof(T)); /* vpatch_tuning.cuh */
  if constexpr (UNR > 0) {
    if (NB == S::NB) {
      PetscCall((VPPatchLaunchBlock<DIM, K, MODE, T, VPBlock<S::NB, S::THREADS, UNR>>(g, c, npatch, vlo, nv, b, x, d, scratch, NB, thr, shmem, stream, xzero, pg, pm, dg, damp, pw)));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  PetscCall((VPPatchLaunchBlock<DIM, K, MODE, T, VPBlock<0, 0>>(g, c, npatch, vlo, nv, b, x, d, scratch, NB, thr, shmem, stream, xzero, pg, pm, dg, damp, pw)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int DIM, int K, typename T> struct VPPatchSmooth {
  static PetscErrorCode run(const VPGrid *g, const VPWeights *w, PetscInt color, PCVPatchKernel variant, PetscInt ppb, PetscBool xzero, const PetscReal *pg, const PetscReal *pm, const PetscScalar *dg, PetscReal damp, const PetscReal *pw,
                            const PetscScalar *b, const PetscScalar *x, PetscScalar *d, PetscScalar *scratch)
  {
    int          vlo[3], nv[3];
    cudaStream_t stream;

    PetscFunctionBegin;
    if (!VPPatchColorVertices(g, color, vlo, nv)) PetscFunctionReturn(PETSC_SUCCESS); /* vertices of this color among this rank's */
    PetscCall(VPGetStream(&stream));
    const int npatch = nv[0] * nv[1] * nv[2];
    if (variant == PC_VPATCH_KERNEL_FUSED)
      PetscCall((VPPatchLaunch<DIM, K, VP_MODE_FUSED, T>(g, w, npatch, vlo, nv, b, x, d, NULL, (int)ppb, stream, (int)xzero)));
    else if (variant == PC_VPATCH_KERNEL_SEPARATE) {
      PetscCall((VPPatchLaunch<DIM, K, VP_MODE_RESIDUAL, T>(g, w, npatch, vlo, nv, b, x, d, scratch, (int)ppb, stream)));
      PetscCall((VPPatchLaunch<DIM, K, VP_MODE_SOLVE_SCRATCH, T>(g, w, npatch, vlo, nv, b, x, d, scratch, (int)ppb, stream)));
    } else
      PetscCall((VPPatchLaunch<DIM, K, VP_MODE_SOLVE_GLOBAL, T>(g, w, npatch, vlo, nv, b, x, d, NULL, (int)ppb, stream, 0, pg, pm, dg, damp, pw)));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};

VP_PRECISION_ALIASES(VPPatchSmooth);

PetscBool VPPatchZeroFirst_CUDA(PetscInt dim, PetscInt k, PetscBool single)
{
  return (PetscBool)VPPatchSkipsZero((int)dim, (int)k, single ? 4 : 8);
}

PetscErrorCode VPPatchSmoothColor_CUDA(const VPGrid *g, const VPWeights *w, PetscBool single, PetscInt color, PCVPatchKernel variant, PetscInt ppb, PetscBool xzero, const PetscReal *d_pg, const PetscReal *d_pm, const PetscScalar *d_diag,
                                       PetscReal damp, const PetscReal *d_pw, const PetscScalar *bl, const PetscScalar *xl, PetscScalar *dl, PetscScalar *scratch)
{
  PetscFunctionBegin;
  PetscCheck(!d_pg || variant == PC_VPATCH_KERNEL_GLOBAL, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the surrogate local solves run in the kernel global only");
  PetscCheck(variant != PC_VPATCH_KERNEL_FUSED || xl == dl, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the fused kernel updates x in place (d = x)");
  PetscCheck(!d_pg || !w || w->mass == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the surrogate local solves take their mass term per patch (d_pm), not as a weight");
  PetscCheck(!d_pm || d_pg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a per-patch mass term goes with the surrogate's factors");
  PetscCheck(!d_diag || (d_pg && damp > 0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "the local solver scaled goes with the surrogate's factors and a positive damping");
  if (VPGridEmpty(g)) PetscFunctionReturn(PETSC_SUCCESS); /* no patch (a gathered level); its arrays may be NULL */
  PetscCheck(!d_pw || d_diag, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a damping per patch goes with the local solver scaled");
  VP_DISPATCH_PRECISION(VPPatchSmooth, single, g->dim, g->k, g, w, color, variant, ppb, xzero, d_pg, d_pm, d_diag, damp, d_pw, bl, xl, dl, scratch);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPPatchSetUp_CUDA(PetscInt k, const PetscReal *Mc, const PetscReal *Kc, const PetscReal *Shat, const PetscReal *lamhat)
{
  const int K = (int)k, n = K + 1, np = 2 * K + 1, ni = 2 * K - 1, H = K / 2 + 1, HO = (K + 1) / 2;
  PetscReal h[VPHatSize(VPATCH_MAX_DEGREE)], *p = h, cmax = 0, smax = 0;

  PetscFunctionBegin;
  PetscCheck(k >= 1 && k <= VPATCH_MAX_DEGREE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Degree %" PetscInt_FMT " is not in 1..%d", k, VPATCH_MAX_DEGREE);
  /* the even-odd forms (see VPHatK) hold only for reflection-symmetric data: check it */
  for (int i = 0; i < n * n; i++) cmax = PetscMax(cmax, PetscMax(PetscAbsReal(Mc[i]), PetscAbsReal(Kc[i])));
  for (int i = 0; i < ni * ni; i++) smax = PetscMax(smax, PetscAbsReal(Shat[i]));
  for (int b = 0; b < n; b++)
    for (int a = 0; a < n; a++)
      PetscCheck(PetscAbsReal(Mc[b * n + a] - Mc[(K - b) * n + K - a]) <= 1e-12 * cmax && PetscAbsReal(Kc[b * n + a] - Kc[(K - b) * n + K - a]) <= 1e-12 * cmax, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "The 1D cell matrices of degree %d are not symmetric under the reflection of the cell", K);
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < ni; j++)
      PetscCheck(PetscAbsReal(Shat[i * ni + j] - (j < K ? 1 : -1) * Shat[(ni - 1 - i) * ni + j]) <= 1e-12 * smax, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The 1D patch eigenvectors of degree %d are not %d even, then %d odd ones", K, K, K - 1);
  for (int m = 0; m < 2; m++, p += np * np) { /* the patch matrices */
    const PetscReal *C = m ? Kc : Mc;
    for (int i = 0; i < np * np; i++) p[i] = 0;
    for (int c = 0; c < 2; c++)
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) p[(c * K + i) * np + c * K + j] += C[i * n + j];
  }
  for (int m = 0; m < 2; m++) {
    const PetscReal *C = m ? Kc : Mc;
    for (int b = 0; b < H; b++)
      for (int a = 0; a < H; a++) *p++ = a < HO ? 0.5 * (C[b * n + a] + C[b * n + K - a]) : C[b * n + a];
    for (int b = 0; b < HO; b++)
      for (int a = 0; a < HO; a++) *p++ = 0.5 * (C[b * n + a] - C[b * n + K - a]);
  }
  for (int i = 0; i < K; i++)
    for (int j = 0; j < K; j++) *p++ = Shat[i * ni + j];
  for (int i = 0; i < K - 1; i++)
    for (int j = 0; j < K - 1; j++) *p++ = Shat[i * ni + K + j];
  for (int i = 0; i < ni; i++) *p++ = lamhat[i];
  PetscCheck(p - h == VPHatSize(K), PETSC_COMM_SELF, PETSC_ERR_PLIB, "Reference data of degree %d: %d entries, expected %d", K, (int)(p - h), VPHatSize(K));
  PetscCall(VPHatUpload(h, VPHatSize(K), VPHatOffset(K)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
