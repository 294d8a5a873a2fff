/*
  CUDA kernels of PCAUXAMG (the auxiliary-grid AMG), the device side of src/pc/impls/auxamg/auxamg.c on one rank.

  Set-up: the tree keys' parents (one thread per unknown), the aggregates (sort and unique of the keys, then a binary
  search per unknown: the same numbering as the host's, cells in key order), the rows of each cell (a stable sort),
  the coupling radius r of a level (the farthest tree-cell offset between two coupled rows), the colors ((r + 1)^d
  classes of the cells' coordinates modulo r + 1: two cells of one color never couple) and the Galerkin coarse
  operator summed straight into the fixed pattern of the (2r + 1)^d cells around each coarse row (ELL; one thread per
  coarse row adds the entries of its cells' rows in row order: deterministic, no atomics, no sparse product).
  Solve: the tree-colored Gauss-Seidel (a group of lanes per cell of the color, its rows in order, in place), the ELL
  product and residual, the restriction (a sum over each cell's rows) and the prolongation (x_i += e of i's cell).
  Plain pointers only; interfaces in include/petscvpatch/private/vpauxamg.h.
*/
#include <petscvpatch/private/vpcuda.cuh>
#include <petscvpatch/private/vpauxamg.h>
#include <thrust/binary_search.h>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/unique.h>

#define AuxCallThrust(...)                                                                      \
  do {                                                                                          \
    try {                                                                                       \
      __VA_ARGS__;                                                                              \
    } catch (const std::exception &ex) {                                                        \
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "PCAUXAMG: a thrust call failed: %s", ex.what()); \
    }                                                                                           \
  } while (0)

static const int AUX_TPB = 256;

static inline unsigned AuxBlocks(PetscInt n)
{
  return (unsigned)((n + AUX_TPB - 1) / AUX_TPB);
}

template <typename T> static PetscErrorCode AuxMalloc(T **p, PetscInt n)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMalloc((void **)p, sizeof(T) * (size_t)PetscMax(n, 1)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <typename T> static thrust::device_ptr<T> AuxPtr(T *p)
{
  return thrust::device_pointer_cast(p);
}

static inline __device__ PetscInt AuxThread(void)
{
  return (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;
}

/* the cell coordinates of a tree key of a grid of M cells per direction */
static inline __device__ void AuxCoords(PetscInt64 k, int cdim, PetscInt64 M, PetscInt64 c[3])
{
  for (int d = 0; d < cdim; d++) {
    c[d] = k % M;
    k /= M;
  }
}

/* f(column, value) for every stored entry of row i (CSR or slot-major ELL) */
template <typename F> static inline __device__ void AuxRow(const AuxAMGDeviceMat &A, PetscInt i, F &&f)
{
  if (A.w) {
    for (PetscInt s = 0; s < A.w; s++) {
      const size_t e = (size_t)s * A.n + i;
      f(A.col[e], A.val[e]);
    }
  } else {
    for (PetscInt e = A.rowptr[i]; e < A.rowptr[i + 1]; e++) f(A.col[e], A.val[e]);
  }
}

static __global__ void AuxParentKernel(PetscInt n, int cdim, PetscInt64 M, PetscInt64 *key)
{
  const PetscInt i = AuxThread();
  if (i >= n) return;
  PetscInt64 k = key[i], p = 0, f = 1;
  for (int d = 0; d < cdim; d++) {
    p += ((k % M) / 2) * f;
    k /= M;
    f *= (M + 1) / 2;
  }
  key[i] = p;
}

PetscErrorCode AuxAMGUpload_CUDA(void **d, const void *h, size_t bytes)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(VPGetStream(&stream));
  PetscCallCUDA(cudaMalloc(d, PetscMax(bytes, 1)));
  PetscCallCUDA(cudaMemcpyAsync(*d, h, bytes, cudaMemcpyHostToDevice, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AuxAMGCopyToHost_CUDA(void *h, const void *d, size_t bytes)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(VPGetStream(&stream));
  PetscCallCUDA(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AuxAMGFree_CUDA(void *d)
{
  PetscFunctionBegin;
  if (d) PetscCallCUDA(cudaFree(d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AuxAMGParent_CUDA(PetscInt n, PetscInt cdim, PetscInt M, PetscInt64 *d_key)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VPGetStream(&stream));
  AuxParentKernel<<<AuxBlocks(n), AUX_TPB, 0, stream>>>(n, (int)cdim, M, d_key);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the distinct keys, sorted (d_ukeys, nc of them), and each unknown's index among them (d_agg) */
PetscErrorCode AuxAMGAggregate_CUDA(PetscInt n, const PetscInt64 *d_key, PetscInt **d_agg, PetscInt *nc, PetscInt64 **d_ukeys)
{
  PetscInt64  *tmp;
  cudaStream_t stream;
  PetscInt     m = 0;

  PetscFunctionBegin;
  PetscCall(VPGetStream(&stream));
  PetscCall(AuxMalloc(&tmp, n));
  PetscCallCUDA(cudaMemcpyAsync(tmp, d_key, sizeof(PetscInt64) * n, cudaMemcpyDeviceToDevice, stream));
  AuxCallThrust(thrust::sort(thrust::cuda::par.on(stream), AuxPtr(tmp), AuxPtr(tmp) + n); m = (PetscInt)(thrust::unique(thrust::cuda::par.on(stream), AuxPtr(tmp), AuxPtr(tmp) + n) - AuxPtr(tmp)));
  PetscCall(AuxMalloc(d_ukeys, m));
  PetscCallCUDA(cudaMemcpyAsync(*d_ukeys, tmp, sizeof(PetscInt64) * m, cudaMemcpyDeviceToDevice, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCallCUDA(cudaFree(tmp));
  PetscCall(AuxMalloc(d_agg, n));
  AuxCallThrust(thrust::lower_bound(thrust::cuda::par.on(stream), AuxPtr(*d_ukeys), AuxPtr(*d_ukeys) + m, AuxPtr(d_key), AuxPtr(d_key) + n, AuxPtr(*d_agg)));
  *nc = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the rows of each cell (perm, start) and each row's cell key (ckey), from g->d_agg */
PetscErrorCode AuxAMGMembers_CUDA(AuxAMGDeviceAgg *g, const PetscInt64 *d_ukeys)
{
  PetscInt    *sorted;
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(VPGetStream(&stream));
  PetscCall(AuxMalloc(&g->d_perm, g->n));
  PetscCall(AuxMalloc(&g->d_start, g->nc + 1));
  PetscCall(AuxMalloc(&g->d_ckey, g->n));
  PetscCall(AuxMalloc(&sorted, g->n));
  PetscCallCUDA(cudaMemcpyAsync(sorted, g->d_agg, sizeof(PetscInt) * g->n, cudaMemcpyDeviceToDevice, stream));
  AuxCallThrust(thrust::sequence(thrust::cuda::par.on(stream), AuxPtr(g->d_perm), AuxPtr(g->d_perm) + g->n); thrust::stable_sort_by_key(thrust::cuda::par.on(stream), AuxPtr(sorted), AuxPtr(sorted) + g->n, AuxPtr(g->d_perm));
                thrust::lower_bound(thrust::cuda::par.on(stream), AuxPtr(sorted), AuxPtr(sorted) + g->n, thrust::counting_iterator<PetscInt>(0), thrust::counting_iterator<PetscInt>(g->nc + 1), AuxPtr(g->d_start));
                thrust::gather(thrust::cuda::par.on(stream), AuxPtr(g->d_agg), AuxPtr(g->d_agg) + g->n, AuxPtr(d_ukeys), AuxPtr(g->d_ckey)));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCallCUDA(cudaFree(sorted));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the largest tree-cell offset (in any direction) between the cells of two coupled rows */
static __global__ void AuxRadiusKernel(AuxAMGDeviceMat A, const PetscInt64 *ckey, int cdim, PetscInt64 M, int *radius)
{
  const PetscInt i = AuxThread();
  int            r = 0;
  if (i < A.n) {
    PetscInt64 ci[3], cj[3];
    AuxCoords(ckey[i], cdim, M, ci);
    AuxRow(A, i, [&](PetscInt j, PetscScalar) {
      AuxCoords(ckey[j], cdim, M, cj);
      for (int d = 0; d < cdim; d++) r = max(r, (int)min((PetscInt64)1 << 30, ci[d] > cj[d] ? ci[d] - cj[d] : cj[d] - ci[d]));
    });
  }
  r = __reduce_max_sync(0xffffffffu, r);
  if ((threadIdx.x & 31) == 0 && r) atomicMax(radius, r);
}

PetscErrorCode AuxAMGRadius_CUDA(const AuxAMGDeviceMat *A, const AuxAMGDeviceAgg *g, PetscInt cdim, PetscInt M, PetscInt *r)
{
  int         *d_r, h = 0;
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(VPGetStream(&stream));
  PetscCall(AuxMalloc(&d_r, 1));
  PetscCallCUDA(cudaMemsetAsync(d_r, 0, sizeof(int), stream));
  if (A->n) AuxRadiusKernel<<<AuxBlocks(A->n), AUX_TPB, 0, stream>>>(*A, g->d_ckey, (int)cdim, M, d_r);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(&h, d_r, sizeof(int), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCallCUDA(cudaFree(d_r));
  *r = h;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static __global__ void AuxColorKernel(PetscInt nc, const PetscInt64 *ukeys, int cdim, PetscInt64 M, int r, PetscInt *color)
{
  const PetscInt I = AuxThread();
  if (I >= nc) return;
  PetscInt64 c[3];
  PetscInt   col = 0, f = 1;
  AuxCoords(ukeys[I], cdim, M, c);
  for (int d = 0; d < cdim; d++) {
    col += (PetscInt)(c[d] % (r + 1)) * f;
    f *= r + 1;
  }
  color[I] = col;
}

/* the cells ordered by color ((r + 1)^d colors), in key order within a color; colorstart[c]: color c's first */
PetscErrorCode AuxAMGColors_CUDA(AuxAMGDeviceAgg *g, const PetscInt64 *d_ukeys, PetscInt cdim, PetscInt M, PetscInt r, PetscInt colorstart[])
{
  PetscInt    *color, *d_cs, nco = 1;
  cudaStream_t stream;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < cdim; d++) nco *= r + 1;
  PetscCall(VPGetStream(&stream));
  PetscCall(AuxMalloc(&g->d_cells, g->nc));
  PetscCall(AuxMalloc(&color, g->nc));
  PetscCall(AuxMalloc(&d_cs, nco + 1));
  if (g->nc) AuxColorKernel<<<AuxBlocks(g->nc), AUX_TPB, 0, stream>>>(g->nc, d_ukeys, (int)cdim, M, (int)r, color);
  PetscCallCUDA(cudaGetLastError());
  AuxCallThrust(thrust::sequence(thrust::cuda::par.on(stream), AuxPtr(g->d_cells), AuxPtr(g->d_cells) + g->nc); thrust::stable_sort_by_key(thrust::cuda::par.on(stream), AuxPtr(color), AuxPtr(color) + g->nc, AuxPtr(g->d_cells));
                thrust::lower_bound(thrust::cuda::par.on(stream), AuxPtr(color), AuxPtr(color) + g->nc, thrust::counting_iterator<PetscInt>(0), thrust::counting_iterator<PetscInt>(nco + 1), AuxPtr(d_cs)));
  PetscCallCUDA(cudaMemcpyAsync(colorstart, d_cs, sizeof(PetscInt) * (nco + 1), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCallCUDA(cudaFree(color));
  PetscCallCUDA(cudaFree(d_cs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* slot s of the (2r + 1)^d stencil: the offset of each direction */
static inline __device__ void AuxSlotOffset(int s, int cdim, int r, int o[3])
{
  for (int d = 0; d < cdim; d++) {
    o[d] = s % (2 * r + 1) - r;
    s /= 2 * r + 1;
  }
}

/* the coarse pattern: column of each slot (the cell at that offset, or the row itself when no unknown is there) */
static __global__ void AuxGalerkinPatternKernel(PetscInt nc, const PetscInt64 *ukeys, int cdim, PetscInt64 M, int r, int w, PetscInt *col, unsigned long long *nnz)
{
  const PetscInt I = AuxThread();
  if (I >= nc) return;
  PetscInt64         c[3];
  unsigned long long cnt = 0;
  AuxCoords(ukeys[I], cdim, M, c);
  for (int s = 0; s < w; s++) {
    int        o[3];
    PetscInt64 key = 0, f = 1;
    bool       in = true;
    PetscInt   J  = -1;
    AuxSlotOffset(s, cdim, r, o);
    for (int d = 0; d < cdim; d++) {
      const PetscInt64 x = c[d] + o[d];
      if (x < 0 || x >= M) in = false;
      key += x * f;
      f *= M;
    }
    if (in) { /* binary search among the sorted keys */
      PetscInt lo = 0, hi = nc - 1;
      while (lo <= hi) {
        const PetscInt mid = lo + (hi - lo) / 2;
        if (ukeys[mid] == key) {
          J = mid;
          break;
        }
        if (ukeys[mid] < key)
          lo = mid + 1;
        else
          hi = mid - 1;
      }
    }
    col[(size_t)s * nc + I] = J >= 0 ? J : I;
    if (J >= 0) cnt++;
  }
  atomicAdd(nnz, cnt);
}

/* the coarse values: row I sums a_ij over its cell's rows i (in order) into the slot of j's cell */
template <int W> static __global__ void AuxGalerkinValuesKernel(AuxAMGDeviceMat A, AuxAMGDeviceAgg g, int cdim, PetscInt64 M, int r, int w, PetscScalar *val)
{
  const PetscInt I = AuxThread();
  if (I >= g.nc) return;
  PetscScalar acc[W];
  PetscInt64  cI[3] = {0, 0, 0};
  for (int s = 0; s < w; s++) acc[s] = 0;
  if (g.d_start[I + 1] > g.d_start[I]) AuxCoords(g.d_ckey[g.d_perm[g.d_start[I]]], cdim, M, cI);
  for (PetscInt q = g.d_start[I]; q < g.d_start[I + 1]; q++) {
    AuxRow(A, g.d_perm[q], [&](PetscInt j, PetscScalar a) {
      PetscInt64 cj[3];
      int        s = 0, f = 1;
      AuxCoords(g.d_ckey[j], cdim, M, cj);
      for (int d = 0; d < cdim; d++) {
        s += (int)(cj[d] - cI[d] + r) * f;
        f *= 2 * r + 1;
      }
      acc[s] += a;
    });
  }
  for (int s = 0; s < w; s++) val[(size_t)s * g.nc + I] = acc[s];
}

PetscErrorCode AuxAMGGalerkin_CUDA(const AuxAMGDeviceMat *A, const AuxAMGDeviceAgg *g, const PetscInt64 *d_ukeys, PetscInt cdim, PetscInt M, PetscInt r, PetscInt **d_col, PetscScalar **d_val, PetscInt *w, PetscInt64 *nnz)
{
  unsigned long long *d_nnz, h = 0;
  cudaStream_t        stream;
  PetscInt            W = 1;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < cdim; d++) W *= 2 * r + 1;
  PetscCheck(W <= AUXAMG_MAX_SLOTS, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "PCAUXAMG on the GPU: rows couple to unknowns %" PetscInt_FMT " auxiliary cells away, a coarse stencil of %" PetscInt_FMT " cells (at most %d); raise -pc_auxamg_points_per_cell, or use a host matrix (MATAIJ)", r, W, AUXAMG_MAX_SLOTS);
  PetscCall(VPGetStream(&stream));
  PetscCall(AuxMalloc(d_col, W * g->nc));
  PetscCall(AuxMalloc(d_val, W * g->nc));
  PetscCall(AuxMalloc(&d_nnz, 1));
  PetscCallCUDA(cudaMemsetAsync(d_nnz, 0, sizeof(*d_nnz), stream));
  if (g->nc) {
    AuxGalerkinPatternKernel<<<AuxBlocks(g->nc), AUX_TPB, 0, stream>>>(g->nc, d_ukeys, (int)cdim, M, (int)r, (int)W, *d_col, d_nnz);
    PetscCallCUDA(cudaGetLastError());
    if (W <= 9)
      AuxGalerkinValuesKernel<9><<<AuxBlocks(g->nc), AUX_TPB, 0, stream>>>(*A, *g, (int)cdim, M, (int)r, (int)W, *d_val);
    else if (W <= 27)
      AuxGalerkinValuesKernel<27><<<AuxBlocks(g->nc), AUX_TPB, 0, stream>>>(*A, *g, (int)cdim, M, (int)r, (int)W, *d_val);
    else
      AuxGalerkinValuesKernel<AUXAMG_MAX_SLOTS><<<AuxBlocks(g->nc), AUX_TPB, 0, stream>>>(*A, *g, (int)cdim, M, (int)r, (int)W, *d_val);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCallCUDA(cudaMemcpyAsync(&h, d_nnz, sizeof(h), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCallCUDA(cudaFree(d_nnz));
  *w   = W;
  *nnz = (PetscInt64)h;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 1 / (the sum of row i's entries in column i); the first row where that is 0 in *zero (n when none); the longest
   row's stored entries in *maxlen */
static __global__ void AuxInvDiagKernel(AuxAMGDeviceMat A, PetscScalar *idiag, unsigned long long *zero, unsigned long long *maxlen)
{
  const PetscInt i = AuxThread();
  if (i >= A.n) return;
  PetscScalar d = 0;
  AuxRow(A, i, [&](PetscInt j, PetscScalar a) {
    if (j == i) d += a;
  });
  idiag[i] = d != 0 ? 1 / d : 0;
  if (d == 0) atomicMin(zero, (unsigned long long)i);
  if (!A.w) atomicMax(maxlen, (unsigned long long)(A.rowptr[i + 1] - A.rowptr[i]));
}

PetscErrorCode AuxAMGInvDiag_CUDA(const AuxAMGDeviceMat *A, PetscScalar **d_idiag, PetscInt *zerorow, PetscInt *maxlen)
{
  unsigned long long *d_s, h[2] = {(unsigned long long)A->n, (unsigned long long)A->w};
  cudaStream_t        stream;

  PetscFunctionBegin;
  PetscCall(VPGetStream(&stream));
  PetscCall(AuxMalloc(d_idiag, A->n));
  PetscCall(AuxMalloc(&d_s, 2));
  PetscCallCUDA(cudaMemcpyAsync(d_s, h, sizeof(h), cudaMemcpyHostToDevice, stream));
  if (A->n) AuxInvDiagKernel<<<AuxBlocks(A->n), AUX_TPB, 0, stream>>>(*A, *d_idiag, d_s, d_s + 1);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(h, d_s, sizeof(h), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCallCUDA(cudaFree(d_s));
  *zerorow = h[0] < (unsigned long long)A->n ? (PetscInt)h[0] : -1;
  *maxlen  = (PetscInt)h[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one color of the Gauss-Seidel sweep: a group of G lanes of a warp per cell, the cell's rows one after the other in
   order (forward) or reversed, each row's entries spread over the lanes and summed by shuffles, the new value written
   in place by the group's first lane (the cells of a color do not couple) */
template <int G> static __global__ void AuxSmoothKernel(AuxAMGDeviceMat A, const PetscScalar *idiag, AuxAMGDeviceAgg g, PetscInt c0, PetscInt c1, bool forward, const PetscScalar *b, PetscScalar *x)
{
  const PetscInt     t    = c0 + AuxThread() / G;
  const int          lane = threadIdx.x % G;
  const unsigned int mask = G == 32 ? 0xffffffffu : (((1u << G) - 1) << ((threadIdx.x % 32) / G * G));
  PetscInt           q0 = 0, q1 = 0;
  if (t < c1) {
    const PetscInt I = g.d_cells[t];
    q0               = g.d_start[I];
    q1               = g.d_start[I + 1];
  }
  for (PetscInt qi = q0; qi < q1; qi++) { /* the same trip count on every lane of the group */
    const PetscInt i = g.d_perm[forward ? qi : q0 + q1 - 1 - qi];
    PetscScalar    s = 0;
    if (A.w) {
      for (PetscInt sl = lane; sl < A.w; sl += G) {
        const size_t   e = (size_t)sl * A.n + i;
        const PetscInt j = A.col[e];
        if (j != i) s += A.val[e] * x[j];
      }
    } else {
      for (PetscInt e = A.rowptr[i] + lane; e < A.rowptr[i + 1]; e += G) {
        const PetscInt j = A.col[e];
        if (j != i) s += A.val[e] * x[j];
      }
    }
#pragma unroll
    for (int o = G / 2; o > 0; o /= 2) s += __shfl_xor_sync(mask, s, o, G);
    if (lane == 0) x[i] = (b[i] - s) * idiag[i];
    __syncwarp(mask); /* the new value is seen by the group's next row */
  }
}

PetscErrorCode AuxAMGSmoothColor_CUDA(const AuxAMGDeviceMat *A, const PetscScalar *d_idiag, const AuxAMGDeviceAgg *g, PetscInt maxlen, PetscInt c0, PetscInt c1, PetscBool forward, const PetscScalar *b, PetscScalar *x)
{
  cudaStream_t stream;
  const bool   fw = forward ? true : false;
  const int    G  = maxlen <= 4 ? 4 : (maxlen <= 8 ? 8 : (maxlen <= 16 ? 16 : 32));
  const size_t nt = (size_t)(c1 - c0) * G;

  PetscFunctionBegin;
  if (c1 <= c0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VPGetStream(&stream));
  const unsigned nb = (unsigned)((nt + AUX_TPB - 1) / AUX_TPB);
  switch (G) {
  case 4:
    AuxSmoothKernel<4><<<nb, AUX_TPB, 0, stream>>>(*A, d_idiag, *g, c0, c1, fw, b, x);
    break;
  case 8:
    AuxSmoothKernel<8><<<nb, AUX_TPB, 0, stream>>>(*A, d_idiag, *g, c0, c1, fw, b, x);
    break;
  case 16:
    AuxSmoothKernel<16><<<nb, AUX_TPB, 0, stream>>>(*A, d_idiag, *g, c0, c1, fw, b, x);
    break;
  default:
    AuxSmoothKernel<32><<<nb, AUX_TPB, 0, stream>>>(*A, d_idiag, *g, c0, c1, fw, b, x);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A x, or y = b - A x when b is given */
static __global__ void AuxMultKernel(AuxAMGDeviceMat A, const PetscScalar *b, const PetscScalar *x, PetscScalar *y)
{
  const PetscInt i = AuxThread();
  if (i >= A.n) return;
  PetscScalar s = 0;
  AuxRow(A, i, [&](PetscInt j, PetscScalar a) { s += a * x[j]; });
  y[i] = b ? b[i] - s : s;
}

PetscErrorCode AuxAMGMult_CUDA(const AuxAMGDeviceMat *A, const PetscScalar *b, const PetscScalar *x, PetscScalar *y)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!A->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VPGetStream(&stream));
  AuxMultKernel<<<AuxBlocks(A->n), AUX_TPB, 0, stream>>>(*A, b, x, y);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

static __global__ void AuxRestrictKernel(AuxAMGDeviceAgg g, const PetscScalar *r, PetscScalar *rc)
{
  const PetscInt I = AuxThread();
  if (I >= g.nc) return;
  PetscScalar s = 0;
  for (PetscInt q = g.d_start[I]; q < g.d_start[I + 1]; q++) s += r[g.d_perm[q]];
  rc[I] = s;
}

PetscErrorCode AuxAMGRestrict_CUDA(const AuxAMGDeviceAgg *g, const PetscScalar *r, PetscScalar *rc)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!g->nc) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VPGetStream(&stream));
  AuxRestrictKernel<<<AuxBlocks(g->nc), AUX_TPB, 0, stream>>>(*g, r, rc);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

static __global__ void AuxProlongAddKernel(AuxAMGDeviceAgg g, const PetscScalar *e, PetscScalar *x)
{
  const PetscInt i = AuxThread();
  if (i >= g.n) return;
  x[i] += e[g.d_agg[i]];
}

PetscErrorCode AuxAMGProlongAdd_CUDA(const AuxAMGDeviceAgg *g, const PetscScalar *e, PetscScalar *x)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!g->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VPGetStream(&stream));
  AuxProlongAddKernel<<<AuxBlocks(g->n), AUX_TPB, 0, stream>>>(*g, e, x);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}
