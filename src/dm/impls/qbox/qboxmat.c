/*
  The operators a DMQBOX owns, as DMDA owns fdda.c and dainterp.c: DMCreateMatrix() (the matrix-free operator mass M +
  stiffness K with the DM's weights, src/mat/impls/laplacian/, or the same operator assembled here), DMCreateMassMatrix()
  and DMCreateMassMatrixLumped(), the KSP compute-operators callback that DMSetUp() installs, DMCreateInterpolation()
  (the matrix-free transfer, src/mat/impls/transfer/), and the device copies of the discontinuous space's 1D tables that
  its operator and transfer read.
*/
#include <petscvpatch/private/qboximpl.h>

/* Nonzeros per row along one direction: the interior nodes of the cells that contain node p,
   split into those owned by this rank (ownership [xs, xs+xm)) and the rest */
static void RowCount1D(PetscInt p, PetscInt k, PetscInt nn, PetscInt xs, PetscInt xm, PetscInt *all, PetscInt *own)
{
  PetscInt lo = (p % k == 0) ? p - k : (p / k) * k, hi = (p % k == 0) ? p + k : (p / k) * k + k;
  lo   = PetscMax(lo, 1);
  hi   = PetscMin(hi, nn - 2);
  *all = hi - lo + 1;
  lo   = PetscMax(lo, xs);
  hi   = PetscMin(hi, xs + xm - 1);
  *own = PetscMax(hi - lo + 1, 0);
}

PetscErrorCode DMQBoxAssembleLaplacian_Private(DM dm, MatType type, const VPWeights *w, Mat *A)
{
  DM_QBox               *q = (DM_QBox *)dm->data;
  const VPGrid          *g = &q->grid;
  PetscInt               n = g->xm[0] * g->xm[1] * g->xm[2], k = q->degree, n1 = k + 1, nz1 = q->dim == 3 ? n1 : 1, ne = n1 * n1 * nz1;
  PetscInt              *dnnz, *onnz, *idx, r = 0;
  PetscScalar           *Ae, *Me = NULL;
  PetscReal             *work = NULL;
  const PetscReal       *geo = NULL, *mgeo = NULL;
  PetscBool              general = DMQBoxIsGeneral_Private(q);
  ISLocalToGlobalMapping ltog;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(VPATCH_LaplacianAssemble, dm, 0, 0, 0));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)dm), A));
  PetscCall(MatSetSizes(*A, n, n, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetType(*A, type));
  PetscCall(PetscMalloc2(n, &dnnz, n, &onnz));
  for (PetscInt pz = g->xs[2]; pz < g->xs[2] + g->xm[2]; pz++)
    for (PetscInt py = g->xs[1]; py < g->xs[1] + g->xm[1]; py++)
      for (PetscInt px = g->xs[0]; px < g->xs[0] + g->xm[0]; px++, r++) {
        PetscInt p[3] = {px, py, pz}, all = 1, own = 1;
        if (VPGridIsBoundary(g, p)) {
          dnnz[r] = 1;
          onnz[r] = 0;
          continue;
        }
        for (PetscInt d = 0; d < q->dim; d++) {
          PetscInt a, o;
          RowCount1D(p[d], k, VPGridNodes(g, d), g->xs[d], g->xm[d], &a, &o);
          all *= a;
          own *= o;
        }
        dnnz[r] = own;
        onnz[r] = all - own;
      }
  PetscCall(MatXAIJSetPreallocation(*A, 1, dnnz, onnz, dnnz, onnz));
  PetscCall(PetscFree2(dnnz, onnz));
  PetscCall(DMGetLocalToGlobalMapping(dm, &ltog));
  PetscCall(MatSetLocalToGlobalMapping(*A, ltog, ltog));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));

  PetscCall(PetscMalloc2(ne * ne, &Ae, ne, &idx));
  if (general) { /* a matrix per cell */
    PetscCall(DMQBoxGetGeometry_Private(dm, &geo, NULL));
    PetscCall(PetscMalloc1(q->dim * ne * ne, &work));
    if (w->mass != 0) {
      PetscCall(DMQBoxGetMassGeometry_Private(dm, &mgeo, NULL));
      PetscCall(PetscMalloc1(ne * ne, &Me));
    }
  } else
    PetscCall(VPLaplacianCellMatrix_CPU(g, &q->basis, w, Ae));
  for (PetscInt cz = g->cs[2], i = 0; cz < g->cs[2] + g->cm[2]; cz++)
    for (PetscInt cy = g->cs[1]; cy < g->cs[1] + g->cm[1]; cy++)
      for (PetscInt cx = g->cs[0]; cx < g->cs[0] + g->cm[0]; cx++, i++) {
        PetscInt e = 0;
        if (general) {
          PetscCall(VPMappedCellMatrix_CPU(q->dim, &q->basis, geo + i * VPGeometryComponents(q->dim) * ne, Ae, work));
          for (PetscInt e = 0; e < ne * ne; e++) Ae[e] *= w->stiff;
          if (Me) {
            PetscCall(VPMappedCellMassMatrix_CPU(q->dim, &q->basis, mgeo + i * ne, Me));
            for (PetscInt e = 0; e < ne * ne; e++) Ae[e] += w->mass * Me[e];
          }
        }
        for (PetscInt iz = 0; iz < nz1; iz++)
          for (PetscInt iy = 0; iy < n1; iy++)
            for (PetscInt ix = 0; ix < n1; ix++, e++) {
              PetscInt p[3] = {cx * k + ix, cy * k + iy, q->dim == 3 ? cz * k + iz : 0};
              idx[e]        = VPGridIsBoundary(g, p) ? -1 : VPGridLocalIndex(g, p); /* negative: eliminated */
            }
        PetscCall(MatSetValuesLocal(*A, ne, idx, ne, idx, Ae, ADD_VALUES));
      }
  PetscCall(PetscFree2(Ae, idx));
  PetscCall(PetscFree(work));
  PetscCall(PetscFree(Me));
  for (PetscInt pz = g->xs[2]; pz < g->xs[2] + g->xm[2]; pz++)
    for (PetscInt py = g->xs[1]; py < g->xs[1] + g->xm[1]; py++)
      for (PetscInt px = g->xs[0]; px < g->xs[0] + g->xm[0]; px++) {
        PetscInt    p[3] = {px, py, pz}, i;
        PetscScalar one  = w->mass + w->stiff; /* Dirichlet rows: (mass + stiff) I */
        if (!VPGridIsBoundary(g, p)) continue;
        i = VPGridLocalIndex(g, p);
        PetscCall(MatSetValuesLocal(*A, 1, &i, 1, &i, &one, ADD_VALUES));
      }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscLogEventEnd(VPATCH_LaplacianAssemble, dm, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMCreateMatrix_QBox(DM dm, Mat *A)
{
  PetscBool isshell;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(dm->mattype, MATSHELL, &isshell));
  if (((DM_QBox *)dm->data)->dg) {
    const VPWeights w = ((DM_QBox *)dm->data)->opweights;
    PetscCheck(w.mass == 0 && w.stiff == 1, PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP,
               "DMCreateMatrix() of a DMQBOX: the discontinuous space (-dm_qbox_dg) has the SIPG Laplacian only so far, not mass %g M + stiffness %g K (-dm_qbox_operator_mass, -dm_qbox_operator_stiffness); the continuous space has them",
               (double)w.mass, (double)w.stiff);
    if (isshell)
      PetscCall(MatCreateQBoxSIPG_Private(dm, A));
    else
      PetscCall(MatAssembleQBoxSIPG_Private(dm, dm->mattype, A));
  } else if (isshell)
    PetscCall(MatCreateQBoxOperator_Private(dm, &((DM_QBox *)dm->data)->opweights, A));
  else
    PetscCall(DMQBoxAssembleLaplacian_Private(dm, dm->mattype, &((DM_QBox *)dm->data)->opweights, A));
  PetscCall(MatSetOption(*A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(*A, MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
  PetscCall(MatSetOption(*A, MAT_SPD, PETSC_TRUE));
  PetscCall(MatSetOption(*A, MAT_SPD_ETERNAL, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the device copies of the DG tables (made on first use, freed with the DM): the dim VPDG1D of the directions (plain
   structs of reals and PetscInts, copied as they are) and the 2 (k+1)^2 embedding blocks of the children (row f, column c) */
PetscErrorCode DMQBoxGetDeviceDG_Private(DM dm, const VPDG1D **d_dg, const PetscReal **d_embed)
{
  DM_QBox *q = (DM_QBox *)dm->data;

  PetscFunctionBegin;
  PetscCheck(q->dg, PetscObjectComm((PetscObject)dm), PETSC_ERR_PLIB, "DMQBOX: DG tables of a continuous space");
  if (!q->d_dg) {
    const PetscInt N = q->degree + 1;
    PetscReal      E[2 * VPATCH_MAX_N1D * VPATCH_MAX_N1D];

    PetscCheck(sizeof(VPDG1D) % sizeof(PetscReal) == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "VPDG1D is not a whole number of reals");
    PetscCall(VPDeviceCopy_Private((const PetscReal *)q->dg1d, (size_t)q->dim * (sizeof(VPDG1D) / sizeof(PetscReal)), &q->d_dg));
    for (PetscInt ch = 0; ch < 2; ch++)
      for (PetscInt f = 0; f < N; f++)
        for (PetscInt c = 0; c < N; c++) E[(ch * N + f) * N + c] = q->basis.P[(ch * q->degree + f) * N + c];
    PetscCall(VPDeviceCopy_Private(E, (size_t)(2 * N * N), &q->d_dgembed));
  }
  if (d_dg) *d_dg = (const VPDG1D *)q->d_dg;
  if (d_embed) *d_embed = q->d_dgembed;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The mass matrix M of the continuous space (DMCreateMassMatrix()): the operator {1, 0}, matrix-free or assembled as
   DMCreateMatrix() is (-dm_mat_type), with Dirichlet rows the identity as the DM's other operators */
PetscErrorCode DMCreateMassMatrix_QBox(DM dm1, DM dm2, Mat *M)
{
  DM_QBox        *q = (DM_QBox *)dm1->data;
  const VPWeights w = {1.0, 0.0};
  PetscBool       isshell;

  PetscFunctionBegin;
  PetscCheck(dm1 == dm2, PetscObjectComm((PetscObject)dm1), PETSC_ERR_SUP, "DMCreateMassMatrix() of a DMQBOX: the two DMs must be the same (the mass matrix between two spaces is not implemented)");
  PetscCheck(!q->dg, PetscObjectComm((PetscObject)dm1), PETSC_ERR_SUP, "DMCreateMassMatrix() of a DMQBOX: the mass matrix of the discontinuous space (-dm_qbox_dg) is not implemented yet; the continuous space has it");
  PetscCall(PetscStrcmp(dm1->mattype, MATSHELL, &isshell));
  if (isshell)
    PetscCall(MatCreateQBoxOperator_Private(dm1, &w, M));
  else
    PetscCall(DMQBoxAssembleLaplacian_Private(dm1, dm1->mattype, &w, M));
  PetscCall(MatSetOption(*M, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(*M, MAT_SPD, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the lumped mass gv's Dirichlet rows set to 1 (as M's), handed out as the global (lm) and local (llm) vectors asked for */
static PetscErrorCode DMQBoxLumpedFinish(DM dm, Vec gv, Vec *llm, Vec *lm)
{
  const VPGrid *g = &((DM_QBox *)dm->data)->grid;
  PetscScalar  *a;

  PetscFunctionBegin;
  PetscCall(VecGetArray(gv, &a));
  for (PetscInt pz = g->xs[2], i = 0; pz < g->xs[2] + g->xm[2]; pz++)
    for (PetscInt py = g->xs[1]; py < g->xs[1] + g->xm[1]; py++)
      for (PetscInt px = g->xs[0]; px < g->xs[0] + g->xm[0]; px++, i++) {
        PetscInt p[3] = {px, py, pz};
        if (VPGridIsBoundary(g, p)) a[i] = 1.0;
      }
  PetscCall(VecRestoreArray(gv, &a));
  if (llm) {
    PetscCall(DMCreateLocalVector(dm, llm));
    PetscCall(DMGlobalToLocal(dm, gv, INSERT_VALUES, *llm));
  }
  if (lm)
    *lm = gv;
  else
    PetscCall(VecDestroy(&gv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The lumped mass matrix (DMCreateMassMatrixLumped()): the row sums of M, node p's the product over the directions of
   the 1D row sums (the mass matrix is a Kronecker product on the box); Dirichlet rows 1, as M's. llm: a local vector
   (ghosts filled), lm: a global one; either may be NULL */
PetscErrorCode DMCreateMassMatrixLumped_QBox(DM dm, Vec *llm, Vec *lm)
{
  DM_QBox      *q  = (DM_QBox *)dm->data;
  const VPGrid *g  = &q->grid;
  PetscInt      n1 = q->degree + 1, k      = q->degree;
  PetscReal     rs[VPATCH_MAX_N1D], *l1[3] = {NULL, NULL, NULL};
  PetscScalar  *a;
  Vec           gv;

  PetscFunctionBegin;
  PetscCheck(!q->dg, PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "DMCreateMassMatrixLumped() of a DMQBOX: the discontinuous space (-dm_qbox_dg) is not implemented yet; the continuous space has it");
  if (DMQBoxIsGeneral_Private(q)) { /* a mapped box: the row sums cell by cell (int phi_i over each mapped cell), summed over the ranks */
    const PetscReal *mgeo;
    PetscInt         nd = VPGridCellNodes(g);
    PetscScalar      v[VPATCH_MAX_N1D * VPATCH_MAX_N1D * VPATCH_MAX_N1D];
    Vec              ll;

    PetscCall(DMQBoxGetMassGeometry_Private(dm, &mgeo, NULL));
    PetscCall(DMCreateGlobalVector(dm, &gv));
    PetscCall(DMGetLocalVector(dm, &ll));
    PetscCall(VecZeroEntries(ll));
    PetscCall(VecGetArray(ll, &a)); /* a host loop (the set-up of a lumped mass) */
    for (PetscInt cz = 0, i = 0; cz < (q->dim == 3 ? g->cm[2] : 1); cz++)
      for (PetscInt cy = 0; cy < g->cm[1]; cy++)
        for (PetscInt cx = 0; cx < g->cm[0]; cx++, i++) {
          PetscCall(VPMappedCellMassRowSums_CPU(q->dim, &q->basis, mgeo + i * nd, v));
          for (PetscInt e = 0; e < nd; e++) {
            PetscInt p[3] = {(g->cs[0] + cx) * k + e % n1, (g->cs[1] + cy) * k + (e / n1) % n1, q->dim == 3 ? (g->cs[2] + cz) * k + e / (n1 * n1) : 0};
            a[VPGridLocalIndex(g, p)] += v[e];
          }
        }
    PetscCall(VecRestoreArray(ll, &a));
    PetscCall(VecZeroEntries(gv));
    PetscCall(DMLocalToGlobal(dm, ll, ADD_VALUES, gv));
    PetscCall(DMRestoreLocalVector(dm, &ll));
    PetscCall(DMQBoxLumpedFinish(dm, gv, llm, lm));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt i = 0; i < n1; i++) {
    rs[i] = 0;
    for (PetscInt j = 0; j < n1; j++) rs[i] += q->basis.M[i * n1 + j];
  }
  for (PetscInt d = 0; d < q->dim; d++) { /* owned nodes of direction d: the sum over the cells that hold each */
    PetscCall(PetscCalloc1(g->xm[d], &l1[d]));
    for (PetscInt i = 0; i < g->xm[d]; i++) {
      PetscInt p = g->xs[d] + i;
      if (p % k == 0) {
        if (p > 0) l1[d][i] += g->h[d] * rs[k];
        if (p < VPGridNodes(g, d) - 1) l1[d][i] += g->h[d] * rs[0];
      } else
        l1[d][i] = g->h[d] * rs[p % k];
    }
  }
  PetscCall(DMCreateGlobalVector(dm, &gv));
  PetscCall(VecGetArrayWrite(gv, &a));
  for (PetscInt pz = g->xs[2], i = 0; pz < g->xs[2] + g->xm[2]; pz++)
    for (PetscInt py = g->xs[1]; py < g->xs[1] + g->xm[1]; py++)
      for (PetscInt px = g->xs[0]; px < g->xs[0] + g->xm[0]; px++, i++) {
        a[i] = l1[0][px - g->xs[0]] * l1[1][py - g->xs[1]] * (q->dim == 3 ? l1[2][pz - g->xs[2]] : 1.0);
      }
  PetscCall(VecRestoreArrayWrite(gv, &a));
  for (PetscInt d = 0; d < 3; d++) PetscCall(PetscFree(l1[d]));
  PetscCall(DMQBoxLumpedFinish(dm, gv, llm, lm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The KSP compute-operators callback that DMSetUp() installs (KSPSetDM() needs one): DMCreateMatrix() already gives
   the complete operator, so there is nothing left to compute */
PetscErrorCode DMQBoxComputeOperators_Private(KSP ksp, Mat A, Mat B, void *ctx)
{
  PetscFunctionBegin;
  (void)ksp;
  (void)A;
  (void)B;
  (void)ctx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMCreateInterpolation_QBox(DM dmc, DM dmf, Mat *P, Vec *rscale)
{
  PetscBool isqbox;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)dmf, DMQBOX, &isqbox));
  PetscCheck(isqbox, PetscObjectComm((PetscObject)dmc), PETSC_ERR_ARG_WRONG, "DMCreateInterpolation() from a DMQBOX needs a fine DM of type %s, not %s", DMQBOX, ((PetscObject)dmf)->type_name);
  PetscCall(MatCreateQBoxTransfer_Private(dmc, dmf, PETSC_TRUE, P)); /* continuous or discontinuous */
  if (rscale) *rscale = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMQBoxInterpolate - Embeds a coarse-level function into the refined level (boundary values included)

  Collective

  Input Parameters:
+ dmc - the coarse `DMQBOX`
. xc  - a global vector of dmc
- dmf - the fine `DMQBOX`, the uniform refinement of dmc (`DMRefine()` or `DMCoarsen()`)

  Output Parameter:
. xf - a global vector of dmf: the same Q_k function on the fine mesh

  Level: intermediate

  Note:
  `DMCreateInterpolation()` gives the multigrid transfer, which acts on functions vanishing on the
  boundary; this function keeps the boundary values (e.g. to pass a solution to a finer mesh).

.seealso: `DMQBOX`, `DMCreateInterpolation()`, `DMRefine()`
@*/
PetscErrorCode DMQBoxInterpolate(DM dmc, Vec xc, DM dmf, Vec xf)
{
  Mat P;

  PetscFunctionBegin;
  PetscCall(DMQBoxCheck_Private(dmc, "DMQBoxInterpolate"));
  PetscCall(DMQBoxCheck_Private(dmf, "DMQBoxInterpolate"));
  PetscCall(MatCreateQBoxTransfer_Private(dmc, dmf, PETSC_FALSE, &P));
  PetscCall(MatMult(P, xc, xf));
  PetscCall(MatDestroy(&P));
  PetscFunctionReturn(PETSC_SUCCESS);
}
