/*
  The per-(degree, precision) tuning choices of the matrix-free Laplacian's CUDA kernels (laplacian.cu), in one place,
  each chosen by measurement on an H100 (bench/RESULTS.md, by session). They change the speed, never the result.
  bytes: sizeof of the kernel's arithmetic type (8 double, 4 single).
*/
#pragma once

/* 3D box kernel: cells per box along x and y (dir 0, 1) and along z (dir 2), VPLapBoxShape (session 6): boxes large
   enough that few nodes are on box faces (atomics), small enough for shared memory at every degree */
__host__ __device__ constexpr int VPTuneLapBox(int k, int dir)
{
  return dir < 2 ? (k <= 1 ? 8 : (k <= 3 ? 4 : 2)) : (k <= 1 ? 8 : (k <= 3 ? 4 : (k <= 6 ? 2 : 1)));
}

/* 3D box kernel: loads in flight per thread in the gather of the box (VPGatherBatched(), vpcuda.cuh; 1: one load, then
   its store, at a time). H100, 455M k = 3 vpatch-r-mixed, -log_view -log_view_gpu_time of two solves (bench/RESULTS.md,
   session 29), 1 -> 4: the outer double MatMult 61.6 -> 54.6 ms, MatResidual (all levels) 82.0 -> 78.7 ms; three solves
   of k = 3 / 722M k = 7, counts 1, 2, 4, 8: MatMult 93.0 / 151.7, 84.5 / 145.6, 82.1 / 146.3, 82.0 / 146.6 ms. So 4.
   VP_LAP_GATHER_BATCH (measurement builds only) forces another count. */
#ifndef VP_LAP_GATHER_BATCH
#define VP_LAP_GATHER_BATCH 0
#endif
__host__ __device__ constexpr int VPTuneLapGatherBatch()
{
  return VP_LAP_GATHER_BATCH > 0 ? VP_LAP_GATHER_BATCH : 4;
}

/* Blocks per SM the register allocation must allow (__launch_bounds__), by measurement (bench/RESULTS.md, session 8;
   bench_kernels -dim 3, 64M DoF, H100, MatMult GDoF/s): double k = 6, 7, 8 took 84, 103, 118 registers, 2 blocks of
   256 or 320 threads per SM, and ran at 39.1 / 33.8 / 24.5. Asking for 3 blocks: 39.9 / 41.8 / 34.6 (spills 0 / 32 /
   528 bytes); for 4 blocks: 45.8 / 42.5 / 24.8 (spills 0 / 240 / 680 bytes). Hence 4 / 4 / 3. Single precision (56-64
   registers) already runs 4 blocks and is left alone. */
__host__ __device__ constexpr int VPTuneLapBoxMinBlocks(int k, int bytes)
{
  return bytes == 8 && k >= 6 ? (k == 8 ? 3 : 4) : 1;
}
