// Elementwise primitives of two inputs of one shape and dtype (the ops
// broadcast and promote before building the node).
#pragma once

#include "mlx_lite/primitives.h"

namespace mlx_lite {

enum class BinaryOp {
  Add,
  Subtract,
  Multiply,
  Divide,
  Maximum,
  Minimum,
  Power,
  Equal,
  NotEqual,
  Greater,
  GreaterEqual,
  Less,
  LessEqual,
  LogicalAnd,
  LogicalOr,
  BitwiseAnd,
  BitwiseOr,
};

const char* binary_op_name(BinaryOp op);

class Binary : public UnaryPrimitive {
 public:
  Binary(Stream stream, BinaryOp op) : UnaryPrimitive(stream), op_(op) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  const char* name() const override { return binary_op_name(op_); }
  bool is_equivalent(const Primitive& other) const override;
  BinaryOp op() const { return op_; }

 private:
  BinaryOp op_;
};

}  // namespace mlx_lite
