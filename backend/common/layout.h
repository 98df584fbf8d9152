// Layouts both backends reason about: an array's dims merged where they are
// contiguous, the lines along one axis, and where a row-major index lies.
// Shape and stride arithmetic only: nothing here touches data.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "mlx_lite/array.h"

namespace mlx_lite::common {

// `shape` and N operands' strides with size-1 dims dropped and neighbouring
// dims merged where they are contiguous in every operand: the fewest dims
// that walk the same elements in the same order. Dim is the type of the
// merged dims: dims merge only while their product fits in it, so the
// default (ShapeElem, for the GPU's 32-bit shape blocks) may leave more dims;
// the CPU's loops take int64_t, which every element count fits.
template <size_t N, typename Dim = ShapeElem>
std::pair<std::vector<Dim>, std::array<Strides, N>> collapse_dims(
    const Shape& shape, const std::array<const Strides*, N>& strides) {
  std::vector<Dim> dims;
  std::array<Strides, N> st;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1) continue;
    bool merge = !dims.empty() &&
                 int64_t{dims.back()} * shape[i] <= int64_t{std::numeric_limits<Dim>::max()};
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

}  // namespace mlx_lite::common
