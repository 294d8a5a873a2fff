#!/bin/bash
# compute-sanitizer memcheck, racecheck and synccheck over small runs of every GPU kernel (tests/test_gpu: operator,
# transfer, each smoother variant and sweep; double and single precision; tests/test_mass: the patch kernels with a mass term), tests/test_vecops and tests/test_mapped (the
# operator on mapped cells), tests/test_auxamggpu (the auxiliary-grid AMG); memcheck of tests/test_ghosted and
# tests/test_gather on two ranks (mpiexec, from the repository root). On a machine with an NVIDIA GPU:
#   bash tests/sanitize.sh BUILD_DIR      (BUILD_DIR: build/<PETSC_ARCH>)
# SANITIZE_TOOLS="memcheck synccheck" runs only those tools (default: all three); SANITIZE_RANKS=0 skips the two-rank
# runs (default 1): the whole set takes more than 5 minutes on an H100, nearly all of it racecheck (synccheck and the
# two-rank memchecks: 20 s), so it can be split over several calls.
# Prints each tool's summary line per case; exits non-zero if any run reports an error or hazard.
set -u
B=${1:?usage: tests/sanitize.sh BUILD_DIR}
fail=0
# one run of a tool: its summary line; the tail of its output when it reports an error or a hazard
check() {
  local tool=$1
  shift
  out=$(compute-sanitizer --tool "$tool" --error-exitcode 9 "$@" -use_gpu_aware_mpi 0 2>&1)
  rc=$?
  echo "$tool [${*##*/tests/}]: rc $rc, $(echo "$out" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | tail -n 1)"
  if [ $rc -ne 0 ]; then
    fail=1
    echo "$out" | tail -n 20
  fi
}
for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
  for args in "-dim 2 -cells 4,6 -degrees 1,3,10" "-dim 3 -cells 4,4,4 -degrees 1,3,6,8" "-dim 3 -cells 4,6,4 -degrees 2,6 -single" "-dim 3 -cells 4,6,4 -degrees 2" "-dim 3 -cells 4,4,4 -degrees 4 -single" "-dim 3 -cells 4,4,4 -degrees 5,7" "-dim 3 -cells 4,6,4 -degrees 3 -single -pc_vpatch_colors 7,1,2,3,4,5,6,0 -pc_vpatch_correction all"; do
    check "$tool" "$B/tests/test_gpu" $args
  done
  check "$tool" "$B/tests/test_vecops" # VecMDot and VecAYPX kernels
  for args in "-dim 2 -degrees 1,4" "-dim 3 -degrees 2,3,7" "-dim 3 -degrees 3 -pc_vpatch_kernel separate" "-dim 3 -degrees 3 -pc_vpatch_kernel global"; do
    check "$tool" "$B/tests/test_mass" -case patch -dm_vec_type cuda $args # the patch kernels with a mass term
  done
  check "$tool" "$B/tests/test_mass" -case patch -dm_vec_type cuda -dim 3 -degrees 2 -dm_qbox_mapping deformed -dm_qbox_deform_amplitude 0 # the mapped mass kernel, the surrogate's mass term
  check "$tool" "$B/tests/test_mass" -case operator -dm_vec_type cuda -dim 2 -degrees 3 -dm_qbox_mapping deformed # the mapped mass kernel's diagonal
  check "$tool" "$B/tests/test_mapped" -gpu -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_degree 3 # the mapped operator, diagonal, the scaled solver's sweep (the default with a coefficient)
  check "$tool" "$B/tests/test_mapped" -gpu -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_degree 3 -pc_vpatch_local_solver fdm -pc_vpatch_surrogate mean # the unscaled surrogate, its factors from the GPU
  check "$tool" "$B/tests/test_mapped" -gpu -dm_qbox_dim 2 -dm_qbox_degree 5 -dm_qbox_mapping deformed
  check "$tool" "$B/tests/test_mapped" -gpu -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_degree 7 -dm_qbox_cells 2 -pc_vpatch_local_solver cg -pc_vpatch_local_its 3 # the patch kernel's CG steps, double and float
  check "$tool" "$B/tests/test_mapped" -gpu -dm_qbox_mapping shell -dm_qbox_coefficient oscillatory -dm_qbox_degree 3 -pc_vpatch_surrogate profile # each patch's own surrogate: its set-up kernel, the patch kernel and the dampings
  # PCAUXAMG's kernels (racecheck on ours only: cuSPARSE's csrmv, PETSc's MatMult, reports hazards of its own)
  k=""
  [ "$tool" = racecheck ] && k="--kernel-name kns=Aux"
  check "$tool" $k "$B/tests/test_auxamggpu" -coarse_size 100 -dim 3 -n 12 -gpu_pc_auxamg_check_galerkin
  check "$tool" $k "$B/tests/test_auxamggpu" -coarse_size 100 -dim 2 -n 40 -perturb 0.45
done
# two ranks on the GPU (memcheck): the ghosted global vectors and the coarse levels gathered onto one rank
if [ "${SANITIZE_RANKS:-1}" != 0 ] && command -v mpiexec > /dev/null; then
  for args in "test_ghosted -dm_vec_type cuda -dm_qbox_gather_cells 0" "test_gather -dm_vec_type cuda -options_file share/vpatch-mg.options -ksp_type richardson -ksp_max_it 2 -ksp_norm_type none -ksp_convergence_test skip"; do
    out=$(mpiexec --oversubscribe -n 2 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/$args -use_gpu_aware_mpi 0 2>&1)
    rc=$?
    echo "memcheck 2 ranks [$args]: rc $rc, $(echo "$out" | grep -E 'ERROR SUMMARY' | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
    if [ $rc -ne 0 ]; then
      fail=1
      echo "$out" | tail -n 20
    fi
  done
fi
exit $fail
