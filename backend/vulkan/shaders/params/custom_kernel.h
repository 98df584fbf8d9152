// The fixed part of a custom kernel's push constants (fast::vulkan_kernel).
// Its shader is generated at run time (backend/vulkan/kernel_source.cpp),
// which declares these members at their offsetof() here, so the two cannot
// disagree; the shapes and strides the source uses follow (kernel_source.h's
// KernelInterface says where).
#ifndef MLX_PARAMS_CUSTOM_KERNEL_H
#define MLX_PARAMS_CUSTOM_KERNEL_H

#include "prelude.h"

MLX_PARAMS_BEGIN

struct CustomKernelParams {
  uint32_t grid[3];    // threads per dimension (Metal's dispatchThreads)
  uint32_t groups[3];  // workgroups per dimension, before the host folds them
};
MLX_PUSH_CONSTANTS(CustomKernelParams)

// Specialization constants: the threadgroup (constant_id 0 to 2, the local
// size) and whether the host folded the workgroups (constant_id 3).
struct CustomKernelSpec {
  uint32_t threadgroup[3];
  uint32_t folded;
};

MLX_PARAMS_END

#endif  // MLX_PARAMS_CUSTOM_KERNEL_H
