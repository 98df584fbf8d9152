#include "backend/vulkan/pipelines.h"

#include <absl/container/node_hash_map.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backend/common/log.h"
#include "backend/vulkan/device.h"

namespace mlx_lite::vulkan {

vk::DescriptorType shape_block_type(const Shader& shader) {
  return shader.storage_shape_block() ? vk::DescriptorType::eStorageBuffer
                                      : vk::DescriptorType::eUniformBuffer;
}

namespace {

std::string statistic_value(const vk::PipelineExecutableStatisticKHR& s) {
  switch (s.format) {
    case vk::PipelineExecutableStatisticFormatKHR::eBool32:
      return s.value.b32 ? "true" : "false";
    case vk::PipelineExecutableStatisticFormatKHR::eInt64:
      return std::to_string(s.value.i64);
    case vk::PipelineExecutableStatisticFormatKHR::eUint64:
      return std::to_string(s.value.u64);
    case vk::PipelineExecutableStatisticFormatKHR::eFloat64:
      return fmt::format("{:g}", s.value.f64);
  }
  return "?";
}

// The driver's statistics of each of the pipeline's executables ("name
// value, ..."), where the Device captures them (DeviceFeatures::
// pipeline_statistics).
std::string describe_statistics(vk::Pipeline pipeline) {
  const auto& d = Device::get().device();
  std::string text;
  const auto executables = d.getPipelineExecutablePropertiesKHR(vk::PipelineInfoKHR(pipeline));
  for (uint32_t i = 0; i < executables.size(); ++i) {
    if (executables.size() > 1) text += fmt::format("{}[{}] ", text.empty() ? "" : "; ", i);
    std::string line;
    for (const auto& s : d.getPipelineExecutableStatisticsKHR({pipeline, i})) {
      line += fmt::format("{}{} {}", line.empty() ? "" : ", ", s.name.data(), statistic_value(s));
    }
    text += line;
  }
  return text;
}

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
  vk::PipelineShaderStageRequiredSubgroupSizeCreateInfoEXT subgroups(
      shader.required_subgroup_size());
  if (shader.required_subgroup_size() != 0) stage.pNext = &subgroups;
  const bool statistics = Device::get().features().pipeline_statistics;
  p->pipeline = vk::raii::Pipeline(
      d, nullptr,
      vk::ComputePipelineCreateInfo(statistics ? vk::PipelineCreateFlagBits::eCaptureStatisticsKHR
                                               : vk::PipelineCreateFlags{},
                                    stage, *p->layout));
  if (statistics) {
    logging::debug("pipeline '{}' (specialized [{}]) statistics: {}", shader.name(),
                   fmt::join(spec, ", "), describe_statistics(*p->pipeline));
  }
  return p;
}

struct Entry {
  std::shared_ptr<const Pipeline> pipeline;
  bool builtin;
  std::atomic<uint64_t> used{0};  // the clock's value at its last lookup (run-time ones)
};

struct Cache {
  std::shared_mutex mutex;
  absl::node_hash_map<std::string, Entry> pipelines;
  std::atomic<uint64_t> clock{0};
  size_t runtime = 0;  // run-time shaders' pipelines in `pipelines`
  size_t limit = kDefaultKernelCacheLimit;

  // Evicts the least recently used run-time pipelines past `limit`. Under
  // the unique lock; a scan, but only after a pipeline was created, which
  // takes far longer.
  void evict() {
    while (runtime > limit) {
      auto oldest = pipelines.end();
      for (auto it = pipelines.begin(); it != pipelines.end(); ++it) {
        if (it->second.builtin) continue;
        if (oldest == pipelines.end() || it->second.used < oldest->second.used) oldest = it;
      }
      pipelines.erase(oldest);
      --runtime;
    }
  }
};

Cache& cache() {
  static Cache* c = new Cache();  // lives until exit, as the device
  return *c;
}

void key_of(const Shader& shader, std::span<const uint32_t> spec, std::string& key) {
  const uint64_t id = shader.id();
  key.assign(reinterpret_cast<const char*>(&id), sizeof(id));
  key.append(reinterpret_cast<const char*>(spec.data()), spec.size_bytes());
}

}  // namespace

std::shared_ptr<const Pipeline> pipeline(const Shader& shader, std::span<const uint32_t> spec,
                                         uint32_t bindings) {
  Cache& c = cache();
  // The key is built in a buffer of the thread's: no allocation per dispatch once warm.
  thread_local std::string key;
  key_of(shader, spec, key);
  {
    std::shared_lock lock(c.mutex);
    if (auto it = c.pipelines.find(key); it != c.pipelines.end()) {
      if (!it->second.builtin) it->second.used.store(c.clock.fetch_add(1) + 1);
      return it->second.pipeline;
    }
  }
  const auto start = std::chrono::steady_clock::now();
  std::shared_ptr<const Pipeline> created =
      create(shader, spec, bindings);  // outside the lock: compiles take milliseconds
  logging::info("pipeline '{}' created in {:.1f} ms", shader.name(), logging::ms_since(start));
  std::unique_lock lock(c.mutex);
  auto [it, fresh] = c.pipelines.try_emplace(key);
  if (!fresh) return it->second.pipeline;  // a thread that lost the race uses the winner's
  it->second.pipeline = std::move(created);
  it->second.builtin = shader.builtin();
  if (!shader.builtin()) {
    it->second.used.store(c.clock.fetch_add(1) + 1);
    ++c.runtime;
  }
  auto result = it->second.pipeline;
  c.evict();  // never this one: it is the most recent
  return result;
}

size_t runtime_pipelines_cached() {
  std::shared_lock lock(cache().mutex);
  return cache().runtime;
}

size_t set_runtime_pipeline_limit(size_t limit) {
  Cache& c = cache();
  std::unique_lock lock(c.mutex);
  const size_t old = std::exchange(c.limit, limit);
  c.evict();
  return old;
}

void clear_runtime_pipelines() {
  Cache& c = cache();
  std::unique_lock lock(c.mutex);
  absl::erase_if(c.pipelines, [](const auto& kv) { return !kv.second.builtin; });
  c.runtime = 0;
}

void forget_pipelines(const Shader& shader) {
  if (shader.builtin()) return;
  Cache& c = cache();
  const uint64_t id = shader.id();
  const std::string_view prefix(reinterpret_cast<const char*>(&id), sizeof(id));
  std::unique_lock lock(c.mutex);
  c.runtime -= absl::erase_if(
      c.pipelines, [&](const auto& kv) { return std::string_view(kv.first).starts_with(prefix); });
}

}  // namespace mlx_lite::vulkan
