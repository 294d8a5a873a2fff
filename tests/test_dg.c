static char help[] = "The 1D SIPG matrices (src/sys/dg1d.c) and the Kronecker-sum form of the discontinuous Q_k operator on a box:\n\
(1) in 2D the Kronecker sum equals the SIPG form assembled cell by cell and face by face with 2D quadrature;\n\
(2) the 1D SIPG matrices are symmetric positive definite;\n\
(3) the discrete solution of -lap u = f, u = prod sin(pi x_e), solved exactly by fast diagonalization of the\n\
Kronecker sum, converges in L2 at order k+1 and in the DG energy norm at order k (2D and 3D);\n\
(4) a prototype DG vertex-patch multigrid (exact patch solves by fast diagonalization, 4 colors, embedding and its\n\
transpose, 2 x 2 coarsest cells) contracts by less than 0.1 per V(1,1) cycle on 4..32 cells per direction (2D);\n\
(5) the matrix-free kernel VPDGApply_CPU() equals the Kronecker sum, on the whole box and on a rank's part;\n\
(6) the cell-by-cell embedding VPDGTransfer_CPU() and its transpose equal the Kronecker products of the 1D embedding;\n\
(7) the DG patch kernel VPDGPatchColor_CPU(): its 2D sweep equals the prototype's; one patch solves a 2-cell box;\n\
(8) the multigrid made of these kernels only contracts by less than 0.1 per V(1,1) cycle in 2D and 3D.\n\
Options: -degrees 1,2,3,4  -penalty C (sigma = C k (k+1) / h, default 2)\n\n";

#include <petscvpatch.h>
#include <petscvpatch/private/vpatchimpl.h>
#include <petscvpatch/private/vpdg.h>
#include <petscdt.h>
#include <lapacke.h>

/* y = (I (x) .. (x) B (x) .. (x) I) x: the R x S matrix B (row-major) along direction e of a tensor of sizes s[0..2]
   (s[0] fastest, s[e] = S); y has sizes s with s[e] replaced by R */
static void Apply1D(const PetscReal *B, PetscInt R, PetscInt e, const PetscInt s[3], const PetscReal *x, PetscReal *y)
{
  const PetscInt S = s[e], in = e == 0 ? 1 : (e == 1 ? s[0] : s[0] * s[1]), outer = s[0] * s[1] * s[2] / (in * S);
  for (PetscInt o = 0; o < outer; o++)
    for (PetscInt i = 0; i < R; i++)
      for (PetscInt l = 0; l < in; l++) {
        PetscReal v = 0;
        for (PetscInt j = 0; j < S; j++) v += B[i * S + j] * x[(o * S + j) * in + l];
        y[(o * R + i) * in + l] = v;
      }
}

/* y = (B_{dim-1} (x) .. (x) B_0) x: B[e] (rows[e] x s[e]) along every direction in turn; s is updated to the output's
   sizes; t1, t2: work, each of the largest intermediate size */
static PetscErrorCode ApplyKron(PetscReal *const B[], const PetscInt rows[], PetscInt dim, PetscInt s[3], const PetscReal *x, PetscReal *y, PetscReal *t1, PetscReal *t2)
{
  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(t1, x, s[0] * s[1] * s[2]));
  for (PetscInt e = 0; e < dim; e++) {
    PetscReal *t = t1;
    Apply1D(B[e], rows[e], e, s, t1, t2);
    s[e] = rows[e];
    t1   = t2;
    t2   = t;
  }
  PetscCall(PetscArraycpy(y, t1, s[0] * s[1] * s[2]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the SIPG form of two basis functions of a 2D mesh (nx x ny cells of the unit square), cell by cell and face by face
   with nq Gauss points per direction: a brute-force reference that shares nothing with the Kronecker form but the
   1D basis */
static PetscErrorCode Assemble2D(const VPBasis1D *b, PetscInt nx, PetscInt ny, PetscReal C, PetscReal *A)
{
  const PetscInt  N = b->k + 1, Sx = nx * N, Sy = ny * N, S = Sx * Sy, nq = b->k + 2;
  const PetscReal hx = 1.0 / nx, hy = 1.0 / ny;
  PetscReal       qp[16], qw[16];

  PetscFunctionBeginUser;
  PetscCall(PetscDTGaussQuadrature(nq, 0.0, 1.0, qp, qw));
  PetscCall(PetscArrayzero(A, S * S));
  /* value and gradient of the basis function (cell cx, cy; node ix, iy) at the reference point (s, t) of that cell */
#define BASIS(ix, iy, s, t, v, gx, gy)                                                        \
  do {                                                                                        \
    PetscReal vs[VPATCH_MAX_N1D], ds[VPATCH_MAX_N1D], vt[VPATCH_MAX_N1D], dt[VPATCH_MAX_N1D]; \
    PetscCall(VPBasis1DEvaluate(b, s, vs, ds));                                               \
    PetscCall(VPBasis1DEvaluate(b, t, vt, dt));                                               \
    v  = vs[ix] * vt[iy];                                                                     \
    gx = ds[ix] * vt[iy] / hx;                                                                \
    gy = vs[ix] * dt[iy] / hy;                                                                \
  } while (0)
  for (PetscInt cy = 0; cy < ny; cy++)
    for (PetscInt cx = 0; cx < nx; cx++) { /* cell terms */
      for (PetscInt a = 0; a < N * N; a++)
        for (PetscInt c = 0; c < N * N; c++) {
          PetscReal s = 0;
          for (PetscInt q1 = 0; q1 < nq; q1++)
            for (PetscInt q0 = 0; q0 < nq; q0++) {
              PetscReal va, ax, ay, vc, cx_, cy_;
              BASIS(a % N, a / N, qp[q0], qp[q1], va, ax, ay);
              BASIS(c % N, c / N, qp[q0], qp[q1], vc, cx_, cy_);
              (void)va;
              (void)vc;
              s += qw[q0] * qw[q1] * hx * hy * (ax * cx_ + ay * cy_);
            }
          const PetscInt ra = (cy * N + a / N) * Sx + cx * N + a % N, rc = (cy * N + c / N) * Sx + cx * N + c % N;
          A[ra * S + rc] += s;
        }
    }
  /* faces: direction dir (0: normal x, 1: normal y), position f = 0..n_dir (the boundary at 0 and n_dir) */
  for (PetscInt dir = 0; dir < 2; dir++) {
    const PetscInt  nn = dir == 0 ? nx : ny, nt = dir == 0 ? ny : nx;
    const PetscReal hn = dir == 0 ? hx : hy, ht = dir == 0 ? hy : hx, sigma = C * b->k * (b->k + 1) / hn;
    for (PetscInt f = 0; f <= nn; f++)
      for (PetscInt ct = 0; ct < nt; ct++) {
        /* the cells on the two sides: minus (below/left, index f - 1) and plus (f); absent outside */
        for (PetscInt sa = 0; sa < 2; sa++)
          for (PetscInt sc = 0; sc < 2; sc++) {
            const PetscInt ca = f - 1 + sa, cc = f - 1 + sc;
            if (ca < 0 || ca >= nn || cc < 0 || cc >= nn) continue;
            const PetscBool bnd = (PetscBool)(f == 0 || f == nn);
            for (PetscInt a = 0; a < N * N; a++)
              for (PetscInt c = 0; c < N * N; c++) {
                PetscReal s = 0;
                for (PetscInt q = 0; q < nq; q++) {
                  /* the face point in each side's reference coordinates: normal coordinate 1 on the minus side, 0 on the plus side */
                  PetscReal na = sa ? 0.0 : 1.0, nc = sc ? 0.0 : 1.0, va, gxa, gya, vc, gxc, gyc;
                  if (dir == 0) {
                    BASIS(a % N, a / N, na, qp[q], va, gxa, gya);
                    BASIS(c % N, c / N, nc, qp[q], vc, gxc, gyc);
                  } else {
                    BASIS(a % N, a / N, qp[q], na, va, gxa, gya);
                    BASIS(c % N, c / N, qp[q], nc, vc, gxc, gyc);
                  }
                  /* jump [w] = w^- - w^+ with the normal n = +e_dir (on the boundary: n outward, [w] = w, {grad w . n} one-sided) */
                  PetscReal n  = bnd ? (f == 0 ? -1.0 : 1.0) : 1.0;
                  PetscReal ja = bnd ? va : (sa ? -va : va), jc = bnd ? vc : (sc ? -vc : vc);
                  PetscReal avg_a = (dir == 0 ? gxa : gya) * n * (bnd ? 1.0 : 0.5), avg_c = (dir == 0 ? gxc : gyc) * n * (bnd ? 1.0 : 0.5);
                  s += qw[q] * ht * (-avg_c * ja - jc * avg_a + sigma * jc * ja);
                }
                const PetscInt axi = dir == 0 ? ca * N + a % N : ct * N + a % N, ayi = dir == 0 ? ct * N + a / N : ca * N + a / N;
                const PetscInt cxi = dir == 0 ? cc * N + c % N : ct * N + c % N, cyi = dir == 0 ? ct * N + c / N : cc * N + c / N;
                A[(ayi * Sx + axi) * S + cyi * Sx + cxi] += s;
              }
          }
      }
  }
#undef BASIS
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 1D: int over each cell of sin(pi x) phi_i, for the load vector and the error */
static PetscErrorCode SineMoments(const VPBasis1D *b, PetscInt n, PetscReal *m)
{
  const PetscInt N = b->k + 1, nq = b->k + 6;
  PetscReal      qp[16], qw[16], v[VPATCH_MAX_N1D];

  PetscFunctionBeginUser;
  PetscCall(PetscDTGaussQuadrature(nq, 0.0, 1.0, qp, qw));
  for (PetscInt c = 0; c < n; c++)
    for (PetscInt i = 0; i < N; i++) m[c * N + i] = 0;
  for (PetscInt c = 0; c < n; c++)
    for (PetscInt q = 0; q < nq; q++) {
      PetscCall(VPBasis1DEvaluate(b, qp[q], v, NULL));
      for (PetscInt i = 0; i < N; i++) m[c * N + i] += qw[q] / n * PetscSinReal(PETSC_PI * (c + qp[q]) / n) * v[i];
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the errors of the DG solution of -lap u = d pi^2 prod sin(pi x_e) on n^d cells, solved by fast diagonalization, by
   quadrature (k + 3 Gauss points per cell and direction): err the L2 norm of u_h - u, errdg the DG energy norm
   (sum_K |grad (u_h - u)|^2 + sum_F sigma_F |[u_h]|^2)^(1/2) ([u] = 0 inside, u = 0 on the boundary) */
static PetscErrorCode SolveError(const VPBasis1D *b, PetscInt dim, PetscInt n, PetscReal C, PetscReal *err, PetscReal *errdg)
{
  const PetscInt N = b->k + 1, S = n * N, nq = b->k + 3, Sq = n * nq;
  PetscInt       s[3] = {S, dim > 1 ? S : 1, dim > 2 ? S : 1}, tot = s[0] * s[1] * s[2], totq = Sq * (dim > 1 ? Sq : 1) * (dim > 2 ? Sq : 1);
  VPDG1D         dg;
  PetscReal     *L, *M, *Q, *QT, *lam, *m, *u, *w, *E, qp[16], qw[16], v[VPATCH_MAX_N1D], e2 = 0;

  PetscFunctionBeginUser;
  PetscCall(VPDG1DSetUp(b, n, 1.0 / n, C, &dg));
  PetscCall(PetscMalloc7(S * S, &L, S * S, &M, S * S, &Q, S * S, &QT, S, &lam, S, &m, Sq * S, &E));
  PetscCall(PetscMalloc2(totq, &u, totq, &w));
  PetscCall(VPDG1DDense(&dg, L, M));
  PetscCall(PetscArraycpy(Q, L, S * S));
  PetscCheck(!LAPACKE_dsygv(LAPACK_ROW_MAJOR, 1, 'V', 'U', (lapack_int)S, Q, (lapack_int)S, M, (lapack_int)S, lam), PETSC_COMM_SELF, PETSC_ERR_LIB, "dsygv failed"); /* L q = lambda M q, Q^T M Q = I */
  for (PetscInt i = 0; i < S; i++)
    for (PetscInt j = 0; j < S; j++) QT[i * S + j] = Q[j * S + i];
  PetscCall(SineMoments(b, n, m));
  for (PetscInt p = 0; p < tot; p++) { /* b = d pi^2 (x)_e m */
    PetscReal val = dim * PETSC_PI * PETSC_PI * m[p % S];
    if (dim > 1) val *= m[(p / S) % S];
    if (dim > 2) val *= m[p / (S * S)];
    u[p] = val;
  }
  /* u = (Q (x) Q) diag(1 / sum lambda) (Q^T (x) Q^T) b */
  for (PetscInt e = 0; e < dim; e++) {
    Apply1D(QT, S, e, s, u, w);
    PetscCall(PetscArraycpy(u, w, tot));
  }
  for (PetscInt p = 0; p < tot; p++) u[p] /= lam[p % S] + (dim > 1 ? lam[(p / S) % S] : 0) + (dim > 2 ? lam[p / (S * S)] : 0);
  for (PetscInt e = 0; e < dim; e++) {
    Apply1D(Q, S, e, s, u, w);
    PetscCall(PetscArraycpy(u, w, tot));
  }
  /* u_h and its derivatives at the quadrature points: E[c nq + q][c N + i] = phi_i(qp_q), D the same with phi_i' / h;
     the jumps at the n + 1 points x = f / n: J[f][.] = u_h(f/n - 0) - u_h(f/n + 0) (one-sided on the boundary) */
  PetscCall(PetscDTGaussQuadrature(nq, 0.0, 1.0, qp, qw));
  {
    PetscReal *D, *J, *t1, *t2, *g, d[VPATCH_MAX_N1D], v0[VPATCH_MAX_N1D], v1[VPATCH_MAX_N1D], e2dg = 0;
    PetscInt   sz = PetscMax(totq, (n + 1) * (dim > 1 ? Sq : 1) * (dim > 2 ? Sq : 1));
    PetscCall(PetscCalloc2(Sq * S, &D, (n + 1) * S, &J));
    PetscCall(PetscMalloc3(sz, &t1, sz, &t2, sz, &g));
    PetscCall(PetscArrayzero(E, Sq * S));
    for (PetscInt q = 0; q < nq; q++) {
      PetscCall(VPBasis1DEvaluate(b, qp[q], v, d));
      for (PetscInt c = 0; c < n; c++)
        for (PetscInt i = 0; i < N; i++) {
          E[(c * nq + q) * S + c * N + i] = v[i];
          D[(c * nq + q) * S + c * N + i] = d[i] * n;
        }
    }
    PetscCall(VPBasis1DEvaluate(b, 0.0, v0, NULL));
    PetscCall(VPBasis1DEvaluate(b, 1.0, v1, NULL));
    for (PetscInt f = 0; f <= n; f++)
      for (PetscInt i = 0; i < N; i++) {
        if (f > 0) J[f * S + (f - 1) * N + i] += v1[i];
        if (f < n) J[f * S + f * N + i] -= v0[i];
      }
    for (PetscInt e = 0; e < dim; e++) {
      PetscReal *B[3]    = {E, E, E};
      PetscInt   rows[3] = {Sq, Sq, Sq}, se[3];
      /* the gradient's component e against pi cos(pi x_e) prod_f sin(pi x_f) */
      B[e] = D;
      for (PetscInt f = 0; f < 3; f++) se[f] = s[f];
      PetscCall(ApplyKron(B, rows, dim, se, u, g, t1, t2));
      for (PetscInt p = 0; p < totq; p++) {
        PetscReal wt = 1, ex = 1;
        for (PetscInt f = 0, r = p; f < dim; f++, r /= Sq) {
          const PetscInt  c = (r % Sq) / nq, q = (r % Sq) % nq;
          const PetscReal x = (c + qp[q]) / n;
          wt *= qw[q] / n;
          ex *= f == e ? PETSC_PI * PetscCosReal(PETSC_PI * x) : PetscSinReal(PETSC_PI * x);
        }
        e2dg += wt * (g[p] - ex) * (g[p] - ex);
      }
      /* the jumps across the faces normal to e, integrated over the faces */
      B[e]    = J;
      rows[e] = n + 1;
      for (PetscInt f = 0; f < 3; f++) se[f] = s[f];
      PetscCall(ApplyKron(B, rows, dim, se, u, g, t1, t2));
      for (PetscInt p = 0; p < se[0] * se[1] * se[2]; p++) {
        PetscReal wt = dg.sigma;
        for (PetscInt f = 0, r = p; f < dim; f++) {
          const PetscInt m_ = f == e ? n + 1 : Sq;
          if (f != e) wt *= qw[(r % m_) % nq] / n;
          r /= m_;
        }
        e2dg += wt * g[p] * g[p];
      }
    }
    *errdg = PetscSqrtReal(e2dg);
    PetscCall(PetscFree2(D, J));
    PetscCall(PetscFree3(t1, t2, g));
  }
  {
    PetscReal *Es[3]   = {E, E, E}, *t1, *t2;
    PetscInt   rows[3] = {Sq, Sq, Sq};
    PetscCall(PetscMalloc2(totq, &t1, totq, &t2));
    PetscCall(ApplyKron(Es, rows, dim, s, u, u, t1, t2)); /* u holds totq values: the output fits */
    PetscCall(PetscFree2(t1, t2));
  }
  for (PetscInt p = 0; p < totq; p++) {
    PetscReal wt = 1, ue = 1;
    for (PetscInt e = 0, r = p; e < dim; e++, r /= Sq) {
      const PetscInt c = (r % Sq) / nq, q = (r % Sq) % nq;
      wt *= qw[q] / n;
      ue *= PetscSinReal(PETSC_PI * (c + qp[q]) / n);
    }
    e2 += wt * (u[p] - ue) * (u[p] - ue);
  }
  *err = PetscSqrtReal(e2);
  PetscCall(PetscFree7(L, M, Q, QT, lam, m, E));
  PetscCall(PetscFree2(u, w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* (4) a prototype of the DG vertex-patch multigrid on the unit square (the structure of issue 19's smoother): levels of
   n = 2, 4, ... cells per direction, the SIPG operator as a Kronecker sum, the vertex patches (the 4 cells around an
   interior vertex, all their DoFs) solved exactly by fast diagonalization of their 2-cell 1D matrices, 4 colors
   multiplicative, prolongation by embedding, restriction its transpose; the coarsest level (2 x 2 cells) is one patch */
typedef struct {
  PetscInt   n, S;      /* cells per direction, DoFs per direction */
  PetscReal *L, *M;     /* dense 1D matrices */
  PetscReal *Q, *lam;   /* per interior vertex v = 1..n-1: the 2-cell 1D pencil's eigenvectors (2N x 2N) and values */
  PetscReal *P, *PT;    /* embedding from the next coarser level (S x S/2) and its transpose; NULL on the coarsest */
  PetscReal *r, *t, *u; /* work, S^2 each */
} DGLevel;

static PetscErrorCode DGLevelSetUp(const VPBasis1D *b, PetscInt n, PetscReal C, DGLevel *lv)
{
  const PetscInt N = b->k + 1, S = n * N, P2 = 2 * N;
  VPDG1D         dg;

  PetscFunctionBeginUser;
  lv->n = n;
  lv->S = S;
  PetscCall(VPDG1DSetUp(b, n, 1.0 / n, C, &dg));
  PetscCall(PetscMalloc5(S * S, &lv->L, S * S, &lv->M, (n - 1) * P2 * P2, &lv->Q, (n - 1) * P2, &lv->lam, 3 * S * S, &lv->r));
  lv->t = lv->r + S * S;
  lv->u = lv->t + S * S;
  lv->P = lv->PT = NULL;
  PetscCall(VPDG1DDense(&dg, lv->L, lv->M));
  for (PetscInt v = 1; v < n; v++) { /* the sub-blocks of cells v - 1, v */
    PetscReal *Q = lv->Q + (v - 1) * P2 * P2, B[4 * VPATCH_MAX_N1D * VPATCH_MAX_N1D];
    for (PetscInt i = 0; i < P2; i++)
      for (PetscInt j = 0; j < P2; j++) {
        Q[i * P2 + j] = lv->L[((v - 1) * N + i) * S + (v - 1) * N + j];
        B[i * P2 + j] = lv->M[((v - 1) * N + i) * S + (v - 1) * N + j];
      }
    PetscCheck(!LAPACKE_dsygv(LAPACK_ROW_MAJOR, 1, 'V', 'U', (lapack_int)P2, Q, (lapack_int)P2, B, (lapack_int)P2, lv->lam + (v - 1) * P2), PETSC_COMM_SELF, PETSC_ERR_LIB, "dsygv failed on a patch");
  }
  if (n > 2) { /* coarse cell c, fine cells 2c, 2c+1: the two children's rows of VPBasis1D's P */
    const PetscInt Sc = S / 2;
    PetscCall(PetscCalloc2(S * Sc, &lv->P, S * Sc, &lv->PT));
    for (PetscInt c = 0; c < n / 2; c++)
      for (PetscInt ch = 0; ch < 2; ch++)
        for (PetscInt f = 0; f < N; f++)
          for (PetscInt i = 0; i < N; i++) lv->P[((2 * c + ch) * N + f) * Sc + c * N + i] = b->P[(ch * b->k + f) * N + i];
    for (PetscInt i = 0; i < S; i++)
      for (PetscInt j = 0; j < Sc; j++) lv->PT[j * S + i] = lv->P[i * Sc + j];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DGLevelDestroy(DGLevel *lv)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree5(lv->L, lv->M, lv->Q, lv->lam, lv->r));
  PetscCall(PetscFree2(lv->P, lv->PT));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* r = b - (M (x) L + L (x) M) x */
static void DGResidual(DGLevel *lv, const PetscReal *b, const PetscReal *x, PetscReal *r)
{
  const PetscInt S = lv->S, s[3] = {S, S, 1};
  Apply1D(lv->L, S, 0, s, x, lv->t);
  Apply1D(lv->M, S, 1, s, lv->t, r);
  Apply1D(lv->M, S, 0, s, x, lv->t);
  Apply1D(lv->L, S, 1, s, lv->t, lv->u);
  for (PetscInt p = 0; p < S * S; p++) r[p] = b[p] - r[p] - lv->u[p];
}

/* one multiplicative sweep over the 4 colors (reverse order when bwd): per color the residual, then every patch of
   the color solved exactly, x_v += A_v^{-1} r_v */
static void DGSmooth(DGLevel *lv, PetscInt N, const PetscReal *b, PetscReal *x, PetscBool bwd)
{
  const PetscInt S = lv->S, P2 = 2 * N;
  for (PetscInt i = 0; i < 4; i++) {
    const PetscInt c = bwd ? 3 - i : i;
    DGResidual(lv, b, x, lv->r);
    for (PetscInt vy = 2 - ((c >> 1) & 1); vy < lv->n; vy += 2) /* the vertices of parity c: 1, 3, ... or 2, 4, ... */
      for (PetscInt vx = 2 - (c & 1); vx < lv->n; vx += 2) {
        const PetscReal *Qx = lv->Q + (vx - 1) * P2 * P2, *Qy = lv->Q + (vy - 1) * P2 * P2, *lx = lv->lam + (vx - 1) * P2, *ly = lv->lam + (vy - 1) * P2;
        PetscReal        w[4 * VPATCH_MAX_N1D * VPATCH_MAX_N1D], z[4 * VPATCH_MAX_N1D * VPATCH_MAX_N1D];
        /* w = (Qy^T (x) Qx^T) r_v, z = w / (lx + ly), x_v += (Qy (x) Qx) z */
        for (PetscInt a = 0; a < P2; a++)
          for (PetscInt e = 0; e < P2; e++) {
            PetscReal sum = 0;
            for (PetscInt j = 0; j < P2; j++) sum += Qx[j * P2 + e] * lv->r[((vy - 1) * N + a) * S + (vx - 1) * N + j];
            z[a * P2 + e] = sum;
          }
        for (PetscInt a = 0; a < P2; a++)
          for (PetscInt e = 0; e < P2; e++) {
            PetscReal sum = 0;
            for (PetscInt j = 0; j < P2; j++) sum += Qy[j * P2 + a] * z[j * P2 + e];
            w[a * P2 + e] = sum / (lx[e] + ly[a]);
          }
        for (PetscInt a = 0; a < P2; a++)
          for (PetscInt e = 0; e < P2; e++) {
            PetscReal sum = 0;
            for (PetscInt j = 0; j < P2; j++) sum += Qx[e * P2 + j] * w[a * P2 + j];
            z[a * P2 + e] = sum;
          }
        for (PetscInt a = 0; a < P2; a++)
          for (PetscInt e = 0; e < P2; e++) {
            PetscReal sum = 0;
            for (PetscInt j = 0; j < P2; j++) sum += Qy[a * P2 + j] * z[j * P2 + e];
            x[((vy - 1) * N + a) * S + (vx - 1) * N + e] += sum;
          }
      }
  }
}

/* V(1,1) on level l (0 = coarsest, one patch: one sweep solves it) */
static PetscErrorCode DGVCycle(DGLevel *lv, PetscInt l, PetscInt N, const PetscReal *b, PetscReal *x)
{
  PetscFunctionBeginUser;
  if (l == 0) {
    DGSmooth(&lv[0], N, b, x, PETSC_FALSE);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  {
    const PetscInt S = lv[l].S, Sc = lv[l - 1].S, sf[3] = {S, S, 1}, sm[3] = {Sc, S, 1}, sc[3] = {Sc, Sc, 1}, sp[3] = {S, Sc, 1};
    PetscReal     *rc, *ec, *tmp;
    PetscCall(PetscCalloc3(Sc * Sc, &rc, Sc * Sc, &ec, Sc * S, &tmp));
    DGSmooth(&lv[l], N, b, x, PETSC_FALSE);
    DGResidual(&lv[l], b, x, lv[l].r);
    Apply1D(lv[l].PT, Sc, 0, sf, lv[l].r, tmp);
    Apply1D(lv[l].PT, Sc, 1, sm, tmp, rc);
    PetscCall(DGVCycle(lv, l - 1, N, rc, ec));
    Apply1D(lv[l].P, S, 0, sc, ec, tmp);
    Apply1D(lv[l].P, S, 1, sp, tmp, lv[l].t);
    for (PetscInt p = 0; p < S * S; p++) x[p] += lv[l].t[p];
    DGSmooth(&lv[l], N, b, x, PETSC_TRUE);
    PetscCall(PetscFree3(rc, ec, tmp));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the contraction of the V-cycle's error iteration (b = 0, a pseudo-random start), after a few cycles */
static PetscErrorCode DGMGRate(const VPBasis1D *b, PetscInt levels, PetscReal C, PetscReal *rate)
{
  DGLevel    lv[8];
  PetscInt   S;
  PetscReal *x, *zero, prev = 0, nrm = 0;

  PetscFunctionBeginUser;
  for (PetscInt l = 0; l < levels; l++) PetscCall(DGLevelSetUp(b, 2 << l, C, &lv[l]));
  S = lv[levels - 1].S;
  PetscCall(PetscCalloc2(S * S, &x, S * S, &zero));
  for (PetscInt p = 0; p < S * S; p++) {
    PetscReal t = PetscSinReal(12.9898 * p + 78.233) * 43758.5453;
    x[p]        = t - PetscFloorReal(t) - 0.5;
  }
  for (PetscInt it = 0; it < 6; it++) {
    prev = nrm;
    PetscCall(DGVCycle(lv, levels - 1, b->k + 1, zero, x));
    nrm = 0;
    for (PetscInt p = 0; p < S * S; p++) nrm += x[p] * x[p];
    nrm = PetscSqrtReal(nrm);
  }
  *rate = nrm / prev;
  PetscCall(PetscFree2(x, zero));
  for (PetscInt l = 0; l < levels; l++) PetscCall(DGLevelDestroy(&lv[l]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* (5) the matrix-free kernel VPDGApply_CPU() against the dense Kronecker sum, on the whole box and on a part of it
   (owned cells and a ghost layer of one cell, as a rank holds them) */
static PetscErrorCode CheckKernel(const VPBasis1D *b, PetscInt dim, const PetscInt n[3], PetscReal C)
{
  const PetscInt N    = b->k + 1;
  PetscInt       s[3] = {1, 1, 1}, tot = 1;
  VPDG1D         dg[3];
  PetscReal     *L[3], *M[3], *x, *yref, *t, *t2, err = 0, big = 0;

  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < dim; e++) {
    s[e] = n[e] * N;
    tot *= s[e];
    PetscCall(VPDG1DSetUp(b, n[e], 1.0 / n[e], C, &dg[e]));
    PetscCall(PetscMalloc2(s[e] * s[e], &L[e], s[e] * s[e], &M[e]));
    PetscCall(VPDG1DDense(&dg[e], L[e], M[e]));
  }
  PetscCall(PetscMalloc4(tot, &x, tot, &yref, tot, &t, tot, &t2));
  for (PetscInt p = 0; p < tot; p++) {
    PetscReal r = PetscSinReal(3.1 * p + 0.7) * 43758.5453;
    x[p]        = r - PetscFloorReal(r) - 0.5;
    yref[p]     = 0;
  }
  for (PetscInt e = 0; e < dim; e++) { /* yref += (M .. L_e .. M) x */
    PetscCall(PetscArraycpy(t, x, tot));
    for (PetscInt f = 0; f < dim; f++) {
      Apply1D(f == e ? L[f] : M[f], s[f], f, s, t, t2);
      PetscCall(PetscArraycpy(t, t2, tot));
    }
    for (PetscInt p = 0; p < tot; p++) yref[p] += t[p];
  }
  for (PetscInt p = 0; p < tot; p++) big = PetscMax(big, PetscAbsReal(yref[p]));
  for (PetscInt part = 0; part < 2; part++) { /* 0: the whole box; 1: cells [1, n_e) of every direction, ghost cell 0 */
    VPGrid       g;
    PetscInt     ltot = 1;
    PetscScalar *xl, *yl;
    PetscCall(PetscMemzero(&g, sizeof(g)));
    g.dim = dim;
    g.k   = b->k;
    for (PetscInt e = 0; e < 3; e++) {
      g.N[e]   = e < dim ? n[e] : 1;
      g.cs[e]  = e < dim && part ? 1 : 0;
      g.cm[e]  = g.N[e] - g.cs[e];
      g.gxs[e] = e < dim ? (g.cs[e] > 0 ? (g.cs[e] - 1) * N : 0) : 0;
      g.gxm[e] = e < dim ? g.N[e] * N - g.gxs[e] : 1;
      ltot *= g.gxm[e];
    }
    PetscCall(PetscCalloc2(ltot, &xl, ltot, &yl));
    for (PetscInt l = 0; l < ltot; l++) {
      const PetscInt i0 = l % g.gxm[0] + g.gxs[0], i1 = (l / g.gxm[0]) % g.gxm[1] + g.gxs[1], i2 = l / (g.gxm[0] * g.gxm[1]) + g.gxs[2];
      xl[l] = x[(i2 * s[1] + i1) * s[0] + i0];
    }
    PetscCall(VPDGApply_CPU(&g, dg, xl, yl));
    for (PetscInt l = 0; l < ltot; l++) {
      const PetscInt i0 = l % g.gxm[0] + g.gxs[0], i1 = (l / g.gxm[0]) % g.gxm[1] + g.gxs[1], i2 = l / (g.gxm[0] * g.gxm[1]) + g.gxs[2];
      PetscBool      owned = (PetscBool)(i0 >= g.cs[0] * N && i1 >= g.cs[1] * N && i2 >= g.cs[2] * N);
      err                  = PetscMax(err, PetscAbsReal(owned ? yl[l] - yref[(i2 * s[1] + i1) * s[0] + i0] : yl[l]));
    }
    PetscCall(PetscFree2(xl, yl));
  }
  PetscCheck(err <= 1e-12 * big, PETSC_COMM_SELF, PETSC_ERR_PLIB, "k = %" PetscInt_FMT ", %" PetscInt_FMT "D: VPDGApply_CPU() differs from the Kronecker sum by %g (entries up to %g)", b->k, dim, (double)err, (double)big);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "k = %" PetscInt_FMT ", %" PetscInt_FMT "D: VPDGApply_CPU() = Kronecker sum, whole box and a part with a ghost layer (difference %.1e of %.1e)\n", b->k, dim, (double)err, (double)big));
  PetscCall(PetscFree4(x, yref, t, t2));
  for (PetscInt e = 0; e < dim; e++) PetscCall(PetscFree2(L[e], M[e]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* (6) the cell-by-cell embedding VPDGTransfer_CPU() and its transpose against the dense Kronecker products of the 1D
   embedding, on a whole box and on a rank's part (coarse cells [1, n) of every direction and their children) */
static PetscErrorCode CheckTransfer(const VPBasis1D *b, PetscInt dim, const PetscInt nc[3])
{
  const PetscInt N     = b->k + 1;
  PetscInt       sC[3] = {1, 1, 1}, sF[3] = {1, 1, 1}, tc = 1, tf = 1;
  PetscReal     *P[3], *PT[3], *xc, *xf, *yf, *yc, *t1, *t2, err = 0;

  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < dim; e++) {
    sC[e] = nc[e] * N;
    sF[e] = 2 * nc[e] * N;
    tc *= sC[e];
    tf *= sF[e];
    PetscCall(PetscCalloc2(sF[e] * sC[e], &P[e], sF[e] * sC[e], &PT[e]));
    for (PetscInt c = 0; c < nc[e]; c++)
      for (PetscInt ch = 0; ch < 2; ch++)
        for (PetscInt f = 0; f < N; f++)
          for (PetscInt i = 0; i < N; i++) P[e][((2 * c + ch) * N + f) * sC[e] + c * N + i] = b->P[(ch * b->k + f) * N + i];
    for (PetscInt i = 0; i < sF[e]; i++)
      for (PetscInt j = 0; j < sC[e]; j++) PT[e][j * sF[e] + i] = P[e][i * sC[e] + j];
  }
  PetscCall(PetscMalloc6(tc, &xc, tf, &xf, tf, &yf, tc, &yc, tf, &t1, tf, &t2));
  for (PetscInt p = 0; p < tf; p++) {
    PetscReal r = PetscSinReal(1.7 * p + 0.3) * 43758.5453;
    xf[p]       = r - PetscFloorReal(r) - 0.5;
    if (p < tc) xc[p] = PetscCosReal(2.3 * p);
  }
  { /* yf = (x)_e P_e xc, yc = (x)_e P_e^T xf */
    PetscInt s[3] = {sC[0], sC[1], sC[2]};
    PetscCall(ApplyKron(P, sF, dim, s, xc, yf, t1, t2));
    PetscCall(ApplyKron(PT, sC, dim, s, xf, yc, t1, t2));
  }
  for (PetscInt part = 0; part < 2; part++) {
    VPGrid       gc, gf;
    PetscInt     lc = 1, lf = 1;
    PetscScalar *xcl, *xfl, *ycl, *yfl;
    PetscCall(PetscMemzero(&gc, sizeof(gc)));
    PetscCall(PetscMemzero(&gf, sizeof(gf)));
    gc.dim = gf.dim = dim;
    gc.k = gf.k = b->k;
    for (PetscInt e = 0; e < 3; e++) {
      gc.N[e]   = e < dim ? nc[e] : 1;
      gc.cs[e]  = e < dim && part ? 1 : 0;
      gc.cm[e]  = gc.N[e] - gc.cs[e];
      gc.gxs[e] = e < dim ? gc.cs[e] * N : 0; /* the owned cells only: the transfer is cell-local */
      gc.gxm[e] = e < dim ? gc.cm[e] * N : 1;
      gf.N[e]   = e < dim ? 2 * nc[e] : 1;
      gf.cs[e]  = e < dim ? 2 * gc.cs[e] : 0;
      gf.cm[e]  = e < dim ? 2 * gc.cm[e] : 1;
      gf.gxs[e] = e < dim ? gf.cs[e] * N : 0;
      gf.gxm[e] = e < dim ? gf.cm[e] * N : 1;
      lc *= gc.gxm[e];
      lf *= gf.gxm[e];
    }
    PetscCall(PetscCalloc4(lc, &xcl, lf, &xfl, lc, &ycl, lf, &yfl));
    for (PetscInt l = 0; l < lc; l++) xcl[l] = xc[((l / (gc.gxm[0] * gc.gxm[1]) + gc.gxs[2]) * sC[1] + (l / gc.gxm[0]) % gc.gxm[1] + gc.gxs[1]) * sC[0] + l % gc.gxm[0] + gc.gxs[0]];
    for (PetscInt l = 0; l < lf; l++) xfl[l] = xf[((l / (gf.gxm[0] * gf.gxm[1]) + gf.gxs[2]) * sF[1] + (l / gf.gxm[0]) % gf.gxm[1] + gf.gxs[1]) * sF[0] + l % gf.gxm[0] + gf.gxs[0]];
    PetscCall(VPDGTransfer_CPU(&gc, &gf, b, PETSC_FALSE, xcl, yfl));
    PetscCall(VPDGTransfer_CPU(&gc, &gf, b, PETSC_TRUE, xfl, ycl));
    for (PetscInt l = 0; l < lf; l++) err = PetscMax(err, PetscAbsReal(yfl[l] - yf[((l / (gf.gxm[0] * gf.gxm[1]) + gf.gxs[2]) * sF[1] + (l / gf.gxm[0]) % gf.gxm[1] + gf.gxs[1]) * sF[0] + l % gf.gxm[0] + gf.gxs[0]]));
    if (!part) /* the transpose sums over all children only where the whole box is there */
      for (PetscInt l = 0; l < lc; l++) err = PetscMax(err, PetscAbsReal(ycl[l] - yc[((l / (gc.gxm[0] * gc.gxm[1]) + gc.gxs[2]) * sC[1] + (l / gc.gxm[0]) % gc.gxm[1] + gc.gxs[1]) * sC[0] + l % gc.gxm[0] + gc.gxs[0]]));
    PetscCall(PetscFree4(xcl, xfl, ycl, yfl));
  }
  PetscCheck(err <= 1e-12, PETSC_COMM_SELF, PETSC_ERR_PLIB, "k = %" PetscInt_FMT ", %" PetscInt_FMT "D: VPDGTransfer_CPU() differs from the Kronecker product of the 1D embedding by %g", b->k, dim, (double)err);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "k = %" PetscInt_FMT ", %" PetscInt_FMT "D: VPDGTransfer_CPU() and its transpose = Kronecker products of the 1D embedding (difference %.1e)\n", b->k, dim, (double)err));
  PetscCall(PetscFree6(xc, xf, yf, yc, t1, t2));
  for (PetscInt e = 0; e < dim; e++) PetscCall(PetscFree2(P[e], PT[e]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* (7) the DG patch kernel VPDGPatchColor_CPU(): a 2D sweep of its colors equals the prototype's (dense) sweep; on 2
   cells per direction its one patch solves A x = b exactly (2D and 3D) */
static PetscErrorCode CheckPatchKernel(const VPBasis1D *b, PetscReal C)
{
  const PetscInt N    = b->k + 1;
  PetscReal      diff = 0, big = 0;

  PetscFunctionBeginUser;
  { /* 2D, 8 x 8 cells: four colors, each from the residual before it */
    const PetscInt n = 8, S = n * N;
    DGLevel        lv;
    VPDG1D         dg;
    VPDGPatch1D    p[2];
    VPGrid         g;
    PetscReal     *bb, *x1, *x2, *r, *d;
    PetscCall(DGLevelSetUp(b, n, C, &lv));
    PetscCall(VPDG1DSetUp(b, n, 1.0 / n, C, &dg));
    PetscCall(VPDGPatch1DSetUp(&dg, &p[0]));
    PetscCall(VPDGPatch1DSetUp(&dg, &p[1]));
    PetscCall(PetscMemzero(&g, sizeof(g)));
    g.dim = 2;
    g.k   = b->k;
    for (PetscInt e = 0; e < 3; e++) {
      g.N[e]   = e < 2 ? n : 1;
      g.cm[e]  = g.N[e];
      g.gxm[e] = e < 2 ? S : 1;
    }
    PetscCall(PetscMalloc5(S * S, &bb, S * S, &x1, S * S, &x2, S * S, &r, S * S, &d));
    for (PetscInt q = 0; q < S * S; q++) {
      PetscReal t = PetscSinReal(0.9 * q + 0.1) * 43758.5453;
      bb[q]       = PetscCosReal(0.37 * q);
      x1[q] = x2[q] = t - PetscFloorReal(t) - 0.5;
    }
    DGSmooth(&lv, N, bb, x1, PETSC_FALSE);
    for (PetscInt c = 0; c < 4; c++) {
      DGResidual(&lv, bb, x2, r);
      PetscCall(PetscArrayzero(d, S * S));
      PetscCall(VPDGPatchColor_CPU(&g, p, c, r, d));
      for (PetscInt q = 0; q < S * S; q++) x2[q] += d[q];
    }
    for (PetscInt q = 0; q < S * S; q++) {
      diff = PetscMax(diff, PetscAbsReal(x1[q] - x2[q]));
      big  = PetscMax(big, PetscAbsReal(x1[q]));
    }
    PetscCheck(diff <= 1e-12 * big, PETSC_COMM_SELF, PETSC_ERR_PLIB, "k = %" PetscInt_FMT ": the DG patch kernel's sweep differs from the prototype's by %g (values up to %g)", b->k, (double)diff, (double)big);
    PetscCall(PetscFree5(bb, x1, x2, r, d));
    PetscCall(VPDGPatch1DDestroy(&p[0]));
    PetscCall(VPDGPatch1DDestroy(&p[1]));
    PetscCall(DGLevelDestroy(&lv));
  }
  for (PetscInt dim = 2; dim <= 3; dim++) { /* 2 cells per direction: the patch of the only vertex is the whole box */
    const PetscInt S = 2 * N, tot = dim == 3 ? S * S * S : S * S;
    VPDG1D         dg[3];
    VPDGPatch1D    p[3];
    VPGrid         g;
    PetscReal     *bb, *x, *y, res = 0, nb = 0;
    PetscCall(PetscMemzero(&g, sizeof(g)));
    g.dim = dim;
    g.k   = b->k;
    for (PetscInt e = 0; e < 3; e++) {
      g.N[e]   = e < dim ? 2 : 1;
      g.cm[e]  = g.N[e];
      g.gxm[e] = e < dim ? S : 1;
      if (e < dim) {
        PetscCall(VPDG1DSetUp(b, 2, 0.5, C, &dg[e]));
        PetscCall(VPDGPatch1DSetUp(&dg[e], &p[e]));
      }
    }
    PetscCall(PetscCalloc3(tot, &bb, tot, &x, tot, &y));
    for (PetscInt q = 0; q < tot; q++) bb[q] = PetscSinReal(1.3 * q + 0.2);
    PetscCall(VPDGPatchColor_CPU(&g, p, (1 << dim) - 1, bb, x)); /* x = A^-1 b (x was 0, so r = b) */
    PetscCall(VPDGApply_CPU(&g, dg, x, y));
    for (PetscInt q = 0; q < tot; q++) {
      res = PetscMax(res, PetscAbsReal(y[q] - bb[q]));
      nb  = PetscMax(nb, PetscAbsReal(bb[q]));
    }
    PetscCheck(res <= 1e-10 * nb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "k = %" PetscInt_FMT ", %" PetscInt_FMT "D: the one DG patch of 2 cells per direction leaves the residual %g (b up to %g)", b->k, dim, (double)res, (double)nb);
    PetscCall(
        PetscPrintf(PETSC_COMM_WORLD, "k = %" PetscInt_FMT ", %" PetscInt_FMT "D: VPDGPatchColor_CPU(): one patch solves the 2-cell box (residual %.1e)%s\n", b->k, dim, (double)(res / nb), dim == 2 ? ", its 2D sweep equals the prototype's" : ""));
    PetscCall(PetscFree3(bb, x, y));
    for (PetscInt e = 0; e < dim; e++) PetscCall(VPDGPatch1DDestroy(&p[e]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* (8) the same multigrid made of the library's kernels only (VPDGApply_CPU() for residuals, VPDGPatchColor_CPU() for the
   2^d colors, VPDGTransfer_CPU() for the transfers), in 2D or 3D: the V(1,1) contraction after a few cycles */
typedef struct {
  VPGrid      g;
  VPDG1D      dg[3];
  VPDGPatch1D p[3];
  PetscInt    tot;
  PetscReal  *r, *d, *y;
} KLevel;

static PetscErrorCode KSmooth(KLevel *lv, const PetscReal *b, PetscReal *x, PetscBool bwd)
{
  const PetscInt nc = 1 << lv->g.dim;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < nc; i++) {
    PetscCall(PetscArrayzero(lv->y, lv->tot));
    PetscCall(VPDGApply_CPU(&lv->g, lv->dg, x, lv->y));
    for (PetscInt q = 0; q < lv->tot; q++) lv->r[q] = b[q] - lv->y[q];
    PetscCall(PetscArrayzero(lv->d, lv->tot));
    PetscCall(VPDGPatchColor_CPU(&lv->g, lv->p, bwd ? nc - 1 - i : i, lv->r, lv->d));
    for (PetscInt q = 0; q < lv->tot; q++) x[q] += lv->d[q];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KVCycle(const VPBasis1D *b, KLevel *lv, PetscInt l, const PetscReal *rhs, PetscReal *x)
{
  PetscReal *rc, *ec;

  PetscFunctionBeginUser;
  PetscCall(KSmooth(&lv[l], rhs, x, PETSC_FALSE));
  if (l == 0) PetscFunctionReturn(PETSC_SUCCESS); /* 2 cells per direction: one patch, solved */
  PetscCall(PetscCalloc2(lv[l - 1].tot, &rc, lv[l - 1].tot, &ec));
  PetscCall(PetscArrayzero(lv[l].y, lv[l].tot));
  PetscCall(VPDGApply_CPU(&lv[l].g, lv[l].dg, x, lv[l].y));
  for (PetscInt q = 0; q < lv[l].tot; q++) lv[l].r[q] = rhs[q] - lv[l].y[q];
  PetscCall(VPDGTransfer_CPU(&lv[l - 1].g, &lv[l].g, b, PETSC_TRUE, lv[l].r, rc));
  PetscCall(KVCycle(b, lv, l - 1, rc, ec));
  PetscCall(VPDGTransfer_CPU(&lv[l - 1].g, &lv[l].g, b, PETSC_FALSE, ec, x)); /* x += P ec */
  PetscCall(KSmooth(&lv[l], rhs, x, PETSC_TRUE));
  PetscCall(PetscFree2(rc, ec));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KernelMGRate(const VPBasis1D *b, PetscInt dim, PetscInt levels, PetscReal C, PetscReal *rate)
{
  const PetscInt N = b->k + 1;
  KLevel         lv[6];
  PetscReal     *x, *zero, prev = 0, nrm = 0;

  PetscFunctionBeginUser;
  for (PetscInt l = 0; l < levels; l++) {
    const PetscInt n = 2 << l;
    PetscCall(PetscMemzero(&lv[l].g, sizeof(VPGrid)));
    lv[l].g.dim = dim;
    lv[l].g.k   = b->k;
    lv[l].tot   = 1;
    for (PetscInt e = 0; e < 3; e++) {
      lv[l].g.N[e]   = e < dim ? n : 1;
      lv[l].g.cm[e]  = lv[l].g.N[e];
      lv[l].g.gxm[e] = e < dim ? n * N : 1;
      lv[l].tot *= lv[l].g.gxm[e];
      if (e < dim) {
        PetscCall(VPDG1DSetUp(b, n, 1.0 / n, C, &lv[l].dg[e]));
        PetscCall(VPDGPatch1DSetUp(&lv[l].dg[e], &lv[l].p[e]));
      }
    }
    PetscCall(PetscMalloc3(lv[l].tot, &lv[l].r, lv[l].tot, &lv[l].d, lv[l].tot, &lv[l].y));
  }
  PetscCall(PetscCalloc2(lv[levels - 1].tot, &x, lv[levels - 1].tot, &zero));
  for (PetscInt q = 0; q < lv[levels - 1].tot; q++) {
    PetscReal t = PetscSinReal(12.9898 * q + 78.233) * 43758.5453;
    x[q]        = t - PetscFloorReal(t) - 0.5;
  }
  for (PetscInt it = 0; it < 5; it++) {
    prev = nrm;
    PetscCall(KVCycle(b, lv, levels - 1, zero, x));
    nrm = 0;
    for (PetscInt q = 0; q < lv[levels - 1].tot; q++) nrm += x[q] * x[q];
    nrm = PetscSqrtReal(nrm);
  }
  *rate = nrm / prev;
  PetscCall(PetscFree2(x, zero));
  for (PetscInt l = 0; l < levels; l++) {
    PetscCall(PetscFree3(lv[l].r, lv[l].d, lv[l].y));
    for (PetscInt e = 0; e < dim; e++) PetscCall(VPDGPatch1DDestroy(&lv[l].p[e]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt  degrees[8] = {1, 2, 3, 4}, nd = 8;
  PetscReal C = 2.0;
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-degrees", degrees, &nd, &set));
  if (!set) nd = 4; /* absent: the default list (PetscOptionsGetIntArray() sets the count to 0) */
  if (!set) nd = 4; /* absent: the default list (PetscOptionsGetIntArray() sets the count to 0) */
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-penalty", &C, NULL));
  PetscCheck(nd > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "No degree to check");
  for (PetscInt id = 0; id < nd; id++) {
    const PetscInt k = degrees[id], N = k + 1;
    VPBasis1D      b;

    PetscCall(VPBasis1DSetUp(k, &b));
    { /* (1) the Kronecker sum against the brute-force 2D assembly, on 3 x 2 cells */
      const PetscInt nx = 3, ny = 2, Sx = nx * N, Sy = ny * N, S = Sx * Sy;
      VPDG1D         dx, dy;
      PetscReal     *A, *Lx, *Mx, *Ly, *My, diff = 0, big = 0;

      PetscCall(PetscMalloc5(S * S, &A, Sx * Sx, &Lx, Sx * Sx, &Mx, Sy * Sy, &Ly, Sy * Sy, &My));
      PetscCall(VPDG1DSetUp(&b, nx, 1.0 / nx, C, &dx));
      PetscCall(VPDG1DSetUp(&b, ny, 1.0 / ny, C, &dy));
      PetscCall(VPDG1DDense(&dx, Lx, Mx));
      PetscCall(VPDG1DDense(&dy, Ly, My));
      PetscCall(Assemble2D(&b, nx, ny, C, A));
      for (PetscInt r = 0; r < S; r++)
        for (PetscInt c = 0; c < S; c++) {
          const PetscInt rx = r % Sx, ry = r / Sx, cx = c % Sx, cy = c / Sx;
          PetscReal      kron = My[ry * Sy + cy] * Lx[rx * Sx + cx] + Ly[ry * Sy + cy] * Mx[rx * Sx + cx];
          diff                = PetscMax(diff, PetscAbsReal(kron - A[r * S + c]));
          big                 = PetscMax(big, PetscAbsReal(A[r * S + c]));
        }
      PetscCheck(diff <= 1e-11 * big, PETSC_COMM_SELF, PETSC_ERR_PLIB, "k = %" PetscInt_FMT ": the Kronecker sum differs from the assembled SIPG form by %g (entries up to %g)", k, (double)diff, (double)big);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "k = %" PetscInt_FMT ": Kronecker sum = assembled SIPG form on 3 x 2 cells (difference %.1e of %.1e)\n", k, (double)diff, (double)big));
      PetscCall(PetscFree5(A, Lx, Mx, Ly, My));
    }
    { /* (2) symmetric positive definite 1D SIPG matrices (so is their Kronecker sum with the mass matrices) */
      for (PetscInt n = 1; n <= 8; n *= 2) {
        VPDG1D     dg;
        PetscInt   S = n * N;
        PetscReal *L, *M, *lam, asym = 0;
        PetscCall(PetscMalloc3(S * S, &L, S * S, &M, S, &lam));
        PetscCall(VPDG1DSetUp(&b, n, 1.0 / n, C, &dg));
        PetscCall(VPDG1DDense(&dg, L, M));
        for (PetscInt i = 0; i < S; i++)
          for (PetscInt j = 0; j < S; j++) asym = PetscMax(asym, PetscAbsReal(L[i * S + j] - L[j * S + i]));
        PetscCheck(asym < 1e-12 * dg.sigma, PETSC_COMM_SELF, PETSC_ERR_PLIB, "k = %" PetscInt_FMT ", %" PetscInt_FMT " cells: the 1D SIPG matrix is not symmetric (%g)", k, n, (double)asym);
        PetscCheck(!LAPACKE_dsygv(LAPACK_ROW_MAJOR, 1, 'N', 'U', (lapack_int)S, L, (lapack_int)S, M, (lapack_int)S, lam), PETSC_COMM_SELF, PETSC_ERR_PLIB,
                   "k = %" PetscInt_FMT ", %" PetscInt_FMT " cells: dsygv failed (mass matrix not positive definite?)", k, n);
        PetscCheck(lam[0] > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "k = %" PetscInt_FMT ", %" PetscInt_FMT " cells, penalty %g: the 1D SIPG matrix is not positive definite (smallest eigenvalue %g)", k, n, (double)C, (double)lam[0]);
        if (n == 8) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "k = %" PetscInt_FMT ": 1D SIPG matrix on 8 cells symmetric, smallest generalized eigenvalue %.4g (pi^2 = %.4g)\n", k, (double)lam[0], (double)(PETSC_PI * PETSC_PI)));
        PetscCall(PetscFree3(L, M, lam));
      }
    }
    { /* (5) the matrix-free kernel */
      const PetscInt n2[3] = {3, 4, 1}, n3[3] = {3, 2, 4};
      PetscCall(CheckKernel(&b, 2, n2, C));
      PetscCall(CheckKernel(&b, 3, n3, C));
      PetscCall(CheckTransfer(&b, 2, n2));
      PetscCall(CheckTransfer(&b, 3, n3));
      PetscCall(CheckPatchKernel(&b, C));
    }
    { /* (4) the DG vertex-patch V(1,1) contracts at a level-independent rate */
      PetscReal rate[5];
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "k = %" PetscInt_FMT ", 2D: DG vertex-patch V(1,1) contraction on 4..%d cells per direction:", k, k > 4 ? 16 : 32));
      for (PetscInt l = 2; l <= (k > 4 ? 4 : 5); l++) {
        PetscCall(DGMGRate(&b, l, C, &rate[l - 2]));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, " %.3f", (double)rate[l - 2]));
        PetscCheck(rate[l - 2] < 0.1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "k = %" PetscInt_FMT ", %d cells: the DG vertex-patch V-cycle contracts by %g only", k, 2 << (l - 1), (double)rate[l - 2]);
      }
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
    }
    { /* (8) the kernels' multigrid in 3D (and 2D, against the prototype's rates above) */
      for (PetscInt dim = 2; dim <= 3; dim++) {
        const PetscInt lmax = dim == 2 ? 4 : (k > 2 ? 3 : 4);
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "k = %" PetscInt_FMT ", %" PetscInt_FMT "D: the kernels' DG vertex-patch V(1,1) contraction on 4..%d cells per direction:", k, dim, 2 << (lmax - 1)));
        for (PetscInt l = 2; l <= lmax; l++) {
          PetscReal rate;
          PetscCall(KernelMGRate(&b, dim, l, C, &rate));
          PetscCall(PetscPrintf(PETSC_COMM_WORLD, " %.3f", (double)rate));
          PetscCheck(rate < 0.1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "k = %" PetscInt_FMT ", %" PetscInt_FMT "D, %d cells: the kernels' DG vertex-patch V-cycle contracts by %g only", k, dim, 2 << (l - 1), (double)rate);
        }
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
      }
    }
    for (PetscInt dim = 2; dim <= 3; dim++) { /* (3) L2 convergence at order k + 1 */
      PetscReal e[4], edg[4], rate = 0, ratedg;
      PetscInt  nn = dim == 2 ? 4 : 3, n0 = 2;
      for (PetscInt i = 0; i < nn; i++) {
        PetscCall(SolveError(&b, dim, n0 << i, C, &e[i], &edg[i]));
        if (e[i] < 1e-10 && i >= 1) { /* finer meshes would measure the round-off of the solve, not the discretization */
          nn = i + 1;
          break;
        }
      }
      rate   = PetscLog2Real(e[nn - 2] / e[nn - 1]);
      ratedg = PetscLog2Real(edg[nn - 2] / edg[nn - 1]);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "k = %" PetscInt_FMT ", %" PetscInt_FMT "D: L2 errors", k, dim));
      for (PetscInt i = 0; i < nn; i++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, " %.3e", (double)e[i]));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, ", finest rate %.2f; DG energy errors", (double)rate));
      for (PetscInt i = 0; i < nn; i++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, " %.3e", (double)edg[i]));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, ", rate %.2f\n", (double)ratedg));
      PetscCheck(ratedg > k - 0.3, PETSC_COMM_SELF, PETSC_ERR_PLIB, "k = %" PetscInt_FMT ", %" PetscInt_FMT "D: DG energy rate %g, expected about %" PetscInt_FMT, k, dim, (double)ratedg, k);
      PetscCheck(rate > k + 1 - 0.3, PETSC_COMM_SELF, PETSC_ERR_PLIB, "k = %" PetscInt_FMT ", %" PetscInt_FMT "D: L2 rate %g, expected about %" PetscInt_FMT, k, dim, (double)rate, k + 1);
    }
  }
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: 2d3d
    output_file: none

  test:
    suffix: k5_to_7_penalty4
    args: -degrees 5,6,7 -penalty 4
    output_file: none

  test:
    suffix: weak_penalty
    args: -degrees 3 -penalty 0.1
    expect_error: not positive definite

TEST*/
