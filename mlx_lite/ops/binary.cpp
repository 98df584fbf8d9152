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

// Float operands are a std::runtime_error, as MLX throws for the bitwise ops.
array bitwise(const char* name, const array& a, const array& b, BinaryOp op, StreamOrDevice s) {
  Dtype t = promote_types(a.dtype(), b.dtype());
  if (is_floating_point(t)) {
    throw std::runtime_error(fmt::format("[{}] Needs integer or bool arrays, got {} and {}.", name,
                                         a.dtype(), b.dtype()));
  }
  return binary(name, a, b, op, t, t, s);
}

// left_shift and right_shift: bool operands shift as uint8, as in MLX.
array shift(const char* name, const array& a, const array& b, BinaryOp op, StreamOrDevice s) {
  Dtype t = promote_types(a.dtype(), b.dtype());
  if (t == bool_) t = uint8;
  if (is_floating_point(t)) {
    throw std::runtime_error(fmt::format("[{}] Needs integer or bool arrays, got {} and {}.", name,
                                         a.dtype(), b.dtype()));
  }
  return binary(name, a, b, op, t, t, s);
}

Dtype at_least_float(Dtype t) {
  return is_floating_point(t) ? t : float32;
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

array bitwise_xor(const array& a, const array& b, StreamOrDevice s) {
  return bitwise("bitwise_xor", a, b, BinaryOp::BitwiseXor, s);
}
array left_shift(const array& a, const array& b, StreamOrDevice s) {
  return shift("left_shift", a, b, BinaryOp::LeftShift, s);
}
array right_shift(const array& a, const array& b, StreamOrDevice s) {
  return shift("right_shift", a, b, BinaryOp::RightShift, s);
}
array arctan2(const array& a, const array& b, StreamOrDevice s) {
  Dtype t = at_least_float(promote_types(a.dtype(), b.dtype()));
  return binary("arctan2", a, b, BinaryOp::ArcTan2, t, t, s);
}
array logaddexp(const array& a, const array& b, StreamOrDevice s) {
  Dtype t = at_least_float(promote_types(a.dtype(), b.dtype()));
  return binary("logaddexp", a, b, BinaryOp::LogAddExp, t, t, s);
}
// One kernel for every dtype. MLX composes floor(divide(a, b)) for floats;
// the kernel floors the float quotient before rounding it to float16 or
// bfloat16, where the composition could round up to the next integer first.
array floor_divide(const array& a, const array& b, StreamOrDevice s) {
  return arithmetic("floor_divide", a, b, BinaryOp::FloorDivide, s);
}
array remainder(const array& a, const array& b, StreamOrDevice s) {
  return arithmetic("remainder", a, b, BinaryOp::Remainder, s);
}
std::vector<array> divmod(const array& a, const array& b, StreamOrDevice s) {
  return {floor_divide(a, b, s), remainder(a, b, s)};
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
array operator^(const array& a, const array& b) {
  return bitwise_xor(a, b);
}
array operator%(const array& a, const array& b) {
  return remainder(a, b);
}
array operator<<(const array& a, const array& b) {
  return left_shift(a, b);
}
array operator>>(const array& a, const array& b) {
  return right_shift(a, b);
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
    case BinaryOp::ArcTan2:
      return "ArcTan2";
    case BinaryOp::LogAddExp:
      return "LogAddExp";
    case BinaryOp::FloorDivide:
      return "FloorDivide";
    case BinaryOp::Remainder:
      return "Remainder";
    case BinaryOp::BitwiseXor:
      return "BitwiseXor";
    case BinaryOp::LeftShift:
      return "LeftShift";
    case BinaryOp::RightShift:
      return "RightShift";
  }
  return "Binary";
}

bool Binary::is_equivalent(const Primitive& other) const {
  auto* o = dynamic_cast<const Binary*>(&other);
  return o && o->op_ == op_;
}

}  // namespace mlx_lite
