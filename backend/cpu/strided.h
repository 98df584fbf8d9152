// Walking strided arrays on the CPU: every kernel reads its inputs through
// their own strides (views, transposes and broadcasts need no copy first).
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "backend/common/buffers.h"
#include "backend/common/layout.h"
#include "mlx_lite/array.h"

namespace mlx_lite::cpu {

// Calls f(offsets) for every element of `shape` in row-major order, where
// offsets[k] is the element's offset in operand k (given by strides[k]).
// Dims contiguous in every operand are merged first (common::collapse_dims), so the
// inner loop is as long as possible; merged dims and counters are 64-bit (an
// array may hold 2^31 elements and more).
template <size_t N, typename F>
void for_each_offset(const Shape& shape, const std::array<const Strides*, N>& strides, F&& f) {
  int64_t total = 1;
  for (auto d : shape) total *= d;
  if (total == 0) return;
  auto [dims, st] = common::collapse_dims<N, int64_t>(shape, strides);
  std::array<int64_t, N> base{};
  if (dims.empty()) {
    f(base);
    return;
  }
  const int nd = static_cast<int>(dims.size());
  const int64_t inner = dims.back();
  std::array<int64_t, N> inner_stride;
  for (size_t k = 0; k < N; ++k) inner_stride[k] = st[k].back();
  std::vector<int64_t> counter(nd, 0);
  for (int64_t outer = total / inner; outer > 0; --outer) {
    auto off = base;
    for (int64_t i = 0; i < inner; ++i) {
      f(off);
      for (size_t k = 0; k < N; ++k) off[k] += inner_stride[k];
    }
    for (int d = nd - 2; d >= 0; --d) {
      for (size_t k = 0; k < N; ++k) base[k] += st[k][d];
      if (++counter[d] < dims[d]) break;
      for (size_t k = 0; k < N; ++k) base[k] -= st[k][d] * dims[d];
      counter[d] = 0;
    }
  }
}

// Copies `src` into the elements of `dst` (same shape, any strides, dst
// already has data), converting the dtype. dst may be a view into a larger
// buffer, which is how slice_update, concatenate and pad write their parts.
void copy_into(const array& src, const array& dst);

// Gives `out` (the size of `in`, any shape) a new row-contiguous buffer
// holding `in`'s elements in row-major order, converted to out's dtype.
void copy_to_row_contiguous(const array& in, array& out);

}  // namespace mlx_lite::cpu
