// What the elementwise shaders (copy, unary, binary) share on the host side.
#pragma once

#include <string>
#include <vector>

#include "mlx_lite/array.h"

namespace mlx_lite::vulkan {

// Records `shader` over every element of `out` (row-contiguous, allocated
// here, any shape of the inputs' size) reading `inputs` (all of one shape,
// any strides and offsets) in row-major order, with
// `op` as specialization constant 1. Dims contiguous in every operand are
// merged first, and operands that are all row-contiguous take the shader's
// flat path.
void dispatch_elementwise(const std::string& shader, uint32_t op, const std::vector<array>& inputs,
                          array& out);

// out (any shape of in's size) = in's elements in row-major order, converted
// to out's dtype, on the GPU.
void copy_gpu(const array& in, array& out);

}  // namespace mlx_lite::vulkan
