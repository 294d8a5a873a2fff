/*
  The geometric factors of a DMQBOX with a built-in map and coefficient, computed on the GPU (the host version and the
  formulas: qboxgeo.c). One thread block per owned cell: the threads map the cell's nodes (shared memory), then each
  computes, at its Gauss point, J by sum over the nodes, det J, adj(J^T J), the point and the coefficient, and writes
  G = w a adj(J^T J) / det J in the layout of vpkernels.h, and where asked the mass matrix's factor w det J. A cell with
  det J <= 0 or a not positive and finite is not written; the smallest such cell index is returned (the host names it).
*/
#include <petscvpatch/private/vpgeomap.cuh>

template <int DIM, int K> __device__ void VPGeoPoint(const VPGeometryParams &, const double (*)[DIM == 3 ? (K + 1) * (K + 1) * (K + 1) : (K + 1) * (K + 1)], int, int, PetscReal *__restrict__, PetscReal *__restrict__, unsigned long long *);

template <int DIM, int K> __global__ void VPGeoKernel(VPGrid g, VPGeometryParams p, PetscReal *__restrict__ geo, PetscReal *__restrict__ mgeo, unsigned long long *bad)
{
  constexpr int     N = K + 1, ND = DIM == 3 ? N * N * N : N * N;
  __shared__ double xn[DIM][ND];
  const int         cell = blockIdx.x;
  const int         c[3] = {(int)g.cs[0] + cell % (int)g.cm[0], (int)g.cs[1] + (cell / (int)g.cm[0]) % (int)g.cm[1], DIM == 3 ? (int)g.cs[2] + cell / (int)(g.cm[0] * g.cm[1]) : 0};

  for (int t = threadIdx.x; t < ND; t += blockDim.x) { /* the node's image */
    const int it[3] = {t % N, (t / N) % N, DIM == 3 ? t / (N * N) : 0};
    double    x[3]  = {0, 0, 0};
    VPGeoNodeImage(g, p, DIM, K, c, it, x);
    for (int a = 0; a < DIM; a++) xn[a][t] = x[a];
  }
  __syncthreads();
  for (int t = threadIdx.x; t < ND; t += blockDim.x) VPGeoPoint<DIM, K>(p, xn, t, cell, geo, mgeo, bad);
}

/* at Gauss point t of the cell (nodes mapped in xn): J, the point, the coefficient, G (geo not NULL) and w det J (mgeo
   not NULL) */
template <int DIM, int K>
__device__ void VPGeoPoint(const VPGeometryParams &p, const double (*xn)[DIM == 3 ? (K + 1) * (K + 1) * (K + 1) : (K + 1) * (K + 1)], int t, int cell, PetscReal *__restrict__ geo, PetscReal *__restrict__ mgeo, unsigned long long *bad)
{
  constexpr int N = K + 1, ND = DIM == 3 ? N * N * N : N * N, NC = DIM == 3 ? 6 : 3;
  const int     it[3] = {t % N, (t / N) % N, DIM == 3 ? t / (N * N) : 0};
  double        J[DIM * DIM], xq[3] = {0, 0, 0}; /* row-major */
  for (int a = 0; a < DIM; a++) {
    for (int b = 0; b < DIM; b++) J[a * DIM + b] = 0;
  }
  for (int i = 0; i < ND; i++) { /* t is the point (qx, qy, qz) */
    const int ii[3] = {i % N, (i / N) % N, DIM == 3 ? i / (N * N) : 0};
    double    sv[3], dv[3], val = 1;
    for (int e = 0; e < DIM; e++) {
      sv[e] = p.S[it[e] * N + ii[e]];
      dv[e] = p.D[it[e] * N + ii[e]];
      val *= sv[e];
    }
    for (int b = 0; b < DIM; b++) {
      double f = 1;
      for (int e = 0; e < DIM; e++) f *= e == b ? dv[e] : sv[e];
      for (int a = 0; a < DIM; a++) J[a * DIM + b] += xn[a][i] * f;
    }
    for (int a = 0; a < DIM; a++) xq[a] += xn[a][i] * val;
  }
  double       adj[6];
  const double det = VPGeoDetAdj(DIM, J, adj);
  const double a   = VPGeoCoefficient(p, DIM, xq);
  if (!(det > 0) || isinf(det) || !(a > 0) || isinf(a)) {
    atomicMin(bad, (unsigned long long)cell);
    return;
  }
  double w = 1;
  for (int e = 0; e < DIM; e++) w *= p.w[it[e]];
  if (mgeo) mgeo[(size_t)cell * ND + t] = w * det;
  if (!geo) return;
  PetscReal *G = geo + (size_t)cell * NC * ND + t;
  for (int m = 0; m < NC; m++) G[(size_t)m * ND] = w * a * adj[m] / det;
}

template <int DIM, int K> struct VPGeoRun {
  static PetscErrorCode run(const VPGrid *g, const VPGeometryParams *p, PetscReal *geo, PetscReal *mgeo, unsigned long long *bad)
  {
    constexpr int N = K + 1, ND = DIM == 3 ? N * N * N : N * N;
    const int     ncells = (int)(g->cm[0] * g->cm[1] * g->cm[2]);
    cudaStream_t  stream;
    PetscFunctionBegin;
    PetscCall(VPGetStream(&stream));
    if (ncells) {
      VPGeoKernel<DIM, K><<<ncells, VPThreads(ND < 256 ? ND : 256), 0, stream>>>(*g, *p, geo, mgeo, bad);
      PetscCallCUDA(cudaGetLastError());
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};

PetscErrorCode VPGeometryBuiltin_CUDA(const VPGrid *g, const VPGeometryParams *p, PetscReal *d_geo, PetscReal *d_mgeo, PetscInt *badcell)
{
  unsigned long long *d_bad, h_bad = ~0ULL;
  cudaStream_t        stream;

  PetscFunctionBegin;
  PetscCheck((double)g->cm[0] * g->cm[1] * g->cm[2] < 2147483647.0, PETSC_COMM_SELF, PETSC_ERR_SUP, "The CUDA geometry numbers the owned cells of a process in int: use more processes");
  PetscCall(VPGetStream(&stream));
  PetscCallCUDA(cudaMallocAsync((void **)&d_bad, sizeof(*d_bad), stream));
  PetscCallCUDA(cudaMemcpyAsync(d_bad, &h_bad, sizeof(h_bad), cudaMemcpyHostToDevice, stream));
  VP_DISPATCH(VPGeoRun, g->dim, g->k, g, p, d_geo, d_mgeo, d_bad);
  PetscCallCUDA(cudaMemcpyAsync(&h_bad, d_bad, sizeof(h_bad), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaFreeAsync(d_bad, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  *badcell = h_bad == ~0ULL ? -1 : (PetscInt)h_bad;
  PetscFunctionReturn(PETSC_SUCCESS);
}
