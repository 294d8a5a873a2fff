/*
  PCVPATCH local solver cg on a mapped DMQBOX, CUDA (the CPU version: PatchCG() in ../vpatch_cpu.c; the method:
  VPPatchLocal in vpkernels.h), where the patch kernel that forms each patch's residual from its cells and runs the CG
  steps in place (VPMapPatchResidualKernel, MODE 2, in mat/impls/laplacian/cuda/mapped.cu) cannot: 2D, a mass term,
  factors computed on the fly, -pc_vpatch_patch_residual 0.

  One thread block per patch of the color. The patch's residual (from the ghosted residual of the whole level, kernel
  global) stays in shared memory with the CG vectors; each step applies the preconditioner (the diagonal scaling and
  the fast diagonalization of the patch's separable surrogate: contractions with the unit patch's eigenvectors) and
  the patch's true operator (its 2^d cells one after the other: gradients at the Gauss points by sum factorization,
  the cell's factors G read from global memory, and the transposed contractions). The contractions are generic (a
  thread per output entry, the 1D matrices from kernel parameters): a simple kernel that is checked against the CPU
  one, not yet a tuned one. Double precision.
*/
#include <petscvpatch/private/vpcuda.cuh>

/* the sum of v over the block, returned to every thread; red: 33 entries of shared memory */
__device__ static PetscReal VPCGBlockSum(PetscReal v, PetscReal *red)
{
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    PetscReal s = 0;
    for (int w = 0; w < (int)(blockDim.x + 31) / 32; w++) s += red[w];
    red[32] = s;
  }
  __syncthreads();
  v = red[32];
  __syncthreads();
  return v;
}

/* w = A_v p on the interior: the patch's 2^d cells, B at a time (B divides 2^d), each batch's results gathered into the
   patch box node by node (no two threads add into one node: deterministic); box, boxo: the patch box; c: 7 B cell
   tensors */
template <int DIM> __device__ static void VPCGTrueApply(const VPPatchCGTables &t, int B, const int v[3], const PetscReal *__restrict__ geo, const PetscReal *p, PetscReal *w, PetscReal *box, PetscReal *boxo, PetscReal *c)
{
  const int  k = t.k, n = k + 1, np = 2 * k + 1, ni = 2 * k - 1, nz = DIM == 3 ? n : 1, nd = n * n * nz, npt = np * np * (DIM == 3 ? np : 1), nt = ni * ni * (DIM == 3 ? ni : 1), ncomp = DIM == 3 ? 6 : 3;
  const int  L = VPATCH_MAX_N1D, bn = B * nd;
  PetscReal *cu = c, *ca = c + bn, *cb = c + 2 * bn, *ct = c + 3 * bn, *g0 = c + 4 * bn, *g1 = c + 5 * bn, *g2 = c + 6 * bn;

  for (int e = threadIdx.x; e < npt; e += blockDim.x) box[e] = boxo[e] = 0;
  __syncthreads();
  for (int e = threadIdx.x; e < nt; e += blockDim.x) box[((DIM == 3 ? e / (ni * ni) + 1 : 0) * np + (e / ni) % ni + 1) * np + e % ni + 1] = p[e];
  __syncthreads();
  for (int c0 = 0; c0 < (1 << DIM); c0 += B) {
    for (int j = threadIdx.x; j < bn; j += blockDim.x) { /* the batch's cells from the box */
      const int cc = c0 + j / nd, l = j % nd, o0 = (cc & 1) * k, o1 = ((cc >> 1) & 1) * k, o2 = DIM == 3 ? ((cc >> 2) & 1) * k : 0;
      cu[j] = box[((o2 + (DIM == 3 ? l / (n * n) : 0)) * np + o1 + (l / n) % n) * np + o0 + l % n];
    }
    __syncthreads();
    VPContractBlock(n, n, nz, B, 0, t.cD, L, false, cu, ca); /* D_x u */
    VPContractBlock(n, n, nz, B, 0, t.cS, L, false, cu, cb); /* S_x u */
    if (DIM == 3) {
      VPContractBlock(n, n, n, B, 1, t.cS, L, false, ca, ct);
      VPContractBlock(n, n, n, B, 2, t.cS, L, false, ct, g0); /* d/dx */
      VPContractBlock(n, n, n, B, 1, t.cD, L, false, cb, ct);
      VPContractBlock(n, n, n, B, 2, t.cS, L, false, ct, g1); /* d/dy */
      VPContractBlock(n, n, n, B, 1, t.cS, L, false, cb, ct);
      VPContractBlock(n, n, n, B, 2, t.cD, L, false, ct, g2); /* d/dz */
    } else {
      VPContractBlock(n, n, 1, B, 1, t.cS, L, false, ca, g0);
      VPContractBlock(n, n, 1, B, 1, t.cD, L, false, cb, g1);
    }
    for (int j = threadIdx.x; j < bn; j += blockDim.x) { /* the cell's factors at its points */
      const int        cc = c0 + j / nd, q = j % nd;
      const PetscInt   cell = ((PetscInt)(DIM == 3 ? v[2] - 1 + ((cc >> 2) & 1) - t.gclo[2] : 0) * t.gcm[1] + (v[1] - 1 + ((cc >> 1) & 1) - t.gclo[1])) * t.gcm[0] + (v[0] - 1 + (cc & 1) - t.gclo[0]);
      const PetscReal *G    = geo + cell * ncomp * nd;
      if (DIM == 3) {
        const PetscReal a0 = g0[j], a1 = g1[j], a2 = g2[j], G00 = G[q], G11 = G[nd + q], G22 = G[2 * nd + q], G01 = G[3 * nd + q], G02 = G[4 * nd + q], G12 = G[5 * nd + q];
        g0[j] = G00 * a0 + G01 * a1 + G02 * a2;
        g1[j] = G01 * a0 + G11 * a1 + G12 * a2;
        g2[j] = G02 * a0 + G12 * a1 + G22 * a2;
      } else {
        const PetscReal a0 = g0[j], a1 = g1[j];
        g0[j] = G[q] * a0 + G[2 * nd + q] * a1;
        g1[j] = G[2 * nd + q] * a0 + G[nd + q] * a1;
      }
    }
    __syncthreads();
    if (DIM == 3) {
      VPContractBlock(n, n, n, B, 2, t.cS, L, true, g0, ct);
      VPContractBlock(n, n, n, B, 1, t.cS, L, true, ct, ca); /* toward D_x^T */
      VPContractBlock(n, n, n, B, 2, t.cS, L, true, g1, ct);
      VPContractBlock(n, n, n, B, 1, t.cD, L, true, ct, cb); /* toward S_x^T */
      VPContractBlock(n, n, n, B, 2, t.cD, L, true, g2, ct);
      VPContractBlock(n, n, n, B, 1, t.cS, L, true, ct, g0);
      for (int j = threadIdx.x; j < bn; j += blockDim.x) cb[j] += g0[j];
      __syncthreads();
    } else {
      VPContractBlock(n, n, 1, B, 1, t.cS, L, true, g0, ca);
      VPContractBlock(n, n, 1, B, 1, t.cD, L, true, g1, cb);
    }
    VPContractBlock(n, n, nz, B, 0, t.cD, L, true, ca, ct);
    VPContractBlock(n, n, nz, B, 0, t.cS, L, true, cb, g1);
    for (int e = threadIdx.x; e < npt; e += blockDim.x) { /* gather: each node sums the batch's cells that hold it */
      const int i0 = e % np, i1 = (e / np) % np, i2 = DIM == 3 ? e / (np * np) : 0;
      PetscReal s = 0;
      for (int b = 0; b < B; b++) {
        const int cc = c0 + b, l0 = i0 - (cc & 1) * k, l1 = i1 - ((cc >> 1) & 1) * k, l2 = DIM == 3 ? i2 - ((cc >> 2) & 1) * k : 0;
        if (l0 >= 0 && l0 <= k && l1 >= 0 && l1 <= k && l2 >= 0 && l2 <= k) {
          const int l = (l2 * n + l1) * n + l0;
          s += ct[b * nd + l] + g1[b * nd + l];
        }
      }
      boxo[e] += s;
    }
    __syncthreads();
  }
  for (int e = threadIdx.x; e < nt; e += blockDim.x) w[e] = boxo[((DIM == 3 ? e / (ni * ni) + 1 : 0) * np + (e / ni) % ni + 1) * np + e % ni + 1];
  __syncthreads();
}

/* z = S (sum_d g_d Lambda_d)^-1 S^T (sc .* r), the preconditioner of the patch CG before its final scaling by sc: the
   surrogate's fast diagonalization (S^T along each direction, the eigenvalues, S back); ta, tb: work of nt entries */
template <int DIM> __device__ static void VPCGScaledSurrogate(const VPPatchCGTables &t, PetscReal g0, PetscReal g1, PetscReal g2, const PetscReal *sc, const PetscReal *r, PetscReal *ta, PetscReal *tb, PetscReal *z)
{
  const int ni = 2 * t.k - 1, niz = DIM == 3 ? ni : 1, nt = ni * ni * niz;

  for (int e = threadIdx.x; e < nt; e += blockDim.x) ta[e] = sc[e] * r[e];
  __syncthreads();
  VPContractBlock(ni, ni, niz, 1, 0, t.S, ni, true, ta, tb);
  VPContractBlock(ni, ni, niz, 1, 1, t.S, ni, true, tb, ta);
  if (DIM == 3) {
    VPContractBlock(ni, ni, ni, 1, 2, t.S, ni, true, ta, tb);
    for (int e = threadIdx.x; e < nt; e += blockDim.x) tb[e] /= g0 * t.lam[e % ni] + g1 * t.lam[(e / ni) % ni] + g2 * t.lam[e / (ni * ni)];
    __syncthreads();
    VPContractBlock(ni, ni, ni, 1, 2, t.S, ni, false, tb, ta);
  } else {
    for (int e = threadIdx.x; e < nt; e += blockDim.x) ta[e] /= g0 * t.lam[e % ni] + g1 * t.lam[e / ni];
    __syncthreads();
  }
  VPContractBlock(ni, ni, niz, 1, 1, t.S, ni, false, ta, tb);
  VPContractBlock(ni, ni, niz, 1, 0, t.S, ni, false, tb, z);
}

/* the residual of a patch from the ghosted residual bl and its scaling sqrt(Dt / D) (Dt: the surrogate's diagonal from
   the unit patch's 1D diagonals, D: the operator's, diag) */
template <int DIM>
__device__ static void VPCGLoadScaled(const VPGrid &g, const VPPatchCGTables &t, const int v[3], PetscReal g0, PetscReal g1, PetscReal g2, const PetscScalar *__restrict__ diag, const PetscScalar *__restrict__ bl, PetscReal *rr, PetscReal *sc)
{
  const int k = t.k, ni = 2 * k - 1, nt = ni * ni * (DIM == 3 ? ni : 1);

  for (int e = threadIdx.x; e < nt; e += blockDim.x) {
    const int      ix = e % ni, iy = (e / ni) % ni, iz = e / (ni * ni);
    const PetscInt li = VPDLocalIndex(g, v[0] * k - k + 1 + ix, v[1] * k - k + 1 + iy, DIM == 3 ? v[2] * k - k + 1 + iz : 0);
    PetscReal      dt = g0 * t.Kd[ix] * t.Md[iy] + g1 * t.Md[ix] * t.Kd[iy];
    if (DIM == 3) dt = dt * t.Md[iz] + g2 * t.Md[ix] * t.Md[iy] * t.Kd[iz];
    rr[e] = bl[li];
    sc[e] = sqrt(dt / diag[li]);
  }
  __syncthreads();
}

template <int DIM>
__global__ void VPPatchCGKernel(const VPGrid g, const VPPatchCGTables t, int B, int vlo0, int vlo1, int vlo2, int nv0, int nv1, const PetscReal *__restrict__ pg, const PetscReal *__restrict__ geo, const PetscScalar *__restrict__ diag,
                                const PetscScalar *__restrict__ bl, PetscScalar *__restrict__ dl)
{
  VP_DYNAMIC_SHARED(PetscReal, sm);
  const int        k = t.k, n = k + 1, np = 2 * k + 1, ni = 2 * k - 1, nd = n * n * (DIM == 3 ? n : 1), npt = np * np * (DIM == 3 ? np : 1), nt = ni * ni * (DIM == 3 ? ni : 1);
  const int        pb = blockIdx.x, v[3] = {vlo0 + 2 * (pb % nv0), vlo1 + 2 * ((pb / nv0) % nv1), DIM == 3 ? vlo2 + 2 * (pb / (nv0 * nv1)) : 0};
  PetscReal       *rr = sm, *z = rr + nt, *pp = z + nt, *ww = pp + nt, *sc = ww + nt, *u = sc + nt, *ta = u + nt, *tb = ta + nt, *box = tb + nt, *boxo = box + npt, *c = boxo + npt, *red = c + 7 * B * nd;
  const PetscReal *gv = pg + 3 * (((PetscInt)(v[2] - t.alo[2]) * t.anv[1] + (v[1] - t.alo[1])) * t.anv[0] + (v[0] - t.alo[0]));
  const PetscReal  g0 = gv[0], g1 = gv[1], g2 = DIM == 3 ? gv[2] : 0;
  PetscReal        rzold = 1, rz0 = 0;

  for (int e = threadIdx.x; e < nt; e += blockDim.x) u[e] = 0;
  VPCGLoadScaled<DIM>(g, t, v, g0, g1, g2, diag, bl, rr, sc); /* the residual, the scaling sqrt(Dt / D) */
  for (int it = 0; it < t.its; it++) {
    PetscReal rz = 0, pw = 0;
    VPCGScaledSurrogate<DIM>(t, g0, g1, g2, sc, rr, ta, tb, z);
    for (int e = threadIdx.x; e < nt; e += blockDim.x) {
      z[e] *= sc[e];
      rz += rr[e] * z[e];
    }
    rz = VPCGBlockSum(rz, red);
    if (!it) rz0 = rz;
    if (!(rz > VP_PATCH_CG_RTOL2 * rz0)) break; /* converged to round-off, or a zero residual (every thread: rz is the block's sum) */
    for (int e = threadIdx.x; e < nt; e += blockDim.x) pp[e] = it ? z[e] + (rz / rzold) * pp[e] : z[e];
    __syncthreads();
    VPCGTrueApply<DIM>(t, B, v, geo, pp, ww, box, boxo, c);
    for (int e = threadIdx.x; e < nt; e += blockDim.x) pw += pp[e] * ww[e];
    pw = VPCGBlockSum(pw, red);
    if (pw <= 0) break; /* the residual is zero (or round-off): nothing left to correct */
    for (int e = threadIdx.x; e < nt; e += blockDim.x) {
      u[e] += (rz / pw) * pp[e];
      rr[e] -= (rz / pw) * ww[e];
    }
    rzold = rz;
    __syncthreads();
  }
  for (int e = threadIdx.x; e < nt; e += blockDim.x) dl[VPDLocalIndex(g, v[0] * k - k + 1 + e % ni, v[1] * k - k + 1 + (e / ni) % ni, DIM == 3 ? v[2] * k - k + 1 + e / (ni * ni) : 0)] += u[e];
}

/* shared memory of one block, in bytes, with B cells at a time */
static size_t VPPatchCGShared(PetscInt dim, PetscInt k, int B)
{
  const size_t n = (size_t)k + 1, np = 2 * (size_t)k + 1, ni = 2 * (size_t)k - 1;
  const size_t nd = dim == 3 ? n * n * n : n * n, npt = dim == 3 ? np * np * np : np * np, nt = dim == 3 ? ni * ni * ni : ni * ni;
  return sizeof(PetscReal) * (8 * nt + 2 * npt + 7 * (size_t)B * nd + 33);
}

PetscErrorCode VPPatchCGColor_CUDA(const VPGrid *g, const VPPatchCGTables *t, PetscInt color, const PetscReal *d_pg, const PetscReal *d_geo, const PetscScalar *diag, const PetscScalar *bl, PetscScalar *dl)
{
  int          vlo[3], nv[3], dev, maxshmem, B;
  size_t       shmem;
  const int    thr = 256;
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!VPPatchColorVertices(g, color, vlo, nv)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaDeviceGetAttribute(&maxshmem, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  for (B = 1 << g->dim; B > 1 && VPPatchCGShared(g->dim, g->k, B) > (size_t)maxshmem / 2; B /= 2) {} /* all the patch's cells at once where half an SM's shared memory holds them */
  shmem = VPPatchCGShared(g->dim, g->k, B);
  PetscCheck(shmem <= (size_t)maxshmem, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "PCVPATCH local solver cg on the GPU: a patch of Q_%" PetscInt_FMT " in %" PetscInt_FMT "D needs %zu bytes of shared memory, the GPU allows %d: use a lower degree, or run on the CPU (-dm_vec_type standard)", g->k, g->dim, shmem,
             maxshmem);
  PetscCall(VPGetStream(&stream));
  if (g->dim == 3) {
    PetscCallCUDA(cudaFuncSetAttribute(VPPatchCGKernel<3>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem));
    VPPatchCGKernel<3><<<nv[0] * nv[1] * nv[2], thr, shmem, stream>>>(*g, *t, B, vlo[0], vlo[1], vlo[2], nv[0], nv[1], d_pg, d_geo, diag, bl, dl);
  } else {
    PetscCallCUDA(cudaFuncSetAttribute(VPPatchCGKernel<2>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem));
    VPPatchCGKernel<2><<<nv[0] * nv[1], thr, shmem, stream>>>(*g, *t, B, vlo[0], vlo[1], vlo[2], nv[0], nv[1], d_pg, d_geo, diag, bl, dl);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}
