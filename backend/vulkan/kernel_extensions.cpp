#include "backend/vulkan/kernel_extensions.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <stdexcept>

#include "backend/vulkan/device.h"

namespace mlx_lite::vulkan {

namespace {

// What an extension needs of the device: a test of its features and the
// name of what it tests.
struct Need {
  std::string_view extension;
  std::string_view feature;
  std::function<bool(const DeviceFeatures&)> has;
};

bool subgroup_op(const DeviceFeatures& f, vk::SubgroupFeatureFlagBits bit) {
  return static_cast<bool>(f.subgroup_operations & bit);
}

const std::vector<Need>& needs() {
  using Bit = vk::SubgroupFeatureFlagBits;
  static const std::vector<Need> table = {
      {"GL_EXT_shader_explicit_arithmetic_types_float16", "shaderFloat16",
       [](const DeviceFeatures& f) { return f.float16; }},
      {"GL_EXT_shader_explicit_arithmetic_types_float64", "shaderFloat64",
       [](const DeviceFeatures& f) { return f.float64; }},
      {"GL_EXT_shader_subgroup_extended_types_int8", "shaderSubgroupExtendedTypes",
       [](const DeviceFeatures& f) { return f.subgroup_extended_types; }},
      {"GL_EXT_shader_subgroup_extended_types_int16", "shaderSubgroupExtendedTypes",
       [](const DeviceFeatures& f) { return f.subgroup_extended_types; }},
      {"GL_EXT_shader_subgroup_extended_types_int64", "shaderSubgroupExtendedTypes",
       [](const DeviceFeatures& f) { return f.subgroup_extended_types; }},
      {"GL_EXT_shader_subgroup_extended_types_float16",
       "shaderSubgroupExtendedTypes and shaderFloat16",
       [](const DeviceFeatures& f) { return f.subgroup_extended_types && f.float16; }},
      {"GL_EXT_shader_atomic_int64", "shaderBufferInt64Atomics",
       [](const DeviceFeatures& f) { return f.int64_atomics; }},
      {"GL_EXT_shader_atomic_float", "shaderBufferFloat32AtomicAdd (VK_EXT_shader_atomic_float)",
       [](const DeviceFeatures& f) { return f.float32_atomic_add || f.float32_atomics; }},
      {"GL_EXT_shader_atomic_float2",
       "shaderBufferFloat32AtomicMinMax or shaderBufferFloat16AtomicAdd "
       "(VK_EXT_shader_atomic_float2)",
       [](const DeviceFeatures& f) { return f.float32_atomic_min_max || f.float16_atomic_add; }},
      {"GL_KHR_memory_scope_semantics", "vulkanMemoryModel",
       [](const DeviceFeatures& f) { return f.vulkan_memory_model; }},
      {"GL_NV_cooperative_matrix", "VK_NV_cooperative_matrix",
       [](const DeviceFeatures& f) { return f.cooperative_matrix; }},
      {"GL_KHR_shader_subgroup_clustered", "clustered subgroup operations",
       [](const DeviceFeatures& f) { return subgroup_op(f, Bit::eClustered); }},
      {"GL_KHR_shader_subgroup_quad", "quad subgroup operations",
       [](const DeviceFeatures& f) { return subgroup_op(f, Bit::eQuad); }},
  };
  return table;
}

// Extensions this build's glslang cannot compile, with what to do instead.
std::string_view unsupported(std::string_view name) {
  if (name == "GL_KHR_cooperative_matrix") {
    return "this build's GLSL compiler (glslang 12) does not know it; use the simdgroup "
           "matrices (simdgroup_half16x16, docs/custom_kernels.md \"Matrix units\"), which run "
           "on any device's matrix units or without them, or GL_NV_cooperative_matrix where the "
           "device has VK_NV_cooperative_matrix";
  }
  return "";
}

}  // namespace

std::vector<std::string> requested_extensions(std::string_view text) {
  // A scan, not std::regex: a multiline regex reads libstdc++'s ctype cache,
  // which ThreadSanitizer reports as a race when kernels compile on several
  // threads.
  auto skip_blanks = [&](size_t i) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    return i;
  };
  auto ident_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::vector<std::string> names;
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    size_t i = skip_blanks(start);
    if (i < end && text[i] == '#') {
      i = skip_blanks(i + 1);
      constexpr std::string_view kWord = "extension";
      const size_t name = skip_blanks(i + kWord.size());
      if (text.compare(i, kWord.size(), kWord) == 0 && name > i + kWord.size()) {
        size_t j = name;
        while (j < end && ident_char(text[j])) ++j;
        if (j > name && skip_blanks(j) < end && text[skip_blanks(j)] == ':') {
          names.emplace_back(text.substr(name, j - name));
        }
      }
    }
    start = end + 1;
  }
  return names;
}

void check_kernel_extensions(const std::string& kernel_name, const std::string& header,
                             const std::string& source) {
  auto names = requested_extensions(header);
  auto in_source = requested_extensions(source);
  names.insert(names.end(), in_source.begin(), in_source.end());
  const Device& device = Device::get();
  for (const auto& name : names) {
    if (auto why = unsupported(name); !why.empty()) {
      throw std::runtime_error(fmt::format(
          "[vulkan_kernel] Kernel '{}' requests {}, which custom kernels cannot use: {}.",
          kernel_name, name, why));
    }
    for (const auto& need : needs()) {
      if (need.extension != name || need.has(device.features())) continue;
      throw std::runtime_error(fmt::format(
          "[vulkan_kernel] Kernel '{}' requests {}, which needs {}; this device ({}) does not "
          "have it (gpu::device_info() lists what it has).",
          kernel_name, name, need.feature, device.name()));
    }
  }
}

}  // namespace mlx_lite::vulkan
