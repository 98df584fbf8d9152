#!/usr/bin/env bash
# Tuning build with an eval trace (TRACE line at exit: prep, submit call,
# submit end -> done seen, done -> eval end), per row, per variant.
set -u
bin=.devpack/bin
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
reps=(--benchmark_repetitions=3 --benchmark_report_aggregates_only=true)
short_g='BM_GpuEvalRoundTrip/ BM_GpuAdd/33554432/ BM_GpuSumRows/1024/ BM_GpuFill/33554432/ BM_GpuFullSum/'
short_l='BM_BatchedMatmul/64/256/ BM_Softmax/262144/128/0/'
long_l='BM_Matmul/4096/0/0/ BM_Matmul/8192/1/0/'
one() {  # VARIANT PROGRAM ROW
  local v=$1 p=$2 r=$3
  local envs=()
  case $v in
    noyield) envs=(MLX_LITE_TRACE_NOYIELD=1) ;;
    spin0) envs=(MLX_LITE_GPU_SPIN=0) ;;
    spin20ms) envs=(MLX_LITE_GPU_SPIN=0.02) ;;
  esac
  echo "-- $v $r"
  env "${envs[@]}" $bin/$p "${reps[@]}" --benchmark_filter="^$r" 2>&1 | grep -E "median|TRACE" | sed 's/  */ /g'
}
for round in 1 2; do
  for v in default noyield spin0; do
    for r in $short_g; do one $v bench_gpu $r; done
    for r in $short_l; do one $v bench_linalg $r; done
  done
  for v in default spin20ms; do
    for r in $long_l; do one $v bench_linalg $r; done
  done
done
