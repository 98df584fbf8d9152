// Multi-head rotary position embedding with a 3D grid (the guide's
// scripts/multihead_rope_kernel.py): x is (batch, heads, seq, dim), float32
// or float16, dim even. Each position s + offset rotates the pairs
// (x[i], x[i + dim/2]) (the "half-split" layout of Llama and of MLX's
// rope(traditional=false)) by the angle (s + offset) * freqs[i], where
// freqs[i] = base^(-2i/dim):
//   out[i]         = x[i] cos - x[i + dim/2] sin
//   out[i + dim/2] = x[i] sin + x[i + dim/2] cos
// computed in float32, rounded once to x's dtype.
//
// Grid (dim/2, seq, batch * heads): one thread per pair, so x and y need no
// division and z is the (batch, head) plane. Threadgroup (min(dim/2, 64),
// 256 / that, 1): a threadgroup covers whole rows of pairs.
//
// Two kernels from one body:
//   rope          x row-contiguous (ensure_row_contiguous=true: a view is
//                 copied first), indexed densely;
//   rope_strided  x read through x_strides (ensure_row_contiguous=false):
//                 a transposed view, such as q of shape (batch, seq, heads,
//                 dim) seen as (batch, heads, seq, dim) by transpose(0, 2, 1,
//                 3), is read in place, without a copy.
// `offset` is a one-element int32 array (the first position, as in decoding
// with a KV cache): an input, not a template argument, so a new offset
// needs no new kernel.
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "mlx_lite/mlx_lite.h"

namespace mlx_lite::examples {

namespace rope_detail {

// The body: `row_start` declares `first`, the place of the thread's row of x,
// and x[first + i * element_stride] is its element i.
inline std::string source(const std::string& row_start, const std::string& element_stride) {
  return R"(
  uint pair = thread_position_in_grid.x;   // i in [0, dim/2)
  uint s = thread_position_in_grid.y;      // position in the sequence
  uint plane = thread_position_in_grid.z;  // batch * heads + head
  uint half_dim = uint(x_shape[3]) / 2u;
  uint seq = uint(x_shape[2]);
  uint heads = uint(x_shape[1]);
  uint b = plane / heads;
  uint h = plane % heads;
  )" + row_start +
         R"(
  float x1 = float(x[first + pair * )" +
         element_stride + R"(]);
  float x2 = float(x[first + (pair + half_dim) * )" +
         element_stride + R"(]);
  float theta = float(int(s) + offset[0]) * freqs[pair];
  float c = cos(theta), sn = sin(theta);
  uint o = (plane * seq + s) * 2u * half_dim;  // out is row-contiguous
  out[o + pair] = T(x1 * c - x2 * sn);
  out[o + pair + half_dim] = T(x1 * sn + x2 * c);
)";
}

}  // namespace rope_detail

inline const std::string kRopeSource =
    rope_detail::source("uint first = (plane * seq + s) * 2u * half_dim;", "1u");

// Strides are int64_t; every term is at most the element's index, which
// fits 32 bits in a buffer binding (at most 4 GiB), so uint arithmetic is
// exact (and 64-bit integers are slow on most GPUs).
inline const std::string kRopeStridedSource = rope_detail::source(
    "uint first = b * uint(x_strides[0]) + h * uint(x_strides[1]) + s * uint(x_strides[2]);",
    "uint(x_strides[3])");

/// freqs[i] = base^(-2i/dim), i < dim/2, float32.
inline array rope_freqs(int dim, float base = 10000.0f) {
  return exp(multiply(arange(0, dim / 2, 1, float32), array(-2.0f * std::log(base) / dim)));
}

namespace rope_detail {

inline array apply(const fast::CustomKernelFunction& kernel, const array& x, int offset,
                   float base) {
  if (x.ndim() != 4 || x.shape(3) % 2 != 0 || (x.dtype() != float32 && x.dtype() != float16)) {
    throw std::invalid_argument(fmt::format(
        "[examples::rope] Expected a (batch, heads, seq, dim) float32 or float16 array with dim "
        "even; got shape ({}) {}.",
        fmt::join(x.shape(), ", "), dtype_name(x.dtype())));
  }
  const int half_dim = x.shape(3) / 2;
  const int tx = std::min(half_dim, 64), ty = 256 / tx;
  return kernel({x, rope_freqs(x.shape(3), base), array(offset)}, {x.shape()}, {x.dtype()},
                {half_dim, x.shape(2), x.shape(0) * x.shape(1)}, {tx, ty, 1},
                {{"T", x.dtype()}})[0];
}

}  // namespace rope_detail

/// RoPE of a (batch, heads, seq, dim) float32 or float16 `x` from position
/// `offset` on. A view is copied to a dense array first.
inline array rope(const array& x, int offset = 0, float base = 10000.0f) {
  static const auto kernel =
      fast::vulkan_kernel("rope", {"x", "freqs", "offset"}, {"out"}, kRopeSource);
  return rope_detail::apply(kernel, x, offset, base);
}

/// rope(), reading x in place through its strides (a transposed view, say).
inline array rope_strided(const array& x, int offset = 0, float base = 10000.0f) {
  static const auto kernel =
      fast::vulkan_kernel("rope_strided", {"x", "freqs", "offset"}, {"out"}, kRopeStridedSource,
                          /*header=*/"", /*ensure_row_contiguous=*/false);
  return rope_detail::apply(kernel, x, offset, base);
}

}  // namespace mlx_lite::examples
