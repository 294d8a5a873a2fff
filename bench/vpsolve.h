/*
  One Poisson solve on a DMQBOX with a named solver configuration, timed: shared by the benchmark driver
  (bench/bench_solve.c) and the mixed-precision test (tests/test_mixed.c).

  Problem: -Laplace u = f on the unit square/cube, u = prod_d sin(pi x_d) (zero on the boundary), Q_k on
  cells^d cells. Solvers (each with its own options prefix, defaults below, overridable by options):
    gamg             CG + PETSc GAMG on the assembled operator (-dm_mat_type aijcusparse on CUDA vectors)
    auxamg           FCG + our auxiliary-grid AMG (PCAUXAMG, K-cycle; CPU kernels so far) on the same assembled operator,
                     with the owned nodes' coordinates
    mg-chebyshev     CG + PCMG on our matrix-free operator, Chebyshev(2)-Jacobi level smoothers
    vpatch-v         GMRES + PCMG V(1,1) with one forward vertex-patch sweep per smoothing step
    vpatch-fmg       the same, PCMG type full (one FMG cycle per preconditioner application)
    vpatch-v-mixed   vpatch-v with the V-cycle in single precision (smoothers, coarser operators, transfers), inside
                     FGMRES: the single-precision cycle is not exactly linear, and GMRES (right preconditioned for the
                     unpreconditioned norm) rebuilds the solution by one more application of it, which left the true
                     residual at 5e-7 where GMRES saw 1e-8 (measured); FGMRES keeps the preconditioned vectors
    vpatch-fmg-mixed vpatch-fmg in single precision, inside FGMRES
    vpatch-r         the V-cycle of vpatch-v as the solver: Richardson, whose KSPSolve hands the iteration to PCMG
                     (PCApplyRichardson_MG: cycles on the solution itself, the fine residual computed once per cycle for
                     the test): three vectors of the finest size (solution, right-hand side, PCMG's residual) against
                     eleven for GMRES(8) after four iterations, and no orthogonalization
    vpatch-r-mixed   Richardson with the V-cycle of vpatch-v-mixed (single precision on every level), but in
                     KSPRICHARDSON's own loop, x <- x + B (b - A x) with the residual in double: the cycle sees only
                     residuals (zero initial guess), as inside FGMRES. Handed to PCMG instead, its cycles would smooth the
                     solution itself, and a float smoother's local residuals b - A x lose the digits below about 1e-7 of
                     |A| |x|: the iteration stalls (measured: 1e-4 at 0.9M unknowns, Q_3). Five vectors of the finest size.
    vpatch-r12       Richardson in its own loop (as vpatch-r-mixed) over a double V(1,2) cycle: two forward sweeps after the
                     coarse correction (distinct up-smoothers, -mg_levels_up_*, without the residual check between their
                     sweeps: -mg_levels_up_pc_vpatch_richardson_check false). For k >= 6 two such cycles reach 1e-8 where
                     V(1,1) needs three, and the own loop computes the residual once per cycle without PCMG's extra
                     presmoothing step at the convergence test: fewer sweeps and residuals (k <= 5: vpatch-r is faster).
    vpatch-r12-mixed vpatch-r-mixed with V(1,2) cycles as vpatch-r12, the up-smoothers in single precision on the
                     correction of the finest level's double residual (-mg_levels_up_pc_vpatch_correction mixed: in place, a
                     float sweep after the coarse correction of the first cycle rounds relative to the large smooth
                     solution and leaves residuals of 1e-2 (measured, 514M Q_5); on the correction, 1e-4), and in 3D for
                     odd k the up-smoothers' colors in the order 7,1,2,3,4,5,6,0 (the cell centers of the coarser mesh
                     first, its vertices last), which left after two cycles 4-6x smaller residuals at k = 3, 5, 7 and
                     3-5x larger ones at k = 4, 6 (bench/RESULTS.md, session 31). k = 5, 6: two cycles where
                     vpatch-r-mixed needs four and three.
  Every solver stops at ||b - A x|| <= 1e-8 ||b|| (unpreconditioned norm). The coarse problem of PCMG is
  solved by CG + Jacobi (rtol 1e-12; 1e-6 inside a single-precision cycle, where a tighter one would stall). The
  vpatch solvers stop the hierarchy instead at a coarsest level of 2 cells per direction where the mesh has one: a
  single vertex patch covers it, and one sweep (-mg_coarse_ksp_type preonly -mg_coarse_pc_type vpatch) solves it
  exactly, without a Krylov method's iterations and reductions. -<prefix>pc_mg_levels turns that off. Where the
  coarsest level has more cells (e.g. 3 or 5 per direction: 192 or 160 cells), CG is preconditioned by symmetric
  vertex-patch sweeps instead of Jacobi (-mg_coarse_pc_type vpatch): 6-9 iterations to 1e-12 instead of 37-125.
*/
#pragma once

#include <petscvpatch.h>
#include <petscdevice.h>
#if defined(PETSC_HAVE_CUDA)
#include <petscdevice_cuda.h>
#endif
#include "../tests/vptest.h" /* VPTestExactSin, VPTestSourceSin */

typedef struct {
  const char        *name;      /* solver name in the results */
  PetscBool          assembled; /* operator assembled (GAMG) or matrix-free */
  PetscBool          mg;        /* PCMG over the DMQBOX hierarchy */
  VPPrecision        mgprec;    /* arithmetic of the coarser levels (DMQBoxSetPrecision) */
  const char *const *opts;      /* option name (without prefix), value pairs; NULL-terminated */
  PetscBool          onepatch;  /* coarsest level of 2 cells per direction solved by one vertex patch, where possible */
  PetscBool          ownloop;   /* KSPRICHARDSON in its own loop, not through PCApplyRichardson() (vpatch-r-mixed, vpatch-r12; -<prefix>own_loop) */
  PetscBool          oddorder;  /* 3D, odd k: the up-smoothers visit the colors in the order 7,1,2,...,6,0 (vpatch-r12-mixed) */
} VPSolverConfig;

typedef struct {
  PetscInt           its;
  PetscInt           dofs;
  PetscReal          dm, assemble; /* seconds: DM set-up and three global vectors; DMCreateMatrix() (the assembly, for assembled configurations) */
  PetscReal          setup, solve; /* seconds: KSPSetUp (PCSetUp: hierarchy, smoothers, the peers' set-up), median KSPSolve */
  PetscReal          rrel, l2;     /* ||b - A x|| / ||b|| (double operator), L2 error */
  PetscReal          mass;         /* the operator's mass weight (-dm_qbox_operator_mass: mass M + K) */
  PetscReal          rtol;         /* the KSP's relative tolerance (1e-8, or -<prefix>ksp_rtol) */
  PetscReal          devmem;       /* GB of device memory in use after the solves (cudaMemGetInfo; -1 without a device) */
  char               ksptype[32];  /* the outer Krylov method (the configuration's, or an option's) */
  KSPConvergedReason reason;
} VPSolveResult;

static const char *const VPOptsGAMG[]   = {"ksp_type", "cg", "pc_type", "gamg", NULL};
static const char *const VPOptsAuxAMG[] = {"ksp_type", "fcg", "pc_type", "auxamg", NULL};
static const char *const VPOptsCheby[]  = {
     "ksp_type", "cg", "pc_type", "mg", "mg_levels_ksp_type", "chebyshev", "mg_levels_ksp_max_it", "2", "mg_levels_pc_type", "jacobi", "mg_coarse_ksp_type", "cg", "mg_coarse_pc_type", "jacobi", "mg_coarse_ksp_rtol", "1e-12", "mg_coarse_ksp_max_it",
     "1000",     NULL};
#define VP_OPTS_VPATCH                                                                                                                                                                                                                          \
  "ksp_gmres_restart", "8", "pc_type", "mg", "mg_levels_ksp_type", "richardson", "mg_levels_ksp_max_it", "1", "mg_levels_pc_type", "vpatch", "mg_levels_pc_vpatch_sweep", "forward", "mg_coarse_ksp_type", "cg", "mg_coarse_pc_type", "jacobi", \
      "mg_coarse_ksp_max_it", "1000"
static const char *const VPOptsV[]        = {"ksp_type", "gmres", VP_OPTS_VPATCH, "mg_coarse_ksp_rtol", "1e-12", NULL};
static const char *const VPOptsFMG[]      = {"ksp_type", "gmres", VP_OPTS_VPATCH, "mg_coarse_ksp_rtol", "1e-12", "pc_mg_type", "full", NULL};
static const char *const VPOptsVMixed[]   = {"ksp_type", "fgmres", VP_OPTS_VPATCH, "mg_coarse_ksp_rtol", "1e-6", "mg_levels_pc_vpatch_precision", "single", NULL};
static const char *const VPOptsFMGMixed[] = {"ksp_type", "fgmres", VP_OPTS_VPATCH, "mg_coarse_ksp_rtol", "1e-6", "mg_levels_pc_vpatch_precision", "single", "pc_mg_type", "full", NULL};
static const char *const VPOptsR[]        = {"ksp_type", "richardson", VP_OPTS_VPATCH, "mg_coarse_ksp_rtol", "1e-12", NULL};
static const char *const VPOptsRMixed[]   = {"ksp_type", "richardson", VP_OPTS_VPATCH, "mg_coarse_ksp_rtol", "1e-6", "mg_levels_pc_vpatch_precision", "single", NULL};
/* V(1,2): two forward sweeps after the coarse correction, by distinct up-smoothers without the residual between them */
#define VP_OPTS_UP2 \
  "pc_mg_distinct_smoothup", "true", "mg_levels_up_ksp_type", "richardson", "mg_levels_up_ksp_max_it", "2", "mg_levels_up_pc_type", "vpatch", "mg_levels_up_pc_vpatch_sweep", "forward", "mg_levels_up_pc_vpatch_richardson_check", "false"
static const char *const VPOptsR12[]      = {"ksp_type", "richardson", VP_OPTS_VPATCH, "mg_coarse_ksp_rtol", "1e-12", VP_OPTS_UP2, NULL};
static const char *const VPOptsR12Mixed[] = {
    "ksp_type", "richardson", VP_OPTS_VPATCH, "mg_coarse_ksp_rtol", "1e-6", "mg_levels_pc_vpatch_precision", "single", VP_OPTS_UP2, "mg_levels_up_pc_vpatch_precision", "single", "mg_levels_up_pc_vpatch_correction", "mixed", NULL};

static const VPSolverConfig VPSolvers[] = {{"gamg", PETSC_TRUE, PETSC_FALSE, VP_PRECISION_DOUBLE, VPOptsGAMG, PETSC_FALSE, PETSC_FALSE},
                                           {"auxamg", PETSC_TRUE, PETSC_FALSE, VP_PRECISION_DOUBLE, VPOptsAuxAMG, PETSC_FALSE, PETSC_FALSE},
                                           {"mg-chebyshev", PETSC_FALSE, PETSC_TRUE, VP_PRECISION_DOUBLE, VPOptsCheby, PETSC_FALSE, PETSC_FALSE},
                                           {"vpatch-v", PETSC_FALSE, PETSC_TRUE, VP_PRECISION_DOUBLE, VPOptsV, PETSC_TRUE, PETSC_FALSE},
                                           {"vpatch-fmg", PETSC_FALSE, PETSC_TRUE, VP_PRECISION_DOUBLE, VPOptsFMG, PETSC_TRUE, PETSC_FALSE},
                                           {"vpatch-v-mixed", PETSC_FALSE, PETSC_TRUE, VP_PRECISION_SINGLE, VPOptsVMixed, PETSC_TRUE, PETSC_FALSE},
                                           {"vpatch-fmg-mixed", PETSC_FALSE, PETSC_TRUE, VP_PRECISION_SINGLE, VPOptsFMGMixed, PETSC_TRUE, PETSC_FALSE},
                                           {"vpatch-r", PETSC_FALSE, PETSC_TRUE, VP_PRECISION_DOUBLE, VPOptsR, PETSC_TRUE, PETSC_FALSE},
                                           {"vpatch-r-mixed", PETSC_FALSE, PETSC_TRUE, VP_PRECISION_SINGLE, VPOptsRMixed, PETSC_TRUE, PETSC_TRUE},
                                           {"vpatch-r12", PETSC_FALSE, PETSC_TRUE, VP_PRECISION_DOUBLE, VPOptsR12, PETSC_TRUE, PETSC_TRUE},
                                           {"vpatch-r12-mixed", PETSC_FALSE, PETSC_TRUE, VP_PRECISION_SINGLE, VPOptsR12Mixed, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE},
                                           {NULL, PETSC_FALSE, PETSC_FALSE, VP_PRECISION_DOUBLE, NULL, PETSC_FALSE, PETSC_FALSE}};

/* the coordinates of this rank's nodes (lexicographic in the owned box, the order of the global vector) for a PC that
   takes them (PCAUXAMG); the DMQBOX stores none by default */
static inline PetscErrorCode VPSolveSetCoordinates(DM dm, PC pc)
{
  PetscInt         dim, cells[3], k, cs[3], cm[3], xs[3] = {0, 0, 0}, xm[3] = {1, 1, 1}, n1, i = 0;
  const PetscReal *c1[3] = {NULL, NULL, NULL};
  PetscReal       *xyz;

  PetscFunctionBeginUser;
  PetscCall(DMQBoxGetInfo(dm, &dim, cells, &k, NULL, NULL));
  PetscCall(DMQBoxGetOwnedCells(dm, cs, cm));
  for (PetscInt d = 0; d < dim; d++) {
    xs[d] = cs[d] * k;
    xm[d] = cm[d] * k + (cs[d] + cm[d] == cells[d] ? 1 : 0); /* the last node belongs to the last column */
    PetscCall(DMQBoxGetNodeCoordinates1D(dm, d, &c1[d], &n1));
  }
  PetscCall(PetscMalloc1(dim * xm[0] * xm[1] * xm[2], &xyz));
  for (PetscInt pz = xs[2]; pz < xs[2] + xm[2]; pz++)
    for (PetscInt py = xs[1]; py < xs[1] + xm[1]; py++)
      for (PetscInt px = xs[0]; px < xs[0] + xm[0]; px++, i++) {
        const PetscInt p[3] = {px, py, pz};
        for (PetscInt d = 0; d < dim; d++) xyz[i * dim + d] = c1[d][p[d]];
      }
  PetscCall(PCSetCoordinates(pc, dim, i, xyz));
  PetscCall(PetscFree(xyz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* KSPConvergedDefault() under another name: KSPRICHARDSON hands the whole iteration to a PC that has
   PCApplyRichardson() (PCMG) only while the convergence test is KSPConvergedDefault() itself */
static inline PetscErrorCode VPSolveConverged(KSP ksp, PetscInt it, PetscReal rnorm, KSPConvergedReason *reason, void *ctx)
{
  PetscFunctionBeginUser;
  PetscCall(KSPConvergedDefault(ksp, it, rnorm, reason, ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode VPSolveSync(PetscBool device)
{
  PetscDeviceContext dctx;

  PetscFunctionBeginUser;
  if (!device) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  PetscCall(PetscDeviceContextSynchronize(dctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int VPSolveCmpReal(const void *a, const void *b)
{
  PetscReal x = *(const PetscReal *)a, y = *(const PetscReal *)b;
  return x < y ? -1 : (x > y ? 1 : 0);
}

/* One warm-up solve, then `repeats` (1..100) solves from x = 0, each timed between device synchronizations: the
   median time */
static inline PetscErrorCode VPSolveTimed(KSP ksp, Vec b, Vec x, PetscInt repeats, PetscBool device, PetscReal *median)
{
  PetscReal      ts[100];
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCheck(repeats >= 1 && repeats <= 100, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "repeats must be in 1..100");
  for (PetscInt i = -1; i < repeats; i++) { /* i = -1: warm-up */
    PetscCall(VecSet(x, 0.0));
    PetscCall(VPSolveSync(device));
    PetscCall(PetscTime(&t0));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(VPSolveSync(device));
    PetscCall(PetscTime(&t1));
    if (i >= 0) ts[i] = (PetscReal)(t1 - t0);
  }
  qsort(ts, (size_t)repeats, sizeof(PetscReal), VPSolveCmpReal);
  *median = ts[repeats / 2];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Solves with configuration cfg on a fresh DM (vector type from -dm_vec_type): KSPSetUp timed once, then one
   warm-up solve and `repeats` timed solves from x = 0 (median). Options are read with prefix "<name>_".
   ones: b = 1 on every unknown (the boundary rows then ask x = 1 there) instead of the load vector of the sine
   solution, and no L2 error (res->l2 = -1): the load vector and the error are computed on the host, which takes
   minutes at 1e8 unknowns; b = 1 is set on the device. */
/* what a run makes, freed by VPSolveRun() whether the run succeeded or failed: a failed solver's device memory would
   otherwise stay allocated and the solvers after it in the process fail with out of memory */
typedef struct {
  DM  dm;
  KSP ksp;
  Vec x, b;
} VPSolveObjects;

static inline PetscErrorCode VPSolveRunIn(MPI_Comm comm, PetscInt dim, PetscInt k, const PetscInt cells[3], const VPSolverConfig *cfg, PetscInt repeats, PetscBool ones, VPSolveResult *res, VPSolveObjects *o)
{
  DM          dm;
  KSP         ksp;
  Mat         A;
  Vec         x, b, r = NULL;
  PetscInt    levels;
  PetscReal   t0, t1, bnorm, rnorm;
  char        prefix[64], name[128];
  PetscBool   ownloop;
  VecType     vt;
  PetscBool   device, set, two = PETSC_FALSE, vpc = PETSC_FALSE, mine[32];
  PetscInt    nopt;
  const char *ov[64];

  static PetscLogStage stage[3] = {-1, -1, -1}; /* -log_view: the DM, KSPSetUp and KSPSolve apart */

  PetscFunctionBeginUser;
  PetscCheck(repeats >= 1 && repeats <= 100, comm, PETSC_ERR_ARG_OUTOFRANGE, "repeats must be in 1..100");
  if (stage[0] < 0) {
    PetscCall(PetscLogStageRegister("VP DM", &stage[0]));
    PetscCall(PetscLogStageRegister("VP KSPSetUp", &stage[1]));
    PetscCall(PetscLogStageRegister("VP KSPSolve", &stage[2]));
  }
  PetscCall(PetscLogStagePush(stage[0]));
  PetscCall(PetscTime(&t0));
  PetscCall(DMQBoxCreate(comm, dim, cells, k, NULL, NULL, &dm));
  o->dm = dm;
  PetscCall(DMSetFromOptions(dm));
  PetscCall(DMGetVecType(dm, &vt));
  PetscCall(PetscStrbeginswith(vt, "seqcuda", &device));
  if (!device) PetscCall(PetscStrbeginswith(vt, "mpicuda", &device));
  if (!device) PetscCall(PetscStrcmp(vt, VECCUDA, &device));
  if (cfg->assembled) PetscCall(DMSetMatType(dm, device ? MATAIJCUSPARSE : MATAIJ));
  PetscCall(DMQBoxSetPrecision(dm, VP_PRECISION_DOUBLE, cfg->mgprec));
  PetscCall(DMSetUp(dm));
  PetscCall(DMCreateGlobalVector(dm, &x));
  o->x = x;
  PetscCall(VecDuplicate(x, &b));
  o->b = b;
  PetscCall(VecGetSize(x, &res->dofs));
  PetscCall(VPSolveSync(device));
  PetscCall(PetscTime(&t1));
  res->dm = t1 - t0;
  if (ones)
    PetscCall(VecSet(b, 1.0));
  else
    PetscCall(DMQBoxComputeRHS(dm, VPTestSourceSin, NULL, NULL, b));
  PetscCall(PetscLogStagePop());

  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "%s_", cfg->name));
  for (size_t i = 0; i < sizeof(prefix); i++)
    if (prefix[i] == '-') prefix[i] = '_';
  if (cfg->mg) { /* the deepest hierarchy the mesh allows (-<prefix>pc_mg_levels overrides) */
    PetscCall(DMQBoxGetMaxLevels(dm, &levels));
    PetscCall(PetscSNPrintf(name, sizeof(name), "-%spc_mg_levels", prefix));
    PetscCall(PetscOptionsGetInt(NULL, NULL, name, &levels, &set));
    if (cfg->onepatch && !set) { /* the deepest hierarchy whose coarsest level has 2 cells per direction, if any: one
                                    vertex patch covers it, so one sweep is an exact coarse solve (no Krylov iterations) */
      PetscInt c[3];
      PetscCall(DMQBoxGetInfo(dm, NULL, c, NULL, NULL, NULL));
      for (PetscInt l = levels; l >= 2 && !two; l--) {
        two = PETSC_TRUE;
        for (PetscInt d = 0; d < dim; d++) two = (PetscBool)(two && c[d] == 2 * ((PetscInt)1 << (l - 1)));
        if (two) levels = l;
      }
    }
    if (cfg->onepatch && !two) { /* CG + vertex-patch sweeps on a coarsest level with interior vertices (2 cells or more) */
      PetscInt c[3];
      PetscCall(DMQBoxGetInfo(dm, NULL, c, NULL, NULL, NULL));
      vpc = PETSC_TRUE;
      for (PetscInt d = 0; d < dim; d++) vpc = (PetscBool)(vpc && c[d] / ((PetscInt)1 << (levels - 1)) >= 2);
    }
  }
  /* the configuration's options (with the one-patch coarse solve), where not given; cleared after KSPSetUp, which reads
     them, so that every solve starts from the same options */
  for (nopt = 0; cfg->opts[2 * nopt]; nopt++) {
    PetscCheck(nopt < 30, comm, PETSC_ERR_PLIB, "Too many options in configuration %s", cfg->name);
    ov[2 * nopt]     = cfg->opts[2 * nopt];
    ov[2 * nopt + 1] = cfg->opts[2 * nopt + 1];
    PetscBool isksp, ispc;
    PetscCall(PetscStrcmp(ov[2 * nopt], "mg_coarse_ksp_type", &isksp));
    PetscCall(PetscStrcmp(ov[2 * nopt], "mg_coarse_pc_type", &ispc));
    if (two && isksp) ov[2 * nopt + 1] = "preonly";
    if ((two || vpc) && ispc) ov[2 * nopt + 1] = "vpatch";
  }
  if (two || vpc) {
    ov[2 * nopt]     = "mg_coarse_pc_vpatch_precision";
    ov[2 * nopt + 1] = cfg->mgprec == VP_PRECISION_SINGLE ? "single" : "double";
    nopt++;
  }
  if (cfg->oddorder && dim == 3 && k % 2) {
    ov[2 * nopt]     = "mg_levels_up_pc_vpatch_colors";
    ov[2 * nopt + 1] = "7,1,2,3,4,5,6,0";
    nopt++;
  }
  if (two) {
    ov[2 * nopt]     = "mg_coarse_pc_vpatch_sweep"; /* one forward sweep solves the one patch exactly */
    ov[2 * nopt + 1] = "forward";
    nopt++;
  }
  for (PetscInt i = 0; i < nopt; i++) {
    PetscCall(PetscSNPrintf(name, sizeof(name), "-%s%s", prefix, ov[2 * i]));
    PetscCall(PetscOptionsHasName(NULL, NULL, name, &set));
    if (!set) PetscCall(PetscOptionsSetValue(NULL, name, ov[2 * i + 1]));
    mine[i] = (PetscBool)!set;
  }
  /* the operator apart from KSPSetUp, so that a peer's set-up time does not include the assembly of its matrix */
  PetscCall(VPSolveSync(device));
  PetscCall(PetscLogStagePush(stage[1]));
  PetscCall(PetscTime(&t0));
  PetscCall(DMCreateMatrix(dm, &A));
  PetscCall(VPSolveSync(device));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscLogStagePop());
  res->assemble = t1 - t0;
  PetscCall(KSPCreate(comm, &ksp));
  o->ksp = ksp;
  PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  PetscCall(KSPSetDM(ksp, dm));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetDMActive(ksp, KSP_DMACTIVE_OPERATOR, PETSC_FALSE));
  PetscCall(MatDestroy(&A));
  if (cfg->mg) {
    PC pc;
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCMG));
    PetscCall(PCMGSetLevels(pc, levels, NULL));
  }
  PetscCall(KSPSetDMActive(ksp, KSP_DMACTIVE_RHS, PETSC_FALSE));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 500));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetFromOptions(ksp));
  ownloop = cfg->ownloop;
  PetscCall(PetscSNPrintf(name, sizeof(name), "-%sown_loop", prefix));
  PetscCall(PetscOptionsGetBool(NULL, NULL, name, &ownloop, NULL));
  if (ownloop) { /* a test other than KSPConvergedDefault itself keeps KSPRICHARDSON in its own loop */
    void *cctx;
    PetscCall(KSPConvergedDefaultCreate(&cctx));
    PetscCall(KSPSetConvergenceTest(ksp, VPSolveConverged, cctx, KSPConvergedDefaultDestroy));
  }
  {
    PC        pc;
    PetscBool aux;
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCAUXAMG, &aux));
    if (aux) PetscCall(VPSolveSetCoordinates(dm, pc));
  }

  PetscCall(VPSolveSync(device));
  PetscCall(PetscLogStagePush(stage[1]));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSetUp(ksp));
  PetscCall(VPSolveSync(device));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscLogStagePop());
  res->setup = t1 - t0;
  for (PetscInt i = 0; i < nopt; i++) {
    if (!mine[i]) continue;
    PetscCall(PetscSNPrintf(name, sizeof(name), "-%s%s", prefix, ov[2 * i]));
    PetscCall(PetscOptionsClearValue(NULL, name));
  }
  PetscCall(PetscLogStagePush(stage[2]));
  PetscCall(VPSolveTimed(ksp, b, x, repeats, device, &res->solve));
  PetscCall(PetscLogStagePop());
  PetscCall(KSPGetIterationNumber(ksp, &res->its));
  PetscCall(KSPGetTolerances(ksp, &res->rtol, NULL, NULL, NULL));
  PetscCall(KSPGetConvergedReason(ksp, &res->reason));
  {
    KSPType type;
    PetscCall(KSPGetType(ksp, &type));
    PetscCall(PetscStrncpy(res->ksptype, type, sizeof(res->ksptype)));
  }
  res->devmem = -1;
#if defined(PETSC_HAVE_CUDA)
  if (device) { /* everything the solver allocated is still there */
    size_t mfree, mtotal;
    PetscCallCUDA(cudaMemGetInfo(&mfree, &mtotal));
    res->devmem = (PetscReal)(mtotal - mfree) / 1e9;
  }
#endif
  /* the residual vector is made after the solver is gone: at the largest sizes it would not fit beside it */
  PetscCall(KSPGetOperators(ksp, &A, NULL));
  PetscCall(PetscObjectReference((PetscObject)A));
  PetscCall(KSPDestroy(&o->ksp));
  PetscCall(VecDuplicate(x, &r));
  PetscCall(MatMult(A, x, r));
  PetscCall(MatDestroy(&A));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &rnorm));
  PetscCall(VecNorm(b, NORM_2, &bnorm));
  res->rrel = rnorm / bnorm;
  res->l2   = -1;
  PetscCall(DMQBoxGetOperatorWeights(dm, &res->mass, NULL));
  if (!ones && res->mass == 0) PetscCall(DMQBoxComputeError(dm, x, VPTestExactSin, NULL, &res->l2, NULL)); /* L2 only: the gradients would double the host time; with a mass term the sine is no solution */

  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one run of solver cfg (VPSolveRunIn()); what it made is freed also when it fails, and its error returned */
static inline PetscErrorCode VPSolveRun(MPI_Comm comm, PetscInt dim, PetscInt k, const PetscInt cells[3], const VPSolverConfig *cfg, PetscInt repeats, PetscBool ones, VPSolveResult *res)
{
  VPSolveObjects o = {NULL, NULL, NULL, NULL};
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  ierr = VPSolveRunIn(comm, dim, k, cells, cfg, repeats, ones, res, &o);
  PetscCall(KSPDestroy(&o.ksp));
  PetscCall(VecDestroy(&o.x));
  PetscCall(VecDestroy(&o.b));
  PetscCall(DMDestroy(&o.dm));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}
