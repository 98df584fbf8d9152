#include "backend/vulkan/encoder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "backend/gpu_backend.h"
#include "backend/vulkan/allocator.h"
#include "backend/vulkan/builtin_shaders.h"
#include "backend/vulkan/device.h"

namespace mlx_lite::vulkan {

struct Encoder::Pipeline {
  vk::raii::DescriptorSetLayout set_layout{nullptr};
  vk::raii::PipelineLayout layout{nullptr};
  vk::raii::Pipeline pipeline{nullptr};
};

namespace {

Binding binding(const array& a, bool written) {
  const Block& b = block_of(a.buffer());
  return {b.buffer, b.offset, b.capacity, written};
}

}  // namespace

Binding input_binding(const array& a) {
  return binding(a, false);
}
Binding output_binding(const array& a) {
  return binding(a, true);
}

Encoder& Encoder::get() {
  static Encoder* encoder = new Encoder();  // lives until exit, as the device
  return *encoder;
}

Encoder::Encoder() : device_(Device::get()) {
  const auto& d = device_.device();
  pool_ = vk::raii::CommandPool(
      d, vk::CommandPoolCreateInfo(vk::CommandPoolCreateFlagBits::eResetCommandBuffer,
                                   device_.queue_family()));
  commands_ = std::move(vk::raii::CommandBuffers(
      d, vk::CommandBufferAllocateInfo(*pool_, vk::CommandBufferLevel::ePrimary, 1))[0]);
  fence_ = vk::raii::Fence(d, vk::FenceCreateInfo());
}

Encoder::Pipeline& Encoder::pipeline(const std::string& shader, const std::vector<uint32_t>& spec,
                                     size_t num_bindings) {
  std::string key = shader;
  for (auto v : spec) key += fmt::format(":{}", v);
  for (auto& [k, p] : pipelines_) {
    if (k == key) return *p;
  }
  const auto& d = device_.device();
  auto p = std::make_unique<Pipeline>();
  std::vector<vk::DescriptorSetLayoutBinding> slots;
  for (uint32_t i = 0; i < num_bindings; ++i) {
    slots.emplace_back(i, vk::DescriptorType::eStorageBuffer, 1, vk::ShaderStageFlagBits::eCompute);
  }
  p->set_layout = vk::raii::DescriptorSetLayout(
      d, vk::DescriptorSetLayoutCreateInfo(
             vk::DescriptorSetLayoutCreateFlagBits::ePushDescriptorKHR, slots));
  vk::DescriptorSetLayout set_layout = *p->set_layout;
  p->layout = vk::raii::PipelineLayout(d, vk::PipelineLayoutCreateInfo({}, set_layout));
  auto code = builtin_shader(shader);
  vk::raii::ShaderModule module(d, vk::ShaderModuleCreateInfo({}, code.size() * 4, code.data()));
  std::vector<vk::SpecializationMapEntry> entries;
  for (uint32_t i = 0; i < spec.size(); ++i) entries.emplace_back(i, i * 4, 4);
  vk::SpecializationInfo spec_info(entries, vk::ArrayProxyNoTemporaries<const uint32_t>(spec));
  spec_info.dataSize = spec.size() * 4;
  spec_info.pData = spec.data();
  vk::PipelineShaderStageCreateInfo stage({}, vk::ShaderStageFlagBits::eCompute, *module, "main",
                                          &spec_info);
  p->pipeline =
      vk::raii::Pipeline(d, nullptr, vk::ComputePipelineCreateInfo({}, stage, *p->layout));
  pipelines_.emplace_back(key, std::move(p));
  return *pipelines_.back().second;
}

void Encoder::barrier_if_needed(const std::vector<Binding>& bindings) {
  auto overlaps = [](const std::vector<Region>& regions, const Binding& b) {
    return std::any_of(regions.begin(), regions.end(), [&](const Region& r) {
      return r.buffer == b.buffer && r.begin < b.offset + b.range && b.offset < r.end;
    });
  };
  bool needed = false;
  for (const auto& b : bindings) {
    // Read after write, write after write, write after read.
    needed |= overlaps(written_, b) || (b.written && overlaps(read_, b));
  }
  if (needed) {
    vk::MemoryBarrier barrier(vk::AccessFlagBits::eShaderWrite | vk::AccessFlagBits::eShaderRead,
                              vk::AccessFlagBits::eShaderRead | vk::AccessFlagBits::eShaderWrite);
    commands_.pipelineBarrier(vk::PipelineStageFlagBits::eComputeShader,
                              vk::PipelineStageFlagBits::eComputeShader, {}, barrier, {}, {});
    written_.clear();
    read_.clear();
  }
  for (const auto& b : bindings) {
    (b.written ? written_ : read_).push_back({b.buffer, b.offset, b.offset + b.range});
  }
}

void Encoder::dispatch(const std::string& shader, const std::vector<uint32_t>& spec,
                       const std::vector<Binding>& bindings, uint64_t threads) {
  if (threads == 0) return;
  const uint64_t group_size = spec.at(0);
  const uint64_t groups = (threads + group_size - 1) / group_size;
  const auto& limits = device_.limits();
  const uint64_t gx = std::min<uint64_t>(groups, limits.max_workgroup_count[0]);
  const uint64_t gy = (groups + gx - 1) / gx;
  if (gy > limits.max_workgroup_count[1]) {
    throw std::runtime_error(
        fmt::format("[gpu] {} threads need {} workgroups of {}, more than this device can launch.",
                    threads, groups, group_size));
  }
  auto& p = pipeline(shader, spec, bindings.size());
  if (!recording_) {
    commands_.begin(vk::CommandBufferBeginInfo(vk::CommandBufferUsageFlagBits::eOneTimeSubmit));
    recording_ = true;
  }
  barrier_if_needed(bindings);
  std::vector<vk::DescriptorBufferInfo> infos;
  infos.reserve(bindings.size());
  for (const auto& b : bindings) infos.emplace_back(b.buffer, b.offset, b.range);
  std::vector<vk::WriteDescriptorSet> writes;
  for (uint32_t i = 0; i < infos.size(); ++i) {
    writes.emplace_back(nullptr, i, 0, 1, vk::DescriptorType::eStorageBuffer, nullptr, &infos[i]);
  }
  commands_.bindPipeline(vk::PipelineBindPoint::eCompute, *p.pipeline);
  commands_.pushDescriptorSetKHR(vk::PipelineBindPoint::eCompute, *p.layout, 0, writes);
  commands_.dispatch(static_cast<uint32_t>(gx), static_cast<uint32_t>(gy), 1);
  ++recorded_;
}

Binding Encoder::metadata(const std::vector<int64_t>& words) {
  // A kernel asks for its metadata before it dispatches, so this is where a
  // full batch is submitted (not in dispatch(), which would free the
  // metadata of the dispatch being recorded).
  if (recorded_ >= kMaxDispatches) finish();
  auto buffer = allocator::malloc(words.size() * sizeof(int64_t));
  std::memcpy(buffer.raw_ptr(), words.data(), words.size() * sizeof(int64_t));
  keep_alive(std::shared_ptr<void>(buffer.ptr(), [buffer](void*) { allocator::free(buffer); }));
  const Block& b = block_of(buffer);
  return {b.buffer, b.offset, b.capacity, false};
}

void Encoder::keep_alive(std::shared_ptr<void> data) {
  alive_.push_back(std::move(data));
}

void Encoder::finish() {
  if (recording_) {
    // Make the shaders' writes visible to the host that reads them next.
    vk::MemoryBarrier to_host(vk::AccessFlagBits::eShaderWrite, vk::AccessFlagBits::eHostRead);
    commands_.pipelineBarrier(vk::PipelineStageFlagBits::eComputeShader,
                              vk::PipelineStageFlagBits::eHost, {}, to_host, {}, {});
    commands_.end();
    vk::CommandBuffer cb = *commands_;
    device_.queue().submit(vk::SubmitInfo({}, {}, cb), *fence_);
    recording_ = false;
    recorded_ = 0;
    written_.clear();
    read_.clear();
    auto result = device_.device().waitForFences(*fence_, VK_TRUE, UINT64_MAX);
    device_.device().resetFences(*fence_);
    commands_.reset();
    if (result != vk::Result::eSuccess) {
      throw std::runtime_error("[gpu] Waiting for the GPU failed: " + vk::to_string(result));
    }
  }
  alive_.clear();
}

}  // namespace mlx_lite::vulkan

namespace mlx_lite::gpu_backend {

namespace {
bool& active() {
  static bool a = false;
  return a;
}
}  // namespace

allocator::CachingAllocator* make_allocator() {
  const char* env = std::getenv("MLX_LITE_DEVICE");
  if (env != nullptr && std::strcmp(env, "cpu") == 0) return nullptr;
  if (!vulkan::Device::available()) return nullptr;
  active() = true;
  return vulkan::make_vulkan_allocator();
}

bool is_active() {
  allocator::allocator();  // the choice is made with the allocator
  return active();
}

void finish() {
  if (active()) vulkan::Encoder::get().finish();
}

bool has_pending_work() {
  return active() && vulkan::Encoder::get().has_pending_work();
}

void keep_alive(std::shared_ptr<void> data) {
  vulkan::Encoder::get().keep_alive(std::move(data));
}

}  // namespace mlx_lite::gpu_backend
