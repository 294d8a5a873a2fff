static char help[] = "Kernel throughput of petsc-vpatch: MatMult of the matrix-free Laplacian and one smoothing step of\n\
PCVPATCH (forward sweep, PCApply) with each GPU kernel variant (global, separate, fused), for -dim and each degree of -degrees, on a mesh of about -dofs unknowns\n\
(or -cells per direction). -matmult_only: the operator alone (with -dm_qbox_mapping/-dm_qbox_coefficient: the mapped operator).\n\
Timing: warm-up runs, then -repeats runs each between device synchronizations (wall clock), the median reported.\n\
Prints one JSON line per measurement and a markdown table. Single precision: -dm_qbox_precision single -pc_vpatch_precision single.\n\n";

#include "vpsolve.h" /* VPSolveSync, VPSolveCmpReal */
#include "../tests/vptest.h"

int main(int argc, char **argv)
{
  PetscInt    dim = 3, degrees[10], ndeg, repeats = 10, warmup = 3, ncells = 0;
  PetscBool   matonly  = PETSC_FALSE;
  PetscReal   dofs     = 6.4e7;
  char        gpu[256] = "unknown", commit[64] = "unknown", prec[16] = "double";
  PetscRandom rnd;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscVPatchInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(VPTestGetDegrees(dim == 2 ? 10 : 8, degrees, &ndeg));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-dofs", &dofs, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-cells", &ncells, NULL));          /* cells per direction instead of -dofs (e.g. 100: 1e6 cells in 3D) */
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-matmult_only", &matonly, NULL)); /* the operator alone (a mapped DMQBOX: -dm_qbox_mapping, -dm_qbox_coefficient) */
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeats", &repeats, NULL));
  PetscCheck(repeats >= 1 && repeats <= 100, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-repeats must be in 1..100");
  PetscCall(PetscOptionsGetString(NULL, NULL, "-gpu_name", gpu, sizeof(gpu), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-commit", commit, sizeof(commit), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-pc_vpatch_precision", prec, sizeof(prec), NULL)); /* with -dm_qbox_precision: single-precision kernels */
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "| d | k | cells/dir | DoF | MatMult ms | MatMult GDoF/s | smooth global ms | smooth separate ms | smooth fused ms | fused GDoF/s | fused vs global |\n|---|---|---|---|---|---|---|---|---|---|---|\n"));
  for (PetscInt i = 0; i < ndeg; i++) {
    PetscInt  k = degrees[i], n = ncells > 0 ? ncells : (PetscInt)(PetscPowReal(dofs, 1.0 / dim) / k), cells[3] = {n, n, n}, N;
    DM        dm;
    Mat       A;
    PC        pc;
    Vec       x, y;
    PetscReal tm[100], ts[100], t0, t1, mm, ms, msv[3];
    VecType   vt;
    PetscBool device;

    PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, dim, cells, k, NULL, NULL, &dm));
    PetscCall(PetscOptionsSetValue(NULL, "-dm_qbox_coordinates", "0"));
    PetscCall(DMSetFromOptions(dm));
    PetscCall(DMSetUp(dm));
    PetscCall(DMCreateMatrix(dm, &A));
    PetscCall(DMCreateGlobalVector(dm, &x));
    PetscCall(VecDuplicate(x, &y));
    PetscCall(VecGetSize(x, &N));
    PetscCall(VecGetType(x, &vt));
    PetscCall(PetscStrbeginswith(vt, "seqcuda", &device));
    if (!device) PetscCall(PetscStrbeginswith(vt, "mpicuda", &device));
    PetscCall(VecSetRandom(x, rnd));
    for (PetscInt kv = 0; kv < 3; kv++) { /* global, separate, fused */
      if (matonly && kv > 0) {
        msv[kv] = msv[0];
        continue;
      }
      if (matonly) { /* no smoother: MatMult only, below */
        for (PetscInt r = 0; r < warmup + repeats; r++) {
          PetscCall(VPSolveSync(device));
          PetscCall(PetscTime(&t0));
          PetscCall(MatMult(A, x, y));
          PetscCall(VPSolveSync(device));
          PetscCall(PetscTime(&t1));
          if (r >= warmup) tm[r - warmup] = ts[r - warmup] = t1 - t0;
        }
        msv[0] = 0;
        continue;
      }
      PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
      PetscCall(PCSetType(pc, PCVPATCH));
      PetscCall(PCSetOperators(pc, A, A));
      PetscCall(PCSetDM(pc, dm));
      PetscCall(PCVPatchSetKernel(pc, (PCVPatchKernel)kv));
      PetscCall(PCVPatchSetSweep(pc, PC_VPATCH_SWEEP_FORWARD));
      PetscCall(PCSetFromOptions(pc));
      PetscCall(PCSetUp(pc));
      for (PetscInt r = 0; r < warmup + repeats; r++) {
        if (kv == 0) {
          PetscCall(VPSolveSync(device));
          PetscCall(PetscTime(&t0));
          PetscCall(MatMult(A, x, y));
          PetscCall(VPSolveSync(device));
          PetscCall(PetscTime(&t1));
          if (r >= warmup) tm[r - warmup] = t1 - t0;
        }
        PetscCall(VPSolveSync(device));
        PetscCall(PetscTime(&t0));
        PetscCall(PCApply(pc, x, y));
        PetscCall(VPSolveSync(device));
        PetscCall(PetscTime(&t1));
        if (r >= warmup) ts[r - warmup] = t1 - t0;
      }
      qsort(ts, (size_t)repeats, sizeof(PetscReal), VPSolveCmpReal);
      msv[kv] = ts[repeats / 2];
      PetscCall(PCDestroy(&pc));
    }
    qsort(tm, (size_t)repeats, sizeof(PetscReal), VPSolveCmpReal);
    mm = tm[repeats / 2];
    ms = msv[2];
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "{\"commit\": \"%s\", \"gpu\": \"%s\", \"d\": %" PetscInt_FMT ", \"k\": %" PetscInt_FMT ", \"cells\": %" PetscInt_FMT ", \"dof\": %" PetscInt_FMT
                          ", \"vectype\": \"%s\", \"precision\": \"%s\", \"matmult_s\": %.6e, \"smooth_global_s\": %.6e, \"smooth_separate_s\": %.6e, \"smooth_fused_s\": %.6e, \"repeats\": %" PetscInt_FMT "}\n",
                          commit, gpu, dim, k, n, N, vt, prec, (double)mm, (double)msv[0], (double)msv[1], (double)msv[2], repeats));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "| %" PetscInt_FMT " | %" PetscInt_FMT " | %" PetscInt_FMT " | %.3g M | %.3f | %.2f | %.3f | %.3f | %.3f | %.2f | %.2fx |\n", dim, k, n, N / 1e6, 1e3 * mm, N / mm / 1e9, 1e3 * msv[0], 1e3 * msv[1],
                          1e3 * ms, ms > 0 ? N / ms / 1e9 : 0.0, ms > 0 ? msv[0] / ms : 0.0));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
    PetscCall(MatDestroy(&A));
    PetscCall(DMDestroy(&dm));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}
