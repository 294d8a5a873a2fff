#!/bin/bash
# make bench: on a machine with an NVIDIA GPU, kernel throughput (double and single precision, 2D and 3D) and the
# solver comparison (bench_solve: our solvers and PETSc's), femto's element kernels (bench_femto), PCAUXAMG against GAMG (bench_auxamg); JSON lines and the report in $BENCH_OUT (bench/out).
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
# the auxiliary-grid AMG against GAMG on the same assembled P1 matrices (JSON lines; not part of the report)
"$B/bench/bench_auxamg" -dim 3 -n ${BENCH_AUXAMG_N:-100,215} -solvers auxamg,gamg,gamg-tuned -mat_type aijcusparse | tee "$O/auxamg.jsonl"
python3 bench/report.py --plots "$O" "$O"/*.txt | tee "$O/report.md"
