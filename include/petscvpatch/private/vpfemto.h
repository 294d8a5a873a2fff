/*
  femto's element kernels on the GPU (seed 001 of the project; bench/bench_femto.c, tests/test_femto.c).

  The study of femto ("porting a finite element library to CUDA") times the two kernels every matrix-free operator
  is made of, on meshes of 1,000,000 hexahedra of degree p = 1, 2, 3:
    - interpolation: nodal values -> reference gradients du/dxi at the (p+1)^3 Gauss points of each cell;
    - integration: quadrature-point fluxes f -> the residual r_i += sum_q w_q grad phi_i(xi_q) . f_q, added into a
      global vector with atomics (one kernel, not deterministic), by colors (8 launches of cells that share no node:
      deterministic), or through element vectors and a gather over the cells of each node (two kernels, as femto
      times them).
  As in femto the mesh is read through an explicit connectivity array (cell -> its (p+1)^3 global nodes), so the
  kernels do the same memory work as on an unstructured mesh; here the mesh is the unit cube of n^3 cells with its
  nodes numbered lexicographically. A pointwise kernel (flux = G grad with a stored symmetric 3x3 G per point, the
  form of our mapped operator, qboximpl.h) completes the operator in separate kernels, for comparison with the fused
  mapped MatMult.

  Plain data: the host code (src/fe/femto.c) builds the mesh and owns the device arrays; the kernels
  (src/fe/cuda/femto.cu) take pointers. Double precision throughout, as femto's tables.
*/
#pragma once

#include <petscsys.h>
#include <petscvpatch/private/vpkernels.h>

#define VP_FEMTO_MAX_DEGREE 6

typedef enum {
  VP_FEMTO_ATOMIC,
  VP_FEMTO_COLORED,
  VP_FEMTO_GATHER
} VPFemtoAssembly;
PETSC_EXTERN const char *const VPFemtoAssemblies[];

/* the 1D tables as the kernels take them, by value (src/fe/cuda/femto.cu) */
typedef struct {
  int       p;
  PetscReal S[VP_FEMTO_MAX_DEGREE + 1][VP_FEMTO_MAX_DEGREE + 1], D[VP_FEMTO_MAX_DEGREE + 1][VP_FEMTO_MAX_DEGREE + 1], w[VP_FEMTO_MAX_DEGREE + 1];
} VPFemtoTables;

typedef struct {
  PetscInt      p, n;           /* degree, cells per direction */
  PetscInt      ncells, nnodes; /* n^3, (n p + 1)^3 */
  PetscInt      npe, nq;        /* (p+1)^3 nodes and Gauss points per cell */
  VPBasis1D     basis;          /* the 1D tables: S, D at the Gauss points, the weights */
  VPFemtoTables tables;         /* the same for the kernels */
  /* host copies (the tests' reference uses them) */
  int      *conn;         /* conn[c npe + l]: global node of local node l (x fastest) of cell c */
  PetscInt *inv_off;      /* node v is in the cells inv[inv_off[v] .. inv_off[v+1]-1] */
  PetscInt *inv;          /* entries c npe + l */
  PetscInt  color_off[9]; /* the cells of color c are color_cells[color_off[c] .. color_off[c+1]-1] */
  int      *color_cells;  /* 8 colors: the parities of the cell's indices, so cells of one color share no node */
  /* device copies */
  int       *d_conn, *d_color_cells;
  PetscInt  *d_inv_off, *d_inv;
  PetscReal *d_elem; /* element vectors of the gather variant: ncells npe */
} VPFemtoMesh;

PETSC_EXTERN PetscErrorCode VPFemtoMeshCreate(PetscInt n, PetscInt p, VPFemtoMesh **);
PETSC_EXTERN PetscErrorCode VPFemtoMeshDestroy(VPFemtoMesh **);
/* device arrays: u (nnodes), grad (ncells nq 3, a point's three derivatives together), flux (same), G (ncells nq 6:
   xx, xy, xz, yy, yz, zz), r (nnodes; the integration adds into it) */
PETSC_EXTERN PetscErrorCode VPFemtoInterpolate(VPFemtoMesh *, const PetscReal *d_u, PetscReal *d_grad);
PETSC_EXTERN PetscErrorCode VPFemtoPointwise(VPFemtoMesh *, const PetscReal *d_G, const PetscReal *d_grad, PetscReal *d_flux);
PETSC_EXTERN PetscErrorCode VPFemtoIntegrate(VPFemtoMesh *, VPFemtoAssembly, const PetscReal *d_flux, PetscReal *d_r);
/* the gather variant's two kernels apart (VPFemtoIntegrate(VP_FEMTO_GATHER) runs both), for femto's two timings */
PETSC_EXTERN PetscErrorCode VPFemtoIntegrateElements(VPFemtoMesh *, const PetscReal *d_flux);
PETSC_EXTERN PetscErrorCode VPFemtoGather(VPFemtoMesh *, PetscReal *d_r);
/* bytes between host and device arrays (either way), on PETSc's current stream, waited for */
PETSC_EXTERN PetscErrorCode VPFemtoCopy(void *dst, const void *src, size_t bytes);

/* the kernels (src/fe/cuda/femto.cu) */
PETSC_INTERN PetscErrorCode VPFemtoInterpolate_CUDA(const VPFemtoTables *, PetscInt ncells, const int *d_conn, const PetscReal *d_u, PetscReal *d_grad);
PETSC_INTERN PetscErrorCode VPFemtoPointwise_CUDA(PetscInt npoints, const PetscReal *d_G, const PetscReal *d_grad, PetscReal *d_flux);
/* cells: NULL for all cells 0..ncells-1, else the list of ncells cells; mode: 0 atomics into r, 1 plain adds into r
   (a color), 2 element vectors into elem */
PETSC_INTERN PetscErrorCode VPFemtoIntegrate_CUDA(const VPFemtoTables *, PetscInt ncells, const int *d_cells, const int *d_conn, const PetscReal *d_flux, int mode, PetscReal *d_r, PetscReal *d_elem);
PETSC_INTERN PetscErrorCode VPFemtoCopy_CUDA(void *dst, const void *src, size_t bytes);
PETSC_INTERN PetscErrorCode VPFemtoGather_CUDA(PetscInt nnodes, const PetscInt *d_inv_off, const PetscInt *d_inv, const PetscReal *d_elem, PetscReal *d_r);
