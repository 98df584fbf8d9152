// Devices and streams, as in MLX: a Device is cpu or gpu; a Stream is an ordered
// queue of work on one device; ops take `StreamOrDevice s = {}` last.
#pragma once

#include <string_view>
#include <variant>

namespace mlx_lite {

struct Device {
  enum class DeviceType { cpu, gpu };
  static constexpr DeviceType cpu = DeviceType::cpu;
  static constexpr DeviceType gpu = DeviceType::gpu;

  constexpr Device(DeviceType type, int index = 0) : type(type), index(index) {}

  DeviceType type;
  int index;
};

constexpr bool operator==(const Device& a, const Device& b) {
  return a.type == b.type && a.index == b.index;
}

// The device ops use when given none: gpu when a Vulkan device can be used,
// else cpu. MLX_LITE_DEVICE=cpu|gpu sets it at start-up (cpu also keeps the
// process off Vulkan entirely). Asking for gpu where there is none throws
// std::runtime_error saying why.
const Device& default_device();
void set_default_device(const Device& d);

// Whether work can run on `d`.
bool is_available(const Device& d);

struct Stream {
  int index;
  Device device;
  constexpr explicit Stream(int index, Device device) : index(index), device(device) {}
};

constexpr bool operator==(const Stream& a, const Stream& b) {
  return a.index == b.index;
}

// The calling thread's default stream of a device (each thread has its own,
// as in MLX), and making `s` the calling thread's default for its device.
Stream default_stream(Device d);
void set_default_stream(Stream s);
// A new stream. A stream orders work within a thread; independent graphs
// may be evaluated from several threads at once on any streams
// (docs/architecture.md, "Threads").
Stream new_stream(Device d);

using StreamOrDevice = std::variant<std::monostate, Stream, Device>;

// The stream an op runs on: the given stream, the default stream of the given
// device, or the default stream of the default device.
Stream to_stream(StreamOrDevice s);

// Waits until the work the calling thread submitted to `s` (or to every
// stream) has finished.
void synchronize();
void synchronize(Stream s);

namespace detail {
// MLX_LITE_DEVICE ("cpu", "gpu", or empty when unset), read once.
std::string_view device_setting();
}  // namespace detail

}  // namespace mlx_lite
