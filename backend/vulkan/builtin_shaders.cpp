#include "backend/vulkan/builtin_shaders.h"

#include <absl/container/flat_hash_map.h>

#include <stdexcept>
#include <string>

// spirv_<name> arrays of every variant and MLX_LITE_SHADER_ENTRIES, generated.
#include "builtin_shaders_table.inc"

namespace mlx_lite::vulkan {

std::span<const uint32_t> builtin_shader(std::string_view name) {
  static const absl::flat_hash_map<std::string_view, std::span<const uint32_t>> table = {
      MLX_LITE_SHADER_ENTRIES};
  auto it = table.find(name);
  if (it == table.end()) {
    throw std::invalid_argument("[gpu] No built-in shader named '" + std::string(name) + "'.");
  }
  return it->second;
}

}  // namespace mlx_lite::vulkan
