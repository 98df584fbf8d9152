#include "backend/vulkan/encoder.h"

#include <absl/container/inlined_vector.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "backend/gpu_backend.h"
#include "backend/vulkan/allocator.h"
#include "backend/vulkan/builtin_shaders.h"
#include "backend/vulkan/device.h"
#include "mlx_lite/utils.h"

namespace mlx_lite::vulkan {

struct Encoder::Pipeline {
  vk::raii::DescriptorSetLayout set_layout{nullptr};
  vk::raii::PipelineLayout layout{nullptr};
  vk::raii::Pipeline pipeline{nullptr};
};

namespace {

// Work is compute dispatches and transfer fills (fill()): barriers order both.
constexpr auto kWorkStages =
    vk::PipelineStageFlagBits::eComputeShader | vk::PipelineStageFlagBits::eTransfer;
constexpr auto kWorkWrites = vk::AccessFlagBits::eShaderWrite | vk::AccessFlagBits::eTransferWrite;
constexpr auto kWorkAccess = kWorkWrites | vk::AccessFlagBits::eShaderRead;

Binding binding(const array& a, bool written) {
  const Block& b = block_of(a.buffer());
  // Shaders index a binding, which reaches maxStorageBufferRange bytes: the
  // array's elements (its view's farthest one) must lie within them.
  const uint64_t range = Device::get().limits().max_storage_buffer_range;
  int64_t last = a.offset();
  for (int i = 0; i < a.ndim(); ++i) {
    if (a.strides()[i] > 0) last += (a.shape(i) - 1) * a.strides()[i];
  }
  const uint64_t end = static_cast<uint64_t>(last + 1) * a.itemsize();
  if (a.size() > 0 && end > range) {
    throw std::runtime_error(fmt::format(
        "[gpu] An array of shape {} and dtype {} spans {} bytes, more than this device's "
        "maxStorageBufferRange ({} bytes) lets one kernel address. Use smaller arrays or the "
        "CPU device.",
        shape_string(a.shape()), dtype_name(a.dtype()), end, range));
  }
  return {b.buffer, b.offset, std::min<uint64_t>(b.capacity, range), written};
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

namespace {

// MLX_LITE_FIRST_BATCH_DISPATCHES overrides kFirstBatchDispatches (1 to
// kMaxDispatches; kMaxDispatches submits an eval in batches of that size
// only), so benchmarks can compare the schedules in one session, as MLX's
// MLX_MAX_OPS_PER_BUFFER does.
size_t first_batch_dispatches() {
  const char* env = std::getenv("MLX_LITE_FIRST_BATCH_DISPATCHES");
  if (env == nullptr || *env == '\0') return Encoder::kFirstBatchDispatches;
  char* end = nullptr;
  const long n = std::strtol(env, &end, 10);
  if (*end != '\0' || n < 1 || n > static_cast<long>(Encoder::kMaxDispatches)) {
    throw std::invalid_argument(
        fmt::format("[gpu] MLX_LITE_FIRST_BATCH_DISPATCHES is '{}'; expected a count from 1 to {}.",
                    env, Encoder::kMaxDispatches));
  }
  return static_cast<size_t>(n);
}

}  // namespace

Encoder::Encoder() : device_(Device::get()), first_batch_(first_batch_dispatches()) {
  batch_limit_ = first_batch_;
  const auto& d = device_.device();
  pool_ = vk::raii::CommandPool(
      d, vk::CommandPoolCreateInfo(vk::CommandPoolCreateFlagBits::eResetCommandBuffer,
                                   device_.queue_family()));
  vk::raii::CommandBuffers buffers(
      d, vk::CommandBufferAllocateInfo(*pool_, vk::CommandBufferLevel::ePrimary, 2));
  for (size_t i = 0; i < batches_.size(); ++i) {
    batches_[i].commands = std::move(buffers[i]);
    batches_[i].fence = vk::raii::Fence(d, vk::FenceCreateInfo());
  }
}

void Encoder::begin_if_needed() {
  if (recording_) return;
  auto& cb = batches_[current_].commands;
  cb.begin(vk::CommandBufferBeginInfo(vk::CommandBufferUsageFlagBits::eOneTimeSubmit));
  // Orders this batch after the writes of batches submitted before it.
  vk::MemoryBarrier barrier(kWorkWrites, kWorkAccess);
  cb.pipelineBarrier(kWorkStages, kWorkStages, {}, barrier, {}, {});
  recording_ = true;
  bound_ = nullptr;
}

Encoder::Pipeline& Encoder::pipeline(const std::string& shader, const std::vector<uint32_t>& spec,
                                     size_t num_bindings, std::span<const uint32_t> code) {
  // The key is built in a member buffer: no allocation per dispatch once warm.
  key_.assign(shader);
  key_.append(reinterpret_cast<const char*>(spec.data()), spec.size() * sizeof(uint32_t));
  if (auto it = pipelines_.find(key_); it != pipelines_.end()) return *it->second;
  std::string key = key_;
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
  vk::PushConstantRange head(vk::ShaderStageFlagBits::eCompute, 0, sizeof(MetadataHead));
  p->layout = vk::raii::PipelineLayout(d, vk::PipelineLayoutCreateInfo({}, set_layout, head));
  if (code.empty()) code = builtin_shader(shader);
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
  return *pipelines_.emplace(std::move(key), std::move(p)).first->second;
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
    vk::MemoryBarrier barrier(kWorkAccess, kWorkAccess);
    batches_[current_].commands.pipelineBarrier(kWorkStages, kWorkStages, {}, barrier, {}, {});
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
  record(pipeline(shader, spec, bindings.size()), bindings,
         {static_cast<uint32_t>(gx), static_cast<uint32_t>(gy), 1});
}

void Encoder::dispatch_groups(const std::string& name, std::span<const uint32_t> code,
                              const std::vector<uint32_t>& spec,
                              const std::vector<Binding>& bindings,
                              const std::array<uint32_t, 3>& groups) {
  if (groups[0] == 0 || groups[1] == 0 || groups[2] == 0) return;
  record(pipeline(name, spec, bindings.size(), code), bindings, groups);
}

void Encoder::record(Pipeline& p, const std::vector<Binding>& bindings,
                     const std::array<uint32_t, 3>& groups) {
  begin_if_needed();
  barrier_if_needed(bindings);
  absl::InlinedVector<vk::DescriptorBufferInfo, 8> infos;
  for (const auto& b : bindings) infos.emplace_back(b.buffer, b.offset, b.range);
  absl::InlinedVector<vk::WriteDescriptorSet, 8> writes;
  for (uint32_t i = 0; i < infos.size(); ++i) {
    writes.emplace_back(nullptr, i, 0, 1, vk::DescriptorType::eStorageBuffer, nullptr, &infos[i]);
  }
  auto& cb = batches_[current_].commands;
  if (bound_ != *p.pipeline) {  // chains of one op rebind nothing
    cb.bindPipeline(vk::PipelineBindPoint::eCompute, *p.pipeline);
    bound_ = *p.pipeline;
  }
  cb.pushDescriptorSetKHR(vk::PipelineBindPoint::eCompute, *p.layout, 0,
                          vk::ArrayProxy<const vk::WriteDescriptorSet>(
                              static_cast<uint32_t>(writes.size()), writes.data()));
  for (const auto& b : bindings) {
    if (b.head < 0) continue;
    // metadata() submits before it, never after: its dispatches are in its batch.
    if (b.head_batch != submits_) {
      throw std::logic_error(
          "[gpu] Metadata of a batch already submitted was bound to a dispatch.");
    }
    const auto& head = batches_[current_].heads.at(static_cast<size_t>(b.head));
    cb.pushConstants<MetadataHead>(*p.layout, vk::ShaderStageFlagBits::eCompute, 0, head);
    break;
  }
  cb.dispatch(groups[0], groups[1], groups[2]);
  ++recorded_;
}

void Encoder::fill(const Binding& target, uint32_t word) {
  if (target.range == 0) return;
  submit_if_full();
  begin_if_needed();
  barrier_if_needed({target});
  batches_[current_].commands.fillBuffer(target.buffer, target.offset, target.range, word);
  ++recorded_;
}

Binding Encoder::metadata(const std::vector<int64_t>& words) {
  // A kernel asks for its metadata before it dispatches, so this is where a
  // full batch is submitted (not in dispatch(), which would separate the
  // metadata from the dispatch that reads it).
  submit_if_full();
  constexpr size_t kArenaSize = size_t{64} << 10;
  auto& batch = batches_[current_];
  const size_t bytes = words.size() * sizeof(int64_t);
  const size_t align = std::max<size_t>(16, device_.limits().min_storage_buffer_offset_alignment);
  size_t start = (batch.arena_used + align - 1) / align * align;
  if (!batch.arena || start + bytes > allocator::allocator().size(*batch.arena)) {
    // A new arena; the old one reaches the allocator's cache only when the
    // work that reads it completes (VulkanAllocator::defer).
    auto buffer = allocator::malloc(std::max(kArenaSize, bytes));
    batch.arena =
        std::shared_ptr<allocator::Buffer>(new allocator::Buffer(buffer), [](allocator::Buffer* b) {
          allocator::free(*b);
          delete b;
        });
    start = 0;
  }
  std::memcpy(static_cast<char*>(batch.arena->raw_ptr()) + start, words.data(), bytes);
  batch.arena_used = start + bytes;
  MetadataHead& head = batch.heads.emplace_back();
  head.fill(0);
  std::copy_n(words.begin(), std::min(words.size(), head.size()), head.begin());
  const Block& b = block_of(*batch.arena);
  return {b.buffer, b.offset + start, bytes, false, static_cast<int32_t>(batch.heads.size() - 1),
          submits_};
}

void Encoder::release_after_work(allocator::Buffer buffer) {
  batches_[current_].released.push_back(buffer);
}

void Encoder::submit() {
  if (!recording_) return;
  auto& batch = batches_[current_];
  // Make the shaders' writes visible to the host that may read them next.
  vk::MemoryBarrier to_host(kWorkWrites, vk::AccessFlagBits::eHostRead);
  batch.commands.pipelineBarrier(kWorkStages, vk::PipelineStageFlagBits::eHost, {}, to_host, {},
                                 {});
  batch.commands.end();
  vk::CommandBuffer cb = *batch.commands;
  device_.queue().submit(vk::SubmitInfo({}, {}, cb), *batch.fence);
  batch.submitted = true;
  ++submits_;
  recording_ = false;
  recorded_ = 0;
  written_.clear();
  read_.clear();
  current_ = 1 - current_;
  wait(batches_[current_]);
}

void Encoder::submit_if_full() {
  if (recorded_ < batch_limit_) return;
  submit();
  batch_limit_ = std::min(2 * batch_limit_, kMaxDispatches);
}

void Encoder::flush() {
  submit();
  batch_limit_ = first_batch_;
}

void Encoder::wait(Batch& batch) {
  if (!batch.submitted) return;
  vk::Result result;
  try {
    result = device_.device().waitForFences(*batch.fence, VK_TRUE, UINT64_MAX);
  } catch (const vk::DeviceLostError& e) {
    batch.submitted = false;
    throw std::runtime_error(fmt::format(
        "[gpu] The Vulkan device was lost while running GPU work ({}). Arrays computed by that "
        "work hold undefined data, and later GPU work fails; the CPU device keeps working.",
        e.what()));
  }
  device_.device().resetFences(*batch.fence);
  batch.commands.reset();
  batch.submitted = false;
  retire(batch);
  if (result != vk::Result::eSuccess) {
    throw std::runtime_error("[gpu] Waiting for the GPU failed: " + vk::to_string(result));
  }
}

void Encoder::retire(Batch& batch) {
  // Back to the allocator's cache, so an idle process holds no active memory;
  // the next batch gets it back from there.
  batch.arena.reset();
  batch.arena_used = 0;
  batch.heads.clear();  // keeps its capacity: no allocation per eval once warm
  auto released = std::move(batch.released);
  batch.released.clear();
  for (auto buffer : released) allocator::allocator().release(buffer);
}

void Encoder::finish() {
  flush();
  for (auto& batch : batches_) wait(batch);
  // What was freed while no dispatch was recorded goes too.
  retire(batches_[current_]);
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

void flush() {
  if (active()) vulkan::Encoder::get().flush();
}

bool has_pending_work() {
  return active() && vulkan::Encoder::get().has_pending_work();
}

}  // namespace mlx_lite::gpu_backend
