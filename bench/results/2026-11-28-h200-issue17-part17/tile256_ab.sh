#!/usr/bin/env bash
# Call 6 (tuning build): float32 matmul in 128 x 256 tiles (8 x 16 a thread,
# step 8; MLX_LITE_TRACE_TILE256=1) against the committed 128 x 128 tiles,
# alternating, two rounds; then the whole-tiles test through the new kernel.
set -u
bin=.devpack/bin
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
reps=(--benchmark_repetitions=3 --benchmark_report_aggregates_only=true)
for round in 1 2; do
  for v in tile128 tile256; do
    e=X=1; [[ $v == tile256 ]] && e=MLX_LITE_TRACE_TILE256=1
    for r in 'BM_Matmul/4096/0/0/' 'BM_Matmul/4096/0/1/' 'BM_Matmul/4096/0/2/' 'BM_Matmul/2048/0/0/' 'BM_MatmulLongK/256/262144/'; do
      echo "-- $v $r"
      env $e $bin/bench_linalg "${reps[@]}" --benchmark_filter="^$r" 2>&1 | grep -E "median" | sed 's/  */ /g'
    done
  done
done
echo "-- test"
MLX_LITE_LOG=info MLX_LITE_TRACE_TILE256=1 timeout 120 $bin/test_gpu_linalg --gtest_filter='GpuMatmul.WholeTiles*' 2>&1 | grep -E "tile256|PASSED|FAILED"
