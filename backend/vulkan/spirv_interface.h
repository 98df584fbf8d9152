// What a compiled kernel's SPIR-V asks of the device (its buffer bindings
// and capabilities), read from the words: SPIRV-Cross 2021 throws on modules
// with cooperative-matrix types, which custom kernels' simdgroup matrices
// compile to on matrix units.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace mlx_lite::vulkan {

struct SpirvInterface {
  uint32_t bindings = 0;               // one past the highest Binding decoration
  std::vector<uint32_t> capabilities;  // the OpCapability operands (spv::Capability)
};

// Stops at the first malformed instruction (what precedes it is kept).
SpirvInterface read_spirv_interface(std::span<const uint32_t> spirv);

}  // namespace mlx_lite::vulkan
