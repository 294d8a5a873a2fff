static char help[] = "The heat equation u_t - Laplace u = f on the unit square or cube, u = 0 on the boundary, with Q_k elements of a\n\
DMQBOX and PETSc's time steppers (TS): M u' + K u = F(t), each implicit step solving (shift M + K) du = -F.\n\
Exact solution u = exp(-t) prod_i sin(pi x_i). The Jacobian is formed as PETSc programs do for any DM: a copy of the\n\
DM's stiffness matrix plus shift times its mass matrix (MatCopy(), MatAXPY()), on every level of PCMG (TS calls the\n\
Jacobian on the coarse levels' DMs), matrix-free or assembled (-dm_mat_type aij).\n\
Prints the steps, the linear iterations and the time of each step, and the L2 error at the final time; a step that\n\
does not converge stops the run with a nonzero exit (TS's error). Options: -ts_type beuler|bdf|..., -ts_dt, -ts_max_steps, -ts_max_time; the\n\
vertex-patch multigrid: -options_file share/vpatch-mg.options.\n\
  -timing              the time of each step (synchronized with the device) and per step on average\n\
  -vtk <file>          VTK output of the last step\n\
  -load_interpolated   the load M (f interpolated) instead of Gauss quadrature of f, and no error computed: both\n\
                       are host loops over the cells, minutes at 1e8 unknowns\n\
  -reference           also run the same steps with a tight Jacobi-CG solve (prefix ref_) and print the difference\n\
  -laplace_iterations  also solve the Laplacian alone with the same linear solver and print its iterations\n\
  -check               fail unless the difference from the reference is < 1e-8 and no step needs more linear\n\
                       iterations than the Laplacian alone\n\n";

#include <petscvpatch.h>
#include <petscts.h>

#define MAXLEVELS 16

/* the stiffness and mass matrices and the load of each DM that TS asks for (the levels of PCMG: SNES evaluates the
   function and the Jacobian on each) */
typedef struct {
  DM        dm[MAXLEVELS];
  Mat       K[MAXLEVELS], M[MAXLEVELS];
  Vec       F0[MAXLEVELS]; /* int (d pi^2 - 1) S phi_i, S = prod sin(pi x_i): the load at t = 0 */
  PetscInt  n;
  PetscInt  steps;  /* steps taken */
  PetscInt  maxits; /* the most linear iterations of a step */
  PetscInt  totits; /* all linear iterations */
  PetscReal steptime, prevtime, firsttime;
  PetscBool interp; /* the load of the interpolated source, by the mass matrix (on the device with CUDA vectors) */
  PetscBool print;  /* a line per step */
  PetscBool timing; /* with its time */
} AppCtx;

static PetscErrorCode Exact(PetscInt dim, const PetscReal x[], PetscScalar *u, PetscScalar du[], void *ctx)
{
  PetscReal t = *(PetscReal *)ctx;

  PetscFunctionBeginUser;
  *u = PetscExpReal(-t);
  for (PetscInt d = 0; d < dim; d++) *u *= PetscSinReal(PETSC_PI * x[d]);
  if (du)
    for (PetscInt d = 0; d < dim; d++) {
      du[d] = PetscExpReal(-t) * PETSC_PI * PetscCosReal(PETSC_PI * x[d]);
      for (PetscInt e = 0; e < dim; e++)
        if (e != d) du[d] *= PetscSinReal(PETSC_PI * x[e]);
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* f at t = 0: (d pi^2 - 1) S (f(t) = exp(-t) f(0)) */
static PetscErrorCode Source0(PetscInt dim, const PetscReal x[], PetscScalar *f, PetscScalar du[], void *ctx)
{
  PetscReal t = 0;

  PetscFunctionBeginUser;
  (void)du;
  (void)ctx;
  PetscCall(Exact(dim, x, f, NULL, &t));
  *f *= dim * PETSC_PI * PETSC_PI - 1.0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscInt dm_dim(DM dm)
{
  PetscInt dim = 2;
  PetscCallAbort(PETSC_COMM_SELF, DMQBoxGetInfo(dm, &dim, NULL, NULL, NULL, NULL));
  return dim;
}

/* K, M and the load F0 of dm, made on the first request */
static PetscErrorCode GetMatrices(AppCtx *user, DM dm, Mat *K, Mat *M, Vec *F0)
{
  PetscInt i;

  PetscFunctionBeginUser;
  for (i = 0; i < user->n; i++)
    if (user->dm[i] == dm) break;
  if (i == user->n) {
    PetscCheck(i < MAXLEVELS, PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "ex6 keeps the matrices of %d DMs at most", MAXLEVELS);
    PetscCall(DMCreateMatrix(dm, &user->K[i]));
    PetscCall(DMCreateMassMatrix(dm, dm, &user->M[i]));
    PetscCall(DMCreateGlobalVector(dm, &user->F0[i]));
    if (user->interp) {
      Vec       f;
      PetscReal t0 = 0;
      PetscCall(VecDuplicate(user->F0[i], &f));
      PetscCall(DMQBoxProjectFunction(dm, Exact, &t0, f));
      PetscCall(MatMult(user->M[i], f, user->F0[i]));
      PetscCall(VecScale(user->F0[i], dm_dim(dm) * PETSC_PI * PETSC_PI - 1.0));
      PetscCall(VecDestroy(&f));
    } else
      PetscCall(DMQBoxComputeRHS(dm, Source0, NULL, NULL, user->F0[i]));
    user->dm[i] = dm;
    user->n++;
  }
  *K = user->K[i];
  *M = user->M[i];
  if (F0) *F0 = user->F0[i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* F = M u' + K u - exp(-t) F0 */
static PetscErrorCode IFunction(TS ts, PetscReal t, Vec U, Vec Udot, Vec F, void *ctx)
{
  AppCtx *user = (AppCtx *)ctx;
  DM      dm;
  Mat     K = NULL, M = NULL;
  Vec     F0 = NULL;

  PetscFunctionBeginUser;
  PetscCall(TSGetDM(ts, &dm));
  PetscCall(GetMatrices(user, dm, &K, &M, &F0));
  PetscCall(MatMult(M, Udot, F));
  PetscCall(MatMultAdd(K, U, F, F));
  PetscCall(VecAXPY(F, -PetscExpReal(-t), F0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* J = shift M + K, on whichever level's DM TS asks for (the fine one, and the coarse levels of PCMG) */
static PetscErrorCode IJacobian(TS ts, PetscReal t, Vec U, Vec Udot, PetscReal shift, Mat J, Mat P, void *ctx)
{
  AppCtx *user = (AppCtx *)ctx;
  DM      dm;
  Mat     K = NULL, M = NULL;

  PetscFunctionBeginUser;
  (void)t;
  (void)U;
  (void)Udot;
  PetscCall(TSGetDM(ts, &dm));
  PetscCall(GetMatrices(user, dm, &K, &M, NULL));
  PetscCall(MatCopy(K, P, SAME_NONZERO_PATTERN));
  PetscCall(MatAXPY(P, shift, M, SAME_NONZERO_PATTERN));
  if (J != P) {
    PetscCall(MatCopy(K, J, SAME_NONZERO_PATTERN));
    PetscCall(MatAXPY(J, shift, M, SAME_NONZERO_PATTERN));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PreStep(TS ts)
{
  AppCtx *user;

  PetscFunctionBeginUser;
  PetscCall(TSGetApplicationContext(ts, &user));
  PetscCall(PetscTime(&user->prevtime));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* after each step: its linear iterations and its time (the norm waits for the device) */
static PetscErrorCode PostStep(TS ts)
{
  AppCtx        *user;
  SNES           snes;
  Vec            U;
  PetscInt       lits, step;
  PetscReal      t, nrm;
  PetscLogDouble now;

  PetscFunctionBeginUser;
  PetscCall(TSGetApplicationContext(ts, &user));
  PetscCall(TSGetSolution(ts, &U));
  PetscCall(VecNorm(U, NORM_2, &nrm));
  PetscCall(PetscTime(&now));
  PetscCall(TSGetSNES(ts, &snes));
  PetscCall(SNESGetLinearSolveIterations(snes, &lits));
  PetscCall(TSGetStepNumber(ts, &step));
  PetscCall(TSGetTime(ts, &t));
  user->steps++;
  user->maxits = PetscMax(user->maxits, lits);
  user->totits += lits;
  user->steptime += now - user->prevtime;
  if (user->steps == 1) user->firsttime = now - user->prevtime;
  if (user->print && user->timing)
    PetscCall(PetscPrintf(PetscObjectComm((PetscObject)ts), "step %" PetscInt_FMT ": t = %.4f, linear iterations %" PetscInt_FMT ", time %.4f s\n", step, (double)t, lits, (double)(now - user->prevtime)));
  else if (user->print)
    PetscCall(PetscPrintf(PetscObjectComm((PetscObject)ts), "step %" PetscInt_FMT ": t = %.4f, linear iterations %" PetscInt_FMT "\n", step, (double)t, lits));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a TS on dm for this problem, options under prefix */
static PetscErrorCode CreateTS(DM dm, AppCtx *user, const char prefix[], TS *ts)
{
  PetscFunctionBeginUser;
  PetscCall(TSCreate(PetscObjectComm((PetscObject)dm), ts));
  PetscCall(TSSetOptionsPrefix(*ts, prefix));
  PetscCall(TSSetDM(*ts, dm));
  PetscCall(TSSetProblemType(*ts, TS_LINEAR));
  PetscCall(TSSetType(*ts, TSBEULER));
  PetscCall(TSSetIFunction(*ts, NULL, IFunction, user));
  PetscCall(TSSetIJacobian(*ts, NULL, NULL, IJacobian, user));
  PetscCall(TSSetApplicationContext(*ts, user));
  PetscCall(TSSetPreStep(*ts, PreStep));
  PetscCall(TSSetPostStep(*ts, PostStep));
  PetscCall(TSSetTimeStep(*ts, 0.01));
  PetscCall(TSSetMaxSteps(*ts, 10));
  PetscCall(TSSetMaxTime(*ts, 100.0));
  PetscCall(TSSetExactFinalTime(*ts, TS_EXACTFINALTIME_MATCHSTEP));
  {
    TSAdapt adapt;
    PetscCall(TSGetAdapt(*ts, &adapt));
    PetscCall(TSAdaptSetType(adapt, TSADAPTNONE)); /* fixed steps (BDF adapts by default): -ts_adapt_type changes it */
  }
  PetscCall(TSSetFromOptions(*ts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* runs ts from u(0) = S; failed: a step did not converge */
static PetscErrorCode Run(TS ts, DM dm, Vec u, PetscBool *failed)
{
  PetscReal           t0 = 0;
  TSConvergedReason   reason;
  SNESConvergedReason sreason;
  SNES                snes;

  PetscFunctionBeginUser;
  PetscCall(DMQBoxProjectFunction(dm, Exact, &t0, u));
  PetscCall(TSSetTime(ts, 0.0));
  PetscCall(TSSetStepNumber(ts, 0));
  PetscCall(TSSolve(ts, u));
  PetscCall(TSGetConvergedReason(ts, &reason));
  PetscCall(TSGetSNES(ts, &snes));
  PetscCall(SNESGetConvergedReason(snes, &sreason));
  *failed = (PetscBool)(reason < 0 || sreason < 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM        dm;
  TS        ts;
  Vec       u;
  AppCtx    user;
  PetscInt  dim, cells[3], k;
  PetscReal tfinal, l2, h1;
  PetscBool failed, reference = PETSC_FALSE, lapits = PETSC_FALSE, check = PETSC_FALSE;
  char      vtk[PETSC_MAX_PATH_LEN] = "";
  KSP       ksp;
  KSPType   kt;
  PC        pc;
  PCType    pt;
  TSType    tt;
  VecType   vt;
  MatType   mt;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscVPatchInitializePackage());
  PetscCall(PetscMemzero(&user, sizeof(user)));
  user.print = PETSC_TRUE;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "ex6 options", NULL);
  PetscCall(PetscOptionsString("-vtk", "VTK output of the last step", NULL, vtk, vtk, sizeof(vtk), NULL));
  PetscCall(PetscOptionsBool("-reference", "Also run the same steps with a tight Jacobi-CG solve (options prefix ref_) and print the difference", NULL, reference, &reference, NULL));
  PetscCall(PetscOptionsBool("-laplace_iterations", "Also solve the Laplacian alone with the same linear solver and print its iterations", NULL, lapits, &lapits, NULL));
  PetscCall(PetscOptionsBool("-check", "Fail unless the reference differs by < 1e-8 and no step needs more linear iterations than the Laplacian alone", NULL, check, &check, NULL));
  PetscCall(PetscOptionsBool("-print_steps", "A line per step", NULL, user.print, &user.print, NULL));
  PetscCall(PetscOptionsBool("-timing", "The time of each step and per step on average", NULL, user.timing, &user.timing, NULL));
  PetscCall(PetscOptionsBool("-load_interpolated", "The load of the interpolated source (by the mass matrix), and no error computed", NULL, user.interp, &user.interp, NULL));
  PetscOptionsEnd();
  if (check) reference = lapits = PETSC_TRUE;

  cells[0] = cells[1] = cells[2] = 16;
  PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, 2, cells, 2, NULL, NULL, &dm));
  PetscCall(DMSetFromOptions(dm));
  PetscCall(DMSetUp(dm));
  PetscCall(DMQBoxGetInfo(dm, &dim, cells, &k, NULL, NULL));
  PetscCall(DMCreateGlobalVector(dm, &u));
  PetscCall(PetscObjectSetName((PetscObject)u, "u"));

  {
    Mat K = NULL, M = NULL;
    PetscCall(GetMatrices(&user, dm, &K, &M, NULL)); /* the fine level's matrices and load before the steps (the load is a host loop) */
  }
  PetscCall(CreateTS(dm, &user, NULL, &ts));
  PetscCall(TSGetType(ts, &tt));
  PetscCall(DMGetVecType(dm, &vt));
  PetscCall(DMGetMatType(dm, &mt));
  {
    PetscInt nunk = 1;
    for (PetscInt d = 0; d < dim; d++) nunk *= cells[d] * k - 1;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Q_%" PetscInt_FMT " heat equation in %" PetscInt_FMT "D: %" PetscInt_FMT " unknowns, TS %s\n", k, dim, nunk, tt));
    if (user.timing) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "matrices %s, vectors %s\n", mt, vt));
  }
  PetscCall(Run(ts, dm, u, &failed));
  PetscCall(TSGetKSP(ts, &ksp));
  PetscCall(KSPGetType(ksp, &kt));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCGetType(pc, &pt));
  PetscCall(TSGetTime(ts, &tfinal));
  if (!user.interp) PetscCall(DMQBoxComputeError(dm, u, Exact, &tfinal, &l2, &h1));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "linear solver %s + %s: %" PetscInt_FMT " steps, linear iterations per step at most %" PetscInt_FMT " (%.1f on average)\n", kt, pt, user.steps, user.maxits, (double)user.totits / PetscMax(user.steps, 1)));
  if (user.timing)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "time per step %.4f s (%" PetscInt_FMT " steps in %.3f s; the first, with the solver's set-up, %.3f s; the others %.4f s each)\n", (double)(user.steptime / PetscMax(user.steps, 1)), user.steps,
                          (double)user.steptime, (double)user.firsttime, (double)((user.steptime - user.firsttime) / PetscMax(user.steps - 1, 1))));
  if (!user.interp) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "t = %.4f: L2 error %.4e, H1 error %.4e\n", (double)tfinal, (double)l2, (double)h1));
  if (vtk[0]) PetscCall(DMQBoxVecViewVTK(dm, u, vtk));

  if (reference && !failed) { /* the same steps, each solved by CG + Jacobi to 1e-12 */
    TSAdapt   adapt;
    PetscBool fixed;
    TS        tr;
    Vec       ur;
    PetscReal diff, nu;
    AppCtx    ruser = user;
    PetscBool rfailed;

    PetscCall(TSGetAdapt(ts, &adapt));
    PetscCall(PetscObjectTypeCompare((PetscObject)adapt, TSADAPTNONE, &fixed));
    PetscCheck(fixed, PETSC_COMM_WORLD, PETSC_ERR_SUP, "ex6 -reference (and -check) repeats fixed steps: drop -ts_adapt_type");
    ruser.print = PETSC_FALSE;
    PetscCall(PetscOptionsSetValue(NULL, "-ref_ksp_type", "cg"));
    PetscCall(PetscOptionsSetValue(NULL, "-ref_pc_type", "jacobi"));
    PetscCall(PetscOptionsSetValue(NULL, "-ref_ksp_rtol", "1e-12"));
    PetscCall(PetscOptionsSetValue(NULL, "-ref_ksp_max_it", "100000"));
    ruser.n = 0; /* its own matrices: the first run's stay with user */
    PetscCall(VecDuplicate(u, &ur));
    PetscCall(CreateTS(dm, &ruser, "ref_", &tr));
    {
      TSType t;
      PetscCall(TSGetType(ts, &t)); /* the same method and steps as the run above */
      PetscCall(TSSetType(tr, t));
      PetscCall(TSSetMaxSteps(tr, user.steps));
      PetscCall(TSSetTimeStep(tr, tfinal / PetscMax(user.steps, 1)));
    }
    PetscCall(Run(tr, dm, ur, &rfailed));
    PetscCheck(!rfailed, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "ex6: the reference Jacobi-CG run did not converge");
    PetscCall(VecNorm(u, NORM_2, &nu));
    PetscCall(VecAXPY(ur, -1.0, u));
    PetscCall(VecNorm(ur, NORM_2, &diff));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "difference from the same steps solved by Jacobi-CG to 1e-12: %s\n", diff / nu < 1e-8 ? "below 1e-8 (relative)" : "1e-8 (relative) or more"));
    PetscCall(PetscInfo(NULL, "relative difference from the reference %g\n", (double)(diff / nu)));
    if (check) PetscCheck(diff / nu < 1e-8, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "ex6: the solution differs from the Jacobi-CG reference by %g (relative)", (double)(diff / nu));
    for (PetscInt i = 0; i < ruser.n; i++) {
      PetscCall(MatDestroy(&ruser.K[i]));
      PetscCall(MatDestroy(&ruser.M[i]));
      PetscCall(VecDestroy(&ruser.F0[i]));
    }
    PetscCall(VecDestroy(&ur));
    PetscCall(TSDestroy(&tr));
  }
  if (lapits && !failed) { /* the Laplacian alone, with the linear solver of the steps (its options, no prefix), on a DM of its own (TS
                              has given dm's KSP callbacks to its SNES) */
    DM                 dml;
    KSP                kl;
    Vec                b, x;
    PetscInt           its;
    PetscReal          tzero = 0, nx;
    PetscLogDouble     ts0, t0, t1;
    KSPConvergedReason r;

    PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, dim, cells, k, NULL, NULL, &dml));
    PetscCall(DMSetFromOptions(dml));
    PetscCall(DMQBoxSetOperatorWeights(dml, 0.0, 1.0));
    PetscCall(DMSetUp(dml));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &kl));
    PetscCall(KSPSetDM(kl, dml));
    PetscCall(KSPSetFromOptions(kl));
    PetscCall(KSPSetDMActive(kl, KSP_DMACTIVE_RHS, PETSC_FALSE));
    PetscCall(VecDuplicate(u, &b));
    PetscCall(VecDuplicate(u, &x));
    if (user.interp)
      PetscCall(VecSet(b, 1.0));
    else
      PetscCall(DMQBoxComputeRHS(dml, Source0, NULL, &tzero, b));
    PetscCall(PetscTime(&ts0));
    PetscCall(KSPSetUp(kl));
    PetscCall(PetscTime(&t0));
    PetscCall(KSPSolve(kl, b, x));
    PetscCall(VecNorm(x, NORM_2, &nx)); /* waits for the device */
    PetscCall(PetscTime(&t1));
    PetscCall(KSPGetIterationNumber(kl, &its));
    PetscCall(KSPGetConvergedReason(kl, &r));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "the Laplacian alone with the same linear solver: %" PetscInt_FMT " iterations (%s)\n", its, KSPConvergedReasons[r]));
    if (user.timing) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "the Laplacian alone: set-up %.3f s, solve %.4f s\n", (double)(t0 - ts0), (double)(t1 - t0)));
    if (check) PetscCheck(user.maxits <= its, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "ex6: a step needed %" PetscInt_FMT " linear iterations, the Laplacian alone %" PetscInt_FMT, user.maxits, its);
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&x));
    PetscCall(KSPDestroy(&kl));
    PetscCall(DMDestroy(&dml));
  }

  for (PetscInt i = 0; i < user.n; i++) {
    PetscCall(MatDestroy(&user.K[i]));
    PetscCall(MatDestroy(&user.M[i]));
    PetscCall(VecDestroy(&user.F0[i]));
  }
  PetscCall(VecDestroy(&u));
  PetscCall(TSDestroy(&ts));
  PetscCall(DMDestroy(&dm));
  if (failed) PetscCall(PetscFPrintf(PETSC_COMM_WORLD, PETSC_STDERR, "ex6: a time step did not converge\n"));
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}

/*TEST

  test:
    suffix: 2d_beuler
    args: -options_file share/vpatch-mg.options -dm_qbox_degree 3 -dm_qbox_cells 16 -ts_type beuler -check -print_steps 0

  test:
    suffix: 2d_bdf_aij
    args: -options_file share/vpatch-mg.options -dm_qbox_degree 3 -dm_qbox_cells 16 -ts_type bdf -dm_mat_type aij -check -print_steps 0

  test:
    suffix: 3d_bdf
    args: -options_file share/vpatch-mg.options -dm_qbox_dim 3 -dm_qbox_degree 2 -dm_qbox_cells 8 -ts_type bdf -check -print_steps 0

  test:
    suffix: 3d_bdf_np2
    nsize: 2
    args: -options_file share/vpatch-mg.options -dm_qbox_dim 3 -dm_qbox_degree 2 -dm_qbox_cells 8 -ts_type bdf -check -print_steps 0
    output_file: ex6_3d_bdf

  test:
    suffix: 3d_beuler_aij_np2
    nsize: 2
    args: -options_file share/vpatch-mg.options -dm_qbox_dim 3 -dm_qbox_degree 2 -dm_qbox_cells 8 -ts_type beuler -dm_mat_type aij -check -print_steps 0

  test:
    suffix: 3d_bdf_cuda
    requires: cuda
    args: -options_file share/vpatch-mg.options -dm_qbox_dim 3 -dm_qbox_degree 2 -dm_qbox_cells 8 -ts_type bdf -check -print_steps 0 -dm_vec_type cuda
    output_file: ex6_3d_bdf

  test:
    suffix: 3d_bdf_cuda_np2
    requires: cuda
    nsize: 2
    args: -options_file share/vpatch-mg.options -dm_qbox_dim 3 -dm_qbox_degree 2 -dm_qbox_cells 8 -ts_type bdf -check -print_steps 0 -dm_vec_type cuda
    output_file: ex6_3d_bdf

  test:
    suffix: 3d_beuler_aij_cuda
    requires: cuda
    args: -options_file share/vpatch-mg.options -dm_qbox_dim 3 -dm_qbox_degree 2 -dm_qbox_cells 8 -ts_type beuler -dm_mat_type aijcusparse -dm_vec_type cuda -check -print_steps 0
    output_file: ex6_3d_beuler_aij_np2

  # a deformed box (the mass term on mapped cells, the surrogate patch solves with it)
  test:
    suffix: 2d_bdf_deformed
    args: -options_file share/vpatch-mg.options -ksp_type fgmres -dm_qbox_degree 3 -dm_qbox_cells 16 -dm_qbox_mapping deformed -ts_type bdf -check -print_steps 0

  test:
    suffix: 2d_bdf_deformed_cuda
    requires: cuda
    args: -options_file share/vpatch-mg.options -ksp_type fgmres -dm_qbox_degree 3 -dm_qbox_cells 16 -dm_qbox_mapping deformed -ts_type bdf -check -print_steps 0 -dm_vec_type cuda
    output_file: ex6_2d_bdf_deformed

  # a linear solve that does not converge stops the run with TS's message and a nonzero exit
  test:
    suffix: not_converged
    args: -options_file share/vpatch-mg.options -dm_qbox_cells 8 -ksp_max_it 1 -print_steps 0
    expect_error: TSStep has failed due to DIVERGED_NONLINEAR_SOLVE

  test:
    suffix: 2d_steps
    args: -options_file share/vpatch-mg.options -dm_qbox_degree 2 -dm_qbox_cells 8 -ts_max_steps 3 -ts_type bdf

TEST*/
