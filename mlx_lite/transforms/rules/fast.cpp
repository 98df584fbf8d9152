// CustomKernel has no derivative of its own: as in MLX, the kernel call goes
// inside a custom_function whose vjp (often another kernel) gives one.
#include "mlx_lite/primitives/fast.h"

#include <fmt/format.h>

#include <stdexcept>

namespace mlx_lite {

namespace {
[[noreturn]] void no_derivative(const char* transform) {
  throw std::invalid_argument(fmt::format(
      "[vulkan_kernel] A custom kernel has no {}: call it inside custom_function(fun, fun_vjp, "
      "fun_jvp) and give the rule there (docs/custom_kernels.md).",
      transform));
}
}  // namespace

std::vector<array> CustomKernel::jvp(const std::vector<array>&, const std::vector<array>&,
                                     const std::vector<int>&) {
  no_derivative("jvp");
}

std::vector<array> CustomKernel::vjp(const std::vector<array>&, const std::vector<array>&,
                                     const std::vector<int>&, const std::vector<array>&) {
  no_derivative("vjp");
}

}  // namespace mlx_lite
