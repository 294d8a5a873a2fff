/* Tensor contractions along one direction of a lexicographic (x fastest) tensor: the sum-factorization
   building block of the CPU kernels. */
#pragma once

#include <petscsystypes.h>

/* out = A applied along direction dir of the tensor in (extents n[0..2], unused ones 1).
   A is m x n[dir], row-major; out has extents n with n[dir] replaced by m.
   With trans, A is n[dir] x m and A^T is applied. */
static inline void VPContract(const PetscInt n[3], PetscInt dir, PetscInt m, const PetscReal *A, PetscBool trans, const PetscScalar *in, PetscScalar *out)
{
  PetscInt nd = n[dir], inner = 1, outer = 1;

  for (PetscInt e = 0; e < dir; e++) inner *= n[e];
  for (PetscInt e = dir + 1; e < 3; e++) outer *= n[e];
  for (PetscInt o = 0; o < outer; o++) {
    const PetscScalar *ip = in + o * nd * inner;
    PetscScalar       *op = out + o * m * inner;
    for (PetscInt i = 0; i < m; i++) {
      PetscScalar *orow = op + i * inner;
      for (PetscInt s = 0; s < inner; s++) orow[s] = 0;
      for (PetscInt j = 0; j < nd; j++) {
        const PetscReal    a    = trans ? A[j * m + i] : A[i * nd + j];
        const PetscScalar *irow = ip + j * inner;
        if (a == 0) continue;
        for (PetscInt s = 0; s < inner; s++) orow[s] += a * irow[s];
      }
    }
  }
}
