/*
  Device memory for small host-made arrays (1D matrices, geometric factors, surrogate factors): copy, allocate, read
  back, free; and arrays mapped in chunks (VPChunked), whose memory can be released part by part. In a build without
  CUDA, copy, allocate, reserve and map are errors and free and release are no-ops, so that host code calls them
  unconditionally.
*/
#include <petscvpatch/private/vpatchimpl.h>
#if defined(PETSC_HAVE_CUDA)
#include <petscdevice_cuda.h>
#include <cudaTypedefs.h>

/* The driver's virtual memory management, through the runtime's entry points: the library does not link the driver
   (libcuda), so that it loads on machines without one (the CPU path) */
static struct {
  PFN_cuGetErrorString_v6000               errstr;
  PFN_cuMemGetAllocationGranularity_v10020 gran;
  PFN_cuMemAddressReserve_v10020           reserve;
  PFN_cuMemAddressFree_v10020              addrfree;
  PFN_cuMemCreate_v10020                   create;
  PFN_cuMemRelease_v10020                  release;
  PFN_cuMemMap_v10020                      map;
  PFN_cuMemUnmap_v10020                    unmap;
  PFN_cuMemSetAccess_v10020                access;
} VPCU;

static PetscErrorCode VPCUEntry(const char name[], void **fn)
{
  enum cudaDriverEntryPointQueryResult q;

  PetscFunctionBegin;
  PetscCallCUDA(cudaGetDriverEntryPointByVersion(name, fn, 12000, cudaEnableDefault, &q));
  PetscCheck(q == cudaDriverEntryPointSuccess && *fn, PETSC_COMM_SELF, PETSC_ERR_GPU, "The CUDA driver has no %s (virtual memory management, CUDA 10.2 or later)", name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VPCULoad(void)
{
  PetscFunctionBegin;
  if (VPCU.access) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  PetscCall(VPCUEntry("cuGetErrorString", (void **)&VPCU.errstr));
  PetscCall(VPCUEntry("cuMemGetAllocationGranularity", (void **)&VPCU.gran));
  PetscCall(VPCUEntry("cuMemAddressReserve", (void **)&VPCU.reserve));
  PetscCall(VPCUEntry("cuMemAddressFree", (void **)&VPCU.addrfree));
  PetscCall(VPCUEntry("cuMemCreate", (void **)&VPCU.create));
  PetscCall(VPCUEntry("cuMemRelease", (void **)&VPCU.release));
  PetscCall(VPCUEntry("cuMemMap", (void **)&VPCU.map));
  PetscCall(VPCUEntry("cuMemUnmap", (void **)&VPCU.unmap));
  PetscCall(VPCUEntry("cuMemSetAccess", (void **)&VPCU.access));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VPCheckCU(CUresult r, const char call[])
{
  const char *msg = NULL;

  PetscFunctionBegin;
  if (r == CUDA_SUCCESS) PetscFunctionReturn(PETSC_SUCCESS);
  if (VPCU.errstr) (void)VPCU.errstr(r, &msg);
  PetscCheck(r != CUDA_ERROR_OUT_OF_MEMORY, PETSC_COMM_SELF, PETSC_ERR_MEM, "Out of GPU memory in %s (the geometric factors of a mapped DMQBOX): use fewer cells, more GPUs, or single precision", call);
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA driver call %s failed: %s", call, msg ? msg : "unknown error");
}
#define VPCallCU(x) PetscCall(VPCheckCU((x), #x))

static PetscErrorCode VPChunkedProp(CUmemAllocationProp *prop, int *dev)
{
  PetscFunctionBegin;
  PetscCall(VPCULoad());
  PetscCallCUDA(cudaGetDevice(dev));
  PetscCall(PetscMemzero(prop, sizeof(*prop)));
  prop->type          = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop->location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop->location.id   = *dev;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* the chunk size for an array of `bytes` in about nc chunks: a multiple of the granularity (CUDA builds only) */
PetscErrorCode VPChunkedSize_Private(size_t bytes, PetscInt nc, size_t *chunk)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  CUmemAllocationProp prop;
  int                 dev;
  size_t              gran, c = (bytes + (size_t)nc - 1) / (size_t)nc;
  PetscCall(VPChunkedProp(&prop, &dev));
  VPCallCU(VPCU.gran(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  *chunk = PetscMax((c + gran - 1) / gran, 1) * gran;
#else
  (void)bytes;
  (void)nc;
  *chunk = 0;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "This PETSc has no CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* reserves addresses for `bytes` (at least one chunk) in chunks of `chunk` bytes (VPChunkedSize_Private()), none mapped */
PetscErrorCode VPChunkedReserve_Private(size_t bytes, size_t chunk, VPChunked *a)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(a, sizeof(*a)));
#if defined(PETSC_HAVE_CUDA)
  CUdeviceptr p;
  PetscCall(VPCULoad());
  a->chunk = chunk;
  a->nc    = (PetscInt)PetscMax((bytes + chunk - 1) / chunk, 1);
  a->bytes = (size_t)a->nc * chunk;
  VPCallCU(VPCU.reserve(&p, a->bytes, 0, 0, 0));
  a->ptr = (void *)p;
  PetscCall(PetscCalloc1(a->nc, &a->h));
#else
  (void)bytes;
  (void)chunk;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "This PETSc has no CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* maps physical memory to chunks [first, end), readable and writable by the current device */
PetscErrorCode VPChunkedMap_Private(VPChunked *a, PetscInt first, PetscInt end)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  CUmemAllocationProp prop;
  CUmemAccessDesc     acc;
  int                 dev;
  PetscCall(VPChunkedProp(&prop, &dev));
  PetscCall(PetscMemzero(&acc, sizeof(acc)));
  acc.location = prop.location;
  acc.flags    = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  for (PetscInt i = first; i < end; i++) {
    const CUdeviceptr            p = (CUdeviceptr)a->ptr + (size_t)i * a->chunk;
    CUmemGenericAllocationHandle h;
    PetscCheck(!a->h[i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "chunk %" PetscInt_FMT " is mapped already", i);
    VPCallCU(VPCU.create(&h, a->chunk, &prop, 0));
    a->h[i] = h;
    VPCallCU(VPCU.map(p, a->chunk, 0, h, 0));
    VPCallCU(VPCU.access(p, a->chunk, &acc, 1));
  }
#else
  (void)a;
  (void)first;
  (void)end;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "This PETSc has no CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* releases the physical memory of chunks [first, end) (their addresses stay reserved); the caller has made sure no
   work in flight reads them */
PetscErrorCode VPChunkedRelease_Private(VPChunked *a, PetscInt first, PetscInt end)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  for (PetscInt i = first; i < end; i++) {
    if (!a->h[i]) continue;
    VPCallCU(VPCU.unmap((CUdeviceptr)a->ptr + (size_t)i * a->chunk, a->chunk));
    VPCallCU(VPCU.release((CUmemGenericAllocationHandle)a->h[i]));
    a->h[i] = 0;
  }
#else
  (void)a;
  (void)first;
  (void)end;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* all of it, after the device has finished with it */
PetscErrorCode VPChunkedFree_Private(VPChunked *a)
{
  PetscFunctionBegin;
  if (!a->ptr) PetscFunctionReturn(PETSC_SUCCESS);
#if defined(PETSC_HAVE_CUDA)
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCall(VPChunkedRelease_Private(a, 0, a->nc));
  VPCallCU(VPCU.addrfree((CUdeviceptr)a->ptr, a->bytes));
#endif
  PetscCall(PetscFree(a->h));
  PetscCall(PetscMemzero(a, sizeof(*a)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* n host reals into the device array d (CUDA builds only) */
PetscErrorCode VPDeviceCopyTo_Private(const PetscReal *h, size_t n, PetscReal *d)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  if (n) PetscCallCUDA(cudaMemcpy(d, h, n * sizeof(PetscReal), cudaMemcpyHostToDevice));
#else
  (void)h;
  (void)n;
  (void)d;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "This PETSc has no CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

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
