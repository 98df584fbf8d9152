// Reductions over axes (Reduce), index reductions (ArgReduce), cumulative
// scans (Scan), and the last-axis fast paths of softmax and logsumexp.
#pragma once

#include <vector>

#include "mlx_lite/primitives.h"

namespace mlx_lite {

// Reduces `axes` (sorted) of its input. The output holds the other dims in
// order, with size-1 placeholders for the reduced ones where `keepdims` (the
// layout is the same either way).
class Reduce : public UnaryPrimitive {
 public:
  enum ReduceType { And, Or, Sum, Prod, Min, Max };

  Reduce(Stream stream, ReduceType type, std::vector<int> axes, bool keepdims)
      : UnaryPrimitive(stream), type_(type), axes_(std::move(axes)), keepdims_(keepdims) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return "Reduce"; }
  void print(std::ostream& os) override;
  bool is_equivalent(const Primitive& other) const override;
  ReduceType reduce_type() const { return type_; }
  const std::vector<int>& axes() const { return axes_; }
  bool keepdims() const { return keepdims_; }
  // The output's shape for an input's (the op and the rules use it).
  Shape output_shape(const Shape& input) const;
  // The output's dtype for an input's (the op and the rules use it). Sum and
  // prod widen bool to int32 and uint8 to uint32, as in MLX; all and any give
  // bool; min and max keep the input's dtype.
  Dtype output_dtype(Dtype input) const;

 private:
  ReduceType type_;
  std::vector<int> axes_;
  bool keepdims_;
};

// Index (uint32) of the first smallest / largest element along `axis`; NaN
// counts as the extreme, as in numpy. `axis` stays as a size-1 dim where
// `keepdims`.
class ArgReduce : public UnaryPrimitive {
 public:
  enum ReduceType { ArgMin, ArgMax };

  ArgReduce(Stream stream, ReduceType type, int axis, bool keepdims)
      : UnaryPrimitive(stream), type_(type), axis_(axis), keepdims_(keepdims) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return "ArgReduce"; }
  bool is_equivalent(const Primitive& other) const override;
  ReduceType reduce_type() const { return type_; }
  int axis() const { return axis_; }
  bool keepdims() const { return keepdims_; }
  Shape output_shape(const Shape& input) const;

 private:
  ReduceType type_;
  int axis_;
  bool keepdims_;
};

// Cumulative reduction along `axis`: out[i] = op(in[0..i]) (inclusive) or
// op(in[0..i-1]) (exclusive, op's identity at i = 0), from the end when
// `reverse`. Max and Min propagate NaN; LogAddExp (logcumsumexp) takes
// floating inputs only (the op casts others).
class Scan : public UnaryPrimitive {
 public:
  enum ReduceType { Sum, Prod, Max, Min, LogAddExp };

  Scan(Stream stream, ReduceType type, int axis, bool reverse, bool inclusive)
      : UnaryPrimitive(stream),
        type_(type),
        axis_(axis),
        reverse_(reverse),
        inclusive_(inclusive) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return "Scan"; }
  bool is_equivalent(const Primitive& other) const override;
  int axis() const { return axis_; }
  bool reverse() const { return reverse_; }
  bool inclusive() const { return inclusive_; }
  ReduceType reduce_type() const { return type_; }
  // bool sums in int32, as in MLX; other dtypes (and other ops) are kept.
  Dtype output_dtype(Dtype input) const;

 private:
  ReduceType type_;
  int axis_;
  bool reverse_;
  bool inclusive_;
};

// Softmax over the last axis of a floating input (output has its dtype).
// `precise` accumulates 16-bit inputs in float32 (the CPU always does).
class Softmax : public UnaryPrimitive {
 public:
  Softmax(Stream stream, bool precise) : UnaryPrimitive(stream), precise_(precise) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return "Softmax"; }
  bool is_equivalent(const Primitive& other) const override;

 private:
  bool precise_;
};

// log(sum(exp(x))) over the last axis of a floating input, max-shifted. The
// axis stays as a size-1 dim where `keepdims`.
class LogSumExp : public UnaryPrimitive {
 public:
  LogSumExp(Stream stream, bool keepdims) : UnaryPrimitive(stream), keepdims_(keepdims) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return "LogSumExp"; }
  bool is_equivalent(const Primitive& other) const override;
  bool keepdims() const { return keepdims_; }
  Shape output_shape(const Shape& input) const;

 private:
  bool keepdims_;
};

}  // namespace mlx_lite
