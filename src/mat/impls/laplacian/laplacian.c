/*
  The Q_k Laplacian of a DMQBOX: host glue. DMCreateMatrix() returns either the matrix-free
  operator (MATSHELL, default) or the same operator assembled (-dm_mat_type aij, aijcusparse, ...).

  Matrix-free: MatMult = global-to-local, cell kernel (sum factorization) on the owned cells,
  local-to-global with ADD. Dirichlet nodes are eliminated: their rows are the identity and their
  columns are zero in the interior rows, so the operator is symmetric positive definite.
*/
#include <petscvpatch/private/qboximpl.h>
#include <petsc/private/matimpl.h>
#include <petscdmda.h>

typedef struct {
  DM               dm;       /* the DMQBOX (referenced) */
  Vec              xl;       /* ghosted input */
  Vec              yl;       /* ghosted output accumulator */
  Mat              aij;      /* the same operator assembled, made on first use by MatSOR(), MatGetFactor(), MatCreateSubMatrices() */
  PetscObjectState aijstate; /* the state of the shell when aij was assembled (MatScale()/MatShift() change it) */
} Mat_QBoxLaplacian;

static PetscErrorCode DMQBoxAssembleLaplacian(DM, MatType, Mat *);

/* flops of one application on the owned cells: 2D 4, 3D 7 contractions of 2 (k+1)^(d+1) flops, plus the adds */
static PetscLogDouble LaplacianFlops(const VPGrid *g)
{
  PetscLogDouble n = g->k + 1, cells = (PetscLogDouble)g->cm[0] * g->cm[1] * g->cm[2];
  return g->dim == 2 ? cells * (8 * n * n * n + n * n) : cells * (14 * n * n * n * n + 2 * n * n * n);
}

static PetscErrorCode MatMultAdd_QBoxLaplacian(Mat A, Vec x, Vec z, Vec y)
{
  Mat_QBoxLaplacian *ctx;
  DM_QBox           *q;
  const PetscScalar *xa;
  PetscScalar       *ya;
  PetscMemType       mt;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  q = (DM_QBox *)ctx->dm->data;
  PetscCall(PetscLogEventBegin(VPATCH_LaplacianMult, A, x, y, 0));
  if (!z && q->samelayout) { /* one rank, CUDA: the local box is the global vector, so the kernel works on x and y directly */
    PetscCall(VecGetArrayReadAndMemType(x, &xa, &mt));
    if (PetscMemTypeDevice(mt)) {
      PetscCall(VecSet(y, 0.0));
      PetscCall(VecGetArrayAndMemType(y, &ya, NULL));
      PetscCall(DMQBoxGetDeviceMatrices_Private(ctx->dm, NULL, NULL)); /* also the operator kernel's constants */
      PetscCall(PetscLogGpuTimeBegin());
      PetscCall(VPLaplacianApply_CUDA(&q->grid, (PetscBool)(q->precision == VP_PRECISION_SINGLE), q->deterministic, xa, ya));
      PetscCall(PetscLogGpuTimeEnd());
      PetscCall(PetscLogGpuFlops(LaplacianFlops(&q->grid)));
      PetscCall(VecRestoreArrayAndMemType(y, &ya));
      PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
      PetscCall(PetscLogEventEnd(VPATCH_LaplacianMult, A, x, y, 0));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
  }
  PetscCall(DMGlobalToLocalBegin(ctx->dm, x, INSERT_VALUES, ctx->xl));
  PetscCall(DMGlobalToLocalEnd(ctx->dm, x, INSERT_VALUES, ctx->xl));
  PetscCall(VecSet(ctx->yl, 0.0));
  PetscCall(VecGetArrayReadAndMemType(ctx->xl, &xa, &mt));
  PetscCall(VecGetArrayAndMemType(ctx->yl, &ya, NULL));
  if (PetscMemTypeDevice(mt)) {
    PetscCall(DMQBoxGetDeviceMatrices_Private(ctx->dm, NULL, NULL)); /* also the operator kernel's constants */
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(VPLaplacianApply_CUDA(&q->grid, (PetscBool)(q->precision == VP_PRECISION_SINGLE), q->deterministic, xa, ya));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops(LaplacianFlops(&q->grid)));
  } else {
    PetscCheck(q->precision == VP_PRECISION_DOUBLE, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "DMQBOX single precision (-dm_qbox_precision, -dm_qbox_mg_precision) runs on the GPU only: use -dm_vec_type cuda, or double precision");
    PetscCall(VPLaplacianApply_CPU(&q->grid, &q->basis, xa, ya));
    PetscCall(PetscLogFlops(LaplacianFlops(&q->grid)));
  }
  PetscCall(VecRestoreArrayAndMemType(ctx->yl, &ya));
  PetscCall(VecRestoreArrayReadAndMemType(ctx->xl, &xa));
  if (z) {
    if (z != y) PetscCall(VecCopy(z, y));
  } else
    PetscCall(VecSet(y, 0.0));
  PetscCall(DMLocalToGlobalBegin(ctx->dm, ctx->yl, ADD_VALUES, y));
  PetscCall(DMLocalToGlobalEnd(ctx->dm, ctx->yl, ADD_VALUES, y));
  PetscCall(PetscLogEventEnd(VPATCH_LaplacianMult, A, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_QBoxLaplacian(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultAdd_QBoxLaplacian(A, x, NULL, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetDiagonal_QBoxLaplacian(Mat A, Vec d)
{
  Mat_QBoxLaplacian *ctx;
  DM_QBox           *q;
  PetscScalar       *da;
  PetscMemType       mt;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  q = (DM_QBox *)ctx->dm->data;
  PetscCall(PetscLogEventBegin(VPATCH_LaplacianDiag, A, d, 0, 0));
  PetscCall(VecSet(ctx->yl, 0.0));
  PetscCall(VecGetArrayAndMemType(ctx->yl, &da, &mt));
  if (PetscMemTypeDevice(mt)) {
    const PetscReal *d_lap;
    PetscCall(DMQBoxGetDeviceMatrices_Private(ctx->dm, &d_lap, NULL));
    PetscCall(VPLaplacianDiagonal_CUDA(&q->grid, d_lap, da));
  } else
    PetscCall(VPLaplacianDiagonal_CPU(&q->grid, &q->basis, da));
  PetscCall(VecRestoreArrayAndMemType(ctx->yl, &da));
  PetscCall(VecSet(d, 0.0));
  PetscCall(DMLocalToGlobalBegin(ctx->dm, ctx->yl, ADD_VALUES, d));
  PetscCall(DMLocalToGlobalEnd(ctx->dm, ctx->yl, ADD_VALUES, d));
  PetscCall(PetscLogEventEnd(VPATCH_LaplacianDiag, A, d, 0, 0));
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
    PetscCall(PetscViewerASCIIPrintf(viewer, "matrix-free Q_k Laplacian of a DMQBOX (sum factorization, Dirichlet rows identity)\n"));
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
  PetscCall(VecDestroy(&ctx->xl));
  PetscCall(VecDestroy(&ctx->yl));
  PetscCall(MatDestroy(&ctx->aij));
  PetscCall(DMDestroy(&ctx->dm));
  PetscCall(PetscFree(ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatQBoxLaplacianGetInfo_Private - Whether A is the matrix-free Laplacian L of a DMQBOX, and how MATSHELL has changed it

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
  if (mult != (PetscErrorCodeFn *)MatMult_QBoxLaplacian) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatShellGetContext(A, &ctx));
  *dm = ctx->dm;
  PetscCall(MatShellGetScalingShifts(A, shift, scale, &dshift, &left, &right, &axpy, &zrows, &zcols));
  if (dshift) *other = "a diagonal added by MatDiagonalSet()";
  else if (left || right) *other = "a diagonal scaling by MatDiagonalScale()";
  else if (axpy) *other = "a matrix added by MatAXPY()";
  else if (zrows || zcols) *other = "rows zeroed by MatZeroRows() or MatZeroRowsColumns()";
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
    PetscCall(DMQBoxAssembleLaplacian(dm, MATAIJ, &ctx->aij));
    if (scale != (PetscScalar)1.0) PetscCall(MatScale(ctx->aij, scale));
    if (shift != (PetscScalar)0.0) PetscCall(MatShift(ctx->aij, shift));
    ctx->aijstate = state;
  }
  *B = ctx->aij;
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
  if (F->factortype == MAT_FACTOR_LU) PetscCall(MatLUFactorNumeric(fctx->FA, fctx->B, info));
  else PetscCall(MatCholeskyFactorNumeric(fctx->FA, fctx->B, info));
  F->factorerrortype = fctx->FA->factorerrortype;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatQBoxFactorLUSymbolic(Mat F, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  Mat_QBoxFactor *fctx;

  PetscFunctionBegin;
  (void)row;
  (void)col;
  PetscCall(MatQBoxFactorUpdate(F, A, &fctx));
  PetscCall(ISDestroy(&fctx->row));
  PetscCall(ISDestroy(&fctx->col));
  PetscCall(MatGetOrdering(fctx->B, MATORDERINGND, &fctx->row, &fctx->col));
  PetscCall(MatLUFactorSymbolic(fctx->FA, fctx->B, fctx->row, fctx->col, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatQBoxFactorCholeskySymbolic(Mat F, Mat A, IS perm, const MatFactorInfo *info)
{
  Mat_QBoxFactor *fctx;

  PetscFunctionBegin;
  (void)perm;
  PetscCall(MatQBoxFactorUpdate(F, A, &fctx));
  PetscCall(ISDestroy(&fctx->row));
  PetscCall(ISDestroy(&fctx->col));
  PetscCall(MatGetOrdering(fctx->B, MATORDERINGND, &fctx->row, &fctx->col));
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
  PetscCheck(ftype == MAT_FACTOR_LU || ftype == MAT_FACTOR_CHOLESKY, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "The matrix-free DMQBOX operator offers LU and Cholesky factorizations (of an assembled copy), not %s: use -dm_mat_type aij for other factorizations",
             MatFactorTypes[ftype]);
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
          "P^T A P of the matrix-free DMQBOX operator (PCMG -pc_mg_galerkin): the DMQBOX operators and transfers are matrix-free, so no Galerkin product is formed. PCMG gets each level's operator from its DMQBOX (the Q_k Laplacian of that mesh, which is the Galerkin operator of the nested spaces on the unknowns): drop -pc_mg_galerkin");
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

  PetscFunctionBegin;
  PetscCall(PetscNew(&ctx));
  ctx->dm = dm;
  PetscCall(PetscObjectReference((PetscObject)dm));
  PetscCall(DMCreateLocalVector(dm, &ctx->xl));
  PetscCall(VecDuplicate(ctx->xl, &ctx->yl));
  PetscCall(MatCreateShell(PetscObjectComm((PetscObject)dm), n, n, PETSC_DETERMINE, PETSC_DETERMINE, ctx, A));
  PetscCall(MatShellSetVecType(*A, dm->vectype));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT, (PetscErrorCodeFn *)MatMult_QBoxLaplacian));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT_TRANSPOSE, (PetscErrorCodeFn *)MatMult_QBoxLaplacian));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT_ADD, (PetscErrorCodeFn *)MatMultAdd_QBoxLaplacian));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT_TRANSPOSE_ADD, (PetscErrorCodeFn *)MatMultAdd_QBoxLaplacian));
  PetscCall(MatShellSetOperation(*A, MATOP_GET_DIAGONAL, (PetscErrorCodeFn *)MatGetDiagonal_QBoxLaplacian));
  PetscCall(MatShellSetOperation(*A, MATOP_VIEW, (PetscErrorCodeFn *)MatView_QBoxLaplacian));
  PetscCall(MatShellSetOperation(*A, MATOP_SOR, (PetscErrorCodeFn *)MatSOR_QBoxLaplacian));
  PetscCall(MatShellSetOperation(*A, MATOP_GET_FACTOR, (PetscErrorCodeFn *)MatGetFactor_QBoxLaplacian));
  PetscCall(MatShellSetOperation(*A, MATOP_CREATE_SUBMATRICES, (PetscErrorCodeFn *)MatCreateSubMatrices_QBoxLaplacian));
  PetscCall(MatShellSetMatProductOperation(*A, MATPRODUCT_PtAP, MatProductSymbolic_QBoxLaplacian_Galerkin, MatProductNumeric_QBoxLaplacian_Galerkin, NULL, MATSHELL, MATSHELL));
  PetscCall(MatShellSetOperation(*A, MATOP_DESTROY, (PetscErrorCodeFn *)MatDestroy_QBoxLaplacian));
  PetscCall(PetscObjectChangeTypeName((PetscObject)*A, MATSHELL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

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

static PetscErrorCode DMQBoxAssembleLaplacian(DM dm, MatType type, Mat *A)
{
  DM_QBox               *q = (DM_QBox *)dm->data;
  const VPGrid          *g = &q->grid;
  PetscInt               n = g->xm[0] * g->xm[1] * g->xm[2], k = q->degree, n1 = k + 1, nz1 = q->dim == 3 ? n1 : 1, ne = n1 * n1 * nz1;
  PetscInt              *dnnz, *onnz, *idx, r = 0;
  PetscScalar           *Ae;
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
  PetscCall(VPLaplacianCellMatrix_CPU(g, &q->basis, Ae));
  for (PetscInt cz = g->cs[2]; cz < g->cs[2] + g->cm[2]; cz++)
    for (PetscInt cy = g->cs[1]; cy < g->cs[1] + g->cm[1]; cy++)
      for (PetscInt cx = g->cs[0]; cx < g->cs[0] + g->cm[0]; cx++) {
        PetscInt e = 0;
        for (PetscInt iz = 0; iz < nz1; iz++)
          for (PetscInt iy = 0; iy < n1; iy++)
            for (PetscInt ix = 0; ix < n1; ix++, e++) {
              PetscInt p[3] = {cx * k + ix, cy * k + iy, q->dim == 3 ? cz * k + iz : 0};
              idx[e]        = VPGridIsBoundary(g, p) ? -1 : VPGridLocalIndex(g, p); /* negative: eliminated */
            }
        PetscCall(MatSetValuesLocal(*A, ne, idx, ne, idx, Ae, ADD_VALUES));
      }
  PetscCall(PetscFree2(Ae, idx));
  for (PetscInt pz = g->xs[2]; pz < g->xs[2] + g->xm[2]; pz++)
    for (PetscInt py = g->xs[1]; py < g->xs[1] + g->xm[1]; py++)
      for (PetscInt px = g->xs[0]; px < g->xs[0] + g->xm[0]; px++) {
        PetscInt    p[3] = {px, py, pz}, i;
        PetscScalar one  = 1.0;
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
  if (isshell)
    PetscCall(DMQBoxCreateLaplacianShell_Private(dm, A));
  else
    PetscCall(DMQBoxAssembleLaplacian(dm, dm->mattype, A));
  PetscCall(MatSetOption(*A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(*A, MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
  PetscCall(MatSetOption(*A, MAT_SPD, PETSC_TRUE));
  PetscCall(MatSetOption(*A, MAT_SPD_ETERNAL, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMQBoxComputeOperators - The `KSP` compute-operators callback of a `DMQBOX`: `DMCreateMatrix()`
  already returns the complete Laplacian, so there is nothing left to compute

  Collective

  Input Parameters:
+ ksp - the `KSP`
. A   - the operator from `DMCreateMatrix()`
. B   - the preconditioning matrix from `DMCreateMatrix()`
- ctx - unused

  Level: intermediate

  Note:
  `DMSetUp()` installs this callback with `DMKSPSetComputeOperators()`, so `KSPSetDM()` with a
  `DMQBOX` works in programs that never call this library, and `PCMG` builds every level's operator
  from the coarsened `DM`s.

.seealso: `DMQBOX`, `KSPSetComputeOperators()`, `DMKSPSetComputeOperators()`
@*/
PetscErrorCode DMQBoxComputeOperators(KSP ksp, Mat A, Mat B, void *ctx)
{
  PetscFunctionBegin;
  (void)ksp;
  (void)A;
  (void)B;
  (void)ctx;
  PetscFunctionReturn(PETSC_SUCCESS);
}
