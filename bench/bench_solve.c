static char help[] = "Time to solution of petsc-vpatch against PETSc's own solvers, same problem, same GPU, same tolerance:\n\
-Laplace u = f, u = prod sin(pi x), Q_k on the unit square/cube, ||b - A x|| <= 1e-8 ||b||. Solvers (see bench/vpsolve.h):\n\
gamg, mg-chebyshev, vpatch-v, vpatch-fmg, vpatch-v-mixed, vpatch-fmg-mixed, vpatch-r, vpatch-r-mixed, vpatch-r12, vpatch-r12-mixed (-solvers to choose; options of solver s\n\
with the prefix s_, dashes as underscores, e.g. -vpatch_v_ksp_monitor; -s_own_loop: KSPRICHARDSON in its own loop x +=\n\
B (b - A x) instead of PCMG's). For each degree of -degrees and each size\n\
of -dofs (approximate unknowns), the mesh has n^d cells, n = 2^m or 3 2^m (a deep hierarchy); -cells n1,n2,...\n\
gives n instead (e.g. 272 = 17 2^4); -box nx,ny[,nz] gives one box of cells instead (weak scaling). Setup (KSPSetUp,\n\
including assembly for gamg) is timed once, the solve after a warm-up solve as the median of -repeats, between\n\
device synchronizations. A solver that fails (error, e.g. out of memory, or divergence) is reported as failed at\n\
that size and not run at larger ones; gamg is skipped where the assembled matrix would exceed -max_nnz nonzeros.\n\
Right-hand side (-rhs): sin (the load vector of the sine solution, and the L2 error), ones (b = 1 on every unknown,\n\
set on the device, no error: the load vector and the error are computed on the host, minutes at 1e8 unknowns), or\n\
auto (default: sin up to -rhs_sin_max_dofs unknowns, default 2e7, ones above). -dm_qbox_dg: the same solvers on the\n\
discontinuous space (SIPG, (k+1)^d unknowns per cell; tutorials/ex4.c). -dm_qbox_operator_mass a: the operator a M + K\n\
(an implicit time step with a = 1/dt: M the mass matrix) on every level, for every solver.\n\
Prints one JSON line per measurement (bench/report.py makes the tables and plots).\n\n";

#include "vpsolve.h"

/* the error handler of a recorded run: keeps the first message (the cause) for the status, with quotes and
   backslashes replaced so that the JSON line stays valid, and returns the error */
static PetscErrorCode RecordError(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  char *buf = (char *)ctx;

  (void)comm;
  (void)line;
  (void)fun;
  (void)file;
  if (p == PETSC_ERROR_INITIAL && mess && !buf[0]) {
    size_t i;
    for (i = 0; mess[i] && i < 255; i++) buf[i] = (mess[i] == '"' || mess[i] == '\\' || mess[i] == '\n') ? '\'' : mess[i];
    buf[i] = '\0';
  }
  return n;
}

/* n = 2^m or 3 2^m, the largest not above n0 (at least 2) */
static PetscInt ChooseCells(PetscReal n0)
{
  PetscInt best = 2;
  for (PetscInt p = 2; p <= 4096; p *= 2) {
    if (p <= n0 && p > best) best = p;
    if (3 * p / 2 <= n0 && 3 * p / 2 > best) best = 3 * p / 2;
  }
  return best;
}

int main(int argc, char **argv)
{
  PetscInt    dim = 3, degrees[16] = {1, 2, 3, 4, 5, 6, 7}, ndeg = 7, repeats = 5, nsol = 16;
  PetscReal   dofs[16] = {1e6, 8e6}, maxnnz = 2e9, sinmax = 2e7;
  const char *rhsnames[] = {"sin", "ones", "auto", "VPRHS", "VP_RHS_", NULL};
  PetscEnum   rhs        = (PetscEnum)2;
  PetscInt    ndofs = 2, cellsopt[16], ncells = 0, box[3] = {0, 0, 0}, nbox = 3, gpus = 0;
  char       *solvers[16], gpu[256] = "unknown", commit[64] = "unknown";
  PetscBool   sflag, failed[16], stoponerr                  = PETSC_FALSE;
  PetscMPIInt size;
  int         nfailed = 0;
  PetscBool   dg      = PETSC_FALSE; /* the discontinuous space (-dm_qbox_dg, read by the DM): the unknowns per cell */

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscVPatchInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-dm_qbox_dg", &dg, NULL));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bench_solve options", NULL);
  PetscCall(PetscOptionsBool("-stop_on_error", "Stop at the first failed run with PETSc's error message, instead of recording it and going on", NULL, stoponerr, &stoponerr, NULL));
  PetscCall(PetscOptionsInt("-dim", "Dimension", NULL, dim, &dim, NULL));
  ndeg = 16; /* capacities; the defaults stay when an option is absent */
  PetscCall(PetscOptionsIntArray("-degrees", "Degrees k", NULL, degrees, &ndeg, &sflag));
  if (!sflag) ndeg = 7;
  ndofs = 16;
  PetscCall(PetscOptionsRealArray("-dofs", "Approximate numbers of unknowns", NULL, dofs, &ndofs, &sflag));
  if (!sflag) ndofs = 2;
  ncells = 16;
  PetscCall(PetscOptionsIntArray("-cells", "Cells per direction (instead of -dofs)", NULL, cellsopt, &ncells, &sflag));
  if (!sflag) ncells = 0;
  PetscCall(PetscOptionsIntArray("-box", "Cells per direction of one box mesh (instead of -cells, -dofs)", NULL, box, &nbox, &sflag));
  if (sflag) {
    PetscCheck(nbox >= 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-box: give the cells per direction, nx,ny or nx,ny,nz");
    if (nbox == 2) box[2] = box[1];
    ncells      = 1;
    cellsopt[0] = box[0];
  }
  for (PetscInt j = 0; j < ncells; j++) PetscCheck(cellsopt[j] >= 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-cells: every entry must be at least 2, not %" PetscInt_FMT, cellsopt[j]);
  PetscCall(PetscOptionsStringArray("-solvers", "Solvers to run (default all)", NULL, solvers, &nsol, &sflag));
  PetscCall(PetscOptionsInt("-repeats", "Timed solves per measurement (median)", NULL, repeats, &repeats, NULL));
  PetscCall(PetscOptionsEnum("-rhs", "Right-hand side", NULL, rhsnames, rhs, &rhs, NULL));
  PetscCall(PetscOptionsReal("-rhs_sin_max_dofs", "-rhs auto: the sine load vector up to this many unknowns, b = 1 above", NULL, sinmax, &sinmax, NULL));
  PetscCall(PetscOptionsReal("-max_nnz", "gamg: skip when the assembled matrix would have more nonzeros", NULL, maxnnz, &maxnnz, NULL));
  PetscCall(PetscOptionsString("-gpu_name", "GPU name for the results", NULL, gpu, gpu, sizeof(gpu), NULL));
  PetscCall(PetscOptionsString("-commit", "Commit for the results", NULL, commit, commit, sizeof(commit), NULL));
  PetscOptionsEnd();
  PetscCheck(dim == 2 || dim == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dim must be 2 or 3");
  PetscCheck(repeats >= 1 && repeats <= 100, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-repeats %" PetscInt_FMT ": give 1..100 timed solves (their median is reported)", repeats);
  for (PetscInt j = 0; j < ndofs; j++) PetscCheck(dofs[j] >= 1 && dofs[j] < 1e13, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dofs: every entry must be a number of unknowns, at least 1, not %g", (double)dofs[j]);
  if (!sflag) nsol = 0;
  for (PetscInt j = 0; j < nsol; j++) { /* every name must be a solver, else nothing would run and the run would look fine */
    PetscBool known     = PETSC_FALSE;
    char      list[512] = "";
    for (PetscInt t = 0; VPSolvers[t].name; t++) {
      PetscBool eq;
      PetscCall(PetscStrcmp(solvers[j], VPSolvers[t].name, &eq));
      known = (PetscBool)(known || eq);
      PetscCall(PetscStrlcat(list, t ? ", " : "", sizeof(list)));
      PetscCall(PetscStrlcat(list, VPSolvers[t].name, sizeof(list)));
    }
    PetscCheck(known, PETSC_COMM_WORLD, PETSC_ERR_ARG_UNKNOWN_TYPE, "-solvers: no solver named %s; the solvers are %s", solvers[j], list);
  }

#if defined(PETSC_HAVE_CUDA)
  { /* the GPUs the ranks use (PETSc gives rank r the device r mod the devices of its node); 0 without CUDA vectors */
    char      vt[64] = "";
    PetscBool cuda;

    PetscCall(PetscOptionsGetString(NULL, NULL, "-dm_vec_type", vt, sizeof(vt), NULL));
    PetscCall(PetscStrInList(vt, "cuda,seqcuda,mpicuda", ',', &cuda));
    if (cuda) {
      PetscDeviceContext dctx;
      PetscDevice        dev;
      PetscInt           id, *ids, n = size;

      PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
      PetscCall(PetscDeviceContextGetDevice(dctx, &dev));
      PetscCall(PetscDeviceGetDeviceId(dev, &id));
      PetscCall(PetscMalloc1(size, &ids));
      PetscCallMPI(MPI_Allgather(&id, 1, MPIU_INT, ids, 1, MPIU_INT, PETSC_COMM_WORLD));
      PetscCall(PetscSortRemoveDupsInt(&n, ids)); /* the distinct devices (one node) */
      gpus = n;
      PetscCall(PetscFree(ids));
    }
  }
#endif
  for (PetscInt s = 0; VPSolvers[s].name; s++) {
    const VPSolverConfig *cfg = &VPSolvers[s];
    PetscBool             run = (PetscBool)(nsol == 0);

    for (PetscInt j = 0; j < nsol; j++) {
      PetscBool eq;
      PetscCall(PetscStrcmp(solvers[j], cfg->name, &eq));
      if (eq) run = PETSC_TRUE;
    }
    if (!run) continue;
    for (PetscInt i = 0; i < ndeg; i++) {
      PetscInt k = degrees[i];

      failed[i] = PETSC_FALSE;
      for (PetscInt j = 0; j < (ncells ? ncells : ndofs); j++) {
        PetscInt       n = ncells ? cellsopt[j] : ChooseCells(PetscPowReal(dofs[j], 1.0 / dim) / (dg ? k + 1 : k)), level = 0, cells[3] = {n, n, n}, nmin = n;
        PetscReal      N = 1, nnz;
        char           boxs[64];
        VPSolveResult  res;
        PetscErrorCode ierr;
        char           status[512] = "ok", errmsg[256];
        PetscBool      ok, ones;

        if (box[0]) {
          for (PetscInt d = 0; d < 3; d++) cells[d] = box[d];
          for (PetscInt d = 0; d < dim; d++) nmin = PetscMin(nmin, box[d]);
        }
        for (PetscInt d = 0; d < dim; d++) N *= (PetscReal)(dg ? cells[d] * (k + 1) : cells[d] * k + 1); /* -dm_qbox_dg: (k+1) nodes per cell and direction */
        ones = (PetscBool)(rhs == 1 || (rhs == 2 && N > sinmax));                                        /* from the size, once it is known */
        nnz  = N * PetscPowReal(2.0 * k + 1, (PetscReal)dim);
        PetscCall(PetscSNPrintf(boxs, sizeof(boxs), dim == 3 ? "%" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT : "%" PetscInt_FMT "x%" PetscInt_FMT, cells[0], cells[1], cells[2]));
        for (PetscInt m = nmin; m % 2 == 0; m /= 2) level++;
        if (failed[i])
          PetscCall(PetscStrncpy(status, "not run: failed at a smaller size", sizeof(status)));
        else if (cfg->assembled && nnz > maxnnz)
          PetscCall(PetscSNPrintf(status, sizeof(status), "not run: the assembled matrix would have about %.2g nonzeros (-max_nnz %.2g)", (double)nnz, (double)maxnnz));
        else {
          errmsg[0] = '\0';
          if (!stoponerr) PetscCall(PetscPushErrorHandler(RecordError, errmsg));
          ierr = VPSolveRun(PETSC_COMM_WORLD, dim, k, cells, cfg, repeats, ones, &res);
          if (!stoponerr)
            PetscCall(PetscPopErrorHandler());
          else
            PetscCall(ierr);
          if (ierr) { /* leave the benchmark's -log_view stages that the failed run left open */
            PetscLogState state;
            PetscLogStage cur = -1, main = -1;

            PetscCall(PetscLogGetState(&state));
            PetscCall(PetscLogStageGetId("Main Stage", &main));
            if (state) PetscCall(PetscLogStateGetCurrentStage(state, &cur));
            while (state && cur >= 0 && cur != main) {
              PetscCall(PetscLogStagePop());
              PetscCall(PetscLogStateGetCurrentStage(state, &cur));
            }
            const char *text = NULL;
            PetscCall(PetscErrorMessage(ierr, &text, NULL));
            PetscCall(PetscSNPrintf(status, sizeof(status), "failed: PETSc error %d (%s): %s", (int)ierr, text ? text : "?", errmsg));
            failed[i] = PETSC_TRUE;
            nfailed++;
          } else if (res.reason < 0) {
            PetscCall(PetscSNPrintf(status, sizeof(status), "failed: %s", KSPConvergedReasons[res.reason]));
            failed[i] = PETSC_TRUE;
            nfailed++;
          } else if (res.reason == KSP_CONVERGED_ITS || !(res.rrel <= res.rtol)) {
            /* KSPRICHARDSON over PCMG (vpatch-r) reports reaching -ksp_max_it as KSP_CONVERGED_ITS; a method's own residual
               estimate can also differ from the true one: the run counts only if ||b - A x|| <= rtol ||b|| */
            PetscCall(PetscSNPrintf(status, sizeof(status), "failed: not converged: ||b - A x|| / ||b|| = %.3e after %" PetscInt_FMT " iterations, above rtol %.1e (%s)", (double)res.rrel, res.its, (double)res.rtol, KSPConvergedReasons[res.reason]));
            failed[i] = PETSC_TRUE;
            nfailed++;
          }
        }
        PetscCall(PetscStrcmp(status, "ok", &ok));
        if (!ok)
          PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                                "{\"commit\": \"%s\", \"gpu\": \"%s\", \"ranks\": %d, \"gpus\": %" PetscInt_FMT ", \"d\": %" PetscInt_FMT ", \"k\": %" PetscInt_FMT ", \"cells\": %" PetscInt_FMT ", \"box\": \"%s\", \"level\": %" PetscInt_FMT
                                ", \"dof\": %.0f, \"solver\": \"%s\", \"status\": \"%s\"}\n",
                                commit, gpu, size, gpus, dim, k, n, boxs, level, (double)N, cfg->name, status));
        else {
          char l2[32] = "null";
          if (res.l2 >= 0) PetscCall(PetscSNPrintf(l2, sizeof(l2), "%.6e", (double)res.l2));
          PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                                "{\"commit\": \"%s\", \"gpu\": \"%s\", \"ranks\": %d, \"gpus\": %" PetscInt_FMT ", \"d\": %" PetscInt_FMT ", \"k\": %" PetscInt_FMT ", \"cells\": %" PetscInt_FMT ", \"box\": \"%s\", \"level\": %" PetscInt_FMT
                                ", \"dof\": %" PetscInt_FMT ", \"solver\": \"%s\", \"ksp\": \"%s\", \"precision\": \"%s\", \"rhs\": \"%s\", \"mass\": %.6e, \"iterations\": %" PetscInt_FMT
                                ", \"dm_s\": %.6e, \"assemble_s\": %.6e, \"setup_s\": %.6e, \"solve_s\": %.6e, \"rel_residual\": %.3e, \"l2_error\": %s, \"device_mem_gb\": %.2f, \"repeats\": %" PetscInt_FMT ", \"status\": \"ok\"}\n",
                                commit, gpu, size, gpus, dim, k, n, boxs, level, res.dofs, cfg->name, res.ksptype, cfg->mgprec == VP_PRECISION_SINGLE ? "mixed" : "double", ones ? "ones" : "sin", (double)res.mass, res.its, (double)res.dm,
                                (double)res.assemble, (double)res.setup, (double)res.solve, (double)res.rrel, l2, (double)res.devmem, repeats));
        }
      }
    }
  }
  if (sflag)
    for (PetscInt j = 0; j < nsol; j++) PetscCall(PetscFree(solvers[j]));
  if (nfailed) PetscCall(PetscFPrintf(PETSC_COMM_WORLD, PETSC_STDERR, "bench_solve: %d run(s) failed or did not converge (status \"failed\" above)\n", nfailed));
  PetscCall(PetscFinalize());
  return nfailed ? 1 : 0;
}
