// GPU kernel of Binary (shaders/binary.comp).
#include "mlx_lite/primitives/binary.h"

#include <fmt/format.h>

#include <array>
#include <iterator>
#include <string>

#include "backend/vulkan/elementwise.h"

namespace mlx_lite {

namespace {

// The shader of inputs of dtype `in`: binary_<in>, or binary_<in>_bool for
// comparisons of non-bool inputs, which write bool. Named once, not per op:
// small ops are host-bound.
const std::string& shader_name(Dtype in, bool to_bool) {
  static const auto names = [] {
    std::array<std::array<std::string, 2>, std::size(all_dtypes)> n;
    for (auto t : all_dtypes) {
      n[static_cast<size_t>(t.val)] = {fmt::format("binary_{}", dtype_name(t)),
                                       fmt::format("binary_{}_bool", dtype_name(t))};
    }
    return n;
  }();
  return names[static_cast<size_t>(in.val)][to_bool ? 1 : 0];
}

}  // namespace

void Binary::eval_gpu(const std::vector<array>& inputs, array& out) {
  const Dtype in = inputs[0].dtype();
  vulkan::dispatch_elementwise(shader_name(in, out.dtype() != in), static_cast<uint32_t>(op_),
                               inputs, out);
}

}  // namespace mlx_lite
