// The push constants of every pipeline: the first words of its dispatch's
// metadata (Encoder::metadata), which shaders read through the GPU's
// constant cache instead of with a storage-buffer load per thread.
// 128 bytes is the least maxPushConstantsSize a Vulkan device may have.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace mlx_lite::vulkan {

inline constexpr size_t kMetadataHeadWords = 16;
using MetadataHead = std::array<int64_t, kMetadataHeadWords>;

}  // namespace mlx_lite::vulkan
