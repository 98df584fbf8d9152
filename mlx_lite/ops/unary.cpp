#include "mlx_lite/ops/unary.h"

#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

#include "mlx_lite/ops/binary.h"
#include "mlx_lite/ops/creation.h"
#include "mlx_lite/ops/ternary.h"
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

array sign(const array& a, StreamOrDevice s) {
  return unary(a, UnaryOp::Sign, a.dtype(), s);
}
// A composition, as MLX's: divide's kernel and rules serve.
array reciprocal(const array& a, StreamOrDevice s) {
  return divide(array(1.0f, at_least_float(a.dtype())), a, s);
}
array tan(const array& a, StreamOrDevice s) {
  return float_unary(a, UnaryOp::Tan, s);
}
array arcsin(const array& a, StreamOrDevice s) {
  return float_unary(a, UnaryOp::ArcSin, s);
}
array arccos(const array& a, StreamOrDevice s) {
  return float_unary(a, UnaryOp::ArcCos, s);
}
array arctan(const array& a, StreamOrDevice s) {
  return float_unary(a, UnaryOp::ArcTan, s);
}
array sinh(const array& a, StreamOrDevice s) {
  return float_unary(a, UnaryOp::Sinh, s);
}
array cosh(const array& a, StreamOrDevice s) {
  return float_unary(a, UnaryOp::Cosh, s);
}
array arcsinh(const array& a, StreamOrDevice s) {
  return float_unary(a, UnaryOp::ArcSinh, s);
}
array arccosh(const array& a, StreamOrDevice s) {
  return float_unary(a, UnaryOp::ArcCosh, s);
}
array arctanh(const array& a, StreamOrDevice s) {
  return float_unary(a, UnaryOp::ArcTanh, s);
}
// degrees and radians multiply by a constant of a's floating dtype, as MLX
// does (so float16 inputs use the float16-rounded constant).
array degrees(const array& a, StreamOrDevice s) {
  return multiply(a, array(180.0 / std::numbers::pi, at_least_float(a.dtype())), s);
}
array radians(const array& a, StreamOrDevice s) {
  return multiply(a, array(std::numbers::pi / 180.0, at_least_float(a.dtype())), s);
}
// A kernel, not exp(a) - 1, which loses every digit for |a| near 0.
array expm1(const array& a, StreamOrDevice s) {
  return float_unary(a, UnaryOp::Expm1, s);
}
array log2(const array& a, StreamOrDevice s) {
  return float_unary(a, UnaryOp::Log2, s);
}
array log10(const array& a, StreamOrDevice s) {
  return float_unary(a, UnaryOp::Log10, s);
}

array bitwise_invert(const array& a, StreamOrDevice s) {
  if (is_floating_point(a.dtype())) {
    throw std::invalid_argument(
        fmt::format("[bitwise_invert] Needs an integer or bool array, got {}.", a.dtype()));
  }
  if (a.dtype() == bool_) return logical_not(a, s);
  return unary(a, UnaryOp::BitwiseInvert, a.dtype(), s);
}
array operator~(const array& a) {
  return bitwise_invert(a);
}

// isnan, isposinf and isneginf are one comparison each, as MLX composes
// them: x != x holds exactly for NaN (the comparison kernels follow IEEE on
// both devices), and +-inf are compared against exactly. isinf and isfinite,
// which MLX composes of abs and a comparison, are one Unary node here (one
// pass over the input instead of two). Their gradients are zero.
array isnan(const array& a, StreamOrDevice s) {
  if (!is_floating_point(a.dtype())) return full(a.shape(), array(false), s);
  return not_equal(a, a, s);
}
array isposinf(const array& a, StreamOrDevice s) {
  if (!is_floating_point(a.dtype())) return full(a.shape(), array(false), s);
  return equal(a, array(std::numeric_limits<float>::infinity(), a.dtype()), s);
}
array isneginf(const array& a, StreamOrDevice s) {
  if (!is_floating_point(a.dtype())) return full(a.shape(), array(false), s);
  return equal(a, array(-std::numeric_limits<float>::infinity(), a.dtype()), s);
}
array isinf(const array& a, StreamOrDevice s) {
  if (!is_floating_point(a.dtype())) return full(a.shape(), array(false), s);
  return array(a.shape(), bool_, std::make_shared<Unary>(to_stream(s), UnaryOp::IsInf), {a});
}
array isfinite(const array& a, StreamOrDevice s) {
  if (!is_floating_point(a.dtype())) return full(a.shape(), array(true), s);
  return array(a.shape(), bool_, std::make_shared<Unary>(to_stream(s), UnaryOp::IsFinite), {a});
}

array nan_to_num(const array& a, float nan, std::optional<float> posinf,
                 std::optional<float> neginf, StreamOrDevice s) {
  const Dtype t = a.dtype();
  if (!is_floating_point(t)) return a;
  array out = where(isnan(a, s), array(nan, t), a, s);
  out = where(isposinf(a, s), array(posinf ? double{*posinf} : finfo(t).max, t), out, s);
  return where(isneginf(a, s), array(neginf ? double{*neginf} : finfo(t).min, t), out, s);
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
        "[astype] Unknown dtype (value {}, size {}); expected one of bool, uint8, uint16, uint32, "
        "uint64, int8, int16, int32, int64, float16, float32, float64, bfloat16.",
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
    case UnaryOp::Sign:
      return "Sign";
    case UnaryOp::Tan:
      return "Tan";
    case UnaryOp::ArcSin:
      return "ArcSin";
    case UnaryOp::ArcCos:
      return "ArcCos";
    case UnaryOp::ArcTan:
      return "ArcTan";
    case UnaryOp::Sinh:
      return "Sinh";
    case UnaryOp::Cosh:
      return "Cosh";
    case UnaryOp::ArcSinh:
      return "ArcSinh";
    case UnaryOp::ArcCosh:
      return "ArcCosh";
    case UnaryOp::ArcTanh:
      return "ArcTanh";
    case UnaryOp::Expm1:
      return "Expm1";
    case UnaryOp::Log2:
      return "Log2";
    case UnaryOp::Log10:
      return "Log10";
    case UnaryOp::BitwiseInvert:
      return "BitwiseInvert";
    case UnaryOp::IsFinite:
      return "IsFinite";
    case UnaryOp::IsInf:
      return "IsInf";
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
