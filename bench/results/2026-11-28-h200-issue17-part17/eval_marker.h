// TUNING ONLY (not committed): a word in host memory that each batch's last
// command writes, polled beside the timeline semaphore, to see which one the
// host sees first.
#pragma once
#include <vulkan/vulkan_raii.hpp>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "backend/vulkan/eval_trace.h"

namespace mlx_lite::trace {
struct Marker {
  vk::raii::Buffer buffer{nullptr};
  vk::raii::DeviceMemory memory{nullptr};
  volatile uint32_t* word = nullptr;
};
struct MarkerStats {
  double lead_ns = 0;  // marker seen before the semaphore, summed
  uint64_t n = 0, marker_first = 0, sem_first = 0, same = 0, polls = 0;
  double spin_ns = 0;
  ~MarkerStats() {
    if (n)
      std::fprintf(stderr,
                   "MARKER waits %llu | marker first %llu, semaphore first %llu, same poll %llu | "
                   "mean lead %.2f us | polls/wait %.1f, ns/poll %.0f\n",
                   (unsigned long long)n, (unsigned long long)marker_first,
                   (unsigned long long)sem_first, (unsigned long long)same, lead_ns / n / 1e3, double(polls) / n, spin_ns / double(polls ? polls : 1));
  }
};
inline Marker* marker = nullptr;
inline MarkerStats marker_stats;
inline bool marker_on() {
  static const bool on = std::getenv("MLX_LITE_TRACE_MARKER") != nullptr;
  return on;
}
inline void make_marker(const vk::raii::Device& d, const vk::raii::PhysicalDevice& p) {
  if (marker) return;
  marker = new Marker;  // leaked on purpose: outlives the device's teardown order issues
  marker->buffer = vk::raii::Buffer(
      d, vk::BufferCreateInfo({}, 256, vk::BufferUsageFlagBits::eTransferDst |
                                           vk::BufferUsageFlagBits::eStorageBuffer));
  auto req = marker->buffer.getMemoryRequirements();
  auto props = p.getMemoryProperties();
  const auto want = vk::MemoryPropertyFlagBits::eHostVisible |
                    vk::MemoryPropertyFlagBits::eHostCoherent |
                    vk::MemoryPropertyFlagBits::eHostCached;
  uint32_t type = UINT32_MAX;
  for (uint32_t i = 0; i < props.memoryTypeCount; ++i) {
    if ((req.memoryTypeBits & (1u << i)) && (props.memoryTypes[i].propertyFlags & want) == want &&
        !(props.memoryTypes[i].propertyFlags & vk::MemoryPropertyFlagBits::eDeviceLocal)) {
      type = i;
      break;
    }
  }
  for (uint32_t i = 0; type == UINT32_MAX && i < props.memoryTypeCount; ++i) {
    const auto coherent = vk::MemoryPropertyFlagBits::eHostVisible | vk::MemoryPropertyFlagBits::eHostCoherent;
    if ((req.memoryTypeBits & (1u << i)) && (props.memoryTypes[i].propertyFlags & coherent) == coherent) type = i;
  }
  std::fprintf(stderr, "MARKER memory type %u flags %s\n", type, vk::to_string(props.memoryTypes[type].propertyFlags).c_str());
  marker->memory = vk::raii::DeviceMemory(d, vk::MemoryAllocateInfo(req.size, type));
  marker->buffer.bindMemory(*marker->memory, 0);
  marker->word = static_cast<volatile uint32_t*>(marker->memory.mapMemory(0, 256));
  *marker->word = 0;
}
inline bool event_on() {
  static const bool on = std::getenv("MLX_LITE_TRACE_EVENT") != nullptr;
  return on;
}
inline VkDevice event_device = VK_NULL_HANDLE;
inline VkEvent batch_events[4] = {};
inline bool marker_reached(uint64_t t) {
  if (event_on()) return vkGetEventStatus(event_device, batch_events[t % 4]) == VK_EVENT_SET;
  return marker && static_cast<uint32_t>(*marker->word) >= static_cast<uint32_t>(t);
}
}  // namespace mlx_lite::trace
