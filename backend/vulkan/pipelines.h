// Compute pipelines, one per (shader, specialization constants), created on
// first use and shared by every thread's encoder. Every pipeline has the
// same interface: binding 0 the shape block (a uniform buffer; a storage
// buffer for custom kernels), bindings 1 and on storage buffers (all pushed
// per dispatch, VK_KHR_push_descriptor), and kPushConstantBytes of push
// constants (the parameter struct).
#pragma once

#include <cstdint>
#include <span>
#include <vulkan/vulkan_raii.hpp>

#include "backend/vulkan/kernel.h"

namespace mlx_lite::vulkan {

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
// shader binds `bindings` buffers (the shape block included). Thread-safe;
// the reference stays valid for the process.
const Pipeline& pipeline(const Shader& shader, std::span<const uint32_t> spec, uint32_t bindings);

}  // namespace mlx_lite::vulkan
