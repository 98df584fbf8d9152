/// \file
/// Devices and streams, as in MLX: a Device is cpu or gpu; a Stream is an ordered
/// queue of work on one device; ops take `StreamOrDevice s = {}` last.
#pragma once

#include <string_view>
#include <variant>
#include <vector>

namespace mlx_lite {

/// Where work runs: the CPU or the GPU (the Vulkan device).
struct Device {
  /// The kinds of device.
  enum class DeviceType {
    cpu,  ///< The host.
    gpu   ///< The Vulkan device.
  };
  /// Device::cpu, as in MLX.
  static constexpr DeviceType cpu = DeviceType::cpu;
  /// Device::gpu, as in MLX.
  static constexpr DeviceType gpu = DeviceType::gpu;

  /// The device of kind `type`; implicit, so Device::gpu is a Device.
  constexpr Device(DeviceType type, int index = 0) : type(type), index(index) {}

  /// The kind of device.
  DeviceType type;
  /// Which device of its kind. Only 0 is used: work runs on one device of
  /// each kind (MLX_LITE_VULKAN_DEVICE picks the Vulkan one).
  int index;
};

/// Same kind and index.
constexpr bool operator==(const Device& a, const Device& b) {
  return a.type == b.type && a.index == b.index;
}
/// Whether `d` is of kind `type` (`default_device() == Device::gpu`).
constexpr bool operator==(const Device& d, Device::DeviceType type) {
  return d.type == type;
}
/// Orders devices by kind, then index (so they can key a std::set or std::map).
constexpr bool operator<(const Device& a, const Device& b) {
  return a.type != b.type ? a.type < b.type : a.index < b.index;
}

/// The device ops use when given none: gpu when a Vulkan device can be used,
/// else cpu. MLX_LITE_DEVICE=cpu|gpu sets it at start-up (cpu also keeps the
/// process off Vulkan entirely). Asking for gpu where there is none throws
/// std::runtime_error saying why.
const Device& default_device();
/// Makes `d` the device ops use when given none, for every thread. Throws
/// std::invalid_argument for the GPU where none can be used.
void set_default_device(const Device& d);

/// Whether work can run on `d`: always for Device::cpu; for Device::gpu
/// where a Vulkan device can be used and MLX_LITE_DEVICE is not "cpu" (as
/// gpu::is_available() in mlx_lite/gpu.h).
bool is_available(const Device& d);

/// An ordered queue of work on one device, as in MLX.
struct Stream {
  /// Which stream; new_stream() numbers streams across the process, whatever
  /// the device.
  int index;
  /// The device the stream's work runs on.
  Device device;
  /// Names stream `index` of `device`; new_stream() makes new ones.
  constexpr explicit Stream(int index, Device device) : index(index), device(device) {}
};

/// Same index.
constexpr bool operator==(const Stream& a, const Stream& b) {
  return a.index == b.index;
}
/// Orders streams by index, the order new_stream() made them in.
constexpr bool operator<(const Stream& a, const Stream& b) {
  return a.index < b.index;
}

/// The calling thread's default stream of a device (each thread has its own,
/// as in MLX). Throws std::invalid_argument for the GPU where none can be used.
Stream default_stream(Device d);
/// Makes `s` the calling thread's default for its device.
void set_default_stream(Stream s);
/// A new stream. A stream orders work within a thread; independent graphs
/// may be evaluated from several threads at once on any streams
/// (docs/architecture.md, "Threads"). Throws std::invalid_argument for the
/// GPU where none can be used.
Stream new_stream(Device d);
/// The stream new_stream() numbered `index`; throws std::invalid_argument
/// when there is none.
Stream get_stream(int index);
/// Every stream made so far (default streams included), in the order they
/// were made.
std::vector<Stream> get_streams();

/// What every op takes last: nothing (`{}`, the default stream of the
/// default device), a Stream, or a Device (its default stream).
using StreamOrDevice = std::variant<std::monostate, Stream, Device>;

/// The stream an op runs on: the given stream, the default stream of the given
/// device, or the default stream of the default device. Throws
/// std::invalid_argument, saying why, for the GPU where there is none.
Stream to_stream(StreamOrDevice s);

/// Waits until the work the calling thread submitted to `s` (or to every
/// stream) has finished.
/// @{
void synchronize();
void synchronize(Stream s);
/// @}

namespace detail {
// MLX_LITE_DEVICE ("cpu", "gpu", or empty when unset), read once.
std::string_view device_setting();
}  // namespace detail

}  // namespace mlx_lite
