// The GLSL extensions a custom kernel's header or source requests
// (#extension lines), checked against the device's features before the
// kernel compiles: an extension whose feature the device lacks would
// compile, then fail validation or misbehave at the dispatch.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mlx_lite::vulkan {

// The extension names of the `#extension NAME : behavior` lines of `text`.
std::vector<std::string> requested_extensions(std::string_view text);

// Throws std::runtime_error naming the extension, what it needs and the
// device, for the first extension `header` or `source` requests whose
// feature the device lacks (or that this build cannot compile).
void check_kernel_extensions(const std::string& kernel_name, const std::string& header,
                             const std::string& source);

}  // namespace mlx_lite::vulkan
