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

#include <limits>

#include "mlx_lite/ops/ops.h"
#include "mlx_lite/transforms/rules/scalar.h"

namespace mlx_lite {

namespace {

using rules::scalar;

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

namespace {

// Positions along `axis`, shaped to broadcast against an array of `ndim` dims.
array positions(int64_t n, int axis, int ndim, Stream s) {
  Shape shape(ndim, 1);
  shape[axis] = n;
  return reshape(arange(0, static_cast<int>(n), s), std::move(shape), s);
}

// Where cummax/cummin's output i comes from: the latest position j (in scan
// order, j <= i; j < i when exclusive) holding the running extreme, and
// whether there is one (an exclusive scan's first output is the identity).
struct Extreme {
  array index;  // int32, 0 where !valid
  array valid;  // bool
};

Extreme extreme_positions(const array& x, const array& out, int axis, bool reverse, bool inclusive,
                          bool is_max, Stream s) {
  const int64_t n = x.shape(axis);
  array incl =
      inclusive ? out
                : (is_max ? cummax(x, axis, reverse, true, s) : cummin(x, axis, reverse, true, s));
  // NaN holds the extreme from its position on (NaN != NaN marks it).
  array hit = logical_or(equal(x, incl, s), not_equal(x, x, s), s);
  array pos = positions(n, axis, x.ndim(), s);
  // The latest hit in scan order: the largest position going forwards, the
  // smallest going backwards; misses hold a value that never wins.
  array miss = array(reverse ? static_cast<int>(n) : -1, int32);
  array marked = where(hit, pos, miss, s);
  array last = reverse ? cummin(marked, axis, true, inclusive, s)
                       : cummax(marked, axis, false, inclusive, s);
  array valid = logical_and(greater_equal(last, array(0, int32), s),
                            less(last, array(static_cast<int>(n), int32), s), s);
  return {where(valid, last, array(0, int32), s), valid};
}

// cumprod's derivative terms (as MLX's vjp): before the first zero of a line
// the usual out / x; at the first zero z, the product with x_z replaced by 1;
// past it, zero (two zeros in the product).
struct ProdTerms {
  array first_zero;     // bool: x_z, the first zero of its line
  array zero_before;    // bool: the inclusive product up to j is 0 (j at or past z)
  array prod_with_one;  // the scan of x with the first zero replaced by 1
};

ProdTerms prod_terms(const array& x, const array& out, int axis, bool reverse, bool inclusive,
                     Stream s) {
  array zero = array(0, x.dtype());
  array other = cumprod(x, axis, reverse, !inclusive, s);
  array incl = inclusive ? out : other;
  array excl = inclusive ? other : out;
  array first_zero = logical_and(equal(incl, zero, s), not_equal(excl, zero, s), s);
  array with_one =
      cumprod(where(first_zero, array(1, x.dtype()), x, s), axis, reverse, inclusive, s);
  return {first_zero, equal(incl, zero, s), with_one};
}

// log(max(v, 0)) and log(max(-v, 0)), -inf where v has the other sign: the
// two halves of a signed sum done in log space.
std::pair<array, array> signed_logs(const array& v, Stream s) {
  array ninf = array(-std::numeric_limits<float>::infinity(), v.dtype());
  array zero = array(0, v.dtype());
  array l = log(abs(v, s), s);
  return {where(greater(v, zero, s), l, ninf, s), where(less(v, zero, s), l, ninf, s)};
}

// out with -inf (a sum of no terms: an exclusive scan's first output, or
// -inf inputs only) replaced by 0, so that exp(l - out) stays 0 there
// instead of NaN (every term l is -inf too).
array finite_or_zero(const array& out, Stream s) {
  array ninf = array(-std::numeric_limits<float>::infinity(), out.dtype());
  return where(equal(out, ninf, s), zeros_like(out, s), out, s);
}

}  // namespace

std::vector<array> Scan::jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                             const std::vector<int>&) {
  const array& x = primals[0];
  const Stream s = stream();
  if (!is_floating_point(x.dtype())) {
    return {zeros(x.shape(), output_dtype(x.dtype()), s)};
  }
  const array& t = tangents[0];
  switch (type_) {
    case Sum:
      return {cumsum(t, axis_, reverse_, inclusive_, s)};
    case Prod: {
      // d out_i = sum_j t_j prod_{k != j} x_k: out_i * cumsum(t / x) while
      // out_i != 0, else only the first zero's term survives.
      array out = cumprod(x, axis_, reverse_, inclusive_, s);
      auto [first_zero, zero_before, with_one] = prod_terms(x, out, axis_, reverse_, inclusive_, s);
      array nonzero = not_equal(out, array(0, x.dtype()), s);
      array safe_x = where(equal(x, array(0, x.dtype()), s), array(1, x.dtype()), x, s);
      array regular =
          multiply(out, cumsum(divide(t, safe_x, s), axis_, reverse_, inclusive_, s), s);
      array t_zero =
          cumsum(where(first_zero, t, zeros_like(t, s), s), axis_, reverse_, inclusive_, s);
      return {where(nonzero, regular, multiply(t_zero, with_one, s), s)};
    }
    case Max:
    case Min: {
      array out = type_ == Max ? cummax(x, axis_, reverse_, inclusive_, s)
                               : cummin(x, axis_, reverse_, inclusive_, s);
      auto [index, valid] = extreme_positions(x, out, axis_, reverse_, inclusive_, type_ == Max, s);
      return {where(valid, take_along_axis(t, index, axis_, s), zeros_like(t, s), s)};
    }
    case LogAddExp: {
      // d out_i = sum_{j} t_j exp(x_j - out_i), the signed sum in log space.
      array out = finite_or_zero(logcumsumexp(x, axis_, reverse_, inclusive_, s), s);
      auto [pos, neg] = signed_logs(t, s);
      auto part = [&](const array& l) {
        return exp(subtract(logcumsumexp(add(l, x, s), axis_, reverse_, inclusive_, s), out, s), s);
      };
      return {subtract(part(pos), part(neg), s)};
    }
  }
  return {};
}

std::vector<array> Scan::vjp(const std::vector<array>& primals,
                             const std::vector<array>& cotangents, const std::vector<int>&,
                             const std::vector<array>& outputs) {
  const array& x = primals[0];
  const Stream s = stream();
  if (!is_floating_point(x.dtype())) return {zeros_like(x, s)};
  const array& ct = cotangents[0];
  const array& out = outputs[0];
  // Each rule runs the forward scan's dependence backwards: x_j feeds every
  // out_i at or after it (after it when exclusive), so sums over those i are
  // the same scan in the other direction.
  auto backwards = [&](const array& v) { return cumsum(v, axis_, !reverse_, inclusive_, s); };
  switch (type_) {
    case Sum:
      return {backwards(ct)};
    case Prod: {
      auto [first_zero, zero_before, with_one] = prod_terms(x, out, axis_, reverse_, inclusive_, s);
      array regular = divide(backwards(multiply(out, ct, s)), x, s);
      array at_zero = backwards(multiply(with_one, ct, s));
      // The first zero takes at_zero; later positions feed only products
      // that hold the first zero too: zero.
      return {where(first_zero, at_zero, where(zero_before, zeros_like(x, s), regular, s), s)};
    }
    case Max:
    case Min: {
      auto [index, valid] = extreme_positions(x, out, axis_, reverse_, inclusive_, type_ == Max, s);
      array routed = where(valid, ct, zeros_like(ct, s), s);
      return {scatter_add_axis(zeros_like(x, s), stop_gradient(index, s), routed, axis_, s)};
    }
    case LogAddExp: {
      // x_j's cotangent: sum_i ct_i exp(x_j - out_i) over the i it feeds.
      auto [pos, neg] = signed_logs(ct, s);
      const array safe_out = finite_or_zero(out, s);
      auto part = [&](const array& l) {
        return exp(
            add(logcumsumexp(subtract(l, safe_out, s), axis_, !reverse_, inclusive_, s), x, s), s);
      };
      return {subtract(part(pos), part(neg), s)};
    }
  }
  return {};
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
