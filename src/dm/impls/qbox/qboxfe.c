/*
  DMQBOX finite-element helpers: nodal interpolation of a function, the right-hand side (load
  vector with Dirichlet lifting), and L2 / H1 errors against an exact solution. These run once per
  problem, on the host, with Gauss quadrature of k+2 points per direction, at physical points: with a
  map (qboxgeo.c) the quadrature points, weights and gradients are those of the isoparametric cell.
*/
#include <petscvpatch/private/qboximpl.h>
#include <petscvpatch/private/vpcontract.h>
#include <petscdt.h>

#define NQMAX (VPATCH_MAX_N1D + 1)

/* Values and derivatives of the k+1 basis functions at the k+2 Gauss points of [0,1] */
typedef struct {
  PetscInt  nq;
  PetscReal x[NQMAX], w[NQMAX];
  PetscReal B[NQMAX * VPATCH_MAX_N1D], G[NQMAX * VPATCH_MAX_N1D]; /* [q][i] */
} QuadTable;

static PetscErrorCode QuadTableSetUp(const VPBasis1D *b, QuadTable *t)
{
  PetscInt n = b->k + 1;

  PetscFunctionBegin;
  t->nq = b->k + 2;
  PetscCall(PetscDTGaussQuadrature(t->nq, 0.0, 1.0, t->x, t->w));
  for (PetscInt q = 0; q < t->nq; q++) PetscCall(VPBasis1DEvaluate(b, t->x[q], &t->B[q * n], &t->G[q * n]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMQBoxProjectFunction - Interpolates a function at the nodes of a `DMQBOX`

  Collective

  Input Parameters:
+ dm  - the `DMQBOX`
. fn  - the function
- ctx - its context

  Output Parameter:
. u - a global vector of dm holding fn at every node

  Level: beginner

.seealso: `DMQBOX`, `DMQBoxComputeRHS()`, `DMQBoxComputeError()`
@*/
PetscErrorCode DMQBoxProjectFunction(DM dm, DMQBoxFunction fn, void *ctx, Vec u)
{
  DM_QBox     *q;
  PetscScalar *a;
  PetscInt     i = 0;

  PetscFunctionBegin;
  PetscCall(DMQBoxCheck_Private(dm, "DMQBoxProjectFunction"));
  q = (DM_QBox *)dm->data;
  PetscCall(VecGetArrayWrite(u, &a));
  for (PetscInt pz = q->grid.xs[2]; pz < q->grid.xs[2] + q->grid.xm[2]; pz++)
    for (PetscInt py = q->grid.xs[1]; py < q->grid.xs[1] + q->grid.xm[1]; py++)
      for (PetscInt px = q->grid.xs[0]; px < q->grid.xs[0] + q->grid.xm[0]; px++, i++) {
        PetscReal X[3] = {q->coords1d[0][px], q->coords1d[1][py], q->dim == 3 ? q->coords1d[2][pz] : 0.0}, x[3] = {0, 0, 0};
        PetscCall(DMQBoxMapPoint(dm, X, x));
        PetscCall(fn(q->dim, x, &a[i], NULL, ctx));
      }
  PetscCall(VecRestoreArrayWrite(u, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* loop helper: the global node coordinates of local node (ix,iy,iz) of cell c; stride: nodes per cell and direction
   not shared with the next cell (k continuous, k+1 discontinuous) */
static inline void NodeOf(const VPGrid *g, PetscInt stride, const PetscInt c[3], PetscInt ix, PetscInt iy, PetscInt iz, PetscInt p[3])
{
  p[0] = c[0] * stride + ix;
  p[1] = c[1] * stride + iy;
  p[2] = g->dim == 3 ? c[2] * stride + iz : 0;
}

/*@C
  DMQBoxComputeRHS - Computes the right-hand side of -div(a grad u) = f (a = 1: -Laplace u = f), u = g on the boundary

  Collective

  Input Parameters:
+ dm  - the `DMQBOX`
. f   - the source term, or `NULL` for f = 0
. g   - the Dirichlet data, or `NULL` for g = 0
- ctx - context passed to f and g

  Output Parameter:
. b - a global vector of dm: interior rows hold int f phi_i - (A g)_i (Gauss quadrature with k+2
      points per direction), boundary rows hold g at the node

  Level: beginner

  Note:
  With the operator of `DMCreateMatrix()` (identity on Dirichlet rows, Dirichlet columns
  eliminated), the solution of A u = b takes the value g at the boundary nodes.

.seealso: `DMQBOX`, `DMCreateMatrix()`, `DMQBoxComputeError()`
@*/
PetscErrorCode DMQBoxComputeRHS(DM dm, DMQBoxFunction f, DMQBoxFunction g, void *ctx, Vec b)
{
  DM_QBox         *q;
  const VPGrid    *gr;
  QuadTable        qt;
  Vec              bl;
  PetscScalar     *ba, *fq, *t1, *t2, *fe, *Ae = NULL, *gv = NULL, *cw = NULL;
  PetscReal       *xq, *J, *gw;
  const PetscReal *geo = NULL;
  PetscInt         dim, n, nz, nd, nq, nqz, nqd, stride;
  PetscBool        general;

  PetscFunctionBegin;
  PetscCall(DMQBoxCheck_Private(dm, "DMQBoxComputeRHS"));
  q      = (DM_QBox *)dm->data;
  stride = q->dg ? q->degree + 1 : q->degree;
  PetscCheck(!q->dg || !g, PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "DMQBoxComputeRHS() on the discontinuous space: the Nitsche terms are those of u = 0 on the boundary; pass NULL for g");
  gr      = &q->grid;
  dim     = q->dim;
  general = DMQBoxIsGeneral_Private(q);
  n       = q->degree + 1;
  nz      = dim == 3 ? n : 1;
  nd      = n * n * nz;
  PetscCall(QuadTableSetUp(&q->basis, &qt));
  nq  = qt.nq;
  nqz = dim == 3 ? nq : 1;
  nqd = nq * nq * nqz;
  PetscCall(PetscMalloc4(nqd, &fq, nqd, &t1, nqd, &t2, nd, &fe));
  PetscCall(PetscMalloc3(dim * nqd, &xq, dim * dim * nqd, &J, (dim + 2) * nqd, &gw));
  if (g) PetscCall(PetscMalloc2(general ? 1 : nd * nd, &Ae, 2 * nd, &gv));
  if (g && general) { /* the lifting by the operator's cell kernel */
    PetscCall(DMQBoxGetGeometry_Private(dm, &geo, NULL));
    PetscCall(PetscMalloc1(6 * nd, &cw));
  } else if (g)
    PetscCall(VPLaplacianCellMatrix_CPU(gr, &q->basis, NULL, Ae));
  PetscCall(DMGetLocalVector(dm, &bl));
  PetscCall(VecSet(bl, 0.0));
  PetscCall(VecGetArray(bl, &ba));
  for (PetscInt cz = gr->cs[2], ci = 0; cz < gr->cs[2] + gr->cm[2]; cz++)
    for (PetscInt cy = gr->cs[1]; cy < gr->cs[1] + gr->cm[1]; cy++)
      for (PetscInt cx = gr->cs[0]; cx < gr->cs[0] + gr->cm[0]; cx++, ci++) {
        PetscInt c[3] = {cx, cy, cz}, p[3], e = 0;
        for (PetscInt i = 0; i < nd; i++) fe[i] = 0.0;
        if (f) { /* int f phi_i = sum_q w_q det J_q f(x_q) phi_i(xhat_q) */
          PetscCall(DMQBoxCellGeometry_Private(dm, c, nq, qt.B, qt.G, xq, J, gw));
          for (PetscInt iz = 0; iz < nqz; iz++)
            for (PetscInt iy = 0; iy < nq; iy++)
              for (PetscInt ix = 0; ix < nq; ix++, e++) {
                PetscReal   x[3] = {0, 0, 0}, Jq[9], det;
                PetscScalar v;
                for (PetscInt d = 0; d < dim; d++) x[d] = xq[d * nqd + e];
                for (PetscInt i = 0; i < dim * dim; i++) Jq[i] = J[i * nqd + e];
                det = dim == 2 ? Jq[0] * Jq[3] - Jq[1] * Jq[2] : Jq[0] * (Jq[4] * Jq[8] - Jq[5] * Jq[7]) - Jq[1] * (Jq[3] * Jq[8] - Jq[5] * Jq[6]) + Jq[2] * (Jq[3] * Jq[7] - Jq[4] * Jq[6]);
                PetscCall(f(dim, x, &v, NULL, ctx));
                fq[e] = v * qt.w[ix] * qt.w[iy] * (dim == 3 ? qt.w[iz] : 1.0) * det;
              }
          /* fe = (B^T (x) B^T (x) B^T) fq */
          PetscInt e0[3] = {nq, nq, nqz}, e1[3] = {n, nq, nqz}, e2[3] = {n, n, nqz};
          VPContract(e0, 0, n, qt.B, PETSC_TRUE, fq, t1);
          if (dim == 2)
            VPContract(e1, 1, n, qt.B, PETSC_TRUE, t1, fe);
          else {
            VPContract(e1, 1, n, qt.B, PETSC_TRUE, t1, t2);
            VPContract(e2, 2, n, qt.B, PETSC_TRUE, t2, fe);
          }
        }
        if (g) { /* lifting: fe -= A_K g_B on the cells that touch the boundary */
          PetscBool touches = PETSC_FALSE;
          e                 = 0;
          for (PetscInt iz = 0; iz < nz; iz++)
            for (PetscInt iy = 0; iy < n; iy++)
              for (PetscInt ix = 0; ix < n; ix++, e++) {
                gv[e] = 0.0;
                NodeOf(gr, stride, c, ix, iy, iz, p);
                if (VPGridIsBoundary(gr, p)) {
                  PetscReal X[3] = {q->coords1d[0][p[0]], q->coords1d[1][p[1]], dim == 3 ? q->coords1d[2][p[2]] : 0.0}, x[3] = {0, 0, 0};
                  PetscCall(DMQBoxMapPoint(dm, X, x));
                  PetscCall(g(dim, x, &gv[e], NULL, ctx));
                  touches = PETSC_TRUE;
                }
              }
          if (touches && general) {
            PetscCall(VPMappedCellApply_CPU(dim, &q->basis, geo + ci * VPGeometryComponents(dim) * nd, gv, gv + nd, cw));
            for (PetscInt r = 0; r < nd; r++) fe[r] -= gv[nd + r];
          } else if (touches)
            for (PetscInt r = 0; r < nd; r++)
              for (PetscInt s = 0; s < nd; s++) fe[r] -= Ae[r * nd + s] * gv[s];
        }
        e = 0;
        for (PetscInt iz = 0; iz < nz; iz++)
          for (PetscInt iy = 0; iy < n; iy++)
            for (PetscInt ix = 0; ix < n; ix++, e++) {
              NodeOf(gr, stride, c, ix, iy, iz, p);
              if (q->dg || !VPGridIsBoundary(gr, p)) ba[VPGridLocalIndex(gr, p)] += fe[e];
            }
      }
  /* owned boundary rows: the Dirichlet value (ghost copies contribute zero to the ADD); none in the DG space */
  for (PetscInt pz = gr->xs[2]; pz < gr->xs[2] + (q->dg ? 0 : gr->xm[2]); pz++)
    for (PetscInt py = gr->xs[1]; py < gr->xs[1] + gr->xm[1]; py++)
      for (PetscInt px = gr->xs[0]; px < gr->xs[0] + gr->xm[0]; px++) {
        PetscInt p[3] = {px, py, pz};
        if (!VPGridIsBoundary(gr, p)) continue;
        PetscScalar v = 0.0;
        if (g) {
          PetscReal X[3] = {q->coords1d[0][px], q->coords1d[1][py], dim == 3 ? q->coords1d[2][pz] : 0.0}, x[3] = {0, 0, 0};
          PetscCall(DMQBoxMapPoint(dm, X, x));
          PetscCall(g(dim, x, &v, NULL, ctx));
        }
        ba[VPGridLocalIndex(gr, p)] = v;
      }
  PetscCall(VecRestoreArray(bl, &ba));
  PetscCall(VecSet(b, 0.0));
  PetscCall(DMLocalToGlobal(dm, bl, ADD_VALUES, b));
  PetscCall(DMRestoreLocalVector(dm, &bl));
  PetscCall(PetscFree4(fq, t1, t2, fe));
  PetscCall(PetscFree3(xq, J, gw));
  if (g) PetscCall(PetscFree2(Ae, gv));
  PetscCall(PetscFree(cw));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMQBoxComputeError - L2 norm and H1 seminorm of u - u_exact

  Collective

  Input Parameters:
+ dm    - the `DMQBOX`
. u     - a global vector of dm (the discrete solution)
. exact - the exact solution; it must fill the gradient when h1 is requested
- ctx   - its context

  Output Parameters:
+ l2 - || u - u_exact ||_{L2}, or `NULL`
- h1 - | u - u_exact |_{H1} (seminorm), or `NULL`

  Level: beginner

  Note:
  Gauss quadrature with k+2 points per direction on every cell.

.seealso: `DMQBOX`, `DMQBoxComputeRHS()`
@*/
PetscErrorCode DMQBoxComputeError(DM dm, Vec u, DMQBoxFunction exact, void *ctx, PetscReal *l2, PetscReal *h1)
{
  DM_QBox           *q;
  const VPGrid      *gr;
  QuadTable          qt;
  Vec                ul;
  const PetscScalar *ua;
  PetscScalar       *ue, *val, *grad[3], *t1, *t2;
  PetscReal         *xq, *J, *gw;
  PetscInt           dim, n, nz, nd, nq, nqz, nqd, stride;
  PetscReal          err[2] = {0, 0}, gerr[2];

  PetscFunctionBegin;
  PetscCall(DMQBoxCheck_Private(dm, "DMQBoxComputeError"));
  q      = (DM_QBox *)dm->data;
  stride = q->dg ? q->degree + 1 : q->degree;
  gr     = &q->grid;
  dim    = q->dim;
  n      = q->degree + 1;
  nz     = dim == 3 ? n : 1;
  nd     = n * n * nz;
  PetscCall(QuadTableSetUp(&q->basis, &qt));
  nq  = qt.nq;
  nqz = dim == 3 ? nq : 1;
  nqd = nq * nq * nqz;
  PetscCall(PetscMalloc4(nd, &ue, nqd, &val, nqd, &t1, nqd, &t2));
  PetscCall(PetscMalloc3(nqd, &grad[0], nqd, &grad[1], nqd, &grad[2]));
  PetscCall(PetscMalloc3(dim * nqd, &xq, dim * dim * nqd, &J, (dim + 2) * nqd, &gw));
  PetscCall(DMGetLocalVector(dm, &ul));
  PetscCall(DMGlobalToLocal(dm, u, INSERT_VALUES, ul));
  PetscCall(VecGetArrayRead(ul, &ua));
  for (PetscInt cz = gr->cs[2]; cz < gr->cs[2] + gr->cm[2]; cz++)
    for (PetscInt cy = gr->cs[1]; cy < gr->cs[1] + gr->cm[1]; cy++)
      for (PetscInt cx = gr->cs[0]; cx < gr->cs[0] + gr->cm[0]; cx++) {
        PetscInt c[3] = {cx, cy, cz}, p[3], e = 0;
        for (PetscInt iz = 0; iz < nz; iz++)
          for (PetscInt iy = 0; iy < n; iy++)
            for (PetscInt ix = 0; ix < n; ix++, e++) {
              NodeOf(gr, stride, c, ix, iy, iz, p);
              ue[e] = ua[VPGridLocalIndex(gr, p)];
            }
        PetscCall(DMQBoxCellGeometry_Private(dm, c, nq, qt.B, qt.G, xq, J, gw));
        /* value and reference gradient (only when h1 is requested) at the quadrature points by sum factorization */
        for (PetscInt comp = -1; comp < (h1 ? dim : 0); comp++) {
          PetscInt     e0[3] = {n, n, nz}, e1[3] = {nq, n, nz}, e2[3] = {nq, nq, nz};
          PetscScalar *out = comp < 0 ? val : grad[comp];
          VPContract(e0, 0, nq, comp == 0 ? qt.G : qt.B, PETSC_FALSE, ue, t1);
          if (dim == 2)
            VPContract(e1, 1, nq, comp == 1 ? qt.G : qt.B, PETSC_FALSE, t1, out);
          else {
            VPContract(e1, 1, nq, comp == 1 ? qt.G : qt.B, PETSC_FALSE, t1, t2);
            VPContract(e2, 2, nq, comp == 2 ? qt.G : qt.B, PETSC_FALSE, t2, out);
          }
        }
        e = 0;
        for (PetscInt iz = 0; iz < nqz; iz++)
          for (PetscInt iy = 0; iy < nq; iy++)
            for (PetscInt ix = 0; ix < nq; ix++, e++) {
              PetscReal   x[3] = {0, 0, 0}, Jq[9], Ji[9], det, w;
              PetscScalar v, dv[3] = {0, 0, 0};
              for (PetscInt d = 0; d < dim; d++) x[d] = xq[d * nqd + e];
              for (PetscInt i = 0; i < dim * dim; i++) Jq[i] = J[i * nqd + e];
              if (dim == 2) {
                det   = Jq[0] * Jq[3] - Jq[1] * Jq[2];
                Ji[0] = Jq[3] / det, Ji[1] = -Jq[1] / det, Ji[2] = -Jq[2] / det, Ji[3] = Jq[0] / det;
              } else {
                det   = Jq[0] * (Jq[4] * Jq[8] - Jq[5] * Jq[7]) - Jq[1] * (Jq[3] * Jq[8] - Jq[5] * Jq[6]) + Jq[2] * (Jq[3] * Jq[7] - Jq[4] * Jq[6]);
                Ji[0] = (Jq[4] * Jq[8] - Jq[5] * Jq[7]) / det, Ji[1] = (Jq[2] * Jq[7] - Jq[1] * Jq[8]) / det, Ji[2] = (Jq[1] * Jq[5] - Jq[2] * Jq[4]) / det;
                Ji[3] = (Jq[5] * Jq[6] - Jq[3] * Jq[8]) / det, Ji[4] = (Jq[0] * Jq[8] - Jq[2] * Jq[6]) / det, Ji[5] = (Jq[2] * Jq[3] - Jq[0] * Jq[5]) / det;
                Ji[6] = (Jq[3] * Jq[7] - Jq[4] * Jq[6]) / det, Ji[7] = (Jq[1] * Jq[6] - Jq[0] * Jq[7]) / det, Ji[8] = (Jq[0] * Jq[4] - Jq[1] * Jq[3]) / det;
              }
              w = qt.w[ix] * qt.w[iy] * (dim == 3 ? qt.w[iz] : 1.0) * PetscAbsReal(det);
              PetscCall(exact(dim, x, &v, h1 ? dv : NULL, ctx));
              err[0] += w * PetscRealPart(PetscConj(val[e] - v) * (val[e] - v));
              if (h1)
                for (PetscInt a = 0; a < dim; a++) { /* physical gradient: J^-T times the reference gradient */
                  PetscScalar ga = 0;
                  for (PetscInt b = 0; b < dim; b++) ga += Ji[b * dim + a] * grad[b][e];
                  err[1] += w * PetscRealPart(PetscConj(ga - dv[a]) * (ga - dv[a]));
                }
            }
      }
  PetscCall(VecRestoreArrayRead(ul, &ua));
  PetscCall(DMRestoreLocalVector(dm, &ul));
  PetscCall(PetscFree4(ue, val, t1, t2));
  PetscCall(PetscFree3(grad[0], grad[1], grad[2]));
  PetscCall(PetscFree3(xq, J, gw));
  PetscCallMPI(MPIU_Allreduce(err, gerr, 2, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)dm)));
  if (l2) *l2 = PetscSqrtReal(gerr[0]);
  if (h1) *h1 = PetscSqrtReal(gerr[1]);
  PetscFunctionReturn(PETSC_SUCCESS);
}
