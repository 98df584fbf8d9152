#include "backend/vulkan/pipelines.h"

#include <absl/container/flat_hash_map.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "backend/common/log.h"
#include "backend/vulkan/device.h"

namespace mlx_lite::vulkan {

vk::DescriptorType shape_block_type(const Shader& shader) {
  return shader.storage_shape_block() ? vk::DescriptorType::eStorageBuffer
                                      : vk::DescriptorType::eUniformBuffer;
}

namespace {

std::unique_ptr<Pipeline> create(const Shader& shader, std::span<const uint32_t> spec,
                                 uint32_t bindings) {
  const auto& d = Device::get().device();
  auto p = std::make_unique<Pipeline>();
  std::vector<vk::DescriptorSetLayoutBinding> slots;
  for (uint32_t i = 0; i < bindings; ++i) {
    slots.emplace_back(i, i == 0 ? shape_block_type(shader) : vk::DescriptorType::eStorageBuffer, 1,
                       vk::ShaderStageFlagBits::eCompute);
  }
  p->set_layout = vk::raii::DescriptorSetLayout(
      d, vk::DescriptorSetLayoutCreateInfo(
             vk::DescriptorSetLayoutCreateFlagBits::ePushDescriptorKHR, slots));
  vk::DescriptorSetLayout set_layout = *p->set_layout;
  vk::PushConstantRange push(vk::ShaderStageFlagBits::eCompute, 0, kPushConstantBytes);
  p->layout = vk::raii::PipelineLayout(d, vk::PipelineLayoutCreateInfo({}, set_layout, push));
  const auto code = shader.spirv();
  vk::raii::ShaderModule module(d, vk::ShaderModuleCreateInfo({}, code.size() * 4, code.data()));
  std::vector<vk::SpecializationMapEntry> entries;
  for (uint32_t i = 0; i < spec.size(); ++i) entries.emplace_back(i, i * 4, 4);
  vk::SpecializationInfo spec_info;
  spec_info.setMapEntries(entries);
  spec_info.dataSize = spec.size_bytes();
  spec_info.pData = spec.data();
  vk::PipelineShaderStageCreateInfo stage({}, vk::ShaderStageFlagBits::eCompute, *module, "main",
                                          &spec_info);
  p->pipeline =
      vk::raii::Pipeline(d, nullptr, vk::ComputePipelineCreateInfo({}, stage, *p->layout));
  return p;
}

struct Cache {
  std::shared_mutex mutex;
  absl::flat_hash_map<std::string, std::unique_ptr<Pipeline>> pipelines;
};

}  // namespace

const Pipeline& pipeline(const Shader& shader, std::span<const uint32_t> spec, uint32_t bindings) {
  static Cache* cache = new Cache();  // lives until exit, as the device
  // The key is built in a buffer of the thread's: no allocation per dispatch once warm.
  thread_local std::string key;
  const uint64_t id = shader.id();
  key.assign(reinterpret_cast<const char*>(&id), sizeof(id));
  key.append(reinterpret_cast<const char*>(spec.data()), spec.size_bytes());
  {
    std::shared_lock lock(cache->mutex);
    if (auto it = cache->pipelines.find(key); it != cache->pipelines.end()) return *it->second;
  }
  const auto start = std::chrono::steady_clock::now();
  auto created = create(shader, spec, bindings);  // outside the lock: compiles take milliseconds
  log::info("pipeline '{}' created in {:.1f} ms", shader.name(), log::ms_since(start));
  std::unique_lock lock(cache->mutex);
  auto [it, fresh] = cache->pipelines.try_emplace(key, std::move(created));
  return *it->second;  // a thread that lost the race uses the winner's
}

}  // namespace mlx_lite::vulkan
