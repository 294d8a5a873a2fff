static char help[] = "A PETSc program that never calls petsc-vpatch: the DM type comes from -dmtype, the solver from\n\
the options. Run with -dll_append <path>/libpetscvpatch.so -dmtype qbox to solve with the plugin's DM, its\n\
matrix-free operator and PCMG over its hierarchy. As a user's program may, it hands KSP the DM's operator scaled\n\
(-op_scale s: MatScale()) or shifted (-op_shift t: MatShift()) from its compute-operators callback, and can put a\n\
NaN into the right-hand side (-rhs_nan). Fails unless the solve converged.\n\n";

#include <petscksp.h>
#include <petscdmda.h>

typedef struct {
  PetscScalar scale, shift;
} OpCtx;

/* the operator KSP gets on every level: the DM's matrix (DMCreateMatrix() made it), scaled and shifted */
static PetscErrorCode ComputeOperators(KSP ksp, Mat A, Mat B, void *ctx)
{
  OpCtx *op = (OpCtx *)ctx;

  PetscFunctionBeginUser;
  (void)ksp;
  if (op->scale != 1.0) PetscCall(MatScale(B, op->scale));
  if (op->shift != 0.0) PetscCall(MatShift(B, op->shift));
  if (A != B) {
    if (op->scale != 1.0) PetscCall(MatScale(A, op->scale));
    if (op->shift != 0.0) PetscCall(MatShift(A, op->shift));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM                 dm;
  KSP                ksp;
  PC                 pc;
  Vec                x, b;
  char               type[256] = DMDA;
  PetscInt           its, levels = 0;
  KSPConvergedReason reason;
  DMType             dmtype;
  OpCtx              op  = {1.0, 0.0};
  PetscBool          nan = PETSC_FALSE, ismg, set1, set2;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-dmtype", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetScalar(NULL, NULL, "-op_scale", &op.scale, &set1));
  PetscCall(PetscOptionsGetScalar(NULL, NULL, "-op_shift", &op.shift, &set2));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-rhs_nan", &nan, NULL));
  PetscCall(DMCreate(PETSC_COMM_WORLD, &dm));
  PetscCall(DMSetType(dm, type));
  PetscCall(DMSetFromOptions(dm));
  PetscCall(DMSetUp(dm));
  PetscCall(DMCreateGlobalVector(dm, &b));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(VecSet(b, 1.0));
  if (nan) PetscCall(VecSetValue(b, 0, (PetscScalar)NAN, INSERT_VALUES));
  PetscCall(VecAssemblyBegin(b));
  PetscCall(VecAssemblyEnd(b));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetDM(ksp, dm));
  if (set1 || set2) PetscCall(KSPSetComputeOperators(ksp, ComputeOperators, &op));
  PetscCall(KSPSetDMActive(ksp, KSP_DMACTIVE_RHS, PETSC_FALSE));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "KSP did not converge: %s after %" PetscInt_FMT " iterations", KSPConvergedReasons[reason], its);
  PetscCall(DMGetType(dm, &dmtype));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCMG, &ismg));
  if (ismg) PetscCall(PCMGGetLevels(pc, &levels));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "DM type %s: converged (%s) in %" PetscInt_FMT " iterations", dmtype, KSPConvergedReasons[reason], its));
  if (ismg) PetscCall(PetscPrintf(PETSC_COMM_WORLD, ", PCMG with %" PetscInt_FMT " levels", levels));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
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

  # PETSc's natural options: PCMG's default coarse solver (LU) and level smoother (Chebyshev with SOR) on the matrix-free operator
  test:
    suffix: natural_mg_vpatch
    args: -dll_append ${LIBDIR}/libpetscvpatch.so -dmtype qbox -dm_qbox_dim 3 -dm_qbox_cells 16 -dm_qbox_degree 3 -ksp_rtol 1e-8 -pc_type mg -mg_levels_pc_type vpatch -pc_mg_levels 3

  test:
    suffix: natural_mg_vpatch_np2
    nsize: 2
    args: -dll_append ${LIBDIR}/libpetscvpatch.so -dmtype qbox -dm_qbox_dim 3 -dm_qbox_cells 8 -dm_qbox_degree 3 -ksp_rtol 1e-8 -pc_type mg -mg_levels_pc_type vpatch -pc_mg_levels 3

  test:
    suffix: natural_mg
    args: -dll_append ${LIBDIR}/libpetscvpatch.so -dmtype qbox -dm_qbox_dim 3 -dm_qbox_cells 8 -dm_qbox_degree 3 -ksp_rtol 1e-8 -pc_type mg

  test:
    suffix: natural_mg_cuda
    requires: cuda
    args: -dll_append ${LIBDIR}/libpetscvpatch.so -dmtype qbox -dm_qbox_dim 3 -dm_qbox_cells 8 -dm_qbox_degree 3 -ksp_rtol 1e-8 -pc_type mg -dm_vec_type cuda
    output_file: test_dll_natural_mg

  test:
    suffix: natural_mg_vpatch_cuda
    requires: cuda
    args: -dll_append ${LIBDIR}/libpetscvpatch.so -dmtype qbox -dm_qbox_dim 3 -dm_qbox_cells 16 -dm_qbox_degree 3 -ksp_rtol 1e-8 -pc_type mg -mg_levels_pc_type vpatch -pc_mg_levels 3 -dm_vec_type cuda
    output_file: test_dll_natural_mg_vpatch

  test:
    suffix: natural_mg_np2
    nsize: 2
    args: -dll_append ${LIBDIR}/libpetscvpatch.so -dmtype qbox -dm_qbox_dim 2 -dm_qbox_cells 16 -dm_qbox_degree 3 -ksp_rtol 1e-8 -pc_type mg

  # the options file alone takes the whole hierarchy: the same count as with -pc_mg_levels 5 (16 cells: 5 levels)
  test:
    suffix: options_file_levels
    args: -dll_append ${LIBDIR}/libpetscvpatch.so -dmtype qbox -dm_qbox_dim 3 -dm_qbox_cells 16 -dm_qbox_degree 3 -options_file share/vpatch-mg.options

  test:
    suffix: options_file_levels_set
    args: -dll_append ${LIBDIR}/libpetscvpatch.so -dmtype qbox -dm_qbox_dim 3 -dm_qbox_cells 16 -dm_qbox_degree 3 -options_file share/vpatch-mg.options -pc_mg_levels 5
    output_file: test_dll_options_file_levels

  # the operator scaled by 100 on every level: the recommended multigrid takes the unscaled problem's count
  test:
    suffix: scaled
    args: -dll_append ${LIBDIR}/libpetscvpatch.so -dmtype qbox -dm_qbox_dim 3 -dm_qbox_cells 16 -dm_qbox_degree 3 -options_file share/vpatch-mg.options -op_scale 100
    output_file: test_dll_options_file_levels

  test:
    suffix: scaled_np3
    nsize: 3
    args: -dll_append ${LIBDIR}/libpetscvpatch.so -dmtype qbox -dm_qbox_dim 2 -dm_qbox_cells 24 -dm_qbox_degree 3 -options_file share/vpatch-mg.options -op_scale 0.01 -pc_mg_levels 3

  test:
    suffix: scaled_cuda
    requires: cuda
    args: -dll_append ${LIBDIR}/libpetscvpatch.so -dmtype qbox -dm_qbox_dim 3 -dm_qbox_cells 16 -dm_qbox_degree 3 -options_file share/vpatch-mg.options -op_scale 100 -dm_vec_type cuda
    output_file: test_dll_options_file_levels

  test:
    suffix: scaled_assembled
    args: -dll_append ${LIBDIR}/libpetscvpatch.so -dmtype qbox -dm_qbox_dim 2 -dm_qbox_cells 16 -dm_qbox_degree 2 -dm_mat_type aij -options_file share/vpatch-mg.options -op_scale 7

  test:
    suffix: shifted
    args: -dll_append ${LIBDIR}/libpetscvpatch.so -dmtype qbox -dm_qbox_dim 3 -dm_qbox_cells 16 -dm_qbox_degree 3 -options_file share/vpatch-mg.options -op_shift 1000
    expect_error: PCVPATCH: the operator is a DMQBOX operator shifted by 1000

  test:
    suffix: shifted_assembled
    args: -dll_append ${LIBDIR}/libpetscvpatch.so -dmtype qbox -dm_qbox_dim 2 -dm_qbox_cells 8 -dm_qbox_degree 2 -dm_mat_type aij -options_file share/vpatch-mg.options -op_shift 1000
    expect_error: is not mass M + stiffness K of the DMQBOX

  test:
    suffix: shifted_chebyshev
    args: -dll_append ${LIBDIR}/libpetscvpatch.so -dmtype qbox -dm_qbox_dim 3 -dm_qbox_cells 8 -dm_qbox_degree 3 -op_shift 1000 -ksp_type cg -ksp_rtol 1e-8 -pc_type mg -mg_levels_pc_type jacobi

  # standalone: CG-safe by default; Richardson honours the tolerances and never converges on NaN
  test:
    suffix: vpatch_cg
    args: -dll_append ${LIBDIR}/libpetscvpatch.so -dmtype qbox -dm_qbox_cells 16 -dm_qbox_degree 2 -ksp_type cg -ksp_rtol 1e-8 -pc_type vpatch

  test:
    suffix: vpatch_richardson
    args: -dll_append ${LIBDIR}/libpetscvpatch.so -dmtype qbox -dm_qbox_cells 8 -dm_qbox_degree 2 -ksp_type richardson -ksp_rtol 1e-6 -pc_type vpatch

  test:
    suffix: vpatch_richardson_nan
    args: -dll_append ${LIBDIR}/libpetscvpatch.so -dmtype qbox -dm_qbox_cells 8 -dm_qbox_degree 2 -ksp_type richardson -pc_type vpatch -rhs_nan
    expect_error: KSP did not converge: DIVERGED_NANORINF after 0 iterations

  test:
    suffix: vpatch_one_cell
    args: -dll_append ${LIBDIR}/libpetscvpatch.so -dmtype qbox -dm_qbox_cells 1 -dm_qbox_degree 4 -pc_type vpatch
    expect_error: PCVPATCH needs interior vertices, i.e. at least 2 cells per direction

  test:
    suffix: mg_galerkin
    args: -dll_append ${LIBDIR}/libpetscvpatch.so -dmtype qbox -dm_qbox_cells 8 -dm_qbox_degree 2 -pc_type mg -pc_mg_galerkin
    expect_error: so no Galerkin product is formed

TEST*/
