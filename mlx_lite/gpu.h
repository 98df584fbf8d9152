// Facts about the GPU (the Vulkan device), as MLX's metal::device_info().
#pragma once

#include <string>
#include <unordered_map>
#include <variant>

namespace mlx_lite::gpu {

// Whether GPU work can run in this process: a Vulkan loader and device exist
// and MLX_LITE_DEVICE is not "cpu".
bool is_available();

// Name, driver, device type, subgroup size, memory, limits and features of the
// device GPU work runs on. Throws std::runtime_error when there is none.
std::unordered_map<std::string, std::variant<std::string, size_t>> device_info();

// Validation-layer messages seen so far (with MLX_LITE_VULKAN_VALIDATION=1).
size_t validation_messages();

}  // namespace mlx_lite::gpu
