/*
  The 1D matrices of the symmetric interior penalty (SIPG) discretization on a uniform mesh of n cells of size h
  (include/petscvpatch/private/vpdg.h says how they make the d-dimensional operator).

  Basis: the Gauss-Lobatto Lagrange basis of VPBasis1D on each cell, e0/e1 its values and d0/d1 its derivatives (on
  the reference cell) at the cell's left/right end. With [u] = u^- - u^+ (left minus right) and {u'} the average,
  an interior face contributes -{u'}[v] - [u]{v'} + sigma [u][v]; the boundary faces (Nitsche, u = 0) contribute
  -(u' n) v - u (v' n) + sigma u v with the outward normal n = -1 at x = 0 and +1 at x = 1; sigma = C k (k+1) / h.
*/
#include <petscvpatch/private/vpatchimpl.h>
#include <petscvpatch/private/vpdg.h>
#include <lapacke.h>

/*@C
  VPDG1DSetUp - The blocks of the 1D SIPG matrix and of the mass matrix on n uniform cells

  Not Collective

  Input Parameters:
+ b - the 1D basis data (`VPBasis1DSetUp()`)
. n - the number of cells, at least 1
. h - the cell size
- C - the penalty factor: sigma = C k (k+1) / h (2 or more keeps the form coercive)

  Output Parameter:
. dg - the blocks

  Level: developer

.seealso: `VPDG1DDense()`, `VPBasis1DSetUp()`
@*/
PetscErrorCode VPDG1DSetUp(const VPBasis1D *b, PetscInt n, PetscReal h, PetscReal C, VPDG1D *dg)
{
  const PetscInt N = b->k + 1;
  PetscReal      e0[VPATCH_MAX_N1D], e1[VPATCH_MAX_N1D], d0[VPATCH_MAX_N1D], d1[VPATCH_MAX_N1D], s;

  PetscFunctionBegin;
  PetscCheck(n >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "A 1D DG mesh needs at least one cell, got %" PetscInt_FMT, n);
  PetscCheck(h > 0 && C > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Cell size %g and penalty factor %g must be positive", (double)h, (double)C);
  PetscCall(PetscMemzero(dg, sizeof(*dg)));
  dg->k     = b->k;
  dg->n     = n;
  dg->h     = h;
  dg->sigma = s = C * b->k * (b->k + 1) / h;
  PetscCall(VPBasis1DEvaluate(b, 0.0, e0, d0));
  PetscCall(VPBasis1DEvaluate(b, 1.0, e1, d1));
  for (PetscInt i = 0; i < N; i++) { /* derivatives on a cell of size h */
    d0[i] /= h;
    d1[i] /= h;
  }
  for (PetscInt j = 0; j < N; j++) /* row j (test function), column i (trial function) */
    for (PetscInt i = 0; i < N; i++) {
      const PetscInt ji   = j * N + i;
      PetscReal      cell = b->K[ji] / h;
      /* self terms of the face at the cell's right end (the cell is its left side) and at its left end (right side) */
      PetscReal right = -0.5 * (d1[i] * e1[j] + e1[i] * d1[j]) + s * e1[i] * e1[j];
      PetscReal left  = 0.5 * (d0[i] * e0[j] + e0[i] * d0[j]) + s * e0[i] * e0[j];
      /* the boundary faces: one-sided values, the whole normal derivative */
      PetscReal bleft  = d0[i] * e0[j] + e0[i] * d0[j] + s * e0[i] * e0[j];
      PetscReal bright = -(d1[i] * e1[j] + e1[i] * d1[j]) + s * e1[i] * e1[j];

      dg->M[ji]      = h * b->M[ji];
      dg->Din[ji]    = cell + left + right;
      dg->Dfirst[ji] = cell + bleft + right;
      dg->Dlast[ji]  = cell + left + bright;
      dg->Done[ji]   = cell + bleft + bright;
      /* rows of the left cell (test e1_j, d1_j), columns of the right cell (trial, [u] = -e0_i, {u'} = d0_i / 2) */
      dg->U[ji] = -0.5 * d0[i] * e1[j] + 0.5 * e0[i] * d1[j] - s * e0[i] * e1[j];
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  VPDG1DDense - The dense 1D SIPG and mass matrices of `VPDG1DSetUp()`

  Not Collective

  Input Parameter:
. dg - the blocks

  Output Parameters:
+ L - the SIPG matrix, (n (k+1))^2 entries, row-major, or `NULL`
- M - the mass matrix, likewise, or `NULL`

  Level: developer

.seealso: `VPDG1DSetUp()`
@*/
PetscErrorCode VPDG1DDense(const VPDG1D *dg, PetscReal *L, PetscReal *M)
{
  const PetscInt N = dg->k + 1, n = dg->n, S = n * N;

  PetscFunctionBegin;
  if (L) PetscCall(PetscArrayzero(L, S * S));
  if (M) PetscCall(PetscArrayzero(M, S * S));
  for (PetscInt c = 0; c < n; c++) {
    const PetscReal *D = VPDGDiagBlock(dg, c);
    for (PetscInt j = 0; j < N; j++)
      for (PetscInt i = 0; i < N; i++) {
        const PetscInt r = c * N + j, col = c * N + i;
        if (L) {
          L[r * S + col] = D[j * N + i];
          if (c + 1 < n) {
            L[r * S + col + N]   = dg->U[j * N + i]; /* rows c, columns c + 1 */
            L[(col + N) * S + r] = dg->U[j * N + i]; /* rows c + 1, columns c: the transpose */
          }
        }
        if (M) M[r * S + col] = dg->M[j * N + i];
      }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VPDG1DMinEigenvalue(const VPBasis1D *b, PetscInt n, PetscReal C, PetscReal *L, PetscReal *M, PetscReal *lam, PetscReal *lmin)
{
  VPDG1D         dg;
  const PetscInt S = n * (b->k + 1);

  PetscFunctionBegin;
  PetscCall(VPDG1DSetUp(b, n, 1.0 / n, C, &dg));
  PetscCall(VPDG1DDense(&dg, L, M));
  PetscCheck(!LAPACKE_dsygv(LAPACK_ROW_MAJOR, 1, 'N', 'U', (lapack_int)S, L, (lapack_int)S, M, (lapack_int)S, lam), PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACKE_dsygv failed for the 1D SIPG matrix");
  *lmin = lam[0]; /* ascending */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  VPDG1DCoercivity - Whether the 1D SIPG form with penalty factor C is coercive: the smallest eigenvalue of L q = lambda M q

  Not Collective

  Input Parameters:
+ b - the 1D basis data (`VPBasis1DSetUp()`)
. n - the number of cells (the mesh [0, 1] in n cells: the form scales with 1/h^2, so the sign does not depend on h)
- C - the penalty factor: sigma = C k (k+1) / h

  Output Parameters:
+ lmin - the smallest eigenvalue; the form is coercive if and only if it is positive. The d-dimensional operator is a sum
         of Kronecker products of L and M, so it is positive definite exactly when this is positive.
- Cmin - (optional) the smallest penalty factor that keeps the form coercive on these n cells, to 1%

  Level: developer

.seealso: `VPDG1DSetUp()`
@*/
PetscErrorCode VPDG1DCoercivity(const VPBasis1D *b, PetscInt n, PetscReal C, PetscReal *lmin, PetscReal *Cmin)
{
  const PetscInt S = n * (b->k + 1);
  PetscReal     *L, *M, *lam;

  PetscFunctionBegin;
  PetscCall(PetscMalloc3(S * S, &L, S * S, &M, S, &lam));
  PetscCall(VPDG1DMinEigenvalue(b, n, C, L, M, lam, lmin));
  if (Cmin) { /* lo not coercive, hi coercive */
    PetscReal lo = 1e-6, hi = 1.0, l;
    PetscCall(VPDG1DMinEigenvalue(b, n, hi, L, M, lam, &l));
    while (l <= 0) {
      lo = hi;
      hi *= 2;
      PetscCheck(hi < 1e6, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No penalty factor up to 1e6 makes the 1D SIPG form coercive");
      PetscCall(VPDG1DMinEigenvalue(b, n, hi, L, M, lam, &l));
    }
    while (hi - lo > 0.005 * hi) {
      const PetscReal mid = 0.5 * (lo + hi);
      PetscCall(VPDG1DMinEigenvalue(b, n, mid, L, M, lam, &l));
      if (l > 0)
        hi = mid;
      else
        lo = mid;
    }
    *Cmin = hi;
  }
  PetscCall(PetscFree3(L, M, lam));
  PetscFunctionReturn(PETSC_SUCCESS);
}
