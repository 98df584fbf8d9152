// The Vulkan side of fast::vulkan_kernel. mlx_lite/ops/fast.cpp checks a call's
// arguments and builds its CustomKernel node; everything about the shader
// is here: the kernel's source and the variants generated and compiled
// from it (one per combination of dtypes, ranks and template arguments,
// cached), what the device allows a launch, and eval_gpu (custom_kernel.cpp).
#pragma once

#include <absl/container/flat_hash_map.h>

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "backend/vulkan/kernel_compiler.h"
#include "backend/vulkan/kernel_source.h"
#include "mlx_lite/primitives/fast.h"

namespace mlx_lite::vulkan {

struct CustomKernelVariant {
  GeneratedKernel generated;
  std::shared_ptr<const CompiledKernel> compiled;
};

// What fast::vulkan_kernel() was given.
struct CustomKernelSource {
  std::string name;
  std::vector<std::string> input_names, output_names;
  std::string source, header;
  bool ensure_row_contiguous;
  bool atomic_outputs;
  bool native_simdgroups = false;
};

class CustomKernelTemplate {
 public:
  // Throws std::invalid_argument when the names are not valid
  // (check_kernel_names) or the kernel has no output.
  explicit CustomKernelTemplate(CustomKernelSource source);

  const CustomKernelSource& source() const { return source_; }

  // The kernel for a call with these inputs (their dtypes and ranks), output
  // dtypes and template arguments: generated and compiled on first use, then
  // found here without generating any source. verbose prints the GLSL.
  // Throws std::runtime_error when the source does not compile.
  std::shared_ptr<const CustomKernelVariant> variant(
      std::span<const array> inputs, std::span<const Dtype> output_dtypes,
      std::span<const std::pair<std::string, fast::TemplateArg>> template_args, bool verbose) const;

 private:
  CustomKernelSource source_;
  mutable std::mutex mutex_;
  mutable absl::flat_hash_map<std::string, std::shared_ptr<const CustomKernelVariant>> variants_;
};

// Throws std::runtime_error saying why when this process has no GPU backend.
void require_gpu_backend();

// Throws std::invalid_argument when the threadgroup exceeds the device's
// workgroup limits, or the grid needs more workgroups than it can launch.
void check_launch(const std::string& kernel_name, const std::array<uint32_t, 3>& grid,
                  const std::array<uint32_t, 3>& threadgroup);

}  // namespace mlx_lite::vulkan
