// What the GPU kernels of ArgReduce and Scan share on the host side: the
// input seen as lines along one axis (shaders/reduce_lines.glsl reads it).
#pragma once

#include <cstdint>
#include <vector>

#include "backend/common/layout.h"
#include "mlx_lite/array.h"

namespace mlx_lite::vulkan {

// Lines along `axis`, in row-major order of the other dims (the order of a
// row-contiguous output).
struct Lines {
  int64_t rows = 1;
  int64_t len;
  int64_t stride;              // between consecutive elements of a line
  bool contiguous;             // line r is [offset + r * len, offset + (r + 1) * len)
  std::vector<int64_t> words;  // metadata up to [.., len, stride]
};

inline Lines lines_along(const array& in, int axis) {
  Lines l;
  l.len = in.shape(axis);
  l.stride = in.strides()[axis];
  const auto [shape, strides] = common::without_axis(in, axis);
  for (auto d : shape) l.rows *= d;
  auto [dims, st] = common::collapse_dims<1>(shape, {&strides});
  auto dense = row_major_strides(dims);
  for (auto& s : dense) s *= l.len;
  l.contiguous = (l.stride == 1 || l.len == 1) && st[0] == dense;
  l.words = {l.rows, static_cast<int64_t>(dims.size())};
  l.words.insert(l.words.end(), dims.begin(), dims.end());
  l.words.push_back(in.offset());
  l.words.insert(l.words.end(), st[0].begin(), st[0].end());
  l.words.push_back(l.len);
  l.words.push_back(l.stride);
  return l;
}

}  // namespace mlx_lite::vulkan
