/* Helpers shared by the test and benchmark programs */
#pragma once

#include <petscsys.h>
#include <petscdmda.h>
#include <petscvpatch.h>

/* The degrees to check: 1..ndefault, or the list given by -degrees (at most 10 values).
   PetscOptionsGetIntArray() sets the count to 0 when the option is absent, hence the flag. */
static inline PetscErrorCode VPTestGetDegrees(PetscInt ndefault, PetscInt degrees[10], PetscInt *ndeg)
{
  PetscInt  n = 10;
  PetscBool set;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < 10; i++) degrees[i] = i + 1;
  *ndeg = PetscMin(ndefault, 10);
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-degrees", degrees, &n, &set));
  if (set) *ndeg = n;
  PetscCheck(*ndeg > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "No degree to check: give -degrees with at least one value");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ||a - b|| / ||b|| for vectors of one type and layout */
static inline PetscErrorCode VPTestRelDiff(Vec a, Vec b, PetscReal *rel)
{
  Vec       d;
  PetscReal nd, nb;

  PetscFunctionBeginUser;
  *rel = PETSC_MAX_REAL; /* until computed */
  PetscCall(VecDuplicate(a, &d));
  PetscCall(VecWAXPY(d, -1.0, b, a));
  PetscCall(VecNorm(d, NORM_2, &nd));
  PetscCall(VecNorm(b, NORM_2, &nb));
  *rel = nd / nb;
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the largest difference between the owned entries of y (a global vector of the DMQBOX dm, on any number of ranks, some
   of which may own no cell) and the same nodes of ys (a vector of the same box on one rank, PETSC_COMM_SELF: natural
   order, x fastest), over all ranks */
static inline PetscErrorCode VPTestOwnedMaxDiff(DM dm, Vec y, Vec ys, PetscReal *maxdiff)
{
  PetscInt           dim, cells[3] = {1, 1, 1}, k, cs[3] = {0, 0, 0}, cm[3] = {1, 1, 1}, xs[3] = {0, 0, 0}, xm[3] = {1, 1, 1}, n[3] = {1, 1, 1}, i = 0;
  PetscReal          lower[3], upper[3], d = 0;
  const PetscScalar *ya, *sa;

  PetscFunctionBeginUser;
  PetscCall(DMQBoxGetInfo(dm, &dim, cells, &k, lower, upper));
  PetscCall(DMQBoxGetOwnedCells(dm, cs, cm));
  for (PetscInt e = 0; e < dim; e++) {
    n[e]  = cells[e] * k + 1;
    xs[e] = cs[e] * k;
    xm[e] = cm[e] ? cm[e] * k + (cs[e] + cm[e] == cells[e] ? 1 : 0) : 0;
  }
  PetscCall(VecGetArrayRead(y, &ya));
  PetscCall(VecGetArrayRead(ys, &sa));
  for (PetscInt pz = xs[2]; pz < xs[2] + xm[2]; pz++)
    for (PetscInt py = xs[1]; py < xs[1] + xm[1]; py++)
      for (PetscInt px = xs[0]; px < xs[0] + xm[0]; px++, i++) d = PetscMax(d, PetscAbsScalar(ya[i] - sa[(pz * n[1] + py) * n[0] + px]));
  PetscCall(VecRestoreArrayRead(ys, &sa));
  PetscCall(VecRestoreArrayRead(y, &ya));
  PetscCallMPI(MPIU_Allreduce(&d, maxdiff, 1, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)dm)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* u = prod_d sin(pi x_d) (zero on the boundary of the unit square/cube) and its gradient */
static inline PetscErrorCode VPTestExactSin(PetscInt dim, const PetscReal x[], PetscScalar *u, PetscScalar du[], void *ctx)
{
  PetscFunctionBeginUser;
  (void)ctx;
  *u = 1.0;
  for (PetscInt d = 0; d < dim; d++) *u *= PetscSinReal(PETSC_PI * x[d]);
  if (du)
    for (PetscInt d = 0; d < dim; d++) {
      du[d] = PETSC_PI * PetscCosReal(PETSC_PI * x[d]);
      for (PetscInt e = 0; e < dim; e++)
        if (e != d) du[d] *= PetscSinReal(PETSC_PI * x[e]);
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* f = -Laplace u = dim pi^2 u for VPTestExactSin */
static inline PetscErrorCode VPTestSourceSin(PetscInt dim, const PetscReal x[], PetscScalar *f, PetscScalar du[], void *ctx)
{
  PetscFunctionBeginUser;
  (void)du;
  PetscCall(VPTestExactSin(dim, x, f, NULL, ctx));
  *f *= dim * PETSC_PI * PETSC_PI;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The 5- or 7-point finite-difference Laplacian (2d, 4 or 6 off the diagonal; unscaled) on a DMDA's interior points,
   the Dirichlet neighbours eliminated: the matrix of the PCAUXAMG tests */
static inline PetscErrorCode VPTestFDLaplacian(DM da, Mat A)
{
  DMDALocalInfo info;
  PetscInt      dim;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetLocalInfo(da, &info));
  PetscCall(DMGetDimension(da, &dim));
  for (PetscInt k = info.zs; k < info.zs + info.zm; k++)
    for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
      for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
        MatStencil  row = {.k = k, .j = j, .i = i}, col[7];
        PetscScalar v[7];
        PetscInt    nc        = 0;
        PetscInt    off[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
        col[nc]               = row;
        v[nc++]               = 2.0 * dim;
        for (PetscInt o = 0; o < 2 * dim; o++) { /* Dirichlet boundary: neighbors outside are eliminated */
          PetscInt ii = i + off[o][0], jj = j + off[o][1], kk = k + off[o][2];
          if (ii < 0 || ii >= info.mx || jj < 0 || jj >= info.my || (dim == 3 && (kk < 0 || kk >= info.mz))) continue;
          col[nc].i = ii;
          col[nc].j = jj;
          col[nc].k = kk;
          v[nc++]   = -1.0;
        }
        PetscCall(MatSetValuesStencil(A, 1, &row, nc, col, v, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}
