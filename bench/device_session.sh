#!/usr/bin/env bash
# The GPU figures of docs/performance.md in one device session (one `run`
# call of about 6 minutes on an H100):
#   here:   bench/device_session.sh pack
#           (builds the benchmark programs, packs them with
#           ../shared/device/pack.sh into .devpack/ with this script and the
#           Python ones)
#   there:  source .devpack/env.sh; bash .devpack/device_session.sh run
#           (writes every report into $OUT, or ./device-out without it)
# Then: python3 bench/plot_grid_sample.py OUT/grid_sample.json docs/grid_sample.png
set -euo pipefail

programs=(bench_gpu bench_custom_kernel bench_grid_sample bench_grid_sample_kernels
          bench_raw_vulkan_grid_sample)

case "${1:-}" in
  pack)
    cd "$(dirname "$0")/.."
    scripts/build.sh "${programs[@]}"
    rm -rf .devpack      # only this session's programs travel
    mkdir -p .git/info  # pack.sh records .devpack/ in .git/info/exclude
    ../shared/device/pack.sh "${programs[@]/#/build/bench/}"
    strip .devpack/bin/*  # symbols are not needed there, and the carry is limited
    cp bench/device_session.sh bench/compare_torch.py .devpack/
    ;;
  run)
    here="$(cd "$(dirname "$0")" && pwd)"
    out="${OUT:-device-out}"
    mkdir -p "$out"
    bin="$here/bin"
    reps=(--benchmark_repetitions=3 --benchmark_report_aggregates_only=true)
    nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$out/gpu.txt" || true
    # Issue 3: bandwidth and per-op cost.
    "$bin/bench_gpu" "${reps[@]}" --benchmark_filter='SmallOp|GpuAdd/268|GpuCopy/268|Broadcast' \
      --benchmark_out="$out/bench_gpu.json" | tee "$out/bench_gpu.txt"
    # Issue 5: a cached call's host cost, a cold compile, then the disk cache
    # seen by a second process.
    export MLX_LITE_KERNEL_CACHE="$out/kernel-cache"
    rm -rf "$MLX_LITE_KERNEL_CACHE"
    "$bin/bench_custom_kernel" "${reps[@]}" --benchmark_out="$out/bench_custom_kernel.json" |
      tee "$out/bench_custom_kernel.txt"
    "$bin/bench_custom_kernel" --benchmark_filter=WarmCache | tee "$out/second_process.txt"
    # Issues 3, 4 and 6: grid_sample, every mlx_lite variant and the raw
    # Vulkan baseline beside PyTorch, in this one session.
    python3 "$here/compare_torch.py" --json "$out/grid_sample.json" \
      --mlx-bench "$bin/bench_grid_sample" "$bin/bench_grid_sample_kernels" \
      "$bin/bench_raw_vulkan_grid_sample" | tee "$out/compare_torch.txt"
    ;;
  *)
    echo "usage: bench/device_session.sh pack | run" >&2
    exit 2
    ;;
esac
