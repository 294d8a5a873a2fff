#!/bin/bash
# make bench BENCH_GPUS=G (G >= 2), the multi-GPU mode: strong and weak scaling of the vertex-patch multigrid on one
# host, 1 GPU against G GPUs in the same call (one rank per GPU), JSON lines in $BENCH_OUT/scale.jsonl and the tables
# of bench/report.py (speed-up against the 1-GPU run of the same box; weak ratio against the 1-GPU run of 1/G of it).
#   strong: 3D k = 3 on 256^3 cells (455M unknowns) and k = 7 on 128^3 cells (722M)
#   weak:   the same per GPU, twice: 1/G of the cube on 1 GPU against the cube on G GPUs, and the cube on 1 GPU against
#           G cubes along z on G GPUs (k = 3: 256 x 256 x 256G cells; k = 7: 128 x 128 x 128G); the iteration counts
#           of two boxes of other shapes may differ, so the report gives the time per iteration too
#   big:    BENCH_SCALE_BIG=1 adds a k = 3 solve of more than 2^31 unknowns on the G GPUs (384 x 384 x 288G cells:
#           2.3e9 unknowns on 2 GPUs), one solve after the warm-up
# The G-GPU runs use config/mpiexec-gpu.sh (device buffers between GPUs where Open MPI's pml ucx and the CUDA-enabled
# UCX of make ucx are there, else host staging, which it says). The 1-GPU runs use no mpiexec.
# usage: bench/scale.sh BUILD_DIR    environment: BENCH_GPUS, BENCH_OUT, BENCH_COMMIT, BENCH_SCALE_SOLVERS (default
#        vpatch-r-mixed), BENCH_SCALE_ARGS (more bench_solve options for every run), BENCH_SCALE_BIG
set -euo pipefail
B=${1:?usage: bench/scale.sh BUILD_DIR}
G=${BENCH_GPUS:-$(nvidia-smi -L 2>/dev/null | wc -l)}
[ "$G" -ge 2 ] 2>/dev/null || { echo "scale.sh: BENCH_GPUS must be 2 or more (GPUs seen: $G)" >&2; exit 1; }
have=$(nvidia-smi -L 2>/dev/null | wc -l)
[ "$have" -ge "$G" ] || echo "scale.sh: $G ranks on $have GPUs: ranks share GPUs, the times are no scaling figures" >&2
O=${BENCH_OUT:-bench/out}
mkdir -p "$O"
commit=${BENCH_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 | tr ' ' '_')
export PETSC_OPTIONS="${PETSC_OPTIONS:-} -use_gpu_aware_mpi 0"
solvers=${BENCH_SCALE_SOLVERS:-vpatch-r-mixed}
common=(-dim 3 -dm_vec_type cuda -rhs ones -repeats 3 -commit "$commit" -gpu_name "${gpu:-unknown}" ${BENCH_SCALE_ARGS:-})
out=$O/scale.jsonl
: >"$out"
# one solver per process: with the UCX transport a second hierarchy in the same process can meet UCX 1.20's stale CUDA
# IPC mappings (config/mpiexec-gpu.sh); a run that fails is reported (its JSON line says why), the others go on, and
# the script exits with 1
failed=0
one() { for s in ${solvers//,/ }; do "$B/bench/bench_solve" "${common[@]}" -solvers "$s" "$@" | tee -a "$out" || failed=1; done; }
many() { for s in ${solvers//,/ }; do bash config/mpiexec-gpu.sh --bind-to none -n "$G" "$B/bench/bench_solve" "${common[@]}" -solvers "$s" "$@" | tee -a "$out" || failed=1; done; }
for kn in "3 256" "7 128"; do
  set -- $kn
  one -degrees "$1" -box "$2,$2,$2"
  one -degrees "$1" -box "$2,$2,$(($2 / G))"
  many -degrees "$1" -box "$2,$2,$2"
  many -degrees "$1" -box "$2,$2,$(($2 * G))"
done
if [ "${BENCH_SCALE_BIG:-0}" = 1 ]; then
  many -degrees 3 -box "384,384,$((288 * G))" -repeats 1
fi
python3 bench/report.py "$out" | tee "$O/scale.md"
exit $failed
