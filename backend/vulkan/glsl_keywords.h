// The words a GLSL identifier may not be in the kernels mlx_lite generates:
// GLSL 4.60's keywords and reserved words, Vulkan GLSL's, and the type
// names and qualifiers of the extensions glslang knows (explicit arithmetic
// types, cooperative matrices, ray tracing...), as glslang's keyword table
// (glslang/MachineIndependent/Scan.cpp, KeywordMap and ReservedSet) lists
// them. Buffers named with one (MLX's seeds name their output `out`) are
// declared and referred to under another name (kernel_source.cpp).
#pragma once

#include <span>
#include <string_view>

namespace mlx_lite::vulkan {

// Every word, sorted (tests compile each one as a buffer name).
std::span<const std::string_view> glsl_keywords();

bool is_glsl_keyword(std::string_view word);

}  // namespace mlx_lite::vulkan
