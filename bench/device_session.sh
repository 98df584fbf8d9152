#!/usr/bin/env bash
# The GPU figures of docs/performance.md in one device session (one `run`
# call of about 6 minutes on an H100):
#   here:   bench/device_session.sh pack [BEFORE_DIR]
#           (builds the benchmark programs, packs them with
#           ../shared/device/pack.sh into .devpack/ with this script and the
#           Python ones; BEFORE_DIR holds another build's programs, named
#           PROGRAM or PROGRAM_before, which go along for `run compare`)
#   there:  source .devpack/env.sh; bash .devpack/device_session.sh run [PART]
#           (writes every report into $OUT, or ./device-out without it;
#           PART is kernels, grid_sample, ops or all (the default): each
#           part fits one 10-minute call; ops times bench_gpu and
#           bench_linalg beside PyTorch (compare_torch_ops.py); examples times the kernel guide's
#           patterns (bench_kernel_examples) beside PyTorch's equivalents; schedule compares the encoder's
#           batch schedules; compare-gpu, compare-kernels and
#           compare-grid_sample time the packed build against BEFORE_DIR's,
#           alternately (bench/compare_builds.py), each in one call)
# Then, here, with OUT holding `run ops` and `run grid_sample` of one session:
#   python3 bench/render_performance.py OUT   (docs/performance.md's summary
#           table of every op against PyTorch and grid_sample against Triton,
#           wall and GPU time, and docs/performance_ratios.png)
#   python3 bench/plot_grid_sample.py OUT/grid_sample.json docs/grid_sample.png
# `run` pins itself, and so every program it starts, PyTorch's included,
# away from the CPU that takes the NVIDIA driver's interrupts and the one its
# handler runs on (docs/benchmarking.md, item 9, says why).
set -euo pipefail

# Pins this shell (and its children) away from the CPU that takes most
# NVIDIA interrupts and from the one its handler thread (irq/N-nvidia) is
# on, and says which; does nothing where there are none.
pin_away_from_gpu_interrupts() {
  local line irq cpu handler others
  # The busiest NVIDIA interrupt line: its number and its busiest CPU.
  line=$(awk '/nvidia/ {
      total = 0; top = -1
      for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) {
        total += $i
        if (top < 0 || $i > $(top + 2)) top = i - 2
      }
      if (total > most) { most = total; irq = $1; cpu = top }
    }
    END { if (irq != "") { sub(":", "", irq); print irq, cpu } }' /proc/interrupts)
  [[ -n $line ]] || return 0
  read -r irq cpu <<< "$line"
  handler=$(ps -eLo psr=,comm= | awk -v name="irq/$irq-nvidia" '$2 == name {print $1; exit}')
  others=$(seq 0 $(($(nproc --all) - 1)) | grep -vx -e "$cpu" -e "${handler:-$cpu}" | paste -sd, -)
  taskset -pc "$others" $$ > /dev/null || { echo "not pinned: taskset failed"; return 0; }
  echo "pinned to CPUs $others: NVIDIA interrupt $irq goes to CPU $cpu, its handler runs on CPU ${handler:-?}"
}

programs=(bench_gpu bench_linalg bench_custom_kernel bench_grid_sample bench_grid_sample_kernels
          bench_raw_vulkan_grid_sample bench_kernel_examples)

case "${1:-}" in
  pack)
    cd "$(dirname "$0")/.."
    scripts/build.sh "${programs[@]}"
    rm -rf .devpack      # only this session's programs travel
    mkdir -p .git/info  # pack.sh records .devpack/ in .git/info/exclude
    ../shared/device/pack.sh "${programs[@]/#/build/bench/}"
    if [[ -n "${2:-}" ]]; then
      mkdir -p .devpack/bin/before
      for p in "${programs[@]}"; do
        for f in "$2/$p" "$2/${p}_before"; do
          [[ -f $f ]] && cp "$f" ".devpack/bin/before/$p"
        done
      done
    fi
    find .devpack/bin -type f -exec strip {} +  # symbols are not needed there
    cp bench/device_session.sh bench/compare_torch.py bench/compare_torch_ops.py \
      bench/triton_grid_sample.py bench/torch_timing.py bench/compare_builds.py .devpack/
    if [[ $(du -sm .devpack | cut -f1) -gt 60 ]]; then  # the carry is limited
      tar -C .devpack -cJf .devpack/bin.tar.xz bin && rm -rf .devpack/bin
      du -sh .devpack
    fi
    ;;
  run)
    here="$(cd "$(dirname "$0")" && pwd)"
    out="${OUT:-device-out}"
    mkdir -p "$out"
    bin="$here/bin"
    reps=(--benchmark_repetitions=3 --benchmark_report_aggregates_only=true)
    part="${2:-all}"
    nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$out/gpu.txt" || true
    pin_away_from_gpu_interrupts | tee -a "$out/gpu.txt"
    if [[ $part == all || $part == kernels ]]; then
      # Issue 3: bandwidth and per-op cost.
      "$bin/bench_gpu" "${reps[@]}" --benchmark_filter='SmallOp|GpuAdd|GpuCopy|PlainCopy|Broadcast|Vec4' \
        --benchmark_out="$out/bench_gpu.json" | tee "$out/bench_gpu.txt"
      # Issue 5: a cached call's host cost, a cold compile, then the disk cache
      # seen by a second process.
      # The cache lives outside $OUT: only a few files come back from there.
      export MLX_LITE_KERNEL_CACHE="$(mktemp -d)/kernel-cache"
      rm -rf "$MLX_LITE_KERNEL_CACHE"
      "$bin/bench_custom_kernel" "${reps[@]}" --benchmark_out="$out/bench_custom_kernel.json" |
        tee "$out/bench_custom_kernel.txt"
      "$bin/bench_custom_kernel" --benchmark_filter=WarmCache | tee "$out/second_process.txt"
    fi
    if [[ $part == all || $part == grid_sample ]]; then
      # Issues 3, 4 and 6: grid_sample, every mlx_lite variant and the raw
      # Vulkan baseline beside PyTorch, in this one session.
      python3 "$here/compare_torch.py" --json "$out/grid_sample.json" --keep-reports "$out" \
        --mlx-bench "$bin/bench_grid_sample" "$bin/bench_grid_sample_kernels" \
        "$bin/bench_raw_vulkan_grid_sample" | tee "$out/compare_torch.txt"
    fi
    if [[ $part == all || $part == ops ]]; then
      # Issue 17: matmul, softmax, copy, add, sums, argmax and the eval round
      # trip beside PyTorch (OPS_FILTER narrows them).
      python3 "$here/compare_torch_ops.py" "$bin/bench_gpu" "$bin/bench_linalg" \
        --filter "${OPS_FILTER:-.}" --json "$out/ops.json" | tee "$out/ops.txt"
    fi
    if [[ $part == examples ]]; then
      # Issue 16: examples/kernels/ against PyTorch at LLM-like shapes (the
      # autotuned examples tune in their first, untimed call).
      export MLX_LITE_KERNEL_CACHE="$(mktemp -d)/kernel-cache"
      python3 "$here/compare_torch.py" --skip-grid-sample --json "$out/kernel_examples.json" \
        --keep-reports "$out" --kernel-examples "$bin/bench_kernel_examples" |
        tee "$out/kernel_examples.txt"
    fi
    if [[ $part == compare-* ]]; then
      # This build against BEFORE_DIR's, each benchmark's median over 2
      # alternating rounds of 3 repetitions.
      case "$part" in
        compare-gpu) runs=(bench_gpu:'Gpu(Add|Copy)/|SmallOp') ;;
        compare-kernels) runs=(bench_grid_sample_kernels) ;;
        compare-grid_sample) runs=(bench_grid_sample) ;;
      esac
      python3 "$here/compare_builds.py" --before "$bin/before" --after "$bin" \
        --json "$out/$part.json" "${runs[@]/#/--run=}" | tee "$out/$part.txt"
    fi
    if [[ $part == schedule ]]; then
      # The encoder's growing batches against batches of 256 from the start
      # (MLX_LITE_FIRST_BATCH_DISPATCHES), alternating, in one session.
      {
        for first in 8 256 8 256; do
          echo "== MLX_LITE_FIRST_BATCH_DISPATCHES=$first"
          MLX_LITE_FIRST_BATCH_DISPATCHES=$first "$bin/bench_gpu" "${reps[@]/3/5}" \
            --benchmark_filter=SmallOp | grep -E "median|_cv"
        done
        for first in 8 256; do
          echo "== MLX_LITE_FIRST_BATCH_DISPATCHES=$first"
          MLX_LITE_FIRST_BATCH_DISPATCHES=$first "$bin/bench_grid_sample" "${reps[@]/3/5}" \
            --benchmark_filter='Composed(Forward|Vjp)/8' | grep -E "median|_cv"
        done
      } 2>&1 | tee "$out/schedule_ab.txt"
    fi
    ;;
  *)
    echo "usage: bench/device_session.sh pack | run [kernels|grid_sample|ops|all|examples|schedule]" >&2
    exit 2
    ;;
esac
