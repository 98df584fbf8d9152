#include "mlx_lite/device.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/gpu_backend.h"

namespace mlx_lite {

namespace {

void require_gpu() {
  if (gpu_backend::is_active()) return;
  const char* env = std::getenv("MLX_LITE_DEVICE");
  if (env != nullptr && std::strcmp(env, "cpu") == 0) {
    throw std::runtime_error("[gpu] The GPU was asked for, but MLX_LITE_DEVICE=cpu disables it.");
  }
  throw std::runtime_error(
      "[gpu] The GPU was asked for, but no Vulkan device can be used (install a Vulkan driver, "
      "e.g. Debian's mesa-vulkan-drivers for lavapipe); Device::cpu keeps working.");
}

// gpu whenever a Vulkan device can be used, unless MLX_LITE_DEVICE says.
Device initial_device() {
  const char* env = std::getenv("MLX_LITE_DEVICE");
  if (env == nullptr) return gpu_backend::is_active() ? Device::gpu : Device::cpu;
  if (std::strcmp(env, "cpu") == 0) return Device::cpu;
  if (std::strcmp(env, "gpu") == 0) {
    require_gpu();
    return Device::gpu;
  }
  throw std::invalid_argument(std::string("MLX_LITE_DEVICE must be 'cpu' or 'gpu', got '") + env +
                              "'");
}

struct StreamRegistry {
  std::mutex mutex;
  std::vector<Stream> streams;
  Stream default_cpu{0, Device::cpu};
  Stream default_gpu{1, Device::gpu};
  StreamRegistry() {
    streams.push_back(default_cpu);
    streams.push_back(default_gpu);
  }
};

StreamRegistry& registry() {
  static StreamRegistry r;
  return r;
}

Device& mutable_default_device() {
  static Device d = initial_device();
  return d;
}

}  // namespace

const Device& default_device() {
  return mutable_default_device();
}

void set_default_device(const Device& d) {
  mutable_default_device() = d;
}

bool is_available(const Device& d) {
  return d.type == Device::cpu;
}

Stream default_stream(Device d) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  return d.type == Device::cpu ? r.default_cpu : r.default_gpu;
}

void set_default_stream(Stream s) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  (s.device.type == Device::cpu ? r.default_cpu : r.default_gpu) = s;
}

Stream new_stream(Device d) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  Stream s(static_cast<int>(r.streams.size()), d);
  r.streams.push_back(s);
  return s;
}

Stream to_stream(StreamOrDevice s) {
  if (auto* stream = std::get_if<Stream>(&s)) {
    if (stream->device.type == Device::gpu) require_gpu();
    return *stream;
  }
  if (auto* device = std::get_if<Device>(&s)) {
    if (device->type == Device::gpu) require_gpu();
    return default_stream(*device);
  }
  return default_stream(default_device());
}

// eval waits for its GPU work, so only work recorded outside an eval (none
// today) could be outstanding; finishing it is cheap when there is none.
void synchronize() {
  gpu_backend::finish();
}
void synchronize(Stream) {
  gpu_backend::finish();
}

}  // namespace mlx_lite
