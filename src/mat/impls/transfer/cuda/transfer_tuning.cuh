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
__host__ __device__ constexpr int VPTuneTransferBatch(bool restrict_)
{
  return VP_TRANSFER_BATCH > 0 ? VP_TRANSFER_BATCH : (restrict_ ? 1 : 4);
}

/* 3D restriction: atomic adds for the coarse nodes inside a box too, where a plain load, add and store would do: the
   atomics are reductions the thread does not wait for, the load-add-store of a line's nodes one global latency after
   the other. H100, 455M k = 3 / 722M k = 7 vpatch-r-mixed, -log_view -log_view_gpu_time of three solves, twice
   (bench/RESULTS.md, session 29): restriction 60.4, 62.5 -> 42.0, 42.0 ms / 75.6, 75.8 -> 49.6, 49.7 ms; solves 0.4579,
   0.4638 -> 0.4523, 0.4520 s / 0.7606, 0.7614 -> 0.7516, 0.7535 s. (The gathers by rows along x, one thread per row,
   measured slower in the same call: restriction 87-88 / 90-91 ms, prolongation 65 / 82 ms.) VP_TRANSFER_RESTRICT_ATOMICS
   (measurement builds only): -1 the plain adds inside the box */
#ifndef VP_TRANSFER_RESTRICT_ATOMICS
#define VP_TRANSFER_RESTRICT_ATOMICS 0
#endif
__host__ __device__ constexpr bool VPTuneTransferRestrictAtomics()
{
  return VP_TRANSFER_RESTRICT_ATOMICS >= 0;
}
