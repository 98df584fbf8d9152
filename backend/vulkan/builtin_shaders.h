// The SPIR-V of the built-in shaders, compiled at build time
// (backend/vulkan/shaders.cmake). Names are "<family>_<dtype>[_<dtype>]",
// e.g. "copy_float32_float16", "unary_bfloat16", "binary_int32_bool".
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "backend/vulkan/khr_cooperative_matrix.h"

namespace mlx_lite::vulkan {

// Throws std::invalid_argument naming the shader when there is none.
std::span<const uint32_t> builtin_shader(std::string_view name);

// The SPIR-V of built-in shader `name`, written with NV cooperative matrices,
// translated for VK_KHR_cooperative_matrix with `options`: once per process
// (the words live as long as it). Throws KhrTranslationError.
std::span<const uint32_t> khr_builtin_shader(std::string_view name,
                                             const KhrMatrixOptions& options);

}  // namespace mlx_lite::vulkan
