/*
  Measurement-only switches of the CUDA kernels, all in one place. A normal build leaves every one at 0 and the kernels
  take the choices of their tuning tables (vpatch_tuning.cuh, laplacian_tuning.cuh, transfer_tuning.cuh). A
  measurement build overrides one to time a choice against the table's, e.g.
      make CUDAC_FLAGS+=-DVP_PATCH_ROW_B=-1 ...
  They change the speed, never the result (tests/test_gpu.c compares every kernel with the CPU path in any build).

  Boolean switches: 0 the table's choice, 1 on everywhere, -1 off everywhere.
*/
#pragma once

/* the fused vertex-patch smoother (vpatch_tuning.cuh has what each choice is) */
#ifndef VP_PATCH_INPLACE_3D /* W1 and W2 over P and Q in 3D */
#define VP_PATCH_INPLACE_3D 0
#endif
#ifndef VP_PATCH_LAUNCH_BOUND /* 1: the launch bound everywhere, -1: the register cap everywhere */
#define VP_PATCH_LAUNCH_BOUND 0
#endif
#ifndef VP_PATCH_BOUNDARY /* the reduced ("Boundary") local residual */
#define VP_PATCH_BOUNDARY 0
#endif
#ifndef VP_PATCH_ZERO_FIRST /* the first color from a zero guess skips its residual */
#define VP_PATCH_ZERO_FIRST 0
#endif
#ifndef VP_PATCH_DIRECT_Y /* the y pass loads x from global memory */
#define VP_PATCH_DIRECT_Y 0
#endif
#ifndef VP_PATCH_STREAM_ROWS /* patch products handed on row by row */
#define VP_PATCH_STREAM_ROWS 0
#endif
#ifndef VP_PATCH_GATHER_ROWS /* the gather by rows along x */
#define VP_PATCH_GATHER_ROWS 0
#endif
#ifndef VP_PATCH_B_BATCH /* a count, not a switch: b loaded in batches of this many (1: one at a time) */
#define VP_PATCH_B_BATCH 0
#endif
#ifndef VP_PATCH_B_ASYNC /* b by asynchronous copies, wherever the kernel can */
#define VP_PATCH_B_ASYNC 0
#endif
#ifndef VP_PATCH_ROW_B /* the x pass loads its row of b itself */
#define VP_PATCH_ROW_B 0
#endif
#ifndef VP_PATCH_FAST_DIV /* the eigenvalue scaling by a reciprocal */
#define VP_PATCH_FAST_DIV 0
#endif
#ifndef VP_PATCH_STATIC_BLOCK /* N > 0: the block's counts as constants, loops unrolled N times, everywhere; -1 never */
#define VP_PATCH_STATIC_BLOCK 0
#endif
#ifndef VP_PATCH_QP_3D /* 3D k = 2..5: the grouped line order of this many patches per bank cycle (-1: lexicographic) */
#define VP_PATCH_QP_3D 0
#endif

/* the matrix-free operator (laplacian_tuning.cuh) */
#ifndef VP_LAP_GATHER_BATCH /* a count: loads in flight per thread in the box kernel's gather */
#define VP_LAP_GATHER_BATCH 0
#endif

/* the transfers (transfer_tuning.cuh) */
#ifndef VP_TRANSFER_BATCH /* a count: loads in flight per thread in the box kernels' gathers (both transfers) */
#define VP_TRANSFER_BATCH 0
#endif
#ifndef VP_TRANSFER_RESTRICT_ATOMICS /* -1: plain adds for the coarse nodes inside a box */
#define VP_TRANSFER_RESTRICT_ATOMICS 0
#endif

/* a boolean choice with its measurement switch applied */
__host__ __device__ constexpr bool VPMeasureSwitch(int sw, bool choice)
{
  return sw ? sw > 0 : choice;
}
