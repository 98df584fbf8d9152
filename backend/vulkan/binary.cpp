// GPU kernel of Binary (shaders/binary.comp).
#include "mlx_lite/primitives/binary.h"

#include <fmt/format.h>

#include "backend/vulkan/elementwise.h"

namespace mlx_lite {

void Binary::eval_gpu(const std::vector<array>& inputs, array& out) {
  const Dtype in = inputs[0].dtype();
  // Comparisons of non-bool inputs write bool: a variant of their own.
  auto shader = out.dtype() == in ? fmt::format("binary_{}", dtype_name(in))
                                  : fmt::format("binary_{}_bool", dtype_name(in));
  vulkan::dispatch_elementwise(shader, static_cast<uint32_t>(op_), inputs, out);
}

}  // namespace mlx_lite
