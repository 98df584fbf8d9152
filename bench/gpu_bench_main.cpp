// main() of the GPU benchmark programs (bench/CMakeLists.txt links it into
// each program that includes gpu_bench.h).
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
