/*
  CUDA kernels of PCVPATCH. The "fused" variant: one thread block per patch of one color (several for low
  degrees); the
  patch's (2k+1)^d values, the 1D patch matrices, eigenvectors and eigenvalues in shared memory
  (as T: double, or float for -pc_vpatch_precision single);
  localized residual and fast-diagonalization solve in one kernel, linear thread indexing for every
  stage (contractions one thread per 1D line or linear indexing, VPPatchLines), no atomics (patches of one color share no interior node), so a sweep is bitwise
  reproducible. The same kernel, instantiated by MODE, also gives the reference's other variants:
  "separate" (a localized-residual kernel writes the patch residuals to a scratch buffer, a second
  kernel solves) and "global" (the residual comes from a global MatMult; the kernel only solves).
  x and d may be one array (one rank: the corrections go into the iterate in place); patches of one color
  share no interior node and each reads only its own nodes, so no block reads what another writes.
  d_op holds [Mp_0, Kp_0, Mp_1, Kp_1, (Mp_2, Kp_2)] ((2k+1)^2 each),
  [S_0, S_1, (S_2)] ((2k-1)^2 each), [lam_0, lam_1, (lam_2)] (2k-1 each).
*/
#include <petscvpatch/private/vpcuda.cuh>

template <int DIM> static inline int VPDOpSize(int k)
{
  const int np = 2 * k + 1, ni = 2 * k - 1;
  return DIM * (2 * np * np + ni * ni + ni);
}

/* patch number p of this color -> vertex coordinates */
__device__ __forceinline__ void VPDVertex(int p, int vlo0, int vlo1, int vlo2, int nv0, int nv1, int &vx, int &vy, int &vz)
{
  vx = vlo0 + 2 * (p % nv0);
  vy = vlo1 + 2 * ((p / nv0) % nv1);
  vz = vlo2 + 2 * (p / (nv0 * nv1));
}

enum {
  VP_MODE_FUSED,         /* localized residual and local solve */
  VP_MODE_RESIDUAL,      /* localized residual only, into scratch */
  VP_MODE_SOLVE_SCRATCH, /* local solve of the residuals in scratch */
  VP_MODE_SOLVE_GLOBAL   /* local solve of the residual b (a ghosted global residual) */
};

/* line contractions (VPDContractLines) or linear indexing (VPDContract), by measurement on an H100
   (bench/RESULTS.md): lines win for Q_1, and in single precision up to Q_3; above, the longer lines lose */
template <int DIM, int K, typename T> struct VPPatchLines {
  static constexpr bool value = K == 1 || (sizeof(T) == 4 && K <= 3);
};

template <int DIM, int K, int MODE, typename T>
__global__ void __launch_bounds__(512)
    VPPatchKernel(VPGrid g, const PetscReal *__restrict__ d_op, int npatch, int vlo0, int vlo1, int vlo2, int nv0, int nv1, const PetscScalar *__restrict__ b, const PetscScalar *x, PetscScalar *d, PetscScalar *__restrict__ scratch, const int NB)
{
  constexpr int  NP = 2 * K + 1, NI = 2 * K - 1, NPZ = DIM == 3 ? NP : 1, NIZ = DIM == 3 ? NI : 1;
  constexpr int  NPT = NP * NP * NPZ, NIT = NI * NI * NIZ, OPN = DIM * (2 * NP * NP + NI * NI + NI);
  constexpr bool LINES = VPPatchLines<DIM, K, T>::value;
  VP_DYNAMIC_SHARED(T, smem); /* the patch operator, then four buffers of NB patch tensors */
  T  *op = smem;
  T  *A = smem + OPN, *B = A + NB * NPT, *C = B + NB * NPT, *D = C + NB * NPT;
  int vx, vy, vz;

  for (int i = threadIdx.x; i < OPN; i += blockDim.x) op[i] = (T)d_op[i];
  const T *Mp0 = op, *Kp0 = op + NP * NP, *Mp1 = op + 2 * NP * NP, *Kp1 = op + 3 * NP * NP, *Mp2 = op + 4 * NP * NP, *Kp2 = op + 5 * NP * NP;
  const T *S0 = op + DIM * 2 * NP * NP, *S1 = S0 + NI * NI, *S2 = S1 + NI * NI;
  const T *L0 = op + DIM * (2 * NP * NP + NI * NI), *L1 = L0 + NI, *L2 = L1 + NI;
  if (MODE == VP_MODE_FUSED || MODE == VP_MODE_RESIDUAL) {
    for (int t = threadIdx.x; t < NB * NPT; t += blockDim.x) {
      const int q = t / NPT, e = t - q * NPT, p = blockIdx.x * NB + q;
      A[t] = 0;
      if (p >= npatch) continue;
      VPDVertex(p, vlo0, vlo1, vlo2, nv0, nv1, vx, vy, vz);
      const int px = vx * K - K + e % NP, py = vy * K - K + (e / NP) % NP, pz = DIM == 3 ? vz * K - K + e / (NP * NP) : 0;
      if (!VPDIsBoundary(g, px, py, pz)) A[t] = (T)x[VPDLocalIndex(g, px, py, pz)];
    }
    __syncthreads();
    /* v = A_patch x over the whole patch, ending in B */
    VPDContractSel2<LINES, NP, NP, NPZ, 0, NP, false>(Mp0, Kp0, A, B, C, NB);
    __syncthreads();
    if (DIM == 2) {
      VPDContractSel<LINES, NP, NP, NPZ, 1, NP, false>(Kp1, B, D, NB);
      VPDContractSel<LINES, NP, NP, NPZ, 1, NP, false>(Mp1, C, A, NB);
      __syncthreads();
      for (int t = threadIdx.x; t < NB * NPT; t += blockDim.x) B[t] = D[t] + A[t];
    } else {
      VPDContractSel<LINES, NP, NP, NPZ, 1, NP, false>(Mp1, C, D, NB);
      VPDContractSel<LINES, NP, NP, NPZ, 1, NP, false>(Kp1, B, A, NB);
      __syncthreads();
      for (int t = threadIdx.x; t < NB * NPT; t += blockDim.x) D[t] += A[t];
      VPDContractSel<LINES, NP, NP, NPZ, 1, NP, false>(Mp1, B, C, NB);
      __syncthreads();
      VPDContractSel<LINES, NP, NP, NPZ, 2, NP, false>(Mp2, D, A, NB);
      VPDContractSel<LINES, NP, NP, NPZ, 2, NP, false>(Kp2, C, B, NB);
      __syncthreads();
      for (int t = threadIdx.x; t < NB * NPT; t += blockDim.x) B[t] += A[t];
    }
    __syncthreads();
    /* localized residual on the interior, linear indexing over the (2k-1)^d unknowns: C = b_I - v_I */
    for (int t = threadIdx.x; t < NB * NIT; t += blockDim.x) {
      const int q = t / NIT, e = t - q * NIT, p = blockIdx.x * NB + q;
      C[t] = 0;
      if (p >= npatch) continue;
      VPDVertex(p, vlo0, vlo1, vlo2, nv0, nv1, vx, vy, vz);
      const int ix = e % NI, iy = (e / NI) % NI, iz = e / (NI * NI);
      const int px = vx * K - K + 1 + ix, py = vy * K - K + 1 + iy, pz = DIM == 3 ? vz * K - K + 1 + iz : 0;
      C[t] = (T)b[VPDLocalIndex(g, px, py, pz)] - B[q * NPT + ((DIM == 3 ? iz + 1 : 0) * NP + iy + 1) * NP + ix + 1];
      if (MODE == VP_MODE_RESIDUAL) scratch[(PetscInt)p * NIT + e] = C[t];
    }
    if (MODE == VP_MODE_RESIDUAL) return;
  } else { /* the residual comes from scratch or from the global residual */
    for (int t = threadIdx.x; t < NB * NIT; t += blockDim.x) {
      const int q = t / NIT, e = t - q * NIT, p = blockIdx.x * NB + q;
      C[t] = 0;
      if (p >= npatch) continue;
      if (MODE == VP_MODE_SOLVE_SCRATCH)
        C[t] = (T)scratch[(PetscInt)p * NIT + e];
      else {
        VPDVertex(p, vlo0, vlo1, vlo2, nv0, nv1, vx, vy, vz);
        const int ix = e % NI, iy = (e / NI) % NI, iz = e / (NI * NI);
        C[t] = (T)b[VPDLocalIndex(g, vx * K - K + 1 + ix, vy * K - K + 1 + iy, DIM == 3 ? vz * K - K + 1 + iz : 0)];
      }
    }
  }
  __syncthreads();
  /* fast diagonalization: u = S diag(1/(sum lam)) S^T r */
  VPDContractSel<LINES, NI, NI, NIZ, 0, NI, true>(S0, C, A, NB);
  __syncthreads();
  VPDContractSel<LINES, NI, NI, NIZ, 1, NI, true>(S1, A, B, NB);
  __syncthreads();
  T *W = B, *U = A;
  if (DIM == 3) {
    VPDContractSel<LINES, NI, NI, NIZ, 2, NI, true>(S2, B, A, NB);
    __syncthreads();
    W = A;
    U = B;
  }
  for (int t = threadIdx.x; t < NB * NIT; t += blockDim.x) {
    const int e = t % NIT, ix = e % NI, iy = (e / NI) % NI, iz = e / (NI * NI);
    W[t] /= L0[ix] + L1[iy] + (DIM == 3 ? L2[iz] : (T)0);
  }
  __syncthreads();
  if (DIM == 3) {
    VPDContractSel<LINES, NI, NI, NIZ, 2, NI, false>(S2, W, U, NB);
    __syncthreads();
    VPDContractSel<LINES, NI, NI, NIZ, 1, NI, false>(S1, U, W, NB);
    __syncthreads();
    VPDContractSel<LINES, NI, NI, NIZ, 0, NI, false>(S0, W, U, NB);
  } else {
    VPDContractSel<LINES, NI, NI, NIZ, 1, NI, false>(S1, W, U, NB);
    __syncthreads();
    VPDContractSel<LINES, NI, NI, NIZ, 0, NI, false>(S0, U, W, NB);
    U = W;
  }
  __syncthreads();
  for (int t = threadIdx.x; t < NB * NIT; t += blockDim.x) {
    const int q = t / NIT, e = t - q * NIT, p = blockIdx.x * NB + q;
    if (p >= npatch) continue;
    VPDVertex(p, vlo0, vlo1, vlo2, nv0, nv1, vx, vy, vz);
    const int ix = e % NI, iy = (e / NI) % NI, iz = e / (NI * NI);
    const int px = vx * K - K + 1 + ix, py = vy * K - K + 1 + iy, pz = DIM == 3 ? vz * K - K + 1 + iz : 0;
    d[VPDLocalIndex(g, px, py, pz)] += (PetscScalar)U[t];
  }
}

template <int DIM, int K, int MODE, typename T>
static PetscErrorCode VPPatchLaunch(const VPGrid *g, const PetscReal *d_op, int npatch, const int vlo[3], const int nv[3], const PetscScalar *b, const PetscScalar *x, PetscScalar *d, PetscScalar *scratch, int ppb, cudaStream_t stream)
{
  constexpr int  NP = 2 * K + 1, NPT = NP * NP * (DIM == 3 ? NP : 1);
  constexpr bool LINES = VPPatchLines<DIM, K, T>::value;
  /* patches per block: by option, else ~128 lines of work within 48 KB (lines), or ~128 entries (linear indexing) */
  const int    NB    = ppb > 0 ? ppb : (LINES ? VPLineBatch<NPT, NP, 4, 49152, T>::value : VPBatch<NPT>::value);
  const size_t shmem = sizeof(T) * (VPDOpSize<DIM>(K) + 4 * (size_t)NB * NPT);
  int          dev, maxshmem;

  PetscFunctionBegin;
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaDeviceGetAttribute(&maxshmem, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  PetscCheck(shmem <= (size_t)maxshmem, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCVPATCH: %d patches per block of Q_%d in %dD need %zu bytes of shared memory, the GPU allows %d: lower -pc_vpatch_patches_per_block", NB, K, DIM, shmem, maxshmem);
  PetscCallCUDA(cudaFuncSetAttribute(VPPatchKernel<DIM, K, MODE, T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem));
  VPPatchKernel<DIM, K, MODE, T><<<(npatch + NB - 1) / NB, VPThreads(NB * (LINES ? NPT / NP : NPT)), shmem, stream>>>(*g, d_op, npatch, vlo[0], vlo[1], vlo[2], nv[0], nv[1], b, x, d, scratch, NB);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int DIM, int K, typename T> struct VPPatchSmooth {
  static PetscErrorCode run(const VPGrid *g, const PetscReal *d_op, PetscInt color, PetscInt variant, PetscInt ppb, const PetscScalar *b, const PetscScalar *x, PetscScalar *d, PetscScalar *scratch)
  {
    int          vlo[3] = {0, 0, 0}, nv[3] = {1, 1, 1};
    cudaStream_t stream;

    PetscFunctionBegin;
    for (int dd = 0; dd < DIM; dd++) { /* vertices of this color among this rank's: lower corners of owned cells, interior */
      int lo = g->cs[dd] > 1 ? (int)g->cs[dd] : 1, hi = (int)PetscMin(g->cs[dd] + g->cm[dd] - 1, g->N[dd] - 1), bit = (int)((color >> dd) & 1);
      if (lo % 2 != bit) lo++;
      vlo[dd] = lo;
      nv[dd]  = hi >= lo ? (hi - lo) / 2 + 1 : 0;
    }
    if (!nv[0] || !nv[1] || !nv[2]) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(VPGetStream(&stream));
    const int npatch = nv[0] * nv[1] * nv[2];
    if (variant == VP_PATCH_KERNEL_FUSED)
      PetscCall((VPPatchLaunch<DIM, K, VP_MODE_FUSED, T>(g, d_op, npatch, vlo, nv, b, x, d, NULL, (int)ppb, stream)));
    else if (variant == VP_PATCH_KERNEL_SEPARATE) {
      PetscCall((VPPatchLaunch<DIM, K, VP_MODE_RESIDUAL, T>(g, d_op, npatch, vlo, nv, b, x, d, scratch, (int)ppb, stream)));
      PetscCall((VPPatchLaunch<DIM, K, VP_MODE_SOLVE_SCRATCH, T>(g, d_op, npatch, vlo, nv, b, x, d, scratch, (int)ppb, stream)));
    } else
      PetscCall((VPPatchLaunch<DIM, K, VP_MODE_SOLVE_GLOBAL, T>(g, d_op, npatch, vlo, nv, b, x, d, NULL, (int)ppb, stream)));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};

VP_PRECISION_ALIASES(VPPatchSmooth);

PetscErrorCode VPPatchSmoothColor_CUDA(const VPGrid *g, const PetscReal *d_op, PetscBool single, PetscInt color, PetscInt variant, PetscInt ppb, const PetscScalar *bl, const PetscScalar *xl, PetscScalar *dl, PetscScalar *scratch)
{
  PetscFunctionBegin;
  VP_DISPATCH_PRECISION(VPPatchSmooth, single, g->dim, g->k, g, d_op, color, variant, ppb, bl, xl, dl, scratch);
  PetscFunctionReturn(PETSC_SUCCESS);
}
