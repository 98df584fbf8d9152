// GPU kernel of Binary (shaders/binary.comp).
#include "mlx_lite/primitives/binary.h"

#include "backend/vulkan/elementwise.h"

namespace mlx_lite {

void Binary::eval_gpu(const std::vector<array>& inputs, array& out) {
  // binary_<in>, or binary_<in>_bool for comparisons of non-bool inputs,
  // which write bool.
  static const vulkan::KernelsByDtype<vulkan::ElementwiseKernel> same("binary_{}");
  static const vulkan::KernelsByDtype<vulkan::ElementwiseKernel> to_bool("binary_{}_bool");
  const Dtype in = inputs[0].dtype();
  const auto& kernel = out.dtype() == in ? same(in) : to_bool(in);
  vulkan::dispatch_elementwise(vulkan::encoder(stream()), kernel, static_cast<uint32_t>(op_),
                               inputs, out);
}

}  // namespace mlx_lite
