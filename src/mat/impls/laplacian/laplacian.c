/*
  The matrix-free Q_k Laplacian of a DMQBOX (host glue): the MATSHELL that DMCreateMatrix() returns by default
  (src/dm/impls/qbox/qboxmat.c makes it; the CPU kernels are laplacian_cpu.c, the CUDA kernels cuda/laplacian.cu).
  With a map or a coefficient (src/dm/impls/qbox/qboxgeo.c) the same shell applies -div(a grad u) on the mapped cells
  with the DM's geometric factors (CPU: laplacian_cpu.c, VPMappedApply_CPU(); CUDA: cuda/mapped.cu).

  MatMult = global-to-local, cell kernel (sum factorization) on the owned cells, local-to-global with ADD. MatResidual
  on one rank: the same kernel adds b (r = b - A x in one pass, -dm_qbox_fused_residual). Dirichlet
  nodes are eliminated: their rows are the identity and their columns are zero in the interior rows, so the operator
  is symmetric positive definite. For PETSc's methods that need matrix entries (MatSOR(), MatGetFactor(),
  PCREDUNDANT's MatCreateSubMatrices()) the shell delegates to an assembled copy made on first use.
*/
#include <petscvpatch/private/qboximpl.h>
#include <petsc/private/matimpl.h>
#include <petscdmda.h>

typedef struct {
  DM               dm;       /* the DMQBOX (referenced); several ranks: its pool of local vectors (DMGetLocalVector()) holds the ghosted
                                input and output, shared with the smoother and the transfers of the level */
  Mat              aij;      /* the same operator assembled, made on first use by MatSOR(), MatGetFactor(), MatCreateSubMatrices() */
  PetscObjectState aijstate; /* the state of the shell when aij was assembled (MatScale()/MatShift() change it) */
  PetscScalar     *work;     /* CPU kernels of the mapped operator: VPMappedWorkSize() scalars */
} Mat_QBoxLaplacian;

static PetscErrorCode MatMultAdd_QBoxLaplacian(Mat A, Vec x, Vec z, Vec y)
{
  Mat_QBoxLaplacian *ctx;
  DM_QBox           *q;
  const PetscScalar *xa;
  PetscScalar       *ya;
  PetscMemType       mt;
  PetscBool          global = PETSC_FALSE, general;
  DMQBoxGhosted      X, Y;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  q       = (DM_QBox *)ctx->dm->data;
  general = DMQBoxIsGeneral_Private(q);
  PetscCall(PetscLogEventBegin(VPATCH_LaplacianMult, A, x, y, 0));
  if (!z) PetscCall(DMQBoxUseGlobalArrays_Private(ctx->dm, x, &global));
  if (global) {
    PetscCall(VecSet(y, 0.0));
    PetscCall(VecGetArrayReadAndMemType(x, &xa, &mt));
    PetscCall(VecGetArrayAndMemType(y, &ya, NULL));
  } else { /* y = z + A x: the kernel sets the Dirichlet rows, so A x is summed in a local vector before z is added */
    PetscCall(DMQBoxGhostedGet_Private(ctx->dm, x, DMQBOX_GHOSTED_IN, PETSC_FALSE, &X));
    if (z && z != y) PetscCall(VecCopy(z, y));
    PetscCall(DMQBoxGhostedGet_Private(ctx->dm, y, z ? DMQBOX_GHOSTED_OUT_ADD : DMQBOX_GHOSTED_OUT_SUM, (PetscBool) !!z, &Y));
    xa = X.a;
    ya = Y.a;
    mt = X.mt;
    PetscCheck(X.mt == Y.mt, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MatMult of the DMQBOX operator: x and y live in different memory (host and device); use vectors of the DM");
  }
  if (PetscMemTypeDevice(mt)) {
    PetscCall(DMQBoxGetDeviceMatrices_Private(ctx->dm, NULL)); /* also the operator kernel's constants */
    PetscCall(PetscLogGpuTimeBegin());
    if (general && q->geofly && q->grid.dim == 3) { /* the factors in the kernel; the stored ones checked the map and coefficient */
      const PetscReal *d_geo;
      VPGeometryParams p;
      PetscCheck(q->maptype != DMQBOX_MAPPING_USER && q->coeftype != DMQBOX_COEFFICIENT_USER, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP,
                 "-dm_qbox_geometry_onthefly: the CUDA kernel evaluates the built-in maps and coefficients only, not callbacks; drop the option");
      PetscCall(DMQBoxGetGeometry_Private(ctx->dm, NULL, &d_geo));
      PetscCall(DMQBoxGeometryParams_Private(ctx->dm, &p));
      PetscCall(VPMappedApply_CUDA(&q->grid, (PetscBool)(q->precision == VP_PRECISION_SINGLE), &p, NULL, xa, ya));
    } else if (general && q->precision == VP_PRECISION_SINGLE) {
      const float *d_geof;
      PetscCall(DMQBoxGetGeometryFloat_Private(ctx->dm, &d_geof));
      PetscCall(VPMappedApply_CUDA(&q->grid, PETSC_TRUE, NULL, d_geof, xa, ya));
    } else if (general) {
      const PetscReal *d_geo;
      PetscCall(DMQBoxGetGeometry_Private(ctx->dm, NULL, &d_geo));
      PetscCall(VPMappedApply_CUDA(&q->grid, PETSC_FALSE, NULL, d_geo, xa, ya));
    } else
      PetscCall(VPLaplacianApply_CUDA(&q->grid, (PetscBool)(q->precision == VP_PRECISION_SINGLE), q->deterministic, xa, ya));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops(general ? VPFlopsMapped(&q->grid) : VPFlopsLaplacian(&q->grid)));
  } else {
    PetscCheck(q->precision == VP_PRECISION_DOUBLE, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "DMQBOX single precision (-dm_qbox_precision, -dm_qbox_mg_precision) runs on the GPU only: use -dm_vec_type cuda, or double precision");
    if (general) {
      const PetscReal *geo;
      PetscCall(DMQBoxGetGeometry_Private(ctx->dm, &geo, NULL));
      PetscCall(VPMappedApply_CPU(&q->grid, &q->basis, geo, xa, ya, ctx->work));
    } else
      PetscCall(VPLaplacianApply_CPU(&q->grid, &q->basis, xa, ya));
    PetscCall(PetscLogFlops(general ? VPFlopsMapped(&q->grid) : VPFlopsLaplacian(&q->grid)));
  }
  if (global) {
    PetscCall(VecRestoreArrayAndMemType(y, &ya));
    PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
  } else {
    PetscCall(DMQBoxGhostedRestore_Private(ctx->dm, &Y));
    PetscCall(DMQBoxGhostedRestore_Private(ctx->dm, &X));
  }
  PetscCall(PetscLogEventEnd(VPATCH_LaplacianMult, A, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_QBoxLaplacian(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultAdd_QBoxLaplacian(A, x, NULL, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatResidual(): r = b - A x. On one rank with CUDA vectors, the Cartesian operator unchanged by MatScale() and the like
   (-dm_qbox_fused_residual): the operator's kernel adds b itself (VPLaplacianResidual_CUDA()), one pass over x and b
   where MatMult() and VecAYPX() make two more over r and one more over b. Otherwise MatMult() and VecAYPX(), as PETSc. */
static PetscErrorCode MatResidual_QBoxLaplacian(Mat A, Vec b, Vec x, Vec r)
{
  Mat_QBoxLaplacian *ctx;
  DM_QBox           *q;
  DM                 dm;
  PetscScalar        scale, shift;
  const char        *other;
  PetscBool          fused = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  q = (DM_QBox *)ctx->dm->data;
  PetscCall(MatQBoxLaplacianGetInfo_Private(A, &dm, &scale, &shift, &other));
  if (dm && q->fusedres && !DMQBoxIsGeneral_Private(q) && scale == (PetscScalar)1.0 && shift == (PetscScalar)0.0 && !other && r != x && r != b) {
    PetscBool gx, gb;
    PetscCall(DMQBoxUseGlobalArrays_Private(ctx->dm, x, &gx));
    PetscCall(DMQBoxUseGlobalArrays_Private(ctx->dm, b, &gb));
    fused = (PetscBool)(gx && gb);
  }
  if (!fused) {
    PetscCall(MatMult(A, x, r));
    PetscCall(VecAYPX(r, -1.0, b));
  } else {
    const PetscScalar *xa, *ba;
    PetscScalar       *ra;
    PetscMemType       mt;

    PetscCall(PetscLogEventBegin(VPATCH_LaplacianMult, A, x, r, 0));
    PetscCall(VecGetArrayReadAndMemType(x, &xa, NULL));
    PetscCall(VecGetArrayReadAndMemType(b, &ba, NULL));
    PetscCall(VecGetArrayWriteAndMemType(r, &ra, &mt));
    PetscCheck(PetscMemTypeDevice(mt), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MatResidual of the DMQBOX operator: b and x are CUDA vectors but r is not; use vectors of the DM");
    PetscCall(DMQBoxGetDeviceMatrices_Private(ctx->dm, NULL)); /* the operator kernel's constants */
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(VPLaplacianResidual_CUDA(&q->grid, (PetscBool)(q->precision == VP_PRECISION_SINGLE), q->deterministic, ba, xa, ra));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops(VPFlopsLaplacian(&q->grid) + (PetscLogDouble)A->rmap->n));
    PetscCall(VecRestoreArrayWriteAndMemType(r, &ra));
    PetscCall(VecRestoreArrayReadAndMemType(b, &ba));
    PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
    PetscCall(PetscLogEventEnd(VPATCH_LaplacianMult, A, x, r, 0));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetDiagonal_QBoxLaplacian(Mat A, Vec d)
{
  Mat_QBoxLaplacian *ctx;
  DM_QBox           *q;
  PetscScalar       *da;
  PetscMemType       mt;
  DMQBoxGhosted      Y;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  q = (DM_QBox *)ctx->dm->data;
  PetscCall(PetscLogEventBegin(VPATCH_LaplacianDiag, A, d, 0, 0));
  PetscCall(DMQBoxGhostedGet_Private(ctx->dm, d, DMQBOX_GHOSTED_OUT_SUM, PETSC_FALSE, &Y));
  da = Y.a;
  mt = Y.mt;
  if (PetscMemTypeDevice(mt) && DMQBoxIsGeneral_Private(q)) {
    const PetscReal *d_geo;
    PetscCall(DMQBoxGetDeviceMatrices_Private(ctx->dm, NULL)); /* the kernels' constants */
    PetscCall(DMQBoxGetGeometry_Private(ctx->dm, NULL, &d_geo));
    PetscCall(VPMappedDiagonal_CUDA(&q->grid, d_geo, da));
    PetscCall(PetscLogGpuFlops(VPFlopsMappedDiagonal(&q->grid)));
  } else if (PetscMemTypeDevice(mt)) {
    const PetscReal *d_lap;
    PetscCall(DMQBoxGetDeviceMatrices_Private(ctx->dm, &d_lap));
    PetscCall(VPLaplacianDiagonal_CUDA(&q->grid, d_lap, da));
    PetscCall(PetscLogGpuFlops(VPFlopsDiagonal(&q->grid)));
  } else if (DMQBoxIsGeneral_Private(q)) {
    const PetscReal *geo;
    PetscCall(DMQBoxGetGeometry_Private(ctx->dm, &geo, NULL));
    PetscCall(VPMappedDiagonal_CPU(&q->grid, &q->basis, geo, da, ctx->work));
    PetscCall(PetscLogFlops(VPFlopsMappedDiagonal(&q->grid)));
  } else {
    PetscCall(VPLaplacianDiagonal_CPU(&q->grid, &q->basis, da));
    PetscCall(PetscLogFlops(VPFlopsDiagonal(&q->grid)));
  }
  PetscCall(DMQBoxGhostedRestore_Private(ctx->dm, &Y));
  PetscCall(PetscLogEventEnd(VPATCH_LaplacianDiag, A, d, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCreateVecs_QBoxLaplacian(Mat A, Vec *right, Vec *left)
{
  Mat_QBoxLaplacian *ctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  PetscCall(DMQBoxMatCreateVecs_Private(ctx->dm, ctx->dm, right, left));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_QBoxLaplacian(Mat A, PetscViewer viewer)
{
  Mat_QBoxLaplacian *ctx;
  PetscBool          isascii;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (isascii) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "matrix-free Q_k %s of a DMQBOX (sum factorization, Dirichlet rows identity)\n", DMQBoxIsGeneral_Private((DM_QBox *)ctx->dm->data) ? "operator -div(a grad u) on mapped cells" : "Laplacian"));
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(DMView(ctx->dm, viewer));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_QBoxLaplacian(Mat A)
{
  Mat_QBoxLaplacian *ctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  PetscCall(MatDestroy(&ctx->aij));
  PetscCall(PetscFree(ctx->work));
  PetscCall(DMDestroy(&ctx->dm));
  PetscCall(PetscFree(ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatQBoxLaplacianGetInfo_Private - Whether A is the matrix-free Laplacian L of a DMQBOX (on the discontinuous space: its
  SIPG operator), and how MATSHELL has changed it

  Output Parameters:
+ dm    - the DMQBOX of the operator, or NULL when A is not such an operator (the other outputs are then unset)
. scale - A = scale L + shift I, as MATSHELL records MatScale() and MatShift()
. shift - see scale
- other - NULL, or the name of a further change that is neither a scale nor a shift
*/
PetscErrorCode MatQBoxLaplacianGetInfo_Private(Mat A, DM *dm, PetscScalar *scale, PetscScalar *shift, const char **other)
{
  PetscBool          isshell;
  PetscErrorCodeFn  *mult = NULL;
  Mat_QBoxLaplacian *ctx;
  Vec                dshift, left, right;
  Mat                axpy;
  IS                 zrows, zcols;

  PetscFunctionBegin;
  *dm    = NULL;
  *scale = 1.0;
  *shift = 0.0;
  *other = NULL;
  PetscCall(MatIsShell(A, &isshell));
  if (!isshell) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatShellGetOperation(A, MATOP_MULT, &mult));
  if (mult == (PetscErrorCodeFn *)MatMult_QBoxLaplacian) {
    PetscCall(MatShellGetContext(A, &ctx));
    *dm = ctx->dm;
  } else {
    PetscCall(MatQBoxSIPGGetDM_Private(A, dm)); /* the discontinuous space's operator (src/mat/impls/sipg/) */
    if (!*dm) PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatShellGetScalingShifts(A, shift, scale, &dshift, &left, &right, &axpy, &zrows, &zcols));
  if (dshift)
    *other = "a diagonal added by MatDiagonalSet()";
  else if (left || right)
    *other = "a diagonal scaling by MatDiagonalScale()";
  else if (axpy)
    *other = "a matrix added by MatAXPY()";
  else if (zrows || zcols)
    *other = "rows zeroed by MatZeroRows() or MatZeroRowsColumns()";
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The operator A (the Laplacian, scaled and shifted as MATSHELL records it) assembled as AIJ: made on first use and
   again after A changed, for PETSc's methods that need matrix entries (MatSOR(), MatGetFactor(), PCREDUNDANT) */
static PetscErrorCode MatQBoxLaplacianGetAIJ(Mat A, const char caller[], Mat *B)
{
  Mat_QBoxLaplacian *ctx;
  DM                 dm;
  PetscScalar        scale, shift;
  const char        *other;
  PetscObjectState   state;

  PetscFunctionBegin;
  PetscCall(MatQBoxLaplacianGetInfo_Private(A, &dm, &scale, &shift, &other));
  PetscCheck(!other, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "%s on the matrix-free DMQBOX operator assembles it, but this operator was changed by %s, which is not reproduced: assemble it yourself (-dm_mat_type aij) instead", caller, other);
  PetscCall(MatShellGetContext(A, &ctx));
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (!ctx->aij || ctx->aijstate != state) {
    PetscCall(PetscInfo(A, "%s on the matrix-free DMQBOX operator: assembling it as %s (the vertex-patch smoother, -mg_levels_pc_type vpatch, needs no assembled matrix)\n", caller, MATAIJ));
    PetscCall(MatDestroy(&ctx->aij));
    PetscCall(DMQBoxAssembleLaplacian_Private(dm, MATAIJ, &ctx->aij));
    if (scale != (PetscScalar)1.0) PetscCall(MatScale(ctx->aij, scale));
    if (shift != (PetscScalar)0.0) PetscCall(MatShift(ctx->aij, shift));
    ctx->aijstate = state;
  }
  *B = ctx->aij;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the assembled copy for a method outside (PCAUXAMG as the coarse solver of PCMG), owned by A; B = NULL when A is not
   the continuous space's matrix-free operator */
PetscErrorCode MatQBoxLaplacianGetAIJ_Private(Mat A, const char caller[], Mat *B)
{
  DM          dm;
  PetscScalar scale, shift;
  const char *other;

  PetscFunctionBegin;
  *B = NULL;
  PetscCall(MatQBoxLaplacianGetInfo_Private(A, &dm, &scale, &shift, &other));
  if (dm && !((DM_QBox *)dm->data)->dg) PetscCall(MatQBoxLaplacianGetAIJ(A, caller, B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc's default multigrid smoother (Chebyshev with PCSOR) on the matrix-free operator: SOR of the assembled copy */
static PetscErrorCode MatSOR_QBoxLaplacian(Mat A, Vec b, PetscReal omega, MatSORType flag, PetscReal fshift, PetscInt its, PetscInt lits, Vec x)
{
  Mat B;

  PetscFunctionBegin;
  PetscCall(MatQBoxLaplacianGetAIJ(A, "MatSOR()", &B));
  PetscCall(MatSOR(B, b, omega, flag, fshift, its, lits, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PCREDUNDANT (PCMG's default coarse solver on several processes) gathers the operator by MatCreateSubMatrices() */
static PetscErrorCode MatCreateSubMatrices_QBoxLaplacian(Mat A, PetscInt n, const IS irow[], const IS icol[], MatReuse scall, Mat *submat[])
{
  Mat B;

  PetscFunctionBegin;
  PetscCall(MatQBoxLaplacianGetAIJ(A, "MatCreateSubMatrices()", &B));
  PetscCall(MatCreateSubMatrices(B, n, irow, icol, scall, submat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A direct factorization of the matrix-free operator (PCLU, PCCHOLESKY: PCMG's default coarse solver on one process):
   the factor F is a MATSHELL around PETSc's factor FA of the assembled copy B */
typedef struct {
  Mat B;  /* the assembled operator (referenced) */
  Mat FA; /* its factor */
  IS  row, col;
} Mat_QBoxFactor;

static PetscErrorCode MatQBoxFactorUpdate(Mat F, Mat A, Mat_QBoxFactor **fctx)
{
  Mat B;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(F, fctx));
  PetscCall(MatQBoxLaplacianGetAIJ(A, "MatGetFactor()", &B));
  PetscCall(PetscObjectReference((PetscObject)B));
  PetscCall(MatDestroy(&(*fctx)->B));
  (*fctx)->B = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatQBoxFactorNumeric(Mat F, Mat A, const MatFactorInfo *info)
{
  Mat_QBoxFactor *fctx;

  PetscFunctionBegin;
  PetscCall(MatQBoxFactorUpdate(F, A, &fctx));
  if (F->factortype == MAT_FACTOR_LU)
    PetscCall(MatLUFactorNumeric(fctx->FA, fctx->B, info));
  else
    PetscCall(MatCholeskyFactorNumeric(fctx->FA, fctx->B, info));
  F->factorerrortype = fctx->FA->factorerrortype;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the symbolic phase of either factorization: a nested-dissection ordering of the assembled copy */
static PetscErrorCode MatQBoxFactorOrdering(Mat F, Mat A, Mat_QBoxFactor **fctx)
{
  PetscFunctionBegin;
  PetscCall(MatQBoxFactorUpdate(F, A, fctx));
  PetscCall(ISDestroy(&(*fctx)->row));
  PetscCall(ISDestroy(&(*fctx)->col));
  PetscCall(MatGetOrdering((*fctx)->B, MATORDERINGND, &(*fctx)->row, &(*fctx)->col));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatQBoxFactorLUSymbolic(Mat F, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  Mat_QBoxFactor *fctx;

  PetscFunctionBegin;
  (void)row;
  (void)col;
  PetscCall(MatQBoxFactorOrdering(F, A, &fctx));
  PetscCall(MatLUFactorSymbolic(fctx->FA, fctx->B, fctx->row, fctx->col, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatQBoxFactorCholeskySymbolic(Mat F, Mat A, IS perm, const MatFactorInfo *info)
{
  Mat_QBoxFactor *fctx;

  PetscFunctionBegin;
  (void)perm;
  PetscCall(MatQBoxFactorOrdering(F, A, &fctx));
  PetscCall(MatCholeskyFactorSymbolic(fctx->FA, fctx->B, fctx->row, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatQBoxFactorSolve(Mat F, Vec b, Vec x)
{
  Mat_QBoxFactor *fctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(F, &fctx));
  PetscCall(MatSolve(fctx->FA, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatQBoxFactorGetInfo(Mat F, MatInfoType flag, MatInfo *info)
{
  Mat_QBoxFactor *fctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(F, &fctx));
  PetscCall(MatGetInfo(fctx->FA, flag, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatQBoxFactorGetSolverType(Mat F, MatSolverType *type)
{
  Mat_QBoxFactor *fctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(F, &fctx));
  PetscCall(MatFactorGetSolverType(fctx->FA, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatQBoxFactorDestroy(Mat F)
{
  Mat_QBoxFactor *fctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(F, &fctx));
  PetscCall(MatDestroy(&fctx->FA));
  PetscCall(MatDestroy(&fctx->B));
  PetscCall(ISDestroy(&fctx->row));
  PetscCall(ISDestroy(&fctx->col));
  PetscCall(PetscFree(fctx));
  PetscCall(PetscObjectComposeFunction((PetscObject)F, "MatFactorGetSolverType_C", NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetFactor_QBoxLaplacian(Mat A, MatSolverType type, MatFactorType ftype, Mat *F)
{
  Mat_QBoxFactor *fctx;
  Mat             B;
  PetscInt        m, n, M, N;

  PetscFunctionBegin;
  PetscCheck(ftype == MAT_FACTOR_LU || ftype == MAT_FACTOR_CHOLESKY, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP,
             "The matrix-free DMQBOX operator offers LU and Cholesky factorizations (of an assembled copy), not %s: use -dm_mat_type aij for other factorizations", MatFactorTypes[ftype]);
  PetscCall(MatQBoxLaplacianGetAIJ(A, "MatGetFactor()", &B));
  PetscCall(PetscNew(&fctx));
  PetscCall(MatGetFactor(B, type, ftype, &fctx->FA));
  fctx->B = B;
  PetscCall(PetscObjectReference((PetscObject)B));
  PetscCall(MatGetLocalSize(A, &m, &n));
  PetscCall(MatGetSize(A, &M, &N));
  PetscCall(MatCreateShell(PetscObjectComm((PetscObject)A), m, n, M, N, fctx, F));
  PetscCall(MatShellSetOperation(*F, MATOP_DESTROY, (PetscErrorCodeFn *)MatQBoxFactorDestroy));
  PetscCall(MatShellSetOperation(*F, MATOP_GETINFO, (PetscErrorCodeFn *)MatQBoxFactorGetInfo));
  PetscCall(MatShellSetOperation(*F, MATOP_SOLVE, (PetscErrorCodeFn *)MatQBoxFactorSolve));
  PetscCall(MatShellSetOperation(*F, MATOP_SOLVE_TRANSPOSE, (PetscErrorCodeFn *)MatQBoxFactorSolve)); /* symmetric */
  if (ftype == MAT_FACTOR_LU) {
    PetscCall(MatShellSetOperation(*F, MATOP_LUFACTOR_SYMBOLIC, (PetscErrorCodeFn *)MatQBoxFactorLUSymbolic));
    PetscCall(MatShellSetOperation(*F, MATOP_LUFACTOR_NUMERIC, (PetscErrorCodeFn *)MatQBoxFactorNumeric));
  } else {
    PetscCall(MatShellSetOperation(*F, MATOP_CHOLESKY_FACTOR_SYMBOLIC, (PetscErrorCodeFn *)MatQBoxFactorCholeskySymbolic));
    PetscCall(MatShellSetOperation(*F, MATOP_CHOLESKY_FACTOR_NUMERIC, (PetscErrorCodeFn *)MatQBoxFactorNumeric));
  }
  PetscCall(PetscObjectComposeFunction((PetscObject)*F, "MatFactorGetSolverType_C", MatQBoxFactorGetSolverType));
  (*F)->factortype = ftype;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PCMG -pc_mg_galerkin forms P^T A P: not with matrix-free operators and transfers; say what to do instead */
static PetscErrorCode MatProductSymbolic_QBoxLaplacian_Galerkin(Mat A, Mat P, Mat C, void **data)
{
  PetscFunctionBegin;
  (void)P;
  (void)C;
  (void)data;
  SETERRQ(PetscObjectComm((PetscObject)A), PETSC_ERR_SUP,
          "P^T A P of the matrix-free DMQBOX operator (PCMG -pc_mg_galerkin): the DMQBOX operators and transfers are matrix-free, so no Galerkin product is formed. PCMG gets each level's operator from its DMQBOX (the Q_k Laplacian of that mesh, "
          "which is the Galerkin operator of the nested spaces on the unknowns): drop -pc_mg_galerkin");
}

static PetscErrorCode MatProductNumeric_QBoxLaplacian_Galerkin(Mat A, Mat P, Mat C, void *data)
{
  PetscFunctionBegin;
  PetscCall(MatProductSymbolic_QBoxLaplacian_Galerkin(A, P, C, NULL));
  (void)data;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMQBoxCreateLaplacianShell_Private(DM dm, Mat *A)
{
  DM_QBox           *q = (DM_QBox *)dm->data;
  Mat_QBoxLaplacian *ctx;
  PetscInt           n = q->grid.xm[0] * q->grid.xm[1] * q->grid.xm[2];
  const PetscReal   *geo, *d_geo;

  PetscFunctionBegin;
  PetscCall(PetscNew(&ctx));
  ctx->dm = dm;
  PetscCall(PetscObjectReference((PetscObject)dm));
  if (DMQBoxIsGeneral_Private(q)) { /* the geometric factors now, where the operator will run, so that a bad map or coefficient stops here */
    PetscBool cuda;
    PetscCall(DMQBoxIsCUDA_Private(dm, &cuda));
    if (cuda) PetscCall(DMQBoxGetDeviceMatrices_Private(dm, NULL));
    PetscCall(DMQBoxGetGeometry_Private(dm, cuda ? NULL : &geo, cuda ? &d_geo : NULL));
    PetscCall(PetscMalloc1(VPMappedWorkSize(q->dim, q->degree), &ctx->work));
  }
  PetscCall(MatCreateShell(PetscObjectComm((PetscObject)dm), n, n, PETSC_DETERMINE, PETSC_DETERMINE, ctx, A));
  PetscCall(MatShellSetVecType(*A, dm->vectype));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT, (PetscErrorCodeFn *)MatMult_QBoxLaplacian));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT_TRANSPOSE, (PetscErrorCodeFn *)MatMult_QBoxLaplacian));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT_ADD, (PetscErrorCodeFn *)MatMultAdd_QBoxLaplacian));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT_TRANSPOSE_ADD, (PetscErrorCodeFn *)MatMultAdd_QBoxLaplacian));
  PetscCall(MatShellSetOperation(*A, MATOP_GET_DIAGONAL, (PetscErrorCodeFn *)MatGetDiagonal_QBoxLaplacian));
  PetscCall(MatShellSetOperation(*A, MATOP_RESIDUAL, (PetscErrorCodeFn *)MatResidual_QBoxLaplacian));
  PetscCall(MatShellSetOperation(*A, MATOP_VIEW, (PetscErrorCodeFn *)MatView_QBoxLaplacian));
  PetscCall(MatShellSetOperation(*A, MATOP_CREATE_VECS, (PetscErrorCodeFn *)MatCreateVecs_QBoxLaplacian));
  PetscCall(MatShellSetOperation(*A, MATOP_SOR, (PetscErrorCodeFn *)MatSOR_QBoxLaplacian));
  PetscCall(MatShellSetOperation(*A, MATOP_GET_FACTOR, (PetscErrorCodeFn *)MatGetFactor_QBoxLaplacian));
  PetscCall(MatShellSetOperation(*A, MATOP_CREATE_SUBMATRICES, (PetscErrorCodeFn *)MatCreateSubMatrices_QBoxLaplacian));
  PetscCall(MatShellSetMatProductOperation(*A, MATPRODUCT_PtAP, MatProductSymbolic_QBoxLaplacian_Galerkin, MatProductNumeric_QBoxLaplacian_Galerkin, NULL, MATSHELL, MATSHELL));
  PetscCall(MatShellSetOperation(*A, MATOP_DESTROY, (PetscErrorCodeFn *)MatDestroy_QBoxLaplacian));
  PetscCall(PetscObjectChangeTypeName((PetscObject)*A, MATSHELL));
  PetscFunctionReturn(PETSC_SUCCESS);
}
