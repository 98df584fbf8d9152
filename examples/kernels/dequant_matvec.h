// 4-bit dequantized matrix-vector product (the guide's
// scripts/dequant_matvec_kernel.py and references/quantized-kernel-patterns.md):
// a weight matrix w (n, k) is stored as 4-bit integers q in [0, 15], packed
// eight to a uint32 (weight 8j + e in bits 4e..4e+3 of word j, lowest first,
// as MLX packs), with a scale and a bias per group of `group` consecutive
// weights of a row: w[r, c] ~ scales[r, c / group] * q[r, c] + biases[r, c / group].
//   out[m, r] = sum_c x[m, c] * w[r, c]
// x is (m, k), float32 or float16 (m small: a matvec per row of x), scales
// and biases (n, k / group) of x's dtype; accumulated in float32.
//
// One 32-wide simdgroup per output row: lane l dequantizes words l, l + 32,
// ... of the row (eight weights each, all in one group since group is a
// multiple of 8), multiplies them with x, and simd_sum adds the lanes'
// partials; lane 0 writes. Eight rows (simdgroups) per threadgroup of 256
// threads, grid (256 * ceil(n / 8), m, 1). Rows past n still reach simd_sum
// (where simdgroups are emulated, every thread of the threadgroup must), with
// nothing to add. k must be a multiple of group, group of 8; k need not be a
// multiple of 32 * 8.
//
// quantize_4bit() makes q, scales and biases from a float matrix, with ops
// (as MLX's quantize: scale = (max - min) / 15 per group, bias = min).
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <vector>

#include "mlx_lite/mlx_lite.h"

namespace mlx_lite::examples {

inline constexpr const char* kDequantMatvecSource = R"(
  uint lane = thread_index_in_simdgroup;
  uint row = threadgroup_position_in_grid.x * simdgroups_per_threadgroup +
             simdgroup_index_in_threadgroup;
  uint m = thread_position_in_grid.y;
  uint n = uint(w_shape[0]);
  uint words = uint(w_shape[1]);           // k / 8
  uint k = words * 8u;
  uint groups = uint(scales_shape[1]);     // k / group
  uint words_per_group = words / groups;

  float acc = 0.0;
  if (row < n) {
    for (uint j = lane; j < words; j += 32u) {
      uint packed = w[row * words + j];
      uint g = row * groups + j / words_per_group;
      float scale = float(scales[g]);
      float bias = float(biases[g]);
      uint xi = m * k + j * 8u;
      float dot = 0.0, xsum = 0.0;
      for (uint e = 0u; e < 8u; ++e) {
        float xv = float(x[xi + e]);
        dot += float((packed >> (4u * e)) & 15u) * xv;
        xsum += xv;
      }
      // sum_e (scale * q_e + bias) * x_e
      acc += scale * dot + bias * xsum;
    }
  }
  acc = simd_sum(acc);
  if (lane == 0u && row < n) out[m * n + row] = T(acc);
)";

/// Rows (simdgroups) per threadgroup.
inline constexpr int kDequantRowsPerGroup = 8;

/// x (m, k) times the dequantized transpose of w (n, k): (m, n), x's dtype.
/// `w` is the packed (n, k / 8) uint32 matrix, `scales` and `biases` (n, k / group).
inline array dequant_matvec(const array& x, const array& w, const array& scales,
                            const array& biases) {
  const bool ok = x.ndim() == 2 && w.ndim() == 2 && scales.ndim() == 2 && biases.ndim() == 2 &&
                  (x.dtype() == float32 || x.dtype() == float16) && w.dtype() == uint32 &&
                  x.shape(1) == 8 * w.shape(1) && scales.shape() == biases.shape() &&
                  scales.shape(0) == w.shape(0) && scales.shape(1) > 0 &&
                  w.shape(1) % scales.shape(1) == 0;
  if (!ok) {
    throw std::invalid_argument(fmt::format(
        "[examples::dequant_matvec] Expected x (m, k) float32 or float16, w (n, k / 8) uint32, "
        "scales and biases (n, k / group) with group a multiple of 8; got x ({}) {}, w ({}) {}, "
        "scales ({}), biases ({}).",
        fmt::join(x.shape(), ", "), dtype_name(x.dtype()), fmt::join(w.shape(), ", "),
        dtype_name(w.dtype()), fmt::join(scales.shape(), ", "), fmt::join(biases.shape(), ", ")));
  }
  static const auto kernel = fast::vulkan_kernel("dequant_matvec", {"x", "w", "scales", "biases"},
                                                 {"out"}, kDequantMatvecSource);
  const int m = x.shape(0), n = w.shape(0);
  const int groups = (n + kDequantRowsPerGroup - 1) / kDequantRowsPerGroup;
  return kernel({x, w, astype(scales, x.dtype()), astype(biases, x.dtype())}, {{m, n}}, {x.dtype()},
                {32 * kDequantRowsPerGroup * groups, m, 1}, {32 * kDequantRowsPerGroup, 1, 1},
                {{"T", x.dtype()}})[0];
}

/// What quantize_4bit() returns.
struct Quantized4 {
  array w;       // (n, k / 8) uint32, eight 4-bit values a word
  array scales;  // (n, k / group), float32
  array biases;  // (n, k / group), float32
};

/// Packs (n, k) integers in [0, 15] (any integer or float dtype) into
/// (n, k / 8) uint32 words, weight 8j + e in bits 4e of word j.
inline array pack_4bit(const array& q) {
  const int n = q.shape(0), k = q.shape(1);
  array shifts = multiply(arange(0, 8, 1, uint32), array(4u, uint32));
  array words = left_shift(reshape(astype(q, uint32), {n, k / 8, 8}), shifts);
  // The eight fields do not overlap: their sum is their bitwise or.
  return astype(sum(words, 2), uint32);
}

/// w (n, k) float quantized per group of `group` weights of a row (k a
/// multiple of group, group of 8).
inline Quantized4 quantize_4bit(const array& w, int group = 64) {
  const int n = w.shape(0), k = w.shape(1);
  array g = reshape(astype(w, float32), {n, k / group, group});
  array lo = min(g, 2, true), hi = max(g, 2, true);
  array scale = maximum(divide(subtract(hi, lo), array(15.0f)), array(1e-8f));
  array q = clip(round(divide(subtract(g, lo), scale)), array(0.0f), array(15.0f));
  return {pack_4bit(reshape(q, {n, k})), reshape(scale, {n, k / group}),
          reshape(lo, {n, k / group})};
}

}  // namespace mlx_lite::examples
