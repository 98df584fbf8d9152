/// \file
/// Matrix views and masks over the last two (or any two) axes: triangles,
/// diagonals and the trace.
#pragma once

#include "mlx_lite/array.h"
#include "mlx_lite/device.h"

namespace mlx_lite {

/// x with the elements above diagonal k (column j > row i + k, over the last
/// two axes) set to zero, as numpy.tril; triu zeroes those below it (j < i +
/// k). A where() over a tri() mask, as MLX: the dtype is x's and gradients
/// flow to the kept elements. Throws std::invalid_argument for fewer than two
/// dims.
/// @{
array tril(array x, int k = 0, StreamOrDevice s = {});
array triu(array x, int k = 0, StreamOrDevice s = {});
/// @}

/// The diagonal `offset` above the main one (below when negative) of the
/// planes over axis1 and axis2: those two axes are removed and the diagonal
/// becomes the last axis (empty when the offset misses the plane), as
/// numpy.diagonal. A view of a's buffer (MLX gathers a copy; the values are
/// the same). Throws std::out_of_range for an axis out of range and
/// std::invalid_argument for fewer than two dims or axis1 == axis2.
array diagonal(const array& a, int offset = 0, int axis1 = 0, int axis2 = 1, StreamOrDevice s = {});

/// For a 1-D a, the (n + |k|) square matrix with a on diagonal k and zeros
/// elsewhere; for a 2-D a, its diagonal k (diagonal(a, k)), as numpy.diag.
/// Throws std::invalid_argument for other dims.
array diag(const array& a, int k = 0, StreamOrDevice s = {});

/// The sum of diagonal(a, offset, axis1, axis2) along its last axis, in
/// `dtype` (a's dtype by default, then widened as sum widens bool and uint8),
/// as MLX. Throws as diagonal does.
/// @{
array trace(const array& a, int offset, int axis1, int axis2, Dtype dtype, StreamOrDevice s = {});
array trace(const array& a, int offset, int axis1, int axis2, StreamOrDevice s = {});
array trace(const array& a, StreamOrDevice s = {});
/// @}

}  // namespace mlx_lite
