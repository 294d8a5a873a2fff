static char help[] = "PCVPATCH's sweep changed after its set-up: on a mapped DMQBOX with a coefficient the local solver scaled\n\
damps each patch by its own factor from Lanczos steps, 3 for a forward sweep and 5 for a symmetric one (with 3 some\n\
patches' estimates are too low for a positive definite preconditioner). The PC is set up under GMRES with a forward\n\
sweep, then switched by PCVPatchSetSweep() to a symmetric sweep under CG: the set-up must run again with 5 steps, or\n\
CG stops with DIVERGED_INDEFINITE_PC (Q_4 on 10^3 cells of the shell at contrast 1e4, options below). The solve must\n\
converge to 1e-8.\n\n";

#include <petscvpatch.h>
#include <petscksp.h>

int main(int argc, char **argv)
{
  DM                 dm;
  Mat                A;
  Vec                x, b;
  KSP                ksp;
  PC                 pc;
  KSPConvergedReason reason;
  PetscInt           its, cells[3] = {10, 10, 10};

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscVPatchInitializePackage());
  PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, 3, cells, 4, NULL, NULL, &dm));
  PetscCall(DMSetFromOptions(dm));
  PetscCall(DMSetUp(dm));
  PetscCall(DMCreateMatrix(dm, &A));
  PetscCall(DMCreateGlobalVector(dm, &x));
  PetscCall(DMCreateGlobalVector(dm, &b));
  PetscCall(VecSet(b, 1.0)); /* the Dirichlet rows take the value 1 too */

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCVPATCH));
  PetscCall(PCSetDM(pc, dm));
  PetscCall(PCVPatchSetSweep(pc, PC_VPATCH_SWEEP_FORWARD));
  PetscCall(KSPSetUp(ksp)); /* the dampings from 3 steps */

  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(PCVPatchSetSweep(pc, PC_VPATCH_SWEEP_SYMMETRIC));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 500));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "CG with the symmetric sweep set after the set-up: %s after %" PetscInt_FMT " iterations", KSPConvergedReasons[reason], its);

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "CG with the symmetric sweep set after a forward set-up: converged\n"));

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    args: -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_coefficient_contrast 1e4

  test:
    suffix: cuda
    requires: cuda
    args: -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_coefficient_contrast 1e4 -dm_vec_type cuda
    output_file: test_sweep

TEST*/
