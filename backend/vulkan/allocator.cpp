#include "backend/vulkan/allocator.h"

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "backend/vulkan/device.h"
#include "backend/vulkan/encoder.h"

namespace mlx_lite::vulkan {

namespace {

constexpr size_t kSlabSize = size_t{4} << 20;
constexpr size_t kSmallLimit = size_t{256} << 10;  // blocks up to this come from slabs

// One VkBuffer bound to its own VkDeviceMemory, persistently mapped.
struct Allocation {
  vk::raii::Buffer buffer{nullptr};
  vk::raii::DeviceMemory memory{nullptr};
  void* mapped = nullptr;

  Allocation(const Device& d, size_t size) {
    using Usage = vk::BufferUsageFlagBits;
    buffer = vk::raii::Buffer(d.device(),
                              // Uniform too: the encoder's shape blocks come from the same blocks.
                              vk::BufferCreateInfo({}, size,
                                                   Usage::eStorageBuffer | Usage::eUniformBuffer |
                                                       Usage::eTransferSrc | Usage::eTransferDst));
    auto req = buffer.getMemoryRequirements();
    if (!(req.memoryTypeBits & (1u << d.memory_type()))) {
      throw std::runtime_error("[gpu] The chosen memory type cannot hold storage buffers.");
    }
    memory = vk::raii::DeviceMemory(d.device(), vk::MemoryAllocateInfo(req.size, d.memory_type()));
    buffer.bindMemory(*memory, 0);
    mapped = memory.mapMemory(0, VK_WHOLE_SIZE);
  }
};

class VulkanAllocator : public allocator::CachingAllocator {
 public:
  explicit VulkanAllocator(const Device& d) : device_(d) {
    alignment_ = std::max<size_t>({64, d.limits().min_storage_buffer_offset_alignment,
                                   d.limits().min_uniform_buffer_offset_alignment});
    // Asking Vulkan for more than one allocation may hold is invalid usage,
    // not an out-of-memory error: such a request fails here instead.
    auto props = d.physical()
                     .getProperties2<vk::PhysicalDeviceProperties2,
                                     vk::PhysicalDeviceMaintenance3Properties>();
    const auto memory = d.physical().getMemoryProperties();
    max_allocation_ = std::min<size_t>(
        props.get<vk::PhysicalDeviceMaintenance3Properties>().maxMemoryAllocationSize,
        memory.memoryHeaps[memory.memoryTypes[d.memory_type()].heapIndex].size);
  }

  void* raw_ptr(allocator::Buffer buffer) override {
    return buffer.ptr() ? block_of(buffer).mapped : nullptr;
  }

 protected:
  void* allocate_block(size_t capacity) override {
    if (capacity > max_allocation_) return nullptr;
    try {
      if (capacity <= kSmallLimit) return small_block(capacity);
      auto allocation = std::make_unique<Allocation>(device_, capacity);
      auto* block = new Block{*allocation->buffer, 0, capacity, allocation->mapped};
      dedicated_.emplace(block, std::move(allocation));
      return block;
    } catch (const vk::OutOfDeviceMemoryError&) {
      return nullptr;
    } catch (const vk::OutOfHostMemoryError&) {
      return nullptr;
    }
  }

  void release_block(void* ptr) override {
    auto* block = static_cast<Block*>(ptr);
    if (auto it = dedicated_.find(block); it != dedicated_.end()) {
      dedicated_.erase(it);
      delete block;
    } else {
      // Slab blocks go back to their size's free list; slabs live until exit.
      free_small_[block->capacity].push_back(block);
    }
  }

  // A buffer freed while GPU work that writes it is recorded or running
  // reaches the cache (where the host may reuse it) only when that work
  // completes. (Work that reads a buffer holds its array's data until it
  // completes, so such a buffer is never freed early.)
  bool defer(allocator::Buffer buffer) override { return defer_until_written(buffer); }

  size_t block_capacity(const void* block) const override {
    return block ? static_cast<const Block*>(block)->capacity : 0;
  }

 private:
  Block* small_block(size_t capacity) {
    capacity = (capacity + alignment_ - 1) / alignment_ * alignment_;
    auto& free_list = free_small_[capacity];
    if (!free_list.empty()) {
      Block* b = free_list.back();
      free_list.pop_back();
      return b;
    }
    if (slabs_.empty() || slab_used_ + capacity > kSlabSize) {
      slabs_.push_back(std::make_unique<Allocation>(device_, kSlabSize));
      slab_used_ = 0;
    }
    auto& slab = *slabs_.back();
    auto* block =
        new Block{*slab.buffer, slab_used_, capacity, static_cast<char*>(slab.mapped) + slab_used_};
    slab_used_ += capacity;
    return block;
  }

  const Device& device_;
  size_t alignment_;
  size_t max_allocation_;
  std::map<Block*, std::unique_ptr<Allocation>> dedicated_;
  std::vector<std::unique_ptr<Allocation>> slabs_;
  size_t slab_used_ = 0;
  std::map<size_t, std::vector<Block*>> free_small_;
};

}  // namespace

allocator::CachingAllocator* make_vulkan_allocator() {
  return new VulkanAllocator(Device::get());
}

}  // namespace mlx_lite::vulkan
