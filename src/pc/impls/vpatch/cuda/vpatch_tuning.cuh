/*
  The tuning of the fused vertex-patch smoother (vpatch.cu): one table, a row per dimension, precision and degree, a
  column per choice. Every entry was chosen by timing both ways on an H100 (bench_kernels, the fused smoother at 61-64M
  DoF, and where a choice moved little, the solves of bench_solve); the numbers are in bench/history/ (2026-11-28.md
  gathers the ones that set this table). An entry changes the speed, never the result: tests/test_gpu.c compares every
  kernel with the CPU path. A measurement build overrides a column everywhere (vpmeasure.cuh).

  The columns, each with its rule and the reason it is on where it is on:
  IP  3D: W1 and W2 written over P and Q ("in place"), so that the block needs no room for them side by side. A smaller
      block lets more blocks share an SM; on where that gained more than the register cap that follows costs.
  LG  line order: 0 lexicographic, 1 patch fastest (2..8 grouped orders: conflict-free but slower everywhere tried:
      the kernel is bound by instruction issue, and the grouped order's index work costs more issue slots than the
      bank conflicts cost the shared-memory pipe).
  LB  register limit: 1 the launch bound of 320 threads, 0 the cap that lets as many blocks run as shared memory
      allows. The cap wins unless it forces spills.
  PF  b prefetched into registers at the start (a few values per thread), stored after the first passes: hides the
      loads' latency behind the gather. Costs registers, so only where the occupancy does not drop (k = 1, 3D double
      k <= 3).
  GR  3D: the gather by rows along x (a thread per row: its index work once per row) instead of one thread per entry.
      Used only where the y pass does not load x itself (DY off).
  ZF  the first color of a sweep from a zero guess skips the gather and the residual (the residual is b). Costs a
      run-time branch in every other color: off where that cost more than the first color saves.
  DY  the y pass loads its lines from x in global memory: no gathered copy, its pass and barrier. Off where the
      smaller block let the register cap force spills.
  SR  the patch products hand each row on as soon as it is computed instead of buffering all rows in registers: a
      different register schedule, on where it spilled less.
  BB  where b is not prefetched: its values loaded in batches whose latencies overlap (up to 8 per thread) instead of
      one load, wait and store after another. Off where other warps already hide the latency (single precision).
  AB  b copied asynchronously (cp.async) into shared memory at the start, where the kernel can (double, and in 3D in
      place with DY).
  RB  the x pass loads its row of b itself (a thread per row): the entry-by-entry pass that fills b in shared memory
      and its barrier go. Where it is on, PF, BB and AB are not used.
  FD  the eigenvalue scaling by a reciprocal (single: 2 ulp; double: refined by two Newton steps, about 1 ulp)
      instead of IEEE division and its slow path.
  SB  the default block compiled in as constants, its slot loops unrolled SB times (0: the counts at run time). The
      index work folds, but the register allocation changes and slowed some kernels a lot: on where it gained 5%.
  Not in the table, since they do not vary with the dimension and precision:
  - even-odd patch products (by cells, symmetric and antisymmetric halves) from k = 4 on, the plain products with the
    structural zeros skipped below: even-odd needs fewer multiply-adds from k = 6 and fewer constant operands from
    k = 2, and measured faster from k = 4 (VPTunePatchEvenOdd());
  - everywhere the reduced ("Boundary") local residual x_I = A_II^-1 (b_I - A_IB x_B), which loads only the patch's
    boundary (faster for every degree and precision; VPTunePatchBoundary()).
  2D k = 9, 10 were not timed: their rows repeat the choices that were stated for a range of degrees, and leave the
  ones timed degree by degree (RB, FD, SB) off.
*/
#pragma once

#include <petscvpatch/private/vpmeasure.cuh>

struct VPPatchTuning {
  int ip, lg, lb, pf, gr, zf, dy, sr, bb, ab, rb, fd, sb;
};

/* the row of (dim, k, bytes): bytes = sizeof of the kernel's arithmetic type (4 single, 8 double) */
__host__ __device__ constexpr VPPatchTuning VPPatchTuningRow(int dim, int k, int bytes)
{
  const VPPatchTuning table[] = {
      /* 2D single */
      /*      IP LG LB PF GR ZF DY SR BB AB RB FD SB */
      /*  1 */ {0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0, 0, 8},
      /*  2 */ {0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0},
      /*  3 */ {0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0},
      /*  4 */ {0, 1, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0},
      /*  5 */ {0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0},
      /*  6 */ {0, 0, 1, 0, 0, 1, 1, 0, 1, 0, 1, 0, 0},
      /*  7 */ {0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0},
      /*  8 */ {0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0},
      /*  9 */ {0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0},
      /* 10 */ {0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0},
      /* 2D double */
      /*      IP LG LB PF GR ZF DY SR BB AB RB FD SB */
      /*  1 */ {0, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0, 0, 8},
      /*  2 */ {0, 0, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 0},
      /*  3 */ {0, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 0},
      /*  4 */ {0, 0, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 0},
      /*  5 */ {0, 0, 0, 0, 0, 1, 1, 0, 1, 1, 0, 0, 0},
      /*  6 */ {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 8},
      /*  7 */ {0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 8},
      /*  8 */ {0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 8},
      /*  9 */ {0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0},
      /* 10 */ {0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0},
      /* 3D single */
      /*      IP LG LB PF GR ZF DY SR BB AB RB FD SB */
      /*  1 */ {1, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 8},
      /*  2 */ {1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 8},
      /*  3 */ {0, 0, 1, 0, 1, 1, 1, 0, 0, 0, 1, 1, 0},
      /*  4 */ {1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 1},
      /*  5 */ {1, 0, 1, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0},
      /*  6 */ {1, 0, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0},
      /*  7 */ {0, 0, 1, 0, 1, 1, 1, 0, 0, 0, 1, 1, 0},
      /*  8 */ {0, 0, 1, 0, 1, 1, 1, 0, 0, 0, 1, 1, 0},
      /* 3D double */
      /*      IP LG LB PF GR ZF DY SR BB AB RB FD SB */
      /*  1 */ {1, 0, 0, 1, 1, 1, 1, 0, 1, 0, 0, 0, 0},
      /*  2 */ {1, 1, 0, 1, 1, 1, 1, 0, 1, 0, 1, 1, 8},
      /*  3 */ {0, 0, 1, 1, 1, 1, 1, 0, 1, 0, 1, 1, 0},
      /*  4 */ {1, 0, 0, 0, 1, 1, 1, 0, 1, 1, 0, 0, 0},
      /*  5 */ {1, 0, 0, 0, 1, 1, 1, 0, 1, 0, 0, 0, 8},
      /*  6 */ {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 8},
      /*  7 */ {1, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 8},
      /*  8 */ {1, 0, 0, 0, 1, 0, 1, 1, 1, 1, 1, 1, 8},
  };
  const int first[2][2] = {{0, 10}, {20, 28}}; /* [dim - 2][double]: the row of k = 1 */
  return table[first[dim - 2][bytes == 8] + k - 1];
}

/* the choices, with the measurement switches applied */
__host__ __device__ constexpr bool VPTunePatchEvenOdd(int k)
{
  return k >= 4;
}
__host__ __device__ constexpr bool VPTunePatchInPlace(int dim, int k, int bytes)
{
  return dim == 3 && VPMeasureSwitch(VP_PATCH_INPLACE_3D, VPPatchTuningRow(dim, k, bytes).ip);
}
__host__ __device__ constexpr int VPTunePatchLineGroup(int dim, int k, int bytes)
{
  return VPPatchTuningRow(dim, k, bytes).lg;
}
__host__ __device__ constexpr bool VPTunePatchLaunchBound(int dim, int k, int bytes)
{
  return VPMeasureSwitch(VP_PATCH_LAUNCH_BOUND, VPPatchTuningRow(dim, k, bytes).lb);
}
__host__ __device__ constexpr bool VPTunePatchPrefetch(int dim, int k, int bytes)
{
  return VPPatchTuningRow(dim, k, bytes).pf;
}
__host__ __device__ constexpr bool VPTunePatchGatherRows(int dim, int k, int bytes)
{
  return VPMeasureSwitch(VP_PATCH_GATHER_ROWS, VPPatchTuningRow(dim, k, bytes).gr);
}
__host__ __device__ constexpr bool VPTunePatchBoundary(int dim, int k, int bytes)
{
  return VPMeasureSwitch(VP_PATCH_BOUNDARY, true);
}
__host__ __device__ constexpr bool VPTunePatchZeroFirst(int dim, int k, int bytes)
{
  return VPMeasureSwitch(VP_PATCH_ZERO_FIRST, VPPatchTuningRow(dim, k, bytes).zf);
}
__host__ __device__ constexpr bool VPTunePatchDirectY(int dim, int k, int bytes)
{
  return VPMeasureSwitch(VP_PATCH_DIRECT_Y, VPPatchTuningRow(dim, k, bytes).dy);
}
__host__ __device__ constexpr bool VPTunePatchStreamRows(int dim, int k, int bytes)
{
  return VPMeasureSwitch(VP_PATCH_STREAM_ROWS, VPPatchTuningRow(dim, k, bytes).sr);
}
__host__ __device__ constexpr bool VPTunePatchBatchB(int dim, int k, int bytes)
{
  return VPPatchTuningRow(dim, k, bytes).bb; /* VP_PATCH_B_BATCH sets the count itself (vpatch.cu) */
}
__host__ __device__ constexpr bool VPTunePatchAsyncB(int dim, int k, int bytes)
{
  return VPMeasureSwitch(VP_PATCH_B_ASYNC, VPPatchTuningRow(dim, k, bytes).ab);
}
__host__ __device__ constexpr bool VPTunePatchRowB(int dim, int k, int bytes)
{
  return VPMeasureSwitch(VP_PATCH_ROW_B, VPPatchTuningRow(dim, k, bytes).rb);
}
__host__ __device__ constexpr bool VPTunePatchFastDiv(int dim, int k, int bytes)
{
  return VPMeasureSwitch(VP_PATCH_FAST_DIV, VPPatchTuningRow(dim, k, bytes).fd);
}
__host__ __device__ constexpr int VPTunePatchStaticBlock(int dim, int k, int bytes)
{
  return VP_PATCH_STATIC_BLOCK ? (VP_PATCH_STATIC_BLOCK > 0 ? VP_PATCH_STATIC_BLOCK : 0) : VPPatchTuningRow(dim, k, bytes).sb;
}
