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
  ArcTan2,
  LogAddExp,
  FloorDivide,
  Remainder,
  BitwiseXor,
  LeftShift,
  RightShift,
};

const char* binary_op_name(BinaryOp op);

class Binary : public UnaryPrimitive {
 public:
  Binary(Stream stream, BinaryOp op) : UnaryPrimitive(stream), op_(op) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return binary_op_name(op_); }
  bool is_equivalent(const Primitive& other) const override;
  BinaryOp op() const { return op_; }

 private:
  BinaryOp op_;
};

}  // namespace mlx_lite
