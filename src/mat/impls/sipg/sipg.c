/*
  The DMQBOX operator of the discontinuous space (-dm_qbox_dg): the SIPG form as a MATSHELL (DMCreateMatrix()), host glue
  around the kernels of sipg_cpu.c (the embedding between levels is the DMQBOX transfer shell, src/mat/impls/transfer/,
  which calls VPDGTransfer_CPU()). CPU vectors so far (DMSetUp() checks); on several ranks the ghost layer of one cell
  comes by the DM's exchange.
*/
#include <petscvpatch/private/qboximpl.h>

static PetscErrorCode MatMult_SIPG(Mat A, Vec x, Vec y)
{
  DM                 dm;
  DM_QBox           *q;
  Vec                xl = x, yl = y;
  const PetscScalar *xa;
  PetscScalar       *ya;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &dm));
  q = (DM_QBox *)dm->data;
  PetscCall(PetscLogEventBegin(VPATCH_LaplacianMult, A, x, y, 0));
  if (!q->samelayout) { /* several ranks: the ghost layer of one cell in, the owned rows out */
    PetscCall(DMGetLocalVector(dm, &xl));
    PetscCall(DMGetLocalVector(dm, &yl));
    PetscCall(DMGlobalToLocal(dm, x, INSERT_VALUES, xl));
  }
  PetscCall(VecGetArrayRead(xl, &xa));
  PetscCall(VecGetArrayWrite(yl, &ya));
  PetscCall(PetscArrayzero(ya, q->grid.gxm[0] * q->grid.gxm[1] * q->grid.gxm[2]));
  PetscCall(VPDGApply_CPU(&q->grid, q->dg1d, xa, ya));
  PetscCall(VecRestoreArrayWrite(yl, &ya));
  PetscCall(VecRestoreArrayRead(xl, &xa));
  if (!q->samelayout) {
    PetscCall(DMLocalToGlobal(dm, yl, INSERT_VALUES, y));
    PetscCall(DMRestoreLocalVector(dm, &xl));
    PetscCall(DMRestoreLocalVector(dm, &yl));
  }
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
  for (PetscInt pz = q->grid.xs[2]; pz < q->grid.xs[2] + q->grid.xm[2]; pz++) /* the owned nodes, global positions */
    for (PetscInt py = q->grid.xs[1]; py < q->grid.xs[1] + q->grid.xm[1]; py++)
      for (PetscInt px = q->grid.xs[0]; px < q->grid.xs[0] + q->grid.xm[0]; px++, i++) {
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
