#include "mlx_lite/ops/unary.h"

#include <cmath>
#include <stdexcept>

#include "mlx_lite/ops/binary.h"
#include "mlx_lite/primitives/unary.h"
#include "mlx_lite/utils.h"

namespace mlx_lite {

namespace {

Dtype at_least_float(Dtype t) {
  return is_floating_point(t) ? t : float32;
}

// A Unary node computing in `dtype` (the input is cast to it first).
array unary(const array& a, UnaryOp op, Dtype dtype, StreamOrDevice s) {
  array in = astype(a, dtype, s);
  return array(in.shape(), dtype, std::make_shared<Unary>(to_stream(s), op), {in});
}

array float_unary(const array& a, UnaryOp op, StreamOrDevice s) {
  return unary(a, op, at_least_float(a.dtype()), s);
}

}  // namespace

array abs(const array& a, StreamOrDevice s) {
  if (a.dtype() == bool_ || is_unsigned(a.dtype())) return a;
  return unary(a, UnaryOp::Abs, a.dtype(), s);
}

array negative(const array& a, StreamOrDevice s) {
  if (a.dtype() == bool_) {
    throw std::invalid_argument("[negative] Not supported for bool arrays; use logical_not.");
  }
  return unary(a, UnaryOp::Negative, a.dtype(), s);
}
array operator-(const array& a) {
  return negative(a);
}

array floor(const array& a, StreamOrDevice s) {
  return unary(a, UnaryOp::Floor, a.dtype(), s);
}
array ceil(const array& a, StreamOrDevice s) {
  return unary(a, UnaryOp::Ceil, a.dtype(), s);
}

array round(const array& a, int decimals, StreamOrDevice s) {
  if (decimals == 0) return unary(a, UnaryOp::Round, a.dtype(), s);
  Dtype dtype = at_least_float(a.dtype());
  array scale(std::pow(10.0f, static_cast<float>(decimals)), dtype);
  return astype(divide(round(multiply(a, scale, s), 0, s), scale, s), a.dtype(), s);
}
array round(const array& a, StreamOrDevice s) {
  return round(a, 0, s);
}

array exp(const array& a, StreamOrDevice s) {
  return float_unary(a, UnaryOp::Exp, s);
}
array log(const array& a, StreamOrDevice s) {
  return float_unary(a, UnaryOp::Log, s);
}
array log1p(const array& a, StreamOrDevice s) {
  return float_unary(a, UnaryOp::Log1p, s);
}
array sqrt(const array& a, StreamOrDevice s) {
  return float_unary(a, UnaryOp::Sqrt, s);
}
array rsqrt(const array& a, StreamOrDevice s) {
  return float_unary(a, UnaryOp::Rsqrt, s);
}
array square(const array& a, StreamOrDevice s) {
  return unary(a, UnaryOp::Square, a.dtype(), s);
}
array sin(const array& a, StreamOrDevice s) {
  return float_unary(a, UnaryOp::Sin, s);
}
array cos(const array& a, StreamOrDevice s) {
  return float_unary(a, UnaryOp::Cos, s);
}
array tanh(const array& a, StreamOrDevice s) {
  return float_unary(a, UnaryOp::Tanh, s);
}
array sigmoid(const array& a, StreamOrDevice s) {
  return float_unary(a, UnaryOp::Sigmoid, s);
}
array erf(const array& a, StreamOrDevice s) {
  return float_unary(a, UnaryOp::Erf, s);
}
array erfinv(const array& a, StreamOrDevice s) {
  return float_unary(a, UnaryOp::ErfInv, s);
}

array logical_not(const array& a, StreamOrDevice s) {
  return unary(a, UnaryOp::LogicalNot, bool_, s);
}
array operator!(const array& a) {
  return logical_not(a);
}

array astype(array a, Dtype dtype, StreamOrDevice s) {
  if (!is_valid_dtype(dtype)) {
    throw std::invalid_argument(fmt::format(
        "[astype] Unknown dtype (value {}, size {}); expected one of bool, uint8, uint32, int32, "
        "int64, float16, bfloat16, float32.",
        static_cast<int>(dtype.val), static_cast<int>(dtype.size)));
  }
  if (a.dtype() == dtype) return a;
  Shape shape = a.shape();  // read before `a` is moved into the inputs
  return array(std::move(shape), dtype, std::make_shared<AsType>(to_stream(s), dtype),
               {std::move(a)});
}

const char* unary_op_name(UnaryOp op) {
  switch (op) {
    case UnaryOp::Abs:
      return "Abs";
    case UnaryOp::Negative:
      return "Negative";
    case UnaryOp::Floor:
      return "Floor";
    case UnaryOp::Ceil:
      return "Ceil";
    case UnaryOp::Round:
      return "Round";
    case UnaryOp::Exp:
      return "Exp";
    case UnaryOp::Log:
      return "Log";
    case UnaryOp::Log1p:
      return "Log1p";
    case UnaryOp::Sqrt:
      return "Sqrt";
    case UnaryOp::Rsqrt:
      return "Rsqrt";
    case UnaryOp::Square:
      return "Square";
    case UnaryOp::Sin:
      return "Sin";
    case UnaryOp::Cos:
      return "Cos";
    case UnaryOp::Tanh:
      return "Tanh";
    case UnaryOp::Sigmoid:
      return "Sigmoid";
    case UnaryOp::Erf:
      return "Erf";
    case UnaryOp::ErfInv:
      return "ErfInv";
    case UnaryOp::LogicalNot:
      return "LogicalNot";
  }
  return "Unary";
}

bool Unary::is_equivalent(const Primitive& other) const {
  auto* o = dynamic_cast<const Unary*>(&other);
  return o && o->op_ == op_;
}

bool AsType::is_equivalent(const Primitive& other) const {
  auto* o = dynamic_cast<const AsType*>(&other);
  return o && o->dtype_ == dtype_;
}

}  // namespace mlx_lite
