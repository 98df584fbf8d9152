// main() of the GPU benchmark programs: refuses to run without a Vulkan
// device, and records the GPU's name and driver in the report's context.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

#include "mlx_lite/gpu.h"

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
