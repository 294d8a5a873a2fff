/*
  Plain-pointer interface between the host glue (PETSc objects) and the compute kernels.

  Everything here is plain data: a grid description of one rank's part of a level, the 1D
  reference matrices of Q_k, and kernel entry points that take arrays. The CPU kernels live in
  src/mat/impls/<op>/ *_cpu.c, the CUDA kernels in src/mat/impls/<op>/cuda/. No PETSc object
  crosses this boundary, so the same header serves C and CUDA translation units.
*/
#pragma once

#include <petscsystypes.h>
#include <petscvpatch.h> /* the option enums (PCVPatchKernel) */
#include <math.h>

#define VPATCH_MAX_DEGREE    10                      /* Q_k, k <= 10 in 2D */
#define VPATCH_MAX_DEGREE_3D 8                       /* Q_k, k <= 8 in 3D */
#define VPATCH_MAX_N1D       (VPATCH_MAX_DEGREE + 1) /* nodes per cell and direction */

/* 1D reference data of Q_k on [0,1] (row-major matrices) */
typedef struct {
  PetscInt  k;                                            /* polynomial degree */
  PetscReal nodes[VPATCH_MAX_N1D];                        /* Gauss-Lobatto nodes on [0,1] */
  PetscReal qpts[VPATCH_MAX_N1D], qwts[VPATCH_MAX_N1D];   /* k+1 Gauss-Legendre points/weights on [0,1] */
  PetscReal S[VPATCH_MAX_N1D * VPATCH_MAX_N1D];           /* S[q][i] = phi_i(x_q) */
  PetscReal D[VPATCH_MAX_N1D * VPATCH_MAX_N1D];           /* D[q][i] = phi_i'(x_q) */
  PetscReal M[VPATCH_MAX_N1D * VPATCH_MAX_N1D];           /* reference mass matrix int phi_i phi_j */
  PetscReal K[VPATCH_MAX_N1D * VPATCH_MAX_N1D];           /* reference stiffness matrix int phi_i' phi_j' */
  PetscReal P[(2 * VPATCH_MAX_N1D - 1) * VPATCH_MAX_N1D]; /* P[f][c]: coarse basis c at fine node f of the two children */
} VPBasis1D;

/* One rank's part of a level: owned cells, and the ghosted local node box its local vectors hold */
typedef struct {
  PetscInt  dim;    /* 2 or 3 */
  PetscInt  k;      /* degree */
  PetscInt  N[3];   /* global cells per direction */
  PetscInt  cs[3];  /* first owned cell per direction */
  PetscInt  cm[3];  /* number of owned cells per direction */
  PetscInt  xs[3];  /* first owned node per direction (global node index) */
  PetscInt  xm[3];  /* number of owned nodes per direction */
  PetscInt  gxs[3]; /* first node of the ghosted local box */
  PetscInt  gxm[3]; /* extent of the ghosted local box */
  PetscReal h[3];   /* cell size per direction */
} VPGrid;

/* The weights of a Cartesian operator A = mass M + stiff K (M the Q_k mass matrix, K the stiffness matrix of -Laplace):
   the Laplacian is {0, 1}, the mass matrix {1, 0}, a backward Euler step {1/dt, 1}. Dirichlet nodes are eliminated: their
   values are read as zero in the interior rows and their rows are (mass + stiff) times the identity, so that the weights
   combine linearly (A + s B has the weights of A plus s times those of B, Dirichlet rows included). */
typedef struct {
  PetscReal mass, stiff;
} VPWeights;
/* The mass term folded into the 1D matrices of direction 0: (M_x, K_x) -> (M_x, stiff K_x + mass M_x), (M_d, K_d) ->
   (M_d, stiff K_d) for d > 0. Every Kronecker form of the operator, sum_d K_d (x) M_(others), then carries mass
   M_x (x) M_y (x) M_z exactly, and so does fast diagonalization: the eigenvalues of direction 0 shift by mass. */
static inline PetscReal VPWeightsStiff1D(const VPWeights *w, PetscInt d, PetscReal Kij, PetscReal Mij)
{
  return w->stiff * Kij + (d == 0 ? w->mass * Mij : 0.0);
}

/* Laplacian (with weights w, NULL: {0, 1}): ylocal += A_interior xlocal over owned cells; owned Dirichlet rows get
   y = (mass + stiff) x. Boundary values of x are treated as zero in the interior rows (eliminated Dirichlet columns). */
PETSC_INTERN PetscErrorCode VPLaplacianApply_CPU(const VPGrid *, const VPBasis1D *, const VPWeights *w, const PetscScalar *xl, PetscScalar *yl);
/* Diagonal of the operator accumulated into a local vector (owned boundary rows: mass + stiff) */
PETSC_INTERN PetscErrorCode VPLaplacianDiagonal_CPU(const VPGrid *, const VPBasis1D *, const VPWeights *w, PetscScalar *dl);
/* Dense cell matrix (row-major, (k+1)^d square) of one cell, for assembly */
PETSC_INTERN PetscErrorCode VPLaplacianCellMatrix_CPU(const VPGrid *, const VPBasis1D *, const VPWeights *w, PetscScalar *Ae);

/* The operator -div(a grad u) on mapped cells (a DMQBOX with a mapping or a coefficient): per owned cell (lexicographic
   among the owned cells, x fastest) and Gauss point q (k+1 per direction, x fastest), geo holds the VPGeometryComponents()
   values of the symmetric G = w a det(J) J^-1 J^-T, component m of point q of cell c at geo[(c ncomp + m) n^d + q], in the
   order 00 11 01 (2D) or 00 11 22 01 02 12 (3D). Dirichlet nodes as in VPLaplacianApply_CPU(). work: VPMappedWorkSize(). */
static inline PetscInt VPGeometryComponents(PetscInt dim)
{
  return dim == 3 ? 6 : 3;
}
static inline PetscInt VPGridCellNodes(const VPGrid *g)
{
  return (g->k + 1) * (g->k + 1) * (g->dim == 3 ? g->k + 1 : 1);
}
static inline PetscInt VPMappedWorkSize(PetscInt dim, PetscInt k)
{
  return 8 * (k + 1) * (k + 1) * (dim == 3 ? k + 1 : 1);
}
PETSC_INTERN PetscErrorCode VPMappedApply_CPU(const VPGrid *, const VPBasis1D *, const PetscReal *geo, const PetscScalar *xl, PetscScalar *yl, PetscScalar *work);
PETSC_INTERN PetscErrorCode VPMappedDiagonal_CPU(const VPGrid *, const VPBasis1D *, const PetscReal *geo, PetscScalar *dl, PetscScalar *work);
/* the mass matrix on mapped cells, with m = w det(J) per owned cell and Gauss point (mgeo: [cell][point]); Dirichlet
   nodes as in VPLaplacianApply_CPU() */
PETSC_INTERN PetscErrorCode VPMappedMassApply_CPU(const VPGrid *, const VPBasis1D *, const PetscReal *mgeo, const PetscScalar *xl, PetscScalar *yl);
PETSC_INTERN PetscErrorCode VPMappedMassDiagonal_CPU(const VPGrid *, const VPBasis1D *, const PetscReal *mgeo, PetscScalar *dl);
PETSC_INTERN PetscErrorCode VPMappedCellMassRowSums_CPU(PetscInt dim, const VPBasis1D *, const PetscReal *m, PetscScalar *v);
PETSC_INTERN PetscErrorCode VPMappedCellMassMatrix_CPU(PetscInt dim, const VPBasis1D *, const PetscReal *m, PetscScalar *Ae);
/* CUDA: the same apply and diagonal (double arithmetic), d_mgeo the device copy of mgeo */
PETSC_INTERN PetscErrorCode VPMappedMassApply_CUDA(const VPGrid *, const VPBasis1D *, const PetscReal *d_mgeo, const PetscScalar *xl, PetscScalar *yl);
PETSC_INTERN PetscErrorCode VPMappedMassDiagonal_CUDA(const VPGrid *, const VPBasis1D *, const PetscReal *d_mgeo, PetscScalar *dl);
/* one cell: v = A_K u with the cell's factors G (component m of point q at G[m n^d + q]); work: 6 n^d scalars */
PETSC_INTERN PetscErrorCode VPMappedCellApply_CPU(PetscInt dim, const VPBasis1D *, const PetscReal *G, const PetscScalar *u, PetscScalar *v, PetscScalar *work);
/* one cell's dense matrix (row-major, n^d square); work: dim n^(2d) reals */
PETSC_INTERN PetscErrorCode VPMappedCellMatrix_CPU(PetscInt dim, const VPBasis1D *, const PetscReal *G, PetscScalar *Ae, PetscReal *work);
/* The geometric factors of a built-in map and coefficient (qboxgeo.c's MapShell, MapDeformed, CoefficientOscillatory)
   on the GPU, into d_geo (the layout above; NULL: not written) and d_mgeo (NULL, or the mass matrix's factors w det J,
   [cell][point]); badcell: -1, or the smallest owned-cell index (lexicographic) whose map or coefficient is not valid
   there (its factors are not all written) */
typedef struct {
  DMQBoxMappingType     maptype; /* none, shell or deformed */
  DMQBoxCoefficientType coeftype;
  PetscReal             lower[3], upper[3], radii[2], amplitude, contrast;
  PetscReal             nodes[VPATCH_MAX_N1D];                                                  /* Gauss-Lobatto nodes on [0,1] */
  PetscReal             S[VPATCH_MAX_N1D * VPATCH_MAX_N1D], D[VPATCH_MAX_N1D * VPATCH_MAX_N1D]; /* VPBasis1D's */
  PetscReal             w[VPATCH_MAX_N1D];                                                      /* Gauss weights */
} VPGeometryParams;
PETSC_INTERN PetscErrorCode VPGeometryBuiltin_CUDA(const VPGrid *, const VPGeometryParams *, PetscReal *d_geo, PetscReal *d_mgeo, PetscInt *badcell);
/* CUDA: the 1D basis values S and derivatives D at the Gauss points ((k+1)^2 each) of degree k; d_geo the device copy of geo */
PETSC_INTERN PetscErrorCode VPMappedSetUp_CUDA(PetscInt k, const PetscReal *S, const PetscReal *D);
/* d_geo: the factors in double, or in float when single (VPMappedToFloat_CUDA()): single-precision kernels read half the bytes;
   d_glo: NULL, or (3D, double) the low halves of the split factors, d_geo then their float high halves (VPMappedSplit_CUDA());
   p: NULL, or (3D) the built-in map and coefficient from which the kernel computes the factors itself (d_geo not read) */
/* yl += alpha K xl on the interior nodes and the Dirichlet rows alpha times the identity (yl = alpha xl there), or with bl
   (the residual: yl = bl on entry, alpha = -stiff) yl = bl + alpha xl there */
PETSC_INTERN PetscErrorCode VPMappedApply_CUDA(const VPGrid *, PetscBool single, const VPGeometryParams *p, const void *d_geo, const float *d_glo, PetscScalar alpha, const PetscScalar *bl, const PetscScalar *xl, PetscScalar *yl);
PETSC_INTERN PetscErrorCode VPMappedToFloat_CUDA(const PetscReal *d_geo, size_t n, float **d_geof);
/* the factors d_geo as float halves hi (the float copy) and lo, entries [first, first + m) of both computed here into
   arrays the caller allocated (returns when the device is done), hi + lo d_geo to 2^-48 relative; the join back into a
   device array the caller allocated, or into a host array */
PETSC_INTERN PetscErrorCode VPMappedFloatAlloc_CUDA(size_t n, float **d_geof);
PETSC_INTERN PetscErrorCode VPMappedSplit_CUDA(const PetscReal *d_geo, size_t first, size_t m, float *d_hi, float *d_lo);
PETSC_INTERN PetscErrorCode VPMappedJoin_CUDA(const float *d_hi, const float *d_lo, size_t n, PetscReal *d_geo);
PETSC_INTERN PetscErrorCode VPMappedJoinToHost_CUDA(const float *d_hi, const float *d_lo, size_t n, PetscReal *h);
PETSC_INTERN PetscErrorCode VPMappedFloatFree_CUDA(float **d_geof);
/* the geometric factors as a DMQBOX holds them on the GPU: in double (d), or as float halves whose sum they are (hi, lo;
   DMQBoxGetGeometryFloat_Private()); the set-up kernels read either (VPGeoAt() in vpcuda.cuh) */
typedef struct {
  const PetscReal *d;
  const float     *hi, *lo;
} VPGeoRef;
PETSC_INTERN PetscErrorCode VPMappedDiagonal_CUDA(const VPGrid *, VPGeoRef geo, PetscScalar *dl);

/* Transfer between a coarse level and its refinement (cells aligned: fine owned cells are the
   children of the coarse owned cells). Prolongation adds into the fine local array with weights
   that make the sum over ranks and cells exact; restriction adds the transpose into the coarse
   local array. homogeneous: boundary values are zero on input and output (multigrid transfer). work: 4 (2k+1)^d
   scalars (VPTransferWorkSize()), allocated once by the caller. */
PETSC_INTERN PetscErrorCode VPTransferProlong_CPU(const VPGrid *gc, const VPGrid *gf, const VPBasis1D *, PetscBool homogeneous, const PetscScalar *xcl, PetscScalar *yfl, PetscScalar *work);
PETSC_INTERN PetscErrorCode VPTransferRestrict_CPU(const VPGrid *gc, const VPGrid *gf, const VPBasis1D *, PetscBool homogeneous, const PetscScalar *xfl, PetscScalar *ycl, PetscScalar *work);
static inline PetscInt      VPTransferWorkSize(PetscInt dim, PetscInt k)
{
  return 4 * (2 * k + 1) * (2 * k + 1) * (dim == 3 ? 2 * k + 1 : 1);
}

/* Helpers shared by the CPU kernels */
static inline PetscInt VPGridNodes(const VPGrid *g, PetscInt d)
{
  return g->N[d] * g->k + 1;
}
static inline PetscBool VPGridIsBoundary(const VPGrid *g, const PetscInt p[3])
{
  for (PetscInt d = 0; d < g->dim; d++)
    if (p[d] == 0 || p[d] == VPGridNodes(g, d) - 1) return PETSC_TRUE;
  return PETSC_FALSE;
}
/* this rank owns no cell (a level gathered onto other ranks): the kernels have nothing to do */
static inline PetscBool VPGridEmpty(const VPGrid *g)
{
  return (PetscBool)(g->cm[0] == 0 || g->cm[1] == 0 || g->cm[2] == 0);
}
/* index in the ghosted local array of the node with global node coordinates p */
static inline PetscInt VPGridLocalIndex(const VPGrid *g, const PetscInt p[3])
{
  PetscInt idx = 0;
  for (PetscInt d = g->dim - 1; d >= 0; d--) idx = idx * g->gxm[d] + (p[d] - g->gxs[d]);
  return idx;
}

/* Vertex patches: 2k+1 nodes per direction (2 cells), 2k-1 interior */
#define VPATCH_MAX_NP (2 * VPATCH_MAX_DEGREE + 1)
#define VPATCH_MAX_NI (2 * VPATCH_MAX_DEGREE - 1)

/* The separable patch operator and its fast diagonalization, per direction */
typedef struct {
  PetscInt           dim, k;
  PetscReal          Mp[3][VPATCH_MAX_NP * VPATCH_MAX_NP]; /* 1D patch mass matrix (2k+1)^2, boundary included */
  PetscReal          Kp[3][VPATCH_MAX_NP * VPATCH_MAX_NP]; /* 1D patch stiffness matrix */
  PetscReal          S[3][VPATCH_MAX_NI * VPATCH_MAX_NI];  /* generalized eigenvectors of the interior block, S^T M S = I; S[i*n+j]: entry i of vector j; k even vectors, then k-1 odd */
  PetscReal          lam[3][VPATCH_MAX_NI];                /* generalized eigenvalues */
  const PetscScalar *LU;                                   /* dense LU of the (2k-1)^d patch matrix (local solver "dense"), or NULL */
  const int         *piv;                                  /* its pivots (LAPACK) */
} VPPatchOp;

/* One color of the multiplicative sweep on the owned vertices of one rank: for each patch of the
   color, the localized residual r = b - A x on its interior from the patch's 2^d cells, then the
   exact local solve; the corrections are added into dl (patches of one color never share an
   interior node). With additive, every patch is processed (color ignored). With xl NULL, bl is the residual
   (no localized residual). pg (pl->g): NULL, or the separable surrogate of each patch (inexact local solves, a mapped
   DMQBOX): op then holds the unit-patch eigenpairs and patch v's solve divides by sum_d pg[3 i_v + d] lam_d, i_v the
   index of v among this rank's vertices (VPPatchVertexBox()). */
/* the per-vertex local solvers of a mapped DMQBOX (pl NULL, or a member NULL: not used): g, the surrogate's factors
   (3 per vertex, as pg above); LU, piv: each patch's own dense LU of its true matrix ((2k-1)^d square, row-major;
   -pc_vpatch_local_solver dense, the exact local solve, for verification) */
/* its > 0 (-pc_vpatch_local_solver cg): its preconditioned CG steps on the patch's true operator (matrix-free over its
   2^d cells, with the factors geo of the cell box [gclo, gclo + gcm) in the layout of VPMappedApply_CPU()), the
   preconditioner being the surrogate g scaled by the diagonals: D^1/2 Dt^-1/2 Atilde Dt^-1/2 D^1/2, D the operator's
   diagonal (diag, ghosted local), Dt the surrogate's (sum_d g_d of products of 1D unit-patch diagonals) */
typedef struct {
  const PetscReal   *g;
  const PetscReal   *m; /* NULL, or per vertex the surrogate's mass term (added to every eigenvalue) */
  const PetscScalar *LU;
  const int         *piv;
  PetscInt           its;
  PetscReal          damp; /* > 0: local solver scaled, u = damp z with z the scaled surrogate's solve, no CG step */
  const VPBasis1D   *basis;
  const PetscReal   *geo;
  PetscInt           gclo[3], gcm[3];
  const PetscScalar *diag;
  const PetscReal   *w;    /* NULL, or per vertex (as g) the damping of its patch's correction, in place of damp */
  const PetscReal   *prof; /* NULL, or per vertex the profile surrogate's tables (VPProfileSize() each, vpprofile.h) in place of g */
} VPPatchLocal;
/* local solver cg (CPU and GPU alike): a patch's CG stops after its steps, or once r^T z has fallen by this factor (the
   residual by 1e-14, double round-off) or is not positive: a further step would divide by an underflowed residual */
#define VP_PATCH_CG_RTOL2 1e-28
PETSC_INTERN PetscErrorCode VPPatchSmoothColor_CPU(const VPGrid *, const VPPatchOp *, const VPPatchLocal *pl, PetscInt color, PetscBool additive, const PetscScalar *bl, const PetscScalar *xl, PetscScalar *dl, PetscScalar *work);
/* this rank's vertices (the lower corners of its cells, interior to the domain): first vertex lo and count n per
   direction (1 for d >= dim); the index of vertex v is ((v_2 - lo_2) n_1 + v_1 - lo_1) n_0 + v_0 - lo_0 */
static inline void VPPatchVertexBox(const VPGrid *g, PetscInt lo[3], PetscInt n[3])
{
  for (PetscInt d = 0; d < 3; d++) {
    PetscInt hi;
    lo[d] = d < g->dim ? (g->cs[d] > 1 ? g->cs[d] : 1) : 0;
    hi    = d < g->dim ? (g->cs[d] + g->cm[d] - 1 < g->N[d] - 1 ? g->cs[d] + g->cm[d] - 1 : g->N[d] - 1) : 0;
    n[d]  = hi >= lo[d] ? hi - lo[d] + 1 : 0;
  }
}
/* the vertices of one color among this rank's (VPPatchVertexBox()): the first vlo and the count nv per direction, every
   second vertex (1 for d >= dim); false when there is none */
static inline PetscBool VPPatchColorVertices(const VPGrid *g, PetscInt color, int vlo[3], int nv[3])
{
  for (PetscInt d = 0; d < 3; d++) {
    vlo[d] = 0;
    nv[d]  = 1;
  }
  for (PetscInt d = 0; d < g->dim; d++) {
    int lo = g->cs[d] > 1 ? (int)g->cs[d] : 1, hi = (int)(g->cs[d] + g->cm[d] - 1 < g->N[d] - 1 ? g->cs[d] + g->cm[d] - 1 : g->N[d] - 1), bit = (int)((color >> d) & 1);
    if (lo % 2 != bit) lo++;
    vlo[d] = lo;
    nv[d]  = hi >= lo ? (hi - lo) / 2 + 1 : 0;
  }
  return (PetscBool)(nv[0] && nv[1] && nv[2]);
}
#if !defined(VP_HOST_DEVICE)
#if defined(__CUDACC__)
#define VP_HOST_DEVICE __host__ __device__
#else
#define VP_HOST_DEVICE
#endif
#endif
/* the layer of cells below a rank's owned ones (those of [cs - h, cs + cm) that it does not own, h_d = 1 where
   cs_d > 0, else 0), which its lowest patches cover: first the cells with z = cs_2 - 1 (cn_0 cn_1 of them, cn = cm + h),
   then those with y = cs_1 - 1 (cn_0 cm_2), then those with x = cs_0 - 1 (cm_1 cm_2); in 2D (cs_2 = 0, cm_2 = 1) the
   first part is empty. The index of cell c there, or -1 for an owned cell; with c = NULL, the layer's number of cells */
VP_HOST_DEVICE static inline long long VPLayerCellIndex(const PetscInt cs[3], const PetscInt cm[3], const int *c)
{
  const long long h0 = cs[0] > 0, h1 = cs[1] > 0, h2 = cs[2] > 0, n0 = cm[0] + h0, n1 = cm[1] + h1;
  const long long o1 = h2 * n0 * n1, o2 = o1 + h1 * n0 * cm[2];
  if (!c) return o2 + h0 * cm[1] * cm[2];
  if (c[2] < cs[2]) return (c[1] - cs[1] + h1) * n0 + c[0] - cs[0] + h0;
  if (c[1] < cs[1]) return o1 + (c[2] - cs[2]) * n0 + c[0] - cs[0] + h0;
  if (c[0] < cs[0]) return o2 + (c[2] - cs[2]) * cm[1] + c[1] - cs[1];
  return -1;
}
/* part s (0: z = cs_2 - 1, 1: y = cs_1 - 1, 2: x = cs_0 - 1) of that layer as a box of cells [lo, lo + n), numbered
   there x fastest as VPLayerCellIndex() numbers it: the index of its first cell, or -1 where the part is empty */
static inline long long VPLayerSlab(const PetscInt cs[3], const PetscInt cm[3], int s, PetscInt lo[3], PetscInt n[3])
{
  const PetscInt h[3] = {cs[0] > 0, cs[1] > 0, cs[2] > 0}, e = 2 - s; /* e: the direction the part is one cell thick in */
  if (!h[e] || !cm[0] || !cm[1] || !cm[2]) return -1;
  for (int d = 0; d < 3; d++) {
    lo[d] = d == e ? cs[d] - 1 : cs[d] - (d < e ? h[d] : 0); /* the directions before e take their layer cell too */
    n[d]  = d == e ? 1 : cm[d] + (d < e ? h[d] : 0);
  }
  if (s == 0) return 0;
  const long long n0 = cm[0] + h[0], n1 = cm[1] + h[1], o1 = h[2] * n0 * n1;
  return s == 1 ? o1 : o1 + h[1] * n0 * cm[2];
}
/* the largest eigenvalue of the symmetric tridiagonal matrix (a on the diagonal, b beside it; m <= 32) by bisection on
   its Sturm sequence, to a relative 1e-12 of the Gershgorin bound */
VP_HOST_DEVICE static inline double VPTridiagMax(int m, const double *a, const double *b)
{
  double lo = a[0], hi = a[0];
  for (int i = 0; i < m; i++) {
    const double r = (i > 0 ? fabs(b[i - 1]) : 0) + (i < m - 1 ? fabs(b[i]) : 0);
    lo             = fmin(lo, a[i] - r);
    hi             = fmax(hi, a[i] + r);
  }
  const double tol = 1e-12 * fmax(fabs(lo), fabs(hi));
  while (hi - lo > tol) {
    const double x = 0.5 * (lo + hi);
    double       q = a[0] - x;
    int          n = q < 0;
    for (int i = 1; i < m; i++) { /* the count of eigenvalues below x */
      q = a[i] - x - b[i - 1] * b[i - 1] / (q != 0 ? q : 1e-300);
      n += q < 0;
    }
    if (n == m)
      hi = x;
    else
      lo = x;
  }
  return hi;
}
/* the Lanczos matrix of m PCG steps (alpha_j, beta_j = (r_j+1, z_j+1) / (r_j, z_j)): a, b of VPTridiagMax() */
VP_HOST_DEVICE static inline void VPLanczosFromCG(int m, const double *alpha, const double *beta, double *a, double *b)
{
  for (int j = 0; j < m; j++) {
    a[j] = 1 / alpha[j] + (j > 0 ? beta[j - 1] / alpha[j - 1] : 0);
    if (j < m - 1) b[j] = sqrt(beta[j]) / alpha[j];
  }
}
/* a Lanczos estimate of the largest eigenvalue that does not trust unconverged steps: the largest eigenvalue theta of
   the m x m Lanczos matrix (a, b) plus the residual norm of its Ritz pair, bnext |s_m| (s its unit eigenvector, bnext
   the next off-diagonal entry, 0 where the steps spanned an invariant subspace); theta alone lies below the operator's */
VP_HOST_DEVICE static inline double VPLanczosMax(int m, const double *a, const double *b, double bnext)
{
  const double theta = VPTridiagMax(m, a, b);
  double       s0 = 1, s1 = 0, nrm = 1, last = 1;
  for (int i = 0; i < m - 1; i++) { /* (T - theta) s = 0 row by row: s_i+1 from s_i and s_i-1 */
    const double s2 = ((theta - a[i]) * s0 - (i > 0 ? b[i - 1] * s1 : 0)) / b[i];
    s1              = s0;
    s0              = s2;
    nrm += s2 * s2;
    last = s2;
  }
  return theta + fabs(bnext) * fabs(last) / sqrt(nrm);
}
/* the start vector of the patches' Lanczos steps: entry e of a patch's interior, in [-0.5, 0.5), the same on every
   patch, host and device (an integer hash: no vector that misses the largest mode by symmetry) */
VP_HOST_DEVICE static inline double VPLanczosStart(int e)
{
  return (double)(((unsigned)e * 2654435761u) >> 22) / 1024.0 - 0.5;
}
/* the local solver scaled, 3D, without a mass term: the damping of each patch's correction, w_v = min(1, theta /
   lambda_v), lambda_v the largest eigenvalue of P_v^-1 A_v (P_v the scaled surrogate, A_v the true patch matrix, as
   pl->diag, pl->g and pl->basis give them, the weight stiff on A_v) from steps Lanczos steps (PCG on A_v y =
   VPLanczosStart()) and VPLanczosMax(); geo: the factors of the owned cells, lgeo those of the layer below (VPLayerCellIndex()); w per
   vertex of VPPatchVertexBox() */
#define VP_PATCH_LANCZOS_MAX 32
PETSC_INTERN PetscErrorCode VPPatchDampings_CPU(const VPGrid *, const VPPatchOp *, const VPPatchLocal *pl, PetscReal stiff, const PetscReal *geo, const PetscReal *lgeo, PetscInt steps, PetscReal theta, PetscReal *w, PetscScalar *work);
/* work: 24 (2k+1)^d scalars, allocated once by the caller */
static inline PetscInt VPPatchWorkSize(PetscInt dim, PetscInt k)
{
  return 24 * (2 * k + 1) * (2 * k + 1) * (dim == 3 ? 2 * k + 1 : 1);
}

/* CUDA kernels (device pointers; d_* arrays hold the 1D matrices on the device, see the .cu files) */
/* deterministic: cells in 2^d parity colors with plain adds instead of atomics (bitwise reproducible) */
/* single: float arithmetic in the kernels (vectors stay PetscScalar) */
/* the reference element matrices Mhat, Khat ((k+1)^2, on the unit interval) of degree k for the operator kernel */
PETSC_INTERN PetscErrorCode VPLaplacianSetUp_CUDA(PetscInt k, const PetscReal *Mhat, const PetscReal *Khat);
PETSC_INTERN PetscErrorCode VPLaplacianApply_CUDA(const VPGrid *, const VPWeights *, PetscBool single, PetscBool deterministic, const PetscScalar *xl, PetscScalar *yl);
/* r = b - A x in one pass (MatResidual()), arrays of a rank whose ghosted box is its owned box */
PETSC_INTERN PetscErrorCode VPLaplacianResidual_CUDA(const VPGrid *, const VPWeights *, PetscBool single, PetscBool deterministic, const PetscScalar *b, const PetscScalar *x, PetscScalar *r);
PETSC_INTERN PetscErrorCode VPLaplacianDiagonal_CUDA(const VPGrid *, const VPWeights *, const PetscReal *d_mats, PetscScalar *dl);
/* the 1D prolongation P ((2k+1) x (k+1), reference) of degree k for the transfer kernels */
PETSC_INTERN PetscErrorCode VPTransferSetUp_CUDA(PetscInt k, const PetscReal *P);
PETSC_INTERN PetscErrorCode VPTransferApply_CUDA(const VPGrid *gc, const VPGrid *gf, PetscBool single, PetscBool homogeneous, PetscBool restrict_, const PetscScalar *in, PetscScalar *out);
/* the owned Dirichlet rows, s times the identity: dst = s src (s where src is NULL), r = b - s x */
PETSC_INTERN PetscErrorCode VPOwnedBoundary_CUDA(const VPGrid *, PetscScalar s, const PetscScalar *src, PetscScalar *dst, PetscBool local);
PETSC_INTERN PetscErrorCode VPOwnedBoundaryResidual_CUDA(const VPGrid *, PetscScalar s, const PetscScalar *b, const PetscScalar *x, PetscScalar *r);
/* the owned nodes between a global array glob (the owned box) and a local array loc (the ghosted box) */
typedef enum {
  VP_OWNED_TO_LOCAL,   /* loc = glob */
  VP_OWNED_FROM_LOCAL, /* glob = loc */
  VP_OWNED_ADD_LOCAL   /* glob += loc */
} VPOwnedCopyMode;
PETSC_INTERN PetscErrorCode VPOwnedCopy_CUDA(const VPGrid *, VPOwnedCopyMode, PetscScalar *glob, PetscScalar *loc);
/* the directions of an indexed copy between a packed buffer and an array (VPIndexedCopy_CUDA(), DMQBOX's exchanges) */
typedef enum {
  VP_PACK,      /* packed = loc[idx] */
  VP_UNPACK,    /* loc[idx] = packed */
  VP_UNPACK_ADD /* loc[idx] += packed */
} VPIndexedCopyMode;
/* a[0, n) = 0 (device array), on the kernels' stream */
PETSC_INTERN PetscErrorCode VPZero_CUDA(PetscScalar *a, size_t n);
/* dst[0, n) = src[0, n) (device arrays), on the kernels' stream */
PETSC_INTERN PetscErrorCode VPCopy_CUDA(PetscScalar *dst, const PetscScalar *src, size_t n);
/* a zeroed device buffer of n scalars from the stream-ordered pool (NULL when out of memory), and its release */
PETSC_INTERN PetscErrorCode VPBufferAlloc_CUDA(size_t n, PetscScalar **a);
PETSC_INTERN PetscErrorCode VPBufferFree_CUDA(PetscScalar *a);
/* packed[i] = loc[idx[i]] (VP_PACK; 0 where idx[i] < 0), or loc[idx[i]] = packed[i] (VP_UNPACK) or += (VP_UNPACK_ADD) where
   idx[i] >= 0; device arrays; an index repeated in idx only with VP_PACK */
PETSC_INTERN PetscErrorCode VPIndexedCopy_CUDA(PetscInt n, const PetscInt *idx, VPIndexedCopyMode mode, PetscScalar *packed, PetscScalar *loc);
/* the index list idx[0, n) of an exchange (device array) from nrun runs (host array, three entries each: first index,
   length, position in idx): idx[pos + i] = first + i for i < length, -1 elsewhere */
PETSC_INTERN PetscErrorCode VPRunsExpand_CUDA(PetscInt nrun, const PetscInt *run, PetscInt n, PetscInt *idx);
/* z[j] = y[j]^T x for j < nv (real scalars): device arrays x, y[j] of length n, host array z; waits for the result */
PETSC_INTERN PetscErrorCode VPMDot_CUDA(const PetscScalar *x, PetscInt n, PetscInt nv, const PetscScalar *const *y, PetscScalar *z);
/* y = x + alpha y (real scalars), device arrays of length n, on PETSc's stream */
PETSC_INTERN PetscErrorCode VPAYPX_CUDA(PetscInt n, PetscScalar alpha, const PetscScalar *x, PetscScalar *y);
/* the operations of real CUDA vectors past 2^31 - 1 values per rank (veclong.cu; device arrays of length n, 64-bit
   indices, on PETSc's stream): z = a x + b y + c z (y may be NULL; c = 0: z is not read); x = a x; swap x and y;
   y += sum_j a[j] x[j] for j < nv (a, x host arrays) */
PETSC_INTERN PetscErrorCode VPVecCombine_CUDA(PetscInt n, PetscScalar a, const PetscScalar *x, PetscScalar b, const PetscScalar *y, PetscScalar c, PetscScalar *z);
PETSC_INTERN PetscErrorCode VPVecScale_CUDA(PetscInt n, PetscScalar a, PetscScalar *x);
PETSC_INTERN PetscErrorCode VPVecSwap_CUDA(PetscInt n, PetscScalar *x, PetscScalar *y);
PETSC_INTERN PetscErrorCode VPVecMAXPY_CUDA(PetscInt n, PetscInt nv, const PetscScalar *a, const PetscScalar *const *x, PetscScalar *y);
/* sums[0] = sum |x_i| (if abssum), sums[1] = sum x_i^2 (if sqsum), sums[2] = max |x_i| (if absmax), 0 where not asked;
   real scalars, device array x of length n; waits for the result (vecmdot.cu) */
PETSC_INTERN PetscErrorCode VPNorm_CUDA(const PetscScalar *x, PetscInt n, PetscBool abssum, PetscBool sqsum, PetscBool absmax, PetscReal *sums);
/* the reference data of degree k for the patch kernels: the 1D cell mass and stiffness matrices on [0,1] ((k+1)^2), and
   the eigenvectors (k even ones, then k-1 odd ones) and eigenvalues of the VPPatchOp of direction 0 for h = 1 */
PETSC_INTERN PetscErrorCode VPPatchSetUp_CUDA(PetscInt k, const PetscReal *Mcell, const PetscReal *Kcell, const PetscReal *Shat, const PetscReal *lamhat);
/* variant: the kernel design (PCVPatchKernel of petscvpatch.h, the reference's Global, Separate and Fused): global: bl
   holds the ghosted global residual b - A x of this color and the kernel solves; separate: a localized-residual kernel
   into scratch, then a local-solve kernel; fused: one kernel does both. ppb: patches per thread block, 0 for the
   default of each (dim, degree) */
/* d_pg: NULL, or (variant global only) the device copy of the per-vertex surrogate of VPPatchSmoothColor_CPU(); xzero: x is
   zero on entry (the first color of a step from a zero guess; the fused kernel then skips the gather and the residual) */
/* the separable surrogate's factors on the GPU (vpatch_surrogate.cu; the host version: PCVPatchSetUpSurrogate()). Per
   cell of the box [clo, clo + cn): the value of each direction d < dim, the largest of G_dd over the point's weight
   (pointmax) or the integral of G_dd, and the integral of w det J (the mass factors, where d_mgeo); the owned cells'
   (box [cs, cs + cm), the layout of DMQBoxGetGeometry_Private()) from d_geo and d_mgeo, the layer below them from d_lgeo
   (the layout of DMQBoxGetLayerGeometry_Private(); no mass term) or else from h_cgv (4 per cell; both NULL where every
   cell is owned). Then per vertex of the box [vlo, vlo + nv) the mean (mean) or the largest of
   its 2^d cells' values times stiff into d_pg (3 per vertex), and mass times the mean volume into d_pm (where d_mgeo). */
typedef struct {
  PetscInt  dim, n1, ncomp;
  PetscInt  clo[3], cn[3], cs[3], cm[3], vlo[3], nv[3];
  PetscBool pointmax, mean;
  PetscReal stiff, mass;
  PetscReal qwts[VPATCH_MAX_N1D];
} VPSurrogateInfo;
PETSC_INTERN PetscErrorCode VPSurrogateFactors_CUDA(const VPSurrogateInfo *, VPGeoRef geo, const PetscReal *d_mgeo, const PetscReal *d_lgeo, const PetscReal *h_cgv, PetscReal **d_pg, PetscReal **d_pm);
/* local solver cg on the GPU (VPPatchLocal; vpatch_cg.cu): the unit patch's eigenpairs (S[i ni + j]: entry i of vector
   j) and the diagonals of its 1D stiffness and mass matrices at the interior nodes, the cell basis at the Gauss points
   (cS[q][i], cD[q][i], leading dimension VPATCH_MAX_N1D), the cell box of geo and this rank's vertex box (the index of
   a vertex's surrogate factors) */
typedef struct {
  int       k, its;
  int       gclo[3], gcm[3], alo[3], anv[3];
  PetscReal S[VPATCH_MAX_NI * VPATCH_MAX_NI], lam[VPATCH_MAX_NI], Kd[VPATCH_MAX_NI], Md[VPATCH_MAX_NI];
  PetscReal cS[VPATCH_MAX_N1D * VPATCH_MAX_N1D], cD[VPATCH_MAX_N1D * VPATCH_MAX_N1D];
} VPPatchCGTables;
/* the patches of one color: dl += their CG corrections from the ghosted residual bl; d_pg, d_geo (cell box of t), diag
   (ghosted local operator diagonal): device arrays */
PETSC_INTERN PetscErrorCode VPPatchCGColor_CUDA(const VPGrid *, const VPPatchCGTables *, PetscInt color, const PetscReal *d_pg, const PetscReal *d_geo, const PetscScalar *diag, const PetscScalar *bl, PetscScalar *dl);
/* PCVPATCH's local solver scaled on a mapped DMQBOX (VPMappedPatchResidual_CUDA()): the unit patch's eigenvectors S
   (row-major, in the columns) and eigenvalues lam, the 1D diagonals Kd, Md of its interior, the damping (pw: NULL, or
   the device array of each patch's own, per vertex as the factors), and the box of vertices [alo, alo + anv) whose
   surrogate factors (3 per vertex) the solve reads */
typedef struct {
  int              alo[3], anv[3];
  int              its; /* local solver cg: its CG steps preconditioned by the scaled surrogate (0: the solve above) */
  PetscReal        damp;
  const PetscReal *pw;
  const PetscReal *prof; /* NULL, or the device array of each patch's profile surrogate (vpprofile.h), per vertex of the box, in place of S .. Md and the factors */
  PetscReal        S[VPATCH_MAX_NI * VPATCH_MAX_NI], lam[VPATCH_MAX_NI], Kd[VPATCH_MAX_NI], Md[VPATCH_MAX_NI];
} VPPatchScaledTables;
/* VPPatchDampings_CPU() on the device: every patch of this rank, one thread block each, in float (single) or double
   (d_geo: the DM's factors of the owned cells in that precision, d_lgeo those of the layer below or NULL, d_pg the
   surrogate's factors, d_diag the operator's ghosted diagonal); w: per vertex of t's box */
PETSC_INTERN PetscErrorCode VPMappedPatchDampings_CUDA(const VPGrid *, PetscBool single, const void *d_geo, const void *d_lgeo, const VPPatchScaledTables *t, const PetscReal *d_pg, const PetscScalar *d_diag, PetscReal stiff, PetscInt steps,
                                                       PetscReal theta, PetscReal *d_w);
/* 3D: for the vertex patches of one color among this rank's, r = b - alpha K x on their interior nodes (the residual
   their solves read; the other entries of r are left as they are), one thread block per patch, no atomics; b, x, r
   ghosted local arrays (on one rank the global ones), d_geo the owned cells' factors and d_lgeo those of the layer of
   cells below this rank's (VPLayerCellIndex(); NULL where there is none), in float when single. With t: also the local
   solver scaled of each patch on that residual, its correction added into r (r = x: in place; several ranks: a
   correction array) (d_pg: the surrogate factors per vertex of t's box, d_diag: the operator's diagonal, or NULL: the
   unscaled surrogate, local solver fdm, t->damp 1) */
PETSC_INTERN PetscErrorCode VPMappedPatchResidual_CUDA(const VPGrid *, PetscBool single, const void *d_geo, const void *d_lgeo, PetscInt color, PetscScalar alpha, const PetscScalar *b, const PetscScalar *x, PetscScalar *r,
                                                       const VPPatchScaledTables *t, const PetscReal *d_pg, const PetscScalar *d_diag);
/* whether the fused kernel of (dim, k, precision) skips the gather and the residual of a color from x = 0 (xzero) */
PETSC_INTERN PetscBool VPPatchZeroFirst_CUDA(PetscInt dim, PetscInt k, PetscBool single);
/* w: the weights of the patch operator (NULL: the Laplacian); the surrogate (d_pg) and DG patches take none */
/* d_pm: NULL, or (with d_pg) per vertex the surrogate's mass term, added to every eigenvalue of its patch */
/* d_diag: NULL, or (with d_pg; local solver scaled) the ghosted operator diagonal D: each patch's correction is
   damp Dsc S (m + sum_d g_d Lambda_d)^-1 S^T Dsc r with Dsc = (Dt / D)^1/2, Dt the surrogate's diagonal; d_pw: NULL,
   or per vertex (as d_pg) the damping of its patch in place of damp */
PETSC_INTERN PetscErrorCode VPPatchSmoothColor_CUDA(const VPGrid *, const VPWeights *w, PetscBool single, PetscInt color, PCVPatchKernel variant, PetscInt ppb, PetscBool xzero, const PetscReal *d_pg, const PetscReal *d_pm, const PetscScalar *d_diag,
                                                    PetscReal damp, const PetscReal *d_pw, const PetscScalar *bl, const PetscScalar *xl, PetscScalar *dl, PetscScalar *scratch);
