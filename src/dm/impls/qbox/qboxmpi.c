/*
  DMQBOX exchanges: which buffers the star forests of the packed exchanges (qboxpacked.c: the ghost exchange, the move
  to a gathered level, the exchanges of the multiplicative sweep) hand to MPI. The probe, the pool of device buffers
  MPI may see and the reasons for both are src/sys/vpdevicempi.c's; this file decides for the DM.

  PETSc passes device buffers to MPI only when `-use_gpu_aware_mpi` is true, and checks that at start-up with an
  MPI_Allreduce() of device memory on PETSC_COMM_SELF, which some MPIs that move device memory point to point fail.
  For those, `-dm_qbox_exchange_device` lets this DM's star forests (the only communication of the solve's exchanges)
  pass device buffers to MPI after the probe. The buffers MPI sees are always the packed exchanges' own (from the pool),
  never the vectors' arrays. If any rank's probe says no, every rank keeps the host-staged path, and -info and
  DMView() say so; nothing stops.
*/
#include <petscvpatch/private/qboximpl.h>

/*
  DMQBoxExchangeTransport_Private - called on each of this DM's star forests after PetscSFSetUp(): with
  -dm_qbox_exchange_device on CUDA vectors and several ranks, probe once (collective on the DM's communicator, as
  the star forests' creation is) and hand device buffers to MPI when every rank's probe passed. The star forests
  move the packed exchanges' buffers (qboxpacked.c, from the pool), which MPI may get as they are.
*/
PetscErrorCode DMQBoxExchangeTransport_Private(DM dm, PetscSF sf)
{
  DM_QBox    *q = (DM_QBox *)dm->data;
  PetscMPIInt size;
  PetscBool   cuda, device;

  PetscFunctionBegin;
  q->exchange = DMQBOX_EXCHANGE_HOST;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
  PetscCall(DMQBoxIsCUDA_Private(dm, &cuda));
  if (size == 1 || !cuda) PetscFunctionReturn(PETSC_SUCCESS);
  if (use_gpu_aware_mpi) { /* PETSc passes device buffers to MPI anyway */
    q->exchange = DMQBOX_EXCHANGE_DEVICE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!q->exchdevice) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VPSFDeviceMPI_Private(sf, PETSC_FALSE, &device));
  q->exchange = device ? DMQBOX_EXCHANGE_DEVICE : DMQBOX_EXCHANGE_HOST_PROBED;
  PetscFunctionReturn(PETSC_SUCCESS);
}
