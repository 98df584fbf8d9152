/// \file
/// Autotuning a custom kernel's threadgroup size: time the kernel over
/// candidate threadgroups on the current device, keep the fastest, and
/// remember it per device and kernel, in memory and on disk beside the
/// kernel cache. See docs/custom_kernels.md, "Autotuning".
#pragma once

#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "mlx_lite/array.h"

namespace mlx_lite::fast {

/// A threadgroup size (x, y, z), as CustomKernelFunction takes it.
using Threadgroup = std::tuple<int, int, int>;

/// How autotune_threadgroup() times the candidates.
struct AutotuneOptions {
  /// Untimed runs of each candidate first (its pipeline is created then).
  int warmup = 1;
  /// Timed runs of each candidate; the median counts.
  int repetitions = 5;
};

/// The fastest of `candidates` for the kernel `kernel_name` on the current
/// GPU. `run(threadgroup)` builds the kernel's call with that threadgroup
/// (its grid may depend on it) and returns the arrays to evaluate; each
/// candidate is run `warmup` times, then timed `repetitions` times by the
/// GPU's own clock (gpu::start_timing; wall time where the device cannot
/// time, or where the calling thread is timing its own GPU work, which then
/// counts the tuning) and ranked by its median. `key` tells apart the calls a choice
/// holds for (shapes, dtypes: whatever changes which candidate wins).
///
/// The choice is remembered per (device name and driver, kernel_name, key):
/// in memory, and in a file under the kernel cache's directory
/// (MLX_LITE_KERNEL_CACHE; none where that is off). A remembered choice is
/// returned without running anything, in this process or a later one; a
/// damaged file is ignored with a warning and replaced.
///
/// Candidates the device refuses (run() or the evaluation throws
/// std::invalid_argument or std::runtime_error: a threadgroup over the
/// device's limits, shared memory that does not fit) are skipped. Throws
/// std::invalid_argument for no candidates, a non-positive candidate,
/// warmup < 0, repetitions < 1 or a newline in kernel_name or key, and
/// std::runtime_error naming each candidate's error when none runs.
Threadgroup autotune_threadgroup(const std::string& kernel_name, const std::string& key,
                                 const std::vector<Threadgroup>& candidates,
                                 const std::function<std::vector<array>(Threadgroup)>& run,
                                 const AutotuneOptions& options = {});

/// Forgets the choices held in memory (tests, a program that wants the disk
/// read again); their files stay.
void clear_autotune_memory();

}  // namespace mlx_lite::fast
