// CPU kernel of Scan (cumsum, cumprod, cummax, cummin, logcumsumexp): one
// sequential pass along the axis for each line, reading the input through
// its strides into a row-contiguous output.
#include <cmath>
#include <functional>
#include <limits>

#include "backend/cpu/strided.h"
#include "backend/cpu/wrapping.h"
#include "mlx_lite/primitives/reduction.h"

namespace mlx_lite {

namespace {

// Sums and products accumulate in double for floats (long scans stay
// accurate) and in 64 bits for integers (wrapping into the output type, as
// MLX does); max and min in the compute type (exact); logaddexp in double.
template <typename T>
using wide_t = std::conditional_t<std::is_floating_point_v<compute_type_t<T>>, double,
                                  std::conditional_t<std::is_unsigned_v<T>, uint64_t, int64_t>>;

template <typename T>
struct SumOp {
  using A = wide_t<T>;
  static A identity() { return 0; }
  static A apply(A acc, A x) { return cpu::wrapping(acc, x, std::plus<>{}); }
};

template <typename T>
struct ProdOp {
  using A = wide_t<T>;
  static A identity() { return 1; }
  static A apply(A acc, A x) { return cpu::wrapping(acc, x, std::multiplies<>{}); }
};

// Keeps the earlier element unless the later one is strictly beyond it, and
// the first NaN once one is met: the associative rule the GPU's tree scan
// applies too, so both pick the same element (the same zero among -0, +0).
template <typename T, bool kMax>
struct ExtremeOp {
  using A = compute_type_t<T>;
  static A identity() {
    if constexpr (std::is_floating_point_v<A>) {
      return kMax ? -std::numeric_limits<A>::infinity() : std::numeric_limits<A>::infinity();
    } else if constexpr (std::is_same_v<A, bool>) {
      return !kMax;
    } else {
      return kMax ? std::numeric_limits<A>::lowest() : std::numeric_limits<A>::max();
    }
  }
  static A apply(A acc, A x) {
    if constexpr (std::is_floating_point_v<A>) {
      if (std::isnan(acc)) return acc;
      if (std::isnan(x)) return x;
    }
    return (kMax ? x > acc : x < acc) ? x : acc;
  }
};

// log(exp(acc) + exp(x)) without overflow: the larger plus log1p of the rest.
struct LogAddExpOp {
  using A = double;
  static A identity() { return -std::numeric_limits<double>::infinity(); }
  static A apply(A acc, A x) {
    if (std::isnan(acc) || std::isnan(x)) return std::numeric_limits<double>::quiet_NaN();
    const A hi = std::max(acc, x), lo = std::min(acc, x);
    if (std::isinf(hi)) return hi;  // -inf + -inf, or +inf + anything
    return hi + std::log1p(std::exp(lo - hi));
  }
};

template <typename In, typename Out, typename Op>
void scan(const array& in, array& out, int axis, bool reverse, bool inclusive) {
  using A = typename Op::A;
  auto* src = static_cast<const In*>(in.raw_data());
  auto* dst = static_cast<Out*>(out.raw_data());
  const int64_t n = in.shape(axis);
  const auto out_strides = row_major_strides(out.shape());
  // Walking backwards is walking forwards from the last element with negated strides.
  const int64_t si = reverse ? -in.strides()[axis] : in.strides()[axis];
  const int64_t so = reverse ? -out_strides[axis] : out_strides[axis];
  const int64_t start_i = reverse ? (n - 1) * in.strides()[axis] : 0;
  const int64_t start_o = reverse ? (n - 1) * out_strides[axis] : 0;

  Shape shape;
  Strides in_st, out_st;
  for (int i = 0; i < in.ndim(); ++i) {
    if (i == axis) continue;
    shape.push_back(in.shape(i));
    in_st.push_back(in.strides()[i]);
    out_st.push_back(out_strides[i]);
  }
  if (n == 0) return;
  cpu::for_each_offset<2>(shape, {&in_st, &out_st}, [&](const auto& off) {
    const In* p = src + off[0] + start_i;
    Out* q = dst + off[1] + start_o;
    A acc = Op::identity();
    for (int64_t i = 0; i < n; ++i) {
      A x = static_cast<A>(static_cast<compute_type_t<In>>(p[i * si]));
      if (inclusive) acc = Op::apply(acc, x);
      q[i * so] = static_cast<Out>(static_cast<compute_type_t<Out>>(acc));
      if (!inclusive) acc = Op::apply(acc, x);
    }
  });
}

}  // namespace

void Scan::eval_cpu(const std::vector<array>& inputs, array& out) {
  const auto& in = inputs[0];
  common::allocate(out);
  dispatch_dtype(in.dtype(), [&]<typename T>() {
    switch (type_) {
      case Sum: {
        // bool sums count, into int32 (as MLX); every other dtype keeps its type.
        using Out = std::conditional_t<std::is_same_v<T, bool>, int32_t, T>;
        return scan<T, Out, SumOp<T>>(in, out, axis_, reverse_, inclusive_);
      }
      case Prod:
        return scan<T, T, ProdOp<T>>(in, out, axis_, reverse_, inclusive_);
      case Max:
        return scan<T, T, ExtremeOp<T, true>>(in, out, axis_, reverse_, inclusive_);
      case Min:
        return scan<T, T, ExtremeOp<T, false>>(in, out, axis_, reverse_, inclusive_);
      case LogAddExp:
        if constexpr (std::is_floating_point_v<compute_type_t<T>>) {
          return scan<T, T, LogAddExpOp>(in, out, axis_, reverse_, inclusive_);
        }
        throw std::invalid_argument("[logcumsumexp] Scan LogAddExp takes floating inputs only.");
    }
  });
}

}  // namespace mlx_lite
