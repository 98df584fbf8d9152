// Gathers and scatters. Index arrays must have an integer dtype. Negative
// indices count from the end of their axis; indices still out of range after
// that are clamped into it for gathers (no memory outside the array is read)
// and dropped for scatters (no memory outside the array is written).
#pragma once

#include <vector>

#include "mlx_lite/array.h"
#include "mlx_lite/device.h"

namespace mlx_lite {

// MLX's general gather: indices[i] indexes axes[i]; all index arrays broadcast
// together; the result has shape broadcast(indices) + slice_sizes.
array gather(const array& a, const std::vector<array>& indices, const std::vector<int>& axes,
             const Shape& slice_sizes, StreamOrDevice s = {});
array gather(const array& a, const array& indices, int axis, const Shape& slice_sizes,
             StreamOrDevice s = {});

array take(const array& a, const array& indices, int axis, StreamOrDevice s = {});
array take(const array& a, int index, int axis, StreamOrDevice s = {});
// Indexes the flattened array.
array take(const array& a, const array& indices, StreamOrDevice s = {});
array take(const array& a, int index, StreamOrDevice s = {});

array take_along_axis(const array& a, const array& indices, int axis, StreamOrDevice s = {});
array put_along_axis(const array& a, const array& indices, const array& values, int axis,
                     StreamOrDevice s = {});

// a with the slices at `indices` replaced by (scatter) or added to
// (scatter_add) updates, whose shape is broadcast(indices) + slice shape.
array scatter(const array& a, const std::vector<array>& indices, const array& updates,
              const std::vector<int>& axes, StreamOrDevice s = {});
array scatter(const array& a, const array& indices, const array& updates, int axis,
              StreamOrDevice s = {});
array scatter_add(const array& a, const std::vector<array>& indices, const array& updates,
                  const std::vector<int>& axes, StreamOrDevice s = {});
array scatter_add(const array& a, const array& indices, const array& updates, int axis,
                  StreamOrDevice s = {});

}  // namespace mlx_lite
