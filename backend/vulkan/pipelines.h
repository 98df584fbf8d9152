// Compute pipelines, one per (shader, specialization constants), created on
// first use and shared by every thread's encoder. Every pipeline has the
// same interface: binding 0 the shape block (a uniform buffer; a storage
// buffer for custom kernels), bindings 1 and on storage buffers (all pushed
// per dispatch, VK_KHR_push_descriptor), and kPushConstantBytes of push
// constants (the parameter struct).
//
// Built-in shaders' pipelines are few (the variants and specialization
// constants the code names) and kept for the process. Those of shaders
// compiled at run time (custom kernels: one per kernel and threadgroup size,
// without bound in a program that generates kernels) are an LRU cache of at
// most kDefaultKernelCacheLimit entries (set_runtime_pipeline_limit); an
// evicted pipeline lives on while a batch that binds it has not completed
// (the encoder holds its shared_ptr).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vulkan/vulkan_raii.hpp>

#include "backend/vulkan/kernel.h"

namespace mlx_lite::vulkan {

// The default of fast::set_kernel_cache_limit: compiled custom kernels kept
// in memory, and their pipelines (one per kernel and threadgroup size). On
// lavapipe a pipeline holds about 170 KB of host memory (its LLVM-compiled
// code) and a compiled kernel about as much, so 256 of each are ~90 MB.
inline constexpr size_t kDefaultKernelCacheLimit = 256;

// The push constants every Vulkan device has (maxPushConstantsSize >= 128).
inline constexpr uint32_t kPushConstantBytes = 128;

struct Pipeline {
  vk::raii::DescriptorSetLayout set_layout{nullptr};
  vk::raii::PipelineLayout layout{nullptr};
  vk::raii::Pipeline pipeline{nullptr};
};

// The descriptor type of `shader`'s binding 0.
vk::DescriptorType shape_block_type(const Shader& shader);

// The pipeline of `shader` with specialization constant i = spec[i], whose
// shader binds `bindings` buffers (the shape block included). Thread-safe.
std::shared_ptr<const Pipeline> pipeline(const Shader& shader, std::span<const uint32_t> spec,
                                         uint32_t bindings);

// Run-time shaders' pipelines: how many are cached, the most kept (returns
// the previous limit; a lower one evicts at once), dropping them all, and
// dropping those of one shader (destroyed: nothing can ask for them again).
size_t runtime_pipelines_cached();
size_t set_runtime_pipeline_limit(size_t limit);
void clear_runtime_pipelines();
void forget_pipelines(const Shader& shader);

}  // namespace mlx_lite::vulkan
