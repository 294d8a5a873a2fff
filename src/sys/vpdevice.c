/*
  Device memory for small host-made arrays (1D matrices, geometric factors, surrogate factors): copy, allocate, read
  back, free. In a build without CUDA, copy and allocate are errors and free is a no-op, so that host code calls them
  unconditionally.
*/
#include <petscvpatch/private/vpatchimpl.h>
#if defined(PETSC_HAVE_CUDA)
#include <petscdevice_cuda.h>
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
