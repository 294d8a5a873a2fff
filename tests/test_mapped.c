static char help[] = "The operator -div(a grad u) of a mapped DMQBOX (-dm_qbox_mapping, -dm_qbox_coefficient given as options) against\n\
independent computations: the matrix-free MatMult and MatGetDiagonal (sum factorization) against the assembled AIJ matrix\n\
(explicit cell matrices), symmetry, and on an unmapped box with a constant coefficient c the general path against c times the\n\
Cartesian fast path, and PCVPATCH's surrogate sweep there against the exact Cartesian sweep. With -gpu: the CUDA kernels\n\
against the CPU ones (double 1e-12, single 1e-5), the operator and PCVPATCH's sweep.\n\n";

#include <petscvpatch.h>
#include "vptest.h"

static PetscErrorCode Constant(PetscInt dim, const PetscReal x[], PetscReal *a, void *ctx)
{
  PetscFunctionBeginUser;
  (void)dim;
  (void)x;
  *a = *(PetscReal *)ctx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a product of 1D functions: exp(x + 2 y - z) */
static PetscErrorCode Product(PetscInt dim, const PetscReal x[], PetscReal *a, void *ctx)
{
  PetscFunctionBeginUser;
  (void)ctx;
  *a = PetscExpReal(x[0] + 2 * x[1] - (dim == 3 ? x[2] : 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 1 on the boundary of the box (0,1) x (-1,1) x (0.5,1) of the Cartesian check (its nodes there have these coordinates exactly) */
static PetscErrorCode OnBoundary(PetscInt dim, const PetscReal x[], PetscScalar *u, PetscScalar du[], void *ctx)
{
  const PetscReal lo[3] = {0, -1, 0.5}, up[3] = {1, 1, 1};

  PetscFunctionBeginUser;
  (void)du;
  (void)ctx;
  *u = 0;
  for (PetscInt d = 0; d < dim; d++)
    if (x[d] == lo[d] || x[d] == up[d]) *u = 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the DM of the options on comm; cuda: CUDA vectors; single: float arithmetic of the operator kernels */
static PetscErrorCode CreateDMOn(MPI_Comm comm, PetscBool cuda, PetscBool single, DM *dm)
{
  PetscInt cells[3] = {4, 4, 4};

  PetscFunctionBeginUser;
  PetscCall(DMQBoxCreate(comm, 3, cells, 2, NULL, NULL, dm));
  PetscCall(DMSetFromOptions(*dm));
  if (cuda) PetscCall(DMSetVecType(*dm, VECCUDA));
  if (single) PetscCall(DMQBoxSetPrecision(*dm, VP_PRECISION_SINGLE, VP_PRECISION_SINGLE));
  PetscCall(DMSetUp(*dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreateDM(PetscBool cuda, PetscBool single, DM *dm)
{
  PetscFunctionBeginUser;
  PetscCall(CreateDMOn(PETSC_COMM_WORLD, cuda, single, dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A x and (dh not NULL) the diagonal of the matrix of dm's type, for the same random x (host vectors out) */
static PetscErrorCode Apply(DM dm, MatType type, Vec xh, Vec yh, Vec dh)
{
  Mat A;
  Vec x, y;

  PetscFunctionBeginUser;
  PetscCall(DMSetMatType(dm, type));
  PetscCall(DMCreateMatrix(dm, &A));
  PetscCall(DMCreateGlobalVector(dm, &x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecCopy(xh, x));
  PetscCall(MatMult(A, x, y));
  PetscCall(VecCopy(y, yh));
  if (dh) {
    PetscCall(MatGetDiagonal(A, y));
    PetscCall(VecCopy(y, dh));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* r = b - A x by MatResidual() of the matrix-free operator of dm (host vectors in and out); naypx: the VecAYPX() it ran
   (none where the operator's kernel computed the residual itself) */
static PetscErrorCode Residual(DM dm, Vec xh, Vec bh, Vec rh, PetscLogDouble *naypx)
{
  Mat                A;
  Vec                x, b, r;
  PetscLogEvent      id;
  PetscEventPerfInfo i0, i1;

  PetscFunctionBeginUser;
  PetscCall(DMSetMatType(dm, MATSHELL));
  PetscCall(DMCreateMatrix(dm, &A));
  PetscCall(DMCreateGlobalVector(dm, &x));
  PetscCall(VecDuplicate(x, &b));
  PetscCall(VecDuplicate(x, &r));
  PetscCall(VecCopy(xh, x));
  PetscCall(VecCopy(bh, b));
  PetscCall(PetscLogEventGetId("VecAYPX", &id));
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, id, &i0));
  PetscCall(MatResidual(A, b, x, r));
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, id, &i1));
  *naypx = (PetscLogDouble)(i1.count - i0.count);
  PetscCall(VecCopy(r, rh));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&r));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one symmetric sweep of PCVPATCH (options with the prefix; fdm: the unscaled surrogate, whatever the DM's default;
   single: the patch kernels and the colors' residuals in float, as a mixed cycle runs them) */
static PetscErrorCode SweepPrecision(DM dm, const char prefix[], PetscBool fdm, PetscBool single, Vec x, Vec y)
{
  Mat A;
  PC  pc;

  PetscFunctionBeginUser;
  PetscCall(DMSetMatType(dm, MATSHELL));
  PetscCall(DMCreateMatrix(dm, &A));
  PetscCall(PCCreate(PetscObjectComm((PetscObject)dm), &pc));
  PetscCall(PCSetType(pc, PCVPATCH));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCVPatchSetSweep(pc, PC_VPATCH_SWEEP_SYMMETRIC));
  if (fdm) PetscCall(PCVPatchSetLocalSolver(pc, PC_VPATCH_LOCAL_FDM));
  if (single) PetscCall(PCVPatchSetPrecision(pc, VP_PRECISION_SINGLE));
  PetscCall(PCSetOptionsPrefix(pc, prefix));
  PetscCall(PCSetFromOptions(pc));
  PetscCall(PCSetUp(pc));
  PetscCall(PCApply(pc, x, y));
  PetscCall(PCDestroy(&pc));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Sweep(DM dm, const char prefix[], PetscBool fdm, Vec x, Vec y)
{
  PetscFunctionBeginUser;
  PetscCall(SweepPrecision(dm, prefix, fdm, PETSC_FALSE, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one sweep of PCVPATCH with the options on dm (any number of ranks) against the same on one rank (the DM of the
   options on PETSC_COMM_SELF), for b = prod_d sin(pi x_d): the largest difference of the owned entries and |y| */
static PetscErrorCode CompareWithOneRank(DM dm, PetscReal *diff, PetscReal *nrm)
{
  DM  ds;
  Vec b, y, bs, ys;

  PetscFunctionBeginUser;
  PetscCall(CreateDMOn(PETSC_COMM_SELF, PETSC_FALSE, PETSC_FALSE, &ds));
  PetscCall(DMCreateGlobalVector(dm, &b));
  PetscCall(VecDuplicate(b, &y));
  PetscCall(DMCreateGlobalVector(ds, &bs));
  PetscCall(VecDuplicate(bs, &ys));
  PetscCall(DMQBoxProjectFunction(dm, VPTestExactSin, NULL, b));
  PetscCall(DMQBoxProjectFunction(ds, VPTestExactSin, NULL, bs));
  PetscCall(Sweep(dm, NULL, PETSC_FALSE, b, y));
  PetscCall(Sweep(ds, NULL, PETSC_FALSE, bs, ys));
  PetscCall(VPTestOwnedMaxDiff(dm, y, ys, diff));
  PetscCall(VecNorm(y, NORM_INFINITY, nrm));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&bs));
  PetscCall(VecDestroy(&ys));
  PetscCall(DMDestroy(&ds));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM          dm, dm2;
  Vec         x, y, z, d, e;
  PetscRandom rnd;
  PetscReal   rel, rel2;
  PetscBool   gpu    = PETSC_FALSE;
  PetscInt    degree = 2; /* CreateDM()'s */

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscVPatchInitializePackage());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gpu", &gpu, NULL));
  if (gpu) PetscCall(PetscLogDefaultBegin()); /* event counts: which way MatResidual() went */
  PetscCall(CreateDM(PETSC_FALSE, PETSC_FALSE, &dm));
  PetscCall(DMCreateGlobalVector(dm, &x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &z));
  PetscCall(VecDuplicate(x, &d));
  PetscCall(VecDuplicate(x, &e));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(VecSetRandom(x, rnd));

  /* matrix-free against assembled */
  PetscCall(Apply(dm, MATSHELL, x, y, d));
  PetscCall(Apply(dm, MATAIJ, x, z, e));
  PetscCall(VPTestRelDiff(y, z, &rel));
  PetscCall(VPTestRelDiff(d, e, &rel2));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "matrix-free vs assembled: MatMult %s, diagonal %s\n", rel < 1e-12 ? "equal to 1e-12" : "DIFFERENT", rel2 < 1e-12 ? "equal to 1e-12" : "DIFFERENT"));
  PetscCheck(rel < 1e-12 && rel2 < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "mapped operator: matrix-free and assembled differ: MatMult %g, diagonal %g", (double)rel, (double)rel2);

  { /* symmetry: z^T A x = x^T A z */
    Mat         A;
    PetscScalar a, b;
    PetscCall(DMSetMatType(dm, MATSHELL));
    PetscCall(DMCreateMatrix(dm, &A));
    PetscCall(VecSetRandom(z, rnd));
    PetscCall(MatMult(A, x, y));
    PetscCall(VecDot(z, y, &a));
    PetscCall(MatMult(A, z, y));
    PetscCall(VecDot(x, y, &b));
    PetscCheck(PetscAbsScalar(a - b) <= 1e-12 * PetscAbsScalar(a), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "mapped operator not symmetric: %g vs %g", (double)PetscRealPart(a), (double)PetscRealPart(b));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "symmetric to 1e-12\n"));
    PetscCall(MatDestroy(&A));
  }

  { /* the general path on the box itself with a = c: c times the Cartesian fast path */
    PetscInt  cells[3] = {4, 4, 4};
    PetscReal c = 2.5, lo[3] = {0, -1, 0.5}, up[3] = {1, 1, 1};
    DM        dg, dc;
    Vec       xg;
    PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, 3, cells, 3, lo, up, &dg));
    PetscCall(DMQBoxSetCoefficient(dg, Constant, &c));
    PetscCall(DMSetUp(dg));
    PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, 3, cells, 3, lo, up, &dc));
    PetscCall(DMSetUp(dc));
    PetscCall(DMCreateGlobalVector(dg, &xg));
    PetscCall(VecSetRandom(xg, rnd));
    {
      Vec yg, yc, dgv, dcv;
      PetscCall(VecDuplicate(xg, &yg));
      PetscCall(VecDuplicate(xg, &yc));
      PetscCall(VecDuplicate(xg, &dgv));
      PetscCall(VecDuplicate(xg, &dcv));
      PetscCall(Apply(dg, MATSHELL, xg, yg, dgv));
      PetscCall(Apply(dc, MATSHELL, xg, yc, dcv));
      PetscCall(VecScale(yc, c));
      PetscCall(VecScale(dcv, c));
      { /* the Dirichlet rows are the identity in both: c L + (1 - c) B, B the 0/1 diagonal of the boundary nodes */
        Vec bnd, bx;
        PetscCall(VecDuplicate(xg, &bnd));
        PetscCall(VecDuplicate(xg, &bx));
        PetscCall(DMQBoxProjectFunction(dc, OnBoundary, NULL, bnd));
        PetscCall(VecPointwiseMult(bx, bnd, xg));
        PetscCall(VecAXPY(yc, 1.0 - c, bx));
        PetscCall(VecAXPY(dcv, 1.0 - c, bnd));
        PetscCall(VecDestroy(&bnd));
        PetscCall(VecDestroy(&bx));
      }
      PetscCall(VPTestRelDiff(yg, yc, &rel));
      PetscCall(VPTestRelDiff(dgv, dcv, &rel2));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "general path with a = 2.5 on the box vs 2.5 x Cartesian: MatMult %s, diagonal %s\n", rel < 1e-12 ? "equal to 1e-12" : "DIFFERENT", rel2 < 1e-12 ? "equal to 1e-12" : "DIFFERENT"));
      PetscCheck(rel < 1e-12 && rel2 < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "general path on a box: MatMult %g, diagonal %g off", (double)rel, (double)rel2);
      { /* PCVPATCH: the surrogate sweep of the general path is the exact sweep of the Laplacian divided by c (Dirichlet rows: y = x) */
        Vec bnd;
        PetscCall(VecDuplicate(xg, &bnd));
        PetscCall(DMQBoxProjectFunction(dc, OnBoundary, NULL, bnd));
        PetscCall(Sweep(dg, "box_", PETSC_TRUE, xg, yg)); /* the unscaled surrogate, exact on a box with a constant coefficient (a prefix of its own: no option of the command line) */
        PetscCall(Sweep(dc, "box_", PETSC_TRUE, xg, yc));
        PetscCall(VecPointwiseMult(dcv, bnd, yc));
        PetscCall(VecAXPBY(yc, 1.0 - 1.0 / c, 1.0 / c, dcv));
        PetscCall(VPTestRelDiff(yg, yc, &rel));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PCVPATCH on the general path with a = 2.5 vs the Cartesian sweep / 2.5: %s\n", rel < 1e-12 ? "equal to 1e-12" : "DIFFERENT"));
        PetscCheck(rel < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "surrogate sweep on a box: %g off", (double)rel);
        /* the default local solver with a coefficient (scaled) is exact here too, so each patch's damping, from its
           largest eigenvalue of P_v^-1 A_v = I, is 1 (one damping for all, min(0.7, 2.1/k), would differ by O(1)) */
        PetscCall(Sweep(dg, "boxs_", PETSC_FALSE, xg, yg));
        PetscCall(VPTestRelDiff(yg, yc, &rel));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PCVPATCH scaled, each patch its own damping, on the general path with a = 2.5 vs the Cartesian sweep / 2.5: %s\n", rel < 1e-12 ? "equal to 1e-12" : "DIFFERENT"));
        PetscCheck(rel < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "scaled sweep with the patches' dampings on a box: %g off", (double)rel);
        PetscCall(VecDestroy(&bnd));
      }
      PetscCall(VecDestroy(&yg));
      PetscCall(VecDestroy(&yc));
      PetscCall(VecDestroy(&dgv));
      PetscCall(VecDestroy(&dcv));
    }
    PetscCall(VecDestroy(&xg));
    PetscCall(DMDestroy(&dg));
    PetscCall(DMDestroy(&dc));
  }

  { /* the profile surrogate on the box with a coefficient that is a product of 1D functions: each patch's surrogate is
       its matrix, so the sweep with the unscaled surrogate is the sweep of exact patch solves (dense LU); the mean
       surrogate is not */
    PetscInt  cells[3] = {4, 4, 4};
    PetscReal lo[3] = {0, -1, 0.5}, up[3] = {1, 1, 1}, rp, rm;
    DM        dp;
    Vec       xp, yp, ye;
    PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, 3, cells, 3, lo, up, &dp));
    PetscCall(DMQBoxSetCoefficient(dp, Product, NULL));
    PetscCall(DMSetUp(dp));
    PetscCall(DMCreateGlobalVector(dp, &xp));
    PetscCall(VecDuplicate(xp, &yp));
    PetscCall(VecDuplicate(xp, &ye));
    PetscCall(VecSetRandom(xp, rnd));
    PetscCall(PetscOptionsSetValue(NULL, "-prof_pc_vpatch_surrogate", "profile"));
    PetscCall(PetscOptionsSetValue(NULL, "-mean_pc_vpatch_surrogate", "mean"));
    PetscCall(PetscOptionsSetValue(NULL, "-exact_pc_vpatch_local_solver", "dense"));
    PetscCall(Sweep(dp, "exact_", PETSC_FALSE, xp, ye));
    PetscCall(Sweep(dp, "prof_", PETSC_TRUE, xp, yp));
    PetscCall(VPTestRelDiff(yp, ye, &rp));
    PetscCall(Sweep(dp, "mean_", PETSC_TRUE, xp, yp));
    PetscCall(VPTestRelDiff(yp, ye, &rm));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PCVPATCH surrogate profile, a = exp(x + 2y - z) on the box, vs exact patch solves: %s (mean: %s)\n", rp < 1e-12 ? "equal to 1e-12" : "DIFFERENT", rm > 1e-3 ? "differs" : "EQUAL"));
    PetscCheck(rp < 1e-12 && rm > 1e-3, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "profile surrogate on a product coefficient: %g off the exact sweep (mean: %g)", (double)rp, (double)rm);
    PetscCall(VecDestroy(&xp));
    PetscCall(VecDestroy(&yp));
    PetscCall(VecDestroy(&ye));
    PetscCall(DMDestroy(&dp));
  }

  { /* PCVPATCH on the mapped operator (the separable surrogate): one symmetric sweep; with -gpu, CUDA against CPU */
    Vec                 ys   = NULL;
    PCVPatchLocalSolver ls   = PC_VPATCH_LOCAL_FDM;
    PetscInt            dim2 = 3;
    for (PetscInt dev = 0; dev < (gpu ? 2 : 1); dev++) {
      Vec xd, yd;
      PetscCall(CreateDM((PetscBool)dev, PETSC_FALSE, &dm2));
      PetscCall(DMCreateGlobalVector(dm2, &xd));
      PetscCall(VecDuplicate(xd, &yd));
      PetscCall(VecCopy(x, xd));
      if (dev) { /* in 3D (factors stored, stiffness only) each color's residual is formed patch by patch from the cells (VPPatchResid), on any number of ranks, else by MatResidual() */
        PetscLogEvent      id;
        PetscEventPerfInfo i0, i1;
        PetscBool          patchres = PETSC_TRUE, fly = PETSC_FALSE, expect;
        PetscInt           dim = 3;
        PetscCall(PetscOptionsGetBool(NULL, NULL, "-pc_vpatch_patch_residual", &patchres, NULL));
        PetscCall(PetscOptionsGetBool(NULL, NULL, "-dm_qbox_geometry_onthefly", &fly, NULL));
        PetscCall(PetscOptionsGetEnum(NULL, NULL, "-pc_vpatch_local_solver", PCVPatchLocalSolvers, (PetscEnum *)&ls, NULL));
        PetscCall(DMGetDimension(dm2, &dim));
        expect = (PetscBool)(patchres && !fly && dim == 3 && ls != PC_VPATCH_LOCAL_DENSE);
        PetscCall(PetscLogEventGetId("VPPatchResid", &id));
        PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, id, &i0));
        PetscCall(Sweep(dm2, NULL, PETSC_FALSE, xd, yd));
        PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, id, &i1));
        PetscCheck((i1.count > i0.count) == expect, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "PCVPATCH sweep on the GPU: the colors' residuals %s patch by patch, expected %s", i1.count > i0.count ? "were formed" : "were not formed", expect ? "yes" : "no");
      } else
        PetscCall(Sweep(dm2, NULL, PETSC_FALSE, xd, yd));
      if (!dev) { /* the sweep of the options on these ranks equals one rank's (the patches' dampings from the cells of other ranks too) */
        PetscReal ny, d1, n1;
        PetscCall(CompareWithOneRank(dm2, &d1, &n1));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PCVPATCH sweep vs one rank's: %s\n", d1 <= 1e-12 * n1 ? "equal to 1e-12" : "DIFFERENT"));
        PetscCheck(n1 > 0 && d1 <= 1e-12 * n1, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "PCVPATCH sweep differs from one rank's by %g (max %g)", (double)d1, (double)n1);
        PetscCall(VecDuplicate(x, &ys));
        PetscCall(VecCopy(yd, ys));
        PetscCall(VecNorm(ys, NORM_2, &ny));
        PetscCheck(ny > 0 && !PetscIsInfOrNanReal(ny), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "PCVPATCH on the mapped operator gave |y| = %g", (double)ny);
      } else {
        PetscCall(VecCopy(yd, z));
        PetscCall(VPTestRelDiff(z, ys, &rel));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PCVPATCH surrogate sweep, CUDA vs CPU: %s\n", rel < 1e-12 ? "equal to 1e-12" : "DIFFERENT"));
        PetscCheck(rel < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "PCVPATCH surrogate sweep, CUDA vs CPU: %g", (double)rel);
        /* the same sweep in float (the patch kernels and the colors' residuals): float's round-off, amplified by the
           patch solves' conditioning, stays below 1e-5 here */
        PetscCall(PetscOptionsGetEnum(NULL, NULL, "-pc_vpatch_local_solver", PCVPatchLocalSolvers, (PetscEnum *)&ls, NULL));
        PetscCall(DMGetDimension(dm2, &dim2));
        if (ls == PC_VPATCH_LOCAL_CG && dim2 != 3)
          PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PCVPATCH surrogate sweep, CUDA single: not run (the local solver cg computes in single precision in the 3D patch kernel only)\n"));
        else {
          PetscCall(SweepPrecision(dm2, NULL, PETSC_FALSE, PETSC_TRUE, xd, yd));
          PetscCall(VecCopy(yd, z));
          PetscCall(VPTestRelDiff(z, ys, &rel));
          PetscCall(PetscInfo(NULL, "PCVPATCH surrogate sweep, CUDA single vs CPU double: %g\n", (double)rel));
          PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PCVPATCH surrogate sweep, CUDA single vs CPU: %s\n", rel < 1e-5 ? "equal to 1e-5" : "DIFFERENT"));
          PetscCheck(rel < 1e-5, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "PCVPATCH surrogate sweep, CUDA single vs CPU double: %g", (double)rel);
        }
      }
      PetscCall(VecDestroy(&xd));
      PetscCall(VecDestroy(&yd));
      PetscCall(DMDestroy(&dm2));
    }
    PetscCall(VecDestroy(&ys));
  }

  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dm_qbox_degree", &degree, NULL));
  if (degree > 6)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PCVPATCH local solver cg: not checked above degree 6 (60 CG steps do not solve a patch of (2k-1)^3 unknowns exactly there)\n"));
  else { /* local solver cg: with as many CG steps as a patch has unknowns, each patch solve is exact (up to round-off), so the
       sweep is that of the dense LU of each patch's assembled matrix (an independent computation of the patch operator) */
    Vec ycg, yd;
    PetscCall(CreateDM(PETSC_FALSE, PETSC_FALSE, &dm2));
    PetscCall(DMCreateGlobalVector(dm2, &ycg));
    PetscCall(VecDuplicate(ycg, &yd));
    PetscCall(PetscOptionsSetValue(NULL, "-chk_cg_pc_vpatch_local_solver", "cg"));
    PetscCall(PetscOptionsSetValue(NULL, "-chk_cg_pc_vpatch_local_its", "60"));
    PetscCall(PetscOptionsSetValue(NULL, "-chk_lu_pc_vpatch_local_solver", "dense"));
    PetscCall(Sweep(dm2, "chk_cg_", PETSC_FALSE, x, ycg));
    PetscCall(Sweep(dm2, "chk_lu_", PETSC_FALSE, x, yd));
    PetscCall(VPTestRelDiff(ycg, yd, &rel));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PCVPATCH local solver cg (60 steps) vs dense LU: %s\n", rel < 1e-9 ? "equal to 1e-9" : "DIFFERENT"));
    PetscCheck(rel < 1e-9, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "PCVPATCH local solver cg with 60 steps vs the dense LU: %g off", (double)rel);
    if (gpu) { /* the CUDA kernel of local solver cg (2 steps) against the CPU one */
      DM  dmg;
      Vec xg, yg;
      PetscCall(PetscOptionsSetValue(NULL, "-chk_cg2_pc_vpatch_local_solver", "cg"));
      PetscCall(Sweep(dm2, "chk_cg2_", PETSC_FALSE, x, ycg));
      PetscCall(CreateDM(PETSC_TRUE, PETSC_FALSE, &dmg));
      PetscCall(DMCreateGlobalVector(dmg, &xg));
      PetscCall(VecDuplicate(xg, &yg));
      PetscCall(VecCopy(x, xg));
      PetscCall(Sweep(dmg, "chk_cg2_", PETSC_FALSE, xg, yg));
      PetscCall(VecCopy(yg, yd));
      PetscCall(VPTestRelDiff(yd, ycg, &rel));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PCVPATCH local solver cg, CUDA vs CPU: %s\n", rel < 1e-12 ? "equal to 1e-12" : "DIFFERENT"));
      PetscCheck(rel < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "PCVPATCH local solver cg, CUDA vs CPU: %g off", (double)rel);
      PetscCall(VecDestroy(&xg));
      PetscCall(VecDestroy(&yg));
      PetscCall(DMDestroy(&dmg));
    }
    PetscCall(VecDestroy(&ycg));
    PetscCall(VecDestroy(&yd));
    PetscCall(DMDestroy(&dm2));
  }

  if (gpu) { /* CUDA against CPU */
    PetscLogDouble na;
    PetscMPIInt    size;
    Vec            bh, rc;
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    PetscCall(VecDuplicate(x, &bh));
    PetscCall(VecDuplicate(x, &rc));
    PetscCall(VecSetRandom(bh, rnd));
    PetscCall(Residual(dm, x, bh, rc, &na)); /* the CPU's: MatMult() and VecAYPX() */
    PetscCall(Apply(dm, MATSHELL, x, y, d));
    for (PetscInt single = 0; single < 2; single++) {
      PetscCall(CreateDM(PETSC_TRUE, (PetscBool)single, &dm2));
      PetscCall(Apply(dm2, MATSHELL, x, z, e));
      PetscCall(VPTestRelDiff(z, y, &rel));
      PetscCall(VPTestRelDiff(e, d, &rel2));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "CUDA %s vs CPU: MatMult %s, diagonal %s\n", single ? "single" : "double", rel < (single ? 1e-5 : 1e-12) ? "equal" : "DIFFERENT", rel2 < 1e-12 ? "equal" : "DIFFERENT"));
      PetscCheck(rel < (single ? 1e-5 : 1e-12) && rel2 < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "CUDA %s mapped operator vs CPU: MatMult %g, diagonal %g", single ? "single" : "double", (double)rel, (double)rel2);
      /* MatResidual(): on one rank the kernel adds -A x into a copy of b (no VecAYPX), on several MatMult() and VecAYPX() */
      PetscCall(Residual(dm2, x, bh, e, &na));
      PetscCall(VPTestRelDiff(e, rc, &rel));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "CUDA %s vs CPU: MatResidual %s\n", single ? "single" : "double", rel < (single ? 1e-5 : 1e-12) ? "equal" : "DIFFERENT"));
      PetscCheck(rel < (single ? 1e-5 : 1e-12), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "CUDA %s mapped MatResidual vs CPU: %g", single ? "single" : "double", (double)rel);
      PetscCheck(na == (size == 1 ? 0 : 1), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "CUDA mapped MatResidual on %d rank(s) ran VecAYPX %g times, expected %d", size, (double)na, size == 1 ? 0 : 1);
      PetscCall(DMDestroy(&dm2));
    }
    PetscCall(VecDestroy(&bh));
    PetscCall(VecDestroy(&rc));
    { /* 3D, stored factors: once float factors are asked for (here by a sweep in single precision) the DM keeps the double
         ones as float high and low halves (-dm_qbox_geometry_split): the double operator and diagonal read their sum,
         equal to those of the double factors to 2^-48 per factor, checked to 1e-13 (the high halves alone are about
         1e-8 off); a second set-up in single precision (surrogate, diagonal) reads the halves and leaves them split, its
         sweep equal to the first to float's round-off; a double consumer (a sweep in double) joins them back. Event
         VPGeoSplit counts the split and the join. */
      PetscBool          fly  = PETSC_FALSE, expect;
      PetscInt           dims = 3;
      PetscLogEvent      sid;
      PetscEventPerfInfo s0, s1, s2, s3;
      PetscReal          rel3, rel4;
      Vec                xd, yd, ys1, z0, d0;
      PetscCall(PetscOptionsGetBool(NULL, NULL, "-dm_qbox_geometry_onthefly", &fly, NULL));
      PetscCall(CreateDM(PETSC_TRUE, PETSC_FALSE, &dm2));
      PetscCall(DMGetDimension(dm2, &dims));
      expect = (PetscBool)(dims == 3 && !fly);
      PetscCall(DMCreateGlobalVector(dm2, &xd));
      PetscCall(VecDuplicate(xd, &yd));
      PetscCall(VecDuplicate(xd, &ys1));
      PetscCall(VecDuplicate(x, &z0));
      PetscCall(VecDuplicate(x, &d0));
      PetscCall(VecCopy(x, xd));
      PetscCall(Apply(dm2, MATSHELL, x, z0, d0));
      PetscCall(PetscLogEventGetId("VPGeoSplit", &sid));
      PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, sid, &s0));
      PetscCall(SweepPrecision(dm2, "split_", PETSC_FALSE, PETSC_TRUE, xd, ys1));
      PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, sid, &s1));
      PetscCheck((s1.count > s0.count) == expect, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the factors were %s after a sweep in single precision, expected %s", s1.count > s0.count ? "split" : "not split", expect ? "split" : "not");
      PetscCall(Apply(dm2, MATSHELL, x, z, e));
      PetscCall(VPTestRelDiff(z, z0, &rel));
      PetscCall(VPTestRelDiff(e, d0, &rel2));
      PetscCall(SweepPrecision(dm2, "split_", PETSC_FALSE, PETSC_TRUE, xd, yd));
      PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, sid, &s2));
      PetscCheck(s2.count == s1.count, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the operator, its diagonal or a set-up in single precision joined the split factors");
      PetscCall(VecAXPY(yd, -1.0, ys1));
      PetscCall(VecNorm(yd, NORM_2, &rel3));
      PetscCall(VecNorm(ys1, NORM_2, &rel4));
      PetscCall(Sweep(dm2, "split_", PETSC_FALSE, xd, yd));
      PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, sid, &s3));
      PetscCheck((s3.count > s2.count) == expect, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the split factors were %s by a sweep in double, expected %s", s3.count > s2.count ? "joined" : "not joined", expect ? "joined" : "not");
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "CUDA double on the factors as float halves vs on the double factors: MatMult %s, diagonal %s\n", rel < 1e-13 ? "equal to 1e-13" : "DIFFERENT", rel2 < 1e-13 ? "equal to 1e-13" : "DIFFERENT"));
      PetscCheck(rel < 1e-13 && rel2 < 1e-13, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "CUDA double MatMult %g, diagonal %g off on the split factors", (double)rel, (double)rel2);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "CUDA single sweep set up on the float halves vs on the double factors: %s\n", rel3 <= 1e-6 * rel4 ? "equal to 1e-6" : "DIFFERENT"));
      PetscCheck(rel4 > 0 && rel3 <= 1e-6 * rel4, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "CUDA single sweep set up on the split factors %g off (relative)", (double)(rel3 / rel4));
      PetscCall(Apply(dm2, MATSHELL, x, z, NULL));
      PetscCall(VPTestRelDiff(z, z0, &rel));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "CUDA double on the factors joined back vs on the double factors: MatMult %s\n", rel < 1e-13 ? "equal to 1e-13" : "DIFFERENT"));
      PetscCheck(rel < 1e-13, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "CUDA double MatMult on the joined factors %g off", (double)rel);
      PetscCall(VecDestroy(&xd));
      PetscCall(VecDestroy(&yd));
      PetscCall(VecDestroy(&ys1));
      PetscCall(VecDestroy(&z0));
      PetscCall(VecDestroy(&d0));
      PetscCall(DMDestroy(&dm2));
    }
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&d));
  PetscCall(VecDestroy(&e));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: shell
    args: -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_coefficient_contrast 100

  test:
    suffix: deformed_np3
    nsize: 3
    args: -dm_qbox_mapping deformed -dm_qbox_deform_amplitude 0.15 -dm_qbox_coefficient oscillatory
    output_file: test_mapped_shell

  test:
    suffix: shell_2d
    args: -dm_qbox_dim 2 -dm_qbox_degree 4 -dm_qbox_cells 6 -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory
    output_file: test_mapped_shell

  test:
    suffix: shell_dense_np3
    nsize: 3
    args: -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_coefficient_contrast 100 -pc_vpatch_local_solver dense
    output_file: test_mapped_shell

  test:
    suffix: shell_cg_np3
    nsize: 3
    args: -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_coefficient_contrast 1e4 -pc_vpatch_local_solver cg
    output_file: test_mapped_shell

  test:
    suffix: gpu
    requires: cuda
    args: -gpu -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_degree 3
    output_file: test_mapped_gpu

  test:
    suffix: gpu_onthefly
    requires: cuda
    args: -gpu -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_degree 3 -dm_qbox_geometry_onthefly
    output_file: test_mapped_gpu

  test:
    suffix: gpu_onthefly_k1
    requires: cuda
    args: -gpu -dm_qbox_mapping deformed -dm_qbox_coefficient oscillatory -dm_qbox_degree 1 -dm_qbox_geometry_onthefly
    output_file: test_mapped_gpu

  test:
    suffix: gpu_onthefly_k6
    requires: cuda
    args: -gpu -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_degree 6 -dm_qbox_cells 2 -dm_qbox_geometry_onthefly
    output_file: test_mapped_gpu

  # the split of the factors into float halves in several chunks: 2.65 MB of low halves at 12^3 cells, in two chunks of
  # 2 MB (the granularity), the second partly filled
  test:
    suffix: gpu_split_chunks
    requires: cuda
    args: -gpu -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_degree 3 -dm_qbox_cells 12 -dm_qbox_geometry_split_chunk 1
    output_file: test_mapped_gpu

  test:
    suffix: gpu_np2
    requires: cuda
    nsize: 2
    args: -gpu -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_degree 3
    output_file: test_mapped_gpu

  # the default where the DM has a coefficient: the surrogate scaled by the diagonal (local solver scaled)
  test:
    suffix: shell_scaled_np3
    nsize: 3
    args: -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_coefficient_contrast 1e4 -pc_vpatch_local_solver scaled
    output_file: test_mapped_shell

  # with a coefficient the default is the scaled solver: the unscaled surrogate, asked for, CPU and GPU
  test:
    suffix: shell_fdm
    args: -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_coefficient_contrast 100 -pc_vpatch_local_solver fdm
    output_file: test_mapped_shell

  test:
    suffix: gpu_fdm
    requires: cuda
    args: -gpu -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_degree 3 -pc_vpatch_local_solver fdm
    output_file: test_mapped_gpu

  test:
    suffix: gpu_scaled
    requires: cuda
    args: -gpu -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_degree 3 -pc_vpatch_local_solver scaled
    output_file: test_mapped_gpu

  # each color's residual patch by patch (the default on one rank in 3D) at every degree the kernel batches differently,
  # and the whole residual by MatResidual(): the sweeps equal to the CPU's
  test:
    suffix: gpu_scaled_k1
    requires: cuda
    args: -gpu -dm_qbox_mapping deformed -dm_qbox_coefficient oscillatory -dm_qbox_degree 1 -dm_qbox_cells 6
    output_file: test_mapped_gpu

  test:
    suffix: gpu_scaled_k5
    requires: cuda
    args: -gpu -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_degree 5 -dm_qbox_cells 3
    output_file: test_mapped_gpu

  test:
    suffix: gpu_scaled_k7
    requires: cuda
    args: -gpu -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_degree 7 -dm_qbox_cells 3
    output_file: test_mapped_gpu_highk

  test:
    suffix: gpu_scaled_k8
    requires: cuda
    args: -gpu -dm_qbox_mapping deformed -dm_qbox_degree 8 -dm_qbox_cells 2
    output_file: test_mapped_gpu_highk

  test:
    suffix: gpu_wholeres
    requires: cuda
    args: -gpu -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_degree 3 -pc_vpatch_patch_residual 0
    output_file: test_mapped_gpu

  # 8 ranks in a 2 x 2 x 2 grid: each rank's layer of cells below has all three parts (z, y, x), the GPU's layer
  # factors and surrogate against the CPU's, and the sweep against one rank's
  test:
    suffix: gpu_np8
    requires: cuda
    nsize: 8
    args: -gpu -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_degree 2 -dm_qbox_cells 6
    output_file: test_mapped_gpu

  test:
    suffix: gpu_scaled_2d_np2
    requires: cuda
    nsize: 2
    args: -gpu -dm_qbox_dim 2 -dm_qbox_degree 4 -dm_qbox_cells 8 -dm_qbox_mapping deformed -dm_qbox_coefficient oscillatory -pc_vpatch_local_solver scaled
    output_file: test_mapped_gpu

  # the surrogate's factors made by the GPU (vpatch_surrogate.cu) for each scaling, and across ranks (the layer of cells
  # below a rank's from the host): the sweep equal to the CPU's
  test:
    suffix: gpu_mean
    requires: cuda
    args: -gpu -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_degree 3 -pc_vpatch_local_solver fdm -pc_vpatch_surrogate mean
    output_file: test_mapped_gpu

  test:
    suffix: gpu_cellmax_np2
    requires: cuda
    nsize: 2
    args: -gpu -dm_qbox_mapping deformed -dm_qbox_coefficient oscillatory -dm_qbox_degree 2 -pc_vpatch_local_solver fdm -pc_vpatch_surrogate cellmax
    output_file: test_mapped_gpu

  test:
    suffix: gpu_cg
    requires: cuda
    args: -gpu -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_degree 3 -pc_vpatch_local_solver cg

  # the local solver cg in the patch kernel: on two ranks (the cells below the rank's), at k = 7 (two blocks per SM in
  # float), and in 2D (the separate CG kernel)
  test:
    suffix: gpu_cg_np2
    requires: cuda
    nsize: 2
    args: -gpu -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_degree 3 -pc_vpatch_local_solver cg
    output_file: test_mapped_gpu_cg

  test:
    suffix: gpu_cg_k7
    requires: cuda
    args: -gpu -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_degree 7 -dm_qbox_cells 2 -pc_vpatch_local_solver cg -pc_vpatch_local_its 4

  test:
    suffix: gpu_cg_2d
    requires: cuda
    args: -gpu -dm_qbox_dim 2 -dm_qbox_degree 4 -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -pc_vpatch_local_solver cg

  # the profile surrogate (each patch its own eigenpairs): on 3 ranks against one rank's (CPU), and the GPU's patch kernel
  # against the CPU (scaled with the patches' dampings, fdm on two ranks with the cells below, cg, k = 7)
  test:
    suffix: shell_profile_np3
    nsize: 3
    args: -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_coefficient_contrast 1e6 -pc_vpatch_surrogate profile
    output_file: test_mapped_shell

  test:
    suffix: gpu_profile
    requires: cuda
    args: -gpu -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_degree 3 -pc_vpatch_surrogate profile
    output_file: test_mapped_gpu

  test:
    suffix: gpu_profile_fdm_np2
    requires: cuda
    nsize: 2
    args: -gpu -dm_qbox_mapping deformed -dm_qbox_coefficient oscillatory -dm_qbox_degree 2 -pc_vpatch_local_solver fdm -pc_vpatch_surrogate profile
    output_file: test_mapped_gpu

  test:
    suffix: gpu_profile_cg
    requires: cuda
    args: -gpu -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_degree 3 -pc_vpatch_local_solver cg -pc_vpatch_surrogate profile
    output_file: test_mapped_gpu_cg

  test:
    suffix: gpu_profile_k7
    requires: cuda
    args: -gpu -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_degree 7 -dm_qbox_cells 3 -pc_vpatch_surrogate profile
    output_file: test_mapped_gpu_highk

  test:
    suffix: gpu_2d_np2
    requires: cuda
    nsize: 2
    args: -gpu -dm_qbox_dim 2 -dm_qbox_degree 5 -dm_qbox_cells 8 -dm_qbox_mapping deformed -dm_qbox_coefficient oscillatory
    output_file: test_mapped_gpu

TEST*/
