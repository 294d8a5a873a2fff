/*
  The 1D building blocks of Q_k on [0,1]: Gauss-Lobatto nodes, Lagrange basis values and
  derivatives at Gauss points, reference mass and stiffness matrices, and the two-child
  prolongation matrix. Everything else (cell operators, patch matrices, transfers) is a
  tensor product of these.
*/
#include <petscvpatch/private/vpatchimpl.h>
#include <petscdt.h>

/* Lagrange basis function i of the nodes x[0..n-1], and its derivative, at t */
static void LagrangeEval(PetscInt n, const PetscReal x[], PetscInt i, PetscReal t, PetscReal *val, PetscReal *der)
{
  PetscReal v = 1.0, dv = 0.0;

  for (PetscInt j = 0; j < n; j++) {
    if (j == i) continue;
    PetscReal f = (t - x[j]) / (x[i] - x[j]);
    dv          = dv * f + v / (x[i] - x[j]);
    v *= f;
  }
  if (val) *val = v;
  if (der) *der = dv;
}

/*@C
  VPBasis1DSetUp - Fills the 1D reference data of Q_k on [0,1]

  Not Collective

  Input Parameter:
. k - the polynomial degree, 1 <= k <= VPATCH_MAX_DEGREE

  Output Parameter:
. b - the basis data

  Level: developer

.seealso: `VPBasis1D`, `DMQBOX`
@*/
PetscErrorCode VPBasis1DSetUp(PetscInt k, VPBasis1D *b)
{
  PetscInt  n = k + 1;
  PetscReal x[VPATCH_MAX_N1D], w[VPATCH_MAX_N1D];

  PetscFunctionBegin;
  PetscCheck(k >= 1 && k <= VPATCH_MAX_DEGREE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Polynomial degree %" PetscInt_FMT " is not supported: use 1 <= degree <= %d", k, VPATCH_MAX_DEGREE);
  PetscCall(PetscMemzero(b, sizeof(*b)));
  b->k = k;
  PetscCall(PetscDTGaussLobattoLegendreQuadrature(n, PETSCGAUSSLOBATTOLEGENDRE_VIA_NEWTON, x, w));
  for (PetscInt i = 0; i < n; i++) b->nodes[i] = 0.5 * (x[i] + 1.0);
  b->nodes[0] = 0.0;
  b->nodes[k] = 1.0;
  PetscCall(PetscDTGaussQuadrature(n, 0.0, 1.0, b->qpts, b->qwts));
  for (PetscInt q = 0; q < n; q++)
    for (PetscInt i = 0; i < n; i++) LagrangeEval(n, b->nodes, i, b->qpts[q], &b->S[q * n + i], &b->D[q * n + i]);
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) {
      PetscReal m = 0, s = 0;
      for (PetscInt q = 0; q < n; q++) {
        m += b->qwts[q] * b->S[q * n + i] * b->S[q * n + j];
        s += b->qwts[q] * b->D[q * n + i] * b->D[q * n + j];
      }
      b->M[i * n + j] = m;
      b->K[i * n + j] = s;
    }
  /* fine nodes of the two children [0,1/2], [1/2,1]: 2k+1 of them */
  for (PetscInt f = 0; f < 2 * k + 1; f++) {
    PetscReal t = f <= k ? 0.5 * b->nodes[f] : 0.5 + 0.5 * b->nodes[f - k];
    for (PetscInt c = 0; c < n; c++) {
      PetscReal v;
      LagrangeEval(n, b->nodes, c, t, &v, NULL);
      if (PetscAbsReal(v) < 1e-14) v = 0.0; /* exact zeros where a coarse node coincides with a fine one */
      if (PetscAbsReal(v - 1.0) < 1e-14) v = 1.0;
      b->P[f * n + c] = v;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  VPBasis1DEvaluate - Values and derivatives of the k+1 basis functions at a point of [0,1]

  Not Collective

  Input Parameters:
+ b - the basis data
- t - the point

  Output Parameters:
+ val - basis values (k+1), or `NULL`
- der - basis derivatives (k+1), or `NULL`

  Level: developer

.seealso: `VPBasis1DSetUp()`
@*/
PetscErrorCode VPBasis1DEvaluate(const VPBasis1D *b, PetscReal t, PetscReal val[], PetscReal der[])
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i <= b->k; i++) LagrangeEval(b->k + 1, b->nodes, i, t, val ? &val[i] : NULL, der ? &der[i] : NULL);
  PetscFunctionReturn(PETSC_SUCCESS);
}
