static char help[] = "Bad input to DMQBOX and its operators: each -case must stop with a PETSc error whose message\n\
names the problem (the test runner checks the message). Cases: degree0, degree9_3d, degree11_2d, dim4, cells0,\n\
nanbox, oddcoarsen, vectype, sizes, interp, toomanyprocs, setter_on_dmda, options (the -dm_qbox_* options), vpatch_aij, vpatch_option (the\n\
-pc_vpatch_* options), mapped (the -dm_qbox_mapping/-dm_qbox_coefficient options), fold (a map that inverts the cells of\n\
y > 0.75: on 2 processes, those of one process), gpu_oom (more CUDA vectors than the GPU holds), coef_negative, coef_nan, map_nan, map_after_setup, vpatch_mapped (PCVPATCH on a\n\
mapped operator, with -pc_vpatch_* options).\n\n";

#include <petscvpatch.h>
#include <petscdmda.h>
#include <math.h>

/* user callbacks that are wrong on purpose */
static PetscErrorCode MapFold(PetscInt dim, const PetscReal X[], PetscReal x[], void *ctx)
{
  (void)ctx;
  for (PetscInt d = 0; d < dim; d++) x[d] = X[d];
  if (X[1] > 0.75) x[1] = 1.5 - X[1];
  return PETSC_SUCCESS;
}
static PetscErrorCode MapNaN(PetscInt dim, const PetscReal X[], PetscReal x[], void *ctx)
{
  (void)ctx;
  for (PetscInt d = 0; d < dim; d++) x[d] = X[d] > 0.5 ? (PetscReal)NAN : X[d];
  return PETSC_SUCCESS;
}
static PetscErrorCode CoefNegative(PetscInt dim, const PetscReal x[], PetscReal *a, void *ctx)
{
  (void)dim;
  (void)ctx;
  *a = x[1] > 0.5 ? -1.0 : 1.0;
  return PETSC_SUCCESS;
}
static PetscErrorCode CoefNaN(PetscInt dim, const PetscReal x[], PetscReal *a, void *ctx)
{
  (void)dim;
  (void)x;
  (void)ctx;
  *a = (PetscReal)NAN;
  return PETSC_SUCCESS;
}

int main(int argc, char **argv)
{
  char     cs[64] = "degree0";
  DM       dm, dm2;
  PetscInt cells[3] = {4, 4, 4};

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscVPatchInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-case", cs, sizeof(cs), NULL));
  if (!strcmp(cs, "degree0")) {
    PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, 2, cells, 0, NULL, NULL, &dm));
    PetscCall(DMSetUp(dm));
  } else if (!strcmp(cs, "degree9_3d")) {
    PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, 3, cells, 9, NULL, NULL, &dm));
    PetscCall(DMSetUp(dm));
  } else if (!strcmp(cs, "degree11_2d")) {
    PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, 2, cells, 11, NULL, NULL, &dm));
    PetscCall(DMSetUp(dm));
  } else if (!strcmp(cs, "dim4")) {
    PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, 4, cells, 1, NULL, NULL, &dm));
  } else if (!strcmp(cs, "cells0")) {
    cells[1] = 0;
    PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, 2, cells, 1, NULL, NULL, &dm));
  } else if (!strcmp(cs, "nanbox")) {
    PetscReal lo[2] = {0, (PetscReal)NAN}, up[2] = {1, 1};
    PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, 2, cells, 1, lo, up, &dm));
    PetscCall(DMSetUp(dm));
  } else if (!strcmp(cs, "oddcoarsen")) {
    cells[0] = 3;
    PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, 2, cells, 2, NULL, NULL, &dm));
    PetscCall(DMSetUp(dm));
    PetscCall(DMCoarsen(dm, PETSC_COMM_WORLD, &dm2));
  } else if (!strcmp(cs, "vectype")) {
    PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, 2, cells, 2, NULL, NULL, &dm));
    PetscCall(DMSetVecType(dm, VECKOKKOS));
    PetscCall(DMSetUp(dm));
  } else if (!strcmp(cs, "sizes")) {
    Mat A;
    Vec x, y;
    PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, 2, cells, 2, NULL, NULL, &dm));
    PetscCall(DMSetUp(dm));
    cells[0] = 8;
    PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, 2, cells, 2, NULL, NULL, &dm2));
    PetscCall(DMSetUp(dm2));
    PetscCall(DMCreateMatrix(dm, &A));
    PetscCall(DMCreateGlobalVector(dm2, &x));
    PetscCall(DMCreateGlobalVector(dm, &y));
    PetscCall(MatMult(A, x, y));
  } else if (!strcmp(cs, "interp")) {
    Mat P;
    PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, 2, cells, 2, NULL, NULL, &dm));
    PetscCall(DMSetUp(dm));
    cells[0] = 6;
    PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, 2, cells, 2, NULL, NULL, &dm2));
    PetscCall(DMSetUp(dm2));
    PetscCall(DMCreateInterpolation(dm, dm2, &P, NULL));
  } else if (!strcmp(cs, "toomanyprocs")) {
    cells[0] = cells[1] = 1;
    PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, 2, cells, 1, NULL, NULL, &dm));
    PetscCall(DMSetUp(dm));
  } else if (!strcmp(cs, "gpu_oom")) { /* more CUDA vectors than any GPU holds (Q_1 on 1200^3 cells: 1.7e9 values, 13.9 GB each; 16 of them) */
    PetscInt big[3] = {1200, 1200, 1200};
    Vec      x[16];

    PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, 3, big, 1, NULL, NULL, &dm));
    PetscCall(DMSetVecType(dm, VECCUDA));
    PetscCall(DMSetUp(dm));
    for (PetscInt i = 0; i < 16; i++) {
      PetscCall(DMCreateGlobalVector(dm, &x[i]));
      PetscCall(VecSet(x[i], 1.0)); /* the first write allocates the device array: a PETSc error naming the sizes */
    }
    for (PetscInt i = 0; i < 16; i++) PetscCall(VecDestroy(&x[i]));
    PetscCall(DMDestroy(&dm));
  } else if (!strcmp(cs, "setter_on_dmda")) { /* a DMQBox setter on a DM of another type must not write into it */
    PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 4, 4, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &dm));
    PetscCall(DMQBoxSetDegree(dm, 3));
  } else if (!strcmp(cs, "options")) { /* -dm_qbox_* options checked: e.g. 3 cell counts in 2D */
    PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, 2, cells, 2, NULL, NULL, &dm));
    PetscCall(DMSetFromOptions(dm));
    PetscCall(DMSetUp(dm));
  } else if (!strcmp(cs, "vpatch_aij") || !strcmp(cs, "vpatch_option")) {
    Mat A;
    PC  pc;
    PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
    PetscCall(PCSetType(pc, PCVPATCH));
    if (!strcmp(cs, "vpatch_aij")) { /* an assembled matrix without a DMQBOX */
      PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, 10, 10, 1, NULL, 0, NULL, &A));
      PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
      PetscCall(MatShift(A, 1.0));
      PetscCall(PCSetOperators(pc, A, A));
      PetscCall(PCSetUp(pc));
    } else
      PetscCall(PCSetFromOptions(pc));
  } else if (!strcmp(cs, "mapped") || !strcmp(cs, "fold") || !strcmp(cs, "coef_negative") || !strcmp(cs, "coef_nan") || !strcmp(cs, "map_nan") || !strcmp(cs, "vpatch_mapped")) {
    Mat A;
    PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, 2, cells, 2, NULL, NULL, &dm));
    PetscCall(DMSetFromOptions(dm));
    if (!strcmp(cs, "fold")) PetscCall(DMQBoxSetMapping(dm, MapFold, NULL));
    if (!strcmp(cs, "map_nan")) PetscCall(DMQBoxSetMapping(dm, MapNaN, NULL));
    if (!strcmp(cs, "coef_negative")) PetscCall(DMQBoxSetCoefficient(dm, CoefNegative, NULL));
    if (!strcmp(cs, "coef_nan") || !strcmp(cs, "vpatch_mapped")) PetscCall(DMQBoxSetCoefficient(dm, !strcmp(cs, "coef_nan") ? CoefNaN : NULL, NULL));
    if (!strcmp(cs, "vpatch_mapped")) PetscCall(DMQBoxSetMappingType(dm, DMQBOX_MAPPING_DEFORMED));
    PetscCall(DMSetUp(dm));
    PetscCall(DMCreateMatrix(dm, &A)); /* the geometric factors are computed here */
    if (!strcmp(cs, "vpatch_mapped")) {
      PC pc;
      PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
      PetscCall(PCSetType(pc, PCVPATCH));
      PetscCall(PCSetOperators(pc, A, A));
      PetscCall(PCSetFromOptions(pc));
      PetscCall(PCSetUp(pc));
    }
  } else if (!strcmp(cs, "map_after_setup")) {
    PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, 2, cells, 2, NULL, NULL, &dm));
    PetscCall(DMSetUp(dm));
    PetscCall(DMQBoxSetMappingType(dm, DMQBOX_MAPPING_SHELL));
  } else
    SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "Unknown -case %s", cs);
  SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_PLIB, "case %s: the bad input was accepted", cs);
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: degree0
    args: -case degree0
    expect_error: DMQBOX in 2D supports degree 1..10, not 0

  test:
    suffix: degree9_3d
    args: -case degree9_3d
    expect_error: DMQBOX in 3D supports degree 1..8, not 9

  test:
    suffix: degree11_2d
    args: -case degree11_2d
    expect_error: DMQBOX in 2D supports degree 1..10, not 11

  test:
    suffix: dim4
    args: -case dim4
    expect_error: DMQBOX supports dimension 2 or 3, not 4

  test:
    suffix: cells0
    args: -case cells0
    expect_error: DMQBOX needs at least one cell per direction, got 0 in direction 1

  test:
    suffix: nanbox
    args: -case nanbox
    expect_error: DMQBOX box corner is not a finite number in direction 1

  test:
    suffix: oddcoarsen
    args: -case oddcoarsen
    expect_error: needs an even number of cells in every direction to coarsen, but direction 0 has 3 cells

  test:
    suffix: vectype
    args: -case vectype
    expect_error: DMQBOX supports vector types standard and cuda, not kokkos

  test:
    suffix: sizes
    args: -case sizes
    expect_error: Nonconforming object sizes

  test:
    suffix: interp
    args: -case interp
    expect_error: DMQBOX transfer needs a fine level with twice the coarse cells: direction 0 has 4 coarse and 6 fine cells

  test:
    suffix: toomanyprocs
    nsize: 2
    args: -case toomanyprocs
    expect_error: 2 processes cannot share a mesh of 1 x 1 x 1 cells

  test:
    suffix: gpu_oom
    requires: cuda
    args: -case gpu_oom
    expect_error: Out of GPU memory: a vector of the DMQBOX of Q_1 on 1200 x 1200 x 1200 cells (1732323601 values

  test:
    suffix: vpatch_aij
    args: -case vpatch_aij
    expect_error: PCVPATCH needs an operator with tensor-product structure

  test:
    suffix: vpatch_option
    args: -case vpatch_option -pc_vpatch_sweep sideways
    expect_error: Unknown option "sideways" for -pc_vpatch_sweep

  test:
    suffix: mapped_inverted
    args: -case mapped -dm_qbox_mapping deformed -dm_qbox_deform_amplitude 1
    expect_error: the map inverts, degenerates or is not finite there

  test:
    suffix: mapped_inverted_cuda
    requires: cuda
    args: -case mapped -dm_qbox_mapping deformed -dm_qbox_deform_amplitude 1 -dm_vec_type cuda
    expect_error: the map inverts, degenerates or is not finite there

  test:
    suffix: mapped_contrast
    args: -case mapped -dm_qbox_coefficient oscillatory -dm_qbox_coefficient_contrast -2
    expect_error: -dm_qbox_coefficient_contrast must be >= 0

  test:
    suffix: fold_np2
    nsize: 2
    args: -case fold -dm_qbox_cells 8
    expect_error: det J = -0.015625 at the point

  test:
    suffix: fold_np2_other
    nsize: 2
    args: -case fold -dm_qbox_cells 8
    expect_error: another process found a cell whose map or coefficient is not valid

  test:
    suffix: coef_negative
    args: -case coef_negative
    expect_error: DMQBOX coefficient a = -1. at the point

  test:
    suffix: coef_nan
    args: -case coef_nan
    expect_error: it must be positive and finite

  test:
    suffix: map_nan
    args: -case map_nan
    expect_error: the map inverts, degenerates or is not finite there

  test:
    suffix: map_after_setup
    args: -case map_after_setup
    expect_error: the geometry and coefficient of a DMQBOX are set before DMSetUp()

  test:
    suffix: vpatch_mapped_kernel_cuda
    requires: cuda
    args: -case vpatch_mapped -dm_vec_type cuda -pc_vpatch_kernel fused
    expect_error: use -pc_vpatch_kernel global (the default here)

  test:
    suffix: vpatch_mapped_dense_cuda
    requires: cuda
    args: -case vpatch_mapped -dm_vec_type cuda -pc_vpatch_local_solver dense
    expect_error: runs on the CPU only

  test:
    suffix: vpatch_mapped_profile_2d
    args: -case vpatch_mapped -pc_vpatch_surrogate profile
    expect_error: surrogate profile is built in 3D for the stiffness alone

  test:
    suffix: vpatch_mapped_cg_single_cuda
    requires: cuda
    args: -case vpatch_mapped -dm_vec_type cuda -pc_vpatch_local_solver cg -pc_vpatch_precision single
    expect_error: local solver cg on the GPU computes in single precision only in the patch kernel

  test:
    suffix: setter_on_dmda
    args: -case setter_on_dmda
    expect_error: DMQBoxSetDegree() needs a DM of type qbox, not da

  test:
    suffix: cells_3_values_in_2d
    args: -case options -dm_qbox_cells 4,4,4
    expect_error: -dm_qbox_cells takes 1 or 2 values (in 2D: -dm_qbox_dim sets the dimension), got 3

  test:
    suffix: lower_3_values_in_2d
    args: -case options -dm_qbox_lower 0,0,0
    expect_error: -dm_qbox_lower takes 2 values (in 2D), got 3

  test:
    suffix: procs_3_values_in_2d
    args: -case options -dm_qbox_procs 1,1,1
    expect_error: -dm_qbox_procs takes 2 values (processes per direction), got 3

  test:
    suffix: procs_wrong_product
    nsize: 2
    args: -case options -dm_qbox_procs 2,2
    expect_error: -dm_qbox_procs 2,2,1 is a grid of 4 processes, the communicator has 2

  test:
    suffix: procs_more_than_cells
    nsize: 2
    args: -case options -dm_qbox_procs 1,2 -dm_qbox_cells 4,1
    expect_error: -dm_qbox_procs: 2 processes along direction 1 of 1 cells

  test:
    suffix: vpatch_damping_zero
    args: -case vpatch_option -pc_vpatch_damping 0
    expect_error: PCVPATCH damping (-pc_vpatch_damping) must be in (0, 1], got 0.

  test:
    suffix: vpatch_damping_negative
    args: -case vpatch_option -pc_vpatch_damping -5
    expect_error: PCVPATCH damping (-pc_vpatch_damping) must be in (0, 1], got -5.

  test:
    suffix: vpatch_colors_repeated
    args: -case vpatch_option -pc_vpatch_colors 0,1,2,3,4,5,6,6
    expect_error: entry 7 is 6; the order must give each of 0..7 once

  test:
    suffix: vpatch_colors_count
    args: -case vpatch_option -pc_vpatch_colors 0,1,2
    expect_error: 3 colors given; give all 4 (2D) or 8 (3D) colors once each

  test:
    suffix: oddcoarsen_options
    args: -case oddcoarsen -dm_qbox_cells 3
    expect_error: even number of cells

TEST*/
