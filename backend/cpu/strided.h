// Walking strided arrays on the CPU: every kernel reads its inputs through
// their own strides (views, transposes and broadcasts need no copy first).
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "mlx_lite/array.h"

namespace mlx_lite::cpu {

// Gives `out` a fresh row-contiguous buffer.
inline void allocate(array& out) {
  out.set_data(allocator::malloc(out.nbytes()));
}

// Gives `out` (row-contiguous) the buffer of `in` when it can take it over,
// as MLX donates: nobody else refers to `in`, which is laid out as `out`
// (dense from its buffer's start, same size and item size). Only for kernels
// that read element i of their inputs before writing element i of the
// output, so working in place is safe.
inline bool try_donate(const array& in, array& out) {
  if (!in.is_donatable() || !in.flags().row_contiguous || in.offset() != 0 ||
      in.size() != out.size() || in.itemsize() != out.itemsize()) {
    return false;
  }
  // Node outputs are built row-major: keep their strides (no allocation).
  if (out.flags().row_contiguous) {
    out.copy_shared_buffer(in, out.strides(), 0);
  } else {
    out.copy_shared_buffer(in, row_major_strides(out.shape()), 0);
  }
  return true;
}

// The shape and strides of `a` without `axis`: the layout of the lines along
// that axis, in row-major order of the other dims.
inline std::pair<Shape, Strides> without_axis(const array& a, int axis) {
  Shape shape;
  Strides strides;
  for (int i = 0; i < a.ndim(); ++i) {
    if (i == axis) continue;
    shape.push_back(a.shape(i));
    strides.push_back(a.strides()[i]);
  }
  return {std::move(shape), std::move(strides)};
}

// Element offset of row-major index `elem` in an array of `shape` and `strides`.
inline int64_t elem_to_loc(int64_t elem, const Shape& shape, const Strides& strides) {
  int64_t loc = 0;
  for (int i = static_cast<int>(shape.size()) - 1; i >= 0 && elem > 0; --i) {
    loc += (elem % shape[i]) * strides[i];
    elem /= shape[i];
  }
  return loc;
}

// `shape` and N operands' strides with size-1 dims dropped and neighbouring
// dims merged where they are contiguous in every operand: the fewest dims
// that walk the same elements in the same order.
template <size_t N>
std::pair<Shape, std::array<Strides, N>> collapse_dims(
    const Shape& shape, const std::array<const Strides*, N>& strides) {
  Shape dims;
  std::array<Strides, N> st;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1) continue;
    bool merge = !dims.empty();
    for (size_t k = 0; k < N && merge; ++k) {
      merge = st[k].back() == (*strides[k])[i] * shape[i];
    }
    if (merge) {
      dims.back() *= shape[i];
      for (size_t k = 0; k < N; ++k) st[k].back() = (*strides[k])[i];
    } else {
      dims.push_back(shape[i]);
      for (size_t k = 0; k < N; ++k) st[k].push_back((*strides[k])[i]);
    }
  }
  return {std::move(dims), std::move(st)};
}

// Calls f(offsets) for every element of `shape` in row-major order, where
// offsets[k] is the element's offset in operand k (given by strides[k]).
// Dims contiguous in every operand are merged first (collapse_dims), so the
// inner loop is as long as possible.
template <size_t N, typename F>
void for_each_offset(const Shape& shape, const std::array<const Strides*, N>& strides, F&& f) {
  int64_t total = 1;
  for (auto d : shape) total *= d;
  if (total == 0) return;
  auto [dims, st] = collapse_dims<N>(shape, strides);
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
