// The device side of fast::vulkan_kernel: what a call needs to know of the
// Vulkan device before it builds its CustomKernel node (ops/fast.cpp), so
// that bad launches fail at the call, not at eval.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace mlx_lite::vulkan {

// Whether fast::vulkan_kernel can run: the GPU backend is active. Throws
// std::runtime_error saying why not.
void require_gpu_backend();

// Whether shaders may atomicAdd float32 storage on this device.
bool device_float32_atomic_add();

// Throws std::invalid_argument when the threadgroup exceeds the device's
// workgroup limits, or the grid needs more workgroups than it can launch.
void check_launch(const std::string& kernel_name, const std::array<uint32_t, 3>& grid,
                  const std::array<uint32_t, 3>& threadgroup);

}  // namespace mlx_lite::vulkan
