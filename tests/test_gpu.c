static char help[] = "GPU kernels against the CPU path of the same code, on random data: Laplacian (MatMult, MatMultAdd,\n\
MatResidual, MatGetDiagonal), transfer (MatMult, MatMultTranspose), and PCVPATCH (PCApply forward, PCApplyTranspose, symmetric,\n\
PCApplyRichardson from a nonzero iterate and from zero). Relative differences must be < 1e-12; the vpatch sweep must be bitwise\n\
reproducible run to run. With -single the GPU runs the single-precision kernels (operator, transfer, smoother) and\n\
the bound is 1e-5 against the double CPU path; then also a single sweep from a smooth iterate on a double operator with\n\
-pc_vpatch_correction mixed must land at least 10x closer to the double sweep than in place. Needs a GPU and a PETSc\n\
with CUDA.\n\n";

#include <petscvpatch.h>
#include "vptest.h"

static PetscReal tol    = 1e-12;
static PetscBool single = PETSC_FALSE;

/* copy the values of a (host) vector into a vector of another type with the same layout */
static PetscErrorCode CopyValues(Vec src, Vec dst)
{
  const PetscScalar *a;
  PetscScalar       *b;
  PetscInt           n;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(src, &n));
  PetscCall(VecGetArrayRead(src, &a));
  PetscCall(VecGetArrayWrite(dst, &b));
  for (PetscInt i = 0; i < n; i++) b[i] = a[i];
  PetscCall(VecRestoreArrayWrite(dst, &b));
  PetscCall(VecRestoreArrayRead(src, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* how many times VecAYPX() has run (PETSc's event count; logging is on) */
static PetscErrorCode AYPXCount(PetscLogDouble *n)
{
  PetscLogEvent      id;
  PetscEventPerfInfo info;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventGetId("VecAYPX", &id));
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, id, &info));
  *n = (PetscLogDouble)info.count;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* || gpu - cpu || / || cpu ||, computed on the host */
static PetscErrorCode Compare(Vec gpu, Vec cpu, const char what[], PetscInt dim, PetscInt k)
{
  const PetscScalar *a, *b;
  PetscInt           n;
  PetscReal          loc[2] = {0, 0}, glob[2];

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(cpu, &n));
  PetscCall(VecGetArrayRead(gpu, &a));
  PetscCall(VecGetArrayRead(cpu, &b));
  for (PetscInt i = 0; i < n; i++) {
    loc[0] += PetscRealPart(PetscConj(a[i] - b[i]) * (a[i] - b[i]));
    loc[1] += PetscRealPart(PetscConj(b[i]) * b[i]);
  }
  PetscCall(VecRestoreArrayRead(gpu, &a));
  PetscCall(VecRestoreArrayRead(cpu, &b));
  PetscCallMPI(MPIU_Allreduce(loc, glob, 2, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
  PetscCheck(glob[1] > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT "D Q_%" PetscInt_FMT " %s: the CPU result is zero, the check would prove nothing", dim, k, what);
  PetscCheck(PetscSqrtReal(glob[0] / glob[1]) < tol, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT "D Q_%" PetscInt_FMT " %s: GPU and CPU differ by %g (relative), more than %g", dim, k, what, (double)PetscSqrtReal(glob[0] / glob[1]),
             (double)tol);
  /* single precision must really be single: a double-precision result would agree to 1e-12 */
  if (single && glob[0] > 0) PetscCheck(PetscSqrtReal(glob[0] / glob[1]) > 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT "D Q_%" PetscInt_FMT " %s: the single-precision GPU result equals the double CPU result to 1e-12", dim, k, what);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MakeDM(PetscInt dim, const PetscInt cells[], PetscInt k, VecType vt, DM *dm)
{
  const PetscReal lower[3] = {0, 0, 0}, upper[3] = {1.0, 0.7, 1.3};

  PetscFunctionBeginUser;
  PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, dim, cells, k, lower, upper, dm));
  PetscCall(DMSetVecType(*dm, vt));
  PetscCall(DMSetFromOptions(*dm)); /* e.g. -dm_qbox_deterministic */
  if (single) {
    PetscBool iscuda;
    PetscCall(PetscStrcmp(vt, VECCUDA, &iscuda));
    if (iscuda) PetscCall(DMQBoxSetPrecision(*dm, VP_PRECISION_SINGLE, VP_PRECISION_SINGLE));
  }
  PetscCall(DMSetUp(*dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MakePC(DM dm, Mat A, PCVPatchSweep s, PCVPatchKernel kv, PC *pc)
{
  PetscFunctionBeginUser;
  PetscCall(PCCreate(PETSC_COMM_WORLD, pc));
  PetscCall(PCSetType(*pc, PCVPATCH));
  PetscCall(PCSetOperators(*pc, A, A));
  PetscCall(PCSetDM(*pc, dm));
  PetscCall(PCVPatchSetSweep(*pc, s));
  PetscCall(PCVPatchSetKernel(*pc, kv));
  if (single) {
    VecType   vt;
    PetscBool iscuda;
    PetscCall(DMGetVecType(dm, &vt));
    PetscCall(PetscStrcmp(vt, VECCUDA, &iscuda));
    if (iscuda) PetscCall(PCVPatchSetPrecision(*pc, VP_PRECISION_SINGLE));
  }
  PetscCall(PCSetFromOptions(*pc)); /* e.g. -pc_vpatch_patches_per_block */
  PetscCall(PCSetUp(*pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Smooth(PetscInt dim, const PetscReal x[], PetscScalar *u, PetscScalar du[], void *ctx)
{
  PetscFunctionBeginUser;
  (void)ctx;
  (void)du;
  *u = 1e3;
  for (PetscInt d = 0; d < dim; d++) *u *= PetscSinReal(PETSC_PI * x[d]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -pc_vpatch_correction mixed on a double operator (the finest level of a mixed hierarchy): one single-precision sweep
   from an iterate x with a large smooth part (b = A x + a small random r) on the correction of b - A x lands much closer
   to the double sweep's result than the sweep in place, whose local residuals round relative to x */
static PetscErrorCode CheckCorrection(PetscInt dim, const PetscInt cells[], PetscInt k, PetscRandom rnd)
{
  DM                          dm;
  Mat                         A;
  Vec                         x, b, r, y[3];
  PC                          pc[3];
  const VPPrecision           prec[3] = {VP_PRECISION_DOUBLE, VP_PRECISION_SINGLE, VP_PRECISION_SINGLE};
  PetscReal                   e[2], yn;
  PetscInt                    its;
  PCRichardsonConvergedReason reason;

  PetscFunctionBeginUser;
  PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, dim, cells, k, NULL, NULL, &dm));
  PetscCall(DMSetVecType(dm, VECCUDA));
  PetscCall(DMSetUp(dm)); /* the operator in double */
  PetscCall(DMCreateMatrix(dm, &A));
  PetscCall(DMCreateGlobalVector(dm, &x));
  PetscCall(VecDuplicate(x, &b));
  PetscCall(VecDuplicate(x, &r));
  PetscCall(DMQBoxProjectFunction(dm, Smooth, NULL, x));
  PetscCall(MatMult(A, x, b));
  PetscCall(VecSetRandom(r, rnd));
  PetscCall(VecAXPY(b, 1e-3, r));
  for (PetscInt i = 0; i < 3; i++) {
    PetscCall(PCCreate(PETSC_COMM_WORLD, &pc[i]));
    PetscCall(PCSetType(pc[i], PCVPATCH));
    PetscCall(PCSetOperators(pc[i], A, A));
    PetscCall(PCVPatchSetSweep(pc[i], PC_VPATCH_SWEEP_FORWARD));
    PetscCall(PCVPatchSetPrecision(pc[i], prec[i]));
    if (i == 2) PetscCall(PCVPatchSetCorrection(pc[i], PC_VPATCH_CORRECTION_MIXED));
    PetscCall(PCSetUp(pc[i]));
    PetscCall(VecDuplicate(x, &y[i]));
    PetscCall(VecCopy(x, y[i]));
    PetscCall(PCApplyRichardson(pc[i], b, y[i], NULL, 0, 0, 0, 1, PETSC_FALSE, &its, &reason));
  }
  PetscCall(VecNorm(y[0], NORM_2, &yn));
  for (PetscInt i = 1; i < 3; i++) {
    PetscCall(VecAXPY(y[i], -1.0, y[0]));
    PetscCall(VecNorm(y[i], NORM_2, &e[i - 1]));
  }
  PetscCall(
      PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT "D Q_%" PetscInt_FMT ": a single sweep from a smooth iterate differs from the double one by %.2e in place, %.2e on the correction (relative)\n", dim, k, (double)(e[0] / yn), (double)(e[1] / yn)));
  PetscCheck(e[0] > 0 && e[1] <= 0.1 * e[0], PETSC_COMM_WORLD, PETSC_ERR_PLIB,
             "%" PetscInt_FMT "D Q_%" PetscInt_FMT ": -pc_vpatch_correction mixed on a double operator: the single sweep differs from the double one by %g, in place by %g: expected at most a tenth", dim, k, (double)(e[1] / yn), (double)(e[0] / yn));
  for (PetscInt i = 0; i < 3; i++) {
    PetscCall(PCDestroy(&pc[i]));
    PetscCall(VecDestroy(&y[i]));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&r));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt    dim = 2, degrees[10], ndeg, cells[3] = {4, 4, 4}, ncells = 3;
  PetscRandom rnd;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscVPatchInitializePackage());
  PetscCall(PetscLogDefaultBegin()); /* event counts: which way MatResidual() went */
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-single", &single, NULL));
  if (single) tol = 1e-5;
  PetscCall(VPTestGetDegrees(dim == 2 ? 10 : 8, degrees, &ndeg));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-cells", cells, &ncells, NULL)); /* absent: the defaults stay */
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));
  for (PetscInt i = 0; i < ndeg; i++) {
    PetscInt  k = degrees[i], half[3] = {cells[0] / 2, cells[1] / 2, cells[2] / 2};
    DM        dc, dg, dcc, dgc;
    Mat       Ac, Ag, Pc, Pg;
    PC        pcc, pcg;
    Vec       xc, yc, zc, xg, yg, zg, wg, cxc, cyc, cxg, cyg;
    PetscBool equal, deterministic = PETSC_FALSE;

    PetscCall(MakeDM(dim, cells, k, VECSTANDARD, &dc));
    PetscCall(MakeDM(dim, cells, k, VECCUDA, &dg));
    PetscCall(MakeDM(dim, half, k, VECSTANDARD, &dcc));
    PetscCall(MakeDM(dim, half, k, VECCUDA, &dgc));
    PetscCall(DMCreateMatrix(dc, &Ac));
    PetscCall(DMCreateMatrix(dg, &Ag));
    PetscCall(DMCreateGlobalVector(dc, &xc));
    PetscCall(VecDuplicate(xc, &yc));
    PetscCall(VecDuplicate(xc, &zc));
    PetscCall(DMCreateGlobalVector(dg, &xg));
    PetscCall(VecDuplicate(xg, &yg));
    PetscCall(VecDuplicate(xg, &zg));
    PetscCall(VecDuplicate(xg, &wg));
    PetscCall(VecSetRandom(xc, rnd));
    PetscCall(VecSetRandom(zc, rnd));
    PetscCall(CopyValues(xc, xg));
    PetscCall(CopyValues(zc, zg));

    /* operator */
    PetscCall(MatMult(Ac, xc, yc));
    PetscCall(MatMult(Ag, xg, yg));
    PetscCall(Compare(yg, yc, "MatMult", dim, k));
    PetscCall(MatMultAdd(Ac, xc, zc, yc));
    PetscCall(MatMultAdd(Ag, xg, zg, yg));
    PetscCall(Compare(yg, yc, "MatMultAdd", dim, k));
    /* the residual z - A x: on one rank the GPU computes it in the operator's kernel (-dm_qbox_fused_residual), the CPU
       by MatMult and VecAYPX; the same for 2 A + 7 M (MatScale(), MatAXPY() with the mass matrix: the operator's weights,
       which the kernels take), while A + 3 I (MatShift(), which the kernels do not take) goes through MatMult and VecAYPX */
    {
      PetscLogDouble n0, n1, n2;
      PetscMPIInt    size;
      Mat            Mc, Mg;
      PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
      PetscCall(MatResidual(Ac, zc, xc, yc));
      PetscCall(AYPXCount(&n0));
      PetscCall(MatResidual(Ag, zg, xg, yg));
      PetscCall(AYPXCount(&n1));
      PetscCall(Compare(yg, yc, "MatResidual", dim, k));
      /* one rank: the kernel's residual, no VecAYPX; several: MatMult and VecAYPX */
      PetscCheck(n1 - n0 == (size == 1 ? 0 : 1), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT "D Q_%" PetscInt_FMT ": MatResidual of the GPU operator on %d rank(s) ran VecAYPX %d times, expected %d", dim, k, size, (int)(n1 - n0),
                 size == 1 ? 0 : 1);
      PetscCall(DMCreateMassMatrix(dc, dc, &Mc));
      PetscCall(DMCreateMassMatrix(dg, dg, &Mg));
      PetscCall(MatScale(Ac, 2.0));
      PetscCall(MatScale(Ag, 2.0));
      PetscCall(MatAXPY(Ac, 7.0, Mc, SAME_NONZERO_PATTERN));
      PetscCall(MatAXPY(Ag, 7.0, Mg, SAME_NONZERO_PATTERN));
      PetscCall(MatMult(Ac, xc, yc));
      PetscCall(MatMult(Ag, xg, yg));
      PetscCall(Compare(yg, yc, "MatMult of 2 A + 7 M", dim, k));
      PetscCall(MatResidual(Ac, zc, xc, yc));
      PetscCall(AYPXCount(&n1));
      PetscCall(MatResidual(Ag, zg, xg, yg));
      PetscCall(AYPXCount(&n2));
      PetscCall(Compare(yg, yc, "MatResidual of 2 A + 7 M", dim, k));
      PetscCheck(n2 - n1 == (size == 1 ? 0 : 1), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT "D Q_%" PetscInt_FMT ": MatResidual of 2 A + 7 M on the GPU ran VecAYPX %d times, expected %d", dim, k, (int)(n2 - n1), size == 1 ? 0 : 1);
      if (!single) { /* the diagonal is computed in double at any precision */
        PetscCall(MatGetDiagonal(Ac, yc));
        PetscCall(MatGetDiagonal(Ag, yg));
        PetscCall(Compare(yg, yc, "MatGetDiagonal of 2 A + 7 M", dim, k));
      }
      PetscCall(MatAXPY(Ac, -7.0, Mc, SAME_NONZERO_PATTERN));
      PetscCall(MatAXPY(Ag, -7.0, Mg, SAME_NONZERO_PATTERN));
      PetscCall(MatScale(Ac, 0.5));
      PetscCall(MatScale(Ag, 0.5));
      PetscCall(MatDestroy(&Mc));
      PetscCall(MatDestroy(&Mg));
      PetscCall(MatShift(Ac, 3.0));
      PetscCall(MatShift(Ag, 3.0));
      PetscCall(MatResidual(Ac, zc, xc, yc));
      PetscCall(AYPXCount(&n1));
      PetscCall(MatResidual(Ag, zg, xg, yg));
      PetscCall(AYPXCount(&n2));
      PetscCall(Compare(yg, yc, "MatResidual of A + 3 I", dim, k));
      PetscCheck(n2 - n1 == 1, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT "D Q_%" PetscInt_FMT ": MatResidual of the shifted GPU operator ran VecAYPX %d times, expected once (MatMult and VecAYPX)", dim, k, (int)(n2 - n1));
      PetscCall(MatShift(Ac, -3.0));
      PetscCall(MatShift(Ag, -3.0));
    }
    if (!single) { /* the diagonal is computed in double at any precision */
      PetscCall(MatGetDiagonal(Ac, yc));
      PetscCall(MatGetDiagonal(Ag, yg));
      PetscCall(Compare(yg, yc, "MatGetDiagonal", dim, k));
    }

    /* transfer, both directions */
    PetscCall(DMCreateInterpolation(dcc, dc, &Pc, NULL));
    PetscCall(DMCreateInterpolation(dgc, dg, &Pg, NULL));
    PetscCall(DMCreateGlobalVector(dcc, &cxc));
    PetscCall(VecDuplicate(cxc, &cyc));
    PetscCall(DMCreateGlobalVector(dgc, &cxg));
    PetscCall(VecDuplicate(cxg, &cyg));
    PetscCall(VecSetRandom(cxc, rnd));
    PetscCall(CopyValues(cxc, cxg));
    PetscCall(MatMult(Pc, cxc, yc));
    PetscCall(MatMult(Pg, cxg, yg));
    PetscCall(Compare(yg, yc, "prolongation", dim, k));
    PetscCall(MatMultTranspose(Pc, xc, cyc));
    PetscCall(MatMultTranspose(Pg, xg, cyg));
    PetscCall(Compare(cyg, cyc, "restriction", dim, k));

    /* deterministic operator: the same product twice, bit for bit */
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-dm_qbox_deterministic", &deterministic, NULL));
    if (deterministic) {
      PetscCall(MatMult(Ag, xg, yg));
      PetscCall(MatMult(Ag, xg, wg));
      PetscCall(VecEqual(yg, wg, &equal));
      PetscCheck(equal, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT "D Q_%" PetscInt_FMT ": the deterministic GPU operator is not bitwise reproducible", dim, k);
    }

    /* vertex-patch smoother: every kernel variant and direction, apply, transpose, Richardson */
    for (PetscInt kv = 0; kv < 3; kv++)
      for (PetscInt s = 0; s < 3; s++) {
        char what[64];
        PetscCall(PetscSNPrintf(what, sizeof(what), "%s %s sweep", PCVPatchKernels[kv], PCVPatchSweeps[s]));
        PetscCall(MakePC(dc, Ac, (PCVPatchSweep)s, (PCVPatchKernel)kv, &pcc));
        PetscCall(MakePC(dg, Ag, (PCVPatchSweep)s, (PCVPatchKernel)kv, &pcg));
        PetscCall(PCApply(pcc, xc, yc));
        PetscCall(PCApply(pcg, xg, yg));
        PetscCall(Compare(yg, yc, what, dim, k));
        /* bitwise reproducible: the fused and separate kernels use no atomics; global only with a deterministic operator */
        if (kv != PC_VPATCH_KERNEL_GLOBAL || deterministic) {
          PetscCall(PCApply(pcg, xg, wg));
          PetscCall(VecEqual(yg, wg, &equal));
          PetscCheck(equal, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT "D Q_%" PetscInt_FMT " %s: the GPU sweep is not bitwise reproducible", dim, k, what);
        }
        PetscCall(PCApplyTranspose(pcc, xc, yc));
        PetscCall(PCApplyTranspose(pcg, xg, yg));
        PetscCall(Compare(yg, yc, "PCApplyTranspose", dim, k));
        PetscCall(VecCopy(zc, yc));
        PetscCall(VecCopy(zg, yg));
        {
          PetscInt                    its;
          PCRichardsonConvergedReason reason;
          PetscCall(PCApplyRichardson(pcc, xc, yc, NULL, 0, 0, 0, 2, PETSC_FALSE, &its, &reason));
          PetscCall(PCApplyRichardson(pcg, xg, yg, NULL, 0, 0, 0, 2, PETSC_FALSE, &its, &reason));
        }
        PetscCall(Compare(yg, yc, "PCApplyRichardson", dim, k));
        { /* from a zero guess: the first color of the first step starts from x = 0 (the fused kernel skips its residual) */
          PetscInt                    its;
          PCRichardsonConvergedReason reason;
          PetscCall(PCApplyRichardson(pcc, xc, yc, NULL, 0, 0, 0, 2, PETSC_TRUE, &its, &reason));
          PetscCall(PCApplyRichardson(pcg, xg, yg, NULL, 0, 0, 0, 2, PETSC_TRUE, &its, &reason));
        }
        PetscCall(Compare(yg, yc, "PCApplyRichardson from zero", dim, k));
        PetscCall(PCDestroy(&pcc));
        PetscCall(PCDestroy(&pcg));
      }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT "D Q_%" PetscInt_FMT ": GPU = CPU (< %g) for operator, %stransfer, all kernel variants and sweeps; bitwise reproducible\n", dim, k, (double)tol, single ? "" : "diagonal, "));
    PetscCall(VecDestroy(&xc));
    PetscCall(VecDestroy(&yc));
    PetscCall(VecDestroy(&zc));
    PetscCall(VecDestroy(&xg));
    PetscCall(VecDestroy(&yg));
    PetscCall(VecDestroy(&zg));
    PetscCall(VecDestroy(&wg));
    PetscCall(VecDestroy(&cxc));
    PetscCall(VecDestroy(&cyc));
    PetscCall(VecDestroy(&cxg));
    PetscCall(VecDestroy(&cyg));
    PetscCall(MatDestroy(&Ac));
    PetscCall(MatDestroy(&Ag));
    PetscCall(MatDestroy(&Pc));
    PetscCall(MatDestroy(&Pg));
    PetscCall(DMDestroy(&dc));
    PetscCall(DMDestroy(&dg));
    PetscCall(DMDestroy(&dcc));
    PetscCall(DMDestroy(&dgc));
  }
  if (single) PetscCall(CheckCorrection(dim, cells, degrees[0], rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: 2d
    requires: cuda
    args: -dim 2 -cells 4,6
    output_file: none

  test:
    suffix: 3d
    requires: cuda
    args: -dim 3 -cells 4,4,4
    output_file: none

  test:
    suffix: 3d_aniso
    requires: cuda
    args: -dim 3 -cells 4,6,8 -degrees 1,2,3,6
    output_file: none

  test:
    suffix: 3d_deterministic
    requires: cuda
    args: -dim 3 -cells 4,4,4 -degrees 1,2,3,5,8 -dm_qbox_deterministic
    output_file: none

  test:
    suffix: 2d_ppb3
    requires: cuda
    args: -dim 2 -cells 4,6 -degrees 1,2,5 -pc_vpatch_patches_per_block 3
    output_file: none

  test:
    suffix: 3d_ppb3
    requires: cuda
    args: -dim 3 -cells 4,4,4 -degrees 1,2,4 -pc_vpatch_patches_per_block 3
    output_file: none

  test:
    suffix: 3d_ppb_too_large
    requires: cuda
    args: -dim 3 -cells 4,4,4 -degrees 8 -pc_vpatch_patches_per_block 4
    expect_error: lower -pc_vpatch_patches_per_block

  # another color order (both paths), and sweeps on the correction of b - A x from a nonzero iterate
  test:
    suffix: 3d_colors_correction
    requires: cuda
    args: -dim 3 -cells 4,6,8 -degrees 2,3,7 -pc_vpatch_colors 1,4,2,0,5,3,6,7 -pc_vpatch_correction all
    output_file: none

  test:
    suffix: 3d_single_colors_correction
    requires: cuda
    args: -dim 3 -cells 4,6,8 -degrees 2,3,7 -single -pc_vpatch_colors 7,1,2,3,4,5,6,0 -pc_vpatch_correction all
    output_file: none

  test:
    suffix: 2d_single
    requires: cuda
    args: -dim 2 -cells 4,6 -single
    output_file: none

  test:
    suffix: 3d_single
    requires: cuda
    args: -dim 3 -cells 4,4,4 -single
    output_file: none

  test:
    suffix: 3d_single_deterministic
    requires: cuda
    args: -dim 3 -cells 4,4,4 -degrees 2,7 -single -dm_qbox_deterministic
    output_file: none

  test:
    suffix: 2d_np3
    requires: cuda
    nsize: 3
    args: -dim 2 -cells 4,12 -degrees 1,2,5
    output_file: none

  # the color exchanges on the device (packed values, several peers per rank: edges and corners of a 3D partition)
  test:
    suffix: 3d_np4
    requires: cuda
    nsize: 4
    args: -dim 3 -cells 4,8,8 -degrees 1,3
    output_file: none

  test:
    suffix: 3d_np2_single
    requires: cuda
    nsize: 2
    args: -dim 3 -cells 4,4,8 -degrees 2 -single
    output_file: none

TEST*/
