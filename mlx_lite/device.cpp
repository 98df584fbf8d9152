#include "mlx_lite/device.h"

#include <fmt/format.h>

#include <cstdlib>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/common/log.h"
#include "backend/gpu_backend.h"

namespace mlx_lite {

namespace {

// Why the GPU cannot be used, or nothing when it can.
std::optional<std::string> gpu_unavailable_reason() {
  if (gpu_backend::is_active()) return std::nullopt;
  if (detail::device_setting() == "cpu") return "MLX_LITE_DEVICE=cpu disables it";
  return "no Vulkan device can be used (install a Vulkan driver, e.g. Debian's "
         "mesa-vulkan-drivers for lavapipe); Device::cpu keeps working";
}

// A call that names the GPU where there is none is a bad argument, as in MLX.
void require_gpu(const char* op) {
  if (auto why = gpu_unavailable_reason()) {
    throw std::invalid_argument(fmt::format("[{}] The GPU was asked for, but {}.", op, *why));
  }
}

// Every stream made, in order: get_stream() and get_streams() read it.
struct StreamRegistry {
  std::mutex mutex;
  std::vector<Stream> streams;
};
StreamRegistry& stream_registry() {
  static auto* registry = new StreamRegistry;  // leaked: streams outlive static destruction
  return *registry;
}

// gpu whenever a Vulkan device can be used, unless MLX_LITE_DEVICE says.
Device choose_initial_device() {
  const std::string_view env = detail::device_setting();
  if (env.empty()) return gpu_backend::is_active() ? Device::gpu : Device::cpu;
  if (env == "cpu") return Device::cpu;
  if (env == "gpu") {
    // A setting the process cannot honour: not an argument error.
    if (auto why = gpu_unavailable_reason()) {
      throw std::runtime_error(fmt::format("[gpu] MLX_LITE_DEVICE=gpu, but {}.", *why));
    }
    return Device::gpu;
  }
  throw std::invalid_argument(fmt::format("MLX_LITE_DEVICE must be 'cpu' or 'gpu', got '{}'", env));
}

Device initial_device() {
  const Device d = choose_initial_device();
  const std::string_view env = detail::device_setting();
  logging::info("default device {}: {}", d.type == Device::gpu ? "gpu" : "cpu",
                env.empty() ? (d.type == Device::gpu ? "a Vulkan device can be used"
                                                     : "no Vulkan device can be used")
                            : fmt::format("MLX_LITE_DEVICE={}", env));
  return d;
}

// Each thread's default streams, made on its first use of each (MLX's
// default streams are per thread too): a thread's work never waits behind
// another thread's on a shared default stream.
struct ThreadStreams {
  std::optional<Stream> cpu, gpu;
  std::optional<Stream>& of(Device::DeviceType type) { return type == Device::cpu ? cpu : gpu; }
};
thread_local ThreadStreams thread_streams;

Device& mutable_default_device() {
  static Device d = initial_device();
  return d;
}

}  // namespace

const Device& default_device() {
  return mutable_default_device();
}

void set_default_device(const Device& d) {
  if (d.type == Device::gpu) require_gpu("set_default_device");
  mutable_default_device() = d;
}

bool is_available(const Device& d) {
  return d.type == Device::cpu || gpu_backend::is_active();
}

Stream default_stream(Device d) {
  if (d.type == Device::gpu) require_gpu("default_stream");
  auto& slot = thread_streams.of(d.type);
  if (!slot) slot = new_stream(d);
  return *slot;
}

void set_default_stream(Stream s) {
  thread_streams.of(s.device.type) = s;
}

Stream new_stream(Device d) {
  if (d.type == Device::gpu) require_gpu("new_stream");
  auto& registry = stream_registry();
  std::lock_guard lock(registry.mutex);
  const Stream s(static_cast<int>(registry.streams.size()), d);
  registry.streams.push_back(s);
  return s;
}

Stream get_stream(int index) {
  auto& registry = stream_registry();
  std::lock_guard lock(registry.mutex);
  if (index < 0 || index >= static_cast<int>(registry.streams.size())) {
    throw std::invalid_argument(fmt::format(
        "[get_stream] There is no stream {}; new_stream() has made {} streams (0 to {}).", index,
        registry.streams.size(), static_cast<int>(registry.streams.size()) - 1));
  }
  return registry.streams[index];
}

std::vector<Stream> get_streams() {
  auto& registry = stream_registry();
  std::lock_guard lock(registry.mutex);
  return registry.streams;
}

Stream to_stream(StreamOrDevice s) {
  if (auto* stream = std::get_if<Stream>(&s)) {
    if (stream->device.type == Device::gpu) require_gpu("stream");
    return *stream;
  }
  if (auto* device = std::get_if<Device>(&s)) {
    if (device->type == Device::gpu) require_gpu("device");
    return default_stream(*device);
  }
  return default_stream(default_device());
}

// The calling thread records the GPU work of its streams in one encoder
// (backend/vulkan/encoder.h), in order: waiting for a stream's work is
// waiting for that encoder's. CPU work runs within eval, so it is done.
void synchronize() {
  gpu_backend::finish();
}
void synchronize(Stream s) {
  if (s.device.type == Device::gpu) gpu_backend::finish();
}

namespace detail {

std::string_view device_setting() {
  static const std::string value = [] {
    const char* env = std::getenv("MLX_LITE_DEVICE");
    return std::string(env != nullptr ? env : "");
  }();
  return value;
}

}  // namespace detail

}  // namespace mlx_lite
