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

// A GPU Softmax or LogSumExp splits a long row across workgroups, each
// walking at most 2^21 elements (lavapipe stops an invocation after 65,535
// loop iterations in all, silently), in at most 256 parts
// (backend/vulkan/softmax.cpp). A last axis longer than kLongRow is composed
// from max and sum instead, whose reductions split rows without a bound, in
// float32 (a float16 sum of that many terms can overflow).
constexpr int64_t kLongRow = int64_t{1} << 29;

bool long_gpu_row(const array& a, StreamOrDevice s) {
  return to_stream(s).device == Device::gpu && a.ndim() > 0 && a.shape(-1) > kLongRow;
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
  const bool last_axis = axes.size() == 1 && axes[0] == a.ndim() - 1;
  const bool long_row = last_axis && long_gpu_row(a, s);
  const Dtype type = long_row ? float32 : out_type;
  auto in = a.dtype() == type ? a : astype(a, type, s);
  if (last_axis && !long_row) {
    auto p = std::make_shared<LogSumExp>(to_stream(s), keepdims);
    return array(p->output_shape(a.shape()), out_type, p, {in});
  }
  // Shift by the max so exp cannot overflow; an infinite max (a row of -inf,
  // or a +inf) shifts by 0 instead, so -inf - -inf never makes a NaN.
  auto m = max(in, axes, true, s);
  auto inf = array(std::numeric_limits<float>::infinity(), type);
  m = where(less(abs(m, s), inf, s), m, array(0.0f, type), s);
  auto out = log(sum(exp(subtract(in, m, s), s), axes, keepdims, s), s);
  out = add(out, keepdims ? m : squeeze(m, axes, s), s);
  return type == out_type ? out : astype(out, out_type, s);
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

// A GPU scan walks each line in one workgroup, so a long line with few
// others runs nearly serially (1M elements: 50x slower than PyTorch on an
// H100), and lavapipe would stop the walk past 64M elements. Axes longer than
// kLongScan are scanned in blocks of kScanBlock instead: every block on its
// own, then the blocks' totals (recursively), combined back into the blocks.
constexpr int kLongScan = 1 << 16;
constexpr int kScanBlock = 1 << 12;

// The element that leaves a scan unchanged, as the kernels start from.
array scan_identity(Scan::ReduceType type, Dtype dt) {
  switch (type) {
    case Scan::Sum:
      return array(0, dt);
    case Scan::Prod:
      return array(1, dt);
    case Scan::LogAddExp:
      return array(-std::numeric_limits<float>::infinity(), dt);
    default:
      break;
  }
  const bool max = type == Scan::Max;
  if (is_floating_point(dt)) {
    return array(
        max ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity(), dt);
  }
  return dispatch_dtype(dt, [&]<typename T>() {
    return array(max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max(), dt);
  });
}

// carry (op) x, as the kernels combine an earlier part with a later one:
// max/min keep the earlier value unless the later is strictly beyond it, and
// the first NaN.
array combine_scan(Scan::ReduceType type, const array& carry, const array& x, StreamOrDevice s) {
  switch (type) {
    case Scan::Sum:
      return add(carry, x, s);
    case Scan::Prod:
      return multiply(carry, x, s);
    case Scan::LogAddExp:
      return logaddexp(carry, x, s);
    default:
      break;
  }
  array beyond = type == Scan::Max ? greater(x, carry, s) : less(x, carry, s);
  if (is_floating_point(x.dtype())) {
    beyond = logical_and(logical_not(isnan(carry, s), s), logical_or(beyond, isnan(x, s), s), s);
  }
  return where(beyond, x, carry, s);
}

array scan_primitive(const array& a, int axis, bool reverse, bool inclusive, Scan::ReduceType type,
                     StreamOrDevice s) {
  auto p = std::make_shared<Scan>(to_stream(s), type, axis, reverse, inclusive);
  return array(a.shape(), p->output_dtype(a.dtype()), p, {a});
}

array scan_in_blocks(const array& a, int axis, bool reverse, bool inclusive, Scan::ReduceType type,
                     StreamOrDevice s);

array scan_any(const array& a, int axis, bool reverse, bool inclusive, Scan::ReduceType type,
               StreamOrDevice s) {
  if (to_stream(s).device == Device::gpu && a.shape(axis) > kLongScan) {
    return scan_in_blocks(a, axis, reverse, inclusive, type, s);
  }
  return scan_primitive(a, axis, reverse, inclusive, type, s);
}

array scan_in_blocks(const array& a, int axis, bool reverse, bool inclusive, Scan::ReduceType type,
                     StreamOrDevice s) {
  const Dtype out_dtype =
      Scan(to_stream(s), type, axis, reverse, inclusive).output_dtype(a.dtype());
  // Half floats combine in float32, as the kernel accumulates them.
  const bool half = out_dtype == float16 || out_dtype == bfloat16;
  array x = moveaxis(half ? astype(a, float32, s) : a, axis, -1, s);
  const int n = x.shape(-1), m = (n + kScanBlock - 1) / kScanBlock;
  const int last = x.ndim() - 1;
  // Pad the line to whole blocks with the identity (after its end, which a
  // reverse scan reaches first, so it changes nothing either way).
  std::vector<int> axes{last};
  x = pad(x, axes, {0}, {m * kScanBlock - n}, scan_identity(type, x.dtype()), "constant", s);
  Shape block_shape = x.shape();
  block_shape.back() = m;
  block_shape.push_back(kScanBlock);
  const array inner = scan_primitive(reshape(x, block_shape, s), last + 1, reverse, true, type, s);
  // Each block's total is its inclusive scan's last element (first, reversed);
  // what comes before a block is the exclusive scan of the totals.
  Shape start(inner.ndim(), 0), stop = inner.shape();
  start.back() = reverse ? 0 : kScanBlock - 1;
  stop.back() = start.back() + 1;
  const array totals = squeeze(slice(inner, start, stop, s), last + 1, s);
  const array carry = expand_dims(scan_any(totals, last, reverse, false, type, s), last + 1, s);
  Shape line_shape = x.shape();
  array out = reshape(combine_scan(type, carry, inner, s), line_shape, s);
  // Back to n elements; an exclusive scan is the inclusive one shifted by one.
  Shape lo(out.ndim(), 0), hi = out.shape();
  hi.back() = n;
  if (!inclusive) {
    lo.back() = reverse ? 1 : 0;
    hi.back() = reverse ? n : n - 1;
  }
  out = slice(out, lo, hi, s);
  if (!inclusive) {
    const array id = scan_identity(type, out.dtype());
    out = pad(out, axes, {reverse ? 0 : 1}, {reverse ? 1 : 0}, id, "constant", s);
  }
  return astype(moveaxis(out, -1, axis, s), out_dtype, s);
}

array scan(const array& a, int axis_in, bool reverse, bool inclusive, Scan::ReduceType type,
           const char* op, StreamOrDevice s) {
  int axis = normalize_axis(axis_in, a.ndim(), op);
  return scan_any(a, axis, reverse, inclusive, type, s);
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
  const bool last_axis = axes.size() == 1 && axes[0] == a.ndim() - 1;
  const bool long_row = last_axis && long_gpu_row(a, s);
  if (last_axis && !long_row) {
    auto in = a.dtype() == out_type ? a : astype(a, out_type, s);
    return array(a.shape(), out_type, std::make_shared<Softmax>(to_stream(s), precise), {in});
  }
  auto in = astype(a, precise || long_row ? float32 : out_type, s);
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
