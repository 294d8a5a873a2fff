static char help[] = "Discontinuous Galerkin: the Poisson problem -Laplace u = f on the unit square or cube, u = prod_i sin(pi x_i),\n\
discretized by the symmetric interior penalty method (SIPG, Nitsche terms for u = 0 on the boundary) on the\n\
discontinuous Q_k space of a DMQBOX (-dm_qbox_dg, penalty -dm_qbox_dg_penalty C: sigma = C k (k+1) / h), solved by\n\
CG with PCMG over the whole DMQBOX hierarchy (the matrix-free SIPG operator on every level, the embedding between\n\
them). Default smoother: the DG vertex patches (-mg_levels_pc_type vpatch, exact patch solves by fast\n\
diagonalization); -mg_levels_pc_type jacobi -mg_levels_ksp_type chebyshev gives PETSc's Chebyshev-Jacobi on the same\n\
operator. Solves on the mesh of the options and on -refinements uniform refinements of it; prints unknowns,\n\
levels, iterations, the true relative residual, the L2 error and its rate; exits with status 1 when a solve did not\n\
converge. Any number of MPI ranks (the iterates of one rank); CPU or CUDA vectors (-dm_vec_type cuda).\n\n";

#include <petscvpatch.h>

static PetscErrorCode Exact(PetscInt dim, const PetscReal x[], PetscScalar *u, PetscScalar du[], void *ctx)
{
  PetscFunctionBeginUser;
  (void)ctx;
  *u = 1.0;
  for (PetscInt d = 0; d < dim; d++) *u *= PetscSinReal(PETSC_PI * x[d]);
  if (du)
    for (PetscInt d = 0; d < dim; d++) {
      du[d] = PETSC_PI * PetscCosReal(PETSC_PI * x[d]);
      for (PetscInt e = 0; e < dim; e++)
        if (e != d) du[d] *= PetscSinReal(PETSC_PI * x[e]);
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Source(PetscInt dim, const PetscReal x[], PetscScalar *f, PetscScalar du[], void *ctx)
{
  PetscFunctionBeginUser;
  (void)du;
  PetscCall(Exact(dim, x, f, NULL, ctx));
  *f *= dim * PETSC_PI * PETSC_PI;
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt  dim = 2, cells[3] = {2, 2, 2}, k = 2, refinements = 2;
  PetscReal prev   = 0;
  PetscBool failed = PETSC_FALSE, userlevels, check = PETSC_FALSE;
  DM        dm;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "ex4 options", NULL);
  PetscCall(PetscOptionsInt("-refinements", "Uniform refinements after the first solve (one solve each)", NULL, refinements, &refinements, NULL));
  PetscCall(PetscOptionsBool("-check_assembled", "Compare the operator with the assembled SIPG matrix (-dm_mat_type aij) on the solution", NULL, check, &check, NULL));
  PetscOptionsEnd();
  PetscCheck(refinements >= 0 && refinements <= 8, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-refinements must be in 0..8, got %" PetscInt_FMT, refinements);
  { /* the example's defaults, unless given: the DG space and the vertex-patch multigrid */
    const char *const defaults[][2] = {{"-dm_qbox_dg", "1"},
                                       {"-ksp_type", "cg"},
                                       {"-ksp_rtol", "1e-8"},
                                       {"-ksp_norm_type", "unpreconditioned"},
                                       {"-pc_type", "mg"},
                                       {"-mg_levels_ksp_type", "richardson"},
                                       {"-mg_levels_ksp_max_it", "1"},
                                       {"-mg_levels_pc_type", "vpatch"},
                                       {"-mg_coarse_ksp_type", "preonly"},
                                       {"-mg_coarse_pc_type", "vpatch"}};
    for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
      PetscBool set;
      PetscCall(PetscOptionsHasName(NULL, NULL, defaults[i][0], &set));
      if (!set) PetscCall(PetscOptionsSetValue(NULL, defaults[i][0], defaults[i][1]));
    }
  }
  PetscCall(PetscOptionsHasName(NULL, NULL, "-pc_mg_levels", &userlevels));
  PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, dim, cells, k, NULL, NULL, &dm));
  PetscCall(DMSetFromOptions(dm));
  PetscCall(DMSetUp(dm));
  for (PetscInt r = 0; r <= refinements; r++) {
    KSP                ksp;
    PC                 pc;
    Mat                A;
    Vec                x, b, res;
    PetscInt           its, N, levels = 1, kdeg, cdim;
    PetscBool          dg;
    PetscReal          rtol;
    PetscReal          l2, nr, nb;
    KSPConvergedReason reason;

    PetscCall(DMQBoxGetInfo(dm, &cdim, NULL, &kdeg, NULL, NULL));
    PetscCall(DMCreateGlobalVector(dm, &x));
    PetscCall(VecDuplicate(x, &b));
    PetscCall(VecDuplicate(x, &res));
    PetscCall(DMQBoxComputeRHS(dm, Source, NULL, NULL, b));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetDM(ksp, dm));
    PetscCall(KSPSetDMActive(ksp, KSP_DMACTIVE_RHS, PETSC_FALSE));
    if (!userlevels) { /* PCMG's levels: the coarsest keeps 2 cells per direction, where one vertex patch solves it */
      PetscInt c[3], L = 1;
      char     val[16];
      PetscCall(DMQBoxGetInfo(dm, NULL, c, NULL, NULL, NULL));
      for (PetscInt m = c[0]; m > 2 && m % 2 == 0; m /= 2) L++;
      PetscCall(PetscSNPrintf(val, sizeof(val), "%" PetscInt_FMT, L));
      PetscCall(PetscOptionsSetValue(NULL, "-pc_mg_levels", val));
    }
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(KSPGetPC(ksp, &pc));
    {
      PetscBool ismg;
      PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCMG, &ismg));
      if (ismg) PetscCall(PCMGGetLevels(pc, &levels));
    }
    PetscCall(KSPGetOperators(ksp, &A, NULL));
    PetscCall(MatResidual(A, b, x, res));
    PetscCall(VecNorm(res, NORM_2, &nr));
    PetscCall(VecNorm(b, NORM_2, &nb));
    PetscCall(VecGetSize(x, &N));
    PetscCall(DMQBoxComputeError(dm, x, Exact, NULL, &l2, NULL));
    if (check) { /* the operator (matrix-free by default) against the assembled SIPG matrix, on the solution */
      Mat       B;
      Vec       y1, y2;
      MatType   mt;
      PetscReal d, ny;
      PetscCall(DMGetMatType(dm, &mt));
      { /* mt points into the DM, which DMSetMatType() frees: a copy */
        char save[64];
        PetscCall(PetscStrncpy(save, mt, sizeof(save)));
        PetscCall(DMSetMatType(dm, MATAIJ));
        PetscCall(DMCreateMatrix(dm, &B));
        PetscCall(DMSetMatType(dm, save));
      }
      PetscCall(VecDuplicate(x, &y1));
      PetscCall(VecDuplicate(x, &y2));
      PetscCall(MatMult(A, x, y1));
      PetscCall(MatMult(B, x, y2));
      PetscCall(VecNorm(y1, NORM_INFINITY, &ny));
      PetscCall(VecAXPY(y2, -1.0, y1));
      PetscCall(VecNorm(y2, NORM_INFINITY, &d));
      PetscCheck(d <= 1e-12 * ny, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "ex4: the assembled SIPG matrix differs from the operator by %g (values up to %g)", (double)d, (double)ny);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  the assembled SIPG matrix equals the operator on the solution (difference below 1e-12 relative)\n"));
      PetscCall(VecDestroy(&y1));
      PetscCall(VecDestroy(&y2));
      PetscCall(MatDestroy(&B));
    }
    PetscCall(DMQBoxGetDiscontinuous(dm, &dg, NULL));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s Q_%" PetscInt_FMT " in %" PetscInt_FMT "D, %" PetscInt_FMT " %s, %" PetscInt_FMT " levels: %" PetscInt_FMT " iterations (%s), true relative residual %.1e, L2 error %.4e", dg ? "DG" : "continuous", kdeg,
                          cdim, N, dg ? "unknowns" : "nodes (boundary included)", levels, its, KSPConvergedReasons[reason], (double)(nr / nb), (double)l2));
    if (prev > 0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, ", rate %.2f", (double)PetscLog2Real(prev / l2)));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
    prev = l2;
    PetscCall(KSPGetTolerances(ksp, &rtol, NULL, NULL, NULL));
    if (reason < 0 || !(nr <= 10 * rtol * nb)) { /* the true residual within rtol (10 rtol for the drift of the recurrence) */
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, PETSC_STDERR, "ex4: the solve did not converge (%s after %" PetscInt_FMT " iterations, true relative residual %.2e)\n", KSPConvergedReasons[reason], its, (double)(nr / nb)));
      failed = PETSC_TRUE;
    }
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&res));
    if (failed) break;
    if (r < refinements) {
      DM rdm;
      PetscCall(DMRefine(dm, PETSC_COMM_WORLD, &rdm));
      PetscCall(DMDestroy(&dm));
      dm = rdm;
    }
  }
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}

/*TEST

  test:
    suffix: 2d_k2
    args: -refinements 3

  test:
    suffix: 3d_k3
    args: -dm_qbox_dim 3 -dm_qbox_cells 2 -dm_qbox_degree 3 -refinements 2

  test:
    suffix: 2d_k4_view
    args: -dm_qbox_degree 4 -refinements 2 -ksp_view
    rtol: 1e-2

  test:
    suffix: 2d_chebyshev_jacobi
    args: -refinements 3 -mg_levels_ksp_type chebyshev -mg_levels_ksp_max_it 2 -mg_levels_pc_type jacobi -mg_coarse_ksp_type cg -mg_coarse_pc_type jacobi -mg_coarse_ksp_rtol 1e-12

  test:
    suffix: k1_view_solution
    args: -dm_qbox_degree 1 -refinements 1 -ksp_view_solution

  # several ranks: the iterates of one rank (the same output)
  test:
    suffix: 2d_k2_c4
    args: -dm_qbox_cells 4 -refinements 2

  test:
    suffix: 2d_k2_c4_np2
    nsize: 2
    args: -dm_qbox_cells 4 -refinements 2
    output_file: ex4_2d_k2_c4

  test:
    suffix: 2d_k2_c4_np4
    nsize: 4
    args: -dm_qbox_cells 4 -refinements 2
    output_file: ex4_2d_k2_c4

  test:
    suffix: 3d_k3_c4
    args: -dm_qbox_dim 3 -dm_qbox_cells 4 -dm_qbox_degree 3 -refinements 1

  test:
    suffix: 3d_k3_c4_np4
    nsize: 4
    args: -dm_qbox_dim 3 -dm_qbox_cells 4 -dm_qbox_degree 3 -refinements 1
    output_file: ex4_3d_k3_c4

  test:
    suffix: view_np2
    nsize: 2
    args: -dm_qbox_cells 4 -refinements 0 -ksp_view_solution
    expect_error: runs on one MPI rank so far

  test:
    suffix: check_assembled_3d
    args: -dm_qbox_dim 3 -dm_qbox_cells 2 -dm_qbox_degree 2 -refinements 1 -check_assembled

  # the additive DG vertex-patch smoother (all patches on one residual, damping 1/2^d): Richardson, on 1 and 2 ranks
  # (the same iterates), and inside Chebyshev in 3D
  test:
    suffix: additive_2d
    args: -dm_qbox_cells 2 -dm_qbox_degree 2 -refinements 3 -mg_levels_pc_vpatch_type additive

  test:
    suffix: additive_2d_np2
    nsize: 2
    args: -dm_qbox_cells 2 -dm_qbox_degree 2 -refinements 3 -mg_levels_pc_vpatch_type additive

  test:
    suffix: additive_3d_chebyshev
    args: -dm_qbox_dim 3 -dm_qbox_cells 2 -dm_qbox_degree 2 -refinements 2 -mg_levels_pc_vpatch_type additive -mg_levels_ksp_type chebyshev -mg_levels_ksp_max_it 2

  # the assembled operator on several ranks (the columns of other ranks' cells)
  test:
    suffix: check_assembled_3d_np2
    nsize: 2
    args: -dm_qbox_dim 3 -dm_qbox_cells 2 -dm_qbox_degree 2 -refinements 1 -check_assembled

  test:
    suffix: check_assembled_2d_np3
    nsize: 3
    args: -dm_qbox_cells 6 -dm_qbox_degree 3 -refinements 1 -check_assembled

  test:
    suffix: check_assembled_3d_np4
    nsize: 4
    args: -dm_qbox_dim 3 -dm_qbox_cells 4 -dm_qbox_degree 2 -refinements 0 -check_assembled

  # the assembled operator: LU gives the L2 errors of the matrix-free multigrid solve (on 2 ranks through PCREDUNDANT)
  test:
    suffix: aij_lu_3d
    args: -dm_qbox_dim 3 -dm_qbox_cells 2 -dm_qbox_degree 2 -refinements 2 -dm_mat_type aij -ksp_type preonly -pc_type lu

  test:
    suffix: aij_lu_3d_np2
    nsize: 2
    args: -dm_qbox_dim 3 -dm_qbox_cells 2 -dm_qbox_degree 2 -refinements 2 -dm_mat_type aij -ksp_type preonly -pc_type redundant -redundant_pc_type lu -options_left 0

  # the CUDA kernels (-dm_vec_type cuda): the iterations and errors of the CPU runs (the same output files; atol: the
  # residuals of the exact coarse solves, about 1e-15, are round-off); the fused patch kernel on one rank, the global
  # one on two
  test:
    suffix: cuda_2d_k2
    requires: cuda
    args: -refinements 3 -dm_vec_type cuda
    atol: 1e-13
    output_file: ex4_2d_k2

  test:
    suffix: cuda_3d_k3
    requires: cuda
    args: -dm_qbox_dim 3 -dm_qbox_cells 2 -dm_qbox_degree 3 -refinements 2 -dm_vec_type cuda
    atol: 1e-13
    output_file: ex4_3d_k3

  test:
    suffix: cuda_3d_k3_c4_np2
    requires: cuda
    nsize: 2
    args: -dm_qbox_dim 3 -dm_qbox_cells 4 -dm_qbox_degree 3 -refinements 1 -dm_vec_type cuda
    output_file: ex4_3d_k3_c4

  test:
    suffix: cuda_additive_2d
    requires: cuda
    args: -dm_qbox_cells 2 -dm_qbox_degree 2 -refinements 3 -mg_levels_pc_vpatch_type additive -dm_vec_type cuda
    atol: 1e-13
    output_file: ex4_additive_2d

  test:
    suffix: cuda_2d_chebyshev_jacobi
    requires: cuda
    args: -refinements 3 -mg_levels_ksp_type chebyshev -mg_levels_ksp_max_it 2 -mg_levels_pc_type jacobi -mg_coarse_ksp_type cg -mg_coarse_pc_type jacobi -mg_coarse_ksp_rtol 1e-12 -dm_vec_type cuda
    atol: 1e-13
    output_file: ex4_2d_chebyshev_jacobi

  # mixed precision: the V-cycle's smoothers in float inside FGMRES; the L2 errors of the double solve
  test:
    suffix: cuda_3d_k3_mixed
    requires: cuda
    args: -dm_qbox_dim 3 -dm_qbox_cells 2 -dm_qbox_degree 3 -refinements 2 -dm_vec_type cuda -ksp_type fgmres -mg_levels_pc_vpatch_precision single
    atol: 1e-12

  # a kernel variant the DG space does not have
  test:
    suffix: cuda_separate
    requires: cuda
    args: -dm_vec_type cuda -mg_levels_pc_vpatch_kernel separate
    expect_error: not separate

TEST*/
