// GPU side of the view primitives: views only compute strides and an offset
// (backend/common/views.cpp, as on the CPU: the buffers are shared), so no
// work is recorded; the copies (Reshape, Contiguous, View and Copy when they
// cannot share the buffer) go through the copy shader.
#include "mlx_lite/primitives/views.h"

#include "backend/vulkan/elementwise.h"

namespace mlx_lite {

void Broadcast::eval_gpu(const std::vector<array>& inputs, array& out) {
  eval(inputs, out);
}
void Transpose::eval_gpu(const std::vector<array>& inputs, array& out) {
  eval(inputs, out);
}
void Slice::eval_gpu(const std::vector<array>& inputs, array& out) {
  eval(inputs, out);
}
void StopGradient::eval_gpu(const std::vector<array>& inputs, array& out) {
  eval(inputs, out);
}

void AsStrided::eval_gpu(const std::vector<array>& inputs, array& out) {
  eval(inputs, out);
}
void Diagonal::eval_gpu(const std::vector<array>& inputs, array& out) {
  eval(inputs, out);
}

void View::eval_gpu(const std::vector<array>& inputs, array& out) {
  if (try_view(inputs[0], out)) return;
  array dense(inputs[0].shape(), inputs[0].dtype(), nullptr, {});
  vulkan::copy_gpu(vulkan::encoder(stream()), inputs[0], dense);
  try_view(dense, out);
}

void Reshape::eval_gpu(const std::vector<array>& inputs, array& out) {
  if (!try_view(inputs[0], out)) vulkan::copy_gpu(vulkan::encoder(stream()), inputs[0], out);
}

void Contiguous::eval_gpu(const std::vector<array>& inputs, array& out) {
  if (!try_share(inputs[0], out)) vulkan::copy_gpu(vulkan::encoder(stream()), inputs[0], out);
}

void Copy::eval_gpu(const std::vector<array>& inputs, array& out) {
  vulkan::copy_gpu(vulkan::encoder(stream()), inputs[0], out);
}

}  // namespace mlx_lite
