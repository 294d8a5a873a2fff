static char help[] = "Soak: many solves and create/destroy cycles of whole multigrid hierarchies in one process, with the memory\n\
checked. Each cycle makes two hierarchies that are alive together (DM, operators, PCMG with vertex-patch smoothers,\n\
KSP): a, the recommended solver (share/vpatch-mg.options) in double; b, the same in mixed precision on CUDA vectors\n\
(single-precision cycles in FGMRES), or on the CPU, which has no single precision, the V-cycle as the solver\n\
(Richardson). Each solves -solves times per cycle from a zero guess; every solve must converge, and its solution\n\
must equal the first cycle's (1e-10 relative). After the first and after the last cycle it records PETSc's allocated\n\
memory (PetscMallocGetCurrentUsage()), the process's resident memory (PetscMemoryGetCurrentUsage()) and the device\n\
memory in use (cudaMemGetInfo()); each must be within -tolerance (default 1%) of the first, and PETSc's allocations\n\
must be the same to the byte.\n\
Options: -cycles n (default 100), -solves n per hierarchy and cycle (default 5: 1000 solves with the defaults),\n\
-dim, -degree, -cells (default 3D Q_2 on 8^3 cells), -vec_type standard|cuda, -tolerance r, -view_memory (the\n\
memory after cycles 1, 2, 5, 10, 20, ...).\n\
make soak runs the full version; make check a small one.\n\n";

#include <petscvpatch.h>
#include <petscksp.h>
#if defined(PETSC_HAVE_CUDA)
#include <petscdevice_cuda.h>
#endif

typedef struct {
  DM  dm;
  KSP ksp;
  Vec b, x;
} Hierarchy;

static PetscErrorCode HierarchyCreate(const char prefix[], PetscInt dim, PetscInt k, const PetscInt cells[], const char vectype[], Hierarchy *h)
{
  PetscFunctionBeginUser;
  PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, dim, cells, k, NULL, NULL, &h->dm));
  PetscCall(DMSetOptionsPrefix(h->dm, prefix));
  PetscCall(DMSetVecType(h->dm, vectype));
  PetscCall(DMSetFromOptions(h->dm));
  PetscCall(DMSetUp(h->dm));
  PetscCall(DMCreateGlobalVector(h->dm, &h->b));
  PetscCall(VecDuplicate(h->b, &h->x));
  PetscCall(VecSet(h->b, 1.0));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &h->ksp));
  PetscCall(KSPSetOptionsPrefix(h->ksp, prefix));
  PetscCall(KSPSetDM(h->ksp, h->dm));
  PetscCall(KSPSetDMActive(h->ksp, KSP_DMACTIVE_RHS, PETSC_FALSE));
  PetscCall(KSPSetFromOptions(h->ksp));
  PetscCall(KSPSetUp(h->ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HierarchyDestroy(Hierarchy *h)
{
  PetscFunctionBeginUser;
  PetscCall(KSPDestroy(&h->ksp));
  PetscCall(VecDestroy(&h->b));
  PetscCall(VecDestroy(&h->x));
  PetscCall(DMDestroy(&h->dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one solve from zero; it must converge. nrm: the solution's norm */
static PetscErrorCode HierarchySolve(Hierarchy *h, const char name[], PetscReal *nrm)
{
  KSPConvergedReason reason;
  PetscInt           its;

  PetscFunctionBeginUser;
  PetscCall(VecSet(h->x, 0.0));
  PetscCall(KSPSolve(h->ksp, h->b, h->x));
  PetscCall(KSPGetConvergedReason(h->ksp, &reason));
  PetscCall(KSPGetIterationNumber(h->ksp, &its));
  PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "soak: hierarchy %s did not converge (%s after %" PetscInt_FMT " iterations)", name, KSPConvergedReasons[reason], its);
  PetscCall(VecNorm(h->x, NORM_2, nrm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscLogDouble malloc_, rss, device;
} Usage;

static PetscErrorCode GetUsage(PetscBool cuda, Usage *u)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMallocGetCurrentUsage(&u->malloc_));
  PetscCall(PetscMemoryGetCurrentUsage(&u->rss));
  u->device = 0;
#if defined(PETSC_HAVE_CUDA)
  if (cuda) {
    size_t mfree, mtotal;
    PetscCallCUDA(cudaDeviceSynchronize()); /* stream-ordered frees are done */
    PetscCallCUDA(cudaMemGetInfo(&mfree, &mtotal));
    u->device = (PetscLogDouble)(mtotal - mfree);
  }
#endif
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &u->malloc_, 3, MPIU_PETSCLOGDOUBLE, MPI_MAX, PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckGrowth(const char what[], PetscLogDouble first, PetscLogDouble last, PetscReal tol)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-28s after the first cycle %12.0f bytes, after the last %12.0f (%+.3f%%)\n", what, first, last, first > 0 ? 100.0 * (last - first) / first : 0.0));
  PetscCheck(last <= first * (1 + tol), PETSC_COMM_WORLD, PETSC_ERR_MEM, "soak: %s grew from %.0f to %.0f bytes between the first and the last cycle: more than %g%%", what, first, last, (double)(100 * tol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt  ncycles = 100, nsolves = 5, dim = 3, k = 2, cells[3] = {8, 8, 8}, n = 3;
  PetscReal tol = 0.01, ref[2] = {0, 0};
  char      vectype[64] = VECSTANDARD;
  PetscBool cuda, view = PETSC_FALSE;
  Usage     first = {0, 0, 0}, last;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscVPatchInitializePackage());
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "soak options", NULL);
  PetscCall(PetscOptionsBoundedInt("-cycles", "create/destroy cycles (each: both hierarchies)", NULL, ncycles, &ncycles, NULL, 2));
  PetscCall(PetscOptionsBoundedInt("-solves", "solves per hierarchy and cycle (0: set-up only)", NULL, nsolves, &nsolves, NULL, 0));
  PetscCall(PetscOptionsRangeInt("-dim", "dimension", NULL, dim, &dim, NULL, 2, 3));
  PetscCall(PetscOptionsRangeInt("-degree", "Q_k degree", NULL, k, &k, NULL, 1, 8));
  PetscCall(PetscOptionsIntArray("-cells", "cells per direction", NULL, cells, &n, NULL));
  PetscCall(PetscOptionsString("-vec_type", "standard or cuda", NULL, vectype, vectype, sizeof(vectype), NULL));
  PetscCall(PetscOptionsReal("-tolerance", "allowed growth of the memory in use, relative", NULL, tol, &tol, NULL));
  PetscCall(PetscOptionsBool("-view_memory", "print the memory in use after cycles 1, 2, 5, 10, 20, ...", NULL, view, &view, NULL));
  PetscOptionsEnd();
  if (n == 1) cells[1] = cells[2] = cells[0];
  PetscCall(PetscStrcmp(vectype, VECCUDA, &cuda));
  PetscCheck(tol >= 0 && tol < 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-tolerance %g: give a value in [0, 1)", (double)tol);

  /* the solvers: share/vpatch-mg.options under the prefixes a_ and b_, then b's own settings, then the command line again
     so that -a_... and -b_... options given there win */
  for (int h = 0; h < 2; h++) {
    PetscCall(PetscOptionsPrefixPush(NULL, h ? "b_" : "a_"));
    PetscCall(PetscOptionsInsertFile(PETSC_COMM_WORLD, NULL, "share/vpatch-mg.options", PETSC_TRUE));
    PetscCall(PetscOptionsPrefixPop(NULL));
  }
  if (cuda)
    PetscCall(PetscOptionsInsertString(NULL, "-b_ksp_type fgmres -b_mg_levels_pc_vpatch_precision single -b_dm_qbox_mg_precision single -b_mg_coarse_ksp_rtol 1e-6"));
  else
    PetscCall(PetscOptionsInsertString(NULL, "-b_ksp_type richardson -b_ksp_max_it 50"));
  PetscCall(PetscOptionsInsertArgs(NULL, argc - 1, (const char *const *)argv + 1)); /* the command line over the file's and b's defaults */

  for (PetscInt c = 0; c < ncycles; c++) {
    Hierarchy h[2];
    PetscCall(HierarchyCreate("a_", dim, k, cells, vectype, &h[0]));
    PetscCall(HierarchyCreate("b_", dim, k, cells, vectype, &h[1]));
    for (PetscInt s = 0; s < nsolves; s++)
      for (int i = 0; i < 2; i++) {
        PetscReal nrm;
        PetscCall(HierarchySolve(&h[i], i ? "b" : "a", &nrm));
        if (c == 0 && s == 0) ref[i] = nrm;
        PetscCheck(PetscAbsReal(nrm - ref[i]) <= 1e-10 * ref[i], PETSC_COMM_WORLD, PETSC_ERR_PLIB, "soak: cycle %" PetscInt_FMT ", solve %" PetscInt_FMT " of hierarchy %s: |x| = %.15e, the first solve's %.15e", c, s, i ? "b" : "a", (double)nrm,
                   (double)ref[i]);
      }
    PetscCall(HierarchyDestroy(&h[1]));
    PetscCall(HierarchyDestroy(&h[0]));
    if (c == 0) PetscCall(GetUsage(cuda, &first));
    if (view && (c + 1 == 1 || c + 1 == 2 || c + 1 == 5 || (c + 1) % 10 == 0 || c + 1 == ncycles)) { /* the memory as the cycles go */
      Usage u;
      PetscCall(GetUsage(cuda, &u));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "after cycle %4" PetscInt_FMT ": PETSc %10.0f, resident %12.0f, device %12.0f bytes\n", c + 1, u.malloc_, u.rss, u.device));
    }
  }
  PetscCall(GetUsage(cuda, &last));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " cycles of two hierarchies (Q_%" PetscInt_FMT ", %" PetscInt_FMT "D, %s vectors), %" PetscInt_FMT " solves, all converged to the first cycle's solutions\n", ncycles, k, dim, vectype,
                        2 * ncycles * nsolves));
  if (first.malloc_ == 0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PETSc's allocations are not traced in this run (-malloc_debug traces them)\n"));
  PetscCheck(last.malloc_ == first.malloc_, PETSC_COMM_WORLD, PETSC_ERR_MEM, "soak: PETSc's allocations went from %.0f to %.0f bytes between the first and the last cycle", first.malloc_, last.malloc_);
  PetscCall(CheckGrowth("PETSc's allocations", first.malloc_, last.malloc_, tol));
  PetscCall(CheckGrowth("resident memory", first.rss, last.rss, tol));
  if (cuda) PetscCall(CheckGrowth("device memory in use", first.device, last.device, tol));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST
  test:
    args: -cycles 4 -solves 2
    output_file: none
  test:
    suffix: mpi
    nsize: 2
    args: -cycles 3 -solves 2 -cells 8
    output_file: none
  test:
    suffix: cuda
    requires: cuda
    args: -cycles 10 -solves 3 -vec_type cuda
    output_file: none
TEST*/
