/*
  Matrix-free grid transfer between two DMQBOX levels (host glue): a MATSHELL whose MatMult is the
  prolongation (embedding of the coarse Q_k space) and whose MatMultTranspose is the restriction; on the
  discontinuous space (-dm_qbox_dg) the cell-by-cell embedding of src/mat/impls/sipg/.
  The multigrid version is homogeneous: it acts on functions that vanish on the boundary, so the
  Dirichlet rows of the level operators are never touched by coarse-grid corrections.
*/
#include <petscvpatch/private/qboximpl.h>
#include <petscsf.h>

typedef struct {
  DM           dmc, dmf;    /* coarse and fine DMQBOX (referenced) */
  PetscBool    homogeneous; /* zero boundary values in and out */
  PetscScalar *work;        /* CPU kernel work arrays (VPTransferWorkSize()) */
  /* a coarse level gathered onto fewer ranks than the fine one (DMCoarsen(), -dm_qbox_gather): the kernels run between
     dmc and dmfa, the fine level on dmc's partition, and a star forest moves the fine values between dmfa and dmf */
  DM           dmfa;
  DMQBoxPacked move; /* dmfa's owned nodes (senders) to dmf's owned nodes (receivers), each exactly once (DMQBoxCreateMove_Private()) */
  Vec          t;    /* a global vector of dmfa */
} Mat_QBoxTransfer;

/* the transfer between ctx->dmc and dmf, a fine level on dmc's partition (ctx->dmf, or ctx->dmfa) */
static PetscErrorCode QBoxTransferKernels(Mat P, Mat_QBoxTransfer *ctx, DM dmf, Vec x, Vec z, Vec y, PetscBool transpose)
{
  DM_QBox           *qc, *qf;
  DM                 din, dout;
  const PetscScalar *xa;
  PetscScalar       *ya;
  PetscMemType       mt;
  PetscBool          global = PETSC_FALSE;
  DMQBoxGhosted      X, Y;

  PetscFunctionBegin;
  qc   = (DM_QBox *)ctx->dmc->data;
  qf   = (DM_QBox *)dmf->data;
  din  = transpose ? dmf : ctx->dmc;
  dout = transpose ? ctx->dmc : dmf;
  PetscCall(PetscLogEventBegin(transpose ? VPATCH_Restrict : VPATCH_Prolong, P, x, y, 0));
  if (qc->samelayout && qf->samelayout) PetscCall(DMQBoxUseGlobalArrays_Private(din, x, &global));
  if (global) { /* the kernel adds into y */
    if (!z)
      PetscCall(VecSet(y, 0.0));
    else if (z != y)
      PetscCall(VecCopy(z, y));
    PetscCall(VecGetArrayReadAndMemType(x, &xa, &mt));
    PetscCall(VecGetArrayAndMemType(y, &ya, NULL));
  } else { /* ghosted buffers of the vectors, or local vectors of the levels' pools (shared with their operators and smoothers) */
    DMQBoxGhostedMode ymode = z ? DMQBOX_GHOSTED_OUT_ADD : DMQBOX_GHOSTED_OUT_SUM;

    PetscCall(DMQBoxGhostedGet_Private(din, x, DMQBOX_GHOSTED_IN, PETSC_FALSE, &X));
    if (z && z != y) PetscCall(VecCopy(z, y));
    /* the device prolongation gives each fine node from the coarse cell that owns it: with the fine level's partition
       that of the coarse cells, exactly this rank's fine nodes (no exchange) */
    if (!transpose && !qc->dg && PetscMemTypeDevice(X.mt)) {
      PetscBool aligned = PETSC_TRUE;
      for (PetscInt d = 0; d < qc->dim; d++) aligned = (PetscBool)(aligned && qf->grid.cs[d] == 2 * qc->grid.cs[d] && qf->grid.cm[d] == 2 * qc->grid.cm[d]);
      if (aligned) ymode = z ? DMQBOX_GHOSTED_ADD_OWNED : DMQBOX_GHOSTED_OUT_OWNED;
    }
    PetscCall(DMQBoxGhostedGet_Private(dout, y, ymode, PETSC_FALSE, &Y));
    xa = X.a;
    ya = Y.a;
    mt = X.mt;
    PetscCheck(X.mt == Y.mt, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "DMQBOX transfer: x and y live in different memory (host and device); use vectors of the DMs");
  }
  if (PetscMemTypeDevice(mt) && qc->dg) { /* the DG embedding, cell by cell (src/mat/impls/sipg/cuda/) */
    const PetscReal *d_embed;
    PetscCall(DMQBoxGetDeviceDG_Private(ctx->dmc, NULL, &d_embed));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(VPDGTransfer_CUDA(&qc->grid, &qf->grid, (PetscBool)(qc->precision == VP_PRECISION_SINGLE), d_embed, transpose, xa, ya));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops(VPDGFlopsTransfer(&qf->grid)));
  } else if (PetscMemTypeDevice(mt)) {
    PetscCall(DMQBoxGetDeviceMatrices_Private(ctx->dmc, NULL)); /* also the transfer kernel's constants */
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(VPTransferApply_CUDA(&qc->grid, &qf->grid, (PetscBool)(qc->precision == VP_PRECISION_SINGLE), ctx->homogeneous, transpose, xa, ya));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops(VPFlopsTransfer(&qc->grid)));
  } else {
    PetscCheck(qc->precision == VP_PRECISION_DOUBLE, PetscObjectComm((PetscObject)P), PETSC_ERR_SUP, "DMQBOX single precision (-dm_qbox_mg_precision) runs on the GPU only: use -dm_vec_type cuda, or double precision");
    if (qc->dg)
      PetscCall(VPDGTransfer_CPU(&qc->grid, &qf->grid, &qc->basis, transpose, xa, ya)); /* the DG embedding, cell by cell (src/mat/impls/sipg/) */
    else {
      if (transpose)
        PetscCall(VPTransferRestrict_CPU(&qc->grid, &qf->grid, &qc->basis, ctx->homogeneous, xa, ya, ctx->work));
      else
        PetscCall(VPTransferProlong_CPU(&qc->grid, &qf->grid, &qc->basis, ctx->homogeneous, xa, ya, ctx->work));
      PetscCall(PetscLogFlops(VPFlopsTransfer(&qc->grid)));
    }
  }
  if (global) {
    PetscCall(VecRestoreArrayAndMemType(y, &ya));
    PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
  } else {
    PetscCall(DMQBoxGhostedRestore_Private(dout, &Y));
    PetscCall(DMQBoxGhostedRestore_Private(din, &X));
  }
  PetscCall(PetscLogEventEnd(transpose ? VPATCH_Restrict : VPATCH_Prolong, P, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the fine values between dmfa (senders, t) and dmf (receivers, v): toFine, v = t (INSERT_VALUES) or v += t
   (ADD_VALUES); else t = v */
static PetscErrorCode QBoxTransferMove(Mat_QBoxTransfer *ctx, PetscBool toFine, InsertMode op, Vec v)
{
  const PetscScalar *src;
  PetscScalar       *dst;
  PetscMemType       ms, md;
  Vec                vs = toFine ? ctx->t : v, vd = toFine ? v : ctx->t;
  PetscBool          host = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(VecGetArrayReadAndMemType(vs, &src, &ms));
  if (op == INSERT_VALUES)
    PetscCall(VecGetArrayWriteAndMemType(vd, &dst, &md));
  else
    PetscCall(VecGetArrayAndMemType(vd, &dst, &md));
  if (ms != md) { /* a host vector and a device one: both on the host */
    PetscCall(VecRestoreArrayReadAndMemType(vs, &src));
    if (op == INSERT_VALUES)
      PetscCall(VecRestoreArrayWriteAndMemType(vd, &dst));
    else
      PetscCall(VecRestoreArrayAndMemType(vd, &dst));
    PetscCall(VecGetArrayRead(vs, &src));
    PetscCall(VecGetArray(vd, &dst));
    ms = md = PETSC_MEMTYPE_HOST;
    host    = PETSC_TRUE;
  }
  if (toFine)
    PetscCall(DMQBoxPackedForward_Private(ctx->dmf, &ctx->move, ms, src, dst, op));
  else
    PetscCall(DMQBoxPackedReverse_Private(ctx->dmf, &ctx->move, ms, src, dst, op));
  if (host) {
    PetscCall(VecRestoreArrayRead(vs, &src));
    PetscCall(VecRestoreArray(vd, &dst));
  } else {
    PetscCall(VecRestoreArrayReadAndMemType(vs, &src));
    if (op == INSERT_VALUES)
      PetscCall(VecRestoreArrayWriteAndMemType(vd, &dst));
    else
      PetscCall(VecRestoreArrayAndMemType(vd, &dst));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatTransferApply(Mat P, Vec x, Vec z, Vec y, PetscBool transpose)
{
  Mat_QBoxTransfer *ctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(P, &ctx));
  if (!ctx->dmfa)
    PetscCall(QBoxTransferKernels(P, ctx, ctx->dmf, x, z, y, transpose));
  else if (!transpose) { /* y = z + P x: t = P x on the coarse level's ranks, then moved to the fine ones */
    PetscCall(QBoxTransferKernels(P, ctx, ctx->dmfa, x, NULL, ctx->t, PETSC_FALSE));
    if (z && z != y) PetscCall(VecCopy(z, y));
    PetscCall(QBoxTransferMove(ctx, PETSC_TRUE, z ? ADD_VALUES : INSERT_VALUES, y));
  } else { /* y = z + P^T x: x moved to the coarse level's ranks, then restricted there */
    PetscCall(QBoxTransferMove(ctx, PETSC_FALSE, INSERT_VALUES, x));
    PetscCall(QBoxTransferKernels(P, ctx, ctx->dmfa, ctx->t, z, y, PETSC_TRUE));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_QBoxTransfer(Mat P, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatTransferApply(P, x, NULL, y, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode MatMultAdd_QBoxTransfer(Mat P, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatTransferApply(P, x, z, y, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode MatMultTranspose_QBoxTransfer(Mat P, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatTransferApply(P, x, NULL, y, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode MatMultTransposeAdd_QBoxTransfer(Mat P, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatTransferApply(P, x, z, y, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCreateVecs_QBoxTransfer(Mat P, Vec *right, Vec *left)
{
  Mat_QBoxTransfer *ctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(P, &ctx));
  PetscCall(DMQBoxMatCreateVecs_Private(ctx->dmc, ctx->dmf, right, left)); /* P: coarse -> fine */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_QBoxTransfer(Mat P, PetscViewer viewer)
{
  Mat_QBoxTransfer *ctx;
  PetscBool         isascii;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(P, &ctx));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (isascii) {
    DM_QBox *qc = (DM_QBox *)ctx->dmc->data, *qf = (DM_QBox *)ctx->dmf->data;
    PetscCall(PetscViewerASCIIPrintf(viewer, "matrix-free Q_%" PetscInt_FMT " embedding (DMQBOX), %s, coarse cells %" PetscInt_FMT " -> fine cells %" PetscInt_FMT " in x\n", qc->degree,
                                     ctx->homogeneous ? "homogeneous Dirichlet" : "boundary included", qc->cells[0], qf->cells[0]));
    if (ctx->dmfa)
      PetscCall(PetscViewerASCIIPrintf(viewer, "coarse level on %" PetscInt_FMT " of the fine level's %" PetscInt_FMT " processes (-dm_qbox_gather): the fine values move by a star forest\n", qc->procs[0] * qc->procs[1] * qc->procs[2],
                                       qf->procs[0] * qf->procs[1] * qf->procs[2]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_QBoxTransfer(Mat P)
{
  Mat_QBoxTransfer *ctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(P, &ctx));
  PetscCall(PetscFree(ctx->work));
  PetscCall(DMDestroy(&ctx->dmc));
  PetscCall(DMDestroy(&ctx->dmf));
  PetscCall(DMDestroy(&ctx->dmfa));
  PetscCall(DMQBoxPackedDestroy_Private(&ctx->move));
  PetscCall(VecDestroy(&ctx->t));
  PetscCall(PetscFree(ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Check that dmf is the uniform refinement of dmc (and with partition, on the same partition) */
static PetscErrorCode MatQBoxTransferCheckRefinement(DM dmc, DM dmf, PetscBool partition)
{
  DM_QBox *qc = (DM_QBox *)dmc->data, *qf = (DM_QBox *)dmf->data;

  PetscFunctionBegin;
  PetscCheck(qc->dg == qf->dg, PetscObjectComm((PetscObject)dmc), PETSC_ERR_ARG_INCOMP, "DMQBOX transfer between a continuous and a discontinuous level");
  PetscCheck(qc->dim == qf->dim && qc->degree == qf->degree, PetscObjectComm((PetscObject)dmc), PETSC_ERR_ARG_INCOMP,
             "DMQBOX transfer needs the same dimension and degree on both levels (coarse %" PetscInt_FMT "D Q_%" PetscInt_FMT ", fine %" PetscInt_FMT "D Q_%" PetscInt_FMT ")", qc->dim, qc->degree, qf->dim, qf->degree);
  for (PetscInt d = 0; d < qc->dim; d++) {
    PetscCheck(qf->cells[d] == 2 * qc->cells[d], PetscObjectComm((PetscObject)dmc), PETSC_ERR_ARG_INCOMP,
               "DMQBOX transfer needs a fine level with twice the coarse cells: direction %" PetscInt_FMT " has %" PetscInt_FMT " coarse and %" PetscInt_FMT " fine cells", d, qc->cells[d], qf->cells[d]);
    PetscCheck(qf->lower[d] == qc->lower[d] && qf->upper[d] == qc->upper[d], PetscObjectComm((PetscObject)dmc), PETSC_ERR_ARG_INCOMP, "DMQBOX transfer needs both levels on the same box");
    PetscCheck(!partition || (qf->grid.cs[d] == 2 * qc->grid.cs[d] && qf->grid.cm[d] == 2 * qc->grid.cm[d]), PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "DMQBOX transfer needs aligned partitions (create the levels with DMCoarsen() or DMRefine())");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dmf's partition is dmc's refined (the same process grid, twice the cells per process column) */
static PetscBool DMQBoxAligned(const DM_QBox *qc, const DM_QBox *qf)
{
  for (PetscInt d = 0; d < 3; d++)
    if (qc->procs[d] != qf->procs[d]) return PETSC_FALSE;
  for (PetscInt d = 0; d < qc->dim; d++)
    for (PetscInt i = 0; i < qc->procs[d]; i++)
      if (qf->lc[d][i] != 2 * qc->lc[d][i]) return PETSC_FALSE;
  return PETSC_TRUE;
}

PetscErrorCode MatCreateQBoxTransfer_Private(DM dmc, DM dmf, PetscBool homogeneous, Mat *P)
{
  Mat_QBoxTransfer *ctx;
  DM_QBox          *qc = (DM_QBox *)dmc->data, *qf = (DM_QBox *)dmf->data;
  PetscInt          mc = qc->grid.xm[0] * qc->grid.xm[1] * qc->grid.xm[2], mf = qf->grid.xm[0] * qf->grid.xm[1] * qf->grid.xm[2];

  PetscFunctionBegin;
  PetscCall(PetscNew(&ctx));
  ctx->dmc         = dmc;
  ctx->dmf         = dmf;
  ctx->homogeneous = homogeneous;
  PetscCall(PetscObjectReference((PetscObject)dmc));
  PetscCall(PetscObjectReference((PetscObject)dmf));
  PetscCall(MatQBoxTransferCheckRefinement(dmc, dmf, PETSC_FALSE));
  if (DMQBoxAligned(qc, qf))
    PetscCall(MatQBoxTransferCheckRefinement(dmc, dmf, PETSC_TRUE));
  else { /* a coarse level on other processes (gathered, DMCoarsen()): the fine level on its partition, and the move */
    PetscCall(DMRefine(dmc, PetscObjectComm((PetscObject)dmc), &ctx->dmfa));
    PetscCall(MatQBoxTransferCheckRefinement(dmc, ctx->dmfa, PETSC_TRUE));
    PetscCall(DMQBoxCreateMove_Private(ctx->dmfa, dmf, &ctx->move));
    PetscCall(DMCreateGlobalVector(ctx->dmfa, &ctx->t));
  }
  PetscCall(PetscMalloc1(VPTransferWorkSize(qc->dim, qc->degree), &ctx->work));
  PetscCall(MatCreateShell(PetscObjectComm((PetscObject)dmf), mf, mc, PETSC_DETERMINE, PETSC_DETERMINE, ctx, P));
  PetscCall(MatShellSetVecType(*P, dmf->vectype));
  PetscCall(MatShellSetOperation(*P, MATOP_MULT, (PetscErrorCodeFn *)MatMult_QBoxTransfer));
  PetscCall(MatShellSetOperation(*P, MATOP_MULT_ADD, (PetscErrorCodeFn *)MatMultAdd_QBoxTransfer));
  PetscCall(MatShellSetOperation(*P, MATOP_MULT_TRANSPOSE, (PetscErrorCodeFn *)MatMultTranspose_QBoxTransfer));
  PetscCall(MatShellSetOperation(*P, MATOP_MULT_TRANSPOSE_ADD, (PetscErrorCodeFn *)MatMultTransposeAdd_QBoxTransfer));
  PetscCall(MatShellSetOperation(*P, MATOP_VIEW, (PetscErrorCodeFn *)MatView_QBoxTransfer));
  PetscCall(MatShellSetOperation(*P, MATOP_CREATE_VECS, (PetscErrorCodeFn *)MatCreateVecs_QBoxTransfer));
  PetscCall(MatShellSetOperation(*P, MATOP_DESTROY, (PetscErrorCodeFn *)MatDestroy_QBoxTransfer));
  PetscFunctionReturn(PETSC_SUCCESS);
}
