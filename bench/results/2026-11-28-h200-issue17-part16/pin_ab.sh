#!/usr/bin/env bash
# Tail and done latency by the CPU the benchmark runs on; where the GPU's
# interrupts land (deltas of /proc/interrupts over one run).
set -u
bin=.devpack/bin
nproc; grep -c processor /proc/cpuinfo
head -1 /proc/interrupts | cut -c1-200
grep -i -E "nvidia|nv" /proc/interrupts | cut -c1-250 | head -5
cat /proc/sys/kernel/sched_min_granularity_ns 2>/dev/null; cat /sys/devices/system/cpu/isolated 2>/dev/null
reps=(--benchmark_repetitions=3 --benchmark_report_aggregates_only=true)
one() {  # CPU PROGRAM ROW
  local c=$1 p=$2 r=$3 pin=()
  [[ $c != any ]] && pin=(taskset -c "$c")
  echo "-- cpu $c $r"
  "${pin[@]}" $bin/$p "${reps[@]}" --benchmark_filter="^$r" 2>&1 | grep -E "median|TRACE" | sed 's/  */ /g'
}
grep -i nvidia /proc/interrupts | awk '{s=""; for(i=2;i<=NF;i++) if ($i ~ /^[0-9]+$/) s=s" "$i; print s}' > /tmp/irq_before
one any bench_gpu BM_GpuFill/33554432/
grep -i nvidia /proc/interrupts | awk '{s=""; for(i=2;i<=NF;i++) if ($i ~ /^[0-9]+$/) s=s" "$i; print s}' > /tmp/irq_after
echo "irq deltas by cpu:"; paste -d'|' /tmp/irq_before /tmp/irq_after | awk -F'|' '{n=split($1,a," "); split($2,b," "); for(i=1;i<=n;i++) if (b[i]-a[i] > 0) printf "cpu%d:%d ", i-1, b[i]-a[i]; print ""}'
for round in 1 2; do
  for c in any 0 1 2 5 9 15; do
    one $c bench_gpu BM_GpuFill/33554432/
    one $c bench_gpu BM_GpuAdd/33554432/
    one $c bench_linalg BM_BatchedMatmul/64/256/
  done
done
