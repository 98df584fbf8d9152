// The shared (workgroup) memory a compiled kernel declares. An array may be
// sized by the workgroup size (`shared float buf[gl_WorkGroupSize.x];`, legal
// Vulkan GLSL: a specialization-constant expression), so the size is known
// only for a given threadgroup: custom kernels check it at each launch.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

namespace mlx_lite::vulkan {

struct SharedMemoryUse {
  uint64_t bytes = 0;
  // Some array's length is a specialization constant (the workgroup size or
  // an expression of it): `bytes` holds for this threadgroup only.
  bool depends_on_threadgroup = false;
};

// The bytes of the Workgroup variables of `spirv`, with the specialization
// constants 0, 1, 2 (local_size_x_id..z_id, params::CustomKernelSpec) set to
// `threadgroup` and others at their defaults. Reads the SPIR-V words
// directly: SPIRV-Cross 2021 cannot evaluate gl_WorkGroupSize.x (an
// OpSpecConstantOp CompositeExtract). Throws std::runtime_error, naming
// `kernel_name`, for an array length it cannot evaluate.
SharedMemoryUse shared_memory_use(const std::string& kernel_name, std::span<const uint32_t> spirv,
                                  const std::array<uint32_t, 3>& threadgroup);

}  // namespace mlx_lite::vulkan
