/*
  The discontinuous Q_k (SIPG) operator on a Cartesian box, CPU kernel (include/petscvpatch/private/vpdg.h).

  y = sum_e (M (x) .. (x) L_e (x) .. (x) M) x for the owned cells of a rank, by sum factorization cell by cell: for
  direction e the 1D SIPG matrix L_e is block tridiagonal (a cell's diagonal block, the coupling block U to the right
  neighbour and U^T to the left one), so a cell's rows need the cell's own values and those of its two neighbours
  along e (the ghost layer of one cell), contracted along e, then multiplied by the cell mass block along the other
  directions. Layout: the local box of DG nodes, (k+1) per cell and direction, x fastest; g->gxs / g->gxm are in nodes
  and hold every owned cell and its face neighbours.
*/
#include <petscvpatch/private/vpdg.h>
#include <lapacke.h>

/*@C
  VPDGApply_CPU - y += A x on the owned cells of a rank, A the SIPG operator of a Cartesian box (Kronecker sum of the
  1D blocks of each direction)

  Not Collective

  Input Parameters:
+ g  - the rank's part: dim, k, cells N[], owned cells cs[]/cm[], local box gxs[]/gxm[] in DG nodes ((k+1) per cell)
. dg - the 1D blocks of each direction (`VPDG1DSetUp()` with n = g->N[e], h = g->h[e])
- xl - the local box's values (owned cells and their face neighbours)

  Output Parameter:
. yl - the owned cells' rows are incremented

  Level: developer

.seealso: `VPDG1DSetUp()`
@*/
PetscErrorCode VPDGApply_CPU(const VPGrid *g, const VPDG1D dg[], const PetscScalar *xl, PetscScalar *yl)
{
  const PetscInt N = g->k + 1, dim = g->dim, nd = dim == 3 ? N * N * N : N * N;
  const PetscInt str[3] = {1, g->gxm[0], g->gxm[0] * g->gxm[1]};
  PetscScalar    a[VPATCH_MAX_N1D * VPATCH_MAX_N1D * VPATCH_MAX_N1D], b[VPATCH_MAX_N1D * VPATCH_MAX_N1D * VPATCH_MAX_N1D];

  PetscFunctionBegin;
  PetscCheck(dim == 2 || dim == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Dimension %" PetscInt_FMT " is not 2 or 3", dim);
  for (PetscInt e = 0; e < dim; e++) {
    PetscCheck(dg[e].k == g->k && dg[e].n == g->N[e], PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The 1D blocks of direction %" PetscInt_FMT " are for degree %" PetscInt_FMT " on %" PetscInt_FMT " cells, the grid has %" PetscInt_FMT " on %" PetscInt_FMT,
               e, dg[e].k, dg[e].n, g->k, g->N[e]);
    PetscCheck(g->gxs[e] <= PetscMax(g->cs[e] - 1, 0) * N && g->gxs[e] + g->gxm[e] >= PetscMin(g->cs[e] + g->cm[e] + 1, g->N[e]) * N, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
               "The local box of direction %" PetscInt_FMT " does not hold the owned cells and their neighbours", e);
  }
  for (PetscInt cz = g->cs[2]; cz < g->cs[2] + (dim == 3 ? g->cm[2] : 1); cz++)
    for (PetscInt cy = g->cs[1]; cy < g->cs[1] + g->cm[1]; cy++)
      for (PetscInt cx = g->cs[0]; cx < g->cs[0] + g->cm[0]; cx++) {
        const PetscInt c[3] = {cx, cy, dim == 3 ? cz : 0}, base = (c[0] * N - g->gxs[0]) * str[0] + (c[1] * N - g->gxs[1]) * str[1] + (dim == 3 ? (c[2] * N - g->gxs[2]) * str[2] : 0);

        for (PetscInt e = 0; e < dim; e++) {
          /* a = (L_e x) restricted to this cell: the blocks of the cell and of its neighbours along e, contracted along e */
          for (PetscInt p = 0; p < nd; p++) a[p] = 0;
          for (PetscInt o = -1; o <= 1; o++) {
            const PetscInt   cn = c[e] + o;
            const PetscReal *B;
            PetscBool        tr = PETSC_FALSE;
            if (cn < 0 || cn >= g->N[e]) continue;
            if (o == 0)
              B = VPDGDiagBlock(&dg[e], c[e]);
            else if (o == 1)
              B = dg[e].U;
            else {
              B  = dg[e].U; /* rows c, columns c - 1: U^T */
              tr = PETSC_TRUE;
            }
            for (PetscInt p = 0; p < nd; p++) {
              const PetscInt i[3] = {p % N, (p / N) % N, dim == 3 ? p / (N * N) : 0}, row = base + i[0] * str[0] + i[1] * str[1] + i[2] * str[2] - i[e] * str[e] + o * N * str[e];
              PetscScalar    s = 0;
              for (PetscInt j = 0; j < N; j++) s += (tr ? B[j * N + i[e]] : B[i[e] * N + j]) * xl[row + j * str[e]];
              a[p] += s;
            }
          }
          /* the cell mass block along the other directions */
          for (PetscInt f = 0; f < dim; f++) {
            const PetscInt sf = f == 0 ? 1 : (f == 1 ? N : N * N);
            if (f == e) continue;
            for (PetscInt p = 0; p < nd; p++) {
              const PetscInt i = (p / sf) % N;
              PetscScalar    s = 0;
              for (PetscInt j = 0; j < N; j++) s += dg[f].M[i * N + j] * a[p + (j - i) * sf];
              b[p] = s;
            }
            for (PetscInt p = 0; p < nd; p++) a[p] = b[p];
          }
          for (PetscInt p = 0; p < nd; p++) yl[base + (p % N) * str[0] + ((p / N) % N) * str[1] + (dim == 3 ? (p / (N * N)) * str[2] : 0)] += a[p];
        }
      }
  PetscCall(PetscLogFlops((PetscLogDouble)g->cm[0] * g->cm[1] * (dim == 3 ? g->cm[2] : 1) * dim * nd * (3 * 2 * N + (dim - 1) * 2 * N + 1)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the N x N block of the embedding for child ch (0: lower, 1: upper half) of a cell: rows ch k .. ch k + k of VPBasis1D's P */
static inline PetscReal VPDGEmbed(const VPBasis1D *b, PetscInt ch, PetscInt f, PetscInt c)
{
  return b->P[(ch * b->k + f) * (b->k + 1) + c];
}

/*@C
  VPDGTransfer_CPU - The embedding of discontinuous Q_k from a coarse box into its uniform refinement, or its
  transpose, cell by cell (each fine cell's values are its parent's polynomial at its nodes)

  Not Collective

  Input Parameters:
+ gc, gf - the coarse and fine parts of this rank (aligned: the fine owned cells are the children of the coarse owned
           ones), local boxes in DG nodes
. b      - the 1D basis data (its two-children matrix P)
. transp - `PETSC_FALSE`: yf += P xc on the owned fine cells; `PETSC_TRUE`: yc += P^T xf on the owned coarse cells
- x      - the input local box (coarse for P, fine for P^T)

  Output Parameter:
. y - the output local box, incremented on the owned cells

  Level: developer

.seealso: `VPDGApply_CPU()`
@*/
PetscErrorCode VPDGTransfer_CPU(const VPGrid *gc, const VPGrid *gf, const VPBasis1D *b, PetscBool transp, const PetscScalar *x, PetscScalar *y)
{
  const PetscInt N = b->k + 1, dim = gf->dim, nd = dim == 3 ? N * N * N : N * N;
  const PetscInt sc[3] = {1, gc->gxm[0], gc->gxm[0] * gc->gxm[1]}, sf[3] = {1, gf->gxm[0], gf->gxm[0] * gf->gxm[1]};
  PetscScalar    a[VPATCH_MAX_N1D * VPATCH_MAX_N1D * VPATCH_MAX_N1D], t[VPATCH_MAX_N1D * VPATCH_MAX_N1D * VPATCH_MAX_N1D];

  PetscFunctionBegin;
  for (PetscInt e = 0; e < dim; e++)
    PetscCheck(gf->N[e] == 2 * gc->N[e] && gf->cs[e] == 2 * gc->cs[e] && gf->cm[e] == 2 * gc->cm[e], PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "Direction %" PetscInt_FMT ": the fine part is not the refinement of the coarse one", e);
  for (PetscInt fz = gf->cs[2]; fz < gf->cs[2] + (dim == 3 ? gf->cm[2] : 1); fz++)
    for (PetscInt fy = gf->cs[1]; fy < gf->cs[1] + gf->cm[1]; fy++)
      for (PetscInt fx = gf->cs[0]; fx < gf->cs[0] + gf->cm[0]; fx++) {
        const PetscInt f[3] = {fx, fy, dim == 3 ? fz : 0}, ch[3] = {fx % 2, fy % 2, dim == 3 ? fz % 2 : 0};
        PetscInt       bf = 0, bc = 0;
        for (PetscInt e = 0; e < dim; e++) {
          bf += (f[e] * N - gf->gxs[e]) * sf[e];
          bc += ((f[e] / 2) * N - gc->gxs[e]) * sc[e];
        }
        /* gather the input cell, contract along each direction (P or P^T of this child), scatter-add the output cell */
        for (PetscInt p = 0; p < nd; p++) {
          const PetscInt i0 = p % N, i1 = (p / N) % N, i2 = dim == 3 ? p / (N * N) : 0;
          a[p] = transp ? x[bf + i0 * sf[0] + i1 * sf[1] + i2 * sf[2]] : x[bc + i0 * sc[0] + i1 * sc[1] + i2 * sc[2]];
        }
        for (PetscInt e = 0; e < dim; e++) {
          const PetscInt s = e == 0 ? 1 : (e == 1 ? N : N * N);
          for (PetscInt p = 0; p < nd; p++) {
            const PetscInt i = (p / s) % N;
            PetscScalar    v = 0;
            for (PetscInt j = 0; j < N; j++) v += (transp ? VPDGEmbed(b, ch[e], j, i) : VPDGEmbed(b, ch[e], i, j)) * a[p + (j - i) * s];
            t[p] = v;
          }
          for (PetscInt p = 0; p < nd; p++) a[p] = t[p];
        }
        for (PetscInt p = 0; p < nd; p++) {
          const PetscInt i0 = p % N, i1 = (p / N) % N, i2 = dim == 3 ? p / (N * N) : 0;
          if (transp)
            y[bc + i0 * sc[0] + i1 * sc[1] + i2 * sc[2]] += a[p];
          else
            y[bf + i0 * sf[0] + i1 * sf[1] + i2 * sf[2]] += a[p];
        }
      }
  PetscCall(PetscLogFlops((PetscLogDouble)gf->cm[0] * gf->cm[1] * (dim == 3 ? gf->cm[2] : 1) * dim * nd * 2 * N));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  VPDGPatch1DSetUp - The fast diagonalization of the 1D two-cell pencils of the DG vertex patches of one direction

  Not Collective

  Input Parameter:
. dg - the 1D blocks of the direction (`VPDG1DSetUp()`), at least 2 cells

  Output Parameter:
. p - for each interior vertex v = 1..n-1 (the patch of cells v-1, v): the eigenvectors Q (2(k+1) square, row-major,
      Q^T M Q = I) and eigenvalues of L q = lambda M q on the sub-blocks of the two cells; `VPDGPatch1DDestroy()` frees them

  Level: developer

.seealso: `VPDGPatchColor_CPU()`
@*/
PetscErrorCode VPDGPatch1DSetUp(const VPDG1D *dg, VPDGPatch1D *p)
{
  const PetscInt N = dg->k + 1, P2 = 2 * N;
  PetscReal      B[4 * VPATCH_MAX_N1D * VPATCH_MAX_N1D];

  PetscFunctionBegin;
  PetscCheck(dg->n >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "DG vertex patches need at least 2 cells per direction, got %" PetscInt_FMT, dg->n);
  p->n = dg->n;
  p->k = dg->k;
  PetscCall(PetscMalloc2((dg->n - 1) * P2 * P2, &p->Q, (dg->n - 1) * P2, &p->lam));
  for (PetscInt v = 1; v < dg->n; v++) {
    PetscReal *Q = p->Q + (v - 1) * P2 * P2;
    for (PetscInt a = 0; a < 2; a++) /* block rows: cells v-1 (a = 0), v (a = 1) */
      for (PetscInt c = 0; c < 2; c++)
        for (PetscInt i = 0; i < N; i++)
          for (PetscInt j = 0; j < N; j++) {
            Q[(a * N + i) * P2 + c * N + j] = VPDGBlockEntry(dg, v - 1 + a, c - a, i, j);
            B[(a * N + i) * P2 + c * N + j] = a == c ? dg->M[i * N + j] : 0;
          }
    PetscCheck(!LAPACKE_dsygv(LAPACK_ROW_MAJOR, 1, 'V', 'U', (lapack_int)P2, Q, (lapack_int)P2, B, (lapack_int)P2, p->lam + (v - 1) * P2), PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACKE_dsygv failed for the DG patch of vertex %" PetscInt_FMT, v);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPDGPatch1DDestroy(VPDGPatch1D *p)
{
  PetscFunctionBegin;
  PetscCall(PetscFree2(p->Q, p->lam));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  VPDGPatchColor_CPU - The corrections of one color of DG vertex patches, each solved exactly by fast diagonalization

  Not Collective

  Input Parameters:
+ g     - the rank's part (local boxes in DG nodes with a ghost layer of one cell)
. p     - per direction the patches' 1D data (`VPDGPatch1DSetUp()`)
. color - the vertex parity bits (bit e: odd vertices along e), 0 .. 2^d - 1
- rl    - the residual b - A x on the local box

  Output Parameter:
. dl - incremented by R_v^T A_v^{-1} R_v rl for this rank's vertices of the color (the lower corners of its owned
       cells that are interior vertices); patches of one color do not overlap, so the corrections add up to one
       multiplicative color step

  Level: developer

.seealso: `VPDGPatch1DSetUp()`, `VPDGApply_CPU()`
@*/
PetscErrorCode VPDGPatchColor_CPU(const VPGrid *g, const VPDGPatch1D p[], PetscInt color, const PetscScalar *rl, PetscScalar *dl)
{
  const PetscInt N = g->k + 1, P2 = 2 * N, dim = g->dim, np = dim == 3 ? P2 * P2 * P2 : P2 * P2;
  const PetscInt str[3] = {1, g->gxm[0], g->gxm[0] * g->gxm[1]};
  PetscInt       vlo[3] = {0, 0, 0}, vhi[3] = {1, 1, 1};
  PetscScalar    a[8 * VPATCH_MAX_N1D * VPATCH_MAX_N1D * VPATCH_MAX_N1D], t[8 * VPATCH_MAX_N1D * VPATCH_MAX_N1D * VPATCH_MAX_N1D];

  PetscFunctionBegin;
  for (PetscInt e = 0; e < dim; e++) {
    PetscCheck(p[e].n == g->N[e] && p[e].k == g->k, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The patch data of direction %" PetscInt_FMT " do not match the grid", e);
    vlo[e] = PetscMax(g->cs[e], 1);
    vhi[e] = PetscMin(g->cs[e] + g->cm[e], g->N[e]); /* vertices [vlo, vhi) */
    if (vlo[e] % 2 != ((color >> e) & 1)) vlo[e]++;
  }
  for (PetscInt vz = vlo[2]; vz < vhi[2]; vz += 2)
    for (PetscInt vy = vlo[1]; vy < vhi[1]; vy += 2)
      for (PetscInt vx = vlo[0]; vx < vhi[0]; vx += 2) {
        const PetscInt v[3] = {vx, vy, vz};
        PetscInt       base = 0;
        for (PetscInt e = 0; e < dim; e++) base += ((v[e] - 1) * N - g->gxs[e]) * str[e];
        for (PetscInt q = 0; q < np; q++) a[q] = rl[base + (q % P2) * str[0] + ((q / P2) % P2) * str[1] + (dim == 3 ? (q / (P2 * P2)) * str[2] : 0)];
        for (PetscInt pass = 0; pass < 2; pass++) { /* Q^T along every direction, divide, Q along every direction */
          for (PetscInt e = 0; e < dim; e++) {
            const PetscInt   s = e == 0 ? 1 : (e == 1 ? P2 : P2 * P2);
            const PetscReal *Q = p[e].Q + (v[e] - 1) * P2 * P2;
            for (PetscInt q = 0; q < np; q++) {
              const PetscInt i   = (q / s) % P2;
              PetscScalar    sum = 0;
              for (PetscInt j = 0; j < P2; j++) sum += (pass ? Q[i * P2 + j] : Q[j * P2 + i]) * a[q + (j - i) * s];
              t[q] = sum;
            }
            for (PetscInt q = 0; q < np; q++) a[q] = t[q];
          }
          if (!pass)
            for (PetscInt q = 0; q < np; q++) {
              PetscReal l = 0;
              for (PetscInt e = 0, r = q; e < dim; e++, r /= P2) l += p[e].lam[(v[e] - 1) * P2 + r % P2];
              a[q] /= l;
            }
        }
        for (PetscInt q = 0; q < np; q++) dl[base + (q % P2) * str[0] + ((q / P2) % P2) * str[1] + (dim == 3 ? (q / (P2 * P2)) * str[2] : 0)] += a[q];
      }
  PetscFunctionReturn(PETSC_SUCCESS);
}
