/*
  DMQBOX vectors: global vectors (owned nodes, lexicographic within the owned box) and local vectors (the ghosted box,
  ghost width k), their types and checks, and the device copies of a level's 1D matrices. The other parts of the
  vectors live beside this file:
    qboxveccuda.c  the operations PETSc's CUDA vectors get from a DMQBOX (errors that name the sizes, VecMDot, VecAYPX)
    qboxghosted.c  global vectors inside ghosted buffers, and the ghosted array a kernel works on
    qboxexchange.c global <-> local exchanges, moves between partitions, the local-to-global map
    qboxview.c     VecView in natural order, VTK output
*/
#include <petscvpatch/private/qboximpl.h>

/* Device copies of the 1D matrices of this level, made on first use:
   d_lap = [M_h,0, K_h,0, M_h,1, K_h,1, (M_h,2, K_h,2)] (the diagonal kernel reads it); and the reference element
   matrices and P of degree k in the operator's and the transfer's constant memory */
PetscErrorCode DMQBoxGetDeviceMatrices_Private(DM dm, const PetscReal **d_lap)
{
  DM_QBox *q = (DM_QBox *)dm->data;
  PetscInt n = q->degree + 1;

  PetscFunctionBegin;
  if (!q->d_lap) {
    PetscReal h[6 * VPATCH_MAX_N1D * VPATCH_MAX_N1D];
    for (PetscInt d = 0; d < q->dim; d++)
      for (PetscInt i = 0; i < n * n; i++) {
        h[(2 * d) * n * n + i]     = q->grid.h[d] * q->basis.M[i];
        h[(2 * d + 1) * n * n + i] = q->basis.K[i] / q->grid.h[d];
      }
    PetscCall(VPDeviceCopy_Private(h, (size_t)(2 * q->dim * n * n), &q->d_lap));
#if defined(PETSC_HAVE_CUDA)
    PetscCall(VPLaplacianSetUp_CUDA(q->degree, q->basis.M, q->basis.K));
    PetscCall(VPTransferSetUp_CUDA(q->degree, q->basis.P));
    PetscCall(VPMappedSetUp_CUDA(q->degree, q->basis.S, q->basis.D));
#endif
  }
  if (d_lap) *d_lap = q->d_lap;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMQBoxIsCUDA_Private(DM dm, PetscBool *iscuda)
{
  PetscFunctionBegin;
  PetscCall(PetscStrbeginswith(dm->vectype, VECCUDA, iscuda));
  if (!*iscuda) PetscCall(PetscStrbeginswith(dm->vectype, VECSEQCUDA, iscuda));
  if (!*iscuda) PetscCall(PetscStrbeginswith(dm->vectype, VECMPICUDA, iscuda));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The one-rank fast path of the CUDA kernels: with one rank the ghosted local box is the owned box, so a kernel can
   work on the global arrays themselves (no ghost exchange, no copies) when they live on the device. Says whether x
   is such a vector of dm. */
PetscErrorCode DMQBoxUseGlobalArrays_Private(DM dm, Vec x, PetscBool *yes)
{
  const PetscScalar *xa;
  PetscMemType       mt;

  PetscFunctionBegin;
  *yes = PETSC_FALSE;
  if (!((DM_QBox *)dm->data)->samelayout) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecGetArrayReadAndMemType(x, &xa, &mt));
  PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
  *yes = (PetscBool)PetscMemTypeDevice(mt);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMQBoxCheckVecType_Private(DM dm)
{
  PetscBool std, cuda;

  PetscFunctionBegin;
  PetscCall(PetscStrcmpAny(dm->vectype, &std, VECSTANDARD, VECSEQ, VECMPI, ""));
  PetscCall(DMQBoxIsCUDA_Private(dm, &cuda));
  PetscCheck(std || cuda, PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "DMQBOX supports vector types standard and cuda, not %s: use -dm_vec_type standard or -dm_vec_type cuda", dm->vectype);
#if !defined(PETSC_HAVE_CUDA)
  PetscCheck(!cuda, PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "Vector type %s needs a PETSc configured with CUDA; this PETSc has no CUDA: use -dm_vec_type standard", dm->vectype);
#endif
#if defined(PETSC_USE_COMPLEX)
  if (cuda) { /* once the boxes are known (DMSetUp()): PETSc's CUDA vectors give cuBLAS their length as a 32-bit int, and
                 the 64-bit operations of qboxveccuda.c are for real scalars */
    const VPGrid *g = &((DM_QBox *)dm->data)->grid;
    PetscInt64    n = (PetscInt64)g->gxm[0] * g->gxm[1] * g->gxm[2];
    PetscCheck(n <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "DMQBOX with complex CUDA vectors: this rank's vectors would hold %" PetscInt64_FMT " values (its box with ghosts: %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT
               " nodes), more than 2^31 - 1; PETSc's CUDA vectors hand their length to cuBLAS as a 32-bit int (VecAXPY(), VecNorm(), ... would fail or compute on a wrapped length). Use more processes (GPUs) or fewer cells",
               n, g->gxm[0], g->gxm[1], g->gxm[2]);
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Global vectors carry no local-to-global mapping (that would make the inner DMDA, see qbox.c): for
   VecSetValuesLocal(), set the one of DMGetLocalToGlobalMapping() on the vector */
PetscErrorCode DMCreateGlobalVector_QBox(DM dm, Vec *v)
{
  DM_QBox  *q    = (DM_QBox *)dm->data;
  PetscInt  n    = q->grid.xm[0] * q->grid.xm[1] * q->grid.xm[2];
  PetscBool made = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(DMQBoxCheckVecType_Private(dm));
  if (q->slab && q->ghostedvecs) {
    PetscCall(DMQBoxCreateGhostedVector_Private(dm, v));
    made = PETSC_TRUE;
  }
#if defined(PETSC_HAVE_CUDA)
  if (!made) {
    PetscMPIInt size;
    PetscBool   cuda;

    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
    PetscCall(DMQBoxIsCUDA_Private(dm, &cuda));
    /* VecSetType(VECMPICUDA) allocates and zeroes the device array and a pinned host copy at once (seconds per GB, and
       the memory of vectors a solver never touches); with no arrays given both are allocated on first use, as
       VECSEQCUDA does */
    if (cuda && size > 1) {
      PetscCall(VecCreateMPICUDAWithArrays(PetscObjectComm((PetscObject)dm), 1, n, PETSC_DETERMINE, NULL, NULL, v));
      made = PETSC_TRUE;
    }
  }
#endif
  if (!made) {
    PetscCall(VecCreate(PetscObjectComm((PetscObject)dm), v));
    PetscCall(VecSetSizes(*v, n, PETSC_DETERMINE));
    PetscCall(VecSetBlockSize(*v, 1));
    PetscCall(VecSetType(*v, dm->vectype));
  }
  PetscCall(VecSetDM(*v, dm));
  PetscCall(VecSetOperation(*v, VECOP_VIEW, (PetscErrorCodeFn *)VecView_QBox_Private));
  PetscCall(VecSetOperation(*v, VECOP_DUPLICATE, (PetscErrorCodeFn *)VecDuplicate_QBox_Private));
#if defined(PETSC_HAVE_CUDA)
  {
    PetscBool cuda;
    PetscCall(DMQBoxIsCUDA_Private(dm, &cuda));
    if (cuda) PetscCall(DMQBoxVecSetOperationsCUDA_Private(dm, *v, PETSC_TRUE));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatCreateVecs() of the DM's operators and transfers: the DMs' own global vectors. MatShellSetVecType() alone would let
   PETSc create VECMPICUDA vectors, which allocate and zero the device array and a pinned host copy at creation: about
   1.4 s of PCMG's set-up at 455M unknowns on 2 GPUs */
PetscErrorCode DMQBoxMatCreateVecs_Private(DM dmright, DM dmleft, Vec *right, Vec *left)
{
  PetscFunctionBegin;
  if (right) PetscCall(DMCreateGlobalVector(dmright, right));
  if (left) PetscCall(DMCreateGlobalVector(dmleft, left));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VecDuplicate_QBox_Private(Vec g, Vec *gg)
{
  DM dm;

  PetscFunctionBegin;
  PetscCall(VecGetDM(g, &dm));
  PetscCall(DMCreateGlobalVector_QBox(dm, gg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMCreateLocalVector_QBox(DM dm, Vec *v)
{
  DM_QBox  *q = (DM_QBox *)dm->data;
  PetscInt  n = q->grid.gxm[0] * q->grid.gxm[1] * q->grid.gxm[2];
  PetscBool cuda;

  PetscFunctionBegin;
  PetscCall(DMQBoxCheckVecType_Private(dm));
  PetscCall(DMQBoxIsCUDA_Private(dm, &cuda));
  PetscCall(VecCreate(PETSC_COMM_SELF, v));
  PetscCall(VecSetSizes(*v, n, n));
  PetscCall(VecSetBlockSize(*v, 1));
  PetscCall(VecSetType(*v, cuda ? VECSEQCUDA : VECSEQ));
  PetscCall(VecSetDM(*v, dm));
#if defined(PETSC_HAVE_CUDA)
  if (cuda) PetscCall(DMQBoxVecSetOperationsCUDA_Private(dm, *v, PETSC_FALSE));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
