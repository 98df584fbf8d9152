#!/usr/bin/env bash
# Where do bench_linalg's later rows get 50 us of wall time past GPU time?
# (run at the working tree of kFirstBatchDispatches = 4)
b=.devpack/bin
reps=(--benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_min_time=0.2s)
rows='BM_BatchedMatmul|BM_MatmulLongK/64/65536|BM_Softmax/262144|BM_Softmax/4096/4096/0'
show() { grep median | sed -E 's/min_warmup_time:0.050\///; s/ +/ /g' | cut -c1-110; }
echo "== fresh process, rows only"; $b/bench_linalg "${reps[@]}" --benchmark_filter="$rows" 2>&1 | show
echo "== fresh, FIRST=8"; MLX_LITE_FIRST_BATCH_DISPATCHES=8 $b/bench_linalg "${reps[@]}" --benchmark_filter="$rows" 2>&1 | show
echo "== after the big matmuls"; $b/bench_linalg "${reps[@]}" --benchmark_filter="BM_Matmul/(4096|8192)/|$rows" 2>&1 | show
echo "== after the big matmuls, FIRST=8"; MLX_LITE_FIRST_BATCH_DISPATCHES=8 $b/bench_linalg "${reps[@]}" --benchmark_filter="BM_Matmul/(4096|8192)/|$rows" 2>&1 | show
echo "== after the big matmuls, no spin"; MLX_LITE_GPU_SPIN=0 $b/bench_linalg "${reps[@]}" --benchmark_filter="BM_Matmul/8192/|$rows" 2>&1 | show
echo "== bench_gpu"; $b/bench_gpu "${reps[@]}" --benchmark_filter='EvalRoundTrip|SumRows/1024' 2>&1 | show
