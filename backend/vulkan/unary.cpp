// GPU kernels of Unary and AsType (shaders/unary.comp, shaders/copy.comp).
#include "mlx_lite/primitives/unary.h"

#include "backend/vulkan/elementwise.h"

namespace mlx_lite {

void Unary::eval_gpu(const std::vector<array>& inputs, array& out) {
  static const vulkan::KernelsByDtype<vulkan::ElementwiseKernel> kernels("unary_{}");
  // IsFinite and IsInf read a float and write bool: variants by input dtype.
  static const vulkan::KernelsByDtype<vulkan::ElementwiseKernel> classify("unary_{}_bool");
  vulkan::dispatch_elementwise(
      vulkan::encoder(stream()),
      is_classification(op_) ? classify(inputs[0].dtype()) : kernels(out.dtype()),
      static_cast<uint32_t>(op_), inputs, out);
}

void AsType::eval_gpu(const std::vector<array>& inputs, array& out) {
  vulkan::copy_gpu(vulkan::encoder(stream()), inputs[0], out);
}

}  // namespace mlx_lite
