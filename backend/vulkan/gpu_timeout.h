// The watchdog on GPU waits: MLX_LITE_GPU_TIMEOUT (seconds) bounds how long
// the host waits for any one batch of GPU work. Vulkan cannot stop a running
// dispatch, so work that outlives the limit (a runaway custom kernel, a
// reduction over a broadcast of 2^40 elements on lavapipe) becomes an
// exception instead of a process that never returns; the device is then
// unusable for the rest of the process (Device::mark_hung). Unset, the wait
// is unbounded, as in MLX: long work is not an error by itself.
#pragma once

#include <cstdint>
#include <optional>

namespace mlx_lite::vulkan {

// The limit in nanoseconds, or nullopt when MLX_LITE_GPU_TIMEOUT is unset or
// empty. Read once; a value that is not a positive number of seconds throws
// std::invalid_argument (at every call, so every GPU wait reports it).
std::optional<uint64_t> gpu_timeout_ns();

}  // namespace mlx_lite::vulkan
