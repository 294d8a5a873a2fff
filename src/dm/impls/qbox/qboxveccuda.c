/*
  The operations a CUDA vector of a DMQBOX takes from the DM instead of PETSc: the whole-vector writes that allocate
  its device array on first use (so that running out of memory is an error that names the sizes), VecAYPX in one pass
  (-dm_qbox_vec_aypx) and VecMDot by one kernel (-dm_qbox_vec_mdot).
*/
#include <petscvpatch/private/qboximpl.h>
#if defined(PETSC_HAVE_CUDA)
#include <petscdevice_cuda.h>
#include <petsc/private/vecimpl.h>

#if defined(PETSC_HAVE_CUDA) && !defined(PETSC_USE_COMPLEX)
/* VecMDot of the CUDA global vectors (-dm_qbox_vec_mdot): the local products by VPMDot_CUDA (src/sys/cuda/vecmdot.cu says
   why), then one reduction over the ranks. Vectors of another type than x: VecDot one by one. */
static PetscErrorCode VecMDot_QBox(Vec x, PetscInt nv, const Vec y[], PetscScalar z[])
{
  const PetscScalar *xa, **ya;
  PetscInt           n;
  PetscBool          same = PETSC_TRUE;
  MPI_Comm           comm = PetscObjectComm((PetscObject)x);
  PetscMPIInt        size;
  const char        *type;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetType((PetscObject)x, &type));
  for (PetscInt j = 0; j < nv && same; j++) PetscCall(PetscObjectTypeCompare((PetscObject)y[j], type, &same));
  if (!same) {
    for (PetscInt j = 0; j < nv; j++) PetscCall(VecDot(x, y[j], &z[j]));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(PetscMalloc1(nv, &ya));
  PetscCall(VecCUDAGetArrayRead(x, &xa));
  for (PetscInt j = 0; j < nv; j++) PetscCall(VecCUDAGetArrayRead(y[j], &ya[j]));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(VPMDot_CUDA(xa, n, nv, ya, z));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(nv * (2.0 * n - 1)));
  for (PetscInt j = 0; j < nv; j++) PetscCall(VecCUDARestoreArrayRead(y[j], &ya[j]));
  PetscCall(VecCUDARestoreArrayRead(x, &xa));
  PetscCall(PetscFree(ya));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size > 1) PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, z, (PetscMPIInt)nv, MPIU_SCALAR, MPIU_SUM, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/*
  PETSc allocates a CUDA vector's device array on first use. Where that first use is a vector operation (VecSet(),
  VecCopy(), ...), the allocation happens inside an accessor that aborts on failure (cuda error 2 in VectorArray(),
  MPI_Abort) without saying how large the problem is. The vectors of a DMQBOX therefore route the operations that
  write a whole vector (the usual first use) through VecQBoxEnsureDevice_Private(): an unallocated vector gets its
  device array through an accessor that returns errors, and a failure becomes a PETSc error that names the sizes.
  Vectors a solver never touches stay unallocated (allocating every vector at creation costs 4-7 GB at 455M-722M
  unknowns).
*/
typedef struct {
  PetscErrorCode (*set)(Vec, PetscScalar);
  PetscErrorCode (*copy)(Vec, Vec);
  PetscErrorCode (*waxpy)(Vec, PetscScalar, Vec, Vec);
  PetscErrorCode (*pointwisemult)(Vec, Vec, Vec);
  PetscErrorCode (*pointwisedivide)(Vec, Vec, Vec);
  PetscErrorCode (*setrandom)(Vec, PetscRandom);
  PetscErrorCode (*aypx)(Vec, PetscScalar, Vec);
} VecQBoxOps;
static VecQBoxOps vecqbox_orig[2]; /* the operations of VECSEQCUDA and VECMPICUDA, as PETSc sets them */
static PetscBool  vecqbox_have[2];

static PetscErrorCode VecQBoxEnsureDevice_Private(Vec v)
{
  PetscScalar   *a;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  {
    PetscBool cuda; /* the destination of a copy may be a host vector */
    PetscCall(PetscObjectTypeCompareAny((PetscObject)v, &cuda, VECSEQCUDA, VECMPICUDA, ""));
    if (!cuda) PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (v->offloadmask != PETSC_OFFLOAD_UNALLOCATED) PetscFunctionReturn(PETSC_SUCCESS);
  {
    PetscBool adopted; /* a ghosted vector: its buffer now, so that PETSc allocates no array of its own first */
    PetscCall(DMQBoxPadAdoptOnWrite_Private(v, &adopted));
    if (adopted) PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = VecCUDAGetArrayWrite(v, &a);
  if (!ierr) ierr = VecCUDARestoreArrayWrite(v, &a);
  PetscCall(PetscPopErrorHandler());
  if (ierr) {
    size_t   mfree = 0, mtotal = 0;
    PetscInt n, N;
    DM       dm        = NULL;
    char     what[256] = "";

    (void)cudaGetLastError(); /* the failed allocation's error is not sticky; clear it */
    (void)cudaMemGetInfo(&mfree, &mtotal);
    PetscCall(VecGetLocalSize(v, &n));
    PetscCall(VecGetSize(v, &N));
    PetscCall(VecGetDM(v, &dm));
    if (dm) {
      DM_QBox *q = (DM_QBox *)dm->data;
      PetscCall(PetscSNPrintf(what, sizeof(what), " of the DMQBOX of Q_%" PetscInt_FMT " on %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " cells", q->degree, q->cells[0], q->cells[1], q->dim == 3 ? q->cells[2] : 1));
    }
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM,
            "Out of GPU memory: a vector%s (%" PetscInt_FMT " values, %" PetscInt_FMT " on this rank: %.2f GB) could not be allocated; the GPU has %.2f GB free of %.2f GB. Use fewer cells, more GPUs, or single-precision levels", what, N, n,
            (double)n * sizeof(PetscScalar) / 1e9, mfree / 1e9, mtotal / 1e9);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int VecQBoxKind(Vec v)
{
  PetscBool seq = PETSC_FALSE;
  (void)PetscObjectTypeCompare((PetscObject)v, VECSEQCUDA, &seq);
  return seq ? 0 : 1;
}

static PetscErrorCode VecSet_QBoxCUDA(Vec v, PetscScalar a)
{
  PetscFunctionBegin;
  PetscCall(VecQBoxEnsureDevice_Private(v));
  PetscCall(vecqbox_orig[VecQBoxKind(v)].set(v, a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecCopy_QBoxCUDA(Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(VecQBoxEnsureDevice_Private(y));
  PetscCall(vecqbox_orig[VecQBoxKind(x)].copy(x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecWAXPY_QBoxCUDA(Vec w, PetscScalar a, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(VecQBoxEnsureDevice_Private(w));
  PetscCall(vecqbox_orig[VecQBoxKind(w)].waxpy(w, a, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecPointwiseMult_QBoxCUDA(Vec w, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(VecQBoxEnsureDevice_Private(w));
  PetscCall(vecqbox_orig[VecQBoxKind(w)].pointwisemult(w, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecPointwiseDivide_QBoxCUDA(Vec w, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(VecQBoxEnsureDevice_Private(w));
  PetscCall(vecqbox_orig[VecQBoxKind(w)].pointwisedivide(w, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecSetRandom_QBoxCUDA(Vec v, PetscRandom r)
{
  PetscFunctionBegin;
  PetscCall(VecQBoxEnsureDevice_Private(v));
  PetscCall(vecqbox_orig[VecQBoxKind(v)].setrandom(v, r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* VecAYPX, y = x + alpha y (-dm_qbox_vec_aypx): one pass by VPAYPX_CUDA (src/sys/cuda/vecaypx.cu says why); alpha 0 or 1
   (a copy, an axpy: one pass already) and an x that is not a CUDA vector: PETSc's own */
static PetscErrorCode VecAYPX_QBoxCUDA(Vec y, PetscScalar alpha, Vec x)
{
  PetscBool cuda;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &cuda, VECSEQCUDA, VECMPICUDA, ""));
#if defined(PETSC_USE_COMPLEX)
  cuda = PETSC_FALSE; /* the kernel is for real scalars */
#endif
  if (!cuda || alpha == (PetscScalar)0.0 || alpha == (PetscScalar)1.0)
    PetscCall(vecqbox_orig[VecQBoxKind(y)].aypx(y, alpha, x));
  else {
    const PetscScalar *xa;
    PetscScalar       *ya;
    PetscInt           n;

    PetscCall(VecGetLocalSize(y, &n));
    PetscCall(VecCUDAGetArrayRead(x, &xa));
    PetscCall(VecCUDAGetArray(y, &ya));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(VPAYPX_CUDA(n, alpha, xa, ya));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops(2.0 * n));
    PetscCall(VecCUDARestoreArray(y, &ya));
    PetscCall(VecCUDARestoreArrayRead(x, &xa));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a new CUDA vector of a DMQBOX: its whole-vector writes through VecQBoxEnsureDevice_Private(), and with aypx
   (-dm_qbox_vec_aypx) VecAYPX by VecAYPX_QBoxCUDA() */
static PetscErrorCode VecQBoxWrapCUDA(Vec v, PetscBool aypx)
{
  const int k = VecQBoxKind(v);

  PetscFunctionBegin;
  if (!vecqbox_have[k]) {
    vecqbox_orig[k].set             = v->ops->set;
    vecqbox_orig[k].copy            = v->ops->copy;
    vecqbox_orig[k].waxpy           = v->ops->waxpy;
    vecqbox_orig[k].pointwisemult   = v->ops->pointwisemult;
    vecqbox_orig[k].pointwisedivide = v->ops->pointwisedivide;
    vecqbox_orig[k].setrandom       = v->ops->setrandom;
    vecqbox_orig[k].aypx            = v->ops->aypx;
    vecqbox_have[k]                 = PETSC_TRUE;
  }
  PetscCheck(v->ops->set != VecSet_QBoxCUDA, PETSC_COMM_SELF, PETSC_ERR_PLIB, "vector operations wrapped twice");
  if (vecqbox_orig[k].set) v->ops->set = VecSet_QBoxCUDA;
  if (vecqbox_orig[k].copy) v->ops->copy = VecCopy_QBoxCUDA;
  if (vecqbox_orig[k].waxpy) v->ops->waxpy = VecWAXPY_QBoxCUDA;
  if (vecqbox_orig[k].pointwisemult) v->ops->pointwisemult = VecPointwiseMult_QBoxCUDA;
  if (vecqbox_orig[k].pointwisedivide) v->ops->pointwisedivide = VecPointwiseDivide_QBoxCUDA;
  if (vecqbox_orig[k].setrandom) v->ops->setrandom = VecSetRandom_QBoxCUDA;
  if (aypx && vecqbox_orig[k].aypx) v->ops->aypx = VecAYPX_QBoxCUDA;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the operations of a new CUDA vector of dm (global: a global vector, which may also take VecMDot) */
PetscErrorCode DMQBoxVecSetOperationsCUDA_Private(DM dm, Vec v, PetscBool global)
{
  DM_QBox *q = (DM_QBox *)dm->data;

  PetscFunctionBegin;
#if !defined(PETSC_USE_COMPLEX)
  if (global && q->vecmdot) v->ops->mdot = VecMDot_QBox; /* no VECOP_ value for it */
#endif
  PetscCall(VecQBoxWrapCUDA(v, q->vecaypx));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
