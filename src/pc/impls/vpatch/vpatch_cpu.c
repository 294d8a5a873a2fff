/*
  CPU kernel of PCVPATCH (plain pointers): the colored multiplicative vertex-patch smoother with
  localized residuals and exact local solves by fast diagonalization.

  A patch of vertex v is the 2^d cells around v: (2k+1)^d nodes, (2k-1)^d interior unknowns. On a
  Cartesian mesh the patch matrix is A_v = M_y (x) K_x + K_y (x) M_x (3D likewise) with the 1D patch
  matrices, and A_v^{-1} = (S_y (x) S_x) diag(1/(lam_y + lam_x)) (S_y (x) S_x)^T.
*/
#include <petscvpatch/private/vpkernels.h>
#include <petscvpatch/private/vpcontract.h>
#include <petscvpatch/private/vpprofile.h>
#include <petscsys.h>
#include <lapacke.h>

/* A_patch x over the whole patch, by sum factorization with the (2k+1)^2 1D matrices */
static void PatchApply(const VPPatchOp *op, PetscInt np, const PetscScalar *x, PetscScalar *v, PetscScalar *a, PetscScalar *t1, PetscScalar *t2, PetscScalar *t3)
{
  PetscInt ext[3] = {np, np, op->dim == 3 ? np : 1}, nt = ext[0] * ext[1] * ext[2];

  VPContract(ext, 0, np, op->Mp[0], PETSC_FALSE, x, a);
  VPContract(ext, 0, np, op->Kp[0], PETSC_FALSE, x, t1);
  if (op->dim == 2) {
    VPContract(ext, 1, np, op->Kp[1], PETSC_FALSE, a, v);
    VPContract(ext, 1, np, op->Mp[1], PETSC_FALSE, t1, t2);
    for (PetscInt i = 0; i < nt; i++) v[i] += t2[i];
  } else {
    VPContract(ext, 1, np, op->Mp[1], PETSC_FALSE, t1, t2);
    VPContract(ext, 1, np, op->Kp[1], PETSC_FALSE, a, t3);
    for (PetscInt i = 0; i < nt; i++) t2[i] += t3[i];
    VPContract(ext, 2, np, op->Mp[2], PETSC_FALSE, t2, v);
    VPContract(ext, 1, np, op->Mp[1], PETSC_FALSE, a, t1);
    VPContract(ext, 2, np, op->Kp[2], PETSC_FALSE, t1, t3);
    for (PetscInt i = 0; i < nt; i++) v[i] += t3[i];
  }
}

/* u = A_v^{-1} r on the (2k-1)^d interior, by fast diagonalization (or the dense LU); gv: NULL, or the surrogate's
   per-direction factors and mv its mass term (the eigenvalue of mode (i, j, l) is mv + sum_d gv[d] lam_d) */
static PetscErrorCode PatchSolve(const VPPatchOp *op, const PetscReal *gv, PetscReal mv, const PetscScalar *LU, const int *piv, PetscInt ni, PetscScalar *r, PetscScalar *u, PetscScalar *t)
{
  const PetscReal g0 = gv ? gv[0] : 1.0, g1 = gv ? gv[1] : 1.0, g2 = gv ? gv[2] : 1.0;

  PetscInt ext[3] = {ni, ni, op->dim == 3 ? ni : 1};

  PetscFunctionBegin;
  if (LU || op->LU) { /* the patch's own LU (mapped DMQBOX), or the one of every patch (Cartesian) */
    lapack_int n = (lapack_int)(ext[0] * ext[1] * ext[2]), info;
    for (PetscInt i = 0; i < n; i++) u[i] = r[i];
    info = LAPACKE_dgetrs(LAPACK_ROW_MAJOR, 'N', n, 1, LU ? LU : op->LU, n, LU ? piv : op->piv, u, 1);
    PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK getrs failed: %d", (int)info);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  VPContract(ext, 0, ni, op->S[0], PETSC_TRUE, r, t);
  if (op->dim == 2) {
    VPContract(ext, 1, ni, op->S[1], PETSC_TRUE, t, u);
    for (PetscInt j = 0; j < ni; j++)
      for (PetscInt i = 0; i < ni; i++) u[j * ni + i] /= mv + g0 * op->lam[0][i] + g1 * op->lam[1][j];
    VPContract(ext, 1, ni, op->S[1], PETSC_FALSE, u, t);
    VPContract(ext, 0, ni, op->S[0], PETSC_FALSE, t, u);
  } else {
    VPContract(ext, 1, ni, op->S[1], PETSC_TRUE, t, u);
    VPContract(ext, 2, ni, op->S[2], PETSC_TRUE, u, t);
    for (PetscInt l = 0; l < ni; l++)
      for (PetscInt j = 0; j < ni; j++)
        for (PetscInt i = 0; i < ni; i++) t[(l * ni + j) * ni + i] /= mv + g0 * op->lam[0][i] + g1 * op->lam[1][j] + g2 * op->lam[2][l];
    VPContract(ext, 2, ni, op->S[2], PETSC_FALSE, t, u);
    VPContract(ext, 1, ni, op->S[1], PETSC_FALSE, u, t);
    VPContract(ext, 0, ni, op->S[0], PETSC_FALSE, t, u);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* patch iv's profile surrogate (pl->prof) as a VPPatchOp: its own eigenpairs and interior 1D diagonals (the factors g_d
   folded in: gv = 1) */
static const VPPatchOp *PatchProfileOp(const VPGrid *g, const VPPatchLocal *pl, PetscInt iv, VPPatchOp *po, PetscReal gv[3])
{
  const int        k = (int)g->k, ni = 2 * k - 1, np = 2 * k + 1;
  const PetscReal *pt = pl->prof + (size_t)iv * VPProfileSize(k);

  po->dim = 3;
  po->k   = k;
  po->LU  = NULL;
  po->piv = NULL;
  for (int d = 0; d < 3; d++) {
    gv[d] = 1.0;
    for (int i = 0; i < ni; i++) {
      po->lam[d][i]                   = pt[VPProfileLam(k, d) + i];
      po->Kp[d][(i + 1) * np + i + 1] = pt[VPProfileKd(k, d) + i];
      po->Mp[d][(i + 1) * np + i + 1] = pt[VPProfileMd(k, d) + i];
      for (int j = 0; j < ni; j++) po->S[d][i * ni + j] = pt[d * ni * ni + i * ni + j];
    }
  }
  return po;
}

/* interior node e = (ix, iy, iz) of a patch (ni per direction) <-> its index in the patch box (np per direction) */
static inline PetscInt PatchBoxIndex(PetscInt dim, PetscInt ni, PetscInt np, PetscInt e)
{
  return ((dim == 3 ? e / (ni * ni) + 1 : 0) * np + (e / ni) % ni + 1) * np + e % ni + 1;
}

/* the factors of the 2^d cells of patch v (cell cc at v - 1 + bit d of cc): in pl->geo, the box [gclo, gclo + gcm) */
static void PatchCellsBox(const VPGrid *g, const VPPatchLocal *pl, const PetscInt v[3], const PetscReal *G[8])
{
  const PetscInt nd = VPGridCellNodes(g), ncomp = VPGeometryComponents(g->dim);
  for (PetscInt cc = 0; cc < (1 << g->dim); cc++) {
    PetscInt cell = 0;
    for (PetscInt d = g->dim - 1; d >= 0; d--) cell = cell * pl->gcm[d] + (v[d] - 1 + ((cc >> d) & 1) - pl->gclo[d]);
    G[cc] = pl->geo + cell * ncomp * nd;
  }
}

/* w = A_v p on the patch's interior: the true operator of its 2^d cells (matrix-free, VPMappedCellApply_CPU(), the
   factors G of cell cc at v - 1 + bit d of cc), p zero on the patch's boundary; v: the patch's vertex */
static PetscErrorCode PatchTrueApply(const VPGrid *g, const VPPatchLocal *pl, const PetscReal *const G[8], const PetscScalar *p, PetscScalar *w, PetscScalar *box, PetscScalar *boxo, PetscScalar *cu, PetscScalar *cv, PetscScalar *cw)
{
  const PetscInt dim = g->dim, k = g->k, n = k + 1, np = 2 * k + 1, ni = 2 * k - 1, npt = np * np * (dim == 3 ? np : 1), nt = ni * ni * (dim == 3 ? ni : 1);
  const PetscInt nd = n * n * (dim == 3 ? n : 1);

  PetscFunctionBegin;
  for (PetscInt e = 0; e < npt; e++) box[e] = boxo[e] = 0;
  for (PetscInt e = 0; e < nt; e++) box[PatchBoxIndex(dim, ni, np, e)] = p[e];
  for (PetscInt cc = 0; cc < (1 << dim); cc++) {
    PetscInt off[3] = {0, 0, 0};
    for (PetscInt d = 0; d < dim; d++) off[d] = ((cc >> d) & 1) * k;
    for (PetscInt l = 0; l < nd; l++) cu[l] = box[((dim == 3 ? off[2] + l / (n * n) : 0) * np + off[1] + (l / n) % n) * np + off[0] + l % n];
    PetscCall(VPMappedCellApply_CPU(dim, pl->basis, G[cc], cu, cv, cw));
    for (PetscInt l = 0; l < nd; l++) boxo[((dim == 3 ? off[2] + l / (n * n) : 0) * np + off[1] + (l / n) % n) * np + off[0] + l % n] += cv[l];
  }
  for (PetscInt e = 0; e < nt; e++) w[e] = boxo[PatchBoxIndex(dim, ni, np, e)];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* sc = (Dt / D)^1/2 on patch v's interior: Dt the diagonal of its surrogate (factors gv, mass term mv), D the
   operator's (pl->diag) */
static void PatchScaling(const VPGrid *g, const VPPatchOp *op, const VPPatchLocal *pl, const PetscReal *gv, PetscReal mv, const PetscInt v[3], PetscScalar *sc)
{
  const PetscInt dim = g->dim, k = g->k, np = 2 * k + 1, ni = 2 * k - 1, nt = ni * ni * (dim == 3 ? ni : 1);

  for (PetscInt e = 0; e < nt; e++) {
    PetscInt  ix = e % ni + 1, iy = (e / ni) % ni + 1, iz = dim == 3 ? e / (ni * ni) + 1 : 0, p[3];
    PetscReal Kd[3], Md[3], dt                            = 0;
    Kd[0] = op->Kp[0][ix * np + ix];
    Md[0] = op->Mp[0][ix * np + ix];
    Kd[1] = op->Kp[1][iy * np + iy];
    Md[1] = op->Mp[1][iy * np + iy];
    Kd[2] = dim == 3 ? op->Kp[2][iz * np + iz] : 0;
    Md[2] = dim == 3 ? op->Mp[2][iz * np + iz] : 1;
    for (PetscInt d = 0; d < dim; d++) dt += gv[d] * Kd[d] * Md[(d + 1) % dim] * (dim == 3 ? Md[(d + 2) % 3] : 1);
    dt += mv * Md[0] * Md[1] * Md[2];
    p[0]  = v[0] * k - k + ix;
    p[1]  = v[1] * k - k + iy;
    p[2]  = dim == 3 ? v[2] * k - k + iz : 0;
    sc[e] = PetscSqrtReal(dt / PetscRealPart(pl->diag[VPGridLocalIndex(g, p)]));
  }
}

/* z = Dsc Atilde^-1 Dsc r (the scaled surrogate's solve; sc from PatchScaling()), and its r^T z */
static PetscErrorCode PatchScaledSolve(const VPPatchOp *op, const PetscReal *gv, PetscReal mv, PetscInt nt, PetscInt ni, const PetscScalar *sc, const PetscScalar *r, PetscScalar *z, PetscScalar *tmp, PetscScalar *t, PetscScalar *rz)
{
  PetscFunctionBegin;
  for (PetscInt e = 0; e < nt; e++) tmp[e] = sc[e] * r[e];
  PetscCall(PatchSolve(op, gv, mv, NULL, NULL, ni, tmp, z, t));
  *rz = 0;
  for (PetscInt e = 0; e < nt; e++) {
    z[e] *= sc[e];
    *rz += r[e] * z[e];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* u ~ A_v^-1 r by pl->its preconditioned CG steps (VPPatchLocal), from u = 0; gv: the patch's surrogate factors, mv its
   mass term, iv its vertex's index. With pl->damp > 0 (local solver scaled) u = damp z (pl->w: its own damping), z the
   preconditioner's solve, and no step on the true operator (which has no mass term: the local solver cg takes none). */
static PetscErrorCode PatchCG(const VPGrid *g, const VPPatchOp *op, const VPPatchLocal *pl, const PetscReal *gv, PetscReal mv, const PetscInt v[3], PetscInt iv, const PetscScalar *r, PetscScalar *u, PetscScalar *t, PetscScalar *work)
{
  const PetscInt   dim = g->dim, k = g->k, np = 2 * k + 1, ni = 2 * k - 1, npt = np * np * (dim == 3 ? np : 1), nt = ni * ni * (dim == 3 ? ni : 1);
  PetscScalar     *rr = work, *z = rr + npt, *pp = z + npt, *ww = pp + npt, *sc = ww + npt, *tmp = sc + npt, *box = tmp + npt, *boxo = box + npt, *cu = boxo + npt, *cv = cu + npt, *cw = cv + npt;
  PetscScalar      rz = 0, rzold = 1, rz0 = 0;
  const PetscReal *G[8];
  VPPatchOp        po;
  PetscReal        gp[3];

  PetscFunctionBegin;
  if (pl->prof) {
    op = PatchProfileOp(g, pl, iv, &po, gp);
    gv = gp;
  }
  PatchScaling(g, op, pl, gv, mv, v, sc);
  for (PetscInt e = 0; e < nt; e++) {
    rr[e] = r[e];
    u[e]  = 0;
  }
  if (pl->damp <= 0) PatchCellsBox(g, pl, v, G); /* CG steps on the true operator */
  for (PetscInt it = 0; it < pl->its; it++) {
    PetscScalar pw = 0;
    PetscCall(PatchScaledSolve(op, gv, mv, nt, ni, sc, rr, z, tmp, t, &rz));
    if (pl->damp > 0) {
      const PetscReal w = pl->w ? pl->w[iv] : pl->damp;
      for (PetscInt e = 0; e < nt; e++) u[e] = w * z[e];
      break;
    }
    if (!it) rz0 = rz;
    if (!(PetscRealPart(rz) > VP_PATCH_CG_RTOL2 * PetscRealPart(rz0))) break; /* converged to round-off, or a zero residual: a further step would divide by it */
    for (PetscInt e = 0; e < nt; e++) pp[e] = it ? z[e] + (rz / rzold) * pp[e] : z[e];
    PetscCall(PatchTrueApply(g, pl, G, pp, ww, box, boxo, cu, cv, cw));
    for (PetscInt e = 0; e < nt; e++) pw += pp[e] * ww[e];
    if (PetscRealPart(pw) <= 0) break; /* rr = 0 (or round-off): nothing left to correct */
    for (PetscInt e = 0; e < nt; e++) {
      u[e] += (rz / pw) * pp[e];
      rr[e] -= (rz / pw) * ww[e];
    }
    rzold = rz;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPPatchSmoothColor_CPU(const VPGrid *g, const VPPatchOp *op, const VPPatchLocal *pl, PetscInt color, PetscBool additive, const PetscScalar *bl, const PetscScalar *xl, PetscScalar *dl, PetscScalar *work)
{
  PetscInt     k = g->k, np = 2 * k + 1, ni = 2 * k - 1, dim = g->dim;
  PetscInt     npz = dim == 3 ? np : 1, niz = dim == 3 ? ni : 1, npt = np * np * npz;
  PetscInt     vlo[3], nv[3];
  PetscScalar *xp = work, *v = xp + npt, *a = v + npt, *t1 = a + npt, *t2 = t1 + npt, *t3 = t2 + npt, *r = t3 + npt, *u = r + npt;

  PetscFunctionBegin;
  VPPatchVertexBox(g, vlo, nv); /* this rank's vertices: the lower corners of its cells, interior to the domain */
  for (PetscInt vz = vlo[2]; vz < vlo[2] + nv[2]; vz++)
    for (PetscInt vy = vlo[1]; vy < vlo[1] + nv[1]; vy++)
      for (PetscInt vx = vlo[0]; vx < vlo[0] + nv[0]; vx++) {
        PetscInt c = (vx % 2) + 2 * (vy % 2) + 4 * (vz % 2), p[3], e = 0, iv = ((vz - vlo[2]) * nv[1] + vy - vlo[1]) * nv[0] + vx - vlo[0];
        if (!additive && c != color) continue;
        /* localized residual on the interior */
        if (xl) {
          for (PetscInt iz = 0; iz < npz; iz++)
            for (PetscInt iy = 0; iy < np; iy++)
              for (PetscInt ix = 0; ix < np; ix++, e++) {
                p[0]  = vx * k - k + ix;
                p[1]  = vy * k - k + iy;
                p[2]  = dim == 3 ? vz * k - k + iz : 0;
                xp[e] = VPGridIsBoundary(g, p) ? 0.0 : xl[VPGridLocalIndex(g, p)];
              }
          PatchApply(op, np, xp, v, a, t1, t2, t3);
        }
        e = 0;
        for (PetscInt iz = 0; iz < niz; iz++)
          for (PetscInt iy = 0; iy < ni; iy++)
            for (PetscInt ix = 0; ix < ni; ix++, e++) {
              PetscInt f = ((dim == 3 ? iz + 1 : 0) * np + iy + 1) * np + ix + 1;
              p[0]       = vx * k - k + 1 + ix;
              p[1]       = vy * k - k + 1 + iy;
              p[2]       = dim == 3 ? vz * k - k + 1 + iz : 0;
              r[e]       = bl[VPGridLocalIndex(g, p)] - (xl ? v[f] : 0.0);
            }
        PetscInt nt = ni * ni * niz;
        if (pl && pl->its > 0) {
          PetscInt vv[3] = {vx, vy, vz};
          PetscCall(PatchCG(g, op, pl, pl->g + 3 * iv, pl->m ? pl->m[iv] : 0.0, vv, iv, r, u, t1, work + 8 * npt));
        } else if (pl && pl->prof) {
          VPPatchOp po;
          PetscReal gp[3];
          PetscCall(PatchSolve(PatchProfileOp(g, pl, iv, &po, gp), gp, 0.0, NULL, NULL, ni, r, u, t1));
        } else
          PetscCall(PatchSolve(op, pl && pl->g ? pl->g + 3 * iv : NULL, pl && pl->m ? pl->m[iv] : 0.0, pl && pl->LU ? pl->LU + nt * nt * iv : NULL, pl && pl->piv ? pl->piv + nt * iv : NULL, ni, r, u, t1));
        e = 0;
        for (PetscInt iz = 0; iz < niz; iz++)
          for (PetscInt iy = 0; iy < ni; iy++)
            for (PetscInt ix = 0; ix < ni; ix++, e++) {
              p[0] = vx * k - k + 1 + ix;
              p[1] = vy * k - k + 1 + iy;
              p[2] = dim == 3 ? vz * k - k + 1 + iz : 0;
              dl[VPGridLocalIndex(g, p)] += u[e];
            }
      }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPPatchDampings_CPU(const VPGrid *g, const VPPatchOp *op, const VPPatchLocal *pl, PetscReal stiff, const PetscReal *geo, const PetscReal *lgeo, PetscInt steps, PetscReal theta, PetscReal *w, PetscScalar *work)
{
  const PetscInt k = g->k, np = 2 * k + 1, ni = 2 * k - 1, npt = np * np * np, nt = ni * ni * ni, nd = VPGridCellNodes(g), ncomp = VPGeometryComponents(3);
  PetscScalar   *r = work, *z = r + npt, *p = z + npt, *q = p + npt, *sc = q + npt, *tmp = sc + npt, *box = tmp + npt, *boxo = box + npt, *cu = boxo + npt, *cv = cu + npt, *t = cv + npt, *cw = t + npt; /* cw: 6 (k+1)^3 */
  PetscInt       vlo[3], nv[3];

  PetscFunctionBegin;
  PetscCheck(g->dim == 3 && steps >= 1 && steps <= VP_PATCH_LANCZOS_MAX, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the patch dampings are built in 3D for 1 to %d Lanczos steps", VP_PATCH_LANCZOS_MAX);
  VPPatchVertexBox(g, vlo, nv);
  for (PetscInt vz = 0, iv = 0; vz < nv[2]; vz++)
    for (PetscInt vy = 0; vy < nv[1]; vy++)
      for (PetscInt vx = 0; vx < nv[0]; vx++, iv++) {
        const PetscInt   v[3] = {vlo[0] + vx, vlo[1] + vy, vlo[2] + vz};
        const PetscReal *G[8], *gv                                               = pl->g + 3 * iv;
        double           alpha[VP_PATCH_LANCZOS_MAX], beta[VP_PATCH_LANCZOS_MAX] = {0}, a[VP_PATCH_LANCZOS_MAX], b[VP_PATCH_LANCZOS_MAX];
        PetscScalar      rz = 0, rzold = 0, rz0 = 0;
        int              m = 0;

        for (PetscInt cc = 0; cc < 8; cc++) { /* the owned cells' factors, or the layer's */
          const int c[3] = {(int)(v[0] - 1 + (cc & 1)), (int)(v[1] - 1 + ((cc >> 1) & 1)), (int)(v[2] - 1 + (cc >> 2))};
          long long l    = VPLayerCellIndex(g->cs, g->cm, c);
          G[cc]          = l < 0 ? geo + (((c[2] - g->cs[2]) * g->cm[1] + c[1] - g->cs[1]) * g->cm[0] + c[0] - g->cs[0]) * ncomp * nd : lgeo + l * ncomp * nd;
        }
        VPPatchOp        po;
        PetscReal        gp[3];
        const VPPatchOp *opv = op;
        if (pl->prof) {
          opv = PatchProfileOp(g, pl, iv, &po, gp);
          gv  = gp;
        }
        PatchScaling(g, opv, pl, gv, 0.0, v, sc);
        for (PetscInt e = 0; e < nt; e++) r[e] = VPLanczosStart((int)e);
        for (PetscInt j = 0; j <= steps; j++) { /* steps steps, and of one more its r^T z (the Lanczos residual) */
          PetscScalar pq = 0;
          PetscCall(PatchScaledSolve(opv, gv, 0.0, nt, ni, sc, r, z, tmp, t, &rz));
          if (!j) rz0 = rz;
          if (!(PetscRealPart(rz) > VP_PATCH_CG_RTOL2 * PetscRealPart(rz0))) break; /* an invariant subspace: T is exact */
          if (j) beta[j - 1] = PetscRealPart(rz / rzold);
          if (j == steps) break;
          for (PetscInt e = 0; e < nt; e++) p[e] = j ? z[e] + (rz / rzold) * p[e] : z[e];
          PetscCall(PatchTrueApply(g, pl, G, p, q, box, boxo, cu, cv, cw));
          for (PetscInt e = 0; e < nt; e++) {
            q[e] *= stiff;
            pq += p[e] * q[e];
          }
          if (!(PetscRealPart(pq) > 0)) break;
          alpha[j] = PetscRealPart(rz / pq);
          for (PetscInt e = 0; e < nt; e++) r[e] -= alpha[j] * q[e];
          rzold = rz;
          m     = (int)j + 1;
        }
        VPLanczosFromCG(m, alpha, beta, a, b);
        w[iv] = m ? PetscMin(1.0, theta / VPLanczosMax(m, a, b, m == steps && beta[m - 1] > 0 ? PetscSqrtReal(beta[m - 1]) / alpha[m - 1] : 0.0)) : pl->damp; /* no step (r^T z = 0 from the start): the damping of all */
      }
  PetscFunctionReturn(PETSC_SUCCESS);
}
