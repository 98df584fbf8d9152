// Shape primitives that write a new buffer: each fills the output and copies
// its inputs into strided views of it (the pure views live in views.h).
#pragma once

#include "mlx_lite/primitives.h"

namespace mlx_lite {

// Inputs (of the output's dtype) laid end to end along axis_.
class Concatenate : public UnaryPrimitive {
 public:
  Concatenate(Stream stream, int axis) : UnaryPrimitive(stream), axis_(axis) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return "Concatenate"; }
  bool is_equivalent(const Primitive& other) const override;

 private:
  int axis_;
};

// Constant padding. Inputs: the array and a scalar pad value of its dtype;
// low_pad_size_[i] elements come before the data on axes_[i] and
// high_pad_size_[i] after it (kept, as MLX keeps it, so the jvp can rebuild
// the output's shape).
class Pad : public UnaryPrimitive {
 public:
  Pad(Stream stream, std::vector<int> axes, Shape low_pad_size, Shape high_pad_size)
      : UnaryPrimitive(stream),
        axes_(std::move(axes)),
        low_pad_size_(std::move(low_pad_size)),
        high_pad_size_(std::move(high_pad_size)) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return "Pad"; }
  bool is_equivalent(const Primitive& other) const override;

 private:
  std::vector<int> axes_;
  Shape low_pad_size_;
  Shape high_pad_size_;
};

// A copy of src with the region start_::strides_ (normalized by the op, its
// extent the update's shape) replaced by the update. Inputs: src and the
// update, of src's dtype and already broadcast to the region's shape.
class SliceUpdate : public UnaryPrimitive {
 public:
  SliceUpdate(Stream stream, Shape start, Shape strides)
      : UnaryPrimitive(stream), start_(std::move(start)), strides_(std::move(strides)) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return "SliceUpdate"; }
  bool is_equivalent(const Primitive& other) const override;

 private:
  Shape start_;
  Shape strides_;
};

}  // namespace mlx_lite
