#!/usr/bin/env bash
# Runs of 4 on the strided path: before (dc11270's bench_gpu) and after,
# alternating, two rounds, medians of 3; then PyTorch beside the after build.
set -u
d=.devpack
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
filter='Broadcast|GpuAdd/33554432/|GpuCopy/33554432/|GpuFill/33554432/|GpuScalarMultiply/33554432/|GpuEvalRoundTrip'
for round in 1 2; do
  for b in before after; do
    echo "== $b round $round"
    $d/bin/$b/bench_gpu --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
      --benchmark_filter="$filter" 2>&1 | grep median | sed 's/  */ /g'
  done
done
cd $d && timeout 100 python3 compare_torch_ops.py bin/after/bench_gpu --filter 'Broadcast' 2>&1 | tail -6
