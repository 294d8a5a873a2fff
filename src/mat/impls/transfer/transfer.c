/*
  Matrix-free grid transfer between two DMQBOX levels (host glue): a MATSHELL whose MatMult is the
  prolongation (embedding of the coarse Q_k space) and whose MatMultTranspose is the restriction.
  The multigrid version is homogeneous: it acts on functions that vanish on the boundary, so the
  Dirichlet rows of the level operators are never touched by coarse-grid corrections.
*/
#include <petscvpatch/private/qboximpl.h>

typedef struct {
  DM        dmc, dmf;    /* coarse and fine DMQBOX (referenced) */
  Vec       cl, fl;      /* ghosted local work vectors */
  PetscBool homogeneous; /* zero boundary values in and out */
} Mat_QBoxTransfer;

static PetscErrorCode MatTransferApply(Mat P, Vec x, Vec z, Vec y, PetscBool transpose)
{
  Mat_QBoxTransfer  *ctx;
  DM_QBox           *qc, *qf;
  DM                 din, dout;
  Vec                lin, lout;
  const PetscScalar *xa;
  PetscScalar       *ya;
  PetscMemType       mt;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(P, &ctx));
  qc   = (DM_QBox *)ctx->dmc->data;
  qf   = (DM_QBox *)ctx->dmf->data;
  din  = transpose ? ctx->dmf : ctx->dmc;
  dout = transpose ? ctx->dmc : ctx->dmf;
  lin  = transpose ? ctx->fl : ctx->cl;
  lout = transpose ? ctx->cl : ctx->fl;
  PetscCall(PetscLogEventBegin(transpose ? VPATCH_Restrict : VPATCH_Prolong, P, x, y, 0));
  if (qc->samelayout && qf->samelayout) { /* one rank, CUDA: the local boxes are the global vectors; the kernel adds into y */
    PetscCall(VecGetArrayReadAndMemType(x, &xa, &mt));
    if (PetscMemTypeDevice(mt)) {
      if (!z)
        PetscCall(VecSet(y, 0.0));
      else if (z != y)
        PetscCall(VecCopy(z, y));
      PetscCall(VecGetArrayAndMemType(y, &ya, NULL));
      PetscCall(DMQBoxGetDeviceMatrices_Private(ctx->dmc, NULL, NULL)); /* also the transfer kernel's constants */
      PetscCall(PetscLogGpuTimeBegin());
      PetscCall(VPTransferApply_CUDA(&qc->grid, &qf->grid, (PetscBool)(qc->precision == VP_PRECISION_SINGLE), ctx->homogeneous, transpose, xa, ya));
      PetscCall(PetscLogGpuTimeEnd());
      PetscCall(VecRestoreArrayAndMemType(y, &ya));
      PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
      PetscCall(PetscLogEventEnd(transpose ? VPATCH_Restrict : VPATCH_Prolong, P, x, y, 0));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
  }
  PetscCall(DMGlobalToLocalBegin(din, x, INSERT_VALUES, lin));
  PetscCall(DMGlobalToLocalEnd(din, x, INSERT_VALUES, lin));
  PetscCall(VecSet(lout, 0.0));
  PetscCall(VecGetArrayReadAndMemType(lin, &xa, &mt));
  PetscCall(VecGetArrayAndMemType(lout, &ya, NULL));
  if (PetscMemTypeDevice(mt)) {
    PetscCall(DMQBoxGetDeviceMatrices_Private(ctx->dmc, NULL, NULL)); /* also the transfer kernel's constants */
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(VPTransferApply_CUDA(&qc->grid, &qf->grid, (PetscBool)(qc->precision == VP_PRECISION_SINGLE), ctx->homogeneous, transpose, xa, ya));
    PetscCall(PetscLogGpuTimeEnd());
  } else if (qc->precision != VP_PRECISION_DOUBLE)
    SETERRQ(PetscObjectComm((PetscObject)P), PETSC_ERR_SUP, "DMQBOX single precision (-dm_qbox_mg_precision) runs on the GPU only: use -dm_vec_type cuda, or double precision");
  else if (transpose)
    PetscCall(VPTransferRestrict_CPU(&qc->grid, &qf->grid, &qc->basis, ctx->homogeneous, xa, ya));
  else
    PetscCall(VPTransferProlong_CPU(&qc->grid, &qf->grid, &qc->basis, ctx->homogeneous, xa, ya));
  PetscCall(VecRestoreArrayAndMemType(lout, &ya));
  PetscCall(VecRestoreArrayReadAndMemType(lin, &xa));
  if (z) {
    if (z != y) PetscCall(VecCopy(z, y));
  } else
    PetscCall(VecSet(y, 0.0));
  PetscCall(DMLocalToGlobalBegin(dout, lout, ADD_VALUES, y));
  PetscCall(DMLocalToGlobalEnd(dout, lout, ADD_VALUES, y));
  PetscCall(PetscLogEventEnd(transpose ? VPATCH_Restrict : VPATCH_Prolong, P, x, y, 0));
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
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_QBoxTransfer(Mat P)
{
  Mat_QBoxTransfer *ctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(P, &ctx));
  PetscCall(VecDestroy(&ctx->cl));
  PetscCall(VecDestroy(&ctx->fl));
  PetscCall(DMDestroy(&ctx->dmc));
  PetscCall(DMDestroy(&ctx->dmf));
  PetscCall(PetscFree(ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Check that dmf is the uniform refinement of dmc with the same partition */
static PetscErrorCode DMQBoxCheckRefinement(DM dmc, DM dmf)
{
  DM_QBox *qc = (DM_QBox *)dmc->data, *qf = (DM_QBox *)dmf->data;

  PetscFunctionBegin;
  PetscCheck(qc->dim == qf->dim && qc->degree == qf->degree, PetscObjectComm((PetscObject)dmc), PETSC_ERR_ARG_INCOMP,
             "DMQBOX transfer needs the same dimension and degree on both levels (coarse %" PetscInt_FMT "D Q_%" PetscInt_FMT ", fine %" PetscInt_FMT "D Q_%" PetscInt_FMT ")", qc->dim, qc->degree, qf->dim, qf->degree);
  for (PetscInt d = 0; d < qc->dim; d++) {
    PetscCheck(qf->cells[d] == 2 * qc->cells[d], PetscObjectComm((PetscObject)dmc), PETSC_ERR_ARG_INCOMP,
               "DMQBOX transfer needs a fine level with twice the coarse cells: direction %" PetscInt_FMT " has %" PetscInt_FMT " coarse and %" PetscInt_FMT " fine cells", d, qc->cells[d], qf->cells[d]);
    PetscCheck(qf->lower[d] == qc->lower[d] && qf->upper[d] == qc->upper[d], PetscObjectComm((PetscObject)dmc), PETSC_ERR_ARG_INCOMP, "DMQBOX transfer needs both levels on the same box");
    PetscCheck(qf->grid.cs[d] == 2 * qc->grid.cs[d] && qf->grid.cm[d] == 2 * qc->grid.cm[d], PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "DMQBOX transfer needs aligned partitions (create the levels with DMCoarsen() or DMRefine())");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMQBoxCreateTransfer_Private(DM dmc, DM dmf, PetscBool homogeneous, Mat *P)
{
  Mat_QBoxTransfer *ctx;
  DM_QBox          *qc = (DM_QBox *)dmc->data, *qf = (DM_QBox *)dmf->data;
  PetscInt          mc = qc->grid.xm[0] * qc->grid.xm[1] * qc->grid.xm[2], mf = qf->grid.xm[0] * qf->grid.xm[1] * qf->grid.xm[2];

  PetscFunctionBegin;
  PetscCall(DMQBoxCheckRefinement(dmc, dmf));
  PetscCall(PetscNew(&ctx));
  ctx->dmc         = dmc;
  ctx->dmf         = dmf;
  ctx->homogeneous = homogeneous;
  PetscCall(PetscObjectReference((PetscObject)dmc));
  PetscCall(PetscObjectReference((PetscObject)dmf));
  PetscCall(DMCreateLocalVector(dmc, &ctx->cl));
  PetscCall(DMCreateLocalVector(dmf, &ctx->fl));
  PetscCall(MatCreateShell(PetscObjectComm((PetscObject)dmf), mf, mc, PETSC_DETERMINE, PETSC_DETERMINE, ctx, P));
  PetscCall(MatShellSetVecType(*P, dmf->vectype));
  PetscCall(MatShellSetOperation(*P, MATOP_MULT, (PetscErrorCodeFn *)MatMult_QBoxTransfer));
  PetscCall(MatShellSetOperation(*P, MATOP_MULT_ADD, (PetscErrorCodeFn *)MatMultAdd_QBoxTransfer));
  PetscCall(MatShellSetOperation(*P, MATOP_MULT_TRANSPOSE, (PetscErrorCodeFn *)MatMultTranspose_QBoxTransfer));
  PetscCall(MatShellSetOperation(*P, MATOP_MULT_TRANSPOSE_ADD, (PetscErrorCodeFn *)MatMultTransposeAdd_QBoxTransfer));
  PetscCall(MatShellSetOperation(*P, MATOP_VIEW, (PetscErrorCodeFn *)MatView_QBoxTransfer));
  PetscCall(MatShellSetOperation(*P, MATOP_DESTROY, (PetscErrorCodeFn *)MatDestroy_QBoxTransfer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMCreateInterpolation_QBox(DM dmc, DM dmf, Mat *P, Vec *rscale)
{
  PetscBool isqbox;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)dmf, DMQBOX, &isqbox));
  PetscCheck(isqbox, PetscObjectComm((PetscObject)dmc), PETSC_ERR_ARG_WRONG, "DMCreateInterpolation() from a DMQBOX needs a fine DM of type %s, not %s", DMQBOX, ((PetscObject)dmf)->type_name);
  PetscCall(DMQBoxCreateTransfer_Private(dmc, dmf, PETSC_TRUE, P));
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
  PetscCall(DMQBoxCreateTransfer_Private(dmc, dmf, PETSC_FALSE, &P));
  PetscCall(MatMult(P, xc, xf));
  PetscCall(MatDestroy(&P));
  PetscFunctionReturn(PETSC_SUCCESS);
}
