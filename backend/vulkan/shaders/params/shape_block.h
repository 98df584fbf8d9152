// The shape block: the variable-length part of a dispatch's arguments (the
// shapes and strides of its operands), which the encoder writes into a
// uniform buffer at binding 0 beside the fixed-size parameter struct in the
// push constants. Uniform buffers are read through the GPU's constant
// cache, as push constants are, so a thread reading a shape pays no memory
// load.
//
// Its one layout, used by every family: a sequence of int64 words holding
// strided layouts. A strided layout of N operands over `ndim` dims starts at
// word `at`:
//
//   words[at + d]                    extent of dim d            (d < ndim)
//   words[at + (1 + k) * ndim + d]   stride of dim d in operand k (k < N)
//
// in elements, row-major (dim ndim - 1 varies fastest), with the dims that
// are contiguous in every operand merged first (backend/common/layout.h).
// A parameter struct names each of its layouts with a ShapeRef; operand
// offsets, counts and the like are parameter members. A family whose shaders
// need a fixed table beside the layouts (gather and scatter's index arrays)
// puts it first, as a std140 struct (MLX_STD140: 16-byte aligned, C++ and
// std140 agree for structs of int64), and the words follow it.
//
// GLSL reads it through shape_block.glsl; C++ writes it with ShapeBlock
// (backend/vulkan/shape_block.h).
#ifndef MLX_PARAMS_SHAPE_BLOCK_H
#define MLX_PARAMS_SHAPE_BLOCK_H

#include "prelude.h"

#ifdef __cplusplus
#define MLX_STD140 alignas(16)
#else
#define MLX_STD140
#endif

MLX_PARAMS_BEGIN

// Where a strided layout sits in the shape block's words, and its rank.
struct ShapeRef {
  int32_t at;
  int32_t ndim;
};

// The words a shape block holds at most: 8 KiB, within the 16 KiB uniform
// buffer every Vulkan device can bind. Dims are merged before they are
// written, and arrays have fewer than 2^32 elements per binding, so no real
// layout comes near (3 operands over 64 merged dims take 256 words).
MLX_CONSTANT(int32_t, kShapeBlockWords, 1024)

MLX_PARAMS_END

#endif  // MLX_PARAMS_SHAPE_BLOCK_H
