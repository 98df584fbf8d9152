#!/usr/bin/env bash
# Where the ~13 us between vkQueueSubmit's return and the host seeing the
# semaphore go: the batch's leading barrier, its barrier to the host, its
# timestamps (gpu_time off), a fence polled beside the semaphore.
set -u
bin=.devpack/bin
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
reps=(--benchmark_repetitions=3 --benchmark_report_aggregates_only=true)
rows_g='BM_GpuEvalRoundTrip/ BM_GpuFill/33554432/ BM_GpuAdd/33554432/ BM_GpuSumRows/1024/'
rows_l='BM_BatchedMatmul/64/256/ BM_Softmax/262144/128/0/'
one() {  # VARIANT PROGRAM ROW
  local v=$1 p=$2 r=$3 envs=()
  case $v in
    notime) envs=(MLX_LITE_TRACE_NOTIME=1) ;;
    nolead) envs=(MLX_LITE_TRACE_NO_LEAD_BARRIER=1) ;;
    nohost) envs=(MLX_LITE_TRACE_NO_HOST_BARRIER=1) ;;
    fence) envs=(MLX_LITE_TRACE_FENCE=1) ;;
    nolead_nohost_notime) envs=(MLX_LITE_TRACE_NO_LEAD_BARRIER=1 MLX_LITE_TRACE_NO_HOST_BARRIER=1 MLX_LITE_TRACE_NOTIME=1) ;;
  esac
  echo "-- $v $r"
  env "${envs[@]}" $bin/$p "${reps[@]}" --benchmark_filter="^$r" 2>&1 | grep -E "median|TRACE" | sed 's/  */ /g'
}
for round in 1 2; do
  for v in default notime nolead nohost fence nolead_nohost_notime; do
    for r in $rows_g; do one $v bench_gpu $r; done
    for r in $rows_l; do one $v bench_linalg $r; done
  done
done
