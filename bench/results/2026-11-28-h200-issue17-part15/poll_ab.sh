#!/usr/bin/env bash
# Before (vkWaitSemaphores past the spin) against after (polls with sleeps past
# the spin), alternating, medians of 3; cpu column = the waiting thread's CPU time.
reps=(--benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_min_time=0.2s)
show() { grep median | sed -E 's/min_warmup_time:0.050\///; s/ +/ /g' | cut -c1-110; }
lf='BM_Matmul/4096/0/0|BM_Matmul/8192/1/0|BM_MatmulLongK/256|BM_BatchedMatmul/64'
for r in 1 2; do
  for b in before bin; do
    echo "== round $r $b"
    .devpack/$b/bench_linalg "${reps[@]}" --benchmark_filter="$lf" 2>&1 | show
    .devpack/$b/bench_gpu "${reps[@]}" --benchmark_filter='EvalRoundTrip|SumRows/1024' 2>&1 | show
  done
done
for b in before bin; do
  echo "== $b MLX_LITE_GPU_SPIN=0"
  MLX_LITE_GPU_SPIN=0 .devpack/$b/bench_linalg "${reps[@]}" --benchmark_filter='BM_Matmul/4096/0/0|BM_BatchedMatmul/64' 2>&1 | show
  MLX_LITE_GPU_SPIN=0 .devpack/$b/bench_gpu "${reps[@]}" --benchmark_filter='EvalRoundTrip' 2>&1 | show
done
