// array_equal, isclose and allclose: compositions, as MLX's are, so they run
// on both devices through the elementwise kernels and need no rules of their
// own (their outputs are bool).
#include "mlx_lite/ops/comparison.h"

#include "mlx_lite/ops/binary.h"
#include "mlx_lite/ops/reduction.h"
#include "mlx_lite/ops/unary.h"

namespace mlx_lite {

namespace {

// Where both are NaN (false everywhere for integer and bool inputs).
array both_nan(const array& a, const array& b, StreamOrDevice s) {
  return logical_and(isnan(a, s), isnan(b, s), s);
}

}  // namespace

array array_equal(const array& a, const array& b, bool equal_nan, StreamOrDevice s) {
  if (a.shape() != b.shape()) return array(false);
  const Dtype t = promote_types(a.dtype(), b.dtype());
  array x = astype(a, t, s), y = astype(b, t, s);
  array same = equal(x, y, s);
  if (equal_nan && is_floating_point(t)) same = logical_or(same, both_nan(x, y, s), s);
  return all(same, false, s);
}

array array_equal(const array& a, const array& b, StreamOrDevice s) {
  return array_equal(a, b, false, s);
}

array isclose(const array& a, const array& b, double rtol, double atol, bool equal_nan,
              StreamOrDevice s) {
  // MLX's formula and order of operations: the tolerances are float32 scalars.
  array within = less_equal(abs(subtract(a, b, s), s),
                            add(array(atol), multiply(array(rtol), abs(b, s), s), s), s);
  // Infinities: |inf - inf| is NaN and |inf - x| may pass a huge tolerance,
  // so any infinity is close only to the same infinity.
  array a_pos = isposinf(a, s), a_neg = isneginf(a, s);
  array b_pos = isposinf(b, s), b_neg = isneginf(b, s);
  array any_inf = logical_or(logical_or(a_pos, a_neg, s), logical_or(b_pos, b_neg, s), s);
  array same_inf = logical_or(logical_and(a_pos, b_pos, s), logical_and(a_neg, b_neg, s), s);
  array out = logical_or(logical_and(within, logical_not(any_inf, s), s), same_inf, s);
  if (equal_nan) out = logical_or(out, both_nan(a, b, s), s);
  return out;
}

array allclose(const array& a, const array& b, double rtol, double atol, bool equal_nan,
               StreamOrDevice s) {
  return all(isclose(a, b, rtol, atol, equal_nan, s), false, s);
}

}  // namespace mlx_lite
