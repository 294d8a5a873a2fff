/*
  PCVPATCH's mapped variant, CUDA: the factors of each patch's separable surrogate from the geometric factors the GPU
  already holds for the operator, so that the set-up reads them at memory bandwidth instead of downloading them (12 GB
  at 111M unknowns of Q_3) and looping over them on one core. The host version, which the CPU path and the test against
  it use: PCVPatchSetUpSurrogate() in ../vpatch_mapped.c; the interface: VPSurrogateInfo in vpkernels.h.
*/
#include <petscvpatch/private/vpcuda.cuh>

/* the values of one owned cell per warp: for d < dim the largest of G_dd / w or the sum of G_dd over the cell's points,
   and the sum of the mass factors; lanes take the points in turn, shuffles reduce */
__global__ static void VPSurrogateCellKernel(VPSurrogateInfo s, VPGeoRef geo, const PetscReal *__restrict__ mgeo, PetscReal *__restrict__ cgv)
{
  const int      lane = threadIdx.x % 32, n1 = (int)s.n1, nd = s.dim == 3 ? n1 * n1 * n1 : n1 * n1;
  const PetscInt ncell = s.cm[0] * s.cm[1] * s.cm[2];

  for (PetscInt c = (blockIdx.x * (PetscInt)blockDim.x + threadIdx.x) / 32; c < ncell; c += (PetscInt)gridDim.x * blockDim.x / 32) {
    const PetscInt cx = c % s.cm[0], cy = (c / s.cm[0]) % s.cm[1], cz = c / (s.cm[0] * s.cm[1]);
    const PetscInt ic = ((cz + s.cs[2] - s.clo[2]) * s.cn[1] + cy + s.cs[1] - s.clo[1]) * s.cn[0] + cx + s.cs[0] - s.clo[0];
    const size_t   G  = (size_t)c * s.ncomp * nd;
    for (int d = 0; d < 4; d++) {
      PetscReal v = 0;
      if (d < s.dim)
        for (int q = lane; q < nd; q += 32) {
          const PetscReal x = VPGeoAt(geo, G + d * nd + q);
          if (s.pointmax)
            v = fmax(v, x / (s.qwts[q % n1] * s.qwts[(q / n1) % n1] * (s.dim == 3 ? s.qwts[q / (n1 * n1)] : 1.0)));
          else
            v += x;
        }
      else if (d == 3 && mgeo)
        for (int q = lane; q < nd; q += 32) v += mgeo[c * nd + q];
      for (int o = 16; o > 0; o /= 2) {
        const PetscReal w = __shfl_down_sync(0xffffffffu, v, o);
        v                 = (s.pointmax && d < s.dim) ? fmax(v, w) : v + w;
      }
      if (lane == 0) cgv[4 * ic + d] = v;
    }
  }
}

/* one thread per vertex: its 2^d cells' values combined */
__global__ static void VPSurrogateVertexKernel(VPSurrogateInfo s, const PetscReal *__restrict__ cgv, PetscReal *__restrict__ pg, PetscReal *__restrict__ pm)
{
  const PetscInt nvert = s.nv[0] * s.nv[1] * s.nv[2];

  for (PetscInt iv = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; iv < nvert; iv += (PetscInt)gridDim.x * blockDim.x) {
    const PetscInt v[3] = {s.vlo[0] + iv % s.nv[0], s.vlo[1] + (iv / s.nv[0]) % s.nv[1], s.vlo[2] + iv / (s.nv[0] * s.nv[1])};
    PetscReal      g[3] = {0, 0, 0}, m = 0;
    for (int cc = 0; cc < (1 << s.dim); cc++) {
      PetscInt c[3] = {0, 0, 0};
      for (int d = 0; d < s.dim; d++) c[d] = v[d] - 1 + ((cc >> d) & 1);
      const PetscInt ic = ((c[2] - s.clo[2]) * s.cn[1] + c[1] - s.clo[1]) * s.cn[0] + c[0] - s.clo[0];
      for (int d = 0; d < s.dim; d++) g[d] = s.mean ? g[d] + cgv[4 * ic + d] / (1 << s.dim) : fmax(g[d], cgv[4 * ic + d]);
      m += s.mass * cgv[4 * ic + 3] / (1 << s.dim);
    }
    for (int d = 0; d < 3; d++) pg[3 * iv + d] = g[d] * s.stiff;
    if (pm) pm[iv] = m;
  }
}

PetscErrorCode VPSurrogateFactors_CUDA(const VPSurrogateInfo *s, VPGeoRef d_geo, const PetscReal *d_mgeo, const PetscReal *d_lgeo, const PetscReal *h_cgv, PetscReal **d_pg, PetscReal **d_pm)
{
  const size_t ncb = (size_t)s->cn[0] * (size_t)s->cn[1] * (size_t)s->cn[2], nvert = (size_t)s->nv[0] * (size_t)s->nv[1] * (size_t)s->nv[2];
  const size_t ncell = (size_t)s->cm[0] * (size_t)s->cm[1] * (size_t)s->cm[2];
  PetscReal   *cgv;
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(VPGetStream(&stream));
  PetscCallCUDA(cudaMalloc((void **)&cgv, PetscMax(4 * ncb, (size_t)1) * sizeof(PetscReal)));
  PetscCallCUDA(cudaMalloc((void **)d_pg, PetscMax(3 * nvert, (size_t)1) * sizeof(PetscReal))); /* not NULL when empty, as VPDeviceCopy_Private() */
  if (d_mgeo) PetscCallCUDA(cudaMalloc((void **)d_pm, PetscMax(nvert, (size_t)1) * sizeof(PetscReal)));
  if (h_cgv)
    PetscCallCUDA(cudaMemcpyAsync(cgv, h_cgv, 4 * ncb * sizeof(PetscReal), cudaMemcpyHostToDevice, stream));
  else
    PetscCallCUDA(cudaMemsetAsync(cgv, 0, PetscMax(4 * ncb, (size_t)1) * sizeof(PetscReal), stream));
  if (ncell) {
    VPSurrogateCellKernel<<<(unsigned)PetscMin((ncell * 32 + 255) / 256, (size_t)1 << 20), 256, 0, stream>>>(*s, d_geo, d_mgeo, cgv);
    PetscCallCUDA(cudaGetLastError());
  }
  for (int p = 0; d_lgeo && p < 3; p++) { /* the layer below, part by part, as boxes of cells */
    VPSurrogateInfo t = *s;
    const long long o = VPLayerSlab(s->cs, s->cm, p, t.cs, t.cm);
    if (o < 0) continue;
    const size_t   n  = (size_t)t.cm[0] * (size_t)t.cm[1] * (size_t)t.cm[2];
    const VPGeoRef lg = {d_lgeo + (size_t)o * s->ncomp * (s->dim == 3 ? s->n1 * s->n1 * s->n1 : s->n1 * s->n1), NULL, NULL};
    VPSurrogateCellKernel<<<(unsigned)PetscMin((n * 32 + 255) / 256, (size_t)1 << 20), 256, 0, stream>>>(t, lg, NULL, cgv);
    PetscCallCUDA(cudaGetLastError());
  }
  if (nvert) {
    VPSurrogateVertexKernel<<<(unsigned)PetscMin((nvert + 255) / 256, (size_t)1 << 20), 256, 0, stream>>>(*s, cgv, *d_pg, d_mgeo ? *d_pm : NULL);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCallCUDA(cudaStreamSynchronize(stream)); /* h_cgv and cgv are freed next */
  PetscCallCUDA(cudaFree(cgv));
  PetscFunctionReturn(PETSC_SUCCESS);
}
