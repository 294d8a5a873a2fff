static char help[] = "Poisson problem -Laplace u = f on the unit square or cube with Q_k elements of a DMQBOX.\n\
Exact solution u = prod_i sin(pi x_i) (or, with -exact exp, u = exp(x) sin(y) [sin(z)], inhomogeneous Dirichlet data).\n\
Prints the unknowns, the solver (levels, smoothers), the iterations, the final true relative residual and the\n\
L2 error where the exact solution is that of the problem (the unit box, no map or coefficient; -timing: also the\n\
set-up and solve times); exits with status 1 when the solve did not converge or the true relative residual is above\n\
10 -ksp_rtol (the drift of the Krylov recurrence allowed).\n\
Default solver: CG with PCMG over the whole DMQBOX hierarchy and Chebyshev-Jacobi level smoothers; the vertex-patch\n\
multigrid: -options_file share/vpatch-mg.options (make run). Everything can be changed by options.\n\n";

#include <petscvpatch.h>

typedef enum {
  EXACT_SIN,
  EXACT_EXP
} ExactType;
static const char *const ExactTypes[] = {"sin", "exp", "ExactType", "EXACT_", NULL};

typedef struct {
  ExactType type;
  PetscReal mass, stiff; /* the DM's operator mass M + stiff K (-dm_qbox_operator_mass, -dm_qbox_operator_stiffness) */
} AppCtx;

static PetscErrorCode ExactSolution(PetscInt dim, const PetscReal x[], PetscScalar *u, PetscScalar du[], void *ctx)
{
  ExactType type = ((AppCtx *)ctx)->type;

  PetscFunctionBeginUser;
  if (type == EXACT_SIN) {
    *u = 1.0;
    for (PetscInt d = 0; d < dim; d++) *u *= PetscSinReal(PETSC_PI * x[d]);
    if (du)
      for (PetscInt d = 0; d < dim; d++) {
        du[d] = PETSC_PI * PetscCosReal(PETSC_PI * x[d]);
        for (PetscInt e = 0; e < dim; e++)
          if (e != d) du[d] *= PetscSinReal(PETSC_PI * x[e]);
      }
  } else {
    PetscReal s = dim == 3 ? PetscSinReal(x[2]) : 1.0;
    *u          = PetscExpReal(x[0]) * PetscSinReal(x[1]) * s;
    if (du) {
      du[0] = *u;
      du[1] = PetscExpReal(x[0]) * PetscCosReal(x[1]) * s;
      if (dim == 3) du[2] = PetscExpReal(x[0]) * PetscSinReal(x[1]) * PetscCosReal(x[2]);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Source(PetscInt dim, const PetscReal x[], PetscScalar *f, PetscScalar du[], void *ctx)
{
  const AppCtx *app = (AppCtx *)ctx;

  PetscFunctionBeginUser;
  (void)du;
  PetscCall(ExactSolution(dim, x, f, NULL, ctx));
  if (app->type == EXACT_SIN) /* (mass M + stiff K) u = f: f = (mass + stiff d pi^2) u */
    *f *= app->mass + app->stiff * dim * PETSC_PI * PETSC_PI;
  else
    *f = dim == 3 ? *f : 0.0; /* -Laplace(e^x sin y) = 0, -Laplace(e^x sin y sin z) = e^x sin y sin z */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Options this example sets as defaults unless the user gave them */
static PetscErrorCode SetDefaultOption(const char name[], const char value[])
{
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsHasName(NULL, NULL, name, &set));
  if (!set) PetscCall(PetscOptionsSetValue(NULL, name, value));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One line on the solver: Krylov method, preconditioner, and for PCMG the levels used and the smoothers */
static PetscErrorCode PrintSolver(KSP ksp, DM dm)
{
  PC        pc;
  KSPType   kt;
  PCType    pt;
  PetscBool ismg;

  PetscFunctionBeginUser;
  PetscCall(KSPGetType(ksp, &kt));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCGetType(pc, &pt));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCMG, &ismg));
  if (ismg) {
    PetscInt levels;
    KSP      s, c;
    PC       spc, cpc;
    KSPType  st, ct;
    PCType   sp, cp;

    PetscCall(PCMGGetLevels(pc, &levels));
    PetscCall(PCMGGetCoarseSolve(pc, &c));
    PetscCall(KSPGetType(c, &ct));
    PetscCall(KSPGetPC(c, &cpc));
    PetscCall(PCGetType(cpc, &cp));
    if (levels > 1) {
      PetscCall(PCMGGetSmoother(pc, levels - 1, &s));
      PetscCall(KSPGetType(s, &st));
      PetscCall(KSPGetPC(s, &spc));
      PetscCall(PCGetType(spc, &sp));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solver: %s + %s, %" PetscInt_FMT " levels, smoother %s + %s, coarse solve %s + %s\n", kt, pt, levels, st, sp, ct, cp));
    } else { /* one level: PCMG is then its coarse solve alone; say why there is no hierarchy */
      PetscInt maxlevels, cells[3], dim;
      char     mesh[64];
      PetscCall(DMQBoxGetMaxLevels(dm, &maxlevels));
      PetscCall(DMQBoxGetInfo(dm, &dim, cells, NULL, NULL, NULL));
      PetscCall(PetscSNPrintf(mesh, sizeof(mesh), dim == 3 ? "%" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT : "%" PetscInt_FMT " x %" PetscInt_FMT, cells[0], cells[1], cells[2]));
      if (maxlevels == 1)
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solver: %s + %s, 1 level (no coarser mesh: %s cells, an odd count cannot be halved), coarse solve %s + %s\n", kt, pt, mesh, ct, cp));
      else
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solver: %s + %s, 1 level (-pc_mg_levels 1; the mesh allows %" PetscInt_FMT "), coarse solve %s + %s\n", kt, pt, maxlevels, ct, cp));
    }
  } else
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solver: %s + %s\n", kt, pt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM                    dm;
  KSP                   ksp;
  PC                    pc;
  Mat                   A;
  Vec                   u, b, r;
  PetscInt              dim = 2, cells[3] = {16, 16, 16}, k = 2, its;
  PetscReal             l2, h1, rnorm, bnorm;
  PetscLogDouble        t0, t1, t2;
  AppCtx                app = {EXACT_SIN, 0.0, 1.0};
  PetscBool             isexact, dg;
  DMQBoxMappingType     map;
  DMQBoxCoefficientType coef;
  PetscReal             lower[3], upper[3];
  PetscBool             checkcopies = PETSC_FALSE, timing = PETSC_FALSE;
  KSPConvergedReason    reason;
  PetscBool             failed;
  VecType               vtype;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscVPatchInitializePackage());
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "ex1 options", NULL);
  PetscCall(PetscOptionsEnum("-exact", "Exact solution", NULL, ExactTypes, (PetscEnum)app.type, (PetscEnum *)&app.type, NULL));
  PetscCall(PetscOptionsBool("-check_gpu_copies", "Fail if KSPSolve copies more than Krylov scalars between host and device", NULL, checkcopies, &checkcopies, NULL));
  PetscCall(PetscOptionsBool("-timing", "Print the set-up and solve times (KSPSetUp, KSPSolve)", NULL, timing, &timing, NULL));
  PetscOptionsEnd();

  PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, dim, cells, k, NULL, NULL, &dm));
  PetscCall(DMSetFromOptions(dm));
  PetscCall(DMSetUp(dm));
  PetscCall(DMViewFromOptions(dm, NULL, "-dm_view"));
  PetscCall(DMQBoxGetInfo(dm, &dim, cells, &k, lower, upper));
  PetscCall(DMQBoxGetOperatorWeights(dm, &app.mass, &app.stiff));
  PetscCall(DMQBoxGetMappingType(dm, &map));
  PetscCall(DMQBoxGetCoefficientType(dm, &coef));
  PetscCall(DMQBoxGetDiscontinuous(dm, &dg, NULL));
  /* the exact solution is that of this problem only without a map or a coefficient; sin also needs the unit box (u = 0 on
     its boundary), exp the operator -Laplace (its Dirichlet data and f = -Laplace u) */
  isexact = (PetscBool)(map == DMQBOX_MAPPING_NONE && coef == DMQBOX_COEFFICIENT_ONE);
  for (PetscInt d = 0; d < dim; d++) isexact = (PetscBool)(isexact && (app.type == EXACT_EXP || (lower[d] == 0 && upper[d] == 1)));
  if (app.type == EXACT_EXP) isexact = (PetscBool)(isexact && app.mass == 0 && app.stiff == 1);

  PetscCall(DMCreateGlobalVector(dm, &u));
  PetscCall(VecDuplicate(u, &b));
  PetscCall(VecDuplicate(u, &r));
  PetscCall(PetscObjectSetName((PetscObject)u, "u"));
  PetscCall(DMQBoxComputeRHS(dm, Source, app.type == EXACT_EXP ? ExactSolution : NULL, &app, b));

  {
    char pctype[64] = PCMG;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-pc_type", pctype, sizeof(pctype), NULL));
    if (!strcmp(pctype, PCMG)) { /* this example's multigrid defaults, where PCMG runs */
      PetscCall(SetDefaultOption("-mg_levels_pc_type", "jacobi"));
      PetscCall(SetDefaultOption("-mg_coarse_ksp_type", "cg"));
      PetscCall(SetDefaultOption("-mg_coarse_pc_type", "jacobi"));
      PetscCall(SetDefaultOption("-mg_coarse_ksp_rtol", "1e-12"));
      PetscCall(SetDefaultOption("-mg_coarse_ksp_max_it", "1000"));
    }
  }
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetDM(ksp, dm));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCMG)); /* with no -pc_mg_levels, PCMG takes the whole DMQBOX hierarchy (DMGetRefineLevel()) */
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, PETSC_CURRENT));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetDMActive(ksp, KSP_DMACTIVE_RHS, PETSC_FALSE));
  if (checkcopies) PetscCall(PetscLogDefaultBegin());
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSetUp(ksp)); /* set-up (operators, eigen-estimates, device copies of 1D matrices) stays out of the check */
  PetscCall(PetscTime(&t1));
  PetscCall(KSPSolve(ksp, b, u));
  PetscCall(VecNorm(u, NORM_2, &l2)); /* a reduction: the device has finished the solve */
  PetscCall(PetscTime(&t2));
  if (checkcopies) { /* on the GPU the solve may move Krylov scalars to the host, nothing else */
    PetscLogEvent      ev;
    PetscEventPerfInfo info;
    PetscCall(PetscLogEventGetId("KSPSolve", &ev));
    PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &info));
    PetscCheck(info.CpuToGpuCount == 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "KSPSolve copied %g times (%g bytes) from host to device", info.CpuToGpuCount, info.CpuToGpuSize);
    PetscCheck(info.GpuToCpuCount == 0 || info.GpuToCpuSize <= 64 * info.GpuToCpuCount, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "KSPSolve copied %g bytes in %g copies from device to host: more than scalars", info.GpuToCpuSize, info.GpuToCpuCount);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "KSPSolve host-device copies: %g to device, %g to host (%g bytes): Krylov scalars only\n", info.CpuToGpuCount, info.GpuToCpuCount, info.GpuToCpuSize));
  }
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetOperators(ksp, &A, NULL));
  PetscCall(MatMult(A, u, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &rnorm));
  PetscCall(VecNorm(b, NORM_2, &bnorm));
  { /* converged: a positive reason and the true residual within rtol. KSPRICHARDSON over PCMG reports reaching -ksp_max_it
       as KSP_CONVERGED_ITS; a preconditioned or no norm can stop with a true residual far above rtol. The recurrence of
       CG or GMRES drifts from the true residual by round-off: 10 rtol allows for it. */
    PetscReal rtol;
    PetscCall(KSPGetTolerances(ksp, &rtol, NULL, NULL, NULL));
    failed = (PetscBool)(reason < 0 || !(rnorm <= 10 * rtol * bnorm));
  }
  if (isexact) PetscCall(DMQBoxComputeError(dm, u, ExactSolution, &app, &l2, &h1));
  PetscCall(VecGetType(u, &vtype));
  {
    PetscInt ndof = 1, nunk = 1;
    char     op[64] = "Poisson";
    for (PetscInt d = 0; d < dim; d++) {
      ndof *= dg ? cells[d] * (k + 1) : cells[d] * k + 1;
      nunk *= dg ? cells[d] * (k + 1) : cells[d] * k - 1; /* the discontinuous space: every node is an unknown */
    }
    if (app.mass != 0 || app.stiff != 1) (void)snprintf(op, sizeof(op), "%g M + %g K", (double)app.mass, (double)app.stiff); /* C's %g: PETSc's prints 10 as "10." */
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%sQ_%" PetscInt_FMT " %s in %" PetscInt_FMT "D: %" PetscInt_FMT " unknowns (%" PetscInt_FMT " nodes)\n", dg ? "DG " : "", k, op, dim, nunk, ndof));
  }
  PetscCall(PrintSolver(ksp, dm));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "iterations %" PetscInt_FMT " (%s), true relative residual %.2e\n", its, KSPConvergedReasons[reason], (double)(rnorm / bnorm)));
  if (isexact)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "L2 error %.4e, H1 error %.4e\n", (double)l2, (double)h1));
  else
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "no L2 error: u = %s is not the solution of this problem (%s)\n", app.type == EXACT_SIN ? "prod sin(pi x_i)" : "exp(x) sin(y) [sin(z)]",
                          map != DMQBOX_MAPPING_NONE       ? "a map"
                          : coef != DMQBOX_COEFFICIENT_ONE ? "a coefficient"
                          : app.type == EXACT_SIN          ? "not the unit box"
                                                           : "a mass term"));
  if (timing) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "time (vectors %s): set-up %.3f s, solve %.3f s\n", vtype, (double)(t1 - t0), (double)(t2 - t1)));
  PetscCall(VecViewFromOptions(u, NULL, "-sol_view"));

  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&r));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(DMDestroy(&dm));
  if (failed) PetscCall(PetscFPrintf(PETSC_COMM_WORLD, PETSC_STDERR, "ex1: the solve did not converge (%s after %" PetscInt_FMT " iterations, relative residual %.2e)\n", KSPConvergedReasons[reason], its, (double)(rnorm / bnorm)));
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}

/*TEST

  test:
    suffix: 2d_k2

  test:
    suffix: 2d_k4
    args: -dm_qbox_degree 4 -dm_qbox_cells 8

  test:
    suffix: 3d_k3
    args: -dm_qbox_dim 3 -dm_qbox_degree 3 -dm_qbox_cells 4

  test:
    suffix: 2d_exp_par
    nsize: 3
    args: -exact exp -dm_qbox_degree 3 -dm_qbox_cells 8

  test:
    suffix: 2d_vpatch_options_file
    args: -options_file share/vpatch-mg.options -dm_qbox_degree 3 -dm_qbox_cells 16

  # the coarse levels gathered in stages (-dm_qbox_gather_stage, default 8) onto 8 or 4 ranks, then one: the iterates of
  # one rank on 8, 27 and 64 (tests/test_dm.c checks the stages themselves)
  test:
    suffix: 3d_gather
    args: -options_file share/vpatch-mg.options -dm_qbox_dim 3 -dm_qbox_degree 2 -dm_qbox_cells 24 -dm_qbox_gather_cells 100000

  test:
    suffix: 3d_gather_np8
    nsize: 8
    args: -options_file share/vpatch-mg.options -dm_qbox_dim 3 -dm_qbox_degree 2 -dm_qbox_cells 24 -dm_qbox_gather_cells 100000
    output_file: ex1_3d_gather

  test:
    suffix: 3d_gather_np27
    nsize: 27
    args: -options_file share/vpatch-mg.options -dm_qbox_dim 3 -dm_qbox_degree 2 -dm_qbox_cells 24 -dm_qbox_gather_cells 100000
    output_file: ex1_3d_gather

  test:
    suffix: 3d_gather_np27_factor2
    nsize: 27
    args: -options_file share/vpatch-mg.options -dm_qbox_dim 3 -dm_qbox_degree 2 -dm_qbox_cells 24 -dm_qbox_gather_cells 100000 -dm_qbox_gather_stage 2
    output_file: ex1_3d_gather

  test:
    suffix: 3d_gather_np64
    nsize: 64
    args: -options_file share/vpatch-mg.options -dm_qbox_dim 3 -dm_qbox_degree 2 -dm_qbox_cells 24 -dm_qbox_gather_cells 100000
    output_file: ex1_3d_gather

  # ex1.py's tests compare with these two too
  test:
    suffix: 3d_shell_oscillatory
    args: -options_file share/vpatch-mg.options -dm_qbox_dim 3 -dm_qbox_degree 2 -dm_qbox_cells 4 -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory

  # two ranks, the coarse levels gathered onto one (the other owns no cell there), the scaled local solver with each
  # patch's own damping and (CUDA) the patch kernel on several ranks: the CPU's iterations
  test:
    suffix: 3d_shell_oscillatory_np2
    nsize: 2
    args: -options_file share/vpatch-mg.options -dm_qbox_dim 3 -dm_qbox_degree 3 -dm_qbox_cells 16 -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_coefficient_contrast 1e2

  test:
    suffix: 3d_shell_oscillatory_np2_cuda
    requires: cuda
    nsize: 2
    args: -options_file share/vpatch-mg.options -dm_qbox_dim 3 -dm_qbox_degree 3 -dm_qbox_cells 16 -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_coefficient_contrast 1e2 -dm_vec_type cuda
    output_file: ex1_3d_shell_oscillatory_np2

  # the vector operations of ranks past 2^31 - 1 values (-dm_qbox_vec_long: on every vector) inside GMRES and PCMG on
  # 2 ranks, and inside CG: the same output as PETSc's own operations
  test:
    suffix: 3d_shell_oscillatory_np2_cuda_veclong
    requires: cuda
    nsize: 2
    args: -options_file share/vpatch-mg.options -dm_qbox_dim 3 -dm_qbox_degree 3 -dm_qbox_cells 16 -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_coefficient_contrast 1e2 -dm_vec_type cuda -dm_qbox_vec_long
    output_file: ex1_3d_shell_oscillatory_np2

  # CG with a symmetric sweep of the scaled local solver: each patch's damping from 5 Lanczos steps keeps the
  # preconditioner positive definite (with 3, -pc_vpatch_local_damping_steps 3, CG stops with DIVERGED_INDEFINITE_PC)
  test:
    suffix: 3d_shell_cg_symmetric
    args: -dm_qbox_dim 3 -dm_qbox_degree 4 -dm_qbox_cells 10 -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_coefficient_contrast 1e4 -ksp_type cg -pc_type vpatch -pc_vpatch_sweep symmetric

  test:
    suffix: 3d_shell_cg_symmetric_cuda
    requires: cuda
    args: -dm_qbox_dim 3 -dm_qbox_degree 4 -dm_qbox_cells 10 -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_coefficient_contrast 1e4 -ksp_type cg -pc_type vpatch -pc_vpatch_sweep symmetric -dm_vec_type cuda
    output_file: ex1_3d_shell_cg_symmetric

  test:
    suffix: 3d_shell_cg_symmetric_cuda_veclong
    requires: cuda
    args: -dm_qbox_dim 3 -dm_qbox_degree 4 -dm_qbox_cells 10 -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_coefficient_contrast 1e4 -ksp_type cg -pc_type vpatch -pc_vpatch_sweep symmetric -dm_vec_type cuda -dm_qbox_vec_long
    output_file: ex1_3d_shell_cg_symmetric

  test:
    suffix: 2d_mass
    args: -options_file share/vpatch-mg.options -dm_qbox_degree 3 -dm_qbox_cells 16 -dm_qbox_operator_mass 10

  test:
    suffix: 3d_vpatch_cg_symmetric
    args: -options_file share/vpatch-mg.options -ksp_type cg -mg_levels_pc_vpatch_sweep symmetric -dm_qbox_dim 3 -dm_qbox_degree 2 -dm_qbox_cells 4

  test:
    suffix: 3d_vpatch_cg_fwd_bwd
    args: -options_file share/vpatch-mg.options -ksp_type cg -pc_mg_distinct_smoothup -mg_levels_up_ksp_type richardson -mg_levels_up_ksp_max_it 1 -mg_levels_up_pc_type vpatch -mg_levels_up_pc_vpatch_sweep backward -dm_qbox_dim 3 -dm_qbox_degree 2 -dm_qbox_cells 4

  test:
    suffix: 3d_vpatch_richardson
    args: -options_file share/vpatch-mg.options -ksp_type richardson -dm_qbox_dim 3 -dm_qbox_degree 3 -dm_qbox_cells 8

  test:
    suffix: 3d_vpatch_richardson_max_it
    args: -options_file share/vpatch-mg.options -ksp_type richardson -dm_qbox_dim 3 -dm_qbox_degree 3 -dm_qbox_cells 8 -ksp_max_it 2
    expect_error: the solve did not converge

  test:
    suffix: 3d_vpatch_richardson_np2
    nsize: 2
    args: -options_file share/vpatch-mg.options -ksp_type richardson -exact exp -dm_qbox_dim 3 -dm_qbox_degree 3 -dm_qbox_cells 8

  test:
    suffix: 2d_vpatch_np3
    nsize: 3
    args: -options_file share/vpatch-mg.options -dm_qbox_degree 2 -dm_qbox_cells 8 -ksp_view
    rtol: 1e-2

  test:
    suffix: 3d_np3_telescope
    nsize: 3
    args: -options_file share/vpatch-mg.options -dm_qbox_dim 3 -dm_qbox_degree 3 -dm_qbox_cells 8 -mg_coarse_ksp_type preonly -mg_coarse_pc_type telescope -mg_coarse_pc_telescope_ignore_dm -mg_coarse_pc_telescope_reduction_factor 3 -mg_coarse_telescope_ksp_type preonly -mg_coarse_telescope_pc_type lu

  # PCAUXAMG as the coarse solver of the vertex-patch multigrid: it takes the assembled copy of the matrix-free coarse
  # operator and the coarse DM's nodes by itself; the same coarse iterations on 1 and 2 ranks and with CUDA vectors
  test:
    suffix: 3d_coarse_auxamg
    args: -options_file share/vpatch-mg.options -dm_qbox_dim 3 -dm_qbox_degree 3 -dm_qbox_cells 16 -pc_mg_levels 2 -mg_coarse_ksp_type fcg -mg_coarse_ksp_rtol 1e-10 -mg_coarse_pc_type auxamg -mg_coarse_ksp_converged_reason

  test:
    suffix: 3d_coarse_auxamg_np2
    nsize: 2
    args: -options_file share/vpatch-mg.options -dm_qbox_dim 3 -dm_qbox_degree 3 -dm_qbox_cells 16 -pc_mg_levels 2 -mg_coarse_ksp_type fcg -mg_coarse_ksp_rtol 1e-10 -mg_coarse_pc_type auxamg -mg_coarse_ksp_converged_reason
    output_file: ex1_3d_coarse_auxamg

  test:
    suffix: 3d_coarse_auxamg_cuda
    requires: cuda
    args: -options_file share/vpatch-mg.options -dm_qbox_dim 3 -dm_qbox_degree 3 -dm_qbox_cells 16 -pc_mg_levels 2 -mg_coarse_ksp_type fcg -mg_coarse_ksp_rtol 1e-10 -mg_coarse_pc_type auxamg -mg_coarse_ksp_converged_reason -dm_vec_type cuda
    output_file: ex1_3d_coarse_auxamg

  # at k = 7 the Gauss-Lobatto nodes crowd at the cells' faces (27 in the fullest cell of the uniform grid): the default
  # keeps the uniform grid (13 coarse iterations; the adaptive tree would take 17-18)
  test:
    suffix: 3d_k7_coarse_auxamg
    args: -options_file share/vpatch-mg.options -dm_qbox_dim 3 -dm_qbox_degree 7 -dm_qbox_cells 4 -pc_mg_levels 2 -mg_coarse_ksp_type fcg -mg_coarse_ksp_rtol 1e-10 -mg_coarse_pc_type auxamg -mg_coarse_ksp_converged_reason

  # PCAUXAMG alone on the matrix-free operator (its assembled copy, the DM's nodes); on the DG operator, which offers no
  # assembled copy to it, a clear error
  test:
    suffix: 2d_auxamg_matrix_free
    args: -dm_qbox_cells 8 -dm_qbox_degree 3 -ksp_type fcg -pc_type auxamg

  test:
    suffix: 2d_dg_auxamg_error
    args: -dm_qbox_cells 4 -dm_qbox_dg -ksp_type fcg -pc_type auxamg
    expect_error: PCAUXAMG needs an AIJ matrix

  # several ranks without an exchange inside the sweep: more iterations than exact (4), bounded
  test:
    suffix: 3d_vpatch_relaxed_np4
    nsize: 4
    args: -options_file share/vpatch-mg.options -dm_qbox_dim 3 -dm_qbox_degree 3 -dm_qbox_cells 8 -mg_levels_pc_vpatch_ranks relaxed

  test:
    suffix: 3d_vpatch_relaxed_np4_cuda
    requires: cuda
    nsize: 4
    args: -options_file share/vpatch-mg.options -dm_qbox_dim 3 -dm_qbox_degree 3 -dm_qbox_cells 8 -mg_levels_pc_vpatch_ranks relaxed -dm_vec_type cuda
    output_file: ex1_3d_vpatch_relaxed_np4

  test:
    suffix: 2d_vpatch_cuda
    requires: cuda
    args: -options_file share/vpatch-mg.options -dm_qbox_degree 3 -dm_qbox_cells 16 -dm_vec_type cuda
    output_file: ex1_2d_vpatch_options_file

  test:
    suffix: 3d_vpatch_cg_symmetric_cuda
    requires: cuda
    args: -options_file share/vpatch-mg.options -ksp_type cg -mg_levels_pc_vpatch_sweep symmetric -dm_qbox_dim 3 -dm_qbox_degree 2 -dm_qbox_cells 4 -dm_vec_type cuda
    output_file: ex1_3d_vpatch_cg_symmetric

  test:
    suffix: 3d_vpatch_cuda_copies
    requires: cuda
    args: -options_file share/vpatch-mg.options -dm_qbox_dim 3 -dm_qbox_degree 3 -dm_qbox_cells 8 -dm_vec_type cuda -check_gpu_copies
    output_file: none

  # the mapped variant's single-precision smoother takes its color residuals from the operator in float: the cycle must
  # converge as the double one does (6 iterations, on the CPU)
  test:
    suffix: 3d_shell_mixed_cuda
    requires: cuda
    args: -options_file share/vpatch-mg.options -dm_qbox_dim 3 -dm_qbox_degree 3 -dm_qbox_cells 8 -dm_qbox_mapping shell -dm_vec_type cuda -ksp_type fgmres -mg_levels_pc_vpatch_precision single -ksp_max_it 7
    output_file: none

  # a coefficient of contrast 1e6 at Q_5: the scaled local solver's damping falls with the degree (0.42 here); 0.7 does
  # not converge in 60 iterations
  test:
    suffix: 3d_k5_contrast_1e6
    args: -options_file share/vpatch-mg.options -dm_qbox_dim 3 -dm_qbox_degree 5 -dm_qbox_cells 4 -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_coefficient_contrast 1e6 -ksp_max_it 40
    output_file: none

  test:
    suffix: 2d_vpatch_default_cg
    args: -pc_type vpatch -ksp_max_it 200

  test:
    suffix: 3d_mg_levels_3
    args: -dm_qbox_dim 3 -dm_qbox_degree 2 -dm_qbox_cells 8 -pc_mg_levels 3

  test:
    suffix: not_converged
    args: -ksp_max_it 1
    expect_error: ex1: the solve did not converge (DIVERGED_ITS after 1 iterations

  test:
    suffix: 2d_aij_gamg
    args: -dm_mat_type aij -pc_type gamg -dm_qbox_degree 2 -dm_qbox_cells 8

TEST*/
