static char help[] = "Full multigrid with the vertex-patch smoother (Algorithm 2 of Cui, Grosse-Bley, Kanschat, Strzodka 2024):\n\
-Laplace u = 1 on the unit square/cube, u = 0 on the boundary, Q_k on level L (2^L cells per direction).\n\
One FMG pass from the coarsest level (PCMG type full), then V-cycles on the finest level until\n\
||b - A x|| <= 1e-8 ||b||; prints the number of those V-cycles. With -table: the counts for k = 1..kmax with the\n\
vertex-patch smoother and with Chebyshev-Jacobi (PETSc's default level smoother; options prefix cj_); in 2D at\n\
level 4 the vertex-patch counts must equal those of an independent implementation of the same method (k = 1..4),\n\
and the reference's Table 1 is printed as information (its code counts differently: docs/math.md). The smoother is set by options\n\
(default: -mg_levels_ksp_type richardson -mg_levels_ksp_max_it 1 -mg_levels_pc_type vpatch; exact coarse solve).\n\n";

#include <petscvpatch.h>

static PetscErrorCode One(PetscInt dim, const PetscReal x[], PetscScalar *f, PetscScalar du[], void *ctx)
{
  PetscFunctionBeginUser;
  (void)dim;
  (void)x;
  (void)du;
  (void)ctx;
  *f = 1.0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetDefaultOption(const char prefix[], const char name[], const char value[])
{
  char      full[256];
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(full, sizeof(full), "-%s%s", prefix ? prefix : "", name + 1));
  PetscCall(PetscOptionsHasName(NULL, NULL, full, &set));
  if (!set && strstr(name, "_pc_vpatch_")) { /* a vpatch option only where the levels take vpatch */
    char pctype[64] = "vpatch";
    PetscCall(PetscSNPrintf(full, sizeof(full), "-%smg_levels_pc_type", prefix ? prefix : ""));
    PetscCall(PetscOptionsGetString(NULL, NULL, full, pctype, sizeof(pctype), NULL));
    set = (PetscBool)strcmp(pctype, "vpatch");
    PetscCall(PetscSNPrintf(full, sizeof(full), "-%s%s", prefix ? prefix : "", name + 1));
  }
  if (!set) PetscCall(PetscOptionsSetValue(NULL, full, value));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscInt  its;  /* V-cycles after the FMG pass (-1: not converged in maxit) */
  PetscReal rfmg; /* ||b - A x|| / ||b|| after the FMG pass */
  PetscReal rrel; /* final ||b - A x|| / ||b|| */
} FMGResult;

/* Algorithm 2: one FMG pass from the coarsest level, then V-cycles until ||b - A x|| <= rtol ||b||.
   The multigrid options are read with the given prefix; smoother defaults (-<prefix>mg_levels_*) come from defaults[]. */
static PetscErrorCode FMGSolve(MPI_Comm comm, const char prefix[], const char *const defaults[], PetscInt dim, PetscInt level, PetscInt clevel, PetscInt k, PetscBool ones, PetscReal rtol, PetscInt maxit, FMGResult *res)
{
  DM        dm;
  KSP       ksp;
  PC        pc;
  Mat       A;
  Vec       x, b, r, e;
  PetscInt  cells[3];
  PetscReal bnorm, rnorm;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < 3; d++) cells[d] = 1 << level;
  PetscCall(DMQBoxCreate(comm, dim, cells, k, NULL, NULL, &dm));
  PetscCall(DMSetFromOptions(dm));
  PetscCall(DMSetUp(dm));
  PetscCall(DMCreateGlobalVector(dm, &x));
  PetscCall(VecDuplicate(x, &b));
  PetscCall(VecDuplicate(x, &r));
  PetscCall(VecDuplicate(x, &e));
  PetscCall(DMQBoxComputeRHS(dm, One, NULL, NULL, b));
  if (ones) { /* b_i = 1 on every unknown, 0 on the Dirichlet rows: mark the unknowns with the load vector of f = 1 */
    PetscScalar *a;
    PetscInt     n;
    PetscCall(VecGetLocalSize(b, &n));
    PetscCall(VecGetArray(b, &a));
    for (PetscInt i = 0; i < n; i++) a[i] = a[i] != 0.0 ? 1.0 : 0.0;
    PetscCall(VecRestoreArray(b, &a));
  }

  for (PetscInt i = 0; defaults[i]; i += 2) PetscCall(SetDefaultOption(prefix, defaults[i], defaults[i + 1]));
  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  PetscCall(KSPSetDM(ksp, dm));
  PetscCall(KSPSetDMActive(ksp, KSP_DMACTIVE_RHS, PETSC_FALSE));
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCMG));
  PetscCall(PCMGSetLevels(pc, level - clevel + 1, NULL));
  /* set up as full multigrid: PCMG then gives the down smoothers a nonzero initial guess (in FMG each level's
     cycle starts from the interpolated coarse solution), also when the up smoothers are distinct */
  PetscCall(PCMGSetType(pc, PC_MG_FULL));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  PetscCall(KSPGetOperators(ksp, &A, NULL));

  /* one full-multigrid pass from the coarsest level */
  PetscCall(PCApply(pc, b, x));
  PetscCall(VecNorm(b, NORM_2, &bnorm));
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &rnorm));
  res->rfmg = rnorm / bnorm;
  /* then V-cycles on the finest level */
  PetscCall(PCMGSetType(pc, PC_MG_MULTIPLICATIVE));
  res->its = 0;
  while (rnorm > rtol * bnorm && res->its < maxit) {
    PetscCall(PCApply(pc, r, e));
    PetscCall(VecAXPY(x, 1.0, e));
    PetscCall(MatMult(A, x, r));
    PetscCall(VecAYPX(r, -1.0, b));
    PetscCall(VecNorm(r, NORM_2, &rnorm));
    res->its++;
  }
  res->rrel = rnorm / bnorm;
  if (rnorm > rtol * bnorm) res->its = -1;

  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&e));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the vertex-patch smoother, V(1,1), exact coarse solve (overridable by options) */
static const char *const VPatchDefaults[] = {"-mg_levels_ksp_type",
                                             "richardson",
                                             "-mg_levels_ksp_max_it",
                                             "1",
                                             "-mg_levels_pc_type",
                                             "vpatch",
                                             "-mg_levels_pc_vpatch_sweep",
                                             "forward",
                                             "-mg_coarse_ksp_type",
                                             "cg",
                                             "-mg_coarse_pc_type",
                                             "jacobi",
                                             "-mg_coarse_ksp_rtol",
                                             "1e-14",
                                             "-mg_coarse_ksp_max_it",
                                             "1000",
                                             NULL};
/* PETSc's default level smoother (Chebyshev, 2 iterations, Jacobi) on the same hierarchy, same coarse solve */
typedef enum {
  RHS_LOAD,
  RHS_ONES
} RHSType;
static const char *const RHSTypes[] = {"load", "ones", "RHSType", "RHS_", NULL};

static const char *const ChebyJacobiDefaults[] = {
    "-mg_levels_ksp_type", "chebyshev", "-mg_levels_ksp_max_it", "2", "-mg_levels_pc_type", "jacobi", "-mg_coarse_ksp_type", "cg", "-mg_coarse_pc_type", "jacobi", "-mg_coarse_ksp_rtol", "1e-14", "-mg_coarse_ksp_max_it", "1000", NULL};

/* Counts of an independent implementation of the same method (2D, level 4, one FMG pass then V(1,1) cycles to
   ||r|| <= 1e-8 ||b||, exact coarse solve on level 0), k = 1..4: the f = 1 load vector, and b = 1 on the unknowns */
static const PetscInt Independent2DLevel4[2][4] = {{4, 2, 2, 1}, {4, 3, 2, 2}};
/* Table 1 of the reference (2D, f = 1, rtol 1e-8), rows for levels 4 and 11, k = 1..10: information only. The
   reference's code counts from 1, sets b = 1 on the Dirichlet nodes too and adds the residual in its V-cycle */
static const PetscInt Table1Level4[10]  = {9, 5, 3, 3, 3, 2, 2, 2, 2, 2};
static const PetscInt Table1Level11[10] = {7, 5, 3, 3, 3, 2, 2, 2, 2, 2};

int main(int argc, char **argv)
{
  MPI_Comm  comm;
  PetscInt  dim = 2, level = 4, clevel = 0, k = 1, maxit = 100, kmax = -1, degrees[10] = {1}, ndeg = 10;
  RHSType   rhs  = RHS_LOAD;
  PetscReal rtol = 1e-8;
  PetscBool ones = PETSC_FALSE, table = PETSC_FALSE, compare = PETSC_TRUE, set;
  FMGResult res;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscVPatchInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscOptionsBegin(comm, NULL, "ex2 options", NULL);
  PetscCall(PetscOptionsInt("-dim", "Dimension", NULL, dim, &dim, NULL));
  PetscCall(PetscOptionsInt("-level", "Finest level L: 2^L cells per direction", NULL, level, &level, NULL));
  PetscCall(PetscOptionsInt("-coarse_level", "Coarsest multigrid level (2^l cells per direction; exact solve there)", NULL, clevel, &clevel, NULL));
  PetscCall(PetscOptionsIntArray("-degrees", "Q_k degrees (each solved in turn)", NULL, degrees, &ndeg, &set));
  if (!set) ndeg = 1; /* k = 1 */
  PetscCall(PetscOptionsEnum("-rhs", "Right-hand side: load (the load vector of f = 1) or ones (1 on the unknowns, the convention of the reference's code)", NULL, RHSTypes, (PetscEnum)rhs, (PetscEnum *)&rhs, NULL));
  PetscCall(PetscOptionsReal("-rtol", "Stop when ||b - A x|| <= rtol ||b||", NULL, rtol, &rtol, NULL));
  PetscCall(PetscOptionsInt("-maxit", "Most V-cycles after the FMG pass", NULL, maxit, &maxit, NULL));
  PetscCall(PetscOptionsBool("-table", "Print the counts for k = 1..kmax: vertex patch, Chebyshev-Jacobi (options prefix cj_), and the reference's Table 1 (2D)", NULL, table, &table, NULL));
  PetscCall(PetscOptionsInt("-table_kmax", "Largest degree of the table (default 10 in 2D, 6 in 3D)", NULL, kmax, &kmax, NULL));
  PetscCall(PetscOptionsBool("-table_chebyshev", "Include the Chebyshev-Jacobi column in the table", NULL, compare, &compare, NULL));
  PetscOptionsEnd();
  PetscCheck(dim == 2 || dim == 3, comm, PETSC_ERR_ARG_OUTOFRANGE, "-dim %" PetscInt_FMT " is not supported: use 2 or 3", dim);
  PetscCheck(rtol > 0 && rtol < 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-rtol %g: give a relative residual between 0 and 1, e.g. 1e-8", (double)rtol);
  PetscCheck(maxit >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-maxit %" PetscInt_FMT ": give at least 1 V-cycle", maxit);
  PetscCheck(level >= 1 && level <= (dim == 2 ? 15 : 10), comm, PETSC_ERR_ARG_OUTOFRANGE, "-level %" PetscInt_FMT ": use 1 <= level <= %d in %" PetscInt_FMT "D (2^level cells per direction)", level, dim == 2 ? 15 : 10, dim);
  PetscCheck(clevel >= 0 && clevel < level, comm, PETSC_ERR_ARG_OUTOFRANGE, "-coarse_level %" PetscInt_FMT ": use 0 <= coarse_level < level (%" PetscInt_FMT ")", clevel, level);

  ones = (PetscBool)(rhs == RHS_ONES);
  for (PetscInt i = 0; i < ndeg && !table; i++) {
    k = degrees[i];
    PetscCheck(k >= 1 && k <= (dim == 2 ? 10 : 8), comm, PETSC_ERR_ARG_OUTOFRANGE, "-degrees: %" PetscInt_FMT " is not in 1..%d (%" PetscInt_FMT "D)", k, dim == 2 ? 10 : 8, dim);
    PetscCall(FMGSolve(comm, NULL, VPatchDefaults, dim, level, clevel, k, ones, rtol, maxit, &res));
    if (res.its < 0) { /* one line, and exit status 1 */
      PetscCall(PetscFPrintf(comm, PETSC_STDERR, "ex2: FMG did not reach rtol %g in %" PetscInt_FMT " V-cycles (relative residual %.2e)\n", (double)rtol, maxit, (double)res.rrel));
      PetscCall(PetscFinalize());
      return 1;
    }
    PetscCall(PetscPrintf(comm, "%" PetscInt_FMT "D Q_%" PetscInt_FMT " level %" PetscInt_FMT ": FMG residual %.1e, then %" PetscInt_FMT " V-cycles to %.1e\n", dim, k, level, (double)res.rfmg, res.its, (double)res.rrel));
  }
  if (table) {
    const PetscBool ref = (PetscBool)(dim == 2 && rtol == 1e-8), indep = (PetscBool)(ref && level == 4 && clevel == 0);

    if (kmax < 0) kmax = dim == 2 ? 10 : 6;
    PetscCheck(kmax >= 1 && kmax <= (dim == 2 ? 10 : 8), comm, PETSC_ERR_ARG_OUTOFRANGE, "-table_kmax %" PetscInt_FMT ": use 1..%d in %" PetscInt_FMT "D", kmax, dim == 2 ? 10 : 8, dim);
    PetscCall(PetscPrintf(comm, "%" PetscInt_FMT "D, level %" PetscInt_FMT " (%d cells per direction), %s, V-cycles after one FMG pass to ||r|| <= %g ||b||\n", dim, level, 1 << level, ones ? "b = 1" : "f = 1", (double)rtol));
    PetscCall(PetscPrintf(comm, "   k  vertex-patch%s%s%s\n", indep ? "  independent" : "", compare ? "  chebyshev-jacobi" : "", ref ? "  reference(level 4)  reference(level 11)" : ""));
    for (PetscInt q = 1; q <= kmax; q++) {
      FMGResult cj = {0, 0, 0};

      PetscCall(FMGSolve(comm, NULL, VPatchDefaults, dim, level, clevel, q, ones, rtol, maxit, &res));
      if (compare) PetscCall(FMGSolve(comm, "cj_", ChebyJacobiDefaults, dim, level, clevel, q, ones, rtol, maxit, &cj));
      PetscCall(PetscPrintf(comm, "%4" PetscInt_FMT "  %12" PetscInt_FMT, q, res.its));
      if (indep && q <= 4)
        PetscCall(PetscPrintf(comm, "  %11" PetscInt_FMT, Independent2DLevel4[ones][q - 1]));
      else if (indep)
        PetscCall(PetscPrintf(comm, "  %11s", "-"));
      if (compare) PetscCall(PetscPrintf(comm, "  %16" PetscInt_FMT, cj.its));
      if (ref && q <= 10) PetscCall(PetscPrintf(comm, "  %19" PetscInt_FMT "  %19" PetscInt_FMT, Table1Level4[q - 1], Table1Level11[q - 1]));
      PetscCall(PetscPrintf(comm, "\n"));
      if (res.its < 0) {
        PetscCall(PetscFPrintf(comm, PETSC_STDERR, "ex2: Q_%" PetscInt_FMT ": the vertex-patch FMG did not reach rtol %g in %" PetscInt_FMT " V-cycles\n", q, (double)rtol, maxit));
        PetscCall(PetscFinalize());
        return 1;
      }
      if (indep && q <= 4)
        PetscCheck(res.its == Independent2DLevel4[ones][q - 1], comm, PETSC_ERR_PLIB, "Q_%" PetscInt_FMT ": %" PetscInt_FMT " V-cycles, but an independent implementation of the same method takes %" PetscInt_FMT, q, res.its,
                   Independent2DLevel4[ones][q - 1]);
    }
    if (compare) PetscCall(PetscPrintf(comm, "(chebyshev-jacobi -1: not converged in %" PetscInt_FMT " V-cycles)\n", maxit));
  }
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: 2d_k1
    args: -degrees 1 -level 4

  test:
    suffix: 2d_k3
    args: -degrees 3 -level 4

  test:
    suffix: 2d_k6
    args: -degrees 6 -level 4

  test:
    suffix: 2d_k10
    args: -degrees 10 -level 4

  test:
    suffix: 2d_k2_level6
    args: -degrees 2 -level 6

  test:
    suffix: 3d_k2
    args: -dim 3 -degrees 2 -level 3

  test:
    suffix: 2d_k1_rhs_ones
    args: -degrees 1 -level 4 -rhs ones

  test:
    suffix: 2d_k6_rhs_ones
    args: -degrees 6 -level 4 -rhs ones

  test:
    suffix: 3d_k1_level4
    args: -dim 3 -degrees 1 -level 4

  test:
    suffix: 3d_k3_level4
    args: -dim 3 -degrees 3 -level 4

  test:
    suffix: 3d_k6_level3
    args: -dim 3 -degrees 6 -level 3

  test:
    suffix: 2d_k3_cuda
    requires: cuda
    args: -degrees 3 -level 4 -dm_vec_type cuda
    output_file: ex2_2d_k3

  test:
    suffix: 3d_k2_cuda
    requires: cuda
    args: -dim 3 -degrees 2 -level 3 -dm_vec_type cuda
    output_file: ex2_3d_k2

  test:
    suffix: 2d_k10_cuda_separate
    requires: cuda
    args: -degrees 10 -level 4 -dm_vec_type cuda -mg_levels_pc_vpatch_kernel separate
    output_file: ex2_2d_k10

  test:
    suffix: 2d_table
    args: -table

  test:
    suffix: 2d_table_rhs_ones
    args: -table -rhs ones

  test:
    suffix: 2d_table_level5
    args: -table -level 5 -table_chebyshev 0

  test:
    suffix: 2d_table_level5_coarse1
    args: -table -level 5 -table_chebyshev 0 -coarse_level 1
    output_file: ex2_2d_table_level5

  test:
    suffix: 2d_table_level5_2ranks
    nsize: 2
    args: -table -level 5 -table_chebyshev 0 -coarse_level 1
    output_file: ex2_2d_table_level5

  test:
    suffix: 2d_table_level6_rhs_ones
    args: -table -level 6 -rhs ones

  test:
    suffix: 3d_table
    args: -table -dim 3 -level 3

  test:
    suffix: 3d_table_level4
    args: -table -dim 3 -level 4

  test:
    suffix: 2d_table_level7
    requires: slow
    args: -table -level 7 -table_chebyshev 0

  test:
    suffix: 2d_table_level8_rhs_ones
    requires: slow
    args: -table -level 8 -rhs ones -table_chebyshev 0

  test:
    suffix: 3d_table_level5
    requires: slow
    args: -table -dim 3 -level 5 -table_chebyshev 0

  test:
    suffix: 2d_k3_chebyshev_jacobi
    args: -degrees 3 -level 4 -mg_levels_ksp_type chebyshev -mg_levels_ksp_max_it 2 -mg_levels_pc_type jacobi

  test:
    suffix: not_converged
    args: -degrees 3 -level 4 -maxit 1 -rtol 1e-14
    expect_error: ex2: FMG did not reach rtol 1e-14 in 1 V-cycles

  test:
    suffix: level_too_large
    args: -level 31
    expect_error: -level 31: use 1 <= level <= 15 in 2D

  test:
    suffix: table_kmax_too_large
    args: -table -table_kmax 12
    expect_error: -table_kmax 12: use 1..10 in 2D

TEST*/
