/*
  The DMQBOX operator of the discontinuous space (-dm_qbox_dg): the SIPG form as a MATSHELL (DMCreateMatrix()), host glue
  around the kernels of sipg_cpu.c and cuda/sipg.cu (the embedding between levels is the DMQBOX transfer shell,
  src/mat/impls/transfer/, which calls VPDGTransfer_CPU() / VPDGTransfer_CUDA()): the CUDA kernel runs on device arrays
  (-dm_vec_type cuda), in float with -dm_qbox_precision single; on several ranks the ghost layer of one cell comes by the
  DM's exchange.
*/
#include <petscvpatch/private/qboximpl.h>

static PetscErrorCode MatMult_SIPG(Mat A, Vec x, Vec y)
{
  DM                 dm;
  DM_QBox           *q;
  Vec                xl = x, yl = y;
  const PetscScalar *xa;
  PetscScalar       *ya;
  PetscMemType       mt;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &dm));
  q = (DM_QBox *)dm->data;
  PetscCall(PetscLogEventBegin(VPATCH_LaplacianMult, A, x, y, 0));
  if (!q->samelayout) { /* several ranks: the ghost layer of one cell in, the owned rows out */
    PetscCall(DMGetLocalVector(dm, &xl));
    PetscCall(DMGetLocalVector(dm, &yl));
    PetscCall(DMGlobalToLocal(dm, x, INSERT_VALUES, xl));
  }
  PetscCall(VecSet(yl, 0.0));
  PetscCall(VecGetArrayReadAndMemType(xl, &xa, &mt));
  PetscCall(VecGetArrayAndMemType(yl, &ya, NULL));
  if (PetscMemTypeDevice(mt)) {
    const VPDG1D *d_dg;
    PetscCall(DMQBoxGetDeviceDG_Private(dm, &d_dg, NULL));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(VPDGApply_CUDA(&q->grid, (PetscBool)(q->precision == VP_PRECISION_SINGLE), d_dg, xa, ya));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops(VPDGFlopsApply(&q->grid)));
  } else {
    PetscCheck(q->precision == VP_PRECISION_DOUBLE, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "DMQBOX single precision (-dm_qbox_mg_precision) runs on the GPU only: use -dm_vec_type cuda, or double precision");
    PetscCall(VPDGApply_CPU(&q->grid, q->dg1d, xa, ya));
  }
  PetscCall(VecRestoreArrayAndMemType(yl, &ya));
  PetscCall(VecRestoreArrayReadAndMemType(xl, &xa));
  if (!q->samelayout) {
    PetscCall(DMLocalToGlobal(dm, yl, INSERT_VALUES, y));
    PetscCall(DMRestoreLocalVector(dm, &xl));
    PetscCall(DMRestoreLocalVector(dm, &yl));
  }
  PetscCall(PetscLogEventEnd(VPATCH_LaplacianMult, A, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCreateVecs_SIPG(Mat A, Vec *right, Vec *left)
{
  DM dm;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &dm));
  PetscCall(DMQBoxMatCreateVecs_Private(dm, dm, right, left));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the diagonal of the Kronecker sum: sum_e L_e(i_e, i_e) prod_{f != e} M_f(i_f, i_f); on the device for a CUDA vector */
static PetscErrorCode MatGetDiagonal_SIPG(Mat A, Vec d)
{
  DM           dm;
  DM_QBox     *q;
  PetscScalar *da;
  PetscInt     N, dim, i = 0;
  PetscMemType mt;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &dm));
  q   = (DM_QBox *)dm->data;
  N   = q->degree + 1;
  dim = q->dim;
  PetscCall(VecGetArrayWriteAndMemType(d, &da, &mt));
  if (PetscMemTypeDevice(mt)) {
    const VPDG1D *d_dg;
    PetscCall(DMQBoxGetDeviceDG_Private(dm, &d_dg, NULL));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(VPDGDiagonal_CUDA(&q->grid, d_dg, da));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(VecRestoreArrayWriteAndMemType(d, &da));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
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
  PetscCall(VecRestoreArrayWriteAndMemType(d, &da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the DM of A when A is the SIPG operator of a discontinuous DMQBOX (MatCreateQBoxSIPG_Private()), else NULL */
PetscErrorCode MatQBoxSIPGGetDM_Private(Mat A, DM *dm)
{
  PetscBool         isshell;
  PetscErrorCodeFn *mult = NULL;

  PetscFunctionBegin;
  *dm = NULL;
  PetscCall(MatIsShell(A, &isshell));
  if (!isshell) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatShellGetOperation(A, MATOP_MULT, &mult));
  if (mult == (PetscErrorCodeFn *)MatMult_SIPG) PetscCall(MatShellGetContext(A, dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCreateQBoxSIPG_Private(DM dm, Mat *A)
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

/* the global numbering of DG nodes: the process columns of the box decomposition (DMQBoxColumns: per column the owned
   node range xs, xm) and per rank the first global index (ranks o0 + P0 (o1 + P1 o2), each owning its box
   lexicographically) */
typedef struct {
  DMQBoxColumns c;
  PetscInt     *rstart;
} SIPGNumbering;

static PetscErrorCode SIPGNumberingCreate(DM dm, SIPGNumbering *nb)
{
  const DMQBoxColumns *c = &nb->c;
  PetscMPIInt          size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
  PetscCall(DMQBoxColumnsCreate_Private(dm, &nb->c));
  PetscCall(PetscMalloc1(size + 1, &nb->rstart));
  nb->rstart[0] = 0;
  for (PetscMPIInt r = 0; r < size; r++) {
    const PetscInt o[3] = {r % c->P[0], (r / c->P[0]) % c->P[1], r / (c->P[0] * c->P[1])};
    nb->rstart[r + 1]   = nb->rstart[r] + c->b[0][6 * o[0] + 1] * c->b[1][6 * o[1] + 1] * c->b[2][6 * o[2] + 1];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SIPGNumberingDestroy(SIPGNumbering *nb)
{
  PetscFunctionBegin;
  PetscCall(DMQBoxColumnsDestroy_Private(&nb->c));
  PetscCall(PetscFree(nb->rstart));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the global index of the DG node at global position P */
static inline PetscInt SIPGGlobalIndex(const SIPGNumbering *nb, const PetscInt P[3])
{
  const DMQBoxColumns *c = &nb->c;
  PetscInt             o[3], x[3], m[3];

  for (PetscInt d = 0; d < 3; d++) {
    o[d] = DMQBoxColumnOf_Private(c, d, 0, P[d]);
    x[d] = P[d] - c->b[d][6 * o[d]];
    m[d] = c->b[d][6 * o[d] + 1];
  }
  return nb->rstart[o[0] + c->P[0] * (o[1] + c->P[1] * o[2])] + (x[2] * m[1] + x[1]) * m[0] + x[0];
}

/* The SIPG operator assembled (-dm_mat_type aij and the like, for checks and direct solvers), on any number of ranks:
   row by row from the 1D blocks, direction by direction (the blocks of the cell and its two neighbours along e, the
   cell mass along the others), at global node positions; a neighbour cell's columns numbered by its owner's box */
PetscErrorCode MatAssembleQBoxSIPG_Private(DM dm, MatType type, Mat *A)
{
  DM_QBox       *q = (DM_QBox *)dm->data;
  const VPGrid  *g = &q->grid;
  const PetscInt N = q->degree + 1, dim = q->dim, nother = dim == 3 ? N * N : N, n = g->xm[0] * g->xm[1] * g->xm[2], nz = dim * 3 * N * nother;
  PetscInt      *cols, rs;
  PetscScalar   *vals;
  SIPGNumbering  nb;
  PetscMPIInt    rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)dm), &rank));
  PetscCall(SIPGNumberingCreate(dm, &nb));
  PetscCheck(nb.rstart[rank + 1] - nb.rstart[rank] == n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMQBOX DG numbering: %" PetscInt_FMT " rows from the columns, %" PetscInt_FMT " owned", nb.rstart[rank + 1] - nb.rstart[rank], n);
  PetscCall(PetscMalloc2(3 * N * nother, &cols, 3 * N * nother, &vals));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)dm), A));
  PetscCall(MatSetSizes(*A, n, n, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, nz, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, nz, NULL, nz, NULL));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatGetOwnershipRange(*A, &rs, NULL));
  PetscCheck(rs == nb.rstart[rank], PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMQBOX DG numbering: first row %" PetscInt_FMT ", the matrix's %" PetscInt_FMT, nb.rstart[rank], rs);
  PetscCall(PetscLogEventBegin(VPATCH_LaplacianAssemble, dm, 0, 0, 0));
  for (PetscInt pz = 0; pz < g->xm[2]; pz++)
    for (PetscInt py = 0; py < g->xm[1]; py++)
      for (PetscInt px = 0; px < g->xm[0]; px++) {
        const PetscInt P[3] = {g->xs[0] + px, g->xs[1] + py, g->xs[2] + pz}, row = SIPGGlobalIndex(&nb, P);
        for (PetscInt e = 0; e < dim; e++) {
          const VPDG1D  *b = &q->dg1d[e];
          const PetscInt c = P[e] / N, j = P[e] % N; /* global cell and node of direction e */
          PetscInt       nc = 0;
          for (PetscInt o = -1; o <= 1; o++) {
            const PetscInt cn = c + o;
            if (cn < 0 || cn >= b->n) continue;
            for (PetscInt i = 0; i < N; i++) {
              const PetscReal l = VPDGBlockEntry(b, c, o, j, i);
              for (PetscInt t = 0; t < nother; t++) { /* the other directions' nodes in this cell, and their mass entries */
                PetscInt  Q[3] = {P[0], P[1], P[2]}, r = t;
                PetscReal m = 1;
                Q[e]        = cn * N + i;
                for (PetscInt f = 0; f < dim; f++) {
                  if (f == e) continue;
                  const PetscInt jf = P[f] % N, if_ = r % N;
                  r /= N;
                  Q[f] = (P[f] / N) * N + if_;
                  m *= q->dg1d[f].M[jf * N + if_];
                }
                cols[nc]   = SIPGGlobalIndex(&nb, Q);
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
  PetscCall(SIPGNumberingDestroy(&nb));
  PetscFunctionReturn(PETSC_SUCCESS);
}
