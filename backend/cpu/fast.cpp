// CustomKernel has no CPU kernel: its source is GLSL for the Vulkan backend.
#include "mlx_lite/primitives/fast.h"

#include <stdexcept>

namespace mlx_lite {

void CustomKernel::eval_cpu(const std::vector<array>&, std::vector<array>&) {
  throw std::invalid_argument(
      "[vulkan_kernel] Custom kernels run on the GPU only (their source is GLSL); this one was "
      "given a CPU stream.");
}

}  // namespace mlx_lite
