/*
  DMQBOX vectors: global vectors (owned nodes, lexicographic within the owned box), local vectors
  (ghosted box, ghost width k), and their exchange: on one rank a copy, else by the inner node-level DMDA.
  VecView in natural (rank-independent) order, and legacy VTK output of a solution.
*/
#include <petscvpatch/private/qboximpl.h>
#include <petscdmda.h>
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
  PetscCallCUDA(cudaMalloc((void **)d, n * sizeof(PetscReal)));
  PetscCallCUDA(cudaMemcpy(*d, h, n * sizeof(PetscReal), cudaMemcpyHostToDevice));
#else
  (void)h;
  (void)n;
  *d = NULL;
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

/* Global vectors carry no local-to-global mapping (that would make the inner DMDA, see qbox.c): for
   VecSetValuesLocal(), set the one of DMGetLocalToGlobalMapping() on the vector */
PetscErrorCode DMCreateGlobalVector_QBox(DM dm, Vec *v)
{
  DM_QBox *q = (DM_QBox *)dm->data;
  PetscInt n = q->grid.xm[0] * q->grid.xm[1] * q->grid.xm[2];

  PetscFunctionBegin;
  PetscCall(DMQBoxCheckVecType_Private(dm));
  PetscCall(VecCreate(PetscObjectComm((PetscObject)dm), v));
  PetscCall(VecSetSizes(*v, n, PETSC_DETERMINE));
  PetscCall(VecSetBlockSize(*v, 1));
  PetscCall(VecSetType(*v, dm->vectype));
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
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether the exchange in this mode is done without the inner DMDA: on one rank the local box is the owned box, so
   the exchange is a copy (INSERT) or a sum (ADD) on the vectors' own memory, device included; other modes go to
   the DMDA, which says what it supports */
static PetscErrorCode DMQBoxExchangeIsSelf(DM dm, InsertMode mode, PetscBool *self)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
  *self = (PetscBool)(size == 1 && ((DM_QBox *)dm->data)->samelayout);
  if (*self) *self = (PetscBool)(mode == INSERT_VALUES || mode == INSERT_ALL_VALUES || mode == ADD_VALUES || mode == ADD_ALL_VALUES);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* to <- from (mode) on one rank; see DMQBoxExchangeIsSelf() */
static PetscErrorCode DMQBoxExchangeSelf(InsertMode mode, Vec from, Vec to)
{
  PetscFunctionBegin;
  if (mode == INSERT_VALUES || mode == INSERT_ALL_VALUES) {
    if (from != to) PetscCall(VecCopy(from, to));
  } else
    PetscCall(VecAXPY(to, 1.0, from));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMGlobalToLocalBegin_QBox(DM dm, Vec g, InsertMode mode, Vec l)
{
  PetscBool self;
  DM        da;

  PetscFunctionBegin;
  PetscCall(DMQBoxExchangeIsSelf(dm, mode, &self));
  if (self)
    PetscCall(DMQBoxExchangeSelf(mode, g, l));
  else {
    PetscCall(DMQBoxGetNodeDA_Private(dm, &da));
    PetscCall(DMGlobalToLocalBegin(da, g, mode, l));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMGlobalToLocalEnd_QBox(DM dm, Vec g, InsertMode mode, Vec l)
{
  PetscBool self;

  PetscFunctionBegin;
  PetscCall(DMQBoxExchangeIsSelf(dm, mode, &self));
  if (!self) PetscCall(DMGlobalToLocalEnd(((DM_QBox *)dm->data)->da, g, mode, l));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMLocalToGlobalBegin_QBox(DM dm, Vec l, InsertMode mode, Vec g)
{
  PetscBool self;
  DM        da;

  PetscFunctionBegin;
  PetscCall(DMQBoxExchangeIsSelf(dm, mode, &self));
  if (self)
    PetscCall(DMQBoxExchangeSelf(mode, l, g));
  else {
    PetscCall(DMQBoxGetNodeDA_Private(dm, &da));
    PetscCall(DMLocalToGlobalBegin(da, l, mode, g));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMLocalToGlobalEnd_QBox(DM dm, Vec l, InsertMode mode, Vec g)
{
  PetscBool self;

  PetscFunctionBegin;
  PetscCall(DMQBoxExchangeIsSelf(dm, mode, &self));
  if (!self) PetscCall(DMLocalToGlobalEnd(((DM_QBox *)dm->data)->da, l, mode, g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DMGetLocalToGlobalMapping_QBox(DM dm)
{
  ISLocalToGlobalMapping ltog;
  DM                     da;

  PetscFunctionBegin;
  PetscCall(DMQBoxGetNodeDA_Private(dm, &da));
  PetscCall(DMGetLocalToGlobalMapping(da, &ltog));
  PetscCall(PetscObjectReference((PetscObject)ltog));
  PetscCall(ISLocalToGlobalMappingDestroy(&dm->ltogmap));
  dm->ltogmap = ltog;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A copy of g in natural (lexicographic over the whole box) order, on the host */
static PetscErrorCode DMQBoxCreateNaturalVector(DM dm, Vec g, Vec *nat)
{
  DM da;

  PetscFunctionBegin;
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
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "# vtk DataFile Version 3.0\npetsc-vpatch DMQBOX Q_%" PetscInt_FMT " field %s\nASCII\nDATASET RECTILINEAR_GRID\n", q->degree, name));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "DIMENSIONS %" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT "\n", nn[0], nn[1], nn[2]));
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
    PetscCall(PetscObjectGetName((PetscObject)v, &name));
    PetscCall(PetscObjectSetName((PetscObject)nat, name));
    PetscCall(VecView(nat, viewer));
    PetscCall(VecDestroy(&nat));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
