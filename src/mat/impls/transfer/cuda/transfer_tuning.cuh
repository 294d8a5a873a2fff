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

/* 3D box kernel: loads in flight per thread in the gather of a box (VPGatherBatched(), vpcuda.cuh; 1: one load, then
   its store, at a time). H100, 455M k = 3 vpatch-r-mixed, -log_view -log_view_gpu_time of two solves (bench/RESULTS.md,
   session 29), one at a time -> 4, together with the prolongation's fine values loaded before they are stored:
   prolongation 53.9 -> 41.7 ms, restriction 39.9 -> 43.5 ms; again (three solves, k = 3 / k = 7 722M), counts 1, 2, 4, 8
   for both: restriction 61.2 / 75.9 (1), 60.4 / 76.7 (2), 75.0 / 95.7 (8) ms, the prolongation 62.2-62.5 / 78.9-80.5
   for 2, 4, 8 (the gain is the batched update of the fine values). So 4 for the prolongation's coarse values, 1 for
   the restriction's fine ones (not profiled). VP_TRANSFER_BATCH (measurement builds only) forces one count on both. */
#ifndef VP_TRANSFER_BATCH
#define VP_TRANSFER_BATCH 0
#endif
__host__ __device__ constexpr int VPTuneTransferBatch(int k, bool restrict_)
{
  return VP_TRANSFER_BATCH > 0 ? VP_TRANSFER_BATCH : (restrict_ || k < 1 ? 1 : 4);
}
