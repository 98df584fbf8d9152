// fast::vulkan_kernel's own costs:
//   build/bench/bench_custom_kernel [--benchmark_filter=...]
// - CallHost: host time of a cached kernel call, building the node and
//   recording its dispatch (1000 dependent calls on 16 elements, evaluated at
//   once; the per-call time includes the GPU's short dispatches, and the
//   counter build_us the graph building alone).
// - FirstCompile: generating and compiling the seed's exp kernel with no
//   cache (each iteration a new source, so glslang runs every time), and
//   running it once (the pipeline is created then).
// - WarmCache: the exp kernel's first call in this process; its counters say
//   what the cache did (run the program twice with one MLX_LITE_KERNEL_CACHE
//   directory: the second run compiles nothing).
// - SimdgroupMatrixRate/<steps>: the multiply-add rate of simdgroup matrices
//   with nothing else in the way: each simdgroup loads two float16 tiles once
//   and runs <steps> rounds of 4 independent multiply-adds into 4
//   accumulators, then stores them (counter TFLOPS). The device's matrix
//   units, or the library's fallback with MLX_LITE_MATRIX_UNITS=0 (and on
//   devices without them): what a kernel's tiles can reach, where the guide's
//   matmul example (bench_kernel_examples) is bound by its staging.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include "gpu_bench.h"
#include "mlx_lite/mlx_lite.h"

using namespace mlx_lite;

namespace {

const Device kGpu(Device::gpu);

const char* kExpSource = R"(
  uint elem = thread_position_in_grid.x;
  T tmp = T(inp[elem]);
  out[elem] = exp(tmp);
)";

void BM_CustomKernelCallHost(benchmark::State& state) {
  constexpr int kCalls = 1000;
  auto kernel = fast::vulkan_kernel("myexp", {"inp"}, {"out"}, kExpSource);
  array a = zeros({16}, float32, kGpu);
  eval(a);
  auto call = [&](const array& x) {
    return kernel({x}, {x.shape()}, {x.dtype()}, {16, 1, 1}, {32, 1, 1}, {{"T", float32}})[0];
  };
  eval(call(a));  // compiled once, outside the timing
  double build_seconds = 0, total_seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    array x = a;
    for (int i = 0; i < kCalls; ++i) x = call(x);
    const auto built = std::chrono::steady_clock::now();
    eval(x);
    const auto done = std::chrono::steady_clock::now();
    build_seconds += std::chrono::duration<double>(built - start).count();
    total_seconds += std::chrono::duration<double>(done - start).count();
  }
  const double calls = static_cast<double>(state.iterations()) * kCalls;
  state.counters["us_per_call"] = total_seconds / calls * 1e6;
  state.counters["build_us"] = build_seconds / calls * 1e6;
}

void BM_CustomKernelFirstCompile(benchmark::State& state) {
  const char* env = std::getenv("MLX_LITE_KERNEL_CACHE");
  const std::string saved = env ? env : "";
  setenv("MLX_LITE_KERNEL_CACHE", "off", 1);
  array a = zeros({16}, float32, kGpu);
  eval(a);
  static int n = 0;  // across repetitions too: every source is new
  for (auto _ : state) {
    // A new comment makes new source: nothing is cached.
    auto kernel = fast::vulkan_kernel("myexp", {"inp"}, {"out"},
                                      std::string(kExpSource) + "// " + std::to_string(n++));
    eval(kernel({a}, {a.shape()}, {a.dtype()}, {16, 1, 1}, {32, 1, 1}, {{"T", float32}}));
  }
  if (env) {
    setenv("MLX_LITE_KERNEL_CACHE", saved.c_str(), 1);
  } else {
    unsetenv("MLX_LITE_KERNEL_CACHE");
  }
}

void BM_CustomKernelWarmCache(benchmark::State& state) {
  array a = zeros({16}, float32, kGpu);
  eval(a);
  const auto before = fast::kernel_cache_stats();
  for (auto _ : state) {
    auto kernel = fast::vulkan_kernel("myexp_cached", {"inp"}, {"out"}, kExpSource);
    eval(kernel({a}, {a.shape()}, {a.dtype()}, {16, 1, 1}, {32, 1, 1}, {{"T", float32}}));
  }
  const auto after = fast::kernel_cache_stats();
  state.counters["compiled"] = static_cast<double>(after.compiled - before.compiled);
  state.counters["disk_hits"] = static_cast<double>(after.disk_hits - before.disk_hits);
  state.counters["memory_hits"] = static_cast<double>(after.memory_hits - before.memory_hits);
}

}  // namespace

const char* kMatrixRateSource = R"(
  simdgroup_half16x16 x, y;
  simdgroup_load(x, a, 0, 16, false);
  simdgroup_load(y, a, 256, 16, false);
  simdgroup_float16x16 acc[4];
  for (uint i = 0u; i < 4u; ++i) simdgroup_fill(acc[i], 0.0);
  for (int s = 0; s < STEPS; ++s) {
    simdgroup_multiply_accumulate(acc[0], x, y, acc[0]);
    simdgroup_multiply_accumulate(acc[1], y, x, acc[1]);
    simdgroup_multiply_accumulate(acc[2], x, x, acc[2]);
    simdgroup_multiply_accumulate(acc[3], y, y, acc[3]);
  }
  uint sg = threadgroup_position_in_grid.x * simdgroups_per_threadgroup +
            simdgroup_index_in_threadgroup;
  for (uint i = 0u; i < 4u; ++i) simdgroup_store(acc[i], out, (sg * 4u + i) * 256u, 16u, false);
)";

void BM_SimdgroupMatrixRate(benchmark::State& state) {
  const int steps = static_cast<int>(state.range(0));
  constexpr int kGroups = 132 * 16, kThreads = 256, kSimdgroups = kGroups * kThreads / 32;
  auto kernel = fast::vulkan_kernel("simdgroup_matrix_rate", {"a"}, {"out"}, kMatrixRateSource);
  // Small values, so that the sums stay finite over many steps.
  array a = astype(random::uniform(-0.01f, 0.01f, {512}, float32, std::nullopt, kGpu), float16);
  eval(a);
  bench::eval_loop(state, [&] {
    return kernel({a}, {{kSimdgroups * 4 * 256}}, {float32}, {kGroups * kThreads, 1, 1},
                  {kThreads, 1, 1}, {{"STEPS", steps}})[0];
  });
  state.counters["TFLOPS"] =
      benchmark::Counter(2.0 * 16 * 16 * 16 * 4 * steps * kSimdgroups * state.iterations() / 1e12,
                         benchmark::Counter::kIsRate);
}

BENCHMARK(BM_CustomKernelCallHost)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_CustomKernelFirstCompile)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_CustomKernelWarmCache)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SimdgroupMatrixRate)->Arg(4)->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();
