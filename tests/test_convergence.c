static char help[] = "Discretization check of DMQBOX: L2 and H1 errors of Q_k on three meshes, for u = prod sin(pi x_i)\n\
(homogeneous Dirichlet) or u = exp(x) sin(y) [sin(z)] (inhomogeneous). Asserts L2 rate k+1 and H1 rate k (within 0.2)\n\
on the finest pair. The linear systems are solved by CG + PCMG (Chebyshev-Jacobi) to rtol 1e-13.\n\n";

#include <petscvpatch.h>
#include "vptest.h"

static PetscErrorCode ExactExp(PetscInt dim, const PetscReal x[], PetscScalar *u, PetscScalar du[], void *ctx)
{
  PetscReal s = dim == 3 ? PetscSinReal(x[2]) : 1.0;

  PetscFunctionBeginUser;
  (void)ctx;
  *u = PetscExpReal(x[0]) * PetscSinReal(x[1]) * s;
  if (du) {
    du[0] = *u;
    du[1] = PetscExpReal(x[0]) * PetscCosReal(x[1]) * s;
    if (dim == 3) du[2] = PetscExpReal(x[0]) * PetscSinReal(x[1]) * PetscCosReal(x[2]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode SourceExp(PetscInt dim, const PetscReal x[], PetscScalar *f, PetscScalar du[], void *ctx)
{
  PetscFunctionBeginUser;
  (void)du;
  PetscCall(ExactExp(dim, x, f, NULL, ctx));
  if (dim == 2) *f = 0.0; /* -Laplace(e^x sin y) = 0; in 3D -Laplace(e^x sin y sin z) = e^x sin y sin z */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Solve(PetscInt dim, PetscInt k, PetscInt n, PetscBool useexp, PetscReal *l2, PetscReal *h1)
{
  DM                 dm;
  KSP                ksp, smoother;
  PC                 pc, spc;
  Vec                u, b;
  PetscInt           cells[3] = {n, n, n}, levels = 1;
  KSPConvergedReason reason;

  PetscFunctionBeginUser;
  PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, dim, cells, k, NULL, NULL, &dm));
  PetscCall(DMSetUp(dm));
  PetscCall(DMQBoxGetMaxLevels(dm, &levels));
  PetscCall(DMCreateGlobalVector(dm, &u));
  PetscCall(VecDuplicate(u, &b));
  PetscCall(DMQBoxComputeRHS(dm, useexp ? SourceExp : VPTestSourceSin, useexp ? ExactExp : NULL, NULL, b));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetDM(ksp, dm));
  PetscCall(KSPSetDMActive(ksp, KSP_DMACTIVE_RHS, PETSC_FALSE));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetTolerances(ksp, 1e-13, 1e-50, PETSC_CURRENT, 200));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCMG));
  PetscCall(PCMGSetLevels(pc, levels, NULL));
  for (PetscInt l = 1; l < levels; l++) {
    PetscCall(PCMGGetSmoother(pc, l, &smoother));
    PetscCall(KSPGetPC(smoother, &spc));
    PetscCall(PCSetType(spc, PCJACOBI));
  }
  PetscCall(PCMGGetCoarseSolve(pc, &smoother));
  PetscCall(KSPSetType(smoother, KSPCG));
  PetscCall(KSPSetTolerances(smoother, 1e-14, 1e-50, PETSC_CURRENT, 1000));
  PetscCall(KSPGetPC(smoother, &spc));
  PetscCall(PCSetType(spc, PCJACOBI));
  PetscCall(KSPSolve(ksp, b, u));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "Q_%" PetscInt_FMT " on %" PetscInt_FMT " cells: the solver did not converge (%s)", k, n, KSPConvergedReasons[reason]);
  PetscCall(DMQBoxComputeError(dm, u, useexp ? ExactExp : VPTestExactSin, NULL, l2, h1));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&b));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt  dim = 2, degrees[10], ndeg, meshes[3] = {4, 8, 16}, nmesh = 3;
  PetscBool useexp = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscVPatchInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(VPTestGetDegrees(4, degrees, &ndeg));
  {
    PetscBool set;
    PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-cells", meshes, &nmesh, &set));
    if (!set) nmesh = 3; /* the count is 0 when the option is absent */
  }
  {
    char exact[16] = "sin";
    PetscCall(PetscOptionsGetString(NULL, NULL, "-exact", exact, sizeof(exact), NULL)); /* sin or exp, as in tutorials/ex1 */
    PetscCheck(!strcmp(exact, "sin") || !strcmp(exact, "exp"), PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-exact %s: use sin or exp", exact);
    useexp = (PetscBool)!strcmp(exact, "exp");
  }
  PetscCheck(nmesh == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_SIZ, "-cells takes three mesh sizes, each twice the previous");
  for (PetscInt i = 0; i < ndeg; i++) {
    PetscInt  k = degrees[i];
    PetscReal l2[3], h1[3], rl2[2], rh1[2];
    for (PetscInt m = 0; m < 3; m++) PetscCall(Solve(dim, k, meshes[m], useexp, &l2[m], &h1[m]));
    for (PetscInt m = 0; m < 2; m++) {
      rl2[m] = PetscLog2Real(l2[m] / l2[m + 1]);
      rh1[m] = PetscLog2Real(h1[m] / h1[m + 1]);
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT "D Q_%" PetscInt_FMT ": L2 %.3e %.3e %.3e rates %.2f %.2f | H1 %.3e %.3e %.3e rates %.2f %.2f\n", dim, k, (double)l2[0], (double)l2[1], (double)l2[2], (double)rl2[0], (double)rl2[1],
                          (double)h1[0], (double)h1[1], (double)h1[2], (double)rh1[0], (double)rh1[1]));
    PetscCheck(PetscAbsReal(rl2[1] - (k + 1)) <= 0.2, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Q_%" PetscInt_FMT ": L2 rate %g, expected %" PetscInt_FMT " +- 0.2", k, (double)rl2[1], k + 1);
    PetscCheck(PetscAbsReal(rh1[1] - k) <= 0.2, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Q_%" PetscInt_FMT ": H1 rate %g, expected %" PetscInt_FMT " +- 0.2", k, (double)rh1[1], k);
  }
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: 2d
    args: -dim 2 -degrees 1,2,3,4 -cells 4,8,16

  test:
    suffix: 2d_exp_np2
    nsize: 2
    args: -dim 2 -degrees 1,2,3,4 -cells 4,8,16 -exact exp

  test:
    suffix: 3d
    args: -dim 3 -degrees 1,2,3 -cells 2,4,8

  test:
    suffix: 3d_exp
    args: -dim 3 -degrees 2 -cells 2,4,8 -exact exp

TEST*/
