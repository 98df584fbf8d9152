#include "mlx_lite/ops/binary.h"

#include <stdexcept>

#include "mlx_lite/ops/shape.h"
#include "mlx_lite/ops/unary.h"
#include "mlx_lite/primitives/binary.h"
#include "mlx_lite/utils.h"

namespace mlx_lite {

namespace {

// A Binary node: both inputs cast to `dtype` and broadcast to one shape
// (broadcasts are views, so a scalar operand stays one element).
array binary(const char* name, const array& a, const array& b, BinaryOp op, Dtype dtype,
             Dtype out_dtype, StreamOrDevice s) {
  Shape shape = broadcast_shapes(a.shape(), b.shape(), name);
  auto prepare = [&](const array& x) {
    array y = astype(x, dtype, s);
    return y.shape() == shape ? y : broadcast_to(y, shape, s);
  };
  std::vector<array> inputs = {prepare(a), prepare(b)};
  return array(std::move(shape), out_dtype, std::make_shared<Binary>(to_stream(s), op),
               std::move(inputs));
}

array arithmetic(const char* name, const array& a, const array& b, BinaryOp op, StreamOrDevice s) {
  Dtype t = promote_types(a.dtype(), b.dtype());
  return binary(name, a, b, op, t, t, s);
}

array comparison(const char* name, const array& a, const array& b, BinaryOp op, StreamOrDevice s) {
  return binary(name, a, b, op, promote_types(a.dtype(), b.dtype()), bool_, s);
}

array bitwise(const char* name, const array& a, const array& b, BinaryOp op, StreamOrDevice s) {
  Dtype t = promote_types(a.dtype(), b.dtype());
  if (is_floating_point(t)) {
    throw std::invalid_argument(fmt::format("[{}] Needs integer or bool arrays, got {} and {}.",
                                            name, a.dtype(), b.dtype()));
  }
  return binary(name, a, b, op, t, t, s);
}

}  // namespace

array add(const array& a, const array& b, StreamOrDevice s) {
  return arithmetic("add", a, b, BinaryOp::Add, s);
}
array subtract(const array& a, const array& b, StreamOrDevice s) {
  return arithmetic("subtract", a, b, BinaryOp::Subtract, s);
}
array multiply(const array& a, const array& b, StreamOrDevice s) {
  return arithmetic("multiply", a, b, BinaryOp::Multiply, s);
}
array divide(const array& a, const array& b, StreamOrDevice s) {
  Dtype t = promote_types(a.dtype(), b.dtype());
  if (!is_floating_point(t)) t = float32;
  return binary("divide", a, b, BinaryOp::Divide, t, t, s);
}
array maximum(const array& a, const array& b, StreamOrDevice s) {
  return arithmetic("maximum", a, b, BinaryOp::Maximum, s);
}
array minimum(const array& a, const array& b, StreamOrDevice s) {
  return arithmetic("minimum", a, b, BinaryOp::Minimum, s);
}
array power(const array& a, const array& b, StreamOrDevice s) {
  return arithmetic("power", a, b, BinaryOp::Power, s);
}
array equal(const array& a, const array& b, StreamOrDevice s) {
  return comparison("equal", a, b, BinaryOp::Equal, s);
}
array not_equal(const array& a, const array& b, StreamOrDevice s) {
  return comparison("not_equal", a, b, BinaryOp::NotEqual, s);
}
array greater(const array& a, const array& b, StreamOrDevice s) {
  return comparison("greater", a, b, BinaryOp::Greater, s);
}
array greater_equal(const array& a, const array& b, StreamOrDevice s) {
  return comparison("greater_equal", a, b, BinaryOp::GreaterEqual, s);
}
array less(const array& a, const array& b, StreamOrDevice s) {
  return comparison("less", a, b, BinaryOp::Less, s);
}
array less_equal(const array& a, const array& b, StreamOrDevice s) {
  return comparison("less_equal", a, b, BinaryOp::LessEqual, s);
}
array logical_and(const array& a, const array& b, StreamOrDevice s) {
  return binary("logical_and", a, b, BinaryOp::LogicalAnd, bool_, bool_, s);
}
array logical_or(const array& a, const array& b, StreamOrDevice s) {
  return binary("logical_or", a, b, BinaryOp::LogicalOr, bool_, bool_, s);
}
array bitwise_and(const array& a, const array& b, StreamOrDevice s) {
  return bitwise("bitwise_and", a, b, BinaryOp::BitwiseAnd, s);
}
array bitwise_or(const array& a, const array& b, StreamOrDevice s) {
  return bitwise("bitwise_or", a, b, BinaryOp::BitwiseOr, s);
}

array operator+(const array& a, const array& b) {
  return add(a, b);
}
array operator-(const array& a, const array& b) {
  return subtract(a, b);
}
array operator*(const array& a, const array& b) {
  return multiply(a, b);
}
array operator/(const array& a, const array& b) {
  return divide(a, b);
}
array operator==(const array& a, const array& b) {
  return equal(a, b);
}
array operator!=(const array& a, const array& b) {
  return not_equal(a, b);
}
array operator>(const array& a, const array& b) {
  return greater(a, b);
}
array operator>=(const array& a, const array& b) {
  return greater_equal(a, b);
}
array operator<(const array& a, const array& b) {
  return less(a, b);
}
array operator<=(const array& a, const array& b) {
  return less_equal(a, b);
}
array operator&&(const array& a, const array& b) {
  return logical_and(a, b);
}
array operator||(const array& a, const array& b) {
  return logical_or(a, b);
}
array operator&(const array& a, const array& b) {
  return bitwise_and(a, b);
}
array operator|(const array& a, const array& b) {
  return bitwise_or(a, b);
}

const char* binary_op_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add:
      return "Add";
    case BinaryOp::Subtract:
      return "Subtract";
    case BinaryOp::Multiply:
      return "Multiply";
    case BinaryOp::Divide:
      return "Divide";
    case BinaryOp::Maximum:
      return "Maximum";
    case BinaryOp::Minimum:
      return "Minimum";
    case BinaryOp::Power:
      return "Power";
    case BinaryOp::Equal:
      return "Equal";
    case BinaryOp::NotEqual:
      return "NotEqual";
    case BinaryOp::Greater:
      return "Greater";
    case BinaryOp::GreaterEqual:
      return "GreaterEqual";
    case BinaryOp::Less:
      return "Less";
    case BinaryOp::LessEqual:
      return "LessEqual";
    case BinaryOp::LogicalAnd:
      return "LogicalAnd";
    case BinaryOp::LogicalOr:
      return "LogicalOr";
    case BinaryOp::BitwiseAnd:
      return "BitwiseAnd";
    case BinaryOp::BitwiseOr:
      return "BitwiseOr";
  }
  return "Binary";
}

bool Binary::is_equivalent(const Primitive& other) const {
  auto* o = dynamic_cast<const Binary*>(&other);
  return o && o->op_ == op_;
}

}  // namespace mlx_lite
