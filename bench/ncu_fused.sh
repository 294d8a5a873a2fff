#!/usr/bin/env bash
# Nsight Compute figures of the fused vertex-patch kernel (one launch of each (d, k)): shared-memory
# bank conflicts and wavefronts, shared-memory pipe utilization, branch uniformity, occupancy, duration.
# Run on the GPU node from the checkout's root, with the environment of the README's GPU section.
# Usage: bench/ncu_fused.sh OUTDIR [bench_kernels options, e.g. -dm_qbox_precision single -pc_vpatch_precision single]
# (writes OUTDIR/ncu_fused.csv and prints a markdown table)
set -u
out=${1:-.}
shift
extra=("$@") # options for bench_kernels
B=${B:-build/arch-vpatch-cuda-int64} # the build of the README (64-bit PetscInt); B=... to use another
metrics=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed,smsp__sass_average_branch_targets_threads_uniform.pct,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,launch__registers_per_thread,dram__throughput.avg.pct_of_peak_sustained_elapsed
: > "$out/ncu_fused.csv"
for dk in "2 1" "2 3" "2 7" "3 1" "3 3" "3 5" "3 7" "3 8"; do
  set -- $dk
  # the fused kernel is VPPatchKernel<(int)d, (int)k, (int)0, double> or VPPatchKernelCapped<...> (VP_MODE_FUSED is the first mode)
  ncu --kernel-name-base demangled --kernel-name "regex:VPPatchKernel(Capped)?<\(int\)$1, \(int\)$2, \(int\)0," --launch-count 1 --csv --metrics $metrics \
    $B/bench/bench_kernels -dim $1 -degrees $2 -dofs 8e6 -repeats 1 -dm_vec_type cuda -use_gpu_aware_mpi 0 "${extra[@]}" > "$out/ncu_last.log" 2>&1
  grep '^"' "$out/ncu_last.log" | sed "s/^/\"$1\",\"$2\",/" >> "$out/ncu_fused.csv"
  grep -q '^"' "$out/ncu_last.log" || { echo "ncu gave no figures for d = $1, k = $2:"; tail -n 5 "$out/ncu_last.log"; }
done
python3 - "$out/ncu_fused.csv" <<'PY'
import csv, sys, collections
rows = collections.OrderedDict()
for r in csv.reader(open(sys.argv[1])):
    if len(r) < 5 or r[2] == 'ID':
        continue
    d, k, name, unit, value = r[0], r[1], r[-3], r[-2], r[-1]
    rows.setdefault((d, k), {})[name] = value.replace(',', '') + (' ' + unit if name.startswith('gpu__time') else '')
print('| d | k | bank conflicts ld / st | shared wavefronts ld / st | shared pipe % of peak | uniform branches % | warps active % | registers | DRAM % | duration |')
print('|---|---|---|---|---|---|---|---|---|---|')
for (d, k), m in rows.items():
    g = lambda s: m.get(s, '?')
    print(f"| {d} | {k} | {g('l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum')} / {g('l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum')} | "
          f"{g('l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum')} / {g('l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum')} | "
          f"{g('l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed')} | {g('smsp__sass_average_branch_targets_threads_uniform.pct')} | "
          f"{g('sm__warps_active.avg.pct_of_peak_sustained_active')} | {g('launch__registers_per_thread')} | "
          f"{g('dram__throughput.avg.pct_of_peak_sustained_elapsed')} | {g('gpu__time_duration.sum')} |")
PY
