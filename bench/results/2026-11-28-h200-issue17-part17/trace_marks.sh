#!/usr/bin/env bash
# Tuning build: host marks per eval (MARKS), a host-memory marker polled beside
# the timeline semaphore (MARKER), fills by vkCmdFillBuffer, the interrupt CPU.
set -u
bin=.devpack/bin
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
reps=(--benchmark_repetitions=3 --benchmark_report_aggregates_only=true)
irqcpu() { grep -i nvidia /proc/interrupts | awk '{for(i=2;i<=NF;i++) if ($i ~ /^[0-9]+$/) s[i-2]+=$i} END{m=0; for (c in s) if (s[c]>m) {m=s[c]; b=c}; print b}'; }
one() {  # LABEL ROW ENV...
  local v=$1 r=$2; shift 2
  echo "-- $v $r"
  env "$@" $bin/bench_gpu "${reps[@]}" --benchmark_filter="^$r" 2>&1 | grep -E "median|MARKS|MARKER|EVALSUM" | sed 's/  */ /g'
}
rows='BM_GpuEvalRoundTrip/ BM_GpuFill/33554432/ BM_GpuAdd/33554432/ BM_GpuSumRows/1024/'
for round in 1 2; do
  for r in $rows; do
    one default $r X=1
    one marker $r MLX_LITE_TRACE_MARKER=1
    one notime $r MLX_LITE_TRACE_NOTIME=1
  done
  for r in BM_GpuFill/33554432/ BM_GpuFill/268435456/; do
    one compute $r X=1
    one fillbuffer $r MLX_LITE_TRACE_FILLBUFFER=1
  done
done
c=$(irqcpu); echo "nvidia interrupts mostly on cpu $c"
ps -eLo pid,psr,rtprio,comm | grep -i -E "irq/.*nv" | head -5
other=$(( (c + 5) % 16 ))
for round in 1 2; do
  for cpu in $c $other; do
    for r in BM_GpuEvalRoundTrip/ BM_GpuAdd/33554432/; do
      echo "-- cpu $cpu $r"
      taskset -c $cpu $bin/bench_gpu "${reps[@]}" --benchmark_filter="^$r" 2>&1 | grep -E "median|MARKS" | sed 's/  */ /g'
    done
  done
done
if [[ -x $bin/perf ]]; then
  $bin/perf record -F 20000 -o /tmp/perf.data $bin/bench_gpu --benchmark_filter='^BM_GpuEvalRoundTrip/' --benchmark_min_time=3s 2>&1 | tail -3
  $bin/perf report -i /tmp/perf.data --stdio --no-children --sort dso,sym 2>/dev/null | grep -v '^$' | head -70
  $bin/perf report -i /tmp/perf.data --stdio --no-children --sort dso 2>/dev/null | grep -v '^#' | grep -v '^$' | head -15
fi
echo "== VJP and batched matmul: where the host time goes"
for round in 1 2; do
  for v in default notime; do
    e=X=1; [[ $v == notime ]] && e=MLX_LITE_TRACE_NOTIME=1
    echo "-- $v BM_TunedVjp seed"
    env $e $bin/bench_grid_sample_kernels "${reps[@]}" --benchmark_filter='^BM_TunedVjp/8/' 2>&1 | grep -E "median|MARKS|EVALSUM" | sed 's/  */ /g'
    echo "-- $v BM_BatchedMatmul/64/256/"
    env $e $bin/bench_linalg "${reps[@]}" --benchmark_filter='^BM_BatchedMatmul/64/256/' 2>&1 | grep -E "median|MARKS|EVALSUM" | sed 's/  */ /g'
  done
done
