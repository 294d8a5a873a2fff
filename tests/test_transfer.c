static char help[] = "Checks the DMQBOX grid transfer: the embedding reproduces every Q_k polynomial, the\n\
multigrid (homogeneous) interpolation equals it on functions vanishing on the boundary and is zero on the\n\
boundary, MatMultTranspose is the exact adjoint, and the Add variants are consistent.\n\n";

#include <petscvpatch.h>
#include "vptest.h"

typedef struct {
  PetscInt  k;
  PetscReal a[2][3][11]; /* two tensor-product terms, coefficients per direction and power */
} Poly;

static PetscErrorCode PolyEval(PetscInt dim, const PetscReal x[], PetscScalar *u, PetscScalar du[], void *ctx)
{
  Poly *p = (Poly *)ctx;

  PetscFunctionBeginUser;
  (void)du;
  *u = 0;
  for (PetscInt t = 0; t < 2; t++) {
    PetscScalar term = 1;
    for (PetscInt d = 0; d < dim; d++) {
      PetscScalar s = 0, xp = 1;
      for (PetscInt j = 0; j <= p->k; j++, xp *= x[d]) s += p->a[t][d][j] * xp;
      term *= s;
    }
    *u += term;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Bubble(PetscInt dim, const PetscReal x[], PetscScalar *u, PetscScalar du[], void *ctx)
{
  PetscFunctionBeginUser;
  (void)du;
  (void)ctx;
  *u = 1;
  for (PetscInt d = 0; d < dim; d++) *u *= (x[d] - 0.0) * (1.0 - x[d]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* zero the entries of x at boundary nodes (where the bubble vanishes); count them */
static PetscErrorCode MaskBoundary(DM dm, Vec x, PetscBool check_zero, PetscInt *nonzero_on_boundary)
{
  Vec                mask;
  const PetscScalar *m;
  PetscScalar       *a;
  PetscInt           n, bad = 0;

  PetscFunctionBeginUser;
  PetscCall(DMGetGlobalVector(dm, &mask));
  PetscCall(DMQBoxProjectFunction(dm, Bubble, NULL, mask));
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetArrayRead(mask, &m));
  PetscCall(VecGetArray(x, &a));
  for (PetscInt i = 0; i < n; i++)
    if (m[i] == 0.0) {
      if (check_zero && a[i] != 0.0) bad++;
      a[i] = 0.0;
    }
  PetscCall(VecRestoreArray(x, &a));
  PetscCall(VecRestoreArrayRead(mask, &m));
  PetscCall(DMRestoreGlobalVector(dm, &mask));
  if (nonzero_on_boundary) PetscCallMPI(MPIU_Allreduce(&bad, nonzero_on_boundary, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)dm)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt    dim = 2, degrees[10], ndeg, cells[3] = {2, 2, 2}, ncells = 3;
  PetscRandom rnd, rself; /* rself: the same stream on every rank, for the polynomial */

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscVPatchInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(VPTestGetDegrees(dim == 2 ? 10 : 8, degrees, &ndeg));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-cells", cells, &ncells, NULL)); /* absent: the defaults stay */
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(PetscRandomSetFromOptions(rnd));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rself));
  PetscCall(PetscRandomSetInterval(rself, -1.0, 1.0));
  for (PetscInt i = 0; i < ndeg; i++) {
    PetscInt    k = degrees[i], nbad;
    DM          dmc, dmf;
    Mat         P;
    Vec         xc, xf, pf, yf, zf, wf, yc, zc, wc;
    Poly        poly;
    PetscReal   err, nrm, rfull, radj, radd, raddt;
    PetscScalar xPy, PTyx;

    poly.k = k;
    for (PetscInt t = 0; t < 2; t++)
      for (PetscInt d = 0; d < 3; d++)
        for (PetscInt j = 0; j < 11; j++) PetscCall(PetscRandomGetValueReal(rself, &poly.a[t][d][j]));
    PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, dim, cells, k, NULL, NULL, &dmc));
    PetscCall(DMSetUp(dmc));
    PetscCall(DMRefine(dmc, PETSC_COMM_WORLD, &dmf));
    PetscCall(DMCreateGlobalVector(dmc, &xc));
    PetscCall(VecDuplicate(xc, &yc));
    PetscCall(VecDuplicate(xc, &zc));
    PetscCall(VecDuplicate(xc, &wc));
    PetscCall(DMCreateGlobalVector(dmf, &xf));
    PetscCall(VecDuplicate(xf, &pf));
    PetscCall(VecDuplicate(xf, &yf));
    PetscCall(VecDuplicate(xf, &zf));
    PetscCall(VecDuplicate(xf, &wf));

    /* 1. the embedding reproduces a random polynomial of degree k in each variable */
    PetscCall(DMQBoxProjectFunction(dmc, PolyEval, &poly, xc));
    PetscCall(DMQBoxProjectFunction(dmf, PolyEval, &poly, pf));
    PetscCall(DMQBoxInterpolate(dmc, xc, dmf, xf));
    PetscCall(VecAXPY(xf, -1.0, pf));
    PetscCall(VecNorm(xf, NORM_INFINITY, &err));
    PetscCall(VecNorm(pf, NORM_INFINITY, &nrm));
    PetscCheck(err <= 1e-12 * nrm, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "k=%" PetscInt_FMT ": the embedding misses a Q_k polynomial by %g (relative)", k, (double)(err / nrm));

    /* 2. the multigrid interpolation: the embedding on functions vanishing on the boundary */
    PetscCall(DMCreateInterpolation(dmc, dmf, &P, NULL));
    PetscCall(VecSetRandom(xc, rnd));
    PetscCall(MaskBoundary(dmc, xc, PETSC_FALSE, NULL));
    PetscCall(MatMult(P, xc, yf));
    PetscCall(DMQBoxInterpolate(dmc, xc, dmf, zf));
    PetscCall(VecAXPY(zf, -1.0, yf));
    PetscCall(VecNorm(zf, NORM_INFINITY, &rfull));
    PetscCheck(rfull < 1e-13, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "k=%" PetscInt_FMT ": multigrid interpolation differs from the embedding by %g", k, (double)rfull);
    PetscCall(VecSetRandom(xc, rnd)); /* now with boundary values: they must be ignored, the output zero there */
    PetscCall(MatMult(P, xc, yf));
    PetscCall(MaskBoundary(dmf, yf, PETSC_TRUE, &nbad));
    PetscCheck(nbad == 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "k=%" PetscInt_FMT ": multigrid interpolation is nonzero at %" PetscInt_FMT " boundary nodes", k, nbad);

    /* 3. adjoint: (P x)^T y = x^T (P^T y) */
    PetscCall(VecSetRandom(xc, rnd));
    PetscCall(VecSetRandom(yf, rnd));
    PetscCall(MatMult(P, xc, wf));
    PetscCall(VecDot(wf, yf, &xPy));
    PetscCall(MatMultTranspose(P, yf, wc));
    PetscCall(VecDot(xc, wc, &PTyx));
    radj = PetscAbsScalar(xPy - PTyx) / PetscAbsScalar(xPy);
    PetscCheck(radj < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "k=%" PetscInt_FMT ": x^T P y - (P^T x)^T y = %g (relative)", k, (double)radj);

    /* 4. MatMultAdd and MatMultTransposeAdd */
    PetscCall(VecSetRandom(zf, rnd));
    PetscCall(MatMultAdd(P, xc, zf, pf));
    PetscCall(VecAXPY(wf, 1.0, zf));
    PetscCall(VecAXPY(pf, -1.0, wf));
    PetscCall(VecNorm(pf, NORM_INFINITY, &radd));
    PetscCall(VecSetRandom(zc, rnd));
    PetscCall(MatMultTransposeAdd(P, yf, zc, yc));
    PetscCall(VecAXPY(wc, 1.0, zc));
    PetscCall(VecAXPY(yc, -1.0, wc));
    PetscCall(VecNorm(yc, NORM_INFINITY, &raddt));
    PetscCheck(radd < 1e-13 && raddt < 1e-13, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "k=%" PetscInt_FMT ": MatMultAdd / MatMultTransposeAdd differ by %g / %g", k, (double)radd, (double)raddt);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT "D Q_%" PetscInt_FMT ": polynomials reproduced, homogeneous transfer, exact adjoint, Add variants: ok\n", dim, k));

    PetscCall(MatDestroy(&P));
    PetscCall(VecDestroy(&xc));
    PetscCall(VecDestroy(&yc));
    PetscCall(VecDestroy(&zc));
    PetscCall(VecDestroy(&wc));
    PetscCall(VecDestroy(&xf));
    PetscCall(VecDestroy(&pf));
    PetscCall(VecDestroy(&yf));
    PetscCall(VecDestroy(&zf));
    PetscCall(VecDestroy(&wf));
    PetscCall(DMDestroy(&dmc));
    PetscCall(DMDestroy(&dmf));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscRandomDestroy(&rself));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: 2d
    args: -dim 2 -cells 2,3
    output_file: none

  test:
    suffix: 3d
    args: -dim 3 -cells 2,3,2
    output_file: none

  test:
    suffix: 2d_np3
    nsize: 3
    args: -dim 2 -cells 2,6 -degrees 1,2,3,7
    output_file: none

  test:
    suffix: 3d_np3
    nsize: 3
    args: -dim 3 -cells 2,3,2 -degrees 1,3,5
    output_file: none

TEST*/
