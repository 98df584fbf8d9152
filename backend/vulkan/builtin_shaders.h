// The SPIR-V of the built-in shaders, compiled at build time
// (backend/vulkan/shaders.cmake). Names are "<family>_<dtype>[_<dtype>]",
// e.g. "copy_float32_float16", "unary_bfloat16", "binary_int32_bool".
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace mlx_lite::vulkan {

// Throws std::invalid_argument naming the shader when there is none.
std::span<const uint32_t> builtin_shader(std::string_view name);

}  // namespace mlx_lite::vulkan
