// CPU kernels of Unary and AsType.
#include "mlx_lite/primitives/unary.h"

#include <cmath>
#include <functional>

#include "backend/cpu/strided.h"
#include "backend/cpu/wrapping.h"

namespace mlx_lite {

namespace {

// Inverse error function: Giles' single-precision polynomial, the one MLX uses.
float erfinv_approx(float a) {
  float t = std::log(std::fma(a, -a, 1.0f));
  float p;
  if (std::fabs(t) > 6.125f) {
    p = 3.03697567e-10f;
    p = std::fma(p, t, 2.93243101e-8f);
    p = std::fma(p, t, 1.22150334e-6f);
    p = std::fma(p, t, 2.84108955e-5f);
    p = std::fma(p, t, 3.93552968e-4f);
    p = std::fma(p, t, 3.02698812e-3f);
    p = std::fma(p, t, 4.83185798e-3f);
    p = std::fma(p, t, -2.64646143e-1f);
    p = std::fma(p, t, 8.40016484e-1f);
  } else {
    p = 5.43877832e-9f;
    p = std::fma(p, t, 1.43285448e-7f);
    p = std::fma(p, t, 1.22774793e-6f);
    p = std::fma(p, t, 1.12963626e-7f);
    p = std::fma(p, t, -5.61530760e-5f);
    p = std::fma(p, t, -1.47697632e-4f);
    p = std::fma(p, t, 2.31468678e-3f);
    p = std::fma(p, t, 1.15392581e-2f);
    p = std::fma(p, t, -2.32015476e-1f);
    p = std::fma(p, t, 8.86226892e-1f);
  }
  return a * p;
}

// out[i] = f(in[i]) in row-major order, reading `in` through its strides.
template <typename In, typename Out, typename F>
void map(const array& in, array& out, F f) {
  if (!common::try_donate(in, out)) common::allocate(out);
  auto* src = static_cast<const In*>(in.raw_data());
  auto* dst = static_cast<Out*>(out.raw_data());
  if (in.flags().row_contiguous) {
    for (size_t i = 0, n = in.size(); i < n; ++i) dst[i] = static_cast<Out>(f(src[i]));
  } else {
    cpu::for_each_offset<1>(in.shape(), {&in.strides()},
                            [&](const auto& off) { *dst++ = static_cast<Out>(f(src[off[0]])); });
  }
}

template <typename T>
void unary_kernel(UnaryOp op, const array& in, array& out) {
  using C = compute_type_t<T>;
  constexpr bool is_float = std::is_floating_point_v<C>;
  auto run = [&](auto f) { map<T, T>(in, out, [f](T x) { return f(static_cast<C>(x)); }); };
  switch (op) {
    case UnaryOp::Abs:
      if constexpr (std::is_signed_v<C>) {
        return run([](C x) { return x < 0 ? cpu::wrapping_negate(x) : x; });
      }
      return run([](C x) { return x; });
    case UnaryOp::Negative:  // integers wrap (cpu/wrapping.h)
      return run([](C x) { return cpu::wrapping_negate(x); });
    case UnaryOp::Square:
      return run([](C x) { return cpu::wrapping(x, x, std::multiplies<>{}); });
    case UnaryOp::LogicalNot:
      return run([](C x) { return !x; });
    case UnaryOp::Sign:  // MLX's: NaN gives 0; unsigned and bool give x != 0
      if constexpr (std::is_unsigned_v<C>) {
        return run([](C x) { return static_cast<C>(x != 0); });
      } else {
        return run([](C x) { return static_cast<C>((x > C(0)) - (x < C(0))); });
      }
    case UnaryOp::BitwiseInvert:  // integers only (the op sends bool to logical_not)
      if constexpr (!is_float && !std::is_same_v<C, bool>) {
        return run([](C x) { return static_cast<C>(~x); });
      }
      break;
    default:
      break;
  }
  if constexpr (!is_float) {
    // Rounding an integer changes nothing; the float-only ops never get here
    // because the ops cast integer inputs to float32 first.
    return run([](C x) { return x; });
  } else {
    switch (op) {
      case UnaryOp::Floor:
        return run([](C x) { return std::floor(x); });
      case UnaryOp::Ceil:
        return run([](C x) { return std::ceil(x); });
      case UnaryOp::Round:
        return run([](C x) { return std::nearbyint(x); });  // half to even
      case UnaryOp::Exp:
        return run([](C x) { return std::exp(x); });
      case UnaryOp::Log:
        return run([](C x) { return std::log(x); });
      case UnaryOp::Log1p:
        return run([](C x) { return std::log1p(x); });
      case UnaryOp::Sqrt:
        return run([](C x) { return std::sqrt(x); });
      case UnaryOp::Rsqrt:
        return run([](C x) { return C(1) / std::sqrt(x); });
      case UnaryOp::Sin:
        return run([](C x) { return std::sin(x); });
      case UnaryOp::Cos:
        return run([](C x) { return std::cos(x); });
      case UnaryOp::Tanh:
        return run([](C x) { return std::tanh(x); });
      case UnaryOp::Sigmoid:
        return run([](C x) { return C(1) / (C(1) + std::exp(-x)); });
      case UnaryOp::Erf:
        return run([](C x) { return std::erf(x); });
      case UnaryOp::ErfInv:
        return run([](C x) { return erfinv_approx(x); });
      case UnaryOp::Tan:
        return run([](C x) { return std::tan(x); });
      case UnaryOp::ArcSin:
        return run([](C x) { return std::asin(x); });
      case UnaryOp::ArcCos:
        return run([](C x) { return std::acos(x); });
      case UnaryOp::ArcTan:
        return run([](C x) { return std::atan(x); });
      case UnaryOp::Sinh:
        return run([](C x) { return std::sinh(x); });
      case UnaryOp::Cosh:
        return run([](C x) { return std::cosh(x); });
      case UnaryOp::ArcSinh:
        return run([](C x) { return std::asinh(x); });
      case UnaryOp::ArcCosh:
        return run([](C x) { return std::acosh(x); });
      case UnaryOp::ArcTanh:
        return run([](C x) { return std::atanh(x); });
      case UnaryOp::Expm1:
        return run([](C x) { return std::expm1(x); });
      case UnaryOp::Log2:
        return run([](C x) { return std::log2(x); });
      case UnaryOp::Log10:
        return run([](C x) { return std::log10(x); });
      default:
        return run([](C x) { return x; });
    }
  }
}

}  // namespace

void Unary::eval_cpu(const std::vector<array>& inputs, array& out) {
  if (is_classification(op_)) {
    // A float input classified into a bool output (the ops send only floats).
    const bool finite = op_ == UnaryOp::IsFinite;
    dispatch_dtype(inputs[0].dtype(), [&]<typename T>() {
      using C = compute_type_t<T>;
      map<T, bool>(inputs[0], out, [finite](T x) {
        const C c = static_cast<C>(x);
        return finite ? std::isfinite(c) : std::isinf(c);
      });
    });
    return;
  }
  dispatch_dtype(out.dtype(), [&]<typename T>() { unary_kernel<T>(op_, inputs[0], out); });
}

void AsType::eval_cpu(const std::vector<array>& inputs, array& out) {
  cpu::copy_to_row_contiguous(inputs[0], out);
}

}  // namespace mlx_lite
