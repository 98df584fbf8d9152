// LayerNorm with a two-pass reduction (the guide's scripts/layernorm_kernel.py):
// x is (rows, dim), float32 or float16, weight and bias (dim) of x's dtype;
//   out = (x - mean) / sqrt(var + eps) * weight + bias
// over each row, computed in float32 and rounded once to x's dtype.
//
// One threadgroup per row (grid (rows * tg, 1, 1), threadgroup (tg, 1, 1)):
// each thread strides over the row by tg, so dim need not be a multiple of
// tg or of 32. Two passes, as the guide's: the mean first, then the variance
// as the mean of (x - mean)^2 (not E[x^2] - mean^2, which cancels when
// |mean| >> std), each summed over the threadgroup by threadgroup_sum (the
// guide's simd_sum, then one simd_sum over the simdgroups' partials through
// threadgroup memory: one call, correct for any threadgroup size). The row
// is read three times; the second and third reads come from cache.
// threadgroup_sum is reached by every thread, as it requires (it contains
// barriers), so the grid is whole threadgroups.
//
// One step beyond the guide: when dim % 4 == 0, layer_norm_vec4 moves four
// elements per load and store through the x_vec4, weight_vec4, bias_vec4 and
// out_vec4 views (8 bytes in float16, 16 in float32): a quarter of the load
// instructions, which a bandwidth-bound kernel on a large GPU needs to keep
// enough bytes in flight. Same passes, same sums.
//
// eps is a one-element float32 input (a template argument is an int, bool or
// dtype). tg is autotuned per shape and dtype unless the caller gives it.
#pragma once

#include <fmt/format.h>

#include <stdexcept>

#include "examples/kernels/tuning.h"
#include "mlx_lite/mlx_lite.h"

namespace mlx_lite::examples {

inline constexpr const char* kLayerNormSource = R"(
  uint row = threadgroup_position_in_grid.x;
  uint t = thread_index_in_threadgroup;
  uint tg = threads_per_threadgroup.x;
  uint dim = uint(x_shape[1]);
  uint first = row * dim;

  float s = 0.0;
  for (uint i = t; i < dim; i += tg) s += float(x[first + i]);
  float mean = threadgroup_sum(s) / float(dim);

  float q = 0.0;
  for (uint i = t; i < dim; i += tg) {
    float d = float(x[first + i]) - mean;
    q += d * d;
  }
  float inv_std = inversesqrt(threadgroup_sum(q) / float(dim) + eps[0]);

  for (uint i = t; i < dim; i += tg) {
    float y = (float(x[first + i]) - mean) * inv_std;
    out[first + i] = T(y * float(weight[i]) + float(bias[i]));
  }
)";

/// What the vec4 kernels share: T4, the buffers' 4-vector (template argument
/// HALF, an int for #if: 1 for float16).
inline constexpr const char* kVec4Header = R"(
#if HALF
#define T4 f16vec4
#else
#define T4 vec4
#endif
)";

/// layer_norm for dim % 4 == 0: four elements per load and store.
inline constexpr const char* kLayerNormVec4Source = R"(
  uint row = threadgroup_position_in_grid.x;
  uint t = thread_index_in_threadgroup;
  uint tg = threads_per_threadgroup.x;
  uint dim = uint(x_shape[1]);
  uint n4 = dim / 4u;
  uint first = row * n4;

  float s = 0.0;
  for (uint i = t; i < n4; i += tg) s += dot(vec4(x_vec4[first + i]), vec4(1.0));
  float mean = threadgroup_sum(s) / float(dim);

  float q = 0.0;
  for (uint i = t; i < n4; i += tg) {
    vec4 d = vec4(x_vec4[first + i]) - mean;
    q += dot(d, d);
  }
  float inv_std = inversesqrt(threadgroup_sum(q) / float(dim) + eps[0]);

  for (uint i = t; i < n4; i += tg) {
    vec4 y = (vec4(x_vec4[first + i]) - mean) * inv_std;
    out_vec4[first + i] = T4(y * vec4(weight_vec4[i]) + vec4(bias_vec4[i]));
  }
)";

/// The kernel for `dim` (the vec4 one when dim % 4 == 0), built once.
inline const fast::CustomKernelFunction& layer_norm_kernel(int dim) {
  static const auto scalar =
      fast::vulkan_kernel("layer_norm", {"x", "weight", "bias", "eps"}, {"out"}, kLayerNormSource);
  static const auto vec4 = fast::vulkan_kernel("layer_norm_vec4", {"x", "weight", "bias", "eps"},
                                               {"out"}, kLayerNormVec4Source, kVec4Header);
  return dim % 4 == 0 ? vec4 : scalar;
}

/// LayerNorm over the last axis of a 2D float32 or float16 `x`;
/// `threadgroup` 0 autotunes it.
inline array layer_norm(const array& x, const array& weight, const array& bias, float eps = 1e-5f,
                        int threadgroup = 0) {
  if (x.ndim() != 2 || (x.dtype() != float32 && x.dtype() != float16) || weight.ndim() != 1 ||
      bias.ndim() != 1 || weight.shape(0) != x.shape(1) || bias.shape(0) != x.shape(1)) {
    throw std::invalid_argument(fmt::format(
        "[examples::layer_norm] Expected x (rows, dim) float32 or float16 and weight and bias "
        "(dim); got x {}D {}, weight {}D, bias {}D.",
        x.ndim(), dtype_name(x.dtype()), weight.ndim(), bias.ndim()));
  }
  const array w = astype(weight, x.dtype()), b = astype(bias, x.dtype()), e = array(eps);
  auto call = [&](const array& in, int tg) {
    return layer_norm_kernel(in.shape(1))(
        {in, w, b, e}, {in.shape()}, {in.dtype()}, {in.shape(0) * tg, 1, 1}, {tg, 1, 1},
        {{"T", in.dtype()}, {"HALF", int(in.dtype() == float16)}});
  };
  const char* name = x.shape(1) % 4 == 0 ? "layer_norm_vec4" : "layer_norm";
  return call(x, tuned_threadgroup(name, threadgroup, x.shape(), x.dtype(), call))[0];
}

}  // namespace mlx_lite::examples
