// Graph ops of the reduction family. Reduce, ArgReduce and Scan are
// primitives; mean, var, logsumexp and softmax compose other ops as MLX does,
// with the Softmax / LogSumExp primitives as MLX's fast path for the last axis.
#include "mlx_lite/ops/reduction.h"

#include <limits>
#include <numeric>
#include <stdexcept>

#include "mlx_lite/ops/binary.h"
#include "mlx_lite/ops/shape.h"
#include "mlx_lite/ops/ternary.h"
#include "mlx_lite/ops/unary.h"
#include "mlx_lite/primitives/reduction.h"
#include "mlx_lite/utils.h"

namespace mlx_lite {

namespace {

// Shape after reducing (normalized) `axes`.
Shape reduced_shape(const Shape& shape, const std::vector<int>& axes, bool keepdims) {
  Shape out;
  for (int i = 0; i < static_cast<int>(shape.size()); ++i) {
    bool reduced = std::find(axes.begin(), axes.end(), i) != axes.end();
    if (!reduced) {
      out.push_back(shape[i]);
    } else if (keepdims) {
      out.push_back(1);
    }
  }
  return out;
}

}  // namespace

Shape Reduce::output_shape(const Shape& input) const {
  return reduced_shape(input, axes_, keepdims_);
}
Dtype Reduce::output_dtype(Dtype input) const {
  if (type_ == And || type_ == Or) return bool_;
  // MLX's sum and prod: bool and the integers narrower than 64 bits
  // accumulate in 32 bits of their signedness.
  if (type_ == Sum || type_ == Prod) {
    if (input == bool_) return int32;
    if (is_integral(input) && input.size < 8) return is_unsigned(input) ? uint32 : int32;
  }
  return input;
}
Dtype Scan::output_dtype(Dtype input) const {
  return type_ == Sum && input == bool_ ? int32 : input;
}
Shape ArgReduce::output_shape(const Shape& input) const {
  return reduced_shape(input, {axis_}, keepdims_);
}
Shape LogSumExp::output_shape(const Shape& input) const {
  return reduced_shape(input, {static_cast<int>(input.size()) - 1}, keepdims_);
}

// Primitive identity (used by compile and caches).
bool Reduce::is_equivalent(const Primitive& other) const {
  auto* o = dynamic_cast<const Reduce*>(&other);
  return o && o->type_ == type_ && o->axes_ == axes_ && o->keepdims_ == keepdims_;
}
void Reduce::print(std::ostream& os) {
  static const char* names[] = {"And", "Or", "Sum", "Prod", "Min", "Max"};
  os << "Reduce" << names[type_];
}
bool ArgReduce::is_equivalent(const Primitive& other) const {
  auto* o = dynamic_cast<const ArgReduce*>(&other);
  return o && o->type_ == type_ && o->axis_ == axis_ && o->keepdims_ == keepdims_;
}
bool Scan::is_equivalent(const Primitive& other) const {
  auto* o = dynamic_cast<const Scan*>(&other);
  return o && o->type_ == type_ && o->axis_ == axis_ && o->reverse_ == reverse_ &&
         o->inclusive_ == inclusive_;
}
bool Softmax::is_equivalent(const Primitive& other) const {
  auto* o = dynamic_cast<const Softmax*>(&other);
  return o && o->precise_ == precise_;
}
bool LogSumExp::is_equivalent(const Primitive& other) const {
  auto* o = dynamic_cast<const LogSumExp*>(&other);
  return o && o->keepdims_ == keepdims_;
}

namespace {

std::vector<int> all_axes(const array& a) {
  std::vector<int> axes(a.ndim());
  std::iota(axes.begin(), axes.end(), 0);
  return axes;
}

Dtype at_least_float(Dtype t) {
  return is_floating_point(t) ? t : float32;
}

array reduce(const array& a, const std::vector<int>& axes_in, bool keepdims,
             Reduce::ReduceType type, const char* op, StreamOrDevice s) {
  auto axes = normalize_axes_index(axes_in, a.ndim(), op);
  std::sort(axes.begin(), axes.end());
  if (type == Reduce::Min || type == Reduce::Max) {
    for (int ax : axes) {
      if (a.shape(ax) == 0) {
        throw std::invalid_argument(
            fmt::format("[{}] Cannot reduce over axis {} of size 0 (array shape {}): the {} of "
                        "no elements is undefined.",
                        op, ax, shape_string(a.shape()), op));
      }
    }
  }
  auto p = std::make_shared<Reduce>(to_stream(s), type, std::move(axes), keepdims);
  return array(p->output_shape(a.shape()), p->output_dtype(a.dtype()), p, {a});
}

// Number of elements the (normalized) axes cover.
double count(const array& a, const std::vector<int>& axes) {
  double n = 1;
  for (int ax : axes) n *= a.shape(ax);
  return n;
}

}  // namespace

// The four overloads each reduction shares: all axes (with or without
// keepdims), a list of axes, one axis.
#define MLX_LITE_REDUCTION_OVERLOADS(NAME)                                \
  array NAME(const array& a, bool keepdims, StreamOrDevice s) {           \
    return NAME(a, all_axes(a), keepdims, s);                             \
  }                                                                       \
  array NAME(const array& a, StreamOrDevice s) {                          \
    return NAME(a, false, s);                                             \
  }                                                                       \
  array NAME(const array& a, int axis, bool keepdims, StreamOrDevice s) { \
    return NAME(a, std::vector<int>{axis}, keepdims, s);                  \
  }

array sum(const array& a, const std::vector<int>& axes, bool keepdims, StreamOrDevice s) {
  return reduce(a, axes, keepdims, Reduce::Sum, "sum", s);
}
array prod(const array& a, const std::vector<int>& axes, bool keepdims, StreamOrDevice s) {
  return reduce(a, axes, keepdims, Reduce::Prod, "prod", s);
}
array max(const array& a, const std::vector<int>& axes, bool keepdims, StreamOrDevice s) {
  return reduce(a, axes, keepdims, Reduce::Max, "max", s);
}
array min(const array& a, const std::vector<int>& axes, bool keepdims, StreamOrDevice s) {
  return reduce(a, axes, keepdims, Reduce::Min, "min", s);
}
array all(const array& a, const std::vector<int>& axes, bool keepdims, StreamOrDevice s) {
  return reduce(a, axes, keepdims, Reduce::And, "all", s);
}
array any(const array& a, const std::vector<int>& axes, bool keepdims, StreamOrDevice s) {
  return reduce(a, axes, keepdims, Reduce::Or, "any", s);
}

array mean(const array& a, const std::vector<int>& axes, bool keepdims, StreamOrDevice s) {
  auto n = count(a, normalize_axes(axes, a.ndim(), "mean"));
  // A float, not a double: array(double, dtype) would read the double as float bits.
  return multiply(sum(a, axes, keepdims, s),
                  array(static_cast<float>(1.0 / n), at_least_float(a.dtype())), s);
}

array logsumexp(const array& a, const std::vector<int>& axes_in, bool keepdims, StreamOrDevice s) {
  if (a.size() == 0) {
    throw std::invalid_argument(fmt::format(
        "[logsumexp] Received an empty array of shape {}; expected at least one element.",
        shape_string(a.shape())));
  }
  if (a.ndim() == 0 && !axes_in.empty()) {
    throw std::invalid_argument("[logsumexp] A 0-D array has no axes to reduce over.");
  }
  auto axes = normalize_axes_index(axes_in, a.ndim(), "logsumexp");
  auto out_type = at_least_float(a.dtype());
  auto in = a.dtype() == out_type ? a : astype(a, out_type, s);
  if (axes.size() == 1 && axes[0] == a.ndim() - 1) {
    auto p = std::make_shared<LogSumExp>(to_stream(s), keepdims);
    return array(p->output_shape(a.shape()), out_type, p, {in});
  }
  // Shift by the max so exp cannot overflow; an infinite max (a row of -inf,
  // or a +inf) shifts by 0 instead, so -inf - -inf never makes a NaN.
  auto m = max(in, axes, true, s);
  auto inf = array(std::numeric_limits<float>::infinity(), out_type);
  m = where(less(abs(m, s), inf, s), m, array(0.0f, out_type), s);
  auto out = log(sum(exp(subtract(in, m, s), s), axes, keepdims, s), s);
  return add(out, keepdims ? m : squeeze(m, axes, s), s);
}

MLX_LITE_REDUCTION_OVERLOADS(sum)
MLX_LITE_REDUCTION_OVERLOADS(prod)
MLX_LITE_REDUCTION_OVERLOADS(max)
MLX_LITE_REDUCTION_OVERLOADS(min)
MLX_LITE_REDUCTION_OVERLOADS(all)
MLX_LITE_REDUCTION_OVERLOADS(any)
MLX_LITE_REDUCTION_OVERLOADS(mean)
MLX_LITE_REDUCTION_OVERLOADS(logsumexp)
#undef MLX_LITE_REDUCTION_OVERLOADS

array var(const array& a, const std::vector<int>& axes, bool keepdims, int ddof, StreamOrDevice s) {
  auto n = count(a, normalize_axes(axes, a.ndim(), "var"));
  auto mu = mean(a, axes, true, s);
  auto v = mean(square(subtract(a, mu, s), s), axes, keepdims, s);
  if (ddof != 0) {
    // n / (n - ddof); inf (so a NaN or inf variance) when ddof >= n, as numpy.
    double factor = n / std::max(n - ddof, 0.0);
    v = multiply(v, array(static_cast<float>(factor), at_least_float(a.dtype())), s);
  }
  return v;
}
array var(const array& a, bool keepdims, int ddof, StreamOrDevice s) {
  return var(a, all_axes(a), keepdims, ddof, s);
}
array var(const array& a, StreamOrDevice s) {
  return var(a, false, 0, s);
}
array var(const array& a, int axis, bool keepdims, int ddof, StreamOrDevice s) {
  return var(a, std::vector<int>{axis}, keepdims, ddof, s);
}

namespace {

array arg_reduce(const array& a, int axis_in, bool keepdims, ArgReduce::ReduceType type,
                 const char* op, StreamOrDevice s) {
  int axis = normalize_axis_index(axis_in, a.ndim(), fmt::format("[{}] ", op));
  if (a.shape(axis) == 0) {
    throw std::invalid_argument(
        fmt::format("[{}] Cannot reduce over axis {} of size 0 (array shape {}).", op, axis_in,
                    shape_string(a.shape())));
  }
  auto p = std::make_shared<ArgReduce>(to_stream(s), type, axis, keepdims);
  return array(p->output_shape(a.shape()), uint32, p, {a});
}

// Over the flattened array; keepdims gives ndim size-1 dims.
array arg_reduce_all(const array& a, bool keepdims, ArgReduce::ReduceType type, const char* op,
                     StreamOrDevice s) {
  auto out = arg_reduce(reshape(a, {static_cast<ShapeElem>(a.size())}, s), 0, false, type, op, s);
  return keepdims ? reshape(out, Shape(a.ndim(), 1), s) : out;
}

}  // namespace

array argmax(const array& a, int axis, bool keepdims, StreamOrDevice s) {
  return arg_reduce(a, axis, keepdims, ArgReduce::ArgMax, "argmax", s);
}
array argmax(const array& a, bool keepdims, StreamOrDevice s) {
  return arg_reduce_all(a, keepdims, ArgReduce::ArgMax, "argmax", s);
}
array argmax(const array& a, StreamOrDevice s) {
  return argmax(a, false, s);
}
array argmin(const array& a, int axis, bool keepdims, StreamOrDevice s) {
  return arg_reduce(a, axis, keepdims, ArgReduce::ArgMin, "argmin", s);
}
array argmin(const array& a, bool keepdims, StreamOrDevice s) {
  return arg_reduce_all(a, keepdims, ArgReduce::ArgMin, "argmin", s);
}
array argmin(const array& a, StreamOrDevice s) {
  return argmin(a, false, s);
}

namespace {

array scan(const array& a, int axis_in, bool reverse, bool inclusive, Scan::ReduceType type,
           const char* op, StreamOrDevice s) {
  int axis = normalize_axis(axis_in, a.ndim(), op);
  auto p = std::make_shared<Scan>(to_stream(s), type, axis, reverse, inclusive);
  return array(a.shape(), p->output_dtype(a.dtype()), p, {a});
}

array flat(const array& a, StreamOrDevice s) {
  return reshape(a, {static_cast<ShapeElem>(a.size())}, s);
}

}  // namespace

array cumsum(const array& a, int axis, bool reverse, bool inclusive, StreamOrDevice s) {
  return scan(a, axis, reverse, inclusive, Scan::Sum, "cumsum", s);
}
array cumsum(const array& a, bool reverse, bool inclusive, StreamOrDevice s) {
  return cumsum(flat(a, s), 0, reverse, inclusive, s);
}
array cumprod(const array& a, int axis, bool reverse, bool inclusive, StreamOrDevice s) {
  return scan(a, axis, reverse, inclusive, Scan::Prod, "cumprod", s);
}
array cumprod(const array& a, bool reverse, bool inclusive, StreamOrDevice s) {
  return cumprod(flat(a, s), 0, reverse, inclusive, s);
}
array cummax(const array& a, int axis, bool reverse, bool inclusive, StreamOrDevice s) {
  return scan(a, axis, reverse, inclusive, Scan::Max, "cummax", s);
}
array cummax(const array& a, bool reverse, bool inclusive, StreamOrDevice s) {
  return cummax(flat(a, s), 0, reverse, inclusive, s);
}
array cummin(const array& a, int axis, bool reverse, bool inclusive, StreamOrDevice s) {
  return scan(a, axis, reverse, inclusive, Scan::Min, "cummin", s);
}
array cummin(const array& a, bool reverse, bool inclusive, StreamOrDevice s) {
  return cummin(flat(a, s), 0, reverse, inclusive, s);
}
array logcumsumexp(const array& a, int axis, bool reverse, bool inclusive, StreamOrDevice s) {
  normalize_axis(axis, a.ndim(), "logcumsumexp");  // before the cast, so the error names this op
  array x = is_floating_point(a.dtype()) ? a : astype(a, float32, s);
  return scan(x, axis, reverse, inclusive, Scan::LogAddExp, "logcumsumexp", s);
}
array logcumsumexp(const array& a, bool reverse, bool inclusive, StreamOrDevice s) {
  return logcumsumexp(flat(a, s), 0, reverse, inclusive, s);
}

array softmax(const array& a, const std::vector<int>& axes_in, bool precise, StreamOrDevice s) {
  if (a.ndim() == 0 && !axes_in.empty()) {
    throw std::invalid_argument("[softmax] A 0-D array has no axes to take the softmax over.");
  }
  auto axes = normalize_axes_index(axes_in, a.ndim(), "softmax");
  if (a.size() == 0) return a;
  auto out_type = at_least_float(a.dtype());
  if (axes.size() == 1 && axes[0] == a.ndim() - 1) {
    auto in = a.dtype() == out_type ? a : astype(a, out_type, s);
    return array(a.shape(), out_type, std::make_shared<Softmax>(to_stream(s), precise), {in});
  }
  auto in = astype(a, precise ? float32 : out_type, s);
  auto ex = exp(subtract(in, max(in, axes, true, s), s), s);
  return astype(divide(ex, sum(ex, axes, true, s), s), out_type, s);
}
array softmax(const array& a, int axis, bool precise, StreamOrDevice s) {
  return softmax(a, std::vector<int>{axis}, precise, s);
}
array softmax(const array& a, bool precise, StreamOrDevice s) {
  return softmax(a, all_axes(a), precise, s);
}

}  // namespace mlx_lite
