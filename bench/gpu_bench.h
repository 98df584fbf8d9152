// What the GPU benchmark programs share: mlx_lite/benchmark.h's eval_loop,
// which each benchmark's loop is (evaluated every iteration, warmed up first,
// the GPU's own time in the counter gpu_time), and a skip for sizes one
// kernel binding cannot address. Their main() is gpu_bench_main.cpp's, which
// refuses to run without a Vulkan device and records the GPU's name and
// driver in the report's context.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include "mlx_lite/benchmark.h"
#include "mlx_lite/gpu.h"

// Whether one array of `bytes` fits this device's maxStorageBufferRange;
// skips the benchmark with a note when not.
inline bool fits_one_binding(benchmark::State& state, int64_t bytes) {
  auto range = std::get<size_t>(mlx_lite::gpu::device_info().at("max_storage_buffer_range"));
  if (static_cast<size_t>(bytes) > range) {
    state.SkipWithError("larger than this device's maxStorageBufferRange");
    return false;
  }
  return true;
}
