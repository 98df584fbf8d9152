#!/usr/bin/env bash
# Is the slow mode (15-20 us more per eval) the GPU's interrupt CPU?
set -u
bin=.devpack/bin
irqcpu() { grep -i nvidia /proc/interrupts | awk '{for(i=2;i<=NF;i++) if ($i ~ /^[0-9]+$/) s[i-2]+=$i} END{m=0; for (c in s) if (s[c]>m) {m=s[c]; b=c}; print b}'; }
c=$(irqcpu); echo "nvidia interrupts mostly on cpu $c"
ps -eLo pid,psr,rtprio,comm | grep -i -E "nv|irq/" | head -12
reps=(--benchmark_repetitions=3 --benchmark_report_aggregates_only=true)
for round in 1 2; do
  for cpu in $c 3 $c 7; do
    for r in BM_GpuFill/33554432/ BM_GpuAdd/33554432/ BM_GpuEvalRoundTrip/; do
      echo "-- cpu $cpu $r"
      taskset -c $cpu $bin/bench_gpu "${reps[@]}" --benchmark_filter="^$r" 2>&1 | grep -E "median|TRACE evals|TRACE2" | sed 's/  */ /g'
    done
  done
done
