// Elementwise primitives of one input: Unary (the math functions, selected
// by UnaryOp) and AsType (dtype conversion).
#pragma once

#include "mlx_lite/primitives.h"

namespace mlx_lite {

enum class UnaryOp {
  Abs,
  Negative,
  Floor,
  Ceil,
  Round,
  Exp,
  Log,
  Log1p,
  Sqrt,
  Rsqrt,
  Square,
  Sin,
  Cos,
  Tanh,
  Sigmoid,
  Erf,
  ErfInv,
  LogicalNot,
  Sign,
  Tan,
  ArcSin,
  ArcCos,
  ArcTan,
  Sinh,
  Cosh,
  ArcSinh,
  ArcCosh,
  ArcTanh,
  Expm1,
  Log2,
  Log10,
  BitwiseInvert,
  // Float classification into bool (the output dtype differs from the
  // input's): one kernel for what |x| < inf and |x| == inf compose of two.
  IsFinite,
  IsInf,
};

const char* unary_op_name(UnaryOp op);

/// Whether `op` classifies a float into bool (IsFinite, IsInf): the one kind
/// of Unary whose output dtype is not its input's.
inline bool is_classification(UnaryOp op) {
  return op == UnaryOp::IsFinite || op == UnaryOp::IsInf;
}

class Unary : public UnaryPrimitive {
 public:
  Unary(Stream stream, UnaryOp op) : UnaryPrimitive(stream), op_(op) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return unary_op_name(op_); }
  bool is_equivalent(const Primitive& other) const override;
  UnaryOp op() const { return op_; }

 private:
  UnaryOp op_;
};

class AsType : public UnaryPrimitive {
 public:
  AsType(Stream stream, Dtype dtype) : UnaryPrimitive(stream), dtype_(dtype) {}
  void eval_cpu(const std::vector<array>& inputs, array& out) override;
  void eval_gpu(const std::vector<array>& inputs, array& out) override;
  std::vector<array> jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                         const std::vector<int>& argnums) override;
  std::vector<array> vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<int>& argnums,
                         const std::vector<array>& outputs) override;
  const char* name() const override { return "AsType"; }
  bool is_equivalent(const Primitive& other) const override;
  Dtype dtype() const { return dtype_; }

 private:
  Dtype dtype_;
};

}  // namespace mlx_lite
