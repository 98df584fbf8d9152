// Hints for compile errors caused by Metal idioms in a custom kernel ported
// from MLX's metal_kernel: glslang says "'threadgroup' : undeclared
// identifier"; the hint says what the GLSL form is and where the porting
// guide (docs/porting_metal_kernels.md) has it. kernel_compiler.cpp's
// explain_log adds at most one per error line.
#pragma once

#include <string>
#include <string_view>

namespace mlx_lite::vulkan {

// A one-line hint for glslang's error `message` about `token` (what glslang
// quoted, e.g. "threadgroup"; may be empty) on the user's `line`, or "" when
// no Metal idiom explains it.
std::string metal_hint(std::string_view token, std::string_view message, std::string_view line);

}  // namespace mlx_lite::vulkan
