/// \file
/// Linear algebra: the matrix product.
#pragma once

#include "mlx_lite/array.h"
#include "mlx_lite/device.h"

namespace mlx_lite {

/// Matrix product with numpy semantics: 1-D operands gain and lose a dim,
/// leading (batch) dims broadcast. Floating dtypes only, as in MLX. Throws
/// std::invalid_argument for a scalar operand, inner dims that differ, batch
/// dims that do not broadcast, or a non-floating promoted dtype.
array matmul(const array& a, const array& b, StreamOrDevice s = {});

}  // namespace mlx_lite
