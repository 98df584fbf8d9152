#pragma once

#include "mlx_lite/array.h"
#include "mlx_lite/device.h"

namespace mlx_lite {

// Matrix product with numpy semantics: 1-D operands gain and lose a dim,
// leading (batch) dims broadcast. Floating dtypes only, as in MLX.
array matmul(const array& a, const array& b, StreamOrDevice s = {});

}  // namespace mlx_lite
