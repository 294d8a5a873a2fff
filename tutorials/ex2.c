static char help[] = "Full multigrid with the vertex-patch smoother (Algorithm 2 of Cui, Grosse-Bley, Kanschat, Strzodka 2024):\n\
-Laplace u = 1 on the unit square/cube, u = 0 on the boundary, Q_k on level L (2^L cells per direction).\n\
One FMG pass from the coarsest level (PCMG type full), then V-cycles on the finest level until\n\
||b - A x|| <= 1e-8 ||b||; prints the number of those V-cycles. The smoother is set by options\n\
(default: -mg_levels_ksp_type richardson -mg_levels_ksp_max_it 1 -mg_levels_pc_type vpatch; exact coarse solve).\n\n";

#include <petscvpatch.h>

static PetscErrorCode One(PetscInt dim, const PetscReal x[], PetscScalar *f, PetscScalar du[], void *ctx)
{
  PetscFunctionBeginUser;
  (void)dim;
  (void)x;
  (void)du;
  (void)ctx;
  *f = 1.0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetDefaultOption(const char name[], const char value[])
{
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsHasName(NULL, NULL, name, &set));
  if (!set) PetscCall(PetscOptionsSetValue(NULL, name, value));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM        dm;
  KSP       ksp;
  PC        pc;
  Mat       A;
  Vec       x, b, r, e;
  PetscInt  dim = 2, level = 4, k = 1, cells[3], its = 0, maxit = 100;
  PetscReal rtol = 1e-8, bnorm, rnorm, rfmg;
  PetscBool ones = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscVPatchInitializePackage());
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "ex2 options", NULL);
  PetscCall(PetscOptionsInt("-dim", "Dimension", NULL, dim, &dim, NULL));
  PetscCall(PetscOptionsInt("-level", "Finest level L: 2^L cells per direction", NULL, level, &level, NULL));
  PetscCall(PetscOptionsInt("-degree", "Q_k degree", NULL, k, &k, NULL));
  PetscCall(PetscOptionsBool("-rhs_ones", "Right-hand side: the vector of ones on the unknowns (the convention of the reference's code) instead of the load vector of f = 1", NULL, ones, &ones, NULL));
  PetscCall(PetscOptionsReal("-rtol", "Stop when ||b - A x|| <= rtol ||b||", NULL, rtol, &rtol, NULL));
  PetscOptionsEnd();
  for (PetscInt d = 0; d < 3; d++) cells[d] = 1 << level;

  PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, dim, cells, k, NULL, NULL, &dm));
  PetscCall(DMSetFromOptions(dm));
  PetscCall(DMSetUp(dm));
  PetscCall(DMCreateGlobalVector(dm, &x));
  PetscCall(VecDuplicate(x, &b));
  PetscCall(VecDuplicate(x, &r));
  PetscCall(VecDuplicate(x, &e));
  PetscCall(DMQBoxComputeRHS(dm, One, NULL, NULL, b));
  if (ones) { /* b_i = 1 on every unknown, 0 on the Dirichlet rows: mark the unknowns with the load vector of f = 1 */
    PetscScalar *a;
    PetscInt     n;
    PetscCall(VecGetLocalSize(b, &n));
    PetscCall(VecGetArray(b, &a));
    for (PetscInt i = 0; i < n; i++) a[i] = a[i] != 0.0 ? 1.0 : 0.0;
    PetscCall(VecRestoreArray(b, &a));
  }

  PetscCall(SetDefaultOption("-mg_levels_ksp_type", "richardson"));
  PetscCall(SetDefaultOption("-mg_levels_ksp_max_it", "1"));
  PetscCall(SetDefaultOption("-mg_levels_pc_type", "vpatch"));
  PetscCall(SetDefaultOption("-mg_coarse_ksp_type", "cg"));
  PetscCall(SetDefaultOption("-mg_coarse_pc_type", "jacobi"));
  PetscCall(SetDefaultOption("-mg_coarse_ksp_rtol", "1e-14"));
  PetscCall(SetDefaultOption("-mg_coarse_ksp_max_it", "1000"));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetDM(ksp, dm));
  PetscCall(KSPSetDMActive(ksp, KSP_DMACTIVE_RHS, PETSC_FALSE));
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCMG));
  PetscCall(PCMGSetLevels(pc, level + 1, NULL));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  PetscCall(KSPGetOperators(ksp, &A, NULL));

  /* one full-multigrid pass from the coarsest level */
  PetscCall(PCMGSetType(pc, PC_MG_FULL));
  PetscCall(PCApply(pc, b, x));
  PetscCall(VecNorm(b, NORM_2, &bnorm));
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &rnorm));
  rfmg = rnorm / bnorm;
  /* then V-cycles on the finest level */
  PetscCall(PCMGSetType(pc, PC_MG_MULTIPLICATIVE));
  while (rnorm > rtol * bnorm && its < maxit) {
    PetscCall(PCApply(pc, r, e));
    PetscCall(VecAXPY(x, 1.0, e));
    PetscCall(MatMult(A, x, r));
    PetscCall(VecAYPX(r, -1.0, b));
    PetscCall(VecNorm(r, NORM_2, &rnorm));
    its++;
  }
  PetscCheck(rnorm <= rtol * bnorm, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "FMG did not reach rtol %g in %" PetscInt_FMT " V-cycles (relative residual %g)", (double)rtol, maxit, (double)(rnorm / bnorm));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT "D Q_%" PetscInt_FMT " level %" PetscInt_FMT ": FMG residual %.1e, then %" PetscInt_FMT " V-cycles to %.1e\n", dim, k, level, (double)rfmg, its, (double)(rnorm / bnorm)));

  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&e));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: 2d_k1
    args: -degree 1 -level 4

  test:
    suffix: 2d_k3
    args: -degree 3 -level 4

  test:
    suffix: 2d_k6
    args: -degree 6 -level 4

  test:
    suffix: 2d_k10
    args: -degree 10 -level 4

  test:
    suffix: 2d_k2_level6
    args: -degree 2 -level 6

  test:
    suffix: 3d_k2
    args: -dim 3 -degree 2 -level 3

  test:
    suffix: 2d_k1_rhs_ones
    args: -degree 1 -level 4 -rhs_ones

  test:
    suffix: 2d_k6_rhs_ones
    args: -degree 6 -level 4 -rhs_ones

  test:
    suffix: 3d_k1_level4
    args: -dim 3 -degree 1 -level 4

  test:
    suffix: 3d_k3_level4
    args: -dim 3 -degree 3 -level 4

  test:
    suffix: 3d_k6_level3
    args: -dim 3 -degree 6 -level 3

  test:
    suffix: 2d_k3_cuda
    requires: cuda
    args: -degree 3 -level 4 -dm_vec_type cuda
    output_file: ex2_2d_k3

  test:
    suffix: 3d_k2_cuda
    requires: cuda
    args: -dim 3 -degree 2 -level 3 -dm_vec_type cuda
    output_file: ex2_3d_k2

  test:
    suffix: 2d_k10_cuda_separate
    requires: cuda
    args: -degree 10 -level 4 -dm_vec_type cuda -mg_levels_pc_vpatch_kernel separate
    output_file: ex2_2d_k10

  test:
    suffix: 2d_k3_chebyshev_jacobi
    args: -degree 3 -level 4 -mg_levels_ksp_type chebyshev -mg_levels_ksp_max_it 2 -mg_levels_pc_type jacobi

TEST*/
