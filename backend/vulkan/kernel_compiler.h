// Custom kernels' GLSL to SPIR-V with glslang at run time, checked by
// SPIRV-Cross reflection against the device, and cached in memory (an LRU
// of set_kernel_cache_limit()'s entries) and on disk (kernel_disk_cache.h), keyed
// by the generated GLSL (which holds everything that changes the code) and
// the compiler's version.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backend/vulkan/kernel.h"
#include "backend/vulkan/pipelines.h"
#include "backend/vulkan/shared_memory.h"
#include "mlx_lite/primitives/fast.h"

namespace mlx_lite::vulkan {

struct CompiledKernel {
  CompiledKernel(std::string name, std::vector<uint32_t> words, SharedMemoryUse shared,
                 uint32_t required_subgroup_size)
      : spirv(std::move(words)),
        shared_memory(shared),
        shader(std::move(name), spirv, /*storage_shape_block=*/true, required_subgroup_size) {}
  ~CompiledKernel() { forget_pipelines(shader); }  // nothing can ask for them again
  CompiledKernel(const CompiledKernel&) = delete;
  CompiledKernel& operator=(const CompiledKernel&) = delete;
  std::vector<uint32_t> spirv;
  SharedMemoryUse shared_memory;  // at threadgroup (1, 1, 1)
  Shader shader;                  // named by the kernel that compiled it first (for logs)
  // Where shared arrays are sized by the workgroup size: their bytes per
  // threadgroup launched so far (check_shared_memory).
  mutable std::mutex shared_by_threadgroup_mutex;
  mutable absl::flat_hash_map<std::array<uint32_t, 3>, uint64_t> shared_by_threadgroup;
};

// glslang's SPIR-V (Vulkan 1.2) of `glsl`, uncached and unchecked against
// any device. Throws std::runtime_error with glslang's messages mapped onto
// the user's header and source lines (each quoted).
std::vector<uint32_t> glsl_to_spirv(const std::string& kernel_name, const std::string& glsl,
                                    const std::string& header, const std::string& source);

// The SPIR-V of `glsl` (generate_kernel_source's), compiled or from a cache,
// and translated where the device's matrices are KHR ones (matrix_units.h).
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

// Throws std::runtime_error when the kernel's shared arrays sized by the
// workgroup size (`shared float buf[gl_WorkGroupSize.x];`) take more than the
// device has at this threadgroup (other shared memory was checked when it
// was compiled).
void check_shared_memory(const std::string& kernel_name, const CompiledKernel& kernel,
                         const std::array<uint32_t, 3>& threadgroup);

fast::KernelCacheStats kernel_cache_stats();

// Keeps at most `entries` compiled kernels and as many custom-kernel
// pipelines (least recently used ones go first; kernels that arrays or
// kernel objects still hold stay usable). Returns the previous limit.
size_t set_kernel_cache_limit(size_t entries);

// Empties both caches (kernels still held stay usable; their pipelines are
// created again on their next call).
void clear_kernel_caches();

}  // namespace mlx_lite::vulkan
