/// \file
/// CustomKernel: the node of a user-written GPU kernel (fast::vulkan_kernel,
/// mlx_lite/ops/fast.h), and the argument types the ops layer and the Vulkan backend
/// share. Its eval_gpu is in backend/vulkan/custom_kernel.cpp; it has no CPU
/// kernel and no derivative (custom_function gives it one).
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "mlx_lite/primitives.h"

namespace mlx_lite {

namespace fast {

/// A template argument: a dtype (becomes its GLSL type), an int or a bool,
/// each a compile-time definition named as given.
using TemplateArg = std::variant<int, bool, Dtype>;

/// What the kernel cache has done in this process: SPIR-V compiled by glslang,
/// found in memory, or read from the disk cache (MLX_LITE_KERNEL_CACHE names
/// its directory; "off" disables it; the default is
/// `$XDG_CACHE_HOME/mlx_lite/kernels` or `~/.cache/mlx_lite/kernels`).
struct KernelCacheStats {
  /// Kernels glslang compiled to SPIR-V.
  size_t compiled = 0;
  /// Kernels whose SPIR-V was found in memory.
  size_t memory_hits = 0;
  /// Kernels whose SPIR-V was read from the disk cache.
  size_t disk_hits = 0;
  /// Damaged disk-cache entries found (wrong size, checksum or SPIR-V): each
  /// was reported (a warning in the log), deleted, compiled again and rewritten.
  size_t disk_damaged = 0;
  /// Compiled kernels in the memory cache now (at most the limit of
  /// set_kernel_cache_limit, mlx_lite/ops/fast.h).
  size_t kernels_cached = 0;
  /// Custom-kernel pipelines (one per kernel and threadgroup size) cached now
  /// (at most the same limit).
  size_t pipelines_cached = 0;
};

}  // namespace fast

namespace vulkan {
struct CustomKernelVariant;  // generated and compiled (backend/vulkan/custom_kernel.h)
}

/// \cond
// Internal: the node fast::vulkan_kernel builds; it is no part of the reference.
class CustomKernel : public Primitive {
 public:
  // How one call launches the compiled kernel.
  struct Launch {
    std::array<uint32_t, 3> grid, threadgroup;
    std::optional<float> init_value;
    bool ensure_row_contiguous;
  };

  CustomKernel(Stream stream, std::string kernel_name,
               std::shared_ptr<const vulkan::CustomKernelVariant> kernel, Launch launch)
      : Primitive(stream),
        kernel_name_(std::move(kernel_name)),
        kernel_(std::move(kernel)),
        launch_(launch) {}

  void eval_cpu(const std::vector<array>& inputs, std::vector<array>& outputs) override;
  void eval_gpu(const std::vector<array>& inputs, std::vector<array>& outputs) override;
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return "CustomKernel"; }
  void print(std::ostream& os) override { os << "CustomKernel(" << kernel_name_ << ")"; }
  bool is_equivalent(const Primitive& other) const override;

 private:
  std::string kernel_name_;
  std::shared_ptr<const vulkan::CustomKernelVariant> kernel_;
  Launch launch_;
};
/// \endcond

}  // namespace mlx_lite
