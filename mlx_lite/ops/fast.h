/// \file
/// User-written GPU kernels: MLX's fast::metal_kernel for Vulkan. The source
/// is the body of a GLSL 4.50 compute shader; the library generates the rest
/// (buffers named as given, MLX's thread attribute names, helpers). See
/// docs/custom_kernels.md.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "mlx_lite/array.h"
#include "mlx_lite/device.h"
#include "mlx_lite/primitives/fast.h"  // TemplateArg, KernelCacheStats

namespace mlx_lite::vulkan {
class CustomKernelTemplate;  // what vulkan_kernel() was given, and its compiled variants
}

/// User-written GPU kernels (MLX's `mlx::core::fast`, for Vulkan).
namespace mlx_lite::fast {

/// The callable vulkan_kernel() returns. Its call takes MLX's nine arguments
/// in MLX's order; those from template_args on have MLX's defaults.
class CustomKernelFunction {
 public:
  /// What vulkan_kernel() returns; call that rather than this.
  explicit CustomKernelFunction(std::shared_ptr<const vulkan::CustomKernelTemplate> kernel)
      : kernel_(std::move(kernel)) {}

  /// The kernel applied to `inputs` (one per input name): one output per
  /// output name, of the shapes and dtypes given, lazy like any op's and on
  /// the GPU only. grid counts threads, as Metal's dispatchThreads: threads
  /// past it do not run. threadgroup is the workgroup size. The outputs are
  /// row-contiguous, filled with init_value before the kernel runs when one
  /// is given. verbose prints the generated GLSL. Throws
  /// std::invalid_argument for bad arguments (a CPU stream among them) and
  /// std::runtime_error for a source that does not compile (with glslang's
  /// messages mapped onto the user's lines).
  std::vector<array> operator()(
      const std::vector<array>& inputs, const std::vector<Shape>& output_shapes,
      const std::vector<Dtype>& output_dtypes, std::tuple<int, int, int> grid,
      std::tuple<int, int, int> threadgroup,
      const std::vector<std::pair<std::string, TemplateArg>>& template_args = {},
      std::optional<float> init_value = std::nullopt, bool verbose = false,
      StreamOrDevice s = {}) const;

 private:
  std::shared_ptr<const vulkan::CustomKernelTemplate> kernel_;
};

/// Builds a kernel from the body `source` of a GLSL compute shader, with
/// `header` (helper functions, shared arrays, \#defines) placed before main().
/// Inputs are readonly buffers and outputs writable buffers named as given;
/// NAME_shape, NAME_strides and NAME_ndim exist for inputs whose names the
/// source uses that way. ensure_row_contiguous copies the inputs that are not
/// row-contiguous; atomic_outputs lets the source atomicAdd into outputs
/// (with a compare-and-swap loop where the device lacks float atomics).
/// `name` names the kernel in messages and logs. Simdgroups are Metal's, 32
/// threads wide on every device (emulated where subgroups are narrower, as
/// on lavapipe); native_simdgroups makes simd_* and the simdgroup
/// attributes the device's own subgroups instead (gl_SubgroupSize wide). See
/// docs/custom_kernels.md.
CustomKernelFunction vulkan_kernel(const std::string& name,
                                   const std::vector<std::string>& input_names,
                                   const std::vector<std::string>& output_names,
                                   const std::string& source, const std::string& header = "",
                                   bool ensure_row_contiguous = true, bool atomic_outputs = false,
                                   bool native_simdgroups = false);

/// What the kernel cache has done in this process (KernelCacheStats,
/// mlx_lite/primitives/fast.h).
KernelCacheStats kernel_cache_stats();

/// Sets how many compiled kernels, and how many custom-kernel pipelines (one
/// per kernel and threadgroup size), stay cached in memory (default 256
/// each; least recently used first out), returns the previous limit; 0
/// caches none. Kernels that arrays or kernel objects hold keep working: an
/// evicted one is found again on disk or compiled, its pipeline created
/// again. mlx_lite::clear_cache() empties both caches.
size_t set_kernel_cache_limit(size_t entries);

}  // namespace mlx_lite::fast
