// GPU kernel of Select (shaders/select.comp).
#include "mlx_lite/primitives/ternary.h"

#include <fmt/format.h>

#include "backend/vulkan/elementwise.h"

namespace mlx_lite {

void Select::eval_gpu(const std::vector<array>& inputs, array& out) {
  vulkan::dispatch_elementwise(fmt::format("select_{}", dtype_name(out.dtype())), 0, inputs, out);
}

}  // namespace mlx_lite
