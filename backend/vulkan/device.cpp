#include "backend/vulkan/device.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "backend/common/log.h"
#include "backend/gpu_backend.h"
#include "backend/vulkan/matrix_units.h"
#include "mlx_lite/gpu.h"

namespace mlx_lite::vulkan {

namespace {

bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v != nullptr && std::strcmp(v, value) == 0;
}

// Lower is preferred.
int rank(vk::PhysicalDeviceType type) {
  switch (type) {
    case vk::PhysicalDeviceType::eDiscreteGpu:
      return 0;
    case vk::PhysicalDeviceType::eIntegratedGpu:
      return 1;
    case vk::PhysicalDeviceType::eVirtualGpu:
      return 2;
    case vk::PhysicalDeviceType::eCpu:
      return 3;
    default:
      return 4;
  }
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// "'name' (type)", for messages.
std::string describe(const vk::raii::PhysicalDevice& d) {
  const auto p = d.getProperties();
  return fmt::format("'{}' ({})", p.deviceName.data(), vk::to_string(p.deviceType));
}

vk::raii::PhysicalDevice chosen(vk::raii::PhysicalDevice d, std::string_view why) {
  logging::info("Vulkan device {}: {}", describe(d), why);
  return d;
}

vk::raii::PhysicalDevice choose_physical(const vk::raii::Instance& instance) {
  auto devices = instance.enumeratePhysicalDevices();
  if (devices.empty()) throw std::runtime_error("[gpu] No Vulkan device found.");
  if (const char* want = std::getenv("MLX_LITE_VULKAN_DEVICE"); want && *want) {
    std::string w(want);
    const std::string why = fmt::format("MLX_LITE_VULKAN_DEVICE={}", w);
    if (std::all_of(w.begin(), w.end(), ::isdigit)) {
      size_t index = std::stoul(w);
      if (index >= devices.size()) {
        throw std::runtime_error(
            fmt::format("[gpu] MLX_LITE_VULKAN_DEVICE={} but there are only {} Vulkan devices.",
                        index, devices.size()));
      }
      return chosen(std::move(devices[index]), why);
    }
    for (auto& d : devices) {
      if (lower(d.getProperties().deviceName.data()).find(lower(w)) != std::string::npos) {
        return chosen(std::move(d), why);
      }
    }
    std::string names;
    for (auto& d : devices) names += fmt::format(" '{}'", d.getProperties().deviceName.data());
    throw std::runtime_error(
        fmt::format("[gpu] No Vulkan device's name contains '{}'; the devices are:{}.", w, names));
  }
  std::stable_sort(devices.begin(), devices.end(), [](const auto& a, const auto& b) {
    return rank(a.getProperties().deviceType) < rank(b.getProperties().deviceType);
  });
  return chosen(
      std::move(devices.front()),
      fmt::format("the first by type (discrete, integrated, virtual, CPU) of {}", devices.size()));
}

uint32_t choose_memory_type(const vk::raii::PhysicalDevice& physical) {
  auto props = physical.getMemoryProperties();
  const auto host =
      vk::MemoryPropertyFlagBits::eHostVisible | vk::MemoryPropertyFlagBits::eHostCoherent;
  std::optional<uint32_t> best;
  int best_score = -1;
  for (uint32_t i = 0; i < props.memoryTypeCount; ++i) {
    auto flags = props.memoryTypes[i].propertyFlags;
    if ((flags & host) != host) continue;
    auto heap = props.memoryHeaps[props.memoryTypes[i].heapIndex].size;
    // Device-local host-visible memory helps only when it is large (not a
    // 256 MiB BAR window); otherwise cached host memory reads faster.
    int score = 1;
    if ((flags & vk::MemoryPropertyFlagBits::eDeviceLocal) && heap >= (size_t{4} << 30))
      score = 3;
    else if (flags & vk::MemoryPropertyFlagBits::eHostCached)
      score = 2;
    if (score > best_score) {
      best_score = score;
      best = i;
    }
  }
  if (!best) throw std::runtime_error("[gpu] The Vulkan device has no host-visible memory.");
  return *best;
}

}  // namespace

Device& Device::get() {
  static std::once_flag once;
  static Device* device = nullptr;
  static std::string error;
  std::call_once(once, [] {
    try {
      device = new Device();  // lives until exit: arrays may outlive main
    } catch (const std::exception& e) {
      error = e.what();
    }
  });
  if (device == nullptr) throw std::runtime_error(error);
  return *device;
}

bool Device::available() {
  try {
    get();
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

VKAPI_ATTR VkBool32 VKAPI_CALL Device::on_validation_message(
    VkDebugUtilsMessageSeverityFlagBitsEXT, VkDebugUtilsMessageTypeFlagsEXT,
    const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  static_cast<Device*>(user)->validation_messages_.fetch_add(1);
  std::cerr << "[mlx_lite] Vulkan validation: " << data->pMessage << "\n";
  return VK_FALSE;
}

Device::Device() {
  create_instance(env_is("MLX_LITE_VULKAN_VALIDATION", "1"));
  physical_ = choose_physical(instance_);
  read_properties();
  create_device();
  memory_type_ = choose_memory_type(physical_);
}

void Device::create_instance(bool validate) {
  vk::ApplicationInfo app("mlx_lite", 1, "mlx_lite", 1, VK_API_VERSION_1_2);
  std::vector<const char*> layers, extensions;
  if (validate) {
    bool found = false;
    for (auto& l : context_.enumerateInstanceLayerProperties()) {
      found |= std::strcmp(l.layerName, "VK_LAYER_KHRONOS_validation") == 0;
    }
    if (!found) {
      throw std::runtime_error(
          "[gpu] MLX_LITE_VULKAN_VALIDATION=1 but VK_LAYER_KHRONOS_validation is not installed "
          "(Debian package vulkan-validationlayers).");
    }
    layers.push_back("VK_LAYER_KHRONOS_validation");
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  }
  instance_ = vk::raii::Instance(context_, vk::InstanceCreateInfo({}, &app, layers, extensions));
  if (validate) {
    using Severity = vk::DebugUtilsMessageSeverityFlagBitsEXT;
    using Type = vk::DebugUtilsMessageTypeFlagBitsEXT;
    messenger_ = vk::raii::DebugUtilsMessengerEXT(
        instance_, vk::DebugUtilsMessengerCreateInfoEXT(
                       {}, Severity::eWarning | Severity::eError,
                       Type::eGeneral | Type::eValidation | Type::ePerformance,
                       &Device::on_validation_message, this));
  }
}

// The name, the limits, and the compute queue family.
void Device::read_properties() {
  auto props =
      physical_
          .getProperties2<vk::PhysicalDeviceProperties2, vk::PhysicalDeviceSubgroupProperties>();
  const auto& p = props.get<vk::PhysicalDeviceProperties2>().properties;
  name_ = p.deviceName.data();
  on_cpu_ = p.deviceType == vk::PhysicalDeviceType::eCpu;
  limits_.subgroup_size = props.get<vk::PhysicalDeviceSubgroupProperties>().subgroupSize;
  for (int i = 0; i < 3; ++i) {
    limits_.max_workgroup_count[i] = p.limits.maxComputeWorkGroupCount[i];
    limits_.max_workgroup_size[i] = p.limits.maxComputeWorkGroupSize[i];
  }
  limits_.max_workgroup_invocations = p.limits.maxComputeWorkGroupInvocations;
  limits_.max_shared_memory = p.limits.maxComputeSharedMemorySize;
  limits_.max_push_constants = p.limits.maxPushConstantsSize;
  limits_.max_storage_buffer_range = p.limits.maxStorageBufferRange;
  limits_.min_storage_buffer_offset_alignment = p.limits.minStorageBufferOffsetAlignment;
  limits_.min_uniform_buffer_offset_alignment = p.limits.minUniformBufferOffsetAlignment;
  limits_.timestamp_period = p.limits.timestampPeriod;

  auto families = physical_.getQueueFamilyProperties();
  auto family = std::find_if(families.begin(), families.end(), [](const auto& f) {
    return static_cast<bool>(f.queueFlags & vk::QueueFlagBits::eCompute);
  });
  if (family == families.end()) {
    throw std::runtime_error(fmt::format("[gpu] Vulkan device '{}' has no compute queue.", name_));
  }
  queue_family_ = static_cast<uint32_t>(family - families.begin());
  limits_.timestamp_valid_bits = family->timestampValidBits;
}

// The logical device and its queue, with the features the built-in
// shaders rely on and the optional ones (device_features.h) custom kernels
// may use, where present.
void Device::create_device() {
  auto supported =
      physical_.getFeatures2<vk::PhysicalDeviceFeatures2, vk::PhysicalDeviceVulkan11Features,
                             vk::PhysicalDeviceVulkan12Features>();
  const auto& f10 = supported.get<vk::PhysicalDeviceFeatures2>().features;
  const auto& f11 = supported.get<vk::PhysicalDeviceVulkan11Features>();
  const auto& f12 = supported.get<vk::PhysicalDeviceVulkan12Features>();
  std::string missing;
  if (!f10.shaderInt64) missing += " shaderInt64";
  if (!f10.shaderInt16) missing += " shaderInt16";
  if (!f11.storageBuffer16BitAccess) missing += " storageBuffer16BitAccess";
  if (!f12.storageBuffer8BitAccess) missing += " storageBuffer8BitAccess";
  if (!f12.shaderInt8) missing += " shaderInt8";
  if (!f12.timelineSemaphore) missing += " timelineSemaphore";
  std::vector<std::string> extensions;
  for (auto& e : physical_.enumerateDeviceExtensionProperties()) {
    extensions.emplace_back(e.extensionName.data());
  }
  if (std::ranges::find(extensions, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME) == extensions.end()) {
    missing += " VK_KHR_push_descriptor";
  }
  if (!missing.empty()) {
    throw std::runtime_error(
        fmt::format("[gpu] Vulkan device '{}' lacks what mlx_lite needs:{}.", name_, missing));
  }
  features_ = read_device_features(instance_, physical_, extensions);
  if (env_is("MLX_LITE_VULKAN_NO_FLOAT_ATOMICS", "1")) features_.float32_atomic_add = false;
  if (env_is("MLX_LITE_VULKAN_NO_HOST_QUERY_RESET", "1")) features_.host_query_reset = false;
  // Capturing statistics may cost pipeline creation time: debug logs only.
  if (logging::level() >= logging::Level::debug) {
    logging::debug("pipeline statistics: {}",
                   features_.pipeline_statistics
                       ? "logged for each pipeline"
                       : "none (the device lacks VK_KHR_pipeline_executable_properties)");
  } else {
    features_.pipeline_statistics = false;
  }
  const FeatureEnables enables(features_, extensions, khr_matrices_requested());

  float priority = 1.0f;
  vk::DeviceQueueCreateInfo queue_info({}, queue_family_, 1, &priority);
  vk::DeviceCreateInfo info({}, queue_info, {}, enables.extensions());
  info.pNext = &enables.chain();
  device_ = vk::raii::Device(physical_, info);
  queue_ = vk::raii::Queue(device_, queue_family_, 0);
}

void Device::submit(vk::CommandBuffer commands, vk::Semaphore done, uint64_t value) {
  throw_if_hung();
  vk::TimelineSemaphoreSubmitInfo timeline({}, value);
  vk::SubmitInfo info({}, {}, commands, done);
  info.pNext = &timeline;
  std::lock_guard lock(queue_mutex_);
  queue_.submit(info);
}

void Device::mark_hung(const std::string& why) {
  std::call_once(hung_once_, [&] {
    hung_why_ = why;
    hung_.store(true, std::memory_order_release);
  });
}

void Device::throw_hung() const {
  throw std::runtime_error(fmt::format(
      "[gpu] The GPU cannot run more work in this process: earlier work did not finish ({}). "
      "The CPU device keeps working.",
      hung_why_));
}

}  // namespace mlx_lite::vulkan

namespace mlx_lite::gpu {

bool is_available() {
  return gpu_backend::is_active();  // MLX_LITE_DEVICE=cpu keeps the process off Vulkan
}

std::unordered_map<std::string, std::variant<std::string, size_t>> device_info() {
  auto& d = vulkan::Device::get();
  auto props =
      d.physical()
          .getProperties2<vk::PhysicalDeviceProperties2, vk::PhysicalDeviceDriverProperties>();
  const auto& p = props.get<vk::PhysicalDeviceProperties2>().properties;
  const auto& driver = props.get<vk::PhysicalDeviceDriverProperties>();
  auto memory = d.physical().getMemoryProperties();
  size_t device_memory = 0;
  for (uint32_t i = 0; i < memory.memoryHeapCount; ++i) {
    if (memory.memoryHeaps[i].flags & vk::MemoryHeapFlagBits::eDeviceLocal) {
      device_memory = std::max<size_t>(device_memory, memory.memoryHeaps[i].size);
    }
  }
  const auto& l = d.limits();
  const auto& f = d.features();
  // How 32-wide simdgroups run (docs/custom_kernels.md, "Simdgroups").
  const char* simdgroups = f.subgroup_size == 32   ? "native"
                           : f.require_subgroup_32 ? "required"
                                                   : "emulated";
  return {
      {"device_name", d.name()},
      {"device_type", vk::to_string(p.deviceType)},
      {"driver_name", std::string(driver.driverName.data())},
      {"driver_info", std::string(driver.driverInfo.data())},
      {"vulkan_version",
       fmt::format("{}.{}.{}", VK_API_VERSION_MAJOR(p.apiVersion),
                   VK_API_VERSION_MINOR(p.apiVersion), VK_API_VERSION_PATCH(p.apiVersion))},
      {"subgroup_size", size_t{l.subgroup_size}},
      {"simdgroup_32", std::string(simdgroups)},
      {"memory_size", device_memory},
      {"max_storage_buffer_range", size_t{l.max_storage_buffer_range}},
      {"max_workgroup_count_x", size_t{l.max_workgroup_count[0]}},
      {"max_workgroup_count_y", size_t{l.max_workgroup_count[1]}},
      {"max_workgroup_count_z", size_t{l.max_workgroup_count[2]}},
      {"max_workgroup_invocations", size_t{l.max_workgroup_invocations}},
      {"max_shared_memory", size_t{l.max_shared_memory}},
      {"max_push_constants", size_t{l.max_push_constants}},
      {"float32_atomic_add", size_t{d.float32_atomic_add()}},
      {"float16", size_t{d.float16()}},
      {"float64", size_t{f.float64}},
      {"subgroup_extended_types", size_t{f.subgroup_extended_types}},
      {"int64_atomics", size_t{f.int64_atomics}},
      {"float32_atomics", size_t{f.float32_atomics}},
      {"float32_atomic_min_max", size_t{f.float32_atomic_min_max}},
      {"float16_atomic_add", size_t{f.float16_atomic_add}},
      {"vulkan_memory_model", size_t{f.vulkan_memory_model}},
      {"cooperative_matrix", vulkan::describe_cooperative_matrix(f.cooperative_matrix_shapes)},
      {"khr_cooperative_matrix",
       vulkan::describe_cooperative_matrix(f.khr_cooperative_matrix_shapes)},
      {"bfloat16_cooperative_matrix", size_t{f.bfloat16_cooperative_matrix}},
      {"workgroup_cooperative_matrix",
       vulkan::describe_cooperative_matrix(f.workgroup_cooperative_matrix_shapes)},
      {"matmul_matrix_units", vulkan::describe_matmul_matrix_units(d)},
      {"simdgroup_matrix", vulkan::describe_kernel_matrix_units(d)},
      {"timestamp_valid_bits", size_t{l.timestamp_valid_bits}},
  };
}

size_t validation_messages() {
  return vulkan::Device::available() ? vulkan::Device::get().validation_messages() : 0;
}

}  // namespace mlx_lite::gpu
