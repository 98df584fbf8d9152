/// \file
/// Linear algebra: the matrix product and the contractions built on it.
#pragma once

#include "mlx_lite/array.h"
#include "mlx_lite/device.h"

namespace mlx_lite {

/// Matrix product with numpy semantics: 1-D operands gain and lose a dim,
/// leading (batch) dims broadcast. Floating dtypes only, as in MLX. Throws
/// std::invalid_argument for a scalar operand, inner dims that differ, batch
/// dims that do not broadcast, or a non-floating promoted dtype.
array matmul(const array& a, const array& b, StreamOrDevice s = {});

/// The contraction of a and b over axes_a of a and axes_b of b (paired in
/// order; their sizes must match), as numpy.tensordot: the result has a's
/// other axes then b's, in order. The int form contracts the last `axis`
/// axes of a with the first `axis` of b. Reshapes to one matmul, so floating
/// dtypes only, as in MLX. Throws std::out_of_range for an axis out of range,
/// std::invalid_argument for axis lists of different lengths, a repeated
/// axis, sizes that differ, a negative or too large `axis`, or a non-floating
/// promoted dtype.
/// @{
array tensordot(const array& a, const array& b, int axis = 2, StreamOrDevice s = {});
array tensordot(const array& a, const array& b, const std::vector<int>& axes_a,
                const std::vector<int>& axes_b, StreamOrDevice s = {});
/// @}

/// The outer product of a and b, both flattened: out[i, j] = a[i] * b[j], as
/// MLX (a multiply, so every dtype works and promotes as multiply does).
array outer(const array& a, const array& b, StreamOrDevice s = {});

/// The inner product over the last axes of a and b (tensordot over them, so
/// floating dtypes only), or a * b when either is a scalar, as MLX. Throws
/// std::invalid_argument when the last axes differ in size.
array inner(const array& a, const array& b, StreamOrDevice s = {});

}  // namespace mlx_lite
