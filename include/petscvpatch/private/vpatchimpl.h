/* Private declarations shared by the host code of petsc-vpatch */
#pragma once

#include <petscvpatch.h>
#include <petsc/private/petscimpl.h>
#include <petscvpatch/private/vpkernels.h>

PETSC_INTERN PetscLogEvent VPATCH_LaplacianMult, VPATCH_PatchResidual, VPATCH_PatchDampings, VPATCH_LaplacianDiag, VPATCH_LaplacianAssemble, VPATCH_Geometry, VPATCH_GeometrySplit, VPATCH_Prolong, VPATCH_Restrict, VPATCH_ColorSetUp,
    VPATCH_ColorXBegin, VPATCH_ColorXEnd, VPATCH_GhostSetUp, VPATCH_MoveSetUp, VPATCH_XWait, VPATCH_XComm;

PETSC_EXTERN PetscErrorCode VPBasis1DSetUp(PetscInt, VPBasis1D *); /* exported for the tests */
PETSC_EXTERN PetscErrorCode VPBasis1DEvaluate(const VPBasis1D *, PetscReal, PetscReal[], PetscReal[]);

PETSC_EXTERN PetscErrorCode DMCreate_QBox(DM);
PETSC_EXTERN PetscErrorCode PCCreate_VPatch(PC);
PETSC_EXTERN PetscErrorCode PCCreate_AuxAMG(PC);
PETSC_INTERN PetscLogEvent  VPATCH_PatchSetUp, VPATCH_PatchSmooth, VPATCH_AuxAMGSetUp, VPATCH_AuxAMGGalerkin, VPATCH_AuxAMGSmooth, VPATCH_AuxAMGCoarse;

/* device memory for small host-made arrays (src/sys/vpdevice.c; without CUDA, copy and allocate are errors) */
PETSC_INTERN PetscErrorCode VPDeviceCopy_Private(const PetscReal *, size_t, PetscReal **);
PETSC_INTERN PetscErrorCode VPDeviceFree_Private(PetscReal **);
PETSC_INTERN PetscErrorCode VPDeviceToHost_Private(const PetscReal *, size_t, PetscReal *);
PETSC_INTERN PetscErrorCode VPDeviceAlloc_Private(size_t, PetscReal **);

/* A device array whose physical memory is mapped in chunks into one range of addresses (CUDA's virtual memory
   management; src/sys/vpdevice.c): a pass that turns one large array into another maps the new one's chunks and
   releases the old one's as it goes, so that it never holds both whole. Without CUDA reserve and map are errors, release
   and free no-ops. */
typedef struct {
  void               *ptr;   /* the range's start, NULL when none is reserved */
  size_t              bytes; /* the range's size: nc chunks */
  size_t              chunk; /* the chunks' size, a multiple of the allocation granularity */
  PetscInt            nc;
  unsigned long long *h; /* per chunk the handle of its physical memory (CUmemGenericAllocationHandle), 0 where unmapped */
} VPChunked;
PETSC_INTERN PetscErrorCode VPChunkedSize_Private(size_t, PetscInt, size_t *);
PETSC_INTERN PetscErrorCode VPChunkedReserve_Private(size_t, size_t, VPChunked *);
PETSC_INTERN PetscErrorCode VPChunkedMap_Private(VPChunked *, PetscInt, PetscInt);
PETSC_INTERN PetscErrorCode VPChunkedRelease_Private(VPChunked *, PetscInt, PetscInt);
PETSC_INTERN PetscErrorCode VPChunkedFree_Private(VPChunked *);
PETSC_INTERN PetscErrorCode VPDeviceCopyTo_Private(const PetscReal *, size_t, PetscReal *);

/* device buffers to MPI for the exchanges' star forests (src/sys/vpdevicempi.c): the pool of buffers MPI may see (CUDA
   builds), a star forest made to pass them after a probe, its buffers given back before it goes */
PETSC_INTERN PetscErrorCode VPDeviceMPIMalloc_Private(size_t, void **);
PETSC_INTERN PetscErrorCode VPDeviceMPIFree_Private(void *);
PETSC_INTERN PetscErrorCode VPSFDeviceMPI_Private(PetscSF, PetscBool, PetscBool *);
PETSC_INTERN PetscErrorCode VPSFReleaseDeviceBuffers_Private(PetscSF);
PETSC_INTERN PetscErrorCode VPSFDestroy_Private(PetscSF *);
/* the default of -dm_qbox_exchange_device and -pc_auxamg_exchange_device: -vpatch_exchange_device, read when the package
   is initialized (src/sys/vpatchinit.c) */
PETSC_INTERN PetscBool VPExchangeDeviceDefault;

/* checks of user input (src/sys/vpoptions.c): real options that must be finite numbers, settings that must agree on
   every rank */
PETSC_INTERN PetscErrorCode VPOptionsReal_Private(PetscOptionItems, const char[], const char[], const char[], PetscReal, PetscReal *, PetscBool *);
PETSC_INTERN PetscErrorCode VPOptionsRealArray_Private(PetscOptionItems, const char[], const char[], const char[], PetscReal[], PetscInt *, PetscBool *);
#define VPOptionsReal(opt, text, man, cur, value, set)    VPOptionsReal_Private(PetscOptionsObject, opt, text, man, cur, value, set)
#define VPOptionsRealArray(opt, text, man, value, n, set) VPOptionsRealArray_Private(PetscOptionsObject, opt, text, man, value, n, set)
PETSC_INTERN PetscErrorCode VPCheckSameOnRanks_Private(MPI_Comm, const char[], PetscInt, const PetscReal[], const char *const[]);
