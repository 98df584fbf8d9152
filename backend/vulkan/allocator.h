// Array memory on the Vulkan device: host-visible, coherent buffers that the
// CPU backend reads and writes through their mapping and shaders bind by
// (VkBuffer, offset). Small blocks are carved from 4 MiB slabs (drivers cap
// the number of device allocations); larger ones get their own allocation.
#pragma once

#include <atomic>
#include <cstdint>
#include <vulkan/vulkan_raii.hpp>

#include "mlx_lite/allocator.h"

namespace mlx_lite::vulkan {

struct Block {
  vk::Buffer buffer;      // the VkBuffer the block lies in
  vk::DeviceSize offset;  // of the block within it
  size_t capacity;
  void* mapped;  // host address of the block's first byte
  // The batch of GPU work that last wrote the block: its encoder's timeline
  // (timeline.h) and its number there; 0 when none has. Atomic because a
  // thread reading the block may not be the one whose encoder wrote it.
  std::atomic<uint64_t> writer_timeline{0};
  std::atomic<uint64_t> writer_batch{0};
};

// The block behind an allocator::Buffer of the Vulkan allocator.
inline Block& block_of(const allocator::Buffer& buffer) {
  return *static_cast<Block*>(const_cast<void*>(buffer.ptr()));
}

allocator::CachingAllocator* make_vulkan_allocator();

}  // namespace mlx_lite::vulkan
