#include "mlx_lite/device.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace mlx_lite {

namespace {

Device initial_device() {
  const char* env = std::getenv("MLX_LITE_DEVICE");
  if (env == nullptr || std::strcmp(env, "cpu") == 0) return Device::cpu;
  if (std::strcmp(env, "gpu") == 0) return Device::gpu;
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
  if (auto* stream = std::get_if<Stream>(&s)) return *stream;
  if (auto* device = std::get_if<Device>(&s)) return default_stream(*device);
  return default_stream(default_device());
}

// The CPU backend runs each eval to completion before returning, so there is
// never outstanding work to wait for.
void synchronize() {}
void synchronize(Stream) {}

}  // namespace mlx_lite
