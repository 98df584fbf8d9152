// CPU kernel of Binary. The inputs have the output's shape and one dtype;
// broadcast operands arrive as stride-0 views.
#include "mlx_lite/primitives/binary.h"

#include <cmath>
#include <functional>
#include <limits>
#include <type_traits>

#include "backend/cpu/strided.h"
#include "backend/cpu/wrapping.h"

namespace mlx_lite {

namespace {

bool is_scalar_view(const array& a) {
  for (auto st : a.strides()) {
    if (st != 0) return false;
  }
  return true;
}

template <typename T, typename R, typename F>
void binary_map(const array& a, const array& b, array& out, F f) {
  using C = compute_type_t<T>;
  if (!common::try_donate(a, out) && !common::try_donate(b, out)) common::allocate(out);
  auto* x = static_cast<const T*>(a.raw_data());
  auto* y = static_cast<const T*>(b.raw_data());
  auto* dst = static_cast<R*>(out.raw_data());
  const size_t n = out.size();
  auto op = [f](T u, T v) { return static_cast<R>(f(static_cast<C>(u), static_cast<C>(v))); };
  bool a_dense = a.flags().row_contiguous, b_dense = b.flags().row_contiguous;
  if (a_dense && b_dense) {
    for (size_t i = 0; i < n; ++i) dst[i] = op(x[i], y[i]);
  } else if (a_dense && is_scalar_view(b)) {
    const T v = *y;
    for (size_t i = 0; i < n; ++i) dst[i] = op(x[i], v);
  } else if (b_dense && is_scalar_view(a)) {
    const T u = *x;
    for (size_t i = 0; i < n; ++i) dst[i] = op(u, y[i]);
  } else {
    cpu::for_each_offset<2>(out.shape(), {&a.strides(), &b.strides()},
                            [&](const auto& off) { *dst++ = op(x[off[0]], y[off[1]]); });
  }
}

// base^exponent wrapped into C (cpu/wrapping.h), as the GPU's: squaring the
// base overflows even when the result fits (10^9 in int32 squares 10^8).
template <typename C>
C integer_power(C base, C exponent) {
  if (exponent < 0) return base == 1 ? 1 : 0;  // integer results of 1/base^k
  C result = 1;
  while (exponent > 0) {
    if (exponent & 1) result = cpu::wrapping(result, base, std::multiplies<>{});
    base = cpu::wrapping(base, base, std::multiplies<>{});
    exponent >>= 1;
  }
  return result;
}

// Integer floor division and its remainder with the results this library
// defines where C++ leaves them undefined (and x86 raises SIGFPE): x / 0 and
// x % 0 give 0, and the minimum value / -1 wraps to itself (remainder 0).
// The GPU kernels (shaders/binary.comp) give the same.
template <typename C>
C floor_divide_int(C x, C y) {
  if (y == 0) return 0;
  if constexpr (std::is_signed_v<C>) {
    if (y == -1) return cpu::wrapping_negate(x);
    C q = static_cast<C>(x / y);
    if (x % y != 0 && ((x < 0) != (y < 0))) --q;  // truncated toward 0: floor instead
    return q;
  } else {
    return static_cast<C>(x / y);
  }
}

template <typename C>
C remainder_int(C x, C y) {
  if (y == 0) return 0;
  if constexpr (std::is_signed_v<C>) {
    if (y == -1) return 0;
    C r = static_cast<C>(x % y);
    if (r != 0 && ((r < 0) != (y < 0))) r = static_cast<C>(r + y);  // the sign of y
    return r;
  } else {
    return static_cast<C>(x % y);
  }
}

// Python's %: fmod (exact), moved into the sign of y; a zero result takes
// y's sign too, as in Python and numpy.
template <typename C>
C remainder_float(C x, C y) {
  C r = std::fmod(x, y);
  if (r == 0) return std::copysign(C(0), y);
  if ((r < 0) != (y < 0)) r += y;
  return r;
}

// MLX's logaddexp: NaN propagates, and an infinite maximum (or a -inf
// minimum) is the answer itself, so -inf with -inf is -inf, not NaN.
template <typename C>
C logaddexp_float(C x, C y) {
  const C hi = (x > y || std::isnan(x)) ? x : y;
  const C lo = (x < y || std::isnan(x)) ? x : y;
  if (lo == -std::numeric_limits<C>::infinity() || hi == std::numeric_limits<C>::infinity()) {
    return hi;
  }
  return hi + std::log1p(std::exp(lo - hi));
}

// Shifts by a count outside [0, bits) give numpy's results (0, or -1 for
// a right shift of a negative value) instead of C++'s undefined behaviour.
template <typename C>
bool shift_out_of_range(C y) {
  constexpr C bits = 8 * sizeof(C);
  if constexpr (std::is_signed_v<C>) return y < 0 || y >= bits;
  return y >= bits;
}

template <typename C>
C left_shift_int(C x, C y) {
  if (shift_out_of_range(y)) return 0;
  return static_cast<C>(static_cast<std::make_unsigned_t<C>>(x) << y);
}

template <typename C>
C right_shift_int(C x, C y) {
  if (shift_out_of_range(y)) {
    if constexpr (std::is_signed_v<C>) return x < 0 ? C(-1) : C(0);
    return 0;
  }
  return static_cast<C>(x >> y);  // arithmetic for signed (C++20)
}

template <typename T>
void binary_kernel(BinaryOp op, const array& a, const array& b, array& out) {
  using C = compute_type_t<T>;
  constexpr bool is_float = std::is_floating_point_v<C>;
  auto same = [&](auto f) { binary_map<T, T>(a, b, out, f); };
  auto boolean = [&](auto f) { binary_map<T, bool>(a, b, out, f); };
  switch (op) {
    // Integers wrap (cpu/wrapping.h).
    case BinaryOp::Add:
      return same([](C x, C y) { return cpu::wrapping(x, y, std::plus<>{}); });
    case BinaryOp::Subtract:
      return same([](C x, C y) { return cpu::wrapping(x, y, std::minus<>{}); });
    case BinaryOp::Multiply:
      return same([](C x, C y) { return cpu::wrapping(x, y, std::multiplies<>{}); });
    case BinaryOp::Equal:
      return boolean([](C x, C y) { return x == y; });
    case BinaryOp::NotEqual:
      return boolean([](C x, C y) { return x != y; });
    case BinaryOp::Greater:
      return boolean([](C x, C y) { return x > y; });
    case BinaryOp::GreaterEqual:
      return boolean([](C x, C y) { return x >= y; });
    case BinaryOp::Less:
      return boolean([](C x, C y) { return x < y; });
    case BinaryOp::LessEqual:
      return boolean([](C x, C y) { return x <= y; });
    case BinaryOp::LogicalAnd:
      return same([](C x, C y) { return x && y; });
    case BinaryOp::LogicalOr:
      return same([](C x, C y) { return x || y; });
    default:
      break;
  }
  if constexpr (is_float) {
    switch (op) {
      // NaN propagates through maximum and minimum, as in MLX and numpy.
      case BinaryOp::Maximum:
        return same([](C x, C y) { return (x > y || std::isnan(x)) ? x : y; });
      case BinaryOp::Minimum:
        return same([](C x, C y) { return (x < y || std::isnan(x)) ? x : y; });
      case BinaryOp::Divide:
        return same([](C x, C y) { return x / y; });
      case BinaryOp::Power:
        return same([](C x, C y) { return std::pow(x, y); });
      case BinaryOp::ArcTan2:
        return same([](C x, C y) { return std::atan2(x, y); });
      case BinaryOp::LogAddExp:
        return same([](C x, C y) { return logaddexp_float(x, y); });
      case BinaryOp::FloorDivide:
        return same([](C x, C y) { return std::floor(x / y); });
      case BinaryOp::Remainder:
        return same([](C x, C y) { return remainder_float(x, y); });
      default:
        break;
    }
  } else {
    switch (op) {
      case BinaryOp::Maximum:
        return same([](C x, C y) { return x > y ? x : y; });
      case BinaryOp::Minimum:
        return same([](C x, C y) { return x < y ? x : y; });
      case BinaryOp::Power:
        if constexpr (std::is_same_v<C, bool>)
          return same([](C x, C y) { return x || !y; });
        else
          return same([](C x, C y) { return integer_power(x, y); });
      case BinaryOp::BitwiseAnd:
        return same([](C x, C y) { return x & y; });
      case BinaryOp::BitwiseOr:
        return same([](C x, C y) { return x | y; });
      case BinaryOp::BitwiseXor:
        return same([](C x, C y) { return x ^ y; });
      case BinaryOp::FloorDivide:
        return same([](C x, C y) { return floor_divide_int(x, y); });
      case BinaryOp::Remainder:
        return same([](C x, C y) { return remainder_int(x, y); });
      case BinaryOp::LeftShift:  // never bool: the ops shift bool as uint8
        if constexpr (!std::is_same_v<C, bool>)
          return same([](C x, C y) { return left_shift_int(x, y); });
        break;
      case BinaryOp::RightShift:
        if constexpr (!std::is_same_v<C, bool>) {
          return same([](C x, C y) { return right_shift_int(x, y); });
        }
        break;
      default:
        break;
    }
  }
  throw std::invalid_argument(std::string("[") + binary_op_name(op) + "] Not supported for " +
                              std::string(dtype_name(a.dtype())) + ".");
}

}  // namespace

void Binary::eval_cpu(const std::vector<array>& inputs, array& out) {
  dispatch_dtype(inputs[0].dtype(),
                 [&]<typename T>() { binary_kernel<T>(op_, inputs[0], inputs[1], out); });
}

}  // namespace mlx_lite
