// How the host waits for GPU work (timeline.cpp's Timeline::wait):
// - The watchdog: MLX_LITE_GPU_TIMEOUT (seconds) bounds how long the host
//   waits for any one batch of GPU work. Vulkan cannot stop a running
//   dispatch, so work that outlives the limit (a runaway custom kernel, a
//   reduction over a broadcast of 2^40 elements on lavapipe) becomes an
//   exception instead of a process that never returns; the device is then
//   unusable for the rest of the process (Device::mark_hung). Unset, the
//   wait is unbounded, as in MLX: long work is not an error by itself.
// - The spin: MLX_LITE_GPU_SPIN (seconds) is how long the host polls the
//   timeline semaphore before it sleeps in vkWaitSemaphores. Waking from
//   that sleep took tens of microseconds on the H100's driver, more than
//   small evals run on the GPU, and about 200 us after a sleep of
//   milliseconds (H200: a 13 ms eval took 13.1 ms with a 2 ms spin, 12.9-13.0
//   with 20 ms). CUDA's default synchronization spins without a limit. The
//   default is 20 ms on a GPU, past which a late wake costs under 1% of the
//   wait, and 0 on a CPU device (lavapipe), whose shaders run on the cores a
//   spinning thread would take.
#pragma once

#include <cstdint>
#include <optional>

namespace mlx_lite::vulkan {

// The limit in nanoseconds, or nullopt when MLX_LITE_GPU_TIMEOUT is unset or
// empty. Read once; a value that is not a positive number of seconds throws
// std::invalid_argument (at every call, so every GPU wait reports it).
std::optional<uint64_t> gpu_timeout_ns();

// The spin in nanoseconds: MLX_LITE_GPU_SPIN where set (0 turns spinning
// off), else the default for a device that is or is not the CPU. A value
// that is not a number of seconds from 0 to 1 throws std::invalid_argument
// at every call.
uint64_t gpu_spin_ns(bool cpu_device);

}  // namespace mlx_lite::vulkan
