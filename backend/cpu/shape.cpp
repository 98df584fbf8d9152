// CPU kernels of the shape primitives that write a new buffer. Each allocates
// the output, then copies its inputs into strided views of it with
// cpu::copy_into, which reads every input through its own strides.
#include "mlx_lite/primitives/shape.h"

#include <algorithm>

#include "backend/cpu/strided.h"

namespace mlx_lite {

namespace {

// A window of `out`'s buffer with its own shape, strides and offset, for
// copy_into to write through.
array view_of(const array& out, const Shape& shape, const Strides& strides, int64_t offset) {
  array view(shape, out.dtype(), nullptr, {});
  view.copy_shared_buffer(out, strides, out.offset() + offset);
  return view;
}

}  // namespace

void Concatenate::eval_cpu(const std::vector<array>& inputs, array& out) {
  common::allocate(out);
  int64_t offset = 0;
  for (const auto& in : inputs) {
    if (in.size() > 0) cpu::copy_into(in, view_of(out, in.shape(), out.strides(), offset));
    offset += in.shape(axis_) * out.strides()[axis_];
  }
}

void Pad::eval_cpu(const std::vector<array>& inputs, array& out) {
  const array& in = inputs[0];
  const array& value = inputs[1];
  common::allocate(out);
  dispatch_dtype(out.dtype(), [&]<typename T>() {
    std::fill_n(static_cast<T*>(out.raw_data()), out.size(),
                *static_cast<const T*>(value.raw_data()));
  });
  if (in.size() == 0) return;
  int64_t offset = 0;
  for (size_t i = 0; i < axes_.size(); ++i) offset += low_pad_size_[i] * out.strides()[axes_[i]];
  cpu::copy_into(in, view_of(out, in.shape(), out.strides(), offset));
}

void SliceUpdate::eval_cpu(const std::vector<array>& inputs, array& out) {
  const array& src = inputs[0];
  const array& update = inputs[1];
  cpu::copy_to_row_contiguous(src, out);
  if (update.size() == 0) return;
  Strides strides(out.ndim());
  int64_t offset = 0;
  for (int i = 0; i < out.ndim(); ++i) {
    strides[i] = out.strides()[i] * strides_[i];
    offset += start_[i] * out.strides()[i];
  }
  cpu::copy_into(update, view_of(out, update.shape(), strides, offset));
}

}  // namespace mlx_lite
