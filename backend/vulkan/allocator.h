// Array memory on the Vulkan device: host-visible, coherent buffers that the
// CPU backend reads and writes through their mapping and shaders bind by
// (VkBuffer, offset). Small blocks are carved from 4 MiB slabs (drivers cap
// the number of device allocations); larger ones get their own allocation.
#pragma once

#include <vulkan/vulkan_raii.hpp>

#include "mlx_lite/allocator.h"

namespace mlx_lite::vulkan {

struct Block {
  vk::Buffer buffer;      // the VkBuffer the block lies in
  vk::DeviceSize offset;  // of the block within it
  size_t capacity;
  void* mapped;  // host address of the block's first byte
};

// The block behind an allocator::Buffer of the Vulkan allocator.
inline const Block& block_of(const allocator::Buffer& buffer) {
  return *static_cast<const Block*>(buffer.ptr());
}

allocator::CachingAllocator* make_vulkan_allocator();

}  // namespace mlx_lite::vulkan
