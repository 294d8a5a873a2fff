/*
  The operations a CUDA vector of a DMQBOX takes from the DM instead of PETSc: the whole-vector writes that allocate
  its device array on first use (so that running out of memory is an error that names the sizes), VecAYPX in one pass
  (-dm_qbox_vec_aypx), VecMDot by one kernel (-dm_qbox_vec_mdot), and, on the vectors whose rank holds more than
  2^31 - 1 values, every operation PETSc's CUDA vectors hand to cuBLAS with a 32-bit length (src/sys/cuda/veclong.cu).
*/
#include <petscvpatch/private/qboximpl.h>
#if defined(PETSC_HAVE_CUDA)
#include <petscdevice_cuda.h>
#include <petsc/private/vecimpl.h>

/* the operations of the DM's CUDA vectors that wrap or replace PETSc's, as PETSc set them (set by VecQBoxWrapCUDA()) */
typedef struct {
  PetscErrorCode (*set)(Vec, PetscScalar);
  PetscErrorCode (*copy)(Vec, Vec);
  PetscErrorCode (*waxpy)(Vec, PetscScalar, Vec, Vec);
  PetscErrorCode (*pointwisemult)(Vec, Vec, Vec);
  PetscErrorCode (*pointwisedivide)(Vec, Vec, Vec);
  PetscErrorCode (*setrandom)(Vec, PetscRandom);
  PetscErrorCode (*aypx)(Vec, PetscScalar, Vec);
  /* the operations through cuBLAS's 32-bit length (and MAXPY), replaced on vectors past 2^31 - 1 values per rank */
  PetscErrorCode (*axpy)(Vec, PetscScalar, Vec);
  PetscErrorCode (*axpby)(Vec, PetscScalar, PetscScalar, Vec);
  PetscErrorCode (*axpbypcz)(Vec, PetscScalar, PetscScalar, PetscScalar, Vec, Vec);
  PetscErrorCode (*maxpy)(Vec, PetscInt, const PetscScalar *, Vec *);
  PetscErrorCode (*scale)(Vec, PetscScalar);
  PetscErrorCode (*swap)(Vec, Vec);
  PetscErrorCode (*norm)(Vec, NormType, PetscReal *);
  PetscErrorCode (*norm_local)(Vec, NormType, PetscReal *);
  PetscErrorCode (*dot_local)(Vec, Vec, PetscScalar *);
} VecQBoxOps;
static VecQBoxOps vecqbox_orig[2]; /* the operations of VECSEQCUDA and VECMPICUDA, as PETSc sets them */
static PetscBool  vecqbox_have[2];

static int VecQBoxKind(Vec v)
{
  PetscBool seq = PETSC_FALSE;
  (void)PetscObjectTypeCompare((PetscObject)v, VECSEQCUDA, &seq);
  return seq ? 0 : 1;
}

#if defined(PETSC_HAVE_CUDA) && !defined(PETSC_USE_COMPLEX)
/* VecMDot of the CUDA global vectors (-dm_qbox_vec_mdot; VecMTDot too, the same in real arithmetic): the local products by
   VPMDot_CUDA (src/sys/cuda/vecmdot.cu says why; 64-bit lengths), then one reduction over the ranks. Vectors of another
   type than x: their local VecDot one by one. */
static PetscErrorCode VecMDotLocal_QBox(Vec x, PetscInt nv, const Vec y[], PetscScalar z[])
{
  const PetscScalar *xa, **ya;
  PetscInt           n;
  PetscBool          same = PETSC_TRUE;
  const char        *type;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetType((PetscObject)x, &type));
  for (PetscInt j = 0; j < nv && same; j++) PetscCall(PetscObjectTypeCompare((PetscObject)y[j], type, &same));
  if (!same || x->boundtocpu) { /* PETSc's own local dot (the vector's own may be VecDotLocal_QBoxLong(), which calls this) */
    for (PetscInt j = 0; j < nv; j++) PetscCall(vecqbox_orig[VecQBoxKind(x)].dot_local(x, y[j], &z[j]));
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
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the sum over the ranks of x's communicator of n values z (nothing on one rank) */
static PetscErrorCode VecQBoxSumRanks(Vec x, PetscInt n, PetscScalar z[])
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)x);
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size > 1) PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, z, (PetscMPIInt)n, MPIU_SCALAR, MPIU_SUM, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecMDot_QBox(Vec x, PetscInt nv, const Vec y[], PetscScalar z[])
{
  PetscFunctionBegin;
  PetscCall(VecMDotLocal_QBox(x, nv, y, z));
  PetscCall(VecQBoxSumRanks(x, nv, z));
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
    PetscCheck(mfree > (size_t)n * sizeof(PetscScalar), PETSC_COMM_SELF, PETSC_ERR_MEM,
               "Out of GPU memory: a vector%s (%" PetscInt_FMT " values, %" PetscInt_FMT " on this rank: %.2f GB) could not be allocated; the GPU has %.2f GB free of %.2f GB. Use fewer cells, more GPUs, or single-precision levels", what, N, n,
               (double)n * sizeof(PetscScalar) / 1e9, mfree / 1e9, mtotal / 1e9);
    SETERRQ(PETSC_COMM_SELF, ierr, "PETSc could not make the device array of a vector%s (%" PetscInt_FMT " values, %" PetscInt_FMT " on this rank: %.2f GB) although the GPU has %.2f GB free: PETSc error %d (run with -info or see the error above)",
            what, N, n, (double)n * sizeof(PetscScalar) / 1e9, mfree / 1e9, (int)ierr);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
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

#if !defined(PETSC_USE_COMPLEX)
/*
  Vectors past 2^31 - 1 values on a rank (src/sys/cuda/veclong.cu says why; -dm_qbox_vec_long: every vector, for
  tests). The operations below replace those that PETSc's CUDA vectors do through cuBLAS (and MAXPY); an argument that
  is not a CUDA vector on the device gets PETSc's own operation. The reductions (VecDot, VecTDot, VecMDot, VecMTDot,
  VecNorm and their local forms, which VecDotBegin()/VecNormBegin() use) by VPMDot_CUDA() and VPNorm_CUDA(); the 2-norm
  is the square root of the sum of squares (no scaling against overflow past 1e154, as cuBLAS's nrm2 has).
*/
static PetscBool VecQBoxOnDevice(Vec v)
{
  PetscBool cuda = PETSC_FALSE;
  (void)PetscObjectTypeCompareAny((PetscObject)v, &cuda, VECSEQCUDA, VECMPICUDA, "");
  return (PetscBool)(cuda && !v->boundtocpu);
}

/* z = a x + b y + c z on the device (y may be NULL, c = 0: z is written only) */
static PetscErrorCode VecQBoxCombine(Vec z, PetscScalar a, Vec x, PetscScalar b, Vec y, PetscScalar c)
{
  const PetscScalar *xa, *ya = NULL;
  PetscScalar       *za;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(z, &n));
  if (c == (PetscScalar)0) PetscCall(VecQBoxEnsureDevice_Private(z));
  PetscCall(VecCUDAGetArrayRead(x, &xa));
  if (y) PetscCall(VecCUDAGetArrayRead(y, &ya));
  if (c == (PetscScalar)0)
    PetscCall(VecCUDAGetArrayWrite(z, &za));
  else
    PetscCall(VecCUDAGetArray(z, &za));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(VPVecCombine_CUDA(n, a, xa, b, ya, c, za));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((y ? 3.0 : 1.0) * n + (c != (PetscScalar)0 ? 2.0 * n : 0)));
  if (c == (PetscScalar)0)
    PetscCall(VecCUDARestoreArrayWrite(z, &za));
  else
    PetscCall(VecCUDARestoreArray(z, &za));
  if (y) PetscCall(VecCUDARestoreArrayRead(y, &ya));
  PetscCall(VecCUDARestoreArrayRead(x, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecAXPY_QBoxLong(Vec y, PetscScalar a, Vec x)
{
  PetscFunctionBegin;
  if (!VecQBoxOnDevice(x) || !VecQBoxOnDevice(y))
    PetscCall(vecqbox_orig[VecQBoxKind(y)].axpy(y, a, x));
  else if (a != (PetscScalar)0)
    PetscCall(VecQBoxCombine(y, a, x, 0, NULL, 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecAYPX_QBoxLong(Vec y, PetscScalar a, Vec x)
{
  PetscFunctionBegin;
  if (!VecQBoxOnDevice(x) || !VecQBoxOnDevice(y))
    PetscCall(vecqbox_orig[VecQBoxKind(y)].aypx(y, a, x));
  else
    PetscCall(VecQBoxCombine(y, 1, x, 0, NULL, a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecAXPBY_QBoxLong(Vec y, PetscScalar a, PetscScalar b, Vec x)
{
  PetscFunctionBegin;
  if (!VecQBoxOnDevice(x) || !VecQBoxOnDevice(y))
    PetscCall(vecqbox_orig[VecQBoxKind(y)].axpby(y, a, b, x));
  else
    PetscCall(VecQBoxCombine(y, a, x, 0, NULL, b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecAXPBYPCZ_QBoxLong(Vec z, PetscScalar a, PetscScalar b, PetscScalar c, Vec x, Vec y)
{
  PetscFunctionBegin;
  if (!VecQBoxOnDevice(x) || !VecQBoxOnDevice(y) || !VecQBoxOnDevice(z))
    PetscCall(vecqbox_orig[VecQBoxKind(z)].axpbypcz(z, a, b, c, x, y));
  else
    PetscCall(VecQBoxCombine(z, a, x, b, y, c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecWAXPY_QBoxLong(Vec w, PetscScalar a, Vec x, Vec y)
{
  PetscFunctionBegin;
  if (!VecQBoxOnDevice(x) || !VecQBoxOnDevice(y) || !VecQBoxOnDevice(w))
    PetscCall(VecWAXPY_QBoxCUDA(w, a, x, y));
  else
    PetscCall(VecQBoxCombine(w, a, x, 1, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecMAXPY_QBoxLong(Vec y, PetscInt nv, const PetscScalar *a, Vec *x)
{
  PetscBool           dev = VecQBoxOnDevice(y);
  const PetscScalar **xa;
  PetscScalar        *ya;
  PetscInt            n;

  PetscFunctionBegin;
  for (PetscInt j = 0; j < nv && dev; j++) dev = VecQBoxOnDevice(x[j]);
  if (!dev) {
    PetscCall(vecqbox_orig[VecQBoxKind(y)].maxpy(y, nv, a, x));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecGetLocalSize(y, &n));
  PetscCall(PetscMalloc1(nv, &xa));
  for (PetscInt j = 0; j < nv; j++) PetscCall(VecCUDAGetArrayRead(x[j], &xa[j]));
  PetscCall(VecCUDAGetArray(y, &ya));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(VPVecMAXPY_CUDA(n, nv, a, xa, ya));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * nv * n));
  PetscCall(VecCUDARestoreArray(y, &ya));
  for (PetscInt j = 0; j < nv; j++) PetscCall(VecCUDARestoreArrayRead(x[j], &xa[j]));
  PetscCall(PetscFree(xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecScale_QBoxLong(Vec x, PetscScalar a)
{
  PetscScalar *xa;
  PetscInt     n;

  PetscFunctionBegin;
  if (!VecQBoxOnDevice(x))
    PetscCall(vecqbox_orig[VecQBoxKind(x)].scale(x, a));
  else if (a == (PetscScalar)0)
    PetscCall((*x->ops->set)(x, 0)); /* as PETSc: a NaN becomes 0 */
  else if (a != (PetscScalar)1) {
    PetscCall(VecGetLocalSize(x, &n));
    PetscCall(VecCUDAGetArray(x, &xa));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(VPVecScale_CUDA(n, a, xa));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops(1.0 * n));
    PetscCall(VecCUDARestoreArray(x, &xa));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecSwap_QBoxLong(Vec x, Vec y)
{
  PetscScalar *xa, *ya;
  PetscInt     n;

  PetscFunctionBegin;
  if (!VecQBoxOnDevice(x) || !VecQBoxOnDevice(y))
    PetscCall(vecqbox_orig[VecQBoxKind(x)].swap(x, y));
  else if (x != y) {
    PetscCall(VecGetLocalSize(x, &n));
    PetscCall(VecCUDAGetArray(x, &xa));
    PetscCall(VecCUDAGetArray(y, &ya));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(VPVecSwap_CUDA(n, xa, ya));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(VecCUDARestoreArray(y, &ya));
    PetscCall(VecCUDARestoreArray(x, &xa));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecDotLocal_QBoxLong(Vec x, Vec y, PetscScalar *z)
{
  PetscFunctionBegin;
  PetscCall(VecMDotLocal_QBox(x, 1, &y, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecDot_QBoxLong(Vec x, Vec y, PetscScalar *z)
{
  PetscFunctionBegin;
  PetscCall(VecMDot_QBox(x, 1, &y, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the local sums of VecNorm of type t (sums[0]: sum |x_i|, sums[1]: sum x_i^2, sums[2]: max |x_i|) */
static PetscErrorCode VecQBoxNormSums(Vec x, NormType t, PetscReal sums[3])
{
  const PetscScalar *xa;
  PetscInt           n;
  const PetscBool    one = (PetscBool)(t == NORM_1 || t == NORM_1_AND_2), two = (PetscBool)(t == NORM_2 || t == NORM_FROBENIUS || t == NORM_1_AND_2);

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecCUDAGetArrayRead(x, &xa));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(VPNorm_CUDA(xa, n, one, two, (PetscBool)(t == NORM_INFINITY), sums));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((one ? 1.0 * n : 0) + (two ? 2.0 * n : 0)));
  PetscCall(VecCUDARestoreArrayRead(x, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* VecNorm's results from the sums of VecQBoxNormSums() */
static void VecQBoxNormFromSums(NormType t, const PetscReal sums[3], PetscReal *z)
{
  if (t == NORM_INFINITY)
    z[0] = sums[2];
  else if (t == NORM_1)
    z[0] = sums[0];
  else if (t == NORM_1_AND_2) {
    z[0] = sums[0];
    z[1] = PetscSqrtReal(sums[1]);
  } else
    z[0] = PetscSqrtReal(sums[1]);
}

static PetscErrorCode VecNormLocal_QBoxLong(Vec x, NormType t, PetscReal *z)
{
  PetscReal sums[3];

  PetscFunctionBegin;
  if (!VecQBoxOnDevice(x)) {
    PetscCall(vecqbox_orig[VecQBoxKind(x)].norm_local(x, t, z));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecQBoxNormSums(x, t, sums));
  VecQBoxNormFromSums(t, sums, z);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecNorm_QBoxLong(Vec x, NormType t, PetscReal *z)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)x);
  PetscMPIInt size;
  PetscReal   sums[3];

  PetscFunctionBegin;
  if (!VecQBoxOnDevice(x)) {
    PetscCall(vecqbox_orig[VecQBoxKind(x)].norm(x, t, z));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecQBoxNormSums(x, t, sums));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size > 1) {
    if (t == NORM_INFINITY)
      PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &sums[2], 1, MPIU_REAL, MPIU_MAX, comm));
    else
      PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, sums, 2, MPIU_REAL, MPIU_SUM, comm));
  }
  VecQBoxNormFromSums(t, sums, z);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc 3.26 refuses a CUDA vector past 2^31 - 1 values per rank when it makes the vector's device part (the struct that
   holds the device array, on first use: VecAllocateCheck_() in veccupmimpl.h checks that the local length fits the
   32-bit int of its cuBLAS calls, which the operations above replace). That part is made here with the local length
   seen as 0 for the moment; the device array itself is allocated at the full length on first use, as for any vector. */
static PetscErrorCode VecQBoxLongDevicePart(Vec v)
{
  const PetscInt n = v->map->n;
  PetscScalar   *a;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  if (v->spptr) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(v->offloadmask == PETSC_OFFLOAD_UNALLOCATED, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a new vector has an array");
  v->map->n = 0;
  ierr      = VecCUDAGetArrayWrite(v, &a);
  if (!ierr) ierr = VecCUDARestoreArrayWrite(v, &a);
  v->map->n = n;
  PetscCall(ierr);
  PetscCheck(v->spptr, PETSC_COMM_SELF, PETSC_ERR_LIB, "PETSc did not make the device part of a CUDA vector: this PETSc's CUDA vectors are not those of 3.26, which petsc-vpatch supports past 2^31 - 1 values per rank");
  v->offloadmask = PETSC_OFFLOAD_UNALLOCATED; /* nothing allocated yet */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* v's operations for vectors past 2^31 - 1 values per rank (after VecQBoxWrapCUDA(), whose originals they fall back on).
   PETSc's asynchronous forms of the same operations, which a caller with a device context would get instead, are
   removed from v. */
static PetscErrorCode VecQBoxWrapLong(Vec v)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)v, VecAsyncFnName(AXPY), NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)v, VecAsyncFnName(AYPX), NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)v, VecAsyncFnName(AXPBY), NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)v, VecAsyncFnName(AXPBYPCZ), NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)v, VecAsyncFnName(WAXPY), NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)v, VecAsyncFnName(MAXPY), NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)v, VecAsyncFnName(Scale), NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)v, VecAsyncFnName(Swap), NULL));
  if (v->map->n > PETSC_INT32_MAX) PetscCall(VecQBoxLongDevicePart(v));
  v->ops->axpy     = VecAXPY_QBoxLong;
  v->ops->aypx     = VecAYPX_QBoxLong;
  v->ops->axpby    = VecAXPBY_QBoxLong;
  v->ops->axpbypcz = VecAXPBYPCZ_QBoxLong;
  v->ops->waxpy    = VecWAXPY_QBoxLong;
  v->ops->maxpy    = VecMAXPY_QBoxLong;
  v->ops->scale    = VecScale_QBoxLong;
  v->ops->swap     = VecSwap_QBoxLong;
  v->ops->dot = v->ops->tdot = VecDot_QBoxLong;
  v->ops->dot_local = v->ops->tdot_local = VecDotLocal_QBoxLong;
  v->ops->mdot = v->ops->mtdot = VecMDot_QBox;
  v->ops->mdot_local = v->ops->mtdot_local = VecMDotLocal_QBox;
  v->ops->norm                             = VecNorm_QBoxLong;
  v->ops->norm_local                       = VecNormLocal_QBoxLong;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

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
    vecqbox_orig[k].axpy            = v->ops->axpy;
    vecqbox_orig[k].axpby           = v->ops->axpby;
    vecqbox_orig[k].axpbypcz        = v->ops->axpbypcz;
    vecqbox_orig[k].maxpy           = v->ops->maxpy;
    vecqbox_orig[k].scale           = v->ops->scale;
    vecqbox_orig[k].swap            = v->ops->swap;
    vecqbox_orig[k].norm            = v->ops->norm;
    vecqbox_orig[k].norm_local      = v->ops->norm_local;
    vecqbox_orig[k].dot_local       = v->ops->dot_local;
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

#if !defined(PETSC_USE_COMPLEX)
/* whether v of dm takes the operations of vectors past 2^31 - 1 values per rank: with -dm_qbox_vec_long, or where a
   rank holds more. A global vector's operations reduce over the ranks, so every rank must take the same: decided once
   per DM, collectively (DMCreateGlobalVector() is collective), by the largest local length */
static PetscErrorCode VecQBoxIsLong(DM dm, Vec v, PetscBool global, PetscBool *lng)
{
  DM_QBox *q = (DM_QBox *)dm->data;
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(v, &n));
  if (q->veclong)
    *lng = PETSC_TRUE;
  else if (!global)
    *lng = (PetscBool)(n > PETSC_INT32_MAX);
  else {
    if (!q->veclongknown) {
      PetscInt64 m = n;
      PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &m, 1, MPIU_INT64, MPI_MAX, PetscObjectComm((PetscObject)v)));
      q->veclongglobal = (PetscBool)(m > PETSC_INT32_MAX);
      q->veclongknown  = PETSC_TRUE;
    }
    *lng = q->veclongglobal;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* the operations of a new CUDA vector of dm (global: a global vector, which may also take VecMDot) */
PetscErrorCode DMQBoxVecSetOperationsCUDA_Private(DM dm, Vec v, PetscBool global)
{
  DM_QBox *q = (DM_QBox *)dm->data;

  PetscFunctionBegin;
#if !defined(PETSC_USE_COMPLEX)
  /* no VECOP_ value for them; VecMTDot is VecMDot in real arithmetic (PETSc's CUDA VecMTDot computes on the host) */
  if (global && q->vecmdot) v->ops->mdot = v->ops->mtdot = VecMDot_QBox;
#endif
  PetscCall(VecQBoxWrapCUDA(v, q->vecaypx));
#if !defined(PETSC_USE_COMPLEX)
  {
    PetscBool lng;
    PetscCall(VecQBoxIsLong(dm, v, global, &lng));
    if (lng) PetscCall(VecQBoxWrapLong(v));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
