static char help[] = "PCAUXAMG on the finite-difference Laplacian of the unit square (-dim 2) or cube (-dim 3) with n^d interior\n\
points for n in -sizes: FCG (K-cycle) or CG (-pc_auxamg_cycle v) to -rtol, the iterations per size; the counts must\n\
stay bounded as the mesh is refined (the largest at most the smallest + 4), and the true residual must meet the\n\
tolerance. -no_coordinates: the error a user gets without PCSetCoordinates() or a DM; -use_dm: the coordinates from\n\
the KSP's DM; -short_coordinates, -nan_coordinate: bad coordinates; -then_coarse_smoother jacobi|gs (or -then_tree\n\
uniform|adaptive): after each solve that option changed and a second solve (the PC set up again).\n\n";

#include <math.h>
#include <petscdmda.h>
#include <petscksp.h>
#include <petscvpatch.h>
#include "vptest.h"

int main(int argc, char **argv)
{
  PetscInt    dim = 2, sizes[8] = {32, 64, 128}, nsizes = 8, its[8];
  PetscReal   rtol     = 1e-8;
  PetscBool   nocoords = PETSC_FALSE, usedm = PETSC_FALSE, matrixdm = PETSC_FALSE, set, shortcoords = PETSC_FALSE, nancoord = PETSC_FALSE;
  char        cycle[8] = "k", then[16] = "";
  const char *thenopt = "-pc_auxamg_coarse_smoother";

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscVPatchInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-sizes", sizes, &nsizes, &set));
  if (!set) nsizes = 3;
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-rtol", &rtol, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-no_coordinates", &nocoords, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-use_dm", &usedm, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-matrix_dm", &matrixdm, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-short_coordinates", &shortcoords, NULL)); /* bad input: one point too few */
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-nan_coordinate", &nancoord, NULL));       /* bad input: a NaN */
  /* after each solve, -pc_auxamg_coarse_smoother (or -pc_auxamg_tree) set to this, KSPSetFromOptions() and a second
     solve (a new set-up) */
  PetscCall(PetscOptionsGetString(NULL, NULL, "-then_coarse_smoother", then, sizeof(then), &set));
  if (!set) {
    PetscCall(PetscOptionsGetString(NULL, NULL, "-then_tree", then, sizeof(then), &set));
    if (set) thenopt = "-pc_auxamg_tree";
  }
  for (PetscInt s = 0; s < nsizes; s++) {
    PetscInt           n = sizes[s], N;
    DM                 da;
    Mat                A;
    Vec                x, b, r, c;
    KSP                ksp;
    PC                 pc;
    KSPConvergedReason reason;
    PetscReal          nr, nb;

    if (dim == 2)
      PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &da));
    else
      PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
    PetscCall(DMSetUp(da));
    if (!nocoords) PetscCall(DMDASetUniformCoordinates(da, 0, 1, 0, 1, 0, 1));
    PetscCall(DMCreateMatrix(da, &A));
    PetscCall(VPTestFDLaplacian(da, A));
    PetscCall(DMCreateGlobalVector(da, &x));
    PetscCall(VecDuplicate(x, &b));
    PetscCall(VecDuplicate(x, &r));
    PetscCall(VecSet(b, 1.0));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPFCG));
    PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED)); /* the stopping test on the true residual, as the paper's */
    PetscCall(KSPSetTolerances(ksp, rtol, PETSC_CURRENT, PETSC_CURRENT, 200));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCAUXAMG));
    if (usedm) {
      PetscCall(KSPSetDM(ksp, da));
      PetscCall(KSPSetDMActive(ksp, KSP_DMACTIVE_ALL, PETSC_FALSE));
    } else if (!nocoords && !matrixdm) {
      const PetscScalar *ca;
      PetscInt           nl;
      PetscReal         *xy;
      PetscCall(DMGetCoordinates(da, &c));
      PetscCall(VecGetLocalSize(c, &nl));
      PetscCall(PetscMalloc1(nl, &xy));
      PetscCall(VecGetArrayRead(c, &ca));
      for (PetscInt i = 0; i < nl; i++) xy[i] = PetscRealPart(ca[i]);
      if (nancoord && nl) xy[nl - 1] = (PetscReal)NAN;
      PetscCall(VecRestoreArrayRead(c, &ca));
      PetscCall(PCSetCoordinates(pc, dim, nl / dim - (shortcoords ? 1 : 0), xy));
      PetscCall(PetscFree(xy));
    }
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, &its[s]));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(MatResidual(A, b, x, r));
    PetscCall(VecNorm(r, NORM_2, &nr));
    PetscCall(VecNorm(b, NORM_2, &nb));
    PetscCall(VecGetSize(x, &N));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT "D, %" PetscInt_FMT " unknowns: %" PetscInt_FMT " iterations (%s), true relative residual %s\n", dim, N, its[s], KSPConvergedReasons[reason],
                          nr <= 10 * rtol * nb ? "below 10 rtol" : "TOO LARGE"));
    PetscCheck(reason > 0 && nr <= 10 * rtol * nb, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "PCAUXAMG: not converged on %" PetscInt_FMT " unknowns (%s, relative residual %g)", N, KSPConvergedReasons[reason], (double)(nr / nb));
    if (then[0]) {
      PetscInt n2;
      PetscCall(PetscOptionsSetValue(NULL, thenopt, then));
      PetscCall(KSPSetFromOptions(ksp));
      PetscCall(KSPSolve(ksp, b, x));
      PetscCall(KSPGetIterationNumber(ksp, &n2));
      PetscCall(KSPGetConvergedReason(ksp, &reason));
      PetscCall(MatResidual(A, b, x, r));
      PetscCall(VecNorm(r, NORM_2, &nr));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  then %s %s: %" PetscInt_FMT " iterations (%s), true relative residual %s\n", thenopt, then, n2, KSPConvergedReasons[reason], nr <= 10 * rtol * nb ? "below 10 rtol" : "TOO LARGE"));
      PetscCheck(reason > 0 && nr <= 10 * rtol * nb, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "PCAUXAMG: not converged after the change of %s (%s)", thenopt, KSPConvergedReasons[reason]);
    }
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&r));
    PetscCall(MatDestroy(&A));
    PetscCall(DMDestroy(&da));
  }
  PetscCall(PetscOptionsGetString(NULL, NULL, "-pc_auxamg_cycle", cycle, sizeof(cycle), NULL));
  /* the K-cycle keeps the counts bounded; the V-cycle of unsmoothed aggregation does not (it is only checked to converge) */
  if (cycle[0] != 'v') PetscCheck(its[nsizes - 1] <= its[0] + 4, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "PCAUXAMG: the iterations grow with the mesh (%" PetscInt_FMT " to %" PetscInt_FMT ")", its[0], its[nsizes - 1]);
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: 2d
    args: -pc_auxamg_check_galerkin

  test:
    suffix: 2d_local_gs
    args: -pc_auxamg_smoother local

  test:
    suffix: 2d_vcycle_cg
    args: -ksp_type cg -pc_auxamg_cycle v

  test:
    suffix: 3d
    args: -dim 3 -sizes 16,32,48

  test:
    suffix: 3d_coarse_gs
    args: -dim 3 -sizes 16,32,48 -pc_auxamg_coarse_smoother gs

  # the coarse smoother changed between two solves: a new set-up, the count of the other smoother (13 gs, 14 jacobi at 32^3)
  test:
    suffix: 3d_coarse_switch
    args: -dim 3 -sizes 32 -pc_auxamg_coarse_smoother gs -then_coarse_smoother jacobi

  test:
    suffix: 3d_coarse_switch_back
    args: -dim 3 -sizes 32 -then_coarse_smoother gs

  # the region tree (-pc_auxamg_tree adaptive): bounded counts, coarse operators equal to MatPtAP() (graded meshes: ex5)
  test:
    suffix: 2d_tree
    args: -pc_auxamg_tree adaptive -pc_auxamg_check_galerkin
  test:
    suffix: 3d_tree
    args: -dim 3 -sizes 16,32,48 -pc_auxamg_tree adaptive -pc_auxamg_check_galerkin
  # the tree changed between two solves: a new set-up (the other count: 14 uniform, 13 adaptive at 64^2)
  test:
    suffix: 2d_tree_switch
    args: -sizes 64 -then_tree adaptive
  test:
    suffix: 2d_tree_switch_back
    args: -sizes 64 -pc_auxamg_tree adaptive -then_tree uniform
  # the tree with the colored Gauss-Seidel (a greedy coloring of the cells' graph; the default on the GPU), on one and
  # three ranks (the coloring depends on the partition; the counts here do not)
  test:
    suffix: 2d_tree_colored
    args: -pc_auxamg_tree adaptive -pc_auxamg_smoother colored -pc_auxamg_check_galerkin
  test:
    suffix: 2d_tree_colored_np3
    nsize: 3
    args: -pc_auxamg_tree adaptive -pc_auxamg_smoother colored
    output_file: test_auxamg_2d_tree_colored
  test:
    suffix: 3d_tree_colored
    args: -dim 3 -sizes 16,32,48 -pc_auxamg_tree adaptive -pc_auxamg_smoother colored
  # on several ranks: the cut from counts summed over the ranks, a cell's points on each rank one aggregate there (the
  # counts of one rank)
  test:
    suffix: 2d_tree_np3
    nsize: 3
    args: -pc_auxamg_tree adaptive -pc_auxamg_check_galerkin
    output_file: test_auxamg_2d_tree
  test:
    suffix: 2d_np3
    nsize: 3
    args: -sizes 32,64,128 -pc_auxamg_check_galerkin
  # -vpatch_exchange_device (config/mpiexec-gpu.sh sets it) is read by the package: no "Option left" warning in a program
  # without a DMQBOX, on the host path, where it changes nothing
  test:
    suffix: 2d_np3_vpatch_exchange_device
    nsize: 3
    args: -sizes 32,64,128 -pc_auxamg_check_galerkin -vpatch_exchange_device
    output_file: test_auxamg_2d_np3

  test:
    suffix: 3d_np2_dm
    nsize: 2
    args: -dim 3 -sizes 16,32 -use_dm -pc_auxamg_check_galerkin

  test:
    suffix: short_coordinates
    args: -short_coordinates -sizes 16
    expect_error: give one point per row

  test:
    suffix: nan_coordinate
    args: -nan_coordinate -sizes 16
    expect_error: a coordinate is not finite

  # the same iterations with the coordinates from the matrix's DM alone
  test:
    suffix: 2d_matrix_dm
    args: -matrix_dm -pc_auxamg_check_galerkin
    output_file: test_auxamg_2d

  test:
    suffix: 2d_np3_matrix_dm
    nsize: 3
    args: -matrix_dm -sizes 32,64,128
    output_file: test_auxamg_2d_np3

  test:
    suffix: no_coordinates
    args: -no_coordinates -sizes 16
    expect_error: PCAUXAMG needs the coordinates

TEST*/
