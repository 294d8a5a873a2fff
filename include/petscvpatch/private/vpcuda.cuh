/*
  Device helpers shared by the CUDA kernels of petsc-vpatch (only .cu files include this).

  Tensors live in shared memory (x fastest). The kernels contract them one thread per 1D line with the
  line in registers and the 1D matrices of the reference element in constant memory (VP_CONSTANT_TABLE).

  Scalar type: every kernel is a template on the compute type T (double or float). Global vectors
  stay PetscScalar (double); values are converted on load into shared memory and on the final
  store, so T sets the precision of the arithmetic and the shared-memory footprint and traffic.
*/
#pragma once

#include <petscdevice_cuda.h>
#include <petscvpatch/private/vpkernels.h>

/* dynamic shared memory of a kernel template seen as an array of T (one extern declaration for every T) */
#define VP_DYNAMIC_SHARED(T, name)                                 \
  extern __shared__ __align__(16) unsigned char vp_dynamic_smem[]; \
  T                                            *name = reinterpret_cast<T *>(vp_dynamic_smem)

/* A block's gather of n entries from global into shared memory, entry t by thread t mod blockDim.x: load(t, v) gives
   entry t's value in v and returns its place in dst (negative: none). Each thread issues UB loads before it stores
   any, so their latencies overlap; a loop of load-then-store pays one global latency per entry in turn (the compiler
   cannot move a load above the previous shared store of a runtime-strided loop). */
template <int UB, typename T, typename L> __device__ __forceinline__ void VPGatherBatched(int n, T *dst, L load)
{
  for (int t0 = threadIdx.x; t0 < n; t0 += UB * (int)blockDim.x) {
    T   v[UB];
    int at[UB];
#pragma unroll
    for (int u = 0; u < UB; u++) {
      const int t = t0 + u * (int)blockDim.x;
      v[u]        = 0;
      at[u]       = t < n ? load(t, v[u]) : -1;
    }
#pragma unroll
    for (int u = 0; u < UB; u++)
      if (at[u] >= 0) dst[at[u]] = v[u];
  }
}

/* tensors of NT entries per thread block: enough to give a block about 128 threads of work */
template <int NT> struct VPBatch {
  static constexpr int value = NT >= 128 ? 1 : 128 / NT;
};

/* factor i of a VPGeoRef: the double one, or the sum of its float halves (exact in double) */
__device__ __forceinline__ double VPGeoAt(const VPGeoRef &g, size_t i)
{
  return g.d ? g.d[i] : (double)g.hi[i] + (double)g.lo[i];
}

__device__ __forceinline__ bool VPDIsBoundary(const VPGrid &g, int px, int py, int pz)
{
  if (px == 0 || px == g.N[0] * g.k) return true;
  if (py == 0 || py == g.N[1] * g.k) return true;
  if (g.dim == 3 && (pz == 0 || pz == g.N[2] * g.k)) return true;
  return false;
}

__device__ __forceinline__ PetscInt VPDLocalIndex(const VPGrid &g, int px, int py, int pz)
{
  return ((PetscInt)(pz - g.gxs[2]) * g.gxm[1] + (py - g.gxs[1])) * g.gxm[0] + (px - g.gxs[0]);
}

/* A box of E^dim nodes (a cell: E = k + 1; a vertex patch: E = 2k + 1) with lower corner node (px, py, pz): bit 2 d
   (2 d + 1) of the result says its first (last) layer along d lies on the lower (upper) Dirichlet boundary. Computed
   once per box, it replaces VPDIsBoundary per node (VPDBoxOnBoundary) */
__device__ __forceinline__ int VPDBoxFlags(const VPGrid &g, int E, int px, int py, int pz)
{
  const int n0 = (int)(g.N[0] * g.k), n1 = (int)(g.N[1] * g.k), n2 = (int)(g.N[2] * g.k);
  int       f = (px == 0 ? 1 : 0) | (px + E - 1 == n0 ? 2 : 0) | (py == 0 ? 4 : 0) | (py + E - 1 == n1 ? 8 : 0);
  if (g.dim == 3) f |= (pz == 0 ? 16 : 0) | (pz + E - 1 == n2 ? 32 : 0);
  return f;
}
/* is node (x, y, z) of a box whose last node is (lx, ly, lz) on one of the faces in the bits m (as VPDBoxFlags) */
__device__ __forceinline__ bool VPDBoxOnFace(int m, int x, int y, int z, int lx, int ly, int lz)
{
  return m && (((m & 1) && x == 0) || ((m & 2) && x == lx) || ((m & 4) && y == 0) || ((m & 8) && y == ly) || ((m & 16) && z == 0) || ((m & 32) && z == lz));
}
/* is node (ex, ey, ez) of a box of E^dim nodes with flags f (VPDBoxFlags) a Dirichlet node */
template <int E> __device__ __forceinline__ bool VPDBoxOnBoundary(int f, int ex, int ey, int ez)
{
  return VPDBoxOnFace(f, ex, ey, ez, E - 1, E - 1, E - 1);
}
/* 3D box of up to B[d] owned cells along d, box number bi[d] of a set that starts at box first[d] and takes every
   step-th box: its first cell c[d] and its number of cells n[d] (fewer at the end of the owned range); the result has
   bit 2 d (2 d + 1) set when its lower (upper) face lies on the domain boundary */
__device__ __forceinline__ int VPDCellBox(const VPGrid &g, const int bi[3], const int B[3], const int first[3], int step, int c[3], int n[3])
{
  int f = 0;
  for (int d = 0; d < 3; d++) {
    c[d] = (int)g.cs[d] + B[d] * (first[d] + step * bi[d]);
    n[d] = min(B[d], (int)(g.cs[d] + g.cm[d]) - c[d]);
    if (c[d] == 0) f |= 1 << (2 * d);
    if (c[d] + n[d] == (int)g.N[d]) f |= 2 << (2 * d);
  }
  return f;
}
/* Calls F<DIM, K>::run(args...) for the runtime (dim, k): the dispatch table of the templates */
/* out = M along direction dir of B tensors e0 x e1 x e2 (contiguous, x fastest) in in (tr: M^T), by the whole thread
   block, a thread per output entry, then a barrier; M row-major with leading dimension ld; in != out. Generic: for the
   untuned kernels (the patch CG, the mapped mass matrix) */
__device__ static inline void VPContractBlock(int e0, int e1, int e2, int B, int dir, const PetscReal *M, int ld, bool tr, const PetscReal *in, PetscReal *out)
{
  const int n = dir == 0 ? e0 : dir == 1 ? e1 : e2, st = dir == 0 ? 1 : dir == 1 ? e0 : e0 * e1, tot = e0 * e1 * e2 * B;

  for (int t = threadIdx.x; t < tot; t += blockDim.x) {
    const int q = (t / st) % n, base = t - q * st; /* a line never crosses from one tensor into the next */
    PetscReal s = 0;
    for (int i = 0; i < n; i++) s += (tr ? M[i * ld + q] : M[q * ld + i]) * in[base + i * st];
    out[t] = s;
  }
  __syncthreads();
}

#define VP_DISPATCH_2D(F, k, ...)                                                            \
  switch (k) {                                                                               \
  case 1:                                                                                    \
    PetscCall(F<2, 1>::run(__VA_ARGS__));                                                    \
    break;                                                                                   \
  case 2:                                                                                    \
    PetscCall(F<2, 2>::run(__VA_ARGS__));                                                    \
    break;                                                                                   \
  case 3:                                                                                    \
    PetscCall(F<2, 3>::run(__VA_ARGS__));                                                    \
    break;                                                                                   \
  case 4:                                                                                    \
    PetscCall(F<2, 4>::run(__VA_ARGS__));                                                    \
    break;                                                                                   \
  case 5:                                                                                    \
    PetscCall(F<2, 5>::run(__VA_ARGS__));                                                    \
    break;                                                                                   \
  case 6:                                                                                    \
    PetscCall(F<2, 6>::run(__VA_ARGS__));                                                    \
    break;                                                                                   \
  case 7:                                                                                    \
    PetscCall(F<2, 7>::run(__VA_ARGS__));                                                    \
    break;                                                                                   \
  case 8:                                                                                    \
    PetscCall(F<2, 8>::run(__VA_ARGS__));                                                    \
    break;                                                                                   \
  case 9:                                                                                    \
    PetscCall(F<2, 9>::run(__VA_ARGS__));                                                    \
    break;                                                                                   \
  case 10:                                                                                   \
    PetscCall(F<2, 10>::run(__VA_ARGS__));                                                   \
    break;                                                                                   \
  default:                                                                                   \
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "No CUDA kernel for degree %d in 2D", (int)(k)); \
  }
#define VP_DISPATCH_3D(F, k, ...)                                                            \
  switch (k) {                                                                               \
  case 1:                                                                                    \
    PetscCall(F<3, 1>::run(__VA_ARGS__));                                                    \
    break;                                                                                   \
  case 2:                                                                                    \
    PetscCall(F<3, 2>::run(__VA_ARGS__));                                                    \
    break;                                                                                   \
  case 3:                                                                                    \
    PetscCall(F<3, 3>::run(__VA_ARGS__));                                                    \
    break;                                                                                   \
  case 4:                                                                                    \
    PetscCall(F<3, 4>::run(__VA_ARGS__));                                                    \
    break;                                                                                   \
  case 5:                                                                                    \
    PetscCall(F<3, 5>::run(__VA_ARGS__));                                                    \
    break;                                                                                   \
  case 6:                                                                                    \
    PetscCall(F<3, 6>::run(__VA_ARGS__));                                                    \
    break;                                                                                   \
  case 7:                                                                                    \
    PetscCall(F<3, 7>::run(__VA_ARGS__));                                                    \
    break;                                                                                   \
  case 8:                                                                                    \
    PetscCall(F<3, 8>::run(__VA_ARGS__));                                                    \
    break;                                                                                   \
  default:                                                                                   \
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "No CUDA kernel for degree %d in 3D", (int)(k)); \
  }
#define VP_DISPATCH(F, dim, k, ...)     \
  do {                                  \
    if ((dim) == 2) {                   \
      VP_DISPATCH_2D(F, k, __VA_ARGS__) \
    } else {                            \
      VP_DISPATCH_3D(F, k, __VA_ARGS__) \
    }                                   \
  } while (0)

/* Calls F<DIM, K, T>::run(args...) with T = float when single, else double. F##F and F##D must be the
   alias templates F<DIM, K, float> and F<DIM, K, double> (VP_PRECISION_ALIASES) */
#define VP_PRECISION_ALIASES(F)                            \
  template <int DIM, int K> using F##F = F<DIM, K, float>; \
  template <int DIM, int K> using F##D = F<DIM, K, double>
#define VP_DISPATCH_PRECISION(F, single, dim, k, ...) \
  do {                                                \
    if (single)                                       \
      VP_DISPATCH(F##F, dim, k, __VA_ARGS__);         \
    else                                              \
      VP_DISPATCH(F##D, dim, k, __VA_ARGS__);         \
  } while (0)

/* PETSc's current CUDA stream: our kernels run on it, ordered with PETSc's own vector operations */
static inline PetscErrorCode VPGetStream(cudaStream_t *stream)
{
  PetscDeviceContext dctx;
  void              *handle;

  PetscFunctionBegin;
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  PetscCall(PetscDeviceContextGetStreamHandle(dctx, &handle));
  *stream = *(cudaStream_t *)handle;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Copies n reals v into entries off..off+n-1 of a constant-memory table held in double (symd) and in float (symf), on
   PETSc's stream, and waits (v may be freed after). Rewriting entries while a kernel reads them is harmless when the
   values do not change (tables per degree). */
template <int N> static inline PetscErrorCode VPConstantUpload(const double (&symd)[N], const float (&symf)[N], const PetscReal *v, int n, int off)
{
  double      *hd;
  float       *hf;
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCheck(off >= 0 && n >= 0 && off + n <= N, PETSC_COMM_SELF, PETSC_ERR_PLIB, "constant table overflow");
  PetscCall(PetscMalloc2(n, &hd, n, &hf));
  for (int i = 0; i < n; i++) {
    hd[i] = (double)v[i];
    hf[i] = (float)v[i];
  }
  PetscCall(VPGetStream(&stream));
  PetscCallCUDA(cudaMemcpyToSymbolAsync(symd, hd, sizeof(double) * n, sizeof(double) * off, cudaMemcpyHostToDevice, stream));
  PetscCallCUDA(cudaMemcpyToSymbolAsync(symf, hf, sizeof(float) * n, sizeof(float) * off, cudaMemcpyHostToDevice, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(PetscFree2(hd, hf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A table of N reals in constant memory, in double (NAME##_d) and float (NAME##_f) (one per translation unit: no
   relocatable device code): NAME<T>(i) reads entry i as T, an immediate constant-bank operand when i is known at
   compile time; NAME##Upload(v, n, off) fills entries off..off+n-1 */
#define VP_CONSTANT_TABLE(NAME, N)                                              \
  __constant__ double                                NAME##_d[N];               \
  __constant__ float                                 NAME##_f[N];               \
  template <typename T> __device__ __forceinline__ T NAME(int i)                \
  {                                                                             \
    if constexpr (sizeof(T) == sizeof(double))                                  \
      return NAME##_d[i];                                                       \
    else                                                                        \
      return NAME##_f[i];                                                       \
  }                                                                             \
  static inline PetscErrorCode NAME##Upload(const PetscReal *v, int n, int off) \
  {                                                                             \
    return VPConstantUpload<N>(NAME##_d, NAME##_f, v, n, off);                  \
  }

/* launch configuration: threads for a tensor of n entries, a multiple of the warp size, <= 512 */
static inline int VPThreads(int n)
{
  int t = ((n + 31) / 32) * 32;
  return t > 512 ? 512 : t;
}
