/*
  PCVPATCH's mapped variant (host glue; the kernels are vpatch_cpu.c, cuda/vpatch.cu and cuda/vpatch_cg.cu): a DMQBOX
  with a map of the box or a coefficient. The patch matrix is no Kronecker sum: each patch solves a separable surrogate
  (its per-direction factors from the cells' geometric factors) by fast diagonalization, or takes CG steps on its true
  operator preconditioned by it (-pc_vpatch_local_solver cg), or its exact dense LU (dense, CPU, for verification); each
  color's residual comes from the operator (MatMult), so the sweep converges with the inexact solves.
*/
#include <petscvpatch/private/pcvpatchimpl.h>
#include <petscvpatch/private/vpprofile.h>
#include <lapacke.h>

/* node r (lexicographic among the cell's (k+1)^d) of a cell whose first node sits at off[] in its patch: its index among
   the patch's (2k-1)^d interior nodes, or -1 on the patch's boundary */
static inline PetscInt PatchInterior(PetscInt dim, PetscInt k, const PetscInt off[3], PetscInt r, PetscInt n1)
{
  PetscInt p[3] = {off[0] + r % n1, off[1] + (r / n1) % n1, dim == 3 ? off[2] + r / (n1 * n1) : 1}, ni = 2 * k - 1;
  for (PetscInt d = 0; d < dim; d++)
    if (p[d] < 1 || p[d] > ni) return -1;
  return (p[0] - 1) + ni * ((p[1] - 1) + (dim == 3 ? ni * (p[2] - 1) : 0));
}

/* the factors G of cell c of this rank's cells or the layer below them: a pointer into the DM's (owned cells), or into
   the DM's factors of the layer (DMQBoxGetLayerGeometry_Private()) */
static PetscErrorCode PCVPatchCellFactors(PC_VPatch *jac, const PetscReal *geo, const PetscInt c[3], const PetscReal **Gc)
{
  const VPGrid   *g      = &((DM_QBox *)jac->dm->data)->grid;
  const PetscInt  stride = VPGeometryComponents(g->dim) * VPGridCellNodes(g);
  const int       ci[3]  = {(int)c[0], (int)c[1], (int)c[2]};
  const long long l      = VPLayerCellIndex(g->cs, g->cm, ci);

  PetscFunctionBegin;
  if (l < 0)
    *Gc = geo + (((c[2] - g->cs[2]) * g->cm[1] + c[1] - g->cs[1]) * g->cm[0] + c[0] - g->cs[0]) * stride;
  else {
    const PetscReal *lgeo;
    PetscCall(DMQBoxGetLayerGeometry_Private(jac->dm, &lgeo, NULL, NULL));
    *Gc = lgeo + l * stride;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the mass factors w det J of cell c (DMQBoxCellMassFactors_Private()): the DM's own for a cell of this rank (computed
   once for the operator), else computed into m */
static PetscErrorCode PCVPatchCellMassFactors(PC_VPatch *jac, const PetscInt c[3], PetscReal *m, PetscReal *work, const PetscReal **mc)
{
  const VPGrid    *g     = &((DM_QBox *)jac->dm->data)->grid;
  PetscBool        owned = PETSC_TRUE;
  const PetscReal *mgeo;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < g->dim; d++)
    if (c[d] < g->cs[d]) owned = PETSC_FALSE;
  if (owned) {
    PetscCall(DMQBoxGetMassGeometry_Private(jac->dm, &mgeo, NULL));
    *mc = mgeo + (((c[2] - g->cs[2]) * g->cm[1] + c[1] - g->cs[1]) * g->cm[0] + c[0] - g->cs[0]) * VPGridCellNodes(g);
  } else {
    PetscCall(DMQBoxCellMassFactors_Private(jac->dm, c, m, work));
    *mc = m;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the values of cell c (VPSurrogateInfo): for d < dim the largest point value of G_dd or its integral over the cell, and
   the cell's volume (the integral of w det J; the unit cell's is 1) where there is a mass term */
static PetscErrorCode PCVPatchCellValues(PC_VPatch *jac, const PetscReal *geo, const PetscInt c[3], const PetscReal *Gpre, PetscReal *mq, PetscReal *work, PetscReal v[4])
{
  DM_QBox         *q  = (DM_QBox *)jac->dm->data;
  const VPBasis1D *b  = &q->basis;
  PetscInt         nd = VPGridCellNodes(&q->grid), dim = q->grid.dim, n1 = q->grid.k + 1;
  const PetscReal *Gc = Gpre;

  PetscFunctionBegin;
  if (!Gc) PetscCall(PCVPatchCellFactors(jac, geo, c, &Gc));
  for (PetscInt d = 0; d < 3; d++) {
    PetscReal gd = 0;
    if (d < dim && jac->surtype == PC_VPATCH_SURROGATE_POINTMAX) /* the entry itself: the factor over the point's weight */
      for (PetscInt qp = 0; qp < nd; qp++) gd = PetscMax(gd, Gc[d * nd + qp] / (b->qwts[qp % n1] * b->qwts[(qp / n1) % n1] * (dim == 3 ? b->qwts[qp / (n1 * n1)] : 1.0)));
    else if (d < dim) /* its integral over the cell */
      for (PetscInt qp = 0; qp < nd; qp++) gd += Gc[d * nd + qp];
    v[d] = gd;
  }
  v[3] = 0;
  if (jac->opw.mass != 0) {
    const PetscReal *mc;
    PetscCall(PCVPatchCellMassFactors(jac, c, mq, work, &mc));
    for (PetscInt qp = 0; qp < nd; qp++) v[3] += mc[qp];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
/* the GPU path of PCVPatchSetUpSurrogate(): the values of the owned cells and of the layer below them (cells of other
   ranks) from the DM's device factors (with a mass term the layer's on the host); d_pg and d_pm without a host copy */
static PetscErrorCode PCVPatchSetUpSurrogateCUDA(PC_VPatch *jac, const PetscInt clo[3], const PetscInt cn[3], PetscBool below)
{
  DM_QBox         *q = (DM_QBox *)jac->dm->data;
  const VPGrid    *g = &q->grid;
  VPSurrogateInfo  s;
  const PetscReal *d_mgeo = NULL, *d_lgeo = NULL;
  VPGeoRef         geo;
  PetscReal       *hcgv = NULL;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&s, sizeof(s)));
  s.dim      = g->dim;
  s.n1       = g->k + 1;
  s.ncomp    = VPGeometryComponents(g->dim);
  s.pointmax = (PetscBool)(jac->surtype == PC_VPATCH_SURROGATE_POINTMAX);
  s.mean     = (PetscBool)(jac->surtype == PC_VPATCH_SURROGATE_MEAN);
  s.stiff    = jac->opw.stiff;
  s.mass     = jac->opw.mass;
  for (PetscInt i = 0; i < s.n1; i++) s.qwts[i] = q->basis.qwts[i];
  for (PetscInt d = 0; d < 3; d++) {
    s.clo[d] = clo[d];
    s.cn[d]  = cn[d];
    s.cs[d]  = g->cs[d];
    s.cm[d]  = g->cm[d];
  }
  VPPatchVertexBox(g, s.vlo, s.nv);
  PetscCall(DMQBoxGetGeometryRef_Private(jac->dm, &geo)); /* split or not: a set-up again in a mixed cycle leaves them split */
  if (jac->opw.mass != 0) PetscCall(DMQBoxGetMassGeometry_Private(jac->dm, NULL, &d_mgeo));
  if (below && jac->opw.mass == 0)
    PetscCall(DMQBoxGetLayerGeometry_Private(jac->dm, NULL, &d_lgeo, NULL)); /* the layer of cells below this rank's: the DM's factors of it */
  else if (below) {                                                          /* with a mass term its values on the host, the mass factors of those cells computed there */
    PetscInt   nd = VPGridCellNodes(g);
    PetscReal *work, *mq;
    PetscCall(PetscCalloc1(4 * cn[0] * cn[1] * cn[2], &hcgv));
    PetscCall(PetscMalloc2(PetscMax(2 * g->dim + g->dim * g->dim + 2, g->dim * nd) * nd, &work, nd, &mq));
    for (PetscInt cz = 0, ic = 0; cz < cn[2]; cz++)
      for (PetscInt cy = 0; cy < cn[1]; cy++)
        for (PetscInt cx = 0; cx < cn[0]; cx++, ic++) {
          PetscInt c[3] = {clo[0] + cx, clo[1] + cy, clo[2] + cz};
          if (c[0] >= g->cs[0] && c[1] >= g->cs[1] && c[2] >= g->cs[2]) continue; /* owned: the kernel's */
          PetscCall(PCVPatchCellValues(jac, NULL, c, NULL, mq, work, hcgv + 4 * ic));
        }
    PetscCall(PetscFree2(work, mq));
  }
  PetscCall(VPSurrogateFactors_CUDA(&s, geo, d_mgeo, d_lgeo, hcgv, &jac->d_pg, &jac->d_pm));
  PetscCall(PetscFree(hcgv));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/*
  The separable surrogate of each patch of a mapped DMQBOX (or one with a coefficient): the patch operator is replaced by
  sum_d g_d Khat_d (x) Mhat_(others) on the unit reference patch, whose inverse is fast diagonalization with the unit
  patch's eigenvectors and the eigenvalues sum_d g_d lamhat_d. g_d comes from the diagonal entry a det(J) (J^-1 J^-T)_dd
  over the patch's 2^d cells (-pc_vpatch_surrogate): its largest value at a quadrature point (pointmax), the largest of its
  integrals over a cell (cellmax), or the mean of those integrals (mean; on Cartesian cells with a constant coefficient,
  vol / h_d^2 a: the exact patch solve). The off-diagonal entries of G and the variation inside the patch are left out;
  the residual is the true one. The sweep converges when the surrogate is not much smaller than the patch matrix
  (2 Atilde_v > A_v): the largest point value assures that where the coefficient varies inside a cell (coarse levels),
  at the price of a slower sweep where it varies strongly (more iterations at contrast 1e6 than mean, measured).
  With a mass term each patch's surrogate adds the mass weight times the mean volume of its cells to every eigenvalue
  (the unit patch's mass matrix has S^T M S = I).
  The cells owned by another process (the layer below this rank's cells) take the DM's factors of that layer
  (DMQBoxGetLayerGeometry_Private()). With CUDA vectors the GPU computes the surrogate from its own copy of both
  (PCVPatchSetUpSurrogateCUDA()), except for the local solver cg with a layer of cells below, which needs the host
  factors of both.
*/
static PetscErrorCode PCVPatchSetUpSurrogate(PC_VPatch *jac)
{
  DM_QBox         *q  = (DM_QBox *)jac->dm->data;
  const VPGrid    *g  = &q->grid;
  const VPBasis1D *b  = &q->basis;
  PetscInt         nd = VPGridCellNodes(g), ncomp = VPGeometryComponents(g->dim), dim = g->dim, n1 = g->k + 1, vlo[3], nv[3], nvert;
  const PetscReal *geo = NULL;
  PetscReal       *work, *mq;
  PetscScalar     *Ae;
  PetscInt         nt = (2 * g->k - 1) * (2 * g->k - 1) * (g->dim == 3 ? 2 * g->k - 1 : 1), clo[3], cn[3], ncb = 1;
  PetscReal       *cgv;                 /* per cell of the box [clo, clo + cn) (this rank's cells and the layer below): the three values */
  PetscBool        below = PETSC_FALSE; /* the box has a layer of cells below this rank's */
  PetscBool        gpu;

  PetscFunctionBegin;
  VPPatchVertexBox(g, vlo, nv);
  for (PetscInt d = 0; d < 3; d++) {
    clo[d] = d < dim ? PetscMax(g->cs[d] - 1, 0) : 0;
    cn[d]  = d < dim ? g->cs[d] + g->cm[d] - clo[d] : 1;
    ncb *= cn[d];
    if (clo[d] < g->cs[d]) below = PETSC_TRUE;
  }
  nvert = nv[0] * nv[1] * nv[2];
  gpu   = (PetscBool)(jac->cuda && jac->local != PC_VPATCH_LOCAL_DENSE && !(jac->local == PC_VPATCH_LOCAL_CG && below));
  PetscCall(PetscMalloc2(PetscMax(2 * dim + dim * dim + 2, dim * nd) * nd, &work, jac->local == PC_VPATCH_LOCAL_DENSE ? 2 * nd * nd : 1, &Ae));
  PetscCall(PetscMalloc1(nd, &mq));
#if defined(PETSC_HAVE_CUDA)
  if (gpu) PetscCall(PCVPatchSetUpSurrogateCUDA(jac, clo, cn, below));
#endif
  if (!gpu) {
    PetscCall(DMQBoxGetGeometry_Private(jac->dm, &geo, NULL));
    PetscCall(PetscCalloc1(3 * PetscMax(nvert, 1), &jac->pg));
    if (jac->opw.mass != 0) PetscCall(PetscCalloc1(PetscMax(nvert, 1), &jac->pm));
    if (jac->local == PC_VPATCH_LOCAL_DENSE) PetscCall(PetscMalloc2(nt * nt * PetscMax(nvert, 1), &jac->pLU, nt * PetscMax(nvert, 1), &jac->ppiv));
    if (jac->local == PC_VPATCH_LOCAL_CG && below) { /* local solver cg: the factors of the layer below too, in one box */
      PetscCall(PetscMalloc1(ncb * ncomp * nd, &jac->pgeo));
      for (PetscInt cz = 0, ic = 0; cz < cn[2]; cz++)
        for (PetscInt cy = 0; cy < cn[1]; cy++)
          for (PetscInt cx = 0; cx < cn[0]; cx++, ic++) {
            PetscInt         c[3] = {clo[0] + cx, clo[1] + cy, clo[2] + cz};
            const PetscReal *Gc;
            PetscCall(PCVPatchCellFactors(jac, geo, c, &Gc));
            PetscCall(PetscArraycpy(jac->pgeo + ic * ncomp * nd, Gc, ncomp * nd));
          }
    }
    /* each cell's values once (a cell is in 2^d patches) */
    PetscCall(PetscMalloc1(4 * ncb, &cgv));
    for (PetscInt cz = 0, ic = 0; cz < cn[2]; cz++)
      for (PetscInt cy = 0; cy < cn[1]; cy++)
        for (PetscInt cx = 0; cx < cn[0]; cx++, ic++) {
          PetscInt c[3] = {clo[0] + cx, clo[1] + cy, clo[2] + cz};
          PetscCall(PCVPatchCellValues(jac, geo, c, jac->pgeo ? jac->pgeo + ic * ncomp * nd : NULL, mq, work, cgv + 4 * ic));
        }
    for (PetscInt vz = 0, iv = 0; vz < nv[2]; vz++)
      for (PetscInt vy = 0; vy < nv[1]; vy++)
        for (PetscInt vx = 0; vx < nv[0]; vx++, iv++) {
          PetscInt v[3] = {vlo[0] + vx, vlo[1] + vy, vlo[2] + vz};
          if (jac->pLU) PetscCall(PetscArrayzero(jac->pLU + nt * nt * iv, nt * nt));
          for (PetscInt cc = 0; cc < (1 << dim); cc++) {
            PetscInt c[3] = {0, 0, 0}, ic;
            for (PetscInt d = 0; d < dim; d++) c[d] = v[d] - 1 + ((cc >> d) & 1);
            ic = ((c[2] - clo[2]) * cn[1] + c[1] - clo[1]) * cn[0] + c[0] - clo[0];
            if (jac->pLU) { /* the exact patch matrix: this cell's matrix on the patch's interior nodes */
              PetscInt         n1d = n1 * n1 * (dim == 3 ? n1 : 1), off[3] = {0, 0, 0};
              const PetscReal *Gc;
              PetscCall(PCVPatchCellFactors(jac, geo, c, &Gc));
              PetscCall(VPMappedCellMatrix_CPU(dim, b, Gc, Ae, work));
              if (jac->opw.mass != 0 || jac->opw.stiff != 1) { /* the operator's weights (over their sum) */
                const PetscReal *mc;
                PetscCall(PCVPatchCellMassFactors(jac, c, mq, work, &mc));
                PetscCall(VPMappedCellMassMatrix_CPU(dim, b, mc, Ae + nd * nd));
                for (PetscInt e = 0; e < nd * nd; e++) Ae[e] = jac->opw.stiff * Ae[e] + jac->opw.mass * Ae[nd * nd + e];
              }
              for (PetscInt d = 0; d < dim; d++) off[d] = ((cc >> d) & 1) * g->k; /* the cell's first node in the patch */
              for (PetscInt r = 0; r < n1d; r++) {
                PetscInt pr = PatchInterior(dim, g->k, off, r, n1);
                if (pr < 0) continue;
                for (PetscInt t = 0; t < n1d; t++) {
                  PetscInt pt = PatchInterior(dim, g->k, off, t, n1);
                  if (pt >= 0) jac->pLU[nt * nt * iv + pr * nt + pt] += Ae[r * n1d + t];
                }
              }
            }
            for (PetscInt d = 0; d < dim; d++) {
              if (jac->surtype == PC_VPATCH_SURROGATE_MEAN)
                jac->pg[3 * iv + d] += cgv[4 * ic + d] / (1 << dim);
              else
                jac->pg[3 * iv + d] = PetscMax(jac->pg[3 * iv + d], cgv[4 * ic + d]);
            }
            if (jac->pm) jac->pm[iv] += jac->opw.mass * cgv[4 * ic + 3] / (1 << dim);
          }
          if (jac->pLU) {
            lapack_int info = LAPACKE_dgetrf(LAPACK_ROW_MAJOR, (lapack_int)nt, (lapack_int)nt, jac->pLU + nt * nt * iv, (lapack_int)nt, jac->ppiv + nt * iv);
            PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK getrf of the patch matrix of vertex (%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT ") failed: %d", v[0], v[1], v[2], (int)info);
          }
        }
    PetscCall(PetscFree(cgv));
    for (PetscInt i = 0; i < 3 * nvert; i++) jac->pg[i] *= jac->opw.stiff; /* the operator's weights over their sum */
    if (jac->cuda) PetscCall(VPDeviceCopy_Private(jac->pg, (size_t)3 * (size_t)PetscMax(nvert, 1), &jac->d_pg));
    if (jac->cuda && jac->pm) PetscCall(VPDeviceCopy_Private(jac->pm, (size_t)PetscMax(nvert, 1), &jac->d_pm));
  }
  if (jac->local == PC_VPATCH_LOCAL_CG || jac->local == PC_VPATCH_LOCAL_SCALED) { /* the factors of the cells the patches touch (pgeo, or the DM's own), and the diagonal */
    Vec dg, dl;
    for (PetscInt d = 0; d < 3; d++) {
      jac->plocal.gclo[d] = below ? clo[d] : g->cs[d];
      jac->plocal.gcm[d]  = below ? cn[d] : g->cm[d];
    }
    PetscCall(DMGetGlobalVector(jac->dm, &dg));
    PetscCall(DMGetLocalVector(jac->dm, &dl));
    PetscCall(MatGetDiagonal(jac->A, dg));
    if (jac->scale != (PetscScalar)1.0) PetscCall(VecScale(dg, 1.0 / jac->scale));
    PetscCall(DMGlobalToLocal(jac->dm, dg, INSERT_VALUES, dl));
    if (jac->cuda) { /* kept: the kernel reads its device array */
      PetscCall(VecDuplicate(dl, &jac->diagl));
      PetscCall(VecCopy(dl, jac->diagl));
    } else {
      const PetscScalar *a;
      PetscInt           nl;
      PetscCall(VecGetLocalSize(dl, &nl));
      PetscCall(PetscMalloc1(nl, &jac->pdiag));
      PetscCall(VecGetArrayRead(dl, &a));
      PetscCall(PetscArraycpy(jac->pdiag, a, nl));
      PetscCall(VecRestoreArrayRead(dl, &a));
    }
    PetscCall(DMRestoreLocalVector(jac->dm, &dl));
#if defined(PETSC_HAVE_CUDA)
    if (jac->cuda && jac->local == PC_VPATCH_LOCAL_CG) { /* the CG kernel's tables (scaled runs in the fast-diagonalization kernel); its factors: the DM's own, or with a layer of cells below, pgeo */
      VPPatchCGTables *t  = &jac->cgt;
      PetscInt         ni = 2 * g->k - 1, np = 2 * g->k + 1, alo[3], anv[3];
      PetscCall(PetscMemzero(t, sizeof(*t)));
      t->k   = (int)g->k;
      t->its = (int)jac->localits;
      VPPatchVertexBox(g, alo, anv);
      for (PetscInt d = 0; d < 3; d++) {
        t->gclo[d] = (int)jac->plocal.gclo[d];
        t->gcm[d]  = (int)jac->plocal.gcm[d];
        t->alo[d]  = (int)alo[d];
        t->anv[d]  = (int)anv[d];
      }
      for (PetscInt i = 0; i < ni; i++) {
        t->lam[i] = jac->op.lam[0][i];
        t->Kd[i]  = jac->op.Kp[0][(i + 1) * np + i + 1];
        t->Md[i]  = jac->op.Mp[0][(i + 1) * np + i + 1];
        for (PetscInt j = 0; j < ni; j++) t->S[i * ni + j] = jac->op.S[0][i * ni + j];
      }
      for (PetscInt qq = 0; qq < n1; qq++)
        for (PetscInt i = 0; i < n1; i++) {
          t->cS[qq * VPATCH_MAX_N1D + i] = b->S[qq * n1 + i];
          t->cD[qq * VPATCH_MAX_N1D + i] = b->D[qq * n1 + i];
        }
      if (below && jac->pgeo) PetscCall(VPDeviceCopy_Private(jac->pgeo, (size_t)(ncb * ncomp * nd), &jac->d_pgeo)); /* else the kernel reads the DM's own */
    }
#endif
    PetscCall(DMRestoreGlobalVector(jac->dm, &dg));
    jac->plocal.its   = jac->local == PC_VPATCH_LOCAL_SCALED ? 1 : jac->localits;
    jac->plocal.damp  = jac->local == PC_VPATCH_LOCAL_SCALED ? jac->damp : 0;
    jac->plocal.basis = b;
    jac->plocal.geo   = below ? jac->pgeo : geo;
    jac->plocal.diag  = jac->pdiag;
  }
#if defined(PETSC_HAVE_CUDA)
  if (jac->cuda && (jac->local == PC_VPATCH_LOCAL_SCALED || jac->local == PC_VPATCH_LOCAL_FDM || jac->local == PC_VPATCH_LOCAL_CG)) { /* the tables of the solve fused with the patch residual */
    VPPatchScaledTables *t  = &jac->sct;
    PetscInt             ni = 2 * g->k - 1, np = 2 * g->k + 1, alo[3], anv[3];
    PetscCall(PetscMemzero(t, sizeof(*t)));
    VPPatchVertexBox(g, alo, anv);
    for (PetscInt d = 0; d < 3; d++) {
      t->alo[d] = (int)alo[d];
      t->anv[d] = (int)anv[d];
    }
    t->damp = jac->local == PC_VPATCH_LOCAL_SCALED ? jac->damp : 1.0; /* fdm: the surrogate's solve, undamped */
    t->its  = jac->local == PC_VPATCH_LOCAL_CG ? (int)jac->localits : 0;
    for (PetscInt i = 0; i < ni; i++) {
      t->lam[i] = jac->op.lam[0][i];
      t->Kd[i]  = jac->op.Kp[0][(i + 1) * np + i + 1];
      t->Md[i]  = jac->op.Mp[0][(i + 1) * np + i + 1];
      for (PetscInt j = 0; j < ni; j++) t->S[i * ni + j] = jac->op.S[0][i * ni + j];
    }
  }
#endif
  PetscCall(PetscFree2(work, Ae));
  PetscCall(PetscFree(mq));
  jac->plocal.g   = jac->pLU ? NULL : jac->pg; /* the CPU kernels' (NULL where the GPU made them: only the device copy) */
  jac->plocal.m   = jac->pLU ? NULL : jac->pm;
  jac->plocal.LU  = jac->pLU;
  jac->plocal.piv = jac->ppiv;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -pc_vpatch_surrogate profile: each patch's own separable surrogate (vpprofile.h) from its cells' factors, on the GPU
   from the device factors (the layer of cells below this rank's included), else on the host */
static PetscErrorCode PCVPatchSetUpProfile(PC_VPatch *jac)
{
  DM_QBox       *q = (DM_QBox *)jac->dm->data;
  const VPGrid  *g = &q->grid;
  const PetscInt k = g->k, n1 = k + 1, sz = VPProfileSize((int)k);
  PetscInt       vlo[3], nv[3], nvert;
  VPProfileBasis pb;
  PetscLogDouble flops;

  PetscFunctionBegin;
  PetscCheck(g->dim == 3 && jac->opw.mass == 0 && jac->local != PC_VPATCH_LOCAL_DENSE, PetscObjectComm((PetscObject)jac->dm), PETSC_ERR_SUP,
             "PCVPATCH -pc_vpatch_surrogate profile is built in 3D for the stiffness alone (no mass term) and the local solvers fdm, scaled and cg: use -pc_vpatch_surrogate mean");
  pb.k = (int)k;
  for (PetscInt i = 0; i < n1; i++) pb.qw[i] = q->basis.qwts[i];
  for (PetscInt i = 0; i < n1 * n1; i++) {
    pb.B[i] = q->basis.S[i];
    pb.D[i] = q->basis.D[i];
  }
  VPPatchVertexBox(g, vlo, nv);
  nvert = nv[0] * nv[1] * nv[2];
  if (jac->cuda) {
#if defined(PETSC_HAVE_CUDA)
    const PetscReal *d_geo, *d_lgeo = NULL;
    PetscCall(DMQBoxGetGeometry_Private(jac->dm, NULL, &d_geo));
    if (VPLayerCellIndex(g->cs, g->cm, NULL)) PetscCall(DMQBoxGetLayerGeometry_Private(jac->dm, NULL, &d_lgeo, NULL));
    PetscCall(VPDeviceAlloc_Private((size_t)PetscMax(nvert, 1) * (size_t)sz, &jac->d_prof));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(VPMappedProfile_CUDA(g, d_geo, d_lgeo, &pb, jac->opw.stiff, vlo, nv, jac->d_prof));
    PetscCall(PetscLogGpuTimeEnd());
#endif
  } else {
    const PetscReal *geo;
    double           work[VP_PROFILE_WORK];
    PetscCall(DMQBoxGetGeometry_Private(jac->dm, &geo, NULL));
    PetscCall(PetscMalloc1((size_t)PetscMax(nvert, 1) * (size_t)sz, &jac->prof));
    for (PetscInt vz = 0, iv = 0; vz < nv[2]; vz++)
      for (PetscInt vy = 0; vy < nv[1]; vy++)
        for (PetscInt vx = 0; vx < nv[0]; vx++, iv++) {
          const PetscInt   v[3] = {vlo[0] + vx, vlo[1] + vy, vlo[2] + vz};
          const PetscReal *G[8];
          for (PetscInt cc = 0; cc < 8; cc++) {
            const PetscInt c[3] = {v[0] - 1 + (cc & 1), v[1] - 1 + ((cc >> 1) & 1), v[2] - 1 + (cc >> 2)};
            PetscCall(PCVPatchCellFactors(jac, geo, c, &G[cc]));
          }
          VPProfileTables(&pb, G, jac->opw.stiff, jac->prof + iv * sz, work);
        }
    jac->plocal.prof = jac->prof;
  }
  /* per patch: the fit (about 12 operations per point of its 2^3 cells) and three (2k-1)-square eigenproblems */
  flops = (PetscLogDouble)nvert * (12.0 * 8 * n1 * n1 * n1 + 3.0 * 60.0 * (2 * k - 1) * (2 * k - 1) * (2 * k - 1));
  if (jac->cuda)
    PetscCall(PetscLogGpuFlops(flops));
  else
    PetscCall(PetscLogFlops(flops));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The local solver scaled damps each patch's correction. One damping for all patches is set by the worst patch (w
  lambda_max(P_v^-1 A_v) < 2, P_v the scaled surrogate, A_v the patch matrix): where the geometry and the coefficient
  vary mildly inside a patch the surrogate is nearly exact and w = 1 takes the box's 4-5 cycles, where they vary
  strongly the same w diverges. So in 3D without a mass term each patch takes its own, w_v = min(1, theta / lambda_v),
  lambda_v from a few Lanczos steps (PCG on the patch's true operator, preconditioned by its scaled surrogate) at
  set-up: the largest Ritz value plus the norm of its residual (VPLanczosMax()). The Ritz value alone lies below
  lambda_v, far below where the steps have not converged (2 steps: 189 cycles at contrast 1e4; with the residual 12;
  3 steps take the cycles of 8). theta = 1.7 keeps w_v lambda_v below 2 with room for the estimate's error. ex1 on the
  shell (Q_3, 12^3 cells) takes 5 cycles at contrast 1e2 (7 with min(0.7, 2.1/k)), 8 at 1e4 (10), 11 at 1e6 (12), 4 on
  the deformed map (7), measured. Each step costs a patch operator application on every patch (as a sweep's
  residuals), so the steps are few. The layer of cells below this rank's (their factors computed here, as the
  surrogate's) makes the dampings independent of the number of ranks.
*/
#define VP_PATCH_DAMPING_THETA 1.7
static PetscErrorCode PCVPatchSetUpDampings(PC_VPatch *jac)
{
  DM_QBox         *q  = (DM_QBox *)jac->dm->data;
  const VPGrid    *g  = &q->grid;
  const PetscInt   nd = VPGridCellNodes(g);
  PetscInt         vlo[3], nv[3], nvert, nl;
  const PetscReal *lgeo = NULL, *geo = NULL;
  PetscLogDouble   flops;

  PetscFunctionBegin;
  if (jac->local != PC_VPATCH_LOCAL_SCALED || jac->localdamp > 0 || PCVPatchDampSteps(jac) == 0 || g->dim != 3 || jac->opw.mass != 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(VPATCH_PatchDampings, 0, 0, 0, 0));
  VPPatchVertexBox(g, vlo, nv);
  nvert = nv[0] * nv[1] * nv[2];
  nl    = (PetscInt)VPLayerCellIndex(g->cs, g->cm, NULL);
  if (jac->cuda) {
#if defined(PETSC_HAVE_CUDA)
    /* in the sweep's precision (a float estimate serves a float sweep); with the factors on the fly in double, which the
       surrogate's set-up made: a float copy would add half their memory */
    const PetscBool    single = (PetscBool)(jac->precision == VP_PRECISION_SINGLE && !q->geofly);
    const void        *d_geo;
    const PetscReal   *d_lgeo  = NULL;
    const float       *d_lgeof = NULL;
    const PetscScalar *dg;
    if (single) {
      const float *d_geof;
      PetscCall(DMQBoxGetGeometryFloat_Private(jac->dm, &d_geof));
      d_geo = d_geof;
    } else {
      const PetscReal *d_geod;
      PetscCall(DMQBoxGetGeometry_Private(jac->dm, NULL, &d_geod));
      d_geo = d_geod;
    }
    if (nl) PetscCall(DMQBoxGetLayerGeometry_Private(jac->dm, NULL, single ? NULL : &d_lgeo, single ? &d_lgeof : NULL)); /* the cells below this rank's */
    PetscCall(VPDeviceAlloc_Private((size_t)PetscMax(nvert, 1), &jac->d_pw));
    PetscCall(VecGetArrayReadAndMemType(jac->diagl, &dg, NULL));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(VPMappedPatchDampings_CUDA(g, single, d_geo, single ? (const void *)d_lgeof : (const void *)d_lgeo, &jac->sct, jac->d_pg, dg, jac->opw.stiff, PCVPatchDampSteps(jac), VP_PATCH_DAMPING_THETA, jac->d_pw));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(VecRestoreArrayReadAndMemType(jac->diagl, &dg));
    jac->sct.pw = jac->d_pw;
#endif
  } else {
    if (nl) PetscCall(DMQBoxGetLayerGeometry_Private(jac->dm, &lgeo, NULL, NULL));
    PetscCall(DMQBoxGetGeometry_Private(jac->dm, &geo, NULL));
    PetscCall(PetscMalloc1(PetscMax(nvert, 1), &jac->pw));
    if (nvert) PetscCall(VPPatchDampings_CPU(g, &jac->op, &jac->plocal, jac->opw.stiff, geo, lgeo, PCVPatchDampSteps(jac), VP_PATCH_DAMPING_THETA, jac->pw, jac->work));
    jac->plocal.w = jac->pw;
  }
  /* per Lanczos step the patch operator (8 cells: 16 1D contractions of (k+1)^4 multiply-adds and 6 products per point)
     and the surrogate's solve (6 contractions of (2k-1)^4) */
  flops = (PetscLogDouble)nvert * PCVPatchDampSteps(jac) * (8.0 * (32.0 * (g->k + 1) + 12.0) * nd + 12.0 * (2 * g->k - 1) * (2 * g->k - 1) * (2 * g->k - 1) * (2 * g->k - 1));
  if (jac->cuda)
    PetscCall(PetscLogGpuFlops(flops));
  else
    PetscCall(PetscLogFlops(flops));
  PetscCall(PetscLogEventEnd(VPATCH_PatchDampings, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCVPatchSetUp_Mapped(PC pc)
{
  PC_VPatch *jac = (PC_VPatch *)pc->data;

  PetscFunctionBegin;
  PetscCheck(jac->local != PC_VPATCH_LOCAL_DENSE || !jac->cuda, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP,
             "PCVPATCH on a mapped DMQBOX (or one with a coefficient): -pc_vpatch_local_solver dense (each patch's exact matrix, LU-factored, for verification) runs on the CPU only: use -dm_vec_type standard, or the default fdm (the separable "
             "surrogate)");
  /* a coefficient can vary by orders of magnitude inside a patch, where the unscaled surrogate stalls or diverges (contrast
     1e6: no convergence in 100 iterations) and the scaled one converges (10): it is the default there */
  if (!jac->localset) jac->local = ((DM_QBox *)jac->dm->data)->coeftype != DMQBOX_COEFFICIENT_ONE ? PC_VPATCH_LOCAL_SCALED : PC_VPATCH_LOCAL_FDM;
  if ((jac->local == PC_VPATCH_LOCAL_CG || jac->local == PC_VPATCH_LOCAL_SCALED) && !jac->surtypeset) jac->surtype = PC_VPATCH_SURROGATE_MEAN;
  /* the scaled solver's damping: the scaled surrogate underestimates the patch matrix more as the degree grows (its
     diagonal is exact, the coupling is not), so the largest damping that converges falls with k: at contrast 1e6 on the
     shell 1 diverges at k = 3, 0.7 at k = 5, 0.5 at k = 7; min(0.7, 2.1/k) converged for k = 2..7 (10, 10, 18, 24, 29,
     35 cycles, 8^3 cells), measured */
  jac->damp = jac->localdamp > 0 ? jac->localdamp : PetscMin(0.7, 2.1 / ((DM_QBox *)jac->dm->data)->degree); /* scaled by the diagonal, the mean is the better base: fewer iterations, measured */
  PetscCheck(!jac->cuda || !jac->kernelset || jac->kernel == PC_VPATCH_KERNEL_GLOBAL, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP,
             "PCVPATCH on a mapped DMQBOX (or one with a coefficient) takes each color's residual from the operator (MatMult): -pc_vpatch_kernel %s computes it for the Cartesian Laplacian; use -pc_vpatch_kernel global (the default here)",
             PCVPatchKernels[jac->kernel]);
  PetscCheck(jac->opw.mass == 0 || jac->local != PC_VPATCH_LOCAL_CG, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP,
             "PCVPATCH on a mapped DMQBOX: -pc_vpatch_local_solver cg works on the patches' stiffness only, not yet with a mass term: use -pc_vpatch_local_solver scaled or fdm (the surrogate takes the mass term) or dense (CPU)");
  jac->kernel    = PC_VPATCH_KERNEL_GLOBAL;
  jac->surrogate = PETSC_TRUE;
  PetscCall(PCVPatchSetUpContinuous_Private(pc));
  PetscCall(PCVPatchSetUpSurrogate(jac));
  if (jac->surtype == PC_VPATCH_SURROGATE_PROFILE) {
    PetscCall(PCVPatchSetUpProfile(jac));
    jac->sct.prof = jac->d_prof;
  }
  PetscCall(PCVPatchSetUpDampings(jac));
  if (jac->type == PC_VPATCH_MULTIPLICATIVE && !jac->cuda) PetscCall(DMCreateGlobalVector(jac->dm, &jac->w)); /* the residual of each color */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one step: each color's residual by MatMult, then the patches' inexact solves */
static PetscErrorCode PCVPatchStep_Mapped(PC_VPatch *jac, Vec b, Vec x, PetscBool fwd, PetscBool bwd, PetscBool zero)
{
  PetscFunctionBegin;
  if (fwd) PetscCall(PCVPatchSweepColors_Private(jac, b, x, PETSC_FALSE, PETSC_FALSE, zero));
  if (bwd) PetscCall(PCVPatchSweepColors_Private(jac, b, x, PETSC_TRUE, PETSC_FALSE, (PetscBool)(zero && !fwd)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

const PCVPatchVariant PCVPatchVariantMapped = {"mapped", PETSC_TRUE, PETSC_FALSE, PCVPatchSetUp_Mapped, PCVPatchStep_Mapped, PCVPatchAdditiveContinuous_Private};
