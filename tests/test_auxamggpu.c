static char help[] = "PCAUXAMG on the GPU against the host path, same matrix and coordinates: the finite-difference Laplacian\n\
(-dim 2 or 3, n^d interior points, -n) with its points moved by up to -perturb times the spacing (so that rows couple\n\
across two auxiliary cells and the coarse stencils widen). Checks: the same levels and aggregates on every level\n\
(PCAuxAMGGetAggregates(): identical index sets), the GPU path's coarse operators equal to MatPtAP()\n\
(-pc_auxamg_check_galerkin), one application of the preconditioner equal to 1e-10 (relative, on a random vector), and\n\
a FCG solve to rtol 1e-8 with the same iteration count and solutions equal to 1e-8. Prints the differences.\n\
-coarse_size n: -pc_auxamg_coarse_size of both PCs (default: the host PC takes the GPU path's default, 4096, so that\n\
the levels compare). -expect_device_cycle <bool> (default true): whether the GPU PC runs its coarse levels as the device cycle (else each\n\
level's operations from the host, as when the coarsest level is too large to invert), checked in its PCView().\n\
On several ranks the GPU PC sets its levels up on the host and applies them on the device, gathering the levels of\n\
at most -gpu_pc_auxamg_gather_size unknowns on rank 0 (a PCAUXAMG on one rank there). -expect_gathered <bool>\n\
(default false): whether it does (its PCView()); its distributed levels' aggregates are then compared, and the\n\
application and the solve as above: on a grid whose tree cells do not straddle two ranks (-perturb 0, each rank's\n\
share of the grid a multiple of the cells' size) the gathered levels are the host path's up to the numbering.\n\
With -gpu_pc_auxamg_tree adaptive the GPU PC sets the adaptive tree up on the host and applies it on the device, its\n\
sweep colored by a greedy coloring: compare with a host PC given -host_pc_auxamg_smoother colored. -grade g (default 1):\n\
each coordinate x of the points (in (0, 1)) moved to x^g, so that they cluster at the corner 0 (the matrix stays the\n\
grid's: the aggregates are the points'); -expect_tree <uniform|adaptive>: the GPU PC's tree (its PCView()).\n\
-expect_exchange <none|staged|device>[,...]: what the GPU PC's exchanges hand to MPI (its PCView()): none\n\
(-gpu_pc_auxamg_exchange_device off, or one rank), staged (on, the probe found that MPI does not move device memory),\n\
device (on, every star forest passes device buffers); a list accepts any of them; not checked unless given\n\
(config/mpiexec-gpu.sh turns the option on by its default, -vpatch_exchange_device).\n\n";

#include <petscdmda.h>
#include <petscksp.h>
#include <petscvpatch.h>
#include "vptest.h"

/* a KSP (FCG) with PCAUXAMG on A and the coordinates xy */
static PetscErrorCode MakeSolver(Mat A, PetscInt dim, PetscInt n, PetscReal *xy, const char *prefix, KSP *ksp)
{
  PC pc;

  PetscFunctionBeginUser;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetOptionsPrefix(*ksp, prefix));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, KSPFCG));
  PetscCall(KSPSetNormType(*ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetTolerances(*ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 200));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, PCAUXAMG));
  PetscCall(PCSetCoordinates(pc, dim, n, xy));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscCall(KSPSetUp(*ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* where two levels' aggregates differ: each side's rows and aggregates, and the first row (in order) that differs */
static PetscErrorCode ReportAggregates(PetscInt l, IS ic, IS ig)
{
  PetscInt        nc, ng, ac = 0, ag = 0, first = -1;
  const PetscInt *c, *g;

  PetscFunctionBegin;
  PetscCall(ISGetLocalSize(ic, &nc));
  PetscCall(ISGetLocalSize(ig, &ng));
  PetscCall(ISGetIndices(ic, &c));
  PetscCall(ISGetIndices(ig, &g));
  for (PetscInt i = 0; i < nc; i++) ac = PetscMax(ac, c[i] + 1);
  for (PetscInt i = 0; i < ng; i++) ag = PetscMax(ag, g[i] + 1);
  for (PetscInt i = 0; i < PetscMin(nc, ng) && first < 0; i++)
    if (c[i] != g[i]) first = i;
  PetscCall(PetscSynchronizedPrintf(PETSC_COMM_WORLD,
                                    "level %" PetscInt_FMT ": the host %" PetscInt_FMT " rows in aggregates up to %" PetscInt_FMT ", the GPU %" PetscInt_FMT " rows up to %" PetscInt_FMT "; first differing row %" PetscInt_FMT " (host %" PetscInt_FMT
                                    ", GPU %" PetscInt_FMT ")\n",
                                    l, nc, ac, ng, ag, first, first >= 0 ? c[first] : -1, first >= 0 ? g[first] : -1));
  PetscCall(PetscSynchronizedFlush(PETSC_COMM_WORLD, PETSC_STDOUT));
  PetscCall(ISRestoreIndices(ic, &c));
  PetscCall(ISRestoreIndices(ig, &g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt           dim = 2, n = 64, N, nl = 0, itc, itg;
  PetscBool          expect = PETSC_TRUE, gathered = PETSC_FALSE, has;
  PetscReal          perturb = 0.3, grade = 1, *xy, d, nrm;
  DM                 da;
  Mat                A, Ag;
  Vec                b, xc, xg, bg, t;
  KSP                kc, kg;
  PC                 pc, pg;
  PetscRandom        rnd;
  KSPConvergedReason rc, rg;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscVPatchInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-perturb", &perturb, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-grade", &grade, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-expect_device_cycle", &expect, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-expect_gathered", &gathered, NULL));
  {
    char cs[32] = "4096";
    PetscCall(PetscOptionsGetString(NULL, NULL, "-coarse_size", cs, sizeof(cs), &has));
    PetscCall(PetscOptionsSetValue(NULL, "-host_pc_auxamg_coarse_size", cs));
    if (has) PetscCall(PetscOptionsSetValue(NULL, "-gpu_pc_auxamg_coarse_size", cs));
  }
  if (dim == 2)
    PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &da));
  else
    PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetUp(da));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(VPTestFDLaplacian(da, A));
  PetscCall(MatGetLocalSize(A, &N, NULL));
  /* the points: the grid's, moved by a reproducible pseudo-random amount */
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(rnd, 17));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(PetscMalloc1(dim * N, &xy));
  {
    DMDALocalInfo info;
    PetscInt      p = 0;
    PetscCall(DMDAGetLocalInfo(da, &info));
    for (PetscInt k = info.zs; k < info.zs + info.zm; k++)
      for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
        for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
          PetscInt ijk[3] = {i, j, k};
          for (PetscInt e = 0; e < dim; e++) {
            PetscReal r;
            PetscCall(PetscRandomGetValueReal(rnd, &r));
            xy[p++] = PetscPowReal((ijk[e] + 1 + perturb * r) / (n + 1), grade);
          }
        }
  }
  PetscCall(MatConvert(A, MATAIJCUSPARSE, MAT_INITIAL_MATRIX, &Ag));
  PetscCall(MakeSolver(A, dim, N, xy, "host_", &kc));
  PetscCall(MakeSolver(Ag, dim, N, xy, "gpu_", &kg));
  PetscCall(KSPGetPC(kc, &pc));
  PetscCall(KSPGetPC(kg, &pg));
  /* the same levels and aggregates */
  for (PetscInt l = 0;; l++) {
    IS        ic, ig;
    PetscBool eq, okc, okg;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    okc = PCAuxAMGGetAggregates(pc, l, &ic) == PETSC_SUCCESS ? PETSC_TRUE : PETSC_FALSE;
    okg = PCAuxAMGGetAggregates(pg, l, &ig) == PETSC_SUCCESS ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(PetscPopErrorHandler());
    if (gathered && okc && !okg) { /* the GPU PC's levels below are on rank 0 */
      PetscCall(ISDestroy(&ic));
      break;
    }
    PetscCheck(okc == okg, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the host path has %s level below level %" PetscInt_FMT ", the GPU path %s", okc ? "a" : "no", l, okg ? "has" : "has not");
    if (!okc) break;
    PetscCall(ISEqual(ic, ig, &eq));
    if (!eq) PetscCall(ReportAggregates(l, ic, ig));
    PetscCheck(eq, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the aggregates of level %" PetscInt_FMT " differ between the host and the GPU", l);
    PetscCall(ISDestroy(&ic));
    PetscCall(ISDestroy(&ig));
    nl++;
  }
  PetscCheck(nl >= (gathered ? 1 : 2), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "expected at least %d levels, got %" PetscInt_FMT, gathered ? 2 : 3, nl + 1); /* gathered: the levels on all ranks */
  {
    char        text[4096];
    PetscViewer sv;
    PetscCall(PetscViewerStringOpen(PETSC_COMM_WORLD, text, sizeof(text), &sv));
    PetscCall(PCView(pg, sv));
    PetscCall(PetscViewerDestroy(&sv));
    has = strstr(text, "coarse levels' cycle on the device") ? PETSC_TRUE : PETSC_FALSE;
    PetscCheck(has == expect, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the GPU PC %s the device cycle, expected %s", has ? "runs" : "does not run", expect ? "it" : "the host-launched levels");
    {
      char tree[16] = "";
      PetscCall(PetscOptionsGetString(NULL, NULL, "-expect_tree", tree, sizeof(tree), NULL));
      has = strstr(text, "adaptive tree") ? PETSC_TRUE : PETSC_FALSE;
      PetscCheck(!tree[0] || has == (PetscBool)!strcmp(tree, "adaptive"), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the GPU PC's tree is %s, expected %s", has ? "adaptive" : "uniform", tree);
    }
    has = strstr(text, "gathered") ? PETSC_TRUE : PETSC_FALSE;
    PetscCheck(has == gathered, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the GPU PC %s levels on rank 0, expected %s", has ? "gathers" : "does not gather", gathered ? "it to" : "it not to");
    {
      char        expx[64] = "";
      const char *xs = strstr(text, "exchanges: "), *state = "none";
      long        nd = 0, ns = 0;
      PetscCall(PetscOptionsGetString(NULL, NULL, "-expect_exchange", expx, sizeof(expx), NULL));
      if (xs) {
        PetscCheck(sscanf(xs, "exchanges: %ld of %ld", &nd, &ns) == 2 && ns > 0 && nd >= 0 && nd <= ns, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "unreadable exchanges in the GPU PC's view: %s", xs);
        PetscCheck(nd == 0 || nd == ns, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%ld of %ld star forests pass device buffers: all or none expected (one probe decides)", nd, ns);
        state = nd ? "device" : "staged";
      }
      PetscCheck(!expx[0] || strstr(expx, state), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the GPU PC's exchanges are %s, expected %s", state, expx);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "exchanges: %s (%ld of %ld star forests with device buffers)\n", state, nd, ns));
    }
  }
  /* one application on a random vector */
  PetscCall(MatCreateVecs(A, &xc, &b));
  PetscCall(MatCreateVecs(Ag, &xg, &bg));
  PetscCall(VecDuplicate(b, &t));
  PetscCall(VecSetRandom(b, rnd));
  PetscCall(VecCopy(b, bg));
  PetscCall(PCApply(pc, b, xc));
  PetscCall(PCApply(pg, bg, xg));
  PetscCall(VecCopy(xg, t));
  PetscCall(VecAXPY(t, -1.0, xc));
  PetscCall(VecNorm(t, NORM_2, &d));
  PetscCall(VecNorm(xc, NORM_2, &nrm));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " levels, aggregates identical; one application: GPU - host %.1e relative\n", nl + 1, (double)(d / nrm)));
  PetscCheck(d <= 1e-10 * nrm, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "one application differs by %g relative (> 1e-10)", (double)(d / nrm));
  /* a solve */
  PetscCall(VecSet(b, 1.0));
  PetscCall(VecSet(bg, 1.0));
  PetscCall(KSPSolve(kc, b, xc));
  PetscCall(KSPSolve(kg, bg, xg));
  PetscCall(KSPGetIterationNumber(kc, &itc));
  PetscCall(KSPGetIterationNumber(kg, &itg));
  PetscCall(KSPGetConvergedReason(kc, &rc));
  PetscCall(KSPGetConvergedReason(kg, &rg));
  PetscCheck(rc > 0 && rg > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "a solve did not converge: host %s, GPU %s", KSPConvergedReasons[rc], KSPConvergedReasons[rg]);
  PetscCall(VecCopy(xg, t));
  PetscCall(VecAXPY(t, -1.0, xc));
  PetscCall(VecNorm(t, NORM_2, &d));
  PetscCall(VecNorm(xc, NORM_2, &nrm));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FCG: host %" PetscInt_FMT " iterations, GPU %" PetscInt_FMT "; solutions: GPU - host %.1e relative\n", itc, itg, (double)(d / nrm)));
  PetscCheck(itc == itg, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the iteration counts differ");
  PetscCheck(d <= 1e-8 * nrm, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the solutions differ by %g relative (> 1e-8)", (double)(d / nrm));
  PetscCall(VecDestroy(&t));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&bg));
  PetscCall(VecDestroy(&xc));
  PetscCall(VecDestroy(&xg));
  PetscCall(KSPDestroy(&kc));
  PetscCall(KSPDestroy(&kg));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ag));
  PetscCall(PetscFree(xy));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: 2d
    requires: cuda
    args: -coarse_size 100 -gpu_pc_auxamg_check_galerkin -gpu_ksp_view
    output_file: none

  test:
    suffix: 2d_unperturbed_vcycle
    requires: cuda
    args: -coarse_size 100 -perturb 0 -n 100 -host_pc_auxamg_cycle v -gpu_pc_auxamg_cycle v -gpu_pc_auxamg_check_galerkin
    output_file: none

  test:
    suffix: 3d
    requires: cuda
    args: -coarse_size 100 -dim 3 -n 24 -gpu_pc_auxamg_check_galerkin -gpu_ksp_view
    output_file: none

  test:
    suffix: 3d_nograph
    requires: cuda
    args: -coarse_size 100 -dim 3 -n 24 -gpu_pc_auxamg_gpu_graph 0
    output_file: none

  test:
    suffix: 3d_coarse_gs
    requires: cuda
    args: -coarse_size 100 -dim 3 -n 24 -host_pc_auxamg_coarse_smoother gs -gpu_pc_auxamg_coarse_smoother gs
    output_file: none

  test:
    suffix: 2d_ktol
    requires: cuda
    args: -coarse_size 100 -n 100 -host_pc_auxamg_ktol 0.6 -gpu_pc_auxamg_ktol 0.6
    output_file: none

  test:
    suffix: 3d_vcycle_coarse1000
    requires: cuda
    args: -coarse_size 1000 -dim 3 -n 30 -host_pc_auxamg_cycle v -gpu_pc_auxamg_cycle v
    output_file: none

  test:
    suffix: 2d_host_coarsest
    requires: cuda
    args: -coarse_size 100 -n 300 -host_pc_auxamg_max_levels 3 -gpu_pc_auxamg_max_levels 3 -expect_device_cycle 0
    output_file: none

  test:
    suffix: 3d_gpu_default_coarse
    requires: cuda
    args: -dim 3 -n 40
    output_file: none

  test:
    suffix: 3d_ppc
    requires: cuda
    args: -coarse_size 100 -dim 3 -n 20 -perturb 0.45 -host_pc_auxamg_points_per_cell 3 -gpu_pc_auxamg_points_per_cell 3 -gpu_pc_auxamg_check_galerkin
    output_file: none

  # the adaptive tree: set up on the host (the host path's levels, a greedy coloring of the cells' graph), applied on the
  # device, on one rank and two
  test:
    suffix: 2d_tree
    requires: cuda
    args: -coarse_size 100 -host_pc_auxamg_tree adaptive -host_pc_auxamg_smoother colored -gpu_pc_auxamg_tree adaptive -expect_device_cycle 0 -gpu_ksp_view
    output_file: none

  # -pc_auxamg_tree auto (the default) on points clustered at a corner. x^4: the uniform grid's fullest cell holds 963
  # points, more than 2^(d+6) = 256: the GPU PC, on one rank and two, takes the adaptive tree (set up on the host,
  # applied on the device) as the host PC does. x^2: 92 points, above the host's 2^(d+2) = 16 and below 256: the GPU PC
  # keeps the uniform grid (the host PC, which would take the tree, is told the uniform grid to compare like with like)
  test:
    suffix: 2d_graded_auto_device_uniform
    requires: cuda
    args: -coarse_size 100 -n 100 -grade 2 -host_pc_auxamg_tree uniform -expect_tree uniform
    output_file: none

  test:
    suffix: 2d_graded_auto
    requires: cuda
    args: -coarse_size 100 -n 100 -grade 4 -host_pc_auxamg_smoother colored -expect_tree adaptive -expect_device_cycle 0
    output_file: none

  test:
    suffix: 2d_graded_auto_np2
    nsize: 2
    requires: cuda
    args: -coarse_size 100 -n 100 -grade 4 -host_pc_auxamg_smoother colored -expect_tree adaptive -expect_device_cycle 0
    output_file: none

  test:
    suffix: 2d_ungraded_auto
    requires: cuda
    args: -coarse_size 100 -expect_tree uniform
    output_file: none

  test:
    suffix: 3d_tree_np2
    nsize: 2
    requires: cuda
    args: -coarse_size 100 -dim 3 -n 24 -host_pc_auxamg_tree adaptive -host_pc_auxamg_smoother colored -gpu_pc_auxamg_tree adaptive -expect_device_cycle 0
    output_file: none

  test:
    suffix: 2d_np2
    nsize: 2
    requires: cuda
    args: -coarse_size 100 -gpu_pc_auxamg_gather_size 0 -expect_device_cycle 0 -gpu_pc_auxamg_check_galerkin -gpu_ksp_view
    output_file: none

  test:
    suffix: 3d_np3_coarse_gs
    nsize: 3
    requires: cuda
    args: -coarse_size 100 -dim 3 -n 24 -gpu_pc_auxamg_gather_size 0 -expect_device_cycle 0 -host_pc_auxamg_coarse_smoother gs -gpu_pc_auxamg_coarse_smoother gs
    output_file: none

  test:
    suffix: 2d_np2_gathered
    nsize: 2
    requires: cuda
    args: -coarse_size 100 -perturb 0 -gpu_pc_auxamg_gather_size 2000 -expect_device_cycle 0 -expect_gathered -gpu_ksp_view
    output_file: none

  test:
    suffix: 3d_np2_gathered
    nsize: 2
    requires: cuda
    args: -coarse_size 100 -dim 3 -n 32 -perturb 0 -gpu_pc_auxamg_gather_size 5000 -expect_device_cycle 0 -expect_gathered
    output_file: none

  # device buffers asked for: with an MPI that does not move device memory (plain mpiexec) the probe falls back to
  # host staging and says so; with one that does (config/mpiexec-gpu.sh) every exchange passes device buffers; either
  # way the aggregates, one application and the solve match the host path's
  test:
    suffix: 2d_np2_gathered_exchange_device
    nsize: 2
    requires: cuda
    args: -coarse_size 100 -perturb 0 -gpu_pc_auxamg_gather_size 2000 -expect_device_cycle 0 -expect_gathered -gpu_pc_auxamg_exchange_device -expect_exchange staged,device
    output_file: none

  # -vpatch_exchange_device, the default of every PCAUXAMG's option whatever its prefix (here gpu_); the PC's own option
  # overrides it
  test:
    suffix: 2d_np2_gathered_vpatch_exchange_device
    nsize: 2
    requires: cuda
    args: -coarse_size 100 -perturb 0 -gpu_pc_auxamg_gather_size 2000 -expect_device_cycle 0 -expect_gathered -vpatch_exchange_device -expect_exchange staged,device
    output_file: none

  test:
    suffix: 2d_np2_gathered_vpatch_exchange_device_off
    nsize: 2
    requires: cuda
    args: -coarse_size 100 -perturb 0 -gpu_pc_auxamg_gather_size 2000 -expect_device_cycle 0 -expect_gathered -vpatch_exchange_device -gpu_pc_auxamg_exchange_device 0 -expect_exchange none
    output_file: none

  test:
    suffix: 3d_np3_exchange_device
    nsize: 3
    requires: cuda
    args: -coarse_size 100 -dim 3 -n 24 -gpu_pc_auxamg_gather_size 0 -expect_device_cycle 0 -gpu_pc_auxamg_exchange_device -expect_exchange staged,device
    output_file: none

  test:
    suffix: 3d_np4_gathered_default
    nsize: 4
    requires: cuda
    args: -dim 3 -n 64 -perturb 0 -expect_device_cycle 0 -expect_gathered
    output_file: none

TEST*/
