#include "backend/vulkan/spirv_interface.h"

#include <algorithm>

namespace mlx_lite::vulkan {

namespace {

// The SPIR-V specification, section 3.
constexpr uint32_t kOpCapability = 17;
constexpr uint32_t kOpDecorate = 71;
constexpr uint32_t kDecorationBinding = 33;
constexpr size_t kHeaderWords = 5;

}  // namespace

SpirvInterface read_spirv_interface(std::span<const uint32_t> spirv) {
  SpirvInterface out;
  for (size_t i = kHeaderWords; i < spirv.size();) {
    const uint32_t op = spirv[i] & 0xffff, words = spirv[i] >> 16;
    if (words == 0 || i + words > spirv.size()) break;
    const auto w = spirv.subspan(i + 1, words - 1);
    i += words;
    if (op == kOpCapability && !w.empty()) out.capabilities.push_back(w[0]);
    if (op == kOpDecorate && w.size() >= 3 && w[1] == kDecorationBinding) {
      out.bindings = std::max(out.bindings, w[2] + 1);
    }
  }
  return out;
}

}  // namespace mlx_lite::vulkan
