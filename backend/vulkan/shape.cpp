// GPU kernels of the shape primitives that write a new buffer: as on the CPU
// (backend/cpu/shape.cpp), each fills or copies the output and then copies
// its inputs into strided views of it (copy_gpu_into). The encoder orders the
// dispatches that write one buffer.
#include "mlx_lite/primitives/shape.h"

#include "backend/common/buffers.h"
#include "backend/vulkan/elementwise.h"

namespace mlx_lite {

void Concatenate::eval_gpu(const std::vector<array>& inputs, array& out) {
  auto& encoder = vulkan::encoder(stream());
  common::allocate(out);
  int64_t offset = 0;
  for (const auto& in : inputs) {
    vulkan::copy_gpu_into(encoder, in, out.strides(), offset, out);
    offset += in.shape(axis_) * out.strides()[axis_];
  }
}

void Pad::eval_gpu(const std::vector<array>& inputs, array& out) {
  auto& encoder = vulkan::encoder(stream());
  const array& in = inputs[0];
  vulkan::fill_gpu(encoder, inputs[1], out);
  int64_t offset = 0;
  for (size_t i = 0; i < axes_.size(); ++i) offset += low_pad_size_[i] * out.strides()[axes_[i]];
  vulkan::copy_gpu_into(encoder, in, out.strides(), offset, out);
}

void SliceUpdate::eval_gpu(const std::vector<array>& inputs, array& out) {
  const array& src = inputs[0];
  const array& update = inputs[1];
  auto& encoder = vulkan::encoder(stream());
  vulkan::copy_gpu(encoder, src, out);
  Strides strides(out.ndim());
  int64_t offset = 0;
  for (int i = 0; i < out.ndim(); ++i) {
    strides[i] = out.strides()[i] * strides_[i];
    offset += start_[i] * out.strides()[i];
  }
  vulkan::copy_gpu_into(encoder, update, strides, offset, out);
}

}  // namespace mlx_lite
