// Batched SiLU with a 2D grid (the guide's scripts/batch_elementwise_kernel.py):
// x is (batch, n), float32 or float16; out = x * sigmoid(x), computed in
// float32 and rounded once to x's dtype.
//
// The grid is the array's own shape, (n, batch, 1) threads: x indexes the
// column, y the row, so neither needs a division, and n need not be a
// multiple of the threadgroup (threads past the grid do not run, as Metal's
// non-uniform threadgroups). The threadgroup is (tg, 1, 1), tg autotuned
// (fast::autotune_threadgroup) per (n, batch, dtype) unless the caller gives it.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "examples/kernels/tuning.h"
#include "mlx_lite/mlx_lite.h"

namespace mlx_lite::examples {

inline constexpr const char* kSiluSource = R"(
  uint col = thread_position_in_grid.x;
  uint row = thread_position_in_grid.y;
  uint i = row * uint(x_shape[1]) + col;
  float v = float(x[i]);
  // v / (1 + e^-v): -0 where e^-v overflows (v < -88), v for large v.
  out[i] = T(v / (1.0 + exp(-v)));
)";

/// The kernel, built once.
inline const fast::CustomKernelFunction& silu_kernel() {
  static const auto kernel = fast::vulkan_kernel("silu_2d", {"x"}, {"out"}, kSiluSource);
  return kernel;
}

/// SiLU of a 2D float32 or float16 `x` on the GPU; `threadgroup` 0 autotunes it.
inline array silu(const array& x, int threadgroup = 0) {
  if (x.ndim() != 2 || (x.dtype() != float32 && x.dtype() != float16)) {
    throw std::invalid_argument(
        fmt::format("[examples::silu] Expected a 2D float32 or float16 array; got {}D {}.",
                    x.ndim(), dtype_name(x.dtype())));
  }
  auto call = [](const array& in, int tg) {
    return silu_kernel()({in}, {in.shape()}, {in.dtype()}, {in.shape(1), in.shape(0), 1},
                         {tg, 1, 1}, {{"T", in.dtype()}});
  };
  return call(x, tuned_threadgroup("silu_2d", threadgroup, x.shape(), x.dtype(), call))[0];
}

}  // namespace mlx_lite::examples
