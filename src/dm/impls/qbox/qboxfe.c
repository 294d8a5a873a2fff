/*
  DMQBOX finite-element helpers: nodal interpolation of a function, the right-hand side (load
  vector with Dirichlet lifting), and L2 / H1 errors against an exact solution. These run once per
  problem, on the host, with Gauss quadrature of k+2 points per direction.
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
        PetscReal x[3] = {q->coords1d[0][px], q->coords1d[1][py], q->dim == 3 ? q->coords1d[2][pz] : 0.0};
        PetscCall(fn(q->dim, x, &a[i], NULL, ctx));
      }
  PetscCall(VecRestoreArrayWrite(u, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* loop helper: the global node coordinates of local node (ix,iy,iz) of cell c */
static inline void NodeOf(const VPGrid *g, const PetscInt c[3], PetscInt ix, PetscInt iy, PetscInt iz, PetscInt p[3])
{
  p[0] = c[0] * g->k + ix;
  p[1] = c[1] * g->k + iy;
  p[2] = g->dim == 3 ? c[2] * g->k + iz : 0;
}

/*@C
  DMQBoxComputeRHS - Computes the right-hand side of -Laplace u = f, u = g on the boundary

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
  DM_QBox      *q;
  const VPGrid *gr;
  QuadTable     qt;
  Vec           bl;
  PetscScalar  *ba, *fq, *t1, *t2, *fe, *Ae = NULL, *gv = NULL;
  PetscInt      n, nz, nd, nq, nqz;

  PetscFunctionBegin;
  PetscCall(DMQBoxCheck_Private(dm, "DMQBoxComputeRHS"));
  q  = (DM_QBox *)dm->data;
  gr = &q->grid;
  n  = q->degree + 1;
  nz = q->dim == 3 ? n : 1;
  nd = n * n * nz;
  PetscCall(QuadTableSetUp(&q->basis, &qt));
  nq  = qt.nq;
  nqz = q->dim == 3 ? nq : 1;
  PetscCall(PetscMalloc4(nq * nq * nqz, &fq, nq * nq * nqz, &t1, nq * nq * nqz, &t2, nd, &fe));
  if (g) PetscCall(PetscMalloc2(nd * nd, &Ae, nd, &gv));
  if (g) PetscCall(VPLaplacianCellMatrix_CPU(gr, &q->basis, Ae));
  PetscCall(DMGetLocalVector(dm, &bl));
  PetscCall(VecSet(bl, 0.0));
  PetscCall(VecGetArray(bl, &ba));
  for (PetscInt cz = gr->cs[2]; cz < gr->cs[2] + gr->cm[2]; cz++)
    for (PetscInt cy = gr->cs[1]; cy < gr->cs[1] + gr->cm[1]; cy++)
      for (PetscInt cx = gr->cs[0]; cx < gr->cs[0] + gr->cm[0]; cx++) {
        PetscInt  c[3] = {cx, cy, cz}, p[3], e = 0;
        PetscReal vol = 1.0;
        for (PetscInt d = 0; d < q->dim; d++) vol *= gr->h[d];
        for (PetscInt i = 0; i < nd; i++) fe[i] = 0.0;
        if (f) {
          for (PetscInt iz = 0; iz < nqz; iz++)
            for (PetscInt iy = 0; iy < nq; iy++)
              for (PetscInt ix = 0; ix < nq; ix++, e++) {
                PetscReal   x[3] = {q->lower[0] + (cx + qt.x[ix]) * gr->h[0], q->lower[1] + (cy + qt.x[iy]) * gr->h[1], q->dim == 3 ? q->lower[2] + (cz + qt.x[iz]) * gr->h[2] : 0.0};
                PetscScalar v;
                PetscCall(f(q->dim, x, &v, NULL, ctx));
                fq[e] = v * qt.w[ix] * qt.w[iy] * (q->dim == 3 ? qt.w[iz] : 1.0) * vol;
              }
          /* fe = (B^T (x) B^T (x) B^T) fq */
          PetscInt e0[3] = {nq, nq, nqz}, e1[3] = {n, nq, nqz}, e2[3] = {n, n, nqz};
          VPContract(e0, 0, n, qt.B, PETSC_TRUE, fq, t1);
          if (q->dim == 2)
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
                NodeOf(gr, c, ix, iy, iz, p);
                if (VPGridIsBoundary(gr, p)) {
                  PetscReal x[3] = {q->coords1d[0][p[0]], q->coords1d[1][p[1]], q->dim == 3 ? q->coords1d[2][p[2]] : 0.0};
                  PetscCall(g(q->dim, x, &gv[e], NULL, ctx));
                  touches = PETSC_TRUE;
                }
              }
          if (touches)
            for (PetscInt r = 0; r < nd; r++)
              for (PetscInt s = 0; s < nd; s++) fe[r] -= Ae[r * nd + s] * gv[s];
        }
        e = 0;
        for (PetscInt iz = 0; iz < nz; iz++)
          for (PetscInt iy = 0; iy < n; iy++)
            for (PetscInt ix = 0; ix < n; ix++, e++) {
              NodeOf(gr, c, ix, iy, iz, p);
              if (!VPGridIsBoundary(gr, p)) ba[VPGridLocalIndex(gr, p)] += fe[e];
            }
      }
  /* owned boundary rows: the Dirichlet value (ghost copies contribute zero to the ADD) */
  for (PetscInt pz = gr->xs[2]; pz < gr->xs[2] + gr->xm[2]; pz++)
    for (PetscInt py = gr->xs[1]; py < gr->xs[1] + gr->xm[1]; py++)
      for (PetscInt px = gr->xs[0]; px < gr->xs[0] + gr->xm[0]; px++) {
        PetscInt p[3] = {px, py, pz};
        if (!VPGridIsBoundary(gr, p)) continue;
        PetscScalar v = 0.0;
        if (g) {
          PetscReal x[3] = {q->coords1d[0][px], q->coords1d[1][py], q->dim == 3 ? q->coords1d[2][pz] : 0.0};
          PetscCall(g(q->dim, x, &v, NULL, ctx));
        }
        ba[VPGridLocalIndex(gr, p)] = v;
      }
  PetscCall(VecRestoreArray(bl, &ba));
  PetscCall(VecSet(b, 0.0));
  PetscCall(DMLocalToGlobal(dm, bl, ADD_VALUES, b));
  PetscCall(DMRestoreLocalVector(dm, &bl));
  PetscCall(PetscFree4(fq, t1, t2, fe));
  if (g) PetscCall(PetscFree2(Ae, gv));
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
  PetscInt           n, nz, nd, nq, nqz, nqd;
  PetscReal          err[2] = {0, 0}, gerr[2];

  PetscFunctionBegin;
  PetscCall(DMQBoxCheck_Private(dm, "DMQBoxComputeError"));
  q  = (DM_QBox *)dm->data;
  gr = &q->grid;
  n  = q->degree + 1;
  nz = q->dim == 3 ? n : 1;
  nd = n * n * nz;
  PetscCall(QuadTableSetUp(&q->basis, &qt));
  nq  = qt.nq;
  nqz = q->dim == 3 ? nq : 1;
  nqd = nq * nq * nqz;
  PetscCall(PetscMalloc4(nd, &ue, nqd, &val, nqd, &t1, nqd, &t2));
  PetscCall(PetscMalloc3(nqd, &grad[0], nqd, &grad[1], nqd, &grad[2]));
  PetscCall(DMGetLocalVector(dm, &ul));
  PetscCall(DMGlobalToLocal(dm, u, INSERT_VALUES, ul));
  PetscCall(VecGetArrayRead(ul, &ua));
  for (PetscInt cz = gr->cs[2]; cz < gr->cs[2] + gr->cm[2]; cz++)
    for (PetscInt cy = gr->cs[1]; cy < gr->cs[1] + gr->cm[1]; cy++)
      for (PetscInt cx = gr->cs[0]; cx < gr->cs[0] + gr->cm[0]; cx++) {
        PetscInt  c[3] = {cx, cy, cz}, p[3], e = 0;
        PetscReal vol = 1.0;
        for (PetscInt d = 0; d < q->dim; d++) vol *= gr->h[d];
        for (PetscInt iz = 0; iz < nz; iz++)
          for (PetscInt iy = 0; iy < n; iy++)
            for (PetscInt ix = 0; ix < n; ix++, e++) {
              NodeOf(gr, c, ix, iy, iz, p);
              ue[e] = ua[VPGridLocalIndex(gr, p)];
            }
        /* value and gradient (only when h1 is requested) at the quadrature points by sum factorization */
        for (PetscInt comp = -1; comp < (h1 ? q->dim : 0); comp++) {
          PetscInt     e0[3] = {n, n, nz}, e1[3] = {nq, n, nz}, e2[3] = {nq, nq, nz};
          PetscScalar *out = comp < 0 ? val : grad[comp];
          VPContract(e0, 0, nq, comp == 0 ? qt.G : qt.B, PETSC_FALSE, ue, t1);
          if (q->dim == 2)
            VPContract(e1, 1, nq, comp == 1 ? qt.G : qt.B, PETSC_FALSE, t1, out);
          else {
            VPContract(e1, 1, nq, comp == 1 ? qt.G : qt.B, PETSC_FALSE, t1, t2);
            VPContract(e2, 2, nq, comp == 2 ? qt.G : qt.B, PETSC_FALSE, t2, out);
          }
          if (comp >= 0)
            for (PetscInt i = 0; i < nqd; i++) out[i] /= gr->h[comp];
        }
        e = 0;
        for (PetscInt iz = 0; iz < nqz; iz++)
          for (PetscInt iy = 0; iy < nq; iy++)
            for (PetscInt ix = 0; ix < nq; ix++, e++) {
              PetscReal   x[3] = {q->lower[0] + (cx + qt.x[ix]) * gr->h[0], q->lower[1] + (cy + qt.x[iy]) * gr->h[1], q->dim == 3 ? q->lower[2] + (cz + qt.x[iz]) * gr->h[2] : 0.0};
              PetscReal   w    = qt.w[ix] * qt.w[iy] * (q->dim == 3 ? qt.w[iz] : 1.0) * vol;
              PetscScalar v, dv[3] = {0, 0, 0};
              PetscCall(exact(q->dim, x, &v, h1 ? dv : NULL, ctx));
              err[0] += w * PetscRealPart(PetscConj(val[e] - v) * (val[e] - v));
              if (h1)
                for (PetscInt d = 0; d < q->dim; d++) err[1] += w * PetscRealPart(PetscConj(grad[d][e] - dv[d]) * (grad[d][e] - dv[d]));
            }
      }
  PetscCall(VecRestoreArrayRead(ul, &ua));
  PetscCall(DMRestoreLocalVector(dm, &ul));
  PetscCall(PetscFree4(ue, val, t1, t2));
  PetscCall(PetscFree3(grad[0], grad[1], grad[2]));
  PetscCallMPI(MPIU_Allreduce(err, gerr, 2, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)dm)));
  if (l2) *l2 = PetscSqrtReal(gerr[0]);
  if (h1) *h1 = PetscSqrtReal(gerr[1]);
  PetscFunctionReturn(PETSC_SUCCESS);
}
