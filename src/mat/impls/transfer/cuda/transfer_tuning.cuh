/*
  The per-degree tuning choice of the transfer's CUDA kernels (transfer.cu), chosen by measurement on an H100
  (bench/RESULTS.md, session 6). It changes the speed, never the result.
*/
#pragma once

/* 3D box kernel: coarse cells per box and direction (VPTrBoxShape): the fine box of (2 B k + 1)^3 nodes must fit in
   shared memory, and a plane of it in one block of at most 512 threads */
__host__ __device__ constexpr int VPTuneTransferBox(int k)
{
  return k == 1 ? 4 : (k <= 3 ? 2 : 1);
}
