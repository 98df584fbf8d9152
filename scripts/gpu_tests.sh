#!/usr/bin/env bash
# The tests that need a real GPU's features (matrix units, native 32-wide
# subgroups, float atomics) run where lavapipe cannot: on the GPU machine.
# They skip or take the fallback path on lavapipe, so CI runs them too.
#   here:   scripts/gpu_tests.sh pack
#           (builds the test programs and packs them, with this script, into
#           .devpack/ through ../shared/device/pack.sh)
#   there:  source .devpack/env.sh; bash .devpack/gpu_tests.sh run
#           (prints the device's report, runs every program, one summary
#           line each, then test_simdgroup_matrix again on the library's
#           fallback (MLX_LITE_MATRIX_UNITS=0), the matrix-unit programs
#           again on KHR cooperative matrices only (MLX_LITE_MATRIX_UNITS=khr:
#           float16 through the SPIR-V translation too, where the device
#           offers both extensions) and the matmul tests on NV ones only
#           (nv), and exits non-zero if any test failed or a program ran
#           past 5 minutes, or GPU_TESTS_TIMEOUT seconds). On an H200 the whole run takes longer than
#           one 10-minute device call (the host reads large outputs in
#           device memory slowly): `run default` runs the programs as the
#           device chooses, `run variants` the reruns; programs named
#           after the part restrict it to them (`run default test_gpu_linalg`),
#           to spread a run over several calls. Each line says how long
#           its program took.
set -euo pipefail

programs=(test_matmul_matrix_units test_simdgroup_matrix test_gpu_linalg test_simdgroups
          test_custom_kernel test_kernel_builder test_kernel_examples test_grid_sample_kernels)

case "${1:-}" in
  pack)
    cd "$(dirname "$0")/.."
    scripts/build.sh "${programs[@]}"
    rm -rf .devpack
    mkdir -p .git/info
    ../shared/device/pack.sh "${programs[@]/#/build/tests/}"
    find .devpack/bin -type f -exec strip {} +
    cp scripts/gpu_tests.sh .devpack/
    if [[ $(du -sm .devpack | cut -f1) -gt 60 ]]; then  # the carry is limited
      tar -C .devpack -cJf .devpack/bin.tar.xz bin && rm -rf .devpack/bin
    fi
    du -sh .devpack
    ;;
  run)
    bin="$(cd "$(dirname "$0")" && pwd)/bin"
    limit=${GPU_TESTS_TIMEOUT:-300}  # seconds a program may run
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
    failed=0
    # PROGRAM [ENV=VALUE...]: runs it, prints one summary line (its log where it failed).
    run_program() {
      local p=$1 log status summary start
      shift
      if [[ ${#only[@]} -gt 0 && ! " ${only[*]} " =~ " $p " ]]; then return; fi
      log=$(mktemp)
      start=$SECONDS
      if env "$@" timeout "$limit" "$bin/$p" --gtest_brief=1 > "$log" 2>&1; then
        status=ok
      else
        status=FAILED
        failed=1
      fi
      grep '^device:' "$log" || true  # test_matmul_matrix_units prints the device's report
      # A program that crashed or timed out prints no summary: say so, and go on.
      summary=$(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$log" | tr '\n' ' ' || true)
      [[ -n $summary ]] || summary="no summary (crashed or killed after $limit s)"
      echo "$status $p $*: $summary ($((SECONDS - start)) s)"
      [[ $status == ok ]] || cat "$log"
      rm -f "$log"
    }
    part=${2:-all}
    only=("${@:3}")
    if [[ $part == all || $part == default ]]; then
      for p in "${programs[@]}"; do run_program "$p"; done
    fi
    if [[ $part == all || $part == variants ]]; then
      run_program test_simdgroup_matrix MLX_LITE_MATRIX_UNITS=0
      for p in test_matmul_matrix_units test_simdgroup_matrix test_kernel_examples test_gpu_linalg; do
        run_program "$p" MLX_LITE_MATRIX_UNITS=khr
      done
      run_program test_matmul_matrix_units MLX_LITE_MATRIX_UNITS=nv
    fi
    exit $failed
    ;;
  *)
    echo "usage: scripts/gpu_tests.sh pack | run [all|default|variants] [PROGRAM...]" >&2
    exit 2
    ;;
esac
