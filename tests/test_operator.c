static char help[] = "Checks the matrix-free Q_k Laplacian of DMQBOX against the assembled operator:\n\
A x on random x, the diagonal, symmetry, and MatMultAdd, for each degree given by -degrees.\n\n";

#include <petscvpatch.h>
#include "vptest.h"

int main(int argc, char **argv)
{
  PetscInt    dim = 2, degrees[10], ndeg, cells[3] = {3, 2, 2}, ncells = 3;
  PetscRandom rnd;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscVPatchInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(VPTestGetDegrees(dim == 2 ? 10 : 8, degrees, &ndeg));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-cells", cells, &ncells, NULL)); /* absent: the defaults stay */
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));
  for (PetscInt i = 0; i < ndeg; i++) {
    PetscInt        k = degrees[i];
    DM              dms, dma;
    Mat             As, Aa;
    Vec             x, z, ys, ya, w;
    PetscReal       rmult, rdiag, rsym, radd;
    PetscScalar     xAz, zAx;
    const PetscReal lower[3] = {-0.5, 0.0, 1.0}, upper[3] = {1.5, 0.7, 1.3}; /* anisotropic cells */

    PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, dim, cells, k, lower, upper, &dms));
    PetscCall(DMSetUp(dms));
    PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, dim, cells, k, lower, upper, &dma));
    PetscCall(DMSetMatType(dma, MATAIJ));
    PetscCall(DMSetUp(dma));
    PetscCall(DMCreateMatrix(dms, &As));
    PetscCall(DMCreateMatrix(dma, &Aa));
    PetscCall(DMCreateGlobalVector(dms, &x));
    PetscCall(VecDuplicate(x, &z));
    PetscCall(VecDuplicate(x, &ys));
    PetscCall(VecDuplicate(x, &ya));
    PetscCall(VecDuplicate(x, &w));
    PetscCall(VecSetRandom(x, rnd));
    PetscCall(VecSetRandom(z, rnd));

    PetscCall(MatMult(As, x, ys));
    PetscCall(MatMult(Aa, x, ya));
    PetscCall(VPTestRelDiff(ys, ya, &rmult));
    PetscCall(MatGetDiagonal(As, ys));
    PetscCall(MatGetDiagonal(Aa, ya));
    PetscCall(VPTestRelDiff(ys, ya, &rdiag));
    PetscCall(MatMult(As, z, ys));
    PetscCall(VecDot(x, ys, &xAz));
    PetscCall(MatMult(As, x, ys));
    PetscCall(VecDot(z, ys, &zAx));
    rsym = PetscAbsScalar(xAz - zAx) / PetscAbsScalar(zAx);
    PetscCall(MatMultAdd(As, x, z, w));
    PetscCall(VecAXPY(ys, 1.0, z));
    PetscCall(VPTestRelDiff(w, ys, &radd));
    PetscCheck(rmult < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "k=%" PetscInt_FMT ": matrix-free and assembled A x differ by %g (relative)", k, (double)rmult);
    PetscCheck(rdiag < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "k=%" PetscInt_FMT ": diagonals differ by %g (relative)", k, (double)rdiag);
    PetscCheck(rsym < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "k=%" PetscInt_FMT ": x^T A z - z^T A x = %g (relative)", k, (double)rsym);
    PetscCheck(radd < 1e-14, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "k=%" PetscInt_FMT ": MatMultAdd differs from MatMult + z by %g", k, (double)radd);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT "D Q_%" PetscInt_FMT ": A x, diagonal, symmetry and MatMultAdd agree with the assembled operator (< 1e-12)\n", dim, k));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&z));
    PetscCall(VecDestroy(&ys));
    PetscCall(VecDestroy(&ya));
    PetscCall(VecDestroy(&w));
    PetscCall(MatDestroy(&As));
    PetscCall(MatDestroy(&Aa));
    PetscCall(DMDestroy(&dms));
    PetscCall(DMDestroy(&dma));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: 2d
    args: -dim 2 -cells 3,2
    output_file: none

  test:
    suffix: 3d
    args: -dim 3 -cells 2,1,2
    output_file: none

  test:
    suffix: 2d_np3
    nsize: 3
    args: -dim 2 -cells 4,4 -degrees 1,2,3,5,10
    output_file: none

  test:
    suffix: 3d_np3
    nsize: 3
    args: -dim 3 -cells 2,2,4 -degrees 1,2,4,8
    output_file: none

TEST*/
