// Google Benchmark helpers for mlx_lite (header-only; link the CMake target
// mlx_lite::benchmark, which brings Google Benchmark):
//
//   void BM_Add(benchmark::State& state) {
//     array a = ones({1 << 20}), b = ones({1 << 20});
//     eval(a, b);  // the inputs exist before timing
//     mlx_lite::bench::eval_loop(state, [&] { return add(a, b); });
//     state.SetBytesProcessed(state.iterations() * 3 * a.nbytes());
//   }
//   BENCHMARK(BM_Add)->UseRealTime()->Unit(benchmark::kMillisecond);
//
// eval_loop keeps lazy arrays from making the benchmark lie
// (docs/benchmarking.md):
// - each iteration evaluates what `fun` returns and waits for it, so the work
//   is timed, not only the building of its graph;
// - untimed warm-up calls come first, so first-call costs (pipeline and
//   custom-kernel compiles, the allocator's first blocks) stay out;
// - the counter gpu_time is the GPU's own time per iteration, in seconds,
//   from Vulkan timestamps (gpu::start_timing in mlx_lite/gpu.h), beside the
//   wall time. It is left out where the device cannot time
//   (gpu::timing_supported() is false) and is 0 for work on the CPU device;
// - the counter wall_median is the median iteration's wall time, in seconds:
//   Google Benchmark's real time is the mean, which a rare stall of the host
//   (an interrupt, a page fault) moves, and baselines timed call by call
//   (PyTorch's, bench/torch_timing.py) report the median.
//
// Register the benchmark with UseRealTime(): Google Benchmark's default, the
// process's CPU time, counts only the host's share of GPU work, and a
// function cannot change how it was registered.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <type_traits>
#include <utility>
#include <vector>

#include "mlx_lite/gpu.h"
#include "mlx_lite/mlx_lite.h"

/// Google Benchmark helpers: eval_loop.
///
/// The namespace is `bench`, not `benchmark`: with `using namespace mlx_lite;`
/// a mlx_lite::benchmark would make every unqualified `benchmark::` (Google
/// Benchmark's namespace, which its own macros and users' code name that way)
/// ambiguous.
namespace mlx_lite::bench {

/// How eval_loop runs a benchmark.
struct EvalLoopOptions {
  /// Untimed calls of `fun` (evaluated) before the timed loop, in each run
  /// of the benchmark function.
  int warmup = 1;
  /// Whether to report gpu_time (where the device can time).
  bool gpu_time = true;
};

namespace detail {

// Stops the thread's GPU timing if the loop is left by an exception, so the
// thread can time again.
class TimingScope {
 public:
  explicit TimingScope(bool active) : active_(active) {
    if (active_) gpu::start_timing();
  }
  ~TimingScope() {
    if (!active_) return;
    try {
      gpu::stop_timing();
    } catch (...) {  // already unwinding: the first error is the one to see
    }
  }
  TimingScope(const TimingScope&) = delete;
  TimingScope& operator=(const TimingScope&) = delete;

  // The GPU nanoseconds since the scope began.
  double stop() {
    active_ = false;
    return gpu::stop_timing();
  }

 private:
  bool active_;
};

// The median of `seconds` (not empty), which it reorders.
inline double median(std::vector<double>& seconds) {
  const auto middle = seconds.begin() + static_cast<std::ptrdiff_t>(seconds.size() / 2);
  std::nth_element(seconds.begin(), middle, seconds.end());
  if (seconds.size() % 2 == 1) return *middle;
  return (*middle + *std::max_element(seconds.begin(), middle)) / 2;
}

// What eval_loop evaluates, from what `fun` returned.
inline std::vector<array> outputs(array a) {
  return {std::move(a)};
}
inline std::vector<array> outputs(std::vector<array> arrays) {
  return arrays;
}

}  // namespace detail

/// Runs Google Benchmark's loop over `state`, calling `fun` (which builds the
/// work and returns the array or arrays to evaluate) and evaluating its result
/// in each iteration, after options.warmup untimed ones; reports the counters
/// gpu_time and wall_median (see the top of this file).
template <class F>
void eval_loop(benchmark::State& state, F&& fun, EvalLoopOptions options = {}) {
  using Result = std::invoke_result_t<F&>;
  static_assert(
      std::is_convertible_v<Result, array> || std::is_convertible_v<Result, std::vector<array>>,
      "eval_loop: `fun` must return the array or the std::vector<array> to evaluate");
  for (int i = 0; i < options.warmup; ++i) eval(detail::outputs(fun()));
  detail::TimingScope timing(options.gpu_time && gpu::timing_supported());
  std::vector<double> seconds;
  seconds.reserve(static_cast<size_t>(state.max_iterations));
  for (auto _ : state) {
    const auto begin = std::chrono::steady_clock::now();
    eval(detail::outputs(fun()));
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
  }
  if (!seconds.empty()) state.counters["wall_median"] = detail::median(seconds);
  if (options.gpu_time && gpu::timing_supported()) {
    state.counters["gpu_time"] =
        benchmark::Counter(timing.stop() * 1e-9, benchmark::Counter::kAvgIterations);
  }
}

}  // namespace mlx_lite::bench
