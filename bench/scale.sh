#!/bin/bash
# make bench BENCH_GPUS=G (G >= 2), the multi-GPU mode: strong and weak scaling of the vertex-patch multigrid on one
# host, on 1, 2, 4, ... GPUs up to G (powers of two, and G itself) in the same call (one rank per GPU), JSON lines in
# $BENCH_OUT/scale.jsonl and the tables of bench/report.py (speed-up and efficiency against the 1-GPU run of the same
# box; weak ratio against the 1-GPU run of 1/c of the unknowns).
#   strong: 3D k = 3 on 256^3 cells (455M unknowns) and k = 7 on 128^3 cells (722M), on every count c
#   weak:   the cube per GPU: on c GPUs the cube doubled along z, then y, then x, log2(c) times (k = 3, c = 2:
#           256 x 256 x 512 cells; c = 4: 256 x 512 x 512; c = 8: 512^3, the cube's shape again). Every box keeps cubic
#           cells (-dm_qbox_upper in proportion to the box: on the unit cube a box of other shape has stretched cells,
#           and the cycles then converge more slowly: 16 x 16 x 128 cells of Q_3, 24 cycles on the unit cube, 4 on
#           [0,1] x [0,1] x [0,8], as the cube; bench/RESULTS.md, session 33); the report also gives the time per iteration
#   big:    BENCH_SCALE_BIG=1 adds the same weak series for a large box per GPU (chosen by the GPU's memory:
#           >= 120 GB (H200): past 2^31 unknowns per rank, so that 4 GPUs hold 1e10: k = 3 448 x 272 x 768 cells,
#           2.53e9 unknowns, about 113 GB, and k = 7 176 x 176 x 240, 2.56e9, about 115 GB (2.68e9 of k = 3 took 120 GB
#           on one H200, 2.98e9 did not fit); smaller (H100 80 GB): k = 3 320 x 320 x 256, 7.1e8, and k = 7 128^3,
#           7.2e8), one solve after the warm-up
#   BENCH_SCALE_COUNTS="1 2 4" replaces the list of GPU counts (1 must be in it for the tables' ratios);
#   BENCH_SCALE_STRONG=0 leaves out the strong series and the weak series of the cube (only the big one then).
# The runs on several GPUs use config/mpiexec-gpu.sh (device buffers between GPUs where Open MPI's pml ucx and the
# CUDA-enabled UCX of make ucx are there, else host staging, which it says). The 1-GPU runs use no mpiexec.
# usage: bench/scale.sh BUILD_DIR    environment: BENCH_GPUS, BENCH_OUT, BENCH_COMMIT, BENCH_SCALE_SOLVERS (default
#        vpatch-r-mixed), BENCH_SCALE_ARGS (more bench_solve options for every run), BENCH_SCALE_BIG, BENCH_SCALE_COUNTS,
#        BENCH_SCALE_TIMEOUT
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
# one solver per process (each run's memory and set-up its own); a run that fails is reported (its JSON line says why),
# the others go on, and the script exits with 1
failed=0
counts=${BENCH_SCALE_COUNTS:-}
if [ -z "$counts" ]; then
  c=1
  while [ "$c" -lt "$G" ]; do counts+="$c "; c=$((2 * c)); done
  counts+="$G"
fi
# run on c GPUs (c = 1: no mpiexec), one solver per process, each stopped after BENCH_SCALE_TIMEOUT seconds (600); the
# domain in proportion to the box (-box nx,ny,nz: [0,1] x [0,ny/nx] x [0,nz/nx], cubic cells)
run() {
  local c=$1 s rc launch=() a box=""
  shift
  for a in "$@"; do [ "$box" = next ] && box=$a; [ "$a" = -box ] && box=next; done
  [ -n "$box" ] && [ "$box" != next ] && set -- "$@" -dm_qbox_upper "$(echo "$box" | awk -F, '{printf "1,%.10g,%.10g", $2 / $1, $3 / $1}')"
  [ "$c" = 1 ] || launch=(bash config/mpiexec-gpu.sh --bind-to none -n "$c")
  for s in ${solvers//,/ }; do
    rc=0
    timeout "${BENCH_SCALE_TIMEOUT:-600}" "${launch[@]}" "$B/bench/bench_solve" "${common[@]}" -solvers "$s" "$@" | tee -a "$out" || rc=$?
    [ "$rc" = 0 ] || { failed=1; echo "scale.sh: $s on $c GPUs $* failed (exit $rc; 124: stopped after ${BENCH_SCALE_TIMEOUT:-600} s)" >&2; }
  done
}
# the box of c GPUs in a weak series: the box of one GPU doubled along z, y, x in turn (c a power of two), else
# stretched c times along z
weakbox() {
  local c=$1 b=($2 $3 $4) i=0
  if [ $((c & (c - 1))) = 0 ]; then
    while [ "$c" -gt 1 ]; do b[$((2 - i % 3))]=$((2 * b[2 - i % 3])); c=$((c / 2)); i=$((i + 1)); done
  else
    b[2]=$((c * b[2]))
  fi
  echo "${b[0]},${b[1]},${b[2]}"
}
for kn in "3 256" "7 128"; do
  [ "${BENCH_SCALE_STRONG:-1}" = 0 ] && continue
  set -- $kn
  for c in $counts; do run "$c" -degrees "$1" -box "$2,$2,$2"; done
  for c in $counts; do [ "$c" = 1 ] || run "$c" -degrees "$1" -box "$(weakbox "$c" "$2" "$2" "$2")"; done
done
if [ "${BENCH_SCALE_BIG:-0}" = 1 ]; then
  mem=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits 2>/dev/null | head -n 1)
  if [[ "$mem" =~ ^[0-9]+$ ]] && [ "$mem" -ge 120000 ]; then big=("3 448 272 768" "7 176 176 240"); else big=("3 320 320 256" "7 128 128 128"); fi
  for kb in "${big[@]}"; do
    set -- $kb
    for c in $counts; do run "$c" -degrees "$1" -box "$(weakbox "$c" "$2" "$3" "$4")" -repeats 1; done
  done
fi
python3 bench/report.py "$out" | tee "$O/scale.md"
exit $failed
