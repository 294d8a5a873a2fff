/*
  CUDA kernels of PCAUXAMG (the auxiliary-grid AMG), the device side of src/pc/impls/auxamg/auxamg.c (its set-up on
  one rank; its solve on one rank or several, where the off-rank block's product is taken out of a color's right-hand
  side first).

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

/* a kernel of the device cycle does nothing when its flag (device memory, written by an earlier kernel of the
   sequence) is 0: the kernels of a K-cycle's second inner step that the first made unnecessary; NULL: always on. The
   flag is the same for every thread, so a block returns as a whole */
static inline __device__ bool AuxOff(const int *on)
{
  return on && !*on;
}

/* one color of the Gauss-Seidel sweep: a group of G lanes of a warp per cell, the cell's rows one after the other in
   order (forward) or reversed, each row's entries spread over the lanes and summed by shuffles, the new value written
   in place by the group's first lane (the cells of a color do not couple) */
template <int G> static __global__ void AuxSmoothKernel(AuxAMGDeviceMat A, const PetscScalar *idiag, AuxAMGDeviceAgg g, PetscInt c0, PetscInt c1, bool forward, const PetscScalar *b, PetscScalar *x, const int *on)
{
  const PetscInt     t    = c0 + AuxThread() / G;
  const int          lane = threadIdx.x % G;
  const unsigned int mask = G == 32 ? 0xffffffffu : (((1u << G) - 1) << ((threadIdx.x % 32) / G * G));
  PetscInt           q0 = 0, q1 = 0;
  if (AuxOff(on)) return;
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

static PetscErrorCode AuxSmoothColor(cudaStream_t stream, const AuxAMGDeviceMat *A, const PetscScalar *d_idiag, const AuxAMGDeviceAgg *g, PetscInt maxlen, PetscInt c0, PetscInt c1, bool fw, const PetscScalar *b, PetscScalar *x, const int *on)
{
  const int    G  = maxlen <= 4 ? 4 : (maxlen <= 8 ? 8 : (maxlen <= 16 ? 16 : 32));
  const size_t nt = (size_t)(c1 - c0) * G;

  PetscFunctionBegin;
  if (c1 <= c0) PetscFunctionReturn(PETSC_SUCCESS);
  const unsigned nb = (unsigned)((nt + AUX_TPB - 1) / AUX_TPB);
  switch (G) {
  case 4:
    AuxSmoothKernel<4><<<nb, AUX_TPB, 0, stream>>>(*A, d_idiag, *g, c0, c1, fw, b, x, on);
    break;
  case 8:
    AuxSmoothKernel<8><<<nb, AUX_TPB, 0, stream>>>(*A, d_idiag, *g, c0, c1, fw, b, x, on);
    break;
  case 16:
    AuxSmoothKernel<16><<<nb, AUX_TPB, 0, stream>>>(*A, d_idiag, *g, c0, c1, fw, b, x, on);
    break;
  default:
    AuxSmoothKernel<32><<<nb, AUX_TPB, 0, stream>>>(*A, d_idiag, *g, c0, c1, fw, b, x, on);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AuxAMGSmoothColor_CUDA(const AuxAMGDeviceMat *A, const PetscScalar *d_idiag, const AuxAMGDeviceAgg *g, PetscInt maxlen, PetscInt c0, PetscInt c1, PetscBool forward, const PetscScalar *b, PetscScalar *x)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(VPGetStream(&stream));
  PetscCall(AuxSmoothColor(stream, A, d_idiag, g, maxlen, c0, c1, forward ? true : false, b, x, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* several ranks: bt_i = b_i - (the off-rank block's row i) . g for the rows order[q0 .. q1) (a color of the Gauss-Seidel),
   g the off-rank columns' values; the color's sweep then reads bt where it would read b */
static __global__ void AuxOffRankKernel(AuxAMGDeviceMat Ao, const PetscInt *order, PetscInt q0, PetscInt q1, const PetscScalar *b, const PetscScalar *g, PetscScalar *bt)
{
  const PetscInt q = q0 + AuxThread();
  if (q >= q1) return;
  const PetscInt i = order[q];
  PetscScalar    s = b[i];
  for (PetscInt e = Ao.rowptr[i]; e < Ao.rowptr[i + 1]; e++) s -= Ao.val[e] * g[Ao.col[e]];
  bt[i] = s;
}

PetscErrorCode AuxAMGOffRank_CUDA(const AuxAMGDeviceMat *Ao, const PetscInt *d_order, PetscInt q0, PetscInt q1, const PetscScalar *b, const PetscScalar *g, PetscScalar *bt)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (q1 <= q0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VPGetStream(&stream));
  AuxOffRankKernel<<<AuxBlocks(q1 - q0), AUX_TPB, 0, stream>>>(*Ao, d_order, q0, q1, b, g, bt);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* d_seq[i] = i for i < n (the identity order of cells) */
static __global__ void AuxSequenceKernel(PetscInt n, PetscInt *d_seq)
{
  const PetscInt i = AuxThread();
  if (i < n) d_seq[i] = i;
}

PetscErrorCode AuxAMGSequence_CUDA(PetscInt n, PetscInt **d_seq)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(VPGetStream(&stream));
  PetscCall(AuxMalloc(d_seq, n));
  if (n) AuxSequenceKernel<<<AuxBlocks(n), AUX_TPB, 0, stream>>>(n, *d_seq);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A x, or y = b - A x when b is given */
static __global__ void AuxMultKernel(AuxAMGDeviceMat A, const PetscScalar *b, const PetscScalar *x, PetscScalar *y, const int *on)
{
  const PetscInt i = AuxThread();
  if (i >= A.n || AuxOff(on)) return;
  PetscScalar s = 0;
  AuxRow(A, i, [&](PetscInt j, PetscScalar a) { s += a * x[j]; });
  y[i] = b ? b[i] - s : s;
}

static PetscErrorCode AuxMult(cudaStream_t stream, const AuxAMGDeviceMat *A, const PetscScalar *b, const PetscScalar *x, PetscScalar *y, const int *on)
{
  PetscFunctionBegin;
  if (!A->n) PetscFunctionReturn(PETSC_SUCCESS);
  AuxMultKernel<<<AuxBlocks(A->n), AUX_TPB, 0, stream>>>(*A, b, x, y, on);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AuxAMGMult_CUDA(const AuxAMGDeviceMat *A, const PetscScalar *b, const PetscScalar *x, PetscScalar *y)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(VPGetStream(&stream));
  PetscCall(AuxMult(stream, A, b, x, y, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the weights of the coarse levels' damped Jacobi (-pc_auxamg_coarse_smoother jacobi): w_i = 1 / (a_ii + sum_{j != i}
   |a_ij| / 2), which is 2/3 / a_ii where a row sums to 0 and never more than 1 / a_ii */
static __global__ void AuxJacobiWeightsKernel(AuxAMGDeviceMat A, PetscScalar *w)
{
  const PetscInt i = AuxThread();
  if (i >= A.n) return;
  PetscScalar d = 0, off = 0;
  AuxRow(A, i, [&](PetscInt j, PetscScalar a) {
    if (j == i)
      d += a;
    else
      off += PetscAbsScalar(a);
  });
  w[i] = d + off / 2 != 0 ? 1 / (d + off / 2) : 0;
}

PetscErrorCode AuxAMGJacobiWeights_CUDA(const AuxAMGDeviceMat *A, PetscScalar **d_w)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(VPGetStream(&stream));
  PetscCall(AuxMalloc(d_w, A->n));
  if (A->n) AuxJacobiWeightsKernel<<<AuxBlocks(A->n), AUX_TPB, 0, stream>>>(*A, *d_w);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one damped Jacobi sweep: y = x + w (b - A x), or y = w b when x is NULL (from zero); y and x distinct */
static __global__ void AuxJacobiKernel(AuxAMGDeviceMat A, const PetscScalar *w, const PetscScalar *b, const PetscScalar *x, PetscScalar *y, const int *on)
{
  const PetscInt i = AuxThread();
  if (i >= A.n || AuxOff(on)) return;
  if (!x) {
    y[i] = w[i] * b[i];
    return;
  }
  PetscScalar s = 0;
  AuxRow(A, i, [&](PetscInt j, PetscScalar a) { s += a * x[j]; });
  y[i] = x[i] + w[i] * (b[i] - s);
}

static PetscErrorCode AuxJacobi(cudaStream_t stream, const AuxAMGDeviceMat *A, const PetscScalar *w, const PetscScalar *b, const PetscScalar *x, PetscScalar *y, const int *on)
{
  PetscFunctionBegin;
  if (!A->n) PetscFunctionReturn(PETSC_SUCCESS);
  AuxJacobiKernel<<<AuxBlocks(A->n), AUX_TPB, 0, stream>>>(*A, w, b, x, y, on);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AuxAMGJacobi_CUDA(const AuxAMGDeviceMat *A, const PetscScalar *d_w, const PetscScalar *b, const PetscScalar *x, PetscScalar *y)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(VPGetStream(&stream));
  PetscCall(AuxJacobi(stream, A, d_w, b, x, y, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static __global__ void AuxRestrictKernel(AuxAMGDeviceAgg g, const PetscScalar *r, PetscScalar *rc, const int *on)
{
  const PetscInt I = AuxThread();
  if (I >= g.nc || AuxOff(on)) return;
  PetscScalar s = 0;
  for (PetscInt q = g.d_start[I]; q < g.d_start[I + 1]; q++) s += r[g.d_perm[q]];
  rc[I] = s;
}

static PetscErrorCode AuxRestrict(cudaStream_t stream, const AuxAMGDeviceAgg *g, const PetscScalar *r, PetscScalar *rc, const int *on)
{
  PetscFunctionBegin;
  if (!g->nc) PetscFunctionReturn(PETSC_SUCCESS);
  AuxRestrictKernel<<<AuxBlocks(g->nc), AUX_TPB, 0, stream>>>(*g, r, rc, on);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AuxAMGRestrict_CUDA(const AuxAMGDeviceAgg *g, const PetscScalar *r, PetscScalar *rc)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(VPGetStream(&stream));
  PetscCall(AuxRestrict(stream, g, r, rc, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = x + P e (y may be x) */
static __global__ void AuxProlongAddKernel(AuxAMGDeviceAgg g, const PetscScalar *e, const PetscScalar *x, PetscScalar *y, const int *on)
{
  const PetscInt i = AuxThread();
  if (i >= g.n || AuxOff(on)) return;
  y[i] = x[i] + e[g.d_agg[i]];
}

static PetscErrorCode AuxProlongAdd(cudaStream_t stream, const AuxAMGDeviceAgg *g, const PetscScalar *e, PetscScalar *x, const int *on, PetscScalar *y = NULL)
{
  PetscFunctionBegin;
  if (!g->n) PetscFunctionReturn(PETSC_SUCCESS);
  AuxProlongAddKernel<<<AuxBlocks(g->n), AUX_TPB, 0, stream>>>(*g, e, x, y ? y : x, on);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AuxAMGProlongAdd_CUDA(const AuxAMGDeviceAgg *g, const PetscScalar *e, PetscScalar *x)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(VPGetStream(&stream));
  PetscCall(AuxProlongAdd(stream, g, e, x, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the coarse levels' cycle (AuxAMGCycle*_CUDA): no host synchronization, one CUDA graph ---- */

#define AUX_RED_BLOCKS 128 /* blocks of the inner products' first pass (a fixed count: the sums do not depend on timing) */

/* the coefficients of one K-cycle step (Notay's two flexible CG steps), in device memory: e = ca c1 + cb c2 */
typedef struct {
  double alpha, rho1, ca, cb;
  int    second; /* the flag of the second inner step's kernels */
} AuxKStep;

struct _n_AuxAMGCycle {
  AuxAMGCycleDesc d;
  PetscScalar    *d_inv;  /* the coarsest level's inverse, row-major */
  AuxKStep       *d_k;    /* one per K-cycle step of a visit of level 1 */
  PetscInt        nk, ik; /* steps allocated; the next one to hand out while the sequence is issued */
  double         *d_part; /* the inner products' partial sums (3 or 5 per block) */
  PetscLogDouble  flops;  /* of one run, with every second step taken */
  cudaGraph_t     graph;
  cudaGraphExec_t exec;
};

/* x = 0 */
static __global__ void AuxZeroKernel(PetscInt n, PetscScalar *x, const int *on)
{
  const PetscInt i = AuxThread();
  if (i >= n || AuxOff(on)) return;
  x[i] = 0;
}

/* x = Ainv b, Ainv row-major (n <= AUXAMG_DENSE_MAX): a warp per row, its sum by shuffles */
static __global__ void AuxDenseKernel(PetscInt n, const PetscScalar *Ainv, const PetscScalar *b, PetscScalar *x, const int *on)
{
  const PetscInt i    = AuxThread() / 32;
  const int      lane = threadIdx.x % 32;
  if (i >= n || AuxOff(on)) return;
  PetscScalar s = 0;
  for (PetscInt jj = lane; jj < n; jj += 32) s += Ainv[(size_t)i * n + jj] * b[jj];
  for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (!lane) x[i] = s;
}

/* the sum over the block of one value per thread, in thread 0 (every thread of the block calls it) */
static inline __device__ double AuxBlockSum(double v, double *sh)
{
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  __syncthreads(); /* sh is reused by the caller's next sum */
  if (threadIdx.x % 32 == 0) sh[threadIdx.x / 32] = v;
  __syncthreads();
  double s = 0;
  if (!threadIdx.x)
    for (int w = 0; w < AUX_TPB / 32; w++) s += sh[w];
  return s;
}

/* first pass of NQ inner products a[q] . b[q]: block k's partial sums in part[q * gridDim.x + k] */
template <int NQ> struct AuxDotArgs {
  const PetscScalar *a[NQ], *b[NQ];
};

template <int NQ> static __global__ void AuxDotsKernel(PetscInt n, AuxDotArgs<NQ> v, double *part, const int *on)
{
  __shared__ double sh[AUX_TPB / 32];
  double            s[NQ];
  if (AuxOff(on)) return;
  for (int q = 0; q < NQ; q++) s[q] = 0;
  for (PetscInt i = AuxThread(); i < n; i += (PetscInt)gridDim.x * blockDim.x)
    for (int q = 0; q < NQ; q++) s[q] += (double)(v.a[q][i] * v.b[q][i]);
  for (int q = 0; q < NQ; q++) {
    const double t = AuxBlockSum(s[q], sh);
    if (!threadIdx.x) part[q * gridDim.x + blockIdx.x] = t;
  }
}

/* the second pass: the NQ sums of nb partial sums each, in thread 0 */
template <int NQ> static inline __device__ void AuxDotsFinish(int nb, const double *part, double *sh, double d[NQ])
{
  for (int q = 0; q < NQ; q++) {
    double s = 0;
    for (int k = threadIdx.x; k < nb; k += blockDim.x) s += part[q * nb + k];
    d[q] = AuxBlockSum(s, sh);
  }
}

/* the first step's coefficient from r.c1, r.v1, r.r, v1.c1, v1.v1 (v1 = A c1): alpha = r.c1 / c1.A c1; the second step
   is taken unless |r - alpha v1| <= ktol |r| (or c1.A c1 <= 0: r = 0, e = 0); the host path's PCAuxAMGCoarseCorrect() */
static __global__ void AuxKStep1Kernel(int nb, const double *part, double ktol2, AuxKStep *k, const int *on)
{
  __shared__ double sh[AUX_TPB / 32];
  double            d[5];
  if (AuxOff(on)) {
    if (!threadIdx.x) k->second = 0;
    return;
  }
  AuxDotsFinish<5>(nb, part, sh, d);
  if (threadIdx.x) return;
  const double rho1 = d[3];
  k->rho1           = rho1;
  k->cb             = 0;
  if (rho1 <= 0) {
    k->alpha  = 0;
    k->ca     = 0;
    k->second = 0;
    return;
  }
  const double alpha = d[0] / rho1, nr12 = fmax(0.0, d[2] - 2 * alpha * d[1] + alpha * alpha * d[4]);
  k->alpha  = alpha;
  k->ca     = alpha;
  k->second = nr12 <= ktol2 * d[2] ? 0 : 1;
}

/* the second step's coefficients from c2.v1, c2.v2, c2.r1 (v2 = A c2, r1 = r - alpha v1) */
static __global__ void AuxKStep2Kernel(int nb, const double *part, AuxKStep *k)
{
  __shared__ double sh[AUX_TPB / 32];
  double            d[3];
  if (!k->second) return;
  AuxDotsFinish<3>(nb, part, sh, d);
  if (threadIdx.x) return;
  const double rho1 = k->rho1, alpha = k->alpha, gam = d[0], a2 = d[2], rho2 = d[1] - gam * gam / rho1;
  if (rho2 > 0) {
    k->ca = alpha - gam * a2 / (rho1 * rho2);
    k->cb = a2 / rho2;
  }
}

/* r1 = r - alpha v1 */
static __global__ void AuxKStepResidualKernel(PetscInt n, const PetscScalar *r, const PetscScalar *v1, PetscScalar *r1, const AuxKStep *k)
{
  const PetscInt i = AuxThread();
  if (i >= n || !k->second) return;
  r1[i] = r[i] - (PetscScalar)k->alpha * v1[i];
}

/* e = ca c1 + cb c2 (c2 is read only where the second step was taken: otherwise it holds an older visit's values) */
static __global__ void AuxKStepCombineKernel(PetscInt n, const PetscScalar *c1, const PetscScalar *c2, PetscScalar *e, const AuxKStep *k, const int *on)
{
  const PetscInt i = AuxThread();
  if (i >= n || AuxOff(on)) return;
  const PetscScalar ca = (PetscScalar)k->ca, cb = (PetscScalar)k->cb;
  PetscScalar       v = ca != (PetscScalar)0 ? ca * c1[i] : 0;
  if (cb != (PetscScalar)0) v += cb * c2[i];
  e[i] = v;
}

static PetscErrorCode AuxCycleVisit(AuxAMGCycle c, cudaStream_t s, PetscInt l, const PetscScalar *b, PetscScalar *x, const int *on);

/* e ~ A_l^-1 r: one visit (V-cycle, the coarsest level), or up to two flexible CG steps preconditioned by it (K) */
static PetscErrorCode AuxCycleCorrect(AuxAMGCycle c, cudaStream_t s, PetscInt l, const PetscScalar *r, PetscScalar *e, const int *on)
{
  const AuxAMGCycleDesc *d = &c->d;
  const PetscInt         n = d->A[l].n;
  AuxKStep              *k;
  AuxDotArgs<5>          a5;
  AuxDotArgs<3>          a3;

  PetscFunctionBegin;
  if (l == d->nlevels - 1 || !d->kcycle) {
    PetscCall(AuxCycleVisit(c, s, l, r, e, on));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(c->ik < c->nk, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCAUXAMG: more K-cycle steps than counted");
  k = c->d_k + c->ik++;
  PetscCall(AuxCycleVisit(c, s, l, r, d->c1[l], on));
  PetscCall(AuxMult(s, &d->A[l], NULL, d->c1[l], d->v1[l], on));
  a5.a[0] = r, a5.b[0] = d->c1[l];        /* r.c1 */
  a5.a[1] = r, a5.b[1] = d->v1[l];        /* r.v1 */
  a5.a[2] = r, a5.b[2] = r;               /* r.r */
  a5.a[3] = d->v1[l], a5.b[3] = d->c1[l]; /* v1.c1 */
  a5.a[4] = d->v1[l], a5.b[4] = d->v1[l]; /* v1.v1 */
  AuxDotsKernel<5><<<AUX_RED_BLOCKS, AUX_TPB, 0, s>>>(n, a5, c->d_part, on);
  PetscCallCUDA(cudaGetLastError());
  AuxKStep1Kernel<<<1, AUX_TPB, 0, s>>>(AUX_RED_BLOCKS, c->d_part, (double)(d->ktol * d->ktol), k, on);
  PetscCallCUDA(cudaGetLastError());
  AuxKStepResidualKernel<<<AuxBlocks(n), AUX_TPB, 0, s>>>(n, r, d->v1[l], d->r1[l], k);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(AuxCycleVisit(c, s, l, d->r1[l], d->c2[l], &k->second));
  PetscCall(AuxMult(s, &d->A[l], NULL, d->c2[l], d->v2[l], &k->second));
  a3.a[0] = d->c2[l], a3.b[0] = d->v1[l]; /* c2.v1 */
  a3.a[1] = d->c2[l], a3.b[1] = d->v2[l]; /* c2.v2 */
  a3.a[2] = d->c2[l], a3.b[2] = d->r1[l]; /* c2.r1 */
  AuxDotsKernel<3><<<AUX_RED_BLOCKS, AUX_TPB, 0, s>>>(n, a3, c->d_part, &k->second);
  PetscCallCUDA(cudaGetLastError());
  AuxKStep2Kernel<<<1, AUX_TPB, 0, s>>>(AUX_RED_BLOCKS, c->d_part, k);
  PetscCallCUDA(cudaGetLastError());
  AuxKStepCombineKernel<<<AuxBlocks(n), AUX_TPB, 0, s>>>(n, d->c1[l], d->c2[l], e, k, on);
  PetscCallCUDA(cudaGetLastError());
  c->flops += 2 * 2 * d->A[l].w * (PetscLogDouble)n + 2 * 8 * (PetscLogDouble)n + 5 * (PetscLogDouble)n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = B_l b on level l >= 1: forward Gauss-Seidel from x = 0, the coarse correction, backward Gauss-Seidel; the
   coarsest level by its inverse */
static PetscErrorCode AuxCycleVisit(AuxAMGCycle c, cudaStream_t s, PetscInt l, const PetscScalar *b, PetscScalar *x, const int *on)
{
  const AuxAMGCycleDesc *d = &c->d;
  const PetscInt         n = d->A[l].n;

  PetscFunctionBegin;
  if (l == d->nlevels - 1) {
    if (n) AuxDenseKernel<<<(unsigned)((32 * (size_t)n + AUX_TPB - 1) / AUX_TPB), AUX_TPB, 0, s>>>(n, c->d_inv, b, x, on);
    PetscCallCUDA(cudaGetLastError());
    c->flops += 2 * (PetscLogDouble)n * n;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (d->jac[l]) { /* damped Jacobi: x = w b; then, after the correction went into r, x = r + w (b - A r) */
    PetscCall(AuxJacobi(s, &d->A[l], d->jac[l], b, NULL, x, on));
    PetscCall(AuxMult(s, &d->A[l], b, x, d->r[l], on));
    PetscCall(AuxRestrict(s, &d->agg[l], d->r[l], d->b[l + 1], on));
    PetscCall(AuxCycleCorrect(c, s, l + 1, d->b[l + 1], d->x[l + 1], on));
    PetscCall(AuxProlongAdd(s, &d->agg[l], d->x[l + 1], x, on, d->r[l]));
    PetscCall(AuxJacobi(s, &d->A[l], d->jac[l], b, d->r[l], x, on));
    c->flops += 2 * 2 * d->A[l].w * (PetscLogDouble)n + 6 * (PetscLogDouble)n;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (n) AuxZeroKernel<<<AuxBlocks(n), AUX_TPB, 0, s>>>(n, x, on);
  PetscCallCUDA(cudaGetLastError());
  for (PetscInt ci = 0; ci < d->ncolors[l]; ci++) PetscCall(AuxSmoothColor(s, &d->A[l], d->idiag[l], &d->agg[l], d->maxlen[l], d->colorstart[l][ci], d->colorstart[l][ci + 1], true, b, x, on));
  PetscCall(AuxMult(s, &d->A[l], b, x, d->r[l], on));
  PetscCall(AuxRestrict(s, &d->agg[l], d->r[l], d->b[l + 1], on));
  PetscCall(AuxCycleCorrect(c, s, l + 1, d->b[l + 1], d->x[l + 1], on));
  PetscCall(AuxProlongAdd(s, &d->agg[l], d->x[l + 1], x, on));
  for (PetscInt ci = d->ncolors[l] - 1; ci >= 0; ci--) PetscCall(AuxSmoothColor(s, &d->A[l], d->idiag[l], &d->agg[l], d->maxlen[l], d->colorstart[l][ci], d->colorstart[l][ci + 1], false, b, x, on));
  c->flops += 3 * 2 * d->A[l].w * (PetscLogDouble)n + 2 * (PetscLogDouble)n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the K-cycle steps of one visit of level l: one at each coarse level l < L - 1, then two visits of the level */
static PetscInt AuxCycleSteps(const AuxAMGCycleDesc *d, PetscInt l)
{
  if (!d->kcycle || l >= d->nlevels - 1) return 0;
  return 1 + 2 * AuxCycleSteps(d, l + 1);
}

/* the coarsest level's dense inverse, row-major, from its ELL on the device: LU (cuSOLVER), then A^T Y = I, so that Y
   column-major is A^-1 row-major */
static __global__ void AuxDenseFromELLKernel(AuxAMGDeviceMat A, PetscScalar *D, PetscScalar *I)
{
  const PetscInt i = AuxThread();
  if (i >= A.n) return;
  AuxRow(A, i, [&](PetscInt j, PetscScalar a) { D[(size_t)j * A.n + i] += a; });
  I[(size_t)i * A.n + i] = 1;
}

static PetscErrorCode AuxCycleDenseInverse(AuxAMGCycle c)
{
  const AuxAMGDeviceMat *A = &c->d.A[c->d.nlevels - 1];
  const int              n = (int)A->n;
  cusolverDnHandle_t     h;
  cudaStream_t           stream;
  PetscScalar           *D, *work;
  int                   *ipiv, *info, lwork = 0, hinfo[2] = {0, 0};

  PetscFunctionBegin;
#if !defined(PETSC_USE_REAL_DOUBLE) || defined(PETSC_USE_COMPLEX)
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "PCAUXAMG: the GPU path's coarsest solve needs real double PetscScalar");
#endif
  PetscCheck(A->n <= AUXAMG_DENSE_MAX, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCAUXAMG: a coarsest level of %" PetscInt_FMT " > %d unknowns on the device", A->n, AUXAMG_DENSE_MAX);
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VPGetStream(&stream));
  PetscCall(PetscCUSOLVERDnGetHandle(&h));
  PetscCallCUSOLVER(cusolverDnSetStream(h, stream));
  PetscCall(AuxMalloc(&D, (PetscInt)n * n));
  PetscCall(AuxMalloc(&c->d_inv, (PetscInt)n * n));
  PetscCall(AuxMalloc(&ipiv, n));
  PetscCall(AuxMalloc(&info, 2));
  PetscCallCUDA(cudaMemsetAsync(D, 0, sizeof(PetscScalar) * n * n, stream));
  PetscCallCUDA(cudaMemsetAsync(c->d_inv, 0, sizeof(PetscScalar) * n * n, stream));
  PetscCallCUDA(cudaMemsetAsync(info, 0, 2 * sizeof(int), stream));
  AuxDenseFromELLKernel<<<AuxBlocks(n), AUX_TPB, 0, stream>>>(*A, D, c->d_inv);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUSOLVER(cusolverDnDgetrf_bufferSize(h, n, n, D, n, &lwork));
  PetscCall(AuxMalloc(&work, (PetscInt)PetscMax(lwork, 1)));
  PetscCallCUSOLVER(cusolverDnDgetrf(h, n, n, D, n, work, ipiv, info));
  PetscCallCUSOLVER(cusolverDnDgetrs(h, CUBLAS_OP_T, n, n, D, n, ipiv, c->d_inv, n, info + 1));
  PetscCallCUDA(cudaMemcpyAsync(hinfo, info, sizeof(hinfo), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCallCUDA(cudaFree(work));
  PetscCallCUDA(cudaFree(ipiv));
  PetscCallCUDA(cudaFree(info));
  PetscCallCUDA(cudaFree(D));
  PetscCheck(hinfo[0] >= 0 && hinfo[1] == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "PCAUXAMG: cuSOLVER's LU of the coarsest operator failed (getrf info %d, getrs info %d)", hinfo[0], hinfo[1]);
  PetscCheck(hinfo[0] == 0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "PCAUXAMG: the coarsest operator (%d unknowns) is singular: zero pivot in its row %d (a problem without a Dirichlet condition?)", n, hinfo[0] - 1);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AuxAMGCycleCreate_CUDA(const AuxAMGCycleDesc *desc, AuxAMGCycle *cycle)
{
  AuxAMGCycle c;

  PetscFunctionBegin;
  PetscCheck(desc->nlevels >= 2 && desc->nlevels <= AUXAMG_MAX_LEVELS, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCAUXAMG: a device cycle of %" PetscInt_FMT " levels", desc->nlevels);
  PetscCheck(!desc->kcycle || desc->nlevels <= 16, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "PCAUXAMG: the K-cycle on the GPU takes at most 16 levels (its inner steps double per level), not %" PetscInt_FMT ": raise -pc_auxamg_coarse_size or use -pc_auxamg_cycle v", desc->nlevels);
  for (PetscInt l = 1; l < desc->nlevels; l++) {
    const PetscScalar *v[8] = {desc->b[l], desc->x[l], desc->r[l], desc->c1[l], desc->v1[l], desc->r1[l], desc->c2[l], desc->v2[l]};
    for (int q = 0; q < 8; q++) PetscCheck(v[q] || !desc->A[l].n, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "PCAUXAMG: work vector %d of level %" PetscInt_FMT " of the device cycle is NULL", q, l);
  }
  PetscCall(PetscNew(&c));
  c->d  = *desc;
  c->nk = AuxCycleSteps(desc, 1);
  PetscCall(AuxMalloc(&c->d_k, c->nk));
  PetscCall(AuxMalloc(&c->d_part, 5 * AUX_RED_BLOCKS));
  PetscCall(AuxCycleDenseInverse(c));
  *cycle = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one visit of level 1 (its right-hand side in desc->b[1], its correction into desc->x[1]) on PETSc's stream: from the
   graph (captured on the first run) or launched kernel by kernel */
PetscErrorCode AuxAMGCycleRun_CUDA(AuxAMGCycle c, PetscBool graph, PetscLogDouble *flops)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(VPGetStream(&stream));
  if (graph && !c->exec) {
    cudaStream_t cs;
    PetscCallCUDA(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
    PetscCallCUDA(cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal));
    c->ik    = 0;
    c->flops = 0;
    PetscCall(AuxCycleCorrect(c, cs, 1, c->d.b[1], c->d.x[1], NULL));
    PetscCallCUDA(cudaStreamEndCapture(cs, &c->graph));
    PetscCallCUDA(cudaStreamDestroy(cs));
    PetscCallCUDA(cudaGraphInstantiate(&c->exec, c->graph, 0));
  }
  if (graph)
    PetscCallCUDA(cudaGraphLaunch(c->exec, stream));
  else {
    c->ik    = 0;
    c->flops = 0;
    PetscCall(AuxCycleCorrect(c, stream, 1, c->d.b[1], c->d.x[1], NULL));
  }
  *flops = c->flops;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AuxAMGCycleDestroy_CUDA(AuxAMGCycle *cycle)
{
  AuxAMGCycle c = *cycle;

  PetscFunctionBegin;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  if (c->exec) PetscCallCUDA(cudaGraphExecDestroy(c->exec));
  if (c->graph) PetscCallCUDA(cudaGraphDestroy(c->graph));
  PetscCall(AuxAMGFree_CUDA(c->d_inv));
  PetscCall(AuxAMGFree_CUDA(c->d_k));
  PetscCall(AuxAMGFree_CUDA(c->d_part));
  PetscCall(PetscFree(c));
  *cycle = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
