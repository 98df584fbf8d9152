// Numerically stable row softmax (the guide's scripts/softmax_kernel.py):
// x is (rows, dim), float32 or float16;
//   out = exp(x - max(x)) / sum(exp(x - max(x)))
// over each row, in float32, rounded once to x's dtype. -inf entries (masked
// positions) give 0; large values (1e4 in float32, 6e4 in float16) do not
// overflow, since the row's max is subtracted before exp. A row that is all
// -inf gives NaN, as PyTorch's softmax does.
//
// One threadgroup per row (grid (rows * tg, 1, 1)): the max by
// threadgroup_max, the sum of exponentials by threadgroup_sum (the guide's
// simd_max / simd_sum over each simdgroup, then over the simdgroups' partials
// through threadgroup memory, in one call correct for any threadgroup size),
// then each thread writes its elements. The row is read three times; the
// second and third reads come from cache. Every thread reaches the two
// reductions (they contain barriers), so the grid is whole threadgroups.
// tg is autotuned per shape and dtype unless the caller gives it. As
// layernorm.h's, softmax_rows_vec4 moves four elements per load and store
// when dim % 4 == 0.
#pragma once

#include <fmt/format.h>

#include <stdexcept>

#include "examples/kernels/layernorm.h"  // kVec4Header
#include "examples/kernels/tuning.h"
#include "mlx_lite/mlx_lite.h"

namespace mlx_lite::examples {

inline constexpr const char* kSoftmaxSource = R"(
  uint row = threadgroup_position_in_grid.x;
  uint t = thread_index_in_threadgroup;
  uint tg = threads_per_threadgroup.x;
  uint dim = uint(x_shape[1]);
  uint first = row * dim;

  // -inf: a thread with no element (dim < tg) must not raise the max.
  float m = uintBitsToFloat(0xff800000u);
  for (uint i = t; i < dim; i += tg) m = max(m, float(x[first + i]));
  m = threadgroup_max(m);

  float s = 0.0;
  for (uint i = t; i < dim; i += tg) s += exp(float(x[first + i]) - m);
  float inv = 1.0 / threadgroup_sum(s);

  for (uint i = t; i < dim; i += tg) out[first + i] = T(exp(float(x[first + i]) - m) * inv);
)";

/// softmax_rows for dim % 4 == 0: four elements per load and store.
inline constexpr const char* kSoftmaxVec4Source = R"(
  uint row = threadgroup_position_in_grid.x;
  uint t = thread_index_in_threadgroup;
  uint tg = threads_per_threadgroup.x;
  uint n4 = uint(x_shape[1]) / 4u;
  uint first = row * n4;

  float m = uintBitsToFloat(0xff800000u);
  for (uint i = t; i < n4; i += tg) {
    vec4 v = vec4(x_vec4[first + i]);
    m = max(m, max(max(v.x, v.y), max(v.z, v.w)));
  }
  m = threadgroup_max(m);

  float s = 0.0;
  for (uint i = t; i < n4; i += tg) s += dot(exp(vec4(x_vec4[first + i]) - m), vec4(1.0));
  float inv = 1.0 / threadgroup_sum(s);

  for (uint i = t; i < n4; i += tg) out_vec4[first + i] = T4(exp(vec4(x_vec4[first + i]) - m) * inv);
)";

/// The kernel for `dim` (the vec4 one when dim % 4 == 0), built once.
inline const fast::CustomKernelFunction& softmax_kernel(int dim) {
  static const auto scalar = fast::vulkan_kernel("softmax_rows", {"x"}, {"out"}, kSoftmaxSource);
  static const auto vec4 =
      fast::vulkan_kernel("softmax_rows_vec4", {"x"}, {"out"}, kSoftmaxVec4Source, kVec4Header);
  return dim % 4 == 0 ? vec4 : scalar;
}

/// Softmax over the last axis of a 2D float32 or float16 `x`; `threadgroup`
/// 0 autotunes it.
inline array softmax_rows(const array& x, int threadgroup = 0) {
  if (x.ndim() != 2 || (x.dtype() != float32 && x.dtype() != float16)) {
    throw std::invalid_argument(
        fmt::format("[examples::softmax_rows] Expected a 2D float32 or float16 array; got {}D {}.",
                    x.ndim(), dtype_name(x.dtype())));
  }
  auto call = [](const array& in, int tg) {
    return softmax_kernel(in.shape(1))({in}, {in.shape()}, {in.dtype()}, {in.shape(0) * tg, 1, 1},
                                       {tg, 1, 1},
                                       {{"T", in.dtype()}, {"HALF", int(in.dtype() == float16)}});
  };
  const char* name = x.shape(1) % 4 == 0 ? "softmax_rows_vec4" : "softmax_rows";
  return call(x, tuned_threadgroup(name, threadgroup, x.shape(), x.dtype(), call))[0];
}

}  // namespace mlx_lite::examples
