static char help[] = "A PETSc program that never calls petsc-vpatch: the DM type comes from -dmtype, the solver from\n\
the options. Run with -dll_append <path>/libpetscvpatch.so -dmtype qbox to solve with the plugin's DM, its\n\
matrix-free operator and PCMG over its hierarchy.\n\n";

#include <petscksp.h>
#include <petscdmda.h>

int main(int argc, char **argv)
{
  DM                 dm;
  KSP                ksp;
  Vec                x, b;
  char               type[256] = DMDA;
  PetscInt           its;
  KSPConvergedReason reason;
  DMType             dmtype;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-dmtype", type, sizeof(type), NULL));
  PetscCall(DMCreate(PETSC_COMM_WORLD, &dm));
  PetscCall(DMSetType(dm, type));
  PetscCall(DMSetFromOptions(dm));
  PetscCall(DMSetUp(dm));
  PetscCall(DMCreateGlobalVector(dm, &b));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(VecSet(b, 1.0));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetDM(ksp, dm));
  PetscCall(KSPSetDMActive(ksp, KSP_DMACTIVE_RHS, PETSC_FALSE));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "KSP did not converge: %s", KSPConvergedReasons[reason]);
  PetscCall(DMGetType(dm, &dmtype));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "DM type %s: converged (%s) in %" PetscInt_FMT " iterations\n", dmtype, KSPConvergedReasons[reason], its));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: qbox_mg
    args: -dll_append ${LIBDIR}/libpetscvpatch.so -dmtype qbox -dm_qbox_cells 8 -dm_qbox_degree 3 -ksp_type cg -ksp_norm_type unpreconditioned -ksp_rtol 1e-8 -pc_type mg -pc_mg_levels 4 -mg_levels_pc_type jacobi -mg_coarse_ksp_type cg -mg_coarse_pc_type jacobi -mg_coarse_ksp_rtol 1e-12

  test:
    suffix: qbox_np2_3d
    nsize: 2
    args: -dll_append ${LIBDIR}/libpetscvpatch.so -dmtype qbox -dm_qbox_dim 3 -dm_qbox_cells 4 -dm_qbox_degree 2 -ksp_type cg -ksp_norm_type unpreconditioned -ksp_rtol 1e-8 -pc_type mg -pc_mg_levels 2 -mg_levels_pc_type jacobi -mg_coarse_ksp_type cg -mg_coarse_pc_type jacobi -mg_coarse_ksp_rtol 1e-12

  test:
    suffix: without_plugin
    args: -dmtype qbox
    expect_error: Unknown DM type: qbox

TEST*/
