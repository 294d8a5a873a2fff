/*
  Device helpers for the built-in maps and coefficient of DMQBOX (VPGeometryParams; formulas in vpgeo.h): the box point
  of a cell's node, its image, the coefficient at a point. Shared by the geometry kernel (src/dm/impls/qbox/cuda/
  qboxgeo.cu: the stored factors) and the operator kernel that computes the factors on the fly
  (src/mat/impls/laplacian/cuda/mapped.cu). Only .cu files include this.
*/
#pragma once
#include <petscvpatch/private/vpcuda.cuh>
#include <petscvpatch/private/vpgeo.h>

__device__ __forceinline__ void VPGeoMap(const VPGeometryParams &p, int dim, const double X[3], double x[3])
{
  if (p.maptype == DMQBOX_MAPPING_SHELL)
    VPGeoMapShell(dim, p.lower, p.upper, p.radii[0], p.radii[1], X, x);
  else if (p.maptype == DMQBOX_MAPPING_DEFORMED)
    VPGeoMapDeformed(dim, p.lower, p.upper, p.amplitude, X, x);
  else
    for (int d = 0; d < dim; d++) x[d] = X[d];
}

__device__ __forceinline__ double VPGeoCoefficient(const VPGeometryParams &p, int dim, const double x[3])
{
  return p.coeftype == DMQBOX_COEFFICIENT_OSCILLATORY ? VPGeoOscillatory(dim, p.contrast, x) : 1.0;
}

/* the image of node (i0, i1, i2) of cell (c0, c1, c2), as qbox.c makes the box point (the last node: the upper corner) */
__device__ __forceinline__ void VPGeoNodeImage(const VPGrid &g, const VPGeometryParams &p, int dim, int K, const int c[3], const int i[3], double x[3])
{
  double X[3] = {0, 0, 0};
  for (int d = 0; d < dim; d++) X[d] = c[d] * K + i[d] == g.N[d] * K ? p.upper[d] : p.lower[d] + (c[d] + p.nodes[i[d]]) * g.h[d];
  VPGeoMap(p, dim, X, x);
}
