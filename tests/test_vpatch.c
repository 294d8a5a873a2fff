static char help[] = "Checks PCVPATCH: one sweep with fast diagonalization equals one sweep with the dense LU local\n\
solver (1e-12), the symmetric sweep is symmetric (x^T S y = y^T S x), PCApplyTranspose is the adjoint of PCApply,\n\
one sweep on 2 cells per direction (one patch) is an exact solve, Richardson sweeps stop at the tolerance with the\n\
residual check and not without it (-pc_vpatch_richardson_check 0: equal to single sweeps), a forward pass in the\n\
colors' reverse order (PCVPatchSetColorOrder()) is the backward pass, sweeps on the correction of b - A x\n\
(PCVPatchSetCorrection()) equal sweeps in place,\n\
and prints rank-independent fingerprints of one PCApply and of a GMRES + V(1,1) solve (compared across 1, 2, 3 ranks).\n\
-expect_exchanges n: on several ranks, one forward PCApply makes n color exchanges (VPColorXBegin events): consecutive\n\
colors that agree along the cut directions share one.\n\n";

#include <petscvpatch.h>
#include <unistd.h>
#include "vptest.h"

/* a deterministic 'random' function of the coordinates: the same vector on any partition */
static PetscErrorCode Wiggle(PetscInt dim, const PetscReal x[], PetscScalar *u, PetscScalar du[], void *ctx)
{
  PetscReal s = *(PetscReal *)ctx;

  PetscFunctionBeginUser;
  (void)du;
  *u = PetscSinReal(37.0 * x[0] + 11.0 * s + 5.0 * x[1] * x[1]) + PetscCosReal(23.0 * x[1] * (1 + s) + 3.0 * x[0]) + (dim == 3 ? PetscSinReal(17.0 * x[2] + 2.0 * x[0] * x[1]) : 0.0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MakePC(DM dm, Mat A, PCVPatchSweep sweep, PCVPatchLocalSolver local, PC *pc)
{
  PetscFunctionBeginUser;
  PetscCall(PCCreate(PetscObjectComm((PetscObject)dm), pc));
  PetscCall(PCSetType(*pc, PCVPATCH));
  PetscCall(PCSetOperators(*pc, A, A));
  PetscCall(PCSetDM(*pc, dm));
  PetscCall(PCVPatchSetSweep(*pc, sweep));
  PetscCall(PCVPatchSetLocalSolver(*pc, local));
  PetscCall(PCSetFromOptions(*pc));
  PetscCall(PCSetUp(*pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The largest difference, over the owned nodes, between y (a PCApply of the sweep to the Wiggle vector s on dm's
   ranks) and the same PCApply on one rank (PETSC_COMM_SELF, the same mesh): the exchanges of the multiplicative
   sweep make the iterates those of one rank */
static PetscErrorCode CompareWithOneRank(DM dm, PetscReal s, PCVPatchSweep sweep, Vec y, PetscReal *maxdiff)
{
  DM        ds;
  Mat       As;
  PC        pc;
  Vec       bs, ys;
  VecType   vt;
  PetscInt  dim, cells[3], k;
  PetscReal lower[3], upper[3];

  PetscFunctionBeginUser;
  PetscCall(DMQBoxGetInfo(dm, &dim, cells, &k, lower, upper));
  PetscCall(DMQBoxCreate(PETSC_COMM_SELF, dim, cells, k, lower, upper, &ds));
  PetscCall(DMGetVecType(dm, &vt));
  PetscCall(DMSetVecType(ds, vt));
  PetscCall(DMSetUp(ds));
  PetscCall(DMCreateMatrix(ds, &As));
  PetscCall(DMCreateGlobalVector(ds, &bs));
  PetscCall(VecDuplicate(bs, &ys));
  PetscCall(DMQBoxProjectFunction(ds, Wiggle, &s, bs));
  PetscCall(MakePC(ds, As, sweep, PC_VPATCH_LOCAL_FDM, &pc));
  PetscCall(PCApply(pc, bs, ys));
  PetscCall(VPTestOwnedMaxDiff(dm, y, ys, maxdiff));
  PetscCall(PCDestroy(&pc));
  PetscCall(VecDestroy(&bs));
  PetscCall(VecDestroy(&ys));
  PetscCall(MatDestroy(&As));
  PetscCall(DMDestroy(&ds));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt      dim = 2, degrees[10], ndeg, cells[3] = {4, 4, 4}, ncells = 3, nexch = -1, order[8], norder = 8;
  PetscLogEvent exch  = -1;
  PetscBool     solve = PETSC_FALSE, dense = PETSC_TRUE, colors;
  PetscMPIInt   size;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscVPatchInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(VPTestGetDegrees(8, degrees, &ndeg));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-cells", cells, &ncells, NULL)); /* absent: the defaults stay */
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-solve", &solve, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-dense", &dense, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-expect_exchanges", &nexch, NULL));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-pc_vpatch_colors", order, &norder, &colors)); /* for the PCs with a prefix */
  if (!colors) norder = 0;
  if (nexch >= 0) {
    PetscCall(PetscLogDefaultBegin()); /* the event counts */
    PetscCall(PetscLogEventGetId("VPColorXBegin", &exch));
  }
  for (PetscInt i = 0; i < ndeg; i++) {
    PetscInt        k = degrees[i];
    DM              dm;
    Mat             A;
    PC              pcf, pcd, pcs;
    Vec             b, c, y1, y2;
    PetscReal       s1 = 0.3, s2 = 0.7, nrm, diff, rsym, radj;
    PetscScalar     d1, d2;
    const PetscReal lower[3] = {0, 0, 0}, upper[3] = {1.0, 0.6, 1.7}; /* anisotropic cells */

    PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, dim, cells, k, lower, upper, &dm));
    PetscCall(DMSetUp(dm));
    PetscCall(DMCreateMatrix(dm, &A));
    PetscCall(DMCreateGlobalVector(dm, &b));
    PetscCall(VecDuplicate(b, &c));
    PetscCall(VecDuplicate(b, &y1));
    PetscCall(VecDuplicate(b, &y2));
    PetscCall(DMQBoxProjectFunction(dm, Wiggle, &s1, b));
    PetscCall(DMQBoxProjectFunction(dm, Wiggle, &s2, c));

    /* fingerprint of one forward sweep (zero initial guess): the same on any number of ranks */
    PetscCall(MakePC(dm, A, PC_VPATCH_SWEEP_FORWARD, PC_VPATCH_LOCAL_FDM, &pcf));
    {
      PetscEventPerfInfo i0 = {0}, i1 = {0}; /* the exchanges of one forward pass (-expect_exchanges) */

      if (nexch >= 0) PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, exch, &i0));
      PetscCall(PCApply(pcf, b, y1));
      if (nexch >= 0) PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, exch, &i1));
      PetscCheck(nexch < 0 || i1.count - i0.count == nexch, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Q_%" PetscInt_FMT " on %d ranks: one forward sweep made %d color exchanges, expected %" PetscInt_FMT, k, (int)size, i1.count - i0.count, nexch);
    }
    PetscCall(VecNorm(y1, NORM_2, &nrm));
    PetscCall(VecDot(y1, c, &d1));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT "D Q_%" PetscInt_FMT ": |B b| = %.14e, (B b, c) = %.14e\n", dim, k, (double)nrm, (double)PetscRealPart(d1)));
    if (size > 1) { /* the same entries as on one rank, forward and symmetric sweeps */
      PetscReal dfw, dsym;
      PC        pcsym;

      PetscCall(CompareWithOneRank(dm, s1, PC_VPATCH_SWEEP_FORWARD, y1, &dfw));
      PetscCall(MakePC(dm, A, PC_VPATCH_SWEEP_SYMMETRIC, PC_VPATCH_LOCAL_FDM, &pcsym));
      PetscCall(PCApply(pcsym, b, y2));
      PetscCall(CompareWithOneRank(dm, s1, PC_VPATCH_SWEEP_SYMMETRIC, y2, &dsym));
      PetscCall(PCDestroy(&pcsym));
      PetscCheck(dfw <= 1e-12 * nrm && dsym <= 1e-12 * nrm, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Q_%" PetscInt_FMT " on %d ranks: one sweep differs from one rank's by %g (forward), %g (symmetric), |B b| = %g", k, (int)size, (double)dfw, (double)dsym,
                 (double)nrm);
    }

    { /* the operator scaled by 3 (MatScale()): the sweep solves with it, so its PCApply is the unscaled one's / 3 (up to
         round-off: the weight 3 enters the patch matrices, whose condition grows with k, so 1e-12, not bitwise; a wrong
         scale would differ by O(1)); and on the CPU path the view says that the GPU kernel option has no effect */
      Mat         A3;
      PC          pc3;
      PetscViewer sv;
      char        text[4096];
      PetscReal   r3;

      PetscCall(DMCreateMatrix(dm, &A3));
      PetscCall(MatScale(A3, 3.0));
      PetscCall(PCCreate(PETSC_COMM_WORLD, &pc3));
      PetscCall(PCSetType(pc3, PCVPATCH));
      PetscCall(PCSetOperators(pc3, A3, A3));
      PetscCall(PCVPatchSetSweep(pc3, PC_VPATCH_SWEEP_FORWARD));
      PetscCall(PCVPatchSetKernel(pc3, PC_VPATCH_KERNEL_GLOBAL));
      PetscCall(PCSetFromOptions(pc3)); /* the options of pcf (-pc_vpatch_colors) */
      PetscCall(PCSetUp(pc3));
      PetscCall(PCApply(pc3, b, y2));
      PetscCall(VecScale(y2, 3.0));
      PetscCall(VecAXPY(y2, -1.0, y1));
      PetscCall(VecNorm(y2, NORM_2, &r3));
      PetscCheck(r3 <= 1e-12 * nrm, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Q_%" PetscInt_FMT ": PCVPATCH of 3 A is not that of A / 3: relative difference %g", k, (double)(r3 / nrm));
      if (size == 1) { /* the view, through a file */
        char   name[PETSC_MAX_PATH_LEN];
        FILE  *fp;
        size_t n;

        PetscCall(PetscSNPrintf(name, sizeof(name), "/tmp/test_vpatch_view_%d.txt", (int)getpid()));
        PetscCall(PetscViewerASCIIOpen(PETSC_COMM_SELF, name, &sv));
        PetscCall(PCView(pc3, sv));
        PetscCall(PetscViewerDestroy(&sv));
        PetscCall(PetscFOpen(PETSC_COMM_SELF, name, "r", &fp));
        n       = fread(text, 1, sizeof(text) - 1, fp);
        text[n] = 0;
        PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
        (void)remove(name);
        PetscCheck(strstr(text, "scaled by 3") && strstr(text, "no effect on the CPU path"), PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCView of a scaled operator with a GPU kernel option on the CPU does not say so:\n%s", text);
      }
      PetscCall(PCDestroy(&pc3));
      PetscCall(MatDestroy(&A3));
    }

    /* with 2 cells per direction one patch covers the domain: one sweep is an exact solve (a coarse solver for PCMG) */
    if (cells[0] == 2 && cells[1] == 2 && (dim == 2 || cells[2] == 2)) {
      PetscReal rn, bn;
      PetscCall(MatMult(A, y1, y2));
      PetscCall(VecAYPX(y2, -1.0, b));
      PetscCall(VecNorm(y2, NORM_2, &rn));
      PetscCall(VecNorm(b, NORM_2, &bn));
      PetscCheck(rn <= 1e-10 * bn, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Q_%" PetscInt_FMT " on 2 cells per direction: one sweep leaves the residual %g (relative), expected an exact solve", k, (double)(rn / bn));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  one patch: exact solve\n"));
    }
    /* fast diagonalization = dense LU */
    if (dense) {
      PetscCall(MakePC(dm, A, PC_VPATCH_SWEEP_FORWARD, PC_VPATCH_LOCAL_DENSE, &pcd));
      PetscCall(PCApply(pcd, b, y2));
      PetscCall(VecAXPY(y2, -1.0, y1));
      PetscCall(VecNorm(y2, NORM_2, &diff));
      PetscCheck(diff <= 1e-12 * nrm, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Q_%" PetscInt_FMT ": fast diagonalization and dense local solves differ by %g (relative)", k, (double)(diff / nrm));
      PetscCall(PCDestroy(&pcd));
    }
    /* adjoint: (B b, c) = (b, B^T c) */
    PetscCall(PCApplyTranspose(pcf, c, y2));
    PetscCall(VecDot(b, y2, &d2));
    radj = PetscAbsScalar(d1 - d2) / PetscAbsScalar(d1);
    PetscCheck(radj < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Q_%" PetscInt_FMT ": PCApplyTranspose is not the adjoint of PCApply: %g", k, (double)radj);
    { /* KSPRICHARDSON's several iterations: with the check (default) a tolerance that one sweep meets stops after one
         sweep; with -pc_vpatch_richardson_check 0 (a PCMG smoother) all sweeps run, equal to sweeps one at a time */
      PC                          pcn;
      PetscInt                    its;
      PCRichardsonConvergedReason reason;
      PetscReal                   dn, yn;

      PetscCall(PCApplyRichardson(pcf, b, y2, NULL, 0.999, 0, 0, 3, PETSC_TRUE, &its, &reason));
      PetscCheck(its == 1 && (reason == PCRICHARDSON_CONVERGED_RTOL || reason == PCRICHARDSON_CONVERGED_ATOL), PETSC_COMM_WORLD, PETSC_ERR_PLIB,
                 "Q_%" PetscInt_FMT ": Richardson with rtol 0.999 stopped after %" PetscInt_FMT " sweeps (reason %d), expected 1 (converged)", k, its, (int)reason); /* atol where one patch solves exactly: a zero residual */
      PetscCall(PetscOptionsSetValue(NULL, "-nocheck_pc_vpatch_richardson_check", "0"));
      PetscCall(PCCreate(PETSC_COMM_WORLD, &pcn));
      PetscCall(PCSetOptionsPrefix(pcn, "nocheck_"));
      PetscCall(PCSetType(pcn, PCVPATCH));
      PetscCall(PCSetOperators(pcn, A, A));
      PetscCall(PCVPatchSetSweep(pcn, PC_VPATCH_SWEEP_FORWARD));
      PetscCall(PCVPatchSetColorOrder(pcn, norder, order)); /* pcf's (-pc_vpatch_colors) */
      PetscCall(PCSetFromOptions(pcn));
      PetscCall(PetscOptionsClearValue(NULL, "-nocheck_pc_vpatch_richardson_check"));
      PetscCall(PCApplyRichardson(pcn, b, y2, NULL, 0.999, 0, 0, 3, PETSC_TRUE, &its, &reason));
      PetscCheck(its == 3 && reason == PCRICHARDSON_CONVERGED_ITS, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Q_%" PetscInt_FMT ": Richardson without the check did %" PetscInt_FMT " sweeps (reason %d), expected all 3", k, its, (int)reason);
      PetscCall(PCApply(pcf, b, y1)); /* the first sweep from zero, then two from the iterate */
      for (PetscInt i = 0; i < 2; i++) PetscCall(PCApplyRichardson(pcf, b, y1, NULL, 0, 0, 0, 1, PETSC_FALSE, &its, &reason));
      PetscCall(VecNorm(y1, NORM_2, &yn));
      PetscCall(VecAXPY(y2, -1.0, y1));
      PetscCall(VecNorm(y2, NORM_2, &dn));
      PetscCheck(dn <= 1e-14 * yn, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Q_%" PetscInt_FMT ": three sweeps without the check differ from three single sweeps by %g (relative)", k, (double)(dn / yn));
      PetscCall(PCDestroy(&pcn));
    }
    { /* the color order: a forward pass in the order 2^d-1, ..., 0 is the default backward pass; the correction form
         (-pc_vpatch_correction all: b - A x by the operator, the sweeps on the correction from zero) gives the in-place
         sweeps' iterates */
      PC                          pco, pcb, pcc;
      Vec                         y0;
      PetscInt                    nc       = (PetscInt)1 << dim, rev[8], its;
      const PetscBool             onepatch = (PetscBool)(cells[0] <= 2 && cells[1] <= 2 && (dim == 2 || cells[2] <= 2));
      PCRichardsonConvergedReason reason;
      PetscReal                   dn, yn;

      for (PetscInt i = 0; i < nc; i++) rev[i] = nc - 1 - i;
      PetscCall(PCCreate(PETSC_COMM_WORLD, &pco));
      PetscCall(PCSetType(pco, PCVPATCH));
      PetscCall(PCSetOperators(pco, A, A));
      PetscCall(PCVPatchSetSweep(pco, PC_VPATCH_SWEEP_FORWARD));
      PetscCall(PCVPatchSetColorOrder(pco, nc, rev));
      PetscCall(PCCreate(PETSC_COMM_WORLD, &pcb));
      PetscCall(PCSetType(pcb, PCVPATCH));
      PetscCall(PCSetOperators(pcb, A, A));
      PetscCall(PCVPatchSetSweep(pcb, PC_VPATCH_SWEEP_BACKWARD));
      PetscCall(PCApply(pco, b, y1));
      PetscCall(PCApply(pcb, b, y2));
      PetscCall(VecNorm(y1, NORM_2, &yn));
      PetscCall(VecAXPY(y2, -1.0, y1));
      PetscCall(VecNorm(y2, NORM_2, &dn));
      PetscCheck(dn <= 1e-14 * yn, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Q_%" PetscInt_FMT ": the forward pass in the colors' reverse order differs from the backward pass by %g (relative)", k, (double)(dn / yn));
      PetscCall(PCApply(pcf, b, y2)); /* and the order matters: the forward pass of pcf differs (where two colors have patches) */
      PetscCall(VecAXPY(y2, -1.0, y1));
      PetscCall(VecNorm(y2, NORM_2, &dn));
      PetscCheck(dn > 1e-8 * yn || onepatch, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Q_%" PetscInt_FMT ": the forward pass in the colors' reverse order equals the default one (%g): the order is not applied", k, (double)(dn / yn));
      PetscCall(PCCreate(PETSC_COMM_WORLD, &pcc));
      PetscCall(PCSetType(pcc, PCVPATCH));
      PetscCall(PCSetOperators(pcc, A, A));
      PetscCall(PCVPatchSetSweep(pcc, PC_VPATCH_SWEEP_FORWARD));
      PetscCall(PCVPatchSetColorOrder(pcc, nc, rev));
      PetscCall(PCVPatchSetCorrection(pcc, PC_VPATCH_CORRECTION_ALL));
      PetscCall(PetscOptionsSetValue(NULL, "-corr_pc_vpatch_richardson_check", "0"));
      PetscCall(PCSetOptionsPrefix(pcc, "corr_"));
      PetscCall(PCSetFromOptions(pcc));
      PetscCall(PetscOptionsClearValue(NULL, "-corr_pc_vpatch_richardson_check"));
      PetscCall(VecDuplicate(y1, &y0));
      PetscCall(VecCopy(y1, y0)); /* two more sweeps from the iterate y0: in place, and on the correction without and with the residual check */
      for (PetscInt i = 0; i < 2; i++) PetscCall(PCApplyRichardson(pco, b, y1, NULL, 0, 0, 0, 1, PETSC_FALSE, &its, &reason));
      PetscCall(VecNorm(y1, NORM_2, &yn));
      for (PetscInt check = 0; check < (onepatch ? 1 : 2); check++) { /* one patch: the first sweep solves exactly, and the check stops before the next */
        PetscCall(PetscOptionsSetValue(NULL, "-corr_pc_vpatch_richardson_check", check ? "1" : "0"));
        PetscCall(PCSetFromOptions(pcc));
        PetscCall(PetscOptionsClearValue(NULL, "-corr_pc_vpatch_richardson_check"));
        PetscCall(VecCopy(y0, y2));
        PetscCall(PCApplyRichardson(pcc, b, y2, NULL, 0, 0, 0, 2, PETSC_FALSE, &its, &reason));
        PetscCheck(its == 2, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Q_%" PetscInt_FMT ": Richardson on the correction did %" PetscInt_FMT " sweeps, expected 2", k, its);
        PetscCall(VecAXPY(y2, -1.0, y1));
        PetscCall(VecNorm(y2, NORM_2, &dn));
        PetscCheck(dn <= 1e-11 * yn, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Q_%" PetscInt_FMT ": two sweeps on the correction of b - A x (residual check %s) differ from two in place by %g (relative)", k, check ? "on" : "off", (double)(dn / yn));
      }
      PetscCall(VecDestroy(&y0));
      PetscCall(PCDestroy(&pco));
      PetscCall(PCDestroy(&pcb));
      PetscCall(PCDestroy(&pcc));
    }
    /* the symmetric sweep is symmetric */
    PetscCall(MakePC(dm, A, PC_VPATCH_SWEEP_SYMMETRIC, PC_VPATCH_LOCAL_FDM, &pcs));
    PetscCall(PCApply(pcs, b, y1));
    PetscCall(VecDot(y1, c, &d1));
    PetscCall(PCApply(pcs, c, y2));
    PetscCall(VecDot(y2, b, &d2));
    rsym = PetscAbsScalar(d1 - d2) / PetscAbsScalar(d1);
    PetscCheck(rsym < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Q_%" PetscInt_FMT ": symmetric sweep: c^T S b - b^T S c = %g (relative)", k, (double)rsym);
    if (dense)
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  fdm = dense, adjoint and symmetry: ok\n"));
    else
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  adjoint and symmetry: ok\n"));

    if (solve) { /* GMRES + V(1,1) with vpatch smoothers: iteration count and solution fingerprint */
      KSP      ksp;
      PC       pc;
      PetscInt its, levels;
      PetscCall(DMQBoxGetMaxLevels(dm, &levels));
      PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
      PetscCall(KSPSetDM(ksp, dm));
      PetscCall(KSPSetDMActive(ksp, KSP_DMACTIVE_RHS, PETSC_FALSE));
      PetscCall(KSPSetType(ksp, KSPGMRES));
      PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
      PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 50));
      PetscCall(KSPGetPC(ksp, &pc));
      PetscCall(PCSetType(pc, PCMG));
      PetscCall(PCMGSetLevels(pc, levels, NULL));
      PetscCall(KSPSetFromOptions(ksp));
      PetscCall(KSPSolve(ksp, b, y1));
      PetscCall(KSPGetIterationNumber(ksp, &its));
      PetscCall(PCMGGetLevels(pc, &levels));
      PetscCall(VecNorm(y1, NORM_2, &nrm));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  GMRES + V(1,1), %" PetscInt_FMT " levels: %" PetscInt_FMT " iterations, |x| = %.10e\n", levels, its, (double)nrm));
      PetscCall(KSPDestroy(&ksp));
    }
    PetscCall(PCDestroy(&pcf));
    PetscCall(PCDestroy(&pcs));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&c));
    PetscCall(VecDestroy(&y1));
    PetscCall(VecDestroy(&y2));
    PetscCall(MatDestroy(&A));
    PetscCall(DMDestroy(&dm));
  }
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: 2d
    args: -dim 2 -cells 4,4 -degrees 1,2,3,4,5,6,7,8,9,10

  test:
    suffix: 3d
    args: -dim 3 -cells 2,4,2 -degrees 1,2,3,4,5

  test:
    suffix: 3d_fdm_only
    args: -dim 3 -cells 2,2,2 -degrees 6,7,8 -dense 0

  test:
    suffix: 2d_one_patch
    args: -dim 2 -cells 2,2 -degrees 1,2,10

  test:
    suffix: one_patch_np2
    nsize: 2
    args: -dim 3 -cells 2,2,2 -degrees 2 -dense 0

  test:
    suffix: ranks3d_np1
    args: -dim 3 -cells 6,4,6 -degrees 1,2,3 -dense 0 -solve -mg_levels_ksp_type richardson -mg_levels_ksp_max_it 1 -mg_levels_pc_type vpatch -mg_coarse_ksp_type cg -mg_coarse_pc_type jacobi -mg_coarse_ksp_rtol 1e-14 -pc_mg_levels 2
    rtol: 1e-9

  test:
    suffix: ranks3d_np4
    nsize: 4
    args: -dim 3 -cells 6,4,6 -degrees 1,2,3 -dense 0 -solve -mg_levels_ksp_type richardson -mg_levels_ksp_max_it 1 -mg_levels_pc_type vpatch -mg_coarse_ksp_type cg -mg_coarse_pc_type jacobi -mg_coarse_ksp_rtol 1e-14 -pc_mg_levels 2
    output_file: test_vpatch_ranks3d_np1
    rtol: 1e-9

  test:
    suffix: ranks3d_np4_no_overlap
    nsize: 4
    args: -dim 3 -cells 6,4,6 -degrees 2 -dense 0 -pc_vpatch_overlap 0 -expect_exchanges 8
    output_file: test_vpatch_ranks3d_np4_no_overlap

  # slabs along z (process grid 1 x 1 x 2): colors 0-3 and 4-7 share one exchange each
  test:
    suffix: ranks3d_slab_np2
    nsize: 2
    args: -dim 3 -cells 6,4,6 -degrees 1,2,3 -dense 0 -expect_exchanges 2
    output_file: none

  test:
    suffix: ranks3d_slab_np2_no_overlap
    nsize: 2
    args: -dim 3 -cells 6,4,6 -degrees 3 -dense 0 -expect_exchanges 2 -pc_vpatch_overlap 0
    output_file: none

  # process grid 1 x 2 x 2: colors that differ along x only share one exchange
  test:
    suffix: ranks3d_columns_np4
    nsize: 4
    args: -dim 3 -cells 4,8,8 -degrees 2,3 -dense 0 -expect_exchanges 4
    output_file: none

  test:
    suffix: ranks3d_np8
    nsize: 8
    args: -dim 3 -cells 6,4,6 -degrees 1,2,3 -dense 0 -solve -mg_levels_ksp_type richardson -mg_levels_ksp_max_it 1 -mg_levels_pc_type vpatch -mg_coarse_ksp_type cg -mg_coarse_pc_type jacobi -mg_coarse_ksp_rtol 1e-14 -pc_mg_levels 2
    output_file: test_vpatch_ranks3d_np1
    rtol: 1e-9

  # another color order (-pc_vpatch_colors): the same iterates on 1 and 4 ranks; with slabs along z the order
  # 1,4,2,0,5,3,6,7 has 6 runs of colors that agree in z, so 6 exchanges per forward pass
  test:
    suffix: colors_np1
    args: -dim 3 -cells 6,4,6 -degrees 2,3 -dense 0 -pc_vpatch_colors 1,4,2,0,5,3,6,7 -solve -mg_levels_ksp_type richardson -mg_levels_ksp_max_it 1 -mg_levels_pc_type vpatch -mg_levels_pc_vpatch_sweep forward -mg_levels_pc_vpatch_colors 1,4,2,0,5,3,6,7 -mg_coarse_ksp_type cg -mg_coarse_pc_type jacobi -mg_coarse_ksp_rtol 1e-14 -pc_mg_levels 2
    rtol: 1e-9

  test:
    suffix: colors_np4
    nsize: 4
    args: -dim 3 -cells 6,4,6 -degrees 2,3 -dense 0 -pc_vpatch_colors 1,4,2,0,5,3,6,7 -solve -mg_levels_ksp_type richardson -mg_levels_ksp_max_it 1 -mg_levels_pc_type vpatch -mg_levels_pc_vpatch_sweep forward -mg_levels_pc_vpatch_colors 1,4,2,0,5,3,6,7 -mg_coarse_ksp_type cg -mg_coarse_pc_type jacobi -mg_coarse_ksp_rtol 1e-14 -pc_mg_levels 2
    output_file: test_vpatch_colors_np1
    rtol: 1e-9

  test:
    suffix: colors_slab_np2
    nsize: 2
    args: -dim 3 -cells 6,4,6 -degrees 3 -dense 0 -pc_vpatch_colors 1,4,2,0,5,3,6,7 -expect_exchanges 6
    output_file: none

  test:
    suffix: ranks_np1
    args: -dim 2 -cells 8,8 -degrees 1,3 -dense 0 -solve -mg_levels_ksp_type richardson -mg_levels_ksp_max_it 1 -mg_levels_pc_type vpatch -mg_levels_pc_vpatch_sweep forward -mg_coarse_ksp_type cg -mg_coarse_pc_type jacobi -mg_coarse_ksp_rtol 1e-14 -pc_mg_levels 2
    rtol: 1e-9

  test:
    suffix: ranks_np2
    nsize: 2
    args: -dim 2 -cells 8,8 -degrees 1,3 -dense 0 -expect_exchanges 2 -solve -mg_levels_ksp_type richardson -mg_levels_ksp_max_it 1 -mg_levels_pc_type vpatch -mg_levels_pc_vpatch_sweep forward -mg_coarse_ksp_type cg -mg_coarse_pc_type jacobi -mg_coarse_ksp_rtol 1e-14 -pc_mg_levels 2
    output_file: test_vpatch_ranks_np1
    rtol: 1e-9

  test:
    suffix: ranks_np3
    nsize: 3
    args: -dim 2 -cells 8,8 -degrees 1,3 -dense 0 -solve -mg_levels_ksp_type richardson -mg_levels_ksp_max_it 1 -mg_levels_pc_type vpatch -mg_levels_pc_vpatch_sweep forward -mg_coarse_ksp_type cg -mg_coarse_pc_type jacobi -mg_coarse_ksp_rtol 1e-14 -pc_mg_levels 2
    output_file: test_vpatch_ranks_np1
    rtol: 1e-9

TEST*/
