// GPU kernel of Select (shaders/select.comp).
#include "mlx_lite/primitives/ternary.h"

#include "backend/vulkan/elementwise.h"

namespace mlx_lite {

void Select::eval_gpu(const std::vector<array>& inputs, array& out) {
  static const vulkan::KernelsByDtype<vulkan::ElementwiseKernel> kernels("select_{}");
  vulkan::dispatch_elementwise(vulkan::encoder(stream()), kernels(out.dtype()), 0, inputs, out);
}

}  // namespace mlx_lite
