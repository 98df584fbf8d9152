// CPU side of the view primitives: the views themselves are computed in
// backend/common/views.cpp; only Reshape (when strides cannot express it),
// Contiguous (when the layout is not dense) and Copy move data, here.
#include "mlx_lite/primitives/views.h"

#include "backend/cpu/strided.h"

namespace mlx_lite {

void Broadcast::eval_cpu(const std::vector<array>& inputs, array& out) {
  eval(inputs, out);
}
void Transpose::eval_cpu(const std::vector<array>& inputs, array& out) {
  eval(inputs, out);
}
void Slice::eval_cpu(const std::vector<array>& inputs, array& out) {
  eval(inputs, out);
}
void StopGradient::eval_cpu(const std::vector<array>& inputs, array& out) {
  eval(inputs, out);
}

void Reshape::eval_cpu(const std::vector<array>& inputs, array& out) {
  if (!try_view(inputs[0], out)) cpu::copy_to_row_contiguous(inputs[0], out);
}

void Contiguous::eval_cpu(const std::vector<array>& inputs, array& out) {
  if (!try_share(inputs[0], out)) cpu::copy_to_row_contiguous(inputs[0], out);
}

void Copy::eval_cpu(const std::vector<array>& inputs, array& out) {
  cpu::copy_to_row_contiguous(inputs[0], out);
}

}  // namespace mlx_lite
