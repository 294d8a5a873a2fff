/*
  Checks of user input shared by the DM and the PCs: real options that must be numbers, and global settings that must
  agree on every rank (a mismatch would otherwise surface as a failed exchange or a hang far from its cause).
*/
#include <petscvpatch/private/vpatchimpl.h>

/* the value of option opt (at most n entries) must be finite: PETSc's own bound check would call nan
   "less than allowed bound -1.79769e+308" */
static PetscErrorCode VPOptionsCheckFinite(PetscOptionItems obj, const char opt[], PetscInt n)
{
  PetscReal v[16];
  PetscInt  m = PetscMin(n, 16);
  PetscBool set;
  char      text[256];

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetRealArray(obj->options, obj->prefix, opt, v, &m, &set));
  for (PetscInt i = 0; set && i < m; i++)
    if (PetscIsInfOrNanReal(v[i])) {
      PetscCall(PetscOptionsGetString(obj->options, obj->prefix, opt, text, sizeof(text), NULL));
      SETERRQ(obj->comm, PETSC_ERR_ARG_OUTOFRANGE, "-%s%s %s: %s is not %s: give a finite number", obj->prefix ? obj->prefix : "", opt + 1, text, m > 1 ? "an entry" : "the value", PetscIsNanReal(v[i]) ? "a number" : "finite");
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  VPOptionsReal_Private - PetscOptionsReal() that refuses nan and inf with a message naming the option

  Use through VPOptionsReal() inside PetscOptionsBegin()/PetscOptionsHeadBegin(), as PetscOptionsReal().
*/
PetscErrorCode VPOptionsReal_Private(PetscOptionItems PetscOptionsObject, const char opt[], const char text[], const char man[], PetscReal cur, PetscReal *value, PetscBool *set)
{
  PetscFunctionBegin;
  PetscCall(VPOptionsCheckFinite(PetscOptionsObject, opt, 1));
  PetscCall(PetscOptionsReal(opt, text, man, cur, value, set));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PetscOptionsRealArray() with the same check of every entry */
PetscErrorCode VPOptionsRealArray_Private(PetscOptionItems PetscOptionsObject, const char opt[], const char text[], const char man[], PetscReal value[], PetscInt *n, PetscBool *set)
{
  PetscFunctionBegin;
  PetscCall(VPOptionsCheckFinite(PetscOptionsObject, opt, *n));
  PetscCall(PetscOptionsRealArray(opt, text, man, value, n, set));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* an integer (an enumeration's value, a count) as one, else the real */
static PetscErrorCode VPFormatSetting(PetscReal v, char s[32])
{
  PetscFunctionBegin;
  if (v == PetscFloorReal(v) && PetscAbsReal(v) < 1e15)
    PetscCall(PetscSNPrintf(s, 32, "%" PetscInt64_FMT, (PetscInt64)v));
  else
    PetscCall(PetscSNPrintf(s, 32, "%.6e", (double)v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  VPCheckSameOnRanks_Private - Stops with an error naming the first setting that differs between the ranks of comm

  Collective

  Input Parameters:
+ comm  - the communicator
. what  - the object, for the message ("DMQBOX", "PCVPATCH")
. n     - the number of settings (at most 64)
. v     - their values on this rank (integers and enumerations as reals: exact below 2^53)
- names - the option of each, for the message

  Note:
  One reduction: the maximum of (v, -v) gives the maximum and the minimum of every setting together.
*/
PetscErrorCode VPCheckSameOnRanks_Private(MPI_Comm comm, const char what[], PetscInt n, const PetscReal v[], const char *const names[])
{
  PetscReal   mm[128];
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size == 1) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(n <= 64, PETSC_COMM_SELF, PETSC_ERR_PLIB, "VPCheckSameOnRanks_Private() takes 64 settings at most");
  for (PetscInt i = 0; i < n; i++) {
    mm[i]     = v[i];
    mm[n + i] = -v[i];
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, mm, (PetscMPIInt)(2 * n), MPIU_REAL, MPIU_MAX, comm));
  for (PetscInt i = 0; i < n; i++)
    if (mm[i] != -mm[n + i]) {
      char lo[32], hi[32];
      PetscCall(VPFormatSetting(-mm[n + i], lo));
      PetscCall(VPFormatSetting(mm[i], hi));
      SETERRQ(comm, PETSC_ERR_ARG_INCOMP, "%s: %s differs between the ranks (from %s to %s): every rank must be started with the same options and make the same calls", what, names[i], lo, hi);
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}
