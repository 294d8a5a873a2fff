/* Private declarations shared by the host code of petsc-vpatch */
#pragma once

#include <petscvpatch.h>
#include <petsc/private/petscimpl.h>
#include <petscvpatch/private/vpkernels.h>

PETSC_INTERN PetscLogEvent VPATCH_LaplacianMult, VPATCH_LaplacianDiag, VPATCH_LaplacianAssemble, VPATCH_Geometry, VPATCH_Prolong, VPATCH_Restrict, VPATCH_ColorSetUp, VPATCH_ColorXBegin, VPATCH_ColorXEnd, VPATCH_GhostSetUp, VPATCH_MoveSetUp,
    VPATCH_XWait, VPATCH_XComm;

PETSC_EXTERN PetscErrorCode VPBasis1DSetUp(PetscInt, VPBasis1D *); /* exported for the tests */
PETSC_EXTERN PetscErrorCode VPBasis1DEvaluate(const VPBasis1D *, PetscReal, PetscReal[], PetscReal[]);

PETSC_EXTERN PetscErrorCode DMCreate_QBox(DM);
PETSC_EXTERN PetscErrorCode PCCreate_VPatch(PC);
PETSC_EXTERN PetscErrorCode PCCreate_AuxAMG(PC);
PETSC_INTERN PetscLogEvent  VPATCH_PatchSetUp, VPATCH_PatchSmooth, VPATCH_AuxAMGSetUp, VPATCH_AuxAMGGalerkin, VPATCH_AuxAMGSmooth;
