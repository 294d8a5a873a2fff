#!/bin/bash
# make bench: on a machine with an NVIDIA GPU, kernel throughput (double and single precision, 2D and 3D) and the
# solver comparison (bench_solve: our solvers and PETSc's), femto's element kernels (bench_femto); JSON lines and the report in $BENCH_OUT (bench/out).
# usage: bench/run.sh BUILD_DIR    environment: BENCH_OUT, BENCH_COMMIT, BENCH_KERNEL_ARGS, BENCH_SOLVE_ARGS
set -e
B=${1:?usage: bench/run.sh BUILD_DIR}
O=${BENCH_OUT:-bench/out}
mkdir -p "$O"
commit=${BENCH_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 | tr ' ' '_')
common="-dm_vec_type cuda -commit $commit -gpu_name ${gpu:-unknown}"
export PETSC_OPTIONS="${PETSC_OPTIONS:-} -use_gpu_aware_mpi 0"
for d in 2 3; do
  "$B/bench/bench_kernels" -dim "$d" $common ${BENCH_KERNEL_ARGS:-} | tee "$O/kernels_${d}d_double.txt"
  "$B/bench/bench_kernels" -dim "$d" $common -dm_qbox_precision single -pc_vpatch_precision single ${BENCH_KERNEL_ARGS:-} | tee "$O/kernels_${d}d_single.txt"
done
"$B/bench/bench_femto" -cells 100 -degrees 1,2,3 -commit "$commit" -gpu_name "${gpu:-unknown}" | tee "$O/femto.txt"
"$B/bench/bench_solve" -dim 3 $common ${BENCH_SOLVE_ARGS:--degrees 1,2,3,4,5,6,7 -dofs 1e6,1e7,1e8} | tee "$O/solve_3d.txt"
python3 bench/report.py --plots "$O" "$O"/*.txt | tee "$O/report.md"
