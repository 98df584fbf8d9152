// Custom kernels' GLSL to SPIR-V with glslang at run time, checked by
// SPIRV-Cross reflection against the device, and cached in memory (an LRU
// of set_kernel_cache_limit()'s entries) and on disk (kernel_disk_cache.h), keyed
// by the generated GLSL (which holds everything that changes the code) and
// the compiler's version.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend/vulkan/kernel.h"
#include "backend/vulkan/pipelines.h"
#include "mlx_lite/primitives/fast.h"

namespace mlx_lite::vulkan {

struct CompiledKernel {
  CompiledKernel(std::string name, std::vector<uint32_t> words, uint32_t shared_bytes,
                 uint32_t required_subgroup_size)
      : spirv(std::move(words)),
        shared_memory_bytes(shared_bytes),
        shader(std::move(name), spirv, /*storage_shape_block=*/true, required_subgroup_size) {}
  ~CompiledKernel() { forget_pipelines(shader); }  // nothing can ask for them again
  CompiledKernel(const CompiledKernel&) = delete;
  CompiledKernel& operator=(const CompiledKernel&) = delete;
  std::vector<uint32_t> spirv;
  uint32_t shared_memory_bytes;
  Shader shader;  // named by the kernel that compiled it first (for logs)
};

// The SPIR-V of `glsl` (generate_kernel_source's), compiled or from a cache.
// Throws std::runtime_error with glslang's messages mapped onto the user's
// header and source lines (each quoted) when it does not compile, and when
// the kernel needs more than the device has (shared memory, bindings,
// float16 arithmetic, extensions whose features it lacks). Its pipelines
// require subgroups of `required_subgroup_size` where not 0: the GLSL must
// say so (it keys the caches).
std::shared_ptr<const CompiledKernel> compile_kernel(const std::string& kernel_name,
                                                     const std::string& glsl,
                                                     const std::string& header,
                                                     const std::string& source,
                                                     uint32_t required_subgroup_size = 0);

fast::KernelCacheStats kernel_cache_stats();

// Keeps at most `entries` compiled kernels and as many custom-kernel
// pipelines (least recently used ones go first; kernels that arrays or
// kernel objects still hold stay usable). Returns the previous limit.
size_t set_kernel_cache_limit(size_t entries);

// Empties both caches (kernels still held stay usable; their pipelines are
// created again on their next call).
void clear_kernel_caches();

}  // namespace mlx_lite::vulkan
