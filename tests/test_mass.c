static char help[] = "The operator a M + b K of DMQBOX (M the mass matrix, K the Laplacian):\n\
-case operator: DMCreateMassMatrix(), DMCreateMassMatrixLumped() and the operator that MatCopy(), MatAXPY() and MatScale()\n\
  form from the matrix-free K and M agree with the assembled ones, with DMQBoxSetOperatorWeights() and with each other\n\
  (A x, diagonal, symmetry) for each degree of -degrees;\n\
-case patch: on 2 cells per direction the mesh has one interior vertex, whose patch holds every unknown, so one\n\
  PCVPATCH application is one patch solve: it equals a direct (LU) solve of the assembled a M + b K to 1e-12 for\n\
  a/b from 1e-6 to 1e6 and the pure mass matrix, each degree of -degrees (CPU or, with -dm_vec_type cuda, GPU kernels);\n\
-case <bad input>: the errors of -case negative, nan, axpy_aij, axpy_other_dm, scale_negative, dg.\n\
With -dm_qbox_mapping and -dm_qbox_coefficient the same on a mapped box (the patch solve exact where the map is the\n\
identity: the separable surrogate is then the patch matrix).\n\n";

#include <petscvpatch.h>
#include <petscksp.h>
#include <math.h>
#include "vptest.h"

static PetscErrorCode CreateDM(PetscInt dim, const PetscInt cells[], PetscInt k, MatType mt, VecType vt, DM *dm)
{
  const PetscReal lower[3] = {-0.5, 0.0, 1.0}, upper[3] = {1.5, 0.7, 1.3}; /* anisotropic cells */

  PetscFunctionBeginUser;
  PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, dim, cells, k, lower, upper, dm));
  PetscCall(DMSetMatType(*dm, mt));
  if (vt) PetscCall(DMSetVecType(*dm, vt));
  PetscCall(DMSetFromOptions(*dm));
  PetscCall(DMSetUp(*dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the stiffness and mass matrices of a matrix-free DM (dms) and of an assembled one (dma, host vectors), and J, a third
   operator of each to form a M + b K in */
typedef struct {
  DM  dms, dma;
  Mat Ks, Ms, Js, Ka, Ma, Ja;
} Operators;

static PetscErrorCode OperatorsCreate(PetscInt dim, const PetscInt cells[], PetscInt k, Operators *o)
{
  PetscFunctionBeginUser;
  PetscCall(CreateDM(dim, cells, k, MATSHELL, NULL, &o->dms));
  PetscCall(CreateDM(dim, cells, k, MATAIJ, VECSTANDARD, &o->dma));
  PetscCall(DMCreateMatrix(o->dms, &o->Ks));
  PetscCall(DMCreateMassMatrix(o->dms, o->dms, &o->Ms));
  PetscCall(DMCreateMatrix(o->dms, &o->Js));
  PetscCall(DMCreateMatrix(o->dma, &o->Ka));
  PetscCall(DMCreateMassMatrix(o->dma, o->dma, &o->Ma));
  PetscCall(MatDuplicate(o->Ka, MAT_COPY_VALUES, &o->Ja));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OperatorsDestroy(Operators *o)
{
  PetscFunctionBeginUser;
  PetscCall(MatDestroy(&o->Ks));
  PetscCall(MatDestroy(&o->Ms));
  PetscCall(MatDestroy(&o->Js));
  PetscCall(MatDestroy(&o->Ka));
  PetscCall(MatDestroy(&o->Ma));
  PetscCall(MatDestroy(&o->Ja));
  PetscCall(DMDestroy(&o->dms));
  PetscCall(DMDestroy(&o->dma));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* J = a M + b K the way a time stepper forms it: a copy of K, then MatAXPY() with M (b = 1) or MatScale() first */
static PetscErrorCode FormJ(Mat K, Mat M, PetscReal a, PetscReal b, Mat J)
{
  PetscFunctionBeginUser;
  PetscCall(MatCopy(K, J, SAME_NONZERO_PATTERN));
  if (b != 1.0) PetscCall(MatScale(J, b));
  PetscCall(MatAXPY(J, a, M, SAME_NONZERO_PATTERN));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CaseOperator(PetscInt dim, const PetscInt degrees[], PetscInt ndeg, PetscRandom rnd)
{
  PetscInt cells[3] = {3, 2, 2};

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < ndeg; i++) {
    PetscInt        k = degrees[i];
    const PetscReal a = 37.5, b = 0.25;
    Operators       o;
    DM              dmw;
    Mat             Jw, Jd;
    Vec             x, z, ys, ya, ones, lm, llm;
    PetscReal       rmult, rdiag, rw, rdup, rsym, rlump = 0;
    PetscScalar     xJz, zJx;

    PetscCall(OperatorsCreate(dim, cells, k, &o));
    PetscCall(CreateDM(dim, cells, k, MATSHELL, NULL, &dmw));
    PetscCall(DMQBoxSetOperatorWeights(dmw, a, b));
    PetscCall(DMCreateMatrix(dmw, &Jw));
    PetscCall(FormJ(o.Ks, o.Ms, a, b, o.Js));
    PetscCall(FormJ(o.Ka, o.Ma, a, b, o.Ja));
    PetscCall(MatDuplicate(o.Js, MAT_COPY_VALUES, &Jd));
    PetscCall(MatAXPY(o.Js, 0.0, o.Ks, SAME_NONZERO_PATTERN)); /* Jd keeps its own description */
    PetscCall(MatScale(o.Js, 2.0));
    PetscCall(MatScale(o.Js, 0.5));
    PetscCall(DMCreateGlobalVector(o.dms, &x));
    PetscCall(VecDuplicate(x, &z));
    PetscCall(VecDuplicate(x, &ys));
    PetscCall(VecDuplicate(x, &ya));
    PetscCall(VecSetRandom(x, rnd));
    PetscCall(VecSetRandom(z, rnd));

    PetscCall(MatMult(o.Js, x, ys));
    PetscCall(MatMult(o.Ja, x, ya));
    PetscCall(VPTestRelDiff(ys, ya, &rmult));
    PetscCall(MatMult(Jw, x, ys));
    PetscCall(VPTestRelDiff(ys, ya, &rw));
    PetscCall(MatMult(Jd, x, ys));
    PetscCall(VPTestRelDiff(ys, ya, &rdup));
    PetscCall(MatGetDiagonal(o.Js, ys));
    PetscCall(MatGetDiagonal(o.Ja, ya));
    PetscCall(VPTestRelDiff(ys, ya, &rdiag));
    PetscCall(MatMult(o.Js, z, ys));
    PetscCall(VecDot(x, ys, &xJz));
    PetscCall(MatMult(o.Js, x, ys));
    PetscCall(VecDot(z, ys, &zJx));
    rsym = PetscAbsScalar(xJz - zJx) / PetscAbsScalar(zJx);
    PetscCheck(rmult < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "k=%" PetscInt_FMT ": matrix-free and assembled a M + b K differ by %g (relative)", k, (double)rmult);
    PetscCheck(rw < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "k=%" PetscInt_FMT ": DMQBoxSetOperatorWeights()'s operator and the assembled a M + b K differ by %g", k, (double)rw);
    PetscCheck(rdup < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "k=%" PetscInt_FMT ": MatDuplicate() of a M + b K differs by %g", k, (double)rdup);
    PetscCheck(rdiag < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "k=%" PetscInt_FMT ": diagonals of a M + b K differ by %g (relative)", k, (double)rdiag);
    PetscCheck(rsym < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "k=%" PetscInt_FMT ": x^T J z - z^T J x = %g (relative)", k, (double)rsym);
    /* a diagonal and a shift added (MatDiagonalSet(), MatShift()): the shell applies them after its kernel, as AIJ */
    PetscCall(VecCopy(z, ya));
    PetscCall(MatDiagonalSet(o.Js, z, ADD_VALUES));
    PetscCall(MatDiagonalSet(o.Ja, ya, ADD_VALUES));
    PetscCall(MatShift(o.Js, 3.0));
    PetscCall(MatShift(o.Ja, 3.0));
    PetscCall(MatMult(o.Js, x, ys));
    PetscCall(MatMult(o.Ja, x, ya));
    PetscCall(VPTestRelDiff(ys, ya, &rmult));
    PetscCall(MatGetDiagonal(o.Js, ys));
    PetscCall(MatGetDiagonal(o.Ja, ya));
    PetscCall(VPTestRelDiff(ys, ya, &rdiag));
    PetscCheck(rmult < 1e-12 && rdiag < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "k=%" PetscInt_FMT ": a M + b K + diag(z) + 3 I differs from the assembled one by %g (A x), %g (diagonal)", k, (double)rmult, (double)rdiag);

    /* the lumped mass: at the nodes whose cells touch no Dirichlet node (4 cells per direction), the row sums of M (M
       applied to one) */
    {
      const PetscScalar *l, *m;
      PetscInt           c4[3] = {4, 4, 4}, n1 = 4 * k + 1, n2 = 4 * k + 1, nz = dim == 3 ? 4 * k + 1 : 1, deep = 0;
      DM                 dml;
      Mat                Ml;
      Vec                yl;
      PetscCall(CreateDM(dim, c4, k, MATSHELL, NULL, &dml));
      PetscCall(DMCreateMassMatrix(dml, dml, &Ml));
      PetscCall(DMCreateMassMatrixLumped(dml, &llm, &lm));
      PetscCall(VecDuplicate(lm, &ones));
      PetscCall(VecDuplicate(lm, &yl));
      PetscCall(VecSet(ones, 1.0));
      PetscCall(MatMult(Ml, ones, yl));
      PetscMPIInt size;
      PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
      PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_SUP, "-case operator runs on one rank (it indexes the global vector)");
      PetscCall(VecGetArrayRead(lm, &l));
      PetscCall(VecGetArrayRead(yl, &m));
      for (PetscInt pz = 0, i = 0; pz < nz; pz++)
        for (PetscInt py = 0; py < n2; py++)
          for (PetscInt px = 0; px < n1; px++, i++) {
            PetscInt p[3] = {px, py, pz}, n[3] = {n1, n2, nz}, ok = 1;
            for (PetscInt d = 0; d < dim; d++) ok = ok && p[d] > k && p[d] < n[d] - 1 - k; /* no Dirichlet node in its cells */
            if (!ok) continue;
            rlump = PetscMax(rlump, PetscAbsScalar(l[i] - m[i]) / PetscAbsScalar(m[i]));
            deep++;
          }
      PetscCall(VecRestoreArrayRead(yl, &m));
      PetscCall(VecRestoreArrayRead(lm, &l));
      PetscCheck(deep > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "no node to compare the lumped mass at");
      PetscCall(VecDestroy(&yl));
      PetscCall(MatDestroy(&Ml));
      PetscCall(DMDestroy(&dml));
    }
    PetscCheck(rlump < 1e-13, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "k=%" PetscInt_FMT ": the lumped mass differs from the row sums of M by %g", k, (double)rlump);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT "D Q_%" PetscInt_FMT ": a M + b K (MatCopy/MatAXPY/MatScale, DMQBoxSetOperatorWeights, MatDuplicate) equals the assembled one (< 1e-12), lumped mass exact\n", dim, k));
    PetscCall(VecDestroy(&ones));
    PetscCall(VecDestroy(&lm));
    PetscCall(VecDestroy(&llm));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&z));
    PetscCall(VecDestroy(&ys));
    PetscCall(VecDestroy(&ya));
    PetscCall(MatDestroy(&Jd));
    PetscCall(MatDestroy(&Jw));
    PetscCall(OperatorsDestroy(&o));
    PetscCall(DMDestroy(&dmw));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one patch solve (PCVPATCH on 2 cells per direction) against LU of the assembled operator */
static PetscErrorCode CasePatch(PetscInt dim, const PetscInt degrees[], PetscInt ndeg, PetscRandom rnd)
{
  PetscInt        cells[3] = {2, 2, 2};
  const PetscReal ratio[]  = {1e-6, 1e-2, 1.0, 1e2, 1e6, -1}; /* a/b; -1: the mass matrix alone (b = 0) */
  VecType         vt;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < ndeg; i++) {
    PetscInt  k = degrees[i];
    Operators o;
    Vec       bv, xv, xl, ba;
    PetscReal worst = 0;

    PetscCall(OperatorsCreate(dim, cells, k, &o));
    PetscCall(DMGetVecType(o.dms, &vt));
    PetscCall(DMCreateGlobalVector(o.dms, &bv));
    PetscCall(VecDuplicate(bv, &xv));
    PetscCall(DMCreateGlobalVector(o.dma, &ba));
    PetscCall(VecDuplicate(ba, &xl));
    for (size_t r = 0; r < sizeof(ratio) / sizeof(ratio[0]); r++) {
      PetscReal a = ratio[r] < 0 ? 3.0 : ratio[r], b = ratio[r] < 0 ? 0.0 : 1.0, rel;
      PC        vp, pc;
      KSP       lu;

      PetscCall(FormJ(o.Ks, o.Ms, a, b, o.Js));
      PetscCall(FormJ(o.Ka, o.Ma, a, b, o.Ja));
      PetscCall(VecSetRandom(ba, rnd));
      PetscCall(VecCopy(ba, bv)); /* host to device where o.dms has CUDA vectors */
      PetscCall(PCCreate(PETSC_COMM_WORLD, &vp));
      PetscCall(PCSetType(vp, PCVPATCH));
      PetscCall(PCSetOperators(vp, o.Js, o.Js));
      PetscCall(PCSetFromOptions(vp));
      PetscCall(PCSetUp(vp));
      PetscCall(PCApply(vp, bv, xv));
      PetscCall(PCDestroy(&vp));
      PetscCall(KSPCreate(PETSC_COMM_WORLD, &lu));
      PetscCall(KSPSetOperators(lu, o.Ja, o.Ja));
      PetscCall(KSPSetType(lu, KSPPREONLY));
      PetscCall(KSPGetPC(lu, &pc));
      PetscCall(PCSetType(pc, PCLU));
      PetscCall(KSPSolve(lu, ba, xl));
      PetscCall(KSPDestroy(&lu));
      PetscCall(VecCopy(xv, ba)); /* to the host */
      PetscCall(VPTestRelDiff(ba, xl, &rel));
      PetscCheck(rel < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT "D Q_%" PetscInt_FMT ", %g M + %g K: the patch solve differs from LU by %g (relative)", dim, k, (double)a, (double)b, (double)rel);
      worst = PetscMax(worst, rel);
    }
    PetscCall(PetscInfo(NULL, "%" PetscInt_FMT "D Q_%" PetscInt_FMT " (%s vectors): the patch solve of a M + b K equals LU for a/b in 1e-6..1e6 and b = 0, worst %g\n", dim, k, vt, (double)worst));
    PetscCall(VecDestroy(&bv));
    PetscCall(VecDestroy(&xv));
    PetscCall(VecDestroy(&ba));
    PetscCall(VecDestroy(&xl));
    PetscCall(OperatorsDestroy(&o));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* bad input: each case stops with the error its TEST entry expects */
static PetscErrorCode CaseBad(const char cs[])
{
  PetscInt cells[3] = {4, 4, 4};
  DM       dm, dm2;
  Mat      K, M, A;
  PC       pc;

  PetscFunctionBeginUser;
  PetscCall(CreateDM(2, cells, 2, MATSHELL, NULL, &dm));
  if (!strcmp(cs, "negative")) PetscCall(DMQBoxSetOperatorWeights(dm, -1.0, 1.0));
  if (!strcmp(cs, "nan")) PetscCall(DMQBoxSetOperatorWeights(dm, 1.0, (PetscReal)NAN));
  PetscCall(DMCreateMatrix(dm, &K));
  PetscCall(DMCreateMassMatrix(dm, dm, &M));
  if (!strcmp(cs, "axpy_aij")) {
    PetscCall(MatConvert(M, MATAIJ, MAT_INITIAL_MATRIX, &A));
    PetscCall(MatAXPY(K, 1.0, A, DIFFERENT_NONZERO_PATTERN));
  }
  if (!strcmp(cs, "axpy_other_dm")) {
    PetscCall(CreateDM(2, cells, 2, MATSHELL, NULL, &dm2));
    PetscCall(DMCreateMassMatrix(dm2, dm2, &A));
    PetscCall(MatAXPY(K, 1.0, A, SAME_NONZERO_PATTERN));
  }
  if (!strcmp(cs, "scale_negative")) { /* -M + K: not positive */
    PetscCall(MatAXPY(K, -1.0, M, SAME_NONZERO_PATTERN));
    PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
    PetscCall(PCSetType(pc, PCVPATCH));
    PetscCall(PCSetOperators(pc, K, K));
    PetscCall(PCSetUp(pc));
  }
  if (!strcmp(cs, "dg")) {
    DM dmd;
    PetscCall(DMQBoxCreate(PETSC_COMM_WORLD, 2, cells, 2, NULL, NULL, &dmd));
    PetscCall(DMQBoxSetDiscontinuous(dmd, PETSC_TRUE, PETSC_DETERMINE));
    PetscCall(DMSetUp(dmd));
    PetscCall(DMCreateMassMatrix(dmd, dmd, &A));
  }
  SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_PLIB, "-case %s: no error was raised", cs);
}

int main(int argc, char **argv)
{
  PetscInt    dim    = 2, degrees[10], ndeg;
  char        cs[64] = "operator";
  PetscRandom rnd;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscVPatchInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-case", cs, sizeof(cs), NULL));
  PetscCall(VPTestGetDegrees(dim == 2 ? 10 : 8, degrees, &ndeg));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));
  if (!strcmp(cs, "operator"))
    PetscCall(CaseOperator(dim, degrees, ndeg, rnd));
  else if (!strcmp(cs, "patch"))
    PetscCall(CasePatch(dim, degrees, ndeg, rnd));
  else
    PetscCall(CaseBad(cs));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: operator_2d
    args: -case operator -dim 2 -degrees 1,2,3,5,10
    output_file: none

  test:
    suffix: operator_3d
    args: -case operator -dim 3 -degrees 1,2,4,8
    output_file: none

  test:
    suffix: operator_3d_cuda
    requires: cuda
    args: -case operator -dim 3 -degrees 1,2,4,8 -dm_vec_type cuda
    output_file: none

  test:
    suffix: patch_2d
    args: -case patch -dim 2 -degrees 1,2,3,4,5,6,7,8,9,10
    output_file: none

  test:
    suffix: patch_3d
    args: -case patch -dim 3 -degrees 1,2,3,4,5,6,7,8
    output_file: none

  test:
    suffix: patch_2d_cuda
    requires: cuda
    args: -case patch -dim 2 -degrees 1,2,3,4,5,6,7,8,9,10 -dm_vec_type cuda
    output_file: none

  test:
    suffix: patch_3d_cuda
    requires: cuda
    args: -case patch -dim 3 -degrees 1,2,3,4,5,6,7,8 -dm_vec_type cuda
    output_file: none

  test:
    suffix: patch_3d_cuda_separate
    requires: cuda
    args: -case patch -dim 3 -degrees 2,3,7 -dm_vec_type cuda -pc_vpatch_kernel separate
    output_file: none

  test:
    suffix: patch_3d_cuda_global
    requires: cuda
    args: -case patch -dim 3 -degrees 2,3,7 -dm_vec_type cuda -pc_vpatch_kernel global
    output_file: none

  # the mapped box (the deformed map, the oscillatory coefficient): the mass term by its own kernels (w det J per point),
  # against the assembled operator; one patch solve through the mapped variant (the separable surrogate) where the map
  # is the identity, so that the surrogate is exact
  test:
    suffix: mapped_operator_2d
    args: -case operator -dim 2 -degrees 1,2,3,5 -dm_qbox_mapping deformed -dm_qbox_coefficient oscillatory -dm_qbox_coefficient_contrast 100
    output_file: none

  test:
    suffix: mapped_operator_3d
    args: -case operator -dim 3 -degrees 1,2,4 -dm_qbox_mapping deformed -dm_qbox_coefficient oscillatory -dm_qbox_coefficient_contrast 100
    output_file: none

  test:
    suffix: mapped_operator_3d_cuda
    requires: cuda
    args: -case operator -dim 3 -degrees 1,2,4 -dm_qbox_mapping deformed -dm_qbox_coefficient oscillatory -dm_qbox_coefficient_contrast 100 -dm_vec_type cuda
    output_file: none

  test:
    suffix: mapped_patch_2d
    args: -case patch -dim 2 -degrees 1,2,3,6 -dm_qbox_mapping deformed -dm_qbox_deform_amplitude 0
    output_file: none

  test:
    suffix: mapped_patch_3d
    args: -case patch -dim 3 -degrees 1,2,3 -dm_qbox_mapping deformed -dm_qbox_deform_amplitude 0
    output_file: none

  test:
    suffix: mapped_patch_3d_cuda
    requires: cuda
    args: -case patch -dim 3 -degrees 1,2,3 -dm_qbox_mapping deformed -dm_qbox_deform_amplitude 0 -dm_vec_type cuda
    output_file: none

  # the local solver scaled with damping 1: where the surrogate is the patch matrix (the identity map, a constant
  # coefficient) its diagonal is the operator's (an interior node's cells all lie in the patch), so the scaling is the
  # identity and the solve exact, mass term included
  test:
    suffix: mapped_patch_2d_scaled
    args: -case patch -dim 2 -degrees 1,2,3,6,10 -dm_qbox_mapping deformed -dm_qbox_deform_amplitude 0 -pc_vpatch_local_solver scaled -pc_vpatch_local_damping 1
    output_file: none

  test:
    suffix: mapped_patch_3d_scaled
    args: -case patch -dim 3 -degrees 1,2,3 -dm_qbox_mapping deformed -dm_qbox_deform_amplitude 0 -pc_vpatch_local_solver scaled -pc_vpatch_local_damping 1
    output_file: none

  test:
    suffix: mapped_patch_2d_scaled_cuda
    requires: cuda
    args: -case patch -dim 2 -degrees 1,2,3,4,5,6,7,8,9,10 -dm_qbox_mapping deformed -dm_qbox_deform_amplitude 0 -pc_vpatch_local_solver scaled -pc_vpatch_local_damping 1 -dm_vec_type cuda
    output_file: none

  test:
    suffix: mapped_patch_3d_scaled_cuda
    requires: cuda
    args: -case patch -dim 3 -degrees 1,2,3,4,5,6,7,8 -dm_qbox_mapping deformed -dm_qbox_deform_amplitude 0 -pc_vpatch_local_solver scaled -pc_vpatch_local_damping 1 -dm_vec_type cuda
    output_file: none

  test:
    suffix: mapped_patch_2d_dense
    args: -case patch -dim 2 -degrees 2,3 -dm_qbox_mapping deformed -dm_qbox_coefficient oscillatory -pc_vpatch_local_solver dense
    output_file: none

  test:
    suffix: bad_mapped_cg
    args: -case patch -dim 2 -degrees 2 -dm_qbox_mapping deformed -pc_vpatch_local_solver cg
    expect_error: -pc_vpatch_local_solver cg works on the patches' stiffness only, not yet with a mass term

  test:
    suffix: bad_negative
    args: -case negative
    expect_error: must be finite, >= 0 and not both 0

  test:
    suffix: bad_nan
    args: -case nan
    expect_error: must be finite, >= 0 and not both 0

  test:
    suffix: bad_axpy_aij
    args: -case axpy_aij
    expect_error: MatAXPY() of the matrix-free DMQBOX operator with a matrix of type seqaij

  test:
    suffix: bad_axpy_other_dm
    args: -case axpy_other_dm
    expect_error: MatAXPY() of two matrix-free DMQBOX operators of different DMs

  test:
    suffix: bad_scale_negative
    args: -case scale_negative
    expect_error: needs both weights >= 0

  test:
    suffix: bad_dg
    args: -case dg
    expect_error: the mass matrix of the discontinuous space (-dm_qbox_dg) is not implemented yet

TEST*/
