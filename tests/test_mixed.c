static char help[] = "Mixed precision: GMRES in double preconditioned by a single-precision multigrid V-cycle (vertex-patch smoothers,\n\
coarser operators and transfers in float on the GPU) against the same solver in double (bench/vpsolve.h: vpatch-v,\n\
vpatch-v-mixed; also FMG), the V-cycle as the solver (Richardson, vpatch-r) against GMRES, and its mixed variant\n\
(vpatch-r-mixed) against it, the V(1,2) cycle in Richardson's own loop (vpatch-r12) against vpatch-r, and its mixed\n\
variant (vpatch-r12-mixed: float up-smoothers on the correction of the double residual) against vpatch-r12.\n\
Both of a pair must converge to 1e-8, the second within one iteration of the first, and the final L2 errors must agree\n\
to two significant digits. Options: -dim, -degrees, -cells, -pairs (which of the six pairs, 0..5: v, fmg, r, r-mixed,\n\
r12, r12-mixed; default all). Single precision needs a GPU; pairs 2 (vpatch-v, vpatch-r) and 4 (vpatch-r, vpatch-r12) run on the\n\
CPU too.\n\
The tests stop at degrees where a residual reduction of 1e-8 still resolves the discretization error (3D Q_6 on 8^3\n\
cells has an L2 error of 2e-11: there the double and mixed FMG runs gave 2.0e-11 and 3.9e-11, both at 1e-8).\n\
With 2^m cells per direction the coarsest level has 2 (one vertex patch, one sweep); with -cells 12 it has 3, solved by\n\
CG with vertex-patch sweeps (in single precision in the mixed solvers).\n\n";

#include "../bench/vpsolve.h"
#include "vptest.h"

static PetscErrorCode Find(const char name[], const VPSolverConfig **cfg)
{
  PetscFunctionBeginUser;
  *cfg = NULL;
  for (PetscInt s = 0; VPSolvers[s].name; s++) {
    PetscBool eq;
    PetscCall(PetscStrcmp(VPSolvers[s].name, name, &eq));
    if (eq) *cfg = &VPSolvers[s];
  }
  PetscCheck(*cfg, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "no solver %s", name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt    dim = 3, degrees[10], ndeg, n = 8;
  const char *pairs[6][2] = {{"vpatch-v", "vpatch-v-mixed"}, {"vpatch-fmg", "vpatch-fmg-mixed"}, {"vpatch-v", "vpatch-r"}, {"vpatch-r", "vpatch-r-mixed"}, {"vpatch-r", "vpatch-r12"}, {"vpatch-r12", "vpatch-r12-mixed"}};
  PetscInt    which[6] = {0, 1, 2, 3, 4, 5}, nwhich = 6;
  PetscBool   set;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscVPatchInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-cells", &n, NULL));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-pairs", which, &nwhich, &set));
  if (!set) nwhich = 6; /* all; an absent option leaves the count at 0 */
  for (PetscInt i = 0; i < nwhich; i++) PetscCheck(which[i] >= 0 && which[i] < 6, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-pairs: %" PetscInt_FMT " is not one of 0..5", which[i]);
  PetscCall(VPTestGetDegrees(dim == 2 ? 10 : 8, degrees, &ndeg));
  const PetscInt box[3] = {n, n, n};
  for (PetscInt i = 0; i < ndeg; i++) {
    PetscInt k = degrees[i];
    for (PetscInt w = 0; w < nwhich; w++) {
      const PetscInt        p = which[w];
      const VPSolverConfig *cd, *cm;
      VPSolveResult         rd, rm;
      char                  ed[32], em[32];
      PetscBool             same;

      PetscCall(Find(pairs[p][0], &cd));
      PetscCall(Find(pairs[p][1], &cm));
      PetscCall(VPSolveRun(PETSC_COMM_WORLD, dim, k, box, cd, 1, PETSC_FALSE, &rd));
      PetscCall(VPSolveRun(PETSC_COMM_WORLD, dim, k, box, cm, 1, PETSC_FALSE, &rm));
      PetscCheck(rd.reason > 0 && rm.reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "%" PetscInt_FMT "D Q_%" PetscInt_FMT ": %s %s, %s %s", dim, k, cd->name, KSPConvergedReasons[rd.reason], cm->name, KSPConvergedReasons[rm.reason]);
      PetscCheck(rd.rrel <= 1e-8 && rm.rrel <= 1e-8, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "%" PetscInt_FMT "D Q_%" PetscInt_FMT ": relative residuals %g (%s), %g (%s) above 1e-8", dim, k, (double)rd.rrel, cd->name, (double)rm.rrel, cm->name);
      PetscCheck(rm.its <= rd.its + 1, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT "D Q_%" PetscInt_FMT ": %s needs %" PetscInt_FMT " iterations, %s %" PetscInt_FMT, dim, k, cm->name, rm.its, cd->name, rd.its);
      PetscCall(PetscSNPrintf(ed, sizeof(ed), "%.1e", (double)rd.l2));
      PetscCall(PetscSNPrintf(em, sizeof(em), "%.1e", (double)rm.l2));
      PetscCall(PetscStrcmp(ed, em, &same));
      PetscCheck(same, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT "D Q_%" PetscInt_FMT ": L2 error %s (%s) and %s (%s) differ in two significant digits", dim, k, ed, cd->name, em, cm->name);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT "D Q_%" PetscInt_FMT " %" PetscInt_FMT "^%" PetscInt_FMT " cells: %s %" PetscInt_FMT " its, L2 error %s; %s %" PetscInt_FMT " its, L2 error %s\n", dim, k, n, dim, cd->name, rd.its, ed,
                            cm->name, rm.its, em));
    }
  }
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: 3d
    requires: cuda
    args: -dim 3 -degrees 1,2,3,4,5 -cells 8 -dm_vec_type cuda
    output_file: none

  test:
    suffix: 2d
    requires: cuda
    args: -dim 2 -degrees 1,3 -cells 16 -dm_vec_type cuda
    output_file: none

  test:
    suffix: coarse_cg
    requires: cuda
    args: -dim 3 -degrees 2,4 -cells 12 -dm_vec_type cuda
    output_file: none

  test:
    suffix: coarse_cg_cpu
    args: -dim 3 -degrees 2,4 -cells 12 -pairs 2,4
    output_file: none

  test:
    suffix: richardson_cpu
    args: -dim 3 -degrees 2,3 -cells 8 -pairs 2
    output_file: none

  test:
    suffix: r12_cpu
    args: -dim 3 -degrees 3,5 -cells 8 -pairs 4
    output_file: none

  test:
    suffix: r12_q6_cpu
    args: -dim 3 -degrees 6 -cells 4 -pairs 4
    output_file: none

  test:
    suffix: richardson_2d_cpu
    args: -dim 2 -degrees 1,4 -cells 16 -pairs 2
    output_file: none

  test:
    suffix: cpu_refuses_single
    args: -dim 2 -degrees 2 -cells 4
    expect_error: runs on the GPU only

TEST*/
