#!/usr/bin/env bash
# Call 2: (1) the host-memory marker against the timeline semaphore (trace
# build); (2) HEAD (bin/before) against the pre-begun command buffer (bin),
# alternating, pinned away from the NVIDIA interrupt CPU; (3) both pinned to it.
set -u
bin=.devpack/bin
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
reps=(--benchmark_repetitions=3 --benchmark_report_aggregates_only=true)
irq=$(grep -i nvidia /proc/interrupts | awk '{for(i=2;i<=NF;i++) if ($i ~ /^[0-9]+$/) s[i-2]+=$i} END{m=0; for (c in s) if (s[c]>m) {m=s[c]; b=c}; print b}')
n=$(nproc); others=$(seq 0 $((n-1)) | grep -vx "$irq" | paste -sd,)
echo "nvidia interrupt cpu $irq; others $others"
echo "== marker (trace build), pinned to others"
for r in BM_GpuEvalRoundTrip/ BM_GpuFill/33554432/ BM_GpuAdd/33554432/ BM_GpuSumRows/1024/; do
  echo "-- marker $r"
  MLX_LITE_TRACE_MARKER=1 taskset -c $others $bin/trace/bench_gpu "${reps[@]}" --benchmark_filter="^$r" 2>&1 | grep -E "median|MARKER|MARKS" | sed 's/  */ /g'
done
gpu_rows='BM_GpuEvalRoundTrip/ BM_GpuFill/33554432/ BM_GpuFill/268435456/ BM_GpuSumRows/1/ BM_GpuSumRows/1024/ BM_GpuSumRows/65536/ BM_GpuFullSum/ BM_GpuAdd/33554432/ BM_GpuBroadcastMultiply/33554432/'
lin_rows='BM_BatchedMatmul/64/256/ BM_Softmax/262144/128/0/'
echo "== before (HEAD) / after (pre-begun batches), pinned to others, alternating"
for round in 1 2 3; do
  for b in before after; do
    d=$bin; [[ $b == before ]] && d=$bin/before
    for r in $gpu_rows; do echo "-- $b $r"; taskset -c $others $d/bench_gpu "${reps[@]}" --benchmark_filter="^$r" 2>&1 | grep -E "median" | sed 's/  */ /g'; done
    for r in $lin_rows; do echo "-- $b $r"; taskset -c $others $d/bench_linalg "${reps[@]}" --benchmark_filter="^$r" 2>&1 | grep -E "median" | sed 's/  */ /g'; done
    echo "-- $b BM_TunedVjp/8/"; taskset -c $others $d/bench_grid_sample_kernels "${reps[@]}" --benchmark_filter='^BM_TunedVjp/8/' 2>&1 | grep -E "median" | sed 's/  */ /g'
  done
done
echo "== pinned to the interrupt cpu $irq"
for b in before after; do
  d=$bin; [[ $b == before ]] && d=$bin/before
  for r in BM_GpuEvalRoundTrip/ BM_GpuSumRows/1024/; do echo "-- $b cpu $irq $r"; taskset -c $irq $d/bench_gpu "${reps[@]}" --benchmark_filter="^$r" 2>&1 | grep -E "median" | sed 's/  */ /g'; done
done
