/* Helpers shared by the test and benchmark programs */
#pragma once

#include <petscsys.h>

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
