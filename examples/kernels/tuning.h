// What the autotuned examples (silu.h, layernorm.h, softmax.h) share: a
// threadgroup (x, 1, 1) whose x is the caller's, or else the fastest of
// whole 32-wide simdgroups from 32 to 1024 threads, found by
// fast::autotune_threadgroup per kernel, shape and dtype.
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "mlx_lite/mlx_lite.h"

namespace mlx_lite::examples {

/// The threadgroups tried: 32 to 1024 threads along x (a device whose limit
/// is lower skips the larger ones).
inline const std::vector<fast::Threadgroup> kThreadgroupCandidates = {
    {32, 1, 1}, {64, 1, 1}, {128, 1, 1}, {256, 1, 1}, {512, 1, 1}, {1024, 1, 1}};

/// `threadgroup` if it is not 0; else the fastest x of kThreadgroupCandidates
/// for `kernel_name` on an input of `shape` and `dtype`, timed by
/// `call(probe, x)` on zeros of that shape (the caller's input may be a graph
/// not evaluated yet; the values do not change these kernels' speed).
inline int tuned_threadgroup(const std::string& kernel_name, int threadgroup, const Shape& shape,
                             Dtype dtype,
                             const std::function<std::vector<array>(const array&, int)>& call) {
  if (threadgroup != 0) return threadgroup;
  // An empty input launches nothing: there is nothing to time.
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 32;
  const array probe = zeros(shape, dtype);
  const auto tg = fast::autotune_threadgroup(
      kernel_name, fmt::format("{} {}", fmt::join(shape, "x"), dtype_name(dtype)),
      kThreadgroupCandidates, [&](fast::Threadgroup t) { return call(probe, std::get<0>(t)); });
  return std::get<0>(tg);
}

}  // namespace mlx_lite::examples
