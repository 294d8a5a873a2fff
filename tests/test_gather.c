static char help[] = "Checks the coarse levels of DMQBOX gathered onto fewer ranks (-dm_qbox_gather, -dm_qbox_gather_cells, _stage): on\n\
several ranks the hierarchy is as deep as on one, the interpolation between a level and its gathered coarsening is\n\
the adjoint pair of its restriction and equals the one-rank interpolation, and a multigrid solve (KSPSetDM, PCMG,\n\
fixed iterations) gives the one-rank iterate to round-off.\n\
Options: -dim, -k, -cells (per direction), -expect_levels <n>, and the KSP's and DM's options.\n\n";

#include <petscvpatch.h>
#include <petscksp.h>
#include "vptest.h"

static PetscErrorCode Wiggle(PetscInt dim, const PetscReal x[], PetscScalar *u, PetscScalar du[], void *ctx)
{
  PetscFunctionBeginUser;
  (void)du;
  (void)ctx;
  *u = 1.0;
  for (PetscInt d = 0; d < dim; d++) *u *= PetscSinReal(PETSC_PI * x[d]) * (1.0 + 0.3 * PetscCosReal(5.0 * x[d] + d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a DMQBOX on comm, the right-hand side b = Wiggle, and the multigrid solve x of the options; its levels */
static PetscErrorCode Solve(MPI_Comm comm, PetscInt dim, const PetscInt cells[], PetscInt k, DM *dm, Vec *x, PetscInt *levels)
{
  const PetscReal lower[3] = {0, 0, 0}, upper[3] = {1.0, 0.8, 1.2};
  KSP             ksp;
  PC              pc;
  Vec             b;

  PetscFunctionBeginUser;
  PetscCall(DMQBoxCreate(comm, dim, cells, k, lower, upper, dm));
  PetscCall(DMSetFromOptions(*dm));
  PetscCall(DMSetUp(*dm));
  PetscCall(DMCreateGlobalVector(*dm, &b));
  PetscCall(VecDuplicate(b, x));
  PetscCall(DMQBoxProjectFunction(*dm, Wiggle, NULL, b));
  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetDM(ksp, *dm));
  PetscCall(KSPSetDMActive(ksp, KSP_DMACTIVE_RHS, PETSC_FALSE));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, *x));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCMGGetLevels(pc, levels));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt    dim = 3, k = 3, cells[3] = {8, 8, 8}, ncells = 3, expect = 0, lw, ls, mw, ms;
  DM          dmw, dms;
  Vec         xw, xs;
  PetscReal   diff, nrm;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscVPatchInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-k", &k, NULL));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-cells", cells, &ncells, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-expect_levels", &expect, NULL));

  /* the solve on every rank, and on one (each rank the whole problem) */
  PetscCall(Solve(PETSC_COMM_WORLD, dim, cells, k, &dmw, &xw, &lw));
  PetscCall(Solve(PETSC_COMM_SELF, dim, cells, k, &dms, &xs, &ls));
  PetscCall(DMQBoxGetMaxLevels(dmw, &mw));
  PetscCall(DMQBoxGetMaxLevels(dms, &ms));
  PetscCheck(lw == ls && mw == ms, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%d ranks: %" PetscInt_FMT " levels (max %" PetscInt_FMT "), one rank %" PetscInt_FMT " (max %" PetscInt_FMT ")", (int)size, lw, mw, ls, ms);
  PetscCheck(!expect || lw == expect, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT " levels, expected %" PetscInt_FMT, lw, expect);
  PetscCall(VPTestOwnedMaxDiff(dmw, xw, xs, &diff));
  PetscCall(VecNorm(xs, NORM_INFINITY, &nrm));
  PetscCheck(nrm > 0 && diff <= 1e-12 * nrm, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%d ranks: the multigrid iterate differs from one rank's by %g (max %g)", (int)size, (double)diff, (double)nrm);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "levels as on one rank; multigrid iterate equal to one rank's\n"));

  { /* the first coarsening: interpolation equal to one rank's, restriction its adjoint */
    DM          cw, cs;
    Mat         Pw, Ps;
    Vec         uc, uf, vc, vf, ucs, ufs;
    PetscScalar a, b;
    PetscReal   s = 0.6;

    PetscCall(DMCoarsen(dmw, PETSC_COMM_WORLD, &cw));
    PetscCall(DMCoarsen(dms, PETSC_COMM_SELF, &cs));
    PetscCall(DMCreateInterpolation(cw, dmw, &Pw, NULL));
    PetscCall(DMCreateInterpolation(cs, dms, &Ps, NULL));
    PetscCall(DMCreateGlobalVector(cw, &uc));
    PetscCall(DMCreateGlobalVector(dmw, &uf));
    PetscCall(VecDuplicate(uc, &vc));
    PetscCall(VecDuplicate(uf, &vf));
    PetscCall(DMCreateGlobalVector(cs, &ucs));
    PetscCall(DMCreateGlobalVector(dms, &ufs));
    PetscCall(DMQBoxProjectFunction(cw, Wiggle, &s, uc));
    PetscCall(DMQBoxProjectFunction(cs, Wiggle, &s, ucs));
    PetscCall(MatMult(Pw, uc, uf));
    PetscCall(MatMult(Ps, ucs, ufs));
    PetscCall(VPTestOwnedMaxDiff(dmw, uf, ufs, &diff));
    PetscCall(VecNorm(ufs, NORM_INFINITY, &nrm));
    PetscCheck(nrm > 0 && diff <= 1e-13 * nrm, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "interpolation differs from one rank's by %g (max %g)", (double)diff, (double)nrm);
    PetscCall(MatMultAdd(Pw, uc, uf, uf)); /* in place: twice the interpolant */
    PetscCall(VecScale(ufs, 2.0));
    PetscCall(VPTestOwnedMaxDiff(dmw, uf, ufs, &diff));
    PetscCheck(diff <= 2e-13 * nrm, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "MatMultAdd of the interpolation differs from twice one rank's by %g", (double)diff);
    PetscCall(DMQBoxProjectFunction(dmw, Wiggle, NULL, vf));
    PetscCall(MatMultTranspose(Pw, vf, vc));
    PetscCall(MatMult(Pw, uc, uf));
    PetscCall(VecDot(uf, vf, &a)); /* (P u, v) = (u, P^T v) */
    PetscCall(VecDot(uc, vc, &b));
    PetscCheck(PetscAbsScalar(a - b) <= 1e-13 * PetscAbsScalar(a), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "restriction is not the adjoint of the interpolation: %g vs %g", (double)PetscRealPart(a), (double)PetscRealPart(b));
    PetscCall(VecCopy(vc, uc));
    PetscCall(MatMultTransposeAdd(Pw, vf, uc, uc)); /* in place: twice */
    PetscCall(VecAXPY(uc, -2.0, vc));
    PetscCall(VecNorm(uc, NORM_INFINITY, &diff));
    PetscCall(VecNorm(vc, NORM_INFINITY, &nrm));
    PetscCheck(diff <= 1e-13 * nrm, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "MatMultTransposeAdd differs from twice the restriction by %g", (double)diff);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "first coarsening: interpolation equal to one rank's, restriction its adjoint\n"));
    PetscCall(MatDestroy(&Pw));
    PetscCall(MatDestroy(&Ps));
    PetscCall(VecDestroy(&uc));
    PetscCall(VecDestroy(&uf));
    PetscCall(VecDestroy(&vc));
    PetscCall(VecDestroy(&vf));
    PetscCall(VecDestroy(&ucs));
    PetscCall(VecDestroy(&ufs));
    PetscCall(DMDestroy(&cw));
    PetscCall(DMDestroy(&cs));
  }
  PetscCall(VecDestroy(&xw));
  PetscCall(VecDestroy(&xs));
  PetscCall(DMDestroy(&dmw));
  PetscCall(DMDestroy(&dms));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # the solve: 3 V-cycles (Richardson), no convergence test, so that the iterate itself is compared
  test:
    suffix: 3d_np2
    nsize: 2
    args: -options_file share/vpatch-mg.options -ksp_type richardson -ksp_max_it 3 -ksp_norm_type none -ksp_convergence_test skip -expect_levels 4
    output_file: test_gather

  test:
    suffix: 3d_np3_forced
    nsize: 3
    args: -options_file share/vpatch-mg.options -ksp_type richardson -ksp_max_it 3 -ksp_norm_type none -ksp_convergence_test skip -dm_qbox_gather_cells 0 -cells 8,8,12
    output_file: test_gather

  test:
    suffix: 3d_np4_columns_redundant_lu
    nsize: 4
    args: -options_file share/vpatch-mg.options -ksp_type richardson -ksp_max_it 2 -ksp_norm_type none -ksp_convergence_test skip -dm_qbox_gather_cells 0 -k 2 -mg_coarse_ksp_type preonly -mg_coarse_pc_type redundant -mg_coarse_redundant_pc_type lu -options_left false
    output_file: test_gather

  test:
    suffix: 2d_np3_k5
    nsize: 3
    args: -options_file share/vpatch-mg.options -ksp_type richardson -ksp_max_it 3 -ksp_norm_type none -ksp_convergence_test skip -dim 2 -k 5 -cells 16,12 -dm_qbox_gather_cells 20
    output_file: test_gather

  # in stages: 24^3 cells on 27 ranks (3 x 3 x 3), the levels below on 4 ranks, then 1 (-dm_qbox_gather_stage 8)
  test:
    suffix: 3d_np27_stages
    nsize: 27
    args: -options_file share/vpatch-mg.options -ksp_type richardson -ksp_max_it 3 -ksp_norm_type none -ksp_convergence_test skip -cells 24,24,24 -k 2 -dm_qbox_gather_cells 100000
    output_file: test_gather

  test:
    suffix: 3d_np2_cuda
    nsize: 2
    requires: cuda
    args: -options_file share/vpatch-mg.options -ksp_type richardson -ksp_max_it 3 -ksp_norm_type none -ksp_convergence_test skip -dm_vec_type cuda -expect_levels 4
    output_file: test_gather

TEST*/
