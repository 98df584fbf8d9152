// CPU side of the view primitives: the views themselves are computed in
// backend/common/views.cpp; only Reshape (when strides cannot express it),
// Contiguous (when the layout is not dense), View (when the bytes cannot be
// regrouped in place) and Copy move data, here.
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

void AsStrided::eval_cpu(const std::vector<array>& inputs, array& out) {
  eval(inputs, out);
}
void Diagonal::eval_cpu(const std::vector<array>& inputs, array& out) {
  eval(inputs, out);
}

void View::eval_cpu(const std::vector<array>& inputs, array& out) {
  if (try_view(inputs[0], out)) return;
  array dense(inputs[0].shape(), inputs[0].dtype(), nullptr, {});
  cpu::copy_to_row_contiguous(inputs[0], dense);
  try_view(dense, out);
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
