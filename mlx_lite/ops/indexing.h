/// \file
/// Gathers and scatters. Index arrays must have an integer dtype (else
/// std::invalid_argument). Negative indices count from the end of their axis;
/// indices still out of range after that are clamped into it for gathers (no
/// memory outside the array is read) and dropped for scatters (no memory
/// outside the array is written).
#pragma once

#include <vector>

#include "mlx_lite/array.h"
#include "mlx_lite/device.h"

namespace mlx_lite {

/// MLX's general gather: indices[i] indexes axes[i]; all index arrays broadcast
/// together; the result has shape broadcast(indices) + slice_sizes, with one
/// slice size per dim of a (the form with one index array indexes one axis).
/// Throws std::invalid_argument for a count of index arrays other than of
/// axes, index arrays that do not broadcast, or a slice size out of [0, dim].
/// @{
array gather(const array& a, const std::vector<array>& indices, const std::vector<int>& axes,
             const Shape& slice_sizes, StreamOrDevice s = {});
array gather(const array& a, const array& indices, int axis, const Shape& slice_sizes,
             StreamOrDevice s = {});
/// @}

/// The entries of a at `indices` along `axis`, as numpy.take: a's shape with
/// `axis` replaced by the indices' shape (an int index drops the axis).
/// Without an axis, indexes the flattened array. Throws
/// std::invalid_argument when the axis is empty.
/// @{
array take(const array& a, const array& indices, int axis, StreamOrDevice s = {});
array take(const array& a, int index, int axis, StreamOrDevice s = {});
array take(const array& a, const array& indices, StreamOrDevice s = {});
array take(const array& a, int index, StreamOrDevice s = {});
/// @}

/// The entries of a at `indices` along `axis`, as numpy.take_along_axis:
/// indices has a's ndim and broadcasts against a on the other dims.
array take_along_axis(const array& a, const array& indices, int axis, StreamOrDevice s = {});
/// A copy of a with `values` (broadcast to the indexed shape) written at
/// `indices` along `axis`, as numpy.put_along_axis.
array put_along_axis(const array& a, const array& indices, const array& values, int axis,
                     StreamOrDevice s = {});
/// put_along_axis, adding `values` where it writes them (repeated indices
/// add up), as MLX's scatter_add_axis.
array scatter_add_axis(const array& a, const array& indices, const array& values, int axis,
                       StreamOrDevice s = {});

/// a with the slices at `indices` replaced by (scatter), added to
/// (scatter_add), multiplied by (scatter_prod), or replaced by the larger
/// (scatter_max) or smaller (scatter_min) of the two; updates' shape is
/// broadcast(indices) + slice shape. indices[i] indexes axes[i] (the forms with
/// one index array index one axis; axes are in [0, ndim): MLX does not count
/// them from the end); the slice shape has one dim per dim of a, and updates
/// are converted to a's dtype. Repeated positions combine in an unspecified
/// order (a replace keeps one of them); integer sums and products wrap;
/// scatter_max and scatter_min let NaN win. Throws std::invalid_argument for
/// updates of another shape or a bad axis. scatter_prod has no vjp and the
/// last three no jvp, as in MLX (std::runtime_error).
/// @{
array scatter(const array& a, const std::vector<array>& indices, const array& updates,
              const std::vector<int>& axes, StreamOrDevice s = {});
array scatter(const array& a, const array& indices, const array& updates, int axis,
              StreamOrDevice s = {});
array scatter_add(const array& a, const std::vector<array>& indices, const array& updates,
                  const std::vector<int>& axes, StreamOrDevice s = {});
array scatter_add(const array& a, const array& indices, const array& updates, int axis,
                  StreamOrDevice s = {});
array scatter_prod(const array& a, const std::vector<array>& indices, const array& updates,
                   const std::vector<int>& axes, StreamOrDevice s = {});
array scatter_prod(const array& a, const array& indices, const array& updates, int axis,
                   StreamOrDevice s = {});
array scatter_max(const array& a, const std::vector<array>& indices, const array& updates,
                  const std::vector<int>& axes, StreamOrDevice s = {});
array scatter_max(const array& a, const array& indices, const array& updates, int axis,
                  StreamOrDevice s = {});
array scatter_min(const array& a, const std::vector<array>& indices, const array& updates,
                  const std::vector<int>& axes, StreamOrDevice s = {});
array scatter_min(const array& a, const array& indices, const array& updates, int axis,
                  StreamOrDevice s = {});
/// @}

/// A copy of a with the positions where `mask` (bool, broadcast to a's shape)
/// is true filled, in row-major order, with consecutive elements of `src`
/// (flattened, converted to a's dtype), as MLX's and PyTorch's
/// masked_scatter. src must have at least as many elements as mask has true
/// entries: the graph cannot check it (the count is known only when it runs),
/// and the positions past src's end repeat its last element (an empty src
/// leaves a unchanged). Composed of a
/// cumsum, a take and a where, so gradients flow to a and src. Throws
/// std::invalid_argument for a mask that is not bool or does not broadcast.
array masked_scatter(const array& a, const array& mask, const array& src, StreamOrDevice s = {});

}  // namespace mlx_lite
