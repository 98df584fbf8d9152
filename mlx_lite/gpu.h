// Facts about the GPU (the Vulkan device), as MLX's metal::device_info().
#pragma once

#include <string>
#include <unordered_map>
#include <variant>

/// The GPU (the Vulkan device): whether it is there, what it is, and its own
/// timing of the work (as CUDA events time it for PyTorch users).
namespace mlx_lite::gpu {

/// Whether GPU work can run in this process: a Vulkan loader and device exist
/// and MLX_LITE_DEVICE is not "cpu".
bool is_available();

/// Name, driver, device type, subgroup size, memory, limits and features of the
/// device GPU work runs on. Throws std::runtime_error when there is none.
std::unordered_map<std::string, std::variant<std::string, size_t>> device_info();

/// Validation-layer messages seen so far (with MLX_LITE_VULKAN_VALIDATION=1).
size_t validation_messages();

// Timing GPU work, as CUDA events time it for PyTorch users, from the GPU's
// own clock (Vulkan timestamp queries): wall time around eval() also counts
// the host's recording, submitting and waking up, which this leaves out.
//
//   gpu::start_timing();
//   eval(add(a, b));
//   double ns = gpu::stop_timing();
//
// Timing is per thread: it counts the GPU work the calling thread records
// between the two calls, in batches (each eval submits one or more); each
// batch counts from when the GPU could start it (the work submitted before
// it, on any thread, done) to its end, and the batches' spans are summed, so
// the GPU's idle time between batches is not counted. Work submitted before
// start_timing() is not counted, nor work on the CPU device. Other threads'
// work is not counted, but it shares the GPU and may slow the timed work
// down. Batches recorded while no thread times carry no timestamps.

/// Whether the device can time GPU work: there is one and its compute queue
/// writes timestamps (lavapipe's does). Where false, start_timing() throws.
bool timing_supported();

/// Starts timing the calling thread's GPU work: what it recorded before is
/// submitted first, untimed. Throws std::runtime_error when there is no GPU or
/// it cannot time (timing_supported()), std::logic_error when the thread is
/// timing already.
void start_timing();

/// Waits for the calling thread's GPU work and returns the GPU time, in
/// nanoseconds, of the work it recorded since start_timing(); 0 when none.
/// Throws std::logic_error when the thread is not timing.
double stop_timing();

}  // namespace mlx_lite::gpu
