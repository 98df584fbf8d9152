// Primitives whose output is a view of the input's buffer (new shape,
// strides and offset, no data moved), and the copies that make layouts dense.
#pragma once

#include <optional>

#include "mlx_lite/primitives.h"

namespace mlx_lite {

class Broadcast : public UnaryPrimitive {
 public:
  Broadcast(Stream stream, Shape shape) : UnaryPrimitive(stream), shape_(std::move(shape)) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  // The view over the input's buffer, for both backends (backend/common/views.cpp).
  void eval(const std::vector<array>& inputs, array& out);
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return "Broadcast"; }
  bool is_equivalent(const Primitive& other) const override;

 private:
  Shape shape_;
};

class Transpose : public UnaryPrimitive {
 public:
  Transpose(Stream stream, std::vector<int> axes)
      : UnaryPrimitive(stream), axes_(std::move(axes)) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  // The view over the input's buffer, for both backends (backend/common/views.cpp).
  void eval(const std::vector<array>& inputs, array& out);
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return "Transpose"; }
  bool is_equivalent(const Primitive& other) const override;

 private:
  std::vector<int> axes_;
};

// A view when the input's strides can express the new shape, else a copy.
class Reshape : public UnaryPrimitive {
 public:
  Reshape(Stream stream, Shape shape) : UnaryPrimitive(stream), shape_(std::move(shape)) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return "Reshape"; }
  bool is_equivalent(const Primitive& other) const override;

  // The strides that view `in` with shape `shape`, or none when no view can.
  static std::optional<Strides> view_strides(const array& in, const Shape& shape);
  // Makes `out` a view of `in` when strides allow; false when it must copy.
  static bool try_view(const array& in, array& out);

 private:
  Shape shape_;
};

// start/stop/strides are normalized by the op: 0 <= start < dim (or the axis
// is empty), strides nonzero; the view's extent is out.shape().
class Slice : public UnaryPrimitive {
 public:
  Slice(Stream stream, Shape start, Shape strides, Shape shape)
      : UnaryPrimitive(stream),
        start_(std::move(start)),
        strides_(std::move(strides)),
        shape_(std::move(shape)) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  // The view over the input's buffer, for both backends (backend/common/views.cpp).
  void eval(const std::vector<array>& inputs, array& out);
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return "Slice"; }
  bool is_equivalent(const Primitive& other) const override;

 private:
  Shape start_;
  Shape strides_;
  Shape shape_;  // the view's extent
};

// as_strided: a view of the input's buffer (row-contiguous and flat: the op
// makes it so) with the given shape, strides and offset, in elements. The op
// has checked that every element it can reach lies inside the input.
class AsStrided : public UnaryPrimitive {
 public:
  AsStrided(Stream stream, Shape shape, Strides strides, int64_t offset)
      : UnaryPrimitive(stream),
        shape_(std::move(shape)),
        strides_(std::move(strides)),
        offset_(offset) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  // The view over the input's buffer, for both backends (backend/common/views.cpp).
  void eval(const std::vector<array>& inputs, array& out);
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return "AsStrided"; }
  bool is_equivalent(const Primitive& other) const override;

 private:
  Shape shape_;
  Strides strides_;
  int64_t offset_;
};

// diagonal: a view whose last axis walks axis1 and axis2 together (stride
// the sum of theirs), starting `offset` off the main diagonal; the other axes
// keep their order. axis1 and axis2 are normalized and distinct.
class Diagonal : public UnaryPrimitive {
 public:
  Diagonal(Stream stream, int offset, int axis1, int axis2)
      : UnaryPrimitive(stream), offset_(offset), axis1_(axis1), axis2_(axis2) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  // The view over the input's buffer, for both backends (backend/common/views.cpp).
  void eval(const std::vector<array>& inputs, array& out);
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return "Diagonal"; }
  bool is_equivalent(const Primitive& other) const override;

 private:
  int offset_;
  int axis1_;
  int axis2_;
};

// view(a, dtype): the input's bytes read as another dtype. A view of the
// input's buffer when its strides and offset are whole numbers of the new
// element size (and the last axis is dense when the sizes differ), else a
// row-contiguous copy of the input, then viewed. No derivative, as in MLX.
class View : public UnaryPrimitive {
 public:
  View(Stream stream, Dtype dtype) : UnaryPrimitive(stream), dtype_(dtype) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  const char* name() const override { return "View"; }
  bool is_equivalent(const Primitive& other) const override;
  // Makes `out` a view of `in`'s buffer when its layout allows; false when
  // the input must first be copied to a row-contiguous buffer.
  static bool try_view(const array& in, array& out);

 private:
  Dtype dtype_;
};

// Shares the input when its layout is already dense as asked, else copies.
class Contiguous : public UnaryPrimitive {
 public:
  Contiguous(Stream stream, bool allow_col_major)
      : UnaryPrimitive(stream), allow_col_major_(allow_col_major) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return "Contiguous"; }
  bool is_equivalent(const Primitive& other) const override;
  // Makes `out` share `in` when its layout is already dense as asked; false
  // when it must copy.
  bool try_share(const array& in, array& out) const;

 private:
  bool allow_col_major_;
};

// The input itself (a view of its buffer) that differentiation treats as a
// constant: no gradient flows through it.
class StopGradient : public UnaryPrimitive {
 public:
  using UnaryPrimitive::UnaryPrimitive;
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  // The view over the input's buffer, for both backends (backend/common/views.cpp).
  void eval(const std::vector<array>& inputs, array& out);
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  bool stops_gradient() const override { return true; }
  const char* name() const override { return "StopGradient"; }
  bool is_equivalent(const Primitive& other) const override;
};

// Always a fresh row-contiguous buffer.
class Copy : public UnaryPrimitive {
 public:
  using UnaryPrimitive::UnaryPrimitive;
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return "Copy"; }
  bool is_equivalent(const Primitive& other) const override;
};

}  // namespace mlx_lite
