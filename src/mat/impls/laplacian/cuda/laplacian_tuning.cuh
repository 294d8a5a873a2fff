/*
  The tuning of the matrix-free operator's 3D box kernel (laplacian.cu): one table, a row per degree (and precision
  where it matters), chosen by timing on an H100 (bench_kernels MatMult at 64M DoF, and the MatMult and MatResidual
  events of -log_view in the solves; the numbers are in bench/history/, 2026-11-28.md gathers them). An entry changes
  the speed, never the result. A measurement build overrides the gather's batch (vpmeasure.cuh).

  The columns and their rules:
  BXY, BZ  cells per box along x and y, and along z (VPLapBoxShape): boxes large enough that few nodes lie on box
           faces (added with atomics), small enough that the box fits in shared memory at every degree.
  MB       blocks per SM the register allocation must allow (__launch_bounds__), double: asking for more blocks than
           the compiler's free choice gave (2) was faster while the spills stayed small (k = 6, 7: 4; k = 8: 3).
           Single precision already runs 4 blocks and takes 1 (the compiler's choice).
  Not in the table: the box's gather keeps 4 loads in flight per thread (VPTuneLapGatherBatch(): 1 -> 4 took 12% off
  the finest MatMult at 455M Q_3; 8 gained nothing more).
*/
#pragma once

#include <petscvpatch/private/vpmeasure.cuh>

struct VPLapTuning {
  int bxy, bz, mb_double;
};

__host__ __device__ constexpr VPLapTuning VPLapTuningRow(int k)
{
  const VPLapTuning table[] = {
      /*      BXY BZ MB (double) */
      /* 1 */ {8, 8, 1},
      /* 2 */ {4, 4, 1},
      /* 3 */ {4, 4, 1},
      /* 4 */ {2, 2, 1},
      /* 5 */ {2, 2, 1},
      /* 6 */ {2, 2, 4},
      /* 7 */ {2, 1, 4},
      /* 8 */ {2, 1, 3},
  };
  return table[(k < 8 ? k : 8) - 1]; /* the 3D degrees; a 2D-only degree takes the row of 8 */
}

/* cells per box along direction dir (0, 1: x, y; 2: z) */
__host__ __device__ constexpr int VPTuneLapBox(int k, int dir)
{
  return dir < 2 ? VPLapTuningRow(k).bxy : VPLapTuningRow(k).bz;
}

__host__ __device__ constexpr int VPTuneLapBoxMinBlocks(int k, int bytes)
{
  return bytes == 8 ? VPLapTuningRow(k).mb_double : 1;
}

__host__ __device__ constexpr int VPTuneLapGatherBatch()
{
  return VP_LAP_GATHER_BATCH > 0 ? VP_LAP_GATHER_BATCH : 4;
}
