/*
  Every per-(dimension, degree, precision) tuning choice of the vertex-patch kernels (vpatch.cu), in one place. Each was
  chosen by measurement on an H100 (bench_kernels, 64M DoF; the numbers are in bench/RESULTS.md, by session). A choice
  here changes the speed, never the result: tests/test_gpu.c compares every kernel with the CPU path.
  bytes: sizeof of the kernel's arithmetic type (8 double, 4 single).
*/
#pragma once

/* Per line, the patch products by cells in even-odd form take 2 (H^2 + HO^2) multiply-adds and 8 HO + 1 additions,
   the plain ones (structural zeros skipped) 2 K^2 + 2 K - 1 multiply-adds: fewer instructions from K = 6 on, fewer
   constant operands for every K >= 2. Even-odd measured faster from K = 4 on (bench/RESULTS.md, session 7; 3D Q_5
   double 5.67 against 5.18 GDoF/s, Q_7 single 6.61 against 5.40), plain faster at K = 3 in double (8.15 against 7.26) */
__host__ __device__ constexpr bool VPTunePatchEvenOdd(int k)
{
  return k >= 4;
}

/* W1 and W2 in place of P and Q (3D): the z pass reads a line of Q, then of P, into registers and writes W2, W1 over
   them, so X0 need not hold W1 and W2 next to each other (2 (2K+1) (2K-1)^2 entries) but only the gathered patch or
   the residual. The smaller block lets more blocks run per SM; VPPatchRegs lowers the register cap to match. The x
   pass then reads W1 and W2 in PQ's layout, which is padded for the y and z passes, not for x.
   Chosen by measurement (bench/RESULTS.md, session 9; fused GDoF/s, 64M DoF, H100):
   - 3D Q_8 double: 131.6 -> 109.7 KB per block, 2 blocks per SM instead of 1 (96 registers, 108 B of spills):
     2.62 -> 4.03 GDoF/s;
   - 3D Q_6: double 58 -> 51 KB, 4 blocks instead of 3 (80 registers, 24 B of spills): 4.49 -> 4.92; single 30.8 ->
     27.2 KB, 8 blocks instead of 7 (40 registers, no spills): 7.46 -> 7.79;
   - elsewhere no faster, or slower where the extra block forces spills (single Q_5: 8.68 -> 5.96).
   Session 23, with the reduced residual and the y pass from x (VPTunePatchDirectY(), which leaves X0 only the residual
   when in place), measured again on every 3D kernel (fused GDoF/s, 61-64M DoF, H100; before -> in place, both with
   the y pass from x where it is used): double k = 1, 2, 4, 5, 7 faster in place (k = 2 11.58 -> 12.02, k = 4 8.79 ->
   9.24, k = 5 7.35 -> 7.51 against 7.01 with the y pass from x alone, k = 7 6.05 -> 6.22), k = 3 slower (10.87 ->
   10.46); single k = 4 10.58 -> 11.48 and k = 5 (9.59 -> 9.94, without the y pass from x) faster, k = 7 and 8
   slower (8.49 -> 6.84, 8.40 -> 7.52), k = 1, 2 the same. So: double all but k = 3, single k <= 2 and 4..6.
   VP_PATCH_INPLACE_3D (measurement builds only) forces it on every 3D kernel (1) or off (-1). */
#ifndef VP_PATCH_INPLACE_3D
#define VP_PATCH_INPLACE_3D 0
#endif
__host__ __device__ constexpr bool VPTunePatchInPlace(int dim, int k, int bytes)
{
  return dim == 3 && (VP_PATCH_INPLACE_3D ? VP_PATCH_INPLACE_3D > 0 : (bytes == 8 ? k != 3 : (k <= 2 || k == 4 || k == 5 || k == 6)));
}

/* Line order (VPOrder, vpatch.cu) per dimension, degree and precision, chosen by measurement (bench/RESULTS.md,
   sessions 4 and 8; fused GDoF/s, 64M DoF, H100). The grouped orders make every line and entry pass conflict-free by construction
   (ncu: 5-8% of the store wavefronts still conflict, from other accesses, not analysed); the lexicographic order
   conflicts where a (half-)warp straddles two patches (3D k = 3 single: 37% of the store wavefronts).
   - Patch fastest (LG = 1) where it was faster: 2D k = 3 double and 2D k = 4 single (session 4: 12.25 against 11.19,
     12.93 against 12.34; with this enumeration 16.4 and 18.6) and 3D k = 2 double (8.1 against 7.6-7.8; store
     conflicts 8% of the wavefronts against 41%).
   - Grouped orders (LG = 2..8) measured slower in every 3D case tried (k = 2..5 single, k = 2..4 double; double
     k = 5 takes more than 96 KB per block, not tried). 3D k = 5 single, LG = 8: 6.2 against 8.6 GDoF/s. 3D k = 3
     single, LG = 4, 8 patches: conflicts 5% of the store wavefronts against 37%, 18% fewer shared wavefronts, but
     8.5 against 10.2 GDoF/s (ncu: 1.13 against 0.87 ms). The kernel is issue-bound: the idle slots and the index
     arithmetic of the grouped order cost more issue slots than the conflicts cost the shared-memory pipe.
   - Elsewhere the lexicographic order (LG = 0). */
__host__ __device__ constexpr int VPTunePatchLineGroup(int dim, int k, int bytes)
{
  return (dim == 2 && ((k == 3 && bytes == 8) || (k == 4 && bytes == 4))) || (dim == 3 && k == 2 && bytes == 8) ? 1 : 0;
}

/* Register cap per thread. By default the registers that let as many blocks run per SM as shared memory and threads
   allow (the occupancy bound), or, where that is 200 or more, the launch bound of VP_PATCH_THREADS threads. Without a
   cap the compiler can take so many registers that registers bound the occupancy below it (2D Q_6 double: 102
   registers, 2 blocks per SM against 3 with the cap of 80). Chosen by measurement (bench/RESULTS.md, session 7, 64M
   DoF): the cap is faster or the same everywhere (2D Q_6 double 10.94 against 8.24 GDoF/s, 2D Q_2 double 18.7 against
   16.0; 3D Q_6 double 4.46 against 3.18, where both allow 3 blocks: the cause is not profiled) except where it forces
   spills: 2D single k = 4..7 (Q_5: 9.61 against 15.72 GDoF/s) and 3D double k = 3 (7.99 against 8.15), which keep the
   launch bound. Session 23, with the y pass from x (VPTunePatchDirectY()), again on every 3D kernel (fused GDoF/s, 61-64M
   DoF, H100; cap -> launch bound): single k = 3 12.37 -> 12.77, k = 5 9.98 -> 10.38, k = 6 9.61 -> 10.45, k = 7 8.47
   -> 9.24, k = 8 8.39 -> 8.56 (k = 5, 6 with the y pass from x, which under the cap was slower there), k = 4 slower
   (11.41 -> 10.61); double the same or slower (k = 5 7.49 -> 6.30, k = 8 5.57 -> 4.29) but k = 6 (6.82 -> 6.99, within
   the run-to-run spread: left as it was). So the launch bound also for single 3D k = 3 and k >= 5.
   VP_PATCH_LAUNCH_BOUND (measurement builds only): 1 the launch bound everywhere, -1 the cap everywhere */
#ifndef VP_PATCH_LAUNCH_BOUND
#define VP_PATCH_LAUNCH_BOUND 0
#endif
__host__ __device__ constexpr bool VPTunePatchLaunchBound(int dim, int k, int bytes)
{
  return VP_PATCH_LAUNCH_BOUND ? VP_PATCH_LAUNCH_BOUND > 0 : (dim == 2 && bytes == 4 && k >= 4 && k <= 7) || (dim == 3 && (bytes == 8 ? k == 3 : k == 3 || k >= 5));
}

/* Prefetch of b: where a thread's share of the block's right-hand side is a few values (PRE, for the default block),
   they are loaded into registers first and stored into Rb after the residual's first passes, so that the loads'
   latency hides behind the gather and the y and z passes (ncu: long-scoreboard stalls, waits on global loads, led
   the stall reasons of 3D k = 3). Used where it measured faster (bench/RESULTS.md, session 5, 64M DoF): k = 1
   (2D and 3D, +2% to +8%) and 3D k = 2, 3 in double (+3%); in single precision and in 2D for k = 2, 3 it was 2-10%
   slower (the registers it holds lower the occupancy), and k >= 4 needs more than 4 values per thread */
__host__ __device__ constexpr bool VPTunePatchPrefetch(int dim, int k, int bytes)
{
  return k == 1 || (dim == 3 && bytes == 8 && k <= 3);
}

/* Gather by rows: one thread per row of the patch along x (its patch, boundary and address work once per row, 2k + 1
   loads with immediate offsets, or 2 for the inner rows of the reduced local residual) instead of one thread per entry.
   Used where it measured faster (bench/RESULTS.md, H100, fused smoother at 61-64M DoF, 3D): session 21, double k = 1..7,
   +1% (k = 5) to +21% (k = 2, 7), solves 15-17% faster (455M k = 3, 484M k = 7); session 22, with the reduced
   residual: double k = 8 +2% (5.09 -> 5.20 GDoF/s), single k = 1, 2, 3, 7, 8 +2% to +5% (solves at 455M k = 3 8%
   faster: vpatch-r-mixed 0.589 -> 0.538 s), single k = 4, 5, 6 2-6% slower (before the reduced residual single was
   12-14% slower at k >= 3: more L1 wavefronts per warp). Since session 23 a kernel gathers only where the y pass does
   not read x itself (VPTunePatchDirectY(): 3D double k = 6; measurement builds) */
__host__ __device__ constexpr bool VPTunePatchGatherRows(int dim, int k, int bytes)
{
  return dim == 3 && (bytes == 8 || k <= 3 || k >= 7);
}

/* The reduced local residual of the exact local solver (the reference's "Boundary" form; fused kernel only): x_I =
   A_II^-1 (b_I - A_IB x_B), so the gather loads only the patch boundary (the interior enters as zeros) and the
   update stores x_I without reading the old values: 3D, (2k+1)^3 - (2k-1)^3 global loads per patch besides b
   instead of (2k+1)^3 + (2k-1)^3. Measured faster (bench/RESULTS.md, session 22, H100, fused smoother at 61-64M DoF,
   3D): double k = 1..8 +4% to +23% (k = 3 7.32 -> 8.69, k = 7 4.72 -> 5.79 GDoF/s), single k = 2..8 +3% to +21%
   (k = 3 10.20 -> 10.54, k = 6 7.81 -> 9.46), single k = 1 the same (7.44 / 7.40); 2D with the first color from zero
   below, k = 1..8: double +12% to +16%, single +8% to +31%.
   VP_PATCH_BOUNDARY (measurement builds only) forces it on every kernel (1) or off (-1). */
#ifndef VP_PATCH_BOUNDARY
#define VP_PATCH_BOUNDARY 0
#endif
__host__ __device__ constexpr bool VPTunePatchBoundary(int dim, int k, int bytes)
{
  return VP_PATCH_BOUNDARY ? VP_PATCH_BOUNDARY > 0 : true;
}

/* The first color of a sweep from a zero guess (PCApply: every presmoothing step of PCMG but PCMG's own Richardson
   loop on the finest level) skips the gather and the residual's passes: the residual is b. Used where it measured
   faster (bench/RESULTS.md, session 22, H100, 3D, PCApply of one forward sweep at 61-64M DoF): double k = 1..3 +8% to
   +12% (k = 4 the same), single k = 1, 2, 4, 6, 8 +2% to +6% (k = 3, 5, 7 the same); double k = 5, 6, 8 3-5% slower
   (the runtime branch costs the other colors more than the first saves); 2D not measured apart, the same rule.
   Session 23, with the y pass from x, in the solves (vpatch-r, 3D, median KSPSolve, H100): double k = 5 (514M) 0.7077
   -> 0.6901 s, k = 6 (455M) 0.6478 -> 0.6718 s, k = 7 (722M) 1.1461 -> 1.1808 s: now on for double k = 5 too.
   VP_PATCH_ZERO_FIRST (measurement builds only): 1 everywhere, -1 never */
#ifndef VP_PATCH_ZERO_FIRST
#define VP_PATCH_ZERO_FIRST 0
#endif
__host__ __device__ constexpr bool VPTunePatchZeroFirst(int dim, int k, int bytes)
{
  return VP_PATCH_ZERO_FIRST ? VP_PATCH_ZERO_FIRST > 0 : bytes == 4 || k <= 5;
}

/* The y pass from global memory: the residual's first pass loads each line along y of the patch from x itself
   (predicated: the inner lines of the reduced residual load their two ends, Dirichlet nodes none) instead of from a
   gathered copy in shared memory, so the gather pass, its barrier and the gathered tensor go (the block takes less
   shared memory where the gathered patch was its largest tensor).
   Measured (bench/RESULTS.md, session 23, H100, fused smoother at 61-64M DoF, 3D, with VPTunePatchInPlace() as it
   is now): faster everywhere but k = 6 (double and single) and k = 5 in single, double k = 1..8: 7.50 10.76 9.45 8.07
   6.93 6.80 5.81 5.33 -> 11.31 12.02 10.87 9.24 7.51 (6.80) 6.22 5.56 GDoF/s; single 8.08 10.50 10.81 10.27 9.59 9.57
   8.26 7.61 -> 11.47 13.13 12.42 11.48 (9.94) (9.57) 8.49 8.40. At k = 6 it was 13-15% slower and single k = 5 7%
   (the smaller block lets more blocks share an SM, and the register cap that follows forces spills: not profiled);
   with the launch bound instead of the cap (VPTunePatchLaunchBound()) single k = 5 and 6 are faster with it (10.38,
   10.45), double k = 6 within the run-to-run spread (6.99 against 6.88 without it, 6.82 under the cap without it: left
   off). 2D, faster everywhere: double k = 1..8 24.39 18.18 18.22 15.60 12.71 12.66 9.49 9.39 -> 34.96 25.01 21.55 18.87 16.74 14.87
   12.88 12.49, single 23.85 24.21 22.40 20.43 19.87 18.29 16.08 15.43 -> 32.54 27.07 24.40 21.22 20.67 19.27 18.77
   18.95.
   VP_PATCH_DIRECT_Y (measurement builds only): 1 everywhere, -1 never */
#ifndef VP_PATCH_DIRECT_Y
#define VP_PATCH_DIRECT_Y 0
#endif
__host__ __device__ constexpr bool VPTunePatchDirectY(int dim, int k, int bytes)
{
  return VP_PATCH_DIRECT_Y ? VP_PATCH_DIRECT_Y > 0 : dim == 2 || k != 6 || bytes == 4;
}

/* The patch products of the residual's passes (VPHatK::rows(), vpatch.cu) streamed: each row handed on (stored,
   accumulated) as soon as it is computed, instead of all rows into a register array first. The same arithmetic;
   the compiler's register schedule differs (ptxas: 3D double k = 8 spills 40 B instead of 144 B, k = 7 120 B instead
   of 72 B). Measured (bench/RESULTS.md, session 23, H100, fused smoother at 61-64M DoF, buffered -> streamed): 3D
   double k = 8 5.59 -> 6.32 GDoF/s, 2D double k = 6 14.86 -> 16.03; 3D double k = 5, 6, 7 2-7% slower (k = 7 6.28 ->
   5.82), the others within 2%.
   VP_PATCH_STREAM_ROWS (measurement builds only): 1 everywhere, -1 never */
#ifndef VP_PATCH_STREAM_ROWS
#define VP_PATCH_STREAM_ROWS 0
#endif
__host__ __device__ constexpr bool VPTunePatchStreamRows(int dim, int k, int bytes)
{
  return VP_PATCH_STREAM_ROWS ? VP_PATCH_STREAM_ROWS > 0 : bytes == 8 && ((dim == 3 && k == 8) || (dim == 2 && k == 6));
}
/* The right-hand side in batches: where b is not prefetched (VPTunePatchPrefetch()), a thread loads its values of the
   block's b into registers in batches (as many as it has for the default block, at most 8), then stores them into
   shared memory, instead of one load, wait and store after another. ncu (3D k = 3 single, stall sampling per
   instruction, session 25): 45% of the warps' stall samples sat on the conversion after that one load, each thread
   paying the global latency about 2.5 times in a row. Measured (bench/RESULTS.md, session 25, H100, fused GDoF/s at
   61-64M DoF, one at a time -> batched): double 3D k = 4 9.22 -> 10.18, k = 5 7.73 -> 8.88, k = 6 6.77 -> 7.11, k = 8
   6.30 -> 6.59, k = 7 6.21 -> 6.06 (batches of 4: 6.18); double 2D k = 2..8 +9% to +42% (k = 4 18.84 -> 25.49, k = 8
   12.70 -> 18.08), k = 1 the same; single 2D k = 6 18.91 -> 19.99, elsewhere in single the same or 1-3% slower (3D
   k = 7 9.28 -> 9.03, k = 8 8.59 -> 8.37): the loads' latency is hidden by the other warps there (single occupies up
   to twice as many warps per SM). So double but 3D k = 7, and single 2D k = 6.
   VP_PATCH_B_BATCH (measurement builds only): a positive value forces batches of that many (1: one at a time) */
#ifndef VP_PATCH_B_BATCH
#define VP_PATCH_B_BATCH 0
#endif
__host__ __device__ constexpr bool VPTunePatchBatchB(int dim, int k, int bytes)
{
  return bytes == 8 ? !(dim == 3 && k == 7) : (dim == 2 && k == 6);
}
/* The right-hand side by asynchronous copies (cp.async) into shared memory, issued before the residual's passes, where
   the kernel can (vpatch.cu: double, 2D, or 3D with the y pass from x and in place) and b is not prefetched into
   registers (VPTunePatchPrefetch()). ncu (session 25, stall sampling per instruction, a color with the residual): 18%
   of the stall samples of 3D k = 7 double sat on the store of the one-at-a-time b load into Rb. Measured (bench/RESULTS.md,
   session 25, H100, fused GDoF/s at 61-64M DoF, with VPTunePatchBatchB() as it is -> asynchronous): 3D k = 4 10.21 ->
   10.81, k = 7 6.19 -> 6.94, k = 8 6.61 -> 7.06, k = 5 the same (8.91, 8.85); 2D k = 5 19.85 -> 25.64, k = 6 18.99 ->
   21.77, k = 7 17.93 -> 20.05, k = 8 18.07 -> 19.08, k = 2..4 the same or 1.5% slower. Solves (vpatch-r, 455M k = 4):
   0.6075 -> 0.5835 s; (vpatch-r12, 722M k = 7) 0.9907 -> 0.9005 s. So double 3D k = 4, 7, 8 and 2D k >= 5.
   VP_PATCH_B_ASYNC (measurement builds only): 1 wherever the kernel can, -1 never */
#ifndef VP_PATCH_B_ASYNC
#define VP_PATCH_B_ASYNC 0
#endif
__host__ __device__ constexpr bool VPTunePatchAsyncB(int dim, int k, int bytes)
{
  return VP_PATCH_B_ASYNC ? VP_PATCH_B_ASYNC > 0 : bytes == 8 && (dim == 3 ? k == 4 || k >= 7 : k >= 5);
}
/* Fewer instructions per patch. SASS of 3D k = 3 single (warp instructions of the loop bodies between the barriers,
   per block of 5 patches): the two entry-by-entry passes, b into Rb and x_I out to global, about 28% of the block's
   instructions (43 and 42 per iteration: index work, 64-bit addresses, conversion); the five IEEE divisions of a
   line of the scaled y pass 65 of its 145.
   - VPTunePatchRowB(): the x pass loads its row of b from global itself (one thread per row along x of the
     interior: its index work once per row), so the entry-by-entry pass that fills Rb and its barrier go. Where it is
     on, the other ways of bringing in b (VPTunePatchPrefetch(), VPTunePatchBatchB(), VPTunePatchAsyncB()) are not
     used.
   - VPTunePatchFastDiv(): the eigenvalue scaling by a reciprocal (single: __fdividef, 2 ulp; double: the hardware
     approximation refined by two Newton steps, about 1 ulp) instead of IEEE division (its check and slow path).
   Measured (bench/RESULTS.md, session 30, H100, fused GDoF/s at 61-64M DoF, one call; base / row b / row b and
   reciprocal):
     3D single k = 1..8: 11.51 13.19 13.15 11.53 10.38 10.53 9.27 8.60 / 10.94 13.64 13.73 13.31 12.83 12.48 11.21
       8.48 / 11.00 13.79 13.85 13.39 13.09 12.36 11.34 10.61;
     3D double: 11.37 10.89 10.87 10.82 8.94 7.16 6.97 7.06 / 10.41 12.29 11.78 10.04 8.52 6.97 6.69 7.71 / 10.50
       13.46 11.78 10.03 7.53 7.35 6.44 8.11;
     2D single: 32.88 27.24 24.66 21.39 20.83 20.02 18.96 18.84 / 32.51 31.19 29.61 22.21 27.63 26.23 24.57 18.33 /
       32.42 31.31 29.48 22.23 27.67 26.43 24.45 12.54;
     2D double: 35.33 28.52 23.11 25.58 25.80 21.84 20.40 19.17 / 31.85 28.26 25.54 26.12 22.03 22.97 21.10 19.75 /
       32.40 32.30 26.50 26.35 19.67 23.32 21.59 20.52.
   Each choice is on where it measured fastest (on where rates were equal: fewer instructions). The reciprocal alone (3D k = 3, 4, 5, 7, the call before): single
   13.12 11.53 10.33 9.22 -> 13.34 11.63 10.04 9.38, double 10.78 10.81 8.92 6.93 -> 11.22 10.84 8.36 6.99.
   Measured and not kept: the last pass (Shat along x) storing its row of x_I to global itself (no shared tensor of
   the solution, no entry-by-entry store pass): 3D k = 3, 4, 5, 7 single 13.12 11.53 10.33 9.22 -> 10.69 8.45 7.78
   6.64, double 10.78 10.81 8.92 6.93 -> 9.91 8.45 7.32 6.19 (a warp's store instruction then touches 32 rows
   instead of about 6). Degrees above 8 (2D) not measured: off.
   VP_PATCH_ROW_B, VP_PATCH_FAST_DIV (measurement builds only): 1 everywhere, -1 never */
#ifndef VP_PATCH_ROW_B
#define VP_PATCH_ROW_B 0
#endif
#ifndef VP_PATCH_FAST_DIV
#define VP_PATCH_FAST_DIV 0
#endif
__host__ __device__ constexpr bool VPTunePatchRowB(int dim, int k, int bytes)
{
  return VP_PATCH_ROW_B ? VP_PATCH_ROW_B > 0 : (dim == 3 ? (bytes == 4 ? k >= 2 && k <= 8 : k == 2 || k == 3 || k == 6 || k == 8) : (bytes == 4 ? k >= 2 && k <= 7 : k >= 2 && k <= 8 && k != 5));
}
__host__ __device__ constexpr bool VPTunePatchFastDiv(int dim, int k, int bytes)
{
  return VP_PATCH_FAST_DIV ? VP_PATCH_FAST_DIV > 0 : (dim == 3 ? (bytes == 4 ? k >= 2 && k <= 8 && k != 6 : k == 2 || k == 3 || k == 6 || k == 8) : bytes == 8 && k >= 2 && k <= 8 && k != 5);
}

/* VPTunePatchStaticBlock(): where the fused kernel's default block (its patches and threads, VPPatchShape) is compiled
   in as constants, and the unroll factor of its slot loops then (0: the counts at run time, as for a block of
   -pc_vpatch_patches_per_block). With constants the loops over a pass's slots have fixed trip counts and their index
   arithmetic folds; the compiler also allocates registers differently, which made some kernels much slower.
   Measured (bench/RESULTS.md, session 33, H100, fused GDoF/s at 61-64M DoF, one call; counts at run time / constants,
   loops unrolled / constants, not unrolled):
     3D single k = 1..8: 11.47 13.70 13.79 13.43 13.04 12.38 11.34 10.59 / 12.97 14.81 13.69 12.23 8.78 7.83 10.25 7.19
       / 13.03 14.65 13.60 14.01 8.90 10.90 10.03 7.19;
     3D double: 11.26 13.36 11.93 10.76 8.91 7.31 6.91 8.03 / 11.64 14.99 11.12 10.99 9.92 7.99 8.63 8.93 / 11.64 15.18
       11.08 10.65 9.79 7.94 8.78 8.75;
     2D single: 32.76 31.17 29.51 22.06 27.71 26.24 23.90 18.92 / 35.16 30.31 25.62 20.85 19.89 17.88 17.67 19.16 /
       35.18 30.30 29.12 20.74 19.79 18.67 17.35 18.62;
     2D double: 35.23 32.11 26.43 26.17 25.54 23.25 21.69 20.43 / 37.46 32.69 27.27 26.43 26.57 27.29 24.13 22.02 /
       37.73 32.59 27.27 26.10 25.92 26.70 23.34 21.56.
   On where the constants were at least 5% faster (3D single k = 4 not unrolled, +4%: its mixed solve 4% faster).
   VP_PATCH_STATIC_BLOCK (measurement builds only): N > 0 constants with loops unrolled N times everywhere, -1 never */
#ifndef VP_PATCH_STATIC_BLOCK
#define VP_PATCH_STATIC_BLOCK 0
#endif
__host__ __device__ constexpr int VPTunePatchStaticBlock(int dim, int k, int bytes)
{
  if (VP_PATCH_STATIC_BLOCK) return VP_PATCH_STATIC_BLOCK > 0 ? VP_PATCH_STATIC_BLOCK : 0;
  if (dim == 3) return bytes == 4 ? (k <= 2 ? 8 : (k == 4 ? 1 : 0)) : (k == 2 || (k >= 5 && k <= 8) ? 8 : 0);
  return k == 1 || (bytes == 8 && k >= 6 && k <= 8) ? 8 : 0;
}
