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
static PetscErrorCode MatCreateVecs_SIPG(Mat A, Vec *right, Vec *left)
{
  DM dm;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &dm));
  PetscCall(DMQBoxMatCreateVecs_Private(dm, dm, right, left));
  PetscFunctionReturn(PETSC_SUCCESS);
}

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
          const VPDG1D  *g = &q->dg1d[e];
          const PetscInt c = p[e] / N, j = p[e] % N;
          PetscScalar    t = VPDGDiagBlock(g, c)[j * N + j];
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
  PetscCall(MatShellSetOperation(*A, MATOP_CREATE_VECS, (PetscErrorCodeFn *)MatCreateVecs_SIPG));
  PetscCall(MatSetVecType(*A, dm->vectype));
  PetscCall(MatSetDM(*A, dm));
  PetscCall(PetscObjectSetName((PetscObject)*A, "SIPG operator of a discontinuous DMQBOX"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The SIPG operator assembled (-dm_mat_type aij and the like, for checks and direct solvers): row by row from the 1D
   blocks, direction by direction (the blocks of the cell and its two neighbours along e, the cell mass along the
   others). One rank so far: there the global numbering is the lexicographic one of the DG nodes. */
PetscErrorCode DMQBoxAssembleSIPG_Private(DM dm, MatType type, Mat *A)
{
  DM_QBox       *q = (DM_QBox *)dm->data;
  const VPGrid  *g = &q->grid;
  const PetscInt N = q->degree + 1, dim = q->dim, nother = dim == 3 ? N * N : N, n = g->xm[0] * g->xm[1] * g->xm[2];
  PetscInt      *cols;
  PetscScalar   *vals;
  PetscMPIInt    size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
  PetscCheck(size == 1, PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "The assembled SIPG operator (-dm_mat_type %s) of a discontinuous DMQBOX runs on one MPI rank so far: use -dm_mat_type shell on %d ranks", type, size);
  PetscCall(PetscMalloc2(3 * N * nother, &cols, 3 * N * nother, &vals));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)dm), A));
  PetscCall(MatSetSizes(*A, n, n, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, dim * 3 * N * nother, NULL));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(PetscLogEventBegin(VPATCH_LaplacianAssemble, dm, 0, 0, 0));
  for (PetscInt pz = 0; pz < g->xm[2]; pz++)
    for (PetscInt py = 0; py < g->xm[1]; py++)
      for (PetscInt px = 0; px < g->xm[0]; px++) {
        const PetscInt p[3] = {px, py, pz}, row = VPGridLocalIndex(g, p);
        for (PetscInt e = 0; e < dim; e++) {
          const VPDG1D  *b = &q->dg1d[e];
          const PetscInt c = p[e] / N, j = p[e] % N;
          PetscInt       nc = 0;
          for (PetscInt o = -1; o <= 1; o++) {
            const PetscInt cn = c + o;
            if (cn < 0 || cn >= b->n) continue;
            for (PetscInt i = 0; i < N; i++) {
              const PetscReal l = VPDGBlockEntry(b, c, o, j, i);
              for (PetscInt t = 0; t < nother; t++) { /* the other directions' indices in this cell, and their mass entries */
                PetscInt  qpos[3] = {p[0], p[1], p[2]}, r = t;
                PetscReal m = 1;
                qpos[e]     = cn * N + i;
                for (PetscInt f = 0; f < dim; f++) {
                  if (f == e) continue;
                  const PetscInt jf = p[f] % N, if_ = r % N;
                  r /= N;
                  qpos[f] = (p[f] / N) * N + if_;
                  m *= q->dg1d[f].M[jf * N + if_];
                }
                cols[nc]   = VPGridLocalIndex(g, qpos);
                vals[nc++] = l * m;
              }
            }
          }
          PetscCall(MatSetValues(*A, 1, &row, nc, cols, vals, ADD_VALUES));
        }
      }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscLogEventEnd(VPATCH_LaplacianAssemble, dm, 0, 0, 0));
  PetscCall(MatSetDM(*A, dm));
  PetscCall(PetscFree2(cols, vals));
  PetscFunctionReturn(PETSC_SUCCESS);
}
