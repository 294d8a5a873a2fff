/*
  femto's element kernels: the mesh (connectivity, its inverse, the colors) and the calls of the CUDA kernels
  (include/petscvpatch/private/vpfemto.h explains the study; the kernels are in cuda/femto.cu).
*/
#include <petscdevice.h>
#include <petscvpatch/private/vpatchimpl.h>
#include <petscvpatch/private/vpfemto.h>

const char *const VPFemtoAssemblies[] = {"atomic", "colored", "gather", "VPFemtoAssembly", "VP_FEMTO_", NULL};

#if defined(PETSC_HAVE_CUDA)
static PetscErrorCode VPFemtoTablesGet(const VPFemtoMesh *m, VPFemtoTables *t)
{
  const PetscInt N = m->p + 1;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(t, sizeof(*t)));
  t->p = (int)m->p;
  for (PetscInt q = 0; q < N; q++) {
    t->w[q] = m->basis.qwts[q];
    for (PetscInt i = 0; i < N; i++) {
      t->S[q][i] = m->basis.S[q * N + i];
      t->D[q][i] = m->basis.D[q * N + i];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  VPFemtoCopy - Copies bytes between host and device arrays (either way) on PETSc's current stream and waits for it

  Level: developer
@*/
PetscErrorCode VPFemtoCopy(void *dst, const void *src, size_t bytes)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscCall(VPFemtoCopy_CUDA(dst, src, bytes));
#else
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "This PETSc has no CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a host array of n entries of size sz copied to a new device array */
static PetscErrorCode VPFemtoUpload(PetscDeviceContext dctx, const void *h, size_t n, size_t sz, void **d)
{
  PetscFunctionBegin;
  /* in units of 8 bytes: PetscDeviceMalloc() aligns to the pointer's type */
  PetscCall(PetscDeviceMalloc(dctx, PETSC_MEMTYPE_CUDA, (n * sz + 7) / 8, (PetscInt64 **)d));
  PetscCall(VPFemtoCopy(*d, h, n * sz));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/*@C
  VPFemtoMeshCreate - The unit cube of n^3 hexahedra of degree p, its connectivity as an unstructured mesh has it,
  on the host and the GPU, for femto's element kernels

  Input Parameters:
+ n - cells per direction
- p - degree, 1..6

  Output Parameter:
. mesh - the mesh; `VPFemtoMeshDestroy()` frees it

  Level: developer

.seealso: `VPFemtoInterpolate()`, `VPFemtoIntegrate()`
@*/
PetscErrorCode VPFemtoMeshCreate(PetscInt n, PetscInt p, VPFemtoMesh **mesh)
{
#if defined(PETSC_HAVE_CUDA)
  VPFemtoMesh       *m;
  PetscInt           N = p + 1, nn, *cnt;
  PetscDeviceContext dctx;

  PetscFunctionBegin;
  PetscCall(PetscVPatchInitializePackage()); /* as every constructor of the library: its options read (-vpatch_exchange_device) */
  PetscCheck(p >= 1 && p <= VP_FEMTO_MAX_DEGREE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Degree %" PetscInt_FMT " is not in 1..%d", p, VP_FEMTO_MAX_DEGREE);
  PetscCheck(n >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Cells per direction %" PetscInt_FMT " must be positive", n);
  nn = n * p + 1;
  PetscCheck((double)nn * nn * nn < (double)PETSC_INT32_MAX && (double)n * n * n < (double)PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "The femto kernels store 32-bit node and cell numbers: %" PetscInt_FMT "^3 nodes are too many; use fewer cells", nn);
  PetscCall(PetscNew(&m));
  m->p      = p;
  m->n      = n;
  m->ncells = n * n * n;
  m->nnodes = nn * nn * nn;
  m->npe    = N * N * N;
  m->nq     = m->npe;
  PetscCall(VPBasis1DSetUp(p, &m->basis));
  PetscCall(VPFemtoTablesGet(m, &m->tables));
  PetscCall(PetscMalloc1(m->ncells * m->npe, &m->conn));
  PetscCall(PetscMalloc1(m->ncells, &m->color_cells));
  for (PetscInt cz = 0; cz < n; cz++)
    for (PetscInt cy = 0; cy < n; cy++)
      for (PetscInt cx = 0; cx < n; cx++) {
        const PetscInt c = (cz * n + cy) * n + cx;
        for (PetscInt l = 0; l < m->npe; l++) {
          const PetscInt ix = cx * p + l % N, iy = cy * p + (l / N) % N, iz = cz * p + l / (N * N);
          m->conn[c * m->npe + l] = (int)((iz * nn + iy) * nn + ix);
        }
      }
  /* colors: the parities of (cx, cy, cz); two cells of one color are two or more cells apart, so share no node */
  PetscCall(PetscMemzero(m->color_off, sizeof(m->color_off)));
  for (PetscInt c = 0; c < m->ncells; c++) m->color_off[1 + (c % n) % 2 + 2 * (((c / n) % n) % 2) + 4 * ((c / (n * n)) % 2)]++;
  for (PetscInt k = 0; k < 8; k++) m->color_off[k + 1] += m->color_off[k];
  {
    PetscInt pos[8];
    for (PetscInt k = 0; k < 8; k++) pos[k] = m->color_off[k];
    for (PetscInt c = 0; c < m->ncells; c++) m->color_cells[pos[(c % n) % 2 + 2 * (((c / n) % n) % 2) + 4 * ((c / (n * n)) % 2)]++] = (int)c;
  }
  /* the inverse connectivity: for each node, its (cell, local node) entries in increasing order */
  PetscCall(PetscCalloc1(m->nnodes + 1, &m->inv_off));
  PetscCall(PetscMalloc1(m->ncells * m->npe, &m->inv));
  PetscCall(PetscCalloc1(m->nnodes, &cnt));
  for (PetscInt j = 0; j < m->ncells * m->npe; j++) m->inv_off[m->conn[j] + 1]++;
  for (PetscInt v = 0; v < m->nnodes; v++) m->inv_off[v + 1] += m->inv_off[v];
  for (PetscInt j = 0; j < m->ncells * m->npe; j++) m->inv[m->inv_off[m->conn[j]] + cnt[m->conn[j]]++] = j;
  PetscCall(PetscFree(cnt));
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  PetscCall(VPFemtoUpload(dctx, m->conn, (size_t)(m->ncells * m->npe), sizeof(int), (void **)&m->d_conn));
  PetscCall(VPFemtoUpload(dctx, m->color_cells, (size_t)m->ncells, sizeof(int), (void **)&m->d_color_cells));
  PetscCall(VPFemtoUpload(dctx, m->inv_off, (size_t)(m->nnodes + 1), sizeof(PetscInt), (void **)&m->d_inv_off));
  PetscCall(VPFemtoUpload(dctx, m->inv, (size_t)(m->ncells * m->npe), sizeof(PetscInt), (void **)&m->d_inv));
  PetscCall(PetscDeviceMalloc(dctx, PETSC_MEMTYPE_CUDA, (size_t)(m->ncells * m->npe), &m->d_elem));
  PetscCall(PetscDeviceContextSynchronize(dctx));
  *mesh = m;
  PetscFunctionReturn(PETSC_SUCCESS);
#else
  PetscFunctionBegin;
  (void)n;
  (void)p;
  (void)mesh;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "femto's element kernels run on the GPU: this PETSc has no CUDA");
#endif
}

/*@C
  VPFemtoMeshDestroy - Frees a mesh of `VPFemtoMeshCreate()`

  Level: developer
@*/
PetscErrorCode VPFemtoMeshDestroy(VPFemtoMesh **mesh)
{
  VPFemtoMesh *m = *mesh;

  PetscFunctionBegin;
  if (!m) PetscFunctionReturn(PETSC_SUCCESS);
#if defined(PETSC_HAVE_CUDA)
  {
    PetscDeviceContext dctx;
    PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
    PetscCall(PetscDeviceFree(dctx, m->d_conn));
    PetscCall(PetscDeviceFree(dctx, m->d_color_cells));
    PetscCall(PetscDeviceFree(dctx, m->d_inv_off));
    PetscCall(PetscDeviceFree(dctx, m->d_inv));
    PetscCall(PetscDeviceFree(dctx, m->d_elem));
  }
#endif
  PetscCall(PetscFree(m->conn));
  PetscCall(PetscFree(m->color_cells));
  PetscCall(PetscFree(m->inv_off));
  PetscCall(PetscFree(m->inv));
  PetscCall(PetscFree(*mesh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  VPFemtoInterpolate - grad[(c nq + q) 3 + d] = du/dxi_d at Gauss point q of cell c (device arrays)

  Level: developer
@*/
PetscErrorCode VPFemtoInterpolate(VPFemtoMesh *m, const PetscReal *d_u, PetscReal *d_grad)
{
#if defined(PETSC_HAVE_CUDA)
  PetscFunctionBegin;
  PetscCall(VPFemtoInterpolate_CUDA(&m->tables, m->ncells, m->d_conn, d_u, d_grad));
  PetscCall(PetscLogGpuFlops((PetscLogDouble)m->ncells * 8 * 2 * m->npe * (m->p + 1)));
  PetscFunctionReturn(PETSC_SUCCESS);
#else
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "This PETSc has no CUDA");
#endif
}

/*@C
  VPFemtoPointwise - flux = G grad at every point, G a symmetric 3x3 per point (device arrays)

  Level: developer
@*/
PetscErrorCode VPFemtoPointwise(VPFemtoMesh *m, const PetscReal *d_G, const PetscReal *d_grad, PetscReal *d_flux)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscCall(VPFemtoPointwise_CUDA(m->ncells * m->nq, d_G, d_grad, d_flux));
  PetscCall(PetscLogGpuFlops((PetscLogDouble)m->ncells * m->nq * 15));
#else
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "This PETSc has no CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  VPFemtoIntegrateElements - The element vectors of the fluxes into the mesh's element array (the gather variant's
  first kernel)

  Level: developer
@*/
PetscErrorCode VPFemtoIntegrateElements(VPFemtoMesh *m, const PetscReal *d_flux)
{
#if defined(PETSC_HAVE_CUDA)
  PetscFunctionBegin;
  PetscCall(VPFemtoIntegrate_CUDA(&m->tables, m->ncells, NULL, m->d_conn, d_flux, 2, NULL, m->d_elem));
  PetscFunctionReturn(PETSC_SUCCESS);
#else
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "This PETSc has no CUDA");
#endif
}

/*@C
  VPFemtoGather - r[v] += the sum of the element entries of node v (the gather variant's second kernel)

  Level: developer
@*/
PetscErrorCode VPFemtoGather(VPFemtoMesh *m, PetscReal *d_r)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscCall(VPFemtoGather_CUDA(m->nnodes, m->d_inv_off, m->d_inv, m->d_elem, d_r));
#else
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "This PETSc has no CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  VPFemtoIntegrate - r_i += sum_q w_q grad phi_i(xi_q) . f_q over all cells, assembled as asked (device arrays)

  Input Parameters:
+ m      - the mesh
. a      - `VP_FEMTO_ATOMIC`, `VP_FEMTO_COLORED` or `VP_FEMTO_GATHER`
- d_flux - the fluxes, ncells nq 3

  Output Parameter:
. d_r - the residual, added into

  Level: developer
@*/
PetscErrorCode VPFemtoIntegrate(VPFemtoMesh *m, VPFemtoAssembly a, const PetscReal *d_flux, PetscReal *d_r)
{
#if defined(PETSC_HAVE_CUDA)
  PetscFunctionBegin;
  switch (a) {
  case VP_FEMTO_ATOMIC:
    PetscCall(VPFemtoIntegrate_CUDA(&m->tables, m->ncells, NULL, m->d_conn, d_flux, 0, d_r, NULL));
    break;
  case VP_FEMTO_COLORED:
    for (PetscInt k = 0; k < 8; k++) PetscCall(VPFemtoIntegrate_CUDA(&m->tables, m->color_off[k + 1] - m->color_off[k], m->d_color_cells + m->color_off[k], m->d_conn, d_flux, 1, d_r, NULL));
    break;
  case VP_FEMTO_GATHER:
    PetscCall(VPFemtoIntegrateElements(m, d_flux));
    PetscCall(VPFemtoGather(m, d_r));
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Unknown assembly %d", (int)a);
  }
  PetscCall(PetscLogGpuFlops((PetscLogDouble)m->ncells * (8 * 2 * m->npe * (m->p + 1) + 6 * m->nq)));
  PetscFunctionReturn(PETSC_SUCCESS);
#else
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "This PETSc has no CUDA");
#endif
}
