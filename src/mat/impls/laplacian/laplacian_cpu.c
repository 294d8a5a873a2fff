/*
  CPU kernels of the matrix-free Q_k Laplacian on a Cartesian mesh (plain pointers, no PETSc objects).

  Per cell, A_K u is evaluated by sum factorization with the 1D mass and stiffness matrices of the
  cell (M_h = h Mhat, K_h = Khat / h, both computed from Gauss quadrature, see basis1d.c):
    2D: A_K = M_y (x) K_x + K_y (x) M_x
    3D: A_K = M_z (x) M_y (x) K_x + M_z (x) K_y (x) M_x + K_z (x) M_y (x) M_x
  i.e. O(k^{d+1}) work per cell. Dirichlet nodes are eliminated: their values are read as zero and
  their rows are the identity.
*/
#include <petscvpatch/private/vpkernels.h>
#include <petscvpatch/private/vpcontract.h>
#include <petscsys.h>

#define NMAX (VPATCH_MAX_N1D * VPATCH_MAX_N1D * VPATCH_MAX_N1D)

/* 1D matrices of a cell of size h: Mh = h Mhat, Kh = Khat/h */
static void ScaledMatrices(const VPGrid *g, const VPBasis1D *b, PetscReal Mh[3][VPATCH_MAX_N1D * VPATCH_MAX_N1D], PetscReal Kh[3][VPATCH_MAX_N1D * VPATCH_MAX_N1D])
{
  PetscInt n = g->k + 1;
  for (PetscInt d = 0; d < g->dim; d++)
    for (PetscInt i = 0; i < n * n; i++) {
      Mh[d][i] = g->h[d] * b->M[i];
      Kh[d][i] = b->K[i] / g->h[d];
    }
}

/* node coordinates p of node (i,j,l) of cell (cx,cy,cz) */
static inline void CellNode(const VPGrid *g, const PetscInt c[3], PetscInt ix, PetscInt iy, PetscInt iz, PetscInt p[3])
{
  p[0] = c[0] * g->k + ix;
  p[1] = c[1] * g->k + iy;
  p[2] = g->dim == 3 ? c[2] * g->k + iz : 0;
}

/* Owned Dirichlet rows: y = x (the local arrays hold the owned box inside the ghosted box) */
static void BoundaryIdentity(const VPGrid *g, const PetscScalar *xl, PetscScalar *yl)
{
  PetscInt zs = g->dim == 3 ? g->xs[2] : 0, zm = g->dim == 3 ? g->xm[2] : 1;
  for (PetscInt pz = zs; pz < zs + zm; pz++)
    for (PetscInt py = g->xs[1]; py < g->xs[1] + g->xm[1]; py++)
      for (PetscInt px = g->xs[0]; px < g->xs[0] + g->xm[0]; px++) {
        PetscInt p[3] = {px, py, pz};
        if (!VPGridIsBoundary(g, p)) continue;
        PetscInt idx = VPGridLocalIndex(g, p);
        yl[idx]      = xl ? xl[idx] : 1.0;
      }
}

PetscErrorCode VPLaplacianApply_CPU(const VPGrid *g, const VPBasis1D *b, const PetscScalar *xl, PetscScalar *yl)
{
  PetscInt    n = g->k + 1, nz = g->dim == 3 ? n : 1, czm = g->dim == 3 ? g->cm[2] : 1;
  PetscInt    ext[3] = {n, n, nz};
  PetscReal   Mh[3][VPATCH_MAX_N1D * VPATCH_MAX_N1D], Kh[3][VPATCH_MAX_N1D * VPATCH_MAX_N1D];
  PetscScalar u[NMAX], v[NMAX], a[NMAX], t1[NMAX], t2[NMAX], t3[NMAX];

  PetscFunctionBegin;
  ScaledMatrices(g, b, Mh, Kh);
  for (PetscInt cz = 0; cz < czm; cz++)
    for (PetscInt cy = 0; cy < g->cm[1]; cy++)
      for (PetscInt cx = 0; cx < g->cm[0]; cx++) {
        PetscInt c[3] = {g->cs[0] + cx, g->cs[1] + cy, g->dim == 3 ? g->cs[2] + cz : 0}, p[3], e = 0;
        for (PetscInt iz = 0; iz < nz; iz++)
          for (PetscInt iy = 0; iy < n; iy++)
            for (PetscInt ix = 0; ix < n; ix++, e++) {
              CellNode(g, c, ix, iy, iz, p);
              u[e] = VPGridIsBoundary(g, p) ? 0.0 : xl[VPGridLocalIndex(g, p)];
            }
        VPContract(ext, 0, n, Mh[0], PETSC_FALSE, u, a);  /* a  = M_x u */
        VPContract(ext, 0, n, Kh[0], PETSC_FALSE, u, t1); /* t1 = K_x u */
        if (g->dim == 2) {
          VPContract(ext, 1, n, Kh[1], PETSC_FALSE, a, v);   /* K_y M_x u */
          VPContract(ext, 1, n, Mh[1], PETSC_FALSE, t1, t2); /* M_y K_x u */
          for (PetscInt i = 0; i < n * n; i++) v[i] += t2[i];
        } else {
          VPContract(ext, 1, n, Mh[1], PETSC_FALSE, t1, t2); /* M_y K_x u */
          VPContract(ext, 1, n, Kh[1], PETSC_FALSE, a, t3);  /* K_y M_x u */
          for (PetscInt i = 0; i < n * n * n; i++) t2[i] += t3[i];
          VPContract(ext, 2, n, Mh[2], PETSC_FALSE, t2, v);  /* M_z (M_y K_x + K_y M_x) u */
          VPContract(ext, 1, n, Mh[1], PETSC_FALSE, a, t1);  /* M_y M_x u */
          VPContract(ext, 2, n, Kh[2], PETSC_FALSE, t1, t3); /* K_z M_y M_x u */
          for (PetscInt i = 0; i < n * n * n; i++) v[i] += t3[i];
        }
        e = 0;
        for (PetscInt iz = 0; iz < nz; iz++)
          for (PetscInt iy = 0; iy < n; iy++)
            for (PetscInt ix = 0; ix < n; ix++, e++) {
              CellNode(g, c, ix, iy, iz, p);
              if (!VPGridIsBoundary(g, p)) yl[VPGridLocalIndex(g, p)] += v[e];
            }
      }
  BoundaryIdentity(g, xl, yl);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPLaplacianDiagonal_CPU(const VPGrid *g, const VPBasis1D *b, PetscScalar *dl)
{
  PetscInt  n = g->k + 1, nz = g->dim == 3 ? n : 1, czm = g->dim == 3 ? g->cm[2] : 1;
  PetscReal Mh[3][VPATCH_MAX_N1D * VPATCH_MAX_N1D], Kh[3][VPATCH_MAX_N1D * VPATCH_MAX_N1D];

  PetscFunctionBegin;
  ScaledMatrices(g, b, Mh, Kh);
  for (PetscInt cz = 0; cz < czm; cz++)
    for (PetscInt cy = 0; cy < g->cm[1]; cy++)
      for (PetscInt cx = 0; cx < g->cm[0]; cx++) {
        PetscInt c[3] = {g->cs[0] + cx, g->cs[1] + cy, g->dim == 3 ? g->cs[2] + cz : 0}, p[3];
        for (PetscInt iz = 0; iz < nz; iz++)
          for (PetscInt iy = 0; iy < n; iy++)
            for (PetscInt ix = 0; ix < n; ix++) {
              PetscReal mx = Mh[0][ix * n + ix], kx = Kh[0][ix * n + ix], my = Mh[1][iy * n + iy], ky = Kh[1][iy * n + iy], val;
              if (g->dim == 2)
                val = my * kx + ky * mx;
              else {
                PetscReal mz = Mh[2][iz * n + iz], kz = Kh[2][iz * n + iz];
                val = mz * my * kx + mz * ky * mx + kz * my * mx;
              }
              CellNode(g, c, ix, iy, iz, p);
              if (!VPGridIsBoundary(g, p)) dl[VPGridLocalIndex(g, p)] += val;
            }
      }
  BoundaryIdentity(g, NULL, dl);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPLaplacianCellMatrix_CPU(const VPGrid *g, const VPBasis1D *b, PetscScalar *Ae)
{
  PetscInt  n = g->k + 1, nz = g->dim == 3 ? n : 1, nd = n * n * nz;
  PetscReal Mh[3][VPATCH_MAX_N1D * VPATCH_MAX_N1D], Kh[3][VPATCH_MAX_N1D * VPATCH_MAX_N1D];

  PetscFunctionBegin;
  ScaledMatrices(g, b, Mh, Kh);
  for (PetscInt iz = 0, r = 0; iz < nz; iz++)
    for (PetscInt iy = 0; iy < n; iy++)
      for (PetscInt ix = 0; ix < n; ix++, r++)
        for (PetscInt jz = 0, s = 0; jz < nz; jz++)
          for (PetscInt jy = 0; jy < n; jy++)
            for (PetscInt jx = 0; jx < n; jx++, s++) {
              PetscReal mx = Mh[0][ix * n + jx], kx = Kh[0][ix * n + jx], my = Mh[1][iy * n + jy], ky = Kh[1][iy * n + jy];
              if (g->dim == 2)
                Ae[r * nd + s] = my * kx + ky * mx;
              else {
                PetscReal mz = Mh[2][iz * n + jz], kz = Kh[2][iz * n + jz];
                Ae[r * nd + s] = mz * my * kx + mz * ky * mx + kz * my * mx;
              }
            }
  PetscFunctionReturn(PETSC_SUCCESS);
}
