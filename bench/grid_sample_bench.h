// What the grid_sample benchmark programs (bench_grid_sample,
// bench_grid_sample_kernels) share: the sizes of a benchmark's arguments,
// its random inputs, the bytes one pass must move at least, and the two
// shapes they time.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <optional>

#include "gpu_bench.h"
#include "mlx_lite/mlx_lite.h"

namespace grid_sample_bench {

using namespace mlx_lite;

inline const Device kGpu(Device::gpu);

struct Sizes {
  int n, h, w, c, gh, gw;
};
inline constexpr Sizes kSeedSizes{8, 1024, 1024, 64, 256, 256};

// Arguments 0 to 5: N, H, W, C, gH, gW.
inline Sizes sizes_of(const benchmark::State& state) {
  auto at = [&](int i) { return static_cast<int>(state.range(i)); };
  return {at(0), at(1), at(2), at(3), at(4), at(5)};
}

struct Inputs {
  array x, grid, cotangent;
};

// x ~ U(-1, 1), grid ~ U(-1.1, 1.1) (so some points fall outside the image)
// and a dense cotangent ~ U(-1, 1), on the GPU; none (the benchmark
// skipped) where x exceeds one binding.
inline std::optional<Inputs> make_inputs(benchmark::State& state, const Sizes& s) {
  if (!fits_one_binding(state, int64_t{4} * s.n * s.h * s.w * s.c)) return std::nullopt;
  auto key = [](int i) { return random::key(static_cast<uint64_t>(i)); };
  array x = random::uniform(-1.0f, 1.0f, {s.n, s.h, s.w, s.c}, float32, key(0), kGpu);
  array grid = random::uniform(-1.1f, 1.1f, {s.n, s.gh, s.gw, 2}, float32, key(1), kGpu);
  array cot = random::uniform(-1.0f, 1.0f, {s.n, s.gh, s.gw, s.c}, float32, key(2), kGpu);
  eval({x, grid, cot});
  return Inputs{x, grid, cot};
}

// The bytes one pass must move at least. Forward: the grid read, the output
// written and the four corner pixels read per point. VJP: x_grad written,
// the cotangent read, and for the grid gradient the grid read, the four
// corners read and grid_grad written.
inline int64_t forward_bytes(const Sizes& s) {
  const int64_t points = int64_t(s.n) * s.gh * s.gw;
  return points * (2 + s.c + 4 * s.c) * 4;
}
inline int64_t vjp_bytes(const Sizes& s) {
  const int64_t points = int64_t(s.n) * s.gh * s.gw;
  return (int64_t(s.n) * s.h * s.w * s.c + points * (s.c + 2 + 4 * s.c + 2)) * 4;
}

// Times in ms of real time (eval waits), after a warm-up per repetition:
// pipeline compiles and the allocator's first blocks (1.8 s for the composed
// VJP's first call on an H100) stay out of the times and out of Google
// Benchmark's estimate of the iterations to run.
inline void timed_in_ms(benchmark::internal::Benchmark* b) {
  b->Unit(benchmark::kMillisecond)->UseRealTime()->MinWarmUpTime(0.05);
}

// The seed's shapes and a small one.
inline void seed_and_small(benchmark::internal::Benchmark* b) {
  b->Args({1, 64, 64, 32, 32, 32})->Args({8, 1024, 1024, 64, 256, 256});
  timed_in_ms(b);
}

}  // namespace grid_sample_bench
