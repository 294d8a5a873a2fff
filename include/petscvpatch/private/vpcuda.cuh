/*
  Device helpers shared by the CUDA kernels of petsc-vpatch (only .cu files include this).

  Tensors live in shared memory in lexicographic order (x fastest). VPDContract applies a small
  matrix along one direction with linear thread indexing: thread t computes output entries
  t, t + blockDim.x, ..., so every thread is busy whatever the tensor's shape.

  Scalar type: every kernel is a template on the compute type T (double or float). Global vectors
  stay PetscScalar (double); values are converted on load into shared memory and on the final
  store, so T sets the precision of the arithmetic and the shared-memory footprint and traffic.
*/
#pragma once

#include <petscdevice_cuda.h>
#include <petscvpatch/private/vpkernels.h>

/* out = A along direction DIR of in (extents I0 x I1 x I2), for NB (run time) tensors stored one after
   the other (several cells or patches per thread block); A is M x I_DIR (row-major), or its transpose when TRANS
   (A stored I_DIR x M). Linear thread indexing over all NB outputs. The caller synchronizes. */
template <int I0, int I1, int I2, int DIR, int M, bool TRANS, typename T> __device__ __forceinline__ void VPDContract(const T *__restrict__ A, const T *__restrict__ in, T *__restrict__ out, const int NB = 1)
{
  constexpr int E0 = DIR == 0 ? M : I0, E1 = DIR == 1 ? M : I1, E2 = DIR == 2 ? M : I2;
  constexpr int ND = DIR == 0 ? I0 : (DIR == 1 ? I1 : I2), EO = E0 * E1 * E2, EI = I0 * I1 * I2;
  for (int t = threadIdx.x; t < NB * EO; t += blockDim.x) {
    const int b = t / EO, o = t - b * EO;
    const int i0 = o % E0, i1 = (o / E0) % E1, i2 = o / (E0 * E1);
    const int i  = DIR == 0 ? i0 : (DIR == 1 ? i1 : i2);
    const T  *ib = in + b * EI;
    T         s  = 0;
#pragma unroll
    for (int j = 0; j < ND; j++) {
      const T   a   = TRANS ? A[j * M + i] : A[i * ND + j];
      const int idx = DIR == 0 ? (i2 * I1 + i1) * I0 + j : (DIR == 1 ? (i2 * I1 + j) * I0 + i0 : (j * I1 + i1) * I0 + i0);
      s += a * ib[idx];
    }
    out[t] = s;
  }
}

/* The same contraction with one thread per 1D line along DIR (register blocking): the thread loads the line's ND
   inputs into registers once and writes its M outputs; at every step all threads of a warp read the same matrix
   entry (a shared-memory broadcast). Per multiply-add this reads 1/M of an input word and a broadcast matrix word,
   where VPDContract reads two words, so the shared-memory traffic (the bound of these kernels) drops about twofold.
   NB * (lines per tensor) threads have work. With A2/out2 (VPDContractLines2) a second matrix is applied to the
   same input in the same pass. */
template <int I0, int I1, int I2, int DIR, int M, bool TRANS, bool TWO, typename T>
__device__ __forceinline__ void VPDContractLinesImpl(const T *__restrict__ A, const T *__restrict__ A2, const T *__restrict__ in, T *__restrict__ out, T *__restrict__ out2, const int NB)
{
  constexpr int E0 = DIR == 0 ? M : I0, E1 = DIR == 1 ? M : I1, E2 = DIR == 2 ? M : I2;
  constexpr int ND = DIR == 0 ? I0 : (DIR == 1 ? I1 : I2), EO = E0 * E1 * E2, EI = I0 * I1 * I2;
  constexpr int L0 = DIR == 0 ? I1 : I0, L1 = DIR == 2 ? I1 : I2, NL = L0 * L1; /* the other two extents, lines per tensor */
  constexpr int SI = DIR == 0 ? 1 : (DIR == 1 ? I0 : I0 * I1), SO = DIR == 0 ? 1 : (DIR == 1 ? E0 : E0 * E1);
  (void)E2;
  for (int t = threadIdx.x; t < NB * NL; t += blockDim.x) {
    const int b = t / NL, l = t - b * NL, a0 = l % L0, a1 = l / L0;
    const int bi = DIR == 0 ? (a1 * I1 + a0) * I0 : (DIR == 1 ? a1 * I0 * I1 + a0 : a1 * I0 + a0);
    const int bo = DIR == 0 ? (a1 * E1 + a0) * E0 : (DIR == 1 ? a1 * E0 * E1 + a0 : a1 * E0 + a0);
    const T  *ib = in + b * EI + bi;
    T         v[ND];
#pragma unroll
    for (int j = 0; j < ND; j++) v[j] = ib[j * SI];
#pragma unroll
    for (int i = 0; i < M; i++) {
      T s = 0, s2 = 0;
#pragma unroll
      for (int j = 0; j < ND; j++) {
        s += (TRANS ? A[j * M + i] : A[i * ND + j]) * v[j];
        if (TWO) s2 += (TRANS ? A2[j * M + i] : A2[i * ND + j]) * v[j];
      }
      out[b * EO + bo + i * SO] = s;
      if (TWO) out2[b * EO + bo + i * SO] = s2;
    }
  }
}
template <int I0, int I1, int I2, int DIR, int M, bool TRANS, typename T> __device__ __forceinline__ void VPDContractLines(const T *__restrict__ A, const T *__restrict__ in, T *__restrict__ out, const int NB = 1)
{
  VPDContractLinesImpl<I0, I1, I2, DIR, M, TRANS, false, T>(A, NULL, in, out, NULL, NB);
}
template <int I0, int I1, int I2, int DIR, int M, bool TRANS, typename T>
__device__ __forceinline__ void VPDContractLines2(const T *__restrict__ A, const T *__restrict__ A2, const T *__restrict__ in, T *__restrict__ out, T *__restrict__ out2, const int NB = 1)
{
  VPDContractLinesImpl<I0, I1, I2, DIR, M, TRANS, true, T>(A, A2, in, out, out2, NB);
}

/* VPDContractLines when LINES, else VPDContract (the choice is per kernel, dimension, degree and precision, by
   measurement: bench/RESULTS.md); the two-matrix form falls back to two passes */
template <bool LINES, int I0, int I1, int I2, int DIR, int M, bool TRANS, typename T> __device__ __forceinline__ void VPDContractSel(const T *__restrict__ A, const T *__restrict__ in, T *__restrict__ out, const int NB)
{
  if (LINES)
    VPDContractLines<I0, I1, I2, DIR, M, TRANS, T>(A, in, out, NB);
  else
    VPDContract<I0, I1, I2, DIR, M, TRANS, T>(A, in, out, NB);
}
template <bool LINES, int I0, int I1, int I2, int DIR, int M, bool TRANS, typename T>
__device__ __forceinline__ void VPDContractSel2(const T *__restrict__ A, const T *__restrict__ A2, const T *__restrict__ in, T *__restrict__ out, T *__restrict__ out2, const int NB)
{
  if (LINES)
    VPDContractLines2<I0, I1, I2, DIR, M, TRANS, T>(A, A2, in, out, out2, NB);
  else {
    VPDContract<I0, I1, I2, DIR, M, TRANS, T>(A, in, out, NB);
    VPDContract<I0, I1, I2, DIR, M, TRANS, T>(A2, in, out2, NB);
  }
}

/* blocks of several tensors for the line contractions: about 128 lines of work per block (lines = NT / N, N the
   1D extent), within a shared-memory budget of SMEM bytes for NBUF buffers of NT entries of T */
template <int NT, int N, int NBUF, int SMEM, typename T> struct VPLineBatch {
  static constexpr int want  = (NT / N) >= 128 ? 1 : (128 + NT / N - 1) / (NT / N);
  static constexpr int cap   = SMEM / (NBUF * NT * (int)sizeof(T)) > 0 ? SMEM / (NBUF * NT * (int)sizeof(T)) : 1;
  static constexpr int value = want < cap ? want : cap;
};

/* dynamic shared memory of a kernel template seen as an array of T (one extern declaration for every T) */
#define VP_DYNAMIC_SHARED(T, name)                                 \
  extern __shared__ __align__(16) unsigned char vp_dynamic_smem[]; \
  T                                            *name = reinterpret_cast<T *>(vp_dynamic_smem)

/* tensors of NT entries per thread block: enough to give a block about 128 threads of work */
template <int NT> struct VPBatch {
  static constexpr int value = NT >= 128 ? 1 : 128 / NT;
};

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

/* Calls F<DIM, K>::run(args...) for the runtime (dim, k): the dispatch table of the templates */
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

/* launch configuration: threads for a tensor of n entries, a multiple of the warp size, <= 512 */
static inline int VPThreads(int n)
{
  int t = ((n + 31) / 32) * 32;
  return t > 512 ? 512 : t;
}
