/*
  CPU kernels of the matrix-free grid transfer between a level and its uniform refinement.

  Prolongation is the embedding of the coarse Q_k function: on each coarse cell, the coarse
  polynomial is evaluated at the (2k+1)^d fine nodes of its 2^d children by the 1D matrix P
  (2k+1 x k+1) applied along each direction. A fine node on the face shared by two coarse cells is
  produced by both; each contribution carries weight 1/2 per shared direction so that the sum over
  cells (and over ranks, through the ADD of the local-to-global update) is the value itself.
  Restriction applies the transpose with the same weights, so it is the exact adjoint.
*/
#include <petscvpatch/private/vpkernels.h>
#include <petscvpatch/private/vpcontract.h>
#include <petscsys.h>

/* weight of fine node f (0..2k) of coarse cell c in one direction */
static inline PetscReal FineWeight(const VPGrid *gc, PetscInt d, PetscInt c, PetscInt f)
{
  if (f == 0 && c > 0) return 0.5;
  if (f == 2 * gc->k && c < gc->N[d] - 1) return 0.5;
  return 1.0;
}

static PetscErrorCode Transfer(const VPGrid *gc, const VPGrid *gf, const VPBasis1D *b, PetscBool homogeneous, PetscBool restrict_, const PetscScalar *in, PetscScalar *out, PetscScalar *work)
{
  PetscInt     k = gc->k, n = k + 1, nf = 2 * k + 1, dim = gc->dim;
  PetscInt     nz = dim == 3 ? n : 1, nfz = dim == 3 ? nf : 1, czm = dim == 3 ? gc->cm[2] : 1, nft = nf * nf * nfz;
  PetscScalar *uc = work, *uf = uc + nft, *t1 = uf + nft, *t2 = t1 + nft;

  PetscFunctionBegin;
  for (PetscInt cz = 0; cz < czm; cz++)
    for (PetscInt cy = 0; cy < gc->cm[1]; cy++)
      for (PetscInt cx = 0; cx < gc->cm[0]; cx++) {
        PetscInt c[3] = {gc->cs[0] + cx, gc->cs[1] + cy, dim == 3 ? gc->cs[2] + cz : 0}, p[3] = {0, 0, 0}, e;
        if (!restrict_) {
          e = 0;
          for (PetscInt iz = 0; iz < nz; iz++)
            for (PetscInt iy = 0; iy < n; iy++)
              for (PetscInt ix = 0; ix < n; ix++, e++) {
                p[0]  = c[0] * k + ix;
                p[1]  = c[1] * k + iy;
                p[2]  = dim == 3 ? c[2] * k + iz : 0;
                uc[e] = homogeneous && VPGridIsBoundary(gc, p) ? 0.0 : in[VPGridLocalIndex(gc, p)];
              }
          PetscInt e0[3] = {n, n, nz}, e1[3] = {nf, n, nz}, e2[3] = {nf, nf, nz};
          VPContract(e0, 0, nf, b->P, PETSC_FALSE, uc, t1);
          if (dim == 2)
            VPContract(e1, 1, nf, b->P, PETSC_FALSE, t1, uf);
          else {
            VPContract(e1, 1, nf, b->P, PETSC_FALSE, t1, t2);
            VPContract(e2, 2, nf, b->P, PETSC_FALSE, t2, uf);
          }
          e = 0;
          for (PetscInt fz = 0; fz < nfz; fz++)
            for (PetscInt fy = 0; fy < nf; fy++)
              for (PetscInt fx = 0; fx < nf; fx++, e++) {
                p[0] = 2 * c[0] * k + fx;
                p[1] = 2 * c[1] * k + fy;
                p[2] = dim == 3 ? 2 * c[2] * k + fz : 0;
                if (homogeneous && VPGridIsBoundary(gf, p)) continue;
                PetscReal w = FineWeight(gc, 0, c[0], fx) * FineWeight(gc, 1, c[1], fy) * (dim == 3 ? FineWeight(gc, 2, c[2], fz) : 1.0);
                out[VPGridLocalIndex(gf, p)] += w * uf[e];
              }
        } else {
          e = 0;
          for (PetscInt fz = 0; fz < nfz; fz++)
            for (PetscInt fy = 0; fy < nf; fy++)
              for (PetscInt fx = 0; fx < nf; fx++, e++) {
                p[0] = 2 * c[0] * k + fx;
                p[1] = 2 * c[1] * k + fy;
                p[2] = dim == 3 ? 2 * c[2] * k + fz : 0;
                if (homogeneous && VPGridIsBoundary(gf, p))
                  uf[e] = 0.0;
                else {
                  PetscReal w = FineWeight(gc, 0, c[0], fx) * FineWeight(gc, 1, c[1], fy) * (dim == 3 ? FineWeight(gc, 2, c[2], fz) : 1.0);
                  uf[e]       = w * in[VPGridLocalIndex(gf, p)];
                }
              }
          PetscInt e0[3] = {nf, nf, nfz}, e1[3] = {n, nf, nfz}, e2[3] = {n, n, nfz};
          VPContract(e0, 0, n, b->P, PETSC_TRUE, uf, t1);
          if (dim == 2)
            VPContract(e1, 1, n, b->P, PETSC_TRUE, t1, uc);
          else {
            VPContract(e1, 1, n, b->P, PETSC_TRUE, t1, t2);
            VPContract(e2, 2, n, b->P, PETSC_TRUE, t2, uc);
          }
          e = 0;
          for (PetscInt iz = 0; iz < nz; iz++)
            for (PetscInt iy = 0; iy < n; iy++)
              for (PetscInt ix = 0; ix < n; ix++, e++) {
                p[0] = c[0] * k + ix;
                p[1] = c[1] * k + iy;
                p[2] = dim == 3 ? c[2] * k + iz : 0;
                if (homogeneous && VPGridIsBoundary(gc, p)) continue;
                out[VPGridLocalIndex(gc, p)] += uc[e];
              }
        }
      }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPTransferProlong_CPU(const VPGrid *gc, const VPGrid *gf, const VPBasis1D *b, PetscBool homogeneous, const PetscScalar *xcl, PetscScalar *yfl, PetscScalar *work)
{
  PetscFunctionBegin;
  PetscCall(Transfer(gc, gf, b, homogeneous, PETSC_FALSE, xcl, yfl, work));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPTransferRestrict_CPU(const VPGrid *gc, const VPGrid *gf, const VPBasis1D *b, PetscBool homogeneous, const PetscScalar *xfl, PetscScalar *ycl, PetscScalar *work)
{
  PetscFunctionBegin;
  PetscCall(Transfer(gc, gf, b, homogeneous, PETSC_TRUE, xfl, ycl, work));
  PetscFunctionReturn(PETSC_SUCCESS);
}
