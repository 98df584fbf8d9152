// What the elementwise shaders (copy, unary, binary, select) share on the
// host side, and the copies that the shape primitives build on.
#pragma once

#include <vector>

#include "backend/vulkan/encoder.h"
#include "backend/vulkan/shaders/params/elementwise.h"
#include "mlx_lite/array.h"

namespace mlx_lite::vulkan {

using ElementwiseKernel = Kernel<params::ElementwiseParams, params::ElementwiseSpec>;

// Records `kernel` over every element of `out` (row-contiguous, allocated
// here or donated by an input, any shape of the inputs' size) reading
// `inputs` (all of one shape, any strides and offsets; at most 3) in
// row-major order, with `op` as its OP. Dims contiguous in every operand are
// merged first, and operands that are then all row-major take the shader's
// flat path.
void dispatch_elementwise(Encoder& encoder, const ElementwiseKernel& kernel, uint32_t op,
                          const std::vector<array>& inputs, array& out);

// out (any shape of in's size) = in's elements in row-major order, converted
// to out's dtype, on the GPU.
void copy_gpu(Encoder& encoder, const array& in, array& out);

// Writes in's elements, converted to out's dtype, into a strided view of
// out's buffer (which out already has): element `index` (over in's shape)
// goes to out.offset() + out_offset + sum(index * out_strides). Strides may
// be negative; the view must not write an element twice.
void copy_gpu_into(Encoder& encoder, const array& in, const Strides& out_strides,
                   int64_t out_offset, array& out);

// Gives `out` a new row-contiguous buffer with every element set to the
// one-element array `value`, converted to out's dtype.
void fill_gpu(Encoder& encoder, const array& value, array& out);

}  // namespace mlx_lite::vulkan
