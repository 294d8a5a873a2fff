/*
  The built-in maps and coefficient of DMQBOX, one source for the host (src/dm/impls/qbox/qboxgeo.c) and the GPU
  (src/dm/impls/qbox/cuda/qboxgeo.cu). s: the unit-cube coordinates of the box point X.
*/
#pragma once

#include <petscsystypes.h>
#include <math.h>

#if defined(__CUDACC__)
#define VP_HOST_DEVICE __host__ __device__
#else
#define VP_HOST_DEVICE
#endif

/* a panel of the spherical shell r0 < |x| < r1: 3D the cubed-sphere panel around the z axis, 2D the quarter annulus
   around the y axis; the last unit coordinate is the radius */
VP_HOST_DEVICE static inline void VPGeoMapShell(int dim, const PetscReal lo[], const PetscReal up[], PetscReal r0, PetscReal r1, const PetscReal X[], PetscReal x[])
{
  const double pi4  = 0.78539816339744830962;
  double       s[3] = {0, 0, 0};
  for (int d = 0; d < dim; d++) s[d] = (X[d] - lo[d]) / (up[d] - lo[d]);
  const double r = r0 + (r1 - r0) * s[dim - 1], xi = tan(pi4 * (2 * s[0] - 1)), eta = dim == 3 ? tan(pi4 * (2 * s[1] - 1)) : 0.0;
  const double nrm = sqrt(1 + xi * xi + eta * eta);
  x[0]             = r * xi / nrm;
  if (dim == 3) {
    x[1] = r * eta / nrm;
    x[2] = r / nrm;
  } else
    x[1] = r / nrm;
}

/* the box moved by A (up - lo) prod_e sin(pi s_e) in every direction */
VP_HOST_DEVICE static inline void VPGeoMapDeformed(int dim, const PetscReal lo[], const PetscReal up[], PetscReal A, const PetscReal X[], PetscReal x[])
{
  const double pi = 3.14159265358979323846;
  double       q  = 1;
  for (int d = 0; d < dim; d++) q *= sin(pi * (X[d] - lo[d]) / (up[d] - lo[d]));
  for (int d = 0; d < dim; d++) x[d] = X[d] + A * (up[d] - lo[d]) * q;
}

/* a = 1 + c prod_e cos^2(2 pi x_e + 0.1 e) */
VP_HOST_DEVICE static inline PetscReal VPGeoOscillatory(int dim, PetscReal c, const PetscReal x[])
{
  const double pi = 3.14159265358979323846;
  double       q  = 1;
  for (int d = 0; d < dim; d++) {
    const double cs = cos(2 * pi * x[d] + 0.1 * d);
    q *= cs * cs;
  }
  return 1 + c * q;
}
