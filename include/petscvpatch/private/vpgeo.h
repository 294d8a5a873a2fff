/*
  The built-in maps and coefficient of DMQBOX and the algebra of the geometric factors, one source for the host
  (src/dm/impls/qbox/qboxgeo.c) and the GPU (src/dm/impls/qbox/cuda/qboxgeo.cu). s: the unit-cube coordinates of the
  box point X.
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

/* det J and adj(J^T J) (symmetric, in the component order of VPGeometryComponents(): 00 11 01, or 00 11 22 01 02 12)
   of a dim x dim J (row-major, leading dimension dim) */
VP_HOST_DEVICE static inline PetscReal VPGeoDetAdj(int dim, const PetscReal J[], PetscReal adj[6])
{
  PetscReal C[3][3];
  for (int i = 0; i < dim; i++)
    for (int j = 0; j < dim; j++) {
      C[i][j] = 0;
      for (int a = 0; a < dim; a++) C[i][j] += J[a * dim + i] * J[a * dim + j];
    }
  if (dim == 2) {
    adj[0] = C[1][1];
    adj[1] = C[0][0];
    adj[2] = -C[0][1];
    return J[0] * J[3] - J[1] * J[2];
  }
  adj[0] = C[1][1] * C[2][2] - C[1][2] * C[1][2];
  adj[1] = C[0][0] * C[2][2] - C[0][2] * C[0][2];
  adj[2] = C[0][0] * C[1][1] - C[0][1] * C[0][1];
  adj[3] = C[0][2] * C[1][2] - C[0][1] * C[2][2];
  adj[4] = C[0][1] * C[1][2] - C[0][2] * C[1][1];
  adj[5] = C[0][1] * C[0][2] - C[0][0] * C[1][2];
  return J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) + J[2] * (J[3] * J[7] - J[4] * J[6]);
}
