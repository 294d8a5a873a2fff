/*
  The DMQBOX operators of the discontinuous space (-dm_qbox_dg): the SIPG form as a MATSHELL (DMCreateMatrix()) and the
  embedding between nested levels (DMCreateInterpolation()), host glue around the kernels of sipg_cpu.c. One rank, CPU
  vectors so far (DMSetUp() checks), so the global vector is the local box.
*/
#include <petscvpatch/private/qboximpl.h>

static PetscErrorCode MatMult_SIPG(Mat A, Vec x, Vec y)
{
  DM                 dm;
  DM_QBox           *q;
  const PetscScalar *xa;
  PetscScalar       *ya;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &dm));
  q = (DM_QBox *)dm->data;
  PetscCall(PetscLogEventBegin(VPATCH_LaplacianMult, A, x, y, 0));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayWrite(y, &ya));
  PetscCall(PetscArrayzero(ya, q->grid.xm[0] * q->grid.xm[1] * q->grid.xm[2]));
  PetscCall(VPDGApply_CPU(&q->grid, q->dg1d, xa, ya));
  PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(PetscLogEventEnd(VPATCH_LaplacianMult, A, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the diagonal of the Kronecker sum: sum_e L_e(i_e, i_e) prod_{f != e} M_f(i_f, i_f) */
static PetscErrorCode MatGetDiagonal_SIPG(Mat A, Vec d)
{
  DM           dm;
  DM_QBox     *q;
  PetscScalar *da;
  PetscInt     N, dim, i = 0;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &dm));
  q   = (DM_QBox *)dm->data;
  N   = q->degree + 1;
  dim = q->dim;
  PetscCall(VecGetArrayWrite(d, &da));
  for (PetscInt pz = 0; pz < q->grid.xm[2]; pz++)
    for (PetscInt py = 0; py < q->grid.xm[1]; py++)
      for (PetscInt px = 0; px < q->grid.xm[0]; px++, i++) {
        const PetscInt p[3] = {px, py, pz};
        PetscScalar    v    = 0;
        for (PetscInt e = 0; e < dim; e++) {
          const VPDG1D    *g = &q->dg1d[e];
          const PetscInt   c = p[e] / N, j = p[e] % N;
          const PetscReal *D = g->n == 1 ? g->Done : (c == 0 ? g->Dfirst : (c == g->n - 1 ? g->Dlast : g->Din));
          PetscScalar      t = D[j * N + j];
          for (PetscInt f = 0; f < dim; f++)
            if (f != e) t *= q->dg1d[f].M[(p[f] % N) * N + p[f] % N];
          v += t;
        }
        da[i] = v;
      }
  PetscCall(VecRestoreArrayWrite(d, &da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMQBoxCreateSIPGShell_Private(DM dm, Mat *A)
{
  DM_QBox *q = (DM_QBox *)dm->data;
  PetscInt n = q->grid.xm[0] * q->grid.xm[1] * q->grid.xm[2];

  PetscFunctionBegin;
  PetscCall(MatCreateShell(PetscObjectComm((PetscObject)dm), n, n, PETSC_DETERMINE, PETSC_DETERMINE, dm, A));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT, (PetscErrorCodeFn *)MatMult_SIPG));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT_TRANSPOSE, (PetscErrorCodeFn *)MatMult_SIPG)); /* symmetric */
  PetscCall(MatShellSetOperation(*A, MATOP_GET_DIAGONAL, (PetscErrorCodeFn *)MatGetDiagonal_SIPG));
  PetscCall(MatSetVecType(*A, dm->vectype));
  PetscCall(MatSetDM(*A, dm));
  PetscCall(PetscObjectSetName((PetscObject)*A, "SIPG operator of a discontinuous DMQBOX"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the embedding from dmc into its refinement dmf: the shell's context holds both DMs */
typedef struct {
  DM dmc, dmf;
} DGTransfer;

static PetscErrorCode MatDestroy_DGTransfer(Mat P)
{
  DGTransfer *t;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(P, &t));
  PetscCall(DMDestroy(&t->dmc));
  PetscCall(DMDestroy(&t->dmf));
  PetscCall(PetscFree(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* z = y + P x (transp: y + P^T x); y may be NULL (z = P x) */
static PetscErrorCode DGTransferApply(Mat P, Vec x, Vec y, Vec z, PetscBool transp)
{
  DGTransfer        *t;
  DM_QBox           *qc, *qf;
  const PetscScalar *xa;
  PetscScalar       *za;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(P, &t));
  qc = (DM_QBox *)t->dmc->data;
  qf = (DM_QBox *)t->dmf->data;
  PetscCall(PetscLogEventBegin(transp ? VPATCH_Restrict : VPATCH_Prolong, P, x, z, 0));
  if (y && y != z)
    PetscCall(VecCopy(y, z));
  else if (!y)
    PetscCall(VecSet(z, 0.0));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArray(z, &za));
  PetscCall(VPDGTransfer_CPU(&qc->grid, &qf->grid, &qc->basis, transp, xa, za));
  PetscCall(VecRestoreArray(z, &za));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(PetscLogEventEnd(transp ? VPATCH_Restrict : VPATCH_Prolong, P, x, z, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_DGTransfer(Mat P, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(DGTransferApply(P, x, NULL, y, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode MatMultTranspose_DGTransfer(Mat P, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(DGTransferApply(P, x, NULL, y, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode MatMultAdd_DGTransfer(Mat P, Vec x, Vec y, Vec z)
{
  PetscFunctionBegin;
  PetscCall(DGTransferApply(P, x, y, z, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode MatMultTransposeAdd_DGTransfer(Mat P, Vec x, Vec y, Vec z)
{
  PetscFunctionBegin;
  PetscCall(DGTransferApply(P, x, y, z, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMQBoxCreateDGTransfer_Private(DM dmc, DM dmf, Mat *P)
{
  DM_QBox    *qc = (DM_QBox *)dmc->data, *qf = (DM_QBox *)dmf->data;
  DGTransfer *t;
  PetscInt    mc = qc->grid.xm[0] * qc->grid.xm[1] * qc->grid.xm[2], mf = qf->grid.xm[0] * qf->grid.xm[1] * qf->grid.xm[2];

  PetscFunctionBegin;
  PetscCheck(qc->dg && qf->dg && qc->degree == qf->degree && qc->dim == qf->dim, PetscObjectComm((PetscObject)dmc), PETSC_ERR_ARG_INCOMP, "The DG transfer needs two discontinuous DMQBOX of the same dimension and degree");
  for (PetscInt d = 0; d < qc->dim; d++)
    PetscCheck(qf->cells[d] == 2 * qc->cells[d], PetscObjectComm((PetscObject)dmc), PETSC_ERR_ARG_INCOMP, "The fine DMQBOX is not the uniform refinement of the coarse one (direction %" PetscInt_FMT ": %" PetscInt_FMT " and %" PetscInt_FMT " cells)",
               d, qf->cells[d], qc->cells[d]);
  PetscCall(PetscNew(&t));
  t->dmc = dmc;
  t->dmf = dmf;
  PetscCall(PetscObjectReference((PetscObject)dmc));
  PetscCall(PetscObjectReference((PetscObject)dmf));
  PetscCall(MatCreateShell(PetscObjectComm((PetscObject)dmf), mf, mc, PETSC_DETERMINE, PETSC_DETERMINE, t, P));
  PetscCall(MatShellSetOperation(*P, MATOP_DESTROY, (PetscErrorCodeFn *)MatDestroy_DGTransfer));
  PetscCall(MatShellSetOperation(*P, MATOP_MULT, (PetscErrorCodeFn *)MatMult_DGTransfer));
  PetscCall(MatShellSetOperation(*P, MATOP_MULT_TRANSPOSE, (PetscErrorCodeFn *)MatMultTranspose_DGTransfer));
  PetscCall(MatShellSetOperation(*P, MATOP_MULT_ADD, (PetscErrorCodeFn *)MatMultAdd_DGTransfer));
  PetscCall(MatShellSetOperation(*P, MATOP_MULT_TRANSPOSE_ADD, (PetscErrorCodeFn *)MatMultTransposeAdd_DGTransfer));
  PetscCall(MatSetVecType(*P, dmf->vectype));
  PetscFunctionReturn(PETSC_SUCCESS);
}
