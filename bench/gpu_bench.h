// What the GPU benchmark programs share: a skip for sizes one kernel binding
// cannot address, and main(), which refuses to run without a Vulkan device
// and records the GPU's name and driver in the report's context. Each
// program includes it once.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <string>

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

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (!mlx_lite::gpu::is_available()) {
    std::fprintf(stderr, "no Vulkan device\n");
    return 1;
  }
  auto info = mlx_lite::gpu::device_info();
  benchmark::AddCustomContext("gpu", std::get<std::string>(info.at("device_name")));
  benchmark::AddCustomContext("driver", std::get<std::string>(info.at("driver_info")));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
