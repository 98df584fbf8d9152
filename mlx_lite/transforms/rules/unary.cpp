// Derivative rules of Unary and AsType. An elementwise function's Jacobian is
// diagonal, so its vjp and jvp both multiply by f'(x); the vjp reuses the
// output where f' is a function of it (exp, expm1, sqrt, rsqrt, tanh, sigmoid).
#include "mlx_lite/primitives/unary.h"

#include <cmath>
#include <numbers>
#include <optional>

#include "mlx_lite/ops/ops.h"
#include "mlx_lite/transforms/rules/scalar.h"

namespace mlx_lite {

namespace {

using rules::scalar;

// f'(x) for the op whose output at x is `out` (computed here when absent).
array derivative(UnaryOp op, const array& x, std::optional<array> out, Stream s) {
  auto y = [&] {
    return out ? *out : array(x.shape(), x.dtype(), std::make_shared<Unary>(s, op), {x});
  };
  switch (op) {
    case UnaryOp::Abs:  // sign(x), 0 at 0
      return subtract(astype(greater(x, scalar(0, x), s), x.dtype(), s),
                      astype(less(x, scalar(0, x), s), x.dtype(), s), s);
    case UnaryOp::Negative:
      return full(x.shape(), scalar(-1, x), s);
    case UnaryOp::Exp:
      return y();
    case UnaryOp::Log:
      return divide(scalar(1, x), x, s);
    case UnaryOp::Log1p:
      return divide(scalar(1, x), add(x, scalar(1, x), s), s);
    case UnaryOp::Sqrt:  // 1 / (2 sqrt(x))
      return divide(scalar(0.5, x), y(), s);
    case UnaryOp::Rsqrt:  // -x^(-3/2) / 2
      return multiply(scalar(-0.5, x), power(y(), scalar(3, x), s), s);
    case UnaryOp::Square:
      return multiply(scalar(2, x), x, s);
    case UnaryOp::Sin:
      return cos(x, s);
    case UnaryOp::Cos:
      return negative(sin(x, s), s);
    case UnaryOp::Tanh: {
      array t = y();
      return subtract(scalar(1, x), square(t, s), s);
    }
    case UnaryOp::Sigmoid: {
      array t = y();
      return multiply(t, subtract(scalar(1, x), t, s), s);
    }
    case UnaryOp::Erf:  // 2 / sqrt(pi) e^(-x^2)
      return multiply(scalar(std::numbers::inv_sqrtpi * 2, x), exp(negative(square(x, s), s), s),
                      s);
    case UnaryOp::ErfInv:  // sqrt(pi) / 2 e^(erfinv(x)^2)
      return multiply(scalar(std::sqrt(std::numbers::pi) / 2, x), exp(square(y(), s), s), s);
    case UnaryOp::Tan:  // 1 / cos(x)^2
      return divide(scalar(1, x), square(cos(x, s), s), s);
    case UnaryOp::ArcSin:  // 1 / sqrt(1 - x^2)
      return rsqrt(subtract(scalar(1, x), square(x, s), s), s);
    case UnaryOp::ArcCos:  // -1 / sqrt(1 - x^2)
      return negative(rsqrt(subtract(scalar(1, x), square(x, s), s), s), s);
    case UnaryOp::ArcTan:  // 1 / (1 + x^2)
      return divide(scalar(1, x), add(scalar(1, x), square(x, s), s), s);
    case UnaryOp::Sinh:
      return cosh(x, s);
    case UnaryOp::Cosh:
      return sinh(x, s);
    case UnaryOp::ArcSinh:  // 1 / sqrt(x^2 + 1)
      return rsqrt(add(square(x, s), scalar(1, x), s), s);
    case UnaryOp::ArcCosh:  // 1 / sqrt(x^2 - 1)
      return rsqrt(subtract(square(x, s), scalar(1, x), s), s);
    case UnaryOp::ArcTanh:  // 1 / (1 - x^2)
      return divide(scalar(1, x), subtract(scalar(1, x), square(x, s), s), s);
    case UnaryOp::Expm1:  // e^x = expm1(x) + 1
      return add(y(), scalar(1, x), s);
    case UnaryOp::Log2:  // 1 / (x ln 2)
      return divide(scalar(1, x), multiply(x, scalar(std::numbers::ln2, x), s), s);
    case UnaryOp::Log10:  // 1 / (x ln 10)
      return divide(scalar(1, x), multiply(x, scalar(std::numbers::ln10, x), s), s);
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Round:
    case UnaryOp::LogicalNot:
    case UnaryOp::Sign:           // zero, as MLX's
    case UnaryOp::BitwiseInvert:  // integers only
    case UnaryOp::IsFinite:
    case UnaryOp::IsInf:
      break;  // piecewise constant
  }
  return zeros_like(x, s);
}

}  // namespace

std::vector<array> Unary::jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                              const std::vector<int>&) {
  return {multiply(tangents[0], derivative(op_, primals[0], std::nullopt, stream()), stream())};
}

std::vector<array> Unary::vjp(const std::vector<array>& primals,
                              const std::vector<array>& cotangents, const std::vector<int>&,
                              const std::vector<array>& outputs) {
  return {multiply(cotangents[0], derivative(op_, primals[0], outputs[0], stream()), stream())};
}

std::vector<array> AsType::jvp(const std::vector<array>&, const std::vector<array>& tangents,
                               const std::vector<int>&) {
  return {astype(tangents[0], dtype_, stream())};
}

std::vector<array> AsType::vjp(const std::vector<array>& primals,
                               const std::vector<array>& cotangents, const std::vector<int>&,
                               const std::vector<array>&) {
  return {astype(cotangents[0], primals[0].dtype(), stream())};
}

}  // namespace mlx_lite
