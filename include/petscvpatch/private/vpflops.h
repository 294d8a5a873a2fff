/*
  Flop models of the petsc-vpatch kernels: what each log event adds with PetscLogFlops() / PetscLogGpuFlops(), so that
  -log_view's rates mean something, and what bench/bench_kernels reports (bench/report.py takes its "flops" from there).
  Multiply-adds count 2. Scalings by cell sizes, divisions and index arithmetic are not counted.
*/
#pragma once

#include <petscvpatch/private/vpkernels.h>

/* owned cells of a level */
static inline PetscLogDouble VPFlopsCells(const VPGrid *g)
{
  return (PetscLogDouble)g->cm[0] * (PetscLogDouble)g->cm[1] * (PetscLogDouble)g->cm[2];
}

/* MatMult per cell (N = k + 1), sum factorization with the 1D cell matrices: 2D 4 contractions of 2 N^3 and the sum,
   3D 7 contractions of 2 N^4 and the sums */
static inline PetscLogDouble VPFlopsLaplacianCell(PetscInt dim, PetscInt k)
{
  PetscLogDouble n = (PetscLogDouble)(k + 1);
  return dim == 2 ? 8 * n * n * n + n * n : 14 * n * n * n * n + 2 * n * n * n;
}
static inline PetscLogDouble VPFlopsLaplacian(const VPGrid *g)
{
  return VPFlopsCells(g) * VPFlopsLaplacianCell(g->dim, g->k);
}

/* MatGetDiagonal per cell: every node's entry is a sum of d products of d 1D diagonal entries */
static inline PetscLogDouble VPFlopsDiagonal(const VPGrid *g)
{
  PetscLogDouble n = (PetscLogDouble)(g->k + 1), nd = g->dim == 2 ? n * n : n * n * n;
  return VPFlopsCells(g) * nd * (g->dim == 2 ? 3 : 8);
}

/* the operator on mapped cells per cell (N = k + 1): 2D 4 + 4 contractions of 2 N^3, 3D 8 + 8 of 2 N^4, and per point the
   symmetric G times the gradient (2D 2 x 3, 3D 3 x 5 multiply-adds) */
static inline PetscLogDouble VPFlopsMappedCell(PetscInt dim, PetscInt k)
{
  PetscLogDouble n = (PetscLogDouble)(k + 1);
  return dim == 2 ? 16 * n * n * n + 12 * n * n + n * n : 32 * n * n * n * n + 30 * n * n * n + n * n * n;
}
static inline PetscLogDouble VPFlopsMapped(const VPGrid *g)
{
  return VPFlopsCells(g) * VPFlopsMappedCell(g->dim, g->k);
}
/* the mass matrix on mapped cells per cell: d + d contractions of 2 N^(d+1), and the product by w det J per point */
static inline PetscLogDouble VPFlopsMappedMass(const VPGrid *g)
{
  PetscLogDouble n = (PetscLogDouble)(g->k + 1), nd = g->dim == 2 ? n * n : n * n * n;
  return VPFlopsCells(g) * (2.0 * g->dim * 2 * nd * n + nd);
}
/* the diagonal on mapped cells: per component of G, d contractions of 2 N^(d+1) */
static inline PetscLogDouble VPFlopsMappedDiagonal(const VPGrid *g)
{
  PetscLogDouble n = (PetscLogDouble)(g->k + 1);
  return VPFlopsCells(g) * (g->dim == 2 ? 3 * 2 * 2 * n * n * n : 6 * 3 * 2 * n * n * n * n);
}

/* prolongation or restriction per coarse cell (N = k + 1 coarse, NF = 2k + 1 fine nodes per direction): one 1D product
   per direction, from N^d to NF^d values (restriction: the transposes, the same count) */
static inline PetscLogDouble VPFlopsTransfer(const VPGrid *gc)
{
  PetscLogDouble n = (PetscLogDouble)(gc->k + 1), nf = (PetscLogDouble)(2 * gc->k + 1);
  return VPFlopsCells(gc) * (gc->dim == 2 ? 2 * n * (n * nf + nf * nf) : 2 * n * (n * n * nf + n * nf * nf + nf * nf * nf));
}

/* interior vertices whose patches this rank processes (the lower corners of its cells): all colors of one sweep */
static inline PetscLogDouble VPFlopsPatches(const VPGrid *g)
{
  PetscLogDouble np = 1;
  for (PetscInt d = 0; d < g->dim; d++) {
    PetscInt lo = g->cs[d] > 1 ? g->cs[d] : 1, hi = PetscMin(g->cs[d] + g->cm[d] - 1, g->N[d] - 1);
    np *= hi >= lo ? (PetscLogDouble)(hi - lo + 1) : 0;
  }
  return np;
}

/* one patch of the GPU kernels (localized residual and fast-diagonalization solve on the interior rows; NP = 2k + 1,
   NI = 2k - 1): a 1D product on a line costs R (the interior rows of the patch matrix: plain 2 (2k^2 + 2k - 1) for
   k <= 3, by cells with the even-odd decomposition 4 (H^2 + HO^2) + 8 HO + 1 for k >= 4, H = k/2 + 1, HO = (k+1)/2)
   or E (the eigenvectors, even-odd: 2 (k^2 + (k-1)^2) + 2 (k-1)); the residual 3D R (2 NP^2 + 3 NP NI + 2 NI^2), 2D
   R (2 NP + 2 NI), the solve 3D 6 NI^2 E, 2D 4 NI E */
static inline PetscLogDouble VPFlopsPatchGPUResidual(PetscInt dim, PetscInt k)
{
  PetscLogDouble np = 2 * k + 1, ni = 2 * k - 1, h = k / 2 + 1, ho = (k + 1) / 2;
  PetscLogDouble r = k >= 4 ? 4 * (h * h + ho * ho) + 8 * ho + 1 : 2 * (2.0 * k * k + 2 * k - 1);
  return dim == 2 ? r * (2 * np + 2 * ni) : r * (2 * np * np + 3 * np * ni + 2 * ni * ni);
}
static inline PetscLogDouble VPFlopsPatchGPU(PetscInt dim, PetscInt k)
{
  PetscLogDouble ni = 2 * k - 1, e = 2 * ((PetscLogDouble)k * k + (k - 1.0) * (k - 1)) + 2 * (k - 1);
  return VPFlopsPatchGPUResidual(dim, k) + (dim == 2 ? 4 * ni * e : 6 * ni * ni * e);
}

/* one patch of the local solver cg (CPU and GPU) with its steps: per step the scaled surrogate solve (2d contractions of
   NI^(d+1), 3 NI^d for the scaling) and the true operator on the patch's 2^d cells, the dot products and updates (8 NI^d) */
static inline PetscLogDouble VPFlopsPatchCG(PetscInt dim, PetscInt k, PetscInt its)
{
  PetscLogDouble ni = 2 * k - 1, nid = dim == 2 ? ni * ni : ni * ni * ni;
  return its * ((dim == 2 ? 8 : 12) * nid * ni + 11 * nid + (dim == 2 ? 4 : 8) * VPFlopsMappedCell(dim, k));
}

/* one patch of the CPU kernel: the patch operator on the whole (2k+1)^d patch (as MatMult per cell, with NP for N),
   the residual on the NI^d interior, 2d contractions of NI^(d+1) for the solve, the correction */
static inline PetscLogDouble VPFlopsPatchCPU(PetscInt dim, PetscInt k)
{
  PetscLogDouble ni = 2 * k - 1, nid = dim == 2 ? ni * ni : ni * ni * ni;
  return VPFlopsLaplacianCell(dim, 2 * k) + 2 * nid + (dim == 2 ? 8 : 12) * nid * ni;
}
