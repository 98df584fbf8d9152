#!/usr/bin/env bash
# First-batch size A/B for multi-dispatch evals, alternating rounds (run at
# fd4bd12, whose default first batch was 8).
b=.devpack/bin
reps=(--benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_min_time=0.2s)
for round in 1 2; do
  for first in 8 1 2 4; do
    echo "== round $round FIRST=$first"
    MLX_LITE_FIRST_BATCH_DISPATCHES=$first $b/bench_grid_sample_kernels "${reps[@]}" \
      --benchmark_filter='BM_TunedVjp/|BM_TunedVjpStages/8/.*/(1|2|4)/|BM_TunedVjpF16/8' 2>&1 | grep median
    MLX_LITE_FIRST_BATCH_DISPATCHES=$first $b/bench_gpu "${reps[@]}" \
      --benchmark_filter='SmallOp|EvalRoundTrip|FullSum|FullArgmax|SumRows/.*1024' 2>&1 | grep median
  done
done
# Called as: source .devpack/env.sh; bash .devpack/sched.sh 2>&1 |
#   sed -E 's/min_warmup_time:0.050\///; s/ +/ /g' | cut -c1-150
