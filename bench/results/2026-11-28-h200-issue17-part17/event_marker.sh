#!/usr/bin/env bash
# Call 3: a VkEvent set at each batch's end, polled with vkGetEventStatus
# beside the timeline semaphore (trace build; MARKER line: "marker" = event).
set -u
bin=.devpack/bin
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
reps=(--benchmark_repetitions=3 --benchmark_report_aggregates_only=true)
irq=$(grep -i nvidia /proc/interrupts | awk '{for(i=2;i<=NF;i++) if ($i ~ /^[0-9]+$/) s[i-2]+=$i} END{m=0; for (c in s) if (s[c]>m) {m=s[c]; b=c}; print b}')
n=$(nproc); others=$(seq 0 $((n-1)) | grep -vx "$irq" | paste -sd,)
echo "nvidia interrupt cpu $irq"
for round in 1 2; do
  for v in default event marker; do
    e=X=1; [[ $v == event ]] && e=MLX_LITE_TRACE_EVENT=1; [[ $v == marker ]] && e=MLX_LITE_TRACE_MARKER=1
    for r in BM_GpuEvalRoundTrip/ BM_GpuFill/33554432/ BM_GpuSumRows/1024/; do
      echo "-- $v $r"
      env $e taskset -c $others $bin/bench_gpu "${reps[@]}" --benchmark_filter="^$r" 2>&1 | grep -E "median|MARKER w|MARKS" | sed 's/  */ /g'
    done
  done
done
