static char help[] = "Checks the ghosted global vectors of DMQBOX (-dm_qbox_ghosted_vectors; several ranks, a partition in slabs):\n\
the operator (MatMult, MatMultAdd, in place, its diagonal), the transfers (MatMult, MatMultTranspose and their Add\n\
variants, in place) and the vertex-patch smoother give on them what they give on plain vectors of the same layout\n\
(which take the local-vector path), to round-off; a ghosted vector whose array was replaced (VecPlaceArray) gives the\n\
same too; and the DM's vectors are ghosted exactly when -expect_ghosted says.\n\
Options: -dim, -cells (per direction), -k, -expect_ghosted <bool>, and the DM's and PCVPATCH's options.\n\n";

#include <petscvpatch.h>

/* a vector of x's type and layout that is not the DM's (no ghosted buffer), holding x's values */
static PetscErrorCode PlainCopy(Vec x, Vec *p)
{
  PetscInt n;
  VecType  type;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetType(x, &type));
  PetscCall(VecCreate(PetscObjectComm((PetscObject)x), p));
  PetscCall(VecSetSizes(*p, n, PETSC_DETERMINE));
  PetscCall(VecSetType(*p, type));
  PetscCall(VecCopy(x, *p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* |a - b| <= 1e-14 |a| (both paths add the same terms; the order of the sums over ranks is the same) */
static PetscErrorCode Compare(const char *what, Vec a, Vec b)
{
  Vec       d;
  PetscReal na, nd;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(b, &d));
  PetscCall(VecCopy(b, d));
  PetscCall(VecAXPY(d, -1.0, a));
  PetscCall(VecNorm(a, NORM_2, &na));
  PetscCall(VecNorm(d, NORM_2, &nd));
  PetscCheck(na > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: the result is zero, nothing compared", what);
  PetscCheck(nd <= 1e-14 * na, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: ghosted vectors and plain vectors differ by %g (norm %g)", what, (double)nd, (double)na);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-34s ok\n", what));
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = op(x) and z = op(x) + z0 (z0 in z, in place) on the vectors given and on plain copies; the results compared */
typedef enum {
  OP_MULT,
  OP_MULT_TRANSPOSE
} Op;

static PetscErrorCode CheckMat(const char *name, Mat A, Op op, Vec x, Vec y)
{
  Vec  xp, yp, z, zp;
  char what[64];

  PetscFunctionBeginUser;
  PetscCall(PlainCopy(x, &xp));
  PetscCall(PlainCopy(y, &yp));
  if (op == OP_MULT) {
    PetscCall(MatMult(A, x, y));
    PetscCall(MatMult(A, xp, yp));
  } else {
    PetscCall(MatMultTranspose(A, x, y));
    PetscCall(MatMultTranspose(A, xp, yp));
  }
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s%s", name, op == OP_MULT ? "" : " transpose"));
  PetscCall(Compare(what, y, yp));
  /* z = A x + z0 in place, z0 = 2 y */
  PetscCall(VecDuplicate(y, &z));
  PetscCall(VecCopy(y, z));
  PetscCall(VecScale(z, 2.0));
  PetscCall(PlainCopy(z, &zp));
  if (op == OP_MULT) {
    PetscCall(MatMultAdd(A, x, z, z));
    PetscCall(MatMultAdd(A, xp, zp, zp));
  } else {
    PetscCall(MatMultTransposeAdd(A, x, z, z));
    PetscCall(MatMultTransposeAdd(A, xp, zp, zp));
  }
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s%s add, in place", name, op == OP_MULT ? "" : " transpose"));
  PetscCall(Compare(what, z, zp));
  /* y = A x + y0 into another vector: y0 = z */
  if (op == OP_MULT) {
    PetscCall(MatMultAdd(A, x, z, y));
    PetscCall(MatMultAdd(A, xp, zp, yp));
  } else {
    PetscCall(MatMultTransposeAdd(A, x, z, y));
    PetscCall(MatMultTransposeAdd(A, xp, zp, yp));
  }
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s%s add", name, op == OP_MULT ? "" : " transpose"));
  PetscCall(Compare(what, y, yp));
  PetscCall(VecDestroy(&xp));
  PetscCall(VecDestroy(&yp));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&zp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt        dim = 3, k = 3, cells[3] = {4, 4, 8}, ncells = 3;
  PetscBool       expect   = PETSC_TRUE, ghosted, std;
  const PetscReal lower[3] = {0, 0, 0}, upper[3] = {1.0, 0.7, 1.3};
  DM              dmf, dmc;
  Mat             A, P;
  Vec             xf, yf, xc, yc;
  PetscRandom     rnd;
  PetscObject     pad;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscVPatchInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-k", &k, NULL));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-cells", cells, &ncells, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-expect_ghosted", &expect, NULL));
  PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, dim, cells, k, lower, upper, &dmf));
  PetscCall(DMSetFromOptions(dmf));
  PetscCall(DMSetUp(dmf));
  PetscCall(DMCoarsen(dmf, PETSC_COMM_WORLD, &dmc));
  PetscCall(DMCreateMatrix(dmf, &A));
  PetscCall(DMCreateInterpolation(dmc, dmf, &P, NULL));
  PetscCall(DMCreateGlobalVector(dmf, &xf));
  PetscCall(VecDuplicate(xf, &yf));
  PetscCall(DMCreateGlobalVector(dmc, &xc));
  PetscCall(VecDuplicate(xc, &yc));

  /* ghosted where expected: the fine and coarse DMs' vectors and their duplicates */
  for (PetscInt i = 0; i < 4; i++) {
    Vec v[4] = {xf, yf, xc, yc};
    PetscCall(PetscObjectQuery((PetscObject)v[i], "DMQBoxGhosted", &pad));
    ghosted = (PetscBool) !!pad;
    PetscCheck(ghosted == expect, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "vector %" PetscInt_FMT ": ghosted %d, expected %d", i, (int)ghosted, (int)expect);
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "global vectors ghosted: %s\n", expect ? "yes" : "no"));

  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));
  PetscCall(VecSetRandom(xf, rnd));
  PetscCall(VecSetRandom(xc, rnd));
  PetscCall(VecSetRandom(yf, rnd)); /* garbage the operations must overwrite */
  PetscCall(VecSetRandom(yc, rnd));

  PetscCall(CheckMat("operator", A, OP_MULT, xf, yf));
  PetscCall(CheckMat("interpolation", P, OP_MULT, xc, yf));
  PetscCall(CheckMat("interpolation", P, OP_MULT_TRANSPOSE, xf, yc));
  { /* the diagonal */
    Vec dp;
    PetscCall(PlainCopy(yf, &dp));
    PetscCall(MatGetDiagonal(A, yf));
    PetscCall(MatGetDiagonal(A, dp));
    PetscCall(Compare("operator diagonal", yf, dp));
    PetscCall(VecDestroy(&dp));
  }
  { /* the ghosts of an input are not filled again while the vector is unchanged (its object state): the operator of xf
       twice, then of xf changed through VecGetArray() (every rank), then of xf changed by a PETSc operation; each
       result against the plain vectors' (a stale ghost would make the rows near the other rank's differ) */
    Vec          xp, yp;
    PetscScalar *a;
    PetscInt     n;

    PetscCall(PlainCopy(xf, &xp));
    PetscCall(PlainCopy(yf, &yp));
    for (PetscInt i = 0; i < 4; i++) {
      if (i == 2) {
        PetscCall(VecGetLocalSize(xf, &n));
        PetscCall(VecGetArray(xf, &a));
        for (PetscInt j = 0; j < n; j++) a[j] = 1.0 + 0.25 * j - a[j];
        PetscCall(VecRestoreArray(xf, &a));
        PetscCall(VecCopy(xf, xp));
      } else if (i == 3) {
        PetscCall(VecScale(xf, -3.0));
        PetscCall(VecScale(xp, -3.0));
      }
      PetscCall(MatMult(A, xf, yf));
      PetscCall(MatMult(A, xp, yp));
      PetscCall(Compare(i < 2 ? "operator, input unchanged" : i == 2 ? "operator, input changed by hand" : "operator, input scaled", yf, yp));
    }
    PetscCall(VecDestroy(&xp));
    PetscCall(VecDestroy(&yp));
  }
  { /* one symmetric sweep of PCVPATCH from zero, and one more from its result (PCApplyRichardson) */
    PC  pc;
    Vec bp, xp;

    PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
    PetscCall(PCSetType(pc, PCVPATCH));
    PetscCall(PCSetOperators(pc, A, A));
    PetscCall(PCSetDM(pc, dmf));
    PetscCall(PCSetFromOptions(pc));
    PetscCall(PCSetUp(pc));
    PetscCall(PlainCopy(xf, &bp));
    PetscCall(PlainCopy(yf, &xp));
    PetscCall(PCApply(pc, xf, yf));
    PetscCall(PCApply(pc, bp, xp));
    PetscCall(Compare("smoother", yf, xp));
    PetscCall(PCDestroy(&pc));
    PetscCall(VecDestroy(&bp));
    PetscCall(VecDestroy(&xp));
  }
#if defined(PETSC_HAVE_CUDA)
  PetscCall(PetscObjectTypeCompare((PetscObject)xf, VECMPICUDA, &std));
  if (std && expect) { /* a ghosted CUDA vector has no device memory until first used (PETSc makes vectors it never
                          uses); its first write, by a kernel or by a whole-vector operation of PETSc's, gives it its
                          buffer */
    Vec              w, yp;
    PetscOffloadMask mask;

    PetscCall(VecDuplicate(xf, &w));
    PetscCall(VecGetOffloadMask(w, &mask));
    PetscCheck(mask == PETSC_OFFLOAD_UNALLOCATED, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a new ghosted CUDA vector has memory before its first use (offload mask %d)", (int)mask);
    PetscCall(VecDuplicate(xf, &yp));
    PetscCall(MatMult(A, xf, yf));
    PetscCall(MatMult(A, xf, w)); /* w's first use: the operator's output */
    PetscCall(Compare("operator into a new vector", yf, w));
    PetscCall(VecCopy(xf, yp)); /* written by PETSc first (it gets its buffer then), then the operator's input */
    {
      const PetscScalar *a, *a0, *a1; /* the device array before and after the kernel (the restore clears a) */

      PetscCall(VecCUDAGetArrayRead(yp, &a));
      a0 = a;
      PetscCall(VecCUDARestoreArrayRead(yp, &a));
      PetscCall(MatMult(A, yp, w));
      PetscCall(VecCUDAGetArrayRead(yp, &a));
      a1 = a;
      PetscCall(VecCUDARestoreArrayRead(yp, &a));
      /* the buffer since the copy: no array of PETSc's first, replaced (one vector more for a moment) at the kernel */
      PetscCheck(a0 && a0 == a1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a ghosted CUDA vector written by VecCopy() got a new device array at its first kernel use");
    }
    PetscCall(Compare("operator of a vector PETSc wrote", yf, w));
    PetscCall(VecDestroy(&w));
    PetscCall(VecDestroy(&yp));
  }
#endif
  PetscCall(PetscObjectTypeCompareAny((PetscObject)xf, &std, VECMPI, VECSEQ, ""));
  if (std) { /* a ghosted vector with a placed array: the local-vector path, same result */
    Vec                w, yp;
    PetscScalar       *arr;
    const PetscScalar *xa;
    PetscInt           n;

    PetscCall(VecDuplicate(xf, &w));
    PetscCall(VecGetLocalSize(xf, &n));
    PetscCall(PetscMalloc1(n, &arr));
    PetscCall(VecGetArrayRead(xf, &xa));
    PetscCall(PetscArraycpy(arr, xa, n));
    PetscCall(VecRestoreArrayRead(xf, &xa));
    PetscCall(VecPlaceArray(w, arr));
    PetscCall(PlainCopy(yf, &yp));
    PetscCall(MatMult(A, xf, yf));
    PetscCall(MatMult(A, w, yp));
    PetscCall(Compare("operator on a placed array", yf, yp));
    PetscCall(VecResetArray(w));
    PetscCall(PetscFree(arr));
    PetscCall(VecDestroy(&w));
    PetscCall(VecDestroy(&yp));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&xf));
  PetscCall(VecDestroy(&yf));
  PetscCall(VecDestroy(&xc));
  PetscCall(VecDestroy(&yc));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&P));
  PetscCall(DMDestroy(&dmc));
  PetscCall(DMDestroy(&dmf));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # -dm_qbox_gather_cells 0: the coarse level stays on every rank (ghosted too); test_gather checks a gathered one

  test:
    suffix: 3d_np2
    nsize: 2
    args: -dim 3 -k 3 -cells 4,4,8 -dm_qbox_gather_cells 0
    output_file: test_ghosted_yes

  test:
    suffix: 2d_np3_relaxed
    nsize: 3
    args: -dim 2 -k 4 -cells 6,6 -pc_vpatch_ranks relaxed -dm_qbox_gather_cells 0
    output_file: test_ghosted_yes

  test:
    suffix: 3d_np3_k2
    nsize: 3
    args: -dim 3 -k 2 -cells 4,2,6 -pc_vpatch_sweep forward -dm_qbox_gather_cells 0
    output_file: test_ghosted_yes

  test:
    suffix: 3d_np4_columns
    nsize: 4
    args: -dim 3 -k 2 -cells 4,4,4 -expect_ghosted 0
    output_file: test_ghosted_no

  test:
    suffix: 3d_np2_off
    nsize: 2
    args: -dim 3 -k 3 -cells 4,4,6 -dm_qbox_ghosted_vectors false -expect_ghosted 0
    output_file: test_ghosted_no

  test:
    suffix: 3d_np1
    args: -dim 3 -k 3 -cells 4,4,6 -expect_ghosted 0
    output_file: test_ghosted_no

  test:
    suffix: cuda_3d_np2
    nsize: 2
    requires: cuda
    args: -dim 3 -k 3 -cells 4,4,8 -dm_vec_type cuda -dm_qbox_gather_cells 0
    output_file: test_ghosted_cuda

  test:
    suffix: cuda_2d_np3_relaxed
    nsize: 3
    requires: cuda
    args: -dim 2 -k 5 -cells 4,6 -dm_vec_type cuda -pc_vpatch_ranks relaxed -dm_qbox_gather_cells 0
    output_file: test_ghosted_cuda

TEST*/
