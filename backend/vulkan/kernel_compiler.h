// Custom kernels' GLSL to SPIR-V with glslang at run time, checked by
// SPIRV-Cross reflection against the device, and cached in memory and on
// disk, keyed by the generated GLSL (which holds everything that changes the
// code) and the compiler's version.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend/vulkan/kernel.h"
#include "mlx_lite/primitives/fast.h"

namespace mlx_lite::vulkan {

struct CompiledKernel {
  CompiledKernel(std::string name, std::vector<uint32_t> words, uint32_t shared_bytes)
      : spirv(std::move(words)),
        shared_memory_bytes(shared_bytes),
        shader(std::move(name), spirv, /*storage_shape_block=*/true) {}
  std::vector<uint32_t> spirv;
  uint32_t shared_memory_bytes;
  Shader shader;  // named by the kernel that compiled it first (for logs)
};

// The SPIR-V of `glsl` (generate_kernel_source's), compiled or from a cache.
// Throws std::runtime_error with glslang's messages mapped onto the user's
// header and source lines (each quoted) when it does not compile, and when
// the kernel needs more than the device has (shared memory, bindings,
// float16 arithmetic).
std::shared_ptr<const CompiledKernel> compile_kernel(const std::string& kernel_name,
                                                     const std::string& glsl,
                                                     const std::string& header,
                                                     const std::string& source);

fast::KernelCacheStats kernel_cache_stats();

}  // namespace mlx_lite::vulkan
