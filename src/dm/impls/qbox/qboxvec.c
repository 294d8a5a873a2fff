/*
  DMQBOX vectors: global vectors (owned nodes, lexicographic within the owned box), local vectors
  (ghosted box, ghost width k), and their exchange: on one rank a copy, else by star forests made from the box
  decomposition (the ghost exchange, and per patch color the exchange of the multiplicative sweep).
  VecView in natural (rank-independent) order, and legacy VTK output of a solution.
*/
#include <petscvpatch/private/qboximpl.h>
#include <petscdmda.h>
#include <petscsf.h>
#if defined(PETSC_HAVE_CUDA)
#include <petscdevice_cuda.h>
#include <petsc/private/vecimpl.h>
#endif

/* a device copy of n host reals (CUDA builds only) */
PetscErrorCode VPDeviceCopy_Private(const PetscReal *h, size_t n, PetscReal **d)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  PetscCallCUDA(cudaMalloc((void **)d, PetscMax(n, 1) * sizeof(PetscReal))); /* not NULL when empty: made-once tests read it */
  if (n) PetscCallCUDA(cudaMemcpy(*d, h, n * sizeof(PetscReal), cudaMemcpyHostToDevice));
#else
  (void)h;
  (void)n;
  *d = NULL;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "This PETSc has no CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a host copy of n device reals into h (CUDA builds only) */
PetscErrorCode VPDeviceToHost_Private(const PetscReal *d, size_t n, PetscReal *h)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscCallCUDA(cudaMemcpy(h, d, n * sizeof(PetscReal), cudaMemcpyDeviceToHost));
#else
  (void)d;
  (void)n;
  (void)h;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "This PETSc has no CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* device memory for n reals (CUDA builds only) */
PetscErrorCode VPDeviceAlloc_Private(size_t n, PetscReal **d)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  PetscCallCUDA(cudaMalloc((void **)d, PetscMax(n, 1) * sizeof(PetscReal)));
#else
  (void)n;
  *d = NULL;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "This PETSc has no CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPDeviceFree_Private(PetscReal **d)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  if (*d) PetscCallCUDA(cudaFree(*d));
#endif
  *d = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

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
  if (cuda) { /* once the boxes are known (DMSetUp()): PETSc's CUDA vectors give cuBLAS their length as a 32-bit int */
    const VPGrid *g = &((DM_QBox *)dm->data)->grid;
    PetscInt64    n = (PetscInt64)g->gxm[0] * g->gxm[1] * g->gxm[2];
    PetscCheck(n <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "DMQBOX with CUDA vectors: this rank's vectors would hold %" PetscInt64_FMT " values (its box with ghosts: %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT
               " nodes), more than 2^31 - 1; PETSc's CUDA vectors hand their length to cuBLAS as a 32-bit int (VecAXPY(), VecNorm(), ... would fail or compute on a wrapped length). Use more processes (GPUs) or fewer cells",
               n, g->gxm[0], g->gxm[1], g->gxm[2]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecView_QBox(Vec, PetscViewer);
static PetscErrorCode VecDuplicate_QBox(Vec, Vec *);

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

#if defined(PETSC_HAVE_CUDA)
/*
  PETSc allocates a CUDA vector's device array on first use. Where that first use is a vector operation (VecSet(),
  VecCopy(), ...), the allocation happens inside an accessor that aborts on failure (cuda error 2 in VectorArray(),
  MPI_Abort) without saying how large the problem is. The vectors of a DMQBOX therefore route the operations that
  write a whole vector (the usual first use) through VecQBoxEnsureDevice_Private(): an unallocated vector gets its
  device array through an accessor that returns errors, and a failure becomes a PETSc error that names the sizes.
  Vectors a solver never touches stay unallocated (allocating every vector at creation costs 4-7 GB at 455M-722M
  unknowns: bench/RESULTS.md, session 10).
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
static VecQBoxOps     vecqbox_orig[2]; /* the operations of VECSEQCUDA and VECMPICUDA, as PETSc sets them */
static PetscBool      vecqbox_have[2];
static PetscErrorCode QBoxPadAdoptOnWrite(Vec, PetscBool *);

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
    PetscCall(QBoxPadAdoptOnWrite(v, &adopted));
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
#endif

/* Ghosted global vectors (-dm_qbox_ghosted_vectors). Where the partition cuts only the slowest direction (slabs: z in
   3D, y in 2D), a rank's owned nodes are one contiguous run of its ghosted local box (QBoxPadLayout()). A global vector then keeps
   its values inside a buffer of the whole local box (for CUDA vectors from the stream-ordered pool, as PETSc's own:
   MPI never sees it; PetscCalloc() else), and the kernels of the operator, the transfers and the smoother work on that buffer (DMQBoxGhostedGet_Private()):
   an exchange moves the ghost layers only, where a local vector would take a copy of the owned part in and out (two
   passes over the vector per operation, which kept the operator and the transfers on 2 GPUs at the speed of one,
   bench/RESULTS.md). The buffer is the vector's; its ghost entries are scratch, refreshed by every use.
   A CUDA vector gets its buffer at its first write, by a kernel or by a whole-vector operation of PETSc's
   (QBoxPadEnsure()), not when it is made: until then it is
   PETSc's own lazy CUDA vector. PETSc makes vectors it never uses (the work vectors of a KSPRICHARDSON that hands the
   iteration to PCApplyRichardson(), the template of KSPCreateVecs()), and with buffers made at once every rank held
   1.7-1.8x the device memory of one GPU with the same share, where one GPU's vectors cost nothing until used
   (bench/RESULTS.md, session 33). */
typedef struct {
  PetscScalar *base;   /* the buffer: the ghosted local box */
  size_t       off, n; /* where the vector's owned values start, and the buffer's length */
  PetscBool    device;
} QBoxPad;

static void QBoxPadLayout(const VPGrid *g, PetscInt dim, size_t *off, size_t *n)
{
  const PetscInt s     = dim - 1; /* the slowest direction */
  size_t         plane = 1;

  for (PetscInt d = 0; d < s; d++) plane *= (size_t)g->gxm[d];
  *off = plane * (size_t)(g->xs[s] - g->gxs[s]);
  *n   = (size_t)g->gxm[0] * (size_t)g->gxm[1] * (size_t)g->gxm[2];
}

static PetscErrorCode QBoxPadDestroy(PetscCtxRt ctx)
{
  QBoxPad *p = *(QBoxPad **)ctx;

  PetscFunctionBegin;
  if (!p) PetscFunctionReturn(PETSC_SUCCESS);
#if defined(PETSC_HAVE_CUDA)
  if (p->device)
    PetscCall(VPBufferFree_CUDA(p->base));
  else
#endif
    PetscCall(PetscFree(p->base));
  PetscCall(PetscFree(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DMQBoxCreateGhostedVector(DM dm, Vec *v)
{
  DM_QBox  *q = (DM_QBox *)dm->data;
  PetscInt  n = q->grid.xm[0] * q->grid.xm[1] * q->grid.xm[2];
  QBoxPad  *p;
  PetscBool cuda;

  PetscFunctionBegin;
  PetscCall(DMQBoxIsCUDA_Private(dm, &cuda));
  PetscCall(PetscNew(&p));
  QBoxPadLayout(&q->grid, q->dim, &p->off, &p->n);
  p->device = cuda;
#if defined(PETSC_HAVE_CUDA)
  if (cuda) /* no arrays yet: PETSc allocates on first use, or QBoxPadAdopt() gives it the buffer */
    PetscCall(VecCreateMPICUDAWithArrays(PetscObjectComm((PetscObject)dm), 1, n, PETSC_DETERMINE, NULL, NULL, v));
  else
#endif
  {
    PetscCall(PetscCalloc1(p->n, &p->base));
    PetscCall(VecCreateMPIWithArray(PetscObjectComm((PetscObject)dm), 1, n, PETSC_DETERMINE, p->base + p->off, v));
  }
  PetscCall(PetscObjectContainerCompose((PetscObject)*v, "DMQBoxGhosted", p, QBoxPadDestroy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
/* the first two members of PETSc's Vec_CUPM (include/petsc/private/veccupmimpl.h), v->spptr of a CUDA vector: the
   device array in use, and the one PETSc allocated and frees */
typedef struct {
  PetscScalar *array_d, *array_allocated_d;
} QBoxCUPMHead;

/* The buffer of a ghosted CUDA vector on its first write: allocated (zeroed), given the vector's current values
   (where PETSc allocated any), and made the vector's device array for good (VecCUDAReplaceArray(), which frees PETSc's
   own array; PETSc is then told it owns none, so that VecDestroy() leaves the buffer to QBoxPadDestroy()). A vector
   whose device array was placed (VecCUDAPlaceArray()) keeps it: no buffer, the caller copies to a local vector. */
static PetscErrorCode QBoxPadAdopt(DM dm, Vec g, QBoxPad *p)
{
  DM_QBox         *q   = (DM_QBox *)dm->data;
  const size_t     own = (size_t)q->grid.xm[0] * q->grid.xm[1] * q->grid.xm[2];
  QBoxCUPMHead    *h   = (QBoxCUPMHead *)g->spptr;
  PetscOffloadMask mask;
  PetscBool        iscuda;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)g, &iscuda, VECSEQCUDA, VECMPICUDA, ""));
  if (!iscuda || (h && h->array_d != h->array_allocated_d)) PetscFunctionReturn(PETSC_SUCCESS); /* placed: keep it */
  PetscCall(VPBufferAlloc_CUDA(p->n, &p->base));
  if (!p->base) {
    size_t mfree = 0, mtotal = 0;
    (void)cudaMemGetInfo(&mfree, &mtotal);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM,
            "Out of GPU memory: a vector of the DMQBOX of Q_%" PetscInt_FMT " on %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT
            " cells (%.2f GB on this rank with its ghost layers) could not be allocated; the GPU has %.2f GB free of %.2f GB. Use fewer cells, more GPUs, or single-precision levels",
            q->degree, q->cells[0], q->cells[1], q->dim == 3 ? q->cells[2] : 1, (double)p->n * sizeof(PetscScalar) / 1e9, mfree / 1e9, mtotal / 1e9);
  }
  PetscCall(VecGetOffloadMask(g, &mask));
  if (mask != PETSC_OFFLOAD_UNALLOCATED) { /* its values so far */
    const PetscScalar *a;

    PetscCall(VecCUDAGetArrayRead(g, &a));
    PetscCall(VPCopy_CUDA(p->base + p->off, a, own));
    PetscCall(VecCUDARestoreArrayRead(g, &a));
  }
  PetscCall(VecCUDAReplaceArray(g, p->base + p->off));
  h = (QBoxCUPMHead *)g->spptr;
  PetscCheck(h && h->array_d == p->base + p->off && h->array_allocated_d == p->base + p->off, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "PETSc's CUDA vector does not keep its device arrays where this PETSc version was expected to (DMQBOX ghosted vectors): run with -dm_qbox_ghosted_vectors false");
  h->array_allocated_d = NULL; /* the buffer is the container's */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the buffer of g (container p, or NULL) if it is a ghosted CUDA vector of dm's layout that has none yet */
static PetscErrorCode QBoxPadEnsure(DM dm, Vec g, QBoxPad *p)
{
  DM_QBox *q = (DM_QBox *)dm->data;
  size_t   off, n;

  PetscFunctionBegin;
  QBoxPadLayout(&q->grid, q->dim, &off, &n);
  if (p && p->device && !p->base && p->off == off && p->n == n) PetscCall(QBoxPadAdopt(dm, g, p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A ghosted CUDA vector that a whole-vector operation (VecSet(), VecCopy(), ...: VecQBoxEnsureDevice_Private()) writes
   before any kernel: its buffer there, instead of an array of PETSc's that the first kernel would copy into the buffer
   and free (for a moment one vector more on the GPU). adopted: whether v has its buffer now */
static PetscErrorCode QBoxPadAdoptOnWrite(Vec v, PetscBool *adopted)
{
  QBoxPad *p  = NULL;
  DM       dm = NULL;

  PetscFunctionBegin;
  *adopted = PETSC_FALSE;
  PetscCall(PetscObjectContainerQuery((PetscObject)v, "DMQBoxGhosted", (void **)&p));
  if (p) PetscCall(VecGetDM(v, &dm));
  if (dm) PetscCall(QBoxPadEnsure(dm, v, p));
  *adopted = (PetscBool)(p && p->base);
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

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
    PetscCall(DMQBoxCreateGhostedVector(dm, v));
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
  PetscCall(VecSetOperation(*v, VECOP_VIEW, (PetscErrorCodeFn *)VecView_QBox));
  PetscCall(VecSetOperation(*v, VECOP_DUPLICATE, (PetscErrorCodeFn *)VecDuplicate_QBox));
#if defined(PETSC_HAVE_CUDA) && !defined(PETSC_USE_COMPLEX)
  {
    PetscBool cuda;
    PetscCall(DMQBoxIsCUDA_Private(dm, &cuda));
    if (cuda && ((DM_QBox *)dm->data)->vecmdot) (*v)->ops->mdot = VecMDot_QBox; /* no VECOP_ value for it */
  }
#endif
#if defined(PETSC_HAVE_CUDA)
  {
    PetscBool cuda;
    PetscCall(DMQBoxIsCUDA_Private(dm, &cuda));
    if (cuda) PetscCall(VecQBoxWrapCUDA(*v, ((DM_QBox *)dm->data)->vecaypx));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatCreateVecs() of the DM's operators and transfers: the DMs' own global vectors. MatShellSetVecType() alone would let
   PETSc create VECMPICUDA vectors, which allocate and zero the device array and a pinned host copy at creation: about
   1.4 s of PCMG's set-up at 455M unknowns on 2 GPUs (bench/RESULTS.md, session 15) */
PetscErrorCode DMQBoxMatCreateVecs_Private(DM dmright, DM dmleft, Vec *right, Vec *left)
{
  PetscFunctionBegin;
  if (right) PetscCall(DMCreateGlobalVector(dmright, right));
  if (left) PetscCall(DMCreateGlobalVector(dmleft, left));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecDuplicate_QBox(Vec g, Vec *gg)
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
  if (cuda) PetscCall(VecQBoxWrapCUDA(*v, ((DM_QBox *)dm->data)->vecaypx));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The exchange between global vectors (owned boxes) and local vectors (ghosted boxes), on the box decomposition itself:
   the owned nodes are copied between the two layouts (a kernel on the device), the ghost nodes come from their owners
   through one PetscSF whose leaves are the ghost nodes only. Its graph is made from the per-direction ownership in
   O(ghost nodes), with no global index array and no scatter of the owned part. On one rank the local box is the
   owned box: the exchange is a copy (INSERT) or a sum (ADD) of the vectors. Modes other than INSERT_VALUES (and
   ADD_VALUES from local to global) go to the inner DMDA. */

PetscErrorCode DMQBoxColumnsCreate_Private(DM dm, DMQBoxColumns *c)
{
  DM_QBox    *q = (DM_QBox *)dm->data;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)dm), &rank));
  c->me[0] = rank % q->procs[0];
  c->me[1] = (rank / q->procs[0]) % q->procs[1];
  c->me[2] = rank / (q->procs[0] * q->procs[1]);
  if (!q->active) c->me[0] = c->me[1] = c->me[2] = 0; /* owns nothing: the searches start at column 0 */
  for (PetscInt d = 0; d < 3; d++) {
    c->P[d] = d < q->dim ? q->procs[d] : 1;
    PetscCall(PetscMalloc1(6 * c->P[d], &c->b[d]));
    for (PetscInt i = 0; i < c->P[d]; i++) PetscCall(DMQBoxColumnBox_Private(dm, d, i, c->b[d] + 6 * i));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMQBoxColumnsDestroy_Private(DMQBoxColumns *c)
{
  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) PetscCall(PetscFree(c->b[d]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the column of direction d whose owned nodes (entry 0, 1) or owned cells (entry 4, 5) hold p: ghost nodes and patch
   vertices lie in the neighbouring columns, so the search starts at this rank's column */
PetscInt DMQBoxColumnOf_Private(const DMQBoxColumns *c, PetscInt d, PetscInt e, PetscInt p)
{
  PetscInt i = c->me[d];
  while (i > 0 && p < c->b[d][6 * i + e]) i--;
  while (i < c->P[d] - 1 && p >= c->b[d][6 * i + e] + c->b[d][6 * i + e + 1]) i++;
  return i;
}

/* the columns of direction d whose range of entry e (0 owned nodes, 2 ghosted box) meets [lo, lo + n): first and end */
static void QBoxColumnsMeeting(const DMQBoxColumns *c, PetscInt d, PetscInt e, PetscInt lo, PetscInt n, PetscInt *c0, PetscInt *c1)
{
  PetscInt i = 0;

  while (i < c->P[d] && c->b[d][6 * i + e] + c->b[d][6 * i + e + 1] <= lo) i++;
  *c0 = i;
  while (i < c->P[d] && c->b[d][6 * i + e] < lo + n) i++;
  *c1 = i;
}

/*
  The lists of a packed exchange between two layouts of one grid's nodes on the ranks of one communicator, each given
  by its process columns: the sending layout S (a rank's array is its box of entry es of S's columns: 0, the owned
  nodes) and the receiving layout R (entry er: 0 owned, 2 the ghosted box). This rank sends to every rank t of R the
  nodes of its S box in t's R box, and receives from every rank f of S the nodes of f's S box in its own R box, both
  sides in global lexicographic order, so the lists match entry by entry; the peers are visited in rank order (rank =
  column x + P_x (column y + P_y column z)). sact / ract: this rank has a box in S / R (a gathered level's other ranks
  have none); noself: nothing to itself (the ghost exchange: a rank's own nodes are copied apart). Two passes (count,
  then fill as runs, one per row of each box intersection), O(rows of the intersections + columns).
*/
static PetscErrorCode QBoxBoxLists(const DMQBoxColumns *S, PetscInt es, PetscBool sact, const DMQBoxColumns *R, PetscInt er, PetscBool ract, PetscMPIInt rank, PetscBool noself, DMQBoxPeers *send, DMQBoxPeers *recv, DMQBoxPacked *x)
{
  PetscFunctionBegin;
  for (PetscInt pass = 0; pass < 2; pass++) {
    for (PetscInt side = 0; side < 2; side++) {                 /* 0: send (this rank's S box against R's boxes), 1: receive */
      const DMQBoxColumns *M = side ? R : S, *O = side ? S : R; /* this rank's layout, the others' */
      const PetscInt       em = side ? er : es, eo = side ? es : er;
      DMQBoxPeers         *p = side ? recv : send;
      PetscInt             lo[3], n[3], c0[3], c1[3];

      if (!(side ? ract : sact)) continue;
      for (PetscInt d = 0; d < 3; d++) {
        lo[d] = M->b[d][6 * M->me[d] + em];
        n[d]  = M->b[d][6 * M->me[d] + em + 1];
        QBoxColumnsMeeting(O, d, eo, lo[d], n[d], &c0[d], &c1[d]);
      }
      for (PetscInt cz = c0[2]; cz < c1[2]; cz++)
        for (PetscInt cy = c0[1]; cy < c1[1]; cy++)
          for (PetscInt cx = c0[0]; cx < c1[0]; cx++) {
            const PetscInt    col[3] = {cx, cy, cz};
            const PetscMPIInt r      = (PetscMPIInt)(cx + O->P[0] * (cy + O->P[1] * cz));
            PetscInt          blo[3], bhi[3], vol = 1, slot;

            if (noself && r == rank) continue;
            for (PetscInt d = 0; d < 3; d++) {
              blo[d] = PetscMax(lo[d], O->b[d][6 * col[d] + eo]);
              bhi[d] = PetscMin(lo[d] + n[d], O->b[d][6 * col[d] + eo] + O->b[d][6 * col[d] + eo + 1]);
              vol *= PetscMax(bhi[d] - blo[d], 0);
            }
            if (!vol) continue;
            if (pass == 0) {
              PetscCall(DMQBoxPeersAdd_Private(p, r, &slot));
              p->count[slot] += vol;
              continue;
            }
            slot = DMQBoxPeersFind_Private(p, r);
            for (PetscInt z = blo[2]; z < bhi[2]; z++) /* a run per row of the intersection */
              for (PetscInt y = blo[1]; y < bhi[1]; y++) {
                const PetscInt row = ((z - lo[2]) * n[1] + (y - lo[1])) * n[0] - lo[0];

                PetscCall(DMQBoxPackedAddRun_Private(x, side, p->start[slot] + p->fill[slot], row + blo[0], bhi[0] - blo[0]));
                p->fill[slot] += bhi[0] - blo[0];
              }
          }
    }
    if (pass == 0) PetscCall(DMQBoxPackedAllocLists_Private(send, recv, x));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the lists' receive side covers exactly the n nodes it must (every ghost node, or every owned node of a move) */
static PetscErrorCode QBoxCheckReceived(const DMQBoxPeers *recv, PetscInt n, const char what[])
{
  PetscInt got = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < recv->n; i++) got += recv->count[i];
  PetscCheck(got == n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMQBOX %s: receives %" PetscInt_FMT " values, expected %" PetscInt_FMT, what, got, n);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The ghost exchange: from the owned array (roots) of each rank to the ghost nodes of the local arrays (leaves) of the
   others, a packed exchange (qboxpacked.c) made from the box decomposition on first use */
static PetscErrorCode DMQBoxGetGhostExchange(DM dm, DMQBoxPacked **gx)
{
  DM_QBox *q = (DM_QBox *)dm->data;

  PetscFunctionBegin;
  if (!q->ghostx.sf) {
    DMQBoxColumns c;
    DMQBoxPeers   send = {0}, recv = {0};
    PetscMPIInt   rank;

    PetscCall(PetscLogEventBegin(VPATCH_GhostSetUp, dm, 0, 0, 0));
    PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)dm), &rank));
    PetscCall(DMQBoxColumnsCreate_Private(dm, &c));
    PetscCall(QBoxBoxLists(&c, 0, q->active, &c, 2, q->active, rank, PETSC_TRUE, &send, &recv, &q->ghostx));
    PetscCall(DMQBoxColumnsDestroy_Private(&c));
    PetscCall(QBoxCheckReceived(&recv, (PetscInt)(q->grid.gxm[0] * q->grid.gxm[1] * q->grid.gxm[2] - q->grid.xm[0] * q->grid.xm[1] * q->grid.xm[2]), "ghost exchange"));
    PetscCall(DMQBoxPackedSetUp_Private(dm, "ghost exchange", &send, &recv, &q->ghostx));
    PetscCall(DMQBoxPeersDestroy_Private(&send));
    PetscCall(DMQBoxPeersDestroy_Private(&recv));
    PetscCall(PetscLogEventEnd(VPATCH_GhostSetUp, dm, 0, 0, 0));
  }
  *gx = &q->ghostx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The move between two partitions of one grid (a level and the same level on a gathered coarse level's processes,
   src/mat/impls/transfer/transfer.c): a packed exchange from the owned nodes of from (the senders' arrays) to the
   owned nodes of to (the receivers'), each node exactly once. Made from both DMs' process columns in O(owned nodes). */
PetscErrorCode DMQBoxCreateMove_Private(DM from, DM to, DMQBoxPacked *mv)
{
  DMQBoxColumns cf, ct;
  DMQBoxPeers   send = {0}, recv = {0};
  PetscMPIInt   rank;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(VPATCH_MoveSetUp, to, 0, 0, 0));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)to), &rank));
  PetscCall(DMQBoxColumnsCreate_Private(from, &cf));
  PetscCall(DMQBoxColumnsCreate_Private(to, &ct));
  PetscCall(QBoxBoxLists(&cf, 0, ((DM_QBox *)from->data)->active, &ct, 0, ((DM_QBox *)to->data)->active, rank, PETSC_FALSE, &send, &recv, mv));
  PetscCall(DMQBoxColumnsDestroy_Private(&cf));
  PetscCall(DMQBoxColumnsDestroy_Private(&ct));
  PetscCall(QBoxCheckReceived(&recv, (PetscInt)(((DM_QBox *)to->data)->grid.xm[0] * ((DM_QBox *)to->data)->grid.xm[1] * ((DM_QBox *)to->data)->grid.xm[2]), "move between partitions"));
  PetscCall(DMQBoxPackedSetUp_Private(to, "move between partitions", &send, &recv, mv));
  PetscCall(DMQBoxPeersDestroy_Private(&send));
  PetscCall(DMQBoxPeersDestroy_Private(&recv));
  PetscCall(PetscLogEventEnd(VPATCH_MoveSetUp, to, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMQBoxDestroyExchange_Private(DM dm)
{
  DM_QBox *q = (DM_QBox *)dm->data;

  PetscFunctionBegin;
  PetscCall(DMQBoxPackedDestroy_Private(&q->ghostx));
  PetscCall(DMQBoxColorExchangeDestroy_Private(dm));
  if (q->chunk != MPI_DATATYPE_NULL) PetscCallMPI(MPI_Type_free(&q->chunk));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* how an exchange is done: on one rank by the vectors themselves (every INSERT and ADD mode), on several by the
   box's star forest (G2L INSERT_VALUES; L2G INSERT_VALUES and ADD_VALUES), else by the inner DMDA */
typedef enum {
  QBOX_EXCHANGE_SELF,
  QBOX_EXCHANGE_SF,
  QBOX_EXCHANGE_DA
} QBoxExchange;

static PetscErrorCode DMQBoxExchangeKind(DM dm, InsertMode mode, PetscBool toLocal, QBoxExchange *kind)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
  if (size == 1 && ((DM_QBox *)dm->data)->samelayout && (mode == INSERT_VALUES || mode == INSERT_ALL_VALUES || mode == ADD_VALUES || mode == ADD_ALL_VALUES))
    *kind = QBOX_EXCHANGE_SELF;
  else if (mode == INSERT_VALUES || (!toLocal && mode == ADD_VALUES))
    *kind = QBOX_EXCHANGE_SF;
  else
    *kind = QBOX_EXCHANGE_DA;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* to <- from (mode) on one rank */
static PetscErrorCode DMQBoxExchangeSelf(InsertMode mode, Vec from, Vec to)
{
  PetscFunctionBegin;
  if (mode == INSERT_VALUES || mode == INSERT_ALL_VALUES) {
    if (from != to) PetscCall(VecCopy(from, to));
  } else
    PetscCall(VecAXPY(to, 1.0, from));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void QBoxOwnedCopy_CPU(const VPGrid *g, VPOwnedCopyMode mode, PetscScalar *glob, PetscScalar *loc)
{
  PetscInt i = 0;
  for (PetscInt pz = 0; pz < g->xm[2]; pz++)
    for (PetscInt py = 0; py < g->xm[1]; py++) {
      PetscScalar *l = loc + ((pz + g->xs[2] - g->gxs[2]) * g->gxm[1] + (py + g->xs[1] - g->gxs[1])) * g->gxm[0] + (g->xs[0] - g->gxs[0]);
      for (PetscInt px = 0; px < g->xm[0]; px++, i++) {
        if (mode == VP_OWNED_TO_LOCAL)
          l[px] = glob[i];
        else if (mode == VP_OWNED_FROM_LOCAL)
          glob[i] = l[px];
        else
          glob[i] += l[px];
      }
    }
}

/* a vector's array with the access asked (0 read, 1 write, 2 read-write), where it is (host: on the host in any case),
   and how to give it back */
typedef struct {
  Vec          v;
  PetscScalar *a;
  PetscMemType mt;
  int          access;
  PetscBool    host;
} QBoxArray;

static PetscErrorCode QBoxArrayGet(Vec v, int access, PetscBool host, QBoxArray *x)
{
  PetscFunctionBegin;
  x->v      = v;
  x->access = access;
  x->host   = host;
  x->mt     = PETSC_MEMTYPE_HOST;
  if (host) {
    if (access == 0)
      PetscCall(VecGetArrayRead(v, (const PetscScalar **)&x->a));
    else if (access == 1)
      PetscCall(VecGetArrayWrite(v, &x->a));
    else
      PetscCall(VecGetArray(v, &x->a));
  } else {
    if (access == 0)
      PetscCall(VecGetArrayReadAndMemType(v, (const PetscScalar **)&x->a, &x->mt));
    else if (access == 1)
      PetscCall(VecGetArrayWriteAndMemType(v, &x->a, &x->mt));
    else
      PetscCall(VecGetArrayAndMemType(v, &x->a, &x->mt));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode QBoxArrayRestore(QBoxArray *x)
{
  PetscFunctionBegin;
  if (x->host) {
    if (x->access == 0)
      PetscCall(VecRestoreArrayRead(x->v, (const PetscScalar **)&x->a));
    else if (x->access == 1)
      PetscCall(VecRestoreArrayWrite(x->v, &x->a));
    else
      PetscCall(VecRestoreArray(x->v, &x->a));
  } else {
    if (x->access == 0)
      PetscCall(VecRestoreArrayReadAndMemType(x->v, (const PetscScalar **)&x->a));
    else if (x->access == 1)
      PetscCall(VecRestoreArrayWriteAndMemType(x->v, &x->a));
    else
      PetscCall(VecRestoreArrayAndMemType(x->v, &x->a));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The exchange by the box's star forest, whole (Begin does it all; End has nothing left to do).
   toLocal: l = g on the owned nodes, ghosts from their owners; else g = l (INSERT) or g += l plus the ghost
   contributions of the other ranks (ADD; with fresh, g = l plus them: g's old values are not read). Device arrays stay
   on the device (PetscSF stages them through the host when MPI is not GPU-aware); a host array with a device one: both
   on the host. */
static PetscErrorCode DMQBoxExchangeSF(DM dm, PetscBool toLocal, InsertMode mode, PetscBool fresh, Vec g, Vec l)
{
  const VPGrid   *grid = &((DM_QBox *)dm->data)->grid;
  DMQBoxPacked   *gx;
  QBoxArray       G, L;
  int             gacc = toLocal ? 0 : (mode == ADD_VALUES && !fresh ? 2 : 1), lacc = toLocal ? 1 : 0;
  VPOwnedCopyMode cm = toLocal ? VP_OWNED_TO_LOCAL : (mode == ADD_VALUES && !fresh ? VP_OWNED_ADD_LOCAL : VP_OWNED_FROM_LOCAL);

  PetscFunctionBegin;
  PetscCall(DMQBoxGetGhostExchange(dm, &gx));
  PetscCall(QBoxArrayGet(g, gacc, PETSC_FALSE, &G));
  PetscCall(QBoxArrayGet(l, lacc, PETSC_FALSE, &L));
  if (PetscMemTypeDevice(G.mt) != PetscMemTypeDevice(L.mt)) {
    PetscCall(QBoxArrayRestore(&G));
    PetscCall(QBoxArrayRestore(&L));
    PetscCall(QBoxArrayGet(g, gacc, PETSC_TRUE, &G));
    PetscCall(QBoxArrayGet(l, lacc, PETSC_TRUE, &L));
  }
#if defined(PETSC_HAVE_CUDA)
  if (PetscMemTypeDevice(G.mt))
    PetscCall(VPOwnedCopy_CUDA(grid, cm, G.a, L.a));
  else
#endif
    QBoxOwnedCopy_CPU(grid, cm, G.a, L.a);
  if (toLocal)
    PetscCall(DMQBoxPackedForward_Private(dm, gx, G.mt, G.a, L.a, INSERT_VALUES));
  else if (mode == ADD_VALUES)
    PetscCall(DMQBoxPackedReverse_Private(dm, gx, G.mt, L.a, G.a, ADD_VALUES));
  PetscCall(QBoxArrayRestore(&G));
  PetscCall(QBoxArrayRestore(&L));
  if (!toLocal && mode == ADD_VALUES) PetscCall(PetscLogFlops((PetscLogDouble)grid->xm[0] * grid->xm[1] * grid->xm[2]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMGlobalToLocalBegin_QBox(DM dm, Vec g, InsertMode mode, Vec l)
{
  QBoxExchange kind;
  DM           da;

  PetscFunctionBegin;
  PetscCall(DMQBoxExchangeKind(dm, mode, PETSC_TRUE, &kind));
  if (kind == QBOX_EXCHANGE_SELF)
    PetscCall(DMQBoxExchangeSelf(mode, g, l));
  else if (kind == QBOX_EXCHANGE_SF)
    PetscCall(DMQBoxExchangeSF(dm, PETSC_TRUE, mode, PETSC_FALSE, g, l));
  else {
    PetscCall(DMQBoxGetNodeDA_Private(dm, &da));
    PetscCall(DMGlobalToLocalBegin(da, g, mode, l));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMGlobalToLocalEnd_QBox(DM dm, Vec g, InsertMode mode, Vec l)
{
  QBoxExchange kind;

  PetscFunctionBegin;
  PetscCall(DMQBoxExchangeKind(dm, mode, PETSC_TRUE, &kind));
  if (kind == QBOX_EXCHANGE_DA) PetscCall(DMGlobalToLocalEnd(((DM_QBox *)dm->data)->da, g, mode, l));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMLocalToGlobalBegin_QBox(DM dm, Vec l, InsertMode mode, Vec g)
{
  QBoxExchange kind;
  DM           da;

  PetscFunctionBegin;
  PetscCall(DMQBoxExchangeKind(dm, mode, PETSC_FALSE, &kind));
  if (kind == QBOX_EXCHANGE_SELF)
    PetscCall(DMQBoxExchangeSelf(mode, l, g));
  else if (kind == QBOX_EXCHANGE_SF)
    PetscCall(DMQBoxExchangeSF(dm, PETSC_FALSE, mode, PETSC_FALSE, g, l));
  else {
    PetscCall(DMQBoxGetNodeDA_Private(dm, &da));
    PetscCall(DMLocalToGlobalBegin(da, l, mode, g));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMLocalToGlobalEnd_QBox(DM dm, Vec l, InsertMode mode, Vec g)
{
  QBoxExchange kind;

  PetscFunctionBegin;
  PetscCall(DMQBoxExchangeKind(dm, mode, PETSC_FALSE, &kind));
  if (kind == QBOX_EXCHANGE_DA) PetscCall(DMLocalToGlobalEnd(((DM_QBox *)dm->data)->da, l, mode, g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* g = the sum of the ranks' local contributions l: what VecSet(g, 0) and DMLocalToGlobal(l, ADD_VALUES, g) give, with
   two passes over g less where the box's star forest does the exchange (the owned part is copied, not added to zeros) */
PetscErrorCode DMQBoxLocalToGlobalSum_Private(DM dm, Vec l, Vec g)
{
  QBoxExchange kind;

  PetscFunctionBegin;
  PetscCall(DMQBoxExchangeKind(dm, ADD_VALUES, PETSC_FALSE, &kind));
  if (kind == QBOX_EXCHANGE_SF)
    PetscCall(DMQBoxExchangeSF(dm, PETSC_FALSE, ADD_VALUES, PETSC_TRUE, g, l));
  else {
    PetscCall(VecSet(g, 0.0));
    PetscCall(DMLocalToGlobal(dm, l, ADD_VALUES, g));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the array access of a mode: 0 read, 1 write, 2 read-write */
static int QBoxGhostedAccess(DMQBoxGhostedMode mode)
{
  return mode == DMQBOX_GHOSTED_IN ? 0 : mode == DMQBOX_GHOSTED_OUT_SUM ? 1 : 2;
}

static PetscErrorCode QBoxGhostedZero(PetscMemType mt, PetscScalar *a, size_t n)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  if (PetscMemTypeDevice(mt)) {
    PetscCall(VPZero_CUDA(a, n));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  PetscCall(PetscArrayzero(a, n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the ghosts of a vector's own buffer from their owners */
static PetscErrorCode QBoxGhostedFill(DM dm, DMQBoxGhosted *x)
{
  DMQBoxPacked *gx;

  PetscFunctionBegin;
  PetscCall(DMQBoxGetGhostExchange(dm, &gx));
  PetscCall(DMQBoxPackedForward_Private(dm, gx, x->mt, x->ga, x->a, INSERT_VALUES));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  DMQBoxGhostedGet_Private - the ghosted array of the global vector g of dm for a kernel (see DMQBoxGhostedMode).
  With a ghosted global vector (DMQBoxCreateGhostedVector(); its array not replaced), the vector's own buffer:
  in and in-out fill its ghosts from their owners, out-sum zeroes it, out-add zeroes its ghosts. Else (or with pool) a
  local vector of the DM's pool, filled by DMGlobalToLocal() (in, in-out) or zeroed (out). Collective where an exchange
  is.
*/
PetscErrorCode DMQBoxGhostedGet_Private(DM dm, Vec g, DMQBoxGhostedMode mode, PetscBool pool, DMQBoxGhosted *x)
{
  DM_QBox  *q      = (DM_QBox *)dm->data;
  QBoxPad  *p      = NULL;
  const int access = QBoxGhostedAccess(mode);
  size_t    off, n;

  PetscFunctionBegin;
  x->g = g;
  x->l = NULL;
  x->a = x->ga = NULL;
  x->mode      = mode;
  x->mt        = PETSC_MEMTYPE_HOST;
  QBoxPadLayout(&q->grid, q->dim, &off, &n);
  if (!pool) PetscCall(PetscObjectContainerQuery((PetscObject)g, "DMQBoxGhosted", (void **)&p));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(QBoxPadEnsure(dm, g, p));
#endif
  if (p && p->base && p->off == off && p->n == n) {
    QBoxArray G;

    PetscCall(QBoxArrayGet(g, access, PETSC_FALSE, &G));
    if (G.a == p->base + p->off && (PetscBool)PetscMemTypeDevice(G.mt) == p->device) {
      x->ga = G.a;
      x->a  = p->base;
      x->mt = G.mt;
      if (mode == DMQBOX_GHOSTED_IN || mode == DMQBOX_GHOSTED_INOUT)
        PetscCall(QBoxGhostedFill(dm, x));
      else if (mode == DMQBOX_GHOSTED_OUT_SUM)
        PetscCall(QBoxGhostedZero(x->mt, x->a, n));
      else {
        size_t own = (size_t)q->grid.xm[0] * q->grid.xm[1] * q->grid.xm[2];
        PetscCall(QBoxGhostedZero(x->mt, x->a, off));
        PetscCall(QBoxGhostedZero(x->mt, x->a + off + own, n - off - own));
      }
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(QBoxArrayRestore(&G)); /* its array was replaced (VecPlaceArray()): the pool */
  }
  PetscCall(DMGetLocalVector(dm, &x->l));
  if (mode == DMQBOX_GHOSTED_IN || mode == DMQBOX_GHOSTED_INOUT)
    PetscCall(DMGlobalToLocal(dm, g, INSERT_VALUES, x->l));
  else
    PetscCall(VecSet(x->l, 0.0));
  {
    QBoxArray L;
    PetscCall(QBoxArrayGet(x->l, access ? 2 : 0, PETSC_FALSE, &L));
    x->a  = L.a;
    x->mt = L.mt;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* gives back what DMQBoxGhostedGet_Private() got, and moves the result into the global vector (in-out, out-sum, out-add) */
PetscErrorCode DMQBoxGhostedRestore_Private(DM dm, DMQBoxGhosted *x)
{
  QBoxArray A;

  PetscFunctionBegin;
  A.v      = x->l ? x->l : x->g;
  A.a      = x->l ? x->a : x->ga;
  A.mt     = x->mt;
  A.access = x->l ? (QBoxGhostedAccess(x->mode) ? 2 : 0) : QBoxGhostedAccess(x->mode);
  A.host   = PETSC_FALSE;
  if (!x->l) {
    if (x->mode == DMQBOX_GHOSTED_OUT_SUM || x->mode == DMQBOX_GHOSTED_OUT_ADD) { /* the other ranks' contributions to the owned nodes */
      DMQBoxPacked *gx;
      PetscCall(DMQBoxGetGhostExchange(dm, &gx));
      PetscCall(DMQBoxPackedReverse_Private(dm, gx, x->mt, x->a, x->ga, ADD_VALUES));
    }
    PetscCall(QBoxArrayRestore(&A));
  } else {
    PetscCall(QBoxArrayRestore(&A));
    if (x->mode == DMQBOX_GHOSTED_INOUT)
      PetscCall(DMLocalToGlobal(dm, x->l, INSERT_VALUES, x->g));
    else if (x->mode == DMQBOX_GHOSTED_OUT_SUM)
      PetscCall(DMQBoxLocalToGlobalSum_Private(dm, x->l, x->g));
    else if (x->mode == DMQBOX_GHOSTED_OUT_ADD)
      PetscCall(DMLocalToGlobal(dm, x->l, ADD_VALUES, x->g));
    PetscCall(DMRestoreLocalVector(dm, &x->l));
  }
  x->a = x->ga = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* in-out: every ghost takes its owner's current value (the owned values are kept) */
PetscErrorCode DMQBoxGhostedUpdate_Private(DM dm, DMQBoxGhosted *x)
{
  PetscFunctionBegin;
  PetscCheck(x->mode == DMQBOX_GHOSTED_INOUT, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMQBoxGhostedUpdate_Private() is for in-out arrays");
  if (!x->l)
    PetscCall(QBoxGhostedFill(dm, x));
  else {
    QBoxArray L = {x->l, x->a, x->mt, 2, PETSC_FALSE};
    PetscCall(QBoxArrayRestore(&L));
    PetscCall(DMLocalToGlobal(dm, x->l, INSERT_VALUES, x->g));
    PetscCall(DMGlobalToLocal(dm, x->g, INSERT_VALUES, x->l));
    PetscCall(QBoxArrayGet(x->l, 2, PETSC_FALSE, &L));
    x->a  = L.a;
    x->mt = L.mt;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a level on one process of several (gathered, DMCoarsen()): its local box is its owned box, numbered from 0 */
static PetscBool DMQBoxGatheredOnOne(DM dm)
{
  DM_QBox    *q    = (DM_QBox *)dm->data;
  PetscMPIInt size = 1;

  (void)MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size);
  return (PetscBool)(size > 1 && q->procs[0] * q->procs[1] * q->procs[2] == 1);
}

PetscErrorCode DMGetLocalToGlobalMapping_QBox(DM dm)
{
  ISLocalToGlobalMapping ltog;
  DM                     da;

  PetscFunctionBegin;
  if (DMQBoxGatheredOnOne(dm)) { /* local index = global index on rank 0, nothing elsewhere */
    const VPGrid *g = &((DM_QBox *)dm->data)->grid;
    PetscInt      n = g->gxm[0] * g->gxm[1] * g->gxm[2], *idx;
    PetscCall(PetscMalloc1(n, &idx));
    for (PetscInt i = 0; i < n; i++) idx[i] = i;
    PetscCall(ISLocalToGlobalMappingCreate(PETSC_COMM_SELF, 1, n, idx, PETSC_OWN_POINTER, &ltog));
  } else {
    PetscCall(DMQBoxGetNodeDA_Private(dm, &da));
    PetscCall(DMGetLocalToGlobalMapping(da, &ltog));
    PetscCall(PetscObjectReference((PetscObject)ltog));
  }
  PetscCall(ISLocalToGlobalMappingDestroy(&dm->ltogmap));
  dm->ltogmap = ltog;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A copy of g in natural (lexicographic over the whole box) order, on the host */
static PetscErrorCode DMQBoxCreateNaturalVector(DM dm, Vec g, Vec *nat)
{
  DM da;

  PetscFunctionBegin;
  if (((DM_QBox *)dm->data)->dg || DMQBoxGatheredOnOne(dm)) { /* one rank: the global order is the lexicographic one of the nodes */
    PetscInt    n;
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
    PetscCheck(size == 1 || DMQBoxGatheredOnOne(dm), PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "VecView() of a discontinuous DMQBOX vector in natural order runs on one MPI rank so far: view it with VecGetArray() per rank");
    PetscCall(VecGetLocalSize(g, &n));
    PetscCall(VecCreate(PetscObjectComm((PetscObject)g), nat));
    PetscCall(VecSetSizes(*nat, n, PETSC_DETERMINE));
    PetscCall(VecSetType(*nat, VECSTANDARD));
    PetscCall(VecCopy(g, *nat));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(DMQBoxGetNodeDA_Private(dm, &da));
  PetscCall(DMDACreateNaturalVector(da, nat));
  PetscCall(DMDAGlobalToNaturalBegin(da, g, INSERT_VALUES, *nat));
  PetscCall(DMDAGlobalToNaturalEnd(da, g, INSERT_VALUES, *nat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  DMQBoxVecViewVTK - Writes a `DMQBOX` vector as a legacy VTK rectilinear grid (ParaView opens it)

  Collective

  Input Parameters:
+ dm       - the `DMQBOX`
. v        - a global vector of dm
- filename - the file to write (".vtk")

  Level: beginner

  Note:
  The Q_k nodes form a tensor-product grid, so the file holds every node as a point of a
  rectilinear grid: each cell appears as k^d linear sub-cells. `VecView()` with a
  `PETSCVIEWERVTK` whose file ends in ".vtk" (e.g. `-vec_view vtk:u.vtk`) calls this function.

.seealso: `DMQBOX`, `VecView()`
@*/
PetscErrorCode DMQBoxVecViewVTK(DM dm, Vec v, const char filename[])
{
  DM_QBox    *q;
  Vec         nat, seq;
  VecScatter  sc;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCall(DMQBoxCheck_Private(dm, "DMQBoxVecViewVTK"));
  q = (DM_QBox *)dm->data;
  PetscCall(DMQBoxCreateNaturalVector(dm, v, &nat));
  PetscCall(VecScatterCreateToZero(nat, &sc, &seq));
  PetscCall(VecScatterBegin(sc, nat, seq, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sc, nat, seq, INSERT_VALUES, SCATTER_FORWARD));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)dm), &rank));
  if (rank == 0) {
    FILE              *fp;
    const PetscScalar *a;
    const char        *name, *axis[3] = {"X", "Y", "Z"};
    PetscInt           nn[3] = {1, 1, 1}, ntot;

    for (PetscInt d = 0; d < q->dim; d++) nn[d] = q->cells[d] * q->degree + 1;
    ntot = nn[0] * nn[1] * nn[2];
    PetscCall(PetscObjectGetName((PetscObject)v, &name));
    PetscCall(PetscFOpen(PETSC_COMM_SELF, filename, "w", &fp));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "# vtk DataFile Version 3.0\npetsc-vpatch DMQBOX Q_%" PetscInt_FMT " field %s\nASCII\nDATASET %s\n", q->degree, name, q->map ? "STRUCTURED_GRID" : "RECTILINEAR_GRID"));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "DIMENSIONS %" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT "\n", nn[0], nn[1], nn[2]));
    if (q->map) { /* a mapped box: every node's physical point */
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "POINTS %" PetscInt_FMT " double\n", ntot));
      for (PetscInt pz = 0; pz < nn[2]; pz++)
        for (PetscInt py = 0; py < nn[1]; py++)
          for (PetscInt px = 0; px < nn[0]; px++) {
            PetscReal X[3] = {q->coords1d[0][px], q->coords1d[1][py], q->dim == 3 ? q->coords1d[2][pz] : 0.0}, x[3] = {0, 0, 0};
            PetscCall(DMQBoxMapPoint(dm, X, x));
            PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%.15g %.15g %.15g\n", (double)x[0], (double)x[1], (double)x[2]));
          }
    } else
      for (PetscInt d = 0; d < 3; d++) {
        PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%s_COORDINATES %" PetscInt_FMT " double\n", axis[d], nn[d]));
        for (PetscInt i = 0; i < nn[d]; i++) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%.15g\n", d < q->dim ? (double)q->coords1d[d][i] : 0.0));
      }
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "POINT_DATA %" PetscInt_FMT "\nSCALARS %s double 1\nLOOKUP_TABLE default\n", ntot, name));
    PetscCall(VecGetArrayRead(seq, &a));
    for (PetscInt i = 0; i < ntot; i++) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%.15g\n", (double)PetscRealPart(a[i])));
    PetscCall(VecRestoreArrayRead(seq, &a));
    PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
  }
  PetscCall(VecScatterDestroy(&sc));
  PetscCall(VecDestroy(&seq));
  PetscCall(VecDestroy(&nat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecView_QBox(Vec v, PetscViewer viewer)
{
  DM        dm;
  PetscBool isvtk;

  PetscFunctionBegin;
  PetscCall(VecGetDM(v, &dm));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERVTK, &isvtk));
  if (isvtk) {
    const char *filename;
    PetscBool   legacy;

    PetscCall(PetscViewerFileGetName(viewer, &filename));
    PetscCall(PetscStrendswith(filename, ".vtk", &legacy));
    PetscCheck(legacy, PetscObjectComm((PetscObject)v), PETSC_ERR_SUP, "DMQBOX writes legacy VTK files: name the file with the extension .vtk, not %s", filename);
    PetscCall(DMQBoxVecViewVTK(dm, v, filename));
  } else {
    Vec         nat;
    const char *name;

    PetscCall(DMQBoxCreateNaturalVector(dm, v, &nat));
    if (((PetscObject)v)->name) { /* a name given by the user (none made up from the address) */
      PetscCall(PetscObjectGetName((PetscObject)v, &name));
      PetscCall(PetscObjectSetName((PetscObject)nat, name));
    }
    PetscCall(VecView(nat, viewer));
    PetscCall(VecDestroy(&nat));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
