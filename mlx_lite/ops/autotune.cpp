// fast::autotune_threadgroup: times the candidates, keeps the fastest; the
// choices' memory and files are backend/vulkan/autotune_cache's.
#include "mlx_lite/ops/autotune.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>

#include "backend/common/log.h"
#include "backend/vulkan/autotune_cache.h"
#include "mlx_lite/gpu.h"
#include "mlx_lite/transforms/eval.h"

namespace mlx_lite::fast {

namespace {

std::string to_string(const Threadgroup& tg) {
  return fmt::format("({}, {}, {})", std::get<0>(tg), std::get<1>(tg), std::get<2>(tg));
}

// The device a choice holds for: its name and driver. Read once: the
// process's GPU does not change.
const std::string& device_id() {
  static const std::string id = [] {
    const auto info = gpu::device_info();
    auto text = [&](const char* k) { return std::get<std::string>(info.at(k)); };
    std::string s =
        fmt::format("{} / {} {}", text("device_name"), text("driver_name"), text("driver_info"));
    std::replace(s.begin(), s.end(), '\n', ' ');
    return s;
  }();
  return id;
}

void check_arguments(const std::string& kernel_name, const std::string& key,
                     const std::vector<Threadgroup>& candidates, const AutotuneOptions& options) {
  auto fail = [&](const std::string& what) {
    throw std::invalid_argument(
        fmt::format("[autotune_threadgroup] Kernel '{}': {}.", kernel_name, what));
  };
  if (candidates.empty()) fail("no candidate threadgroups were given");
  for (const auto& tg : candidates) {
    if (std::get<0>(tg) < 1 || std::get<1>(tg) < 1 || std::get<2>(tg) < 1) {
      fail(fmt::format("candidate threadgroup {} must be positive in every dimension",
                       to_string(tg)));
    }
  }
  if (options.warmup < 0 || options.repetitions < 1) {
    fail(fmt::format("warmup {} and repetitions {}; expected warmup >= 0 and repetitions >= 1",
                     options.warmup, options.repetitions));
  }
  if (kernel_name.find('\n') != std::string::npos || key.find('\n') != std::string::npos) {
    fail("the kernel name and key must not contain a newline");
  }
}

// Whether the GPU's clock can time the runs: the device writes timestamps
// and the calling thread is not timing its own work already (then
// start_timing() throws std::logic_error, and wall time serves).
bool gpu_clock_free() {
  if (!gpu::timing_supported()) return false;
  try {
    gpu::start_timing();
  } catch (const std::logic_error&) {
    return false;
  }
  gpu::stop_timing();
  return true;
}

// Nanoseconds of one evaluated run, by the GPU's clock where it has one.
double time_run(const std::function<std::vector<array>(Threadgroup)>& run, const Threadgroup& tg,
                bool gpu_clock) {
  auto outputs = run(tg);  // built before timing: only the evaluation counts
  if (gpu_clock) {
    gpu::start_timing();
    try {
      eval(outputs);
    } catch (...) {
      gpu::stop_timing();
      throw;
    }
    return gpu::stop_timing();
  }
  const auto start = std::chrono::steady_clock::now();
  eval(outputs);
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
}

// The candidate's median time, or nullopt (and its error in `why`) when
// the device refuses it.
std::optional<double> median_time(const std::function<std::vector<array>(Threadgroup)>& run,
                                  const Threadgroup& tg, const AutotuneOptions& options,
                                  bool gpu_clock, std::string& why) {
  try {
    for (int i = 0; i < options.warmup; ++i) eval(run(tg));
    std::vector<double> times;
    for (int i = 0; i < options.repetitions; ++i) times.push_back(time_run(run, tg, gpu_clock));
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    return times[times.size() / 2];
  } catch (const std::invalid_argument& e) {
    why = e.what();
  } catch (const std::runtime_error& e) {
    why = e.what();
  }
  return std::nullopt;
}

}  // namespace

Threadgroup autotune_threadgroup(const std::string& kernel_name, const std::string& key,
                                 const std::vector<Threadgroup>& candidates,
                                 const std::function<std::vector<array>(Threadgroup)>& run,
                                 const AutotuneOptions& options) {
  check_arguments(kernel_name, key, candidates, options);
  const vulkan::TuningKey k{device_id(), kernel_name, key};
  if (auto tg = vulkan::find_tuning(k)) return {(*tg)[0], (*tg)[1], (*tg)[2]};

  const bool gpu_clock = gpu_clock_free();
  std::optional<Threadgroup> best;
  double best_ns = 0;
  std::string refused;
  for (const auto& tg : candidates) {
    std::string why;
    const auto ns = median_time(run, tg, options, gpu_clock, why);
    if (!ns) {
      refused += fmt::format("\n  {}: {}", to_string(tg), why);
      continue;
    }
    logging::info("autotune {} [{}]: threadgroup {} {:.0f} ns", kernel_name, key, to_string(tg),
                  *ns);
    if (!best || *ns < best_ns) {
      best = tg;
      best_ns = *ns;
    }
  }
  if (!best) {
    throw std::runtime_error(fmt::format(
        "[autotune_threadgroup] Kernel '{}' [{}]: no candidate threadgroup runs on this device "
        "({}):{}",
        kernel_name, key, device_id(), refused));
  }
  vulkan::remember_tuning(k, {std::get<0>(*best), std::get<1>(*best), std::get<2>(*best)});
  return *best;
}

void clear_autotune_memory() {
  vulkan::forget_tunings_in_memory();
}

}  // namespace mlx_lite::fast
