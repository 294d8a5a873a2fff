/*
  Package registration of petsc-vpatch: types, log events, and the entry point PETSc's dynamic
  loader calls (-dll_append <path>/libpetscvpatch.so), so unmodified PETSc programs can use
  -dm_type qbox and the other types by options.
*/
#include <petscvpatch/private/vpatchimpl.h>

PetscLogEvent VPATCH_LaplacianMult, VPATCH_PatchResidual, VPATCH_PatchDampings, VPATCH_LaplacianDiag, VPATCH_LaplacianAssemble, VPATCH_Geometry, VPATCH_GeometrySplit, VPATCH_Prolong, VPATCH_Restrict, VPATCH_ColorSetUp, VPATCH_ColorXBegin,
    VPATCH_ColorXEnd, VPATCH_GhostSetUp, VPATCH_MoveSetUp, VPATCH_XWait, VPATCH_XComm, VPATCH_PatchSetUp, VPATCH_PatchSmooth, VPATCH_AuxAMGSetUp, VPATCH_AuxAMGGalerkin, VPATCH_AuxAMGSmooth, VPATCH_AuxAMGCoarse;

static PetscBool PetscVPatchPackageInitialized = PETSC_FALSE;
PetscBool        VPExchangeDeviceDefault       = PETSC_FALSE;

/*@C
  PetscVPatchFinalizePackage - Called by `PetscFinalize()` to clean up the petsc-vpatch package

  Level: developer

.seealso: `PetscVPatchInitializePackage()`
@*/
PetscErrorCode PetscVPatchFinalizePackage(void)
{
  PetscFunctionBegin;
  PetscVPatchPackageInitialized = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscVPatchInitializePackage - Registers the types and log events of petsc-vpatch

  Not Collective

  Level: developer

  Options Database Key:
. -vpatch_exchange_device <bool> - the default of `-dm_qbox_exchange_device` and `-pc_auxamg_exchange_device` for every
                                   `DMQBOX` and `PCAUXAMG`, whatever their prefixes (default false; `config/mpiexec-gpu.sh`
                                   sets it); each object's own option overrides it

  Note:
  Called by the library's own constructors (`DMQBoxCreate()`, ...) and by PETSc's dynamic loader;
  calling it more than once does nothing. The options are read at the first call.

.seealso: `PetscVPatchFinalizePackage()`, `DMQBOX`
@*/
PetscErrorCode PetscVPatchInitializePackage(void)
{
  PetscClassId dmid;

  PetscFunctionBegin;
  if (PetscVPatchPackageInitialized) PetscFunctionReturn(PETSC_SUCCESS);
  PetscVPatchPackageInitialized = PETSC_TRUE;
  PetscCall(DMInitializePackage());
  PetscCall(KSPInitializePackage());
  PetscCall(DMRegister(DMQBOX, DMCreate_QBox));
  PetscCall(PCRegister(PCVPATCH, PCCreate_VPatch));
  PetscCall(PCRegister(PCAUXAMG, PCCreate_AuxAMG));
  /* one setting for the whole program, read here so that it is used (no "Option left" warning) in a program that has
     only one of the two objects, and so that prefixed objects see it */
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-vpatch_exchange_device", &VPExchangeDeviceDefault, NULL));
  dmid = DM_CLASSID;
  PetscCall(PetscLogEventRegister("VPLapMult", MAT_CLASSID, &VPATCH_LaplacianMult));
  PetscCall(PetscLogEventRegister("VPPatchResid", MAT_CLASSID, &VPATCH_PatchResidual)); /* the residual of a color's vertex patches from their cells (mapped operator) */
  PetscCall(PetscLogEventRegister("VPPatchDamp", PC_CLASSID, &VPATCH_PatchDampings));   /* each vertex patch's damping from Lanczos steps on its cells (PCVPATCH set-up, mapped operator) */
  PetscCall(PetscLogEventRegister("VPLapDiag", MAT_CLASSID, &VPATCH_LaplacianDiag));
  PetscCall(PetscLogEventRegister("VPLapAssemble", dmid, &VPATCH_LaplacianAssemble));
  PetscCall(PetscLogEventRegister("VPGeometry", dmid, &VPATCH_Geometry));
  PetscCall(PetscLogEventRegister("VPGeoSplit", dmid, &VPATCH_GeometrySplit));
  PetscCall(PetscLogEventRegister("VPColorSetUp", dmid, &VPATCH_ColorSetUp));
  PetscCall(PetscLogEventRegister("VPColorXBegin", dmid, &VPATCH_ColorXBegin)); /* one per color exchange of the sweep (qboxcolor.c): pack and send */
  PetscCall(PetscLogEventRegister("VPColorXEnd", dmid, &VPATCH_ColorXEnd));     /* receive and unpack */
  PetscCall(PetscLogEventRegister("VPGhostSetUp", dmid, &VPATCH_GhostSetUp));   /* the ghost exchange's lists (qboxexchange.c) */
  PetscCall(PetscLogEventRegister("VPMoveSetUp", dmid, &VPATCH_MoveSetUp));     /* the move to a gathered level's partition */
  PetscCall(PetscLogEventRegister("VPXWait", dmid, &VPATCH_XWait));             /* an exchange of device buffers: the host waits for the GPU (qboxpacked.c) */
  PetscCall(PetscLogEventRegister("VPXComm", dmid, &VPATCH_XComm));             /* an exchange's star-forest communication: messages, the slowest neighbour */
  PetscCall(PetscLogEventRegister("VPProlong", MAT_CLASSID, &VPATCH_Prolong));
  PetscCall(PetscLogEventRegister("VPRestrict", MAT_CLASSID, &VPATCH_Restrict));
  PetscCall(PetscLogEventRegister("VPPatchSetUp", PC_CLASSID, &VPATCH_PatchSetUp));
  PetscCall(PetscLogEventRegister("VPPatchSmooth", PC_CLASSID, &VPATCH_PatchSmooth));
  PetscCall(PetscLogEventRegister("AuxAMGSetUp", PC_CLASSID, &VPATCH_AuxAMGSetUp));
  PetscCall(PetscLogEventRegister("AuxAMGGalerkin", PC_CLASSID, &VPATCH_AuxAMGGalerkin));
  PetscCall(PetscLogEventRegister("AuxAMGSmooth", PC_CLASSID, &VPATCH_AuxAMGSmooth));
  PetscCall(PetscLogEventRegister("AuxAMGCoarse", PC_CLASSID, &VPATCH_AuxAMGCoarse));
  PetscCall(PetscRegisterFinalize(PetscVPatchFinalizePackage));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_DYNAMIC_LIBRARIES) && defined(PETSC_USE_SHARED_LIBRARIES)
/*
  PetscDLLibraryRegister_petscvpatch - Entry point for PETSc's dynamic loader (-dll_append)
*/
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_petscvpatch(void)
{
  PetscFunctionBegin;
  PetscCall(PetscVPatchInitializePackage());
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
