/* Discontinuous Q_k (SIPG) on a Cartesian box: the 1D matrices every operator is made of (src/sys/dg1d.c)

   On a mesh of n_1 x ... x n_d cells of sizes h_e, with (k+1) Gauss-Lobatto nodes per cell and direction and the DoF of
   direction e numbered c (k+1) + i (cell c, node i), the SIPG bilinear form with Nitsche boundary terms is exactly the
   Kronecker sum  A = sum_e M_1 (x) ... (x) L_e (x) ... (x) M_d : L_e is the 1D SIPG matrix of direction e (cell
   stiffness, interior-face and boundary-face terms, penalty sigma_e = C k (k+1) / h_e), M_e the 1D block-diagonal mass
   matrix. L_e is block tridiagonal; VPDG1D stores its distinct blocks. */
#pragma once

#include <petscvpatch/private/vpkernels.h>

typedef struct {
  PetscInt  k, n;                                    /* degree, cells */
  PetscReal h, sigma;                                /* cell size, penalty C k (k+1) / h */
  PetscReal M[VPATCH_MAX_N1D * VPATCH_MAX_N1D];      /* a cell's mass block, h Mref */
  PetscReal Din[VPATCH_MAX_N1D * VPATCH_MAX_N1D];    /* diagonal block of a cell with neighbours on both sides */
  PetscReal Dfirst[VPATCH_MAX_N1D * VPATCH_MAX_N1D]; /* of the first cell (Nitsche at x = 0), n > 1 */
  PetscReal Dlast[VPATCH_MAX_N1D * VPATCH_MAX_N1D];  /* of the last cell (Nitsche at x = 1), n > 1 */
  PetscReal Done[VPATCH_MAX_N1D * VPATCH_MAX_N1D];   /* of the only cell, n = 1 */
  PetscReal U[VPATCH_MAX_N1D * VPATCH_MAX_N1D];      /* the block of rows of cell c, columns of cell c + 1; rows c + 1, columns c: its transpose */
} VPDG1D;

/* the diagonal block of cell c */
static inline const PetscReal *VPDGDiagBlock(const VPDG1D *dg, PetscInt c)
{
  if (dg->n == 1) return dg->Done;
  return c == 0 ? dg->Dfirst : (c == dg->n - 1 ? dg->Dlast : dg->Din);
}
/* entry (j, i) of the block of the 1D SIPG matrix with the rows of cell c and the columns of cell c + o, o = -1, 0, 1 */
static inline PetscReal VPDGBlockEntry(const VPDG1D *dg, PetscInt c, PetscInt o, PetscInt j, PetscInt i)
{
  const PetscInt N = dg->k + 1;
  return o == 0 ? VPDGDiagBlock(dg, c)[j * N + i] : (o == 1 ? dg->U[j * N + i] : dg->U[i * N + j]);
}

PETSC_EXTERN PetscErrorCode VPDG1DSetUp(const VPBasis1D *, PetscInt n, PetscReal h, PetscReal C, VPDG1D *);
/* the dense 1D matrices, (n (k+1))^2 each, row-major (either may be NULL) */
PETSC_EXTERN PetscErrorCode VPDG1DDense(const VPDG1D *, PetscReal *L, PetscReal *M);
/* the smallest eigenvalue of L q = lambda M q on n cells of size 1/n with penalty factor C: positive if and only if the
   SIPG form is coercive there; with the penalty factor below which it is not (bisection; NULL: not computed) */
PETSC_EXTERN PetscErrorCode VPDG1DCoercivity(const VPBasis1D *, PetscInt n, PetscReal C, PetscReal *lmin, PetscReal *Cmin);
/* y += A x on a rank's owned cells (src/mat/impls/sipg/sipg_cpu.c); dg[e]: the blocks of direction e */
PETSC_EXTERN PetscErrorCode VPDGApply_CPU(const VPGrid *, const VPDG1D[], const PetscScalar *xl, PetscScalar *yl);
/* the embedding from a coarse box into its refinement (transp false: yf += P xc) or its transpose, cell by cell */
PETSC_EXTERN PetscErrorCode VPDGTransfer_CPU(const VPGrid *gc, const VPGrid *gf, const VPBasis1D *, PetscBool transp, const PetscScalar *x, PetscScalar *y);
/* the DG vertex patches of one direction: per interior vertex v = 1..n-1 the eigenvectors Q ((2(k+1))^2, Q^T M Q = I)
   and eigenvalues of the two-cell pencil of cells v-1, v */
typedef struct {
  PetscInt   n, k;
  PetscReal *Q, *lam;
} VPDGPatch1D;
PETSC_EXTERN PetscErrorCode VPDGPatch1DSetUp(const VPDG1D *, VPDGPatch1D *);
PETSC_EXTERN PetscErrorCode VPDGPatch1DDestroy(VPDGPatch1D *);
/* dl += sum over this rank's vertices of the color of R_v^T A_v^{-1} R_v rl */
PETSC_EXTERN PetscErrorCode VPDGPatchColor_CPU(const VPGrid *, const VPDGPatch1D[], PetscInt color, const PetscScalar *rl, PetscScalar *dl);

/* Flop models of the DG kernels (vpflops.h's conventions: multiply-adds count 2). The operator per owned cell: per
   direction the three blocks along e (3 x 2 N per node) and the mass along the d - 1 others (2 N each); the embedding per
   fine cell: d contractions of 2 N per node; a DG vertex patch ((2N)^d unknowns): with the localized residual, per
   direction 3 blocks of 2 N and d - 1 mass contractions of 2 N per unknown, then the fast diagonalization, 2 d
   contractions of 2 (2N) and the eigenvalue sums */
static inline PetscLogDouble VPDGFlopsApply(const VPGrid *g)
{
  const PetscLogDouble n = (PetscLogDouble)(g->k + 1), nd = g->dim == 3 ? n * n * n : n * n;
  return (PetscLogDouble)g->cm[0] * g->cm[1] * g->cm[2] * g->dim * nd * (6 * n + (g->dim - 1) * 2 * n + 1);
}
static inline PetscLogDouble VPDGFlopsTransfer(const VPGrid *gf)
{
  const PetscLogDouble n = (PetscLogDouble)(gf->k + 1), nd = gf->dim == 3 ? n * n * n : n * n;
  return (PetscLogDouble)gf->cm[0] * gf->cm[1] * gf->cm[2] * gf->dim * nd * 2 * n;
}
static inline PetscLogDouble VPDGFlopsPatch(PetscInt dim, PetscInt k, PetscBool residual)
{
  const PetscLogDouble n = (PetscLogDouble)(k + 1), np = dim == 3 ? 8 * n * n * n : 4 * n * n;
  return np * ((residual ? dim * (6 * n + (dim - 1) * 2 * n + 1) : 0) + 2 * dim * 4 * n + dim + 1);
}
/* the patches of one color on this rank (the vertex ranges of VPDGPatchColor_CPU()) */
static inline PetscLogDouble VPDGColorPatches(const VPGrid *g, PetscInt color)
{
  PetscLogDouble n = 1;
  for (PetscInt e = 0; e < g->dim; e++) {
    PetscInt lo = PetscMax(g->cs[e], 1), hi = PetscMin(g->cs[e] + g->cm[e], g->N[e]);
    if (lo % 2 != ((color >> e) & 1)) lo++;
    n *= hi > lo ? (PetscLogDouble)((hi - lo + 1) / 2) : 0;
  }
  return n;
}

/* CUDA kernels (src/mat/impls/sipg/cuda/sipg.cu, src/pc/impls/vpatch/cuda/vpatch_dg.cu): the same operations as the CPU
   ones above on device arrays; d_dg is a device copy of the d VPDG1D of the grid's directions, d_embed the 2 (k+1)^2
   embedding blocks (child 0, child 1; row f, column c), single: arithmetic in float (vectors stay PetscScalar) */
PETSC_EXTERN PetscErrorCode VPDGApply_CUDA(const VPGrid *, PetscBool single, const VPDG1D *d_dg, const PetscScalar *xl, PetscScalar *yl);
/* d = the operator's diagonal on the owned nodes (d: the owned part of a global vector, in double) */
PETSC_EXTERN PetscErrorCode VPDGDiagonal_CUDA(const VPGrid *, const VPDG1D *d_dg, PetscScalar *d);
PETSC_EXTERN PetscErrorCode VPDGTransfer_CUDA(const VPGrid *gc, const VPGrid *gf, PetscBool single, const PetscReal *d_embed, PetscBool transp, const PetscScalar *x, PetscScalar *y);
/* the device copies of the VPDGPatch1D data of each direction */
typedef struct {
  const PetscReal *Q[3], *lam[3];
} VPDGPatchDevice;
/* With xl NULL: dl += the corrections of the color's patches for the residual bl (as VPDGPatchColor_CPU()). With xl: dl =
   xl + the corrections (dl another array; every owned node written), the residual of each patch being bl - A xl on its
   cells, computed in the kernel from xl on the patch and its face neighbours (the localized residual; one rank: the
   local box must hold every neighbour). lines (3D): one thread per 1D
   line of the patch (VPDGPatchLineKernel), else one per unknown. ref (lines, 3D, k <= 8; or NULL): the 1D data of the
   interior patches at h = 1, for constant memory: the patch rows of L against the four cells around (2(k+1) x 4(k+1):
   row a (k+1) + j, a = 0, 1 the patch's cells, column b (k+1) + i over cells v - 2 .. v + 1), the eigenvectors Q of the
   two-cell pencil ((2(k+1))^2, rows as VPDGPatch1D, columns the k+1 even modes, then the k+1 odd ones), its eigenvalues
   (2(k+1), in the same order), the cell mass ((k+1)^2) */
PETSC_EXTERN PetscErrorCode VPDGPatchColor_CUDA(const VPGrid *, PetscBool single, PetscBool lines, const PetscReal *ref, const VPDG1D *d_dg, const VPDGPatchDevice *, PetscInt color, const PetscScalar *bl, const PetscScalar *xl, PetscScalar *dl);
