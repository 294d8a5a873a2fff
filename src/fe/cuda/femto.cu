/*
  femto's element kernels (include/petscvpatch/private/vpfemto.h): interpolation, a pointwise G grad, integration with
  three kinds of assembly, and the gather. Double precision.

  Layout: a block holds E cells (about 128 threads, one thread per 1D line of a cell: N^2 lines, N = p + 1); a cell's
  tensors are N^3 values in shared memory, x fastest. Each pass contracts one direction: a thread reads its line into
  registers, applies the 1D matrices (S[q][i] = phi_i(xi_q), D[q][i] = phi_i'(xi_q), kernel parameters, so constant
  memory) and writes the line back. Nodal values are read and the residual is added through the connectivity array,
  as on an unstructured mesh; gradients and fluxes at the points are read and written contiguously per block.
*/
#include <petscvpatch/private/vpcuda.cuh>
#include <petscvpatch/private/vpfemto.h>

template <int N> struct VPFemtoBatch {
  static constexpr int value = 128 / (N * N) > 0 ? 128 / (N * N) : 1; /* cells per block: about 128 threads */
};

/* the element index of entry i of line (a, b) along direction dir in an N^3 tensor */
template <int N> __device__ __forceinline__ int VPFemtoIdx(int dir, int a, int b, int i)
{
  return dir == 0 ? i + N * (a + N * b) : dir == 1 ? a + N * (i + N * b) : a + N * (b + N * i);
}

/* o[q] = sum_i M[q][i] v[i]  (TR: sum_i M[i][q] v[i]) */
template <int N, bool TR, bool ADD> __device__ __forceinline__ void VPFemtoApply(const PetscReal (&M)[VP_FEMTO_MAX_DEGREE + 1][VP_FEMTO_MAX_DEGREE + 1], const PetscReal *v, PetscReal *o)
{
#pragma unroll
  for (int q = 0; q < N; q++) {
    PetscReal s = ADD ? o[q] : 0;
#pragma unroll
    for (int i = 0; i < N; i++) s += (TR ? M[i][q] : M[q][i]) * v[i];
    o[q] = s;
  }
}

template <int N> __device__ __forceinline__ void VPFemtoLoad(const PetscReal *t, int dir, int a, int b, PetscReal *v)
{
#pragma unroll
  for (int i = 0; i < N; i++) v[i] = t[VPFemtoIdx<N>(dir, a, b, i)];
}

template <int N> __device__ __forceinline__ void VPFemtoStore(PetscReal *t, int dir, int a, int b, const PetscReal *v)
{
#pragma unroll
  for (int i = 0; i < N; i++) t[VPFemtoIdx<N>(dir, a, b, i)] = v[i];
}

/* grad[(c nq + q) 3 + d] = d u / d xi_d at Gauss point q of cell c */
template <int N> __global__ void __launch_bounds__(N *N *VPFemtoBatch<N>::value) VPFemtoInterpKernel(const VPFemtoTables t, PetscInt ncells, const int *__restrict__ conn, const PetscReal *__restrict__ u, PetscReal *__restrict__ grad)
{
  constexpr int        E = VPFemtoBatch<N>::value, N3 = N * N * N, NT = N * N * E;
  __shared__ PetscReal s[E][6][N3];
  const PetscInt       c0 = (PetscInt)blockIdx.x * E;
  const int            e = threadIdx.x / (N * N), a = threadIdx.x % N, b = (threadIdx.x / N) % N;
  PetscReal            v[N], o1[N], o2[N], o3[N];

  for (int j = threadIdx.x; j < E * N3; j += NT) { /* gather the cells' nodal values */
    const PetscInt c     = c0 + j / N3;
    s[j / N3][0][j % N3] = c < ncells ? u[conn[c * N3 + j % N3]] : 0;
  }
  __syncthreads();
  VPFemtoLoad<N>(s[e][0], 0, a, b, v); /* x: S u, D u */
  VPFemtoApply<N, false, false>(t.S, v, o1);
  VPFemtoApply<N, false, false>(t.D, v, o2);
  VPFemtoStore<N>(s[e][1], 0, a, b, o1);
  VPFemtoStore<N>(s[e][2], 0, a, b, o2);
  __syncthreads();
  VPFemtoLoad<N>(s[e][1], 1, a, b, v); /* y: S S u, D S u, S D u */
  VPFemtoApply<N, false, false>(t.S, v, o1);
  VPFemtoApply<N, false, false>(t.D, v, o2);
  VPFemtoLoad<N>(s[e][2], 1, a, b, v);
  VPFemtoApply<N, false, false>(t.S, v, o3);
  VPFemtoStore<N>(s[e][3], 1, a, b, o1);
  VPFemtoStore<N>(s[e][4], 1, a, b, o2);
  VPFemtoStore<N>(s[e][5], 1, a, b, o3);
  __syncthreads();
  VPFemtoLoad<N>(s[e][5], 2, a, b, v); /* z: the x, y and z derivatives */
  VPFemtoApply<N, false, false>(t.S, v, o1);
  VPFemtoLoad<N>(s[e][4], 2, a, b, v);
  VPFemtoApply<N, false, false>(t.S, v, o2);
  VPFemtoLoad<N>(s[e][3], 2, a, b, v);
  VPFemtoApply<N, false, false>(t.D, v, o3);
  VPFemtoStore<N>(s[e][0], 2, a, b, o1);
  VPFemtoStore<N>(s[e][1], 2, a, b, o2);
  VPFemtoStore<N>(s[e][2], 2, a, b, o3);
  __syncthreads();
  for (int j = threadIdx.x; j < E * N3 * 3; j += NT) { /* the block's cells are contiguous in grad */
    const int r = j % (3 * N3);
    if (c0 + j / (3 * N3) < ncells) grad[c0 * N3 * 3 + j] = s[j / (3 * N3)][r % 3][r / 3];
  }
}

/* flux = G grad at each point, G symmetric (xx, xy, xz, yy, yz, zz) */
__global__ void VPFemtoPointwiseKernel(PetscInt npoints, const PetscReal *__restrict__ G, const PetscReal *__restrict__ grad, PetscReal *__restrict__ flux)
{
  for (PetscInt p = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; p < npoints; p += (PetscInt)gridDim.x * blockDim.x) {
    const PetscReal *g = G + 6 * p, gx = grad[3 * p], gy = grad[3 * p + 1], gz = grad[3 * p + 2];
    flux[3 * p]     = g[0] * gx + g[1] * gy + g[2] * gz;
    flux[3 * p + 1] = g[1] * gx + g[3] * gy + g[4] * gz;
    flux[3 * p + 2] = g[2] * gx + g[4] * gy + g[5] * gz;
  }
}

/* r_i += sum_q w_q grad phi_i(xi_q) . f_q for the cells (all, or the list cells); MODE 0: atomics into r, 1: plain
   adds into r (the cells share no node), 2: element vectors into elem */
template <int N, int MODE>
__global__ void __launch_bounds__(N *N *VPFemtoBatch<N>::value)
    VPFemtoIntegKernel(const VPFemtoTables t, PetscInt ncells, const int *__restrict__ cells, const int *__restrict__ conn, const PetscReal *__restrict__ flux, PetscReal *__restrict__ r, PetscReal *__restrict__ elem)
{
  constexpr int        E = VPFemtoBatch<N>::value, N3 = N * N * N, NT = N * N * E;
  __shared__ PetscReal s[E][3][N3];
  const PetscInt       c0 = (PetscInt)blockIdx.x * E;
  const int            e = threadIdx.x / (N * N), a = threadIdx.x % N, b = (threadIdx.x / N) % N;
  PetscReal            v[N], o1[N], o2[N];

  for (int j = threadIdx.x; j < E * N3 * 3; j += NT) { /* the fluxes times the weights */
    const int      ej = j / (3 * N3), rj = j % (3 * N3), q = rj / 3;
    const PetscInt i = c0 + ej;
    PetscReal      f = 0;
    if (i < ncells) {
      const PetscInt c = cells ? (PetscInt)cells[i] : i;
      f                = flux[(c * N3) * 3 + rj] * t.w[q % N] * t.w[(q / N) % N] * t.w[q / (N * N)];
    }
    s[ej][rj % 3][q] = f;
  }
  __syncthreads();
  /* z (in place: a thread reads and writes only its own lines): S^T f_x, S^T f_y, D^T f_z */
  VPFemtoLoad<N>(s[e][0], 2, a, b, v);
  VPFemtoApply<N, true, false>(t.S, v, o1);
  VPFemtoStore<N>(s[e][0], 2, a, b, o1);
  VPFemtoLoad<N>(s[e][1], 2, a, b, v);
  VPFemtoApply<N, true, false>(t.S, v, o1);
  VPFemtoStore<N>(s[e][1], 2, a, b, o1);
  VPFemtoLoad<N>(s[e][2], 2, a, b, v);
  VPFemtoApply<N, true, false>(t.D, v, o1);
  VPFemtoStore<N>(s[e][2], 2, a, b, o1);
  __syncthreads();
  /* y: S^T (x part); D^T (y part) + S^T (z part) */
  VPFemtoLoad<N>(s[e][0], 1, a, b, v);
  VPFemtoApply<N, true, false>(t.S, v, o1);
  VPFemtoStore<N>(s[e][0], 1, a, b, o1);
  VPFemtoLoad<N>(s[e][1], 1, a, b, v);
  VPFemtoApply<N, true, false>(t.D, v, o1);
  VPFemtoLoad<N>(s[e][2], 1, a, b, v);
  VPFemtoApply<N, true, true>(t.S, v, o1);
  VPFemtoStore<N>(s[e][1], 1, a, b, o1);
  __syncthreads();
  /* x: D^T (x part) + S^T (the rest), then the line's nodes are added where they belong */
  VPFemtoLoad<N>(s[e][0], 0, a, b, v);
  VPFemtoApply<N, true, false>(t.D, v, o2);
  VPFemtoLoad<N>(s[e][1], 0, a, b, v);
  VPFemtoApply<N, true, true>(t.S, v, o2);
  if (c0 + e < ncells) {
    const PetscInt c = cells ? (PetscInt)cells[c0 + e] : c0 + e;
#pragma unroll
    for (int i = 0; i < N; i++) {
      const PetscInt l = c * N3 + VPFemtoIdx<N>(0, a, b, i);
      if (MODE == 0)
        atomicAdd(&r[conn[l]], o2[i]);
      else if (MODE == 1)
        r[conn[l]] += o2[i];
      else
        elem[l] = o2[i];
    }
  }
}

/* r[v] += the sum of the element entries of node v, in a fixed order */
__global__ void VPFemtoGatherKernel(PetscInt nnodes, const PetscInt *__restrict__ off, const PetscInt *__restrict__ inv, const PetscReal *__restrict__ elem, PetscReal *__restrict__ r)
{
  for (PetscInt v = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; v < nnodes; v += (PetscInt)gridDim.x * blockDim.x) {
    PetscReal s = 0;
    for (PetscInt j = off[v]; j < off[v + 1]; j++) s += elem[inv[j]];
    r[v] += s;
  }
}

/* one launch of the interpolation (integrate false) or of the integration (mode as in VPFemtoIntegKernel) */
template <int N> static PetscErrorCode VPFemtoLaunch(const VPFemtoTables *t, PetscBool integrate, PetscInt ncells, const int *cells, const int *conn, const PetscReal *in, int mode, PetscReal *out, PetscReal *elem)
{
  constexpr int E = VPFemtoBatch<N>::value;
  const dim3    grid((unsigned)((ncells + E - 1) / E));
  cudaStream_t  st;

  PetscFunctionBegin;
  if (!ncells) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VPGetStream(&st));
  if (!integrate)
    VPFemtoInterpKernel<N><<<grid, N * N * E, 0, st>>>(*t, ncells, conn, in, out);
  else if (mode == 0)
    VPFemtoIntegKernel<N, 0><<<grid, N * N * E, 0, st>>>(*t, ncells, cells, conn, in, out, elem);
  else if (mode == 1)
    VPFemtoIntegKernel<N, 1><<<grid, N * N * E, 0, st>>>(*t, ncells, cells, conn, in, out, elem);
  else
    VPFemtoIntegKernel<N, 2><<<grid, N * N * E, 0, st>>>(*t, ncells, cells, conn, in, out, elem);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VPFemtoDispatch(const VPFemtoTables *t, PetscBool integrate, PetscInt ncells, const int *cells, const int *conn, const PetscReal *in, int mode, PetscReal *out, PetscReal *elem)
{
  PetscFunctionBegin;
  PetscCheck((ncells + 1) / 2 <= (PetscInt)INT_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "femto kernels: %" PetscInt_FMT " cells are too many for one grid", ncells);
  switch (t->p) {
  case 1:
    PetscCall(VPFemtoLaunch<2>(t, integrate, ncells, cells, conn, in, mode, out, elem));
    break;
  case 2:
    PetscCall(VPFemtoLaunch<3>(t, integrate, ncells, cells, conn, in, mode, out, elem));
    break;
  case 3:
    PetscCall(VPFemtoLaunch<4>(t, integrate, ncells, cells, conn, in, mode, out, elem));
    break;
  case 4:
    PetscCall(VPFemtoLaunch<5>(t, integrate, ncells, cells, conn, in, mode, out, elem));
    break;
  case 5:
    PetscCall(VPFemtoLaunch<6>(t, integrate, ncells, cells, conn, in, mode, out, elem));
    break;
  case 6:
    PetscCall(VPFemtoLaunch<7>(t, integrate, ncells, cells, conn, in, mode, out, elem));
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "femto kernels: degree %d not in 1..%d", t->p, VP_FEMTO_MAX_DEGREE);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPFemtoInterpolate_CUDA(const VPFemtoTables *t, PetscInt ncells, const int *d_conn, const PetscReal *d_u, PetscReal *d_grad)
{
  PetscFunctionBegin;
  PetscCall(VPFemtoDispatch(t, PETSC_FALSE, ncells, NULL, d_conn, d_u, 0, d_grad, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPFemtoIntegrate_CUDA(const VPFemtoTables *t, PetscInt ncells, const int *d_cells, const int *d_conn, const PetscReal *d_flux, int mode, PetscReal *d_r, PetscReal *d_elem)
{
  PetscFunctionBegin;
  PetscCall(VPFemtoDispatch(t, PETSC_TRUE, ncells, d_cells, d_conn, d_flux, mode, d_r, d_elem));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static unsigned VPFemtoGridStride(PetscInt n)
{
  return (unsigned)PetscMin((n + 255) / 256, (PetscInt)1 << 20);
}

PetscErrorCode VPFemtoPointwise_CUDA(PetscInt npoints, const PetscReal *d_G, const PetscReal *d_grad, PetscReal *d_flux)
{
  cudaStream_t st;

  PetscFunctionBegin;
  if (!npoints) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VPGetStream(&st));
  VPFemtoPointwiseKernel<<<VPFemtoGridStride(npoints), 256, 0, st>>>(npoints, d_G, d_grad, d_flux);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPFemtoGather_CUDA(PetscInt nnodes, const PetscInt *d_inv_off, const PetscInt *d_inv, const PetscReal *d_elem, PetscReal *d_r)
{
  cudaStream_t st;

  PetscFunctionBegin;
  if (!nnodes) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VPGetStream(&st));
  VPFemtoGatherKernel<<<VPFemtoGridStride(nnodes), 256, 0, st>>>(nnodes, d_inv_off, d_inv, d_elem, d_r);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPFemtoCopy_CUDA(void *dst, const void *src, size_t bytes)
{
  cudaStream_t st;

  PetscFunctionBegin;
  PetscCall(VPGetStream(&st));
  PetscCallCUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, st));
  PetscCallCUDA(cudaStreamSynchronize(st));
  PetscFunctionReturn(PETSC_SUCCESS);
}
