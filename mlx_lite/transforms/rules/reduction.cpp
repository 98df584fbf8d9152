// Derivative rules of the reductions, scans, softmax and logsumexp.
//
// A reduction's output may or may not keep the reduced dims as size-1
// placeholders (the layout is the same either way; the primitive records
// which): the jvps reduce with the same keepdims, so they return the output's
// shape, and the vjps reshape the cotangent to the kept-dims shape before
// broadcasting it back.
//
// Integer and boolean inputs have no derivative: their rules give zeros.
#include "mlx_lite/primitives/reduction.h"

#include "mlx_lite/ops/ops.h"

namespace mlx_lite {

namespace {

array scalar(double v, const array& x) {
  return array(v, x.dtype());
}

// `shape` with the dims in `axes` set to 1.
Shape kept_dims(Shape shape, const std::vector<int>& axes) {
  for (int ax : axes) shape[ax] = 1;
  return shape;
}

// d prod(x) / d x_i: the product of the other elements of x_i's group,
// exact where x holds zeros (not prod / x_i). With P the product of the
// group's non-zeros and Z the sum of its zeros (0, but it carries their
// derivative), it is, by the group's number of zeros:
//   none:  P / x_i
//   one:   P at the zero, Z P / x_i elsewhere
//   two:   (Z - x_i) P at each zero (the other zero times P), 0 elsewhere
//   more:  0
// Each case is written so that its own derivative is right too (a zero's
// factor is kept as Z rather than folded into the constant 0), which keeps
// second derivatives exact at zeros.
array prod_of_others(const array& x, const std::vector<int>& axes, Stream s) {
  array zero = scalar(0, x);
  array is_zero = equal(x, zero, s);
  array zero_count = sum(astype(is_zero, int32, s), axes, true, s);
  auto count_is = [&](int n) { return equal(zero_count, array(n, int32), s); };
  array safe = where(is_zero, scalar(1, x), x, s);
  array p = prod(safe, axes, true, s);
  array z = sum(where(is_zero, x, zero, s), axes, true, s);
  array p_over_x = divide(p, safe, s);
  array one_zero = where(is_zero, p, multiply(z, p_over_x, s), s);
  array two_zeros = where(is_zero, multiply(subtract(z, x, s), p, s), zero, s);
  return where(count_is(0), p_over_x,
               where(count_is(1), one_zero, where(count_is(2), two_zeros, zero, s), s), s);
}

// The share of the cotangent each element of a max or min gets: MLX's
// routing, equal among the elements tied at the extreme.
array extreme_share(const array& x, const array& extreme_kept, const std::vector<int>& axes,
                    Stream s) {
  array mask = astype(equal(x, extreme_kept, s), x.dtype(), s);
  return divide(mask, sum(mask, axes, true, s), s);
}

}  // namespace

std::vector<array> Reduce::jvp(const std::vector<array>& primals,
                               const std::vector<array>& tangents, const std::vector<int>&) {
  const array& x = primals[0];
  const array& t = tangents[0];
  if (!is_floating_point(x.dtype()) || type_ == And || type_ == Or) {
    return {zeros(output_shape(x.shape()), output_dtype(x.dtype()), stream())};
  }
  switch (type_) {
    case Prod:
      return {sum(multiply(t, prod_of_others(x, axes_, stream()), stream()), axes_, keepdims_,
                  stream())};
    case Max:
    case Min: {
      array extreme = type_ == Max ? max(x, axes_, true, stream()) : min(x, axes_, true, stream());
      return {sum(multiply(t, extreme_share(x, extreme, axes_, stream()), stream()), axes_,
                  keepdims_, stream())};
    }
    default:
      return {sum(t, axes_, keepdims_, stream())};
  }
}

std::vector<array> Reduce::vjp(const std::vector<array>& primals,
                               const std::vector<array>& cotangents, const std::vector<int>&,
                               const std::vector<array>& outputs) {
  const array& x = primals[0];
  if (!is_floating_point(x.dtype()) || type_ == And || type_ == Or) {
    return {zeros_like(x, stream())};
  }
  const Shape kept = kept_dims(x.shape(), axes_);
  array cot = broadcast_to(reshape(cotangents[0], kept, stream()), x.shape(), stream());
  switch (type_) {
    case Prod:
      return {multiply(cot, prod_of_others(x, axes_, stream()), stream())};
    case Max:
    case Min: {
      array extreme = reshape(outputs[0], kept, stream());
      return {multiply(cot, extreme_share(x, extreme, axes_, stream()), stream())};
    }
    default:
      return {cot};
  }
}

std::vector<array> ArgReduce::jvp(const std::vector<array>& primals, const std::vector<array>&,
                                  const std::vector<int>&) {
  return {zeros(output_shape(primals[0].shape()), uint32, stream())};
}

std::vector<array> ArgReduce::vjp(const std::vector<array>& primals, const std::vector<array>&,
                                  const std::vector<int>&, const std::vector<array>&) {
  return {zeros_like(primals[0], stream())};
}

std::vector<array> Scan::jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                             const std::vector<int>&) {
  const array& x = primals[0];
  if (!is_floating_point(x.dtype())) {
    return {zeros(x.shape(), output_dtype(x.dtype()), stream())};
  }
  return {cumsum(tangents[0], axis_, reverse_, inclusive_, stream())};
}

std::vector<array> Scan::vjp(const std::vector<array>& primals,
                             const std::vector<array>& cotangents, const std::vector<int>&,
                             const std::vector<array>&) {
  // out_i sums x_j over j <= i (j < i when exclusive), so x_j's cotangent
  // sums the cotangents of every i >= j (i > j): the same scan the other way.
  if (!is_floating_point(primals[0].dtype())) return {zeros_like(primals[0], stream())};
  return {cumsum(cotangents[0], axis_, !reverse_, inclusive_, stream())};
}

namespace {

array softmax_of(const array& x, bool precise, Stream s) {
  return array(x.shape(), x.dtype(), std::make_shared<Softmax>(s, precise), {x});
}

// The product of the softmax Jacobian with v: s * (v - sum(v * s)) on the last axis.
array softmax_product(const array& sm, const array& v, Stream s) {
  return multiply(sm, subtract(v, sum(multiply(v, sm, s), -1, true, s), s), s);
}

}  // namespace

std::vector<array> Softmax::jvp(const std::vector<array>& primals,
                                const std::vector<array>& tangents, const std::vector<int>&) {
  return {softmax_product(softmax_of(primals[0], precise_, stream()), tangents[0], stream())};
}

std::vector<array> Softmax::vjp(const std::vector<array>&, const std::vector<array>& cotangents,
                                const std::vector<int>&, const std::vector<array>& outputs) {
  return {softmax_product(outputs[0], cotangents[0], stream())};
}

// d logsumexp(x) / d x = softmax(x) over the last axis.
std::vector<array> LogSumExp::jvp(const std::vector<array>& primals,
                                  const std::vector<array>& tangents, const std::vector<int>&) {
  array sm = softmax_of(primals[0], false, stream());
  return {sum(multiply(tangents[0], sm, stream()), -1, keepdims_, stream())};
}

std::vector<array> LogSumExp::vjp(const std::vector<array>& primals,
                                  const std::vector<array>& cotangents, const std::vector<int>&,
                                  const std::vector<array>&) {
  const array& x = primals[0];
  array cot = reshape(cotangents[0], kept_dims(x.shape(), {x.ndim() - 1}), stream());
  return {multiply(cot, softmax_of(x, false, stream()), stream())};
}

}  // namespace mlx_lite
