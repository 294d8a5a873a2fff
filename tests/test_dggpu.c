static char help[] = "The CUDA kernels of the discontinuous space of DMQBOX (-dm_qbox_dg) against the CPU ones, on the same random vectors:\n\
the SIPG operator (MatMult, MatGetDiagonal), the embedding between two levels (MatMult, MatMultTranspose) and PCVPATCH (one symmetric\n\
sweep, zero initial guess) with the fused kernel (each patch's residual in the kernel, one rank), the global one (each\n\
color's residual by MatMult) and the additive variant. Double: equal to 1e-12; -single (float arithmetic of the GPU\n\
operator, transfers and patches): equal to 1e-5. The mesh and degree come from the -dm_qbox_ options.\n\n";

#include <petscvpatch.h>

/* a DG DMQBOX of the options (default 3D Q_2 on 4^3 cells), CUDA or host vectors; single: float arithmetic on the GPU */
static PetscErrorCode CreateDM(PetscBool cuda, PetscBool single, DM *dm)
{
  PetscInt cells[3] = {4, 4, 4};

  PetscFunctionBeginUser;
  PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, 3, cells, 2, NULL, NULL, dm));
  PetscCall(DMQBoxSetDiscontinuous(*dm, PETSC_TRUE, 2.0));
  PetscCall(DMSetFromOptions(*dm));
  PetscCall(DMSetVecType(*dm, cuda ? VECCUDA : VECSTANDARD));
  if (single) PetscCall(DMQBoxSetPrecision(*dm, VP_PRECISION_SINGLE, VP_PRECISION_SINGLE));
  PetscCall(DMSetUp(*dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ||a - b|| / ||b||, a and b of different vector types (copied to host vectors of b's layout) */
static PetscErrorCode RelDiff(Vec a, Vec b, PetscReal *rel)
{
  Vec       d, ah, bh;
  PetscInt  n;
  PetscReal nd, nb;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(b, &n));
  PetscCall(VecCreateMPI(PetscObjectComm((PetscObject)b), n, PETSC_DETERMINE, &ah));
  PetscCall(VecDuplicate(ah, &bh));
  PetscCall(VecDuplicate(ah, &d));
  {
    const PetscScalar *pa, *pb;
    PetscScalar       *qa, *qb;
    PetscCall(VecGetArrayRead(a, &pa));
    PetscCall(VecGetArrayRead(b, &pb));
    PetscCall(VecGetArrayWrite(ah, &qa));
    PetscCall(VecGetArrayWrite(bh, &qb));
    PetscCall(PetscArraycpy(qa, pa, n));
    PetscCall(PetscArraycpy(qb, pb, n));
    PetscCall(VecRestoreArrayWrite(bh, &qb));
    PetscCall(VecRestoreArrayWrite(ah, &qa));
    PetscCall(VecRestoreArrayRead(b, &pb));
    PetscCall(VecRestoreArrayRead(a, &pa));
  }
  PetscCall(VecWAXPY(d, -1.0, bh, ah));
  PetscCall(VecNorm(d, NORM_2, &nd));
  PetscCall(VecNorm(bh, NORM_2, &nb));
  PetscCheck(nb > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the CPU result is zero: nothing was compared");
  *rel = nd / nb;
  PetscCall(VecDestroy(&d));
  PetscCall(VecDestroy(&ah));
  PetscCall(VecDestroy(&bh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* copy the host vector h into v (any type, same layout) */
static PetscErrorCode Load(Vec h, Vec v)
{
  const PetscScalar *p;
  PetscScalar       *q;
  PetscInt           n;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(h, &n));
  PetscCall(VecGetArrayRead(h, &p));
  PetscCall(VecGetArrayWrite(v, &q));
  PetscCall(PetscArraycpy(q, p, n));
  PetscCall(VecRestoreArrayWrite(v, &q));
  PetscCall(VecRestoreArrayRead(h, &p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* what is compared, on the DM dm (fine) and its coarsening dmc: y = A x, P xc, P^T x, and the sweeps of PCVPATCH */
typedef struct {
  Vec Ax, diag, Pxc, Ptx, sweep[3];
} Results;
static const char *const SweepNames[3]  = {"fused", "global", "additive"};
static const char *const SweepKernel[3] = {NULL, "global", "global"}; /* NULL: the default (fused on one rank, global on several) */

static PetscErrorCode Compute(DM dm, PetscBool single, Vec xh, Vec xch, Results *r)
{
  DM  dmc;
  Mat A, P;
  Vec x, xc;

  PetscFunctionBeginUser;
  PetscCall(DMCoarsen(dm, PETSC_COMM_WORLD, &dmc));
  PetscCall(DMSetMatType(dm, MATSHELL));
  PetscCall(DMCreateMatrix(dm, &A));
  PetscCall(DMCreateGlobalVector(dm, &x));
  PetscCall(DMCreateGlobalVector(dmc, &xc));
  PetscCall(Load(xh, x));
  PetscCall(Load(xch, xc));
  PetscCall(VecDuplicate(x, &r->Ax));
  PetscCall(MatMult(A, x, r->Ax));
  PetscCall(VecDuplicate(x, &r->diag));
  PetscCall(MatGetDiagonal(A, r->diag));
  PetscCall(DMCreateInterpolation(dmc, dm, &P, NULL));
  PetscCall(VecDuplicate(x, &r->Pxc));
  PetscCall(VecDuplicate(xc, &r->Ptx));
  PetscCall(MatMult(P, xc, r->Pxc));
  PetscCall(MatMultTranspose(P, x, r->Ptx));
  for (PetscInt s = 0; s < 3; s++) {
    PC pc;
    PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
    PetscCall(PCSetType(pc, PCVPATCH));
    PetscCall(PCSetOperators(pc, A, A));
    PetscCall(PCVPatchSetSweep(pc, PC_VPATCH_SWEEP_SYMMETRIC));
    PetscCall(PCVPatchSetType(pc, s == 2 ? PC_VPATCH_ADDITIVE : PC_VPATCH_MULTIPLICATIVE));
    if (SweepKernel[s])
      PetscCall(PetscOptionsSetValue(NULL, "-pc_vpatch_kernel", SweepKernel[s]));
    else
      PetscCall(PetscOptionsClearValue(NULL, "-pc_vpatch_kernel"));
    PetscCall(PetscOptionsSetValue(NULL, "-pc_vpatch_precision", single ? "single" : "double"));
    PetscCall(PCSetFromOptions(pc));
    PetscCall(PCSetUp(pc));
    PetscCall(VecDuplicate(x, &r->sweep[s]));
    PetscCall(PCApply(pc, x, r->sweep[s]));
    PetscCall(PCDestroy(&pc));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-pc_vpatch_kernel"));
  PetscCall(PetscOptionsClearValue(NULL, "-pc_vpatch_precision"));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xc));
  PetscCall(MatDestroy(&P));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&dmc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ResultsDestroy(Results *r)
{
  PetscFunctionBeginUser;
  PetscCall(VecDestroy(&r->Ax));
  PetscCall(VecDestroy(&r->diag));
  PetscCall(VecDestroy(&r->Pxc));
  PetscCall(VecDestroy(&r->Ptx));
  for (PetscInt s = 0; s < 3; s++) PetscCall(VecDestroy(&r->sweep[s]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM          dmh, dmd, dmhc;
  Vec         xh, xch;
  PetscRandom rnd;
  Results     rh, rd;
  PetscBool   single = PETSC_FALSE;
  PetscMPIInt size;
  PetscReal   tol, rel;
  PetscInt    dim, k;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscVPatchInitializePackage());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-single", &single, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  tol = single ? 1e-5 : 1e-12;
  PetscCall(CreateDM(PETSC_FALSE, PETSC_FALSE, &dmh));
  PetscCall(CreateDM(PETSC_TRUE, single, &dmd));
  PetscCall(DMQBoxGetInfo(dmh, &dim, NULL, &k, NULL, NULL));
  PetscCall(DMCoarsen(dmh, PETSC_COMM_WORLD, &dmhc));
  PetscCall(DMCreateGlobalVector(dmh, &xh));
  PetscCall(DMCreateGlobalVector(dmhc, &xch));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(VecSetRandom(xh, rnd));
  PetscCall(VecSetRandom(xch, rnd));
  PetscCall(Compute(dmh, PETSC_FALSE, xh, xch, &rh));
  PetscCall(Compute(dmd, single, xh, xch, &rd));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "DG Q_%" PetscInt_FMT " in %" PetscInt_FMT "D on %d rank(s), GPU (%s) against CPU (double), to %g:\n", k, dim, size, single ? "single" : "double", (double)tol));
  PetscCall(RelDiff(rd.Ax, rh.Ax, &rel));
  PetscCall(PetscInfo(NULL, "MatMult: %g\n", (double)rel));
  PetscCheck(rel < tol, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "DG operator: GPU and CPU differ by %g", (double)rel);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  SIPG MatMult equal\n"));
  PetscCall(RelDiff(rd.diag, rh.diag, &rel));
  PetscCheck(rel < 1e-14, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "DG diagonal (MatGetDiagonal): GPU and CPU differ by %g", (double)rel);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  SIPG diagonal equal\n"));
  PetscCall(RelDiff(rd.Pxc, rh.Pxc, &rel));
  PetscCheck(rel < tol, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "DG prolongation: GPU and CPU differ by %g", (double)rel);
  PetscCall(RelDiff(rd.Ptx, rh.Ptx, &rel));
  PetscCheck(rel < tol, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "DG restriction: GPU and CPU differ by %g", (double)rel);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  embedding and its transpose equal\n"));
  for (PetscInt s = 0; s < 3; s++) {
    PetscCall(RelDiff(rd.sweep[s], rh.sweep[s], &rel));
    PetscCall(PetscInfo(NULL, "sweep %s: %g\n", SweepNames[s], (double)rel));
    PetscCheck(rel < tol, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "DG vertex-patch sweep (%s): GPU and CPU differ by %g", SweepNames[s], (double)rel);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  PCVPATCH sweep, %s kernel%s, equal\n", SweepNames[s], s == 0 && size > 1 ? " (several ranks: the global one)" : ""));
  }
  PetscCall(ResultsDestroy(&rh));
  PetscCall(ResultsDestroy(&rd));
  PetscCall(VecDestroy(&xh));
  PetscCall(VecDestroy(&xch));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(DMDestroy(&dmhc));
  PetscCall(DMDestroy(&dmh));
  PetscCall(DMDestroy(&dmd));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: 3d_k2
    requires: cuda

  test:
    suffix: 3d_k2_single
    requires: cuda
    args: -single

  test:
    suffix: 3d_k7
    requires: cuda
    args: -dm_qbox_degree 7 -dm_qbox_cells 4,4,2

  test:
    suffix: 3d_k1_single
    requires: cuda
    args: -dm_qbox_degree 1 -dm_qbox_cells 6,4,4 -single

  test:
    suffix: 3d_k3_anisotropic
    requires: cuda
    args: -dm_qbox_degree 3 -dm_qbox_cells 6,4,8

  test:
    suffix: 3d_k5_single_anisotropic
    requires: cuda
    args: -dm_qbox_degree 5 -dm_qbox_cells 4,6,4 -single

  test:
    suffix: 3d_k3_single_anisotropic
    requires: cuda
    args: -dm_qbox_degree 3 -dm_qbox_cells 6,4,8 -single

  test:
    suffix: 3d_k3_entries
    requires: cuda
    args: -dm_qbox_degree 3 -dm_qbox_cells 4 -pc_vpatch_dg_lines 0

  test:
    suffix: 3d_k7_single_entries
    requires: cuda
    args: -dm_qbox_degree 7 -dm_qbox_cells 4,2,4 -single -pc_vpatch_dg_lines 0

  test:
    suffix: 3d_k8
    requires: cuda
    args: -dm_qbox_degree 8 -dm_qbox_cells 2

  test:
    suffix: 2d_k10
    requires: cuda
    args: -dm_qbox_dim 2 -dm_qbox_degree 10 -dm_qbox_cells 4,6

  test:
    suffix: 2d_k3_single
    requires: cuda
    args: -dm_qbox_dim 2 -dm_qbox_degree 3 -dm_qbox_cells 8 -single

  test:
    suffix: 3d_k3_np2
    requires: cuda
    nsize: 2
    args: -dm_qbox_degree 3 -dm_qbox_cells 4

  test:
    suffix: 2d_k4_np3
    requires: cuda
    nsize: 3
    args: -dm_qbox_dim 2 -dm_qbox_degree 4 -dm_qbox_cells 6

TEST*/
