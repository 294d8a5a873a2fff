#pragma once
/*
  The profile surrogate of a vertex patch (PC_VPATCH_SURROGATE_PROFILE, 3D): the patch operator replaced by
  sum_d g_d K_d (x) M_(others), with per-direction 1D patch matrices weighted by a profile f_d,
    K_d = sum over the patch's two cells along d and their Gauss points q of w_q f_d(x_q) phi_i'(x_q) phi_j'(x_q),
    M_d likewise with phi_i phi_j,
  whose inverse is fast diagonalization with per-patch eigenpairs (K_d s = lam M_d s, S_d^T M_d S_d = I). The profiles
  come from the log of the trace of the factors G = w a det(J) J^-1 J^-T over the patch's (2(k+1))^3 Gauss points,
  fitted as u_0(x) + u_1(y) + u_2(z) (the least-squares fit over a full grid: each u_d the mean over the other two
  directions, less the mean of all), f_d = exp(u_d); g_d matches the integral of G_dd over the patch. A coefficient or a
  map that is a product of 1D functions (on Cartesian cells) is so reproduced exactly, where the mean surrogate (f_d = 1)
  keeps only the patch's means: the oscillatory coefficient at contrast 1e6 varies by orders of magnitude inside a patch.
  Plain C on plain arrays, compiled for the host (vpatch_mapped.c) and the device (mapped.cu): the same tables on both.
*/
#include <petscvpatch/private/vpkernels.h>

#if defined(__CUDACC__)
#define VP_PROFILE_HD __host__ __device__
#else
#define VP_PROFILE_HD
#endif

/* the 1D Gauss data of degree k (n1 = k + 1 points): weights qw[q], basis values B[q n1 + i], derivatives D[q n1 + i] */
typedef struct {
  int    k;
  double qw[VPATCH_MAX_N1D], B[VPATCH_MAX_N1D * VPATCH_MAX_N1D], D[VPATCH_MAX_N1D * VPATCH_MAX_N1D];
} VPProfileBasis;

/* a patch's tables, ni = 2k - 1: S_0, S_1, S_2 (ni x ni, row-major, eigenvectors in the columns), then lam_0, lam_1,
   lam_2, the interior diagonals Kd_0, Kd_1, Kd_2 and Md_0, Md_1, Md_2 (ni each); g_d folded into lam_d and Kd_d, so the
   eigenvalue of mode (i, j, l) is lam_0[i] + lam_1[j] + lam_2[l] and the surrogate's diagonal
   Kd_0 Md_1 Md_2 + Md_0 Kd_1 Md_2 + Md_0 Md_1 Kd_2 */
VP_PROFILE_HD static inline int VPProfileSize(int k)
{
  return 3 * ((2 * k - 1) * (2 * k - 1) + 3 * (2 * k - 1));
}
VP_PROFILE_HD static inline int VPProfileLam(int k, int d)
{
  return 3 * (2 * k - 1) * (2 * k - 1) + d * (2 * k - 1);
}
VP_PROFILE_HD static inline int VPProfileKd(int k, int d)
{
  return VPProfileLam(k, 3) + d * (2 * k - 1);
}
VP_PROFILE_HD static inline int VPProfileMd(int k, int d)
{
  return VPProfileLam(k, 6) + d * (2 * k - 1);
}

/* the symmetric generalized eigenproblem K s = lam M s of order n (row-major, M positive definite; both overwritten):
   eigenvectors into S (columns, S^T M S = I), eigenvalues into lam. M = L L^T (Cholesky, L in M), C = L^-1 K L^-T (in
   K), cyclic Jacobi rotations on C until its off-diagonal part is below 1e-15 of its norm (n <= 15: a few sweeps),
   S = L^-T V */
VP_PROFILE_HD static inline void VPProfileEigen(int n, double *K, double *M, double *S, double *lam, double *V)
{
  double off, nrm = 0;
  for (int j = 0; j < n; j++) { /* Cholesky: L in the lower triangle of M */
    double s = M[j * n + j];
    for (int p = 0; p < j; p++) s -= M[j * n + p] * M[j * n + p];
    M[j * n + j] = sqrt(s);
    for (int i = j + 1; i < n; i++) {
      double t = M[i * n + j];
      for (int p = 0; p < j; p++) t -= M[i * n + p] * M[j * n + p];
      M[i * n + j] = t / M[j * n + j];
    }
  }
  for (int c = 0; c < n; c++) /* K = L^-1 K, column by column */
    for (int i = 0; i < n; i++) {
      double t = K[i * n + c];
      for (int p = 0; p < i; p++) t -= M[i * n + p] * K[p * n + c];
      K[i * n + c] = t / M[i * n + i];
    }
  for (int r = 0; r < n; r++) /* K = K L^-T, row by row */
    for (int i = 0; i < n; i++) {
      double t = K[r * n + i];
      for (int p = 0; p < i; p++) t -= M[i * n + p] * K[r * n + p];
      K[r * n + i] = t / M[i * n + i];
    }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      if (j > i) K[i * n + j] = K[j * n + i] = 0.5 * (K[i * n + j] + K[j * n + i]); /* symmetric to round-off */
      V[i * n + j] = i == j ? 1.0 : 0.0;
      nrm += K[i * n + j] * K[i * n + j];
    }
  for (int sweep = 0; sweep < 30; sweep++) {
    off = 0;
    for (int i = 0; i < n; i++)
      for (int j = i + 1; j < n; j++) off += K[i * n + j] * K[i * n + j];
    if (off <= 1e-30 * nrm) break;
    for (int p = 0; p < n; p++)
      for (int q = p + 1; q < n; q++) {
        double apq = K[p * n + q], theta, t, c, s;
        if (apq == 0) continue;
        theta = (K[q * n + q] - K[p * n + p]) / (2 * apq);
        t     = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1));
        c     = 1 / sqrt(t * t + 1);
        s     = t * c;
        for (int r = 0; r < n; r++) { /* K = J^T K J */
          const double kp = K[r * n + p], kq = K[r * n + q];
          K[r * n + p] = c * kp - s * kq;
          K[r * n + q] = s * kp + c * kq;
        }
        for (int r = 0; r < n; r++) {
          const double kp = K[p * n + r], kq = K[q * n + r];
          K[p * n + r] = c * kp - s * kq;
          K[q * n + r] = s * kp + c * kq;
        }
        for (int r = 0; r < n; r++) {
          const double vp = V[r * n + p], vq = V[r * n + q];
          V[r * n + p] = c * vp - s * vq;
          V[r * n + q] = s * vp + c * vq;
        }
      }
  }
  for (int i = 0; i < n; i++) lam[i] = K[i * n + i];
  for (int c = 0; c < n; c++) /* S = L^-T V, column by column (back substitution) */
    for (int i = n - 1; i >= 0; i--) {
      double t = V[i * n + c];
      for (int p = i + 1; p < n; p++) t -= M[p * n + i] * S[p * n + c];
      S[i * n + c] = t / M[i * n + i];
    }
}

/* work doubles of VPProfileTables() (3 (2k-1)^2: K_d, M_d and the rotations) */
#define VP_PROFILE_WORK (3 * VPATCH_MAX_NI * VPATCH_MAX_NI)

/* the tables (VPProfileSize(k) doubles, layout above) of the patch whose 8 cells have the factors G[cc] (cell cc at the
   patch's vertex - 1 + bit d of cc; component m of Gauss point q at G[cc][m nd + q], the diagonal first), the operator's
   stiffness weight stiff folded in */
VP_PROFILE_HD static inline void VPProfileTables(const VPProfileBasis *b, const double *const G[8], double stiff, double *out, double *work)
{
  const int k = b->k, n1 = k + 1, nd = n1 * n1 * n1, m2 = 2 * n1, ni = 2 * k - 1;
  double    u[3][2 * VPATCH_MAX_N1D], mean = 0, num[3] = {0, 0, 0}, den = 0;

  for (int d = 0; d < 3; d++)
    for (int i = 0; i < m2; i++) u[d][i] = 0;
  for (int cc = 0; cc < 8; cc++) /* the profiles: sums of log(tr G / w) over the other two directions */
    for (int q = 0; q < nd; q++) {
      const int    qx = q % n1, qy = (q / n1) % n1, qz = q / (n1 * n1);
      const double w = b->qw[qx] * b->qw[qy] * b->qw[qz], L = log((G[cc][q] + G[cc][nd + q] + G[cc][2 * nd + q]) / w) / (m2 * m2);
      u[0][(cc & 1) * n1 + qx] += L;
      u[1][((cc >> 1) & 1) * n1 + qy] += L;
      u[2][(cc >> 2) * n1 + qz] += L;
      mean += L / m2;
    }
  for (int d = 0; d < 3; d++)
    for (int i = 0; i < m2; i++) u[d][i] = exp(u[d][i] - mean); /* f_d */
  for (int cc = 0; cc < 8; cc++)
    for (int q = 0; q < nd; q++) {
      const int qx = q % n1, qy = (q / n1) % n1, qz = q / (n1 * n1);
      den += b->qw[qx] * b->qw[qy] * b->qw[qz] * u[0][(cc & 1) * n1 + qx] * u[1][((cc >> 1) & 1) * n1 + qy] * u[2][(cc >> 2) * n1 + qz];
      for (int d = 0; d < 3; d++) num[d] += G[cc][d * nd + q];
    }
  for (int d = 0; d < 3; d++) {
    double *Kd = work, *Md = Kd + ni * ni, *V = Md + ni * ni, gd = stiff * num[d] / den;
    for (int i = 0; i < ni * ni; i++) Kd[i] = Md[i] = 0;
    for (int c = 0; c < 2; c++) /* the two cells' 1D matrices on the patch's interior nodes 0 .. ni - 1 (node c k + i - 1) */
      for (int q = 0; q < n1; q++) {
        const double f = b->qw[q] * u[d][c * n1 + q];
        for (int i = 0; i < n1; i++) {
          const int pi = c * k + i - 1;
          if (pi < 0 || pi >= ni) continue;
          for (int j = 0; j < n1; j++) {
            const int pj = c * k + j - 1;
            if (pj < 0 || pj >= ni) continue;
            Kd[pi * ni + pj] += f * b->D[q * n1 + i] * b->D[q * n1 + j];
            Md[pi * ni + pj] += f * b->B[q * n1 + i] * b->B[q * n1 + j];
          }
        }
      }
    for (int i = 0; i < ni; i++) {
      out[VPProfileKd(k, d) + i] = gd * Kd[i * ni + i];
      out[VPProfileMd(k, d) + i] = Md[i * ni + i];
    }
    VPProfileEigen(ni, Kd, Md, out + d * ni * ni, out + VPProfileLam(k, d), V);
    for (int i = 0; i < ni; i++) out[VPProfileLam(k, d) + i] *= gd;
  }
}

/* VPProfileTables() of every patch of this rank's vertex box [alo, alo + anv) on the device, one thread each: d_geo the
   owned cells' factors (double), d_lgeo those of the layer of cells below this rank's (NULL where there is none);
   d_out: VPProfileSize(k) doubles per vertex */
PETSC_INTERN PetscErrorCode VPMappedProfile_CUDA(const VPGrid *, const PetscReal *d_geo, const PetscReal *d_lgeo, const VPProfileBasis *, PetscReal stiff, const PetscInt alo[3], const PetscInt anv[3], PetscReal *d_out);
