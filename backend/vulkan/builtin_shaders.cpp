#include "backend/vulkan/builtin_shaders.h"

#include <absl/container/flat_hash_map.h>
#include <absl/container/node_hash_map.h>

#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

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

std::span<const uint32_t> khr_builtin_shader(std::string_view name,
                                             const KhrMatrixOptions& options) {
  static std::mutex mutex;
  static absl::node_hash_map<std::string, std::vector<uint32_t>> translated;  // stable values
  const std::string key = std::string(name) + (options.float16_as_bfloat16 ? "/bfloat16" : "");
  std::lock_guard lock(mutex);
  auto it = translated.find(key);
  if (it == translated.end()) {
    it = translated.emplace(key, translate_to_khr_cooperative_matrix(builtin_shader(name), options))
             .first;
  }
  return it->second;
}

}  // namespace mlx_lite::vulkan
