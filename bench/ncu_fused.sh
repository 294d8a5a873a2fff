#!/usr/bin/env bash
# Nsight Compute figures of the fused vertex-patch kernel (one launch each): shared-memory bank
# conflicts, shared-memory wavefronts and throughput, branch uniformity, occupancy, duration.
# Run on the GPU node from the checkout's root, with the environment of the README's GPU section.
# Usage: bench/ncu_fused.sh OUTDIR
set -u
out=${1:-.}
B=build/arch-vpatch-cuda
metrics=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed,smsp__sass_average_branch_targets_threads_uniform.pct,sm__warps_active.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum
for dk in "2 1" "2 3" "2 7" "3 1" "3 3" "3 5" "3 7"; do
  set -- $dk
  # the fused kernel is VPPatchKernel<d, k, 0> (VP_MODE_FUSED is the first mode)
  ncu --kernel-name-base demangled --kernel-name "regex:VPPatchKernel<$1, $2, 0>" --launch-count 1 --csv --metrics $metrics \
    $B/bench/bench_kernels -dim $1 -degrees $2 -dofs 8e6 -repeats 1 -dm_vec_type cuda -use_gpu_aware_mpi 0 > "$out/ncu_d$1_k$2.csv" 2> "$out/ncu_d$1_k$2.err"
  echo "d=$1 k=$2: rc=$?"
done
