// The host's side of shaders/params/lines.h: an input seen as lines along
// one axis, for the GPU kernels of ArgReduce, Scan, Softmax and LogSumExp.
#pragma once

#include "backend/common/layout.h"
#include "backend/vulkan/shaders/params/lines.h"
#include "backend/vulkan/shape_block.h"
#include "mlx_lite/array.h"

namespace mlx_lite::vulkan {

struct LinesLayout {
  params::Lines lines;
  // Line r is [offset + r * len, offset + (r + 1) * len): the shaders'
  // CONTIGUOUS path.
  bool contiguous;
};

// The lines of `in` along `axis`, in row-major order of the other dims, with
// those dims' layout added to `shapes`.
inline LinesLayout lines_along(const array& in, int axis, ShapeBlock& shapes) {
  LinesLayout l{.lines = {.rows = 1,
                          .len = in.shape(axis),
                          .stride = in.strides()[axis],
                          .offset = in.offset(),
                          .kept = {}},
                .contiguous = false};
  const auto [shape, strides] = common::without_axis(in, axis);
  for (auto d : shape) l.lines.rows *= d;
  auto [dims, st] = common::collapse_dims<1>(shape, {&strides});
  auto dense = row_major_strides(dims);
  for (auto& s : dense) s *= l.lines.len;
  l.contiguous = (l.lines.stride == 1 || l.lines.len == 1) && st[0] == dense;
  l.lines.kept = shapes.add<1>(dims, st);
  return l;
}

}  // namespace mlx_lite::vulkan
