/*
  CPU kernels of the matrix-free Q_k Laplacian on a Cartesian mesh (plain pointers, no PETSc objects).

  Per cell, A_K u is evaluated by sum factorization with the 1D mass and stiffness matrices of the
  cell (M_h = h Mhat, K_h = Khat / h, both computed from Gauss quadrature, see basis1d.c):
    2D: A_K = M_y (x) K_x + K_y (x) M_x
    3D: A_K = M_z (x) M_y (x) K_x + M_z (x) K_y (x) M_x + K_z (x) M_y (x) M_x
  i.e. O(k^{d+1}) work per cell. With weights (VPWeights: mass M + stiff K) the mass term rides in K_x. Dirichlet
  nodes are eliminated: their values are read as zero and their rows are (mass + stiff) times the identity.
*/
#include <petscvpatch/private/vpkernels.h>
#include <petscvpatch/private/vpcontract.h>
#include <petscsys.h>

#define NMAX (VPATCH_MAX_N1D * VPATCH_MAX_N1D * VPATCH_MAX_N1D)

static const VPWeights VPLaplacianWeights = {0.0, 1.0};

/* 1D matrices of a cell of size h: Mh = h Mhat, Kh = Khat/h, with the weights folded in (VPWeightsStiff1D()) */
static void ScaledMatrices(const VPGrid *g, const VPBasis1D *b, const VPWeights *w, PetscReal Mh[3][VPATCH_MAX_N1D * VPATCH_MAX_N1D], PetscReal Kh[3][VPATCH_MAX_N1D * VPATCH_MAX_N1D])
{
  PetscInt n = g->k + 1;
  if (!w) w = &VPLaplacianWeights;
  for (PetscInt d = 0; d < g->dim; d++)
    for (PetscInt i = 0; i < n * n; i++) {
      Mh[d][i] = g->h[d] * b->M[i];
      Kh[d][i] = VPWeightsStiff1D(w, d, b->K[i] / g->h[d], Mh[d][i]);
    }
}

/* the value of the Dirichlet rows' identity */
static inline PetscScalar DirichletScale(const VPWeights *w)
{
  return w ? w->mass + w->stiff : 1.0;
}

/* node coordinates p of node (i,j,l) of cell (cx,cy,cz) */
static inline void CellNode(const VPGrid *g, const PetscInt c[3], PetscInt ix, PetscInt iy, PetscInt iz, PetscInt p[3])
{
  p[0] = c[0] * g->k + ix;
  p[1] = c[1] * g->k + iy;
  p[2] = g->dim == 3 ? c[2] * g->k + iz : 0;
}

/* Owned Dirichlet rows: y = s x, or s where xl is NULL (the local arrays hold the owned box inside the ghosted box) */
static void BoundaryIdentity(const VPGrid *g, PetscScalar s, const PetscScalar *xl, PetscScalar *yl)
{
  PetscInt zs = g->dim == 3 ? g->xs[2] : 0, zm = g->dim == 3 ? g->xm[2] : 1;
  for (PetscInt pz = zs; pz < zs + zm; pz++)
    for (PetscInt py = g->xs[1]; py < g->xs[1] + g->xm[1]; py++)
      for (PetscInt px = g->xs[0]; px < g->xs[0] + g->xm[0]; px++) {
        PetscInt p[3] = {px, py, pz};
        if (!VPGridIsBoundary(g, p)) continue;
        PetscInt idx = VPGridLocalIndex(g, p);
        yl[idx]      = xl ? s * xl[idx] : s;
      }
}

/* gather the cell's values (Dirichlet nodes read as zero) or scatter-add v (Dirichlet rows skipped) */
static void CellGather(const VPGrid *g, const PetscInt c[3], const PetscScalar *xl, PetscScalar *u)
{
  PetscInt n = g->k + 1, nz = g->dim == 3 ? n : 1, p[3], e = 0;
  for (PetscInt iz = 0; iz < nz; iz++)
    for (PetscInt iy = 0; iy < n; iy++)
      for (PetscInt ix = 0; ix < n; ix++, e++) {
        CellNode(g, c, ix, iy, iz, p);
        u[e] = VPGridIsBoundary(g, p) ? 0.0 : xl[VPGridLocalIndex(g, p)];
      }
}
static void CellScatterAdd(const VPGrid *g, const PetscInt c[3], const PetscScalar *v, PetscScalar *yl)
{
  PetscInt n = g->k + 1, nz = g->dim == 3 ? n : 1, p[3], e = 0;
  for (PetscInt iz = 0; iz < nz; iz++)
    for (PetscInt iy = 0; iy < n; iy++)
      for (PetscInt ix = 0; ix < n; ix++, e++) {
        CellNode(g, c, ix, iy, iz, p);
        if (!VPGridIsBoundary(g, p)) yl[VPGridLocalIndex(g, p)] += v[e];
      }
}

PetscErrorCode VPLaplacianApply_CPU(const VPGrid *g, const VPBasis1D *b, const VPWeights *w, const PetscScalar *xl, PetscScalar *yl)
{
  PetscInt    n = g->k + 1, nz = g->dim == 3 ? n : 1, czm = g->dim == 3 ? g->cm[2] : 1;
  PetscInt    ext[3] = {n, n, nz};
  PetscReal   Mh[3][VPATCH_MAX_N1D * VPATCH_MAX_N1D], Kh[3][VPATCH_MAX_N1D * VPATCH_MAX_N1D];
  PetscScalar u[NMAX], v[NMAX], a[NMAX], t1[NMAX], t2[NMAX], t3[NMAX];

  PetscFunctionBegin;
  ScaledMatrices(g, b, w, Mh, Kh);
  for (PetscInt cz = 0; cz < czm; cz++)
    for (PetscInt cy = 0; cy < g->cm[1]; cy++)
      for (PetscInt cx = 0; cx < g->cm[0]; cx++) {
        PetscInt c[3] = {g->cs[0] + cx, g->cs[1] + cy, g->dim == 3 ? g->cs[2] + cz : 0};
        CellGather(g, c, xl, u);
        VPContract(ext, 0, n, Mh[0], PETSC_FALSE, u, a);  /* a  = M_x u */
        VPContract(ext, 0, n, Kh[0], PETSC_FALSE, u, t1); /* t1 = K_x u */
        if (g->dim == 2) {
          VPContract(ext, 1, n, Kh[1], PETSC_FALSE, a, v);   /* K_y M_x u */
          VPContract(ext, 1, n, Mh[1], PETSC_FALSE, t1, t2); /* M_y K_x u */
          for (PetscInt i = 0; i < n * n; i++) v[i] += t2[i];
        } else {
          VPContract(ext, 1, n, Mh[1], PETSC_FALSE, t1, t2); /* M_y K_x u */
          VPContract(ext, 1, n, Kh[1], PETSC_FALSE, a, t3);  /* K_y M_x u */
          for (PetscInt i = 0; i < n * n * n; i++) t2[i] += t3[i];
          VPContract(ext, 2, n, Mh[2], PETSC_FALSE, t2, v);  /* M_z (M_y K_x + K_y M_x) u */
          VPContract(ext, 1, n, Mh[1], PETSC_FALSE, a, t1);  /* M_y M_x u */
          VPContract(ext, 2, n, Kh[2], PETSC_FALSE, t1, t3); /* K_z M_y M_x u */
          for (PetscInt i = 0; i < n * n * n; i++) v[i] += t3[i];
        }
        CellScatterAdd(g, c, v, yl);
      }
  BoundaryIdentity(g, DirichletScale(w), xl, yl);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPLaplacianDiagonal_CPU(const VPGrid *g, const VPBasis1D *b, const VPWeights *w, PetscScalar *dl)
{
  PetscInt  n = g->k + 1, nz = g->dim == 3 ? n : 1, czm = g->dim == 3 ? g->cm[2] : 1;
  PetscReal Mh[3][VPATCH_MAX_N1D * VPATCH_MAX_N1D], Kh[3][VPATCH_MAX_N1D * VPATCH_MAX_N1D];

  PetscFunctionBegin;
  ScaledMatrices(g, b, w, Mh, Kh);
  for (PetscInt cz = 0; cz < czm; cz++)
    for (PetscInt cy = 0; cy < g->cm[1]; cy++)
      for (PetscInt cx = 0; cx < g->cm[0]; cx++) {
        PetscInt c[3] = {g->cs[0] + cx, g->cs[1] + cy, g->dim == 3 ? g->cs[2] + cz : 0}, p[3];
        for (PetscInt iz = 0; iz < nz; iz++)
          for (PetscInt iy = 0; iy < n; iy++)
            for (PetscInt ix = 0; ix < n; ix++) {
              PetscReal mx = Mh[0][ix * n + ix], kx = Kh[0][ix * n + ix], my = Mh[1][iy * n + iy], ky = Kh[1][iy * n + iy], val;
              if (g->dim == 2)
                val = my * kx + ky * mx;
              else {
                PetscReal mz = Mh[2][iz * n + iz], kz = Kh[2][iz * n + iz];
                val = mz * my * kx + mz * ky * mx + kz * my * mx;
              }
              CellNode(g, c, ix, iy, iz, p);
              if (!VPGridIsBoundary(g, p)) dl[VPGridLocalIndex(g, p)] += val;
            }
      }
  BoundaryIdentity(g, DirichletScale(w), NULL, dl);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPLaplacianCellMatrix_CPU(const VPGrid *g, const VPBasis1D *b, const VPWeights *w, PetscScalar *Ae)
{
  PetscInt  n = g->k + 1, nz = g->dim == 3 ? n : 1, nd = n * n * nz;
  PetscReal Mh[3][VPATCH_MAX_N1D * VPATCH_MAX_N1D], Kh[3][VPATCH_MAX_N1D * VPATCH_MAX_N1D];

  PetscFunctionBegin;
  ScaledMatrices(g, b, w, Mh, Kh);
  for (PetscInt iz = 0, r = 0; iz < nz; iz++)
    for (PetscInt iy = 0; iy < n; iy++)
      for (PetscInt ix = 0; ix < n; ix++, r++)
        for (PetscInt jz = 0, s = 0; jz < nz; jz++)
          for (PetscInt jy = 0; jy < n; jy++)
            for (PetscInt jx = 0; jx < n; jx++, s++) {
              PetscReal mx = Mh[0][ix * n + jx], kx = Kh[0][ix * n + jx], my = Mh[1][iy * n + jy], ky = Kh[1][iy * n + jy];
              if (g->dim == 2)
                Ae[r * nd + s] = my * kx + ky * mx;
              else {
                PetscReal mz = Mh[2][iz * n + jz], kz = Kh[2][iz * n + jz];
                Ae[r * nd + s] = mz * my * kx + mz * ky * mx + kz * my * mx;
              }
            }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The operator -div(a grad u) on mapped cells (DMQBOX with a mapping or a coefficient, qboxgeo.c). Per cell, with the
  symmetric G_q = w_q a det(J_q) J_q^-1 J_q^-T at the k+1 Gauss points per direction (geo: [cell][component][point]):
    reference gradient at the points  g_b = (T_b,z (x) T_b,y (x) T_b,x) u,  T_b,e = D if e = b, else S
    v = sum_b (T_b,z (x) T_b,y (x) T_b,x)^T (sum_c G_bc g_c)
  3D: 8 contractions forward (D_x u and S_x u shared), 8 back; 2D: 4 and 4.
*/
/* v = A_K u of one cell; G points at the cell's factors (component c of point q at G[c nq^d + q]); work: 6 n^d scalars */
PetscErrorCode VPMappedCellApply_CPU(PetscInt dim, const VPBasis1D *b, const PetscReal *G, const PetscScalar *u, PetscScalar *v, PetscScalar *work)
{
  PetscInt     n = b->k + 1, nd = dim == 3 ? n * n * n : n * n, ext[3] = {n, n, dim == 3 ? n : 1};
  PetscScalar *ta = work, *tb = work + nd, *t1 = work + 2 * nd, *g0 = work + 3 * nd, *g1 = work + 4 * nd, *g2 = work + 5 * nd;

  PetscFunctionBegin;
  VPContract(ext, 0, n, b->D, PETSC_FALSE, u, ta); /* D_x u */
  VPContract(ext, 0, n, b->S, PETSC_FALSE, u, tb); /* S_x u */
  if (dim == 2) {
    VPContract(ext, 1, n, b->S, PETSC_FALSE, ta, g0);
    VPContract(ext, 1, n, b->D, PETSC_FALSE, tb, g1);
    for (PetscInt q = 0; q < nd; q++) {
      PetscScalar a0 = g0[q], a1 = g1[q];
      g0[q] = G[q] * a0 + G[2 * nd + q] * a1;
      g1[q] = G[2 * nd + q] * a0 + G[nd + q] * a1;
    }
    VPContract(ext, 1, n, b->S, PETSC_TRUE, g0, ta);
    VPContract(ext, 1, n, b->D, PETSC_TRUE, g1, tb);
  } else {
    VPContract(ext, 1, n, b->S, PETSC_FALSE, ta, t1);
    VPContract(ext, 2, n, b->S, PETSC_FALSE, t1, g0); /* d/dx */
    VPContract(ext, 1, n, b->D, PETSC_FALSE, tb, t1);
    VPContract(ext, 2, n, b->S, PETSC_FALSE, t1, g1); /* d/dy */
    VPContract(ext, 1, n, b->S, PETSC_FALSE, tb, t1);
    VPContract(ext, 2, n, b->D, PETSC_FALSE, t1, g2); /* d/dz */
    for (PetscInt q = 0; q < nd; q++) {
      PetscScalar a0 = g0[q], a1 = g1[q], a2 = g2[q];
      PetscReal   G00 = G[q], G11 = G[nd + q], G22 = G[2 * nd + q], G01 = G[3 * nd + q], G02 = G[4 * nd + q], G12 = G[5 * nd + q];
      g0[q] = G00 * a0 + G01 * a1 + G02 * a2;
      g1[q] = G01 * a0 + G11 * a1 + G12 * a2;
      g2[q] = G02 * a0 + G12 * a1 + G22 * a2;
    }
    VPContract(ext, 2, n, b->S, PETSC_TRUE, g0, t1);
    VPContract(ext, 1, n, b->S, PETSC_TRUE, t1, ta); /* toward D_x^T */
    VPContract(ext, 2, n, b->S, PETSC_TRUE, g1, t1);
    VPContract(ext, 1, n, b->D, PETSC_TRUE, t1, tb); /* toward S_x^T */
    VPContract(ext, 2, n, b->D, PETSC_TRUE, g2, t1);
    VPContract(ext, 1, n, b->S, PETSC_TRUE, t1, g0);
    for (PetscInt i = 0; i < nd; i++) tb[i] += g0[i];
  }
  VPContract(ext, 0, n, b->D, PETSC_TRUE, ta, v);
  VPContract(ext, 0, n, b->S, PETSC_TRUE, tb, t1);
  for (PetscInt i = 0; i < nd; i++) v[i] += t1[i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPMappedApply_CPU(const VPGrid *g, const VPBasis1D *b, const PetscReal *geo, const PetscScalar *xl, PetscScalar *yl, PetscScalar *work)
{
  PetscInt nd = VPGridCellNodes(g), stride = VPGeometryComponents(g->dim) * nd;

  PetscFunctionBegin;
  for (PetscInt cz = 0, i = 0; cz < g->cm[2]; cz++) /* the owned cells in the order of geo (cell index i) */
    for (PetscInt cy = 0; cy < g->cm[1]; cy++)
      for (PetscInt cx = 0; cx < g->cm[0]; cx++, i++) {
        PetscInt c[3] = {g->cs[0] + cx, g->cs[1] + cy, g->cs[2] + cz};
        CellGather(g, c, xl, work);
        PetscCall(VPMappedCellApply_CPU(g->dim, b, geo + i * stride, work, work + nd, work + 2 * nd));
        CellScatterAdd(g, c, work + nd, yl);
      }
  BoundaryIdentity(g, 1.0, xl, yl);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 1D factors of the diagonal: Z[t][q][i] for t = 0: S S, 1: S D, 2: D D (entrywise products) */
static void DiagonalFactors(const VPBasis1D *b, PetscReal Z[3][VPATCH_MAX_N1D * VPATCH_MAX_N1D])
{
  PetscInt n = b->k + 1;
  for (PetscInt i = 0; i < n * n; i++) {
    Z[0][i] = b->S[i] * b->S[i];
    Z[1][i] = b->S[i] * b->D[i];
    Z[2][i] = b->D[i] * b->D[i];
  }
}

/* diag_i = sum_q sum_bc G_bc(q) (T_b phi_i)(q) (T_c phi_i)(q): per pair (b, c) a contraction of G_bc with the 1D products
   Z of the two factors of each direction */
PetscErrorCode VPMappedDiagonal_CPU(const VPGrid *g, const VPBasis1D *b, const PetscReal *geo, PetscScalar *dl, PetscScalar *work)
{
  PetscInt  dim = g->dim, n = g->k + 1, nd = VPGridCellNodes(g), ncomp = VPGeometryComponents(dim), ext[3] = {n, n, dim == 3 ? n : 1};
  PetscInt  pb[6] = {0, 1, 2, 0, 0, 1}, pc[6] = {0, 1, 2, 1, 2, 2}; /* the components' index pairs (3D; 2D: 00 11 01) */
  PetscReal Z[3][VPATCH_MAX_N1D * VPATCH_MAX_N1D];

  PetscFunctionBegin;
  if (dim == 2) pb[2] = 0, pc[2] = 1;
  DiagonalFactors(b, Z);
  for (PetscInt cz = 0, i = 0; cz < g->cm[2]; cz++)
    for (PetscInt cy = 0; cy < g->cm[1]; cy++)
      for (PetscInt cx = 0; cx < g->cm[0]; cx++, i++) {
        PetscInt         c[3] = {g->cs[0] + cx, g->cs[1] + cy, g->cs[2] + cz};
        const PetscReal *G    = geo + i * ncomp * nd;
        PetscScalar     *d = work, *t1 = work + nd, *t2 = work + 2 * nd, *t3 = work + 3 * nd;
        for (PetscInt e = 0; e < nd; e++) d[e] = 0;
        for (PetscInt m = 0; m < ncomp; m++) {
          PetscInt zt[3];
          for (PetscInt e = 0; e < 3; e++) zt[e] = (e == pb[m]) + (e == pc[m]);
          for (PetscInt e = 0; e < nd; e++) t3[e] = G[m * nd + e];
          VPContract(ext, 0, n, Z[zt[0]], PETSC_TRUE, t3, t1);
          VPContract(ext, 1, n, Z[zt[1]], PETSC_TRUE, t1, t2);
          if (dim == 3)
            VPContract(ext, 2, n, Z[zt[2]], PETSC_TRUE, t2, t1);
          else
            for (PetscInt e = 0; e < nd; e++) t1[e] = t2[e];
          for (PetscInt e = 0; e < nd; e++) d[e] += (pb[m] == pc[m] ? 1.0 : 2.0) * t1[e];
        }
        CellScatterAdd(g, c, d, dl);
      }
  BoundaryIdentity(g, 1.0, NULL, dl);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Dense cell matrix of a mapped cell: Ae[r][s] = sum_q (grad phi_r)^T G_q (grad phi_s), reference gradients; work: dim n^(2d) */
PetscErrorCode VPMappedCellMatrix_CPU(PetscInt dim, const VPBasis1D *b, const PetscReal *G, PetscScalar *Ae, PetscReal *work)
{
  PetscInt n = b->k + 1, nz = dim == 3 ? n : 1, nd = n * n * nz, ncomp = VPGeometryComponents(dim);
  PetscInt pb[6] = {0, 1, 2, 0, 0, 1}, pc[6] = {0, 1, 2, 1, 2, 2};

  PetscFunctionBegin;
  if (dim == 2) pb[2] = 0, pc[2] = 1;
  /* F[b][q][r] = (T_b phi_r)(q) */
  for (PetscInt bd = 0; bd < dim; bd++)
    for (PetscInt qz = 0, q = 0; qz < nz; qz++)
      for (PetscInt qy = 0; qy < n; qy++)
        for (PetscInt qx = 0; qx < n; qx++, q++)
          for (PetscInt rz = 0, r = 0; rz < nz; rz++)
            for (PetscInt ry = 0; ry < n; ry++)
              for (PetscInt rx = 0; rx < n; rx++, r++) {
                PetscReal v = (bd == 0 ? b->D : b->S)[qx * n + rx] * (bd == 1 ? b->D : b->S)[qy * n + ry];
                if (dim == 3) v *= (bd == 2 ? b->D : b->S)[qz * n + rz];
                work[(bd * nd + q) * nd + r] = v;
              }
  for (PetscInt i = 0; i < nd * nd; i++) Ae[i] = 0;
  for (PetscInt m = 0; m < ncomp; m++)
    for (PetscInt q = 0; q < nd; q++) {
      PetscReal        gv = G[m * nd + q];
      const PetscReal *Fb = work + (pb[m] * nd + q) * nd, *Fc = work + (pc[m] * nd + q) * nd;
      if (gv == 0) continue;
      for (PetscInt r = 0; r < nd; r++) {
        PetscReal br = gv * Fb[r], cr = gv * Fc[r];
        if (pb[m] == pc[m])
          for (PetscInt s = 0; s < nd; s++) Ae[r * nd + s] += br * Fb[s];
        else
          for (PetscInt s = 0; s < nd; s++) Ae[r * nd + s] += br * Fc[s] + cr * Fb[s];
      }
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The mass matrix on mapped cells: per cell, with m_q = w_q det(J_q) at the Gauss points (mgeo: [cell][point]),
    v = (S_z (x) S_y (x) S_x)^T diag(m) (S_z (x) S_y (x) S_x) u,     S[q][i] = phi_i(x_q)
  Dirichlet nodes as in VPLaplacianApply_CPU() (read as zero, rows the identity).
*/
/* v = (A_z (x) A_y (x) A_x)^T w for the n x n matrix A (the points to the nodes); w is overwritten */
static void PointsToNodes(PetscInt dim, PetscInt n, const PetscReal *A, PetscScalar *w, PetscScalar *v, PetscScalar *t)
{
  PetscInt nd = dim == 3 ? n * n * n : n * n, ext[3] = {n, n, dim == 3 ? n : 1};

  if (dim == 3)
    VPContract(ext, 2, n, A, PETSC_TRUE, w, t);
  else
    PetscArraycpy(t, w, nd);
  VPContract(ext, 1, n, A, PETSC_TRUE, t, w);
  VPContract(ext, 0, n, A, PETSC_TRUE, w, v);
}

static void MassCell(PetscInt dim, const VPBasis1D *b, const PetscReal *m, const PetscScalar *u, PetscScalar *v, PetscScalar *t1, PetscScalar *t2)
{
  PetscInt n = b->k + 1, nd = dim == 3 ? n * n * n : n * n, ext[3] = {n, n, dim == 3 ? n : 1};

  VPContract(ext, 0, n, b->S, PETSC_FALSE, u, t1);
  VPContract(ext, 1, n, b->S, PETSC_FALSE, t1, t2);
  if (dim == 3)
    VPContract(ext, 2, n, b->S, PETSC_FALSE, t2, t1);
  else
    PetscArraycpy(t1, t2, nd);
  for (PetscInt q = 0; q < nd; q++) t1[q] *= m[q];
  PointsToNodes(dim, n, b->S, t1, v, t2);
}

PetscErrorCode VPMappedMassApply_CPU(const VPGrid *g, const VPBasis1D *b, const PetscReal *mgeo, const PetscScalar *xl, PetscScalar *yl)
{
  PetscInt    nd = VPGridCellNodes(g), czm = g->dim == 3 ? g->cm[2] : 1;
  PetscScalar u[NMAX], v[NMAX], t1[NMAX], t2[NMAX];

  PetscFunctionBegin;
  for (PetscInt cz = 0, i = 0; cz < czm; cz++)
    for (PetscInt cy = 0; cy < g->cm[1]; cy++)
      for (PetscInt cx = 0; cx < g->cm[0]; cx++, i++) {
        PetscInt c[3] = {g->cs[0] + cx, g->cs[1] + cy, g->dim == 3 ? g->cs[2] + cz : 0};
        CellGather(g, c, xl, u);
        MassCell(g->dim, b, mgeo + i * nd, u, v, t1, t2);
        CellScatterAdd(g, c, v, yl);
      }
  BoundaryIdentity(g, 1.0, xl, yl);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* its diagonal: per cell (S^2)^T (x) ... applied to m, S^2 the entrywise square (owned boundary rows: 1) */
PetscErrorCode VPMappedMassDiagonal_CPU(const VPGrid *g, const VPBasis1D *b, const PetscReal *mgeo, PetscScalar *dl)
{
  PetscInt    n = g->k + 1, nd = VPGridCellNodes(g), czm = g->dim == 3 ? g->cm[2] : 1;
  PetscReal   S2[VPATCH_MAX_N1D * VPATCH_MAX_N1D];
  PetscScalar t1[NMAX], t2[NMAX], t3[NMAX];

  PetscFunctionBegin;
  for (PetscInt i = 0; i < n * n; i++) S2[i] = b->S[i] * b->S[i];
  for (PetscInt cz = 0, i = 0; cz < czm; cz++)
    for (PetscInt cy = 0; cy < g->cm[1]; cy++)
      for (PetscInt cx = 0; cx < g->cm[0]; cx++, i++) {
        PetscInt c[3] = {g->cs[0] + cx, g->cs[1] + cy, g->dim == 3 ? g->cs[2] + cz : 0};
        for (PetscInt q = 0; q < nd; q++) t1[q] = mgeo[i * nd + q];
        PointsToNodes(g->dim, n, S2, t1, t2, t3);
        CellScatterAdd(g, c, t2, dl);
      }
  BoundaryIdentity(g, 1.0, NULL, dl);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the row sums of one cell's mass matrix, int phi_i over the mapped cell (every node, Dirichlet ones too) */
PetscErrorCode VPMappedCellMassRowSums_CPU(PetscInt dim, const VPBasis1D *b, const PetscReal *m, PetscScalar *v)
{
  PetscInt    n = b->k + 1, nd = dim == 3 ? n * n * n : n * n;
  PetscScalar t1[NMAX], t2[NMAX];

  PetscFunctionBegin;
  for (PetscInt q = 0; q < nd; q++) t1[q] = m[q];
  PointsToNodes(dim, n, b->S, t1, v, t2);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one cell's dense mass matrix, Ae[i nd + j] = sum_q m_q phi_i(x_q) phi_j(x_q) (for assembly and the dense patch solves) */
PetscErrorCode VPMappedCellMassMatrix_CPU(PetscInt dim, const VPBasis1D *b, const PetscReal *m, PetscScalar *Ae)
{
  PetscInt n = b->k + 1, nz = dim == 3 ? n : 1, nd = n * n * nz;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < nd; i++)
    for (PetscInt j = 0; j < nd; j++) {
      PetscScalar s = 0;
      for (PetscInt qz = 0, q = 0; qz < nz; qz++)
        for (PetscInt qy = 0; qy < n; qy++)
          for (PetscInt qx = 0; qx < n; qx++, q++) {
            PetscReal pi = b->S[qx * n + i % n] * b->S[qy * n + (i / n) % n] * (dim == 3 ? b->S[qz * n + i / (n * n)] : 1.0);
            PetscReal pj = b->S[qx * n + j % n] * b->S[qy * n + (j / n) % n] * (dim == 3 ? b->S[qz * n + j / (n * n)] : 1.0);
            s += m[q] * pi * pj;
          }
      Ae[i * nd + j] = s;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}
