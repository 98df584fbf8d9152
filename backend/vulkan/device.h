// The Vulkan device mlx_lite runs GPU work on: chosen once per process
// (discrete GPU, then integrated, then any other such as lavapipe; or the one
// MLX_LITE_VULKAN_DEVICE names by index or name substring), with one compute
// queue. VK_LAYER_KHRONOS_validation is enabled when MLX_LITE_VULKAN_VALIDATION=1.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <vector>
#include <vulkan/vulkan_raii.hpp>

#include "backend/vulkan/device_features.h"

namespace mlx_lite::vulkan {

struct DeviceLimits {
  uint32_t subgroup_size;
  uint32_t max_workgroup_count[3];
  uint32_t max_workgroup_size[3];
  uint32_t max_workgroup_invocations;
  uint32_t max_shared_memory;
  uint32_t max_push_constants;
  uint64_t max_storage_buffer_range;
  uint64_t min_storage_buffer_offset_alignment;
  uint64_t min_uniform_buffer_offset_alignment;
  float timestamp_period;         // nanoseconds per timestamp tick
  uint32_t timestamp_valid_bits;  // of the compute queue's timestamps; 0: none
};

class Device {
 public:
  // The process's device; throws std::runtime_error saying why when there is
  // no Vulkan loader or no device.
  static Device& get();
  // Whether get() would succeed (never throws).
  static bool available();

  const vk::raii::Device& device() const { return device_; }
  const vk::raii::PhysicalDevice& physical() const { return physical_; }
  // Submits `commands`, which signal value `value` of the timeline semaphore
  // `done` when they complete. Thread-safe (the queue is shared).
  void submit(vk::CommandBuffer commands, vk::Semaphore done, uint64_t value);
  uint32_t queue_family() const { return queue_family_; }
  const DeviceLimits& limits() const { return limits_; }
  const std::string& name() const { return name_; }
  // Whether shaders may atomicAdd float32 storage (shaderBufferFloat32AtomicAdd,
  // enabled when the device has it). MLX_LITE_VULKAN_NO_FLOAT_ATOMICS=1 makes
  // the device act as one without it (the feature is not enabled and this is
  // false), so that kernels take their compare-and-swap fallbacks.
  bool float32_atomic_add() const {
    return features_.float32_atomic_add && use_float32_atomic_add_.load(std::memory_order_relaxed);
  }
  // For tests, which cannot set the variable after the device exists: false
  // makes float32_atomic_add() false from now on; true restores it where the
  // feature was enabled at creation.
  void use_float32_atomic_add(bool use) { use_float32_atomic_add_.store(use); }
  // Whether shaders may use 64-bit integer atomics on storage buffers
  // (shaderBufferInt64Atomics, enabled when the device has it).
  bool int64_atomics() const { return features_.int64_atomics; }
  bool float16() const { return features_.float16; }
  // The optional features, each enabled where the device has it.
  const DeviceFeatures& features() const { return features_; }
  // Whether the device is the host's CPU (lavapipe): its shaders run on the
  // cores that host threads use.
  bool on_cpu() const { return on_cpu_; }
  // The memory type every array buffer comes from: host-visible and coherent,
  // device-local too where the device has such memory.
  uint32_t memory_type() const { return memory_type_; }

  // Validation messages seen so far (each is also printed to stderr).
  size_t validation_messages() const { return validation_messages_.load(); }

  // After a wait outlived MLX_LITE_GPU_TIMEOUT the queue may still be busy
  // with that work, and no new work could complete behind it: mark_hung
  // records why (the first reason wins), and throw_if_hung() throws
  // std::runtime_error with it from then on.
  void mark_hung(const std::string& why);
  bool hung() const { return hung_.load(std::memory_order_acquire); }
  void throw_if_hung() const {
    if (hung_.load(std::memory_order_acquire)) throw_hung();
  }

 private:
  Device();
  void create_instance(bool validate);
  void read_properties();
  void create_device();
  [[noreturn]] void throw_hung() const;
  static VKAPI_ATTR VkBool32 VKAPI_CALL
  on_validation_message(VkDebugUtilsMessageSeverityFlagBitsEXT, VkDebugUtilsMessageTypeFlagsEXT,
                        const VkDebugUtilsMessengerCallbackDataEXT*, void*);

  vk::raii::Context context_;
  vk::raii::Instance instance_{nullptr};
  vk::raii::DebugUtilsMessengerEXT messenger_{nullptr};
  vk::raii::PhysicalDevice physical_{nullptr};
  vk::raii::Device device_{nullptr};
  vk::raii::Queue queue_{nullptr};
  std::mutex queue_mutex_;  // vkQueueSubmit needs the queue to itself
  uint32_t queue_family_ = 0;
  uint32_t memory_type_ = 0;
  DeviceLimits limits_{};
  std::string name_;
  bool on_cpu_ = false;
  DeviceFeatures features_;
  std::atomic<bool> use_float32_atomic_add_{true};
  std::atomic<size_t> validation_messages_{0};
  std::once_flag hung_once_;
  std::string hung_why_;  // written once, before hung_ is set
  std::atomic<bool> hung_{false};
};

}  // namespace mlx_lite::vulkan
