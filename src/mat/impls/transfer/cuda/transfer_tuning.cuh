/*
  The tuning of the transfers' 3D box kernels (transfer.cu), chosen by timing on an H100 (bench_kernels at 64M DoF,
  and the prolongation and restriction events of -log_view in the solves; the numbers are in bench/history/,
  2026-11-28.md gathers them). A choice changes the speed, never the result. Measurement builds override the batches
  and the atomics (vpmeasure.cuh).

  The table, a row per degree:
  B   coarse cells per box and direction (VPTrBoxShape): the fine box of (2 B k + 1)^3 nodes must fit in shared
      memory, and a plane of it in one block of at most 512 threads.
  Not in the table:
  - loads in flight per thread in a box's gather (VPGatherBatched(), vpcuda.cuh): 4 for the prolongation's coarse
    values (with the fine values loaded before they are updated: 23% off the prolongation at 455M Q_3), 1 for the
    restriction's fine ones (more was slower, not profiled);
  - the restriction adds into every coarse node with atomics, inside the box too, where a load, add and store would
    do: the atomics are reductions no thread waits for, while the load-add-store of a line's nodes pays one global
    latency after the other (30% off the restriction at 455M Q_3 and 722M Q_7).
*/
#pragma once

#include <petscvpatch/private/vpmeasure.cuh>

__host__ __device__ constexpr int VPTuneTransferBox(int k)
{
  const int table[] = {/* B, for k = 1..8 */ 4, 2, 2, 1, 1, 1, 1, 1};
  return table[(k < 8 ? k : 8) - 1]; /* the 3D degrees; a 2D-only degree takes the row of 8 */
}

/* loads in flight per thread in a box's gather: the restriction's fine values, or the prolongation's coarse ones */
__host__ __device__ constexpr int VPTuneTransferBatch(bool restrict_)
{
  return VP_TRANSFER_BATCH > 0 ? VP_TRANSFER_BATCH : (restrict_ ? 1 : 4);
}

__host__ __device__ constexpr bool VPTuneTransferRestrictAtomics()
{
  return VP_TRANSFER_RESTRICT_ATOMICS >= 0;
}
