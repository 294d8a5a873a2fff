/*
  Multiple dot products z_j = y_j^T x of real CUDA vectors at memory bandwidth (VecMDot of the vectors DMQBOX creates,
  qboxveccuda.c), and the norms of such vectors (VPNorm_CUDA: VecNorm of the vectors past 2^31 - 1 values per rank,
  veclong.cu says why). Lengths and indices are PetscInt (64-bit).

  Why: PETSc 3.26's CUDA VecMDot launches 128 blocks of 128 threads (MDOT_WORKGROUP_NUM in vecseqcupm_impl.hpp),
  about 4 warps per SM of an H100, too few loads in flight to cover the memory latency: it reads at about 0.7 TB/s
  (measured on an H100), a fifth of the HBM bandwidth, and was 0.075 s of a 0.79 s FGMRES solve. Here every
  SM gets full occupancy (a grid of 8 blocks of 256 threads per SM, grid-stride loop, two elements per iteration).

  Deterministic: a fixed grid for a given GPU and length, partial sums per block in a fixed order (warp shuffles,
  then the warps in order), and one final block that sums the blocks' partials in a fixed order.
*/
#include <petscvpatch/private/vpcuda.cuh>

#define VP_MDOT_THREADS 256
#define VP_MDOT_BATCH   8 /* vectors per pass over x */

template <int N> struct VPMDotPtrs {
  const PetscScalar *p[N];
};

template <bool MAX> __device__ __forceinline__ PetscScalar VPCombine(PetscScalar a, PetscScalar b)
{
  return MAX ? (a > b ? a : b) : a + b;
}

/* the sum (MAX: the largest) of v over the block (thread 0 has it); red: VP_MDOT_THREADS / 32 entries of shared memory */
template <bool MAX = false> __device__ __forceinline__ PetscScalar VPBlockSum(PetscScalar v, PetscScalar *red)
{
  for (int o = 16; o > 0; o /= 2) v = VPCombine<MAX>(v, __shfl_down_sync(0xffffffffu, v, o));
  __syncthreads(); /* red may still be read by the previous call */
  if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    for (int w = 1; w < VP_MDOT_THREADS / 32; w++) v = VPCombine<MAX>(v, red[w]);
  return v;
}

/* part[j * gridDim.x + block] = the block's part of y_j^H x */
template <int N> __global__ void __launch_bounds__(VP_MDOT_THREADS) VPMDotKernel(const PetscScalar *__restrict__ x, PetscInt n, VPMDotPtrs<N> y, PetscScalar *__restrict__ part)
{
  __shared__ PetscScalar red[VP_MDOT_THREADS / 32];
  PetscScalar            s[N];
  const PetscInt         stride = (PetscInt)gridDim.x * VP_MDOT_THREADS;
  PetscInt               i      = (PetscInt)blockIdx.x * VP_MDOT_THREADS + threadIdx.x;

#pragma unroll
  for (int j = 0; j < N; j++) s[j] = 0;
  for (; i + stride < n; i += 2 * stride) { /* two independent elements per iteration: more loads in flight */
    const PetscScalar x0 = x[i], x1 = x[i + stride];
#pragma unroll
    for (int j = 0; j < N; j++) s[j] += y.p[j][i] * x0 + y.p[j][i + stride] * x1;
  }
  if (i < n) {
    const PetscScalar x0 = x[i];
#pragma unroll
    for (int j = 0; j < N; j++) s[j] += y.p[j][i] * x0;
  }
#pragma unroll
  for (int j = 0; j < N; j++) {
    const PetscScalar t = VPBlockSum(s[j], red);
    if (threadIdx.x == 0) part[j * gridDim.x + blockIdx.x] = t;
  }
}

/* z[j] = sum of the nblocks partials of vector j; one block per vector */
__global__ void __launch_bounds__(VP_MDOT_THREADS) VPMDotFinalKernel(const PetscScalar *__restrict__ part, int nblocks, PetscScalar *__restrict__ z)
{
  __shared__ PetscScalar red[VP_MDOT_THREADS / 32];
  PetscScalar            s = 0;
  for (int b = threadIdx.x; b < nblocks; b += VP_MDOT_THREADS) s += part[blockIdx.x * nblocks + b];
  s = VPBlockSum(s, red);
  if (threadIdx.x == 0) z[blockIdx.x] = s;
}

template <int N> static PetscErrorCode VPMDotLaunch(const PetscScalar *x, PetscInt n, const PetscScalar *const *y, int nblocks, PetscScalar *part, PetscScalar *dz, cudaStream_t stream)
{
  VPMDotPtrs<N> p;

  PetscFunctionBegin;
  for (int j = 0; j < N; j++) p.p[j] = y[j];
  VPMDotKernel<N><<<nblocks, VP_MDOT_THREADS, 0, stream>>>(x, n, p, part);
  PetscCallCUDA(cudaGetLastError());
  VPMDotFinalKernel<<<N, VP_MDOT_THREADS, 0, stream>>>(part, nblocks, dz);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* VPMDotLaunch<m> for the runtime m = 1..N */
template <int N> static PetscErrorCode VPMDotDispatch(int m, const PetscScalar *x, PetscInt n, const PetscScalar *const *y, int nblocks, PetscScalar *part, PetscScalar *dz, cudaStream_t stream)
{
  if constexpr (N > 1)
    if (m < N) return VPMDotDispatch<N - 1>(m, x, n, y, nblocks, part, dz, stream);
  return VPMDotLaunch<N>(x, n, y, nblocks, part, dz, stream);
}

/* the fixed grid of the reductions for length n: 8 blocks per SM at most */
static PetscErrorCode VPMDotBlocks(PetscInt n, int *nblocks)
{
  static int nsm = 0;

  PetscFunctionBegin;
  if (!nsm) {
    int dev;
    PetscCallCUDA(cudaGetDevice(&dev));
    PetscCallCUDA(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
  }
  *nblocks = (int)PetscMin((n + VP_MDOT_THREADS - 1) / VP_MDOT_THREADS, (PetscInt)8 * nsm);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPMDot_CUDA(const PetscScalar *x, PetscInt n, PetscInt nv, const PetscScalar *const *y, PetscScalar *z)
{
  cudaStream_t stream;
  PetscScalar *part, *dz;
  int          nblocks;

  PetscFunctionBegin;
  if (nv <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  if (!n) {
    for (PetscInt j = 0; j < nv; j++) z[j] = 0;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VPMDotBlocks(n, &nblocks));
  PetscCall(VPGetStream(&stream));
  /* the partial sums from the stream-ordered pool: PetscDeviceMalloc() and PetscDeviceFree() once per call left about
     100-300 bytes of host memory behind each time (PETSc 3.26.1; found by tests/test_soak.c, GMRES calls this every
     iteration) */
  PetscCallCUDA(cudaMallocAsync((void **)&part, sizeof(PetscScalar) * ((size_t)VP_MDOT_BATCH * nblocks + nv), stream));
  dz = part + (size_t)VP_MDOT_BATCH * nblocks;
  for (PetscInt j0 = 0; j0 < nv; j0 += VP_MDOT_BATCH) {
    const PetscScalar *const *yj = y + j0;
    PetscScalar              *zj = dz + j0;
    PetscCall(VPMDotDispatch<VP_MDOT_BATCH>((int)PetscMin(nv - j0, VP_MDOT_BATCH), x, n, yj, nblocks, part, zj, stream));
  }
  PetscCallCUDA(cudaMemcpyAsync(z, dz, sizeof(PetscScalar) * nv, cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaFreeAsync(part, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* what VPNormKernel reduces: sum |x_i|, sum x_i^2, max |x_i| */
enum VPNormPart {
  VP_NORM_ABS_SUM,
  VP_NORM_SQ_SUM,
  VP_NORM_ABS_MAX
};

/* part[block] = the block's part of the reduction P over x */
template <int P> __global__ void __launch_bounds__(VP_MDOT_THREADS) VPNormKernel(const PetscScalar *__restrict__ x, PetscInt n, PetscScalar *__restrict__ part)
{
  __shared__ PetscScalar red[VP_MDOT_THREADS / 32];
  PetscScalar            s      = 0;
  const PetscInt         stride = (PetscInt)gridDim.x * VP_MDOT_THREADS;

  for (PetscInt i = (PetscInt)blockIdx.x * VP_MDOT_THREADS + threadIdx.x; i < n; i += stride) {
    const PetscScalar v = x[i];
    if (P == VP_NORM_ABS_SUM)
      s += PetscAbsScalar(v);
    else if (P == VP_NORM_SQ_SUM)
      s += v * v;
    else
      s = PetscMax(s, PetscAbsScalar(v));
  }
  s = VPBlockSum<P == VP_NORM_ABS_MAX>(s, red);
  if (threadIdx.x == 0) part[blockIdx.x] = s;
}

template <int P> __global__ void __launch_bounds__(VP_MDOT_THREADS) VPNormFinalKernel(const PetscScalar *__restrict__ part, int nblocks, PetscScalar *__restrict__ z)
{
  __shared__ PetscScalar red[VP_MDOT_THREADS / 32];
  PetscScalar            s = 0;
  for (int b = threadIdx.x; b < nblocks; b += VP_MDOT_THREADS) s = VPCombine<P == VP_NORM_ABS_MAX>(s, part[b]);
  s = VPBlockSum<P == VP_NORM_ABS_MAX>(s, red);
  if (threadIdx.x == 0) *z = s;
}

template <int P> static PetscErrorCode VPNormLaunch(const PetscScalar *x, PetscInt n, int nblocks, PetscScalar *part, PetscScalar *dz, cudaStream_t stream)
{
  PetscFunctionBegin;
  VPNormKernel<P><<<nblocks, VP_MDOT_THREADS, 0, stream>>>(x, n, part);
  PetscCallCUDA(cudaGetLastError());
  VPNormFinalKernel<P><<<1, VP_MDOT_THREADS, 0, stream>>>(part, nblocks, dz);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPNorm_CUDA(const PetscScalar *x, PetscInt n, PetscBool abssum, PetscBool sqsum, PetscBool absmax, PetscReal *sums)
{
  cudaStream_t stream;
  PetscScalar *part, *dz, hz[3] = {0, 0, 0};
  int          nblocks;

  PetscFunctionBegin;
  if (n > 0) {
    PetscCall(VPMDotBlocks(n, &nblocks));
    PetscCall(VPGetStream(&stream));
    PetscCallCUDA(cudaMallocAsync((void **)&part, sizeof(PetscScalar) * ((size_t)nblocks + 3), stream));
    dz = part + nblocks;
    PetscCallCUDA(cudaMemsetAsync(dz, 0, 3 * sizeof(PetscScalar), stream)); /* the sums not asked for read as 0 */
    if (abssum) PetscCall(VPNormLaunch<VP_NORM_ABS_SUM>(x, n, nblocks, part, dz, stream));
    if (sqsum) PetscCall(VPNormLaunch<VP_NORM_SQ_SUM>(x, n, nblocks, part, dz + 1, stream));
    if (absmax) PetscCall(VPNormLaunch<VP_NORM_ABS_MAX>(x, n, nblocks, part, dz + 2, stream));
    PetscCallCUDA(cudaMemcpyAsync(hz, dz, sizeof(hz), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaFreeAsync(part, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
  }
  for (int j = 0; j < 3; j++) sums[j] = PetscRealPart(hz[j]);
  PetscFunctionReturn(PETSC_SUCCESS);
}
