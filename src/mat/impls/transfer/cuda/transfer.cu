/*
  CUDA kernels of the grid transfer: a block of owned coarse cells, the cells' coarse / fine values in
  shared memory, tensor contractions with one thread per 1D line (register lines) and the 1D matrix P
  ((2k+1) x (k+1), the same on every level) in constant memory; arithmetic in T (double, or float for single
  precision). Prolongation: each fine node is written by the one coarse cell that owns it (VPDFineOwned), no
  atomics; restriction: each fine value is read in its owner cell, the coarse sums by atomics.
*/
#include <petscvpatch/private/vpcuda.cuh>
#include "transfer_tuning.cuh"

/* P of degree K = 1..VPATCH_MAX_DEGREE, row-major (2K+1) x (K+1), at VPTrPOffset(K) */
__host__ __device__ constexpr int VPTrPOffset(int K)
{
  int o = 0;
  for (int k = 1; k < K; k++) o += (2 * k + 1) * (k + 1);
  return o;
}
VP_CONSTANT_TABLE(VPTrP, VPTrPOffset(VPATCH_MAX_DEGREE + 1));

/* out = P (TRANS: P^T) along DIR of NB tensors of extents I0 x I1 x I2, one thread per line, the line in registers */
template <int K, int I0, int I1, int I2, int DIR, bool TRANS, typename T> __device__ __forceinline__ void VPTrLines(const T *__restrict__ in, T *__restrict__ out, const int NB)
{
  constexpr int N = K + 1, M = TRANS ? N : 2 * K + 1, ND = TRANS ? 2 * K + 1 : N;
  constexpr int E0 = DIR == 0 ? M : I0, E1 = DIR == 1 ? M : I1, E2 = DIR == 2 ? M : I2, EO = E0 * E1 * E2, EI = I0 * I1 * I2;
  constexpr int L0 = DIR == 0 ? I1 : I0, NL = L0 * (DIR == 2 ? I1 : I2);
  constexpr int SI = DIR == 0 ? 1 : (DIR == 1 ? I0 : I0 * I1), SO = DIR == 0 ? 1 : (DIR == 1 ? E0 : E0 * E1);
  (void)E2;
  for (int t = threadIdx.x; t < NB * NL; t += blockDim.x) {
    const int b = t / NL, l = t - b * NL, a0 = l % L0, a1 = l / L0;
    const int bi = DIR == 0 ? (a1 * I1 + a0) * I0 : (DIR == 1 ? a1 * I0 * I1 + a0 : a1 * I0 + a0);
    const int bo = DIR == 0 ? (a1 * E1 + a0) * E0 : (DIR == 1 ? a1 * E0 * E1 + a0 : a1 * E0 + a0);
    T         v[ND];
#pragma unroll
    for (int j = 0; j < ND; j++) v[j] = in[b * EI + bi + j * SI];
#pragma unroll
    for (int i = 0; i < M; i++) {
      T s = 0;
#pragma unroll
      for (int j = 0; j < ND; j++) s += VPTrP<T>(VPTrPOffset(K) + (TRANS ? j * N + i : i * N + j)) * v[j];
      out[b * EO + bo + i * SO] = s;
    }
  }
}

/* Is fine node (fx, fy, fz) of a coarse cell with neighbour bits wf (bit 2 d + 1: the cell has a neighbour above along d)
   owned by this cell: a fine node on a face shared with the cell above belongs to that cell. Every fine node has one
   owner. The prolongation of a continuous coarse function is continuous, so both cells compute the same value at a
   shared fine node (up to rounding), and the owner alone writes it: no atomics. The restriction P^T reads a fine
   value in its owner cell only: the coarse basis functions not on a shared face vanish there, so the other cell would
   add the same terms again (transfer_cpu.c weighs each by 1/2 instead). */
template <int NF> __device__ __forceinline__ bool VPDFineOwned(int wf, int fx, int fy, int fz)
{
  return !(((wf & 2) && fx == NF - 1) || ((wf & 8) && fy == NF - 1) || ((wf & 32) && fz == NF - 1));
}

/* 2D: NB coarse cells per block (3D: VPTransferBoxKernel below) */
template <int K, bool RESTRICT, typename T> __global__ void VPTransferKernel(VPGrid gc, VPGrid gf, int ncells, bool homogeneous, const PetscScalar *__restrict__ in, PetscScalar *__restrict__ out)
{
  constexpr int N = K + 1, NF = 2 * K + 1;
  constexpr int NC = N * N, NFT = NF * NF, NB = VPBatch<NFT>::value;
  VP_DYNAMIC_SHARED(T, smem); /* three buffers of NB tensors of NF^2 */
  T                  *U = smem, *T1 = U + NB * NFT, *T2 = T1 + NB * NFT;
  __shared__ PetscInt cbase[NB], fbase[NB];            /* local index of the cell's first coarse and first fine node */
  __shared__ int      cflag[NB], fflag[NB], wflag[NB]; /* VPDBoxFlags (0 if not homogeneous; -1: no cell), neighbour bits (VPDFineOwned) */
  const int           csy = (int)gc.gxm[0], fsy = (int)gf.gxm[0];

  for (int b = threadIdx.x; b < NB; b += blockDim.x) { /* once per cell: runtime divisions, 64-bit index arithmetic */
    const int c  = blockIdx.x * NB + b;
    int       cf = -1, ff = -1, wf = 0;
    PetscInt  co = 0, fo = 0;
    if (c < ncells) {
      const int cx = (int)gc.cs[0] + c % (int)gc.cm[0], cy = (int)gc.cs[1] + c / (int)gc.cm[0];
      co = VPDLocalIndex(gc, cx * K, cy * K, 0);
      fo = VPDLocalIndex(gf, 2 * cx * K, 2 * cy * K, 0);
      cf = homogeneous ? VPDBoxFlags(gc, N, cx * K, cy * K, 0) : 0;
      ff = homogeneous ? VPDBoxFlags(gf, NF, 2 * cx * K, 2 * cy * K, 0) : 0;
      wf = (cx > 0 ? 1 : 0) | (cx < gc.N[0] - 1 ? 2 : 0) | (cy > 0 ? 4 : 0) | (cy < gc.N[1] - 1 ? 8 : 0);
    }
    cbase[b] = co;
    fbase[b] = fo;
    cflag[b] = cf;
    fflag[b] = ff;
    wflag[b] = wf;
  }
  __syncthreads();
  if (!RESTRICT) {
    for (int t = threadIdx.x; t < NB * NC; t += blockDim.x) {
      const int b = t / NC, e = t - b * NC, ex = e % N, ey = e / N, f = cflag[b];
      T         v = 0;
      if (f >= 0 && !VPDBoxOnBoundary<N>(f, ex, ey, 0)) v = (T)in[cbase[b] + (ex + ey * csy)];
      U[t] = v;
    }
    __syncthreads();
    VPTrLines<K, N, N, 1, 0, false>(U, T1, NB);
    __syncthreads();
    VPTrLines<K, NF, N, 1, 1, false>(T1, T2, NB);
    __syncthreads();
    for (int t = threadIdx.x; t < NB * NFT; t += blockDim.x) {
      const int b = t / NFT, e = t - b * NFT, fx = e % NF, fy = e / NF, f = fflag[b];
      if (f < 0 || VPDBoxOnBoundary<NF>(f, fx, fy, 0) || !VPDFineOwned<NF>(wflag[b], fx, fy, 0)) continue;
      out[fbase[b] + (fx + fy * fsy)] += (PetscScalar)T2[t]; /* the owner cell only: no other thread writes this node */
    }
  } else {
    for (int t = threadIdx.x; t < NB * NFT; t += blockDim.x) {
      const int b = t / NFT, e = t - b * NFT, fx = e % NF, fy = e / NF, f = fflag[b];
      T         v = 0;
      if (f >= 0 && !VPDBoxOnBoundary<NF>(f, fx, fy, 0) && VPDFineOwned<NF>(wflag[b], fx, fy, 0)) v = (T)in[fbase[b] + (fx + fy * fsy)];
      U[t] = v;
    }
    __syncthreads();
    VPTrLines<K, NF, NF, 1, 0, true>(U, T1, NB);
    __syncthreads();
    VPTrLines<K, N, NF, 1, 1, true>(T1, T2, NB);
    __syncthreads();
    for (int t = threadIdx.x; t < NB * NC; t += blockDim.x) {
      const int b = t / NC, e = t - b * NC, ex = e % N, ey = e / N, f = cflag[b];
      if (f < 0 || VPDBoxOnBoundary<N>(f, ex, ey, 0)) continue;
      atomicAdd(&out[cbase[b] + (ex + ey * csy)], (PetscScalar)T2[t]);
    }
  }
}

/* 3D: boxes of B^3 owned coarse cells per thread block (VPTrBoxShape), as the Laplacian's VPLapBoxKernel. On the box
   the transfer is a tensor product of the assembled 1D P of the box's coarse cells; since P's first and last rows are
   the unit vectors of the cell's end nodes (a fine node there is the coarse node), a line is done cell by cell:
   prolongation writes the shared end node once; restriction reads it in one cell only and carries the coarse sum at
   the shared coarse node in a register. Ownership as VPDFineOwned, for the box: a fine node on the box's upper face
   belongs to the box above, if there is one. Prolongation: no atomics; restriction: atomic adds into the coarse
   nodes (inside the box too, where plain adds would do: transfer_tuning.cuh says why). ncu (H100): the
   one-cell blocks of VPTransferKernel ran 16 to 49 lines of a pass in 352 threads. */
template <int K> struct VPTrBoxShape {
  static constexpr int B = VPTuneTransferBox(K), EC = B * K + 1, EF = 2 * B * K + 1; /* transfer_tuning.cuh */
  static constexpr int THREADS = ((EF * EF + 31) / 32) * 32 > 512 ? 512 : ((EF * EF + 31) / 32) * 32;
  /* entries of shared memory: the gathered box and the two intermediate tensors (restriction: the fine box first) */
  static constexpr int NU = EF * EF * EF, N1 = EC * EF * EF, N2 = EC * EC * EF;
};

/* prolongation of one line of nc <= B coarse cells: out[oo + f SO] (f <= 2 nc K) from in[oi + c SI] (c <= nc K) */
template <int K, int B, typename T> __device__ __forceinline__ void VPTrBoxProlongLine(const T *in, T *out, int oi, int SI, int oo, int SO, int nc)
{
  constexpr int N = K + 1;
#pragma unroll
  for (int c = 0; c < B; c++) {
    if (c < nc) {
      T v[N];
#pragma unroll
      for (int j = 0; j < N; j++) v[j] = in[oi + (c * K + j) * SI];
#pragma unroll
      for (int i = 0; i <= 2 * K; i++) {
        if (i == 2 * K && c != nc - 1) continue; /* the next cell's first node */
        T s = 0;
#pragma unroll
        for (int j = 0; j < N; j++) s += VPTrP<T>(VPTrPOffset(K) + i * N + j) * v[j];
        out[oo + (2 * c * K + i) * SO] = s;
      }
    }
  }
}

/* restriction of one line: r_c (c <= nc K) = the assembled P^T of the line times in[oi + f SI] (f <= 2 nc K), given
   node by node to store(c, r_c) once complete */
template <int K, int B, typename T, typename ST> __device__ __forceinline__ void VPTrBoxRestrictLine(const T *in, int oi, int SI, int nc, ST store)
{
  constexpr int N = K + 1, NF = 2 * K + 1;
  T             carry = 0;
#pragma unroll
  for (int c = 0; c < B; c++) {
    if (c < nc) {
      T v[NF];
#pragma unroll
      for (int i = 0; i < NF; i++) v[i] = (i == 0 && c > 0) ? (T)0 : in[oi + (2 * c * K + i) * SI]; /* the shared node: in the previous cell */
#pragma unroll
      for (int j = 0; j < N; j++) {
        T r = j == 0 ? carry : (T)0;
#pragma unroll
        for (int i = 0; i < NF; i++) r += VPTrP<T>(VPTrPOffset(K) + i * N + j) * v[i];
        if (j < K)
          store(c * K + j, r);
        else
          carry = r;
      }
    }
  }
  store(nc * K, carry);
}

template <int K, bool RESTRICT, typename T> __global__ void __launch_bounds__(512) VPTransferBoxKernel(VPGrid gc, VPGrid gf, int nb0, int nb1, bool homogeneous, const PetscScalar *__restrict__ in, PetscScalar *__restrict__ out)
{
  using S          = VPTrBoxShape<K>;
  constexpr int EC = S::EC, EF = S::EF;
  VP_DYNAMIC_SHARED(T, smem);
  T                  *U = smem, *T1 = U + (RESTRICT ? S::NU : EC * EC * EC), *T2 = T1 + (RESTRICT ? S::N1 : S::N2);
  __shared__ PetscInt cbase, fbase; /* local index of the box's first coarse and first fine node */
  __shared__ int      info[4];      /* coarse cells of the box per direction; bit 2 d (2 d + 1): its lower (upper) face is on the boundary */
  const int           csy = (int)gc.gxm[0], csz = (int)(gc.gxm[0] * gc.gxm[1]), fsy = (int)gf.gxm[0], fsz = (int)(gf.gxm[0] * gf.gxm[1]);

  if (threadIdx.x == 0) { /* once per box: runtime divisions, 64-bit index arithmetic */
    const int b = blockIdx.x, bi[3] = {b % nb0, (b / nb0) % nb1, b / (nb0 * nb1)}, B[3] = {S::B, S::B, S::B}, first[3] = {0, 0, 0};
    int       c[3];
    info[3] = VPDCellBox(gc, bi, B, first, 1, c, info);
    cbase   = VPDLocalIndex(gc, c[0] * K, c[1] * K, c[2] * K);
    fbase   = VPDLocalIndex(gf, 2 * c[0] * K, 2 * c[1] * K, 2 * c[2] * K);
  }
  __syncthreads();
  const int nx = info[0] * K, ny = info[1] * K, nz = info[2] * K, f = info[3], fm = homogeneous ? f : 0; /* fm: Dirichlet faces */
  /* a fine node on the box's upper face belongs to the box above, where there is one (the bits 2 d + 1 not in f) */
  auto owned = [&](int x, int y, int z) { return !((x == 2 * nx && !(f & 2)) || (y == 2 * ny && !(f & 8)) || (z == 2 * nz && !(f & 32))); };
  if (!RESTRICT) {
    VPGatherBatched<VPTuneTransferBatch(false)>(EC * EC * EC, U, [&](int t, T &v) {
      const int ex = t % EC, ey = (t / EC) % EC, ez = t / (EC * EC);
      if (ex <= nx && ey <= ny && ez <= nz && !VPDBoxOnFace(fm, ex, ey, ez, nx, ny, nz)) v = (T)in[cbase + (ex + ey * csy + ez * csz)];
      return t;
    });
    __syncthreads();
    for (int t = threadIdx.x; t < EC * EC; t += blockDim.x) { /* x: U[cz][cy][cx] -> T1[cz][cy][fx] */
      const int a = t % EC, z = t / EC;
      if (a <= ny && z <= nz) VPTrBoxProlongLine<K, S::B>(U, T1, (z * EC + a) * EC, 1, (z * EC + a) * EF, 1, info[0]);
    }
    __syncthreads();
    for (int t = threadIdx.x; t < EF * EC; t += blockDim.x) { /* y: T1[cz][cy][fx] -> T2[cz][fy][fx] */
      const int a = t % EF, z = t / EF;
      if (a <= 2 * nx && z <= nz) VPTrBoxProlongLine<K, S::B>(T1, T2, z * EC * EF + a, EF, z * EF * EF + a, EF, info[1]);
    }
    __syncthreads();
    for (int t = threadIdx.x; t < EF * EF; t += blockDim.x) { /* z: T2[cz][fy][fx] -> out, fine node by fine node */
      const int a = t % EF, y = t / EF;
      if (a > 2 * nx || y > 2 * ny) continue;
      T           v[EF];
      PetscScalar o[EF]; /* the line's old fine values, all loaded before any is stored: their latencies overlap */
      bool        w[EF];
      VPTrBoxProlongLine<K, S::B>(T2, v, y * EF + a, EF * EF, 0, 1, info[2]);
#pragma unroll
      for (int z = 0; z < EF; z++) {
        w[z] = z <= 2 * nz && owned(a, y, z) && !VPDBoxOnFace(fm, a, y, z, 2 * nx, 2 * ny, 2 * nz);
        o[z] = w[z] ? out[fbase + (a + y * fsy + z * fsz)] : (PetscScalar)0;
      }
#pragma unroll
      for (int z = 0; z < EF; z++)
        if (w[z]) out[fbase + (a + y * fsy + z * fsz)] = o[z] + (PetscScalar)v[z];
    }
  } else {
    VPGatherBatched<VPTuneTransferBatch(true)>(EF * EF * EF, U, [&](int t, T &v) {
      const int ex = t % EF, ey = (t / EF) % EF, ez = t / (EF * EF);
      if (ex <= 2 * nx && ey <= 2 * ny && ez <= 2 * nz && owned(ex, ey, ez) && !VPDBoxOnFace(fm, ex, ey, ez, 2 * nx, 2 * ny, 2 * nz)) v = (T)in[fbase + (ex + ey * fsy + ez * fsz)];
      return t;
    });
    __syncthreads();
    for (int t = threadIdx.x; t < EF * EF; t += blockDim.x) { /* z: U[fz][fy][fx] -> T1[cz][fy][fx] */
      const int a = t % EF, y = t / EF;
      if (a <= 2 * nx && y <= 2 * ny) VPTrBoxRestrictLine<K, S::B>(U, y * EF + a, EF * EF, info[2], [&](int c, T r) { T1[c * EF * EF + y * EF + a] = r; });
    }
    __syncthreads();
    for (int t = threadIdx.x; t < EF * EC; t += blockDim.x) { /* y: T1[cz][fy][fx] -> T2[cz][cy][fx] */
      const int a = t % EF, z = t / EF;
      if (a <= 2 * nx && z <= nz) VPTrBoxRestrictLine<K, S::B>(T1, z * EF * EF + a, EF, info[1], [&](int c, T r) { T2[(z * EC + c) * EF + a] = r; });
    }
    __syncthreads();
    for (int t = threadIdx.x; t < EC * EC; t += blockDim.x) { /* x: T2[cz][cy][fx] -> out */
      const int y = t % EC, z = t / EC;
      if (y > ny || z > nz) continue;
      const bool inyz = y > 0 && y < ny && z > 0 && z < nz;
      VPTrBoxRestrictLine<K, S::B>(T2, (z * EC + y) * EF, 1, info[0], [&](int c, T r) {
        if (VPDBoxOnFace(fm, c, y, z, nx, ny, nz)) return;
        PetscScalar *o = &out[cbase + (c + y * csy + z * csz)];
        if (!VPTuneTransferRestrictAtomics() && inyz && c > 0 && c < nx)
          *o += (PetscScalar)r; /* inside the box: no other box adds here */
        else
          atomicAdd(o, (PetscScalar)r); /* a reduction the thread does not wait for */
      });
    }
  }
}

template <int DIM, int K, typename T> struct VPTransfer {
  static PetscErrorCode run(const VPGrid *gc, const VPGrid *gf, PetscBool homogeneous, PetscBool restrict_, const PetscScalar *in, PetscScalar *out)
  {
    constexpr int NF = 2 * K + 1, NFT = NF * NF * (DIM == 3 ? NF : 1), NB = VPBatch<NFT>::value;
    const int     ncells = gc->cm[0] * gc->cm[1] * (DIM == 3 ? gc->cm[2] : 1);
    const size_t  shmem  = sizeof(T) * (3 * NB * NFT);
    cudaStream_t  stream;
    PetscFunctionBegin;
    PetscCall(VPGetStream(&stream));
    if (!ncells) PetscFunctionReturn(PETSC_SUCCESS);
    if constexpr (DIM == 3) { /* boxes of coarse cells (VPTransferBoxKernel) */
      using SB           = VPTrBoxShape<K>;
      const int    nb[3] = {((int)gc->cm[0] + SB::B - 1) / SB::B, ((int)gc->cm[1] + SB::B - 1) / SB::B, ((int)gc->cm[2] + SB::B - 1) / SB::B};
      const size_t bytes = sizeof(T) * (restrict_ ? SB::NU + SB::N1 + SB::N2 : SB::EC * SB::EC * SB::EC + SB::N2 + SB::N1);
      if (restrict_) {
        PetscCallCUDA(cudaFuncSetAttribute(VPTransferBoxKernel<K, true, T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
        VPTransferBoxKernel<K, true, T><<<nb[0] * nb[1] * nb[2], SB::THREADS, bytes, stream>>>(*gc, *gf, nb[0], nb[1], homogeneous ? true : false, in, out);
      } else {
        PetscCallCUDA(cudaFuncSetAttribute(VPTransferBoxKernel<K, false, T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
        VPTransferBoxKernel<K, false, T><<<nb[0] * nb[1] * nb[2], SB::THREADS, bytes, stream>>>(*gc, *gf, nb[0], nb[1], homogeneous ? true : false, in, out);
      }
      PetscCallCUDA(cudaGetLastError());
    } else {
      if (restrict_) {
        PetscCallCUDA(cudaFuncSetAttribute(VPTransferKernel<K, true, T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem));
        VPTransferKernel<K, true, T><<<(ncells + NB - 1) / NB, VPThreads(NB * NFT), shmem, stream>>>(*gc, *gf, ncells, homogeneous ? true : false, in, out);
      } else {
        PetscCallCUDA(cudaFuncSetAttribute(VPTransferKernel<K, false, T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem));
        VPTransferKernel<K, false, T><<<(ncells + NB - 1) / NB, VPThreads(NB * NFT), shmem, stream>>>(*gc, *gf, ncells, homogeneous ? true : false, in, out);
      }
      PetscCallCUDA(cudaGetLastError());
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};

VP_PRECISION_ALIASES(VPTransfer);

PetscErrorCode VPTransferSetUp_CUDA(PetscInt k, const PetscReal *P)
{
  PetscFunctionBegin;
  PetscCheck(k >= 1 && k <= VPATCH_MAX_DEGREE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "No CUDA transfer for degree %d", (int)k);
  PetscCall(VPTrPUpload(P, (int)((2 * k + 1) * (k + 1)), VPTrPOffset((int)k)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VPTransferApply_CUDA(const VPGrid *gc, const VPGrid *gf, PetscBool single, PetscBool homogeneous, PetscBool restrict_, const PetscScalar *in, PetscScalar *out)
{
  PetscFunctionBegin;
  if (VPGridEmpty(gc)) PetscFunctionReturn(PETSC_SUCCESS);
  VP_DISPATCH_PRECISION(VPTransfer, single, gc->dim, gc->k, gc, gf, homogeneous, restrict_, in, out);
  PetscFunctionReturn(PETSC_SUCCESS);
}
