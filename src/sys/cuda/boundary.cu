/* Device helper: the owned Dirichlet rows of a level (identity rows) */
#include <petscvpatch/private/vpcuda.cuh>

/* One thread per node of the owned part of the Dirichlet faces: blockIdx.y = 2 d + side is the face x_d = 0 (side 0) or
   x_d = N_d k (side 1). Nodes on edges are set once per face they lie on, with the same value. */
__global__ void VPOwnedBoundaryKernel(VPGrid g, PetscScalar s, const PetscScalar *__restrict__ b, const PetscScalar *__restrict__ src, PetscScalar *__restrict__ dst, bool local)
{
  const int d = (int)blockIdx.y / 2, side = (int)blockIdx.y % 2;
  if (d >= g.dim) return;
  const int pd = side ? (int)(g.N[d] * g.k) : 0;
  if (pd < g.xs[d] || pd >= g.xs[d] + g.xm[d]) return; /* not owned here */
  const int e1 = d == 0 ? 1 : 0, e2 = d == 2 ? 1 : 2, m1 = (int)g.xm[e1], m2 = g.dim == 3 ? (int)g.xm[e2] : 1;
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < m1 * m2; t += gridDim.x * blockDim.x) {
    int p[3];
    p[d]               = pd;
    p[e1]              = (int)g.xs[e1] + t % m1;
    p[e2]              = (int)g.xs[e2] + t / m1;
    const PetscInt idx = local ? VPDLocalIndex(g, p[0], p[1], p[2]) : ((PetscInt)(p[2] - g.xs[2]) * g.xm[1] + (p[1] - g.xs[1])) * g.xm[0] + (p[0] - g.xs[0]);
    dst[idx]           = b ? b[idx] - s * src[idx] : (src ? s * src[idx] : s);
  }
}

/* dst = b - s src (b given), s src, or s (src NULL) on the owned Dirichlet nodes; local: ghosted local boxes, else owned */
static PetscErrorCode VPOwnedBoundaryLaunch(const VPGrid *g, PetscScalar s, const PetscScalar *b, const PetscScalar *src, PetscScalar *dst, PetscBool local)
{
  PetscInt     n = (PetscInt)g->xm[0] * g->xm[1] * g->xm[2], face = 0;
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(VPGetStream(&stream));
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt d = 0; d < g->dim; d++) face = PetscMax(face, n / g->xm[d]);
  const dim3 grid((unsigned)PetscMin((face + 255) / 256, 4096), (unsigned)(2 * g->dim));
  VPOwnedBoundaryKernel<<<grid, 256, 0, stream>>>(*g, s, b, src, dst, local ? true : false);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dst = s src (or s when src is NULL) on the owned Dirichlet nodes; local: the arrays are ghosted local boxes, else owned */
PetscErrorCode VPOwnedBoundary_CUDA(const VPGrid *g, PetscScalar s, const PetscScalar *src, PetscScalar *dst, PetscBool local)
{
  PetscFunctionBegin;
  PetscCall(VPOwnedBoundaryLaunch(g, s, NULL, src, dst, local));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* r = b - s x on the owned Dirichlet nodes (s times the identity) of a rank whose ghosted box is its owned box */
PetscErrorCode VPOwnedBoundaryResidual_CUDA(const VPGrid *g, PetscScalar s, const PetscScalar *b, const PetscScalar *x, PetscScalar *r)
{
  PetscFunctionBegin;
  PetscCall(VPOwnedBoundaryLaunch(g, s, b, x, r, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
