// Derivative rules of Binary: the partial derivative of each operand, times
// the tangent (jvp, summed over operands) or the cotangent (vjp). The
// operands already have the output's shape and dtype (ops broadcast and
// promote before building the node), so no reduction is needed here.
#include "mlx_lite/primitives/binary.h"

#include <optional>

#include "mlx_lite/ops/ops.h"
#include "mlx_lite/transforms/rules/scalar.h"

namespace mlx_lite {

namespace {

using rules::scalar;

// Ops whose output is bool.
bool gives_bool(BinaryOp op) {
  switch (op) {
    case BinaryOp::Equal:
    case BinaryOp::NotEqual:
    case BinaryOp::Greater:
    case BinaryOp::GreaterEqual:
    case BinaryOp::Less:
    case BinaryOp::LessEqual:
    case BinaryOp::LogicalAnd:
    case BinaryOp::LogicalOr:
      return true;
    default:
      return false;
  }
}

// Comparisons, logical, bitwise and shift ops and floor_divide: piecewise
// constant, zero derivative (MLX's rules too).
bool is_piecewise_constant(BinaryOp op) {
  switch (op) {
    case BinaryOp::BitwiseAnd:
    case BinaryOp::BitwiseOr:
    case BinaryOp::BitwiseXor:
    case BinaryOp::LeftShift:
    case BinaryOp::RightShift:
    case BinaryOp::FloorDivide:
      return true;
    default:
      return gives_bool(op);
  }
}

// d out / d (operand `arg`), where out = op(a, b).
array partial(BinaryOp op, int arg, const array& a, const array& b, const array& out, Stream s) {
  switch (op) {
    case BinaryOp::Add:
      return ones_like(a, s);
    case BinaryOp::Subtract:
      return full(a.shape(), scalar(arg == 0 ? 1 : -1, a), s);
    case BinaryOp::Multiply:
      return arg == 0 ? b : a;
    case BinaryOp::Divide:  // 1 / b and -a / b^2 = -out / b
      return arg == 0 ? divide(scalar(1, b), b, s) : negative(divide(out, b, s), s);
    case BinaryOp::Maximum:  // MLX's routing: a where a > b, else b (ties go to b)
      return astype(arg == 0 ? greater(a, b, s) : less_equal(a, b, s), a.dtype(), s);
    case BinaryOp::Minimum:  // a where a < b, else b
      return astype(arg == 0 ? less(a, b, s) : greater_equal(a, b, s), a.dtype(), s);
    case BinaryOp::Power:
      if (arg == 0) return multiply(b, power(a, subtract(b, scalar(1, b), s), s), s);
      // out log(a); 0 where a = 0 and b >= 0 (out is 0 or 1 there), as PyTorch.
      return where(logical_and(equal(a, scalar(0, a), s), greater_equal(b, scalar(0, b), s), s),
                   scalar(0, a), multiply(out, log(a, s), s), s);
    case BinaryOp::ArcTan2: {  // atan2(a, b): b / (a^2 + b^2) and -a / (a^2 + b^2)
      array r2 = add(square(a, s), square(b, s), s);
      return arg == 0 ? divide(b, r2, s) : negative(divide(a, r2, s), s);
    }
    case BinaryOp::LogAddExp: {  // MLX's: sigmoid(a - b) and 1 - sigmoid(a - b)
      array p = sigmoid(subtract(a, b, s), s);
      return arg == 0 ? p : subtract(scalar(1, p), p, s);
    }
    case BinaryOp::Remainder:  // a - floor(a / b) b: 1 and -floor(a / b), as MLX
      return arg == 0 ? ones_like(a, s) : negative(floor(divide(a, b, s), s), s);
    default:
      break;
  }
  return zeros_like(a, s);
}

}  // namespace

std::vector<array> Binary::jvp(const std::vector<array>& primals,
                               const std::vector<array>& tangents,
                               const std::vector<int>& argnums) {
  const array& a = primals[0];
  const array& b = primals[1];
  if (is_piecewise_constant(op_)) {
    return {zeros(a.shape(), gives_bool(op_) ? bool_ : a.dtype(), stream())};
  }
  array out = array(a.shape(), a.dtype(), std::make_shared<Binary>(stream(), op_), {a, b});
  std::optional<array> sum;
  for (size_t i = 0; i < argnums.size(); ++i) {
    array term = multiply(tangents[i], partial(op_, argnums[i], a, b, out, stream()), stream());
    sum = sum ? add(*sum, term, stream()) : term;
  }
  return {*sum};
}

std::vector<array> Binary::vjp(const std::vector<array>& primals,
                               const std::vector<array>& cotangents,
                               const std::vector<int>& argnums, const std::vector<array>& outputs) {
  std::vector<array> vjps;
  for (int arg : argnums) {
    if (is_piecewise_constant(op_)) {
      vjps.push_back(zeros_like(primals[arg], stream()));
      continue;
    }
    vjps.push_back(multiply(
        cotangents[0], partial(op_, arg, primals[0], primals[1], outputs[0], stream()), stream()));
  }
  return vjps;
}

}  // namespace mlx_lite
