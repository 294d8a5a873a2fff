/*
  Ghosted global vectors and the ghosted array of a global vector that a kernel works on (DMQBoxGhostedGet_Private()).
*/
#include <petscvpatch/private/qboximpl.h>
#if defined(PETSC_HAVE_CUDA)
#include <petscdevice_cuda.h>
#include <petsc/private/vecimpl.h>
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
   (bench/history/). */
typedef struct {
  PetscScalar     *base;   /* the buffer: the ghosted local box */
  size_t           off, n; /* where the vector's owned values start, and the buffer's length */
  PetscBool        device;
  PetscBool        filled; /* the ghosts hold their owners' values of the vector's object state fillstate: any write
                              access since (a kernel's restore, a PETSc operation) changed the state */
  PetscObjectState fillstate;
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

PetscErrorCode DMQBoxCreateGhostedVector_Private(DM dm, Vec *v)
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
PetscErrorCode DMQBoxPadAdoptOnWrite_Private(Vec v, PetscBool *adopted)
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

/* the array access of a mode: 0 read, 1 write, 2 read-write */
static int QBoxGhostedAccess(DMQBoxGhostedMode mode)
{
  return mode == DMQBOX_GHOSTED_IN ? 0 : mode == DMQBOX_GHOSTED_OUT_SUM || mode == DMQBOX_GHOSTED_OUT_OWNED ? 1 : 2;
}

/* in-out modes: at restore the owned part is the vector's */
static PetscBool QBoxGhostedInOut(DMQBoxGhostedMode mode)
{
  return (PetscBool)(mode == DMQBOX_GHOSTED_INOUT || mode == DMQBOX_GHOSTED_INOUT_ZERO);
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
  PetscCall(DMQBoxGetGhostExchange_Private(dm, &gx));
  PetscCall(DMQBoxPackedForward_Private(dm, gx, x->mt, x->ga, x->a, INSERT_VALUES));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  DMQBoxGhostedGet_Private - the ghosted array of the global vector g of dm for a kernel (see DMQBoxGhostedMode).
  With a ghosted global vector (DMQBoxCreateGhostedVector(); its array not replaced), the vector's own buffer:
  in and in-out fill its ghosts from their owners (not again while the vector's state is that of the last fill: a
  PCMG level's right-hand side for its post-smoothing), out-sum and out-owned zero it, out-add and in-out-zero zero its
  ghosts, add-owned leaves it as it is. Else (or with pool) a local vector of the DM's pool, filled by
  DMGlobalToLocal() (in, in-out) or zeroed. Collective where an exchange is. The skip relies on the state being the
  same on every rank, as PETSc's cached norms do (VecNorm() skips its reduction by the state): VecGetArray() and the
  other write accesses are logically collective.
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
    DMQBoxArray G;

    PetscCall(DMQBoxArrayGet_Private(g, access, PETSC_FALSE, &G));
    if (G.a == p->base + p->off && (PetscBool)PetscMemTypeDevice(G.mt) == p->device) {
      x->ga = G.a;
      x->a  = p->base;
      x->mt = G.mt;
      if (mode == DMQBOX_GHOSTED_IN || mode == DMQBOX_GHOSTED_INOUT) {
        PetscObjectState state;

        PetscCall(PetscObjectStateGet((PetscObject)g, &state));
        if (!p->filled || p->fillstate != state) PetscCall(QBoxGhostedFill(dm, x));
        p->filled    = PETSC_TRUE; /* until the next write access changes the state */
        p->fillstate = state;
        PetscFunctionReturn(PETSC_SUCCESS);
      }
      p->filled = PETSC_FALSE;
      if (mode == DMQBOX_GHOSTED_ADD_OWNED) PetscFunctionReturn(PETSC_SUCCESS); /* the owned values as they are; the ghosts not read */
      if (mode == DMQBOX_GHOSTED_OUT_SUM || mode == DMQBOX_GHOSTED_OUT_OWNED)
        PetscCall(QBoxGhostedZero(x->mt, x->a, n));
      else { /* out-add, in-out-zero: the ghosts zeroed */
        size_t own = (size_t)q->grid.xm[0] * q->grid.xm[1] * q->grid.xm[2];
        PetscCall(QBoxGhostedZero(x->mt, x->a, off));
        PetscCall(QBoxGhostedZero(x->mt, x->a + off + own, n - off - own));
      }
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(DMQBoxArrayRestore_Private(&G)); /* its array was replaced (VecPlaceArray()): the pool */
  }
  PetscCall(DMGetLocalVector(dm, &x->l));
  if (mode == DMQBOX_GHOSTED_IN || mode == DMQBOX_GHOSTED_INOUT)
    PetscCall(DMGlobalToLocal(dm, g, INSERT_VALUES, x->l));
  else
    PetscCall(VecSet(x->l, 0.0));
  {
    DMQBoxArray L;
    PetscCall(DMQBoxArrayGet_Private(x->l, access ? 2 : 0, PETSC_FALSE, &L));
    x->a  = L.a;
    x->mt = L.mt;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* gives back what DMQBoxGhostedGet_Private() got, and moves the result into the global vector (in-out, out-sum, out-add) */
PetscErrorCode DMQBoxGhostedRestore_Private(DM dm, DMQBoxGhosted *x)
{
  DMQBoxArray A;

  PetscFunctionBegin;
  A.v      = x->l ? x->l : x->g;
  A.a      = x->l ? x->a : x->ga;
  A.mt     = x->mt;
  A.access = x->l ? (QBoxGhostedAccess(x->mode) ? 2 : 0) : QBoxGhostedAccess(x->mode);
  A.host   = PETSC_FALSE;
  if (!x->l) {
    if (x->mode == DMQBOX_GHOSTED_OUT_SUM || x->mode == DMQBOX_GHOSTED_OUT_ADD) { /* the other ranks' contributions to the owned nodes */
      DMQBoxPacked *gx;
      PetscCall(DMQBoxGetGhostExchange_Private(dm, &gx));
      PetscCall(DMQBoxPackedReverse_Private(dm, gx, x->mt, x->a, x->ga, ADD_VALUES));
    }
    PetscCall(DMQBoxArrayRestore_Private(&A));
  } else {
    PetscCall(DMQBoxArrayRestore_Private(&A));
    if (QBoxGhostedInOut(x->mode) || x->mode == DMQBOX_GHOSTED_OUT_OWNED)
      PetscCall(DMLocalToGlobal(dm, x->l, INSERT_VALUES, x->g));
    else if (x->mode == DMQBOX_GHOSTED_OUT_SUM)
      PetscCall(DMQBoxLocalToGlobalSum_Private(dm, x->l, x->g));
    else if (x->mode == DMQBOX_GHOSTED_OUT_ADD || x->mode == DMQBOX_GHOSTED_ADD_OWNED)
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
  PetscCheck(QBoxGhostedInOut(x->mode), PETSC_COMM_SELF, PETSC_ERR_PLIB, "DMQBoxGhostedUpdate_Private() is for in-out arrays");
  if (!x->l)
    PetscCall(QBoxGhostedFill(dm, x));
  else {
    DMQBoxArray L = {x->l, x->a, x->mt, 2, PETSC_FALSE};
    PetscCall(DMQBoxArrayRestore_Private(&L));
    PetscCall(DMLocalToGlobal(dm, x->l, INSERT_VALUES, x->g));
    PetscCall(DMGlobalToLocal(dm, x->g, INSERT_VALUES, x->l));
    PetscCall(DMQBoxArrayGet_Private(x->l, 2, PETSC_FALSE, &L));
    x->a  = L.a;
    x->mt = L.mt;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
